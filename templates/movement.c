/* movement.c — data movement that does no arithmetic: transpose, concat, gather, copy.
 *
 * Type-generic: tensors are byte arrays and elements are elem_size bytes (any size; 1, 2, 4
 * and 8 get loops with a constant-size copy, which compilers turn into plain loads and
 * stores). Bits are copied unchanged, so these kernels serve every element type.
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

/* Copies n elements of elem_size bytes from x, stride x_step bytes, to contiguous y. */
O2C_KERNEL void strided_copy_bytes(int64_t n, int64_t elem_size, const unsigned char *x,
                                   int64_t x_step, unsigned char *y)
{
    switch (elem_size) {
    case 1:
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i * x_step];
        break;
    case 2:
        for (int64_t i = 0; i < n; i++)
            memcpy(y + i * 2, x + i * x_step, 2);
        break;
    case 4:
        for (int64_t i = 0; i < n; i++)
            memcpy(y + i * 4, x + i * x_step, 4);
        break;
    case 8:
        for (int64_t i = 0; i < n; i++)
            memcpy(y + i * 8, x + i * x_step, 8);
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(y + i * elem_size, x + i * x_step, (size_t)elem_size);
        break;
    }
}

/* Rows a0..a1 of one column of transpose_tile_bytes; called with a constant es, so that each
 * copy is a move, not a memcpy call. */
static inline void transpose_tile_column(int64_t a0, int64_t a1, int64_t B, size_t es,
                                         const unsigned char *xs, unsigned char *ys)
{
    for (int64_t a = a0; a < a1; a++)
        memcpy(ys + a * B * (int64_t)es, xs + a * (int64_t)es, es);
}

/* transpose_tile_bytes with B and es constant at the call: gcc and clang vectorise it as
 * loads of each of the B rows and shuffles into y. The byte-at-a-time loop took 10 us, 7% of
 * tiny_mobilenetv1_vww_int8, for the 96x96x3 bytes of its quantised input. */
static inline void transpose_interleave(int64_t A, int64_t B, size_t es,
                                        const unsigned char *restrict x, int64_t x_step,
                                        unsigned char *restrict y)
{
    for (int64_t a = 0; a < A; a++)
        for (int64_t b = 0; b < B; b++)
            memcpy(y + (a * B + b) * (int64_t)es, x + b * x_step + a * (int64_t)es, es);
}

/* y[a][b] = the element at byte a * elem_size + b * x_step of x, for a < A, b < B, with B
 * small (a graph input's 3 channels, a channel shuffle's 2 groups): a row of y is then too
 * short for strided_copy_bytes to pay its call. Each b reads 16 contiguous elements of x
 * while the 16 rows of y they go to stay in cache; 2 or 3 rows of bytes or floats (the cases
 * of the benchmark models) are interleaved at once. */
O2C_KERNEL void transpose_tile_bytes(int64_t A, int64_t B, int64_t elem_size,
                                     const unsigned char *x, int64_t x_step, unsigned char *y)
{
    switch (elem_size == 1 || elem_size == 4 ? B * 8 + elem_size : 0) {
    case 2 * 8 + 1:
        transpose_interleave(A, 2, 1, x, x_step, y);
        return;
    case 3 * 8 + 1:
        transpose_interleave(A, 3, 1, x, x_step, y);
        return;
    case 2 * 8 + 4:
        transpose_interleave(A, 2, 4, x, x_step, y);
        return;
    case 3 * 8 + 4:
        transpose_interleave(A, 3, 4, x, x_step, y);
        return;
    default:
        break;
    }
    for (int64_t a0 = 0; a0 < A; a0 += 16) {
        const int64_t a1 = A - a0 < 16 ? A : a0 + 16;
        for (int64_t b = 0; b < B; b++) {
            const unsigned char *xs = x + b * x_step;
            unsigned char *ys = y + b * elem_size;
            if (elem_size == 2)
                transpose_tile_column(a0, a1, B, 2, xs, ys);
            else if (elem_size == 4)
                transpose_tile_column(a0, a1, B, 4, xs, ys);
            else
                transpose_tile_column(a0, a1, B, (size_t)elem_size, xs, ys);
        }
    }
}

/* y = x with its dims permuted: output dim d is input dim perm[d].
 *   in_dims  [rank] shape of x, rank 0..8
 *   perm     [rank] a permutation of 0..rank-1 (ONNX Transpose's attribute)
 *   x        row-major [in_dims]
 *   y        row-major [in_dims[perm[0]]]...[in_dims[perm[rank-1]]]; must not alias x.
 * The output dims are first simplified: dims of size 1 are dropped, and neighbouring output
 * dims that are also neighbours, in the same order, in the input are merged. What is left
 * is walked row by row (the last output dim), copying whole rows when they are contiguous
 * in x too, or tile by tile (the last two) when the last is short and strided and the one
 * before is contiguous. */
O2C_KERNEL void transpose_bytes(int rank, const int64_t *in_dims, const int32_t *perm,
                                int64_t elem_size, const void *x, void *y)
{
    int64_t in_stride[8]; /* byte stride of each input dim */
    int64_t dims[8], step[8], idx[8] = {0};
    int64_t s = elem_size;
    for (int d = rank - 1; d >= 0; d--) {
        in_stride[d] = s;
        s *= in_dims[d];
    }
    if (s == 0)
        return; /* empty tensor */
    int r = 0;  /* simplified output dims: size dims[i], input byte step step[i] */
    for (int d = 0; d < rank; d++) {
        const int64_t n = in_dims[perm[d]], st = in_stride[perm[d]];
        if (n == 1)
            continue;
        if (r > 0 && step[r - 1] == st * n) {
            dims[r - 1] *= n;
            step[r - 1] = st;
        } else {
            dims[r] = n;
            step[r] = st;
            r++;
        }
    }
    if (r == 0) { /* one element */
        dims[0] = 1;
        step[0] = elem_size;
        r = 1;
    }
    /* a tile when the last output dim is short and strided in x and the one before is
     * contiguous (3 channels to NHWC, an NHWC channel shuffle): each step copies the last two
     * dims (half the time of rows of strided copies at [50176][3] and [784][58][2]) */
    const int inner =
        r >= 2 && dims[r - 1] < 16 && step[r - 2] == elem_size && step[r - 1] != elem_size ? 2 : 1;
    int64_t outer = 1;
    for (int d = 0; d < r - inner; d++)
        outer *= dims[d];
    const int64_t n = dims[r - 1], row_bytes = n * elem_size;
    const int64_t block_bytes = (inner == 2 ? dims[r - 2] : 1) * row_bytes;
    const unsigned char *xb = (const unsigned char *)x;
    unsigned char *yb = (unsigned char *)y;
    int64_t off = 0; /* byte offset in x of the current step */
    for (int64_t o = 0; o < outer; o++) {
        unsigned char *yo = yb + o * block_bytes;
        if (inner == 2)
            transpose_tile_bytes(dims[r - 2], n, elem_size, xb + off, step[r - 1], yo);
        else if (step[r - 1] == elem_size)
            memcpy(yo, xb + off, (size_t)row_bytes);
        else
            strided_copy_bytes(n, elem_size, xb + off, step[r - 1], yo);
        /* odometer over the outer dims, last fastest */
        for (int d = r - inner - 1; d >= 0; d--) {
            idx[d]++;
            off += step[d];
            if (idx[d] < dims[d])
                break;
            off -= step[d] * dims[d];
            idx[d] = 0;
        }
    }
}

/* One input of a Concat: x viewed as [outer][x_block_bytes] is copied into y viewed as
 * [outer][y_block_bytes], at byte offset y_offset_bytes inside each y block.
 * (outer = product of dims before the axis; x_block_bytes = x's dims from the axis on, in
 * bytes; y_block_bytes likewise for y; y_offset_bytes = size of the inputs before this one
 * along the axis times the inner size, in bytes.) x and y must not overlap. */
O2C_KERNEL void concat_bytes(int64_t outer, int64_t x_block_bytes, int64_t y_block_bytes,
                             int64_t y_offset_bytes, const void *x, void *y)
{
    if (x_block_bytes <= 0)
        return;
    const unsigned char *xb = (const unsigned char *)x;
    unsigned char *yb = (unsigned char *)y;
    for (int64_t o = 0; o < outer; o++)
        memcpy(yb + o * y_block_bytes + y_offset_bytes, xb + o * x_block_bytes,
               (size_t)x_block_bytes);
}

/* ONNX Gather: y[o][i][:] = data[o][idx[i]][:].
 *   data  [outer][axis_len][inner_bytes]
 *   idx   [n_idx] indices along the axis; negative ones count from the end (idx + axis_len)
 *   y     [outer][n_idx][inner_bytes]; must not overlap data.
 * An index still outside [0, axis_len) writes zeros: generated code has no error paths. */
O2C_KERNEL void gather_bytes(int64_t outer, int64_t axis_len, int64_t inner_bytes, const void *data,
                             const int64_t *idx, int64_t n_idx, void *y)
{
    if (inner_bytes <= 0)
        return;
    const unsigned char *db = (const unsigned char *)data;
    unsigned char *yb = (unsigned char *)y;
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < n_idx; i++) {
            int64_t j = idx[i];
            if (j < 0)
                j += axis_len;
            unsigned char *dst = yb + (o * n_idx + i) * inner_bytes;
            if (j < 0 || j >= axis_len)
                memset(dst, 0, (size_t)inner_bytes);
            else
                memcpy(dst, db + (o * axis_len + j) * inner_bytes, (size_t)inner_bytes);
        }
    }
}

/* y[0..n_bytes) = x[0..n_bytes). The buffers may overlap or be the same (memmove). */
O2C_KERNEL void copy_bytes(int64_t n_bytes, const void *x, void *y)
{
    if (n_bytes > 0 && x != y)
        memmove(y, x, (size_t)n_bytes);
}
