/* ops_conv.c — convolution, pooling, batch normalisation and softmax.
 *
 * Conv is im2col + product: for each image and group, the im2col template gathers the input
 * patches into col[K][P] (K = kernel taps x input channels, taps outer, channels inner; P =
 * output pixels), and the product kernel computes Y[OCg][P] = W'[OCg][K] x col. W' is the
 * ONNX weight reordered to that k order, at compile time when W is constant. 1-D ops are 2-D
 * ops with H = 1. */
#include "ops.h"
#include "kernels.h"

#include <string.h>

/* ---- geometry shared by Conv and the pools ---- */

typedef struct Window {
    int64_t h, w;            /* input spatial size */
    int64_t kh, kw;          /* kernel */
    int64_t sh, sw, dh, dw;  /* strides, dilations */
    int64_t pt, pl, pb, pr;  /* pads: top, left, bottom, right */
    int64_t oh, ow;          /* output spatial size */
} Window;

static int64_t ints_at(const Node *n, const char *name, int i, int64_t dflt)
{
    const int64_t *v;
    int count = attr_ints(n, name, &v);
    return count > i ? v[i] : dflt;
}

static void check_ints_len(const Node *n, const char *name, int want)
{
    const int64_t *v;
    int count = attr_ints(n, name, &v);
    if (count >= 0 && count != want)
        fatal_at(n, "attribute '%s' has %d values, expected %d", name, count, want);
}

static int64_t out_size(const Node *n, int64_t in, int64_t k, int64_t s, int64_t d, int64_t pads,
                        bool ceil_mode, int64_t pad_begin)
{
    int64_t span = d * (k - 1) + 1;
    if (s <= 0 || k <= 0 || d <= 0)
        fatal_at(n, "kernel, strides and dilations must be positive");
    if (in + pads < span)
        fatal_at(n, "the window (%lld) is larger than the padded input (%lld)", (long long)span,
                 (long long)(in + pads));
    int64_t num = in + pads - span;
    int64_t o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
    if (ceil_mode && (o - 1) * s >= in + pad_begin)
        o--; /* the last window must start inside the input or its leading pad */
    return o;
}

/* auto_pad SAME_*: output = ceil(in / stride), padding split as evenly as possible. */
static void same_pads(int64_t in, int64_t k, int64_t s, int64_t d, bool upper, int64_t *begin,
                      int64_t *end)
{
    int64_t out = (in + s - 1) / s;
    int64_t total = (out - 1) * s + d * (k - 1) + 1 - in;
    if (total < 0)
        total = 0;
    *begin = upper ? total / 2 : total - total / 2;
    *end = total - *begin;
}

static Window window_geometry(const Node *n, const Value *x, int64_t kh, int64_t kw)
{
    int sp = x->rank - 2;
    if (sp < 1 || sp > 2)
        fatal_at(n, "only 1-D and 2-D inputs are supported (got rank %d)", x->rank);
    check_ints_len(n, "strides", sp);
    check_ints_len(n, "dilations", sp);
    check_ints_len(n, "pads", 2 * sp);
    Window w = {0};
    w.h = sp == 2 ? x->dims[2] : 1;
    w.w = x->dims[x->rank - 1];
    w.kh = kh;
    w.kw = kw;
    w.sh = sp == 2 ? ints_at(n, "strides", 0, 1) : 1;
    w.sw = ints_at(n, "strides", sp - 1, 1);
    w.dh = sp == 2 ? ints_at(n, "dilations", 0, 1) : 1;
    w.dw = ints_at(n, "dilations", sp - 1, 1);
    if (sp == 2) {
        w.pt = ints_at(n, "pads", 0, 0);
        w.pb = ints_at(n, "pads", 2, 0);
    }
    w.pl = ints_at(n, "pads", sp - 1, 0);
    w.pr = ints_at(n, "pads", 2 * sp - 1, 0);
    if (w.pt < 0 || w.pl < 0 || w.pb < 0 || w.pr < 0)
        fatal_at(n, "negative pads are not supported");
    const char *auto_pad = attr_string(n, "auto_pad", "NOTSET");
    bool ceil_mode = attr_int(n, "ceil_mode", 0) != 0;
    if (!strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER")) {
        bool upper = !strcmp(auto_pad, "SAME_UPPER");
        same_pads(w.h, w.kh, w.sh, w.dh, upper, &w.pt, &w.pb);
        same_pads(w.w, w.kw, w.sw, w.dw, upper, &w.pl, &w.pr);
    } else if (!strcmp(auto_pad, "VALID")) {
        w.pt = w.pl = w.pb = w.pr = 0;
    } else if (strcmp(auto_pad, "NOTSET") != 0) {
        fatal_at(n, "auto_pad '%s' is not supported", auto_pad);
    }
    w.oh = out_size(n, w.h, w.kh, w.sh, w.dh, w.pt + w.pb, ceil_mode, w.pt);
    w.ow = out_size(n, w.w, w.kw, w.sw, w.dw, w.pl + w.pr, ceil_mode, w.pl);
    return w;
}

static void set_window_output(Node *n, const Value *x, int64_t channels, const Window *w)
{
    int64_t dims[4] = {x->dims[0], channels, w->oh, w->ow};
    if (x->rank == 3)
        dims[2] = w->ow;
    set_shape(n->outputs[0], x->dtype, x->rank, dims);
}

/* ---- Conv ---- */

typedef struct ConvShape {
    int64_t N, C, OC, G, Cg, OCg, K, P;
    Window w;
} ConvShape;

static ConvShape conv_shape(const Node *n)
{
    const Value *x = n->inputs[0], *wt = n->inputs[1];
    if (wt->rank != x->rank)
        fatal_at(n, "weight rank %d differs from input rank %d", wt->rank, x->rank);
    ConvShape s = {0};
    s.N = x->dims[0];
    s.C = x->dims[1];
    s.OC = wt->dims[0];
    s.G = attr_int(n, "group", 1);
    if (s.G <= 0 || s.C % s.G || s.OC % s.G)
        fatal_at(n, "group %lld does not divide %lld input and %lld output channels",
                 (long long)s.G, (long long)s.C, (long long)s.OC);
    s.Cg = s.C / s.G;
    s.OCg = s.OC / s.G;
    if (wt->dims[1] != s.Cg)
        fatal_at(n, "weight has %lld input channels per group, input gives %lld",
                 (long long)wt->dims[1], (long long)s.Cg);
    int sp = x->rank - 2;
    int64_t kh = sp == 2 ? wt->dims[2] : 1, kw = wt->dims[wt->rank - 1];
    check_ints_len(n, "kernel_shape", sp);
    if (ints_at(n, "kernel_shape", 0, sp == 2 ? kh : kw) != (sp == 2 ? kh : kw) ||
        ints_at(n, "kernel_shape", sp - 1, kw) != kw)
        fatal_at(n, "kernel_shape disagrees with the weight's shape");
    s.w = window_geometry(n, x, kh, kw);
    s.K = checked_mul(n, checked_mul(n, kh, kw), s.Cg);
    s.P = checked_mul(n, s.w.oh, s.w.ow);
    const Value *b = node_input(n, 2);
    if (b && (b->rank != 1 || b->dims[0] != s.OC))
        fatal_at(n, "bias must have shape [%lld]", (long long)s.OC);
    return s;
}

void conv_infer(Node *n)
{
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i])
            require_float(n, n->inputs[i]);
    ConvShape s = conv_shape(n);
    set_window_output(n, n->inputs[0], s.OC, &s.w);
}

/* A 1x1 kernel with unit strides and no padding reads the input as col directly. */
static bool conv_is_pointwise(const ConvShape *s)
{
    const Window *w = &s->w;
    return w->kh == 1 && w->kw == 1 && w->sh == 1 && w->sw == 1 && !w->pt && !w->pl && !w->pb &&
           !w->pr;
}

int64_t conv_scratch(const Node *n)
{
    ConvShape s = conv_shape(n);
    int64_t floats = conv_is_pointwise(&s) ? 0 : checked_mul(n, s.K, s.P);
    if (!n->inputs[1]->data)
        floats = checked_add(n, floats, checked_mul(n, s.OC, s.K));
    return checked_mul(n, floats, (int64_t)sizeof(float));
}

static const char *conv_weights(Emitter *e, Node *n, const ConvShape *s)
{
    Value *wt = n->inputs[1];
    const Window *w = &s->w;
    if (wt->data) {
        float *r = xcalloc((size_t)(s->OC * s->K) + 1, sizeof(float));
        conv_weight_reorder_f32(s->OC, s->Cg, w->kh, w->kw, wt->data, r);
        int64_t dims[2] = {s->OC, s->K};
        return emit_constant(e, DT_FLOAT, 2, dims, r);
    }
    int64_t col_bytes = conv_is_pointwise(s) ? 0 : s->K * s->P * (int64_t)sizeof(float);
    const char *r = scratch_cname(e, n, DT_FLOAT, col_bytes);
    println(e, "conv_weight_reorder_f32(%lld, %lld, %lld, %lld, %s, %s);", (long long)s->OC,
            (long long)s->Cg, (long long)w->kh, (long long)w->kw, value_cname(e, wt), r);
    return r;
}

void conv_emit(Emitter *e, Node *n)
{
    ConvShape s = conv_shape(n);
    const Window *w = &s.w;
    const char *wr = conv_weights(e, n, &s);
    const char *x = value_cname(e, n->inputs[0]), *y = value_cname(e, n->outputs[0]);
    long long HW = (long long)(w->h * w->w);
    println(e, "for (int64_t n = 0; n < %lld; n++) {", (long long)s.N);
    e->indent++;
    println(e, "for (int64_t g = 0; g < %lld; g++) {", (long long)s.G);
    e->indent++;
    const char *col;
    if (conv_is_pointwise(&s)) {
        col = xprintf("%s + (n * %lld + g * %lld) * %lld", x, (long long)s.C, (long long)s.Cg, HW);
    } else {
        col = scratch_cname(e, n, DT_FLOAT, 0);
        println(e,
                "im2col_f32(%lld, %lld, %lld, g * %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, "
                "%lld, %lld, %lld, %lld, %s + n * %lld, %s);",
                (long long)s.C, (long long)w->h, (long long)w->w, (long long)s.Cg,
                (long long)s.Cg, (long long)w->kh, (long long)w->kw, (long long)w->oh,
                (long long)w->ow, (long long)w->sh, (long long)w->sw, (long long)w->pt,
                (long long)w->pl, (long long)w->dh, (long long)w->dw, x, (long long)s.C * HW, col);
    }
    emit_product(e, s.OCg, s.P, s.K, xprintf("%s + g * %lld", wr, (long long)(s.OCg * s.K)), s.K,
                 1, col, s.P, 1,
                 xprintf("%s + (n * %lld + g * %lld) * %lld", y, (long long)s.OC, (long long)s.OCg,
                         (long long)s.P));
    e->indent--;
    println(e, "}");
    e->indent--;
    println(e, "}");
    Value *b = node_input(n, 2);
    if (b)
        println(e, "add_channel_bias_f32(%lld, %lld, %lld, %s, %s);", (long long)s.N,
                (long long)s.OC, (long long)s.P, value_cname(e, b), y);
    emit_epilogues(e, n);
}

double conv_flops(const Node *n)
{
    ConvShape s = conv_shape(n);
    return 2.0 * (double)s.N * (double)s.OC * (double)s.P * (double)s.K;
}

/* ---- MaxPool, AveragePool ---- */

static Window pool_window(const Node *n)
{
    const Value *x = n->inputs[0];
    int sp = x->rank - 2;
    const int64_t *k;
    if (attr_ints(n, "kernel_shape", &k) != sp)
        fatal_at(n, "kernel_shape must have %d values", sp > 0 ? sp : 1);
    return window_geometry(n, x, sp == 2 ? k[0] : 1, k[sp - 1]);
}

void pool_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_float(n, x);
    if (n->noutputs > 1)
        fatal_at(n, "the Indices output is not supported");
    if (attr_int(n, "storage_order", 0) != 0)
        fatal_at(n, "storage_order=1 is not supported");
    if (x->rank < 3)
        fatal_at(n, "input must have rank 3 or 4");
    Window w = pool_window(n);
    set_window_output(n, x, x->dims[1], &w);
}

void pool_emit(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0];
    Window w = pool_window(n);
    bool is_max = !strcmp(n->op_type, "MaxPool");
    const char *extra =
        is_max ? "" : xprintf(" %d,", attr_int(n, "count_include_pad", 0) != 0 ? 1 : 0);
    println(e,
            "%s(%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, "
            "%lld, %lld,%s %s, %s);",
            is_max ? "maxpool_f32" : "avgpool_f32", (long long)(x->dims[0] * x->dims[1]),
            (long long)w.h, (long long)w.w, (long long)w.oh, (long long)w.ow, (long long)w.kh,
            (long long)w.kw, (long long)w.sh, (long long)w.sw, (long long)w.pt, (long long)w.pl,
            (long long)w.pb, (long long)w.pr, (long long)w.dh, (long long)w.dw, extra,
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}

/* ---- GlobalAveragePool ---- */

void global_pool_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_float(n, x);
    if (x->rank < 3)
        fatal_at(n, "input must have rank 3 or more");
    int64_t dims[MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        dims[i] = i < 2 ? x->dims[i] : 1;
    set_shape(n->outputs[0], x->dtype, x->rank, dims);
}

void global_pool_emit(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0];
    int64_t hw = 1;
    for (int i = 2; i < x->rank; i++)
        hw *= x->dims[i];
    println(e, "global_avgpool_f32(%lld, %lld, %s, %s);", (long long)(x->dims[0] * x->dims[1]),
            (long long)hw, value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
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

void batchnorm_infer(Node *n)
{
    if (attr_int(n, "training_mode", 0) != 0)
        fatal_at(n, "training_mode=1 is not supported");
    if (n->opset < 9 && attr_int(n, "spatial", 1) != 1)
        fatal_at(n, "spatial=0 is not supported");
    for (int i = 1; i < n->noutputs; i++)
        if (n->outputs[i]->name[0])
            fatal_at(n, "training outputs (running mean/var) are not supported");
    int64_t N, C, HW;
    batchnorm_geometry(n, &N, &C, &HW);
    for (int i = 0; i < 5; i++) {
        require_float(n, n->inputs[i]);
        if (i && (n->inputs[i]->rank != 1 || n->inputs[i]->dims[0] != C))
            fatal_at(n, "input %d must have shape [%lld]", i, (long long)C);
    }
    same_shape_infer(n);
}

void batchnorm_fold(Node *n)
{
    int64_t N, C, HW;
    batchnorm_geometry(n, &N, &C, &HW);
    batchnorm_f32(N, C, HW, n->inputs[0]->data, n->inputs[1]->data, n->inputs[2]->data,
                  n->inputs[3]->data, n->inputs[4]->data, attr_float(n, "epsilon", 1e-5f),
                  n->outputs[0]->data);
}

void batchnorm_emit(Emitter *e, Node *n)
{
    int64_t N, C, HW;
    batchnorm_geometry(n, &N, &C, &HW);
    println(e, "batchnorm_f32(%lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s);", (long long)N,
            (long long)C, (long long)HW, value_cname(e, n->inputs[0]),
            value_cname(e, n->inputs[1]), value_cname(e, n->inputs[2]),
            value_cname(e, n->inputs[3]), value_cname(e, n->inputs[4]),
            c_float(attr_float(n, "epsilon", 1e-5f)), value_cname(e, n->outputs[0]));
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
    require_float(n, n->inputs[0]);
    int64_t o, l, i;
    softmax_geometry(n, &o, &l, &i);
    same_shape_infer(n);
}

void softmax_fold(Node *n)
{
    int64_t o, l, i;
    softmax_geometry(n, &o, &l, &i);
    if (!strcmp(n->op_type, "Softmax"))
        softmax_f32(o, l, i, n->inputs[0]->data, n->outputs[0]->data);
    else
        logsoftmax_f32(o, l, i, n->inputs[0]->data, n->outputs[0]->data);
}

void softmax_emit(Emitter *e, Node *n)
{
    int64_t o, l, i;
    softmax_geometry(n, &o, &l, &i);
    println(e, "%s(%lld, %lld, %lld, %s, %s);",
            !strcmp(n->op_type, "Softmax") ? "softmax_f32" : "logsoftmax_f32", (long long)o,
            (long long)l, (long long)i, value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}
