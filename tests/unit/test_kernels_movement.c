/* Unit test of templates/movement.c: transpose against a per-element index computation for
 * every permutation up to rank 4 and several element sizes, concat, gather (negative and
 * out-of-range indices), copy. */
#include "../../templates/movement.c"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define MAXB 65536
static unsigned char xbuf[MAXB], ybuf[MAXB + 64], wbuf[MAXB];

static void fill_pattern(unsigned char *p, int64_t n)
{
    uint32_t s = 0x9e3779b9u;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (unsigned char)(s >> 24);
    }
}

/* Reference transpose: for each output element, its coordinates, mapped through perm to
 * the input's, then the input's flat index. */
static void transpose_ref(int rank, const int64_t *in_dims, const int32_t *perm, int64_t es,
                          const unsigned char *x, unsigned char *y)
{
    int64_t out_dims[8], total = 1;
    for (int d = 0; d < rank; d++) {
        out_dims[d] = in_dims[perm[d]];
        total *= out_dims[d];
    }
    for (int64_t f = 0; f < total; f++) {
        int64_t coord_in[8], rem = f;
        for (int d = rank - 1; d >= 0; d--) {
            coord_in[perm[d]] = rem % out_dims[d];
            rem /= out_dims[d];
        }
        int64_t src = 0;
        for (int d = 0; d < rank; d++)
            src = src * in_dims[d] + coord_in[d];
        memcpy(y + f * es, x + src * es, (size_t)es);
    }
}

static int next_perm(int32_t *p, int n) /* lexicographic; 0 when wrapped around */
{
    int i = n - 2;
    while (i >= 0 && p[i] >= p[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = n - 1;
    while (p[j] <= p[i])
        j--;
    int32_t t = p[i];
    p[i] = p[j];
    p[j] = t;
    for (int a = i + 1, b = n - 1; a < b; a++, b--) {
        t = p[a];
        p[a] = p[b];
        p[b] = t;
    }
    return 1;
}

static void test_transpose_all_perms(int rank, const int64_t *dims, int64_t es)
{
    int32_t perm[8];
    for (int d = 0; d < rank; d++)
        perm[d] = d;
    int64_t total = es;
    for (int d = 0; d < rank; d++)
        total *= dims[d];
    int all_ok = 1, count = 0;
    do {
        fill_pattern(xbuf, total);
        memset(ybuf, 0xAB, (size_t)total + 64);
        transpose_bytes(rank, dims, perm, es, xbuf, ybuf);
        transpose_ref(rank, dims, perm, es, xbuf, wbuf);
        const int ok = memcmp(ybuf, wbuf, (size_t)total) == 0 && ybuf[total] == 0xAB;
        if (!ok) {
            printf("  perm");
            for (int d = 0; d < rank; d++)
                printf(" %d", (int)perm[d]);
            printf("\n");
        }
        all_ok &= ok;
        count++;
    } while (next_perm(perm, rank));
    char what[128];
    int n =
        snprintf(what, sizeof what, "transpose all %d perms, elem_size %d, dims", count, (int)es);
    for (int d = 0; d < rank && n < 100; d++)
        n += snprintf(what + n, sizeof what - (size_t)n, " %d", (int)dims[d]);
    check(all_ok, what);
}

static void test_transpose(void)
{
    /* hand: [2][3] -> [3][2] */
    const float x[6] = {1, 2, 3, 4, 5, 6};
    float y[6];
    const int64_t d2[2] = {2, 3};
    const int32_t p10[2] = {1, 0};
    transpose_bytes(2, d2, p10, sizeof(float), x, y);
    const float want[6] = {1, 4, 2, 5, 3, 6};
    check(memcmp(y, want, sizeof want) == 0, "transpose hand [2,3] -> [3,2]");

    /* rank 0 and rank 1 */
    const double s = 3.25;
    double sy = 0;
    transpose_bytes(0, NULL, NULL, sizeof(double), &s, &sy);
    check(sy == 3.25, "transpose rank 0 copies the element");

    static const int64_t shapes[][4] = {
        {7, 0, 0, 0}, {3, 5, 0, 0}, {1, 4, 0, 0}, {2, 3, 4, 0}, {1, 3, 1, 0},
        {2, 3, 4, 5}, {2, 1, 3, 1}, {1, 1, 1, 1}, {5, 1, 1, 7}, {3, 2, 2, 3},
    };
    static const int ranks[] = {1, 2, 2, 3, 3, 4, 4, 4, 4, 4};
    static const int64_t sizes[] = {1, 2, 3, 4, 8, 12};
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++)
        for (size_t e = 0; e < sizeof sizes / sizeof sizes[0]; e++)
            test_transpose_all_perms(ranks[i], shapes[i], sizes[e]);

    /* larger ranks: a few fixed permutations */
    const int64_t d6[6] = {2, 3, 1, 2, 2, 3};
    const int32_t p6[6] = {5, 0, 3, 4, 2, 1};
    const int64_t d8[8] = {2, 2, 1, 3, 2, 1, 2, 2};
    const int32_t p8[8] = {7, 6, 0, 1, 2, 3, 5, 4};
    fill_pattern(xbuf, 4096);
    transpose_bytes(6, d6, p6, 4, xbuf, ybuf);
    transpose_ref(6, d6, p6, 4, xbuf, wbuf);
    check(memcmp(ybuf, wbuf, 72 * 4) == 0, "transpose rank 6");
    transpose_bytes(8, d8, p8, 2, xbuf, ybuf);
    transpose_ref(8, d8, p8, 2, xbuf, wbuf);
    check(memcmp(ybuf, wbuf, 96 * 2) == 0, "transpose rank 8");

    /* NCHW -> NHWC of a realistic size */
    const int64_t nchw[4] = {2, 16, 9, 11};
    const int32_t to_nhwc[4] = {0, 2, 3, 1};
    fill_pattern(xbuf, 2 * 16 * 9 * 11 * 4);
    transpose_bytes(4, nchw, to_nhwc, 4, xbuf, ybuf);
    transpose_ref(4, nchw, to_nhwc, 4, xbuf, wbuf);
    check(memcmp(ybuf, wbuf, 2 * 16 * 9 * 11 * 4) == 0, "transpose NCHW -> NHWC");

    /* the tiled path (a short strided last dim): a 3-channel input to NHWC, and the NHWC
     * channel shuffle [N][H][W][g][C/g] -> [N][H][W][C/g][g], with partial blocks of 16 */
    const int64_t rgb[4] = {1, 3, 37, 5}, shuffle[5] = {1, 5, 4, 2, 58};
    const int32_t swap_last[5] = {0, 1, 2, 4, 3};
    fill_pattern(xbuf, 3 * 37 * 5 * 4);
    transpose_bytes(4, rgb, to_nhwc, 4, xbuf, ybuf);
    transpose_ref(4, rgb, to_nhwc, 4, xbuf, wbuf);
    check(memcmp(ybuf, wbuf, 3 * 37 * 5 * 4) == 0, "transpose 3-channel NCHW -> NHWC");
    for (int64_t es = 1; es <= 8; es *= 2) { /* each constant-size copy, and 3 bytes */
        char what[64];
        snprintf(what, sizeof what, "transpose 3-channel NCHW -> NHWC, %d bytes", (int)es);
        fill_pattern(xbuf, 3 * 37 * 5 * es);
        transpose_bytes(4, rgb, to_nhwc, es, xbuf, ybuf);
        transpose_ref(4, rgb, to_nhwc, es, xbuf, wbuf);
        check(memcmp(ybuf, wbuf, (size_t)(3 * 37 * 5 * es)) == 0, what);
        const int64_t se = es == 8 ? 3 : es;
        snprintf(what, sizeof what, "transpose NHWC channel shuffle, %d bytes", (int)se);
        fill_pattern(xbuf, 5 * 4 * 2 * 58 * se);
        transpose_bytes(5, shuffle, swap_last, se, xbuf, ybuf);
        transpose_ref(5, shuffle, swap_last, se, xbuf, wbuf);
        check(memcmp(ybuf, wbuf, (size_t)(5 * 4 * 2 * 58 * se)) == 0, what);
    }

    /* empty tensor: nothing written */
    const int64_t de[3] = {2, 0, 3};
    const int32_t pe[3] = {2, 1, 0};
    ybuf[0] = 0x5A;
    transpose_bytes(3, de, pe, 4, xbuf, ybuf);
    check(ybuf[0] == 0x5A, "transpose of an empty tensor writes nothing");
}

static void test_concat(void)
{
    /* axis 1: a [2][2] and b [2][3] -> y [2][5] */
    const int32_t a[4] = {1, 2, 3, 4}, b[6] = {5, 6, 7, 8, 9, 10};
    int32_t y[10];
    concat_bytes(2, 2 * 4, 5 * 4, 0, a, y);
    concat_bytes(2, 3 * 4, 5 * 4, 2 * 4, b, y);
    const int32_t want[10] = {1, 2, 5, 6, 7, 3, 4, 8, 9, 10};
    check(memcmp(y, want, sizeof want) == 0, "concat axis 1");

    /* axis 0: outer = 1 */
    int32_t y0[10];
    concat_bytes(1, 4 * 4, 10 * 4, 0, a, y0);
    concat_bytes(1, 6 * 4, 10 * 4, 4 * 4, b, y0);
    const int32_t want0[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    check(memcmp(y0, want0, sizeof want0) == 0, "concat axis 0");

    /* axis 1 of [2][1][2] and [2][2][2] (inner size 2), int64 */
    const int64_t p[4] = {1, 2, 3, 4}, q[8] = {5, 6, 7, 8, 9, 10, 11, 12};
    int64_t r[12];
    concat_bytes(2, 1 * 2 * 8, 3 * 2 * 8, 0, p, r);
    concat_bytes(2, 2 * 2 * 8, 3 * 2 * 8, 1 * 2 * 8, q, r);
    const int64_t want3[12] = {1, 2, 5, 6, 7, 8, 3, 4, 9, 10, 11, 12};
    check(memcmp(r, want3, sizeof want3) == 0, "concat middle axis, int64");

    concat_bytes(2, 0, 5 * 4, 0, NULL, y);
    check(memcmp(y, want, sizeof want) == 0, "concat of an empty input");
}

static void test_gather(void)
{
    /* axis 0 of [4][2] floats */
    const float data[8] = {0, 1, 10, 11, 20, 21, 30, 31};
    const int64_t idx[5] = {2, 0, -1, -4, 3};
    float y[10];
    gather_bytes(1, 4, 2 * sizeof(float), data, idx, 5, y);
    const float want[10] = {20, 21, 0, 1, 30, 31, 0, 1, 30, 31};
    check(memcmp(y, want, sizeof want) == 0, "gather axis 0 with negative indices");

    /* axis 1 of [2][4] (outer 2, inner 1 element) */
    const int64_t idx1[3] = {3, -3, 1};
    float y1[6];
    gather_bytes(2, 4, sizeof(float), data, idx1, 3, y1);
    /* data as [2][4]: row 0 = {0,1,10,11}, row 1 = {20,21,30,31} */
    const float want1[6] = {11, 1, 1, 31, 21, 21};
    check(memcmp(y1, want1, sizeof want1) == 0, "gather axis 1 with a negative index");

    /* out of range writes zeros */
    const int64_t bad[4] = {4, -5, INT64_MAX, INT64_MIN};
    float yb[8];
    memset(yb, 0xFF, sizeof yb);
    gather_bytes(1, 4, 2 * sizeof(float), data, bad, 4, yb);
    int ok = 1;
    for (int i = 0; i < 8; i++)
        ok &= yb[i] == 0.0f && !signbit(yb[i]);
    check(ok, "gather out-of-range indices write zeros");

    /* scalar index (n_idx = 1) of int64 data, and n_idx = 0 */
    const int64_t di[3] = {7, 8, 9}, one[1] = {-2};
    int64_t yi = 0;
    gather_bytes(1, 3, sizeof(int64_t), di, one, 1, &yi);
    check(yi == 8, "gather scalar index, int64");
    gather_bytes(1, 3, sizeof(int64_t), di, NULL, 0, NULL);
    check(1, "gather with no indices");
}

static void test_copy(void)
{
    const char src[6] = "hello";
    char dst[6] = {0};
    copy_bytes(6, src, dst);
    check(memcmp(src, dst, 6) == 0, "copy");
    copy_bytes(6, dst, dst);
    check(memcmp(src, dst, 6) == 0, "copy onto itself");
    char ov[8] = "abcdefg";
    copy_bytes(4, ov, ov + 2);
    check(memcmp(ov, "ababcdg", 8) == 0, "copy with overlap");
    copy_bytes(0, NULL, NULL);
    check(1, "copy of zero bytes");
}

int main(void)
{
    test_transpose();
    test_concat();
    test_gather();
    test_copy();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
