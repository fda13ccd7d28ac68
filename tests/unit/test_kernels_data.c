/* Unit test of templates/data.c against hand-computed outputs: the gathers and scatters
 * (negative and out-of-range indices, every reduction), Pad in its four modes, Resize's
 * nearest gather and 1-D interpolation pass (with extrapolation), OneHot, Trilu, CumSum,
 * ArgMax/ArgMin, TopK (ties, NaN), Hardmax, the activations, PRelu and Einsum. The template
 * is compiled after kernels.h with extern kernels, so every prototype there is checked
 * against its definition. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/data.c"

#include <stdio.h>
#include <string.h>

#include "check.h"

static int same_f32(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!(a[i] == b[i] || (a[i] != a[i] && b[i] != b[i]))) {
            printf("  element %d: got %a want %a\n", i, (double)a[i], (double)b[i]);
            return 0;
        }
    return 1;
}

static int same_i64(const int64_t *a, const int64_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) {
            printf("  element %d: got %lld want %lld\n", i, (long long)a[i], (long long)b[i]);
            return 0;
        }
    return 1;
}

static int close_all(const float *a, const double *b, int n, double tol)
{
    for (int i = 0; i < n; i++)
        if (fabs((double)a[i] - b[i]) > tol * (1 + fabs(b[i]))) {
            printf("  element %d: got %.9g want %.9g\n", i, (double)a[i], b[i]);
            return 0;
        }
    return 1;
}

static void test_gather_scatter_elements(void)
{
    /* x [2][3], idx [2][2] along axis 1 */
    const float x[6] = {1, 2, 3, 4, 5, 6};
    const int64_t xd[2] = {2, 3}, id[2] = {2, 2};
    const int64_t idx[4] = {0, -1, 2, 7}; /* -1 -> 2; 7 is out of range -> 0 */
    float y[4];
    gather_elements_bytes(2, xd, id, 1, 4, x, idx, y);
    const float want[4] = {1, 3, 6, 0};
    check(same_f32(y, want, 4), "gather_elements axis 1");

    /* along axis 0: y[i][j] = x[idx[i][j]][j] */
    const int64_t idx0[4] = {1, 0, 0, 1};
    gather_elements_bytes(2, xd, id, 0, 4, x, idx0, y);
    const float want0[4] = {4, 2, 1, 5};
    check(same_f32(y, want0, 4), "gather_elements axis 0");

    /* scatter: x [1][5], updates at [1, 3, 1] along axis 1 */
    const float d[5] = {1, 2, 3, 4, 5}, u[3] = {10, 20, 30};
    const int64_t dd[2] = {1, 5}, ud[2] = {1, 3}, si[3] = {1, 3, -4};
    float s[5];
    scatter_elements(2, dd, ud, 1, O2C_DATA_F32, 0, 4, d, si, u, s);
    const float w_none[5] = {1, 30, 3, 20, 5};
    check(same_f32(s, w_none, 5), "scatter_elements none (last write wins)");
    scatter_elements(2, dd, ud, 1, O2C_DATA_F32, 1, 4, d, si, u, s);
    const float w_add[5] = {1, 42, 3, 24, 5};
    check(same_f32(s, w_add, 5), "scatter_elements add");
    scatter_elements(2, dd, ud, 1, O2C_DATA_F32, 2, 4, d, si, u, s);
    const float w_mul[5] = {1, 600, 3, 80, 5};
    check(same_f32(s, w_mul, 5), "scatter_elements mul");
    const float u2[3] = {-1, 9, 1.5f};
    scatter_elements(2, dd, ud, 1, O2C_DATA_F32, 3, 4, d, si, u2, s);
    const float w_max[5] = {1, 2, 3, 9, 5};
    check(same_f32(s, w_max, 5), "scatter_elements max");
    scatter_elements(2, dd, ud, 1, O2C_DATA_F32, 4, 4, d, si, u2, s);
    const float w_min[5] = {1, -1, 3, 4, 5};
    check(same_f32(s, w_min, 5), "scatter_elements min");

    const int64_t di[5] = {1, 2, 3, 4, 5}, ui[3] = {10, 20, 30};
    int64_t si64[5];
    scatter_elements(2, dd, ud, 1, O2C_DATA_I64, 1, 8, di, si, ui, si64);
    const int64_t wi[5] = {1, 42, 3, 24, 5};
    check(same_i64(si64, wi, 5), "scatter_elements add int64");
}

static void test_gather_scatter_nd(void)
{
    /* x [2][2][2], indices [2][1] with batch_dims 1: y [2][2] = x[b][idx[b]] */
    const float x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int64_t dims1[1] = {2}, idx1[2] = {1, 0};
    float y[4];
    gather_nd_bytes(2, 1, 1, dims1, 2 * 4, x, idx1, y);
    const float w1[4] = {2, 3, 4, 5};
    check(same_f32(y, w1, 4), "gather_nd batch_dims 1");

    /* no batch: indices [2][2] -> y [2][2] slices of x[i][j] */
    const int64_t dims2[2] = {2, 2}, idx2[4] = {0, 1, 1, -1};
    gather_nd_bytes(1, 2, 2, dims2, 2 * 4, x, idx2, y);
    const float w2[4] = {2, 3, 6, 7};
    check(same_f32(y, w2, 4), "gather_nd negative index");

    /* scatter_nd into x [4]: indices [[1],[3],[1]], updates [10, 20, 30] */
    const float d[4] = {1, 2, 3, 4}, u[3] = {10, 20, 30};
    const int64_t dims3[1] = {4}, idx3[3] = {1, 3, 1};
    float s[4];
    scatter_nd(4, 3, 1, dims3, 1, O2C_DATA_F32, 0, 4, d, idx3, u, s);
    const float w_none[4] = {1, 30, 3, 20};
    check(same_f32(s, w_none, 4), "scatter_nd none");
    scatter_nd(4, 3, 1, dims3, 1, O2C_DATA_F32, 2, 4, d, idx3, u, s);
    const float w_mul[4] = {1, 600, 3, 80};
    check(same_f32(s, w_mul, 4), "scatter_nd mul");
    const int64_t idx4[3] = {1, 9, -1}; /* 9 out of range: dropped */
    scatter_nd(4, 3, 1, dims3, 1, O2C_DATA_F32, 1, 4, d, idx4, u, s);
    const float w_add[4] = {1, 12, 3, 34};
    check(same_f32(s, w_add, 4), "scatter_nd add, out-of-range index dropped");
}

static void test_pad(void)
{
    const float x[3] = {1, 2, 3}, v = -1;
    const int64_t in[1] = {3}, out[1] = {8}, begin[1] = {3};
    float y[8];
    pad_bytes(1, in, out, begin, 0, 4, &v, x, y);
    const float wc[8] = {-1, -1, -1, 1, 2, 3, -1, -1};
    check(same_f32(y, wc, 8), "pad constant");
    pad_bytes(1, in, out, begin, 1, 4, &v, x, y);
    const float wr[8] = {2, 3, 2, 1, 2, 3, 2, 1};
    check(same_f32(y, wr, 8), "pad reflect (wider than the input)");
    pad_bytes(1, in, out, begin, 2, 4, &v, x, y);
    const float we[8] = {1, 1, 1, 1, 2, 3, 3, 3};
    check(same_f32(y, we, 8), "pad edge");
    pad_bytes(1, in, out, begin, 3, 4, &v, x, y);
    const float ww[8] = {1, 2, 3, 1, 2, 3, 1, 2};
    check(same_f32(y, ww, 8), "pad wrap");

    /* 2-D, negative pad crops: x [2][3] -> begin {1, -1}, end {0, 0} -> y [3][2] */
    const float x2[6] = {1, 2, 3, 4, 5, 6};
    const int64_t in2[2] = {2, 3}, out2[2] = {3, 2}, b2[2] = {1, -1};
    const float zero = 0;
    float y2[6];
    pad_bytes(2, in2, out2, b2, 0, 4, &zero, x2, y2);
    const float w2[6] = {0, 0, 2, 3, 5, 6};
    check(same_f32(y2, w2, 6), "pad 2-D with a crop");
}

static void test_resize(void)
{
    /* nearest: x [2][2] -> y [3][4], rows {0, 0, 1}, cols {0, 0, 1, 1} */
    const float x[4] = {1, 2, 3, 4};
    const int64_t in[2] = {2, 2}, out[2] = {3, 4}, tables[7] = {0, 0, 1, 0, 0, 1, 1};
    float y[12];
    resize_nearest_bytes(2, in, out, tables, 4, x, y);
    const float wn[12] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4};
    check(same_f32(y, wn, 12), "resize nearest");

    /* linear 1-D pass over [1][2][2] along n (in 2 -> out 3), inner 2; output 2 extrapolated */
    const float x1[4] = {0, 10, 4, 20};
    const int64_t idx[6] = {0, 1, 0, 1, -1, -1};
    const float w[6] = {1.0f, 0.0f, 0.25f, 0.75f, 0, 0};
    float y1[6];
    resize_1d_f32(1, 2, 3, 2, 2, idx, w, -7.0f, x1, y1);
    const float w1[6] = {0, 10, 3, 17.5f, -7, -7};
    check(same_f32(y1, w1, 6), "resize 1-D linear with extrapolation");
}

static void test_one_hot_trilu(void)
{
    const int64_t idx[3] = {0, 2, -1}; /* -1 -> depth - 1 = 2 */
    const float vals[2] = {0.5f, 9.0f};
    float y[9];
    one_hot_bytes(1, 3, 3, O2C_DATA_I64, idx, 4, vals, y); /* axis 0: y [3][3] */
    const float w[9] = {9, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 9, 9};
    check(same_f32(y, w, 9), "one_hot axis 0");
    const float fidx[2] = {1.7f, 5.0f}; /* 1.7 -> 1; 5 out of range: all off */
    float y2[6];
    one_hot_bytes(2, 3, 1, O2C_DATA_F32, fidx, 4, vals, y2); /* axis -1: y [2][3] */
    const float w2[6] = {0.5f, 9, 0.5f, 0.5f, 0.5f, 0.5f};
    check(same_f32(y2, w2, 6), "one_hot float indices");

    const float x[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    float t[9];
    trilu_bytes(1, 3, 3, 0, 1, 4, x, t);
    const float up[9] = {1, 2, 3, 0, 5, 6, 0, 0, 9};
    check(same_f32(t, up, 9), "trilu upper k=0");
    trilu_bytes(1, 3, 3, -1, 0, 4, x, t);
    const float lo[9] = {0, 0, 0, 4, 0, 0, 7, 8, 0};
    check(same_f32(t, lo, 9), "trilu lower k=-1");
}

static void test_cumsum_arg_topk(void)
{
    const float x[4] = {1, 2, 3, 4};
    float y[4];
    cumsum_f32(1, 4, 1, 0, 0, x, y);
    const float w0[4] = {1, 3, 6, 10};
    check(same_f32(y, w0, 4), "cumsum");
    cumsum_f32(1, 4, 1, 1, 1, x, y);
    const float w1[4] = {9, 7, 4, 0};
    check(same_f32(y, w1, 4), "cumsum exclusive reverse");
    const int64_t xi[6] = {1, 2, 3, 4, 5, 6};
    int64_t yi[6];
    cumsum_i64(1, 2, 3, 0, 0, xi, yi); /* along the first of [2][3] */
    const int64_t wi[6] = {1, 2, 3, 5, 7, 9};
    check(same_i64(yi, wi, 6), "cumsum int64 with inner");
    cumprod_f32(1, 4, 1, 0, 0, x, y);
    const float p0[4] = {1, 2, 6, 24};
    check(same_f32(y, p0, 4), "cumprod");
    cumprod_f32(1, 4, 1, 1, 1, x, y);
    const float p1[4] = {24, 12, 4, 1};
    check(same_f32(y, p1, 4), "cumprod exclusive reverse");
    cumprod_i64(1, 2, 3, 0, 0, xi, yi);
    const int64_t pi[6] = {1, 2, 3, 4, 10, 18};
    check(same_i64(yi, pi, 6), "cumprod int64 with inner");
    const int32_t b16[2] = {65536, 65536};
    int32_t bo[2];
    cumprod_i32(1, 2, 1, 0, 0, b16, bo);
    check(bo[0] == 65536 && bo[1] == 0, "cumprod int32 wraps");

    const float a[6] = {3, 1, 3, 0, 0, -1}; /* [2][3] */
    int64_t r[2];
    arg_f32(2, 3, 1, 0, 0, a, r);
    const int64_t am[2] = {0, 0};
    check(same_i64(r, am, 2), "argmax first");
    arg_f32(2, 3, 1, 0, 1, a, r);
    const int64_t aml[2] = {2, 1};
    check(same_i64(r, aml, 2), "argmax select_last_index");
    arg_f32(2, 3, 1, 1, 0, a, r);
    const int64_t amin[2] = {1, 2};
    check(same_i64(r, amin, 2), "argmin");

    const float t[5] = {2, NAN, 5, 2, 7};
    float v[3];
    int64_t ix[3];
    topk_f32(1, 5, 1, 3, 1, t, v, ix);
    const float wv[3] = {NAN, 7, 5};
    const int64_t wix[3] = {1, 4, 2};
    check(same_f32(v, wv, 3) && same_i64(ix, wix, 3), "topk largest, NaN first");
    topk_f32(1, 5, 1, 3, 0, t, v, ix);
    const float sv[3] = {2, 2, 5};
    const int64_t six[3] = {0, 3, 2};
    check(same_f32(v, sv, 3) && same_i64(ix, six, 3), "topk smallest, ties by index");
    const int64_t big[3] = {INT64_C(9007199254740993), INT64_C(9007199254740992), 0};
    int64_t bv[2], bix[2];
    topk_i64(1, 3, 1, 2, 1, big, bv, bix);
    const int64_t wb[2] = {0, 1};
    check(same_i64(bix, wb, 2) && bv[0] == big[0], "topk int64 beyond 2^53");

    const float h[6] = {1, 3, 3, -1, -2, -3};
    float hy[6];
    hardmax_f32(2, 3, 1, h, hy);
    const float wh[6] = {0, 1, 0, 1, 0, 0};
    check(same_f32(hy, wh, 6), "hardmax first maximum");
}

static void test_activations(void)
{
    const float x[5] = {-2, -0.25f, 0, 0.5f, 3};
    float y[5];
    shrink_f32(5, 0.5f, 0.25f, x, y);
    const float ws[5] = {-1.75f, 0, 0, 0, 2.75f};
    check(same_f32(y, ws, 5), "shrink");
    thresholded_relu_f32(5, 0.5f, x, y);
    const float wt[5] = {0, 0, 0, 0, 3};
    check(same_f32(y, wt, 5), "thresholded_relu");
    celu_f32(5, 2.0f, x, y);
    const double wc[5] = {2 * (exp(-1.0) - 1), 2 * (exp(-0.125) - 1), 0, 0.5, 3};
    check(close_all(y, wc, 5, 1e-6), "celu");
    mish_f32(5, x, y);
    double wm[5];
    for (int i = 0; i < 5; i++)
        wm[i] = x[i] * tanh(log1p(exp((double)x[i])));
    check(close_all(y, wm, 5, 1e-6), "mish");

    /* prelu: a [2][2], slope [2] broadcast over rows */
    const float a[4] = {-1, 2, -3, -4}, s[2] = {0.5f, 2};
    const int64_t dims[2] = {2, 2}, sa[2] = {2, 1}, sb[2] = {0, 1};
    float p[4];
    prelu_f32(2, dims, sa, sb, a, s, p);
    const float wp[4] = {-0.5f, 2, -1.5f, -8};
    check(same_f32(p, wp, 4), "prelu broadcast slope");
}

static void test_einsum(void)
{
    /* "ij,jk->ik": a [2][3], b [3][2] */
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1};
    const int64_t od[2] = {2, 2}, oa[2] = {3, 0}, ob[2] = {0, 1};
    const int64_t rd[1] = {3}, ra[1] = {1}, rb[1] = {2};
    float y[4];
    einsum_f32(2, od, oa, ob, 1, rd, ra, rb, a, b, y);
    const float w[4] = {4, 5, 10, 11};
    check(same_f32(y, w, 4), "einsum matmul");

    /* "ii->" (trace) of a 3x3: one operand, the letter's strides summed */
    const float m[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const int64_t td[1] = {3}, ta[1] = {4}, tb[1] = {0}, none[1] = {0};
    float tr;
    einsum_f32(0, none, none, none, 1, td, ta, tb, m, NULL, &tr);
    check(tr == 15.0f, "einsum trace");

    /* "ij->ji" (transpose, no reduction) */
    const int64_t td2[2] = {3, 2}, ta2[2] = {1, 3}, tb2[2] = {0, 0};
    float t[6];
    einsum_f32(2, td2, ta2, tb2, 0, none, none, none, a, NULL, t);
    const float wt[6] = {1, 4, 2, 5, 3, 6};
    check(same_f32(t, wt, 6), "einsum transpose");

    /* fmaf order: products accumulate from 0 in ascending k */
    const double da[2] = {1e16, 1}, db[2] = {1, 1};
    const int64_t dred[1] = {2}, dsa[1] = {1}, dsb[1] = {1};
    double dy;
    einsum_f64(0, none, none, none, 1, dred, dsa, dsb, da, db, &dy);
    check(dy == fma(1.0, 1.0, fma(1e16, 1.0, 0.0)), "einsum f64 ascending fma");
}

int main(void)
{
    test_gather_scatter_elements();
    test_gather_scatter_nd();
    test_pad();
    test_resize();
    test_one_hot_trilu();
    test_cumsum_arg_topk();
    test_activations();
    test_einsum();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
