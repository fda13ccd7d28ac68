/* tensor.c — comparisons and logic (Equal, Less, ..., Not, And, Or, Xor, Where), type
 * conversion (Cast), and strided copies (Slice, Split, Expand, Tile), plus the fills that
 * only constant folding uses (Range, ConstantOfShape).
 *
 * Broadcasting kernels take the iteration space already simplified by the compiler (size-1
 * dims dropped, dims every operand steps through as one merged; see broadcast_loop in
 * compiler/ops/tensor.c):
 *   rank          number of loop dims, 1..8
 *   dims          [rank] loop shape, row-major; the output is contiguous [dims]
 *   sa, sb, ...   [rank] element stride of each operand along each loop dim, 0 where broadcast
 * Element (i0..ir-1) reads a[sum i_d*sa[d]], b[sum i_d*sb[d]] and writes the flat index.
 * Outputs must not overlap inputs unless they are the same contiguous tensor.
 *
 * Booleans are uint8_t holding 0 or 1 (ONNX bool); kernels that read them treat any
 * nonzero byte as true and always write 0 or 1.
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Odometer over dims[0..rank-1] (last fastest) keeping element offsets in step. */
#define O2C_TENSOR_NEXT2(rank, dims, sa, sb, idx, off_a, off_b)                                    \
    for (int d_ = (rank)-1; d_ >= 0; d_--) {                                                       \
        idx[d_]++;                                                                                 \
        off_a += sa[d_];                                                                           \
        off_b += sb[d_];                                                                           \
        if (idx[d_] < dims[d_])                                                                    \
            break;                                                                                 \
        off_a -= sa[d_] * dims[d_];                                                                \
        off_b -= sb[d_] * dims[d_];                                                                \
        idx[d_] = 0;                                                                               \
    }

/* ---- Comparisons: a, b of type T -> bool y (numpy: any comparison with NaN is false,
 *      except != ) ---- */

#define O2C_COMPARE_KERNEL(NAME, T, OP)                                                            \
    O2C_KERNEL void NAME(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,      \
                         const void *a, const void *b, uint8_t *y)                                 \
    {                                                                                              \
        const T *ta = (const T *)a, *tb = (const T *)b;                                            \
        int64_t idx[8] = {0}, off_a = 0, off_b = 0, rows = 1;                                      \
        for (int d = 0; d < rank - 1; d++)                                                         \
            rows *= dims[d];                                                                       \
        const int64_t n = dims[rank - 1], as = sa[rank - 1], bs = sb[rank - 1];                    \
        for (int64_t row = 0; row < rows; row++) {                                                 \
            uint8_t *yr = y + row * n;                                                             \
            for (int64_t i = 0; i < n; i++)                                                        \
                yr[i] = (uint8_t)(ta[off_a + i * as] OP tb[off_b + i * bs]);                       \
            O2C_TENSOR_NEXT2(rank - 1, dims, sa, sb, idx, off_a, off_b)                            \
        }                                                                                          \
    }

/* One kernel per comparison and element type: NAME_<type> with type f32, f64, i8, u8,
 * i16, u16, i32, u32, i64, u64 (bool compares as u8). */
#define O2C_COMPARE_ALL_TYPES(NAME, OP)                                                            \
    O2C_COMPARE_KERNEL(NAME##_f32, float, OP)                                                      \
    O2C_COMPARE_KERNEL(NAME##_f64, double, OP)                                                     \
    O2C_COMPARE_KERNEL(NAME##_i8, int8_t, OP)                                                      \
    O2C_COMPARE_KERNEL(NAME##_u8, uint8_t, OP)                                                     \
    O2C_COMPARE_KERNEL(NAME##_i16, int16_t, OP)                                                    \
    O2C_COMPARE_KERNEL(NAME##_u16, uint16_t, OP)                                                   \
    O2C_COMPARE_KERNEL(NAME##_i32, int32_t, OP)                                                    \
    O2C_COMPARE_KERNEL(NAME##_u32, uint32_t, OP)                                                   \
    O2C_COMPARE_KERNEL(NAME##_i64, int64_t, OP)                                                    \
    O2C_COMPARE_KERNEL(NAME##_u64, uint64_t, OP)

O2C_COMPARE_ALL_TYPES(equal, ==)
O2C_COMPARE_ALL_TYPES(less, <)
O2C_COMPARE_ALL_TYPES(greater, >)
O2C_COMPARE_ALL_TYPES(less_equal, <=)
O2C_COMPARE_ALL_TYPES(greater_equal, >=)

/* ---- Logic on bools ---- */

/* y = !x, x and y [n] */
O2C_KERNEL void not_bool(int64_t n, const uint8_t *x, uint8_t *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = (uint8_t)(x[i] == 0);
}

#define O2C_LOGIC_KERNEL(NAME, EXPR)                                                               \
    O2C_KERNEL void NAME(int rank, const int64_t *dims, const int64_t *sa, const int64_t *sb,      \
                         const uint8_t *a, const uint8_t *b, uint8_t *y)                           \
    {                                                                                              \
        int64_t idx[8] = {0}, off_a = 0, off_b = 0, rows = 1;                                      \
        for (int d = 0; d < rank - 1; d++)                                                         \
            rows *= dims[d];                                                                       \
        const int64_t n = dims[rank - 1], as = sa[rank - 1], bs = sb[rank - 1];                    \
        for (int64_t row = 0; row < rows; row++) {                                                 \
            uint8_t *yr = y + row * n;                                                             \
            for (int64_t i = 0; i < n; i++) {                                                      \
                const int p = a[off_a + i * as] != 0, q = b[off_b + i * bs] != 0;                  \
                yr[i] = (uint8_t)(EXPR);                                                           \
            }                                                                                      \
            O2C_TENSOR_NEXT2(rank - 1, dims, sa, sb, idx, off_a, off_b)                            \
        }                                                                                          \
    }

O2C_LOGIC_KERNEL(and_bool, p &&q)
O2C_LOGIC_KERNEL(or_bool, p || q)
O2C_LOGIC_KERNEL(xor_bool, p != q)

/* ---- Where: out = cond ? x : y, elements of elem_size bytes copied unchanged ----
 *   rank, dims    loop space (see the top of the file); out is contiguous [dims]
 *   sc, sx, sy    [rank] element strides of cond, x, y (0 where broadcast)
 *   cond          bool; x, y, out: elements of elem_size bytes; out must not overlap them */
O2C_KERNEL void where_bytes(int rank, const int64_t *dims, const int64_t *sc, const int64_t *sx,
                            const int64_t *sy, int64_t elem_size, const uint8_t *cond,
                            const void *x, const void *y, void *out)
{
    const unsigned char *xb = (const unsigned char *)x, *yb = (const unsigned char *)y;
    unsigned char *ob = (unsigned char *)out;
    int64_t idx[8] = {0}, off_c = 0, off_x = 0, off_y = 0, rows = 1;
    for (int d = 0; d < rank - 1; d++)
        rows *= dims[d];
    const int64_t n = dims[rank - 1], cs = sc[rank - 1], xs = sx[rank - 1], ys = sy[rank - 1];
    for (int64_t row = 0; row < rows; row++) {
        unsigned char *orow = ob + row * n * elem_size;
        for (int64_t i = 0; i < n; i++) {
            const unsigned char *src = cond[off_c + i * cs] ? xb + (off_x + i * xs) * elem_size
                                                            : yb + (off_y + i * ys) * elem_size;
            switch (elem_size) { /* constant sizes become plain loads and stores */
            case 1: orow[i] = *src; break;
            case 2: memcpy(orow + i * 2, src, 2); break;
            case 4: memcpy(orow + i * 4, src, 4); break;
            case 8: memcpy(orow + i * 8, src, 8); break;
            default: memcpy(orow + i * elem_size, src, (size_t)elem_size); break;
            }
        }
        for (int d = rank - 2; d >= 0; d--) {
            idx[d]++;
            off_c += sc[d];
            off_x += sx[d];
            off_y += sy[d];
            if (idx[d] < dims[d])
                break;
            off_c -= sc[d] * dims[d];
            off_x -= sx[d] * dims[d];
            off_y -= sy[d] * dims[d];
            idx[d] = 0;
        }
    }
}

/* ---- Strided copy: Slice, Split, Expand, Tile ----
 * y[i0..ir-1] = x[offset + sum i_d*strides[d]], elements of elem_size bytes copied unchanged.
 *   rank      number of loop dims, 1..16 (Tile splits each dim in two)
 *   dims      [rank] shape of y, row-major, contiguous
 *   strides   [rank] element stride of x along each dim: negative for reversed slices, 0 to
 *             repeat (Expand, Tile)
 *   offset    element offset in x of y's first element
 * y must not overlap x. Rows whose elements are adjacent in x are copied with memcpy. */
O2C_KERNEL void strided_gather_bytes(int rank, const int64_t *dims, const int64_t *strides,
                                     int64_t offset, int64_t elem_size, const void *x, void *y)
{
    const unsigned char *xb = (const unsigned char *)x;
    unsigned char *yb = (unsigned char *)y;
    int64_t idx[16] = {0}, off = offset, rows = 1;
    for (int d = 0; d < rank - 1; d++)
        rows *= dims[d];
    const int64_t n = dims[rank - 1], s = strides[rank - 1], row_bytes = n * elem_size;
    if (n == 0)
        return;
    for (int64_t row = 0; row < rows; row++) {
        unsigned char *yr = yb + row * row_bytes;
        const unsigned char *xr = xb + off * elem_size;
        if (s == 1) {
            memcpy(yr, xr, (size_t)row_bytes);
        } else {
            for (int64_t i = 0; i < n; i++) {
                const unsigned char *src = xr + i * s * elem_size;
                switch (elem_size) {
                case 1: yr[i] = *src; break;
                case 2: memcpy(yr + i * 2, src, 2); break;
                case 4: memcpy(yr + i * 4, src, 4); break;
                case 8: memcpy(yr + i * 8, src, 8); break;
                default: memcpy(yr + i * elem_size, src, (size_t)elem_size); break;
                }
            }
        }
        for (int d = rank - 2; d >= 0; d--) {
            idx[d]++;
            off += strides[d];
            if (idx[d] < dims[d])
                break;
            off -= strides[d] * dims[d];
            idx[d] = 0;
        }
    }
}

/* ---- Cast ----
 * cast_tensor(n, src, x, dst, y) converts x[n] of ONNX type src to y[n] of type dst (types by
 * their TensorProto.DataType number: 1 float, 2 uint8, 3 int8, 4 uint16, 5 int16, 6 int32,
 * 7 int64, 9 bool, 11 double, 12 uint32, 13 uint64; other numbers do nothing). Rules, which
 * are numpy's astype wherever numpy is defined:
 *   float -> float     rounded to nearest (double -> float overflows to +-inf)
 *   int -> float       rounded to nearest
 *   int -> int         wraps modulo 2^bits (two's complement, as gcc and clang define it)
 *   float -> int       truncated toward zero. Where numpy is undefined (NaN, +-inf, out of
 *                      the target's range) this gives 0 for NaN and saturates otherwise, so
 *                      that no C conversion is undefined. (The compiler refuses to fold those
 *                      cases, since numpy and onnxruntime differ there.)
 *   x -> bool          x != 0 (NaN is true);   bool -> x   0 or 1
 * y must not overlap x unless it is x and both types have the same size. */

/* The types: M(A1, A2, code, C type, kind, min, max, lo, hi). kind F float, I integer, B bool;
 * a float converts to an integer type without overflow iff lo < v < hi (exact doubles). */
#define O2C_CAST_TYPES_A(M, A1, A2)                                                                \
    M(A1, A2, 1, float, F, 0, 0, 0.0, 0.0)                                                         \
    M(A1, A2, 11, double, F, 0, 0, 0.0, 0.0)                                                       \
    M(A1, A2, 3, int8_t, I, INT8_MIN, INT8_MAX, -129.0, 128.0)                                     \
    M(A1, A2, 2, uint8_t, I, 0, UINT8_MAX, -1.0, 256.0)                                            \
    M(A1, A2, 5, int16_t, I, INT16_MIN, INT16_MAX, -32769.0, 32768.0)                              \
    M(A1, A2, 4, uint16_t, I, 0, UINT16_MAX, -1.0, 65536.0)                                        \
    M(A1, A2, 6, int32_t, I, INT32_MIN, INT32_MAX, -2147483649.0, 2147483648.0)                    \
    M(A1, A2, 12, uint32_t, I, 0, UINT32_MAX, -1.0, 4294967296.0)                                  \
    M(A1, A2, 7, int64_t, I, INT64_MIN, INT64_MAX, -9223372036854777856.0, 9223372036854775808.0)  \
    M(A1, A2, 13, uint64_t, I, 0, UINT64_MAX, -1.0, 18446744073709551616.0)                        \
    M(A1, A2, 9, uint8_t, B, 0, 1, 0.0, 0.0)
/* The same list again: a macro cannot expand itself, and the cast is a switch in a switch. */
#define O2C_CAST_TYPES_B(M, A1, A2)                                                                \
    M(A1, A2, 1, float, F, 0, 0, 0.0, 0.0)                                                         \
    M(A1, A2, 11, double, F, 0, 0, 0.0, 0.0)                                                       \
    M(A1, A2, 3, int8_t, I, INT8_MIN, INT8_MAX, -129.0, 128.0)                                     \
    M(A1, A2, 2, uint8_t, I, 0, UINT8_MAX, -1.0, 256.0)                                            \
    M(A1, A2, 5, int16_t, I, INT16_MIN, INT16_MAX, -32769.0, 32768.0)                              \
    M(A1, A2, 4, uint16_t, I, 0, UINT16_MAX, -1.0, 65536.0)                                        \
    M(A1, A2, 6, int32_t, I, INT32_MIN, INT32_MAX, -2147483649.0, 2147483648.0)                    \
    M(A1, A2, 12, uint32_t, I, 0, UINT32_MAX, -1.0, 4294967296.0)                                  \
    M(A1, A2, 7, int64_t, I, INT64_MIN, INT64_MAX, -9223372036854777856.0, 9223372036854775808.0)  \
    M(A1, A2, 13, uint64_t, I, 0, UINT64_MAX, -1.0, 18446744073709551616.0)                        \
    M(A1, A2, 9, uint8_t, B, 0, 1, 0.0, 0.0)

/* Element conversion by (source kind, destination kind). */
#define O2C_CONVERT_FF(v, T, MIN, MAX, LO, HI) ((T)(v))
#define O2C_CONVERT_IF(v, T, MIN, MAX, LO, HI) ((T)(v))
#define O2C_CONVERT_II(v, T, MIN, MAX, LO, HI) ((T)(v))
#define O2C_CONVERT_FI(v, T, MIN, MAX, LO, HI)                                                     \
    ((v) != (v) ? (T)0 : !((v) > (LO)) ? (T)(MIN) : !((v) < (HI)) ? (T)(MAX) : (T)(v))
#define O2C_CONVERT_FB(v, T, MIN, MAX, LO, HI) ((T)((v) != 0))
#define O2C_CONVERT_IB(v, T, MIN, MAX, LO, HI) ((T)((v) != 0))
#define O2C_CONVERT_BB(v, T, MIN, MAX, LO, HI) ((T)((v) != 0))
#define O2C_CONVERT_BF(v, T, MIN, MAX, LO, HI) ((T)((v) != 0))
#define O2C_CONVERT_BI(v, T, MIN, MAX, LO, HI) ((T)((v) != 0))

#define O2C_CAST_DST_CASE(ST, SK, CODE, T, KIND, MIN, MAX, LO, HI)                                 \
    case CODE: {                                                                                   \
        const ST *xs = (const ST *)x;                                                              \
        T *yd = (T *)y;                                                                            \
        for (int64_t i = 0; i < n; i++) {                                                          \
            const ST v = xs[i];                                                                    \
            yd[i] = O2C_CONVERT_##SK##KIND(v, T, MIN, MAX, LO, HI);                                \
        }                                                                                          \
        break;                                                                                     \
    }
#define O2C_CAST_SRC_CASE(U1, U2, CODE, T, KIND, MIN, MAX, LO, HI)                                 \
    case CODE:                                                                                     \
        switch (dst) {                                                                             \
            O2C_CAST_TYPES_B(O2C_CAST_DST_CASE, T, KIND)                                           \
        default: break;                                                                            \
        }                                                                                          \
        break;

O2C_KERNEL void cast_tensor(int64_t n, int src, const void *x, int dst, void *y)
{
    switch (src) {
        O2C_CAST_TYPES_A(O2C_CAST_SRC_CASE, ~, ~)
    default: break;
    }
}

/* ---- Fills for constant folding ---- */

/* numpy.arange(start, limit, delta) in float64 for n elements: numpy's fill computes
 * y[i] = start + i * (start + delta - start). */
O2C_KERNEL void range_f64(int64_t n, double start, double delta, double *y)
{
    const double d = (start + delta) - start;
    for (int64_t i = 0; i < n; i++)
        y[i] = i == 0 ? start : start + (double)i * d;
}

/* y[i] = start + i * delta in int64 (wrapping). */
O2C_KERNEL void range_i64(int64_t n, int64_t start, int64_t delta, int64_t *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = (int64_t)((uint64_t)start + (uint64_t)i * (uint64_t)delta);
}

/* y[n] = copies of the one element (elem_size bytes) at value. */
O2C_KERNEL void fill_bytes(int64_t n, int64_t elem_size, const void *value, void *y)
{
    unsigned char *yb = (unsigned char *)y;
    for (int64_t i = 0; i < n; i++)
        memcpy(yb + i * elem_size, value, (size_t)elem_size);
}

/* The helpers above are local to this file: do not leak them into the includer. */
#undef O2C_TENSOR_NEXT2
#undef O2C_COMPARE_KERNEL
#undef O2C_COMPARE_ALL_TYPES
#undef O2C_LOGIC_KERNEL
#undef O2C_CAST_TYPES_A
#undef O2C_CAST_TYPES_B
#undef O2C_CONVERT_FF
#undef O2C_CONVERT_IF
#undef O2C_CONVERT_II
#undef O2C_CONVERT_FI
#undef O2C_CONVERT_FB
#undef O2C_CONVERT_IB
#undef O2C_CONVERT_BB
#undef O2C_CONVERT_BF
#undef O2C_CONVERT_BI
#undef O2C_CAST_DST_CASE
#undef O2C_CAST_SRC_CASE
