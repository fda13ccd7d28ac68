/* contrib.h — building the standard-op expansions that infer_shapes splices in place of a
 * node it resolves at compile time (sequence.c: sequences; contrib.c: com.microsoft
 * ops). The new nodes are appended to the graph; expand_*_op moves them after the node. */
#ifndef OPS_CONTRIB_H
#define OPS_CONTRIB_H

#include "ops.h"

typedef struct Expansion {
    Graph *g;
    const Node *origin; /* the node being replaced: names, scope, error messages */
    int opset;          /* of the new default-domain nodes */
} Expansion;

/* A node `op` reading `ins`, writing `outs` (new values where outs or outs[i] is NULL). */
Node *expansion_node(const Expansion *x, const char *op, int nin, Value *const *ins, int nout,
                     Value *const *outs);
Value *expansion_ints(const Expansion *x, int count, const int64_t *v); /* int64 1-D constant */
Value *expansion_float(const Expansion *x, float v);                    /* float32 scalar */

/* contrib.c: one-output nodes (written into `out` when given), shared by the expansions */
Value *expansion_node1(const Expansion *e, const char *op, int nin, Value *const *ins, Value *out);
Value *expansion_binary(const Expansion *e, const char *op, Value *a, Value *b, Value *out);
Value *transpose_last2(const Expansion *e, Value *x, int rank);
/* LayerNormalization (simplified: RMSNormalization) of x over the last axis, into n's output 0 */
void expansion_normalize(const Expansion *e, Node *n, bool simplified, Value *x, Value *scale,
                         Value *bias, float epsilon);

/* contrib_attention.c: onnxruntime's transformer ops, on the ONNX Attention op */
void ort_attention(const Expansion *e, Node *n);
void multi_head_attention(const Expansion *e, Node *n);
void group_query_attention(const Expansion *e, Node *n);
void embed_layernorm(const Expansion *e, Node *n);
void bias_softmax(const Expansion *e, Node *n);

#endif
