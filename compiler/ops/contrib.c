/* contrib.c — the com.microsoft ops that onnxruntime's own tools write, replaced when
 * infer_shapes reaches them by the standard ops whose semantics they fuse (like
 * expand_flex_attention.c), so that the op table, the kernels and the fusion passes serve them
 * unchanged (the fusions then fuse them again: FusedConv becomes a Conv with an epilogue).
 *
 *   FusedConv(X, W, B, Z)        Conv [+ Z] + activation     saved at ORT_ENABLE_EXTENDED
 *   FusedGemm(A, B, C)           Gemm + activation
 *   FusedMatMul(A, B)            [Transpose] x [Transpose] MatMul [* alpha]
 *   Gelu, BiasGelu, FastGelu     [Add bias] + Gelu (FastGelu: approximate="tanh")
 *   QuickGelu                    x * Sigmoid(alpha * x)
 *   SkipLayerNormalization       Add(input, skip [, bias]) + LayerNormalization(axis -1)
 *   SimplifiedLayerNormalization              RMSNormalization
 *   SkipSimplifiedLayerNormalization          Add + RMSNormalization
 *   QLinearAdd/Mul/Sigmoid/LeakyRelu/Softmax/AveragePool/GlobalAveragePool/Concat/Where, QGemm
 *                                DequantizeLinear -> the float op -> QuantizeLinear
 *   QuantizeLinear, DequantizeLinear          the standard ops
 *   RotaryEmbedding              the ONNX RotaryEmbedding (inputs reordered)
 *   MatMulNBits                  MatMul by a weight dequantized at compile time
 *   DynamicQuantizeMatMul, MatMulIntegerToFloat
 *                                [DynamicQuantizeLinear] MatMulInteger, Cast, * scale [+ bias]
 *   DynamicQuantizeLSTM          LSTM by its weights dequantized at compile time
 *   Attention, MultiHeadAttention, GroupQueryAttention, EmbedLayerNormalization, BiasSoftmax
 *                                contrib_attention.c
 *
 * Activations of FusedConv (activation_params) and FusedGemm (activation_alpha/beta): Relu,
 * Tanh, Sigmoid, LeakyRelu, HardSigmoid, Clip. Outputs holding a normalisation's statistics
 * (mean, inverse standard deviation) are refused when the model reads them. The layout ops
 * of onnxruntime's highest level (domain com.microsoft.nchwc: ReorderInput, ReorderOutput,
 * NCHWc Conv) are refused with an error that says to save at the extended level. */
#include "contrib.h"

#include <string.h>

bool is_contrib_op(const Node *n)
{
    if (!*n->domain || !strcmp(n->domain, "ai.onnx")) /* onnxruntime registers it there */
        return !strcmp(n->op_type, "SimplifiedLayerNormalization");
    return !strncmp(n->domain, "com.microsoft", 13);
}

/* ---- helpers ---- */

Value *expansion_node1(const Expansion *e, const char *op, int nin, Value *const *ins, Value *out)
{
    return expansion_node(e, op, nin, ins, 1, out ? &out : NULL)->outputs[0];
}

Value *expansion_binary(const Expansion *e, const char *op, Value *a, Value *b, Value *out)
{
    Value *ins[2] = {a, b};
    return expansion_node1(e, op, 2, ins, out);
}

/* The node's attributes, except the activation's (FusedConv, FusedGemm), on h. */
static void copy_attrs(Node *h, const Node *n)
{
    h->attrs = xcalloc((size_t)n->nattrs + 1, sizeof(Attr));
    for (int i = 0; i < n->nattrs; i++)
        if (strncmp(n->attrs[i].name, "activation", 10) != 0)
            h->attrs[h->nattrs++] = n->attrs[i];
}

/* Applies activation `act` with parameters p[0], p[1] (np of them given) to x. */
static Value *activation(const Expansion *e, const char *act, int np, const float *p, Value *x,
                         Value *out)
{
    const Node *n = e->origin;
    if (!strcmp(act, "Relu") || !strcmp(act, "Tanh") || !strcmp(act, "Sigmoid"))
        return expansion_node1(e, act, 1, &x, out);
    if (!strcmp(act, "LeakyRelu")) {
        Node *h = expansion_node(e, act, 1, &x, 1, out ? &out : NULL);
        attr_set_float(h, "alpha", np > 0 ? p[0] : 0.01f);
        return h->outputs[0];
    }
    if (!strcmp(act, "HardSigmoid")) {
        Node *h = expansion_node(e, act, 1, &x, 1, out ? &out : NULL);
        attr_set_float(h, "alpha", np > 0 ? p[0] : 0.2f);
        attr_set_float(h, "beta", np > 1 ? p[1] : 0.5f);
        return h->outputs[0];
    }
    if (!strcmp(act, "Clip")) {
        if (np != 2)
            fatal_at(n, "activation Clip needs 2 parameters (min, max), not %d", np);
        Value *ins[3] = {x, expansion_float(e, p[0]), expansion_float(e, p[1])};
        return expansion_node1(e, act, 3, ins, out);
    }
    fatal_at(n, "activation '%s' is not supported", act);
}

/* ---- FusedConv, FusedGemm ---- */

static void fused_conv(const Expansion *e, Node *n)
{
    const char *act = attr_string(n, "activation", "");
    const Attr *params = attr_get(n, "activation_params");
    int nparams = params && params->type == ATTR_FLOATS ? params->n : 0;
    Value *z = node_input(n, 3), *out = n->outputs[0];
    Node *conv = expansion_node(e, "Conv", n->ninputs < 3 ? n->ninputs : 3, n->inputs, 1,
                                *act || z ? NULL : &out);
    copy_attrs(conv, n);
    Value *y = conv->outputs[0];
    if (z)
        y = expansion_binary(e, "Add", y, z, *act ? NULL : out);
    if (*act)
        activation(e, act, nparams, params ? params->floats : NULL, y, out);
}

static void fused_gemm(const Expansion *e, Node *n)
{
    const char *act = attr_string(n, "activation", "");
    Value *out = n->outputs[0];
    Node *gemm = expansion_node(e, "Gemm", n->ninputs, n->inputs, 1, *act ? NULL : &out);
    copy_attrs(gemm, n);
    float p[2] = {0, 0};
    int np = 0;
    if (attr_get(n, "activation_alpha"))
        p[np++] = attr_float(n, "activation_alpha", 0);
    if (attr_get(n, "activation_beta"))
        p[np++] = attr_float(n, "activation_beta", 0);
    if (!strcmp(act, "Clip") && attr_get(n, "activation_min")) {
        p[0] = attr_float(n, "activation_min", 0);
        p[1] = attr_float(n, "activation_max", 0);
        np = 2;
    }
    if (*act)
        activation(e, act, np, p, gemm->outputs[0], out);
}

/* ---- FusedMatMul: alpha * op(A) x op(B), op = transpose of the last two dims ---- */

/* x (of rank `rank`, which a new value does not know yet) with its last two dims swapped. */
Value *transpose_last2(const Expansion *e, Value *x, int rank)
{
    if (rank < 2)
        fatal_at(e->origin, "transA/transB need inputs of rank 2 or more");
    Node *t = expansion_node(e, "Transpose", 1, &x, 1, NULL);
    t->attrs = xcalloc(1, sizeof(Attr));
    t->attrs[0] = (Attr){.name = xstrdup("perm"), .type = ATTR_INTS, .n = rank};
    t->attrs[0].ints = xcalloc((size_t)rank, sizeof(int64_t));
    for (int i = 0; i < rank; i++)
        t->attrs[0].ints[i] = i < rank - 2 ? i : (i == rank - 2 ? rank - 1 : rank - 2);
    t->nattrs = 1;
    return t->outputs[0];
}

static void fused_matmul(const Expansion *e, Node *n)
{
    if (attr_int(n, "transBatchA", 0) || attr_int(n, "transBatchB", 0))
        fatal_at(n, "transBatchA/transBatchB are not supported");
    Value *a = n->inputs[0], *b = n->inputs[1], *out = n->outputs[0];
    require_float(n, a);
    if (attr_int(n, "transA", 0))
        a = transpose_last2(e, a, a->rank);
    if (attr_int(n, "transB", 0))
        b = transpose_last2(e, b, b->rank);
    float alpha = attr_float(n, "alpha", 1.0f);
    Value *y = expansion_binary(e, "MatMul", a, b, alpha == 1.0f ? out : NULL);
    if (alpha != 1.0f)
        expansion_binary(e, "Mul", y, expansion_float(e, alpha), out);
}

/* ---- Gelu family ---- */

static void gelu(const Expansion *e, Node *n, const char *approximate)
{
    Value *x = n->inputs[0], *bias = node_input(n, 1);
    if (bias)
        x = expansion_binary(e, "Add", x, bias, NULL);
    Node *h = expansion_node(e, "Gelu", 1, &x, 1, n->outputs);
    h->opset = e->opset > 20 ? e->opset : 20;
    if (approximate)
        attr_set_string(h, "approximate", approximate);
}

static void quick_gelu(const Expansion *e, Node *n)
{
    Value *x = n->inputs[0];
    require_float(n, x);
    float alpha = attr_float(n, "alpha", 1.702f);
    Value *s = alpha == 1.0f ? x : expansion_binary(e, "Mul", x, expansion_float(e, alpha), NULL);
    s = expansion_node1(e, "Sigmoid", 1, &s, NULL);
    expansion_binary(e, "Mul", x, s, n->outputs[0]);
}

/* ---- normalisations ---- */

static void refuse_stats(const Node *n, int from, int to)
{
    for (int i = from; i < to && i < n->noutputs; i++)
        if (value_is_used(n->outputs[i]))
            fatal_at(n, "output %d ('%s', a normalisation statistic) is not supported", i,
                     n->outputs[i]->name);
}

/* ReduceMean over the last axis, keepdims (axes an attribute before opset 18). */
static Value *mean_last(const Expansion *e, Value *x)
{
    int64_t axis = -1;
    Value *ins[2] = {x, e->opset >= 18 ? expansion_ints(e, 1, &axis) : NULL};
    Node *h = expansion_node(e, "ReduceMean", e->opset >= 18 ? 2 : 1, ins, 1, NULL);
    if (e->opset < 18) {
        h->attrs = xcalloc(1, sizeof(Attr));
        h->attrs[0] = (Attr){.name = xstrdup("axes"), .type = ATTR_INTS, .n = 1};
        h->attrs[0].ints = xcalloc(1, sizeof(int64_t));
        h->attrs[0].ints[0] = -1;
        h->nattrs = 1;
    }
    return h->outputs[0];
}

/* LayerNormalization (simplified: RMSNormalization) over the last axis of x. A model older
 * than the op (opset 17; 23) gets the formula in its own opset, so that --emit-onnx writes a
 * valid model: d = x [- mean(x)], y = d / sqrt(mean(d * d) + epsilon) * scale [+ bias]. */
void expansion_normalize(const Expansion *e, Node *n, bool simplified, Value *x, Value *scale,
                         Value *bias, float epsilon)
{
    int64_t axis = attr_int(n, "axis", -1);
    const Value *x0 = n->inputs[0]; /* x may be a new value, inferred later: same shape */
    if (axis != -1 && axis != x0->rank - 1)
        fatal_at(n, "only axis -1 is supported");
    Value *out = n->outputs[0];
    if (e->opset >= (simplified ? 23 : 17)) {
        Value *ins[3] = {x, scale, bias};
        Node *h = expansion_node(e, simplified ? "RMSNormalization" : "LayerNormalization",
                                 bias ? 3 : 2, ins, 1, &out);
        attr_set_int(h, "axis", -1);
        attr_set_float(h, "epsilon", epsilon);
        return;
    }
    require_float(n, scale); /* x may be a new value: scale has its type */
    Value *d = simplified ? x : expansion_binary(e, "Sub", x, mean_last(e, x), NULL);
    Value *var = mean_last(e, expansion_binary(e, "Mul", d, d, NULL));
    Value *sd = expansion_binary(e, "Add", var, expansion_float(e, epsilon), NULL);
    sd = expansion_node1(e, "Sqrt", 1, &sd, NULL);
    Value *y = expansion_binary(e, "Mul", expansion_binary(e, "Div", d, sd, NULL), scale,
                                bias ? NULL : out);
    if (bias)
        expansion_binary(e, "Add", y, bias, out);
}

/* SkipLayerNormalization(input, skip, gamma, beta, bias) and
 * SkipSimplifiedLayerNormalization(input, skip, gamma, bias): outputs (y, mean, inv_std_var,
 * input_skip_bias_sum). */
static void skip_layernorm(const Expansion *e, Node *n, bool simplified)
{
    refuse_stats(n, 1, 3);
    Value *beta = simplified ? NULL : node_input(n, 3);
    Value *bias = node_input(n, simplified ? 3 : 4);
    Value *sum_out = n->noutputs > 3 && *n->outputs[3]->name ? n->outputs[3] : NULL;
    Value *s = expansion_binary(e, "Add", n->inputs[0], n->inputs[1], bias ? NULL : sum_out);
    if (bias)
        s = expansion_binary(e, "Add", s, bias, sum_out);
    expansion_normalize(e, n, simplified, s, n->inputs[2], beta, attr_float(n, "epsilon", 1e-5f));
}

/* ---- the QOperator form of onnxruntime's quantiser (quant_format=QOperator) ----
 * Each QLinear op is DequantizeLinear of its inputs, the float op, QuantizeLinear of the
 * result: the semantics its schema states. onnxruntime's kernels compute some of them with
 * tables or float shortcuts, so results may differ from it by one quantum. fuse_qdq then
 * turns QGemm's DequantizeLinear -> Gemm -> QuantizeLinear into the integer kernel. */

static Value *dq(const Expansion *e, Value *x, Value *scale, Value *zero_point, int axis)
{
    Value *ins[3] = {x, scale, zero_point};
    Node *h = expansion_node(e, "DequantizeLinear", zero_point ? 3 : 2, ins, 1, NULL);
    if (axis >= 0)
        attr_set_int(h, "axis", axis);
    return h->outputs[0];
}

static void q(const Expansion *e, Value *y, Value *scale, Value *zero_point, Value *out)
{
    Value *ins[3] = {y, scale, zero_point};
    expansion_node(e, "QuantizeLinear", zero_point ? 3 : 2, ins, 1, &out);
}

/* The attributes of n except `skip`, on h. */
static void copy_attrs_except(Node *h, const Node *n, const char *skip)
{
    h->attrs = xcalloc((size_t)n->nattrs + 1, sizeof(Attr));
    for (int i = 0; i < n->nattrs; i++)
        if (strcmp(n->attrs[i].name, skip) != 0)
            h->attrs[h->nattrs++] = n->attrs[i];
}

/* QLinearAdd, QLinearMul (A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp) */
static void qlinear_binary(const Expansion *e, Node *n)
{
    Value *a = dq(e, n->inputs[0], n->inputs[1], node_input(n, 2), -1);
    Value *b = dq(e, n->inputs[3], n->inputs[4], node_input(n, 5), -1);
    Value *y = expansion_binary(e, !strcmp(n->op_type, "QLinearAdd") ? "Add" : "Mul", a, b, NULL);
    q(e, y, n->inputs[6], node_input(n, 7), n->outputs[0]);
}

/* QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax, QLinearAveragePool,
 * QLinearGlobalAveragePool (X, X_scale, X_zp, Y_scale, Y_zp): the float op keeps the
 * attributes (QLinearSoftmax's `opset` says which Softmax it is). */
static void qlinear_unary(const Expansion *e, Node *n)
{
    if (attr_int(n, "channels_last", 0))
        fatal_at(n, "channels_last=1 is not supported");
    Value *x = dq(e, n->inputs[0], n->inputs[1], node_input(n, 2), -1);
    Node *h = expansion_node(e, n->op_type + strlen("QLinear"), 1, &x, 1, NULL);
    copy_attrs_except(h, n, !strcmp(n->op_type, "QLinearSoftmax") ? "opset" : "channels_last");
    if (!strcmp(n->op_type, "QLinearSoftmax"))
        h->opset = (int)attr_int(n, "opset", e->opset);
    q(e, h->outputs[0], n->inputs[3], node_input(n, 4), n->outputs[0]);
}

/* QLinearConcat(Y_scale, Y_zp, X0, X0_scale, X0_zp, X1, ...) */
static void qlinear_concat(const Expansion *e, Node *n)
{
    if ((n->ninputs - 2) % 3)
        fatal_at(n, "needs Y_scale, Y_zero_point and three inputs per tensor");
    int count = (n->ninputs - 2) / 3;
    Value **xs = xcalloc((size_t)count + 1, sizeof(Value *));
    for (int i = 0; i < count; i++)
        xs[i] = dq(e, n->inputs[2 + 3 * i], n->inputs[3 + 3 * i], node_input(n, 4 + 3 * i), -1);
    Node *c = expansion_node(e, "Concat", count, xs, 1, NULL);
    attr_set_int(c, "axis", attr_int(n, "axis", 0));
    q(e, c->outputs[0], n->inputs[0], node_input(n, 1), n->outputs[0]);
}

/* QLinearWhere(cond, X, X_scale, X_zp, Y, Y_scale, Y_zp, Z_scale, Z_zp) */
static void qlinear_where(const Expansion *e, Node *n)
{
    Value *ins[3] = {n->inputs[0], dq(e, n->inputs[1], n->inputs[2], n->inputs[3], -1),
                     dq(e, n->inputs[4], n->inputs[5], n->inputs[6], -1)};
    q(e, expansion_node1(e, "Where", 3, ins, NULL), n->inputs[7], n->inputs[8], n->outputs[0]);
}

/* QGemm(A, A_scale, A_zp, B, B_scale, B_zp, C, Y_scale, Y_zp): B's scale may be per output
 * channel; C is int32 of scale A_scale * B_scale; without Y_scale the output is float. */
static void qgemm(const Expansion *e, Node *n)
{
    bool trans_b = attr_int(n, "transB", 0) != 0;
    Value *bs = n->inputs[4], *c = node_input(n, 6), *ys = node_input(n, 7);
    int axis = value_numel(bs) > 1 ? (trans_b ? 0 : 1) : -1;
    if (c && attr_float(n, "alpha", 1.0f) != 1.0f)
        fatal_at(n, "alpha other than 1 with a bias is not supported");
    Value *ins[3] = {dq(e, n->inputs[0], n->inputs[1], n->inputs[2], -1),
                     dq(e, n->inputs[3], bs, n->inputs[5], axis), NULL};
    if (c) {
        Value *cs = expansion_binary(e, "Mul", n->inputs[1], bs, NULL);
        ins[2] = dq(e, c, cs, NULL, axis >= 0 && c->rank == 1 ? 0 : -1);
    }
    Value *out = n->outputs[0];
    Node *gemm = expansion_node(e, "Gemm", c ? 3 : 2, ins, 1, ys ? NULL : &out);
    copy_attrs_except(gemm, n, "");
    if (ys)
        q(e, gemm->outputs[0], ys, node_input(n, 8), out);
}

/* com.microsoft QuantizeLinear / DequantizeLinear: the standard ops, attributes kept. */
static void quant_linear(const Expansion *e, Node *n)
{
    Node *h = expansion_node(e, n->op_type, n->ninputs, n->inputs, 1, n->outputs);
    copy_attrs_except(h, n, "");
}

/* ---- dynamic quantisation (quantize_dynamic, saved at the extended level) ----
 * y = float(int32 sum) * (a_scale * b_scale) + bias, as onnxruntime's kernels compute it. */

static void scale_int_product(const Expansion *e, Value *sum, Value *a_scale, Value *b_scale,
                              Value *bias, Value *out)
{
    Node *cast = expansion_node(e, "Cast", 1, &sum, 1, NULL);
    attr_set_int(cast, "to", DT_FLOAT);
    Value *scale = expansion_binary(e, "Mul", a_scale, b_scale, NULL);
    Value *y = expansion_binary(e, "Mul", cast->outputs[0], scale, bias ? NULL : out);
    if (bias)
        expansion_binary(e, "Add", y, bias, out);
}

/* DynamicQuantizeMatMul(A, B, b_scale, b_zero_point, bias): A quantised at run time to uint8
 * (DynamicQuantizeLinear), then MatMulInteger. */
static void dynamic_quantize_matmul(const Expansion *e, Node *n)
{
    Node *dql = expansion_node(e, "DynamicQuantizeLinear", 1, n->inputs, 3, NULL);
    Value *ins[4] = {dql->outputs[0], n->inputs[1], dql->outputs[2], node_input(n, 3)};
    Value *sum = expansion_node1(e, "MatMulInteger", ins[3] ? 4 : 3, ins, NULL);
    scale_int_product(e, sum, dql->outputs[1], n->inputs[2], node_input(n, 4), n->outputs[0]);
}

/* MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point, b_zero_point, bias) */
static void matmul_integer_to_float(const Expansion *e, Node *n)
{
    Value *ins[4] = {n->inputs[0], n->inputs[1], node_input(n, 4), node_input(n, 5)};
    int nin = ins[3] ? 4 : ins[2] ? 3 : 2;
    Value *sum = expansion_node1(e, "MatMulInteger", nin, ins, NULL);
    scale_int_product(e, sum, n->inputs[2], n->inputs[3], node_input(n, 6), n->outputs[0]);
}

/* DynamicQuantizeLSTM(X, W, R, B, sequence_lens, initial_h, initial_c, P, W_scale,
 * W_zero_point, R_scale, R_zero_point): an LSTM whose constant weights are 8-bit, stored
 * transposed: W [D][I][4H], R [D][H][4H], int8 or uint8, with scales and zero points per
 * direction [D] or per direction and gate column [D][4H]. The weights are dequantized at
 * compile time, (q - zero_point) * scale, into the float [D][4H][I] / [D][4H][H] of the ONNX
 * LSTM, which then runs in float. onnxruntime also quantizes X and the hidden state to uint8
 * at every step (dynamic quantisation), so its results differ from the float LSTM's by that
 * rounding (measured in tests/models/gen_contrib_models.py). */
static Value *dequantize_transposed(const Expansion *e, Value *q, Value *scale, Value *zp,
                                    const char *what)
{
    const Node *n = e->origin;
    require_constant(n, q, what);
    if (q->dtype != DT_INT8 && q->dtype != DT_UINT8)
        fatal_at(n, "%s '%s' has type %s; int8 or uint8 is supported", what, q->name,
                 dtype_name(q->dtype));
    if (q->rank != 3)
        fatal_at(n, "%s '%s' must be [directions][inputs][4 x hidden]", what, q->name);
    int64_t D = q->dims[0], K = q->dims[1], G = q->dims[2];
    require_constant(n, scale, "scale");
    require_float(n, scale);
    int64_t ns = value_numel(scale);
    if (ns != D && ns != checked_mul(n, D, G))
        fatal_at(n, "scale '%s' must have %lld or %lld elements", scale->name, (long long)D,
                 (long long)(D * G));
    if (zp) {
        require_constant(n, zp, "zero point");
        if (zp->dtype != q->dtype || value_numel(zp) != ns)
            fatal_at(n, "zero point '%s' must be %s with the scale's %lld elements", zp->name,
                     dtype_name(q->dtype), (long long)ns);
    }
    int64_t dims[3] = {D, G, K};
    Value *w = constant_new(e->g, xprintf("%s/%s", n->name, what), DT_FLOAT, 3, dims);
    float *out = w->data;
    const float *sc = scale->data;
    for (int64_t d = 0; d < D; d++)
        for (int64_t g = 0; g < G; g++) {
            int64_t c = ns == D ? d : d * G + g; /* the scale / zero point of this column */
            int32_t z = !zp                   ? 0
                        : q->dtype == DT_INT8 ? ((const int8_t *)zp->data)[c]
                                              : ((const uint8_t *)zp->data)[c];
            for (int64_t k = 0; k < K; k++) {
                int64_t i = (d * K + k) * G + g;
                int32_t v = q->dtype == DT_INT8 ? ((const int8_t *)q->data)[i]
                                                : ((const uint8_t *)q->data)[i];
                out[(d * G + g) * K + k] = (float)(v - z) * sc[c];
            }
        }
    return w;
}

static void dynamic_quantize_lstm(const Expansion *e, Node *n)
{
    Value *ins[8];
    for (int i = 0; i < 8; i++)
        ins[i] = node_input(n, i);
    if (!node_input(n, 8) || !node_input(n, 10))
        fatal_at(n, "W_scale and R_scale are required");
    ins[1] = dequantize_transposed(e, n->inputs[1], n->inputs[8], node_input(n, 9), "W");
    ins[2] = dequantize_transposed(e, n->inputs[2], n->inputs[10], node_input(n, 11), "R");
    int nin = 8;
    while (nin > 3 && !ins[nin - 1])
        nin--;
    Node *h = expansion_node(e, "LSTM", nin, ins, n->noutputs, n->outputs);
    copy_attrs_except(h, n, "");
}

/* RotaryEmbedding(input, position_ids, cos_cache, sin_cache): the ONNX op of opset 23 (which
 * was made from it) with its inputs in that op's order; a position_ids of one element is the
 * offset of the first position. (--emit-onnx of a model older than opset 23 then writes a
 * node its opset does not have.) */
static void rotary_embedding(const Expansion *e, Node *n)
{
    if (attr_int(n, "is_packed_batching", 0))
        fatal_at(n, "is_packed_batching=1 is not supported");
    if (attr_float(n, "scale", 1.0f) != 1.0f)
        fatal_at(n, "scale other than 1 is not supported");
    Value *x = n->inputs[0], *pos = n->inputs[1];
    if (value_numel(pos) == 1) {
        int count;
        int64_t offset = const_ints(n, pos, &count)[0];
        int64_t B = x->dims[0], S = x->dims[x->rank == 4 ? 2 : 1];
        int64_t dims[2] = {B, S}, total = checked_mul(n, B, S);
        pos = constant_new(e->g, xprintf("%s/positions", n->name), DT_INT64, 2, dims);
        for (int64_t i = 0; i < total; i++)
            ((int64_t *)pos->data)[i] = checked_add(n, offset, i % S);
    }
    Value *ins[4] = {x, n->inputs[2], n->inputs[3], pos};
    Node *h = expansion_node(e, "RotaryEmbedding", 4, ins, 1, n->outputs);
    h->opset = e->opset > 23 ? e->opset : 23;
    attr_set_int(h, "interleaved", attr_int(n, "interleaved", 0));
    if (attr_get(n, "num_heads"))
        attr_set_int(h, "num_heads", attr_int(n, "num_heads", 0));
    if (attr_get(n, "rotary_embedding_dim"))
        attr_set_int(h, "rotary_embedding_dim", attr_int(n, "rotary_embedding_dim", 0));
}

/* MatMulNBits(A, B, scales, zero_points, g_idx, bias): B [N, k_blocks, blob] holds 4- or 8-bit
 * weights of column n packed along K (low nibble first), scales [N * k_blocks]; the zero
 * points (default 2^(bits-1)) are packed the same way per row. The constant weight becomes a
 * blocked DequantizeLinear of a [N, K] uint4/uint8 constant, folded at compile time, then a
 * MatMul with its Transpose: W[k][n] = (q - zero_point) * scale, as onnxruntime computes it. */
static Value *unpack_bits(const Expansion *e, const Value *packed, int bits, int64_t rows,
                          int64_t cols, int64_t row_bytes, const char *what)
{
    const Node *n = e->origin;
    require_constant(n, packed, what);
    require_dtype(n, packed, DT_UINT8);
    if (value_numel(packed) != checked_mul(n, rows, row_bytes))
        fatal_at(n, "%s '%s' has %lld bytes, not %lld x %lld", what, packed->name,
                 (long long)value_numel(packed), (long long)rows, (long long)row_bytes);
    int64_t dims[2] = {rows, cols};
    Value *v = constant_new(e->g, xprintf("%s/unpacked", n->name), bits == 4 ? DT_UINT4 : DT_UINT8,
                            2, dims);
    const uint8_t *src = packed->data;
    uint8_t *dst = v->data;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            uint8_t byte = src[r * row_bytes + (bits == 4 ? c / 2 : c)];
            dst[r * cols + c] = bits == 8 ? byte : (uint8_t)(c % 2 ? byte >> 4 : byte & 15);
        }
    return v;
}

static void matmul_nbits(const Expansion *e, Node *n)
{
    int64_t K = attr_int(n, "K", 0), N = attr_int(n, "N", 0), bits = attr_int(n, "bits", 4);
    int64_t block = attr_int(n, "block_size", 0);
    if (bits != 4 && bits != 8)
        fatal_at(n, "bits=%lld is not supported (4 or 8)", (long long)bits);
    if (K <= 0 || N <= 0 || block < 16 || (block & (block - 1)))
        fatal_at(n, "K and N must be positive and block_size a power of 2 of 16 or more");
    if (node_input(n, 4))
        fatal_at(n, "g_idx is not supported");
    int64_t nb = (K + block - 1) / block, blob = block * bits / 8;
    Value *q = unpack_bits(e, n->inputs[1], (int)bits, N, K, checked_mul(n, nb, blob), "B");
    Value *scale = n->inputs[2];
    require_constant(n, scale, "scales");
    require_float(n, scale);
    if (value_numel(scale) != checked_mul(n, N, nb))
        fatal_at(n, "scales has %lld elements, not N * k_blocks = %lld",
                 (long long)value_numel(scale), (long long)(N * nb));
    int64_t sdims[2] = {N, nb};
    Value *s2 = constant_new(e->g, xprintf("%s/scales", n->name), DT_FLOAT, 2, sdims);
    memcpy(s2->data, scale->data, (size_t)(N * nb) * sizeof(float));
    Value *zp = node_input(n, 3);
    if (zp && zp->dtype != DT_UINT8)
        fatal_at(n, "zero points of type %s are not supported (uint8 only)", dtype_name(zp->dtype));
    if (zp) {
        zp = unpack_bits(e, zp, (int)bits, N, nb, bits == 4 ? (nb + 1) / 2 : nb, "zero_points");
    } else {
        zp = constant_new(e->g, xprintf("%s/zero_points", n->name), q->dtype, 2, sdims);
        memset(zp->data, 1 << (bits - 1), (size_t)(N * nb));
    }
    Value *ins[3] = {q, s2, zp};
    Node *dq = expansion_node(e, "DequantizeLinear", 3, ins, 1, NULL);
    dq->opset = e->opset > 21 ? e->opset : 21;
    attr_set_int(dq, "axis", 1);
    attr_set_int(dq, "block_size", block);
    Value *w = transpose_last2(e, dq->outputs[0], 2);
    Value *bias = node_input(n, 5), *out = n->outputs[0];
    Value *y = expansion_binary(e, "MatMul", n->inputs[0], w, bias ? NULL : out);
    if (bias)
        expansion_binary(e, "Add", y, bias, out);
}

static void gelu_exact(const Expansion *e, Node *n)
{
    gelu(e, n, NULL); /* Gelu, BiasGelu */
}

static void gelu_tanh(const Expansion *e, Node *n)
{
    gelu(e, n, "tanh"); /* FastGelu */
}

static void skip_ln(const Expansion *e, Node *n)
{
    skip_layernorm(e, n, false);
}

static void skip_rms(const Expansion *e, Node *n)
{
    skip_layernorm(e, n, true);
}

static void rms(const Expansion *e, Node *n)
{
    refuse_stats(n, 1, 2);
    expansion_normalize(e, n, true, n->inputs[0], n->inputs[1], NULL,
                        attr_float(n, "epsilon", 1e-5f));
}

/* ---- driver ---- */

static const struct {
    const char *op;
    int min_inputs, max_inputs;
    void (*expand)(const Expansion *e, Node *n);
} contrib_ops[] = {
    {"FusedConv", 2, 4, fused_conv},
    {"FusedGemm", 2, 3, fused_gemm},
    {"FusedMatMul", 2, 2, fused_matmul},
    {"Gelu", 1, 1, gelu_exact},
    {"BiasGelu", 2, 2, gelu_exact},
    {"FastGelu", 1, 2, gelu_tanh},
    {"QuickGelu", 1, 1, quick_gelu},
    {"SkipLayerNormalization", 3, 5, skip_ln},
    {"SkipSimplifiedLayerNormalization", 3, 4, skip_rms},
    {"SimplifiedLayerNormalization", 2, 2, rms},
    {"QLinearAdd", 7, 8, qlinear_binary},
    {"QLinearMul", 7, 8, qlinear_binary},
    {"QLinearSigmoid", 4, 5, qlinear_unary},
    {"QLinearLeakyRelu", 4, 5, qlinear_unary},
    {"QLinearSoftmax", 4, 5, qlinear_unary},
    {"QLinearAveragePool", 4, 5, qlinear_unary},
    {"QLinearGlobalAveragePool", 4, 5, qlinear_unary},
    {"QLinearConcat", 5, 1 << 20, qlinear_concat},
    {"QLinearWhere", 9, 9, qlinear_where},
    {"QGemm", 6, 9, qgemm},
    {"QuantizeLinear", 2, 3, quant_linear},
    {"DequantizeLinear", 2, 3, quant_linear},
    {"DynamicQuantizeMatMul", 3, 5, dynamic_quantize_matmul},
    {"MatMulIntegerToFloat", 4, 7, matmul_integer_to_float},
    {"RotaryEmbedding", 4, 4, rotary_embedding},
    {"MatMulNBits", 3, 6, matmul_nbits},
    {"DynamicQuantizeLSTM", 3, 12, dynamic_quantize_lstm},
    {"Attention", 2, 7, ort_attention},
    {"MultiHeadAttention", 1, 10, multi_head_attention},
    {"GroupQueryAttention", 1, 12, group_query_attention},
    {"EmbedLayerNormalization", 1, 9, embed_layernorm},
    {"BiasSoftmax", 2, 2, bias_softmax},
};

void expand_contrib_op(Model *m, int index)
{
    Graph *g = m->graph;
    Node *n = g->nodes[index];
    if (!strncmp(n->domain, "com.microsoft.", 14))
        fatal_at(n,
                 "operator domain '%s' is onnxruntime's layout-specific form (saved at "
                 "ORT_ENABLE_ALL); save the model at ORT_ENABLE_EXTENDED instead",
                 n->domain);
    size_t k = 0, count = sizeof contrib_ops / sizeof contrib_ops[0];
    while (k < count && strcmp(n->op_type, contrib_ops[k].op) != 0)
        k++;
    if (k == count)
        fatal_at(n, "com.microsoft operator '%s' is not supported", n->op_type);
    if (n->ninputs < contrib_ops[k].min_inputs || n->ninputs > contrib_ops[k].max_inputs)
        fatal_at(n, "has %d inputs, the op takes %d to %d", n->ninputs, contrib_ops[k].min_inputs,
                 contrib_ops[k].max_inputs);
    for (int i = 0; i < n->ninputs; i++) {
        if (i < contrib_ops[k].min_inputs && !n->inputs[i])
            fatal_at(n, "required input %d is missing", i);
        if (n->inputs[i] && n->inputs[i]->rank < 0)
            fatal_at(n, "input '%s' has no known shape", n->inputs[i]->name);
    }
    Expansion e = {.g = g, .origin = n, .opset = m->opset > 13 ? m->opset : 13};
    int first_new = g->nnodes;
    contrib_ops[k].expand(&e, n);
    node_retire(n);
    move_new_nodes(g, index, first_new);
}
