/* kernels.h — prototypes of every function in the templates (templates/NAME.c), for the
 * compiler, which links the templates (compiled with -DO2C_KERNEL=, i.e. as extern
 * functions) to fold constant subgraphs with exactly the code the generated C runs.
 * Generated code does not include this header: it gets the template text itself, with
 * O2C_KERNEL defined as static.
 *
 * Keep in sync with the templates (tests/unit/test_templates_link.c checks it). The layout of
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
/* batch-1 product against a B packed in column panels of nv (GEMM_NV or GEMM_NV_SMALL) by
 * gemm_pack_b_f32 (reverse: the panels last to first) */
void gemm_rowpacked_f32(int64_t N, int64_t K, const float *a, int64_t a_cs, const float *Bp,
                        int64_t nv, float *y, int reverse);
int64_t gemm_rowpacked_width(int small);
void gemm_pack_b_f32(int64_t N, int64_t K, int64_t nv, const float *B, int64_t b_rs, int64_t b_cs,
                     float *Bp);
/* Y = A x B with row i of Y at Y + i*ldy (gemm_f32: ldy = N) */
void gemm_f32_ldy(int64_t M, int64_t N, int64_t K, const float *A, int64_t a_rs, int64_t a_cs,
                  const float *B, int64_t b_rs, int64_t b_cs, float *Y, int64_t ldy);
/* B packed for the libxsmm product in panels of GEMM_XSMM_PANEL columns */
void gemm_pack_xsmm_f32(int64_t N, int64_t K, const float *B, int64_t b_rs, int64_t b_cs,
                        float *Bp);
void gemm_f64(int64_t M, int64_t N, int64_t K, const double *A, int64_t a_rs, int64_t a_cs,
              const double *B, int64_t b_rs, int64_t b_cs, double *Y);
void gemm_epilogue_f64(int64_t M, int64_t N, double alpha, const double *C, int64_t c_rs,
                       int64_t c_cs, double beta, double *Y);

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
void batchnorm_train_f32(int64_t N, int64_t C, int64_t HW, const float *x, const float *scale,
                         const float *bias, const float *mean, const float *var, float eps,
                         float momentum, float *y, float *out_mean, float *out_var);

/* softmax.c — x, y [outer][n][inner], normalised along n. */
float softmax_line_max_f32(int64_t n, int64_t inner, const float *x);
void softmax_f32(int64_t outer, int64_t n, int64_t inner, const float *x, float *y);
void logsoftmax_f32(int64_t outer, int64_t n, int64_t inner, const float *x, float *y);
double softmax_line_max_f64(int64_t n, int64_t inner, const double *x);
void softmax_f64(int64_t outer, int64_t n, int64_t inner, const double *x, double *y);
void logsoftmax_f64(int64_t outer, int64_t n, int64_t inner, const double *x, double *y);

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
void tan_f32(int64_t n, const float *x, float *y);
void asin_f32(int64_t n, const float *x, float *y);
void acos_f32(int64_t n, const float *x, float *y);
void atan_f32(int64_t n, const float *x, float *y);
void sinh_f32(int64_t n, const float *x, float *y);
void cosh_f32(int64_t n, const float *x, float *y);
void asinh_f32(int64_t n, const float *x, float *y);
void acosh_f32(int64_t n, const float *x, float *y);
void atanh_f32(int64_t n, const float *x, float *y);
void softsign_f32(int64_t n, const float *x, float *y);
void round_f32(int64_t n, const float *x, float *y);
void softplus_f32(int64_t n, const float *x, float *y);
void hard_sigmoid_f32(int64_t n, float alpha, float beta, const float *x, float *y);
void hard_swish_f32(int64_t n, const float *x, float *y);
void elu_f32(int64_t n, float alpha, const float *x, float *y);
void swish_f32(int64_t n, float alpha, const float *x, float *y);
void selu_f32(int64_t n, float alpha, float gamma, const float *x, float *y);
void gelu_f32(int64_t n, const float *x, float *y);
void gelu_tanh_f32(int64_t n, const float *x, float *y);
void exp_f64(int64_t n, const double *x, double *y);
void log_f64(int64_t n, const double *x, double *y);
void abs_i64(int64_t n, const int64_t *x, int64_t *y);
void neg_i64(int64_t n, const int64_t *x, int64_t *y);
void pow_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const float *a,
             const float *b, float *y);
void pow_f32_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                 const float *a, const int64_t *b, float *y);
void pow_f32_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                 const float *a, const int32_t *b, float *y);
void pow_f32_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                 const float *a, const uint64_t *b, float *y);
void pow_f32_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                 const float *a, const uint32_t *b, float *y);
int64_t pow_int(int64_t a, int64_t b);
int64_t pow_to_i64(double r);
int32_t pow_to_i32(double r);
void pow_i32_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                 const int32_t *a, const float *b, int32_t *y);
void pow_i64_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                 const int64_t *a, const float *b, int64_t *y);
void pow_i32_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                 const int32_t *a, const int32_t *b, int32_t *y);
void pow_i32_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                 const int32_t *a, const int64_t *b, int32_t *y);
void pow_i64_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                 const int64_t *a, const int32_t *b, int64_t *y);
void pow_i64_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                 const int64_t *a, const int64_t *b, int64_t *y);
void det_f32(int64_t batch, int64_t n, const float *x, float *y, double *a);
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
void reduce_sum_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                    const int64_t *red_dims, const int64_t *red_strides, const float *x, float *y);
void reduce_sum_f64(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                    const int64_t *red_dims, const int64_t *red_strides, const double *x,
                    double *y);
void reduce_sum_i64(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                    const int64_t *red_dims, const int64_t *red_strides, const int64_t *x,
                    int64_t *y);
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
void reduce_l1_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                   const int64_t *red_dims, const int64_t *red_strides, const float *x, float *y);
void reduce_l2_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                   const int64_t *red_dims, const int64_t *red_strides, const float *x, float *y);
void reduce_log_sum_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides,
                        int red_rank, const int64_t *red_dims, const int64_t *red_strides,
                        const float *x, float *y);
void reduce_max_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                    const int64_t *red_dims, const int64_t *red_strides, const float *x, float *y);
void reduce_min_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                    const int64_t *red_dims, const int64_t *red_strides, const float *x, float *y);
void reduce_max_i64(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                    const int64_t *red_dims, const int64_t *red_strides, const int64_t *x,
                    int64_t *y);
void reduce_min_i64(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                    const int64_t *red_dims, const int64_t *red_strides, const int64_t *x,
                    int64_t *y);
void reduce_max_u8(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                   const int64_t *red_dims, const int64_t *red_strides, const uint8_t *x,
                   uint8_t *y);
void reduce_min_u8(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
                   const int64_t *red_dims, const int64_t *red_strides, const uint8_t *x,
                   uint8_t *y);
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
void less_equal_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                    const void *a, const void *b, uint8_t *y);
void less_equal_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                    const void *a, const void *b, uint8_t *y);
void less_equal_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                   const void *a, const void *b, uint8_t *y);
void less_equal_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                   const void *a, const void *b, uint8_t *y);
void less_equal_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                    const void *a, const void *b, uint8_t *y);
void less_equal_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                    const void *a, const void *b, uint8_t *y);
void less_equal_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                    const void *a, const void *b, uint8_t *y);
void less_equal_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                    const void *a, const void *b, uint8_t *y);
void less_equal_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                    const void *a, const void *b, uint8_t *y);
void less_equal_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                    const void *a, const void *b, uint8_t *y);
void greater_equal_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                       const void *a, const void *b, uint8_t *y);
void greater_equal_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                       const void *a, const void *b, uint8_t *y);
void greater_equal_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                      const void *a, const void *b, uint8_t *y);
void greater_equal_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                      const void *a, const void *b, uint8_t *y);
void greater_equal_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                       const void *a, const void *b, uint8_t *y);
void greater_equal_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                       const void *a, const void *b, uint8_t *y);
void greater_equal_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                       const void *a, const void *b, uint8_t *y);
void greater_equal_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                       const void *a, const void *b, uint8_t *y);
void greater_equal_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                       const void *a, const void *b, uint8_t *y);
void greater_equal_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                       const void *a, const void *b, uint8_t *y);
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
/* conv.c — 3-D im2col (k = ((kd*KH + kh)*KW + kw)*Cg + ic), depthwise direct (Cg == 1, the
 * bits of im2col + gemm_f32), direct conv_f32 (the same bits, no copy), ConvTranspose direct.
 * Geometry arrays: [3] = {d, h, w}. struct ConvEpilogue: an op the dense kernels apply in
 * their tile store (defined in conv.c). */
struct ConvEpilogue;
enum { CONV_OB = 8, CONVC_OB = 32 }; /* output channels per packed weight block */
void im2col_3d_f32(int64_t c0, int64_t Cg, const int64_t *in, const int64_t *out, const int64_t *k,
                   const int64_t *stride, const int64_t *pad, const int64_t *dil, const float *x,
                   float *col);
void depthwise_conv_f32(int64_t N, int64_t C, int64_t M, int64_t H, int64_t W, int64_t KH,
                        int64_t KW, int64_t OH, int64_t OW, int64_t stride_h, int64_t stride_w,
                        int64_t pad_t, int64_t pad_l, int64_t dil_h, int64_t dil_w, const float *x,
                        const float *w, const float *bias, float *y, float *work);
int64_t depthwise_work_floats(int64_t C, int64_t M, int64_t KH, int64_t KW, int64_t OH, int64_t OW,
                              int64_t stride_h, int64_t stride_w, int64_t dil_h, int64_t dil_w);
int64_t conv_packed_floats(int64_t G, int64_t OCg, int64_t Cg, int64_t taps, int64_t OB);
void conv_weight_pack_f32(int64_t G, int64_t OCg, int64_t Cg, int64_t taps, int64_t OB,
                          const float *w, float *wp);
int64_t conv_row_len(int64_t OW, int64_t KW, int64_t stride_w, int64_t dil_w);
int64_t conv_work_floats(int64_t Cg, const int64_t *k, const int64_t *out, const int64_t *stride,
                         const int64_t *dil);
void conv_gather_rows_f32(int64_t Cg, const int64_t *in, const int64_t *k, const int64_t *out,
                          const int64_t *stride, const int64_t *pad, const int64_t *dil, int64_t od,
                          int64_t oh, const float *xg, float *rows);
void conv_tile_f32(int64_t Cg, int64_t KR, int64_t KW, int64_t sw, int64_t dil_w, int64_t L,
                   int64_t cs, int64_t ow0, int64_t OW, const float *rows, const float *wb,
                   const float *bias, const struct ConvEpilogue *ep, int nep, int64_t nob,
                   float *yb, int64_t ys, int64_t at);
int64_t conv_pointwise_work_floats(int64_t Cg, int64_t P);
void conv_pointwise_f32(int64_t N, int64_t C, int64_t G, int64_t OCg, int64_t P, const float *x,
                        const float *wp, const float *bias, const struct ConvEpilogue *ep, int nep,
                        float *y, float *work);
void conv_f32(int64_t N, int64_t C, int64_t G, int64_t OCg, const int64_t *in, const int64_t *out,
              const int64_t *k, const int64_t *stride, const int64_t *pad, const int64_t *dil,
              const float *x, const float *wp, const float *bias, const struct ConvEpilogue *ep,
              int nep, float *y, float *work);
void conv_direct_f32(int64_t N, int64_t C, int64_t G, int64_t OCg, const int64_t *in,
                     const int64_t *out, const int64_t *k, const int64_t *stride,
                     const int64_t *pad, const int64_t *dil, const float *x, const float *wp,
                     const float *bias, const struct ConvEpilogue *ep, int nep, float *y);
int64_t conv_band_width(int64_t OW, int64_t KW, int64_t stride_w, int64_t dil_w);
int64_t conv_band_slab(int64_t R, int64_t KH, int64_t stride_h, int64_t dil_h, int64_t Wq);
int64_t conv_band_phases(int64_t K, int64_t s);
int64_t conv_band_work_floats(int64_t Cg, int64_t KH, int64_t KW, int64_t OW, int64_t stride_h,
                              int64_t stride_w, int64_t dil_h, int64_t dil_w, int64_t R);
void conv_band_tile_f32(int64_t Cg, int64_t KH, int64_t KW, int64_t sh, int64_t sw, int64_t dil_h,
                        int64_t dil_w, int64_t Wq, int64_t S, const float *plane, const float *wb,
                        float acc[8][32]);
void conv_band_f32(int64_t N, int64_t C, int64_t G, int64_t OCg, int64_t H, int64_t W, int64_t KH,
                   int64_t KW, int64_t OH, int64_t OW, int64_t stride_h, int64_t stride_w,
                   int64_t pad_t, int64_t pad_l, int64_t dil_h, int64_t dil_w, int64_t R,
                   int64_t OB, const float *x, const float *wp, const float *bias,
                   const struct ConvEpilogue *ep, int nep, float *y, float *work);
void conv_chan_tile7_f32(int64_t Cg, int64_t KH, int64_t KW, int64_t sh, int64_t sw, int64_t dil_h,
                         int64_t dil_w, int64_t Wq, int64_t S, const float *plane, const float *wb,
                         float acc[][32]);
void conv_chan_tile8_f32(int64_t Cg, int64_t KH, int64_t KW, int64_t sh, int64_t sw, int64_t dil_h,
                         int64_t dil_w, int64_t Wq, int64_t S, const float *plane, const float *wb,
                         float acc[][32]);
void conv_chan_tile14_f32(int64_t Cg, int64_t KH, int64_t KW, int64_t sh, int64_t sw, int64_t dil_h,
                          int64_t dil_w, int64_t Wq, int64_t S, const float *plane, const float *wb,
                          float acc[][32]);
int64_t conv_chan_positions(int64_t OW);
void convtranspose_f32(int64_t N, int64_t C, int64_t G, int64_t OCg, const int64_t *in,
                       const int64_t *out, const int64_t *k, const int64_t *stride,
                       const int64_t *pad, const int64_t *dil, const float *x, const float *w,
                       float *y);
void conv_epilogue_f32(const struct ConvEpilogue *ep, int nep, int64_t at, int64_t len, float *yr);
const struct ConvEpilogue *conv_epilogue_clip(const struct ConvEpilogue *ep, int *nep, float *lo,
                                              float *hi);
/* depthwise_nhwc.c — depthwise conv (multiplier 1), channels last: x [N][H][W][C] ->
 * y [N][OH][OW][C], weights [KH][KW][C] (depthwise_nhwc_pack_f32), epilogues in the store;
 * the bits of depthwise_conv_f32. geo[NHWC_GEO_LEN] (also pool_nhwc.c's), for the compiler;
 * the generated file has depthwise_nhwc.c's copy under the same guard: */
#ifndef O2C_NHWC_GEO
#define O2C_NHWC_GEO
enum {
    NHWC_GEO_N,
    NHWC_GEO_H,
    NHWC_GEO_W,
    NHWC_GEO_C,
    NHWC_GEO_OH,
    NHWC_GEO_OW,
    NHWC_GEO_KH,
    NHWC_GEO_KW,
    NHWC_GEO_SH,
    NHWC_GEO_SW,
    NHWC_GEO_PT,
    NHWC_GEO_PL,
    NHWC_GEO_PB,
    NHWC_GEO_PR,
    NHWC_GEO_DH,
    NHWC_GEO_DW,
    NHWC_GEO_LEN
};
#endif
void depthwise_nhwc_pack_f32(int64_t C, int64_t KH, int64_t KW, const float *w, float *wp);
void depthwise_nhwc_f32(const int64_t *geo, const float *x, const float *wp, const float *bias,
                        const struct ConvEpilogue *ep, int nep, float *y);
void depthwise_nhwc_rows_f32(const int64_t *geo, int64_t nr, const float *xr, const float *wp,
                             const float *bias, const struct ConvEpilogue *ep, int nep, int64_t n,
                             int64_t oh0, int64_t oh1, float *y);
/* expand_depthwise.c — a 1x1 conv fused into the depthwise conv that reads its output, by rows
 * through a ring of nr expanded rows (compiler/fuse_expand_depthwise.c). */
int64_t expand_depthwise_ring_rows(const int64_t *geo, int64_t E);
void expand_depthwise_nhwc_f32(const int64_t *geo, int64_t K, int64_t E,
                               void (*full)(const float *, const float *, float *),
                               void (*tail)(const float *, const float *, float *), const float *x,
                               const float *w1, const float *b1, const struct ConvEpilogue *ep1,
                               int nep1, const float *wp, const float *bias,
                               const struct ConvEpilogue *ep, int nep, float *y, float *ring);
/* conv_nhwc.c — float 2-D/1-D conv in NHWC with conv.c's bits; geo[] indices (the template
 * declares the same enum). */
enum {
    CONV_NHWC_N,
    CONV_NHWC_H,
    CONV_NHWC_W,
    CONV_NHWC_C,
    CONV_NHWC_G,
    CONV_NHWC_OCG,
    CONV_NHWC_KH,
    CONV_NHWC_KW,
    CONV_NHWC_OH,
    CONV_NHWC_OW,
    CONV_NHWC_SH,
    CONV_NHWC_SW,
    CONV_NHWC_PT,
    CONV_NHWC_PL,
    CONV_NHWC_DH,
    CONV_NHWC_DW,
    CONV_NHWC_R,
    CONV_NHWC_XNCHW,
    CONV_NHWC_YS,
    CONV_NHWC_NGEO
};
int64_t conv_nhwc_packed_floats(const int64_t *geo);
void conv_nhwc_pack_f32(const int64_t *geo, const float *w, float *wp);
int64_t conv_nhwc_rows(const int64_t *geo, int64_t max_floats);
int64_t conv_nhwc_work_floats(const int64_t *geo);
void conv_nhwc_f32(const int64_t *geo, const float *x, const float *wp, const float *bias,
                   const struct ConvEpilogue *ep, int nep, float *y, float *work);
void conv_nhwc_rows_f32(const int64_t *geo, const float *x, const float *wp, const float *bias,
                        const struct ConvEpilogue *ep, int nep, int64_t ob, int64_t oe, float *y,
                        float *work);
int64_t conv_pointwise_nhwc_rows(int64_t M, int64_t N, int64_t K);
void conv_pointwise_nhwc_f32(int64_t M, int64_t N, int64_t K, int64_t rb,
                             void (*full)(const float *, const float *, float *),
                             void (*tail)(const float *, const float *, float *), const float *x,
                             const float *w, const float *bias, const struct ConvEpilogue *ep,
                             int nep, float *y);
void conv_pointwise_nhwc_ldy_f32(int64_t M, int64_t N, int64_t K, int64_t rb,
                                 void (*full)(const float *, const float *, float *),
                                 void (*tail)(const float *, const float *, float *),
                                 const float *x, const float *w, const float *bias,
                                 const struct ConvEpilogue *ep, int nep, float *y, int64_t ldy);
/* pool_nhwc.c — channels-last pools, the bits of pool.c's: x [N][H][W][C] -> y [N][OH][OW][C],
 * geo[NHWC_GEO_LEN]; global: x [N][HW][C] -> y [N][C] (also ReduceMean over H, W). */
void maxpool_nhwc_f32(const int64_t *geo, const float *x, float *y);
void avgpool_nhwc_f32(const int64_t *geo, int count_include_pad, const float *x, float *y);
void global_avgpool_nhwc_f32(int64_t N, int64_t HW, int64_t C, const float *x, float *y);
/* conv_pool.c — a dense channels-last conv and the MaxPool that reads it, by bands of rows
 * (compiler/fuse_conv_pool.c): cgeo[CONV_NHWC_NGEO], pgeo[NHWC_GEO_LEN]. */
int64_t conv_maxpool_span(const int64_t *pgeo, int64_t P);
int64_t conv_maxpool_band_floats(const int64_t *cgeo, const int64_t *pgeo, int64_t P);
void conv_maxpool_nhwc_f32(const int64_t *cgeo, const float *x, const float *wp, const float *bias,
                           const struct ConvEpilogue *ep, int nep, const int64_t *pgeo, int64_t P,
                           float *y, float *band, float *work);
/* pool.c — N-d pools: x [NC][D][H][W] -> y [NC][OD][OH][OW]; pad [6] = begins, ends. */
int pool_tap_nd(const int64_t *in, const int64_t *k, const int64_t *stride, const int64_t *pad,
                const int64_t *dil, const int64_t *o, int64_t t, int64_t *pos, int *padded);
void maxpool_nd_f32(int64_t NC, const int64_t *in, const int64_t *out, const int64_t *k,
                    const int64_t *stride, const int64_t *pad, const int64_t *dil,
                    int storage_order, const float *x, float *y, int64_t *indices);
void maxpool_nd_u8(int64_t NC, const int64_t *in, const int64_t *out, const int64_t *k,
                   const int64_t *stride, const int64_t *pad, const int64_t *dil, int storage_order,
                   const uint8_t *x, uint8_t *y, int64_t *indices);
void maxpool_nd_i8(int64_t NC, const int64_t *in, const int64_t *out, const int64_t *k,
                   const int64_t *stride, const int64_t *pad, const int64_t *dil, int storage_order,
                   const int8_t *x, int8_t *y, int64_t *indices);
void avgpool_nd_f32(int64_t NC, const int64_t *in, const int64_t *out, const int64_t *k,
                    const int64_t *stride, const int64_t *pad, const int64_t *dil,
                    int count_include_pad, int64_t lp, const float *x, float *y);
void global_maxpool_f32(int64_t NC, int64_t HW, const float *x, float *y);
void maxunpool_f32(int64_t nx, const float *x, const int64_t *indices, int rank,
                   const int64_t *in_dims, const int64_t *out_dims, float *y);
/* norm.c — group/instance normalisation, x [N][C][HW]. */
void groupnorm_f32(int64_t N, int64_t C, int64_t G, int64_t HW, const float *x, const float *scale,
                   const float *bias, int per_channel, float eps, float *y);
/* nn.c — LRN, MeanVarianceNormalization, LpNormalization. */
void lrn_f32(int64_t N, int64_t C, int64_t HW, int64_t size, float alpha, float beta, float bias,
             const float *x, float *y);
int64_t nn_offset(int rank, const int64_t *dims, const int64_t *strides, int64_t i);
void mvn_f32(int out_rank, const int64_t *out_dims, const int64_t *out_strides, int red_rank,
             const int64_t *red_dims, const int64_t *red_strides, const float *x, float *y);
void lpnorm_f32(int64_t outer, int64_t len, int64_t inner, int64_t p, const float *x, float *y);
/* ---- data family ---- */
/* data.c — type codes: 0 bytes (no arithmetic), 1 f32, 2 i64, 3 f64, 4 i32; scatter
 * reductions 0 none, 1 add, 2 mul, 3 max, 4 min; indices int64, negative ones + dim, out of
 * range ones skipped (gathers write zeros). Layouts at each definition. */
void gather_elements_bytes(int rank, const int64_t *x_dims, const int64_t *idx_dims, int axis,
                           int64_t elem_size, const void *x, const int64_t *idx, void *y);
void scatter_elements(int rank, const int64_t *x_dims, const int64_t *idx_dims, int axis, int type,
                      int reduction, int64_t elem_size, const void *x, const int64_t *idx,
                      const void *upd, void *y);
void gather_nd_bytes(int64_t batch, int64_t n, int64_t k, const int64_t *dims, int64_t slice_bytes,
                     const void *x, const int64_t *idx, void *y);
void scatter_nd(int64_t numel, int64_t n, int64_t k, const int64_t *dims, int64_t slice_elems,
                int type, int reduction, int64_t elem_size, const void *x, const int64_t *idx,
                const void *upd, void *y);
void pad_bytes(int rank, const int64_t *in_dims, const int64_t *out_dims, const int64_t *begin,
               int mode, int64_t elem_size, const void *value, const void *x, void *y);
void resize_nearest_bytes(int rank, const int64_t *in_dims, const int64_t *out_dims,
                          const int64_t *tables, int64_t elem_size, const void *x, void *y);
void resize_1d_f32(int64_t outer, int64_t in_n, int64_t out_n, int64_t inner, int64_t taps,
                   const int64_t *idx, const float *w, float extrapolation, const float *x,
                   float *y);
void one_hot_bytes(int64_t outer, int64_t depth, int64_t inner, int idx_type, const void *idx,
                   int64_t elem_size, const void *values, void *y);
void trilu_bytes(int64_t batch, int64_t rows, int64_t cols, int64_t k, int upper, int64_t elem_size,
                 const void *x, void *y);
void cumsum_f32(int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse, const float *x,
                float *y);
void cumsum_f64(int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse,
                const double *x, double *y);
void cumsum_i32(int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse,
                const int32_t *x, int32_t *y);
void cumsum_i64(int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse,
                const int64_t *x, int64_t *y);
/* data.c — CumProd, as CumSum with products from 1 (integers wrap). */
void cumprod_f32(int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse,
                 const float *x, float *y);
void cumprod_f64(int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse,
                 const double *x, double *y);
void cumprod_i32(int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse,
                 const int32_t *x, int32_t *y);
void cumprod_i64(int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse,
                 const int64_t *x, int64_t *y);
void arg_f32(int64_t outer, int64_t n, int64_t inner, int is_min, int select_last, const float *x,
             int64_t *y);
void arg_f64(int64_t outer, int64_t n, int64_t inner, int is_min, int select_last, const double *x,
             int64_t *y);
void arg_i32(int64_t outer, int64_t n, int64_t inner, int is_min, int select_last, const int32_t *x,
             int64_t *y);
void arg_i64(int64_t outer, int64_t n, int64_t inner, int is_min, int select_last, const int64_t *x,
             int64_t *y);
void topk_f32(int64_t outer, int64_t n, int64_t inner, int64_t k, int largest, const float *x,
              float *values, int64_t *indices);
void topk_f64(int64_t outer, int64_t n, int64_t inner, int64_t k, int largest, const double *x,
              double *values, int64_t *indices);
void topk_i32(int64_t outer, int64_t n, int64_t inner, int64_t k, int largest, const int32_t *x,
              int32_t *values, int64_t *indices);
void topk_i64(int64_t outer, int64_t n, int64_t inner, int64_t k, int largest, const int64_t *x,
              int64_t *values, int64_t *indices);
void topk_u64(int64_t outer, int64_t n, int64_t inner, int64_t k, int largest, const uint64_t *x,
              uint64_t *values, int64_t *indices);
void hardmax_f32(int64_t outer, int64_t n, int64_t inner, const float *x, float *y);
void shrink_f32(int64_t n, float lambd, float bias, const float *x, float *y);
void thresholded_relu_f32(int64_t n, float alpha, const float *x, float *y);
void celu_f32(int64_t n, float alpha, const float *x, float *y);
void mish_f32(int64_t n, const float *x, float *y);
void prelu_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const float *a,
               const float *b, float *y);
void einsum_f32(int out_rank, const int64_t *out_dims, const int64_t *out_sa, const int64_t *out_sb,
                int red_rank, const int64_t *red_dims, const int64_t *red_sa, const int64_t *red_sb,
                const float *a, const float *b, float *y);
void einsum_f64(int out_rank, const int64_t *out_dims, const int64_t *out_sa, const int64_t *out_sb,
                int red_rank, const int64_t *red_dims, const int64_t *red_sa, const int64_t *red_sb,
                const double *a, const double *b, double *y);
/* ---- types family ---- */
/* elementwise.c — add, sub, mul, div for the other element types (arguments as add_f32). */
void add_f64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const double *a, const double *b, double *y);
void sub_f64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const double *a, const double *b, double *y);
void mul_f64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const double *a, const double *b, double *y);
void div_f64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const double *a, const double *b, double *y);
void add_i8(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
            const int8_t *a, const int8_t *b, int8_t *y);
void sub_i8(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
            const int8_t *a, const int8_t *b, int8_t *y);
void mul_i8(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
            const int8_t *a, const int8_t *b, int8_t *y);
void div_i8(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
            const int8_t *a, const int8_t *b, int8_t *y);
void add_u8(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
            const uint8_t *a, const uint8_t *b, uint8_t *y);
void sub_u8(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
            const uint8_t *a, const uint8_t *b, uint8_t *y);
void mul_u8(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
            const uint8_t *a, const uint8_t *b, uint8_t *y);
void div_u8(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
            const uint8_t *a, const uint8_t *b, uint8_t *y);
void add_i16(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int16_t *a, const int16_t *b, int16_t *y);
void sub_i16(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int16_t *a, const int16_t *b, int16_t *y);
void mul_i16(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int16_t *a, const int16_t *b, int16_t *y);
void div_i16(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int16_t *a, const int16_t *b, int16_t *y);
void add_u16(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint16_t *a, const uint16_t *b, uint16_t *y);
void sub_u16(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint16_t *a, const uint16_t *b, uint16_t *y);
void mul_u16(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint16_t *a, const uint16_t *b, uint16_t *y);
void div_u16(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint16_t *a, const uint16_t *b, uint16_t *y);
void add_i32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int32_t *a, const int32_t *b, int32_t *y);
void sub_i32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int32_t *a, const int32_t *b, int32_t *y);
void mul_i32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int32_t *a, const int32_t *b, int32_t *y);
void div_i32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const int32_t *a, const int32_t *b, int32_t *y);
void add_u32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint32_t *a, const uint32_t *b, uint32_t *y);
void sub_u32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint32_t *a, const uint32_t *b, uint32_t *y);
void mul_u32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint32_t *a, const uint32_t *b, uint32_t *y);
void div_u32(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint32_t *a, const uint32_t *b, uint32_t *y);
void add_u64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint64_t *a, const uint64_t *b, uint64_t *y);
void sub_u64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint64_t *a, const uint64_t *b, uint64_t *y);
void mul_u64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint64_t *a, const uint64_t *b, uint64_t *y);
void div_u64(int rank, const int64_t *out_dims, const int64_t *a_strides, const int64_t *b_strides,
             const uint64_t *a, const uint64_t *b, uint64_t *y);
/* elementwise.c — Clip for integer types (as clip_f32). */
void clip_i8(int64_t n, int8_t lo, int8_t hi, const int8_t *x, int8_t *y);
void clip_u8(int64_t n, uint8_t lo, uint8_t hi, const uint8_t *x, uint8_t *y);
void clip_i16(int64_t n, int16_t lo, int16_t hi, const int16_t *x, int16_t *y);
void clip_u16(int64_t n, uint16_t lo, uint16_t hi, const uint16_t *x, uint16_t *y);
void clip_i32(int64_t n, int32_t lo, int32_t hi, const int32_t *x, int32_t *y);
void clip_u32(int64_t n, uint32_t lo, uint32_t hi, const uint32_t *x, uint32_t *y);
void clip_i64(int64_t n, int64_t lo, int64_t hi, const int64_t *x, int64_t *y);
void clip_u64(int64_t n, uint64_t lo, uint64_t hi, const uint64_t *x, uint64_t *y);
/* math.c — max, min for the other integer types (arguments as max_i64). */
void max_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const int8_t *a,
            const int8_t *b, int8_t *y);
void min_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const int8_t *a,
            const int8_t *b, int8_t *y);
void max_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint8_t *a,
            const uint8_t *b, uint8_t *y);
void min_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint8_t *a,
            const uint8_t *b, uint8_t *y);
void max_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const int16_t *a,
             const int16_t *b, int16_t *y);
void min_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const int16_t *a,
             const int16_t *b, int16_t *y);
void max_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint16_t *a,
             const uint16_t *b, uint16_t *y);
void min_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint16_t *a,
             const uint16_t *b, uint16_t *y);
void max_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const int32_t *a,
             const int32_t *b, int32_t *y);
void min_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const int32_t *a,
             const int32_t *b, int32_t *y);
void max_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint32_t *a,
             const uint32_t *b, uint32_t *y);
void min_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint32_t *a,
             const uint32_t *b, uint32_t *y);
void max_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint64_t *a,
             const uint64_t *b, uint64_t *y);
void min_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const uint64_t *a,
             const uint64_t *b, uint64_t *y);
/* types.c — 16-bit float conversions (bits in uint16_t; narrowing rounds to nearest even),
 * Cast with a 16-bit float at one end, Mod, BitShift, Bitwise*, IsNaN, IsInf. Broadcast
 * arguments as in math.c; operands as void pointers of the suffix's element type. */
float half_to_float(uint16_t h);
float bfloat16_to_float(uint16_t h);
uint64_t o2c_round_shift(uint64_t m, int shift);
uint16_t o2c_double_to_small(double d, int exp_bits, int man_bits);
uint16_t float_to_half(float f);
uint16_t double_to_half(double d);
uint16_t float_to_bfloat16(float f);
uint16_t double_to_bfloat16(double d);
double o2c_load_as_double(int code, const void *x, int64_t i);
void o2c_store_from_float(int code, void *y, int64_t i, float v);
void cast_half(int64_t n, int src, const void *x, int dst, void *y);
float o2c_mod_f32(float a, float b);
double o2c_mod_f64(double a, double b);
void fmod_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, void *y);
void mod_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void fmod_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, void *y);
void mod_f64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void fmod_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void mod_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
            const void *b, void *y);
void shl_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
            const void *b, void *y);
void shr_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
            const void *b, void *y);
void bitand_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, void *y);
void bitor_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, void *y);
void bitxor_i8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, void *y);
void bitnot_i8(int64_t n, const void *x, void *y);
void fmod_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void mod_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
            const void *b, void *y);
void shl_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
            const void *b, void *y);
void shr_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
            const void *b, void *y);
void bitand_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, void *y);
void bitor_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, void *y);
void bitxor_u8(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, void *y);
void bitnot_u8(int64_t n, const void *x, void *y);
void fmod_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, void *y);
void mod_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shl_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shr_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void bitand_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitor_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, void *y);
void bitxor_i16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitnot_i16(int64_t n, const void *x, void *y);
void fmod_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, void *y);
void mod_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shl_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shr_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void bitand_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitor_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, void *y);
void bitxor_u16(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitnot_u16(int64_t n, const void *x, void *y);
void fmod_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, void *y);
void mod_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shl_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shr_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void bitand_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitor_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, void *y);
void bitxor_i32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitnot_i32(int64_t n, const void *x, void *y);
void fmod_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, void *y);
void mod_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shl_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shr_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void bitand_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitor_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, void *y);
void bitxor_u32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitnot_u32(int64_t n, const void *x, void *y);
void fmod_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, void *y);
void mod_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shl_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shr_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void bitand_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitor_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, void *y);
void bitxor_u64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitnot_u64(int64_t n, const void *x, void *y);
void fmod_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
              const void *b, void *y);
void mod_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shl_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void shr_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
             const void *b, void *y);
void bitand_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitor_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
               const void *b, void *y);
void bitxor_i64(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb, const void *a,
                const void *b, void *y);
void bitnot_i64(int64_t n, const void *x, void *y);
void isnan_f32(int64_t n, const void *x, uint8_t *y);
void isnan_f64(int64_t n, const void *x, uint8_t *y);
void isinf_f32(int64_t n, int detect_positive, int detect_negative, const void *x, uint8_t *y);
void isinf_f64(int64_t n, int detect_positive, int detect_negative, const void *x, uint8_t *y);
/* ---- signal family ---- */
/* signal.c — direct DFT in double, STFT, windows, mel weights. */
void signal_dft_bin(int64_t n, int64_t count, const float *x, int64_t xs, int complex_in,
                    const float *w, int64_t k, int sign, double *re, double *im);
void dft_f32(int64_t outer, int64_t len, int64_t inner, int c_in, int64_t n, int64_t K, int mode,
             const float *x, float *y);
void stft_f32(int64_t B, int64_t len, int c_in, int64_t step, int64_t frames, int64_t n, int64_t K,
              const float *w, const float *x, float *y);
void window_f32(int kind, int64_t size, int periodic, float *y);
void melweight_f32(int64_t bins, int64_t dft_length, int64_t sample_rate, float lower_hz,
                   float upper_hz, float *y);
/* image.c — GridSample, AffineGrid, Col2Im, CenterCropPad, RoiAlign, DeformConv, NMS. */
double gridsample_reflect(double x, double lo, double hi);
void gridsample_cubic_coeffs(float t, float *c);
int64_t gridsample_tap(int64_t i, int64_t len, int padding, int align_corners);
float gridsample_sum(int r, int d, int ntaps, const int64_t (*idx)[4], const float (*w)[4],
                     const int64_t *stride, const float *x);
void gridsample_f32(int64_t N, int64_t C, int r, const int64_t *in_dims, int64_t P, int mode,
                    int padding, int align_corners, const float *x, const float *grid, float *y);
int nms_suppress(const float *a, const float *b, int center_point_box, float iou_threshold);
int64_t nms_i64(int64_t B, int64_t C, int64_t nbox, const float *boxes, const float *scores,
                int64_t max_per_class, float iou_threshold, int has_score_threshold,
                float score_threshold, int center_point_box, int64_t *out, int64_t *work);
void col2im_f32(int64_t N, int64_t C, int r, const int64_t *geo, const float *x, float *y);
void center_crop_pad_bytes(int rank, const int64_t *geo, int64_t elem_size, const void *xv,
                           void *yv);
void roialign_f32(int64_t N, int64_t C, int64_t H, int64_t W, int64_t R, int64_t OH, int64_t OW,
                  int64_t sampling_ratio, float spatial_scale, int half_pixel, int mode_max,
                  const float *x, const float *rois, const int64_t *batch, float *y);
void affine_grid_f32(int64_t N, int r, const int64_t *dims, int align_corners, const float *theta,
                     float *grid);
float deform_sample(int64_t H, int64_t W, const float *x, float h, float w);
void deform_conv_f32(int64_t N, int64_t C, int64_t H, int64_t W, int64_t OC, int64_t OH, int64_t OW,
                     const int64_t *geo, const float *x, const float *w, const float *offset,
                     const float *mask, const float *bias, float *y);
/* ---- sequence family ---- */
/* recurrent.c — RNN/GRU/LSTM: the pieces of one direction (begin, per-step gates after the
 * step's product, end) and whole layers over all steps and directions (products by gemm_f32). */
float rnn_activation(int code, float alpha, float beta, float x);
int64_t rnn_scratch_floats(int64_t T, int64_t B, int64_t H, int64_t G);
void rnn_begin_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int64_t d,
                   const int32_t *seq_lens, const float *h0, const float *c0, float *h, float *c,
                   float *Y);
void rnn_end_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int64_t d,
                 const int32_t *seq_lens, const float *h, const float *c, float *Y_h, float *Y_c);
void rnn_step_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int reverse, int64_t d,
                  int64_t s, const int32_t *seq_lens, const float *xw, int64_t xt0, int64_t xnt,
                  float *hr, const float *wb, const float *rb, int act, float alpha, float beta,
                  int has_clip, float clip, float *h, float *Y);
void gru_reset_f32(int64_t T, int64_t B, int64_t H, int layout, int reverse, int64_t s,
                   const int32_t *seq_lens, int lbr, const float *xw, int64_t xt0, int64_t xnt,
                   float *hr, const float *wb, int fa, float f_al, float f_be, int has_clip,
                   float clip, const float *h, float *rh);
void gru_update_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int reverse, int64_t d,
                    int64_t s, const int32_t *seq_lens, int lbr, const float *xw, int64_t xt0,
                    int64_t xnt, float *hr, const float *hh, const float *rh, const float *wb,
                    int fa, float f_al, float f_be, int ga, float g_al, float g_be, int has_clip,
                    float clip, float *h, float *Y);
void lstm_step_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int reverse, int64_t d,
                   int64_t s, const int32_t *seq_lens, int input_forget, const float *xw,
                   int64_t xt0, int64_t xnt, float *hr, const float *wb, const float *rb,
                   const float *p, int fa, float f_al, float f_be, int ga, float g_al, float g_be,
                   int ha, float h_al, float h_be, int has_clip, float clip, float *h, float *c,
                   float *Y);
void rnn_units_step_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D, int layout,
                        int reverse, int64_t d, int64_t s, const float *X, const float *W,
                        const float *R, const float *wb, const float *h0, int act, float alpha,
                        float beta, int has_clip, float clip, float *Y);
void gru_units_step_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D, int layout,
                        int reverse, int64_t d, int64_t s, int lbr, const float *X, const float *W,
                        const float *R, const float *wb, const float *h0, int fa, float f_al,
                        float f_be, int ga, float g_al, float g_be, int has_clip, float clip,
                        float *Y, float *Y_h);
void lstm_units_step_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D, int layout,
                         int reverse, int64_t d, int64_t s, int input_forget, const float *X,
                         const float *W, const float *R, const float *wb, const float *p,
                         const float *h0, const float *c0, int fa, float f_al, float f_be, int ga,
                         float g_al, float g_be, int ha, float h_al, float h_be, int has_clip,
                         float clip, float *Y, float *Y_c);
void rnn_units_end_f32(int64_t T, int64_t B, int64_t H, int64_t D, int layout, int reverse,
                       int64_t d, const float *Y, float *Y_h);
void rnn_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D, int layout, int reverse_mask,
             const float *X, const float *W, const float *R, const float *Bias,
             const int32_t *seq_lens, const float *h0, const int32_t *act, const float *alpha,
             const float *beta, int has_clip, float clip, float *Y, float *Y_h, float *scratch);
void gru_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D, int layout, int reverse_mask,
             int linear_before_reset, const float *X, const float *W, const float *R,
             const float *Bias, const int32_t *seq_lens, const float *h0, const int32_t *act,
             const float *alpha, const float *beta, int has_clip, float clip, float *Y, float *Y_h,
             float *scratch);
void lstm_f32(int64_t T, int64_t B, int64_t I, int64_t H, int64_t D, int layout, int reverse_mask,
              int input_forget, const float *X, const float *W, const float *R, const float *Bias,
              const int32_t *seq_lens, const float *h0, const float *c0, const float *P,
              const int32_t *act, const float *alpha, const float *beta, int has_clip, float clip,
              float *Y, float *Y_h, float *Y_c, float *scratch);
/* quant.c — quantisation with exact integer arithmetic; types as ONNX DataType numbers. */
float quant_half_to_float(uint16_t h);
uint16_t quant_float_to_half(float f);
void quantize_linear_f32(int64_t outer, int64_t len, int64_t inner, int64_t block, const int64_t *s,
                         const float *x, const float *scale, int y_type, const void *zero_point,
                         void *y);
void dequantize_linear_f32(int64_t outer, int64_t len, int64_t inner, int64_t block,
                           const int64_t *s, int x_type, const void *x, const float *scale,
                           const void *zero_point, float *y);
void dynamic_quantize_linear_f32(int64_t n, const float *x, uint8_t *y, float *y_scale,
                                 uint8_t *y_zero_point);
void qmatmul(int64_t M, int64_t N, int64_t K, int a_type, const void *A, const void *a_zp,
             int b_type, const void *B, const void *b_zp, int64_t b_zp_stride, int scale_type,
             const void *a_scale, const void *b_scale, int64_t b_scale_stride, const void *y_scale,
             int y_type, const void *y_zp, void *Y);
void qconv(const int64_t *geo, int x_type, const void *x, const void *x_zp, int w_type,
           const void *w, const void *w_zp, int64_t w_zp_stride, const int32_t *bias,
           int scale_type, const void *x_scale, const void *w_scale, int64_t w_scale_stride,
           const void *y_scale, int y_type, const void *y_zp, void *y);
int64_t qconv_s8_scratch(const int64_t *geo);
int64_t qconv_s8_row(const int64_t *geo);
int64_t qconv_s8_wbytes(const int64_t *geo);
void qconv_s8_weights(const int64_t *geo, const int8_t *w, int8_t *wp);
int qconv_s8_prepare(const int64_t *geo, int x_type, const void *x_zp, const int8_t *w,
                     const int32_t *bias, int scale_type, const void *x_scale, const void *w_scale,
                     int64_t w_scale_stride, const void *y_scale, int32_t *bias_adj, double *mult);
void qconv_s8(const int64_t *geo, int x_type, const void *x, const void *x_zp, const int8_t *w,
              const int32_t *bias_adj, const double *mult, int y_type, const void *y_zp, void *y,
              uint8_t *scratch);
/* quant_nhwc.c — qconv_s8 on channels-last tensors: x [N][D][H][W][C], y [N][OD][OH][OW][OC]. */
int64_t qconv_nhwc_s8_wbytes(const int64_t *geo);
void qconv_nhwc_s8_weights(const int64_t *geo, const int8_t *w, int8_t *wp);
int64_t qconv_nhwc_s8_scratch(const int64_t *geo);
int qconv_nhwc_s8_small(const int64_t *geo, const int32_t *bias_adj, const double *mult, int y_type,
                        const void *y_zp);
void qconv_nhwc_s8(const int64_t *geo, int x_type, const void *x, const void *x_zp, const int8_t *w,
                   const int32_t *bias_adj, const double *mult, int y_type, const void *y_zp,
                   void *y, uint8_t *scratch);

/* ---- loss family ---- */
/* loss.c — NegativeLogLikelihoodLoss over x [N][C][D] (log-probabilities), target [N][D];
 * reduction 0 none, 1 sum, 2 mean. */
void nll_loss_f32(int64_t N, int64_t C, int64_t D, const float *x, const int64_t *target,
                  const float *weight, int has_ignore, int64_t ignore_index, int reduction,
                  float *y);
/* random.c — MT19937 as numpy.random.RandomState (mt [625]: 624 words and the position),
 * seeded training-mode Dropout. */
void mt19937_seed(uint32_t *mt, uint32_t seed);
uint32_t mt19937_next(uint32_t *mt);
double mt19937_double(uint32_t *mt);
void dropout_f32(int64_t n, uint32_t seed, float ratio, const float *x, float *y, uint8_t *mask);

/* ---- llm family ---- */
/* llm.c — RMSNormalization, RotaryEmbedding, SwiGLU, CausalConvWithState,
 * LinearAttention; layouts at each definition. */
int64_t llm_offset(int rank, const int64_t *dims, const int64_t *strides, int64_t i);
void rmsnorm_f32(int64_t rows, int64_t n, int rank, const int64_t *dims, const int64_t *w_strides,
                 float eps, const float *x, const float *w, float *y);
void rotary_embedding_f32(int64_t B, int64_t S, int64_t H, int64_t D, int64_t sb, int64_t ss,
                          int64_t sh, int64_t rd, int interleaved, const float *x,
                          const float *cos_cache, const float *sin_cache, const int64_t *pos,
                          int64_t max_pos, float *y);
void swiglu_f32(int64_t n, float alpha, const float *a, const float *b, float *y);
void causal_conv_f32(int64_t B, int64_t C, int64_t L, int64_t K, const float *x, const float *w,
                     const float *bias, const float *past, int silu, float *y, float *present);
void linear_attention_f32(int64_t B, int64_t T, int64_t Hq, int64_t Hkv, int64_t dk, int64_t dv,
                          float scale, const float *q, const float *k, const float *v,
                          const float *past, const float *decay, int decay_per_dim,
                          const float *beta, int beta_per_head, float *out, float *state);

/* ---- attention family ---- */
/* attention.c — ONNX Attention; geo[] indices (the template declares the same enum). */
enum {
    ATT_B,
    ATT_HQ,
    ATT_HKV,
    ATT_L,
    ATT_SNEW,
    ATT_P,
    ATT_D,
    ATT_DV,
    ATT_Q_SB,
    ATT_Q_SH,
    ATT_Q_SL,
    ATT_K_SB,
    ATT_K_SH,
    ATT_K_SL,
    ATT_V_SB,
    ATT_V_SH,
    ATT_V_SL,
    ATT_Y_SB,
    ATT_Y_SH,
    ATT_Y_SL,
    ATT_MASK_KIND,
    ATT_M_SB,
    ATT_M_SH,
    ATT_M_SL,
    ATT_M_LEN,
    ATT_CAUSAL,
    ATT_LEFT,
    ATT_RIGHT,
    ATT_QK_MODE,
    ATT_SOFTMAX,
    ATT_ROUND,
    ATT_NGEO
};
enum { ATT_MASK_NONE = 0, ATT_MASK_BOOL = 1, ATT_MASK_FLOAT = 2 };
float attention_round(int64_t type, float x);
void attention_copy_rows(int64_t n, int64_t len, const float *src, int64_t src_stride, float *dst);
void attention_present(const int64_t *geo, int64_t len, const float *past, const float *x,
                       int64_t x_sb, int64_t x_sh, int64_t x_sl, float *present);
float attention_bias(const int64_t *geo, const void *mask, const int64_t *nonpad, int64_t b,
                     int64_t h, int64_t i, int64_t j);
void attention_softmax(int64_t S, int64_t type, float *x);
const float *attention_kv_row(const int64_t *geo, const float *past, const float *x, int64_t sb,
                              int64_t sh, int64_t sl, int64_t len, int64_t b, int64_t h, int64_t j);
void attention_scores(const int64_t *geo, float sqrt_scale, float softcap, const float *qs,
                      const float *k, const float *past_k, int64_t b, int64_t hk, float *x,
                      float *qk_row);
void attention_f32(const int64_t *geo, float sqrt_scale, float softcap, const float *q,
                   const float *k, const float *v, const float *past_k, const float *past_v,
                   const void *mask, const int64_t *nonpad, float *y, float *present_k,
                   float *present_v, float *qk_out, float *scratch);

/* ---- lowtypes family ---- */
/* lowtypes.c — float8 / float4 / 4-bit and 2-bit integer types, one byte per element. */
float low_to_float(int code, uint8_t bits);             /* 17, 18, 19, 20, 23 */
uint8_t float_to_low(int code, double d, int saturate); /* rounded to nearest even */
float e8m0_to_float(uint8_t code);
uint8_t float_to_e8m0(float x, int saturate, int round_mode); /* 0 up, 1 down, 2 nearest */
int low_int_wrap(int code, int64_t v);                        /* 21, 22, 25, 26: modulo 2^bits */
int double_to_low_int(int code, double d);                    /* truncated, then wrapped */
void cast_low(int64_t n, int src, const void *x, int dst, void *y, int saturate, int round_mode);
void quantize_linear_low(int64_t outer, int64_t len, int64_t inner, int64_t block, const int64_t *s,
                         const float *x, const float *scale, int y_type, const void *zero_point,
                         int saturate, void *y);
void dequantize_linear_low(int64_t outer, int64_t len, int64_t inner, int64_t block,
                           const int64_t *s, int x_type, const void *x, const float *scale,
                           float *y);

/* ---- control family ---- */
/* misc.c — BitCast, ReverseSequence, TensorScatter, TfIdfVectorizer, ai.onnx.ml ops. */
void bitcast_copy(int64_t nbytes, const void *x, void *y);
void reverse_sequence(int64_t d0, int64_t d1, int64_t inner, int batch_axis, const int64_t *lens,
                      int64_t esize, const void *x, void *y);
void tensor_scatter(int64_t batch, int64_t mid, int64_t len, int64_t ulen, int64_t inner,
                    int circular, const int64_t *idx, int64_t esize, const void *past,
                    const void *update, void *y);
void tfidf_vectorize(int64_t rows, int64_t cols, const void *x, int x_i32, int64_t ngrams,
                     const int64_t *gram_len, const int64_t *gram_off, const int64_t *gram_col,
                     const int64_t *pool, int64_t min_len, int64_t max_len, int64_t max_skip,
                     int mode, const float *weights, int64_t out_cols, float *y);
int64_t tree_leaf_f32(const float *xr, int64_t id, int leaf, const int64_t *nodes,
                      const float *splits, const float *members);
int64_t tree_leaf_f64(const double *xr, int64_t id, int leaf, const int64_t *nodes,
                      const double *splits, const double *members);
void tree_ensemble(int64_t rows, int64_t features, const float *x, int64_t ntrees,
                   const int64_t *roots, const uint8_t *root_leaf, const int64_t *nodes,
                   const float *splits, const float *members, const int64_t *target,
                   const float *weight, int agg, int64_t targets, float *y);
void tree_ensemble_f64(int64_t rows, int64_t features, const double *x, int64_t ntrees,
                       const int64_t *roots, const uint8_t *root_leaf, const int64_t *nodes,
                       const double *splits, const double *members, const int64_t *target,
                       const double *weight, int agg, int64_t targets, double *y);
void array_feature_extract(int64_t outer, int64_t n, int64_t k, const int64_t *idx, int64_t esize,
                           const void *x, void *y);
void binarizer_f32(int64_t n, float threshold, const float *x, float *y);
void binarizer_f64(int64_t n, double threshold, const double *x, double *y);

#endif
