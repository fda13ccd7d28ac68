/* ops.h — the per-op functions the op table in ops.c is built from, grouped by family
 * (one ops_<family>.c file each), and the helpers they share. */
#ifndef OPS_H
#define OPS_H

#include "onnx2c.h"

#include <math.h>

/* ---- helpers (ops.c) ---- */
int normalize_axis(const Node *n, int64_t axis, int rank); /* negative axes count from the end */
void require_dtype(const Node *n, const Value *v, DType t);
void require_float(const Node *n, const Value *v);
void require_constant(const Node *n, const Value *v, const char *what);
int64_t *const_ints(const Node *n, const Value *v, int *count); /* int64/int32 constant -> int64 */
void broadcast_shape(const Node *n, const Value *a, const Value *b, int *rank, int64_t *dims);
void broadcast_strides(const Value *in, int rank, const int64_t *out_dims, int64_t *strides);
double numel_flops(const Node *n); /* one op per output element */
void same_shape_infer(Node *n);   /* output 0 = input 0's type and shape */

/* ---- ops_elementwise.c ---- */
void unary_infer(Node *n);
void unary_fold(Node *n);
void unary_emit(Emitter *e, Node *n);
void binary_infer(Node *n);
void binary_fold(Node *n);
void binary_emit(Emitter *e, Node *n);

/* ---- ops_gemm.c ---- */
/* Emits Y[M][N] = A x B (A element (i,k) at a[i*a_rs + k*a_cs], B (k,j) at b[k*b_rs + j*b_cs]). */
void emit_product(Emitter *e, int64_t M, int64_t N, int64_t K, const char *a, int64_t a_rs,
                  int64_t a_cs, const char *b, int64_t b_rs, int64_t b_cs, const char *y);
void gemm_infer(Node *n);
void gemm_fold(Node *n);
void gemm_emit(Emitter *e, Node *n);
double gemm_flops(const Node *n);
void matmul_infer(Node *n);
void matmul_fold(Node *n);
void matmul_emit(Emitter *e, Node *n);
double matmul_flops(const Node *n);

/* ---- ops_conv.c ---- */
void conv_infer(Node *n);
void conv_emit(Emitter *e, Node *n);
double conv_flops(const Node *n);
int64_t conv_scratch(const Node *n);
void pool_infer(Node *n);
void pool_emit(Emitter *e, Node *n);
void global_pool_infer(Node *n);
void global_pool_emit(Emitter *e, Node *n);
void batchnorm_infer(Node *n);
void batchnorm_fold(Node *n);
void batchnorm_emit(Emitter *e, Node *n);
void softmax_infer(Node *n);
void softmax_fold(Node *n);
void softmax_emit(Emitter *e, Node *n);

/* ---- ops_shape.c ---- */
void constant_infer(Node *n);
void constant_fold(Node *n);
void identity_infer(Node *n);
void identity_fold(Node *n);
void shape_infer(Node *n);
void shape_fold(Node *n);
void reshape_infer(Node *n);
void flatten_infer(Node *n);
void squeeze_infer(Node *n);
void unsqueeze_infer(Node *n);
void view_fold(Node *n); /* views copy their input's data */
void transpose_infer(Node *n);
void transpose_fold(Node *n);
void transpose_emit(Emitter *e, Node *n);
void concat_infer(Node *n);
void concat_fold(Node *n);
void concat_emit(Emitter *e, Node *n);
void gather_infer(Node *n);
void gather_fold(Node *n);
void gather_emit(Emitter *e, Node *n);

/* ---- ops_tensor.c (and the loop spaces of the broadcasting kernels of math.c, tensor.c) ---- */
typedef struct LoopSpace {
    int rank;                     /* 1..MAX_RANK */
    int64_t dims[MAX_RANK];       /* loop shape; the output is contiguous over it */
    int64_t strides[3][MAX_RANK]; /* element strides of each operand, 0 where broadcast */
} LoopSpace;
LoopSpace broadcast_loop(const Value *y, int nops, Value *const *operands);
void emit_broadcast_binary(Emitter *e, Node *n, const char *kernel); /* kernel(loop, a, b, y) */
void compare_infer(Node *n);
void compare_fold(Node *n);
void compare_emit(Emitter *e, Node *n);
void logic_infer(Node *n);
void logic_fold(Node *n);
void logic_emit(Emitter *e, Node *n);
void where_infer(Node *n);
void where_fold(Node *n);
void where_emit(Emitter *e, Node *n);
void cast_infer(Node *n);
void cast_fold(Node *n);
void cast_emit(Emitter *e, Node *n);
void expand_infer(Node *n);
void expand_fold(Node *n);
void expand_emit(Emitter *e, Node *n);
void tile_infer(Node *n);
void tile_fold(Node *n);
void tile_emit(Emitter *e, Node *n);
void slice_infer(Node *n);
void slice_fold(Node *n);
void slice_emit(Emitter *e, Node *n);
void split_infer(Node *n);
void split_fold(Node *n);
void split_emit(Emitter *e, Node *n);
void size_infer(Node *n);
void size_fold(Node *n);
void constant_of_shape_infer(Node *n);
void constant_of_shape_fold(Node *n);
void range_infer(Node *n);
void range_fold(Node *n);

/* ---- ops_math.c ---- */
void math_unary_infer(Node *n);
void math_unary_fold(Node *n);
void math_unary_emit(Emitter *e, Node *n);
void pow_infer(Node *n);
void pow_fold(Node *n);
void pow_emit(Emitter *e, Node *n);
void variadic_infer(Node *n); /* Max, Min, Sum, Mean */
void variadic_fold(Node *n);
void variadic_emit(Emitter *e, Node *n);

/* ---- ops_reduce.c ---- */
void reduce_infer(Node *n);
void reduce_fold(Node *n);
void reduce_emit(Emitter *e, Node *n);
double reduce_flops(const Node *n); /* one op per input element */
void layernorm_infer(Node *n);
void layernorm_fold(Node *n);
void layernorm_emit(Emitter *e, Node *n);

/* ---- nn family ---- */
/* ---- data family ---- */
/* ---- types family ---- */
/* ---- sequence family ---- */

#endif
