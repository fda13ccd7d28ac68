/* gemm.c — Gemm and MatMul. Both lower to products Y[M][N] = A[M][K] x B[K][N]: with
 * --gemm=libxsmm a JIT kernel dispatched once in init, else the portable gemm_f32 template.
 * Both accumulate over k ascending with fmaf from 0, so they give the same bits. float64
 * models take gemm_f64 (fma, same order) and never libxsmm. */
#include "kernels.h"
#include "ops.h"

/* ---- shared product emission ---- */

/* A batch-1 product (GEMV) whose B fits the portable kernel's column-panel path (gemm_row_f32,
 * GEMM_NV_BYTES in templates/gemm.c) runs faster there than as libxsmm's n=1 kernel: measured
 * with benchmarks/gemm_kernels.c, 1x784 x 784x128 takes 2.1 us against 3.9 us. */
bool portable_gemv(int64_t M, int64_t N, int64_t K)
{
    return M == 1 && K * N <= (1 << 20) / (int64_t)sizeof(float);
}

/* The libxsmm product of Y[M][N] = A[M][K] x B[K][N], all contiguous row-major, as a C
 * function name, called (B, A, Y); NULL where the portable kernel runs it (--gemm=portable, a
 * small GEMV, an empty shape). libxsmm is column-major: row-major Y = A x B is, column-major,
 * Y^T = B^T x A^T, which is exactly the kernel call (B, A, Y) with m=N, n=M, k=K. */
const char *product_kernel(Emitter *e, int64_t M, int64_t N, int64_t K)
{
    if (e->opt->gemm != GEMM_LIBXSMM || !M || !N || !K || portable_gemv(M, N, K))
        return NULL;
    return xsmm_kernel(e, N, M, K, N, K, N, false);
}

/* Writes one product: product_kernel's when A and B are contiguous row-major; other layouts (a
 * transposed non-constant operand) take the portable kernel, which gives the same bits. */
void emit_product(Emitter *e, int64_t M, int64_t N, int64_t K, const char *a, int64_t a_rs,
                  int64_t a_cs, const char *b, int64_t b_rs, int64_t b_cs, const char *y)
{
    bool contiguous = a_cs == 1 && a_rs == K && b_cs == 1 && b_rs == N;
    const char *k = contiguous ? product_kernel(e, M, N, K) : NULL;
    if (k) {
        println(e, "%s(%s, %s, %s);", k, b, a, y);
    } else {
        println(e, "gemm_f32(%lld, %lld, %lld, %s, %lld, %lld, %s, %lld, %lld, %s);", (long long)M,
                (long long)N, (long long)K, a, (long long)a_rs, (long long)a_cs, b, (long long)b_rs,
                (long long)b_cs, y);
    }
}

/* A batch-1 product against a constant B runs the packed GEMV below whatever B's size, on both
 * backends: libxsmm's n=1 kernel over B packed in its panels took 1.06-1.27x the time of
 * gemm_rowpacked_f32 from L2 or L3 and 1.33-1.71x from memory, where a classifier's weight comes
 * from once per inference (benchmarks/gemv_const.c on AMD Zen 3: 1x1024 x 1024x1000 cold
 * 624 -> 377 us). */
bool gemv_const(int64_t M, int64_t N, int64_t K)
{
    return M == 1 && N > 0 && K > 0;
}

/* A batch-1 product against a constant B (gemv_const): B is packed at compile time into column
 * panels (gemm_pack_b_f32), which gemm_rowpacked_f32 reads as contiguous streams; same bits as
 * gemm_f32. B element (k,j) at B[k*b_rs + j*b_cs].
 * step: NULL for one product; for the product of a recurrent step, the C expression of the step
 * number. A B of at most GEMV_ALTERNATE_BYTES is then read in alternating panel order (the
 * reverse flag of gemm_rowpacked_f32 is step & 1), so each step starts on the panels that the
 * one before read last, still in L1; those products use the narrower panels of
 * gemm_rowpacked_width(1) (64 columns), of which the last ones read fit L1 beside the others
 * (with a 32 KiB L1 one 128-column panel of an LSTM-64 step fills it). Measured with a 48 KiB
 * L1 and 128-column panels, a 64 KiB B (LSTM-64) 0.31 -> 0.22 us per step, 128 and 256 KiB no
 * faster (256: 1-2% slower); with a 32 KiB L1, 128 -> 64 columns: 0.69 -> 0.59 us. With
 * 64-column panels and a 48 KiB L1 (Intel Xeon, AVX-512) a 256 KiB B (LSTM-128, 1x128 x
 * 128x512) gains too, as the last 32 KiB panel read stays in L1 where a 64 KiB one did not:
 * 1.68 -> 1.53 us per step in a loop, conv_lstm 0.95x the time. */
#define GEMV_ALTERNATE_BYTES (256 << 10)
bool emit_gemv_const(Emitter *e, int64_t M, int64_t N, int64_t K, const char *a, int64_t a_cs,
                     const float *B, int64_t b_rs, int64_t b_cs, const char *y, const char *step)
{
    if (!gemv_const(M, N, K))
        return false;
    const bool alternate = step && K * N <= GEMV_ALTERNATE_BYTES / (int64_t)sizeof(float);
    const int64_t nv = gemm_rowpacked_width(alternate);
    float *packed = xcalloc((size_t)(K * N), sizeof(float));
    gemm_pack_b_f32(N, K, nv, B, b_rs, b_cs, packed);
    int64_t dims[1] = {K * N};
    const char *bp = emit_constant(e, DT_FLOAT, 1, dims, packed);
    const char *reverse = alternate ? xprintf("(int)(%s) & 1", step) : "0";
    println(e,
            "gemm_rowpacked_f32(%lld, %lld, %s, %lld, %s, %lld, %s, %s); /* B packed in panels */",
            (long long)N, (long long)K, a, (long long)a_cs, bp, (long long)nv, y, reverse);
    return true;
}

/* A float product against a constant B with --gemm=libxsmm: B is packed at compile time in
 * panels of GEMM_XSMM_PANEL columns (gemm_pack_xsmm_f32), one JIT kernel per panel over all k
 * (o2c_xsmm_setup_panels); the portable fallback reads the same packed B, with the same bits.
 * B element (k,j) at B[k*b_rs + j*b_cs] (a transposed B is packed directly). false, emitting
 * nothing for a GEMV (emit_gemv_const's), a strided A or an empty shape. */
static bool emit_product_packed(Emitter *e, int64_t M, int64_t N, int64_t K, const char *a,
                                int64_t a_rs, int64_t a_cs, const float *B, int64_t b_rs,
                                int64_t b_cs, const char *y)
{
    if (e->opt->gemm != GEMM_LIBXSMM || a_cs != 1 || a_rs != K || !M || !N || !K ||
        gemv_const(M, N, K))
        return false;
    float *packed = xcalloc((size_t)(K * N), sizeof(float));
    gemm_pack_xsmm_f32(N, K, B, b_rs, b_cs, packed);
    int64_t dims[1] = {K * N};
    const char *bp = emit_constant(e, DT_FLOAT, 1, dims, packed);
    const char *k = xsmm_kernel(e, N, M, K, N, K, N, true);
    println(e, "%s(%s, %s, %s); /* B packed in panels */", k, bp, a, y);
    return true;
}

/* float32 or float64 operands, all of one type; returns that type. */
static DType product_dtype(const Node *n)
{
    DType t = n->inputs[0]->dtype == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i])
            require_dtype(n, n->inputs[i], t);
    return t;
}

/* emit_product for either type: doubles always take the portable loop. */
static void emit_product_typed(Emitter *e, DType t, int64_t M, int64_t N, int64_t K, const char *a,
                               int64_t a_rs, int64_t a_cs, const char *b, int64_t b_rs,
                               int64_t b_cs, const char *y)
{
    if (t != DT_DOUBLE) {
        emit_product(e, M, N, K, a, a_rs, a_cs, b, b_rs, b_cs, y);
        return;
    }
    println(e, "gemm_f64(%lld, %lld, %lld, %s, %lld, %lld, %s, %lld, %lld, %s);", (long long)M,
            (long long)N, (long long)K, a, (long long)a_rs, (long long)a_cs, b, (long long)b_rs,
            (long long)b_cs, y);
}

/* ---- Gemm: Y = alpha * A' x B' + beta * C ---- */

typedef struct GemmShape {
    int64_t M, N, K;
    int64_t a_rs, a_cs, b_rs, b_cs, c_rs, c_cs;
    float alpha, beta;
    bool trans_b;
} GemmShape;

static GemmShape gemm_shape(const Node *n)
{
    const Value *a = n->inputs[0], *b = n->inputs[1], *c = node_input(n, 2);
    GemmShape s = {0};
    bool ta = attr_int(n, "transA", 0) != 0, tb = attr_int(n, "transB", 0) != 0;
    if (a->rank != 2 || b->rank != 2)
        fatal_at(n, "A and B must be 2-D (got ranks %d and %d)", a->rank, b->rank);
    s.M = ta ? a->dims[1] : a->dims[0];
    s.K = ta ? a->dims[0] : a->dims[1];
    s.N = tb ? b->dims[0] : b->dims[1];
    int64_t kb = tb ? b->dims[1] : b->dims[0];
    if (kb != s.K)
        fatal_at(n, "inner dimensions differ (A gives K=%lld, B gives %lld)", (long long)s.K,
                 (long long)kb);
    s.a_rs = ta ? 1 : a->dims[1];
    s.a_cs = ta ? a->dims[1] : 1;
    s.b_rs = tb ? 1 : b->dims[1];
    s.b_cs = tb ? b->dims[1] : 1;
    s.trans_b = tb;
    s.alpha = attr_float(n, "alpha", 1.0f);
    s.beta = attr_float(n, "beta", 1.0f);
    if (c) {
        if (c->rank > 2)
            fatal_at(n, "C must have rank 2 or less (got %d)", c->rank);
        int64_t out[2] = {s.M, s.N}, st[2];
        for (int i = 0; i < c->rank; i++) {
            int64_t d = c->dims[c->rank - 1 - i], o = out[1 - i];
            if (d != o && d != 1)
                fatal_at(n, "C of shape dim %lld does not broadcast to %lld", (long long)d,
                         (long long)o);
        }
        broadcast_strides(c, 2, out, st);
        s.c_rs = st[0];
        s.c_cs = st[1];
    }
    return s;
}

void gemm_infer(Node *n)
{
    DType t = product_dtype(n);
    GemmShape s = gemm_shape(n);
    int64_t dims[2] = {s.M, s.N};
    set_shape(n->outputs[0], t, 2, dims);
}

static bool gemm_has_epilogue(const Node *n, const GemmShape *s)
{
    return s->alpha != 1.0f || node_input(n, 2);
}

void gemm_fold(Node *n)
{
    GemmShape s = gemm_shape(n);
    const Value *c = node_input(n, 2);
    if (n->outputs[0]->dtype == DT_DOUBLE) {
        double *yd = n->outputs[0]->data;
        gemm_f64(s.M, s.N, s.K, n->inputs[0]->data, s.a_rs, s.a_cs, n->inputs[1]->data, s.b_rs,
                 s.b_cs, yd);
        if (gemm_has_epilogue(n, &s))
            gemm_epilogue_f64(s.M, s.N, s.alpha, c ? c->data : NULL, s.c_rs, s.c_cs, s.beta, yd);
        return;
    }
    float *y = n->outputs[0]->data;
    gemm_f32(s.M, s.N, s.K, n->inputs[0]->data, s.a_rs, s.a_cs, n->inputs[1]->data, s.b_rs, s.b_cs,
             y);
    if (gemm_has_epilogue(n, &s))
        gemm_epilogue_f32(s.M, s.N, s.alpha, c ? c->data : NULL, s.c_rs, s.c_cs, s.beta, y);
}

/* A constant B^T is transposed at compile time, so the product reads B row-major: contiguous
 * for libxsmm, and vectorisable across j for the portable loops. */
static const char *gemm_b_operand(Emitter *e, Node *n, GemmShape *s)
{
    Value *b = n->inputs[1];
    if (!s->trans_b || !b->data)
        return value_cname(e, b);
    size_t size = dtype_size(b->dtype);
    void *t = xcalloc((size_t)(s->K * s->N) + 1, size);
    int64_t dims[2] = {s->N, s->K};
    int32_t perm[2] = {1, 0};
    transpose_bytes(2, dims, perm, size, b->data, t);
    s->b_rs = s->N;
    s->b_cs = 1;
    int64_t tdims[2] = {s->K, s->N};
    return emit_constant(e, b->dtype, 2, tdims, t);
}

void gemm_emit(Emitter *e, Node *n)
{
    GemmShape s = gemm_shape(n);
    const char *y = value_cname(e, n->outputs[0]);
    DType t = n->outputs[0]->dtype;
    const Value *bv = n->inputs[1];
    const char *a = value_cname(e, n->inputs[0]);
    bool packed =
        t == DT_FLOAT && bv->data &&
        (emit_gemv_const(e, s.M, s.N, s.K, a, s.a_cs, bv->data, s.b_rs, s.b_cs, y, NULL) ||
         emit_product_packed(e, s.M, s.N, s.K, a, s.a_rs, s.a_cs, bv->data, s.b_rs, s.b_cs, y));
    if (!packed) {
        const char *b = gemm_b_operand(e, n, &s);
        emit_product_typed(e, t, s.M, s.N, s.K, a, s.a_rs, s.a_cs, b, s.b_rs, s.b_cs, y);
    }
    Value *c = node_input(n, 2);
    if (gemm_has_epilogue(n, &s))
        println(e, "gemm_epilogue_%s(%lld, %lld, %s, %s, %lld, %lld, %s, %s);",
                t == DT_DOUBLE ? "f64" : "f32", (long long)s.M, (long long)s.N, c_float(s.alpha),
                c ? value_cname(e, c) : "NULL", (long long)s.c_rs, (long long)s.c_cs,
                c_float(s.beta), y);
    emit_epilogues(e, n);
}

double gemm_flops(const Node *n)
{
    GemmShape s = gemm_shape(n);
    return 2.0 * (double)s.M * (double)s.N * (double)s.K;
}

/* ---- MatMul: numpy matmul, batched with broadcasting ---- */

MatMulShape matmul_geometry(const Node *n, const Value *a, const Value *b, int *out_rank,
                            int64_t *out_dims)
{
    if (a->rank < 1 || b->rank < 1)
        fatal_at(n, "inputs must have rank 1 or more");
    MatMulShape s = {0};
    /* 1-D A is a row [1][K]; 1-D B is a column [K][1]; those dims are dropped from Y. */
    s.M = a->rank == 1 ? 1 : a->dims[a->rank - 2];
    s.K = a->dims[a->rank - 1];
    int64_t kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
    s.N = b->rank == 1 ? 1 : b->dims[b->rank - 1];
    if (kb != s.K)
        fatal_at(n, "inner dimensions differ (%lld vs %lld)", (long long)s.K, (long long)kb);
    int ra = a->rank > 2 ? a->rank - 2 : 0, rb = b->rank > 2 ? b->rank - 2 : 0;
    int rbatch = ra > rb ? ra : rb;
    int64_t bdims[MAX_RANK];
    s.batch = 1;
    for (int i = 0; i < rbatch; i++) {
        int ia = i - (rbatch - ra), ib = i - (rbatch - rb);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            fatal_at(n, "batch dims do not broadcast (%lld vs %lld)", (long long)da, (long long)db);
        bdims[i] = da == 1 ? db : da;
        s.batch = checked_mul(n, s.batch, bdims[i]);
    }
    int r = 0;
    for (int i = 0; i < rbatch; i++)
        out_dims[r++] = bdims[i];
    if (a->rank > 1)
        out_dims[r++] = s.M;
    if (b->rank > 1)
        out_dims[r++] = s.N;
    *out_rank = r;
    /* Offsets of every product's operands, walking the batch index like an odometer. */
    s.a_off = xcalloc((size_t)s.batch, sizeof(int64_t));
    s.b_off = xcalloc((size_t)s.batch, sizeof(int64_t));
    for (int64_t p = 0; p < s.batch; p++) {
        int64_t rem = p, oa = 0, ob = 0, sa = s.M * s.K, sb = s.K * s.N;
        for (int i = rbatch - 1; i >= 0; i--) {
            int64_t idx = rem % bdims[i];
            rem /= bdims[i];
            int ia = i - (rbatch - ra), ib = i - (rbatch - rb);
            if (ia >= 0) {
                oa += (a->dims[ia] == 1 ? 0 : idx) * sa;
                sa *= a->dims[ia];
            }
            if (ib >= 0) {
                ob += (b->dims[ib] == 1 ? 0 : idx) * sb;
                sb *= b->dims[ib];
            }
        }
        s.a_off[p] = oa;
        s.b_off[p] = ob;
    }
    return s;
}

static MatMulShape matmul_shape(const Node *n, int *out_rank, int64_t *out_dims)
{
    return matmul_geometry(n, n->inputs[0], n->inputs[1], out_rank, out_dims);
}

void matmul_infer(Node *n)
{
    DType t = product_dtype(n);
    int rank;
    int64_t dims[MAX_RANK + 2];
    matmul_shape(n, &rank, dims);
    if (rank > MAX_RANK)
        fatal_at(n, "output rank %d is more than %d", rank, MAX_RANK);
    set_shape(n->outputs[0], t, rank, dims);
}

void matmul_fold(Node *n)
{
    int rank;
    int64_t dims[MAX_RANK + 2];
    MatMulShape s = matmul_shape(n, &rank, dims);
    if (n->outputs[0]->dtype == DT_DOUBLE) {
        const double *a = n->inputs[0]->data, *b = n->inputs[1]->data;
        double *y = n->outputs[0]->data;
        for (int64_t p = 0; p < s.batch; p++)
            gemm_f64(s.M, s.N, s.K, a + s.a_off[p], s.K, 1, b + s.b_off[p], s.N, 1,
                     y + p * s.M * s.N);
        return;
    }
    const float *a = n->inputs[0]->data, *b = n->inputs[1]->data;
    float *y = n->outputs[0]->data;
    for (int64_t p = 0; p < s.batch; p++)
        gemm_f32(s.M, s.N, s.K, a + s.a_off[p], s.K, 1, b + s.b_off[p], s.N, 1, y + p * s.M * s.N);
}

const char *offsets_array(Emitter *e, const int64_t *off, int64_t n)
{
    const char *name = xprintf("offsets%d", e->counter++);
    FILE *f = e->out;
    fprintf(f, "%*sstatic const int64_t %s[%lld] = {", 4 * e->indent, "", name, (long long)n);
    for (int64_t i = 0; i < n; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)off[i]);
    fprintf(f, "};\n");
    return name;
}

void matmul_emit(Emitter *e, Node *n)
{
    int rank;
    int64_t dims[MAX_RANK + 2];
    MatMulShape s = matmul_shape(n, &rank, dims);
    const char *a = value_cname(e, n->inputs[0]), *y = value_cname(e, n->outputs[0]);
    DType t = n->outputs[0]->dtype;
    const Value *bv = n->inputs[1];
    /* a packed B replaces the weight, so its name is asked for (which emits it) only below */
    if (s.batch == 1 && t == DT_FLOAT && bv->data &&
        (emit_gemv_const(e, s.M, s.N, s.K, a, 1, bv->data, s.N, 1, y, NULL) ||
         emit_product_packed(e, s.M, s.N, s.K, a, s.K, 1, bv->data, s.N, 1, y)))
        return;
    const char *b = value_cname(e, n->inputs[1]);
    if (s.batch == 1) {
        emit_product_typed(e, t, s.M, s.N, s.K, a, s.K, 1, b, s.N, 1, y);
        return;
    }
    const char *oa = offsets_array(e, s.a_off, s.batch), *ob = offsets_array(e, s.b_off, s.batch);
    println(e, "for (int64_t p = 0; p < %lld; p++) {", (long long)s.batch);
    e->indent++;
    emit_product_typed(e, t, s.M, s.N, s.K, xprintf("%s + %s[p]", a, oa), s.K, 1,
                       xprintf("%s + %s[p]", b, ob), s.N, 1,
                       xprintf("%s + p * %lld", y, (long long)(s.M * s.N)));
    e->indent--;
    println(e, "}");
}

double matmul_flops(const Node *n)
{
    int rank;
    int64_t dims[MAX_RANK + 2];
    MatMulShape s = matmul_shape(n, &rank, dims);
    return 2.0 * (double)s.batch * (double)s.M * (double)s.N * (double)s.K;
}
