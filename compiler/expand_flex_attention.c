/* expand_flex_attention.c — FlexAttention (domain ai.onnx.preview) replaced, when
 * infer_shapes reaches it, by the standard ops of its ONNX function body
 * (onnx/defs/preview/defs.cc), written with the static shapes now known, and with its
 * score_mod and prob_mod graphs spliced in (called by infer_shapes, like fold_if):
 *
 *   c = Cast(sqrtf(scale), T)            scale = attribute, else 1.0f / sqrtf(E), in float32
 *   Score = (Q * c) x Transpose(K * c)   [B, Hq, L, S]
 *   P = Softmax_axis3(score_mod(Cast(Score, P_T)))                P_T = softmax_precision
 *   Y = Cast(prob_mod(P) x Cast(V, P_T), T)
 *
 * T is the inputs' type; P_T defaults to double for double inputs and float otherwise; the
 * Casts are left out where the types agree. The modifier graphs take and return the whole
 * score (probability) tensor, so their nodes are spliced once, like a Loop body, reading the
 * tensor and any outer-scope value. Grouped-query attention (Hq = r * Hkv: query head h uses
 * K/V head h / r) needs no copies of K and V: Q and P are viewed as [B, Hkv, r, L, .] and
 * the K/V operands as [B, Hkv, 1, ., .], which MatMul broadcasts; every product is still the
 * ascending-k sum of the function body. */
#include "load.h"
#include "ops.h"

#include <math.h>
#include <string.h>

typedef struct Flex {
    Model *m;
    Node *n;
    const char *prefix; /* of the new nodes' and values' names */
    int opset;          /* of the new default-domain nodes */
} Flex;

/* Appends node `op` reading `ins`; writes `out`, or a new value when out is NULL. */
static Node *add(Flex *f, const char *op, int nin, Value **ins, Value *out)
{
    /* node names must stay unique for --emit-onnx */
    Node *h = node_new(f->m->graph, xprintf("%s%s%d", f->prefix, op, ++cc->state.flex_node_counter), op,
                       nin, 1);
    h->opset = f->opset;
    h->scope = f->n->scope;
    for (int i = 0; i < nin; i++)
        node_set_input(h, i, ins[i]);
    if (!out)
        out = value_new_unique(f->m->graph, h->name);
    h->outputs[0] = out;
    out->producer = h;
    return h;
}

static Value *add2(Flex *f, const char *op, Value *a, Value *b)
{
    Value *ins[2] = {a, b};
    return add(f, op, 2, ins, NULL)->outputs[0];
}

static Value *cast_to(Flex *f, Value *x, DType from, DType to, Value *out)
{
    if (from == to && !out)
        return x;
    Node *c = add(f, from == to ? "Identity" : "Cast", 1, &x, out);
    if (from != to)
        attr_set_int(c, "to", to);
    return c->outputs[0];
}

static Value *ints_const(Flex *f, int count, const int64_t *v)
{
    int64_t len = count;
    Value *c = constant_new(f->m->graph, xprintf("%sints", f->prefix), DT_INT64, 1, &len);
    memcpy(c->data, v, (size_t)count * sizeof(int64_t));
    return c;
}

static Value *reshape(Flex *f, Value *x, int rank, const int64_t *dims, Value *out)
{
    Value *ins[2] = {x, ints_const(f, rank, dims)};
    return add(f, "Reshape", 2, ins, out)->outputs[0];
}

/* K^T: [B, H, S, E] -> [B, H, E, S]. */
static Value *transpose_last(Flex *f, Value *x)
{
    static const int64_t perm[4] = {0, 1, 3, 2};
    Node *h = add(f, "Transpose", 1, &x, NULL);
    h->attrs = xcalloc(1, sizeof(Attr));
    h->attrs[0] = (Attr){.name = xstrdup("perm"), .type = ATTR_INTS, .n = 4};
    h->attrs[0].ints = xcalloc(4, sizeof(int64_t));
    memcpy(h->attrs[0].ints, perm, sizeof perm);
    h->nattrs = 1;
    return h->outputs[0];
}

/* [B, H, X, Y] -> [B, H, 1, X, Y], for MatMul to broadcast over the query heads of a group. */
static Value *unsqueeze_group(Flex *f, Value *x)
{
    int64_t axis = 2;
    return add2(f, "Unsqueeze", x, ints_const(f, 1, &axis));
}

/* ---- the modifier graphs ---- */

/* Splices graph attribute `which` (one tensor in, one out) reading `x`; returns its result,
 * or x when the attribute is absent. */
static Value *splice_mod(Flex *f, const char *which, Value *x)
{
    const Attr *a = attr_get(f->n, which);
    if (!a)
        return x;
    if (a->type != ATTR_GRAPH || !a->graph)
        fatal_at(f->n, "attribute '%s' must be a graph", which);
    const Onnx__GraphProto *g = a->graph;
    if (g->n_input != 1 || g->n_output != 1)
        fatal_at(f->n, "graph '%s' must have one input and one output (it has %zu and %zu)", which,
                 g->n_input, g->n_output);
    return splice_graph(f->m, f->n, g, xprintf("%s%s/", f->prefix, which), &x, which)[0];
}

/* ---- the expansion ---- */

static bool is_float_type(DType t)
{
    return t == DT_FLOAT || t == DT_DOUBLE || t == DT_FLOAT16 || t == DT_BFLOAT16;
}

/* Checks the inputs; dims of Q, K, V into q, k, v. */
static void check_inputs(const Node *n, int64_t *q, int64_t *k, int64_t *v)
{
    if (n->ninputs != 3 || n->noutputs != 1)
        fatal_at(n, "takes Q, K, V and gives Y (it has %d inputs and %d outputs)", n->ninputs,
                 n->noutputs);
    const char *names[3] = {"Q", "K", "V"};
    int64_t *dims[3] = {q, k, v};
    for (int i = 0; i < 3; i++) {
        const Value *x = n->inputs[i];
        if (!x)
            fatal_at(n, "input %s is missing", names[i]);
        if (x->rank != 4)
            fatal_at(n, "input %s must have rank 4 (it has rank %d)", names[i], x->rank);
        if (x->dtype != n->inputs[0]->dtype)
            fatal_at(n, "Q, K and V must have one element type (%s, %s, %s)",
                     dtype_name(n->inputs[0]->dtype), dtype_name(n->inputs[1]->dtype),
                     dtype_name(x->dtype));
        memcpy(dims[i], x->dims, 4 * sizeof(int64_t));
    }
    if (!is_float_type(n->inputs[0]->dtype))
        fatal_at(n, "element type %s is not supported (float, double, float16, bfloat16 are)",
                 dtype_name(n->inputs[0]->dtype));
    if (q[0] != k[0] || q[0] != v[0])
        fatal_at(n, "Q, K and V must have the same batch size");
    if (k[1] != v[1] || k[2] != v[2])
        fatal_at(n, "K and V must have the same number of heads and sequence length");
    if (q[3] != k[3])
        fatal_at(n, "Q and K must have the same head size (%lld vs %lld)", (long long)q[3],
                 (long long)k[3]);
    if (k[1] <= 0 || q[1] % k[1] != 0)
        fatal_at(n, "the query heads (%lld) must be a multiple of the key/value heads (%lld)",
                 (long long)q[1], (long long)k[1]);
}

static DType softmax_type(const Node *n, DType t)
{
    const Attr *a = attr_get(n, "softmax_precision");
    if (!a)
        return t == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
    DType p = (DType)a->i;
    if (a->type != ATTR_INT || !is_float_type(p))
        fatal_at(n, "softmax_precision must be float, double, float16 or bfloat16");
    return p;
}

/* sqrt(scale) in float32, as the function body computes it, then in the inputs' type. */
static Value *sqrt_scale(Flex *f, DType t, int64_t head_size)
{
    const Attr *a = attr_get(f->n, "scale");
    float scale = a ? a->f : 1.0f / sqrtf((float)head_size);
    Value *c = constant_new(f->m->graph, xprintf("%ssqrt_scale", f->prefix), DT_FLOAT, 0, NULL);
    *(float *)c->data = sqrtf(scale);
    return cast_to(f, c, DT_FLOAT, t, NULL);
}

static void expand(Flex *f)
{
    Node *n = f->n;
    int64_t q[4], k[4], v[4];
    check_inputs(n, q, k, v);
    DType t = n->inputs[0]->dtype, pt = softmax_type(n, t);
    int64_t B = q[0], Hq = q[1], L = q[2], Hkv = k[1], S = k[2], Ev = v[3], r = Hq / Hkv;
    Value *c = sqrt_scale(f, t, q[3]);
    Value *qs = add2(f, "Mul", n->inputs[0], c), *ks = add2(f, "Mul", n->inputs[1], c);
    Value *kt = transpose_last(f, ks), *vv = n->inputs[2];
    if (r > 1) {
        qs = reshape(f, qs, 5, (const int64_t[]){B, Hkv, r, L, q[3]}, NULL);
        kt = unsqueeze_group(f, kt);
        vv = unsqueeze_group(f, vv);
    }
    Value *score = add2(f, "MatMul", qs, kt);
    if (r > 1)
        score = reshape(f, score, 4, (const int64_t[]){B, Hq, L, S}, NULL);
    score = splice_mod(f, "score_mod", cast_to(f, score, t, pt, NULL));
    Node *sm = add(f, "Softmax", 1, &score, NULL);
    attr_set_int(sm, "axis", 3);
    Value *p = splice_mod(f, "prob_mod", sm->outputs[0]);
    if (r > 1)
        p = reshape(f, p, 5, (const int64_t[]){B, Hkv, r, L, S}, NULL);
    Value *out = n->outputs[0], *ins[2] = {p, cast_to(f, vv, t, pt, NULL)};
    Value *y = add(f, "MatMul", 2, ins, r == 1 && pt == t ? out : NULL)->outputs[0];
    if (r > 1)
        y = reshape(f, y, 4, (const int64_t[]){B, Hq, L, Ev}, pt == t ? out : NULL);
    if (y != out)
        cast_to(f, y, pt, t, out);
}

void expand_flex_attention(Model *m, int index)
{
    Graph *g = m->graph;
    Node *n = g->nodes[index];
    if (n->opset != 1)
        fatal_at(n, "only version 1 of FlexAttention is supported");
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i] && n->inputs[i]->rank < 0)
            fatal_at(n, "input '%s' has no known shape", n->inputs[i]->name);
    Flex f = {.m = m, .n = n, .opset = m->opset > 13 ? m->opset : 13};
    f.prefix = xprintf("%s#%d/", n->name[0] ? n->name : "FlexAttention", ++cc->state.flex_counter);
    int first_new = g->nnodes;
    expand(&f);
    node_retire(n);
    move_new_nodes(g, index, first_new);
}
