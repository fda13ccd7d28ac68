/* conv_nhwc.c — the channels-last conv and pool nodes that layout_nhwc.c makes, named as
 * onnxruntime's com.microsoft ops:
 *   NhwcConv         X [N][H][W][C], W as Conv's [M][C/g][kH][kW], B [M] -> Y [N][OH][OW][M]
 *                    (with the onnx2c attribute x_nchw = 1, X [N][C][H][W]: a dense conv that
 *                    enters a region reads its NCHW input as it is, nhwc_conv_reads_nchw)
 *   NhwcMaxPool      X [N][H][W][C] -> Y [N][OH][OW][C]   (no Indices output)
 *   NhwcAveragePool  the same for AveragePool (onnxruntime has no such op)
 *   NhwcGlobalAveragePool  X [N][H][W][C] -> Y [N][1][1][C] (nor this one; --emit-onnx writes
 *                    each of them as the NCHW op between transposes)
 * with the attributes of Conv, MaxPool, AveragePool. 2-D only, explicit pads (auto_pad NOTSET
 * or VALID; layout_nhwc.c spells out SAME_* pads).
 *
 * Shapes, checks and FLOPs are those of the NCHW op (conv.c), asked of the node's NCHW twin,
 * so the two cannot disagree. The sums are the NCHW kernels' too: k = (kh*KW + kw)*Cg + ic
 * ascending, fmaf from +0.0f, then + bias, then the epilogues; pools in the same tap order. So
 * --layout nhwc gives the bits of --layout nchw. Kernels:
 *   - 1x1, unit strides, no padding, one group: a product on the tensor itself,
 *     Y[N*H*W][M] = X[N*H*W][C] x W^T[C][M] by blocks of positions (conv_pointwise_nhwc_f32 of
 *     templates/conv_nhwc.c: each block's libxsmm kernel or gemm_f32, then on that block the
 *     bias, acc + b as conv_pointwise_f32 adds it, and the leading epilogues); for one pixel the
 *     GEMV of the constant weight, then the bias and the epilogues as passes;
 *   - one input channel per group, one output per group: depthwise_nhwc_f32
 *     (templates/depthwise_nhwc.c), weight packed [KH][KW][C] at compile time;
 *   - the others (kxk, strided, dilated, grouped): conv_nhwc_f32 (templates/conv_nhwc.c), weight
 *     packed in blocks of output channels at compile time;
 *   both of the latter apply the leading Relu/Clip/Add/Swish/HardSwish epilogues in their store
 *   (conv_tile_epilogues of conv.c);
 *   - a depthwise conv with a 1x1 conv fused before it (Node.prologue, fuse_expand_depthwise.c):
 *     expand_depthwise_nhwc_f32 (templates/expand_depthwise.c), the 1x1 conv's rows into a
 *     ring of scratch as the depthwise rows need them; its x is the expanded tensor, whose
 *     Value keeps its shape but is never stored. */
#include "kernels.h"
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

/* The node as the NCHW op would see it: copies of the node and of its input and output values
 * with NCHW shapes (the output's is what the op's infer sets). */
typedef struct Twin {
    Node node;
    Value x, y;
    Value *ins[3], *outs[1];
} Twin;

/* The input of n's own conv: the expanded tensor of a fused 1x1 conv, else input 0. */
static const Value *conv_x(const Node *n)
{
    return n->prologue ? n->prologue->outputs[0] : n->inputs[0];
}

/* Is x of NhwcConv n [N][C][H][W] (attribute x_nchw)? */
static bool x_nchw(const Node *n)
{
    return attr_int(n, "x_nchw", 0) != 0;
}

static void make_twin(const Node *n, Twin *t)
{
    const Value *x = conv_x(n);
    if (x->rank != 4)
        fatal_at(n, "the input must be 4-D [N][H][W][C] (got rank %d)", x->rank);
    t->node = *n;
    t->node.op_type = n->op_type + (strncmp(n->op_type, "Nhwc", 4) ? 0 : 4); /* Conv, MaxPool */
    t->x = *x;
    if (!x_nchw(n))
        dims_nchw(x->dims, t->x.dims);
    t->y = *n->outputs[0];
    int nin = n->ninputs < 3 ? n->ninputs : 3; /* the op's own inputs, not epilogue operands */
    for (int i = 0; i < nin; i++)
        t->ins[i] = n->inputs[i];
    t->ins[0] = &t->x;
    t->outs[0] = &t->y;
    t->node.ninputs = nin;
    t->node.inputs = t->ins;
    t->node.outputs = t->outs;
    t->node.noutputs = 1;
}

static void twin_infer(Node *n, void (*infer)(Node *))
{
    Twin t;
    make_twin(n, &t);
    infer(&t.node);
    int64_t d[4];
    dims_nhwc(t.y.dims, d);
    set_shape(n->outputs[0], t.y.dtype, 4, d);
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

static int64_t ints_at(const Node *n, const char *name, int i, int64_t dflt)
{
    const int64_t *v;
    int count = attr_ints(n, name, &v);
    return count > i ? v[i] : dflt;
}

/* Pads that the attributes spell out, or SAME_* ones, which layout_nhwc.c spells out before
 * it converts the node (window_explicit_pads). */
static bool explicit_pads(const Node *n)
{
    const char *auto_pad = attr_string(n, "auto_pad", "NOTSET");
    return !strcmp(auto_pad, "NOTSET") || !strcmp(auto_pad, "VALID") ||
           !strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER");
}

/* geo[NHWC_GEO_LEN] of depthwise_nhwc.c / pool_nhwc.c for a node with NHWC x and y. */
static void window_geo(const Node *n, int64_t kh, int64_t kw, int64_t *geo)
{
    const Value *x = conv_x(n), *y = n->outputs[0];
    bool valid = !strcmp(attr_string(n, "auto_pad", "NOTSET"), "VALID");
    memset(geo, 0, NHWC_GEO_LEN * sizeof(int64_t));
    geo[NHWC_GEO_N] = x->dims[0];
    geo[NHWC_GEO_H] = x->dims[1];
    geo[NHWC_GEO_W] = x->dims[2];
    geo[NHWC_GEO_C] = x->dims[3];
    geo[NHWC_GEO_OH] = y->dims[1];
    geo[NHWC_GEO_OW] = y->dims[2];
    geo[NHWC_GEO_KH] = kh;
    geo[NHWC_GEO_KW] = kw;
    geo[NHWC_GEO_SH] = ints_at(n, "strides", 0, 1);
    geo[NHWC_GEO_SW] = ints_at(n, "strides", 1, 1);
    geo[NHWC_GEO_PT] = valid ? 0 : ints_at(n, "pads", 0, 0);
    geo[NHWC_GEO_PL] = valid ? 0 : ints_at(n, "pads", 1, 0);
    geo[NHWC_GEO_PB] = valid ? 0 : ints_at(n, "pads", 2, 0);
    geo[NHWC_GEO_PR] = valid ? 0 : ints_at(n, "pads", 3, 0);
    geo[NHWC_GEO_DH] = ints_at(n, "dilations", 0, 1);
    geo[NHWC_GEO_DW] = ints_at(n, "dilations", 1, 1);
}

/* ---- NhwcConv ---- */

void nhwc_conv_infer(Node *n)
{
    twin_infer(n, conv_infer);
}

double nhwc_conv_flops(const Node *n)
{
    Twin t;
    make_twin(n, &t);
    return conv_flops(&t.node) + (n->prologue ? nhwc_conv_flops(n->prologue) : 0.0);
}

typedef enum { NHWC_PRODUCT, NHWC_DEPTHWISE, NHWC_DENSE } NhwcKernel;

/* Which kernel runs conv n (NCHW Conv or NhwcConv: the weight says). */
static NhwcKernel conv_kernel(const Node *n)
{
    const Value *w = n->inputs[1];
    int64_t G = attr_int(n, "group", 1);
    if (w->dims[2] == 1 && w->dims[3] == 1 && G == 1 && ints_all(n, "strides", 1) &&
        (ints_all(n, "pads", 0) || !strcmp(attr_string(n, "auto_pad", "NOTSET"), "VALID")))
        return NHWC_PRODUCT;
    if (w->dims[1] == 1 && w->dims[0] == G)
        return NHWC_DEPTHWISE;
    return NHWC_DENSE;
}

/* Whether conv n's epilogues all run in its kernel's store with no operand of the output's
 * shape (a residual Add would be indexed by the kernel's rows, not the tensor's). */
static bool epilogues_in_store_without_tensors(const Node *n)
{
    if (conv_tile_epilogue_count(n) != n->nepilogue)
        return false;
    for (int i = 3; i < n->ninputs; i++)
        if (n->inputs[i] && value_numel(n->inputs[i]) != 1)
            return false;
    return true;
}

/* The dense kernel gathers its band plane from an NCHW x as cheaply as from an NHWC one, so a
 * conv it runs need not wait for its input's transposed copy. */
bool nhwc_conv_reads_nchw(const Node *conv)
{
    return conv_kernel(conv) == NHWC_DENSE;
}

/* Fused by rows only from 28x28 maps up: the depthwise kernel runs smaller maps flat, the
 * image copied whole (depthwise_nhwc.c; with AVX-512 up to about 20x20), faster than by rows
 * (mobilenetv2_block's 14x14x96 fused: 1.10x the time), and their expanded tensors are not
 * what sets the arena (mobilenet_v2's 112x112x96 and 56x56x144 are). */
#define EXPAND_DW_MIN_POSITIONS (28 * 28)

/* fuse_expand_depthwise.c: 1x1 conv `expand` (more than one position) and the depthwise conv
 * `dw` that reads its output, both channels last with constant weights, the 1x1 conv's
 * epilogues all in its product's store and without operands that have a shape (an Add's
 * residual would be indexed by the ring's rows, not the tensor's); on maps of at least
 * EXPAND_DW_MIN_POSITIONS. */
bool nhwc_conv_fuses_expand(const Node *expand, const Node *dw)
{
    const Value *e = expand->outputs[0];
    if (!expand->channels_last || !dw->channels_last || x_nchw(expand) || x_nchw(dw) ||
        dw->prologue || expand->prologue || conv_kernel(expand) != NHWC_PRODUCT ||
        conv_kernel(dw) != NHWC_DEPTHWISE || dw->inputs[0] != e || e->rank != 4 ||
        e->dims[1] * e->dims[2] < 2 || !dw->inputs[1]->data ||
        !epilogues_in_store_without_tensors(expand))
        return false;
    return e->dims[1] * e->dims[2] >= EXPAND_DW_MIN_POSITIONS;
}

/* Expanded rows per product of a fused 1x1 conv: at least EXPAND_DW_POSITIONS positions, so
 * that the product's weight is read once per that many rows of x. */
#define EXPAND_DW_POSITIONS 32

static int64_t expand_rows(const Node *n)
{
    const Value *e = conv_x(n);
    const int64_t H = e->dims[1], W = e->dims[2];
    const int64_t E = (EXPAND_DW_POSITIONS + W - 1) / W;
    return E < H ? E : H;
}

bool nhwc_conv_supported(const Node *conv)
{
    const Value *x = conv->inputs[0], *w = conv->inputs[1], *b = node_input(conv, 2);
    return x->rank == 4 && x->dtype == DT_FLOAT && w->data && w->rank == 4 && (!b || b->data) &&
           explicit_pads(conv);
}

/* What --layout=auto turns the layout on for (README "Channels-last layout", measured with
 * benchmarks/layout_bench.py, whole models against NCHW): a depthwise conv (DS-CNN 0.65x,
 * MobileNetV1-0.25 0.59x, MobileNetV2 block 0.62x), or a dense conv of at least
 * NHWC_DENSE_FLOPS (ResNet-8's 4.7 MFLOP 3x3 convs: 0.93x; ResNet-18, SqueezeNet 1.1); models
 * of smaller dense convs only did not gain (resnet_block, 1.2 MFLOP convs: 0.97x, and its
 * transposes at the edges took the arena past the node-order bound; LeNet-5 1.30x). */
#define NHWC_DENSE_FLOPS 4e6

bool nhwc_conv_pays(const Node *conv)
{
    if (!nhwc_conv_supported(conv))
        return false;
    NhwcKernel k = conv_kernel(conv);
    return k == NHWC_DEPTHWISE || (k == NHWC_DENSE && conv_flops(conv) >= NHWC_DENSE_FLOPS);
}

/* The y row stride of conv n's kernel: 0 (dense) or its output's Value.row_stride. */
static int64_t y_stride(const Node *n)
{
    return n->outputs[0]->row_stride;
}

/* OP_WRITES_ROWS (plan_arena's strided Concat slices): the product kernel on more than one
 * position (conv_pointwise_nhwc_ldy_f32, its libxsmm panels with ldc = the row stride) and the
 * dense kernel (conv_nhwc_f32, geo[CONV_NHWC_YS]) store each position's channels as one run
 * at any stride, with their epilogues; not the depthwise kernels, a fused pair, or a conv
 * whose epilogues run as passes over the tensor. SqueezeNet's expand convs write their
 * halves of the Fire module's Concat. */
bool op_writes_rows(const Node *n)
{
    const Value *y = n->outputs[0];
    if (!node_has(n, OP_WRITES_ROWS) || !n->channels_last || n->prologue || y->rank != 4 ||
        !epilogues_in_store_without_tensors(n))
        return false;
    NhwcKernel k = conv_kernel(n);
    return k == NHWC_DENSE || (k == NHWC_PRODUCT && y->dims[0] * y->dims[1] * y->dims[2] > 1);
}

/* geo[CONV_NHWC_NGEO] of conv_nhwc.c, R chosen for a work memory of budget floats. */
static void dense_geo_for(const Node *n, int64_t budget, int64_t *geo)
{
    int64_t g[NHWC_GEO_LEN];
    const Value *w = n->inputs[1];
    window_geo(n, w->dims[2], w->dims[3], g);
    int64_t G = attr_int(n, "group", 1);
    memset(geo, 0, CONV_NHWC_NGEO * sizeof(int64_t));
    geo[CONV_NHWC_N] = g[NHWC_GEO_N];
    geo[CONV_NHWC_H] = g[NHWC_GEO_H];
    geo[CONV_NHWC_W] = g[NHWC_GEO_W];
    geo[CONV_NHWC_C] = g[NHWC_GEO_C];
    geo[CONV_NHWC_G] = G;
    geo[CONV_NHWC_OCG] = w->dims[0] / G;
    geo[CONV_NHWC_KH] = g[NHWC_GEO_KH];
    geo[CONV_NHWC_KW] = g[NHWC_GEO_KW];
    geo[CONV_NHWC_OH] = g[NHWC_GEO_OH];
    geo[CONV_NHWC_OW] = g[NHWC_GEO_OW];
    geo[CONV_NHWC_SH] = g[NHWC_GEO_SH];
    geo[CONV_NHWC_SW] = g[NHWC_GEO_SW];
    geo[CONV_NHWC_PT] = g[NHWC_GEO_PT];
    geo[CONV_NHWC_PL] = g[NHWC_GEO_PL];
    geo[CONV_NHWC_DH] = g[NHWC_GEO_DH];
    geo[CONV_NHWC_DW] = g[NHWC_GEO_DW];
    if (x_nchw(n)) {
        const int64_t *d = n->inputs[0]->dims; /* [N][C][H][W] */
        geo[CONV_NHWC_C] = d[1];
        geo[CONV_NHWC_H] = d[2];
        geo[CONV_NHWC_W] = d[3];
        geo[CONV_NHWC_XNCHW] = 1;
    }
    geo[CONV_NHWC_YS] = y_stride(n);
    geo[CONV_NHWC_R] = conv_nhwc_rows(geo, budget);
}

/* The floats of scratch an op takes: its budget (plan_arena's), or 256 KiB. */
static int64_t scratch_floats(const Node *n)
{
    return n->scratch_budget ? n->scratch_budget / (int64_t)sizeof(float) : 65536;
}

/* dense_geo_for n's own scratch budget. */
static void dense_geo(const Node *n, int64_t *geo)
{
    dense_geo_for(n, scratch_floats(n), geo);
}

int64_t nhwc_conv_scratch(const Node *n)
{
    if (n->prologue) { /* the ring of expanded rows */
        const Value *e = conv_x(n);
        int64_t geo[NHWC_GEO_LEN];
        window_geo(n, n->inputs[1]->dims[2], n->inputs[1]->dims[3], geo);
        const int64_t rows = expand_depthwise_ring_rows(geo, expand_rows(n));
        return checked_mul(n, rows * e->dims[2] * e->dims[3], (int64_t)sizeof(float));
    }
    if (conv_kernel(n) != NHWC_DENSE)
        return 0;
    int64_t geo[CONV_NHWC_NGEO];
    dense_geo(n, geo);
    return checked_mul(n, conv_nhwc_work_floats(geo), (int64_t)sizeof(float));
}

/* With --gemm=libxsmm a product of at least this many output channels runs libxsmm on the
 * weight packed at compile time in panels of GEMM_XSMM_PANEL output channels (each panel one
 * contiguous stream, o2c_xsmm_setup_panels), and fewer the portable gemm_f32. Unpacked, the
 * columns of a large weight are pages apart: mobilenet_v2's 49x1280x320 conv 475 -> 403 us,
 * 49x320x960 373 -> 275. Products of 16 to 31 output channels went to the portable kernel while
 * libxsmm took 1.2-1.6x its time on cold caches (benchmarks/pointwise_layers.c 1); inside the
 * models libxsmm is the faster (benchmarks/ab.py, 16 against 32: mobilenet_v2 0.97x,
 * mobilenet_v3_small 0.95x, squeezenet1_1 0.99x, efficientnet_b0 0.99x the time). */
#define POINTWISE_XSMM_MIN_N 16

/* The weight of 1x1 conv n as conv_pointwise_nhwc_f32 reads it (a constant), and in *full and
 * *tail its libxsmm products of rb and tail_rows rows, or "NULL" (gemm_f32; no tail rows). */
static const char *emit_product_weight(Emitter *e, const Node *n, int64_t rb, int64_t tail_rows,
                                       int64_t ldy, const char **full, const char **tail)
{
    const Value *w = n->inputs[1];
    const int64_t C = w->dims[1], OC = w->dims[0];
    const bool xsmm = e->opt->gemm == GEMM_LIBXSMM && OC >= POINTWISE_XSMM_MIN_N;
    float *wt = xcalloc((size_t)(C * OC) + 1, sizeof(float));
    int64_t dims[2] = {OC, C};
    int32_t perm[2] = {1, 0};
    if (xsmm) /* B(k = c, j = oc) = W[oc][c]: b_rs = 1, b_cs = C */
        gemm_pack_xsmm_f32(OC, C, w->data, 1, C, wt);
    else /* W^T, [C][OC] */
        transpose_bytes(2, dims, perm, (int64_t)sizeof(float), w->data, wt);
    dims[0] = C;
    dims[1] = OC;
    const char *ws = emit_constant(e, DT_FLOAT, 2, dims, wt);
    *full = xsmm ? xsmm_kernel(e, OC, rb, C, OC, C, ldy, true) : "NULL";
    *tail = xsmm && tail_rows ? xsmm_kernel(e, OC, tail_rows, C, OC, C, ldy, true) : "NULL";
    return ws;
}

/* The product, by blocks of rows with the bias and the leading epilogues on each block
 * (conv_pointwise_nhwc_f32), or for one pixel the GEMV and then the bias and the epilogues as
 * passes; returns how many epilogues it applied. */
static int emit_conv_product(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0], *w = n->inputs[1];
    const int64_t M = x->dims[0] * x->dims[1] * x->dims[2], C = x->dims[3], OC = w->dims[0];
    const char *xs = value_cname(e, n->inputs[0]), *y = value_cname(e, n->outputs[0]);
    Value *b = node_input(n, 2);
    const char *bias = b ? value_cname(e, b) : "NULL";
    /* B(k = c, j = oc) is W[oc][c]: the GEMV packs it as it is; the product reads W^T */
    if (emit_gemv_const(e, M, OC, C, xs, 1, w->data, 1, C, y, NULL)) {
        if (b)
            println(e, "gemm_epilogue_f32(%lld, %lld, 1.0f, %s, 0, 1, 1.0f, %s);", (long long)M,
                    (long long)OC, bias, y);
        return 0;
    }
    int nep;
    const char *ep = conv_tile_epilogues(e, n, &nep);
    const int64_t rb = conv_pointwise_nhwc_rows(M, OC, C);
    const int64_t ldy = y_stride(n) ? y_stride(n) : OC;
    const char *full, *tail, *ws = emit_product_weight(e, n, rb, M % rb, ldy, &full, &tail);
    char strided[96] = ""; /* a strided slice: the row stride, into its Concat's channels */
    if (ldy != OC)
        snprintf(strided, sizeof strided, ", %lld); /* into its channels of the Concat's output */",
                 (long long)ldy);
    println(e, "conv_pointwise_nhwc%s_f32(%lld, %lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %d, %s%s",
            ldy != OC ? "_ldy" : "", (long long)M, (long long)OC, (long long)C, (long long)rb, full,
            tail, xs, ws, bias, ep, nep, y, ldy != OC ? strided : ");");
    return nep;
}

/* The weight of depthwise conv n packed [KH][KW][C] (a constant). */
static const char *emit_depthwise_weight(Emitter *e, const Node *n)
{
    const Value *w = n->inputs[1];
    int64_t floats = value_numel(w);
    float *wp = xcalloc((size_t)floats + 1, sizeof(float));
    depthwise_nhwc_pack_f32(w->dims[0], w->dims[2], w->dims[3], w->data, wp);
    return emit_constant(e, DT_FLOAT, 1, &floats, wp);
}

/* The 1x1 conv fused before depthwise conv n and n itself, by rows (expand_depthwise_nhwc_f32);
 * returns how many of n's epilogues it applied in its store (the 1x1 conv's: all of them). */
static int emit_expand_depthwise(Emitter *e, Node *n)
{
    Node *p = n->prologue;
    const Value *w = n->inputs[1], *ex = conv_x(n);
    Value *b1 = node_input(p, 2), *b = node_input(n, 2);
    int64_t geo[NHWC_GEO_LEN];
    window_geo(n, w->dims[2], w->dims[3], geo);
    const int64_t E = expand_rows(n), H = ex->dims[1], W = ex->dims[2];
    int nep1, nep;
    const char *ep1 = conv_tile_epilogues(e, p, &nep1);
    const char *ep = conv_tile_epilogues(e, n, &nep);
    const char *full, *tail,
        *ws = emit_product_weight(e, p, E * W, H % E * W, p->inputs[1]->dims[0], &full, &tail);
    println(e,
            "expand_depthwise_nhwc_f32(%s, %lld, %lld, %s, %s, %s, %s, %s, %s, %d, %s, %s, %s, %d, "
            "%s, %s);",
            emit_dims(e, NHWC_GEO_LEN, geo), (long long)p->inputs[1]->dims[1], (long long)E, full,
            tail, value_cname(e, n->inputs[0]), ws, b1 ? value_cname(e, b1) : "NULL", ep1, nep1,
            emit_depthwise_weight(e, n), b ? value_cname(e, b) : "NULL", ep, nep,
            value_cname(e, n->outputs[0]), scratch_cname(e, n, DT_FLOAT, 0));
    return nep;
}

/* The weight of dense conv n (geo from dense_geo) packed in blocks of output channels. */
static const char *emit_dense_weight(Emitter *e, const Node *n, const int64_t *geo)
{
    int64_t floats = conv_nhwc_packed_floats(geo);
    checked_mul(n, floats, (int64_t)sizeof(float));
    float *wp = xcalloc((size_t)floats + 1, sizeof(float));
    conv_nhwc_pack_f32(geo, n->inputs[1]->data, wp);
    return emit_constant(e, DT_FLOAT, 1, &floats, wp);
}

/* The depthwise or dense kernel; returns how many epilogues it applied in its store. */
static int emit_conv_window(Emitter *e, Node *n, NhwcKernel k)
{
    const Value *w = n->inputs[1];
    Value *b = node_input(n, 2);
    const char *bias = b ? value_cname(e, b) : "NULL";
    int nep;
    const char *ep = conv_tile_epilogues(e, n, &nep);
    const char *x = value_cname(e, n->inputs[0]), *y = value_cname(e, n->outputs[0]);
    if (k == NHWC_DEPTHWISE) {
        int64_t geo[NHWC_GEO_LEN];
        window_geo(n, w->dims[2], w->dims[3], geo);
        println(e, "depthwise_nhwc_f32(%s, %s, %s, %s, %s, %d, %s);",
                emit_dims(e, NHWC_GEO_LEN, geo), x, emit_depthwise_weight(e, n), bias, ep, nep, y);
        return nep;
    }
    int64_t geo[CONV_NHWC_NGEO];
    dense_geo(n, geo);
    const char *wps = emit_dense_weight(e, n, geo);
    const char *work = conv_nhwc_work_floats(geo) ? scratch_cname(e, n, DT_FLOAT, 0) : "NULL";
    println(e, "conv_nhwc_f32(%s, %s, %s, %s, %s, %d, %s, %s);", emit_dims(e, CONV_NHWC_NGEO, geo),
            x, wps, bias, ep, nep, y, work);
    return nep;
}

void nhwc_conv_emit(Emitter *e, Node *n)
{
    NhwcKernel k = conv_kernel(n);
    int applied = 0;
    if (n->prologue)
        applied = emit_expand_depthwise(e, n);
    else if (k == NHWC_PRODUCT)
        applied = emit_conv_product(e, n);
    else
        applied = emit_conv_window(e, n, k);
    emit_epilogues_from(e, n, applied);
}

/* ---- NhwcMaxPool, NhwcAveragePool ---- */

/* The smallest conv output whose MaxPool takes the conv in (fuse_conv_pool.c): 512 KiB, what
 * leaves the L2 of smaller cores (ResNet's and SqueezeNet's stems write 3.2 MB). */
#define CONV_POOL_MIN_BYTES (512 * 1024)

/* fuse_conv_pool.c: dense conv `conv` and the MaxPool `pool` that reads its output, both
 * channels last, the conv's epilogues all in its tiles' store and without operands that have a
 * shape (an Add's residual would be indexed by the band's rows), its output at least
 * CONV_POOL_MIN_BYTES. */
bool nhwc_pool_fuses_conv(const Node *conv, const Node *pool)
{
    const Value *c = conv->outputs[0];
    if (!conv->channels_last || !pool->channels_last || conv->prologue || pool->prologue ||
        conv_kernel(conv) != NHWC_DENSE || pool->inputs[0] != c || c->rank != 4 ||
        !epilogues_in_store_without_tensors(conv))
        return false;
    return value_bytes(c) >= CONV_POOL_MIN_BYTES;
}

/* Conv rows a group of P pool rows adds to those of the group before it, the most. */
static int64_t conv_pool_adds(const int64_t *pg, int64_t P)
{
    const int64_t span = conv_maxpool_span(pg, P);
    return P * pg[NHWC_GEO_SH] < span ? P * pg[NHWC_GEO_SH] : span;
}

/* The conv's geometry cg (pool's prologue) for P pool rows a group in `floats` of scratch: its
 * band plane in what the band of conv rows leaves, of no more rows than a group adds. */
static void conv_pool_plane(const Node *pool, const int64_t *pg, int64_t P, int64_t floats,
                            int64_t *cg)
{
    const int64_t band = conv_maxpool_band_floats(cg, pg, P), adds = conv_pool_adds(pg, P);
    dense_geo_for(pool->prologue, floats - band > 0 ? floats - band : 0, cg);
    if (cg[CONV_NHWC_R] > adds)
        cg[CONV_NHWC_R] = adds;
}

/* Whether P pool rows a group fit in `floats`: the band and a plane of all the rows a group
 * adds. */
static bool conv_pool_fits(const Node *pool, const int64_t *pg, int64_t P, int64_t floats,
                           const int64_t *cg)
{
    int64_t c[CONV_NHWC_NGEO];
    memcpy(c, cg, sizeof c);
    conv_pool_plane(pool, pg, P, floats, c);
    return c[CONV_NHWC_R] == conv_pool_adds(pg, P) &&
           conv_maxpool_band_floats(c, pg, P) + conv_nhwc_work_floats(c) <= floats;
}

/* The geometries of a MaxPool with its conv fused before it (conv_maxpool_nhwc_f32): the most
 * pool rows a group, *P, whose band of conv rows and the conv's band plane of the rows a group
 * adds fit in the scratch budget together (at least 1): the step takes no more scratch than a
 * conv alone. Each group moves the rows it shares with the next and runs its conv rows and
 * pool rows as calls of their own: SqueezeNet's conv1 and pool, 3 -> 64 channels at 224x224,
 * took 628 us at 1 pool row a group, 600 at 3 (benchmarks/conv_layers.c). *band_bytes: the band,
 * aligned. */
static void conv_pool_geo(const Node *pool, int64_t *cg, int64_t *pg, int64_t *P,
                          int64_t *band_bytes)
{
    const int64_t floats = scratch_floats(pool);
    window_geo(pool, ints_at(pool, "kernel_shape", 0, 1), ints_at(pool, "kernel_shape", 1, 1), pg);
    dense_geo_for(pool->prologue, floats, cg); /* for the band's sizes; R below */
    *P = 1;
    while (*P < pg[NHWC_GEO_OH] && conv_pool_fits(pool, pg, *P + 1, floats, cg))
        (*P)++;
    conv_pool_plane(pool, pg, *P, floats, cg);
    const int64_t band = conv_maxpool_band_floats(cg, pg, *P);
    *band_bytes = checked_mul(pool, band, (int64_t)sizeof(float));
    *band_bytes = (*band_bytes + 63) / 64 * 64;
}

int64_t nhwc_pool_scratch(const Node *n)
{
    if (!n->prologue)
        return 0;
    int64_t cg[CONV_NHWC_NGEO], pg[NHWC_GEO_LEN], P, band;
    conv_pool_geo(n, cg, pg, &P, &band);
    return checked_add(n, band, checked_mul(n, conv_nhwc_work_floats(cg), (int64_t)sizeof(float)));
}

double nhwc_pool_flops(const Node *n)
{
    return numel_flops(n) + (n->prologue ? nhwc_conv_flops(n->prologue) : 0.0);
}

/* The conv fused before MaxPool n and n itself, by bands of rows (conv_maxpool_nhwc_f32). */
static void emit_conv_maxpool(Emitter *e, Node *n)
{
    Node *conv = n->prologue;
    int64_t cg[CONV_NHWC_NGEO], pg[NHWC_GEO_LEN], P, band;
    conv_pool_geo(n, cg, pg, &P, &band);
    Value *b = node_input(conv, 2);
    int nep;
    const char *ep = conv_tile_epilogues(e, conv, &nep);
    const char *work = conv_nhwc_work_floats(cg) ? scratch_cname(e, n, DT_FLOAT, band) : "NULL";
    println(e, "conv_maxpool_nhwc_f32(%s, %s, %s, %s, %s, %d, %s, %lld, %s, %s, %s);",
            emit_dims(e, CONV_NHWC_NGEO, cg), value_cname(e, n->inputs[0]),
            emit_dense_weight(e, conv, cg), b ? value_cname(e, b) : "NULL", ep, nep,
            emit_dims(e, NHWC_GEO_LEN, pg), (long long)P, value_cname(e, n->outputs[0]),
            scratch_cname(e, n, DT_FLOAT, 0), work);
}

bool nhwc_pool_supported(const Node *pool)
{
    const Value *x = pool->inputs[0];
    return x->rank == 4 && x->dtype == DT_FLOAT && explicit_pads(pool) &&
           (pool->noutputs < 2 || !pool->outputs[1] || !value_is_used(pool->outputs[1]));
}

void nhwc_pool_infer(Node *n)
{
    twin_infer(n, pool_infer);
}

void nhwc_pool_emit(Emitter *e, Node *n)
{
    if (n->prologue) {
        emit_conv_maxpool(e, n);
        return;
    }
    int64_t geo[NHWC_GEO_LEN];
    window_geo(n, ints_at(n, "kernel_shape", 0, 1), ints_at(n, "kernel_shape", 1, 1), geo);
    const char *g = emit_dims(e, NHWC_GEO_LEN, geo);
    const char *x = value_cname(e, n->inputs[0]), *y = value_cname(e, n->outputs[0]);
    if (!strcmp(n->op_type, "NhwcMaxPool"))
        println(e, "maxpool_nhwc_f32(%s, %s, %s);", g, x, y);
    else
        println(e, "avgpool_nhwc_f32(%s, %d, %s, %s);", g, attr_int(n, "count_include_pad", 0) != 0,
                x, y);
}

/* ---- NhwcGlobalAveragePool ---- */

void nhwc_global_pool_infer(Node *n)
{
    twin_infer(n, global_pool_infer);
}

void nhwc_global_pool_emit(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0];
    println(e, "global_avgpool_nhwc_f32(%lld, %lld, %lld, %s, %s);", (long long)x->dims[0],
            (long long)(x->dims[1] * x->dims[2]), (long long)x->dims[3],
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}
