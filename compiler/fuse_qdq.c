/* fuse_qdq.c — (-O1) the QDQ form of quantised models as integer ops. onnxruntime's
 * quantiser (quantize_static, QDQ format) writes every quantised product as
 *
 *     DequantizeLinear(x) -> Conv | Gemm | MatMul (DequantizeLinear(w), DequantizeLinear(bias))
 *                         -> QuantizeLinear
 *
 * and means QLinearConv / QLinearMatMul: int8 or uint8 products, int32 sums with an int32
 * bias, requantised by x_scale * w_scale / y_scale, rounded half to even, saturated. This pass
 * writes exactly that:
 *
 *     Conv            -> QLinearConv(x, w, bias)
 *     Gemm, MatMul    -> Reshape x to [M][K][1][1] -> QLinearConv with w as [N][K][1][1]
 *                        -> Reshape to the product's shape (views: no copies)
 *
 * so that one integer kernel (templates/quant.c: qconv, and qconv_s8 for int8 weights with
 * zero point 0) runs every quantised product. The weights' DequantizeLinear nodes were folded
 * by infer_shapes; the folded value's retired producer still holds the integer tensor, scale
 * and zero point. The bias is taken only when it is int32 with zero point 0 and scale exactly
 * x_scale * w_scale (float32 product; what the quantiser writes), the form QLinearConv's
 * bias has; anything else keeps the float graph.
 *
 * The results differ from the float graph only where its float accumulation rounds: an output
 * within about 1e-7 (relative) of a rounding boundary of QuantizeLinear may land one quantum
 * away (onnxruntime's own integer kernels behave the same; tests/models/gen_qdq_models.py
 * measures it: no difference over its 64 inputs per model).
 *
 * Quantised data passed through a view between a DequantizeLinear and a QuantizeLinear of the
 * same per-tensor scale and zero point (Q(Flatten(DQ(x))), Reshape, Squeeze, Unsqueeze) stays
 * integer: that view of x (Q(DQ(x)) is x for equal parameters, |x - zp| < 2^24). */
#include "rewrite.h"

#include <string.h>

static bool is_q8(DType t)
{
    return t == DT_UINT8 || t == DT_INT8;
}

static bool scalar(const Value *v)
{
    return value_numel(v) == 1 && v->rank <= 1;
}

/* A DequantizeLinear or QuantizeLinear with a constant per-tensor float scale and a constant
 * 8-bit zero point. */
static bool per_tensor_qdq(const Node *n)
{
    const Value *s = node_input(n, 1), *z = node_input(n, 2);
    return s && s->data && s->dtype == DT_FLOAT && scalar(s) && z && z->data && is_q8(z->dtype) &&
           scalar(z) && attr_int(n, "block_size", 0) == 0;
}

/* The output of a DequantizeLinear(x) with x 8-bit, per tensor (the pattern checked the op). */
static bool activation_dq(const Value *v, double c)
{
    (void)c;
    const Node *d = v->producer;
    return per_tensor_qdq(d) && is_q8(d->inputs[0]->dtype);
}

/* QuantizeLinear q (the rules' root) is 8-bit, per tensor. */
static bool quantizes_q8(const Node *q)
{
    if (!per_tensor_qdq(q) || q->outputs[0]->is_output)
        return false;
    return !attr_int(q, "output_dtype", 0) || attr_int(q, "output_dtype", 0) == q->inputs[2]->dtype;
}

static const Pattern weight_dq = {.op = "DequantizeLinear"};

/* The retired DequantizeLinear a constant was folded from, with constant operands: integer
 * tensor of `type`, scale per tensor or along `axis` (of `rank`), zero point of the same shape
 * or absent. */
static Node *constant_dq(const Value *v, DType type, int axis)
{
    Node *d = v ? v->producer : NULL;
    if (!v || !v->data || !d || !d->dead || !pattern_op_is(&weight_dq, d) ||
        attr_int(d, "block_size", 0))
        return NULL;
    const Value *x = d->inputs[0], *s = node_input(d, 1), *z = node_input(d, 2);
    if (!x->data || x->dtype != type || !s || !s->data || s->dtype != DT_FLOAT || (z && !z->data))
        return NULL;
    if (!scalar(s)) {
        int a = (int)attr_int(d, "axis", 1);
        if (a < 0)
            a += x->rank;
        if (a != axis || s->rank != 1 || s->dims[0] != x->dims[axis])
            return NULL;
    }
    if (z && value_numel(z) != value_numel(s))
        return NULL;
    return d;
}

static float scale_at(const Value *s, int64_t i)
{
    return ((const float *)s->data)[scalar(s) ? 0 : i];
}

/* The int32 bias of a product with `count` output channels, if it is QLinearConv's: zero
 * point 0, scale x_scale * w_scale. Its integer tensor, as a [count] value. */
static Value *int32_bias(Graph *g, const Value *b, int64_t count, float xs, const Value *ws)
{
    Node *d = constant_dq(b, DT_INT32, b && b->rank ? b->rank - 1 : 0);
    if (!d || value_numel(b) != count)
        return NULL;
    const Value *s = d->inputs[1], *z = node_input(d, 2);
    for (int64_t i = 0; i < count; i++) {
        if (z && ((const int32_t *)z->data)[scalar(z) ? 0 : i])
            return NULL;
        if (scale_at(s, i) != xs * scale_at(ws, i))
            return NULL;
    }
    Value *q = d->inputs[0];
    if (q->rank == 1)
        return q;
    Value *r = constant_new(g, xprintf("%s/bias", d->name), DT_INT32, 1, &count);
    memcpy(r->data, q->data, (size_t)count * sizeof(int32_t));
    return r;
}

/* QLinearConv writing `y`, placed before `anchor`; attributes those of `attrs_of` (or none). */
static Node *qlinear_conv(Graph *g, const Node *anchor, const Node *attrs_of, Node *dx, Value *x,
                          Node *dw, Value *w, Value *bias, Node *q, Value *y)
{
    Value *ins[9] = {x,
                     dx->inputs[1],
                     dx->inputs[2],
                     w,
                     dw->inputs[1],
                     node_input(dw, 2),
                     q->inputs[1],
                     q->inputs[2],
                     bias};
    Node *c = new_node_before(g, anchor, anchor->name, "QLinearConv", bias ? 9 : 8, ins, y);
    c->opset = 10 > anchor->opset ? 10 : anchor->opset;
    if (attrs_of) {
        c->attrs = attrs_of->attrs;
        c->nattrs = attrs_of->nattrs;
    }
    c->op->infer(c);
    return c;
}

/* Bindings of the rules: the product's output and the activation's DequantizeLinear's. */
enum { PRODUCT = 1, DQ_X };

/* Conv -> QuantizeLinear, with DequantizeLinear inputs. */
static bool fuse_conv(Graph *g, Node *q, const Match *m)
{
    Node *n = m->v[PRODUCT]->producer, *dx = m->v[DQ_X]->producer;
    Value *w = n->inputs[1];
    if (!quantizes_q8(q))
        return false;
    Node *dw = constant_dq(w, DT_INT8, 0);
    if (!dw)
        dw = constant_dq(w, DT_UINT8, 0);
    if (!dw || w->rank < 3)
        return false;
    Value *bias = NULL;
    if (node_input(n, 2)) {
        bias = int32_bias(g, n->inputs[2], w->dims[0], scale_at(dx->inputs[1], 0), dw->inputs[1]);
        if (!bias)
            return false;
    }
    Value *y = q->outputs[0];
    qlinear_conv(g, n, n, dx, dx->inputs[0], dw, dw->inputs[0], bias, q, y);
    node_retire(n);
    node_retire(q);
    record_fusion("qdq_conv");
    return true;
}

/* Gemm (alpha 1, beta 1, no transA) or MatMul with a constant 2-D right operand and 8-bit
 * DequantizeLinear inputs, -> QuantizeLinear. */
static bool fuse_product(Graph *g, Node *q, const Match *m, bool gemm)
{
    Node *n = m->v[PRODUCT]->producer, *dx = m->v[DQ_X]->producer;
    Value *a = n->inputs[0], *b = n->inputs[1], *c = gemm ? node_input(n, 2) : NULL;
    if (gemm && (attr_float(n, "alpha", 1.0f) != 1.0f || attr_int(n, "transA", 0) ||
                 (c && attr_float(n, "beta", 1.0f) != 1.0f)))
        return false;
    bool trans_b = gemm && attr_int(n, "transB", 0);
    if (!quantizes_q8(q) || b->rank != 2 || a->rank < 2)
        return false;
    Node *dw = constant_dq(b, DT_INT8, trans_b ? 0 : 1);
    if (!dw)
        dw = constant_dq(b, DT_UINT8, trans_b ? 0 : 1);
    if (!dw)
        return false;
    int64_t K = a->dims[a->rank - 1], N = trans_b ? b->dims[0] : b->dims[1];
    int64_t M = value_numel(a) / K;
    Value *bias = NULL;
    if (c) {
        bias = int32_bias(g, c, N, scale_at(dx->inputs[1], 0), dw->inputs[1]);
        if (!bias)
            return false;
    }
    /* the weight as [N][K][1][1] */
    const Value *wq = dw->inputs[0];
    int64_t wdims[4] = {N, K, 1, 1};
    Value *w4 = constant_new(g, xprintf("%s/weight", n->name), wq->dtype, 4, wdims);
    const uint8_t *src = wq->data;
    uint8_t *dst = w4->data;
    for (int64_t i = 0; i < N; i++)
        for (int64_t k = 0; k < K; k++)
            dst[i * K + k] = trans_b ? src[i * K + k] : src[k * N + i];
    int64_t xdims[4] = {M, K, 1, 1}, ydims[4] = {M, N, 1, 1};
    Value *x4 = reshape_before(g, n, dx->inputs[0], 4, xdims);
    Value *y4 = value_new(g, "");
    y4->name = xprintf("%s/qlinear_%d", n->name, y4->id);
    set_shape(y4, q->outputs[0]->dtype, 4, ydims);
    qlinear_conv(g, n, NULL, dx, x4, dw, w4, bias, q, y4);
    /* back to the product's shape, a view */
    Value *y = q->outputs[0];
    int64_t rank = y->rank;
    Value *shape = constant_new(g, xprintf("%s/shape", q->name), DT_INT64, 1, &rank);
    memcpy(shape->data, y->dims, (size_t)rank * sizeof(int64_t));
    Value *ins[2] = {y4, shape};
    node_retire(n);
    node_retire(q);
    new_node_before(g, q, xprintf("%s/reshape", q->name), "Reshape", 2, ins, y);
    y->view_of = y4;
    record_fusion(gemm ? "qdq_gemm" : "qdq_matmul");
    return true;
}

static bool fuse_gemm_q(Graph *g, Node *q, const Match *m)
{
    return fuse_product(g, q, m, true);
}

static bool fuse_matmul_q(Graph *g, Node *q, const Match *m)
{
    return fuse_product(g, q, m, false);
}

/* Q(view(DQ(x))) with the same scale and zero point -> view(x). */
static bool fuse_view(Graph *g, Node *q, const Match *m)
{
    (void)g;
    Node *n = m->v[PRODUCT]->producer, *dx = m->v[DQ_X]->producer;
    if (!quantizes_q8(q))
        return false;
    const Value *s0 = dx->inputs[1], *s1 = q->inputs[1], *z0 = dx->inputs[2], *z1 = q->inputs[2];
    if (*(const float *)s0->data != *(const float *)s1->data || z0->dtype != z1->dtype ||
        memcmp(z0->data, z1->data, dtype_size(z0->dtype)))
        return false;
    Value *y = q->outputs[0];
    Value *x = dx->inputs[0];
    node_retire(q);
    node_set_input(n, 0, x);
    steal_output(n, n->outputs[0], y);
    y->view_of = x;
    record_fusion("qdq_view");
    return true;
}

/* Rooted at the QuantizeLinear: Q(op(DQ(x), ...)); the activation's DequantizeLinear may have
 * other readers. */
#define DQ                                                                                         \
    (&(const Pattern){                                                                             \
        .op = "DequantizeLinear", .bind = DQ_X, .shared = true, .test = activation_dq})
#define Q_OF(o)                                                                                    \
    (&(const Pattern){.op = "QuantizeLinear",                                                      \
                      .nin = 1,                                                                    \
                      .in = {&(const Pattern){.op = (o), .bind = PRODUCT, .nin = 1, .in = {DQ}}}})

static const RewriteRule qdq_rules[] = {
    {Q_OF("Conv"), fuse_conv},
    {Q_OF("Gemm"), fuse_gemm_q},
    {Q_OF("MatMul"), fuse_matmul_q},
    {(&(const Pattern){
         .op = "QuantizeLinear",
         .nin = 1,
         .in = {&(const Pattern){.flags = OP_VIEW, .bind = PRODUCT, .nin = 1, .in = {DQ}}}}),
     fuse_view},
};

void fuse_qdq(Graph *g)
{
    REWRITE(g, qdq_rules);
}
