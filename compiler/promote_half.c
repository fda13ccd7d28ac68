/* promote_half.c — float16 and bfloat16 compute in float32.
 *
 * onnx2c stores 16-bit floats (as their bits) but has no 16-bit arithmetic. An op that
 * supports float32 supports them with the OP_HALF flag in its table row: infer_shapes then
 * infers and folds it through half_infer / half_fold, which run the float32 version on
 * float32 copies of the operands and give the float32 results the 16-bit type back (constant
 * folding converts its results at once; ops.h: the three ops that call them themselves). This
 * pass, run right after shape inference, then rewrites every such node that was not folded:
 *
 *     x (half) -> Cast(to float) -> node in float32 -> Cast(to half) -> y (half)
 *
 * so every op rounds its result to the 16-bit type, to nearest even, after every op, as
 * onnxruntime's CPU kernels mostly do (they too compute float16 in float32 and store float16),
 * and as numpy does for float16 ufuncs (which the onnx reference uses). Chains of ops
 * therefore agree with those references bit for bit where each op agrees in float32; an op
 * whose reference computes in 16 bits internally (an accumulation, say) may differ in the
 * last bits. A constant half operand is converted at compile time rather than cast at run
 * time, and a value read by several promoted nodes is widened once.
 *
 * Cast and CastLike nodes with a 16-bit end are bound to the op entry "Cast(half)", whose
 * emitted code needs templates/types.c (cast_half); a CastLike becomes a Cast first, so that
 * simplify.c leaves it alone (it would rebind it to the plain Cast entry).
 *
 * The node order: new nodes go right before (input casts) or after (output casts) the node
 * they serve in g->nodes, which number_nodes() turns into order keys right after this pass. */
#include "kernels.h"
#include "ops.h"
#include "rewrite.h"

#include <stdlib.h>
#include <string.h>

/* Nodes half_infer inferred, in order (cc->promoted); the pass rewrites the live ones. */

bool is_half_type(DType t)
{
    return t == DT_FLOAT16 || t == DT_BFLOAT16;
}

/* The 16-bit type among n's inputs, DT_UNDEFINED if none; two different ones are refused. */
static DType half_input_type(const Node *n)
{
    DType half = DT_UNDEFINED;
    for (int i = 0; i < n->ninputs; i++) {
        const Value *v = n->inputs[i];
        if (!v || !is_half_type(v->dtype))
            continue;
        if (half && half != v->dtype)
            fatal_at(n, "inputs mix float16 and bfloat16");
        half = v->dtype;
    }
    return half;
}

/* A float32 copy of v (not in the graph): the same shape, the data converted when constant. */
static Value *float_copy(const Value *v)
{
    Value *f = xcalloc(1, sizeof(Value));
    *f = *v;
    f->users = NULL;
    f->nusers = f->cap_users = 0;
    if (!is_half_type(v->dtype))
        return f;
    f->dtype = DT_FLOAT;
    if (v->data) {
        int64_t len = value_numel(v);
        f->data = xcalloc((size_t)len + 1, sizeof(float));
        cast_half(len, (int)v->dtype, v->data, DT_FLOAT, f->data);
    }
    return f;
}

/* A copy of n reading float32 copies of its 16-bit inputs, with fresh outputs. */
static Node float_node(const Node *n, bool with_output_data)
{
    Node tmp = *n;
    tmp.inputs = xcalloc((size_t)n->ninputs + 1, sizeof(Value *));
    tmp.outputs = xcalloc((size_t)n->noutputs + 1, sizeof(Value *));
    for (int i = 0; i < n->ninputs; i++)
        tmp.inputs[i] = n->inputs[i] ? float_copy(n->inputs[i]) : NULL;
    for (int i = 0; i < n->noutputs; i++) {
        tmp.outputs[i] = float_copy(n->outputs[i]);
        if (with_output_data)
            tmp.outputs[i]->data = xcalloc(1, (size_t)value_bytes(tmp.outputs[i]) + 1);
        else
            tmp.outputs[i]->data = NULL;
    }
    return tmp;
}

bool half_infer(Node *n, void (*infer)(Node *n))
{
    DType half = half_input_type(n);
    if (!half)
        return false;
    Node tmp = float_node(n, false);
    for (int i = 0; i < n->noutputs; i++) {
        tmp.outputs[i]->dtype = DT_UNDEFINED;
        tmp.outputs[i]->rank = -1;
    }
    infer(&tmp);
    for (int i = 0; i < n->noutputs; i++) {
        const Value *r = tmp.outputs[i];
        if (r->data)
            fatal_at(n, "internal: a %s output known at inference time", dtype_name(half));
        set_shape(n->outputs[i], r->dtype == DT_FLOAT ? half : r->dtype, r->rank, r->dims);
    }
    if (cc->npromoted == cc->cap_promoted) {
        cc->cap_promoted = cc->cap_promoted ? 2 * cc->cap_promoted : 16;
        cc->promoted = xrealloc(cc->promoted, (size_t)cc->cap_promoted * sizeof(Node *));
    }
    cc->promoted[cc->npromoted++] = n;
    return true;
}

bool half_fold(Node *n, void (*fold)(Node *n))
{
    if (!half_input_type(n))
        return false;
    Node tmp = float_node(n, true);
    fold(&tmp);
    for (int i = 0; i < n->noutputs; i++) {
        Value *y = n->outputs[i];
        if (is_half_type(y->dtype))
            cast_half(value_numel(y), DT_FLOAT, tmp.outputs[i]->data, (int)y->dtype, y->data);
        else
            memcpy(y->data, tmp.outputs[i]->data, (size_t)value_bytes(y));
    }
    return true;
}

/* ---- the pass ---- */

typedef struct NodeList {
    Node **nodes;
    int n, cap;
} NodeList;

static void push(NodeList *l, Node *n)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->nodes = xrealloc(l->nodes, (size_t)l->cap * sizeof(Node *));
    }
    l->nodes[l->n++] = n;
}

static Node *cast_node(Graph *g, const Node *anchor, Value *x, Value *y)
{
    Node *c =
        new_node_before(g, anchor, xprintf("%s/cast_%s", anchor->name, y->name), "Cast", 1, &x, y);
    c->op = op_lookup("Cast(half)");
    if (c->opset < c->op->min_opset)
        c->opset = c->op->min_opset;
    attr_set_int(c, "to", (int64_t)y->dtype);
    return c;
}

static int by_address(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (Node *const *)a, y = (uintptr_t) * (Node *const *)b;
    return x < y ? -1 : x > y;
}

static bool is_registered(const Node *n)
{
    return cc->npromoted &&
           bsearch(&n, cc->promoted, (size_t)cc->npromoted, sizeof(Node *), by_address);
}

/* (A Cast with a float8/float4 end is bound to "Cast(low)", which converts 16-bit floats
 * itself and has no OP_CAST.) */
static bool is_half_cast(const Node *n)
{
    return node_has(n, OP_CAST) &&
           (is_half_type(n->inputs[0]->dtype) || is_half_type(n->outputs[0]->dtype));
}

/* A CastLike becomes the Cast it is (as simplify.c does), then binds to "Cast(half)". */
static void bind_half_cast(Node *n)
{
    if (node_has(n, OP_SHAPE_ONLY_INPUT))
        castlike_as_cast(n);
    n->op = op_lookup("Cast(half)");
}

void promote_half(Graph *g)
{
    int norig = g->nnodes, nvalues = g->nvalues;
    Node **orig = xcalloc((size_t)norig + 1, sizeof(Node *));
    memcpy(orig, g->nodes, (size_t)norig * sizeof(Node *));
    Value **widened = xcalloc((size_t)nvalues + 1, sizeof(Value *)); /* by value id */
    NodeList order = {0};
    if (cc->npromoted)
        qsort(cc->promoted, (size_t)cc->npromoted, sizeof(Node *), by_address);
    for (int i = 0; i < norig; i++) {
        Node *n = orig[i];
        if (n->dead || !is_registered(n)) {
            if (!n->dead && is_half_cast(n))
                bind_half_cast(n);
            push(&order, n);
            continue;
        }
        for (int j = 0; j < n->ninputs; j++) {
            Value *v = n->inputs[j];
            if (!v || !is_half_type(v->dtype))
                continue;
            Value *f = v->id < nvalues ? widened[v->id] : NULL;
            if (!f && v->data) {
                f = constant_new(g, xprintf("%s/float", v->name), DT_FLOAT, v->rank, v->dims);
                cast_half(value_numel(v), (int)v->dtype, v->data, DT_FLOAT, f->data);
            } else if (!f) {
                f = value_new(g, "");
                f->name = xprintf("%s/float_%d", v->name, f->id);
                set_shape(f, DT_FLOAT, v->rank, v->dims);
                push(&order, cast_node(g, n, v, f));
            }
            if (v->id < nvalues)
                widened[v->id] = f;
            node_set_input(n, j, f);
        }
        push(&order, n);
        for (int k = 0; k < n->noutputs; k++) {
            Value *v = n->outputs[k];
            if (!is_half_type(v->dtype))
                continue;
            Value *f = value_new(g, "");
            f->name = xprintf("%s/float_%d", v->name, f->id);
            set_shape(f, DT_FLOAT, v->rank, v->dims);
            n->outputs[k] = f;
            f->producer = n;
            push(&order, cast_node(g, n, f, v));
        }
        n->op->infer(n); /* checks the node as float32 */
        record_fusion("promote_half");
    }
    if (order.n != g->nnodes)
        unreachable();
    g->nodes = order.nodes;
    g->cap_nodes = order.cap;
}
