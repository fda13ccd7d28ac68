/* sequence.c — sequences of static length, resolved when infer_shapes reaches them
 * (like fold_if): a sequence never exists at run time. Each sequence value is a list of tensor
 * values known at compile time; the ops that build and edit sequences only edit that list, and
 * the ops that read one become standard tensor ops:
 *
 *   SplitToSequence(x, split)      Split (then Reshape dropping the axis when keepdims=0)
 *   SequenceConstruct / Empty / Insert / Erase     the list, no node
 *   SequenceAt(s, pos)             Identity of element pos (a view; simplify drops it)
 *   SequenceLength(s)              an int64 constant
 *   ConcatFromSequence(s)          Concat (each element Reshaped first when new_axis=1)
 *
 * Positions and split sizes must be compile-time constants. Sequences that cross a graph
 * boundary (graph inputs and outputs) are refused by load.c; an op that is not one of these
 * meets a sequence as an input without a shape and is refused by infer_shapes. The dynamo
 * exporter writes torch.split / torch.chunk this way with optimize=False. */
#include "contrib.h"

#include <string.h>

typedef struct Seq {
    const Value *v;
    DType dtype; /* element type (SequenceEmpty's attribute, else the elements') */
    int n;
    Value **items;
} Seq;

/* The sequences met so far are in cc->seqs. */

static const char *const seq_ops[] = {
    "SequenceEmpty",  "SequenceConstruct",  "SequenceInsert",  "SequenceErase", "SequenceAt",
    "SequenceLength", "ConcatFromSequence", "SplitToSequence", "SequenceMap",
};

bool is_sequence_op(const Node *n)
{
    if (*n->domain && strcmp(n->domain, "ai.onnx") != 0)
        return false;
    for (size_t i = 0; i < sizeof seq_ops / sizeof seq_ops[0]; i++)
        if (!strcmp(n->op_type, seq_ops[i]))
            return true;
    return false;
}

static const Seq *find_seq(const Value *v)
{
    for (int i = 0; v && i < cc->nseqs; i++)
        if (cc->seqs[i].v == v)
            return &cc->seqs[i];
    return NULL;
}

bool is_sequence_value(const Value *v)
{
    return find_seq(v) != NULL;
}

/* The sequence input i of n; refuses anything else. */
static const Seq *seq_input(const Node *n, int i)
{
    const Seq *s = find_seq(node_input(n, i));
    if (!s)
        fatal_at(n, "input %d is not a sequence built in this graph from tensors", i);
    return s;
}

static void define_seq(const Node *n, DType dtype, int count, Value *const *items)
{
    Value *v = n->outputs[0];
    if (!*v->name)
        return;
    if (v->is_output)
        fatal_at(n, "graph output '%s' is a sequence; entry points return tensors only", v->name);
    for (int i = 0; i < count; i++)
        if (items[i]->dtype != DT_UNDEFINED && items[i]->dtype != dtype) /* new: inferred next */
            fatal_at(n, "sequence element '%s' has type %s, the sequence holds %s", items[i]->name,
                     dtype_name(items[i]->dtype), dtype_name(dtype));
    if (cc->nseqs == cc->cap_seqs) {
        cc->cap_seqs = cc->cap_seqs ? 2 * cc->cap_seqs : 16;
        cc->seqs = xrealloc(cc->seqs, (size_t)cc->cap_seqs * sizeof(Seq));
    }
    Value **copy = xcalloc((size_t)count + 1, sizeof(Value *));
    if (count) /* SequenceEmpty has no items */
        memcpy(copy, items, (size_t)count * sizeof(Value *));
    cc->seqs[cc->nseqs++] = (Seq){.v = v, .dtype = dtype, .n = count, .items = copy};
}

/* A position input: a constant scalar in [-count, count - 1 + past_end], made non-negative;
 * `dflt` when the input is omitted. */
static int position(const Node *n, int input, int count, bool past_end, int dflt)
{
    Value *p = node_input(n, input);
    if (!p)
        return dflt;
    int len;
    int64_t *v = const_ints(n, p, &len);
    if (len != 1)
        fatal_at(n, "position '%s' must hold one value, not %d", p->name, len);
    int64_t hi = past_end ? count : count - 1;
    if (v[0] < -count || v[0] > hi)
        fatal_at(n, "position %lld is out of range for a sequence of %d", (long long)v[0], count);
    return (int)(v[0] < 0 ? v[0] + count : v[0]);
}

Node *expansion_node(const Expansion *x, const char *op, int nin, Value *const *ins, int nout,
                     Value *const *outs)
{
    const Node *o = x->origin; /* names stay unique for --emit-onnx */
    Node *h =
        node_new(x->g, xprintf("%s/%s%d", *o->name ? o->name : o->op_type, op, ++cc->state.seq_counter),
                 op, nin, nout);
    h->opset = x->opset;
    h->scope = o->scope;
    for (int i = 0; i < nin; i++)
        node_set_input(h, i, ins[i]);
    for (int i = 0; i < nout; i++) {
        h->outputs[i] = outs && outs[i] ? outs[i] : value_new_unique(x->g, h->name);
        h->outputs[i]->producer = h;
    }
    return h;
}

Value *expansion_ints(const Expansion *x, int count, const int64_t *v)
{
    int64_t len = count;
    Value *c = constant_new(x->g, xprintf("%s/ints", x->origin->name), DT_INT64, 1, &len);
    memcpy(c->data, v, (size_t)count * sizeof(int64_t));
    return c;
}

Value *expansion_float(const Expansion *x, float v)
{
    Value *c = constant_new(x->g, xprintf("%s/float", x->origin->name), DT_FLOAT, 0, NULL);
    *(float *)c->data = v;
    return c;
}

/* x viewed with dims (a Reshape); written into `out` when given. */
static Value *reshape_to(const Expansion *e, Value *x, int rank, const int64_t *dims)
{
    for (int i = 0; i < rank; i++)
        if (!dims[i])
            fatal_at(e->origin, "an empty sequence element is not supported");
    Value *ins[2] = {x, expansion_ints(e, rank, dims)};
    return expansion_node(e, "Reshape", 2, ins, 1, NULL)->outputs[0];
}

/* SplitToSequence: a constant `split` (scalar: chunks of that size, the last one shorter;
 * 1-D: the sizes), or chunks of one, which keepdims=0 then drops the axis of. */
static void split_to_sequence(const Expansion *e, Node *n)
{
    Value *x = n->inputs[0], *sp = node_input(n, 1);
    if (!x->rank)
        fatal_at(n, "cannot split a scalar");
    int axis = normalize_axis(n, attr_int(n, "axis", 0), x->rank);
    int64_t len = x->dims[axis];
    int count = 0;
    int64_t *sizes;
    if (sp) {
        int given;
        int64_t *v = const_ints(n, sp, &given);
        if (sp->rank == 0) {
            if (v[0] <= 0)
                fatal_at(n, "split size %lld must be positive", (long long)v[0]);
            count = (int)((len + v[0] - 1) / v[0]);
            sizes = xcalloc((size_t)count + 1, sizeof(int64_t));
            for (int i = 0; i < count; i++)
                sizes[i] = len - i * v[0] < v[0] ? len - i * v[0] : v[0];
        } else {
            int64_t sum = 0;
            for (int i = 0; i < given; i++) {
                if (v[i] < 0)
                    fatal_at(n, "split size %lld is negative", (long long)v[i]);
                sum = checked_add(n, sum, v[i]);
            }
            if (sum != len)
                fatal_at(n, "split sizes add up to %lld, the axis has %lld", (long long)sum,
                         (long long)len);
            count = given;
            sizes = v;
        }
    } else {
        count = (int)len;
        sizes = xcalloc((size_t)count + 1, sizeof(int64_t));
        for (int i = 0; i < count; i++)
            sizes[i] = 1;
    }
    if (count == 0)
        fatal_at(n, "splitting an empty axis gives an empty sequence, which is not supported");
    Value *ins[2] = {x, expansion_ints(e, count, sizes)};
    Node *split = expansion_node(e, "Split", 2, ins, count, NULL);
    attr_set_int(split, "axis", axis);
    Value **items = split->outputs;
    if (!sp && !attr_int(n, "keepdims", 1)) {
        int64_t dims[MAX_RANK];
        for (int i = 0, j = 0; i < x->rank; i++)
            if (i != axis)
                dims[j++] = x->dims[i];
        items = xcalloc((size_t)count + 1, sizeof(Value *));
        for (int i = 0; i < count; i++)
            items[i] = reshape_to(e, split->outputs[i], x->rank - 1, dims);
    }
    define_seq(n, x->dtype, count, items);
}

/* ConcatFromSequence: Concat along axis; new_axis=1 first gives every element a dim of 1 at
 * axis (which may then be rank, the new last dim). */
static void concat_from_sequence(const Expansion *e, Node *n)
{
    const Seq *s = seq_input(n, 0);
    if (!s->n)
        fatal_at(n, "the sequence is empty; there is nothing to concatenate");
    bool new_axis = attr_int(n, "new_axis", 0) != 0;
    int rank = s->items[0]->rank, out_rank = rank + new_axis;
    if (out_rank > MAX_RANK)
        fatal_at(n, "output rank %d is more than %d", out_rank, MAX_RANK);
    int axis = normalize_axis(n, attr_int(n, "axis", 0), out_rank);
    Value **items = s->items;
    if (new_axis) {
        items = xcalloc((size_t)s->n + 1, sizeof(Value *));
        for (int i = 0; i < s->n; i++) {
            const Value *x = s->items[i];
            if (x->rank != rank)
                fatal_at(n, "sequence elements have ranks %d and %d", rank, x->rank);
            int64_t dims[MAX_RANK];
            for (int d = 0, j = 0; d < out_rank; d++)
                dims[d] = d == axis ? 1 : x->dims[j++];
            items[i] = reshape_to(e, s->items[i], out_rank, dims);
        }
    }
    Node *c = expansion_node(e, "Concat", s->n, items, 1, n->outputs);
    attr_set_int(c, "axis", axis);
}

static void sequence_length(Node *n)
{
    const Seq *s = seq_input(n, 0);
    Value *y = n->outputs[0];
    set_shape(y, DT_INT64, 0, NULL);
    y->data = xcalloc(1, sizeof(int64_t));
    *(int64_t *)y->data = s->n;
}

static void expand(const Expansion *e, Node *n)
{
    const char *op = n->op_type;
    if (!strcmp(op, "SequenceMap"))
        fatal_at(n, "SequenceMap is not supported");
    if (!strcmp(op, "SequenceEmpty")) {
        define_seq(n, (DType)attr_int(n, "dtype", DT_FLOAT), 0, NULL);
    } else if (!strcmp(op, "SequenceConstruct")) {
        if (!n->ninputs || !n->inputs[0])
            fatal_at(n, "needs at least one input");
        define_seq(n, n->inputs[0]->dtype, n->ninputs, n->inputs);
    } else if (!strcmp(op, "SequenceInsert")) {
        const Seq *s = seq_input(n, 0);
        int at = position(n, 2, s->n, true, s->n);
        Value **items = xcalloc((size_t)s->n + 2, sizeof(Value *));
        memcpy(items, s->items, (size_t)at * sizeof(Value *));
        items[at] = n->inputs[1];
        memcpy(items + at + 1, s->items + at, (size_t)(s->n - at) * sizeof(Value *));
        define_seq(n, s->dtype, s->n + 1, items);
    } else if (!strcmp(op, "SequenceErase")) {
        const Seq *s = seq_input(n, 0);
        if (!s->n)
            fatal_at(n, "cannot erase from an empty sequence");
        int at = position(n, 1, s->n, false, s->n - 1);
        Value **items = xcalloc((size_t)s->n + 1, sizeof(Value *));
        memcpy(items, s->items, (size_t)at * sizeof(Value *));
        memcpy(items + at, s->items + at + 1, (size_t)(s->n - at - 1) * sizeof(Value *));
        define_seq(n, s->dtype, s->n - 1, items);
    } else if (!strcmp(op, "SequenceAt")) {
        const Seq *s = seq_input(n, 0);
        if (!s->n)
            fatal_at(n, "the sequence is empty");
        int at = position(n, 1, s->n, false, 0);
        expansion_node(e, "Identity", 1, &s->items[at], 1, n->outputs);
    } else if (!strcmp(op, "SequenceLength")) {
        sequence_length(n);
    } else if (!strcmp(op, "SplitToSequence")) {
        split_to_sequence(e, n);
    } else {
        concat_from_sequence(e, n);
    }
}

void expand_sequence_op(Model *m, int index)
{
    Graph *g = m->graph;
    Node *n = g->nodes[index];
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i] && n->inputs[i]->rank < 0 && !find_seq(n->inputs[i]))
            fatal_at(n, "input '%s' has no known shape", n->inputs[i]->name);
    int first_new = g->nnodes;
    Expansion e = {.g = g, .origin = n, .opset = n->opset > 13 ? n->opset : 13};
    expand(&e, n);
    node_retire(n);
    move_new_nodes(g, index, first_new);
}
