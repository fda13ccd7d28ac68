/* fuse_epilogue.c — fold what follows a Gemm or Conv into it:
 *   BatchNormalization, and Mul/Add by per-channel constants, after a Conv with constant
 *   weights: folded into the weights and bias at compile time (W' = W*s, B' = (B-mean)*s+beta);
 *   Add of a bias the node lacks: becomes its C input (Gemm) or bias (Conv);
 *   ops flagged OP_EPILOGUE in the op table (every unary activation and math function, and
 *   broadcasting arithmetic such as a residual Add): epilogues that run in place on the result
 *   in the same step, so no intermediate tensor is written.
 * Each is a rule of epilogue_rules (chains: chain_rules), rooted at the node that follows the
 * product and applied by rewrite_graph.
 * Epilogues apply in graph order, so the result has the bits of the unfused graph; folding
 * BatchNormalization into the weights rounds differently (within the usual tolerance). */
#include "kernels.h"
#include "rewrite.h"

#include <string.h>

/* Running u in p's step must not read a value computed after p. */
static bool operands_ready(const Node *p, const Node *u, const Value *fused)
{
    for (int i = 0; i < u->ninputs; i++) {
        const Value *v = u->inputs[i];
        if (!v || v == fused || v->data || v->is_input || !v->producer)
            continue;
        if (v->producer->dead || v->producer->order >= p->order)
            return false;
    }
    return true;
}

/* Per-channel constant for a Conv output [N][C][...]: shape [C,1,..], [1,C,1,..] or scalar. */
static bool per_channel(const Value *v, const Value *y, int64_t C)
{
    if (!v->data || v->dtype != DT_FLOAT || v->rank > y->rank)
        return false;
    int64_t n = value_numel(v);
    if (n == 1)
        return true;
    if (n != C)
        return false;
    int channel_axis = v->rank - (y->rank - 1); /* axis of v aligned with y's axis 1 */
    return channel_axis >= 0 && v->dims[channel_axis] == C;
}

static float channel_value(const Value *v, int64_t c)
{
    return value_numel(v) == 1 ? ((const float *)v->data)[0] : ((const float *)v->data)[c];
}

static Value *conv_bias_or_zero(Graph *g, Node *conv, int64_t C)
{
    Value *b = node_input(conv, 2);
    if (b)
        return b;
    Value *z = constant_new(g, xprintf("%s/bias", conv->name), DT_FLOAT, 1, &C);
    return z;
}

/* New weights/bias values (the old ones may be shared with other nodes). */
static void set_conv_params(Graph *g, Node *conv, const float *w, const float *b, int64_t C)
{
    Value *old_w = conv->inputs[1];
    Value *nw =
        constant_new(g, xprintf("%s/W_folded", conv->name), DT_FLOAT, old_w->rank, old_w->dims);
    memcpy(nw->data, w, (size_t)value_bytes(nw));
    Value *nb = constant_new(g, xprintf("%s/B_folded", conv->name), DT_FLOAT, 1, &C);
    memcpy(nb->data, b, (size_t)value_bytes(nb));
    node_set_input(conv, 1, nw);
    if (conv->ninputs < 3)
        node_resize_inputs(conv, 3);
    node_set_input(conv, 2, nb);
}

/* Scales output channel c of the weights and bias by s[c], then adds t[c] to the bias. */
static void fold_affine_into_conv(Graph *g, Node *conv, const float *s, const float *t)
{
    Value *w = conv->inputs[1];
    int64_t C = w->dims[0], per = value_numel(w) / (C ? C : 1);
    const float *b = conv_bias_or_zero(g, conv, C)->data;
    float *nw = xcalloc((size_t)value_numel(w) + 1, sizeof(float));
    float *nb = xcalloc((size_t)C + 1, sizeof(float));
    for (int64_t c = 0; c < C; c++) {
        for (int64_t i = 0; i < per; i++)
            nw[c * per + i] = ((const float *)w->data)[c * per + i] * s[c];
        float scaled = b[c] * s[c];
        nb[c] = scaled + t[c];
    }
    set_conv_params(g, conv, nw, nb, C);
}

/* BatchNormalization with constant parameters as y = s*x + t per channel:
 * s = scale / sqrt(var + eps), t = bias - mean*s. */
static bool batchnorm_affine(const Node *bn, int64_t C, float *s, float *t)
{
    if (attr_int(bn, "training_mode", 0) != 0)
        return false; /* normalises with the batch's statistics */
    for (int i = 1; i < 5; i++)
        if (!bn->inputs[i]->data)
            return false;
    const float *scale = bn->inputs[1]->data, *bias = bn->inputs[2]->data;
    const float *mean = bn->inputs[3]->data, *var = bn->inputs[4]->data;
    float eps = attr_float(bn, "epsilon", 1e-5f);
    for (int64_t c = 0; c < C; c++) {
        float sum = var[c] + eps;
        s[c] = scale[c] / sqrtf(sum);
        float shifted = mean[c] * s[c];
        t[c] = bias[c] - shifted;
    }
    return true;
}

static bool conv_params_constant(const Node *conv)
{
    const Value *b = node_input(conv, 2);
    return conv->inputs[1]->data && (!b || b->data) && !conv->nepilogue;
}

/* What follows the product in the fold rules: y = s*x + t per channel. */
typedef enum Affine { AFFINE_BATCHNORM, AFFINE_MUL, AFFINE_ADD } Affine;

/* Conv -> BatchNormalization / Mul / Add by per-channel constants, into the weights. */
static bool fold_into_conv(Graph *g, Node *conv, Node *u, Affine kind)
{
    Value *y = conv->outputs[0];
    int64_t C = conv->inputs[1]->dims[0];
    if (!conv_params_constant(conv))
        return false;
    float *s = xcalloc((size_t)C + 1, sizeof(float)), *t = xcalloc((size_t)C + 1, sizeof(float));
    if (kind == AFFINE_BATCHNORM) {
        if (!batchnorm_affine(u, C, s, t))
            return false;
        record_fusion("batchnorm_into_conv");
    } else {
        int k = u->inputs[0] == y ? 1 : 0;
        if (!per_channel(u->inputs[k], y, C) || !same_shape_as(u->outputs[0], y))
            return false;
        bool mul = kind == AFFINE_MUL;
        for (int64_t c = 0; c < C; c++) {
            s[c] = mul ? channel_value(u->inputs[k], c) : 1.0f;
            t[c] = mul ? 0.0f : channel_value(u->inputs[k], c);
        }
        record_fusion(mul ? "mul_into_conv" : "add_into_conv_bias");
    }
    fold_affine_into_conv(g, conv, s, t);
    steal_output(conv, y, u->outputs[0]);
    node_retire(u);
    return true;
}

/* Per-column constants after a Gemm with constant B (and C): s*y + t folded into B and C, as
 * alpha*A(B diag(s)) + (beta*C*s + t). */
static bool fold_into_gemm(Graph *g, Node *gemm, Node *u, Affine kind)
{
    Value *y = gemm->outputs[0], *b = gemm->inputs[1], *c = node_input(gemm, 2);
    int64_t M = y->dims[0], N = y->dims[1];
    if (!b->data || (c && !c->data) || gemm->nepilogue || !same_shape_as(u->outputs[0], y))
        return false;
    float *s = xcalloc((size_t)N + 1, sizeof(float)), *t = xcalloc((size_t)N + 1, sizeof(float));
    if (kind == AFFINE_BATCHNORM) {
        if (!batchnorm_affine(u, N, s, t))
            return false;
    } else {
        int k = u->inputs[0] == y ? 1 : 0;
        const Value *v = u->inputs[k];
        bool row = v->data && v->dtype == DT_FLOAT && v->rank <= 2 &&
                   (value_numel(v) == 1 || (value_numel(v) == N && v->dims[v->rank - 1] == N));
        if (!row)
            return false;
        bool mul = kind == AFFINE_MUL;
        for (int64_t j = 0; j < N; j++) {
            float x = ((const float *)v->data)[value_numel(v) == 1 ? 0 : j];
            s[j] = mul ? x : 1.0f;
            t[j] = mul ? 0.0f : x;
        }
    }
    bool trans_b = attr_int(gemm, "transB", 0) != 0;
    int64_t K = trans_b ? b->dims[1] : b->dims[0];
    Value *nb = constant_new(g, xprintf("%s/B_folded", gemm->name), DT_FLOAT, 2, b->dims);
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++) {
            int64_t at = trans_b ? j * K + k : k * N + j;
            ((float *)nb->data)[at] = ((const float *)b->data)[at] * s[j];
        }
    /* C' keeps a row per output row only if C had one. */
    bool full = c && c->rank == 2 && c->dims[0] == M && M > 1;
    int64_t cdims[2] = {M, N};
    Value *nc = constant_new(g, xprintf("%s/C_folded", gemm->name), DT_FLOAT, full ? 2 : 1,
                             full ? cdims : &cdims[1]);
    float beta = attr_float(gemm, "beta", 1.0f);
    int64_t cst[2] = {0, 0};
    if (c)
        broadcast_strides(c, 2, cdims, cst);
    for (int64_t i = 0; i < (full ? M : 1); i++)
        for (int64_t j = 0; j < N; j++) {
            float cv = c ? ((const float *)c->data)[i * cst[0] + j * cst[1]] : 0.0f;
            float scaled = beta * cv;
            float rescaled = scaled * s[j];
            ((float *)nc->data)[i * N + j] = rescaled + t[j];
        }
    node_set_input(gemm, 1, nb);
    if (!c)
        node_resize_inputs(gemm, 3);
    node_set_input(gemm, 2, nc);
    if (beta != 1.0f)
        attr_set_float(gemm, "beta", 1.0f);
    steal_output(gemm, y, u->outputs[0]);
    node_retire(u);
    record_fusion(kind == AFFINE_BATCHNORM ? "batchnorm_into_gemm" : "affine_into_gemm");
    return true;
}

/* Add(y, c) after a Gemm without C becomes C, when c broadcasts one way to [M][N]. */
static bool add_as_gemm_bias(Node *gemm, Node *u)
{
    Value *y = gemm->outputs[0];
    if (node_input(gemm, 2) || gemm->nepilogue || !same_shape_as(u->outputs[0], y))
        return false;
    Value *c = u->inputs[0] == y ? u->inputs[1] : u->inputs[0];
    if (c->rank > 2 || c->dtype != DT_FLOAT)
        return false;
    for (int i = 0; i < c->rank; i++)
        if (c->dims[c->rank - 1 - i] != 1 && c->dims[c->rank - 1 - i] != y->dims[1 - i])
            return false;
    if (attr_float(gemm, "beta", 1.0f) != 1.0f)
        attr_set_float(gemm, "beta", 1.0f); /* beta only ever scaled a C it did not have */
    if (gemm->ninputs < 3)
        node_resize_inputs(gemm, 3);
    node_set_input(gemm, 2, c);
    steal_output(gemm, y, u->outputs[0]);
    node_retire(u);
    record_fusion("gemm_bias");
    return true;
}

static bool constant_bounds(const Node *u)
{
    for (int i = 1; i < u->ninputs; i++)
        if (u->inputs[i] && !u->inputs[i]->data)
            return false;
    return true;
}

/* Appends u as an epilogue of p; u's other inputs become extra inputs of p. */
static bool add_epilogue(Node *p, Node *u)
{
    Value *y = p->outputs[0];
    if (p->nepilogue == MAX_EPILOGUE || !same_shape_as(u->outputs[0], y) ||
        !node_has(u, OP_EPILOGUE) || u->noutputs != 1 || !operands_ready(p, u, y))
        return false;
    if (u->ninputs > 1 && u->inputs[0] == u->inputs[1])
        return false; /* y * y reads the value it overwrites */
    if (node_has(u, OP_UNARY) && !constant_bounds(u))
        return false; /* a parameter such as Clip's bound must be known before p's step */
    Epilogue *ep = &p->epilogue[p->nepilogue++];
    ep->node = u;
    ep->input = u->inputs[0] == y ? 0 : 1;
    node_retire(u);
    for (int i = 0; i < u->ninputs; i++)
        if (i != ep->input && u->inputs[i])
            append_input(p, u->inputs[i]);
    steal_output(p, y, u->outputs[0]);
    record_fusion(xprintf("epilogue_%s", u->op_type));
    return true;
}

/* Producer -> view -> activation: the activation does not care about shape, so it runs as an
 * epilogue on the producer's result and the view then reads that (3-D Linear layers export as
 * Gemm on a flattened view followed by Reshape). */
static bool hoist_through_view(Node *p, Node *view, Node *act)
{
    if (!node_has(act, OP_EPILOGUE) || !constant_bounds(act) || p->nepilogue == MAX_EPILOGUE)
        return false;
    Value *y = p->outputs[0], *viewed = view->outputs[0], *out = act->outputs[0];
    Epilogue *ep = &p->epilogue[p->nepilogue++];
    ep->node = act;
    ep->input = 0;
    node_retire(act);
    for (int i = 1; i < act->ninputs; i++)
        if (act->inputs[i])
            append_input(p, act->inputs[i]);
    steal_output(view, viewed, out);
    out->view_of = y;
    record_fusion(xprintf("epilogue_%s", act->op_type));
    return true;
}

/* ---- the rules: each rooted at the node that follows the product ---- */

/* Bindings: the product's (or first elementwise op's) result, and a view between it and the
 * rule's root. */
enum { PRODUCT = 1, VIEW };

static bool is_float(const Value *v, double c)
{
    (void)c;
    return v->dtype == DT_FLOAT;
}

static Node *product(const Match *m)
{
    return m->v[PRODUCT]->producer;
}

static bool fold_conv_batchnorm(Graph *g, Node *n, const Match *m)
{
    return fold_into_conv(g, product(m), n, AFFINE_BATCHNORM);
}

static bool fold_conv_mul(Graph *g, Node *n, const Match *m)
{
    return fold_into_conv(g, product(m), n, AFFINE_MUL);
}

static bool fold_conv_add(Graph *g, Node *n, const Match *m)
{
    return fold_into_conv(g, product(m), n, AFFINE_ADD);
}

static bool fold_gemm_batchnorm(Graph *g, Node *n, const Match *m)
{
    return fold_into_gemm(g, product(m), n, AFFINE_BATCHNORM);
}

static bool fold_gemm_mul(Graph *g, Node *n, const Match *m)
{
    return fold_into_gemm(g, product(m), n, AFFINE_MUL);
}

static bool fold_gemm_add(Graph *g, Node *n, const Match *m)
{
    return fold_into_gemm(g, product(m), n, AFFINE_ADD) || add_as_gemm_bias(product(m), n);
}

static bool attach_epilogue(Graph *g, Node *n, const Match *m)
{
    (void)g;
    return add_epilogue(product(m), n);
}

static bool attach_through_view(Graph *g, Node *n, const Match *m)
{
    (void)g;
    return hoist_through_view(product(m), m->v[VIEW]->producer, n);
}

#define CONV   (&(const Pattern){.op = "Conv", .bind = PRODUCT, .test = is_float})
#define GEMM   (&(const Pattern){.op = "Gemm", .bind = PRODUCT, .test = is_float})
#define HOST   P_EITHER(GEMM, CONV)
#define VIEWED (&(const Pattern){.flags = OP_VIEW, .bind = VIEW, .nin = 1, .in = {HOST}})

/* Tried in this order at each node: folding into the weights first, then a bias, then an
 * epilogue. The product may be either operand of a binary epilogue. */
static const RewriteRule epilogue_rules[] = {
    {P_OP1("BatchNormalization", CONV), fold_conv_batchnorm},
    {P_COMM("Mul", CONV, P_ANY(0)), fold_conv_mul},
    {P_COMM("Add", CONV, P_ANY(0)), fold_conv_add},
    {P_OP1("BatchNormalization", GEMM), fold_gemm_batchnorm},
    {P_COMM("Mul", GEMM, P_ANY(0)), fold_gemm_mul},
    {P_COMM("Add", GEMM, P_ANY(0)), fold_gemm_add},
    {(&(const Pattern){.flags = OP_EPILOGUE, .nin = 1, .in = {HOST}}), attach_epilogue},
    {(&(const Pattern){.flags = OP_EPILOGUE, .nin = 2, .in = {P_ANY(0), HOST}}), attach_epilogue},
    {(&(const Pattern){.flags = OP_UNARY, .nin = 1, .in = {VIEWED}}), attach_through_view},
};

void fuse_epilogues(Graph *g)
{
    REWRITE(g, epilogue_rules);
}

/* Chains of elementwise ops over one shape: each op whose input is the previous result (and
 * read by nothing else) runs in place in the first op's step, tile by tile (emit_chain). */
#define CHAIN (&(const Pattern){.flags = OP_ELEMENTWISE, .bind = PRODUCT, .test = is_float})
static const RewriteRule chain_rules[] = {
    {(&(const Pattern){.flags = OP_EPILOGUE, .nin = 1, .in = {CHAIN}}), attach_epilogue},
    {(&(const Pattern){.flags = OP_EPILOGUE, .nin = 2, .in = {P_ANY(0), CHAIN}}), attach_epilogue},
};

void fuse_elementwise(Graph *g)
{
    REWRITE(g, chain_rules);
}
