/* simplify.c — remove nodes that do not change their input: Identity, inference Dropout, Cast
 * to the same type, Mul by 1, Add of 0, Expand/Reshape to the same shape; drop an Expand that
 * only feeds broadcasting ops (they broadcast anyway); turn CastLike into Cast, x * Sigmoid(x)
 * into Swish(x), a Transpose that moves only axes of size 1 into a Reshape (a view). A table of
 * rules (simplify_rules) applied by rewrite_graph until none applies.
 *
 * Add of +0.0 turns -0.0 into +0.0, which removing it does not: the only bits that can change
 * are the sign of a zero result, never its value. */
#include "rewrite.h"

#include <string.h>

/* A float constant every element of which is `f` (Mul by 1, Add of 0). */
static bool is_constant_fill(const Value *v, double f)
{
    if (!v->data || v->dtype != DT_FLOAT)
        return false;
    int64_t n = value_numel(v);
    for (int64_t i = 0; i < n; i++)
        if (((const float *)v->data)[i] != (float)f)
            return false;
    return true;
}

/* Removes node n whose output equals `x`. When the output is a graph output, the producer of
 * x writes it directly instead (if x is an intermediate only n reads); otherwise n stays. */
static bool bypass(Node *n, Value *x)
{
    Value *y = n->outputs[0];
    for (int i = 1; i < n->noutputs; i++)
        if (value_is_used(n->outputs[i]))
            return false; /* e.g. Dropout's mask */
    if (!y->is_output) {
        value_replace_uses(y, x);
        node_retire(n);
        return true;
    }
    Node *p = x->producer;
    if (!p || p->dead || x->is_input || x->is_output || x->data || x->nusers != 1)
        return false;
    for (int i = 0; i < p->noutputs; i++)
        if (p->outputs[i] == x)
            p->outputs[i] = y;
    y->producer = p;
    y->view_of = x->view_of;
    node_retire(n);
    return true;
}

/* Would `user` produce the same shape if input `k` were `x` instead of the expanded value? */
static bool broadcasts_without(const Node *user, int k, const Value *x)
{
    int rank = 0;
    int64_t dims[MAX_RANK];
    for (int i = 0; i < user->ninputs; i++) {
        const Value *in = i == k ? x : user->inputs[i];
        if (!in)
            continue;
        int r = in->rank > rank ? in->rank : rank;
        int64_t out[MAX_RANK];
        for (int d = 0; d < r; d++) {
            int a = d - (r - rank), b = d - (r - in->rank);
            int64_t da = a >= 0 ? dims[a] : 1, db = b >= 0 ? in->dims[b] : 1;
            if (da != db && da != 1 && db != 1)
                return false;
            out[d] = da == 1 ? db : da;
        }
        memcpy(dims, out, sizeof out);
        rank = r;
    }
    const Value *y = user->outputs[0];
    if (rank != y->rank)
        return false;
    for (int d = 0; d < rank; d++)
        if (dims[d] != y->dims[d])
            return false;
    return true;
}

/* Removes n when its output is `x` with the same type and shape. */
static bool remove_if_same(Node *n, Value *x)
{
    if (!x || !same_shape_as(x, n->outputs[0]) || !bypass(n, x))
        return false;
    record_fusion(xprintf("%s_removed", n->op_type));
    return true;
}

/* (A seeded training-mode Dropout is bound to an entry without the flag: not the identity.) */
static bool remove_pass_through(Graph *g, Node *n, const Match *m)
{
    (void)g, (void)m;
    return remove_if_same(n, n->inputs[0]);
}

/* Mul by 1, Add of 0: the pattern bound the other operand. */
static bool remove_unit_operation(Graph *g, Node *n, const Match *m)
{
    (void)g;
    return remove_if_same(n, m->v[1]);
}

static bool drop_expand(Graph *g, Node *n, const Match *m)
{
    (void)g, (void)m;
    bool changed = false;
    Value *x = n->inputs[0], *y = n->outputs[0];
    for (int u = y->nusers - 1; u >= 0; u--) {
        Node *user = y->users[u].node;
        if (!node_has(user, OP_BROADCAST))
            continue;
        for (int k = 0; k < user->ninputs; k++)
            if (user->inputs[k] == y && broadcasts_without(user, k, x)) {
                node_set_input(user, k, x);
                record_fusion("expand_removed");
                changed = true;
                break;
            }
    }
    if (!value_is_used(y)) {
        node_retire(n);
        changed = true;
    }
    return changed;
}

static bool castlike_to_cast(Graph *g, Node *n, const Match *m)
{
    (void)g, (void)m;
    castlike_as_cast(n);
    record_fusion("castlike_to_cast");
    return true;
}

/* x * Sigmoid(x), in either operand order (what the dynamo exporter writes for SiLU), becomes
 * Swish(x) with alpha 1, whose kernel computes the same two float operations
 * (x * o2c_sigmoidf(x)), so the bits do not change. The pattern's Sigmoid is read by nothing
 * but the Mul, and is retired, so that x's producer can take the Swish as its epilogue. */
static bool mul_to_swish(Graph *g, Node *n, const Match *m)
{
    (void)g;
    Value *x = m->v[1];
    if (x->dtype != DT_FLOAT || !same_shape_as(x, n->outputs[0]))
        return false;
    morph_node(n, "Swish", 1, &x);
    for (int i = 1; i < m->nnodes; i++)
        node_retire(m->nodes[i]);
    record_fusion("mul_sigmoid_to_swish");
    return true;
}

/* Does Transpose n keep every element at its offset? It does when the axes of size > 1 keep
 * their order, whatever it does with the axes of size 1: a [T][1][H] -> [1][T][H] moves nothing. */
static bool transpose_keeps_offsets(const Node *n)
{
    const Value *x = n->inputs[0];
    const int64_t *perm;
    int np = attr_ints(n, "perm", &perm); /* valid: infer_shapes checked it */
    int last = -1;
    for (int i = 0; i < x->rank; i++) {
        int a = np < 0 ? x->rank - 1 - i : (int)perm[i];
        if (x->dims[a] == 1)
            continue;
        if (a < last)
            return false;
        last = a;
    }
    return true;
}

/* Such a Transpose becomes a Reshape to its output shape, which the schedule makes a view of
 * its input, so no kernel copies the tensor: the exporters wrap the Y of LSTM and GRU in two
 * of them ([T][1][1][H] -> [T][1][1][H], [T][1][H] -> [1][T][H]). */
static bool transpose_to_reshape(Graph *g, Node *n, const Match *m)
{
    (void)m;
    Value *y = n->outputs[0];
    if (value_numel(y) == 0 || !transpose_keeps_offsets(n))
        return false; /* a 0 in Reshape's shape would mean "copy the input's dim" */
    int64_t len = y->rank;
    Value *shape = constant_new(g, xprintf("%s/shape", n->name), DT_INT64, 1, &len);
    memcpy(shape->data, y->dims, (size_t)y->rank * sizeof(int64_t));
    Value *ins[2] = {n->inputs[0], shape};
    morph_node(n, "Reshape", 2, ins);
    record_fusion("transpose_to_reshape");
    return true;
}

/* Tried in this order on each node; the pass-through rule comes first, so an Expand or a
 * CastLike that changes nothing is removed rather than rewritten. */
static const RewriteRule simplify_rules[] = {
    {P_FLAGS(OP_VIEW | OP_PASS_THROUGH), remove_pass_through},
    {P_COMM("Mul", P_ANY(1), P_TEST(is_constant_fill, 1.0)), remove_unit_operation},
    {P_COMM("Mul", P_ANY(1), P_OP1("Sigmoid", P_ANY(1))), mul_to_swish},
    {P_COMM("Add", P_ANY(1), P_TEST(is_constant_fill, 0.0)), remove_unit_operation},
    {P_NODE(0, "Expand"), drop_expand},
    {P_NODE(0, "CastLike"), castlike_to_cast},
    {P_NODE(0, "Transpose"), transpose_to_reshape},
};

void simplify(Graph *g)
{
    REWRITE(g, simplify_rules);
}
