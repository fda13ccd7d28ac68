/* normalize.c — the normalisations: BatchNormalization, InstanceNormalization,
 * GroupNormalization, LRN, MeanVarianceNormalization, LpNormalization, Softmax, LogSoftmax
 * (templates/norm.c, templates/nn.c, templates/softmax.c). LayerNormalization is in
 * reduce.c, next to the reductions it shares. */
#include "kernels.h"
#include "ops.h"

#include <string.h>

/* [N][C][HW] view of an input of rank 2 or more (HW = product of the remaining dims). */
static void nchw_geometry(const Node *n, int min_rank, int64_t *N, int64_t *C, int64_t *HW)
{
    const Value *x = n->inputs[0];
    if (x->rank < min_rank)
        fatal_at(n, "input must have rank %d or more (got %d)", min_rank, x->rank);
    *N = x->dims[0];
    *C = x->dims[1];
    *HW = 1;
    for (int i = 2; i < x->rank; i++)
        *HW = checked_mul(n, *HW, x->dims[i]);
}

/* ---- InstanceNormalization, GroupNormalization ---- */

typedef struct GroupNormShape {
    int64_t N, C, G, HW;
    int per_channel; /* scale and bias are [C] (else [G]) */
} GroupNormShape;

static GroupNormShape groupnorm_shape(const Node *n)
{
    GroupNormShape s = {0};
    nchw_geometry(n, 2, &s.N, &s.C, &s.HW);
    bool instance = !strcmp(n->op_type, "InstanceNormalization");
    s.G = instance ? s.C : attr_int(n, "num_groups", 0);
    if (s.G <= 0 || s.C % s.G)
        fatal_at(n, "num_groups %lld does not divide %lld channels", (long long)s.G,
                 (long long)s.C);
    /* GroupNormalization-18 has one scale and bias per group, since 21 per channel */
    s.per_channel = instance || n->opset >= 21;
    int64_t want = s.per_channel ? s.C : s.G;
    for (int i = 1; i < 3; i++) {
        const Value *v = n->inputs[i];
        if (v->rank != 1 || v->dims[0] != want)
            fatal_at(n, "input %d must have shape [%lld]", i, (long long)want);
    }
    return s;
}

void groupnorm_infer(Node *n)
{
    for (int i = 0; i < 3; i++)
        require_float(n, n->inputs[i]);
    if (!strcmp(n->op_type, "GroupNormalization") && attr_int(n, "stash_type", 1) != 1)
        fatal_at(n, "stash_type %lld is not supported (only 1, float32)",
                 (long long)attr_int(n, "stash_type", 1));
    groupnorm_shape(n);
    same_shape_infer(n);
}

void groupnorm_fold(Node *n)
{
    GroupNormShape s = groupnorm_shape(n);
    groupnorm_f32(s.N, s.C, s.G, s.HW, n->inputs[0]->data, n->inputs[1]->data, n->inputs[2]->data,
                  s.per_channel, attr_float(n, "epsilon", 1e-5f), n->outputs[0]->data);
}

void groupnorm_emit(Emitter *e, Node *n)
{
    GroupNormShape s = groupnorm_shape(n);
    println(e, "groupnorm_f32(%lld, %lld, %lld, %lld, %s, %s, %s, %d, %s, %s);", (long long)s.N,
            (long long)s.C, (long long)s.G, (long long)s.HW, value_cname(e, n->inputs[0]),
            value_cname(e, n->inputs[1]), value_cname(e, n->inputs[2]), s.per_channel,
            c_float(attr_float(n, "epsilon", 1e-5f)), value_cname(e, n->outputs[0]));
}

/* ---- LRN ---- */

void lrn_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    int64_t N, C, HW;
    nchw_geometry(n, 3, &N, &C, &HW);
    if (attr_int(n, "size", 0) <= 0)
        fatal_at(n, "attribute 'size' must be given and positive");
    same_shape_infer(n);
}

void lrn_fold(Node *n)
{
    int64_t N, C, HW;
    nchw_geometry(n, 3, &N, &C, &HW);
    lrn_f32(N, C, HW, attr_int(n, "size", 1), attr_float(n, "alpha", 1e-4f),
            attr_float(n, "beta", 0.75f), attr_float(n, "bias", 1.0f), n->inputs[0]->data,
            n->outputs[0]->data);
}

void lrn_emit(Emitter *e, Node *n)
{
    int64_t N, C, HW;
    nchw_geometry(n, 3, &N, &C, &HW);
    println(e, "lrn_f32(%lld, %lld, %lld, %lld, %s, %s, %s, %s, %s);", (long long)N, (long long)C,
            (long long)HW, (long long)attr_int(n, "size", 1),
            c_float(attr_float(n, "alpha", 1e-4f)), c_float(attr_float(n, "beta", 0.75f)),
            c_float(attr_float(n, "bias", 1.0f)), value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}

/* ---- MeanVarianceNormalization ---- */

/* Kept and reduced dims of x (with their element strides) for the axes attribute. */
typedef struct MvnSplit {
    int out_rank, red_rank;
    int64_t out_dims[MAX_RANK], out_strides[MAX_RANK], red_dims[MAX_RANK], red_strides[MAX_RANK];
} MvnSplit;

static MvnSplit mvn_split(const Node *n)
{
    const Value *x = n->inputs[0];
    static const int64_t default_axes[3] = {0, 2, 3};
    const int64_t *axes;
    int count = attr_ints(n, "axes", &axes);
    if (count < 0) {
        if (x->rank != 4)
            fatal_at(n, "the default axes [0, 2, 3] need a rank-4 input (got rank %d)", x->rank);
        axes = default_axes;
        count = 3;
    }
    bool reduced[MAX_RANK] = {false};
    for (int i = 0; i < count; i++) {
        int a = normalize_axis(n, axes[i], x->rank);
        if (reduced[a])
            fatal_at(n, "axis %lld is given twice", (long long)axes[i]);
        reduced[a] = true;
    }
    MvnSplit s = {0};
    int64_t stride = 1, st[MAX_RANK];
    for (int i = x->rank - 1; i >= 0; i--) {
        st[i] = stride;
        stride *= x->dims[i];
    }
    for (int i = 0; i < x->rank; i++) {
        if (reduced[i]) {
            s.red_dims[s.red_rank] = x->dims[i];
            s.red_strides[s.red_rank++] = st[i];
        } else {
            s.out_dims[s.out_rank] = x->dims[i];
            s.out_strides[s.out_rank++] = st[i];
        }
    }
    return s;
}

void mvn_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    mvn_split(n);
    same_shape_infer(n);
}

void mvn_fold(Node *n)
{
    MvnSplit s = mvn_split(n);
    mvn_f32(s.out_rank, s.out_dims, s.out_strides, s.red_rank, s.red_dims, s.red_strides,
            n->inputs[0]->data, n->outputs[0]->data);
}

void mvn_emit(Emitter *e, Node *n)
{
    MvnSplit s = mvn_split(n);
    println(e, "mvn_f32(%d, %s, %s, %d, %s, %s, %s, %s);", s.out_rank,
            emit_dims(e, s.out_rank, s.out_dims), emit_dims(e, s.out_rank, s.out_strides),
            s.red_rank, emit_dims(e, s.red_rank, s.red_dims),
            emit_dims(e, s.red_rank, s.red_strides), value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}

/* ---- LpNormalization ---- */

static void lpnorm_geometry(const Node *n, int64_t *outer, int64_t *len, int64_t *inner)
{
    const Value *x = n->inputs[0];
    int axis = normalize_axis(n, attr_int(n, "axis", -1), x->rank);
    int64_t p = attr_int(n, "p", 2);
    if (p != 1 && p != 2)
        fatal_at(n, "p must be 1 or 2 (got %lld)", (long long)p);
    *outer = *len = *inner = 1;
    for (int i = 0; i < x->rank; i++) {
        if (i < axis)
            *outer *= x->dims[i];
        else if (i == axis)
            *len = x->dims[i];
        else
            *inner *= x->dims[i];
    }
}

void lpnorm_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    int64_t o, l, i;
    lpnorm_geometry(n, &o, &l, &i);
    same_shape_infer(n);
}

void lpnorm_fold(Node *n)
{
    int64_t o, l, i;
    lpnorm_geometry(n, &o, &l, &i);
    lpnorm_f32(o, l, i, attr_int(n, "p", 2), n->inputs[0]->data, n->outputs[0]->data);
}

void lpnorm_emit(Emitter *e, Node *n)
{
    int64_t o, l, i;
    lpnorm_geometry(n, &o, &l, &i);
    println(e, "lpnorm_f32(%lld, %lld, %lld, %lld, %s, %s);", (long long)o, (long long)l,
            (long long)i, (long long)attr_int(n, "p", 2), value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}

/* ---- BatchNormalization (inference) ---- */

static void batchnorm_geometry(const Node *n, int64_t *N, int64_t *C, int64_t *HW)
{
    const Value *x = n->inputs[0];
    if (x->rank < 2)
        fatal_at(n, "input must have rank 2 or more");
    *N = x->dims[0];
    *C = x->dims[1];
    *HW = 1;
    for (int i = 2; i < x->rank; i++)
        *HW *= x->dims[i];
}

/* training_mode=1 (opset 14+): normalised with the batch's statistics, and outputs 1 and 2
 * (when requested) are the updated running mean and variance. */
static bool batchnorm_training(const Node *n)
{
    return n->opset >= 14 && attr_int(n, "training_mode", 0) != 0;
}

static bool batchnorm_has_stat(const Node *n, int i)
{
    return batchnorm_training(n) && i < n->noutputs && n->outputs[i]->name[0];
}

static float *batchnorm_stat(const Node *n, int i)
{
    return batchnorm_has_stat(n, i) ? n->outputs[i]->data : NULL;
}

void batchnorm_infer(Node *n)
{
    if (attr_int(n, "training_mode", 0) != 0 && n->opset < 14)
        fatal_at(n, "training_mode needs opset 14 or newer");
    if (n->opset < 9 && attr_int(n, "spatial", 1) != 1)
        fatal_at(n, "spatial=0 is not supported");
    if (n->noutputs > 3)
        fatal_at(n, "training outputs saved_mean/saved_var (opset < 14) are not supported");
    for (int i = 1; i < n->noutputs; i++)
        if (n->outputs[i]->name[0] && !batchnorm_training(n))
            fatal_at(n, "running mean/var outputs need training_mode=1");
    int64_t N, C, HW;
    batchnorm_geometry(n, &N, &C, &HW);
    for (int i = 0; i < 5; i++) {
        require_float(n, n->inputs[i]);
        if (i && (n->inputs[i]->rank != 1 || n->inputs[i]->dims[0] != C))
            fatal_at(n, "input %d must have shape [%lld]", i, (long long)C);
    }
    same_shape_infer(n);
    for (int i = 1; i < n->noutputs; i++)
        if (n->outputs[i]->name[0])
            set_shape(n->outputs[i], DT_FLOAT, 1, &C);
}

void batchnorm_fold(Node *n)
{
    int64_t N, C, HW;
    batchnorm_geometry(n, &N, &C, &HW);
    if (batchnorm_training(n)) {
        batchnorm_train_f32(N, C, HW, n->inputs[0]->data, n->inputs[1]->data, n->inputs[2]->data,
                            n->inputs[3]->data, n->inputs[4]->data, attr_float(n, "epsilon", 1e-5f),
                            attr_float(n, "momentum", 0.9f), n->outputs[0]->data,
                            batchnorm_stat(n, 1), batchnorm_stat(n, 2));
        return;
    }
    batchnorm_f32(N, C, HW, n->inputs[0]->data, n->inputs[1]->data, n->inputs[2]->data,
                  n->inputs[3]->data, n->inputs[4]->data, attr_float(n, "epsilon", 1e-5f),
                  n->outputs[0]->data);
}

void batchnorm_emit(Emitter *e, Node *n)
{
    int64_t N, C, HW;
    batchnorm_geometry(n, &N, &C, &HW);
    if (batchnorm_training(n)) {
        println(e, "batchnorm_train_f32(%lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s);",
                (long long)N, (long long)C, (long long)HW, value_cname(e, n->inputs[0]),
                value_cname(e, n->inputs[1]), value_cname(e, n->inputs[2]),
                value_cname(e, n->inputs[3]), value_cname(e, n->inputs[4]),
                c_float(attr_float(n, "epsilon", 1e-5f)), c_float(attr_float(n, "momentum", 0.9f)),
                value_cname(e, n->outputs[0]),
                batchnorm_has_stat(n, 1) ? value_cname(e, n->outputs[1]) : "NULL",
                batchnorm_has_stat(n, 2) ? value_cname(e, n->outputs[2]) : "NULL");
        return;
    }
    println(e, "batchnorm_f32(%lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s);", (long long)N,
            (long long)C, (long long)HW, value_cname(e, n->inputs[0]), value_cname(e, n->inputs[1]),
            value_cname(e, n->inputs[2]), value_cname(e, n->inputs[3]),
            value_cname(e, n->inputs[4]), c_float(attr_float(n, "epsilon", 1e-5f)),
            value_cname(e, n->outputs[0]));
}

/* ---- Softmax, LogSoftmax ---- */

/* Before opset 13 the input is coerced to 2-D at `axis` (default 1); since, one axis (default
 * -1) is normalised. Either way: [outer][len][inner]. */
static void softmax_geometry(const Node *n, int64_t *outer, int64_t *len, int64_t *inner)
{
    const Value *x = n->inputs[0];
    bool coerce = n->opset < 13;
    int axis = normalize_axis(n, attr_int(n, "axis", coerce ? 1 : -1), x->rank);
    *outer = *len = *inner = 1;
    for (int i = 0; i < x->rank; i++) {
        if (i < axis)
            *outer *= x->dims[i];
        else if (i == axis || coerce)
            *len *= x->dims[i];
        else
            *inner *= x->dims[i];
    }
}

void softmax_infer(Node *n)
{
    if (n->inputs[0]->dtype != DT_DOUBLE)
        require_float(n, n->inputs[0]);
    int64_t o, l, i;
    softmax_geometry(n, &o, &l, &i);
    same_shape_infer(n);
}

void softmax_fold(Node *n)
{
    int64_t o, l, i;
    softmax_geometry(n, &o, &l, &i);
    bool soft = !strcmp(n->op_type, "Softmax");
    if (n->inputs[0]->dtype == DT_DOUBLE)
        (soft ? softmax_f64 : logsoftmax_f64)(o, l, i, n->inputs[0]->data, n->outputs[0]->data);
    else
        (soft ? softmax_f32 : logsoftmax_f32)(o, l, i, n->inputs[0]->data, n->outputs[0]->data);
}

void softmax_emit(Emitter *e, Node *n)
{
    int64_t o, l, i;
    softmax_geometry(n, &o, &l, &i);
    println(e, "%s_%s(%lld, %lld, %lld, %s, %s);",
            !strcmp(n->op_type, "Softmax") ? "softmax" : "logsoftmax",
            n->inputs[0]->dtype == DT_DOUBLE ? "f64" : "f32", (long long)o, (long long)l,
            (long long)i, value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}
