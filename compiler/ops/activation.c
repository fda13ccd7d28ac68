/* activation.c — the activations with kernels of their own in templates/data.c: Shrink,
 * ThresholdedRelu, Celu, Mish, and PRelu (its slope broadcast to the input). The others are
 * in elementwise.c (Relu, LeakyRelu, Sigmoid, Tanh, Clip) and math.c (the rest). */
#include "kernels.h"
#include "ops.h"

#include <stdlib.h>
#include <string.h>

/* ---- Shrink, ThresholdedRelu, Celu, Mish ---- */

void act_infer(Node *n)
{
    if (half_infer(n, act_infer))
        return;
    require_float(n, n->inputs[0]);
    same_shape_infer(n);
}

void act_fold(Node *n)
{
    if (half_fold(n, act_fold))
        return;
    int64_t len = value_numel(n->outputs[0]);
    const float *x = n->inputs[0]->data;
    float *y = n->outputs[0]->data;
    const char *op = n->op_type;
    if (!strcmp(op, "Shrink"))
        shrink_f32(len, attr_float(n, "lambd", 0.5f), attr_float(n, "bias", 0.0f), x, y);
    else if (!strcmp(op, "ThresholdedRelu"))
        thresholded_relu_f32(len, attr_float(n, "alpha", 1.0f), x, y);
    else if (!strcmp(op, "Celu"))
        celu_f32(len, attr_float(n, "alpha", 1.0f), x, y);
    else
        mish_f32(len, x, y);
}

void act_emit(Emitter *e, Node *n)
{
    const char *op = n->op_type, *args;
    const char *xn = value_cname(e, n->inputs[0]), *yn = value_cname(e, n->outputs[0]);
    long long len = (long long)value_numel(n->outputs[0]);
    if (!strcmp(op, "Shrink"))
        args = xprintf("shrink_f32(%lld, %s, %s, ", len, c_float(attr_float(n, "lambd", 0.5f)),
                       c_float(attr_float(n, "bias", 0.0f)));
    else if (!strcmp(op, "ThresholdedRelu"))
        args =
            xprintf("thresholded_relu_f32(%lld, %s, ", len, c_float(attr_float(n, "alpha", 1.0f)));
    else if (!strcmp(op, "Celu"))
        args = xprintf("celu_f32(%lld, %s, ", len, c_float(attr_float(n, "alpha", 1.0f)));
    else
        args = xprintf("mish_f32(%lld, ", len);
    println(e, "%s%s, %s);", args, xn, yn);
}

/* ---- PRelu: slope broadcast to the input (unidirectionally) ---- */

void prelu_infer(Node *n)
{
    const Value *x = n->inputs[0], *s = n->inputs[1];
    require_float(n, x);
    require_float(n, s);
    int rank;
    int64_t dims[MAX_RANK];
    Value sv = *s;
    if (n->opset < 7 && s->rank == 1 && x->rank >= 2 && s->dims[0] == x->dims[1] && x->rank > 2) {
        /* old PRelu: a per-channel slope [C] */
        sv.rank = x->rank - 1;
        for (int d = 0; d < sv.rank; d++)
            sv.dims[d] = d == 0 ? s->dims[0] : 1;
    }
    broadcast_shape(n, x, &sv, &rank, dims);
    if (rank != x->rank || memcmp(dims, x->dims, sizeof(int64_t) * (size_t)rank))
        fatal_at(n, "slope does not broadcast to the input's shape");
    same_shape_infer(n);
}

static LoopSpace prelu_loop(const Node *n)
{
    Value *ops[2] = {n->inputs[0], n->inputs[1]};
    return broadcast_loop(n->outputs[0], 2, ops);
}

void prelu_fold(Node *n)
{
    LoopSpace l = prelu_loop(n);
    prelu_f32(l.rank, l.dims, l.strides[0], l.strides[1], n->inputs[0]->data, n->inputs[1]->data,
              n->outputs[0]->data);
}

void prelu_emit(Emitter *e, Node *n)
{
    if (!value_numel(n->outputs[0]))
        return;
    emit_broadcast_binary(e, n, "prelu_f32");
}
