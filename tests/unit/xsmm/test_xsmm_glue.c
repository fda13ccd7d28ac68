/* Unit test of runtime_min/xsmm_glue.c with libxsmm linked: a product set up by o2c_xsmm_setup
 * and run by o2c_xsmm_run (what generated code calls) gives, bit for bit, the contract written
 * as a per-element loop (fmaf over k ascending from +0.0f), for shapes that take one kernel and
 * shapes that take the blocked path (rows and k in blocks, with partial last blocks of each);
 * and with A packed in row panels (o2c_xsmm_setup_panels), both the kernels and the portable
 * fallback o2c_xsmm_reference_panels, into a C whose columns are m floats apart or more (the
 * floats between them untouched). */
#include <libxsmm.h>
#include <stdlib.h>
#include <string.h>

#define O2C_KERNEL static __attribute__((unused))
#include "../../../templates/gemm.c"
/* the glue calls gemm_f32: after gemm.c, as in generated code */
#include "../../../runtime_min/xsmm_glue.c"

static uint32_t rng_state = 2024u;
#define CHECK_WITH_RND
#include "../check.h"

/* Column-major C(m x n) = A(m x k) B(k x n), one element at a time. */
static void reference(int64_t m, int64_t n, int64_t k, const float *a, const float *b, float *c)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            float acc = 0.0f;
            for (int64_t p = 0; p < k; p++)
                acc = fmaf(a[i + p * m], b[p + j * k], acc);
            c[i + j * m] = acc;
        }
}

static float *random_floats(int64_t count)
{
    float *x = malloc((size_t)count * sizeof(float));
    for (int64_t i = 0; i < count; i++)
        x[i] = rnd();
    return x;
}

/* blocked: 1 when the shape must take the blocked candidate, 0 one kernel for all of it, -1
 * either (whichever gives the portable bits on this CPU). */
static void check_shape(int64_t m, int64_t n, int64_t k, int blocked)
{
    float *a = random_floats(m * k), *b = random_floats(k * n);
    float *got = malloc((size_t)(m * n) * sizeof(float)),
          *want = malloc((size_t)(m * n) * sizeof(float));
    char what[160];
    O2cXsmm x;
    memset(&x, 0, sizeof x);
    o2c_xsmm_setup(&x, m, n, k, a, b, got);
    snprintf(what, sizeof what, "m=%lld n=%lld k=%lld: libxsmm kept (mb=%lld kb=%lld)",
             (long long)m, (long long)n, (long long)k, (long long)x.mb, (long long)x.kb);
    check(x.kernel[0][0] != 0, what);
    snprintf(what, sizeof what, "m=%lld n=%lld k=%lld: %s", (long long)m, (long long)n,
             (long long)k, blocked ? "blocked over rows or k" : "one kernel");
    check(blocked < 0 || (blocked ? x.mb < m || x.kb < k : x.mb == m && x.kb == k), what);
    memset(got, 0xff, (size_t)(m * n) * sizeof(float)); /* NaNs: every element must be written */
    o2c_xsmm_run(&x, a, b, got);
    reference(m, n, k, a, b, want);
    snprintf(what, sizeof what, "m=%lld n=%lld k=%lld: bits of the per-element loop", (long long)m,
             (long long)n, (long long)k);
    check(memcmp(got, want, (size_t)(m * n) * sizeof(float)) == 0, what);
    free(a);
    free(b);
    free(got);
    free(want);
}

/* Whether columns of m floats ldc apart in got match want (m x n, contiguous), and the floats
 * between them still hold the 0xff fill (the product must not touch them). */
static int columns_match(int64_t m, int64_t n, int64_t ldc, const float *got, const float *want)
{
    for (int64_t j = 0; j < n; j++) {
        if (memcmp(got + j * ldc, want + j * m, (size_t)m * sizeof(float)))
            return 0;
        const unsigned char *gap = (const unsigned char *)(got + j * ldc + m);
        for (size_t i = 0; j + 1 < n && i < (size_t)(ldc - m) * sizeof(float); i++)
            if (gap[i] != 0xff)
                return 0;
    }
    return 1;
}

/* A packed in row panels as the compiler packs a constant weight (gemm_pack_xsmm_f32 of the
 * row-major A^T [k][m]), C's columns ldc apart (m, or more: a 1x1 conv writing its channels of
 * a Concat's output). */
static void check_panels(int64_t m, int64_t n, int64_t k, int64_t ldc)
{
    float *a = random_floats(m * k), *b = random_floats(k * n);
    float *ap = malloc((size_t)(m * k) * sizeof(float));
    float *got = malloc((size_t)(ldc * n) * sizeof(float)),
          *want = malloc((size_t)(m * n) * sizeof(float));
    char what[160];
    gemm_pack_xsmm_f32(m, k, a, m, 1, ap);
    reference(m, n, k, a, b, want);
    O2cXsmm x;
    memset(&x, 0, sizeof x);
    o2c_xsmm_setup_panels(&x, m, n, k, ldc, ap, b, got);
    snprintf(what, sizeof what, "m=%lld n=%lld k=%lld ldc=%lld panels: libxsmm kept", (long long)m,
             (long long)n, (long long)k, (long long)ldc);
    check(x.kernel[0][0] != 0, what);
    memset(got, 0xff, (size_t)(ldc * n) * sizeof(float));
    o2c_xsmm_run(&x, ap, b, got);
    snprintf(what, sizeof what,
             "m=%lld n=%lld k=%lld ldc=%lld panels: bits of the per-element loop, gaps untouched",
             (long long)m, (long long)n, (long long)k, (long long)ldc);
    check(columns_match(m, n, ldc, got, want), what);
    memset(got, 0xff, (size_t)(ldc * n) * sizeof(float));
    o2c_xsmm_reference_panels(m, n, k, ldc, GEMM_XSMM_PANEL, ap, b, got);
    snprintf(what, sizeof what, "m=%lld n=%lld k=%lld ldc=%lld panels, portable: bits of the loop",
             (long long)m, (long long)n, (long long)k, (long long)ldc);
    check(columns_match(m, n, ldc, got, want), what);
    free(a);
    free(ap);
    free(b);
    free(got);
    free(want);
}

int main(void)
{
    libxsmm_init();
    if (!o2c_xsmm_dispatch(16, 16, 0.0f, &(O2cXsmm){.m = 16, .n = 16, .k = 16, .ldc = 16})) {
        printf("libxsmm has no JIT on this CPU: nothing to test\n");
        return 0;
    }
    check_shape(64, 64, 64, 0);
    check_shape(256, 32, 256, 0);    /* A 64 Ki floats: not above the threshold */
    check_shape(256, 12, 1024, 1);   /* k in 4 full blocks */
    check_shape(300, 8, 600, 1);     /* row blocks 128, 128, 44; k blocks 256, 256, 88 */
    check_shape(128, 40, 784, 1);    /* one row block (mlp: 784 -> 128), k rest 16 */
    check_panels(40, 8, 30, 40);     /* one panel narrower than GEMM_XSMM_PANEL */
    check_panels(128, 20, 300, 128); /* two full panels */
    check_panels(200, 9, 1024, 200); /* three full panels and one of 8 rows */
    check_panels(64, 50, 16, 128);   /* squeezenet's expand1x1 into its Concat's first half */
    check_panels(192, 13, 48, 384);  /* two panels and a gap of 192 */
    check_panels(200, 9, 100, 1000); /* a tail panel of 8 rows, ldc far from m */
    /* m = 144 and 80: on AVX-512 libxsmm 1.17 gives the portable bits only in 64-row blocks */
    check_shape(144, 224, 24, -1);
    check_shape(80, 98, 480, -1);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
