/* layout.c — index and layout ops: Pad, DepthToSpace, SpaceToDepth, OneHot, Trilu, EyeLike,
 * Compress, NonZero, CumSum, CumProd, TopK, ArgMax, ArgMin, Hardmax. Kernels in
 * templates/data.c (DepthToSpace, SpaceToDepth and Compress use transpose_bytes and
 * gather_bytes of movement.c). Gather/scatter, Resize, Einsum and the activations that used to
 * live here have files of their own (gather_scatter.c, resize.c, einsum.c,
 * activation.c). */
#include "kernels.h"
#include "ops.h"

#include <stdlib.h>
#include <string.h>

static const char *type_suffix(const Node *n, DType t, const char *what)
{
    switch (t) {
    case DT_FLOAT: return "f32";
    case DT_DOUBLE: return "f64";
    case DT_INT32: return "i32";
    case DT_INT64: return "i64";
    default:
        fatal_at(n, "%s type %s is not supported (float32, float64, int32, int64 are)", what,
                 dtype_name(t));
    }
}

/* [outer][n][inner] around `axis`. */
static void split_at(const Value *v, int axis, int64_t *outer, int64_t *n, int64_t *inner)
{
    *outer = 1;
    *inner = 1;
    for (int d = 0; d < axis; d++)
        *outer *= v->dims[d];
    for (int d = axis + 1; d < v->rank; d++)
        *inner *= v->dims[d];
    *n = v->rank ? v->dims[axis] : 1;
}

/* ---- Pad ---- */

typedef struct PadPlan {
    int mode; /* 0 constant, 1 reflect, 2 edge, 3 wrap */
    int64_t begin[MAX_RANK], end[MAX_RANK];
    const Value *value;          /* constant_value input, or NULL */
    unsigned char attr_value[8]; /* value when there is no input (the attribute, or zero) */
} PadPlan;

static PadPlan pad_plan(const Node *n)
{
    const Value *x = n->inputs[0];
    int r = x->rank;
    PadPlan p = {0};
    const char *mode = attr_string(n, "mode", "constant");
    static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
    p.mode = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(mode, modes[i]))
            p.mode = i;
    if (p.mode < 0 || (p.mode == 3 && n->opset < 19))
        fatal_at(n, "mode '%s' is not one of constant, reflect, edge%s", mode,
                 n->opset >= 19 ? ", wrap" : "");
    const int64_t *pads;
    int npads;
    int64_t *axes = NULL;
    int naxes = r;
    if (n->opset < 11) {
        npads = attr_ints(n, "pads", &pads);
        if (npads < 0)
            npads = attr_ints(n, "paddings", &pads);
        if (npads < 0)
            fatal_at(n, "attribute 'pads' is required");
        float v = attr_float(n, "value", 0.0f);
        if (x->dtype != DT_FLOAT && v != 0.0f)
            fatal_at(n, "a non-zero 'value' needs float32 data");
        memcpy(p.attr_value, &v, sizeof v);
    } else {
        pads = const_ints(n, n->inputs[1], &npads);
        const Value *cv = node_input(n, 2);
        if (cv && value_numel(cv) > 0) {
            if (cv->dtype != x->dtype)
                fatal_at(n, "constant_value type %s differs from the data's %s",
                         dtype_name(cv->dtype), dtype_name(x->dtype));
            p.value = cv;
        }
        const Value *ax = node_input(n, 3);
        if (ax) {
            axes = const_ints(n, ax, &naxes);
        }
    }
    if (npads != 2 * naxes)
        fatal_at(n, "pads has %d entries; it needs 2 x %d", npads, naxes);
    for (int i = 0; i < naxes; i++) {
        int d = axes ? normalize_axis(n, axes[i], r) : i;
        p.begin[d] = pads[i];
        p.end[d] = pads[naxes + i];
    }
    for (int d = 0; d < r; d++) {
        int64_t big = (int64_t)1 << 48; /* so that the sum below cannot overflow */
        if (p.begin[d] < -big || p.begin[d] > big || p.end[d] < -big || p.end[d] > big)
            fatal_at(n, "pads of dim %d (%lld, %lld) are out of range", d, (long long)p.begin[d],
                     (long long)p.end[d]);
        if (p.mode != 0 && x->dims[d] == 0 && (p.begin[d] > 0 || p.end[d] > 0))
            fatal_at(n, "cannot pad an empty dim in mode '%s'", mode);
        if (x->dims[d] + p.begin[d] + p.end[d] < 0)
            fatal_at(n, "pads remove more than dim %d holds", d);
    }
    return p;
}

static void pad_out_dims(const Node *n, const PadPlan *p, int64_t *dims)
{
    const Value *x = n->inputs[0];
    for (int d = 0; d < x->rank; d++)
        dims[d] = checked_add(n, checked_add(n, x->dims[d], p->begin[d]), p->end[d]);
}

void pad_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_sized(n, x);
    if (x->rank < 1)
        fatal_at(n, "a scalar cannot be padded");
    PadPlan p = pad_plan(n);
    int64_t dims[MAX_RANK];
    pad_out_dims(n, &p, dims);
    set_shape(n->outputs[0], x->dtype, x->rank, dims);
}

void pad_fold(Node *n)
{
    const Value *x = n->inputs[0], *y = n->outputs[0];
    PadPlan p = pad_plan(n);
    pad_bytes(x->rank, x->dims, y->dims, p.begin, p.mode, (int64_t)dtype_size(x->dtype),
              p.value ? p.value->data : p.attr_value, x->data, y->data);
}

void pad_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *y = n->outputs[0];
    if (!value_numel(y))
        return;
    PadPlan p = pad_plan(n);
    const char *vname;
    if (p.value) {
        vname = value_cname(e, (Value *)p.value);
    } else {
        void *v = xcalloc(1, 8);
        memcpy(v, p.attr_value, 8);
        vname = emit_constant(e, x->dtype, 0, NULL, v);
    }
    const char *xd = emit_dims(e, x->rank, x->dims), *yd = emit_dims(e, y->rank, y->dims);
    const char *bd = emit_dims(e, x->rank, p.begin);
    println(e, "pad_bytes(%d, %s, %s, %s, %d, %d, %s, %s, %s);", x->rank, xd, yd, bd, p.mode,
            (int)dtype_size(x->dtype), vname, value_cname(e, x), value_cname(e, y));
}

/* ---- DepthToSpace, SpaceToDepth: a transpose of a 6-D view ---- */

typedef struct D2SPlan {
    int64_t dims[6];
    int32_t perm[6];
} D2SPlan;

static D2SPlan d2s_plan(const Node *n, int64_t *out_dims)
{
    const Value *x = n->inputs[0];
    if (x->rank != 4)
        fatal_at(n, "input must have rank 4 (NCHW), not %d", x->rank);
    int64_t b = attr_int(n, "blocksize", 0);
    if (b < 1)
        fatal_at(n, "attribute 'blocksize' must be 1 or more");
    int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
    D2SPlan p;
    if (!strcmp(n->op_type, "DepthToSpace")) {
        if (C % (b * b))
            fatal_at(n, "channels (%lld) are not a multiple of blocksize^2", (long long)C);
        int64_t c = C / (b * b);
        const char *mode = attr_string(n, "mode", "DCR");
        if (!strcmp(mode, "DCR")) {
            int64_t d[6] = {N, b, b, c, H, W};
            int32_t q[6] = {0, 3, 4, 1, 5, 2};
            memcpy(p.dims, d, sizeof d);
            memcpy(p.perm, q, sizeof q);
        } else if (!strcmp(mode, "CRD")) {
            int64_t d[6] = {N, c, b, b, H, W};
            int32_t q[6] = {0, 1, 4, 2, 5, 3};
            memcpy(p.dims, d, sizeof d);
            memcpy(p.perm, q, sizeof q);
        } else {
            fatal_at(n, "mode '%s' is not one of DCR, CRD", mode);
        }
        int64_t o[4] = {N, c, checked_mul(n, H, b), checked_mul(n, W, b)};
        memcpy(out_dims, o, sizeof o);
    } else {
        if (H % b || W % b)
            fatal_at(n, "height and width must be multiples of blocksize");
        const char *mode = attr_string(n, "mode", "DCR");
        if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
            fatal_at(n, "mode '%s' is not one of DCR, CRD", mode);
        bool crd = !strcmp(mode, "CRD");
        int64_t d[6] = {N, C, H / b, b, W / b, b};
        int32_t q[6] = {0, 3, 5, 1, 2, 4};
        if (crd) {
            int32_t q2[6] = {0, 1, 3, 5, 2, 4};
            memcpy(q, q2, sizeof q2);
        }
        memcpy(p.dims, d, sizeof d);
        memcpy(p.perm, q, sizeof q);
        int64_t o[4] = {N, checked_mul(n, C, b * b), H / b, W / b};
        memcpy(out_dims, o, sizeof o);
    }
    return p;
}

void d2s_infer(Node *n)
{
    require_sized(n, n->inputs[0]);
    int64_t out[4];
    d2s_plan(n, out);
    set_shape(n->outputs[0], n->inputs[0]->dtype, 4, out);
}

void d2s_fold(Node *n)
{
    int64_t out[4];
    D2SPlan p = d2s_plan(n, out);
    transpose_bytes(6, p.dims, p.perm, (int64_t)dtype_size(n->inputs[0]->dtype), n->inputs[0]->data,
                    n->outputs[0]->data);
}

void d2s_emit(Emitter *e, Node *n)
{
    int64_t out[4];
    D2SPlan p = d2s_plan(n, out);
    if (!value_numel(n->outputs[0]))
        return;
    const char *dims = emit_dims(e, 6, p.dims);
    const char *pname = xprintf("perm%d", e->counter++);
    println(e, "static const int32_t %s[] = {%d, %d, %d, %d, %d, %d};", pname, p.perm[0], p.perm[1],
            p.perm[2], p.perm[3], p.perm[4], p.perm[5]);
    println(e, "transpose_bytes(6, %s, %s, %d, %s, %s);", dims, pname,
            (int)dtype_size(n->inputs[0]->dtype), value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}

/* ---- OneHot ---- */

static int64_t onehot_depth(const Node *n)
{
    const Value *dv = n->inputs[1];
    require_constant(n, dv, "depth");
    if (value_numel(dv) != 1)
        fatal_at(n, "depth must hold one value");
    double d;
    switch (dv->dtype) {
    case DT_FLOAT: d = *(const float *)dv->data; break;
    case DT_DOUBLE: d = *(const double *)dv->data; break;
    case DT_INT64: d = (double)*(const int64_t *)dv->data; break;
    case DT_INT32: d = *(const int32_t *)dv->data; break;
    default: fatal_at(n, "depth type %s is not supported", dtype_name(dv->dtype));
    }
    if (!(d >= 1 && d < 1e12))
        fatal_at(n, "depth %g is out of range", d);
    return (int64_t)d;
}

static int onehot_idx_type(const Node *n)
{
    switch (n->inputs[0]->dtype) {
    case DT_INT64: return TY_I64;
    case DT_INT32: return TY_I32;
    case DT_FLOAT: return TY_F32;
    case DT_DOUBLE: return TY_F64;
    default:
        fatal_at(n, "indices type %s is not supported (int64, int32, float32, float64 are)",
                 dtype_name(n->inputs[0]->dtype));
    }
}

static int onehot_axis(const Node *n)
{
    return normalize_axis(n, attr_int(n, "axis", -1), n->inputs[0]->rank + 1);
}

void onehot_infer(Node *n)
{
    const Value *idx = n->inputs[0], *vals = n->inputs[2];
    onehot_idx_type(n);
    require_sized(n, vals);
    if (value_numel(vals) != 2)
        fatal_at(n, "values must hold two elements (off, on)");
    if (idx->rank + 1 > MAX_RANK)
        fatal_at(n, "output rank is more than %d", MAX_RANK);
    int axis = onehot_axis(n);
    int64_t dims[MAX_RANK];
    for (int d = 0, k = 0; d <= idx->rank; d++)
        dims[d] = d == axis ? onehot_depth(n) : idx->dims[k++];
    set_shape(n->outputs[0], vals->dtype, idx->rank + 1, dims);
}

static void onehot_geometry(const Node *n, int64_t *outer, int64_t *inner)
{
    const Value *y = n->outputs[0];
    int64_t depth;
    split_at(y, onehot_axis(n), outer, &depth, inner);
}

void onehot_fold(Node *n)
{
    int64_t outer, inner;
    onehot_geometry(n, &outer, &inner);
    one_hot_bytes(outer, onehot_depth(n), inner, onehot_idx_type(n), n->inputs[0]->data,
                  (int64_t)dtype_size(n->inputs[2]->dtype), n->inputs[2]->data,
                  n->outputs[0]->data);
}

void onehot_emit(Emitter *e, Node *n)
{
    int64_t outer, inner;
    onehot_geometry(n, &outer, &inner);
    if (!value_numel(n->outputs[0]))
        return;
    println(e, "one_hot_bytes(%lld, %lld, %lld, %d, %s, %d, %s, %s);", (long long)outer,
            (long long)onehot_depth(n), (long long)inner, onehot_idx_type(n),
            value_cname(e, n->inputs[0]), (int)dtype_size(n->inputs[2]->dtype),
            value_cname(e, n->inputs[2]), value_cname(e, n->outputs[0]));
}

/* ---- Trilu ---- */

static int64_t trilu_k(const Node *n)
{
    const Value *k = node_input(n, 1);
    if (!k || !k->data)
        return 0; /* absent, or read at run time (trilu_k_cname) */
    int c;
    int64_t *v = const_ints(n, k, &c);
    if (c != 1)
        fatal_at(n, "k must hold one value");
    return v[0];
}

/* k as a C expression: the constant, or the first element of the run-time input. */
static const char *trilu_k_cname(Emitter *e, const Node *n)
{
    Value *k = node_input(n, 1);
    if (!k || k->data)
        return xprintf("%lld", (long long)trilu_k(n));
    return xprintf("(int64_t)%s[0]", value_cname(e, k));
}

void trilu_infer(Node *n)
{
    const Value *x = n->inputs[0], *k = node_input(n, 1);
    require_sized(n, x);
    if (x->rank < 2)
        fatal_at(n, "input must have rank 2 or more");
    if (k && (k->dtype != DT_INT64 || value_numel(k) != 1))
        fatal_at(n, "k must be one int64 value");
    trilu_k(n);
    same_shape_infer(n);
}

static void trilu_geometry(const Value *x, int64_t *batch, int64_t *rows, int64_t *cols)
{
    *rows = x->dims[x->rank - 2];
    *cols = x->dims[x->rank - 1];
    *batch = 1;
    for (int d = 0; d < x->rank - 2; d++)
        *batch *= x->dims[d];
}

void trilu_fold(Node *n)
{
    const Value *x = n->inputs[0];
    int64_t b, r, c;
    trilu_geometry(x, &b, &r, &c);
    trilu_bytes(b, r, c, trilu_k(n), attr_int(n, "upper", 1) != 0, (int64_t)dtype_size(x->dtype),
                x->data, n->outputs[0]->data);
}

void trilu_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    int64_t b, r, c;
    trilu_geometry(x, &b, &r, &c);
    if (!value_numel(x))
        return;
    println(e, "trilu_bytes(%lld, %lld, %lld, %s, %d, %d, %s, %s);", (long long)b, (long long)r,
            (long long)c, trilu_k_cname(e, n), attr_int(n, "upper", 1) != 0,
            (int)dtype_size(x->dtype), value_cname(e, x), value_cname(e, n->outputs[0]));
}

/* ---- EyeLike: its value depends only on the input's shape, so it is always a constant ---- */

static void store_one(DType t, void *p, int64_t i)
{
    switch (t) {
    case DT_FLOAT: ((float *)p)[i] = 1.0f; break;
    case DT_DOUBLE: ((double *)p)[i] = 1.0; break;
    case DT_FLOAT16: ((uint16_t *)p)[i] = 0x3c00; break;
    case DT_BFLOAT16: ((uint16_t *)p)[i] = 0x3f80; break;
    case DT_INT8:
    case DT_UINT8:
    case DT_BOOL: ((uint8_t *)p)[i] = 1; break;
    case DT_INT16:
    case DT_UINT16: ((uint16_t *)p)[i] = 1; break;
    case DT_INT32:
    case DT_UINT32: ((uint32_t *)p)[i] = 1; break;
    case DT_INT64:
    case DT_UINT64: ((uint64_t *)p)[i] = 1; break;
    default: break;
    }
}

void eyelike_infer(Node *n)
{
    const Value *x = n->inputs[0];
    if (x->rank != 2)
        fatal_at(n, "input must have rank 2, not %d", x->rank);
    DType t = (DType)attr_int(n, "dtype", x->dtype);
    if (!dtype_size(t) || t == DT_STRING)
        fatal_at(n, "dtype %s is not supported", dtype_name(t));
    Value *y = n->outputs[0];
    set_shape(y, t, 2, x->dims);
    y->data = xcalloc(1, (size_t)value_bytes(y) + 1);
    int64_t k = attr_int(n, "k", 0);
    for (int64_t r = 0; r < x->dims[0]; r++)
        if (r + k >= 0 && r + k < x->dims[1])
            store_one(t, y->data, r * x->dims[1] + r + k);
}

void eyelike_fold(Node *n)
{
    (void)n; /* computed by eyelike_infer */
}

/* ---- Compress: a constant condition makes it a Gather ---- */

typedef struct CompressPlan {
    int axis; /* -1: flattened */
    int64_t count, *idx;
} CompressPlan;

static CompressPlan compress_plan(const Node *n)
{
    const Value *x = n->inputs[0], *c = n->inputs[1];
    require_constant(n, c, "condition");
    if (c->dtype != DT_BOOL)
        fatal_at(n, "condition must be bool, not %s", dtype_name(c->dtype));
    if (c->rank != 1)
        fatal_at(n, "condition must be 1-D");
    CompressPlan p = {-1, 0, NULL};
    const Attr *a = attr_get(n, "axis");
    int64_t len = value_numel(x);
    if (a) {
        p.axis = normalize_axis(n, a->i, x->rank);
        len = x->dims[p.axis];
    }
    int64_t cl = value_numel(c);
    p.idx = xcalloc((size_t)(cl < len ? cl : len) + 1, sizeof(int64_t));
    for (int64_t i = 0; i < cl && i < len; i++)
        if (((const uint8_t *)c->data)[i])
            p.idx[p.count++] = i;
    return p;
}

void compress_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_sized(n, x);
    CompressPlan p = compress_plan(n);
    if (p.axis < 0) {
        set_shape(n->outputs[0], x->dtype, 1, &p.count);
    } else {
        int64_t dims[MAX_RANK];
        memcpy(dims, x->dims, sizeof dims);
        dims[p.axis] = p.count;
        set_shape(n->outputs[0], x->dtype, x->rank, dims);
    }
}

static void compress_geometry(const Node *n, const CompressPlan *p, int64_t *outer,
                              int64_t *axis_len, int64_t *inner_bytes)
{
    const Value *x = n->inputs[0];
    if (p->axis < 0) {
        *outer = 1;
        *axis_len = value_numel(x);
        *inner_bytes = (int64_t)dtype_size(x->dtype);
        return;
    }
    int64_t inner;
    split_at(x, p->axis, outer, axis_len, &inner);
    *inner_bytes = inner * (int64_t)dtype_size(x->dtype);
}

void compress_fold(Node *n)
{
    CompressPlan p = compress_plan(n);
    int64_t outer, len, inner;
    compress_geometry(n, &p, &outer, &len, &inner);
    gather_bytes(outer, len, inner, n->inputs[0]->data, p.idx, p.count, n->outputs[0]->data);
}

void compress_emit(Emitter *e, Node *n)
{
    CompressPlan p = compress_plan(n);
    int64_t outer, len, inner;
    compress_geometry(n, &p, &outer, &len, &inner);
    if (!value_numel(n->outputs[0]))
        return;
    const char *idx = emit_constant(e, DT_INT64, 1, &p.count, p.idx);
    println(e, "gather_bytes(%lld, %lld, %lld, %s, %s, %lld, %s);", (long long)outer,
            (long long)len, (long long)inner, value_cname(e, n->inputs[0]), idx, (long long)p.count,
            value_cname(e, n->outputs[0]));
}

/* ---- NonZero: the output's shape depends on the data, so only constant inputs work ---- */

static bool element_nonzero(const Value *x, int64_t i)
{
    size_t s = dtype_size(x->dtype);
    const unsigned char *p = (const unsigned char *)x->data + (size_t)i * s;
    if (x->dtype == DT_FLOAT) {
        float f;
        memcpy(&f, p, 4);
        return f != 0.0f;
    }
    if (x->dtype == DT_DOUBLE) {
        double f;
        memcpy(&f, p, 8);
        return f != 0.0;
    }
    if (x->dtype == DT_FLOAT16 || x->dtype == DT_BFLOAT16) {
        uint16_t h;
        memcpy(&h, p, 2);
        return (h & 0x7fff) != 0;
    }
    for (size_t k = 0; k < s; k++)
        if (p[k])
            return true;
    return false;
}

void nonzero_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_sized(n, x);
    require_constant(n, x, "input (its output shape depends on the data)");
    int64_t total = value_numel(x), count = 0;
    for (int64_t i = 0; i < total; i++)
        count += element_nonzero(x, i);
    int r = x->rank ? x->rank : 1;
    int64_t dims[2] = {r, count};
    Value *y = n->outputs[0];
    set_shape(y, DT_INT64, 2, dims);
    int64_t *out = xcalloc((size_t)(r * count) + 1, sizeof(int64_t));
    int64_t k = 0;
    for (int64_t i = 0; i < total; i++) {
        if (!element_nonzero(x, i))
            continue;
        int64_t rem = i;
        for (int d = x->rank - 1; d >= 0; d--) {
            out[d * count + k] = rem % x->dims[d];
            rem /= x->dims[d];
        }
        k++;
    }
    y->data = out;
}

void nonzero_fold(Node *n)
{
    (void)n; /* computed by nonzero_infer */
}

/* ---- CumSum, CumProd ---- */

static int cumsum_axis(const Node *n)
{
    const Value *av = n->inputs[1];
    if (!av->data) {
        if ((av->dtype != DT_INT64 && av->dtype != DT_INT32) || value_numel(av) != 1)
            fatal_at(n, "axis must be one int64 or int32 value");
        return -1; /* chosen at run time (cumsum_emit) */
    }
    int c;
    int64_t *a = const_ints(n, n->inputs[1], &c);
    if (c != 1)
        fatal_at(n, "axis must hold one value");
    return normalize_axis(n, a[0], n->inputs[0]->rank);
}

void cumsum_infer(Node *n)
{
    type_suffix(n, n->inputs[0]->dtype, "input");
    if (n->inputs[0]->rank < 1)
        fatal_at(n, "input must have rank 1 or more");
    cumsum_axis(n);
    same_shape_infer(n);
}

void cumsum_fold(Node *n)
{
    const Value *x = n->inputs[0];
    int64_t outer, len, inner;
    split_at(x, cumsum_axis(n), &outer, &len, &inner);
    int ex = attr_int(n, "exclusive", 0) != 0, rev = attr_int(n, "reverse", 0) != 0;
    void *y = n->outputs[0]->data;
    bool prod = !strcmp(n->op_type, "CumProd");
    if (x->dtype == DT_FLOAT)
        (prod ? cumprod_f32 : cumsum_f32)(outer, len, inner, ex, rev, x->data, y);
    else if (x->dtype == DT_DOUBLE)
        (prod ? cumprod_f64 : cumsum_f64)(outer, len, inner, ex, rev, x->data, y);
    else if (x->dtype == DT_INT32)
        (prod ? cumprod_i32 : cumsum_i32)(outer, len, inner, ex, rev, x->data, y);
    else
        (prod ? cumprod_i64 : cumsum_i64)(outer, len, inner, ex, rev, x->data, y);
}

/* A run-time axis selects one of the rank calls; an axis out of range leaves y zero. */
void cumsum_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *y = n->outputs[0];
    int axis = cumsum_axis(n);
    if (!value_numel(x))
        return;
    const char *sfx = type_suffix(n, x->dtype, "input");
    int ex = attr_int(n, "exclusive", 0) != 0, rev = attr_int(n, "reverse", 0) != 0;
    int first = axis >= 0 ? axis : 0, last = axis >= 0 ? axis : x->rank - 1;
    if (axis < 0) {
        println(e, "{");
        e->indent++;
        println(e, "const int64_t axis = (int64_t)%s[0];", value_cname(e, n->inputs[1]));
        println(e, "memset(%s, 0, %lld);", value_cname(e, y), (long long)value_bytes(y));
    }
    for (int a = first; a <= last; a++) {
        int64_t outer, len, inner;
        split_at(x, a, &outer, &len, &inner);
        if (axis < 0)
            println(e, "%sif (axis == %d || axis == %d)", a == first ? "" : "else ", a,
                    a - x->rank);
        println(e, "%scum%s_%s(%lld, %lld, %lld, %d, %d, %s, %s);", axis < 0 ? "    " : "",
                strcmp(n->op_type, "CumProd") ? "sum" : "prod", sfx, (long long)outer,
                (long long)len, (long long)inner, ex, rev, value_cname(e, x), value_cname(e, y));
    }
    if (axis < 0) {
        e->indent--;
        println(e, "}");
    }
}

/* ---- ArgMax, ArgMin ---- */

static int arg_axis(const Node *n)
{
    return normalize_axis(n, attr_int(n, "axis", 0), n->inputs[0]->rank);
}

void arg_infer(Node *n)
{
    const Value *x = n->inputs[0];
    type_suffix(n, x->dtype, "input");
    if (x->rank < 1)
        fatal_at(n, "input must have rank 1 or more");
    int axis = arg_axis(n);
    if (x->dims[axis] == 0)
        fatal_at(n, "the reduced axis is empty");
    if (attr_int(n, "select_last_index", 0) && n->opset < 12)
        fatal_at(n, "select_last_index needs opset 12");
    int64_t dims[MAX_RANK];
    int r = 0;
    bool keep = attr_int(n, "keepdims", 1) != 0;
    for (int d = 0; d < x->rank; d++)
        if (d != axis)
            dims[r++] = x->dims[d];
        else if (keep)
            dims[r++] = 1;
    set_shape(n->outputs[0], DT_INT64, r, dims);
}

void arg_fold(Node *n)
{
    const Value *x = n->inputs[0];
    int64_t outer, len, inner;
    split_at(x, arg_axis(n), &outer, &len, &inner);
    int is_min = !strcmp(n->op_type, "ArgMin"), last = attr_int(n, "select_last_index", 0) != 0;
    int64_t *y = n->outputs[0]->data;
    switch (x->dtype) {
    case DT_FLOAT: arg_f32(outer, len, inner, is_min, last, x->data, y); break;
    case DT_DOUBLE: arg_f64(outer, len, inner, is_min, last, x->data, y); break;
    case DT_INT32: arg_i32(outer, len, inner, is_min, last, x->data, y); break;
    default: arg_i64(outer, len, inner, is_min, last, x->data, y); break;
    }
}

void arg_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    int64_t outer, len, inner;
    split_at(x, arg_axis(n), &outer, &len, &inner);
    println(e, "arg_%s(%lld, %lld, %lld, %d, %d, %s, %s);", type_suffix(n, x->dtype, "input"),
            (long long)outer, (long long)len, (long long)inner, !strcmp(n->op_type, "ArgMin"),
            attr_int(n, "select_last_index", 0) != 0, value_cname(e, x),
            value_cname(e, n->outputs[0]));
}

/* ---- TopK ---- */

static int64_t topk_k(const Node *n)
{
    if (n->opset < 10) {
        if (!attr_get(n, "k"))
            fatal_at(n, "attribute 'k' is required");
        return attr_int(n, "k", 0);
    }
    if (n->ninputs < 2 || !n->inputs[1])
        fatal_at(n, "input K is required");
    int c;
    int64_t *k = const_ints(n, n->inputs[1], &c);
    if (c != 1)
        fatal_at(n, "K must hold one value");
    return k[0];
}

static const char *topk_suffix(const Node *n)
{
    return n->inputs[0]->dtype == DT_UINT64 ? "u64" : type_suffix(n, n->inputs[0]->dtype, "input");
}

void topk_infer(Node *n)
{
    const Value *x = n->inputs[0];
    topk_suffix(n);
    if (x->rank < 1)
        fatal_at(n, "input must have rank 1 or more");
    int axis = normalize_axis(n, attr_int(n, "axis", -1), x->rank);
    int64_t k = topk_k(n);
    if (k < 0 || k > x->dims[axis])
        fatal_at(n, "k %lld is out of range for an axis of %lld", (long long)k,
                 (long long)x->dims[axis]);
    if (n->noutputs != 2)
        fatal_at(n, "needs two outputs");
    int64_t dims[MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = k;
    set_shape(n->outputs[0], x->dtype, x->rank, dims);
    set_shape(n->outputs[1], DT_INT64, x->rank, dims);
}

void topk_fold(Node *n)
{
    const Value *x = n->inputs[0];
    int64_t outer, len, inner;
    split_at(x, normalize_axis(n, attr_int(n, "axis", -1), x->rank), &outer, &len, &inner);
    int64_t k = topk_k(n);
    int largest = attr_int(n, "largest", 1) != 0;
    void *v = n->outputs[0]->data;
    int64_t *ix = n->outputs[1]->data;
    switch (x->dtype) {
    case DT_FLOAT: topk_f32(outer, len, inner, k, largest, x->data, v, ix); break;
    case DT_DOUBLE: topk_f64(outer, len, inner, k, largest, x->data, v, ix); break;
    case DT_INT32: topk_i32(outer, len, inner, k, largest, x->data, v, ix); break;
    case DT_UINT64: topk_u64(outer, len, inner, k, largest, x->data, v, ix); break;
    default: topk_i64(outer, len, inner, k, largest, x->data, v, ix); break;
    }
}

void topk_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    int64_t outer, len, inner;
    split_at(x, normalize_axis(n, attr_int(n, "axis", -1), x->rank), &outer, &len, &inner);
    if (!value_numel(n->outputs[0]))
        return;
    println(e, "topk_%s(%lld, %lld, %lld, %lld, %d, %s, %s, %s);", topk_suffix(n), (long long)outer,
            (long long)len, (long long)inner, (long long)topk_k(n), attr_int(n, "largest", 1) != 0,
            value_cname(e, x), value_cname(e, n->outputs[0]), value_cname(e, n->outputs[1]));
}

/* ---- Hardmax: along `axis` from opset 13; before, on the 2-D flattening at `axis` ---- */

static void hardmax_geometry(const Node *n, int64_t *outer, int64_t *len, int64_t *inner)
{
    const Value *x = n->inputs[0];
    if (n->opset >= 13) {
        split_at(x, normalize_axis(n, attr_int(n, "axis", -1), x->rank), outer, len, inner);
        return;
    }
    int64_t a = attr_int(n, "axis", 1);
    if (a < -x->rank || a > x->rank)
        fatal_at(n, "axis %lld is out of range", (long long)a);
    int axis = (int)(a < 0 ? a + x->rank : a);
    *outer = 1;
    *len = 1;
    *inner = 1;
    for (int d = 0; d < x->rank; d++) {
        if (d < axis)
            *outer *= x->dims[d];
        else
            *len *= x->dims[d];
    }
}

void hardmax_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    if (n->inputs[0]->rank < 1)
        fatal_at(n, "input must have rank 1 or more");
    int64_t o, l, i;
    hardmax_geometry(n, &o, &l, &i);
    same_shape_infer(n);
}

void hardmax_fold(Node *n)
{
    int64_t o, l, i;
    hardmax_geometry(n, &o, &l, &i);
    hardmax_f32(o, l, i, n->inputs[0]->data, n->outputs[0]->data);
}

void hardmax_emit(Emitter *e, Node *n)
{
    int64_t o, l, i;
    hardmax_geometry(n, &o, &l, &i);
    println(e, "hardmax_f32(%lld, %lld, %lld, %s, %s);", (long long)o, (long long)l, (long long)i,
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}
