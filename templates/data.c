/* data.c — index and data-layout ops: GatherElements, GatherND, ScatterElements, ScatterND,
 * Pad, Resize (separable gathers and 1-D interpolation passes), OneHot, Trilu, CumSum, TopK,
 * ArgMax/ArgMin, Hardmax, the activations Shrink, ThresholdedRelu, Celu, Mish, PRelu, and
 * the Einsum contraction loop.
 *
 * Kernels that only move data are type-generic: tensors are byte arrays of elements of
 * elem_size bytes, copied bit for bit. Kernels that compute take a type code where several
 * types share one loop:
 *   O2C_DATA_BYTES 0 (no arithmetic; any elem_size), O2C_DATA_F32 1, O2C_DATA_I64 2,
 *   O2C_DATA_F64 3, O2C_DATA_I32 4.
 * Reductions of the scatters: 0 none, 1 add, 2 mul, 3 max, 4 min.
 *
 * Indices are int64. A negative index counts from the end of its axis (index + dim); an
 * index still out of range after that is skipped (gathers write zeros; scatters drop the
 * update), so bad data never reads or writes outside a buffer.
 *
 * "Row-major [a][b][c]" describes a flat array; "outer/n/inner" views a tensor as
 * [outer][n][inner] around the axis an op works along.
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mathfn.c" /* o2c_expf, ...: the transcendentals of every template */

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#define O2C_DATA_BYTES 0
#define O2C_DATA_F32   1
#define O2C_DATA_I64   2
#define O2C_DATA_F64   3
#define O2C_DATA_I32   4

/* Combines src into the element dst with a scatter reduction (see the header). */
static void o2c_data_combine(int type, int reduction, int64_t elem_size, unsigned char *dst,
                             const unsigned char *src)
{
    if (reduction == 0 || type == O2C_DATA_BYTES) {
        memcpy(dst, src, (size_t)elem_size);
    } else if (type == O2C_DATA_F32) {
        float a, b;
        memcpy(&a, dst, 4);
        memcpy(&b, src, 4);
        a = reduction == 1   ? a + b
            : reduction == 2 ? a * b
            : reduction == 3 ? (b > a ? b : a)
                             : (b < a ? b : a);
        memcpy(dst, &a, 4);
    } else if (type == O2C_DATA_F64) {
        double a, b;
        memcpy(&a, dst, 8);
        memcpy(&b, src, 8);
        a = reduction == 1   ? a + b
            : reduction == 2 ? a * b
            : reduction == 3 ? (b > a ? b : a)
                             : (b < a ? b : a);
        memcpy(dst, &a, 8);
    } else if (type == O2C_DATA_I64) {
        int64_t a, b;
        memcpy(&a, dst, 8);
        memcpy(&b, src, 8);
        /* wrapping add/mul, as two's complement hardware does */
        a = reduction == 1   ? (int64_t)((uint64_t)a + (uint64_t)b)
            : reduction == 2 ? (int64_t)((uint64_t)a * (uint64_t)b)
            : reduction == 3 ? (b > a ? b : a)
                             : (b < a ? b : a);
        memcpy(dst, &a, 8);
    } else {
        int32_t a, b;
        memcpy(&a, dst, 4);
        memcpy(&b, src, 4);
        a = reduction == 1   ? (int32_t)((uint32_t)a + (uint32_t)b)
            : reduction == 2 ? (int32_t)((uint32_t)a * (uint32_t)b)
            : reduction == 3 ? (b > a ? b : a)
                             : (b < a ? b : a);
        memcpy(dst, &a, 4);
    }
}

/* ---- GatherElements / ScatterElements ----
 *   x_dims   [rank] shape of data (rank 1..8)
 *   idx_dims [rank] shape of indices (= of y for gather, of updates for scatter)
 *   axis     the indexed dim
 * Gather: y[i0..] = x[i0.. with i_axis replaced by idx[i0..]].
 * Scatter: y = x, then for each update element in row-major order
 *          y[i0.. with i_axis replaced by idx[i0..]] (reduction)= upd[i0..]. */
O2C_KERNEL void gather_elements_bytes(int rank, const int64_t *x_dims, const int64_t *idx_dims,
                                      int axis, int64_t elem_size, const void *x,
                                      const int64_t *idx, void *y)
{
    int64_t xs[8], pos[8] = {0}, total = 1;
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        xs[d] = s;
        s *= x_dims[d];
        total *= idx_dims[d];
    }
    const unsigned char *xb = (const unsigned char *)x;
    unsigned char *yb = (unsigned char *)y;
    for (int64_t i = 0; i < total; i++) {
        int64_t j = idx[i], off = 0;
        if (j < 0)
            j += x_dims[axis];
        for (int d = 0; d < rank; d++)
            off += (d == axis ? j : pos[d]) * xs[d];
        if (j >= 0 && j < x_dims[axis])
            memcpy(yb + i * elem_size, xb + off * elem_size, (size_t)elem_size);
        else
            memset(yb + i * elem_size, 0, (size_t)elem_size);
        for (int d = rank - 1; d >= 0; d--) {
            if (++pos[d] < idx_dims[d])
                break;
            pos[d] = 0;
        }
    }
}

O2C_KERNEL void scatter_elements(int rank, const int64_t *x_dims, const int64_t *idx_dims, int axis,
                                 int type, int reduction, int64_t elem_size, const void *x,
                                 const int64_t *idx, const void *upd, void *y)
{
    int64_t xs[8], pos[8] = {0}, total = 1, numel = 1;
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        xs[d] = s;
        s *= x_dims[d];
        total *= idx_dims[d];
    }
    numel = s;
    if (x != y)
        memcpy(y, x, (size_t)(numel * elem_size));
    const unsigned char *ub = (const unsigned char *)upd;
    unsigned char *yb = (unsigned char *)y;
    for (int64_t i = 0; i < total; i++) {
        int64_t j = idx[i], off = 0;
        if (j < 0)
            j += x_dims[axis];
        for (int d = 0; d < rank; d++)
            off += (d == axis ? j : pos[d]) * xs[d];
        if (j >= 0 && j < x_dims[axis])
            o2c_data_combine(type, reduction, elem_size, yb + off * elem_size, ub + i * elem_size);
        for (int d = rank - 1; d >= 0; d--) {
            if (++pos[d] < idx_dims[d])
                break;
            pos[d] = 0;
        }
    }
}

/* ---- GatherND / ScatterND ----
 * data viewed as [batch][dims[0]]..[dims[k-1]][slice] (slice = slice_bytes bytes), indices
 * as [batch][n][k]. Gather: y [batch][n][slice] = the addressed slices (zeros when an index is
 * out of range). Scatter (batch 1): y = x, then in order of n, slice n of upd goes to the
 * addressed slice, combined element by element with the reduction. */
static int64_t o2c_data_nd_offset(int64_t k, const int64_t *dims, const int64_t *ix)
{
    int64_t off = 0;
    for (int64_t d = 0; d < k; d++) {
        int64_t j = ix[d] < 0 ? ix[d] + dims[d] : ix[d];
        if (j < 0 || j >= dims[d])
            return -1;
        off = off * dims[d] + j;
    }
    return off;
}

O2C_KERNEL void gather_nd_bytes(int64_t batch, int64_t n, int64_t k, const int64_t *dims,
                                int64_t slice_bytes, const void *x, const int64_t *idx, void *y)
{
    int64_t per_batch = 1;
    for (int64_t d = 0; d < k; d++)
        per_batch *= dims[d];
    const unsigned char *xb = (const unsigned char *)x;
    unsigned char *yb = (unsigned char *)y;
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < n; i++) {
            int64_t off = o2c_data_nd_offset(k, dims, idx + (b * n + i) * k);
            unsigned char *dst = yb + (b * n + i) * slice_bytes;
            if (off < 0)
                memset(dst, 0, (size_t)slice_bytes);
            else
                memcpy(dst, xb + (b * per_batch + off) * slice_bytes, (size_t)slice_bytes);
        }
}

O2C_KERNEL void scatter_nd(int64_t numel, int64_t n, int64_t k, const int64_t *dims,
                           int64_t slice_elems, int type, int reduction, int64_t elem_size,
                           const void *x, const int64_t *idx, const void *upd, void *y)
{
    if (x != y)
        memcpy(y, x, (size_t)(numel * elem_size));
    const unsigned char *ub = (const unsigned char *)upd;
    unsigned char *yb = (unsigned char *)y;
    const int64_t slice_bytes = slice_elems * elem_size;
    for (int64_t i = 0; i < n; i++) {
        int64_t off = o2c_data_nd_offset(k, dims, idx + i * k);
        if (off < 0)
            continue;
        for (int64_t e = 0; e < slice_elems; e++)
            o2c_data_combine(type, reduction, elem_size, yb + off * slice_bytes + e * elem_size,
                             ub + i * slice_bytes + e * elem_size);
    }
}

/* ---- Pad ----
 *   in_dims, out_dims [rank] (rank 1..8); begin [rank] elements added before each dim
 *   (negative: removed); out_dims[d] = in_dims[d] + begin[d] + end[d].
 *   mode 0 constant (value: one element), 1 reflect, 2 edge, 3 wrap.
 * Output element o reads input coordinate o - begin per dim, mapped into range by the mode
 * (reflect mirrors without repeating the edge, edge clamps, wrap is modular); constant mode
 * writes *value where any coordinate is outside. */
static int64_t o2c_data_pad_src(int64_t i, int64_t n, int mode)
{
    if (i >= 0 && i < n)
        return i;
    if (mode == 0 || n == 0)
        return -1;
    if (mode == 2 || n == 1)
        return i < 0 ? 0 : n - 1;
    if (mode == 3) {
        int64_t r = i % n;
        return r < 0 ? r + n : r;
    }
    int64_t period = 2 * (n - 1), r = i % period; /* reflect */
    if (r < 0)
        r += period;
    return r < n ? r : period - r;
}

O2C_KERNEL void pad_bytes(int rank, const int64_t *in_dims, const int64_t *out_dims,
                          const int64_t *begin, int mode, int64_t elem_size, const void *value,
                          const void *x, void *y)
{
    int64_t xs[8], pos[8] = {0}, total = 1, s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        xs[d] = s;
        s *= in_dims[d];
        total *= out_dims[d];
    }
    const unsigned char *xb = (const unsigned char *)x;
    unsigned char *yb = (unsigned char *)y;
    for (int64_t i = 0; i < total; i++) {
        int64_t off = 0;
        for (int d = 0; d < rank && off >= 0; d++) {
            int64_t j = o2c_data_pad_src(pos[d] - begin[d], in_dims[d], mode);
            off = j < 0 ? -1 : off + j * xs[d];
        }
        memcpy(yb + i * elem_size, off < 0 ? (const unsigned char *)value : xb + off * elem_size,
               (size_t)elem_size);
        for (int d = rank - 1; d >= 0; d--) {
            if (++pos[d] < out_dims[d])
                break;
            pos[d] = 0;
        }
    }
}

/* ---- Resize ----
 * Nearest: y[o0..] = x[tables[0][o0]].. (one gather over all dims): tables holds, dim after
 * dim, out_dims[d] source indices in 0..in_dims[d]-1.
 * Interpolation, one dim at a time: x [outer][in_n][inner] -> y [outer][out_n][inner],
 *   y[o][j][i] = sum over t ascending of w[j*taps+t] * x[o][idx[j*taps+t]][i], accumulated
 *   with fmaf from 0; where idx[j*taps] is -1 the output is `extrapolation` instead. */
O2C_KERNEL void resize_nearest_bytes(int rank, const int64_t *in_dims, const int64_t *out_dims,
                                     const int64_t *tables, int64_t elem_size, const void *x,
                                     void *y)
{
    int64_t xs[8], pos[8] = {0}, tab[8], total = 1, s = 1, t = 0;
    for (int d = rank - 1; d >= 0; d--) {
        xs[d] = s;
        s *= in_dims[d];
        total *= out_dims[d];
    }
    for (int d = 0; d < rank; d++) {
        tab[d] = t;
        t += out_dims[d];
    }
    const unsigned char *xb = (const unsigned char *)x;
    unsigned char *yb = (unsigned char *)y;
    for (int64_t i = 0; i < total; i++) {
        int64_t off = 0;
        for (int d = 0; d < rank; d++)
            off += tables[tab[d] + pos[d]] * xs[d];
        memcpy(yb + i * elem_size, xb + off * elem_size, (size_t)elem_size);
        for (int d = rank - 1; d >= 0; d--) {
            if (++pos[d] < out_dims[d])
                break;
            pos[d] = 0;
        }
    }
}

O2C_KERNEL void resize_1d_f32(int64_t outer, int64_t in_n, int64_t out_n, int64_t inner,
                              int64_t taps, const int64_t *idx, const float *w, float extrapolation,
                              const float *x, float *y)
{
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < out_n; j++) {
            float *yr = y + (o * out_n + j) * inner;
            if (idx[j * taps] < 0) {
                for (int64_t i = 0; i < inner; i++)
                    yr[i] = extrapolation;
                continue;
            }
            for (int64_t i = 0; i < inner; i++)
                yr[i] = 0.0f;
            for (int64_t t = 0; t < taps; t++) {
                const float *xr = x + (o * in_n + idx[j * taps + t]) * inner;
                const float wt = w[j * taps + t];
                for (int64_t i = 0; i < inner; i++)
                    yr[i] = fmaf(wt, xr[i], yr[i]);
            }
        }
}

/* ---- OneHot ----
 * idx [outer][inner] of type idx_type (O2C_DATA_I64, _I32, _F32 or _F64; floats truncate
 * toward zero) -> y [outer][depth][inner]: values[1] where the index (negative: + depth)
 * equals the depth position, values[0] elsewhere; values holds two elements. */
O2C_KERNEL void one_hot_bytes(int64_t outer, int64_t depth, int64_t inner, int idx_type,
                              const void *idx, int64_t elem_size, const void *values, void *y)
{
    const unsigned char *vb = (const unsigned char *)values;
    unsigned char *yb = (unsigned char *)y;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t j, e = o * inner + i;
            if (idx_type == O2C_DATA_I64)
                j = ((const int64_t *)idx)[e];
            else if (idx_type == O2C_DATA_I32)
                j = ((const int32_t *)idx)[e];
            else {
                double v = idx_type == O2C_DATA_F32 ? (double)((const float *)idx)[e]
                                                    : ((const double *)idx)[e];
                j = v > -9.0e18 && v < 9.0e18 ? (int64_t)v : depth; /* NaN: no match */
            }
            if (j < 0)
                j += depth;
            for (int64_t d = 0; d < depth; d++)
                memcpy(yb + ((o * depth + d) * inner + i) * elem_size, vb + (d == j) * elem_size,
                       (size_t)elem_size);
        }
}

/* ---- Trilu: x, y [batch][rows][cols]; keeps element (r, c) where c - r >= k (upper) or
 * c - r <= k (lower), zero bytes elsewhere. ---- */
O2C_KERNEL void trilu_bytes(int64_t batch, int64_t rows, int64_t cols, int64_t k, int upper,
                            int64_t elem_size, const void *x, void *y)
{
    const unsigned char *xb = (const unsigned char *)x;
    unsigned char *yb = (unsigned char *)y;
    for (int64_t b = 0; b < batch; b++)
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++) {
                int64_t e = ((b * rows + r) * cols + c) * elem_size;
                int keep = upper ? c - r >= k : c - r <= k;
                if (keep)
                    memcpy(yb + e, xb + e, (size_t)elem_size);
                else
                    memset(yb + e, 0, (size_t)elem_size);
            }
}

/* ---- CumSum: x, y [outer][n][inner], running sum along n, in order of the walk (from the
 * end when reverse); exclusive sums leave the current element out. ---- */
#define O2C_CUMSUM_KERNEL(NAME, T)                                                                 \
    O2C_KERNEL void NAME(int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse,      \
                         const T *x, T *y)                                                         \
    {                                                                                              \
        for (int64_t o = 0; o < outer; o++)                                                        \
            for (int64_t i = 0; i < inner; i++) {                                                  \
                T acc = 0;                                                                         \
                for (int64_t s = 0; s < n; s++) {                                                  \
                    int64_t j = reverse ? n - 1 - s : s, e = (o * n + j) * inner + i;              \
                    T v = x[e];                                                                    \
                    if (exclusive) {                                                               \
                        y[e] = acc;                                                                \
                        acc = acc + v;                                                             \
                    } else {                                                                       \
                        acc = acc + v;                                                             \
                        y[e] = acc;                                                                \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
    }
O2C_CUMSUM_KERNEL(cumsum_f32, float)
O2C_CUMSUM_KERNEL(cumsum_f64, double)
O2C_CUMSUM_KERNEL(cumsum_i32, int32_t)
O2C_CUMSUM_KERNEL(cumsum_i64, int64_t)

/* ---- CumProd: as CumSum with products from 1 (exclusive: the first element is 1). Integer
 * products run in the unsigned type of the same width, so overflow wraps instead of being
 * undefined. ---- */
#define O2C_CUMPROD_KERNEL(NAME, T, ACC)                                                           \
    O2C_KERNEL void NAME(int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse,      \
                         const T *x, T *y)                                                         \
    {                                                                                              \
        for (int64_t o = 0; o < outer; o++)                                                        \
            for (int64_t i = 0; i < inner; i++) {                                                  \
                ACC acc = 1;                                                                       \
                for (int64_t s = 0; s < n; s++) {                                                  \
                    int64_t j = reverse ? n - 1 - s : s, e = (o * n + j) * inner + i;              \
                    ACC v = (ACC)x[e];                                                             \
                    if (exclusive) {                                                               \
                        y[e] = (T)acc;                                                             \
                        acc = acc * v;                                                             \
                    } else {                                                                       \
                        acc = acc * v;                                                             \
                        y[e] = (T)acc;                                                             \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
    }
O2C_CUMPROD_KERNEL(cumprod_f32, float, float)
O2C_CUMPROD_KERNEL(cumprod_f64, double, double)
O2C_CUMPROD_KERNEL(cumprod_i32, int32_t, uint32_t)
O2C_CUMPROD_KERNEL(cumprod_i64, int64_t, uint64_t)

/* ---- ArgMax / ArgMin, TopK, Hardmax: x [outer][n][inner] along n ---- */

/* y [outer][inner] int64: the index of the first (select_last: last) maximum (is_min: minimum). */
#define O2C_ARG_KERNEL(NAME, T)                                                                    \
    O2C_KERNEL void NAME(int64_t outer, int64_t n, int64_t inner, int is_min, int select_last,     \
                         const T *x, int64_t *y)                                                   \
    {                                                                                              \
        for (int64_t o = 0; o < outer; o++)                                                        \
            for (int64_t i = 0; i < inner; i++) {                                                  \
                int64_t best = 0;                                                                  \
                for (int64_t j = 1; j < n; j++) {                                                  \
                    T a = x[(o * n + j) * inner + i], b = x[(o * n + best) * inner + i];           \
                    int better = is_min ? a < b : a > b;                                           \
                    if (better || (select_last && a == b))                                         \
                        best = j;                                                                  \
                }                                                                                  \
                y[o * inner + i] = best;                                                           \
            }                                                                                      \
    }
O2C_ARG_KERNEL(arg_f32, float)
O2C_ARG_KERNEL(arg_f64, double)
O2C_ARG_KERNEL(arg_i32, int32_t)
O2C_ARG_KERNEL(arg_i64, int64_t)

/* values [outer][k][inner] and indices [outer][k][inner] (int64): the k first elements of each
 * line, found by k selection passes, in this order: a (at index ia) comes before b (at ib)
 * when a is greater (largest) or smaller (smallest) than b, NaN counting as greater than
 * every number; equal values (and NaNs) by the lower index first. */
#define O2C_TOPK_BEFORE(a, ia, b, ib, largest, ISNAN)                                              \
    ((ISNAN(a) || ISNAN(b)) ? (ISNAN(a) && ISNAN(b) ? (ia) < (ib)                                  \
                               : (largest)          ? ISNAN(a)                                     \
                                                    : ISNAN(b))                                             \
     : (a) != (b)           ? ((largest) ? (a) > (b) : (a) < (b))                                  \
                            : (ia) < (ib))
#define O2C_DATA_ISNAN(v)  ((v) != (v))
#define O2C_DATA_NOTNAN(v) 0
#define O2C_TOPK_KERNEL(NAME, T, ISNAN)                                                            \
    O2C_KERNEL void NAME(int64_t outer, int64_t n, int64_t inner, int64_t k, int largest,          \
                         const T *x, T *values, int64_t *indices)                                  \
    {                                                                                              \
        for (int64_t o = 0; o < outer; o++)                                                        \
            for (int64_t i = 0; i < inner; i++) {                                                  \
                const T *line = x + o * n * inner + i;                                             \
                int64_t prev = -1;                                                                 \
                for (int64_t t = 0; t < k; t++) {                                                  \
                    int64_t best = -1;                                                             \
                    for (int64_t j = 0; j < n; j++) {                                              \
                        const T v = line[j * inner];                                               \
                        if (prev >= 0) {                                                           \
                            const T p = line[prev * inner];                                        \
                            if (!O2C_TOPK_BEFORE(p, prev, v, j, largest, ISNAN))                   \
                                continue; /* picked already */                                     \
                        }                                                                          \
                        if (best < 0) {                                                            \
                            best = j;                                                              \
                        } else {                                                                   \
                            const T b = line[best * inner];                                        \
                            if (O2C_TOPK_BEFORE(v, j, b, best, largest, ISNAN))                    \
                                best = j;                                                          \
                        }                                                                          \
                    }                                                                              \
                    values[(o * k + t) * inner + i] = line[best * inner];                          \
                    indices[(o * k + t) * inner + i] = best;                                       \
                    prev = best;                                                                   \
                }                                                                                  \
            }                                                                                      \
    }
O2C_TOPK_KERNEL(topk_f32, float, O2C_DATA_ISNAN)
O2C_TOPK_KERNEL(topk_f64, double, O2C_DATA_ISNAN)
O2C_TOPK_KERNEL(topk_i32, int32_t, O2C_DATA_NOTNAN)
O2C_TOPK_KERNEL(topk_i64, int64_t, O2C_DATA_NOTNAN)
O2C_TOPK_KERNEL(topk_u64, uint64_t, O2C_DATA_NOTNAN)

/* y = 1 at the first maximum of each line, 0 elsewhere. */
O2C_KERNEL void hardmax_f32(int64_t outer, int64_t n, int64_t inner, const float *x, float *y)
{
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            int64_t best = 0;
            for (int64_t j = 0; j < n; j++) {
                if (x[(o * n + j) * inner + i] > x[(o * n + best) * inner + i])
                    best = j;
                y[(o * n + j) * inner + i] = 0.0f;
            }
            if (n > 0)
                y[(o * n + best) * inner + i] = 1.0f;
        }
}

/* ---- activations: x[n] -> y[n] (y may be x) ---- */

/* x < -lambd: x + bias; x > lambd: x - bias; else 0 */
O2C_KERNEL void shrink_f32(int64_t n, float lambd, float bias, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        y[i] = v < -lambd ? v + bias : v > lambd ? v - bias : 0.0f;
    }
}

/* x > alpha: x; else 0 */
O2C_KERNEL void thresholded_relu_f32(int64_t n, float alpha, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] > alpha ? x[i] : 0.0f;
}

/* max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) */
O2C_KERNEL void celu_f32(int64_t n, float alpha, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        const float neg = alpha * (o2c_expf(v / alpha) - 1.0f);
        y[i] = (v > 0.0f ? v : 0.0f) + (neg < 0.0f ? neg : 0.0f);
    }
}

/* x * tanh(softplus(x)), softplus(x) = log1p(exp(x)) (x itself above 20, where the two agree
 * in float) */
O2C_KERNEL void mish_f32(int64_t n, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++) {
        const float v = x[i];
        const float sp = v > 20.0f ? v : o2c_log1pf(o2c_expf(v));
        y[i] = v * o2c_tanhf(sp);
    }
}

/* PRelu: y = a < 0 ? a * slope : a, broadcast over a loop space (rank 1..8, dims, element
 * strides of a and slope per dim, 0 where broadcast; y contiguous). */
O2C_KERNEL void prelu_f32(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,
                          const float *a, const float *b, float *y)
{
    int64_t pos[8] = {0}, total = 1, oa = 0, ob = 0;
    for (int d = 0; d < rank; d++)
        total *= dims[d];
    for (int64_t i = 0; i < total; i++) {
        const float v = a[oa];
        y[i] = v < 0.0f ? v * b[ob] : v;
        for (int d = rank - 1; d >= 0; d--) {
            oa += sa[d];
            ob += sb[d];
            if (++pos[d] < dims[d])
                break;
            oa -= sa[d] * dims[d];
            ob -= sb[d] * dims[d];
            pos[d] = 0;
        }
    }
}

/* ---- Einsum: y[o] = sum over the reduction index r (row-major over red_dims, ascending) of
 * a[offset_a(o, r)] * b[offset_b(o, r)], accumulated with fmaf from 0; with b NULL (one
 * operand) of a[offset_a(o, r)] alone.
 *   out_rank 0..8, out_dims, out_sa, out_sb: the output dims and the element strides of a and
 *   b along each; red_rank 0..8, red_dims, red_sa, red_sb likewise for the summed dims.
 *   (A letter repeated in one operand has the sum of its strides there: a diagonal.) */
#define O2C_EINSUM_KERNEL(NAME, T, FMA)                                                            \
    O2C_KERNEL void NAME(int out_rank, const int64_t *out_dims, const int64_t *out_sa,             \
                         const int64_t *out_sb, int red_rank, const int64_t *red_dims,             \
                         const int64_t *red_sa, const int64_t *red_sb, const T *a, const T *b,     \
                         T *y)                                                                     \
    {                                                                                              \
        int64_t opos[8] = {0}, n_out = 1, n_red = 1, oa = 0, ob = 0;                               \
        for (int d = 0; d < out_rank; d++)                                                         \
            n_out *= out_dims[d];                                                                  \
        for (int d = 0; d < red_rank; d++)                                                         \
            n_red *= red_dims[d];                                                                  \
        for (int64_t i = 0; i < n_out; i++) {                                                      \
            int64_t rpos[8] = {0}, ra = oa, rb = ob;                                               \
            T acc = 0;                                                                             \
            for (int64_t r = 0; r < n_red; r++) {                                                  \
                acc = b ? FMA(a[ra], b[rb], acc) : acc + a[ra];                                    \
                for (int d = red_rank - 1; d >= 0; d--) {                                          \
                    ra += red_sa[d];                                                               \
                    rb += red_sb[d];                                                               \
                    if (++rpos[d] < red_dims[d])                                                   \
                        break;                                                                     \
                    ra -= red_sa[d] * red_dims[d];                                                 \
                    rb -= red_sb[d] * red_dims[d];                                                 \
                    rpos[d] = 0;                                                                   \
                }                                                                                  \
            }                                                                                      \
            y[i] = acc;                                                                            \
            for (int d = out_rank - 1; d >= 0; d--) {                                              \
                oa += out_sa[d];                                                                   \
                ob += out_sb[d];                                                                   \
                if (++opos[d] < out_dims[d])                                                       \
                    break;                                                                         \
                oa -= out_sa[d] * out_dims[d];                                                     \
                ob -= out_sb[d] * out_dims[d];                                                     \
                opos[d] = 0;                                                                       \
            }                                                                                      \
        }                                                                                          \
    }
O2C_EINSUM_KERNEL(einsum_f32, float, fmaf)
O2C_EINSUM_KERNEL(einsum_f64, double, fma)
