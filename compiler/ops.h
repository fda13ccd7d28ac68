/* ops.h — the per-op functions the op table in ops.c is built from, grouped by family
 * (one compiler/ops/<family>.c file each), and the helpers they share. */
#ifndef OPS_H
#define OPS_H

#include "onnx2c.h"

#include <math.h>

/* ---- helpers (ops.c) ---- */
int normalize_axis(const Node *n, int64_t axis, int rank); /* negative axes count from the end */
void require_dtype(const Node *n, const Value *v, DType t);
void require_float(const Node *n, const Value *v);
void require_sized(const Node *n, const Value *v); /* a type with a byte size */
void require_constant(const Node *n, const Value *v, const char *what);
int64_t *const_ints(const Node *n, const Value *v, int *count); /* int64/int32 constant -> int64 */
/* Index kernels take int64; constant int32 indices are widened at compile time. */
int64_t *indices_i64(const Value *idx);
const char *indices_cname(Emitter *e, Value *idx); /* int32: a widened constant */
void broadcast_shape(const Node *n, const Value *a, const Value *b, int *rank, int64_t *dims);
void broadcast_strides(const Value *in, int rank, const int64_t *out_dims, int64_t *strides);
double numel_flops(const Node *n); /* one op per output element */
/* Type codes of templates/data.c's computing kernels (its O2C_DATA_*): TY_BYTES moves bytes
 * without arithmetic, for any element size. */
enum { TY_BYTES = 0, TY_F32 = 1, TY_I64 = 2, TY_F64 = 3, TY_I32 = 4 };
void same_shape_infer(Node *n); /* output 0 = input 0's type and shape */

/* ---- ops/elementwise.c ---- */
void unary_infer(Node *n); /* every unary op of the kernel table in elementwise.c */
void unary_fold(Node *n);
void unary_emit(Emitter *e, Node *n);
void binary_infer(Node *n);
void binary_fold(Node *n);
void binary_emit(Emitter *e, Node *n);

/* ---- ops/gemm.c ---- */
/* A static const int64_t table of n offsets in the emitted function; returns its name. */
const char *offsets_array(Emitter *e, const int64_t *off, int64_t n);
/* numpy matmul of a [.., M, K] and b [.., K, N]: batch broadcasting, 1-D operands. */
typedef struct MatMulShape {
    int64_t M, N, K;
    int64_t batch;          /* number of products */
    int64_t *a_off, *b_off; /* element offsets of each product's A and B */
} MatMulShape;
MatMulShape matmul_geometry(const Node *n, const Value *a, const Value *b, int *out_rank,
                            int64_t *out_dims); /* out_dims holds MAX_RANK + 2 */
/* Emits Y[M][N] = A x B (A element (i,k) at a[i*a_rs + k*a_cs], B (k,j) at b[k*b_rs + j*b_cs]). */
void emit_product(Emitter *e, int64_t M, int64_t N, int64_t K, const char *a, int64_t a_rs,
                  int64_t a_cs, const char *b, int64_t b_rs, int64_t b_cs, const char *y);
/* The libxsmm product function of a contiguous Y[M][N] = A x B, called (b, a, y), or NULL
 * where gemm_f32 runs it. */
const char *product_kernel(Emitter *e, int64_t M, int64_t N, int64_t K);
/* A batch-1 product of non-constant operands that runs faster on the portable GEMV
 * (gemm_row_f32) than on libxsmm. */
bool portable_gemv(int64_t M, int64_t N, int64_t K);
/* A batch-1 product against a constant B, which emit_gemv_const takes, whatever its size. */
bool gemv_const(int64_t M, int64_t N, int64_t K);
bool emit_gemv_const(Emitter *e, int64_t M, int64_t N, int64_t K, const char *a, int64_t a_cs,
                     const float *B, int64_t b_rs, int64_t b_cs, const char *y, const char *step);
void gemm_infer(Node *n);
void gemm_fold(Node *n);
void gemm_emit(Emitter *e, Node *n);
double gemm_flops(const Node *n);
void matmul_infer(Node *n);
void matmul_fold(Node *n);
void matmul_emit(Emitter *e, Node *n);
double matmul_flops(const Node *n);

/* ---- ops/conv.c ---- */
void conv_infer(Node *n);
void conv_emit(Emitter *e, Node *n);
double conv_flops(const Node *n);
int64_t conv_scratch(const Node *n);
/* The C array of n's leading epilogues that a conv kernel applies in its store (templates/conv.c
 * struct ConvEpilogue) or "NULL"; *count gets their number, the rest run as passes. */
const char *conv_tile_epilogues(Emitter *e, Node *n, int *count);
int conv_tile_epilogue_count(const Node *n); /* ... how many, without emitting them */
void pool_infer(Node *n);
void pool_emit(Emitter *e, Node *n);
void global_pool_infer(Node *n);
int window_explicit_pads(const Node *n, int64_t *pads); /* Conv, pools: auto_pad as pads */
void global_pool_emit(Emitter *e, Node *n);

/* ---- ops/conv_nhwc.c: the channels-last convs and pools of layout_nhwc.c ---- */
bool nhwc_conv_supported(const Node *conv); /* a Conv that has a channels-last kernel */
bool nhwc_conv_pays(const Node *conv);      /* ... that runs faster than in NCHW */
/* ... whose kernel may read x in NCHW (attribute x_nchw) */
bool nhwc_conv_reads_nchw(const Node *conv);
/* ... 1x1 conv `expand` whose output depthwise conv `dw` reads may run inside dw's step */
bool nhwc_conv_fuses_expand(const Node *expand, const Node *dw);
bool nhwc_pool_supported(const Node *pool); /* MaxPool / AveragePool */
bool nhwc_pool_fuses_conv(const Node *conv, const Node *pool);
int64_t nhwc_pool_scratch(const Node *n);
double nhwc_pool_flops(const Node *n);
void nhwc_conv_infer(Node *n);
void nhwc_conv_emit(Emitter *e, Node *n);
double nhwc_conv_flops(const Node *n);
int64_t nhwc_conv_scratch(const Node *n);
void nhwc_pool_infer(Node *n);
void nhwc_pool_emit(Emitter *e, Node *n);
void nhwc_global_pool_infer(Node *n);
void nhwc_global_pool_emit(Emitter *e, Node *n);

/* ---- ops/shape.c ---- */
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

/* ---- ops/tensor.c (and the loop spaces of the broadcasting kernels of math.c, tensor.c) ---- */
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

/* ---- ops/math.c ---- */
void pow_infer(Node *n);
void pow_fold(Node *n);
void pow_emit(Emitter *e, Node *n);
void variadic_infer(Node *n); /* Max, Min, Sum, Mean */
void variadic_fold(Node *n);
void variadic_emit(Emitter *e, Node *n);

/* ---- ops/reduce.c ---- */
void reduce_infer(Node *n);
void reduce_fold(Node *n);
void reduce_emit(Emitter *e, Node *n);
double reduce_flops(const Node *n); /* one op per input element */
void layernorm_infer(Node *n);
void layernorm_fold(Node *n);
void layernorm_emit(Emitter *e, Node *n);

/* ---- nn family ---- */
/* ops/conv.c */
void convtranspose_infer(Node *n);
void convtranspose_emit(Emitter *e, Node *n);
double convtranspose_flops(const Node *n);
void maxunpool_infer(Node *n);
void maxunpool_emit(Emitter *e, Node *n);
/* ops/normalize.c */
void batchnorm_infer(Node *n);
void batchnorm_fold(Node *n);
void batchnorm_emit(Emitter *e, Node *n);
void softmax_infer(Node *n); /* Softmax, LogSoftmax */
void softmax_fold(Node *n);
void softmax_emit(Emitter *e, Node *n);
void groupnorm_infer(Node *n); /* GroupNormalization, InstanceNormalization */
void groupnorm_fold(Node *n);
void groupnorm_emit(Emitter *e, Node *n);
void lrn_infer(Node *n);
void lrn_fold(Node *n);
void lrn_emit(Emitter *e, Node *n);
void mvn_infer(Node *n);
void mvn_fold(Node *n);
void mvn_emit(Emitter *e, Node *n);
void lpnorm_infer(Node *n);
void lpnorm_fold(Node *n);
void lpnorm_emit(Emitter *e, Node *n);
/* ---- data family ---- */
/* ops/gather_scatter.c */
void gather_elements_infer(Node *n);
void gather_elements_fold(Node *n);
void gather_elements_emit(Emitter *e, Node *n);
void scatter_elements_infer(Node *n);
void scatter_elements_fold(Node *n);
void scatter_elements_emit(Emitter *e, Node *n);
void gather_nd_infer(Node *n);
void gather_nd_fold(Node *n);
void gather_nd_emit(Emitter *e, Node *n);
void scatter_nd_infer(Node *n);
void scatter_nd_fold(Node *n);
void scatter_nd_emit(Emitter *e, Node *n);
/* ops/layout.c: index and layout ops */
void pad_infer(Node *n);
void pad_fold(Node *n);
void pad_emit(Emitter *e, Node *n);
/* ops/resize.c */
void resize_infer(Node *n);
void resize_fold(Node *n);
void resize_emit(Emitter *e, Node *n);
int64_t resize_scratch(const Node *n);
/* ops/layout.c */
void d2s_infer(Node *n); /* DepthToSpace, SpaceToDepth */
void d2s_fold(Node *n);
void d2s_emit(Emitter *e, Node *n);
void onehot_infer(Node *n);
void onehot_fold(Node *n);
void onehot_emit(Emitter *e, Node *n);
void trilu_infer(Node *n);
void trilu_fold(Node *n);
void trilu_emit(Emitter *e, Node *n);
void eyelike_infer(Node *n);
void eyelike_fold(Node *n);
void compress_infer(Node *n);
void compress_fold(Node *n);
void compress_emit(Emitter *e, Node *n);
void nonzero_infer(Node *n);
void nonzero_fold(Node *n);
void cumsum_infer(Node *n);
void cumsum_fold(Node *n);
void cumsum_emit(Emitter *e, Node *n);
void arg_infer(Node *n); /* ArgMax, ArgMin */
void arg_fold(Node *n);
void arg_emit(Emitter *e, Node *n);
void topk_infer(Node *n);
void topk_fold(Node *n);
void topk_emit(Emitter *e, Node *n);
void hardmax_infer(Node *n);
void hardmax_fold(Node *n);
void hardmax_emit(Emitter *e, Node *n);
/* ops/activation.c */
void prelu_infer(Node *n);
void prelu_fold(Node *n);
void prelu_emit(Emitter *e, Node *n);
/* ops/einsum.c */
void einsum_infer(Node *n);
void einsum_fold(Node *n);
void einsum_emit(Emitter *e, Node *n);
double einsum_flops(const Node *n);
/* ---- types family ---- */
/* ops/bitwise.c */
void types_binary_infer(Node *n); /* Mod, BitShift, BitwiseAnd/Or/Xor */
void types_binary_fold(Node *n);
void types_binary_emit(Emitter *e, Node *n);
void bitnot_infer(Node *n);
void bitnot_fold(Node *n);
void bitnot_emit(Emitter *e, Node *n);
void classify_infer(Node *n); /* IsNaN, IsInf */
void classify_fold(Node *n);
void classify_emit(Emitter *e, Node *n);
/* promote_half.c: an op supporting float32 supports float16/bfloat16 by the OP_HALF flag in
 * its table row: infer_shapes then infers and folds it through half_infer / half_fold (on
 * float32 copies of the operands), and promote_half() makes the node compute in float32
 * between Casts. An op whose checks need the 16-bit types themselves (Attention,
 * RMSNormalization, LinearAttention) makes them first, then calls half_infer / half_fold
 * itself: `if (half_infer(n, this_infer)) return;`. */
bool is_half_type(DType t);
bool half_infer(Node *n, void (*infer)(Node *n));
bool half_fold(Node *n, void (*fold)(Node *n));
/* ---- signal family ---- */
/* ops/signal.c */
void dft_infer(Node *n);
void dft_fold(Node *n);
void dft_emit(Emitter *e, Node *n);
double dft_flops(const Node *n);
void stft_infer(Node *n);
void stft_fold(Node *n);
void stft_emit(Emitter *e, Node *n);
double stft_flops(const Node *n);
void window_infer(Node *n); /* HannWindow, HammingWindow, BlackmanWindow: fold only */
void window_fold(Node *n);
void melweight_infer(Node *n); /* fold only */
void melweight_fold(Node *n);
/* ops/image.c */
void gridsample_infer(Node *n);
void gridsample_fold(Node *n);
void gridsample_emit(Emitter *e, Node *n);
void nms_infer(Node *n); /* NonMaxSuppression: fold only */
void nms_fold(Node *n);
void col2im_infer(Node *n);
void col2im_fold(Node *n);
void col2im_emit(Emitter *e, Node *n);
void center_crop_pad_infer(Node *n);
void center_crop_pad_fold(Node *n);
void center_crop_pad_emit(Emitter *e, Node *n);
void roialign_infer(Node *n);
void roialign_fold(Node *n);
void roialign_emit(Emitter *e, Node *n);
void affine_grid_infer(Node *n);
void affine_grid_fold(Node *n);
void affine_grid_emit(Emitter *e, Node *n);
void deform_conv_infer(Node *n);
void deform_conv_fold(Node *n);
void deform_conv_emit(Emitter *e, Node *n);
double deform_conv_flops(const Node *n);
/* ---- sequence family ---- */
/* ops/recurrent.c */
void recurrent_infer(Node *n); /* RNN, GRU, LSTM */
void recurrent_fold(Node *n);
void recurrent_emit(Emitter *e, Node *n);
double recurrent_flops(const Node *n);
int64_t recurrent_scratch(const Node *n);
/* ops/quant.c */
void quantize_infer(Node *n);
void quantize_fold(Node *n);
void quantize_emit(Emitter *e, Node *n);
void dequantize_infer(Node *n);
void dequantize_fold(Node *n);
void dequantize_emit(Emitter *e, Node *n);
void dynamic_quantize_infer(Node *n);
void dynamic_quantize_fold(Node *n);
void dynamic_quantize_emit(Emitter *e, Node *n);
void qmatmul_infer(Node *n); /* MatMulInteger, QLinearMatMul */
void qmatmul_fold(Node *n);
void qmatmul_emit(Emitter *e, Node *n);
double qmatmul_flops(const Node *n);
void qconv_infer(Node *n); /* ConvInteger, QLinearConv */
void qconv_fold(Node *n);
void qconv_emit(Emitter *e, Node *n);
double qconv_flops(const Node *n);
int64_t qconv_scratch(const Node *n);     /* the fast form's packed patches */
bool qconv_nhwc_supported(const Node *n); /* layout_nhwc.c may run it channels-last */

/* ---- loss family ---- */
/* ops/loss.c */
void loss_infer(Node *n); /* NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss */
void loss_fold(Node *n);
void loss_emit(Emitter *e, Node *n);
int64_t loss_scratch(const Node *n);
/* ops/random.c */
bool dropout_training(Node *n); /* Dropout's infer: true when it rebound n to Dropout(train) */
void dropout_train_infer(Node *n);
void dropout_train_fold(Node *n);
void dropout_train_emit(Emitter *e, Node *n);
void bernoulli_infer(Node *n); /* refuses */
/* ops/math.c */
void det_infer(Node *n);
void det_fold(Node *n);
void det_emit(Emitter *e, Node *n);
int64_t det_scratch(const Node *n);

/* ---- llm family ---- */
/* ops/llm.c */
void rmsnorm_infer(Node *n);
void rmsnorm_fold(Node *n);
void rmsnorm_emit(Emitter *e, Node *n);
void rope_infer(Node *n); /* RotaryEmbedding */
void rope_fold(Node *n);
void rope_emit(Emitter *e, Node *n);
void swiglu_infer(Node *n);
void swiglu_fold(Node *n);
void swiglu_emit(Emitter *e, Node *n);
void causal_conv_infer(Node *n); /* CausalConvWithState */
void causal_conv_fold(Node *n);
void causal_conv_emit(Emitter *e, Node *n);
double causal_conv_flops(const Node *n);
void linattn_infer(Node *n); /* LinearAttention */
void linattn_fold(Node *n);
void linattn_emit(Emitter *e, Node *n);
double linattn_flops(const Node *n);
int64_t linattn_scratch(const Node *n);

/* ---- lowtypes family: ops/lowtypes.c (float8, float4, int4/int2 element types) ---- */
bool is_low_type(DType t); /* float8*, float4e2m1, [u]int4, [u]int2 */
void lowcast_infer(Node *n);
void lowcast_fold(Node *n);
void lowcast_emit(Emitter *e, Node *n);

/* ---- attention family ---- */
/* ops/attention.c */
void attention_infer(Node *n);
void attention_fold(Node *n);
void attention_emit(Emitter *e, Node *n);
double attention_flops(const Node *n);
int64_t attention_scratch(const Node *n);

/* ---- control family ---- */
/* ops/misc.c (Loop and Scan: unroll_loops.c) */
void bitcast_infer(Node *n);
void bitcast_fold(Node *n);
void bitcast_emit(Emitter *e, Node *n);
void revseq_infer(Node *n); /* ReverseSequence */
void revseq_fold(Node *n);
void revseq_emit(Emitter *e, Node *n);
void tensor_scatter_infer(Node *n);
void tensor_scatter_fold(Node *n);
void tensor_scatter_emit(Emitter *e, Node *n);
void unique_infer(Node *n); /* fold-only: computes the outputs from a constant input */
void unique_fold(Node *n);
void tfidf_infer(Node *n); /* TfIdfVectorizer */
void tfidf_fold(Node *n);
void tfidf_emit(Emitter *e, Node *n);
void tree_ensemble_infer(Node *n); /* ai.onnx.ml */
void tree_ensemble_fold(Node *n);
void tree_ensemble_emit(Emitter *e, Node *n);
void afe_infer(Node *n); /* ai.onnx.ml ArrayFeatureExtractor */
void afe_fold(Node *n);
void afe_emit(Emitter *e, Node *n);
void binarizer_infer(Node *n); /* ai.onnx.ml */
void binarizer_fold(Node *n);
void binarizer_emit(Emitter *e, Node *n);

#endif
