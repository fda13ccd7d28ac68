/* rewrite.h — the rewrite driver (patterns, rule tables) and the helpers shared by the rewrite
 * passes (simplify.c, fuse_qdq.c, fuse_gemm.c, fuse_gelu.c, fuse_epilogue.c). Passes match
 * ops through patterns, which are data; there is no helper that compares an op's name. */
#ifndef REWRITE_H
#define REWRITE_H

#include "ops.h"

bool scalar_constant(const Value *v, float *out); /* a float32 constant of one element */
void morph_node(Node *n, const char *op_type, int ninputs, Value *const *inputs);
int append_input(Node *n, Value *v);
Node *new_node_before(Graph *g, const Node *anchor, const char *name, const char *op_type,
                      int ninputs, Value *const *inputs, Value *output);
Value *reshape_before(Graph *g, const Node *anchor, Value *x, int rank, const int64_t *dims);
void steal_output(Node *p, Value *old, Value *taken);
void castlike_as_cast(Node *n); /* CastLike(x, like) -> Cast(x, to = like's type) */
bool same_shape_as(const Value *a, const Value *b); /* same type and dims */

#define MATCH_VALUES 8
#define MATCH_NODES  16
typedef struct Match {
    Value *v[MATCH_VALUES];   /* bound values, by Pattern.bind */
    Node *nodes[MATCH_NODES]; /* the matched nodes, the root first */
    int nnodes;
    bool (*where)(const struct Match *m); /* the root pattern's */
} Match;

/* A pattern over the graph, matched against a value (tinygrad's UPat, written as static data):
 * - with `op` (or, op NULL, with `flags`: an op having one of them): the value is output 0 of
 *   a live node of that op, read by nothing but the node the enclosing pattern matched (unless
 *   `shared`), whose first `nin` inputs match `in[]` (in either order when `commute`);
 * - with neither: any value, which `test(v, c)` may restrict (a constant near c, ...);
 * - with `alt`: the first alternative that lets the whole pattern match.
 * `bind` k > 0 records the value in Match.v[k]; another pattern with the same k must then meet
 * the same value (the h of 0.5 * h * (1 + Erf(h / sqrt2))). Matching backtracks over every
 * commute and alt choice, so the answer does not depend on the order operands come in. */
typedef struct Pattern {
    const char *op;
    unsigned flags;
    int bind;
    bool shared;
    bool commute;
    int nin;
    const struct Pattern *in[3];
    bool (*test)(const Value *v, double c);
    double c;
    const struct Pattern *alt[3];
    /* at a root only: a condition on the whole match (bindings that must agree); when it
     * fails the matcher backtracks to the next way of matching */
    bool (*where)(const Match *m);
} Pattern;

/* Pattern building blocks (compound literals: static data at file scope). */
#define P_ANY(k)        (&(const Pattern){.bind = (k)})
#define P_TEST(f, x)    (&(const Pattern){.test = (f), .c = (x)})
#define P_OP1(o, a)     (&(const Pattern){.op = (o), .nin = 1, .in = {a}})
#define P_OP2(o, a, b)  (&(const Pattern){.op = (o), .nin = 2, .in = {a, b}})
#define P_COMM(o, a, b) (&(const Pattern){.op = (o), .nin = 2, .in = {a, b}, .commute = true})
#define P_EITHER(a, b)  (&(const Pattern){.alt = {a, b}})
#define P_NODE(k, o)    (&(const Pattern){.op = (o), .bind = (k)}) /* any inputs */
#define P_FLAGS(f)      (&(const Pattern){.flags = (f)})           /* any inputs */

bool scalar_near(const Value *v, double c);  /* a float32 scalar constant within 1e-6 of c */
bool scalar_equal(const Value *v, double c); /* a float32 scalar constant equal to c */
bool node_matches(const Pattern *p, Node *n, Match *m); /* p's op and inputs at node n */
bool pattern_op_is(const Pattern *p, const Node *n);    /* n (live or retired) has p's op */

/* One rule of a rewrite pass: where it applies (the root pattern, matched at each node) and
 * a callback that rewrites the graph there, given what the pattern bound, and returns true
 * when it changed something. Op names appear in patterns, not in the passes' code. */
typedef struct RewriteRule {
    const Pattern *pattern;
    bool (*apply)(Graph *g, Node *n, const Match *m);
} RewriteRule;
/* Tries the rules on each live node in graph order, the first that changes the graph wins,
 * and sweeps again until no rule applies. */
void rewrite_graph(Graph *g, const RewriteRule *rules, int nrules);
#define REWRITE(g, rules) rewrite_graph(g, rules, (int)(sizeof rules / sizeof rules[0]))

#endif
