/* fuse_gemm.c — form Gemm from what exporters emit:
 *   MatMul + Add(bias)                               -> Gemm(A, B, C)
 *   Add(Mul(MatMul(A, B), alpha), Mul(C, beta))      -> Gemm(alpha, beta)   (torchlib addmm,
 *                                                        any operand order, CastLike folded)
 *   N-D A [.., K] x 2-D B                            -> Reshape(view) + Gemm + Reshape(view)
 *   Transpose(perm 1,0) feeding a Gemm/MatMul operand -> transA / transB
 * Constant transposed weights are then laid out for the kernel at emission. */
#include "rewrite.h"

#include <string.h>

/* mm, or Mul(mm, scalar) whose scale becomes alpha. */
static Node *match_product(Value *v, float *alpha, Node **mul)
{
    *alpha = 1.0f;
    *mul = NULL;
    Node *p = sole_producer(v, "MatMul");
    if (p)
        return p;
    Node *m = sole_producer(v, "Mul");
    if (!m)
        return NULL;
    for (int k = 0; k < 2; k++) {
        float c;
        Node *mm = sole_producer(m->inputs[1 - k], "MatMul");
        if (mm && scalar_constant(m->inputs[k], &c)) {
            *alpha = c;
            *mul = m;
            return mm;
        }
    }
    return NULL;
}

/* C, or Mul(C, scalar) whose scale becomes beta. */
static Value *match_bias(Value *v, float *beta, Node **mul)
{
    *beta = 1.0f;
    *mul = NULL;
    Node *m = sole_producer(v, "Mul");
    for (int k = 0; m && k < 2; k++) {
        float c;
        float other;
        if (scalar_constant(m->inputs[k], &c) && !scalar_constant(m->inputs[1 - k], &other)) {
            *beta = c;
            *mul = m;
            return m->inputs[1 - k];
        }
    }
    return v;
}

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

static bool fuse_add_into_gemm(Graph *g, Node *add)
{
    Value *y = add->outputs[0];
    if (y->dtype != DT_FLOAT)
        return false;
    for (int p = 0; p < 2; p++) {
        float alpha, beta;
        Node *mul_a, *mul_b;
        Node *mm = match_product(add->inputs[p], &alpha, &mul_a);
        if (!mm)
            continue;
        Value *a = mm->inputs[0], *b = mm->inputs[1], *mmy = mm->outputs[0];
        if (a->rank < 2 || b->rank != 2 || a->dtype != DT_FLOAT)
            continue;
        Value *c = match_bias(add->inputs[1 - p], &beta, &mul_b);
        int64_t K = a->dims[a->rank - 1], N = b->dims[1], M = value_numel(a) / (K ? K : 1);
        bool flattened = a->rank > 2;
        if (!K || !bias_fits(c, M, N, flattened) || y->rank != mmy->rank)
            continue;
        bool same = true;
        for (int d = 0; d < y->rank; d++)
            same = same && y->dims[d] == mmy->dims[d];
        if (!same)
            continue;
        Node *gemm = add;
        Value *a2 = a;
        if (flattened) {
            int64_t flat[2] = {M, K}, out[2] = {M, N};
            a2 = reshape_before(g, add, a, 2, flat);
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
        if (mul_a)
            node_retire(mul_a);
        if (mul_b)
            node_retire(mul_b);
        node_retire(mm);
        record_fusion(mul_a || mul_b ? "addmm_to_gemm" : "matmul_add_to_gemm");
        return true;
    }
    return false;
}

/* A 2-D transpose feeding operand `k` of a Gemm becomes its trans flag. */
static void absorb_transposes(Node *n)
{
    static const char *const flag[2] = {"transA", "transB"};
    for (int k = 0; k < 2; k++) {
        Node *t = sole_producer(n->inputs[k], "Transpose");
        if (!t || t->inputs[0]->rank != 2)
            continue;
        const int64_t *perm;
        int np = attr_ints(t, "perm", &perm);
        if (np == 2 && (perm[0] != 1 || perm[1] != 0))
            continue;
        attr_set_int(n, flag[k], !attr_int(n, flag[k], 0));
        node_set_input(n, k, t->inputs[0]);
        node_retire(t);
        record_fusion("transpose_into_gemm");
    }
}

/* A 2-D MatMul with a transposed operand is a Gemm with a trans flag. */
static void matmul_to_gemm(Node *n)
{
    if (n->inputs[0]->rank != 2 || n->inputs[1]->rank != 2)
        return;
    if (!sole_producer(n->inputs[0], "Transpose") && !sole_producer(n->inputs[1], "Transpose"))
        return;
    Value *ins[2] = {n->inputs[0], n->inputs[1]};
    morph_node(n, "Gemm", 2, ins);
}

void fuse_gemm(Graph *g)
{
    int count = g->nnodes; /* nodes added here need no visit */
    for (int i = 0; i < count; i++) {
        Node *n = g->nodes[i];
        if (n->dead)
            continue;
        if (!strcmp(n->op_type, "Add"))
            fuse_add_into_gemm(g, n);
        else if (!strcmp(n->op_type, "MatMul"))
            matmul_to_gemm(n);
        if (!strcmp(n->op_type, "Gemm"))
            absorb_transposes(n);
    }
}
