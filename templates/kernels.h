/* kernels.h — prototypes of every function in the templates (templates/NAME.c), for the
 * compiler, which links the templates (compiled with -DO2C_KERNEL=, i.e. as extern
 * functions) to fold constant subgraphs with exactly the code the generated C runs.
 * Generated code does not include this header: it gets the template text itself, with
 * O2C_KERNEL defined as static.
 *
 * Keep in sync with the templates (tests/unit/test_kernels_all.c checks it). The layout of
 * every argument is documented at each definition.
 */
#ifndef ONNX2C_KERNELS_H
#define ONNX2C_KERNELS_H

#include <stdint.h>

/* gemm.c — Y = A x B accumulated over k ascending with fmaf from 0.0f; then the epilogue. */
void gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs, int64_t a_cs,
              const float *B, int64_t b_rs, int64_t b_cs, float *Y);
void gemm_epilogue_f32(int64_t M, int64_t N, float alpha, const float *C, int64_t c_rs,
                       int64_t c_cs, float beta, float *Y);

/* conv.c — conv = im2col + gemm_f32, reduction index k = (kh*KW + kw)*Cg + ic. */
void im2col_f32(int64_t C, int64_t H, int64_t W, int64_t c0, int64_t Cg, int64_t KH, int64_t KW,
                int64_t OH, int64_t OW, int64_t stride_h, int64_t stride_w, int64_t pad_t,
                int64_t pad_l, int64_t dil_h, int64_t dil_w, const float *x, float *col);
void conv_weight_reorder_f32(int64_t OC, int64_t Cg, int64_t KH, int64_t KW, const float *w,
                             float *w_out);
void add_channel_bias_f32(int64_t N, int64_t C, int64_t HW, const float *bias, float *y);

/* pool.c — x [NC][H][W] -> y [NC][OH][OW]. */
void maxpool_f32(int64_t NC, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                 int64_t stride_h, int64_t stride_w, int64_t pad_t, int64_t pad_l, int64_t pad_b,
                 int64_t pad_r, int64_t dil_h, int64_t dil_w, const float *x, float *y);
void avgpool_f32(int64_t NC, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                 int64_t stride_h, int64_t stride_w, int64_t pad_t, int64_t pad_l, int64_t pad_b,
                 int64_t pad_r, int64_t dil_h, int64_t dil_w, int count_include_pad, const float *x,
                 float *y);
void global_avgpool_f32(int64_t NC, int64_t HW, const float *x, float *y);

/* norm.c — y = scale * (x - mean) / sqrtf(var + eps) + bias, left to right. */
void batchnorm_f32(int64_t N, int64_t C, int64_t HW, const float *x, const float *scale,
                   const float *bias, const float *mean, const float *var, float eps, float *y);

/* softmax.c — x, y [outer][n][inner], normalised along n. */
float softmax_line_max(int64_t n, int64_t inner, const float *x);
void softmax_f32(int64_t outer, int64_t n, int64_t inner, const float *x, float *y);
void logsoftmax_f32(int64_t outer, int64_t n, int64_t inner, const float *x, float *y);

/* elementwise.c — unary x[n] -> y[n]; binary ops broadcast by per-output-dim strides
 * (0 = broadcast), rank <= 8, y contiguous, y may be an operand of the output's shape. */
void relu_f32(int64_t n, const float *x, float *y);
void leaky_relu_f32(int64_t n, float alpha, const float *x, float *y);
void sigmoid_f32(int64_t n, const float *x, float *y);
void tanh_f32(int64_t n, const float *x, float *y);
void clip_f32(int64_t n, float lo, float hi, const float *x, float *y);
int broadcast_coalesce(int rank, const int64_t *out_dims, const int64_t *a_strides,
                       const int64_t *b_strides, int64_t *dims, int64_t *sa, int64_t *sb,
                       int64_t *rows);
void broadcast_next_row(int n_outer, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                        int64_t *idx, int64_t *off_a, int64_t *off_b);
void add_f32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const float *a, const float *b, float *y);
void sub_f32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const float *a, const float *b, float *y);
void mul_f32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const float *a, const float *b, float *y);
void div_f32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const float *a, const float *b, float *y);
void add_i64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int64_t *a, const int64_t *b, int64_t *y);
void sub_i64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int64_t *a, const int64_t *b, int64_t *y);
void mul_i64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int64_t *a, const int64_t *b, int64_t *y);
/* integer division truncates toward zero; x / 0 gives 0 and INT64_MIN / -1 INT64_MIN */
void div_i64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int64_t *a, const int64_t *b, int64_t *y);

/* movement.c — type-generic (elem_size bytes), bits copied unchanged. */
void strided_copy_bytes(int64_t n, int64_t elem_size, const unsigned char *x, int64_t x_step,
                        unsigned char *y);
void transpose_bytes(int rank, const int64_t *in_dims, const int32_t *perm, int64_t elem_size,
                     const void *x, void *y);
void concat_bytes(int64_t outer, int64_t x_block_bytes, int64_t y_block_bytes,
                  int64_t y_offset_bytes, const void *x, void *y);
/* out-of-range indices (after adding axis_len to negative ones) write zeros */
void gather_bytes(int64_t outer, int64_t axis_len, int64_t inner_bytes, const void *data,
                  const int64_t *idx, int64_t n_idx, void *y);
void copy_bytes(int64_t n_bytes, const void *x, void *y);

#endif
