/* rewrite.c — the rewrite driver (rule tables of patterns, applied until nothing changes) and
 * small helpers the fusion passes share: tests on constants, and turning a node into another
 * op in place (so it keeps its output values). */
#include "rewrite.h"

#include <math.h>
#include <string.h>

bool scalar_constant(const Value *v, float *out)
{
    if (!v || !v->data || v->dtype != DT_FLOAT || value_numel(v) != 1)
        return false;
    *out = *(const float *)v->data;
    return true;
}

/* Replaces n's op and inputs, keeping its name, outputs and position. */
void morph_node(Node *n, const char *op_type, int ninputs, Value *const *inputs)
{
    node_resize_inputs(n, ninputs);
    for (int i = 0; i < ninputs; i++)
        node_set_input(n, i, inputs[i]);
    n->op_type = xstrdup(op_type);
    n->op = op_lookup(op_type);
    n->nattrs = 0;
}

/* Appends an input (padding the optional ones up to the op's maximum first), for epilogue
 * operands that the emitted code reads. */
int append_input(Node *n, Value *v)
{
    int at = n->ninputs > n->op->max_inputs ? n->ninputs : n->op->max_inputs;
    node_resize_inputs(n, at + 1);
    node_set_input(n, at, v);
    return at;
}

Node *new_node_before(Graph *g, const Node *anchor, const char *name, const char *op_type,
                      int ninputs, Value *const *inputs, Value *output)
{
    Node *n = node_new(g, name, op_type, ninputs, 1);
    n->op = op_lookup(op_type);
    n->opset = anchor->opset;
    n->scope = anchor->scope;
    for (int i = 0; i < ninputs; i++)
        node_set_input(n, i, inputs[i]);
    n->outputs[0] = output;
    output->producer = n;
    node_place_before(g, n, anchor);
    return n;
}

/* A Reshape to `dims`, as a view of x placed before `anchor`. */
Value *reshape_before(Graph *g, const Node *anchor, Value *x, int rank, const int64_t *dims)
{
    int64_t len = rank;
    Value *shape = constant_new(g, xprintf("%s/shape", anchor->name), DT_INT64, 1, &len);
    memcpy(shape->data, dims, (size_t)rank * sizeof(int64_t));
    Value *y = value_new(g, "");
    y->name = xprintf("%s/reshaped_%d", anchor->name, y->id);
    set_shape(y, x->dtype, rank, dims);
    Value *ins[2] = {x, shape};
    new_node_before(g, anchor, xprintf("%s/reshape", anchor->name), "Reshape", 2, ins, y);
    y->view_of = x;
    return y;
}

/* Makes producer p write `taken` (the output of the retired node) instead of its own output. */
void steal_output(Node *p, Value *old, Value *taken)
{
    for (int i = 0; i < p->noutputs; i++)
        if (p->outputs[i] == old)
            p->outputs[i] = taken;
    taken->producer = p;
    taken->view_of = NULL;
}

void castlike_as_cast(Node *n)
{
    DType to = n->inputs[1]->dtype;
    node_resize_inputs(n, 1);
    n->op_type = xstrdup("Cast");
    n->op = op_lookup("Cast");
    attr_set_int(n, "to", (int64_t)to);
}

bool same_shape_as(const Value *a, const Value *b)
{
    if (a->rank != b->rank || a->dtype != b->dtype)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

bool scalar_near(const Value *v, double c)
{
    float f;
    return scalar_constant(v, &f) && fabs((double)f - c) <= 1e-6 * fabs(c);
}

bool scalar_equal(const Value *v, double c)
{
    float f;
    return scalar_constant(v, &f) && (double)f == c;
}

/* ---- the matcher: a stack of goals (a pattern to meet at a value read by a node), solved
 * depth first; every choice (operand order, alternative) undoes its bindings on failure. ---- */

#define MAX_GOALS 32

typedef struct Goal {
    const Pattern *p;
    Value *v;
    const Node *reader; /* the node whose input v is */
} Goal;

static bool solve(Match *m, const Goal *goals, int ngoals);

bool pattern_op_is(const Pattern *p, const Node *n)
{
    return p->op ? !strcmp(n->op_type, p->op) : node_has(n, p->flags);
}

/* n's inputs against p->in (swapped when `swap`), then the goals still open. */
static bool solve_inputs(Match *m, const Pattern *p, Node *n, bool swap, const Goal *rest,
                         int nrest)
{
    Goal goals[MAX_GOALS];
    if (nrest + p->nin > MAX_GOALS)
        return false;
    if (nrest)
        memcpy(goals, rest, (size_t)nrest * sizeof *goals);
    for (int i = 0; i < p->nin; i++)
        goals[nrest++] = (Goal){p->in[i], n->inputs[swap ? p->nin - 1 - i : i], n};
    return solve(m, goals, nrest);
}

static bool solve_node(Match *m, const Pattern *p, Node *n, const Goal *rest, int nrest)
{
    if (n->dead || !pattern_op_is(p, n) || n->ninputs < p->nin || m->nnodes == MATCH_NODES)
        return false;
    int mark = m->nnodes;
    m->nodes[m->nnodes++] = n;
    if (solve_inputs(m, p, n, false, rest, nrest) ||
        (p->commute && solve_inputs(m, p, n, true, rest, nrest)))
        return true;
    m->nnodes = mark;
    return false;
}

static bool solve(Match *m, const Goal *goals, int ngoals)
{
    if (!ngoals)
        return !m->where || m->where(m);
    Goal g = goals[--ngoals];
    const Pattern *p = g.p;
    if (p->alt[0]) {
        Goal next[MAX_GOALS];
        if (ngoals)
            memcpy(next, goals, (size_t)ngoals * sizeof *next);
        for (int a = 0; a < 3 && p->alt[a]; a++) {
            next[ngoals] = (Goal){p->alt[a], g.v, g.reader};
            if (solve(m, next, ngoals + 1))
                return true;
        }
        return false;
    }
    Value *v = g.v;
    Node *n = NULL;
    if (!v)
        return false;
    if (p->op || p->flags) {
        n = v->producer;
        if (!n || n->dead || !n->noutputs || n->outputs[0] != v || !pattern_op_is(p, n) ||
            (!p->shared && sole_user(v) != g.reader))
            return false;
    }
    if ((p->test && !p->test(v, p->c)) || (p->bind && m->v[p->bind] && m->v[p->bind] != v))
        return false;
    bool fresh = p->bind && !m->v[p->bind];
    if (fresh)
        m->v[p->bind] = v;
    bool ok = n ? solve_node(m, p, n, goals, ngoals) : solve(m, goals, ngoals);
    if (!ok && fresh)
        m->v[p->bind] = NULL;
    return ok;
}

bool node_matches(const Pattern *p, Node *n, Match *m)
{
    memset(m, 0, sizeof *m);
    m->where = p->where;
    return solve_node(m, p, n, NULL, 0);
}

void rewrite_graph(Graph *g, const RewriteRule *rules, int nrules)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < g->nnodes; i++) {
            Node *n = g->nodes[i];
            Match m;
            for (int r = 0; r < nrules && !n->dead && n->noutputs; r++)
                if (node_matches(rules[r].pattern, n, &m) && rules[r].apply(g, n, &m)) {
                    changed = true;
                    break;
                }
        }
    }
}
