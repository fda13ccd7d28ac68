/* infer_shapes.c — walk the nodes in graph order, bind each to its op, infer output types and
 * shapes, and fold the node when all its inputs are compile-time constants. Folding here is
 * what turns exported shape arithmetic (Shape -> Gather -> Concat -> Reshape) into fixed shapes. */
#include "onnx2c.h"

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
    return !(i == 1 && !strcmp(n->op_type, "CastLike"));
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

/* Folding allocates every output first so that fold functions only compute. */
static void fold_node(Node *n)
{
    for (int i = 0; i < n->noutputs; i++) {
        Value *v = n->outputs[i];
        if (v->data || v->rank < 0)
            continue;
        v->data = xcalloc(1, (size_t)value_bytes(v) + 1);
    }
    n->op->fold(n);
    node_retire(n);
}

void infer_shapes(Model *m)
{
    Graph *g = m->graph;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (!strcmp(n->op_type, "If") && (!*n->domain || !strcmp(n->domain, "ai.onnx"))) {
            fold_if(m, i); /* the branch's nodes now follow; infer them next */
            continue;
        }
        if (is_loop_node(n)) {
            unroll_loop(m, i); /* one iteration's nodes now follow; infer them next */
            continue;
        }
        if (is_flex_attention(n)) {
            expand_flex_attention(m, i); /* its nodes now follow; infer them next */
            continue;
        }
        if (upgrade_legacy_op(g, i)) {
            i--; /* infer the Reshape it placed before the node first */
            continue;
        }
        bind_op(n);
        for (int j = 0; j < n->ninputs; j++)
            if (n->inputs[j] && n->inputs[j]->rank < 0)
                fatal_at(n, "input '%s' has no known shape", n->inputs[j]->name);
        n->op->infer(n);
        for (int j = 0; j < n->noutputs; j++)
            if (n->outputs[j]->rank >= 0)
                value_numel(n->outputs[j]); /* checks the size for overflow */
        if (n->op->fold && all_inputs_constant(n))
            fold_node(n);
        else if (all_outputs_constant(n))
            node_retire(n); /* e.g. Shape: known from static shapes alone */
        else if (n->op->is_view)
            n->outputs[0]->view_of = n->inputs[0];
    }
}
