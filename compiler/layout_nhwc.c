/* layout_nhwc.c — channels-last regions (--layout nhwc|auto).
 *
 * Depthwise-separable nets keep small spatial maps with many channels, where NCHW is the wrong
 * layout: a conv's inner loops then run over a few positions. This pass runs 2-D convs and the
 * layout-agnostic ops between them on [N][H][W][C] tensors:
 *   - a conv with a channels-last kernel (a "seed": NhwcConv, ops/conv_nhwc.c) reads its input
 *     in NHWC, made by a Transpose(0,2,3,1) where that input is not NHWC yet;
 *   - an agnostic op (unary and broadcasting elementwise ops, Concat and Split on the channel
 *     axis, MaxPool and AveragePool as NhwcMaxPool / NhwcAveragePool, GlobalAveragePool and
 *     means over H,W as NhwcGlobalAveragePool, other reductions over H,W or C) joins when an
 *     input is NHWC already and its other operands are too, or are constants (transposed at
 *     compile time) or scalars;
 *   - every value a converted node computes keeps its NCHW self as the output of a
 *     Transpose(0,3,1,2) placed after the node, which eliminate_dead drops when only NHWC
 *     readers remain: so adjacent inverse transposes never both run, and a region's edges
 *     are the only transposes left;
 *   - ShuffleNet's channel shuffle (Reshape, Transpose, Reshape) shuffles the NHWC channels;
 *   - a transpose that moves only dims of size 1 (a 1x1 map after GlobalAveragePool, one
 *     channel) becomes a Reshape, a view that costs nothing.
 * Which ops join and how each is converted is the table `converters`. The layout never changes
 * a result: every channels-last kernel sums in its NCHW kernel's order (DESIGN.md). */
#include "rewrite.h"

#include <string.h>

typedef struct Pass {
    Graph *g;
    int opset;    /* the model's default domain, for the nodes the pass makes */
    Value **twin; /* per value id: its [N][H][W][C] twin, once made */
    int cap;
    int64_t after; /* placement of the nodes that follow a converted node */
    int converted, transposes;
} Pass;

static const int64_t TO_NHWC[4] = {0, 2, 3, 1}, TO_NCHW[4] = {0, 3, 1, 2};

static Value *twin_of(const Pass *p, const Value *v)
{
    return v->id < p->cap ? p->twin[v->id] : NULL;
}

static void set_twin(Pass *p, const Value *v, Value *t)
{
    if (v->id >= p->cap) {
        int cap = 2 * v->id + 64;
        p->twin = xrealloc(p->twin, (size_t)cap * sizeof(Value *));
        memset(p->twin + p->cap, 0, (size_t)(cap - p->cap) * sizeof(Value *));
        p->cap = cap;
    }
    p->twin[v->id] = t;
}

static void permute4(const int64_t *d, const int64_t *perm, int64_t *out)
{
    int64_t o[4];
    for (int i = 0; i < 4; i++)
        o[i] = d[perm[i]];
    memcpy(out, o, sizeof o);
}

static Node *transpose_node(Pass *p, Value *x, const int64_t *perm, Value *y, const char *name)
{
    Node *t = node_new(p->g, name, "Transpose", 1, 1);
    t->op = op_lookup("Transpose");
    t->opset = p->opset;
    t->attrs = xcalloc(1, sizeof(Attr));
    t->attrs[0] = (Attr){.name = xstrdup("perm"), .type = ATTR_INTS, .n = 4};
    t->attrs[0].ints = xcalloc(4, sizeof(int64_t));
    memcpy(t->attrs[0].ints, perm, 4 * sizeof(int64_t));
    t->nattrs = 1;
    node_set_input(t, 0, x);
    t->outputs[0] = y;
    y->producer = t;
    p->transposes++;
    return t;
}

/* A constant operand of a 4-D NCHW op (rank <= 4, broadcasting) for the op's NHWC twin: its
 * dims aligned to rank 4 and transposed, the data with them (scalars stay as they are). */
static Value *constant_nhwc(Pass *p, Value *v)
{
    if (value_numel(v) == 1)
        return v;
    int64_t d[4] = {1, 1, 1, 1}, nd[4];
    memcpy(d + 4 - v->rank, v->dims, (size_t)v->rank * sizeof(int64_t));
    permute4(d, TO_NHWC, nd);
    Value *c = constant_new(p->g, xprintf("%s/nhwc", v->name), v->dtype, 4, nd);
    const size_t es = dtype_size(v->dtype);
    const char *src = v->data;
    char *dst = c->data;
    for (int64_t n = 0, i = 0; n < d[0]; n++)
        for (int64_t h = 0; h < d[2]; h++)
            for (int64_t w = 0; w < d[3]; w++)
                for (int64_t ch = 0; ch < d[1]; ch++, i++)
                    memcpy(dst + (size_t)i * es,
                           src + (size_t)(((n * d[1] + ch) * d[2] + h) * d[3] + w) * es, es);
    c->folded_from = v->folded_from ? v->folded_from : v->name;
    return c;
}

/* Does twin t of v enter a region (a Transpose of v made here, not a region's result)? */
static bool entering(const Value *v, const Value *t)
{
    return t->producer && !t->producer->channels_last && t->producer->inputs[0] == v;
}

/* The NHWC twin of a 4-D value for a node at `anchor`: made once, by a Transpose before the
 * first converted reader. With `late`, a twin that enters a region from an earlier reader is
 * not shared: a Transpose of its own goes just before the anchor, so the twin is not alive
 * over the steps between (a block's residual read from the graph input took the arena of
 * mobilenetv2_block past the node-order bound). */
static Value *to_nhwc(Pass *p, Value *v, const Node *anchor, bool late)
{
    Value *t = twin_of(p, v);
    if (t && !(late && entering(v, t)))
        return t;
    bool shared = !t;
    if (v->data)
        t = constant_nhwc(p, v);
    else {
        int64_t d[4];
        permute4(v->dims, TO_NHWC, d);
        t = value_new(p->g, "");
        t->name = xprintf("%s/nhwc_%d", v->name, t->id);
        set_shape(t, v->dtype, 4, d);
        Node *tr = transpose_node(p, v, TO_NHWC, t, xprintf("%s/to_nhwc_%d", v->name, t->id));
        node_place_before(p->g, tr, anchor);
    }
    if (shared)
        set_twin(p, v, t);
    return t;
}

/* An operand the converted node may read in NHWC at no extra pass over a full tensor: a
 * twin, a constant, a scalar, or a 4-D value whose transpose moves only dims of size 1. */
static bool operand_ready(const Pass *p, const Value *v)
{
    if (!v || twin_of(p, v) || value_numel(v) == 1 || (v->data && v->rank <= 4))
        return true;
    return v->rank == 4 && (v->dims[1] == 1 || v->dims[2] * v->dims[3] == 1);
}

/* Rewires input i of n (and the epilogues that read it) to its NHWC form (`late`: to_nhwc). */
static void convert_input(Pass *p, Node *n, int i, bool late)
{
    Value *v = n->inputs[i];
    if (!v || (value_numel(v) == 1 && v->rank != 4))
        return;
    Value *t = to_nhwc(p, v, n, late);
    node_set_input(n, i, t);
    for (int k = 0; k < n->nepilogue; k++) {
        Node *u = n->epilogue[k].node; /* retired: its inputs hold no uses */
        for (int j = 0; j < u->ninputs; j++)
            if (u->inputs[j] == v)
                u->inputs[j] = t;
    }
}

/* n now writes NHWC twins of its outputs; each NCHW output is a Transpose of its twin. */
static void convert_outputs(Pass *p, Node *n)
{
    for (int k = 0; k < n->noutputs; k++) {
        Value *y = n->outputs[k];
        if (!y)
            continue;
        int64_t d[4];
        permute4(y->dims, TO_NHWC, d);
        Value *t = value_new(p->g, "");
        t->name = xprintf("%s/nhwc_%d", y->name, t->id);
        set_shape(t, y->dtype, 4, d);
        n->outputs[k] = t;
        t->producer = n;
        Node *tr = transpose_node(p, t, TO_NCHW, y, xprintf("%s/to_nchw_%d", y->name, t->id));
        tr->order = n->order + 1 + p->after++;
        set_twin(p, y, t);
    }
    n->channels_last = true;
    p->converted++;
}

static bool all_ready(const Pass *p, const Node *n, int from)
{
    for (int i = from; i < n->ninputs; i++)
        if (!operand_ready(p, n->inputs[i]))
            return false;
    return true;
}

static bool any_twin(const Pass *p, const Node *n)
{
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i] && !n->inputs[i]->data && twin_of(p, n->inputs[i]))
            return true;
    return false;
}

static bool rank4_outputs(const Node *n)
{
    for (int k = 0; k < n->noutputs; k++)
        if (n->outputs[k] && n->outputs[k]->rank != 4)
            return false;
    return true;
}

/* Sets attribute `name` of n to the ints v[count]. */
static void set_ints(Node *n, const char *name, const int64_t *v, int count)
{
    Attr *at = NULL;
    for (int i = 0; i < n->nattrs; i++)
        if (!strcmp(n->attrs[i].name, name))
            at = &n->attrs[i];
    if (!at) {
        n->attrs = xrealloc(n->attrs, (size_t)(n->nattrs + 1) * sizeof(Attr));
        at = &n->attrs[n->nattrs++];
    }
    *at = (Attr){.name = xstrdup(name), .type = ATTR_INTS, .n = count};
    at->ints = xcalloc((size_t)count, sizeof(int64_t));
    memcpy(at->ints, v, (size_t)count * sizeof(int64_t));
}

/* A 2-D Conv or pool with auto_pad SAME_UPPER or SAME_LOWER gets the pads they stand for
 * (conv.c computes them from the shapes), which the channels-last kernels read. */
static void explicit_pads(Node *n)
{
    const char *auto_pad = attr_string(n, "auto_pad", "NOTSET");
    if (strncmp(auto_pad, "SAME_", 5) != 0 || n->inputs[0]->rank != 4)
        return;
    int64_t pads[4];
    set_ints(n, "pads", pads, 2 * window_explicit_pads(n, pads));
    attr_set_string(n, "auto_pad", "NOTSET");
}

/* ---- converters: each checks that the node may join, then rewrites it ---- */

/* Conv with a channels-last kernel -> NhwcConv: its input and residual operands in NHWC (by a
 * Transpose where they are not yet), its weight and bias as they are. A dense conv whose input
 * is not NHWC yet (a CNN's first conv on its graph input) reads it as it is (attribute x_nchw,
 * nhwc_conv_reads_nchw): no transposed copy, in time or arena (tiny_mobilenetv1_vww's input
 * Transpose was 9.6% of its run). */
static bool convert_conv(Pass *p, Node *n)
{
    if (!nhwc_conv_supported(n))
        return false;
    explicit_pads(n);
    if (!twin_of(p, n->inputs[0]) && nhwc_conv_reads_nchw(n))
        attr_set_int(n, "x_nchw", 1); /* the last attribute (emit_onnx.c) */
    else
        convert_input(p, n, 0, false);
    for (int i = 3; i < n->ninputs; i++) /* residuals */
        convert_input(p, n, i, true);
    n->op_type = xstrdup("NhwcConv");
    n->domain = xstrdup("com.microsoft");
    n->op = op_lookup("com.microsoft.NhwcConv");
    convert_outputs(p, n);
    n->op->infer(n); /* checks the shape convert_outputs gave */
    record_fusion("nhwc_conv");
    return true;
}

/* QLinearConv with a channels-last kernel (qconv_nhwc_supported, ops/quant.c) -> onnxruntime's
 * com.microsoft QLinearConv with channels_last = 1: x in NHWC, the weight, bias, scales and zero
 * points as they are. */
static bool convert_qconv(Pass *p, Node *n)
{
    if (!qconv_nhwc_supported(n))
        return false;
    convert_input(p, n, 0, false);
    n->domain = xstrdup("com.microsoft");
    attr_set_int(n, "channels_last", 1);
    n->op = op_lookup("com.microsoft.QLinearConv");
    convert_outputs(p, n);
    n->op->infer(n);
    record_fusion("nhwc_qconv");
    return true;
}

/* QuantizeLinear / DequantizeLinear with a per-tensor scale and zero point: elementwise on x,
 * next to an NHWC x (the int8 models' residual Adds run between them). */
static bool convert_qdq(Pass *p, Node *n)
{
    const Value *s = node_input(n, 1), *z = node_input(n, 2);
    if (!twin_of(p, n->inputs[0]) || n->inputs[0]->rank != 4 || value_numel(s) != 1 ||
        (z && value_numel(z) != 1) || attr_int(n, "block_size", 0))
        return false;
    convert_input(p, n, 0, false);
    convert_outputs(p, n);
    return true;
}

/* MaxPool / AveragePool of an NHWC tensor -> NhwcMaxPool / NhwcAveragePool (MaxPool without
 * its Indices output). */
static bool convert_pool(Pass *p, Node *n)
{
    if (!twin_of(p, n->inputs[0]) || !nhwc_pool_supported(n))
        return false;
    explicit_pads(n);
    convert_input(p, n, 0, false);
    n->noutputs = 1;
    const char *op = xprintf("Nhwc%s", n->op_type);
    n->op_type = xstrdup(op);
    n->domain = xstrdup("com.microsoft");
    n->op = op_lookup(xprintf("com.microsoft.%s", op));
    convert_outputs(p, n);
    n->op->infer(n);
    return true;
}

/* Elementwise ops (and what fuse_elementwise chained into them): y[i] = f(operands at i), any
 * layout, once every operand is NHWC, a transposed constant or a scalar. */
static bool convert_elementwise(Pass *p, Node *n)
{
    if (!any_twin(p, n) || !all_ready(p, n, 0) || !rank4_outputs(n))
        return false;
    for (int i = 0; i < n->ninputs; i++)
        convert_input(p, n, i, false);
    convert_outputs(p, n);
    return true;
}

/* Concat and Split on the channel axis: the same op on axis 3. */
static bool convert_channel_axis(Pass *p, Node *n)
{
    const Value *x = n->inputs[0];
    if (x->rank != 4 || normalize_axis(n, attr_int(n, "axis", 0), 4) != 1)
        return false;
    int data = !strcmp(n->op_type, "Split") ? 1 : n->ninputs; /* Split's sizes stay */
    for (int i = 0; i < data; i++)
        if (!n->inputs[i] || (!twin_of(p, n->inputs[i]) && !operand_ready(p, n->inputs[i])))
            return false;
    if (!any_twin(p, n))
        return false;
    for (int i = 0; i < data; i++)
        convert_input(p, n, i, false);
    attr_set_int(n, "axis", 3);
    convert_outputs(p, n);
    return true;
}

/* Sets the reduced axes of reduce node n: an attribute before opset 18 (13 for ReduceSum),
 * an input since (reduce.c reads them the same way). */
static void set_reduce_axes(Pass *p, Node *n, const int64_t *axes, int count)
{
    if (n->opset >= (!strcmp(n->op_type, "ReduceSum") ? 13 : 18)) {
        int64_t len = count;
        Value *a = constant_new(p->g, xprintf("%s/axes", n->name), DT_INT64, 1, &len);
        memcpy(a->data, axes, (size_t)count * sizeof(int64_t));
        if (n->ninputs < 2)
            node_resize_inputs(n, 2);
        node_set_input(n, 1, a);
        return;
    }
    set_ints(n, "axes", axes, count);
}

/* n, which wrote a 4-D y, writes t instead and a Reshape after it gives y back (a view). */
static void reshape_after(Pass *p, Node *n, Value *t, Value *y)
{
    int64_t len = y->rank;
    Value *shape = constant_new(p->g, xprintf("%s/shape", y->name), DT_INT64, 1, &len);
    memcpy(shape->data, y->dims, (size_t)y->rank * sizeof(int64_t));
    Node *r = node_new(p->g, xprintf("%s/from_nhwc_%d", y->name, t->id), "Reshape", 2, 1);
    r->op = op_lookup("Reshape");
    r->opset = p->opset;
    node_set_input(r, 0, t);
    node_set_input(r, 1, shape);
    n->outputs[0] = t;
    t->producer = n;
    r->outputs[0] = y;
    y->producer = r;
    r->order = n->order + 1 + p->after++;
}

/* A mean over H and W of an NHWC tensor (GlobalAveragePool, or squeeze-excite's ReduceMean)
 * -> NhwcGlobalAveragePool: pool_nhwc.c's kernel adds each position's row of channels at once,
 * where ReduceMean's generic loop strides over one channel's positions; the same sums in the
 * same order. A mean that drops H and W writes [N][C] in either layout: a Reshape of the
 * [N][1][1][C] result. */
static bool convert_global_avgpool(Pass *p, Node *n)
{
    const Value *x = n->inputs[0];
    Value *y = n->outputs[0];
    if (!twin_of(p, x) || x->rank != 4 || x->dtype != DT_FLOAT || n->nepilogue ||
        (y->rank != 4 && y->rank != 2))
        return false;
    convert_input(p, n, 0, false);
    node_resize_inputs(n, 1);
    n->nattrs = 0;
    n->op_type = xstrdup("NhwcGlobalAveragePool");
    n->domain = xstrdup("com.microsoft");
    n->op = op_lookup("com.microsoft.NhwcGlobalAveragePool");
    if (y->rank == 4) {
        convert_outputs(p, n);
    } else {
        Value *t = value_new(p->g, "");
        t->name = xprintf("%s/nhwc_%d", y->name, t->id);
        reshape_after(p, n, t, y);
        n->channels_last = true;
        p->converted++;
    }
    n->op->infer(n);
    return true;
}

/* A reduction over explicit axes of an NHWC tensor, keeping them: the same op over the NHWC axes,
 * when they keep their relative order, so each output sums its elements in the same order (C with H
 * or W would not). */
static bool convert_reduce(Pass *p, Node *n)
{
    const Value *x = n->inputs[0];
    if (!twin_of(p, x) || x->rank != 4 || attr_int(n, "noop_with_empty_axes", 0) != 0)
        return false;
    const int64_t *axes = NULL;
    int count;
    const Value *in = node_input(n, 1);
    if (in)
        axes = in->data ? const_ints(n, in, &count) : NULL;
    else
        count = attr_ints(n, "axes", &axes);
    if (!axes || count <= 0 || count > 4)
        return false; /* all axes: C then H, W would sum in another order */
    static const int64_t nhwc_axis[4] = {0, 3, 1, 2};
    int64_t to[4];
    bool has_c = false, has_hw = false;
    for (int i = 0; i < count; i++) {
        int d = normalize_axis(n, axes[i], 4);
        to[i] = nhwc_axis[d];
        has_c |= d == 1;
        has_hw |= d >= 2;
    }
    if (has_c && has_hw)
        return false;
    if (!strcmp(n->op_type, "ReduceMean") && count == 2 && to[0] * to[1] == 2) /* H and W */
        return convert_global_avgpool(p, n);
    if (attr_int(n, "keepdims", 1) == 0)
        return false;
    convert_input(p, n, 0, false);
    set_reduce_axes(p, n, to, count);
    convert_outputs(p, n);
    return true;
}

/* ShuffleNet's channel shuffle of an NHWC tensor x: Reshape [N][C][H][W] -> [N][g][C/g][H][W],
 * Transpose(0,2,1,3,4), Reshape -> [N][C][H][W] (channel i*(C/g) + j goes to j*g + i) is, on
 * [N][H][W][C], Reshape -> [N][H][W][g][C/g], Transpose(0,1,2,4,3), Reshape -> [N][H][W][C]:
 * the same copy, so the Split and Concat around it stay in the region. Matched at the last
 * Reshape, whose two producers read nothing else. */
static const Pattern SHUFFLE = {
    .op = "Reshape", .nin = 1, .in = {P_OP1("Transpose", P_OP1("Reshape", P_ANY(1)))}};

static bool shuffle_shapes(const Node *r1, const Node *t, const Node *r2)
{
    static const int64_t perm[5] = {0, 2, 1, 3, 4};
    const Value *x = r1->inputs[0], *a = r1->outputs[0], *y = r2->outputs[0];
    const int64_t *tp;
    if (x->rank != 4 || a->rank != 5 || y->rank != 4 || attr_ints(t, "perm", &tp) != 5 ||
        memcmp(tp, perm, sizeof perm) != 0 || memcmp(x->dims, y->dims, 4 * sizeof(int64_t)))
        return false;
    return a->dims[0] == x->dims[0] && a->dims[1] * a->dims[2] == x->dims[1] &&
           a->dims[3] == x->dims[2] && a->dims[4] == x->dims[3];
}

/* Reshape node r to dims: its shape input a new constant. */
static void reshape_to(Pass *p, Node *r, int rank, const int64_t *dims)
{
    int64_t len = rank;
    Value *s = constant_new(p->g, xprintf("%s/nhwc_shape", r->name), DT_INT64, 1, &len);
    memcpy(s->data, dims, (size_t)rank * sizeof(int64_t));
    node_set_input(r, 1, s);
    attr_set_int(r, "allowzero", 0);
}

static bool convert_shuffle(Pass *p, Node *r2)
{
    Match m;
    if (!node_matches(&SHUFFLE, r2, &m) || !twin_of(p, m.v[1]))
        return false;
    Node *t = r2->inputs[0]->producer, *r1 = t->inputs[0]->producer;
    if (!shuffle_shapes(r1, t, r2))
        return false;
    const int64_t *a = r1->outputs[0]->dims, *x = r1->inputs[0]->dims;
    const int64_t split[5] = {a[0], a[3], a[4], a[1], a[2]},
                  swapped[5] = {a[0], a[3], a[4], a[2], a[1]};
    convert_input(p, r1, 0, false);
    reshape_to(p, r1, 5, split);
    set_shape(r1->outputs[0], r1->outputs[0]->dtype, 5, split);
    r1->channels_last = true;
    const int64_t *tp;
    attr_ints(t, "perm", &tp);
    static const int64_t perm[5] = {0, 1, 2, 4, 3};
    memcpy((int64_t *)tp, perm, sizeof perm); /* the node's own attribute */
    set_shape(t->outputs[0], t->outputs[0]->dtype, 5, swapped);
    t->channels_last = true;
    const int64_t nhwc[4] = {x[0], x[2], x[3], x[1]};
    reshape_to(p, r2, 4, nhwc);
    convert_outputs(p, r2);
    record_fusion("nhwc_shuffle");
    return true;
}

/* The ops that may run channels-last: by op name, or (op NULL) by an op-table flag, and how
 * each is converted (a seed such as Conv joins whatever its inputs are; the others only next
 * to an NHWC input). `pays`: the node runs measurably faster channels-last, so that
 * --layout=auto turns the layout on for a graph that has one (README "Channels-last layout"). */
typedef struct Converter {
    const char *op;
    unsigned flags;
    bool (*convert)(Pass *p, Node *n);
    bool (*pays)(const Node *n);
} Converter;

static const Converter converters[] = {
    {"Conv", 0, convert_conv, nhwc_conv_pays},
    /* auto: any QLinearConv of the channels-last kernel (layout_bench.py, whole models against
     * NCHW: DS-CNN int8 0.57x, MobileNetV1 int8 0.66x, ResNet-8 int8 0.97x, qdq_cnn_s8_pt 0.51x) */
    {"QLinearConv", 0, convert_qconv, qconv_nhwc_supported},
    {"QuantizeLinear", 0, convert_qdq, NULL},
    {"DequantizeLinear", 0, convert_qdq, NULL},
    {"Concat", 0, convert_channel_axis, NULL},
    {"Split", 0, convert_channel_axis, NULL},
    {"GlobalAveragePool", 0, convert_global_avgpool, NULL},
    {"ReduceMean", 0, convert_reduce, NULL},
    {"ReduceSum", 0, convert_reduce, NULL},
    {"ReduceMax", 0, convert_reduce, NULL},
    {"MaxPool", 0, convert_pool, NULL},
    {"AveragePool", 0, convert_pool, NULL},
    {"Reshape", 0, convert_shuffle, NULL},
    {NULL, OP_ELEMENTWISE, convert_elementwise, NULL},
};

static const Converter *converter_for(const Node *n)
{
    if (*n->domain && strcmp(n->domain, "ai.onnx") != 0)
        return NULL;
    for (size_t i = 0; i < sizeof converters / sizeof converters[0]; i++) {
        const Converter *c = &converters[i];
        if (c->op ? !strcmp(c->op, n->op_type) : node_has(n, c->flags))
            return c;
    }
    return NULL;
}

/* A Transpose that moves only dims of size 1 keeps every element where it is: a Reshape. */
static bool moves_only_ones(const Node *t)
{
    const Value *x = t->inputs[0];
    const int64_t *perm = t->attrs[0].ints;
    int last = -1;
    for (int i = 0; i < 4; i++) {
        if (x->dims[perm[i]] == 1)
            continue;
        if (perm[i] < last)
            return false;
        last = (int)perm[i];
    }
    return true;
}

static void transposes_as_views(Pass *p, int first)
{
    for (int i = first; i < p->g->nnodes; i++) {
        Node *t = p->g->nodes[i];
        if (t->dead || t->op != op_lookup("Transpose") || !moves_only_ones(t))
            continue;
        Value *y = t->outputs[0];
        int64_t len = 4;
        Value *shape = constant_new(p->g, xprintf("%s/shape", t->name), DT_INT64, 1, &len);
        memcpy(shape->data, y->dims, 4 * sizeof(int64_t));
        Value *ins[2] = {t->inputs[0], shape};
        morph_node(t, "Reshape", 2, ins);
        p->transposes--;
    }
}

/* --layout=auto: channels-last when some node of the graph pays for it. */
static bool layout_pays(const Graph *g)
{
    for (int i = 0; i < g->nnodes; i++) {
        const Node *n = g->nodes[i];
        const Converter *c = n->dead ? NULL : converter_for(n);
        if (c && c->pays && c->pays(n))
            return true;
    }
    return false;
}

void layout_nhwc(Model *m, Layout layout)
{
    Graph *g = m->graph;
    if (layout == LAYOUT_NCHW || (layout == LAYOUT_AUTO && !layout_pays(g)))
        return;
    Pass p = {.g = g, .opset = m->opset};
    schedule(g); /* live nodes in order, so a node placed after one precedes the next */
    number_nodes(g);
    const int n0 = g->nnodes;
    for (int i = 0; i < n0; i++) {
        Node *n = g->nodes[i];
        const Converter *c = n->dead ? NULL : converter_for(n);
        if (c)
            c->convert(&p, n);
    }
    transposes_as_views(&p, n0);
}
