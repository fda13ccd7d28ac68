/* fuse_gelu.c — recognise GELU written out as elementwise ops, as the TorchScript exporter
 * (and torchlib without the Gelu op) writes it, and replace it by one Gelu node, which the
 * epilogue pass can then fuse into the Gemm before it:
 *   erf form:  0.5 * h * (1 + Erf(h / sqrt(2)))             (h * 0.70710678 also accepted)
 *   tanh form: 0.5 * h * (1 + Tanh(0.7978846 * (h + 0.044715 * h^3)))
 * with the products in any order. The Gelu kernel evaluates the same formula, rounding its
 * steps differently, so results agree within float tolerance rather than bit for bit. */
#include "rewrite.h"

#include <math.h>
#include <string.h>

static bool near(float got, double want)
{
    return fabs((double)got - want) <= 1e-6 * fabs(want);
}

/* Mul/Add/Div node n with a scalar constant operand close to `c`: returns the other input. */
static Value *with_constant(const Node *n, const char *op, double c)
{
    if (!is_op(n, op))
        return NULL;
    float f;
    for (int k = 0; k < 2; k++)
        if (scalar_constant(n->inputs[k], &f) && near(f, c) && (k == 1 || strcmp(op, "Div")))
            return n->inputs[1 - k];
    return NULL;
}

static Node *user(const Value *v)
{
    Node *u = sole_user(v);
    return u && !u->dead ? u : NULL;
}

typedef struct Match {
    Node *nodes[12];
    int n;
} Match;

static void take(Match *m, Node *n)
{
    m->nodes[m->n++] = n;
}

/* From 1 + f(h): Mul by h and Mul by 0.5 in either order, or Mul by Mul(h, 0.5).
 * Returns the last node (whose output is the GELU). */
static Node *match_tail(Match *m, Node *plus_one, const Value *h)
{
    Node *m1 = user(plus_one->outputs[0]);
    if (!is_op(m1, "Mul"))
        return NULL;
    const Value *other = m1->inputs[0] == plus_one->outputs[0] ? m1->inputs[1] : m1->inputs[0];
    Node *half = other->producer;
    if (is_op(half, "Mul") && sole_user(other) == m1 && with_constant(half, "Mul", 0.5) == h) {
        take(m, half);
        return m1;
    }
    float f;
    bool by_h = other == h, by_half = scalar_constant(other, &f) && near(f, 0.5);
    if (!by_h && !by_half)
        return NULL;
    take(m, m1);
    Node *m2 = user(m1->outputs[0]);
    if (!is_op(m2, "Mul"))
        return NULL;
    const Value *last = m2->inputs[0] == m1->outputs[0] ? m2->inputs[1] : m2->inputs[0];
    bool ok = by_h ? (scalar_constant(last, &f) && near(f, 0.5)) : last == h;
    return ok ? m2 : NULL;
}

static Node *match_plus_one(Match *m, Node *f)
{
    Node *a = user(f->outputs[0]);
    if (!with_constant(a, "Add", 1.0))
        return NULL;
    take(m, f);
    take(m, a);
    return a;
}

/* Erf(h / sqrt2) */
static const Value *match_erf_arg(Match *m, Node *erf)
{
    Node *d = erf->inputs[0]->producer;
    if (!d || sole_user(erf->inputs[0]) != erf)
        return NULL;
    const Value *h = with_constant(d, "Div", sqrt(2.0));
    if (!h)
        h = with_constant(d, "Mul", 1.0 / sqrt(2.0));
    if (h)
        take(m, d);
    return h;
}

/* Tanh(0.7978846 * (h + 0.044715 * h^3)), h^3 as Mul(h, Mul(h, h)) or Pow(h, 3) */
static const Value *match_tanh_arg(Match *m, Node *tanh_node)
{
    Node *scale = tanh_node->inputs[0]->producer;
    const Value *sum = with_constant(scale, "Mul", 0.79788456080286535588 /* sqrt(2/pi) */);
    if (!sum || sole_user(tanh_node->inputs[0]) != tanh_node || !is_op(sum->producer, "Add"))
        return NULL;
    Node *add = sum->producer;
    for (int k = 0; k < 2; k++) {
        const Value *h = add->inputs[k], *cubic = add->inputs[1 - k];
        const Value *cube = with_constant(cubic->producer, "Mul", 0.044715);
        if (!cube || !cube->producer)
            continue;
        Node *c3 = cube->producer;
        bool is_cube = false;
        float e;
        if (is_op(c3, "Pow"))
            is_cube = c3->inputs[0] == h && scalar_constant(c3->inputs[1], &e) && e == 3.0f;
        if (is_op(c3, "Mul")) {
            const Value *sq = c3->inputs[0] == h ? c3->inputs[1] : c3->inputs[0];
            Node *c2 = sq->producer;
            is_cube = (c3->inputs[0] == h || c3->inputs[1] == h) && is_op(c2, "Mul") &&
                      c2->inputs[0] == h && c2->inputs[1] == h && sole_user(sq) == c3;
            if (is_cube)
                take(m, c2);
        }
        if (!is_cube)
            continue;
        take(m, c3);
        take(m, cubic->producer);
        take(m, add);
        take(m, scale);
        return h;
    }
    return NULL;
}

static void replace_by_gelu(Node *last, Value *h, bool tanh_form, Match *m)
{
    Value *ins[1] = {h};
    morph_node(last, "Gelu", 1, ins);
    if (tanh_form)
        attr_set_string(last, "approximate", "tanh");
    for (int i = 0; i < m->n; i++)
        if (m->nodes[i] != last && !m->nodes[i]->dead)
            node_retire(m->nodes[i]);
    record_fusion(tanh_form ? "gelu_tanh_recognised" : "gelu_erf_recognised");
}

void fuse_gelu(Graph *g)
{
    if (!op_lookup("Gelu"))
        return;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        bool is_erf = is_op(n, "Erf"), is_tanh = is_op(n, "Tanh");
        if ((!is_erf && !is_tanh) || n->outputs[0]->dtype != DT_FLOAT)
            continue;
        Match m = {.n = 0};
        const Value *h = is_erf ? match_erf_arg(&m, n) : match_tanh_arg(&m, n);
        Node *plus = h ? match_plus_one(&m, n) : NULL;
        Node *last = plus ? match_tail(&m, plus, h) : NULL;
        if (last)
            replace_by_gelu(last, (Value *)h, is_tanh, &m);
    }
}
