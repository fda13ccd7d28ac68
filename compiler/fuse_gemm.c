/* fuse_gemm.c — form Gemm from what exporters emit:
 *   MatMul + Add(bias)                               -> Gemm(A, B, C)
 *   Add(Mul(MatMul(A, B), alpha), Mul(C, beta))      -> Gemm(alpha, beta)   (torchlib addmm,
 *                                                        any operand order, CastLike folded)
 *   N-D A [.., K] x 2-D B                            -> Reshape(view) + Gemm + Reshape(view)
 *   Transpose(perm 1,0) feeding a Gemm/MatMul operand -> transA / transB
 * as the rule table gemm_rules, applied by rewrite_graph. Constant transposed weights are then
 * laid out for the kernel at emission. */
#include "rewrite.h"

#include <string.h>

/* Gemm's C broadcasts one way to [M][N]; with a flattened N-D A only a row [N] does. */
static bool bias_fits(const Value *c, int64_t M, int64_t N, bool flattened)
{
    if (c->dtype != DT_FLOAT || c->rank > 2)
        return false;
    int64_t want[2] = {M, N};
    for (int i = 0; i < c->rank; i++) {
        int64_t d = c->dims[c->rank - 1 - i], w = want[1 - i];
        if (d != w && d != 1)
            return false;
        if (flattened && i == 1 && d != 1)
            return false;
    }
    return true;
}

static void set_gemm_attrs(Node *g, float alpha, float beta)
{
    if (alpha != 1.0f)
        attr_set_float(g, "alpha", alpha);
    if (beta != 1.0f)
        attr_set_float(g, "beta", beta);
}

static bool is_scalar(const Value *v, double c)
{
    float f;
    (void)c;
    return scalar_constant(v, &f);
}

static bool not_scalar(const Value *v, double c)
{
    return !is_scalar(v, c);
}

/* A float MatMul whose B is 2-D: A [.., M, K] flattens to [M][K]. */
static bool gemm_operands(const Value *v, double c)
{
    (void)c;
    const Node *mm = v->producer;
    const Value *a = mm->inputs[0], *b = mm->inputs[1];
    return a->rank >= 2 && b->rank == 2 && a->dtype == DT_FLOAT && a->dims[a->rank - 1];
}

/* Bindings of the Add rule: the MatMul's output, alpha, the bias C and beta. */
enum { MM = 1, ALPHA, BIAS, BETA };

/* The bias fits the product's [M][N], and the Add keeps the product's shape. */
static bool bias_fits_product(const Match *m)
{
    const Value *y = m->nodes[0]->outputs[0], *mmy = m->v[MM];
    const Value *a = mmy->producer->inputs[0], *b = mmy->producer->inputs[1];
    int64_t K = a->dims[a->rank - 1], N = b->dims[1], M = value_numel(a) / K;
    if (y->dtype != DT_FLOAT || !bias_fits(m->v[BIAS], M, N, a->rank > 2) || y->rank != mmy->rank)
        return false;
    for (int d = 0; d < y->rank; d++)
        if (y->dims[d] != mmy->dims[d])
            return false;
    return true;
}

static bool fuse_add_into_gemm(Graph *g, Node *add, const Match *m)
{
    Node *mm = m->v[MM]->producer;
    Value *a = mm->inputs[0], *b = mm->inputs[1], *c = m->v[BIAS], *y = add->outputs[0];
    float alpha = 1.0f, beta = 1.0f;
    if (m->v[ALPHA])
        scalar_constant(m->v[ALPHA], &alpha);
    if (m->v[BETA])
        scalar_constant(m->v[BETA], &beta);
    int64_t K = a->dims[a->rank - 1], N = b->dims[1], M = value_numel(a) / K;
    Node *gemm = add;
    if (a->rank > 2) {
        int64_t flat[2] = {M, K}, out[2] = {M, N};
        Value *a2 = reshape_before(g, add, a, 2, flat);
        Value *gy = value_new(g, "");
        gy->name = xprintf("%s/gemm_%d", add->name, gy->id);
        set_shape(gy, DT_FLOAT, 2, out);
        Value *ins[3] = {a2, b, c};
        gemm = new_node_before(g, add, xprintf("%s/gemm", add->name), "Gemm", 3, ins, gy);
        int64_t len = y->rank;
        Value *shape = constant_new(g, xprintf("%s/shape", add->name), DT_INT64, 1, &len);
        memcpy(shape->data, y->dims, (size_t)y->rank * sizeof(int64_t));
        Value *rins[2] = {gy, shape};
        morph_node(add, "Reshape", 2, rins);
        y->view_of = gy;
    } else {
        Value *ins[3] = {a, b, c};
        morph_node(add, "Gemm", 3, ins);
    }
    set_gemm_attrs(gemm, alpha, beta);
    for (int i = 1; i < m->nnodes; i++)
        node_retire(m->nodes[i]); /* the MatMul and the Muls of alpha and beta */
    record_fusion(m->nnodes > 2 ? "addmm_to_gemm" : "matmul_add_to_gemm");
    return true;
}

/* A 2-D transpose (perm 1,0 or none). */
static bool transposes_2d(const Value *v, double c)
{
    (void)c;
    const Node *t = v->producer;
    const int64_t *perm;
    int np = attr_ints(t, "perm", &perm);
    return t->inputs[0]->rank == 2 && (np != 2 || (perm[0] == 1 && perm[1] == 0));
}

/* The 2-D transpose feeding operand `k` of a Gemm becomes its trans flag. */
static bool absorb_transpose(Node *n, int k, const Match *m)
{
    static const char *const flag[2] = {"transA", "transB"};
    Node *t = m->v[1]->producer;
    attr_set_int(n, flag[k], !attr_int(n, flag[k], 0));
    node_set_input(n, k, t->inputs[0]);
    node_retire(t);
    record_fusion("transpose_into_gemm");
    return true;
}

static bool absorb_transpose_a(Graph *g, Node *n, const Match *m)
{
    (void)g;
    return absorb_transpose(n, 0, m);
}

static bool absorb_transpose_b(Graph *g, Node *n, const Match *m)
{
    (void)g;
    return absorb_transpose(n, 1, m);
}

/* A 2-D MatMul with a transposed operand is a Gemm with a trans flag (the rules above then
 * take the Transpose). */
static bool matmul_to_gemm(Graph *g, Node *n, const Match *m)
{
    (void)g, (void)m;
    if (n->inputs[0]->rank != 2 || n->inputs[1]->rank != 2)
        return false;
    Value *ins[2] = {n->inputs[0], n->inputs[1]};
    morph_node(n, "Gemm", 2, ins);
    return true;
}

/* MatMul(A, B), or Mul(MatMul(A, B), alpha) */
#define PRODUCT_MM (&(const Pattern){.op = "MatMul", .bind = MM, .test = gemm_operands})
#define PRODUCT                                                                                    \
    P_EITHER(PRODUCT_MM,                                                                           \
             P_COMM("Mul", PRODUCT_MM, (&(const Pattern){.bind = ALPHA, .test = is_scalar})))
/* Mul(C, beta) with C not a scalar constant, or C */
#define BIAS_TERM                                                                                  \
    P_EITHER(P_COMM("Mul", (&(const Pattern){.bind = BIAS, .test = not_scalar}),                   \
                    (&(const Pattern){.bind = BETA, .test = is_scalar})),                          \
             P_ANY(BIAS))
#define TRANSPOSED    (&(const Pattern){.op = "Transpose", .bind = 1, .test = transposes_2d})
#define ANY_TRANSPOSE P_NODE(0, "Transpose")

static const Pattern matmul_add = {
    .op = "Add", .nin = 2, .commute = true, .in = {PRODUCT, BIAS_TERM}, .where = bias_fits_product};

static const RewriteRule gemm_rules[] = {
    {&matmul_add, fuse_add_into_gemm},
    {P_OP2("MatMul", ANY_TRANSPOSE, P_ANY(0)), matmul_to_gemm},
    {P_OP2("MatMul", P_ANY(0), ANY_TRANSPOSE), matmul_to_gemm},
    {P_OP2("Gemm", TRANSPOSED, P_ANY(0)), absorb_transpose_a},
    {P_OP2("Gemm", P_ANY(0), TRANSPOSED), absorb_transpose_b},
};

void fuse_gemm(Graph *g)
{
    REWRITE(g, gemm_rules);
}
