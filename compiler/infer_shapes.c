/* infer_shapes.c — walk the nodes in graph order, bind each to its op, infer output types and
 * shapes, and fold the node when all its inputs are compile-time constants. Folding here is
 * what turns exported shape arithmetic (Shape -> Gather -> Concat -> Reshape) into fixed shapes. */
#include "onnx2c.h"
#include "ops.h"

#include <string.h>

static void check_arity(Node *n)
{
    const OpDef *op = n->op;
    if (n->ninputs < op->min_inputs || n->ninputs > op->max_inputs)
        fatal_at(n, "has %d inputs, the op takes %d to %d", n->ninputs, op->min_inputs,
                 op->max_inputs);
    for (int i = 0; i < op->min_inputs; i++)
        if (!n->inputs[i])
            fatal_at(n, "required input %d is missing", i);
}

static void bind_op(Node *n)
{
    if (!strcmp(n->domain, "ai.onnx.ml")) /* table rows of that domain carry its prefix */
        n->op = op_lookup(xprintf("ai.onnx.ml.%s", n->op_type));
    else if (*n->domain && strcmp(n->domain, "ai.onnx") != 0)
        fatal_at(n, "operator domain '%s' is not supported", n->domain);
    else
        n->op = op_lookup(n->op_type);
    if (!n->op)
        fatal_at(n, "unsupported operator");
    if (n->opset < n->op->min_opset)
        fatal_at(n, "opset %d of this operator is not supported (need %d or newer)", n->opset,
                 n->op->min_opset);
    check_arity(n);
}

/* Inputs whose values are never read, only their type: CastLike's target. */
static bool reads_value(const Node *n, int i)
{
    return !(i == 1 && node_has(n, OP_SHAPE_ONLY_INPUT));
}

/* Nodes that are no kernel but stand for other nodes: each expands into them, placed right
 * after it (If: the taken branch; Loop, Scan: one iteration; FlexAttention: MatMul, Softmax
 * and its graphs; sequence ops: tensor ops; com.microsoft ops: the standard ops they fuse),
 * and infer_shapes meets them next. An entry names one op, or a family by its predicate. */
typedef struct Expansion {
    const char *domain; /* "" is the default domain (also spelt "ai.onnx") */
    const char *op;
    bool (*family)(const Node *n); /* instead of domain and op */
    void (*expand)(Model *m, int index);
} Expansion;

static const Expansion expansions[] = {
    {"", "If", NULL, fold_if},
    {"", "Loop", NULL, unroll_loop},
    {"", "Scan", NULL, unroll_scan},
    {"ai.onnx.preview", "FlexAttention", NULL, expand_flex_attention},
    {NULL, NULL, is_sequence_op, expand_sequence_op},
    {NULL, NULL, is_contrib_op, expand_contrib_op},
};

static const Expansion *expansion_of(const Node *n)
{
    const char *domain = strcmp(n->domain, "ai.onnx") ? n->domain : "";
    for (size_t k = 0; k < sizeof expansions / sizeof expansions[0]; k++) {
        const Expansion *x = &expansions[k];
        if (x->family ? x->family(n) : !strcmp(x->domain, domain) && !strcmp(x->op, n->op_type))
            return x;
    }
    return NULL;
}

static bool all_inputs_constant(const Node *n)
{
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i] && !n->inputs[i]->data && reads_value(n, i))
            return false;
    return true;
}

static bool all_outputs_constant(const Node *n)
{
    for (int i = 0; i < n->noutputs; i++)
        if (!n->outputs[i]->data)
            return false;
    return true;
}

/* A folded constant keeps the name of the largest weight it came from (Transpose of
 * fc1.weight is still fc1.weight in the generated C's symbols), not the node's output name. */
static void name_folded_outputs(Node *n)
{
    const Value *from = NULL;
    for (int j = 0; j < n->ninputs; j++) {
        const Value *x = n->inputs[j];
        if (x && (x->is_weight || x->folded_from) && (!from || value_bytes(x) > value_bytes(from)))
            from = x;
    }
    if (!from)
        return;
    for (int i = 0; i < n->noutputs; i++)
        n->outputs[i]->folded_from = from->folded_from ? from->folded_from : from->name;
}

/* Folding allocates every output first so that fold functions only compute. A small model
 * can ask for gigabytes here (ConstantOfShape, Tile, Pad, Expand), hence the limits. */
static void fold_node(Graph *g, Node *n)
{
    for (int i = 0; i < n->noutputs; i++) {
        Value *v = n->outputs[i];
        if (v->data || v->rank < 0)
            continue;
        int64_t bytes = value_bytes(v), scale = checked_mul(n, 2, g->loaded_bytes);
        int64_t one = cc->limits.max_folded_bytes, total = cc->limits.max_total_folded_bytes;
        one = one > scale ? one : scale;
        total = total > scale ? total : scale;
        if (bytes > one)
            fatal_at(n,
                     "folding output '%s' would make a constant of %lld bytes, more than the "
                     "limit of %lld (--max-folded-bytes)",
                     v->name, (long long)bytes, (long long)one);
        g->folded_bytes = checked_add(n, g->folded_bytes, bytes);
        if (g->folded_bytes > total)
            fatal_at(n,
                     "constant folding has computed %lld bytes, more than the limit of %lld "
                     "(--max-total-folded-bytes)",
                     (long long)g->folded_bytes, (long long)total);
        v->data = xcalloc(1, (size_t)bytes + 1);
    }
    if (!(node_has(n, OP_HALF) && half_fold(n, n->op->fold)))
        n->op->fold(n);
    name_folded_outputs(n);
    node_retire(n);
}

void infer_shapes(Model *m)
{
    Graph *g = m->graph;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        const Expansion *x = expansion_of(n);
        if (x) {
            x->expand(m, i); /* the nodes it stands for now follow; infer them next */
            continue;
        }
        if (upgrade_legacy_op(g, i)) {
            i--; /* infer the Reshape it placed before the node first */
            continue;
        }
        bind_op(n);
        for (int j = 0; j < n->ninputs; j++)
            if (n->inputs[j] && n->inputs[j]->rank < 0)
                fatal_at(n, "input '%s' has no known shape%s", n->inputs[j]->name,
                         is_sequence_value(n->inputs[j]) ? " (it is a sequence)" : "");
        if (!(node_has(n, OP_HALF) && half_infer(n, n->op->infer)))
            n->op->infer(n);
        for (int j = 0; j < n->noutputs; j++) {
            Value *y = n->outputs[j];
            if (y->rank >= 0)
                value_numel(y); /* checks the size for overflow */
            else if (*y->name)  /* a named output the op does not have: the emitter would fail */
                fatal_at(n, "has %d outputs; output %d ('%s') is not one this op computes",
                         n->noutputs, j, y->name);
        }
        if (n->op->fold && all_inputs_constant(n))
            fold_node(g, n);
        else if (all_outputs_constant(n))
            node_retire(n); /* e.g. Shape: known from static shapes alone */
        else if (op_has(n->op, OP_VIEW))
            n->outputs[0]->view_of = n->inputs[0];
    }
}
