/* unroll_loops.c — Loop and Scan with a trip count known at compile time, unrolled into the
 * graph one iteration at a time (called by infer_shapes, like fold_if).
 *
 * Each step replaces the loop node by one copy of its body (inputs bound to the iteration
 * number, the condition, the loop-carried values and, for Scan, the slices of the scanned
 * inputs) followed by a continuation node: a fresh Loop/Scan node that reads the copy's
 * outputs. infer_shapes infers and folds the copy before it reaches the continuation, so a
 * Loop's condition is known when the next step decides whether to run another iteration. When
 * the loop ends, Identity nodes pass the final carried values to the node's outputs and Concat
 * stacks each scan output's per-iteration values (each Unsqueezed at the stacking axis).
 *
 * Scan of opset 8 has a batch axis in front of every input and output; it is split into one
 * opset-9 Scan per batch element first, whose results are stacked again along axis 0. */
#include "load.h"
#include "ops.h"

#include <string.h>

/* Unrolled code grows with the trip count; past this many new nodes the model is refused
 * rather than turned into a huge C file. */
#define UNROLL_MAX_NODES 200000

/* What a loop has produced so far, carried from one continuation node to the next. */
typedef struct LoopState {
    Node *node;   /* the continuation node standing for the iterations still to come */
    int64_t iter; /* iterations spliced so far */
    int nscan;
    Value ***stacked; /* [scan output][iteration]: that iteration's value, unsqueezed */
    int64_t cap;
} LoopState;

/* cc->loop_states holds one per loop being unrolled. */

static LoopState *state_of(Node *n, int nscan)
{
    for (int i = 0; i < cc->nloop_states; i++)
        if (cc->loop_states[i].node == n)
            return &cc->loop_states[i];
    if (cc->nloop_states == cc->cap_loop_states) {
        cc->cap_loop_states = cc->cap_loop_states ? 2 * cc->cap_loop_states : 8;
        cc->loop_states =
            xrealloc(cc->loop_states, (size_t)cc->cap_loop_states * sizeof(LoopState));
    }
    LoopState *st = &cc->loop_states[cc->nloop_states++];
    *st = (LoopState){.node = n, .nscan = nscan};
    st->stacked = xcalloc((size_t)nscan + 1, sizeof(Value **));
    return st;
}

static void state_push(LoopState *st, int k, Value *v)
{
    if (k == 0 && st->iter == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 8;
        for (int j = 0; j < st->nscan; j++)
            st->stacked[j] = xrealloc(st->stacked[j], (size_t)st->cap * sizeof(Value *));
    }
    st->stacked[k][st->iter] = v;
}

/* ---- scopes: the body sees its inputs, its own values and everything outside ---- */

static const char *node_label(const Node *n)
{
    return n->name[0] ? n->name : n->op_type;
}

static const Onnx__GraphProto *body_of(const Node *n)
{
    const Attr *a = attr_get(n, "body");
    if (!a || a->type != ATTR_GRAPH || !a->graph)
        fatal_at(n, "has no body graph");
    return a->graph;
}

/* Converts one iteration of the body into the graph, its inputs bound to `ins`; returns the
 * values of the body's outputs. */
static Value **splice_body(Model *m, Node *n, Value **ins)
{
    const Onnx__GraphProto *body = body_of(n);
    Graph *g = m->graph;
    int before = g->nnodes;
    const char *prefix = xprintf("%s#%d/", node_label(n), ++cc->state.splice_counter);
    Value **outs = splice_graph(m, n, body, prefix, ins, "body");
    cc->state.unrolled_nodes += g->nnodes - before;
    if (cc->state.unrolled_nodes > UNROLL_MAX_NODES)
        fatal_at(n,
                 "unrolling the loops needs more than %d nodes; onnx2c unrolls loops at "
                 "compile time and refuses larger ones",
                 UNROLL_MAX_NODES);
    return outs;
}

/* ---- helper nodes (appended to the graph; moved after the loop node at the end) ---- */

static Node *helper(Model *m, Node *n, const char *what, const char *op, int ninputs, Value **ins,
                    Value *out)
{
    /* node names must stay unique for --emit-onnx */
    Node *h = node_new(m->graph, xprintf("%s/%s%d", node_label(n), what, ++cc->state.loop_helper_counter),
                       op, ninputs, 1);
    h->opset = m->opset > 13 ? m->opset : 13;
    h->scope = n->scope;
    for (int i = 0; i < ninputs; i++)
        node_set_input(h, i, ins[i]);
    if (!out)
        out = value_new_unique(m->graph, h->name);
    h->outputs[0] = out;
    out->producer = h;
    return h;
}

static Value *int64_scalar(Model *m, const char *name, int64_t v)
{
    Value *c = constant_new(m->graph, name, DT_INT64, 0, NULL);
    *(int64_t *)c->data = v;
    return c;
}

/* x with index `i` of `axis` taken (the axis removed). */
static Value *take(Model *m, Node *n, Value *x, int64_t axis, int64_t i)
{
    Value *ins[2] = {x, int64_scalar(m, "index", i)};
    Node *h = helper(m, n, "slice", "Gather", 2, ins, NULL);
    attr_set_int(h, "axis", axis);
    return h->outputs[0];
}

static Value *unsqueeze(Model *m, Node *n, Value *x, int64_t axis)
{
    Value *axes = constant_new(m->graph, "axes", DT_INT64, 1, (int64_t[]){1});
    *(int64_t *)axes->data = axis;
    Value *ins[2] = {x, axes};
    return helper(m, n, "stack", "Unsqueeze", 2, ins, NULL)->outputs[0];
}

static void stack_into(Model *m, Node *n, Value **parts, int64_t count, int64_t axis, Value *out)
{
    if (count > (1 << 20))
        fatal_at(n, "more than %d iterations", 1 << 20);
    Node *h = helper(m, n, "concat", "Concat", (int)count, parts, out);
    attr_set_int(h, "axis", axis);
}

/* The node's outputs: the final carried values, then the stacked scan outputs. */
static void finish(Model *m, Node *n, LoopState *st, Value **carried, int ncarried,
                   const int64_t *out_axes, const int64_t *out_reverse)
{
    for (int i = 0; i < ncarried; i++)
        helper(m, n, "result", "Identity", 1, &carried[i], n->outputs[i]);
    for (int k = 0; k < st->nscan; k++) {
        if (!st->iter)
            fatal_at(n, "runs no iteration, so scan output '%s' has no known shape",
                     n->outputs[ncarried + k]->name);
        Value **parts = st->stacked[k];
        if (out_reverse && out_reverse[k]) {
            parts = xcalloc((size_t)st->iter, sizeof(Value *));
            for (int64_t t = 0; t < st->iter; t++)
                parts[t] = st->stacked[k][st->iter - 1 - t];
        }
        stack_into(m, n, parts, st->iter, out_axes ? out_axes[k] : 0, n->outputs[ncarried + k]);
    }
}

/* A fresh loop node for the remaining iterations, reading `ins`; it takes over the outputs. */
static Node *continuation(Model *m, Node *n, LoopState *st, int ninputs, Value **ins)
{
    Node *c = node_new(m->graph, n->name, n->op_type, ninputs, n->noutputs);
    c->domain = n->domain;
    c->opset = n->opset;
    c->scope = n->scope;
    c->attrs = n->attrs;
    c->nattrs = n->nattrs;
    for (int i = 0; i < ninputs; i++)
        if (ins[i])
            node_set_input(c, i, ins[i]);
    for (int i = 0; i < n->noutputs; i++) {
        c->outputs[i] = n->outputs[i];
        c->outputs[i]->producer = c;
    }
    st->node = c;
    return c;
}

/* ---- Loop ---- */

static bool loop_continues(Node *n, LoopState *st)
{
    Value *trip = node_input(n, 0), *cond = node_input(n, 1);
    if (!trip && !cond)
        fatal_at(n, "has neither a trip count nor a condition (an endless loop)");
    bool go = true;
    if (trip) {
        require_constant(n, trip, "trip count");
        if (value_numel(trip) != 1 || trip->dtype != DT_INT64)
            fatal_at(n, "the trip count must be one int64");
        go = st->iter < *(const int64_t *)trip->data;
    }
    if (cond && go) {
        require_constant(n, cond, "loop condition");
        if (value_numel(cond) != 1 || cond->dtype != DT_BOOL)
            fatal_at(n, "the condition must be one bool");
        go = *(const uint8_t *)cond->data != 0;
    }
    return go;
}

static void loop_step(Model *m, Node *n)
{
    const Onnx__GraphProto *body = body_of(n);
    int ncarried = n->ninputs - 2;
    if (ncarried < 0 || body->n_input != (size_t)ncarried + 2 ||
        body->n_output != (size_t)n->noutputs + 1 || n->noutputs < ncarried)
        fatal_at(n, "the body's inputs and outputs do not match the node's");
    LoopState *st = state_of(n, n->noutputs - ncarried);
    if (!loop_continues(n, st)) {
        finish(m, n, st, n->inputs + 2, ncarried, NULL, NULL);
        return;
    }
    Value **ins = xcalloc((size_t)ncarried + 3, sizeof(Value *));
    ins[0] = int64_scalar(m, "iter", st->iter);
    ins[1] = node_input(n, 1);
    if (!ins[1]) { /* a counted loop ignores the body's condition; the body still reads one */
        ins[1] = constant_new(m->graph, "cond", DT_BOOL, 0, NULL);
        *(uint8_t *)ins[1]->data = 1;
    }
    for (int i = 0; i < ncarried; i++) {
        ins[2 + i] = n->inputs[2 + i];
        if (!ins[2 + i])
            fatal_at(n, "loop-carried input %d is missing", i);
    }
    Value **outs = splice_body(m, n, ins);
    for (int k = 0; k < st->nscan; k++)
        state_push(st, k, unsqueeze(m, n, outs[1 + ncarried + k], 0));
    st->iter++;
    ins[0] = node_input(n, 0);
    ins[1] = node_input(n, 1) ? outs[0] : NULL;
    for (int i = 0; i < ncarried; i++)
        ins[2 + i] = outs[1 + i];
    continuation(m, n, st, ncarried + 2, ins);
}

/* ---- Scan (opset 9 and newer) ---- */

/* Attribute `name` (one int per entry, default 0); directions must be 0 or 1. */
static int64_t *scan_attr(const Node *n, const char *name, int count, bool direction)
{
    int64_t *out = xcalloc((size_t)count + 1, sizeof(int64_t));
    const int64_t *v;
    int len = attr_ints(n, name, &v);
    if (len >= 0 && len != count)
        fatal_at(n, "attribute '%s' has %d entries, expected %d", name, len, count);
    for (int i = 0; i < len; i++) {
        if (direction && v[i] != 0 && v[i] != 1)
            fatal_at(n, "attribute '%s' must hold 0 (forward) or 1 (reverse)", name);
        out[i] = v[i];
    }
    return out;
}

static void scan_step(Model *m, Node *n)
{
    const Onnx__GraphProto *body = body_of(n);
    int64_t nscan_in = attr_int(n, "num_scan_inputs", -1);
    if (nscan_in < 1 || nscan_in > n->ninputs)
        fatal_at(n, "attribute 'num_scan_inputs' must be between 1 and the number of inputs");
    int nin = (int)nscan_in, ncarried = n->ninputs - nin, nout = n->noutputs - ncarried;
    if (nout < 0 || body->n_input != (size_t)n->ninputs || body->n_output != (size_t)n->noutputs)
        fatal_at(n, "the body's inputs and outputs do not match the node's");
    int64_t *in_axes = scan_attr(n, "scan_input_axes", nin, false);
    int64_t *in_rev =
        scan_attr(n, attr_get(n, "directions") ? "directions" : "scan_input_directions", nin, true);
    int64_t *out_axes = scan_attr(n, "scan_output_axes", nout, false);
    int64_t *out_rev = scan_attr(n, "scan_output_directions", nout, true);
    int64_t len = -1;
    for (int j = 0; j < nin; j++) {
        Value *x = n->inputs[ncarried + j];
        if (!x)
            fatal_at(n, "scan input %d is missing", j);
        int ax = normalize_axis(n, in_axes[j], x->rank);
        in_axes[j] = ax;
        if (len >= 0 && x->dims[ax] != len)
            fatal_at(n, "scan inputs have different lengths (%lld and %lld)", (long long)len,
                     (long long)x->dims[ax]);
        len = x->dims[ax];
    }
    LoopState *st = state_of(n, nout);
    if (st->iter == len) {
        finish(m, n, st, n->inputs, ncarried, out_axes, out_rev);
        return;
    }
    Value **ins = xcalloc((size_t)n->ninputs + 1, sizeof(Value *));
    for (int i = 0; i < ncarried; i++) {
        ins[i] = n->inputs[i];
        if (!ins[i])
            fatal_at(n, "state input %d is missing", i);
    }
    for (int j = 0; j < nin; j++) {
        int64_t t = in_rev[j] ? len - 1 - st->iter : st->iter;
        ins[ncarried + j] = take(m, n, n->inputs[ncarried + j], in_axes[j], t);
    }
    Value **outs = splice_body(m, n, ins);
    for (int k = 0; k < nout; k++)
        state_push(st, k, unsqueeze(m, n, outs[ncarried + k], out_axes[k]));
    st->iter++;
    for (int i = 0; i < ncarried; i++)
        ins[i] = outs[i];
    for (int j = 0; j < nin; j++)
        ins[ncarried + j] = n->inputs[ncarried + j];
    continuation(m, n, st, n->ninputs, ins);
}

/* Scan-8: every input and output has a batch axis 0 and the scanned axis is 1. One opset-9
 * Scan per batch element, on that element's slices, then the results stacked again. */
static void scan8_split(Model *m, Node *n)
{
    Value *lens = node_input(n, 0);
    int nins = n->ninputs - 1;
    if (nins < 1 || !n->inputs[1])
        fatal_at(n, "has no inputs to scan");
    int64_t batch = n->inputs[1]->rank > 0 ? n->inputs[1]->dims[0] : -1;
    for (int i = 1; i < n->ninputs; i++)
        if (!n->inputs[i] || n->inputs[i]->rank < 1 || n->inputs[i]->dims[0] != batch)
            fatal_at(n, "every input must have the same batch size in axis 0");
    if (lens) {
        int count;
        int64_t *l = const_ints(n, lens, &count);
        int64_t nscan = attr_int(n, "num_scan_inputs", 1);
        Value *x = n->inputs[n->ninputs - (int)nscan];
        for (int b = 0; b < count; b++)
            if (x->rank < 2 || l[b] != x->dims[1])
                fatal_at(n, "sequence_lens shorter than the scanned axis are not supported");
    }
    Value ***parts = xcalloc((size_t)n->noutputs + 1, sizeof(Value **));
    for (int i = 0; i < n->noutputs; i++)
        parts[i] = xcalloc((size_t)batch + 1, sizeof(Value *));
    for (int64_t b = 0; b < batch; b++) {
        Value **ins = xcalloc((size_t)nins + 1, sizeof(Value *));
        for (int i = 0; i < nins; i++)
            ins[i] = take(m, n, n->inputs[1 + i], 0, b);
        Node *s = node_new(m->graph, xprintf("%s/batch%lld", node_label(n), (long long)b), "Scan",
                           nins, n->noutputs);
        s->domain = n->domain;
        s->opset = 9;
        s->scope = n->scope;
        s->attrs = n->attrs;
        s->nattrs = n->nattrs;
        for (int i = 0; i < nins; i++)
            node_set_input(s, i, ins[i]);
        for (int i = 0; i < n->noutputs; i++) {
            s->outputs[i] = value_new_unique(m->graph, xprintf("%s/out%d", s->name, i));
            s->outputs[i]->producer = s;
            parts[i][b] = unsqueeze(m, n, s->outputs[i], 0);
        }
    }
    for (int i = 0; i < n->noutputs; i++)
        stack_into(m, n, parts[i], batch, 0, n->outputs[i]);
}

/* ---- driver ---- */

/* Replaces node `index` by what `step` writes after the graph's nodes. */
static void unroll(Model *m, int index, void (*step)(Model *m, Node *n))
{
    Graph *g = m->graph;
    Node *n = g->nodes[index];
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i] && n->inputs[i]->rank < 0)
            fatal_at(n, "input '%s' has no known shape", n->inputs[i]->name);
    int first_new = g->nnodes;
    step(m, n);
    node_retire(n);
    move_new_nodes(g, index, first_new);
}

void unroll_loop(Model *m, int index)
{
    unroll(m, index, loop_step);
}

void unroll_scan(Model *m, int index)
{
    unroll(m, index, m->graph->nodes[index]->opset < 9 ? scan8_split : scan_step);
}
