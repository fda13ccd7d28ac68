/* activation.c — PRelu (its slope broadcast to the input). The unary activations (Relu,
 * Clip, Shrink, Celu, Mish, Gelu, ...) are rows of the unary table in elementwise.c. */
#include "kernels.h"
#include "ops.h"

#include <stdlib.h>
#include <string.h>

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
