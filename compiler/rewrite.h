/* rewrite.h — the rewrite driver and the helpers shared by the rewrite passes (simplify.c,
 * fuse_gemm.c, fuse_epilogue.c). */
#ifndef REWRITE_H
#define REWRITE_H

#include "ops.h"

bool is_op(const Node *n, const char *op);           /* live node of that op */
Node *sole_producer(const Value *v, const char *op); /* v's producer, if v has no other use */
bool scalar_constant(const Value *v, float *out);    /* a float32 constant of one element */
void morph_node(Node *n, const char *op_type, int ninputs, Value *const *inputs);
int append_input(Node *n, Value *v);
Node *new_node_before(Graph *g, const Node *anchor, const char *name, const char *op_type,
                      int ninputs, Value *const *inputs, Value *output);
Value *reshape_before(Graph *g, const Node *anchor, Value *x, int rank, const int64_t *dims);
void steal_output(Node *p, Value *old, Value *taken);
bool same_shape_as(const Value *a, const Value *b); /* same type and dims */

/* One rule of a rewrite pass: where it applies (nodes of op `op`, or with op NULL nodes whose
 * op has one of `flags`) and a callback that rewrites the graph there and returns true when
 * it changed something. Op names appear in rule tables, not in the passes' code. */
typedef struct RewriteRule {
    const char *op;
    unsigned flags;
    bool (*apply)(Graph *g, Node *n);
} RewriteRule;
/* Tries the rules on each live node in graph order, the first that changes the graph wins,
 * and sweeps again until no rule applies. */
void rewrite_graph(Graph *g, const RewriteRule *rules, int nrules);

#endif
