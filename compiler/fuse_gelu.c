/* fuse_gelu.c — recognise GELU written out as elementwise ops, as the TorchScript exporter
 * (and torchlib without the Gelu op) writes it, and replace it by one Gelu node, which the
 * epilogue pass can then fuse into the Gemm before it:
 *   erf form:  0.5 * h * (1 + Erf(h / sqrt(2)))             (h * 0.70710678 also accepted)
 *   tanh form: 0.5 * h * (1 + Tanh(0.7978846 * (h + 0.044715 * h^3)))
 * with the products in any order and h^3 as Pow(h, 3) or h * (h * h). The patterns below are
 * matched at the last Mul by rewrite_graph; every node they name but h is read only inside
 * the pattern. The Gelu kernel evaluates the same formula, rounding its steps differently, so
 * results agree within float tolerance rather than bit for bit. */
#include "rewrite.h"

#define H        P_ANY(1)
#define NEAR(c)  P_TEST(scalar_near, c)
#define SQRT2    1.41421356237309504880
#define SQRT2_PI 0.79788456080286535588 /* sqrt(2/pi) */

/* 1 + Erf(h / sqrt2), 1 + Erf(h * (1 / sqrt2)) */
#define ERF_TERM                                                                                   \
    P_COMM(                                                                                        \
        "Add", NEAR(1.0),                                                                          \
        P_OP1("Erf", P_EITHER(P_OP2("Div", H, NEAR(SQRT2)), P_COMM("Mul", H, NEAR(1.0 / SQRT2)))))

/* 1 + Tanh(sqrt(2/pi) * (h + 0.044715 * h^3)) */
#define CUBE                                                                                       \
    P_EITHER(P_OP2("Pow", H, P_TEST(scalar_equal, 3.0)), P_COMM("Mul", H, P_OP2("Mul", H, H)))
#define TANH_TERM                                                                                  \
    P_COMM("Add", NEAR(1.0),                                                                       \
           P_OP1("Tanh", P_COMM("Mul", NEAR(SQRT2_PI),                                             \
                                P_COMM("Add", H, P_COMM("Mul", NEAR(0.044715), CUBE)))))

/* The three ways to multiply the term by h and 0.5: term * (h * 0.5), 0.5 * (term * h),
 * h * (term * 0.5), each product in either order. The root of a pattern is the node itself,
 * so the three are three rules. */
static const Pattern gelu_erf[3] = {
    {.op = "Mul", .nin = 2, .commute = true, .in = {ERF_TERM, P_COMM("Mul", H, NEAR(0.5))}},
    {.op = "Mul", .nin = 2, .commute = true, .in = {NEAR(0.5), P_COMM("Mul", ERF_TERM, H)}},
    {.op = "Mul", .nin = 2, .commute = true, .in = {H, P_COMM("Mul", ERF_TERM, NEAR(0.5))}},
};
static const Pattern gelu_tanh[3] = {
    {.op = "Mul", .nin = 2, .commute = true, .in = {TANH_TERM, P_COMM("Mul", H, NEAR(0.5))}},
    {.op = "Mul", .nin = 2, .commute = true, .in = {NEAR(0.5), P_COMM("Mul", TANH_TERM, H)}},
    {.op = "Mul", .nin = 2, .commute = true, .in = {H, P_COMM("Mul", TANH_TERM, NEAR(0.5))}},
};

/* Turns the last Mul into Gelu(h) and retires the rest of the match. */
static bool replace_by_gelu(Node *last, const Match *m, bool tanh_form)
{
    Value *h = m->v[1];
    if (h->dtype != DT_FLOAT || last->outputs[0]->dtype != DT_FLOAT)
        return false;
    morph_node(last, "Gelu", 1, &h);
    if (tanh_form)
        attr_set_string(last, "approximate", "tanh");
    for (int i = 1; i < m->nnodes; i++)
        node_retire(m->nodes[i]);
    record_fusion(tanh_form ? "gelu_tanh_recognised" : "gelu_erf_recognised");
    return true;
}

static bool gelu_from_erf(Graph *g, Node *n, const Match *m)
{
    (void)g;
    return replace_by_gelu(n, m, false);
}

static bool gelu_from_tanh(Graph *g, Node *n, const Match *m)
{
    (void)g;
    return replace_by_gelu(n, m, true);
}

static const RewriteRule gelu_rules[] = {
    {&gelu_erf[0], gelu_from_erf},   {&gelu_erf[1], gelu_from_erf},
    {&gelu_erf[2], gelu_from_erf},   {&gelu_tanh[0], gelu_from_tanh},
    {&gelu_tanh[1], gelu_from_tanh}, {&gelu_tanh[2], gelu_from_tanh},
};

void fuse_gelu(Graph *g)
{
    REWRITE(g, gelu_rules);
}
