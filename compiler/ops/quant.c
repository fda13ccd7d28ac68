/* quant.c — linear quantisation with exact integer arithmetic (templates/quant.c):
 *   QuantizeLinear    float32 -> uint8/int8/uint16/int16/[u]int4/[u]int2, per tensor, per axis
 *                     or blocked; -> float8 / float4e2m1 with templates/lowtypes.c
 *   DequantizeLinear  those types and int32 -> float32 (float16 scales computed in float32 by
 *                     promote_half), the same granularities
 *   DynamicQuantizeLinear  float32 -> uint8 with the computed scale and zero point
 *   MatMulInteger     uint8/int8 x uint8/int8 -> int32 (numpy matmul batching)
 *   ConvInteger       uint8/int8 -> int32, 1-D to 3-D, groups, pads, strides, dilations
 *   QLinearMatMul, QLinearConv  the same, requantised to uint8/int8 (float32 or float16
 *                     scales), as the onnx reference rounds: half to even, then saturate.
 * Scales and zero points may be runtime inputs: the kernels read them at run time. */
#include "kernels.h"
#include "ops.h"

#include <stdlib.h>
#include <string.h>

static bool is_q8(DType t)
{
    return t == DT_UINT8 || t == DT_INT8;
}

static bool is_q16(DType t)
{
    return t == DT_UINT16 || t == DT_INT16;
}

/* [u]int4, [u]int2: integers like the 8-bit types, one element per byte. */
static bool is_q_int(DType t)
{
    return is_q8(t) || is_q16(t) || t == DT_UINT4 || t == DT_INT4 || t == DT_UINT2 || t == DT_INT2;
}

/* float8 e4m3/e5m2 types and float4e2m1: quantize_linear_low / dequantize_linear_low in
 * templates/lowtypes.c; their nodes are bound to the "(low)" op entries, whose emitted code
 * needs that template. */
static bool is_q_float(DType t)
{
    return (t >= DT_FLOAT8E4M3FN && t <= DT_FLOAT8E5M2FNUZ) || t == DT_FLOAT4E2M1;
}

static int64_t numel(const Value *v)
{
    return value_numel(v);
}

/* ---- QuantizeLinear / DequantizeLinear ---- */

typedef struct QAxis {
    int64_t outer, len, inner, block;
    int64_t s[3]; /* scale strides: outer, block index, inner */
} QAxis;

/* The granularity of the scale against x (reshape_input of the onnx reference). */
static QAxis q_axis(const Node *n, const Value *x, const Value *scale, const Value *zp)
{
    QAxis q = {1, 1, 1, 1, {0, 0, 0}};
    int64_t len = numel(x);
    int64_t block = attr_int(n, "block_size", 0);
    if (block < 0)
        fatal_at(n, "block_size must not be negative");
    bool one_each = zp && numel(zp) == 1 && zp->rank <= 1 && numel(scale) == 1 &&
                    scale->rank <= 1; /* a scalar scale with a [1] zero point, say */
    if (zp && !one_each &&
        (zp->rank != scale->rank ||
         memcmp(zp->dims, scale->dims, sizeof(int64_t) * (size_t)scale->rank)))
        fatal_at(n, "the zero point's shape differs from the scale's");
    if (numel(scale) == 1 && scale->rank <= 1) {
        q.len = len;
        return q;
    }
    int axis = normalize_axis(n, attr_int(n, "axis", 1), x->rank);
    for (int i = 0; i < axis; i++)
        q.outer *= x->dims[i];
    q.len = x->dims[axis];
    for (int i = axis + 1; i < x->rank; i++)
        q.inner *= x->dims[i];
    if (!block) {
        if (scale->rank != 1 || scale->dims[0] != q.len)
            fatal_at(n, "the scale must be a scalar or 1-D with %lld elements (axis %d)",
                     (long long)q.len, axis);
        q.s[1] = 1;
        return q;
    }
    int64_t nb = (q.len + block - 1) / block;
    bool ok = scale->rank == x->rank;
    for (int i = 0; ok && i < x->rank; i++)
        ok = scale->dims[i] == (i == axis ? nb : x->dims[i]);
    if (!ok)
        fatal_at(n, "blocked quantisation needs the scale shaped as the input with dim %d = %lld",
                 axis, (long long)nb);
    q.block = block;
    q.s[0] = nb * q.inner;
    q.s[1] = q.inner;
    q.s[2] = 1;
    return q;
}

static DType quantize_type(const Node *n)
{
    const Value *zp = node_input(n, 2);
    int64_t od = attr_int(n, "output_dtype", 0);
    DType t = zp ? zp->dtype : od ? (DType)od : DT_UINT8;
    if (zp && od && od != zp->dtype)
        fatal_at(n, "output_dtype %lld differs from the zero point's type %s", (long long)od,
                 dtype_name(zp->dtype));
    if (!is_q_int(t) && !is_q_float(t))
        fatal_at(n,
                 "output type %s is not supported ([u]int8, [u]int16, [u]int4, [u]int2, "
                 "float8 and float4e2m1 are)",
                 dtype_name(t));
    return t;
}

void quantize_infer(Node *n)
{
    const Value *x = n->inputs[0], *scale = n->inputs[1], *zp = node_input(n, 2);
    require_float(n, x);
    require_float(n, scale);
    int64_t prec = attr_int(n, "precision", 0);
    if (prec && prec != DT_FLOAT)
        fatal_at(n, "precision %lld is not supported (float32 is)", (long long)prec);
    DType t = quantize_type(n);
    int64_t sat = attr_int(n, "saturate", 1);
    if (sat != 0 && sat != 1)
        fatal_at(n, "saturate must be 0 or 1, not %lld", (long long)sat);
    q_axis(n, x, scale, zp);
    if (is_q_float(t))
        n->op = op_lookup("QuantizeLinear(low)");
    set_shape(n->outputs[0], t, x->rank, x->dims);
}

void quantize_fold(Node *n)
{
    const Value *x = n->inputs[0], *scale = n->inputs[1], *zp = node_input(n, 2);
    QAxis q = q_axis(n, x, scale, zp);
    DType t = quantize_type(n);
    if (is_q_float(t))
        quantize_linear_low(q.outer, q.len, q.inner, q.block, q.s, x->data, scale->data, (int)t,
                            zp ? zp->data : NULL, (int)attr_int(n, "saturate", 1),
                            n->outputs[0]->data);
    else
        quantize_linear_f32(q.outer, q.len, q.inner, q.block, q.s, x->data, scale->data, (int)t,
                            zp ? zp->data : NULL, n->outputs[0]->data);
}

static const char *opt_name(Emitter *e, Value *v)
{
    return v ? value_cname(e, v) : "NULL";
}

void quantize_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *scale = n->inputs[1], *zp = node_input(n, 2);
    QAxis q = q_axis(n, x, scale, zp);
    const char *s = emit_dims(e, 3, q.s);
    DType t = quantize_type(n);
    if (is_q_float(t)) {
        println(e, "quantize_linear_low(%lld, %lld, %lld, %lld, %s, %s, %s, %d, %s, %d, %s);",
                (long long)q.outer, (long long)q.len, (long long)q.inner, (long long)q.block, s,
                value_cname(e, x), value_cname(e, scale), (int)t, opt_name(e, zp),
                (int)attr_int(n, "saturate", 1), value_cname(e, n->outputs[0]));
        return;
    }
    println(e, "quantize_linear_f32(%lld, %lld, %lld, %lld, %s, %s, %s, %d, %s, %s);",
            (long long)q.outer, (long long)q.len, (long long)q.inner, (long long)q.block, s,
            value_cname(e, x), value_cname(e, scale), (int)t, opt_name(e, zp),
            value_cname(e, n->outputs[0]));
}

void dequantize_infer(Node *n)
{
    const Value *x = n->inputs[0], *scale = n->inputs[1], *zp = node_input(n, 2);
    if (!is_q_int(x->dtype) && !is_q_float(x->dtype) && x->dtype != DT_INT32)
        fatal_at(n,
                 "input type %s is not supported ([u]int8, [u]int16, int32, [u]int4, [u]int2, "
                 "float8, float4e2m1 are)",
                 dtype_name(x->dtype));
    if (scale->dtype != DT_FLOAT)
        fatal_at(n, "scale type %s is not supported (float32 is)", dtype_name(scale->dtype));
    if (zp && zp->dtype != x->dtype)
        fatal_at(n, "the zero point's type %s differs from the input's %s", dtype_name(zp->dtype),
                 dtype_name(x->dtype));
    int64_t od = attr_int(n, "output_dtype", 0);
    if (od && od != DT_FLOAT)
        fatal_at(n, "output_dtype %lld is not supported (float32 is)", (long long)od);
    q_axis(n, x, scale, zp);
    if (is_q_float(x->dtype) && x->dtype != DT_FLOAT4E2M1 && zp && zp->data)
        for (int64_t i = 0; i < numel(zp); i++) /* the reference refuses others; never read */
            if (low_to_float((int)zp->dtype, ((const uint8_t *)zp->data)[i]) != 0.0f)
                fatal_at(n, "the zero point of a float8 input must be 0");
    if (is_q_float(x->dtype))
        n->op = op_lookup("DequantizeLinear(low)");
    set_shape(n->outputs[0], DT_FLOAT, x->rank, x->dims);
}

void dequantize_fold(Node *n)
{
    const Value *x = n->inputs[0], *scale = n->inputs[1], *zp = node_input(n, 2);
    QAxis q = q_axis(n, x, scale, zp);
    if (is_q_float(x->dtype))
        dequantize_linear_low(q.outer, q.len, q.inner, q.block, q.s, (int)x->dtype, x->data,
                              scale->data, n->outputs[0]->data);
    else
        dequantize_linear_f32(q.outer, q.len, q.inner, q.block, q.s, (int)x->dtype, x->data,
                              scale->data, zp ? zp->data : NULL, n->outputs[0]->data);
}

void dequantize_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *scale = n->inputs[1], *zp = node_input(n, 2);
    QAxis q = q_axis(n, x, scale, zp);
    const char *s = emit_dims(e, 3, q.s);
    if (is_q_float(x->dtype)) {
        println(e, "dequantize_linear_low(%lld, %lld, %lld, %lld, %s, %d, %s, %s, %s);",
                (long long)q.outer, (long long)q.len, (long long)q.inner, (long long)q.block, s,
                (int)x->dtype, value_cname(e, x), value_cname(e, scale),
                value_cname(e, n->outputs[0]));
        return;
    }
    println(e, "dequantize_linear_f32(%lld, %lld, %lld, %lld, %s, %d, %s, %s, %s, %s);",
            (long long)q.outer, (long long)q.len, (long long)q.inner, (long long)q.block, s,
            (int)x->dtype, value_cname(e, x), value_cname(e, scale), opt_name(e, zp),
            value_cname(e, n->outputs[0]));
}

/* ---- DynamicQuantizeLinear ---- */

void dynamic_quantize_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_float(n, x);
    set_shape(n->outputs[0], DT_UINT8, x->rank, x->dims);
    if (n->noutputs > 1)
        set_shape(n->outputs[1], DT_FLOAT, 0, NULL);
    if (n->noutputs > 2)
        set_shape(n->outputs[2], DT_UINT8, 0, NULL);
    if (n->noutputs != 3)
        fatal_at(n, "has %d outputs, the op has 3", n->noutputs);
}

void dynamic_quantize_fold(Node *n)
{
    dynamic_quantize_linear_f32(numel(n->inputs[0]), n->inputs[0]->data, n->outputs[0]->data,
                                n->outputs[1]->data, n->outputs[2]->data);
}

void dynamic_quantize_emit(Emitter *e, Node *n)
{
    println(e, "dynamic_quantize_linear_f32(%lld, %s, %s, %s, %s);", (long long)numel(n->inputs[0]),
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]),
            value_cname(e, n->outputs[1]), value_cname(e, n->outputs[2]));
}

/* ---- MatMulInteger / QLinearMatMul ---- */

/* A per-tensor parameter: one element (rank 0 or 1). */
static void require_scalar(const Node *n, const Value *v, const char *what)
{
    if (v && (numel(v) != 1 || v->rank > 1))
        fatal_at(n,
                 "%s '%s' must be a scalar or have one element (per-row and blocked forms "
                 "are not supported)",
                 what, v->name);
}

/* A per-tensor or per-output-channel parameter: stride 0 or 1 over `count` channels. */
static int64_t channel_stride(const Node *n, const Value *v, int64_t count, const char *what)
{
    if (!v || (numel(v) == 1 && v->rank <= 1))
        return 0;
    if (v->rank == 1 && v->dims[0] == count)
        return 1;
    fatal_at(n, "%s '%s' must be a scalar or 1-D with %lld elements", what, v->name,
             (long long)count);
}

typedef struct QMatMul {
    int a, b, as, az, bs, bz, ys, yz; /* input indices, -1 when the op has none */
    int64_t M, N, K, batch;
    int64_t *a_off, *b_off;
    int out_rank;
    int64_t out_dims[MAX_RANK];
    int64_t b_zp_stride, b_scale_stride;
    int scale_type;
    DType y_type;
} QMatMul;

static QMatMul qmatmul_shape(const Node *n)
{
    QMatMul q;
    if (!strcmp(n->op_type, "MatMulInteger"))
        q = (QMatMul){.a = 0, .b = 1, .as = -1, .az = 2, .bs = -1, .bz = 3, .ys = -1, .yz = -1};
    else
        q = (QMatMul){.a = 0, .b = 3, .as = 1, .az = 2, .bs = 4, .bz = 5, .ys = 6, .yz = 7};
    const Value *a = n->inputs[q.a], *b = n->inputs[q.b];
    if (!is_q8(a->dtype) || !is_q8(b->dtype))
        fatal_at(n, "input types %s, %s are not supported (uint8 and int8 are)",
                 dtype_name(a->dtype), dtype_name(b->dtype));
    int64_t dims[MAX_RANK + 2];
    MatMulShape g = matmul_geometry(n, a, b, &q.out_rank, dims);
    if (q.out_rank > MAX_RANK)
        fatal_at(n, "output rank %d is more than %d", q.out_rank, MAX_RANK);
    memcpy(q.out_dims, dims, (size_t)q.out_rank * sizeof(int64_t));
    q.M = g.M;
    q.N = g.N;
    q.K = g.K;
    q.batch = g.batch;
    q.a_off = g.a_off;
    q.b_off = g.b_off;
    const Value *az = node_input(n, q.az), *bz = node_input(n, q.bz);
    if (az && az->dtype != a->dtype)
        fatal_at(n, "a's zero point type %s differs from a's %s", dtype_name(az->dtype),
                 dtype_name(a->dtype));
    if (bz && bz->dtype != b->dtype)
        fatal_at(n, "b's zero point type %s differs from b's %s", dtype_name(bz->dtype),
                 dtype_name(b->dtype));
    require_scalar(n, az, "a's zero point");
    q.b_zp_stride = channel_stride(n, bz, q.N, "b's zero point");
    q.y_type = DT_INT32;
    q.scale_type = DT_FLOAT;
    if (q.as >= 0) {
        const Value *as = n->inputs[q.as], *bs = n->inputs[q.bs], *ys = n->inputs[q.ys];
        const Value *yz = node_input(n, q.yz);
        q.scale_type = as->dtype;
        if (as->dtype != DT_FLOAT && as->dtype != DT_FLOAT16)
            fatal_at(n, "scale type %s is not supported (float32 and float16 are)",
                     dtype_name(as->dtype));
        if (bs->dtype != as->dtype || ys->dtype != as->dtype)
            fatal_at(n, "the scales have different types");
        require_scalar(n, as, "a_scale");
        require_scalar(n, ys, "y_scale");
        require_scalar(n, yz, "y_zero_point");
        q.b_scale_stride = channel_stride(n, bs, q.N, "b_scale");
        q.y_type = yz ? yz->dtype : a->dtype;
        if (!is_q8(q.y_type))
            fatal_at(n, "output type %s is not supported (uint8 and int8 are)",
                     dtype_name(q.y_type));
    }
    return q;
}

void qmatmul_infer(Node *n)
{
    QMatMul q = qmatmul_shape(n);
    set_shape(n->outputs[0], q.y_type, q.out_rank, q.out_dims);
}

static void *opt_data(const Node *n, int i)
{
    const Value *v = i >= 0 ? node_input(n, i) : NULL;
    return v ? v->data : NULL;
}

void qmatmul_fold(Node *n)
{
    QMatMul q = qmatmul_shape(n);
    const Value *a = n->inputs[q.a], *b = n->inputs[q.b];
    size_t asz = dtype_size(a->dtype), bsz = dtype_size(b->dtype), ysz = dtype_size(q.y_type);
    for (int64_t p = 0; p < q.batch; p++)
        qmatmul(q.M, q.N, q.K, (int)a->dtype, (const char *)a->data + q.a_off[p] * (int64_t)asz,
                opt_data(n, q.az), (int)b->dtype, (const char *)b->data + q.b_off[p] * (int64_t)bsz,
                opt_data(n, q.bz), q.b_zp_stride, q.scale_type, opt_data(n, q.as),
                opt_data(n, q.bs), q.b_scale_stride, opt_data(n, q.ys), (int)q.y_type,
                opt_data(n, q.yz), (char *)n->outputs[0]->data + p * q.M * q.N * (int64_t)ysz);
}

static const char *opt_input_name(Emitter *e, const Node *n, int i)
{
    Value *v = i >= 0 ? node_input(n, i) : NULL;
    return v ? value_cname(e, v) : "NULL";
}

void qmatmul_emit(Emitter *e, Node *n)
{
    QMatMul q = qmatmul_shape(n);
    Value *a = n->inputs[q.a], *b = n->inputs[q.b];
    const char *an = value_cname(e, a), *bn = value_cname(e, b);
    const char *yn = value_cname(e, n->outputs[0]);
    const char *ap = an, *bp = bn, *yp = yn;
    if (q.batch > 1) {
        const char *oa = offsets_array(e, q.a_off, q.batch),
                   *ob = offsets_array(e, q.b_off, q.batch);
        println(e, "for (int64_t p = 0; p < %lld; p++) {", (long long)q.batch);
        e->indent++;
        ap = xprintf("%s + %s[p]", an, oa);
        bp = xprintf("%s + %s[p]", bn, ob);
        yp = xprintf("%s + p * %lld", yn, (long long)(q.M * q.N));
    }
    println(e,
            "qmatmul(%lld, %lld, %lld, %d, %s, %s, %d, %s, %s, %lld, %d, %s, %s, %lld, %s, %d, "
            "%s, %s);",
            (long long)q.M, (long long)q.N, (long long)q.K, (int)a->dtype, ap,
            opt_input_name(e, n, q.az), (int)b->dtype, bp, opt_input_name(e, n, q.bz),
            (long long)q.b_zp_stride, q.scale_type, opt_input_name(e, n, q.as),
            opt_input_name(e, n, q.bs), (long long)q.b_scale_stride, opt_input_name(e, n, q.ys),
            (int)q.y_type, opt_input_name(e, n, q.yz), yp);
    if (q.batch > 1) {
        e->indent--;
        println(e, "}");
    }
}

double qmatmul_flops(const Node *n)
{
    QMatMul q = qmatmul_shape(n);
    return 2.0 * (double)q.batch * (double)q.M * (double)q.N * (double)q.K;
}

/* ---- ConvInteger / QLinearConv ---- */

/* onnxruntime's com.microsoft QLinearConv with channels_last = 1, what layout_nhwc.c makes of a
 * QLinearConv (qconv_nhwc_supported): the same op on x [N][H][W][C], y [N][OH][OW][OC]; the
 * weights stay [OC][C/group][KH][KW]. Only the fast form runs it (templates/quant_nhwc.c). */
static bool qconv_channels_last(const Node *n)
{
    return !strcmp(n->domain, "com.microsoft") && attr_int(n, "channels_last", 0) != 0;
}

typedef struct QConv {
    int x, w, xs, xz, ws, wz, ys, yz, bias; /* input indices, -1 when the op has none */
    int64_t geo[24]; /* qconv's 22, then channels-last's budget and int32 flag (quant_nhwc.c) */
    int64_t w_zp_stride, w_scale_stride;
    int scale_type;
    DType y_type;
    int out_rank;
    int64_t out_dims[5];
} QConv;

static int64_t ints_or(const Node *n, const char *name, int count, int i, int64_t dflt)
{
    const int64_t *v;
    int c = attr_ints(n, name, &v);
    if (c < 0)
        return dflt;
    if (c != count)
        fatal_at(n, "attribute '%s' has %d values, expected %d", name, c, count);
    return v[i];
}

static QConv qconv_shape(const Node *n)
{
    QConv q;
    if (!strcmp(n->op_type, "ConvInteger"))
        q = (QConv){
            .x = 0, .w = 1, .xs = -1, .xz = 2, .ws = -1, .wz = 3, .ys = -1, .yz = -1, .bias = -1};
    else
        q = (QConv){
            .x = 0, .w = 3, .xs = 1, .xz = 2, .ws = 4, .wz = 5, .ys = 6, .yz = 7, .bias = 8};
    const Value *x = n->inputs[q.x], *w = n->inputs[q.w];
    if (!is_q8(x->dtype) || !is_q8(w->dtype))
        fatal_at(n, "input types %s, %s are not supported (uint8 and int8 are)",
                 dtype_name(x->dtype), dtype_name(w->dtype));
    const bool cl = qconv_channels_last(n);              /* x [N][spatial][C], y [N][spatial][OC] */
    const int64_t *xsp = cl ? x->dims + 1 : x->dims + 2; /* x's spatial dims */
    int sp = x->rank - 2;
    if (sp < 1 || sp > 3)
        fatal_at(n, "only 1-D to 3-D convolutions are supported (input rank %d)", x->rank);
    if (w->rank != x->rank)
        fatal_at(n, "weight rank %d differs from input rank %d", w->rank, x->rank);
    int64_t N = x->dims[0], C = x->dims[cl ? x->rank - 1 : 1], OC = w->dims[0];
    int64_t G = attr_int(n, "group", 1);
    if (G <= 0 || C % G || OC % G)
        fatal_at(n, "group %lld does not divide %lld input and %lld output channels", (long long)G,
                 (long long)C, (long long)OC);
    if (w->dims[1] != C / G)
        fatal_at(n, "weight has %lld input channels per group, input gives %lld",
                 (long long)w->dims[1], (long long)(C / G));
    int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, st[3] = {1, 1, 1}, dl[3] = {1, 1, 1};
    int64_t pb[3] = {0, 0, 0}, pe[3] = {0, 0, 0}, out[3] = {1, 1, 1};
    const char *auto_pad = attr_string(n, "auto_pad", "NOTSET");
    bool same = !strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER");
    if (!same && strcmp(auto_pad, "VALID") && strcmp(auto_pad, "NOTSET"))
        fatal_at(n, "auto_pad '%s' is not supported", auto_pad);
    for (int i = 0; i < sp; i++) {
        int j = 3 - sp + i; /* 1-D and 2-D fill the last slots */
        in[j] = xsp[i];
        k[j] = w->dims[2 + i];
        if (ints_or(n, "kernel_shape", sp, i, k[j]) != k[j])
            fatal_at(n, "kernel_shape disagrees with the weight's shape");
        st[j] = ints_or(n, "strides", sp, i, 1);
        dl[j] = ints_or(n, "dilations", sp, i, 1);
        if (st[j] <= 0 || dl[j] <= 0 || k[j] <= 0)
            fatal_at(n, "kernel, strides and dilations must be positive");
        int64_t span = dl[j] * (k[j] - 1) + 1;
        if (same) {
            out[j] = (in[j] + st[j] - 1) / st[j];
            int64_t total = (out[j] - 1) * st[j] + span - in[j];
            if (total < 0)
                total = 0;
            pb[j] = !strcmp(auto_pad, "SAME_UPPER") ? total / 2 : total - total / 2;
            pe[j] = total - pb[j];
        } else if (strcmp(auto_pad, "VALID")) {
            pb[j] = ints_or(n, "pads", 2 * sp, i, 0);
            pe[j] = ints_or(n, "pads", 2 * sp, sp + i, 0);
            if (pb[j] < 0 || pe[j] < 0)
                fatal_at(n, "negative pads are not supported");
        }
        if (!same) {
            int64_t padded = checked_add(n, in[j], pb[j] + pe[j]);
            if (padded < span)
                fatal_at(n, "the window (%lld) is larger than the padded input (%lld)",
                         (long long)span, (long long)padded);
            out[j] = (padded - span) / st[j] + 1;
        }
    }
    int64_t g[22] = {N,      C,      in[0], in[1], in[2], OC,    G,     k[0],  k[1],  k[2],  out[0],
                     out[1], out[2], st[0], st[1], st[2], pb[0], pb[1], pb[2], dl[0], dl[1], dl[2]};
    memcpy(q.geo, g, sizeof g);
    q.geo[22] = cl ? n->scratch_budget : 0; /* the copies of qconv_nhwc_s8 take at most that */
    q.out_rank = x->rank;
    q.out_dims[0] = N;
    q.out_dims[cl ? sp + 1 : 1] = OC;
    for (int i = 0; i < sp; i++)
        q.out_dims[(cl ? 1 : 2) + i] = out[3 - sp + i];
    const Value *xz = node_input(n, q.xz), *wz = node_input(n, q.wz);
    if (xz && xz->dtype != x->dtype)
        fatal_at(n, "x's zero point type %s differs from x's %s", dtype_name(xz->dtype),
                 dtype_name(x->dtype));
    if (wz && wz->dtype != w->dtype)
        fatal_at(n, "w's zero point type %s differs from w's %s", dtype_name(wz->dtype),
                 dtype_name(w->dtype));
    require_scalar(n, xz, "x's zero point");
    q.w_zp_stride = channel_stride(n, wz, OC, "w's zero point");
    q.y_type = DT_INT32;
    q.scale_type = DT_FLOAT;
    q.w_scale_stride = 0;
    if (q.xs >= 0) {
        const Value *xs = n->inputs[q.xs], *ws = n->inputs[q.ws], *ys = n->inputs[q.ys];
        const Value *yz = node_input(n, q.yz), *b = node_input(n, q.bias);
        q.scale_type = xs->dtype;
        if (xs->dtype != DT_FLOAT && xs->dtype != DT_FLOAT16)
            fatal_at(n, "scale type %s is not supported (float32 and float16 are)",
                     dtype_name(xs->dtype));
        if (ws->dtype != xs->dtype || ys->dtype != xs->dtype)
            fatal_at(n, "the scales have different types");
        require_scalar(n, xs, "x_scale");
        require_scalar(n, ys, "y_scale");
        require_scalar(n, yz, "y_zero_point");
        q.w_scale_stride = channel_stride(n, ws, OC, "w_scale");
        q.y_type = yz ? yz->dtype : x->dtype;
        if (!is_q8(q.y_type))
            fatal_at(n, "output type %s is not supported (uint8 and int8 are)",
                     dtype_name(q.y_type));
        if (b && (b->dtype != DT_INT32 || b->rank != 1 || b->dims[0] != OC))
            fatal_at(n, "B must be int32 with shape [%lld]", (long long)OC);
    }
    return q;
}

void qconv_infer(Node *n)
{
    QConv q = qconv_shape(n);
    set_shape(n->outputs[0], q.y_type, q.out_rank, q.out_dims);
}

static bool qconv_fast(const Node *n, const QConv *q, int32_t *bias_adj, double *mult);

/* A channels-last QLinearConv of constants: its kernel on the compiler's side. */
static void qconv_nhwc_fold(Node *n, const QConv *q)
{
    int64_t OC = q->geo[5];
    int32_t *bias_adj = xcalloc((size_t)OC, sizeof(int32_t));
    double *mult = xcalloc((size_t)OC, sizeof(double));
    if (!qconv_fast(n, q, bias_adj, mult))
        fatal_at(n, "internal error: a channels-last QLinearConv without int8 weights of zero "
                    "point 0 and constant scales");
    int8_t *wp = xcalloc((size_t)qconv_nhwc_s8_wbytes(q->geo) + 1, 1);
    uint8_t *scratch = xcalloc((size_t)qconv_nhwc_s8_scratch(q->geo) + 64, 1);
    qconv_nhwc_s8_weights(q->geo, n->inputs[q->w]->data, wp);
    qconv_nhwc_s8(q->geo, (int)n->inputs[q->x]->dtype, n->inputs[q->x]->data, opt_data(n, q->xz),
                  wp, bias_adj, mult, (int)q->y_type, opt_data(n, q->yz), n->outputs[0]->data,
                  scratch);
    free(wp);
    free(scratch);
    free(bias_adj);
    free(mult);
}

void qconv_fold(Node *n)
{
    QConv q = qconv_shape(n);
    if (qconv_channels_last(n)) {
        qconv_nhwc_fold(n, &q);
        return;
    }
    qconv(q.geo, (int)n->inputs[q.x]->dtype, n->inputs[q.x]->data, opt_data(n, q.xz),
          (int)n->inputs[q.w]->dtype, n->inputs[q.w]->data, opt_data(n, q.wz), q.w_zp_stride,
          opt_data(n, q.bias), q.scale_type, opt_data(n, q.xs), opt_data(n, q.ws), q.w_scale_stride,
          opt_data(n, q.ys), (int)q.y_type, opt_data(n, q.yz), n->outputs[0]->data);
}

/* The fast form (templates/quant.c, qconv_s8): int8 weights with zero point 0 and constant
 * scales, zero points and bias, so that the bias absorbs the zero point's share and the
 * multipliers are computed here. False when the model's QLinearConv is not of that form or its
 * sums could leave int32; the general qconv runs then. bias_adj, mult: [OC] or NULL. */
static bool qconv_fast(const Node *n, const QConv *q, int32_t *bias_adj, double *mult)
{
    const Value *x = n->inputs[q->x], *w = n->inputs[q->w], *wz = node_input(n, q->wz);
    if (q->xs < 0 || w->dtype != DT_INT8 || !w->data)
        return false;
    const int in[] = {q->xs, q->xz, q->ws, q->wz, q->ys, q->yz, q->bias};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        const Value *v = node_input(n, in[i]);
        if (v && !v->data)
            return false;
    }
    for (int64_t i = 0; wz && i < numel(wz); i++)
        if (((const int8_t *)wz->data)[i])
            return false;
    int64_t OC = q->geo[5];
    int32_t *b = bias_adj ? bias_adj : xcalloc((size_t)OC, sizeof(int32_t));
    double *m = mult ? mult : xcalloc((size_t)OC, sizeof(double));
    return qconv_s8_prepare(q->geo, (int)x->dtype, opt_data(n, q->xz), w->data,
                            opt_data(n, q->bias), q->scale_type, opt_data(n, q->xs),
                            opt_data(n, q->ws), q->w_scale_stride, opt_data(n, q->ys), b, m);
}

int64_t qconv_scratch(const Node *n)
{
    QConv q = qconv_shape(n);
    if (!qconv_fast(n, &q, NULL, NULL))
        return 0;
    return qconv_channels_last(n) ? qconv_nhwc_s8_scratch(q.geo) : qconv_s8_scratch(q.geo);
}

/* Whether layout_nhwc.c may run QLinearConv n channels-last: 2-D, the fast form, and more than
 * one pixel in or out (a 1x1 map has the same bytes in both layouts). */
bool qconv_nhwc_supported(const Node *n)
{
    if (strcmp(n->op_type, "QLinearConv") || (*n->domain && strcmp(n->domain, "ai.onnx")) ||
        n->inputs[0]->rank != 4)
        return false;
    QConv q = qconv_shape(n);
    const int64_t *g = q.geo;
    return qconv_fast(n, &q, NULL, NULL) && g[3] * g[4] * g[11] * g[12] > 1;
}

/* The channels-last call: weights packed by qconv_nhwc_s8_weights. */
static void qconv_nhwc_emit(Emitter *e, Node *n, const QConv *q, const char *geo, const char *b,
                            const char *m)
{
    const int64_t *g = q->geo, G = g[6], OCgp = (g[5] / G + 15) / 16 * 16;
    const int64_t taps = g[7] * g[8] * g[9];
    /* bounds qconv_nhwc_s8_wbytes: G * OCgp * 4 * ceil(Cg * taps / 4), or taps * lcm(C, 64) */
    checked_mul(n, checked_mul(n, G, OCgp), checked_add(n, checked_mul(n, g[1] / G, taps), 4));
    checked_mul(n, taps, checked_mul(n, g[1], 64));
    int64_t wbytes = qconv_nhwc_s8_wbytes(g);
    int8_t *wp = xcalloc((size_t)wbytes + 1, 1);
    qconv_nhwc_s8_weights(g, n->inputs[q->w]->data, wp);
    const char *wn = emit_constant(e, DT_INT8, 1, &wbytes, wp);
    println(e, "qconv_nhwc_s8(%s, %d, %s, %s, %s, %s, %s, %d, %s, %s, %s);", geo,
            (int)n->inputs[q->x]->dtype, value_cname(e, n->inputs[q->x]),
            opt_input_name(e, n, q->xz), wn, b, m, (int)q->y_type, opt_input_name(e, n, q->yz),
            value_cname(e, n->outputs[0]), scratch_cname(e, n, DT_UINT8, 0));
}

void qconv_emit(Emitter *e, Node *n)
{
    QConv q = qconv_shape(n);
    int64_t OC = q.geo[5];
    int32_t *bias_adj = xcalloc((size_t)OC, sizeof(int32_t));
    double *mult = xcalloc((size_t)OC, sizeof(double));
    const bool fast = qconv_fast(n, &q, bias_adj, mult), cl = qconv_channels_last(n);
    if (fast && cl) /* found once here, not at each call */
        q.geo[23] = qconv_nhwc_s8_small(q.geo, bias_adj, mult, (int)q.y_type, opt_data(n, q.yz));
    const char *geo = emit_dims(e, cl ? 24 : 22, q.geo);
    if (fast) {
        const char *b = emit_constant(e, DT_INT32, 1, &OC, bias_adj);
        const char *m = emit_constant(e, DT_DOUBLE, 1, &OC, mult);
        if (qconv_channels_last(n)) {
            qconv_nhwc_emit(e, n, &q, geo, b, m);
            return;
        }
        /* packed in the kernel's layout: rows padded to qconv_s8_row, blocks of channels */
        int64_t G = q.geo[6], OCgp = (OC / G + 7) / 8 * 8;
        checked_mul(n, checked_mul(n, G, OCgp), qconv_s8_row(q.geo)); /* bounds wbytes */
        int64_t wbytes = qconv_s8_wbytes(q.geo);
        int8_t *wp = xcalloc((size_t)wbytes + 1, 1);
        qconv_s8_weights(q.geo, n->inputs[q.w]->data, wp);
        const char *wn = emit_constant(e, DT_INT8, 1, &wbytes, wp);
        println(e, "qconv_s8(%s, %d, %s, %s, %s, %s, %s, %d, %s, %s, %s);", geo,
                (int)n->inputs[q.x]->dtype, value_cname(e, n->inputs[q.x]),
                opt_input_name(e, n, q.xz), wn, b, m, (int)q.y_type, opt_input_name(e, n, q.yz),
                value_cname(e, n->outputs[0]), scratch_cname(e, n, DT_UINT8, 0));
        return;
    }
    if (qconv_channels_last(n))
        fatal_at(n, "internal error: a channels-last QLinearConv without int8 weights of zero "
                    "point 0 and constant scales");
    println(e, "qconv(%s, %d, %s, %s, %d, %s, %s, %lld, %s, %d, %s, %s, %lld, %s, %d, %s, %s);",
            geo, (int)n->inputs[q.x]->dtype, value_cname(e, n->inputs[q.x]),
            opt_input_name(e, n, q.xz), (int)n->inputs[q.w]->dtype, value_cname(e, n->inputs[q.w]),
            opt_input_name(e, n, q.wz), (long long)q.w_zp_stride, opt_input_name(e, n, q.bias),
            q.scale_type, opt_input_name(e, n, q.xs), opt_input_name(e, n, q.ws),
            (long long)q.w_scale_stride, opt_input_name(e, n, q.ys), (int)q.y_type,
            opt_input_name(e, n, q.yz), value_cname(e, n->outputs[0]));
}

double qconv_flops(const Node *n)
{
    QConv q = qconv_shape(n);
    const int64_t *g = q.geo;
    double per_out = (double)(g[1] / g[6]) * (double)(g[7] * g[8] * g[9]);
    return 2.0 * (double)g[0] * (double)g[5] * (double)(g[10] * g[11] * g[12]) * per_out;
}
