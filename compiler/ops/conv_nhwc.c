/* conv_nhwc.c — the channels-last conv node that layout_nhwc.c makes: NhwcConv, named and
 * laid out as onnxruntime's com.microsoft NhwcConv: X [N][H][W][C], W as Conv's [M][C/g][kH][kW],
 * B [M], Y [N][OH][OW][M], Conv's attributes.
 *
 * Shapes, checks and FLOPs are Conv's (conv.c), asked of the node's NCHW twin, so the two ops
 * cannot disagree. The sums are Conv's too: k = (kh*KW + kw)*Cg + ic ascending, fmaf from
 * +0.0f, then + bias, then the epilogues, so --layout nhwc gives the bits of --layout nchw.
 * Kernels:
 *   - 1x1, unit strides, no padding, one group: a product on the tensor itself,
 *     Y[N*H*W][M] = X[N*H*W][C] x W^T[C][M] (emit_product: libxsmm or gemm_f32; the GEMV of a
 *     constant weight for one pixel), then gemm_epilogue_f32 adds the bias (acc + b, as
 *     conv_pointwise_f32 does). */
#include "ops.h"

#include <string.h>

/* NCHW dims of NHWC dims and back. */
static void dims_nchw(const int64_t *nhwc, int64_t *nchw)
{
    int64_t d[4] = {nhwc[0], nhwc[3], nhwc[1], nhwc[2]};
    memcpy(nchw, d, sizeof d);
}

static void dims_nhwc(const int64_t *nchw, int64_t *nhwc)
{
    int64_t d[4] = {nchw[0], nchw[2], nchw[3], nchw[1]};
    memcpy(nhwc, d, sizeof d);
}

/* The conv as Conv would see it: copies of the node and of its input and output values with
 * NCHW shapes (the output's shape is what conv_infer sets). */
typedef struct ConvTwin {
    Node node;
    Value x, y;
    Value *ins[MAX_EPILOGUE + 4], *outs[1];
} ConvTwin;

static void conv_twin(const Node *n, ConvTwin *t)
{
    const Value *x = n->inputs[0];
    if (x->rank != 4)
        fatal_at(n, "the input must be 4-D [N][H][W][C] (got rank %d)", x->rank);
    t->node = *n;
    t->x = *x;
    dims_nchw(x->dims, t->x.dims);
    t->y = *n->outputs[0];
    int nin = n->ninputs < 3 ? n->ninputs : 3; /* Conv's own inputs, not epilogue operands */
    for (int i = 0; i < nin; i++)
        t->ins[i] = n->inputs[i];
    t->ins[0] = &t->x;
    t->outs[0] = &t->y;
    t->node.ninputs = nin;
    t->node.inputs = t->ins;
    t->node.outputs = t->outs;
    t->node.noutputs = 1;
}

void nhwc_conv_infer(Node *n)
{
    ConvTwin t;
    conv_twin(n, &t);
    conv_infer(&t.node);
    int64_t d[4];
    dims_nhwc(t.y.dims, d);
    set_shape(n->outputs[0], DT_FLOAT, 4, d);
}

double nhwc_conv_flops(const Node *n)
{
    ConvTwin t;
    conv_twin(n, &t);
    return conv_flops(&t.node);
}

/* All entries of attribute `name` equal v (or it is absent). */
static bool ints_all(const Node *n, const char *name, int64_t v)
{
    const int64_t *a;
    int count = attr_ints(n, name, &a);
    for (int i = 0; i < count; i++)
        if (a[i] != v)
            return false;
    return true;
}

/* A 1x1 kernel with unit strides, no padding and one group (a product on the tensor). */
static bool conv_is_product(const Node *n)
{
    const Value *w = n->inputs[1];
    return w->rank == 4 && w->dims[2] == 1 && w->dims[3] == 1 && attr_int(n, "group", 1) == 1 &&
           ints_all(n, "strides", 1) && ints_all(n, "pads", 0);
}

bool nhwc_conv_supported(const Node *conv)
{
    const Value *x = conv->inputs[0], *w = conv->inputs[1], *b = node_input(conv, 2);
    if (x->rank != 4 || x->dtype != DT_FLOAT || !w->data || w->rank != 4 || (b && !b->data))
        return false;
    return conv_is_product(conv);
}

int64_t nhwc_conv_scratch(const Node *n)
{
    (void)n;
    return 0;
}

static void emit_conv_product(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0], *w = n->inputs[1];
    const int64_t M = x->dims[0] * x->dims[1] * x->dims[2], C = x->dims[3], OC = w->dims[0];
    const char *xs = value_cname(e, n->inputs[0]), *y = value_cname(e, n->outputs[0]);
    /* B(k = c, j = oc) is W[oc][c]: the GEMV packs it as it is; the product reads W^T */
    if (emit_gemv_const(e, M, OC, C, xs, 1, w->data, 1, C, y, NULL))
        return;
    float *wt = xcalloc((size_t)(C * OC) + 1, sizeof(float));
    for (int64_t oc = 0; oc < OC; oc++)
        for (int64_t c = 0; c < C; c++)
            wt[c * OC + oc] = ((const float *)w->data)[oc * C + c];
    int64_t dims[2] = {C, OC};
    emit_product(e, M, OC, C, xs, C, 1, emit_constant(e, DT_FLOAT, 2, dims, wt), OC, 1, y);
}

void nhwc_conv_emit(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0];
    Value *b = node_input(n, 2);
    if (!conv_is_product(n))
        fatal_at(n, "internal error: no channels-last kernel for this conv");
    emit_conv_product(e, n);
    if (b)
        println(e, "gemm_epilogue_f32(%lld, %lld, 1.0f, %s, 0, 1, 1.0f, %s);",
                (long long)(x->dims[0] * x->dims[1] * x->dims[2]), (long long)n->inputs[1]->dims[0],
                value_cname(e, b), value_cname(e, n->outputs[0]));
    emit_epilogues(e, n);
}
