/* upgrade_legacy.c — ops of opset 6 and older, rewritten to their opset 7/8 form before their
 * shapes are inferred, so the op table holds one (numpy broadcasting) version of each.
 *
 * Before opset 7, Add/Sub/Mul/Div/Pow broadcast only with broadcast=1, and then B's dims line up
 * with A's starting at `axis` (suffix-aligned without it); PRelu's 1-D slope runs along the
 * channel axis; Gemm's C broadcasts with broadcast=1; Max/Min/Sum/Mean take same-shaped inputs.
 * Numpy broadcasting gives the same results once an axis-aligned B gets trailing 1-dims. */
#include "rewrite.h"

#include <string.h>

typedef enum { LEGACY_SAME, LEGACY_AXIS, LEGACY_CHANNEL } LegacyRule;

static const struct {
    const char *op;
    int opset; /* the first opset with today's semantics */
    LegacyRule rule;
} legacy_ops[] = {
    {"Add", 7, LEGACY_AXIS},  {"Sub", 7, LEGACY_AXIS},  {"Mul", 7, LEGACY_AXIS},
    {"Div", 7, LEGACY_AXIS},  {"Pow", 7, LEGACY_AXIS},  {"PRelu", 7, LEGACY_CHANNEL},
    {"Gemm", 7, LEGACY_SAME}, {"Max", 8, LEGACY_SAME},  {"Min", 8, LEGACY_SAME},
    {"Sum", 8, LEGACY_SAME},  {"Mean", 8, LEGACY_SAME},
};

/* Moves the node appended last to position `at` of the schedule array. */
static void move_last_node_to(Graph *g, int at)
{
    Node *last = g->nodes[g->nnodes - 1];
    memmove(g->nodes + at + 1, g->nodes + at, (size_t)(g->nnodes - 1 - at) * sizeof(Node *));
    g->nodes[at] = last;
}

/* How many trailing 1-dims input 1 needs to broadcast the legacy way (0: none). */
static int trailing_ones(const Node *n, LegacyRule rule)
{
    const Value *a = n->inputs[0], *b = n->inputs[1];
    if (rule == LEGACY_CHANNEL)
        return b->rank == 1 && a->rank > 2 && b->dims[0] == a->dims[1] && b->dims[0] != 1
                   ? a->rank - 2
                   : 0;
    if (rule != LEGACY_AXIS || !attr_int(n, "broadcast", 0) || !attr_get(n, "axis"))
        return 0;
    int64_t axis = attr_int(n, "axis", 0);
    if (axis < 0)
        axis += a->rank;
    if (axis < 0 || axis + b->rank > a->rank)
        fatal_at(n, "axis %lld does not place a rank-%d B inside a rank-%d A",
                 (long long)attr_int(n, "axis", 0), b->rank, a->rank);
    return a->rank - (int)axis - b->rank;
}

bool upgrade_legacy_op(Graph *g, int at)
{
    Node *n = g->nodes[at];
    if (*n->domain && strcmp(n->domain, "ai.onnx") != 0)
        return false;
    for (size_t k = 0; k < sizeof legacy_ops / sizeof legacy_ops[0]; k++) {
        if (strcmp(n->op_type, legacy_ops[k].op) != 0 || n->opset >= legacy_ops[k].opset)
            continue;
        if (n->opset < 6)
            fatal_at(n, "opset %d of this operator is not supported (need 6 or newer)", n->opset);
        n->opset = legacy_ops[k].opset;
        int ones = n->ninputs == 2 && n->inputs[0] && n->inputs[1]
                       ? trailing_ones(n, legacy_ops[k].rule)
                       : 0;
        if (ones <= 0)
            return false;
        Value *b = n->inputs[1];
        int64_t dims[MAX_RANK];
        memcpy(dims, b->dims, sizeof(int64_t) * (size_t)b->rank);
        for (int d = 0; d < ones; d++)
            dims[b->rank + d] = 1;
        Value *aligned = reshape_before(g, n, b, b->rank + ones, dims);
        aligned->view_of = NULL; /* infer_shapes links views when it reaches the Reshape */
        aligned->producer->opset = 13;
        node_set_input(n, 1, aligned);
        move_last_node_to(g, at);
        return true;
    }
    return false;
}
