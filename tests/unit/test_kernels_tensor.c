/* Unit test of templates/tensor.c: comparisons and logic with broadcasting, Where, the
 * strided copies behind Slice/Expand/Tile/Split, every Cast rule (truncation, saturation of
 * what numpy leaves undefined, wrap-around, bools, rounding of wide integers), and the
 * folding fills. Expected values are hand-computed. The template is compiled after
 * kernels.h with extern kernels, so every prototype there is checked against its
 * definition. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/tensor.c"

#include <stdio.h>

#include "check.h"

static int eq_u8(const uint8_t *a, const uint8_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) {
            printf("  element %d: got %d want %d\n", i, a[i], b[i]);
            return 0;
        }
    return 1;
}

static void test_compare(void)
{
    /* a [2][3], b [3] broadcast over rows */
    const float a[6] = {1.0f, NAN, -0.0f, 3.0f, 2.0f, INFINITY};
    const float b[3] = {1.0f, NAN, 0.0f};
    const int64_t dims[2] = {2, 3}, sa[2] = {3, 1}, sb[2] = {0, 1};
    uint8_t y[6];
    equal_f32(2, dims, sa, sb, a, b, y);
    const uint8_t eq_want[6] = {1, 0, 1, 0, 0, 0};
    check(eq_u8(y, eq_want, 6), "equal_f32 (NaN != NaN, -0 == 0)");
    less_f32(2, dims, sa, sb, a, b, y);
    const uint8_t lt_want[6] = {0, 0, 0, 0, 0, 0};
    check(eq_u8(y, lt_want, 6), "less_f32");
    greater_f32(2, dims, sa, sb, a, b, y);
    const uint8_t gt_want[6] = {0, 0, 0, 1, 0, 1};
    check(eq_u8(y, gt_want, 6), "greater_f32");
    less_equal_f32(2, dims, sa, sb, a, b, y);
    const uint8_t le_want[6] = {1, 0, 1, 0, 0, 0};
    check(eq_u8(y, le_want, 6), "less_equal_f32");
    greater_equal_f32(2, dims, sa, sb, a, b, y);
    const uint8_t ge_want[6] = {1, 0, 1, 1, 0, 1};
    check(eq_u8(y, ge_want, 6), "greater_equal_f32");

    /* integer extremes compare as integers, not through float */
    const int64_t d1[1] = {3}, s1[1] = {1}, s0[1] = {0};
    const int64_t ia[3] = {INT64_MAX, INT64_MAX - 1, INT64_MIN}, ib[1] = {INT64_MAX - 1};
    greater_i64(1, d1, s1, s0, ia, ib, y);
    check(y[0] == 1 && y[1] == 0 && y[2] == 0, "greater_i64 near the limits");
    const uint64_t ua[3] = {UINT64_MAX, 0, 5}, ub[1] = {1};
    less_u64(1, d1, s1, s0, ua, ub, y);
    check(y[0] == 0 && y[1] == 1 && y[2] == 0, "less_u64 (unsigned)");
    const int8_t ca[3] = {-128, 0, 127}, cb[1] = {0};
    less_i8(1, d1, s1, s0, ca, cb, y);
    check(y[0] == 1 && y[1] == 0 && y[2] == 0, "less_i8 (signed)");
    const uint8_t bo[3] = {1, 0, 1}, bt[1] = {1};
    equal_u8(1, d1, s1, s0, bo, bt, y);
    check(y[0] == 1 && y[1] == 0 && y[2] == 1, "equal on bools");
    const double da[3] = {0.1, 0.2, 0.3}, db[1] = {0.2};
    less_equal_f64(1, d1, s1, s0, da, db, y);
    check(y[0] == 1 && y[1] == 1 && y[2] == 0, "less_equal_f64");
}

static void test_logic(void)
{
    /* a [2][2] with b [2][1] (column broadcast) */
    const uint8_t a[4] = {0, 1, 0, 1}, b[2] = {0, 1};
    const int64_t dims[2] = {2, 2}, sa[2] = {2, 1}, sb[2] = {1, 0};
    uint8_t y[4];
    and_bool(2, dims, sa, sb, a, b, y);
    const uint8_t and_want[4] = {0, 0, 0, 1};
    check(eq_u8(y, and_want, 4), "and_bool");
    or_bool(2, dims, sa, sb, a, b, y);
    const uint8_t or_want[4] = {0, 1, 1, 1};
    check(eq_u8(y, or_want, 4), "or_bool");
    xor_bool(2, dims, sa, sb, a, b, y);
    const uint8_t xor_want[4] = {0, 1, 1, 0};
    check(eq_u8(y, xor_want, 4), "xor_bool");
    const uint8_t odd[3] = {0, 1, 7};
    not_bool(3, odd, y);
    check(y[0] == 1 && y[1] == 0 && y[2] == 0, "not_bool (nonzero is true)");
}

static void test_where(void)
{
    /* cond [2][1], x [2][3], y scalar */
    const uint8_t c[2] = {1, 0};
    const float x[6] = {1, 2, 3, 4, 5, 6}, yv[1] = {-1};
    const int64_t dims[2] = {2, 3}, sc[2] = {1, 0}, sx[2] = {3, 1}, sy[2] = {0, 0};
    float out[6];
    where_bytes(2, dims, sc, sx, sy, 4, c, x, yv, out);
    check(out[0] == 1 && out[2] == 3 && out[3] == -1 && out[5] == -1, "where_bytes float");
    const int64_t xi[6] = {10, 20, 30, 40, 50, 60}, yi[6] = {-10, -20, -30, -40, -50, -60};
    const int64_t sy6[2] = {3, 1};
    int64_t oi[6];
    const uint8_t c6[6] = {1, 0, 1, 0, 1, 0};
    const int64_t sc6[2] = {3, 1};
    where_bytes(2, dims, sc6, sx, sy6, 8, c6, xi, yi, oi);
    check(oi[0] == 10 && oi[1] == -20 && oi[4] == 50 && oi[5] == -60, "where_bytes int64");
    const uint8_t xb[6] = {1, 2, 3, 4, 5, 6}, yb[6] = {9, 9, 9, 9, 9, 9};
    uint8_t ob[6];
    where_bytes(2, dims, sc6, sx, sy6, 1, c6, xb, yb, ob);
    check(ob[0] == 1 && ob[1] == 9 && ob[2] == 3, "where_bytes 1-byte elements");
}

static void test_strided(void)
{
    /* x [3][4] = 0..11 */
    float x[12], y[12];
    for (int i = 0; i < 12; i++)
        x[i] = (float)i;

    /* Slice rows 2..0 step -1, columns 1..3 step 2: offset 2*4+1, strides {-4, 2} */
    const int64_t d[2] = {3, 2}, s[2] = {-4, 2};
    strided_gather_bytes(2, d, s, 9, 4, x, y);
    const float slice_want[6] = {9, 11, 5, 7, 1, 3};
    int ok = 1;
    for (int i = 0; i < 6; i++)
        ok &= y[i] == slice_want[i];
    check(ok, "strided_gather: reversed slice with step");

    /* Expand [1][4] row 1 to [2][4]: strides {0, 1} (contiguous rows: memcpy path) */
    const int64_t ed[2] = {2, 4}, es[2] = {0, 1};
    strided_gather_bytes(2, ed, es, 4, 4, x, y);
    check(y[0] == 4 && y[3] == 7 && y[4] == 4 && y[7] == 7, "strided_gather: expand");

    /* Tile [2][2] (x[0..3]) by (2, 2) -> [4][4] as [2][2][2][2], strides {0, 2, 0, 1} */
    const int64_t td[4] = {2, 2, 2, 2}, ts[4] = {0, 2, 0, 1};
    const float tile_want[16] = {0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3};
    float yt[16];
    strided_gather_bytes(4, td, ts, 0, 4, x, yt);
    ok = 1;
    for (int i = 0; i < 16; i++)
        ok &= yt[i] == tile_want[i];
    check(ok, "strided_gather: tile");

    /* Split's second part of columns: [3][2] at offset 2, strides {4, 1}; 2-byte elements */
    uint16_t h[12], hy[6];
    for (int i = 0; i < 12; i++)
        h[i] = (uint16_t)(100 + i);
    const int64_t sd[2] = {3, 2}, ss[2] = {4, 1};
    strided_gather_bytes(2, sd, ss, 2, 2, h, hy);
    check(hy[0] == 102 && hy[1] == 103 && hy[2] == 106 && hy[5] == 111,
          "strided_gather: split part, 2-byte elements");

    /* empty output: nothing written */
    y[0] = -5;
    const int64_t zd[2] = {3, 0};
    strided_gather_bytes(2, zd, s, 0, 4, x, y);
    check(y[0] == -5, "strided_gather: empty");
}

static void test_cast(void)
{
    /* float -> int32: truncation; NaN -> 0, out of range saturates */
    const float f[7] = {-1.7f, 2.9f, -0.5f, NAN, 1e20f, -1e20f, 2147483520.0f};
    int32_t i32[7];
    cast_tensor(7, 1, f, 6, i32);
    check(i32[0] == -1 && i32[1] == 2 && i32[2] == 0 && i32[3] == 0 && i32[4] == INT32_MAX &&
              i32[5] == INT32_MIN && i32[6] == 2147483520,
          "cast float -> int32");
    uint8_t u8[7];
    const float fu[4] = {300.0f, -5.0f, 255.9f, -0.9f};
    cast_tensor(4, 1, fu, 2, u8);
    check(u8[0] == 255 && u8[1] == 0 && u8[2] == 255 && u8[3] == 0, "cast float -> uint8");
    int64_t i64[3];
    const double dd[3] = {-9223372036854775808.0, 9223372036854775808.0, -3.99};
    cast_tensor(3, 11, dd, 7, i64);
    check(i64[0] == INT64_MIN && i64[1] == INT64_MAX && i64[2] == -3, "cast double -> int64");
    uint64_t u64[2];
    const double du[2] = {18446744073709549568.0, 1e30};
    cast_tensor(2, 11, du, 13, u64);
    check(u64[0] == 18446744073709549568u && u64[1] == UINT64_MAX, "cast double -> uint64");

    /* int -> int wraps; int -> float rounds to nearest */
    const int32_t iw[3] = {300, -129, 65535};
    int8_t i8[3];
    cast_tensor(3, 6, iw, 3, i8);
    check(i8[0] == 44 && i8[1] == 127 && i8[2] == -1, "cast int32 -> int8 wraps");
    const int64_t wide[2] = {((int64_t)1 << 53) + 1, ((int64_t)1 << 24) + 1};
    float fw[2];
    double dw[2];
    cast_tensor(2, 7, wide, 1, fw);
    cast_tensor(2, 7, wide, 11, dw);
    check(fw[0] == 9007199254740992.0f && fw[1] == 16777216.0f && dw[0] == 9007199254740992.0 &&
              dw[1] == 16777217.0,
          "cast int64 -> float, double rounds to nearest even");
    const uint64_t um[1] = {UINT64_MAX};
    cast_tensor(1, 13, um, 1, fw);
    check(fw[0] == 18446744073709551616.0f, "cast uint64 max -> float");

    /* bools */
    const float fb[4] = {0.0f, -0.0f, NAN, 0.5f};
    uint8_t b[4];
    cast_tensor(4, 1, fb, 9, b);
    check(b[0] == 0 && b[1] == 0 && b[2] == 1 && b[3] == 1, "cast float -> bool (NaN is true)");
    const uint8_t bb[3] = {0, 1, 2};
    float bf[3];
    cast_tensor(3, 9, bb, 1, bf);
    check(bf[0] == 0.0f && bf[1] == 1.0f && bf[2] == 1.0f, "cast bool -> float");
    int64_t bi[3];
    cast_tensor(3, 9, bb, 7, bi);
    check(bi[0] == 0 && bi[1] == 1 && bi[2] == 1, "cast bool -> int64");

    /* double -> float rounds, overflows to inf */
    const double df[3] = {0.1, 1e300, -1e300};
    float ff[3];
    cast_tensor(3, 11, df, 1, ff);
    check(ff[0] == 0.1f && ff[1] == INFINITY && ff[2] == -INFINITY, "cast double -> float");

    /* same type: a copy; unknown types: nothing */
    const int64_t same[2] = {INT64_MIN, 42};
    int64_t sy[2] = {0, 0};
    cast_tensor(2, 7, same, 7, sy);
    check(sy[0] == INT64_MIN && sy[1] == 42, "cast int64 -> int64");
    sy[0] = 5;
    cast_tensor(2, 10, same, 7, sy);
    check(sy[0] == 5, "cast from an unknown type does nothing");
}

static void test_fills(void)
{
    double d[4];
    range_f64(4, 1.0, 0.5, d);
    check(d[0] == 1.0 && d[1] == 1.5 && d[3] == 2.5, "range_f64");
    range_f64(3, 0.1, 0.2, d);
    check(d[0] == 0.1 && d[2] == 0.1 + 2.0 * ((0.1 + 0.2) - 0.1), "range_f64 as numpy fills");
    int64_t i[3];
    range_i64(3, 10, -4, i);
    check(i[0] == 10 && i[1] == 6 && i[2] == 2, "range_i64");
    float f[5];
    const float v = 2.5f;
    fill_bytes(5, 4, &v, f);
    check(f[0] == 2.5f && f[4] == 2.5f, "fill_bytes");
}

int main(void)
{
    test_compare();
    test_logic();
    test_where();
    test_strided();
    test_cast();
    test_fills();
    printf("test_kernels_tensor: %d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
