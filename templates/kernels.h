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

/* math.c — unary float32 x[n] -> y[n] (y may be x); broadcast binary ops over the loop
 * space the compiler coalesced (rank 1..8, dims, element strides of a and b per dim, 0 where
 * broadcast; y contiguous). */
void abs_f32(int64_t n, const float *x, float *y);
void neg_f32(int64_t n, const float *x, float *y);
void exp_f32(int64_t n, const float *x, float *y);
void log_f32(int64_t n, const float *x, float *y);
void sqrt_f32(int64_t n, const float *x, float *y);
void reciprocal_f32(int64_t n, const float *x, float *y);
void erf_f32(int64_t n, const float *x, float *y);
void floor_f32(int64_t n, const float *x, float *y);
void ceil_f32(int64_t n, const float *x, float *y);
void sign_f32(int64_t n, const float *x, float *y);
void sin_f32(int64_t n, const float *x, float *y);
void cos_f32(int64_t n, const float *x, float *y);
void softsign_f32(int64_t n, const float *x, float *y);
void softplus_f32(int64_t n, const float *x, float *y);
void hard_sigmoid_f32(int64_t n, float alpha, float beta, const float *x, float *y);
void hard_swish_f32(int64_t n, const float *x, float *y);
void elu_f32(int64_t n, float alpha, const float *x, float *y);
void selu_f32(int64_t n, float alpha, float gamma, const float *x, float *y);
void gelu_f32(int64_t n, const float *x, float *y);
void gelu_tanh_f32(int64_t n, const float *x, float *y);
void exp_f64(int64_t n, const double *x, double *y);
void log_f64(int64_t n, const double *x, double *y);
void abs_i64(int64_t n, const int64_t *x, int64_t *y);
void neg_i64(int64_t n, const int64_t *x, int64_t *y);
void pow_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const float *a,
             const float *b, float *y);
void pow_f32_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const float *a,
                 const int64_t *b, float *y);
void pow_f32_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const float *a,
                 const int32_t *b, float *y);
void max_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const float *a,
             const float *b, float *y);
void min_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const float *a,
             const float *b, float *y);
void max_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const double *a,
             const double *b, double *y);
void min_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const double *a,
             const double *b, double *y);
void max_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const int64_t *a,
             const int64_t *b, int64_t *y);
void min_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const int64_t *a,
             const int64_t *b, int64_t *y);

/* reduce.c — y[kept dims] = reduction of x over the reduced dims, in ascending index order;
 * dims and element strides of x for the kept (out_) and reduced (red_) dims, each rank 0..8. */
void reduce_sum_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                    int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                    const float *x, float *y);
void reduce_sum_f64(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                    int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                    const double *x, double *y);
void reduce_sum_i64(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                    int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                    const int64_t *x, int64_t *y);
void reduce_prod_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                     int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                     const float *x, float *y);
void reduce_prod_i64(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                     int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                     const int64_t *x, int64_t *y);
void reduce_mean_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                     int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                     const float *x, float *y);
void reduce_sum_square_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                           int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                           const float *x, float *y);
void reduce_l1_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                   int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                   const float *x, float *y);
void reduce_l2_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                   int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                   const float *x, float *y);
void reduce_max_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                    int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                    const float *x, float *y);
void reduce_min_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                    int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                    const float *x, float *y);
void reduce_max_i64(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                    int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                    const int64_t *x, int64_t *y);
void reduce_min_i64(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                    int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                    const int64_t *x, int64_t *y);
void reduce_max_u8(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                   int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                   const uint8_t *x, uint8_t *y);
void reduce_min_u8(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                   int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                   const uint8_t *x, uint8_t *y);
void reduce_min_bool(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                     int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                     const uint8_t *x, uint8_t *y);
void reduce_log_sum_exp_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                            int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                            const float *x, float *y);
void reduce_log_sum_exp_f64(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                            int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                            const double *x, double *y);
/* x, y [rows][n]; scale/bias [n] (stride 1) or one value (stride 0), bias may be NULL;
 * mean, inv_std [rows] or NULL */
void layernorm_f32(int64_t rows, int64_t n, const float *x, const float *scale,
                   int64_t scale_stride, const float *bias, int64_t bias_stride, float eps,
                   float *y, float *mean, float *inv_std);

/* tensor.c — comparisons (bool y = a OP b, per element type), bool logic, Where, strided
 * copies, Cast, and fills. Broadcast arguments as in math.c. */
void equal_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, uint8_t *y);
void equal_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, uint8_t *y);
void equal_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, uint8_t *y);
void equal_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, uint8_t *y);
void equal_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, uint8_t *y);
void equal_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, uint8_t *y);
void equal_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, uint8_t *y);
void equal_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, uint8_t *y);
void equal_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, uint8_t *y);
void equal_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, uint8_t *y);
void less_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, uint8_t *y);
void less_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, uint8_t *y);
void less_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, uint8_t *y);
void less_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, uint8_t *y);
void less_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, uint8_t *y);
void less_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, uint8_t *y);
void less_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, uint8_t *y);
void less_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, uint8_t *y);
void less_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, uint8_t *y);
void less_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, uint8_t *y);
void greater_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                 const void *b, uint8_t *y);
void greater_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                 const void *b, uint8_t *y);
void greater_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, uint8_t *y);
void greater_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, uint8_t *y);
void greater_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                 const void *b, uint8_t *y);
void greater_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                 const void *b, uint8_t *y);
void greater_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                 const void *b, uint8_t *y);
void greater_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                 const void *b, uint8_t *y);
void greater_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                 const void *b, uint8_t *y);
void greater_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                 const void *b, uint8_t *y);
void less_equal_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                    const void *b, uint8_t *y);
void less_equal_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                    const void *b, uint8_t *y);
void less_equal_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                   const void *b, uint8_t *y);
void less_equal_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                   const void *b, uint8_t *y);
void less_equal_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                    const void *b, uint8_t *y);
void less_equal_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                    const void *b, uint8_t *y);
void less_equal_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                    const void *b, uint8_t *y);
void less_equal_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                    const void *b, uint8_t *y);
void less_equal_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                    const void *b, uint8_t *y);
void less_equal_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                    const void *b, uint8_t *y);
void greater_equal_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                       const void *b, uint8_t *y);
void greater_equal_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                       const void *b, uint8_t *y);
void greater_equal_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                      const void *b, uint8_t *y);
void greater_equal_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                      const void *b, uint8_t *y);
void greater_equal_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                       const void *b, uint8_t *y);
void greater_equal_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                       const void *b, uint8_t *y);
void greater_equal_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                       const void *b, uint8_t *y);
void greater_equal_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                       const void *b, uint8_t *y);
void greater_equal_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                       const void *b, uint8_t *y);
void greater_equal_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                       const void *b, uint8_t *y);
void not_bool(int64_t n, const uint8_t *x, uint8_t *y);
void and_bool(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint8_t *a,
              const uint8_t *b, uint8_t *y);
void or_bool(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint8_t *a,
             const uint8_t *b, uint8_t *y);
void xor_bool(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint8_t *a,
              const uint8_t *b, uint8_t *y);
void where_bytes(int rank, const int64_t *dims, const int64_t *sc, const int64_t *sx,
                 const int64_t *sy, int64_t elem_size, const uint8_t *cond, const void *x,
                 const void *y, void *out);
/* y[i0..] = x[offset + sum i_d*strides[d]] (element units), rank 1..16, y contiguous */
void strided_gather_bytes(int rank, const int64_t *dims, const int64_t *strides, int64_t offset,
                          int64_t elem_size, const void *x, void *y);
/* src, dst: ONNX TensorProto.DataType numbers (float, double, [u]int8..64, bool) */
void cast_tensor(int64_t n, int src, const void *x, int dst, void *y);
void range_f64(int64_t n, double start, double delta, double *y);
void range_i64(int64_t n, int64_t start, int64_t delta, int64_t *y);
void fill_bytes(int64_t n, int64_t elem_size, const void *value, void *y);

/* ---- nn family ---- */
/* ---- data family ---- */
/* ---- types family ---- */
/* ---- sequence family ---- */

#endif
