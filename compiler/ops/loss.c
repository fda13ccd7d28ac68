/* loss.c — the loss family: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
 * (templates/loss.c; SoftmaxCrossEntropyLoss also runs logsoftmax_f32 of templates/softmax.c
 * into its log_prob output, or into scratch when that output is not requested). */
#include "kernels.h"
#include "ops.h"

#include <stdlib.h>
#include <string.h>

/* x [N][C][D] with D the product of x's dims after the class axis; target [N][d1..dk]. */
typedef struct LossShape {
    int64_t N, C, D;
    int reduction; /* 0 none, 1 sum, 2 mean (loss.c's codes) */
    int has_ignore;
    int64_t ignore_index;
} LossShape;

static int loss_reduction(const Node *n)
{
    static const char *const names[] = {"none", "sum", "mean"};
    const char *r = attr_string(n, "reduction", "mean");
    for (int i = 0; i < 3; i++)
        if (!strcmp(r, names[i]))
            return i;
    fatal_at(n, "reduction '%s' is not supported (none, sum, mean are)", r);
}

static LossShape loss_shape(const Node *n)
{
    const Value *x = n->inputs[0], *t = n->inputs[1], *w = node_input(n, 2);
    LossShape s = {0};
    if (x->rank < 2)
        fatal_at(n, "input must have rank 2 or more (got %d)", x->rank);
    if (t->rank != x->rank - 1)
        fatal_at(n, "target must have rank %d (got %d)", x->rank - 1, t->rank);
    s.N = x->dims[0];
    s.C = x->dims[1];
    s.D = 1;
    for (int i = 2; i < x->rank; i++)
        s.D = checked_mul(n, s.D, x->dims[i]);
    for (int i = 0; i < t->rank; i++)
        if (t->dims[i] != x->dims[i ? i + 1 : 0])
            fatal_at(n, "target shape does not match the input's N, d1..dk");
    if (w && (w->rank != 1 || w->dims[0] != s.C))
        fatal_at(n, "weight must have shape [%lld]", (long long)s.C);
    s.reduction = loss_reduction(n);
    s.has_ignore = attr_get(n, "ignore_index") != NULL;
    s.ignore_index = attr_int(n, "ignore_index", 0);
    return s;
}

static bool wants_log_prob(const Node *n)
{
    return n->noutputs > 1 && n->outputs[1]->name[0];
}

void loss_infer(Node *n)
{
    const Value *x = n->inputs[0], *t = n->inputs[1], *w = node_input(n, 2);
    bool sce = !strcmp(n->op_type, "SoftmaxCrossEntropyLoss");
    require_float(n, x);
    if (t->dtype != DT_INT64)
        fatal_at(n, "target type %s is not supported (int64 is)", dtype_name(t->dtype));
    if (w)
        require_float(n, w);
    if (n->noutputs > (sce ? 2 : 1))
        fatal_at(n, "has %d outputs, the op has %d", n->noutputs, sce ? 2 : 1);
    LossShape s = loss_shape(n);
    if (s.reduction == 0)
        set_shape(n->outputs[0], DT_FLOAT, t->rank, t->dims);
    else
        set_shape(n->outputs[0], DT_FLOAT, 0, NULL);
    if (wants_log_prob(n))
        set_shape(n->outputs[1], DT_FLOAT, x->rank, x->dims);
}

static const float *weight_data(const Node *n)
{
    const Value *w = node_input(n, 2);
    return w ? w->data : NULL;
}

void loss_fold(Node *n)
{
    LossShape s = loss_shape(n);
    const float *x = n->inputs[0]->data;
    float *lp = NULL;
    if (!strcmp(n->op_type, "SoftmaxCrossEntropyLoss")) {
        lp = wants_log_prob(n) ? n->outputs[1]->data
                               : xcalloc((size_t)value_numel(n->inputs[0]) + 1, sizeof(float));
        logsoftmax_f32(s.N, s.C, s.D, x, lp);
        x = lp;
    }
    nll_loss_f32(s.N, s.C, s.D, x, n->inputs[1]->data, weight_data(n), s.has_ignore, s.ignore_index,
                 s.reduction, n->outputs[0]->data);
}

int64_t loss_scratch(const Node *n)
{
    if (strcmp(n->op_type, "SoftmaxCrossEntropyLoss") || wants_log_prob(n))
        return 0;
    return value_bytes(n->inputs[0]);
}

void loss_emit(Emitter *e, Node *n)
{
    LossShape s = loss_shape(n);
    const char *x = value_cname(e, n->inputs[0]);
    if (!strcmp(n->op_type, "SoftmaxCrossEntropyLoss")) {
        const char *lp =
            wants_log_prob(n) ? value_cname(e, n->outputs[1]) : scratch_cname(e, n, DT_FLOAT, 0);
        println(e, "logsoftmax_f32(%lld, %lld, %lld, %s, %s);", (long long)s.N, (long long)s.C,
                (long long)s.D, x, lp);
        x = lp;
    }
    const Value *w = node_input(n, 2);
    println(e, "nll_loss_f32(%lld, %lld, %lld, %s, %s, %s, %d, %lldLL, %d, %s);", (long long)s.N,
            (long long)s.C, (long long)s.D, x, value_cname(e, n->inputs[1]),
            w ? value_cname(e, node_input(n, 2)) : "NULL", s.has_ignore, (long long)s.ignore_index,
            s.reduction, value_cname(e, n->outputs[0]));
}
