/* Unit test of templates/elementwise.c: activations on special values, and the broadcast
 * binary kernels against a reference that maps every output element to its operands by
 * numpy's rules (flat index -> coordinates -> operand index), for every kind of broadcast. */
#include "../../templates/elementwise.c"

#include <stdio.h>
#include <string.h>

#include "check.h"

static uint32_t rng_state = 2463534242u;

static uint32_t rnd_u32(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static float rnd(void)
{
    return (float)(rnd_u32() >> 8) / 8388608.0f - 1.0f; /* [-1, 1) */
}

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* same value, including the sign of zero; any NaN matches any NaN */
static int same(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return bits(a) == bits(b);
}

static int same_all(const float *a, const float *b, int n)
{
    for (int i = 0; i < n; i++)
        if (!same(a[i], b[i]))
            return 0;
    return 1;
}

/* ---- unary ---- */

static void test_unary(void)
{
    const float x[8] = {-1.0f, -0.0f, 0.0f, 2.5f, NAN, -INFINITY, INFINITY, 1e-40f};
    float y[8];

    const float relu_want[8] = {0.0f, -0.0f, 0.0f, 2.5f, NAN, 0.0f, INFINITY, 1e-40f};
    relu_f32(8, x, y);
    check(same_all(y, relu_want, 8), "relu special values (NaN, -0, inf, denormal)");

    const float leaky_want[8] = {-1.0f * 0.1f, -0.0f, 0.0f, 2.5f, NAN, -INFINITY, INFINITY, 1e-40f};
    leaky_relu_f32(8, 0.1f, x, y);
    check(same_all(y, leaky_want, 8), "leaky_relu special values");

    sigmoid_f32(8, x, y);
    check(y[1] == 0.5f && y[2] == 0.5f && isnan(y[4]) && y[5] == 0.0f && y[6] == 1.0f,
          "sigmoid special values");
    const float big[4] = {100.0f, -100.0f, 10.0f, -20.0f};
    float ybig[4];
    sigmoid_f32(4, big, ybig);
    check(ybig[0] == 1.0f && ybig[1] > 0.0f && ybig[1] < 1e-40f && ybig[2] < 1.0f && ybig[3] > 0.0f,
          "sigmoid saturates without overflow");

    int ok = 1;
    for (int i = 0; i < 1000; i++) {
        const float v = 20.0f * rnd();
        float s, t;
        sigmoid_f32(1, &v, &s);
        tanh_f32(1, &v, &t);
        const double sref = 1.0 / (1.0 + exp(-(double)v));
        ok &= fabs(s - sref) <= 4e-7 * sref;
        ok &= fabs(t - tanh((double)v)) <= 2.5e-7 * fabs(tanh((double)v)) + 1e-38;
        /* the formula branch taken must be the reference's */
        if (v > 0.0f) {
            const float e = o2c_expf(-v);
            ok &= same(s, 1.0f / (1.0f + e));
        } else {
            const float e = o2c_expf(v);
            ok &= same(s, e / (1.0f + e));
        }
        ok &= same(t, o2c_tanhf(v));
    }
    check(ok, "sigmoid and tanh against double reference and formula");

    tanh_f32(8, x, y);
    check(same(y[1], -0.0f) && isnan(y[4]) && y[5] == -1.0f && y[6] == 1.0f, "tanh special values");

    const float cx[6] = {-5.0f, 0.5f, 5.0f, NAN, -1.0f, 1.0f};
    const float clip_want[6] = {-1.0f, 0.5f, 1.0f, NAN, -1.0f, 1.0f};
    float cy[6];
    clip_f32(6, -1.0f, 1.0f, cx, cy);
    check(same_all(cy, clip_want, 6), "clip incl. NaN");
    clip_f32(6, -INFINITY, 0.0f, cx, cy);
    check(cy[0] == -5.0f && cy[1] == 0.0f && isnan(cy[3]), "clip with only an upper bound");
    clip_f32(6, 2.0f, 1.0f, cx, cy);
    check(cy[0] == 1.0f && cy[1] == 1.0f && cy[2] == 1.0f, "clip with lo > hi gives hi");

    float inplace[8];
    memcpy(inplace, x, sizeof inplace);
    relu_f32(8, inplace, inplace);
    check(same_all(inplace, relu_want, 8), "relu in place");
    relu_f32(0, NULL, NULL);
    check(1, "n = 0 touches nothing");
}

/* ---- binary, reference ---- */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV };
static const char *const op_names[4] = {"add", "sub", "mul", "div"};

typedef void (*binary_f32_fn)(int, const int64_t *, const int64_t *, const int64_t *, const float *,
                              const float *, float *);
typedef void (*binary_i64_fn)(int, const int64_t *, const int64_t *, const int64_t *,
                              const int64_t *, const int64_t *, int64_t *);
static const binary_f32_fn f32_fns[4] = {add_f32, sub_f32, mul_f32, div_f32};
static const binary_i64_fn i64_fns[4] = {add_i64, sub_i64, mul_i64, div_i64};

static float ref_f32(int op, float p, float q)
{
    volatile float r; /* one rounding, no contraction with anything around */
    switch (op) {
    case OP_ADD: r = p + q; break;
    case OP_SUB: r = p - q; break;
    case OP_MUL: r = p * q; break;
    default: r = p / q; break;
    }
    return r;
}

/* Reference integer semantics written with explicit two's-complement reasoning. */
static int64_t ref_i64(int op, int64_t p, int64_t q)
{
    switch (op) {
    case OP_ADD: return (int64_t)((uint64_t)p + (uint64_t)q);
    case OP_SUB: return (int64_t)((uint64_t)p - (uint64_t)q);
    case OP_MUL: return (int64_t)((uint64_t)p * (uint64_t)q);
    default:
        if (q == 0)
            return 0;
        if (p == INT64_MIN && q == -1)
            return INT64_MIN;
        return p / q;
    }
}

/* A broadcast case: shapes of a and b (numpy rules, right-aligned). Optionally a is a
 * transposed view of its storage (2-D only), exercising non-contiguous strides. */
typedef struct {
    const char *name;
    int ra, rb;
    int64_t da[8], db[8];
    int a_transposed;
} Case;

#define MAXE 4096
static float fa[MAXE], fb[MAXE], fy[MAXE], fw[MAXE];
static int64_t ia[MAXE], ib[MAXE], iy[MAXE], iw[MAXE];

/* Output shape and element strides of each operand per output dim, from the shapes. */
static int broadcast_shapes(const Case *c, int64_t *out, int64_t *as, int64_t *bs, int64_t *na,
                            int64_t *nb)
{
    const int r = c->ra > c->rb ? c->ra : c->rb;
    int64_t stride_a = 1, stride_b = 1;
    for (int d = r - 1; d >= 0; d--) {
        const int ka = d - (r - c->ra), kb = d - (r - c->rb);
        const int64_t ea = ka >= 0 ? c->da[ka] : 1, eb = kb >= 0 ? c->db[kb] : 1;
        out[d] = ea == 1 ? eb : ea;
        as[d] = ea == 1 ? 0 : stride_a;
        bs[d] = eb == 1 ? 0 : stride_b;
        stride_a *= ea;
        stride_b *= eb;
    }
    *na = stride_a;
    *nb = stride_b;
    if (c->a_transposed) { /* a is [d0][d1] stored as [d1][d0] */
        as[0] = c->da[0] == 1 ? 0 : 1;
        as[1] = c->da[1] == 1 ? 0 : c->da[0];
    }
    return r;
}

/* Operand offset of output element `flat`, by division rather than an odometer. */
static int64_t operand_offset(int r, const int64_t *out, const int64_t *strides, int64_t flat)
{
    int64_t off = 0;
    for (int d = r - 1; d >= 0; d--) {
        off += (flat % out[d]) * strides[d];
        flat /= out[d];
    }
    return off;
}

static void run_case(const Case *c)
{
    int64_t out[8], as[8], bs[8], na, nb;
    const int r = broadcast_shapes(c, out, as, bs, &na, &nb);
    int64_t total = 1;
    for (int d = 0; d < r; d++)
        total *= out[d];
    for (int op = 0; op < 4; op++) {
        for (int64_t i = 0; i < na; i++) {
            fa[i] = rnd();
            ia[i] = (int64_t)(rnd_u32() % 2001u) - 1000;
        }
        for (int64_t i = 0; i < nb; i++) {
            fb[i] = rnd();
            ib[i] = (int64_t)(rnd_u32() % 41u) - 20; /* includes 0 and -1 for div */
        }
        for (int64_t i = 0; i <= total; i++) {
            fy[i] = 12345.0f;
            iy[i] = 12345;
        }
        f32_fns[op](r, out, as, bs, fa, fb, fy);
        i64_fns[op](r, out, as, bs, ia, ib, iy);
        for (int64_t i = 0; i < total; i++) {
            const int64_t oa = operand_offset(r, out, as, i), ob = operand_offset(r, out, bs, i);
            fw[i] = ref_f32(op, fa[oa], fb[ob]);
            iw[i] = ref_i64(op, ia[oa], ib[ob]);
        }
        char what[128];
        snprintf(what, sizeof what, "%s_f32 %s", op_names[op], c->name);
        check(same_all(fy, fw, (int)total) && fy[total] == 12345.0f, what);
        snprintf(what, sizeof what, "%s_i64 %s", op_names[op], c->name);
        check(memcmp(iy, iw, (size_t)total * sizeof(int64_t)) == 0 && iy[total] == 12345, what);
    }
}

static const Case cases[] = {
    {"same shape [2,3]", 2, 2, {2, 3}, {2, 3}, 0},
    {"scalar a (rank 0) with [2,3]", 0, 2, {0}, {2, 3}, 0},
    {"[2,3] with scalar b (rank 0)", 2, 0, {2, 3}, {0}, 0},
    {"rank 0 with rank 0", 0, 0, {0}, {0}, 0},
    {"[1] with [5]", 1, 1, {1}, {5}, 0},
    {"[2,3] with row [3]", 2, 1, {2, 3}, {3}, 0},
    {"[2,3] with column [2,1]", 2, 2, {2, 3}, {2, 1}, 0},
    {"[3,1] with [1,4] (both broadcast)", 2, 2, {3, 1}, {1, 4}, 0},
    {"[2,1,4] with [3,1]", 3, 2, {2, 1, 4}, {3, 1}, 0},
    {"[2,3,4,5] with channel [1,3,1,1]", 4, 4, {2, 3, 4, 5}, {1, 3, 1, 1}, 0},
    {"[3,1,1] with [2,3,4,5]", 3, 4, {3, 1, 1}, {2, 3, 4, 5}, 0},
    {"[4,1,3,1,2] with [1,5,1,2,1]", 5, 5, {4, 1, 3, 1, 2}, {1, 5, 1, 2, 1}, 0},
    {"rank 8", 8, 8, {2, 1, 2, 1, 2, 3, 1, 2}, {1, 2, 1, 2, 1, 1, 2, 2}, 0},
    {"rank 8 all ones", 8, 8, {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1}, 0},
    {"empty [0,3] with [3]", 2, 1, {0, 3}, {3}, 0},
    {"empty [2,0] with [1]", 2, 1, {2, 0}, {1}, 0},
    {"transposed view a [3,4] with [3,4]", 2, 2, {3, 4}, {3, 4}, 1},
    {"transposed view a [5,7] with row [7]", 2, 1, {5, 7}, {7}, 1},
    {"long row [1000] with [1000]", 1, 1, {1000}, {1000}, 0},
    {"[1000] with scalar [1]", 1, 1, {1000}, {1}, 0},
};

/* ---- binary, hand-computed and special cases ---- */

static void test_binary_hand(void)
{
    const int64_t out[2] = {2, 3}, row[2] = {0, 1}, full[2] = {3, 1};
    const float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30};
    float y[6];
    add_f32(2, out, full, row, a, b, y);
    const float want_add[6] = {11, 22, 33, 14, 25, 36};
    check(same_all(y, want_add, 6), "hand add [2,3] + [3]");
    sub_f32(2, out, row, full, b, a, y);
    const float want_sub[6] = {9, 18, 27, 6, 15, 24};
    check(same_all(y, want_sub, 6), "hand sub [3] - [2,3]");
    const float two = 2.0f;
    const int64_t scal[2] = {0, 0};
    div_f32(2, out, full, scal, a, &two, y);
    const float want_div[6] = {0.5f, 1, 1.5f, 2, 2.5f, 3};
    check(same_all(y, want_div, 6), "hand div by scalar");

    /* in place: y is a, then y is b */
    float buf[6] = {1, 2, 3, 4, 5, 6};
    const float m[6] = {2, 2, 2, 3, 3, 3};
    mul_f32(2, out, full, full, buf, m, buf);
    const float want_mul[6] = {2, 4, 6, 12, 15, 18};
    check(same_all(buf, want_mul, 6), "mul in place (y == a)");
    float buf2[6] = {1, 2, 3, 4, 5, 6};
    sub_f32(2, out, row, full, b, buf2, buf2);
    check(same_all(buf2, want_sub, 6), "sub in place (y == b, a broadcast)");
    float buf3[6] = {1, 2, 3, 4, 5, 6};
    add_f32(2, out, full, scal, buf3, &two, buf3);
    const float want_add2[6] = {3, 4, 5, 6, 7, 8};
    check(same_all(buf3, want_add2, 6), "add in place with scalar");

    /* IEEE specials pass straight through */
    const float sp_a[4] = {1.0f, -1.0f, 0.0f, INFINITY}, sp_b[4] = {0.0f, 0.0f, 0.0f, INFINITY};
    const int64_t d4[1] = {4}, s1[1] = {1};
    div_f32(1, d4, s1, s1, sp_a, sp_b, y);
    check(y[0] == INFINITY && y[1] == -INFINITY && isnan(y[2]) && isnan(y[3]),
          "f32 division by zero and inf/inf");

    /* integers: wrap-around, truncation, and the defined results for C's UB cases */
    const int64_t pa[6] = {INT64_MAX, INT64_MIN, -7, 7, 5, INT64_MIN};
    const int64_t pb[6] = {1, 1, 2, -2, 0, -1};
    int64_t r6[6];
    const int64_t d6[1] = {6};
    add_i64(1, d6, s1, s1, pa, pb, r6);
    check(r6[0] == INT64_MIN && r6[2] == -5, "add_i64 wraps");
    sub_i64(1, d6, s1, s1, pa, pb, r6);
    check(r6[1] == INT64_MAX && r6[5] == INT64_MIN + 1, "sub_i64 wraps");
    mul_i64(1, d6, s1, s1, pa, pb, r6);
    check(r6[0] == INT64_MAX && r6[3] == -14 && r6[5] == INT64_MIN, "mul_i64 wraps");
    div_i64(1, d6, s1, s1, pa, pb, r6);
    check(r6[0] == INT64_MAX && r6[1] == INT64_MIN && r6[2] == -3 && r6[3] == -3 && r6[4] == 0 &&
              r6[5] == INT64_MIN,
          "div_i64 truncates; x/0 = 0; INT64_MIN/-1 = INT64_MIN");
}

/* The coalescing decides which loop runs: check it finds the long rows. */
static void test_coalesce(void)
{
    int64_t dims[8], sa[8], sb[8], rows;
    const int64_t o4[4] = {2, 3, 4, 5}, c4[4] = {60, 20, 5, 1}, ch[4] = {0, 1, 0, 0};
    int r = broadcast_coalesce(4, o4, c4, c4, dims, sa, sb, &rows);
    check(r == 1 && dims[0] == 120 && sa[0] == 1 && sb[0] == 1 && rows == 1,
          "coalesce: contiguous pair is one row");
    r = broadcast_coalesce(4, o4, c4, ch, dims, sa, sb, &rows);
    check(r == 3 && dims[0] == 2 && dims[1] == 3 && dims[2] == 20 && sa[2] == 1 && sb[2] == 0 &&
              sb[1] == 1 && rows == 6,
          "coalesce: channel bias gives rows of H*W");
    const int64_t z4[4] = {0, 0, 0, 0};
    r = broadcast_coalesce(4, o4, z4, c4, dims, sa, sb, &rows);
    check(r == 1 && dims[0] == 120 && sa[0] == 0 && sb[0] == 1, "coalesce: scalar a");
    r = broadcast_coalesce(0, NULL, NULL, NULL, dims, sa, sb, &rows);
    check(r == 1 && dims[0] == 1 && rows == 1, "coalesce: rank 0");
    const int64_t e2[2] = {3, 0}, s2[2] = {0, 1};
    r = broadcast_coalesce(2, e2, s2, s2, dims, sa, sb, &rows);
    check(r == 0, "coalesce: empty output");
}

/* ---- every element type: hand-computed wrap-around, truncation and x / 0 ---- */

static const int64_t one_dim[1] = {4}, unit[1] = {1};

#define TYPE_CASE(SUFFIX, T, A0, A1, A2, A3, B0, B1, B2, B3, ADD, SUB, MUL, DIV)                   \
    {                                                                                              \
        const T a[16] = {A0, A1, A2, A3}, b[16] = {B0, B1, B2, B3};                                \
        const T add_want[4] = ADD, sub_want[4] = SUB, mul_want[4] = MUL, div_want[4] = DIV;        \
        T y[16]; /* 16, not 4: gcc -O3 warns about its (unused here) 8-wide vector path */         \
        add_##SUFFIX(1, one_dim, unit, unit, a, b, y);                                             \
        check(!memcmp(y, add_want, sizeof add_want), "add_" #SUFFIX);                              \
        sub_##SUFFIX(1, one_dim, unit, unit, a, b, y);                                             \
        check(!memcmp(y, sub_want, sizeof sub_want), "sub_" #SUFFIX);                              \
        mul_##SUFFIX(1, one_dim, unit, unit, a, b, y);                                             \
        check(!memcmp(y, mul_want, sizeof mul_want), "mul_" #SUFFIX);                              \
        div_##SUFFIX(1, one_dim, unit, unit, a, b, y);                                             \
        check(!memcmp(y, div_want, sizeof div_want), "div_" #SUFFIX);                              \
    }
#define L(...)                                                                                     \
    {                                                                                              \
        __VA_ARGS__                                                                                \
    }

static void test_types(void)
{
    /* a = {7, -7, MAX, MIN}, b = {2, 2, 1, -1}: MAX+1 and MIN*-1 wrap, -7/2 truncates to -3 */
    TYPE_CASE(i8, int8_t, 7, -7, 127, -128, 2, 2, 1, -1, L(9, -5, -128, 127), L(5, -9, 126, -127),
              L(14, -14, 127, -128), L(3, -3, 127, -128))
    TYPE_CASE(i16, int16_t, 7, -7, 32767, -32768, 2, 2, 1, -1, L(9, -5, -32768, 32767),
              L(5, -9, 32766, -32767), L(14, -14, 32767, -32768), L(3, -3, 32767, -32768))
    TYPE_CASE(i32, int32_t, 7, -7, INT32_MAX, INT32_MIN, 2, 2, 1, -1,
              L(9, -5, INT32_MIN, INT32_MAX), L(5, -9, INT32_MAX - 1, INT32_MIN + 1),
              L(14, -14, INT32_MAX, INT32_MIN), L(3, -3, INT32_MAX, INT32_MIN))
    TYPE_CASE(i64, int64_t, 7, -7, INT64_MAX, INT64_MIN, 2, 2, 1, -1,
              L(9, -5, INT64_MIN, INT64_MAX), L(5, -9, INT64_MAX - 1, INT64_MIN + 1),
              L(14, -14, INT64_MAX, INT64_MIN), L(3, -3, INT64_MAX, INT64_MIN))
    /* unsigned: a = {7, 0, MAX, 200}, b = {2, 1, 1, 0}: 0-1 and MAX+1 wrap, x / 0 = 0 */
    TYPE_CASE(u8, uint8_t, 7, 0, 255, 200, 2, 1, 1, 0, L(9, 1, 0, 200), L(5, 255, 254, 200),
              L(14, 0, 255, 0), L(3, 0, 255, 0))
    TYPE_CASE(u16, uint16_t, 7, 0, 65535, 200, 2, 1, 1, 0, L(9, 1, 0, 200), L(5, 65535, 65534, 200),
              L(14, 0, 65535, 0), L(3, 0, 65535, 0))
    TYPE_CASE(u32, uint32_t, 7, 0, UINT32_MAX, 200, 2, 1, 1, 0, L(9, 1, 0, 200),
              L(5, UINT32_MAX, UINT32_MAX - 1, 200), L(14, 0, UINT32_MAX, 0),
              L(3, 0, UINT32_MAX, 0))
    TYPE_CASE(u64, uint64_t, 7, 0, UINT64_MAX, 200, 2, 1, 1, 0, L(9, 1, 0, 200),
              L(5, UINT64_MAX, UINT64_MAX - 1, 200), L(14, 0, UINT64_MAX, 0),
              L(3, 0, UINT64_MAX, 0))
    TYPE_CASE(f64, double, 7.0, -7.0, 0.1, 1.0, 2.0, 2.0, 0.2, 3.0, L(9.0, -5.0, 0.1 + 0.2, 4.0),
              L(5.0, -9.0, 0.1 - 0.2, -2.0), L(14.0, -14.0, 0.1 * 0.2, 3.0),
              L(3.5, -3.5, 0.1 / 0.2, 1.0 / 3.0))
    /* i8 with broadcasting of a scalar b: {-128, -1, 5} / -1 = {-128, 1, -5} */
    const int8_t a[3] = {-128, -1, 5}, b[1] = {-1}, want[3] = {-128, 1, -5};
    const int64_t d3[1] = {3}, s0[1] = {0};
    int8_t y[3];
    div_i8(1, d3, unit, s0, a, b, y);
    check(!memcmp(y, want, sizeof y), "div_i8 broadcast MIN / -1");

    /* integer Clip: {-128, -1, 5} into [-1, 4]; lo > hi gives hi */
    const int8_t clip_want[3] = {-1, -1, 4}, clip_swapped[3] = {0, 0, 0};
    clip_i8(3, -1, 4, a, y);
    check(!memcmp(y, clip_want, sizeof y), "clip_i8");
    clip_i8(3, 3, 0, a, y);
    check(!memcmp(y, clip_swapped, sizeof y), "clip_i8 lo > hi");
#define CLIP_CASE(SUFFIX, T, LO, HI, X0, X1, X2, W0, W1, W2)                                       \
    {                                                                                              \
        const T x[3] = {X0, X1, X2}, w[3] = {W0, W1, W2};                                          \
        T r[3];                                                                                    \
        clip_##SUFFIX(3, LO, HI, x, r);                                                            \
        check(!memcmp(r, w, sizeof r), "clip_" #SUFFIX);                                           \
    }
    CLIP_CASE(u8, uint8_t, 2, 200, 0, 100, 255, 2, 100, 200)
    CLIP_CASE(i16, int16_t, -300, 300, -32768, 7, 32767, -300, 7, 300)
    CLIP_CASE(u16, uint16_t, 2, 60000, 0, 100, 65535, 2, 100, 60000)
    CLIP_CASE(i32, int32_t, -5, 5, INT32_MIN, 0, INT32_MAX, -5, 0, 5)
    CLIP_CASE(u32, uint32_t, 1, 9, 0, 5, UINT32_MAX, 1, 5, 9)
    CLIP_CASE(i64, int64_t, INT64_MIN, 0, INT64_MIN, -1, INT64_MAX, INT64_MIN, -1, 0)
    CLIP_CASE(u64, uint64_t, 0, UINT64_MAX, 0, 1, UINT64_MAX, 0, 1, UINT64_MAX)
#undef CLIP_CASE
}
#undef TYPE_CASE
#undef L

int main(void)
{
    test_types();
    test_unary();
    test_binary_hand();
    test_coalesce();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
