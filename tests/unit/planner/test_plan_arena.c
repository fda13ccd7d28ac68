/* test_plan_arena.c — the memory planner (codegen/plan_arena.c) on hand-built graphs.
 *
 * Each case builds a small graph with the IR functions, schedules it and plans its arena,
 * then compares offsets, arena bytes, the live lower bound, the naive sum and the node-order
 * bound with values computed by hand in the comments. Every plan is also checked by
 * check_disjoint(), which recomputes lifetimes with its own loop: two arena tensors alive at
 * a common step must not share bytes, except an output that takes the buffer of an input at
 * the step where that input is read for the last time (in place).
 *
 * Links the compiler's sources (not main.c); built by tests/CMakeLists.txt. */
#include "../check.h"
#include "onnx2c.h"

#include <string.h>

/* An op whose emitted code needs 1000 bytes of scratch (planned as 1024, the alignment). */
static int64_t fixed_scratch(const Node *n)
{
    (void)n;
    return 1000;
}
static const OpDef scratch_op = {"ScratchOp",   1,   1, 1, NULL, NULL, NULL, false, NULL,
                                 fixed_scratch, NULL};

/* An op whose working set can shrink: 2048 bytes of scratch, or under a budget the largest of
 * 1536, 1024 and 512 within it; never less than 512. */
static int64_t shrinking_scratch(const Node *n)
{
    static const int64_t sizes[] = {2048, 1536, 1024, 512};
    for (int i = 0; i < 3; i++)
        if (!n->scratch_budget || sizes[i] <= n->scratch_budget)
            return sizes[i];
    return 512;
}
static const OpDef shrink_op = {"ShrinkOp",        1,   1, 1, NULL, NULL, NULL, false, NULL,
                                shrinking_scratch, NULL};

static Graph *g;

static Value *tensor(const char *name, int64_t elements)
{
    Value *v = value_new(g, name);
    set_shape(v, DT_FLOAT, 1, &elements);
    return v;
}

static Value *input(const char *name, int64_t elements)
{
    Value *v = tensor(name, elements);
    v->is_input = true;
    return v;
}

/* Node `op` (an op of the table, or the scratch op) reading ins[0..nin-1], writing `out`. */
static Value *node(const char *op, int nin, Value **ins, Value *out)
{
    Node *n = node_new(g, op, op, nin, 1);
    n->op = !strcmp(op, "ScratchOp")  ? &scratch_op
            : !strcmp(op, "ShrinkOp") ? &shrink_op
                                      : op_lookup(op);
    for (int i = 0; i < nin; i++)
        node_set_input(n, i, ins[i]);
    n->outputs[0] = out;
    out->producer = n;
    return out;
}

static Value *op1(const char *op, Value *x, Value *out)
{
    return node(op, 1, &x, out);
}

static Value *op2(const char *op, Value *a, Value *b, Value *out)
{
    Value *ins[2] = {a, b};
    return node(op, 2, ins, out);
}

static void output(Value *v)
{
    v->is_output = true;
    g->outputs = xrealloc(g->outputs, (size_t)(g->noutputs + 1) * sizeof(Value *));
    g->outputs[g->noutputs++] = v;
}

static void begin(void)
{
    g = graph_new();
}

static int64_t bound;

static ArenaPlan plan(void)
{
    bound = node_order_bound(g);
    number_nodes(g);
    schedule(g);
    return plan_arena(g, bound);
}

static Value *root(Value *v)
{
    while (v->view_of)
        v = v->view_of;
    return v;
}

/* x is an input of the Concat that writes y, at the offset of its block: the inputs before it
 * in the output's buffer, one after another. */
static bool in_its_slice(const Value *x, const Value *y)
{
    const Node *n = y->producer;
    if (!n || strcmp(n->op_type, "Concat"))
        return false;
    int64_t at = y->offset;
    for (int i = 0; i < n->ninputs; i++) {
        if (n->inputs[i] == x)
            return x->offset == at;
        at += value_bytes(n->inputs[i]);
    }
    return false;
}

/* The independent check described at the top. */
static void check_disjoint(const char *what, const ArenaPlan *p)
{
    int first[64], last[64];
    for (int i = 0; i < g->nvalues; i++)
        first[i] = last[i] = -1;
    for (int s = 0; s < g->nnodes; s++) {
        Node *n = g->nodes[s];
        for (int i = 0; i < n->ninputs; i++)
            if (n->inputs[i])
                last[root(n->inputs[i])->id] = s;
        Value *r = root(n->outputs[0]);
        if (first[r->id] < 0)
            first[r->id] = s;
        if (last[r->id] < s)
            last[r->id] = s;
    }
    for (int i = 0; i < g->noutputs; i++)
        last[root(g->outputs[i])->id] = g->nnodes;
    bool ok = true;
    for (int i = 0; i < g->nvalues; i++)
        for (int j = 0; j < g->nvalues; j++) {
            Value *a = g->values[i], *b = g->values[j];
            if (i == j || a->offset < 0 || b->offset < 0 || a->view_of || b->view_of)
                continue;
            ok &= a->offset + value_bytes(a) <= p->arena_bytes;
            bool same_time = first[i] <= last[j] && first[j] <= last[i];
            bool same_bytes =
                a->offset < b->offset + value_bytes(b) && b->offset < a->offset + value_bytes(a);
            bool handed_over = (last[i] == first[j] || last[j] == first[i]) &&
                               a->offset == b->offset && value_bytes(a) == value_bytes(b);
            if (same_time && same_bytes && !handed_over && !in_its_slice(a, b) &&
                !in_its_slice(b, a))
                ok = false;
        }
    for (int s = 0; s < g->nnodes; s++) {
        Node *n = g->nodes[s];
        if (!n->op->scratch)
            continue;
        for (int i = 0; i < g->nvalues; i++) {
            Value *a = g->values[i];
            if (a->offset < 0 || a->view_of || first[i] > s || last[i] < s)
                continue;
            int64_t size = (n->op->scratch(n) + 63) / 64 * 64;
            if (a->offset < n->scratch_offset + size &&
                n->scratch_offset < a->offset + value_bytes(a))
                ok = false;
        }
    }
    char msg[160];
    snprintf(msg, sizeof msg, "%s: tensors alive together do not share bytes", what);
    check(ok, msg);
}

static void expect(const char *what, int64_t got, int64_t want)
{
    char msg[160];
    snprintf(msg, sizeof msg, "%s: %lld (want %lld)", what, (long long)got, (long long)want);
    check(got == want, msg);
}

/* x -> Softmax a -> Softmax b -> Softmax c -> Softmax y (64 floats each, 256 bytes). Nothing
 * runs in place (Softmax is not elementwise). Lifetimes a [0,1], b [1,2], c [2,3]: a and c
 * share bytes, b sits next to them. */
static void test_lifetimes(void)
{
    begin();
    Value *x = input("x", 64);
    Value *a = op1("Softmax", x, tensor("a", 64));
    Value *b = op1("Softmax", a, tensor("b", 64));
    Value *c = op1("Softmax", b, tensor("c", 64));
    Value *y = op1("Softmax", c, tensor("y", 64));
    output(y);
    ArenaPlan p = plan();
    expect("lifetimes: arena", p.arena_bytes, 512);
    expect("lifetimes: lower bound", p.lower_bound_bytes, 512);
    expect("lifetimes: naive", p.naive_bytes, 768);
    expect("lifetimes: node-order bound", bound, 512);
    expect("lifetimes: in place", p.in_place, 0);
    expect("lifetimes: a", a->offset, 0);
    expect("lifetimes: b", b->offset, 256);
    expect("lifetimes: c", c->offset, 0);
    expect("lifetimes: inputs and outputs are not in the arena", x->offset + y->offset, -2);
    check_disjoint("lifetimes", &p);
}

/* x -> Relu a -> Exp b -> Softmax y: b takes a's buffer (a dies at Exp). One buffer of 256. */
static void test_in_place_unary(void)
{
    begin();
    Value *a = op1("Relu", input("x", 64), tensor("a", 64));
    Value *b = op1("Exp", a, tensor("b", 64));
    output(op1("Softmax", b, tensor("y", 64)));
    ArenaPlan p = plan();
    expect("unary: in place", p.in_place, 1);
    expect("unary: b at a", b->offset, a->offset);
    expect("unary: arena", p.arena_bytes, 256);
    expect("unary: lower bound", p.lower_bound_bytes, 256);
    expect("unary: naive", p.naive_bytes, 512);
    expect("unary: node-order bound (a and b at Exp)", bound, 512);
    check_disjoint("unary", &p);
}

/* x -> Relu a; Exp(a) -> b; Add(a, b) -> c; Softmax(c) -> y. Exp cannot take a's buffer (Add
 * reads a later); Add can: a and b both die there, and c takes a's (its first operand). */
static void test_in_place_needs_last_read(void)
{
    begin();
    Value *a = op1("Relu", input("x", 64), tensor("a", 64));
    Value *b = op1("Exp", a, tensor("b", 64));
    Value *c = op2("Add", a, b, tensor("c", 64));
    output(op1("Softmax", c, tensor("y", 64)));
    ArenaPlan p = plan();
    expect("last read: in place", p.in_place, 1);
    check(b->offset != a->offset, "last read: b not at a");
    expect("last read: c at a", c->offset, a->offset);
    expect("last read: arena", p.arena_bytes, 512);
    expect("last read: lower bound", p.lower_bound_bytes, 512);
    expect("last read: node-order bound (a, b, c at Add)", bound, 768);
    check_disjoint("last read", &p);
}

/* x -> Relu a; Mul(a, a) -> b; Softmax(b) -> y: b does not take a's buffer (two slots read
 * it), so a [0,1] and b [1,2] need 512 bytes. */
static void test_no_in_place_when_read_twice(void)
{
    begin();
    Value *a = op1("Relu", input("x", 64), tensor("a", 64));
    Value *b = op2("Mul", a, a, tensor("b", 64));
    output(op1("Softmax", b, tensor("y", 64)));
    ArenaPlan p = plan();
    expect("read twice: in place", p.in_place, 0);
    expect("read twice: arena", p.arena_bytes, 512);
    check_disjoint("read twice", &p);
}

/* Add(s [64], a [256]) -> c [256], s broadcast: c takes a's buffer (operand 2, same size),
 * never s's (smaller). a: 1024 bytes, s: 256. Steps: 0 a, 1 s, 2 c, 3 y. Lower bound at
 * step 2: a (= c) + s = 1280; greedy by size puts a at 0 and s after it. */
static void test_in_place_broadcast(void)
{
    begin();
    Value *a = op1("Relu", input("x", 256), tensor("a", 256));
    Value *s = op1("Relu", input("x2", 64), tensor("s", 64));
    Value *c = op2("Add", s, a, tensor("c", 256));
    output(op1("Softmax", c, tensor("y", 256)));
    ArenaPlan p = plan();
    expect("broadcast: in place", p.in_place, 1);
    expect("broadcast: c at a", c->offset, a->offset);
    expect("broadcast: a", a->offset, 0);
    expect("broadcast: s", s->offset, 1024);
    expect("broadcast: arena", p.arena_bytes, 1280);
    expect("broadcast: lower bound", p.lower_bound_bytes, 1280);
    expect("broadcast: node-order bound (a, s, c at Add)", bound, 2304);
    check_disjoint("broadcast", &p);
}

/* x -> Relu a [256]; Reshape(a) -> r (a view: no bytes of its own); Exp(r) -> b takes a's
 * buffer through the view. The node-order bound counts a once (r shares it) and b. */
static void test_view(void)
{
    begin();
    Value *a = op1("Relu", input("x", 256), tensor("a", 256));
    Value *shape = constant_new(g, "shape", DT_INT64, 1, (int64_t[]){1});
    ((int64_t *)shape->data)[0] = 256;
    Value *r = op2("Reshape", a, shape, tensor("r", 256));
    Value *b = op1("Exp", r, tensor("b", 256));
    output(op1("Softmax", b, tensor("y", 256)));
    ArenaPlan p = plan();
    check(r->view_of == a, "view: r is a view of a");
    expect("view: in place", p.in_place, 1);
    expect("view: b at a", b->offset, a->offset);
    expect("view: arena", p.arena_bytes, 1024);
    expect("view: node-order bound", bound, 2048);
    check_disjoint("view", &p);
}

/* x -> ScratchOp a [64] -> ScratchOp b [64] -> Softmax y; each ScratchOp has 1024 bytes of
 * scratch for its own step. Alive: step 0 a + s0 = 1280, step 1 a + b + s1 = 1536. Greedy by
 * size: s0 at 0, s1 at 0 (other step), a at 1024, b at 1280. */
static void test_scratch(void)
{
    begin();
    Value *a = op1("ScratchOp", input("x", 64), tensor("a", 64));
    Value *b = op1("ScratchOp", a, tensor("b", 64));
    output(op1("Softmax", b, tensor("y", 64)));
    ArenaPlan p = plan();
    expect("scratch: arena", p.arena_bytes, 1536);
    expect("scratch: lower bound", p.lower_bound_bytes, 1536);
    expect("scratch: naive", p.naive_bytes, 2560);
    expect("scratch: node-order bound (no scratch)", bound, 512);
    expect("scratch: s0", g->nodes[0]->scratch_offset, 0);
    expect("scratch: s1", g->nodes[1]->scratch_offset, 0);
    expect("scratch: a", a->offset, 1024);
    expect("scratch: b", b->offset, 1280);
    check_disjoint("scratch", &p);
}

/* x -> ShrinkOp a [256] -> `second` b [256] -> Softmax y, planned; its case's figures, in
 * order: node-order bound, step 0's budget and scratch, step 1's scratch (0: not a ShrinkOp),
 * the live lower bound and the arena. */
static void check_budget_case(const char *what, const char *second, const int64_t want[6])
{
    begin();
    Value *a = op1("ShrinkOp", input("x", 256), tensor("a", 256));
    Value *b = op1(second, a, tensor("b", 256));
    output(op1("Softmax", b, tensor("y", 256)));
    ArenaPlan p = plan();
    Node *n1 = g->nodes[1];
    int64_t got[6] = {bound,
                      g->nodes[0]->scratch_budget,
                      shrinking_scratch(g->nodes[0]),
                      n1->op == &shrink_op ? shrinking_scratch(n1) : 0,
                      p.lower_bound_bytes,
                      p.arena_bytes};
    static const char *names[6] = {"node-order bound", "step 0's budget", "step 0's scratch",
                                   "step 1's scratch", "lower bound",     "arena"};
    for (int i = 0; i < 6; i++) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s: %s", what, names[i]);
        expect(msg, got[i], want[i]);
    }
    check_disjoint(what, &p);
}

/* Second op Softmax. Node-order bound: step 1, a + b = 2048. Step 0 with the preferred
 * scratch, a + 2048 = 3072, is over it: the budget is 2048 - 1024 = 1024, the scratch 1024,
 * and the arena the bound. */
static void test_scratch_budget(void)
{
    static const int64_t want[6] = {2048, 1024, 1024, 0, 2048, 2048};
    check_budget_case("budget", "Softmax", want);
}

/* Second op a ShrinkOp too. Bound: step 1, a + b = 2048, which leaves step 1 no room: its
 * budget is 64 (ARENA_ALIGN), its scratch the smallest, 512, and the live peak 2560. Step 0
 * first gets 2048 - 1024 = 1024; the second round sets it against that peak: 2560 - 1024 =
 * 1536, so it takes 1536 instead of shrinking to 1024 for nothing. */
static void test_scratch_budget_out_of_reach(void)
{
    static const int64_t want[6] = {2048, 1536, 1536, 512, 2560, 2560};
    check_budget_case("out of reach", "ShrinkOp", want);
}

/* The activations of a small quantised CNN (tests/models/qdq_cnn_*, its im2col scratch left
 * out): big tensors of 800 floats (3200 bytes), small ones of 208 (832 bytes), one big R
 * alive from step 4 to the residual Add at step 11, which writes its result into X's buffer.
 * Lifetimes: o [0,1] (64 floats), n [1,2], P [2,3], q [3,4], R [4,11], S [5,6], t [6,7],
 * U [7,8], V [8,9], w [9,10], X = Y [10,12]. Lower bound: step 8, R + U + V = 9600. Every
 * greedy order and the plan by steps give 10432 on the first placement (w finds no room
 * below 9600); moving the buffer that ends highest to the front of the order and placing
 * again reaches 9600 in the fourth round. */
static void test_improvement_rounds(void)
{
    begin();
    Value *o = op1("Softmax", input("x", 64), tensor("o", 64));
    Value *n = op1("Softmax", o, tensor("n", 208));
    Value *P = op1("Softmax", n, tensor("P", 800));
    Value *q = op1("Softmax", P, tensor("q", 208));
    Value *R = op1("Softmax", q, tensor("R", 800));
    Value *S = op1("Softmax", R, tensor("S", 800));
    Value *t = op1("Softmax", S, tensor("t", 208));
    Value *U = op1("Softmax", t, tensor("U", 800));
    Value *V = op1("Softmax", U, tensor("V", 800));
    Value *w = op1("Softmax", V, tensor("w", 208));
    Value *X = op1("Softmax", w, tensor("X", 800));
    Value *Y = op2("Add", X, R, tensor("Y", 800));
    output(op1("Softmax", Y, tensor("y", 800)));
    ArenaPlan p = plan();
    expect("rounds: in place", p.in_place, 1);
    expect("rounds: lower bound", p.lower_bound_bytes, 9600);
    expect("rounds: arena", p.arena_bytes, 9600);
    expect("rounds: node-order bound (R, X, Y at Add)", bound, 9600);
    check_disjoint("rounds", &p);
}

/* x -> Relu y (a graph output): nothing in the arena. */
static void test_empty(void)
{
    begin();
    output(op1("Relu", input("x", 64), tensor("y", 64)));
    ArenaPlan p = plan();
    expect("empty: arena", p.arena_bytes, 0);
    expect("empty: lower bound", p.lower_bound_bytes, 0);
    expect("empty: node-order bound", bound, 0);
}

/* The node-order bound skips dead nodes and folded constants, and a view that is a graph
 * output is the caller's memory: x -> Relu a [64] -> Reshape y (graph output); a dead Relu. */
static void test_node_order_bound(void)
{
    begin();
    Value *a = op1("Relu", input("x", 64), tensor("a", 64));
    Value *shape = constant_new(g, "shape", DT_INT64, 1, (int64_t[]){1});
    ((int64_t *)shape->data)[0] = 64;
    Value *y = op2("Reshape", a, shape, tensor("y", 64));
    output(y);
    Value *unused = op1("Relu", a, tensor("unused", 1000));
    unused->producer->dead = true;
    expect("node-order bound: a only", node_order_bound(g), 256);
}

/* x -> Softmax a, x -> Softmax b (64 floats each), Concat(a, b) -> c, Softmax c -> y. In node
 * order a [0,2], b [1,2] and c [2,3] are alive together at step 2: 256 + 256 + 512 = 1024.
 * As slices of c, a and b are written in place (c's buffer from step 0): 512, no copy. */
static void test_concat_slices(void)
{
    begin();
    Value *x = input("x", 64);
    Value *a = op1("Softmax", x, tensor("a", 64));
    Value *b = op1("Softmax", x, tensor("b", 64));
    Value *c = op2("Concat", a, b, tensor("c", 128));
    output(op1("Softmax", c, tensor("y", 128)));
    ArenaPlan p = plan();
    expect("concat slices: node-order bound", bound, 1024);
    expect("concat slices: arena", p.arena_bytes, 512);
    expect("concat slices: lower bound", p.lower_bound_bytes, 512);
    expect("concat slices: in slices", p.in_slice, 2);
    expect("concat slices: a at c's start", a->offset, c->offset);
    expect("concat slices: b after a", b->offset, c->offset + 256);
    check(value_in_slice(a, c, 0) && value_in_slice(b, c, 256) && !value_in_slice(b, c, 0),
          "concat slices: value_in_slice finds both blocks");
    check_disjoint("concat slices", &p);
}

/* Concat(a, b, a) with a of 10 floats: a is read twice and b's block starts at 40 bytes, not
 * 64-aligned, so neither is a slice; Concat(a, b) with b unaligned: only a is. */
static void test_concat_slices_refused(void)
{
    begin();
    Value *x = input("x", 10);
    Value *a = op1("Softmax", x, tensor("a", 10));
    Value *b = op1("Softmax", x, tensor("b", 10));
    Value *ins[3] = {a, b, a};
    Value *c = node("Concat", 3, ins, tensor("c", 30));
    output(op1("Softmax", c, tensor("y", 30)));
    ArenaPlan p = plan();
    expect("concat read twice, unaligned: in slices", p.in_slice, 0);
    check(!value_in_slice(a, c, 0), "concat read twice: a is copied");
    check_disjoint("concat read twice", &p);

    begin();
    x = input("x", 10);
    a = op1("Softmax", x, tensor("a", 10));
    b = op1("Softmax", x, tensor("b", 10));
    c = op2("Concat", a, b, tensor("c", 20));
    output(op1("Softmax", c, tensor("y", 20)));
    p = plan();
    expect("concat unaligned: in slices", p.in_slice, 1);
    check(value_in_slice(a, c, 0) && !value_in_slice(b, c, 40), "concat unaligned: only a");
    check_disjoint("concat unaligned", &p);
}

/* x -> Softmax a (64 floats), x -> Softmax big (1024) -> Softmax u (the graph output),
 * x -> Softmax t (64), Concat(a, t) -> c: copied, the peak is a with big (4352 bytes at steps
 * 1 and 2); as slices, a would hold c's 512 bytes from step 0, alive with big (4608). The
 * planner keeps the copy. */
static void test_concat_slices_when_smaller(void)
{
    begin();
    Value *x = input("x", 64);
    Value *a = op1("Softmax", x, tensor("a", 64));
    Value *big = op1("Softmax", x, tensor("big", 1024));
    output(op1("Softmax", big, tensor("u", 64)));
    Value *t = op1("Softmax", x, tensor("t", 64));
    Value *c = op2("Concat", a, t, tensor("c", 128));
    output(op1("Softmax", c, tensor("y", 128)));
    ArenaPlan p = plan();
    expect("concat slices only when smaller: in slices", p.in_slice, 0);
    expect("concat slices only when smaller: lower bound", p.lower_bound_bytes, 4352);
    expect("concat slices only when smaller: node-order bound", bound, 4352);
    check(!value_in_slice(a, c, 0), "concat slices only when smaller: a is copied");
    check_disjoint("concat slices only when smaller", &p);
}

int main(void)
{
    Compiler c = {.limits = default_limits()};
    compiler_begin(&c);
    test_lifetimes();
    test_in_place_unary();
    test_in_place_needs_last_read();
    test_no_in_place_when_read_twice();
    test_in_place_broadcast();
    test_view();
    test_scratch();
    test_scratch_budget();
    test_scratch_budget_out_of_reach();
    test_improvement_rounds();
    test_node_order_bound();
    test_concat_slices();
    test_concat_slices_refused();
    test_concat_slices_when_smaller();
    test_empty();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
