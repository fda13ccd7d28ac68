/* rewrite.h — helpers shared by the rewrite passes (simplify.c, fuse_gemm.c,
 * fuse_epilogue.c). */
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

#endif
