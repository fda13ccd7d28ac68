/* conv.c — convolution, transposed convolution and pooling (BatchNormalization and Softmax:
 * normalize.c).
 *
 * Conv sums over K = kernel taps x input channels per output element, taps outer, channels
 * inner (templates/conv.c). Four kernels give those bits, none makes an im2col copy:
 *   - one input channel per group (depthwise, 1-D and 2-D): depthwise_conv_f32;
 *   - 1x1, unit strides, no padding: conv_pointwise_f32, a product on the tensor itself;
 *   - other 2-D and 1-D convs (strided, dilated, grouped): conv_band_f32, register tiles of 8
 *     output channels x 32 positions of a band of output rows flattened, or of 32 output
 *     channels x 7, 8 or 14 positions of one row (conv_plan picks), over a zero-padded copy of
 *     the band's input (at most CONV_BAND_FLOATS, or one output row's worth);
 *   - 3-D: conv_f32, tiles of 8 output channels x output columns over the few input rows that
 *     one output row reads, gathered per row.
 * They use the weight packed into the tiles' blocks, at compile time when it is constant, and
 * apply the leading Relu, Clip and residual Add epilogues in their tile store. */
#include "kernels.h"
#include "ops.h"

#include <math.h>
#include <string.h>

/* ---- geometry shared by Conv, ConvTranspose and the pools ---- */

/* Spatial geometry of 1..3 spatial dims, stored as 3-D {d, h, w}: fewer dims are the last
 * entries, the leading ones have size, kernel, stride and dilation 1 and no padding. */
typedef struct Window {
    int sp;                     /* number of spatial dims of the model: 1..3 */
    int64_t in[3], k[3], s[3];  /* input size, kernel, strides */
    int64_t d[3], pb[3], pe[3]; /* dilations, pads at the beginning and at the end */
    int64_t out[3];             /* output size */
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
    if (s <= 0 || k <= 0 || d <= 0)
        fatal_at(n, "kernel, strides and dilations must be positive");
    int64_t span = checked_add(n, checked_mul(n, d, k - 1), 1);
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

static int spatial_dims(const Node *n, const Value *x)
{
    int sp = x->rank - 2;
    if (sp < 1 || sp > 3)
        fatal_at(n, "only 1-D, 2-D and 3-D inputs are supported (got rank %d)", x->rank);
    return sp;
}

/* Sizes, kernel (sp values), strides, dilations and pads; the output size is left 0. */
static Window window_attrs(const Node *n, const Value *x, const int64_t *kernel)
{
    int sp = spatial_dims(n, x);
    check_ints_len(n, "strides", sp);
    check_ints_len(n, "dilations", sp);
    check_ints_len(n, "pads", 2 * sp);
    Window w = {0};
    w.sp = sp;
    for (int i = 0; i < 3; i++)
        w.in[i] = w.k[i] = w.s[i] = w.d[i] = w.out[i] = 1;
    for (int j = 0, i = 3 - sp; j < sp; j++, i++) {
        w.in[i] = x->dims[2 + j];
        w.k[i] = kernel[j];
        w.s[i] = ints_at(n, "strides", j, 1);
        w.d[i] = ints_at(n, "dilations", j, 1);
        w.pb[i] = ints_at(n, "pads", j, 0);
        w.pe[i] = ints_at(n, "pads", sp + j, 0);
        if (w.pb[i] < 0 || w.pe[i] < 0)
            fatal_at(n, "negative pads are not supported");
        if (w.k[i] <= 0 || w.s[i] <= 0 || w.d[i] <= 0)
            fatal_at(n, "kernel, strides and dilations must be positive");
        /* bounded so that the window arithmetic below cannot overflow */
        int64_t big = (int64_t)1 << 30;
        if (w.k[i] > big || w.s[i] > big || w.d[i] > big || w.pb[i] > big || w.pe[i] > big)
            fatal_at(n, "kernel, strides, dilations and pads above 2^30 are not supported");
    }
    return w;
}

static Window window_geometry(const Node *n, const Value *x, const int64_t *kernel)
{
    Window w = window_attrs(n, x, kernel);
    const char *auto_pad = attr_string(n, "auto_pad", "NOTSET");
    bool ceil_mode = attr_int(n, "ceil_mode", 0) != 0;
    bool same = !strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER");
    if (!same && !strcmp(auto_pad, "VALID")) {
        memset(w.pb, 0, sizeof w.pb);
        memset(w.pe, 0, sizeof w.pe);
    } else if (!same && strcmp(auto_pad, "NOTSET") != 0) {
        fatal_at(n, "auto_pad '%s' is not supported", auto_pad);
    }
    for (int i = 3 - w.sp; i < 3; i++) {
        if (same)
            same_pads(w.in[i], w.k[i], w.s[i], w.d[i], !strcmp(auto_pad, "SAME_UPPER"), &w.pb[i],
                      &w.pe[i]);
        w.out[i] =
            out_size(n, w.in[i], w.k[i], w.s[i], w.d[i], w.pb[i] + w.pe[i], ceil_mode, w.pb[i]);
    }
    return w;
}

static void set_window_output(Value *y, DType t, const Value *x, int64_t channels, const Window *w)
{
    int64_t dims[5] = {x->dims[0], channels};
    for (int j = 0; j < w->sp; j++)
        dims[2 + j] = w->out[3 - w->sp + j];
    set_shape(y, t, x->rank, dims);
}

static int64_t window_in_size(const Window *w)
{
    return w->in[0] * w->in[1] * w->in[2];
}

static int64_t window_out_size(const Window *w)
{
    return w->out[0] * w->out[1] * w->out[2];
}

/* The geometry arrays of the N-d kernels, as static arrays in the emitted code. */
typedef struct WindowArrays {
    const char *in, *out, *k, *s, *pads, *d;
} WindowArrays;

static WindowArrays emit_window(Emitter *e, const Window *w)
{
    int64_t pads[6] = {w->pb[0], w->pb[1], w->pb[2], w->pe[0], w->pe[1], w->pe[2]};
    WindowArrays a;
    a.in = emit_dims(e, 3, w->in);
    a.out = emit_dims(e, 3, w->out);
    a.k = emit_dims(e, 3, w->k);
    a.s = emit_dims(e, 3, w->s);
    a.pads = emit_dims(e, 6, pads);
    a.d = emit_dims(e, 3, w->d);
    return a;
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
    int sp = spatial_dims(n, x);
    check_ints_len(n, "kernel_shape", sp);
    for (int j = 0; j < sp; j++)
        if (ints_at(n, "kernel_shape", j, wt->dims[2 + j]) != wt->dims[2 + j])
            fatal_at(n, "kernel_shape disagrees with the weight's shape");
    s.w = window_geometry(n, x, wt->dims + 2);
    s.K = checked_mul(n, checked_mul(n, checked_mul(n, s.w.k[0], s.w.k[1]), s.w.k[2]), s.Cg);
    s.P = checked_mul(n, checked_mul(n, s.w.out[0], s.w.out[1]), s.w.out[2]);
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
    set_window_output(n->outputs[0], DT_FLOAT, n->inputs[0], s.OC, &s.w);
}

/* A 1x1 kernel with unit strides and no padding: a product on the input as it is. */
static bool conv_is_pointwise(const ConvShape *s)
{
    const Window *w = &s->w;
    for (int i = 0; i < 3; i++)
        if (w->k[i] != 1 || w->s[i] != 1 || w->pb[i] || w->pe[i])
            return false;
    return true;
}

/* One input channel per group, 1-D or 2-D: the direct loop (the same bits without OC tiny
 * products; with a 1x1 kernel too). Not a single input channel with 16 or more outputs
 * (DS-CNN's first conv, 1 -> 64): the dense kernels' tiles of 8 output channels use each
 * input load 8 times (measured 1.5x faster there). */
static bool conv_is_depthwise(const ConvShape *s)
{
    return s->Cg == 1 && s->w.sp <= 2 && !(s->G == 1 && s->OCg >= 16);
}

static int64_t depthwise_floats(const Node *n, const ConvShape *s)
{
    /* bounds depthwise_work_floats (phase planes and grid) with checked arithmetic */
    const Window *w = &s->w;
    int64_t rows = checked_add(n, w->out[1], checked_mul(n, w->k[1] - 1, w->d[1]));
    int64_t cols = checked_add(n, w->out[2], checked_mul(n, w->k[2] - 1, w->d[2]));
    /* a group's grid: one channel's slot, or up to 2048 floats of slots; rounded to blocks */
    int64_t grid = checked_add(n, checked_mul(n, rows, cols), 16 + 2048 + 128);
    checked_mul(n, checked_add(n, checked_mul(n, w->s[1], w->s[2]), 1), checked_mul(n, grid, 2));
    return depthwise_work_floats(s->C, s->OCg, w->k[1], w->k[2], w->out[1], w->out[2], w->s[1],
                                 w->s[2], w->d[1], w->d[2]);
}

/* Floats of conv_f32's work memory (the input rows of one output row), overflow-checked. */
static int64_t conv_rows(const Node *n, const ConvShape *s)
{
    const Window *w = &s->w;
    int64_t len = checked_add(n, checked_add(n, w->out[2], 15),
                              checked_mul(n, w->k[2] - 1, w->d[2])); /* >= conv_row_len */
    checked_mul(n, checked_mul(n, checked_mul(n, w->k[0], w->k[1]), s->Cg),
                checked_mul(n, w->s[2], len));
    return conv_work_floats(s->Cg, w->k, w->out, w->s, w->d);
}

/* Band work memory up to the larger of conv_f32's rows and this many floats (256 KiB: the
 * plane stays in L2 while every block of output channels reads it), and never more than the
 * input of one group, or twice that from 64 KiB of input: the arena stays within the
 * node-order bound on small models (twice the input took resnet_block over it), and a 7x7
 * output with 512 channels gets one band of 7 rows, 2 tiles (measured 1.5x faster than its
 * bands of 3 rows). */
#define CONV_BAND_FLOATS 65536

static int64_t conv_band_floats(const ConvShape *s, int64_t R)
{
    const Window *w = &s->w;
    return conv_band_work_floats(s->Cg, w->k[1], w->k[2], w->out[2], w->s[1], w->s[2], w->d[1],
                                 w->d[2], R);
}

/* Under a scratch budget (plan_arena) a band plane takes at most the budget: bands of fewer
 * rows, or conv_f32 when its rows are smaller than a band of one row. When neither fits, the
 * bound is out of reach and the plane stays as it is (smaller ones cost time for nothing).
 * (A weight packed at run time is not counted: rare, and then the arena only stays above the
 * bound by it.) */
static int64_t conv_within_budget(const Node *n, const ConvShape *s, int64_t limit)
{
    int64_t budget = n->scratch_budget / (int64_t)sizeof(float);
    if (!budget || limit <= budget)
        return limit;
    int64_t least = conv_band_floats(s, 1), rows = conv_rows(n, s);
    if (rows < least)
        least = rows;
    return budget >= least ? budget : limit;
}

/* The most floats a band plane may take (see above), 0 when the conv does not run on bands:
 * only 2-D and 1-D ones do (strided 1x1 convs too: their plane keeps one phase of the input,
 * and the channel-vector tiles ran ResNet-18's 1.2x-2.5x faster than conv_f32). */
static int64_t conv_band_limit(const Node *n, const ConvShape *s)
{
    const Window *w = &s->w;
    if (w->in[0] != 1 || w->k[0] != 1 || w->out[0] != 1)
        return 0;
    /* overflow check of the largest band: every term of conv_band_work_floats at R = OH */
    int64_t wq = checked_add(n, w->out[2], checked_mul(n, w->k[2] - 1, w->d[2]) / w->s[2]);
    int64_t rows = checked_add(n, w->out[1], checked_mul(n, w->k[1] - 1, w->d[1]) / w->s[1]);
    checked_add(n,
                checked_mul(n, checked_mul(n, checked_mul(n, w->s[1], w->s[2]), s->Cg),
                            checked_mul(n, rows, wq)),
                32);
    int64_t limit = conv_rows(n, s), input = checked_mul(n, s->Cg, window_in_size(w));
    if (input >= CONV_BAND_FLOATS / 4)
        input = checked_mul(n, input, 2); /* large layers: the arena is far from the bound */
    int64_t cap = input < CONV_BAND_FLOATS ? input : CONV_BAND_FLOATS;
    return conv_within_budget(n, s, cap > limit ? cap : limit);
}

/* Tiles of conv_band_f32 over the whole output with bands of R rows. */
static int64_t conv_band_tiles(const Window *w, int64_t R)
{
    const int64_t wq = conv_band_width(w->out[2], w->k[2], w->s[2], w->d[2]);
    int64_t tiles = 0;
    for (int64_t oh0 = 0; oh0 < w->out[1]; oh0 += R) {
        int64_t rb = w->out[1] - oh0 < R ? w->out[1] - oh0 : R;
        tiles += ((rb - 1) * wq + w->out[2] + 31) / 32;
    }
    return tiles;
}

/* How the (non-depthwise) conv runs: its kernel, rows per band, and the output channels per
 * block of its packed weight. */
typedef enum { CONV_ROWS, CONV_POINTWISE, CONV_BAND } ConvKernel;

typedef struct ConvPlan {
    ConvKernel kernel;
    int64_t R;  /* rows per band (CONV_BAND) */
    int64_t ob; /* output channels per weight block: CONVC_OB for channel-vector band tiles */
} ConvPlan;

/* Pointwise for a 1x1 kernel with unit strides and no padding. Else, when the band of one row
 * fits the limit, conv_band_f32: with its 8x32 tiles on the bands that need the fewest tiles
 * (fewest dropped positions), then the largest; or, where the share of computed lanes they
 * keep is larger, with its channel-vector tiles (32 channels x 7, 8 or 14 positions of a row)
 * on bands as large as fit (on ResNet-18's 7x7, 14x14 and 28x28 outputs they measured 1.6x,
 * 1.15x and 1.1x faster, 1.03x on 56x56; 1.5x slower on 16-channel layers). Else conv_f32
 * (3-D convs). */
static ConvPlan conv_plan(const Node *n, const ConvShape *s)
{
    const Window *w = &s->w;
    ConvPlan p = {CONV_ROWS, 0, CONV_OB};
    if (conv_is_pointwise(s)) {
        p.kernel = CONV_POINTWISE;
        return p;
    }
    int64_t limit = conv_band_limit(n, s), best_tiles = 0, largest = 0;
    for (int64_t R = 1; limit && R <= w->out[1] && conv_band_floats(s, R) <= limit; R++) {
        int64_t tiles = conv_band_tiles(w, R);
        if (!p.R || tiles <= best_tiles) {
            p.R = R;
            best_tiles = tiles;
        }
        largest = R;
    }
    if (!p.R)
        return p;
    p.kernel = CONV_BAND;
    const int64_t OH = w->out[1], OW = w->out[2], J = conv_chan_positions(OW);
    double band = (double)(OH * OW) / (double)(best_tiles * 32) * (double)s->OCg /
                  (double)((s->OCg + CONV_OB - 1) / CONV_OB * CONV_OB);
    double chan = (double)OW / (double)((OW + J - 1) / J * J) * (double)s->OCg /
                  (double)((s->OCg + CONVC_OB - 1) / CONVC_OB * CONVC_OB);
    if (chan > band) {
        p.R = largest;
        p.ob = CONVC_OB;
    }
    return p;
}

/* Floats of the weight in the plan's blocks. The blocks round OCg up to a multiple of a few
 * channels; the check bounds that with 64, more than a block holds. */
static int64_t conv_packed(const Node *n, const ConvShape *s, const ConvPlan *p)
{
    checked_mul(n, checked_mul(n, s->G, checked_add(n, s->OCg, 64)), s->K);
    return conv_packed_floats(s->G, s->OCg, s->Cg, s->K / s->Cg, p->ob);
}

/* Floats of the work memory of the kernel that runs the (non-depthwise) conv. */
static int64_t conv_work(const Node *n, const ConvShape *s, const ConvPlan *p)
{
    if (p->kernel == CONV_POINTWISE) {
        checked_mul(n, s->Cg, 32);
        return conv_pointwise_work_floats(s->Cg, s->P);
    }
    return p->R ? conv_band_floats(s, p->R) : conv_rows(n, s);
}

/* A pointwise conv of one image at one pixel against a constant weight: conv_emit_gemv's
 * GEMV (emit_gemv_const), which needs no work memory. */
static bool conv_is_gemv(const Node *n, const ConvShape *s)
{
    return conv_is_pointwise(s) && s->N == 1 && s->P == 1 && s->G == 1 && n->inputs[1]->data &&
           gemv_const(1, s->OC, s->C);
}

/* Bytes of the work memory the conv runs fastest with: the depthwise kernel's padded plane;
 * else the band plane, conv_f32's input rows or conv_pointwise_f32's last tile (when the
 * output has fewer pixels than one tile), then the packed weight when it is computed at run
 * time. */
static int64_t conv_work_bytes(const Node *n, const ConvShape *s)
{
    if (conv_is_depthwise(s))
        return checked_mul(n, depthwise_floats(n, s), (int64_t)sizeof(float));
    ConvPlan p = conv_plan(n, s);
    int64_t floats = conv_work(n, s, &p);
    if (!n->inputs[1]->data)
        floats = checked_add(n, floats, conv_packed(n, s, &p));
    return checked_mul(n, floats, (int64_t)sizeof(float));
}

/* conv_direct_f32, which needs no work memory, where the scratch budget (plan_arena) holds
 * none: the arena is then at the node-order bound with the tensors alone. (Under a budget
 * conv_plan has already picked the smallest band plane or conv_f32's rows if one fits.) Not
 * for a depthwise conv writing y over x, nor for a weight computed at run time (packing it
 * needs memory): those keep their work memory. */
static bool conv_runs_direct(const Node *n, const ConvShape *s)
{
    return n->scratch_budget && conv_work_bytes(n, s) > n->scratch_budget &&
           n->inputs[1]->data && /* its weight packed at compile time */
           !n->output_in_place;  /* conv_direct_f32 must not overlap x */
}

static const char *conv_tile_epilogue(Emitter *e, const Epilogue *ep, const Value *y);

/* 1 + the input whose buffer y may take when it dies at the conv's step (plan_arena, flag
 * OP_CONV_IN_PLACE), 0 for none:
 *   - x, for a depthwise conv with one output per channel: depthwise_conv_f32 copies each
 *     group of input channels into its planes before it stores the group's outputs, which
 *     are those channels (conv_runs_direct keeps it off conv_direct_f32, which is not so);
 *   - the residual r of an Add that the dense kernels apply in their tile store, which read
 *     each r[i] before they write y[i] (templates/conv.c conv_store_epilogues_f32), when no
 *     other epilogue and none of the conv's own operands reads r. */
int conv_in_place_input(const Node *n)
{
    if (n->channels_last)
        return 0; /* not these kernels */
    ConvShape s = conv_shape(n);
    if (conv_is_depthwise(&s))
        return s.OCg == 1 ? 1 : 0;
    if (conv_is_gemv(n, &s))
        return 0; /* its epilogues are passes */
    const int k = conv_tile_epilogue_count(n);
    for (int e = 0; e < k; e++) {
        const Epilogue *ep = &n->epilogue[e];
        if (strcmp(ep->node->op_type, "Add"))
            continue;
        const Value *r = ep->node->inputs[1 - ep->input];
        int reads = 0;
        for (int f = 0; f < n->nepilogue; f++)
            for (int i = 0; i < n->epilogue[f].node->ninputs; i++)
                reads += i != n->epilogue[f].input && n->epilogue[f].node->inputs[i] == r;
        for (int i = 0; i < 3 && i < n->ninputs; i++)
            reads += n->inputs[i] == r;
        for (int i = 3; i < n->ninputs && reads == 1; i++)
            if (n->inputs[i] == r)
                return i + 1;
    }
    return 0;
}

int64_t conv_scratch(const Node *n)
{
    ConvShape s = conv_shape(n);
    if (conv_is_gemv(n, &s) || conv_runs_direct(n, &s))
        return 0;
    return conv_work_bytes(n, &s);
}

/* The weight in the plan's blocks, packed at compile time when it is constant. */
static const char *conv_packed_weights(Emitter *e, Node *n, const ConvShape *s, const ConvPlan *p)
{
    Value *wt = n->inputs[1];
    int64_t taps = s->K / s->Cg, floats = conv_packed(n, s, p);
    if (wt->data) {
        float *w = xcalloc((size_t)floats + 1, sizeof(float));
        conv_weight_pack_f32(s->G, s->OCg, s->Cg, taps, p->ob, wt->data, w);
        return emit_constant(e, DT_FLOAT, 1, &floats, w);
    }
    const char *w = scratch_cname(e, n, DT_FLOAT, conv_work(n, s, p) * (int64_t)sizeof(float));
    println(e, "conv_weight_pack_f32(%lld, %lld, %lld, %lld, %lld, %s, %s);", (long long)s->G,
            (long long)s->OCg, (long long)s->Cg, (long long)taps, (long long)p->ob,
            value_cname(e, wt), w);
    return w;
}

/* ---- epilogues in the tile store ---- */

/* The fused ops the dense kernels apply to each stored run (templates/conv.c ConvEpilogue),
 * by op type, with the C initializer of their ConvEpilogue; the others run as passes. */
static const struct {
    const char *op;
    const char *code;
} conv_tile_ops[] = {{"Relu", "CONV_EP_RELU"},
                     {"Clip", "CONV_EP_CLIP"},
                     {"Add", "CONV_EP_ADD"},
                     {"Swish", "CONV_EP_SWISH"},
                     {"HardSwish", "CONV_EP_HARD_SWISH"}};

/* A Clip bound as a C float: input `input` (opset 11+) or attribute `attr`; NULL when it is
 * read at run time (that Clip stays a pass). */
static const char *clip_tile_bound(const Node *u, int input, const char *attr, float dflt)
{
    if (u->opset < 11)
        return c_float(attr_float(u, attr, dflt));
    const Value *v = node_input(u, input);
    if (!v)
        return c_float(dflt);
    if (!v->data || v->dtype != DT_FLOAT || value_numel(v) != 1)
        return NULL;
    return c_float(*(const float *)v->data);
}

/* The ConvEpilogue initializer of epilogue ep of a conv with output y, or NULL when the
 * kernels cannot apply it: an Add's other operand must have y's shape (a broadcast one stays
 * a pass). With e NULL, only whether they can (the text names no C value). */
static const char *conv_tile_epilogue(Emitter *e, const Epilogue *ep, const Value *y)
{
    Node *u = ep->node;
    const char *code = NULL;
    for (size_t i = 0; i < sizeof conv_tile_ops / sizeof conv_tile_ops[0]; i++)
        if (!strcmp(u->op_type, conv_tile_ops[i].op))
            code = conv_tile_ops[i].code;
    if (!code || u->outputs[0]->dtype != DT_FLOAT)
        return NULL;
    if (!strcmp(code, "CONV_EP_CLIP")) {
        const char *lo = clip_tile_bound(u, 1, "min", -INFINITY);
        const char *hi = clip_tile_bound(u, 2, "max", INFINITY);
        return lo && hi ? xprintf("{%s, 0, %s, %s, NULL}", code, lo, hi) : NULL;
    }
    if (!strcmp(code, "CONV_EP_SWISH"))
        return xprintf("{%s, 0, %s, 0.0f, NULL}", code, c_float(attr_float(u, "alpha", 1.0f)));
    if (!strcmp(code, "CONV_EP_ADD")) {
        Value *r = u->inputs[1 - ep->input];
        if (r->dtype != DT_FLOAT || r->rank != y->rank ||
            memcmp(r->dims, y->dims, sizeof(int64_t) * (size_t)y->rank))
            return NULL;
        return xprintf("{%s, %d, 0.0f, 0.0f, %s}", code, ep->input == 1,
                       e ? value_cname(e, r) : "r");
    }
    return xprintf("{%s, 0, 0.0f, 0.0f, NULL}", code);
}

int conv_tile_epilogue_count(const Node *n)
{
    int k = 0;
    while (k < n->nepilogue && conv_tile_epilogue(NULL, &n->epilogue[k], n->outputs[0]))
        k++;
    return k;
}

/* Emits the array of n's leading epilogues that the kernel applies in its tile store and
 * returns its C name ("NULL" when there are none); *count gets their number. */
const char *conv_tile_epilogues(Emitter *e, Node *n, int *count)
{
    const char *init[MAX_EPILOGUE];
    int k = 0;
    while (k < n->nepilogue && (init[k] = conv_tile_epilogue(e, &n->epilogue[k], n->outputs[0])))
        k++;
    *count = k;
    if (!k)
        return "NULL";
    const char *name = xprintf("ep%d", e->counter++);
    for (int i = 0; i < k; i++)
        println(e, "/* epilogue: %s '%s' */", n->epilogue[i].node->op_type,
                comment_text(n->epilogue[i].node->name));
    fprintf(e->out, "%*sconst struct ConvEpilogue %s[] = {", 4 * e->indent, "", name);
    for (int i = 0; i < k; i++)
        fprintf(e->out, "%s%s", i ? ", " : "", init[i]);
    fprintf(e->out, "};\n");
    return name;
}

/* A pointwise conv of one image at one pixel (squeeze-excite blocks: 1x1 convs after a
 * GlobalAveragePool) against a constant weight is a GEMV, y[OC] = W[OC][C] x x[C]: the packed
 * GEMV (emit_gemv_const, weight packed at compile time) instead of 8x32 tiles of which one
 * position is live; then the bias, as conv_pointwise_f32 adds it (acc + bias[oc]). */
static bool conv_emit_gemv(Emitter *e, Node *n, const ConvShape *s)
{
    Value *wt = n->inputs[1], *b = node_input(n, 2);
    if (!conv_is_gemv(n, s))
        return false;
    const char *y = value_cname(e, n->outputs[0]);
    if (!emit_gemv_const(e, 1, s->OC, s->C, value_cname(e, n->inputs[0]), 1, wt->data, 1, s->C, y,
                         NULL))
        return false;
    if (b)
        println(e, "add_channel_bias_f32(1, %lld, 1, %s, %s);", (long long)s->OC, value_cname(e, b),
                y);
    return true;
}

/* Conv directly on the input (conv_band_f32, conv_f32, or conv_pointwise_f32 for a 1x1 kernel with
 * unit strides and no padding), with the bias and the leading tile-store epilogues applied by the
 * kernel; returns how many epilogues it applied. */
static int conv_emit_direct(Emitter *e, Node *n, const ConvShape *s)
{
    if (conv_emit_gemv(e, n, s))
        return 0;
    ConvPlan p = conv_plan(n, s);
    const char *wp = conv_packed_weights(e, n, s, &p);
    Value *b = node_input(n, 2);
    int nep;
    const char *ep = conv_tile_epilogues(e, n, &nep);
    const char *x = value_cname(e, n->inputs[0]), *y = value_cname(e, n->outputs[0]);
    const char *bias = b ? value_cname(e, b) : "NULL", *work = scratch_cname(e, n, DT_FLOAT, 0);
    if (p.kernel == CONV_POINTWISE) {
        println(e, "conv_pointwise_f32(%lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s, %d, %s, %s);",
                (long long)s->N, (long long)s->C, (long long)s->G, (long long)s->OCg,
                (long long)s->P, x, wp, bias, ep, nep, y, work);
        return nep;
    }
    if (p.R) {
        const Window *w = &s->w;
        println(e,
                "conv_band_f32(%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, "
                "%lld, %lld, %lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s, %d, %s, %s);",
                (long long)s->N, (long long)s->C, (long long)s->G, (long long)s->OCg,
                (long long)w->in[1], (long long)w->in[2], (long long)w->k[1], (long long)w->k[2],
                (long long)w->out[1], (long long)w->out[2], (long long)w->s[1], (long long)w->s[2],
                (long long)w->pb[1], (long long)w->pb[2], (long long)w->d[1], (long long)w->d[2],
                (long long)p.R, (long long)p.ob, x, wp, bias, ep, nep, y, work);
        return nep;
    }
    WindowArrays a = emit_window(e, &s->w);
    println(e,
            "conv_f32(%lld, %lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %s);",
            (long long)s->N, (long long)s->C, (long long)s->G, (long long)s->OCg, a.in, a.out, a.k,
            a.s, a.pads, a.d, x, wp, bias, ep, nep, y, work);
    return nep;
}

static void conv_emit_depthwise(Emitter *e, Node *n, const ConvShape *s)
{
    const Window *w = &s->w;
    println(e,
            "depthwise_conv_f32(%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, "
            "%lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s, %s);",
            (long long)s->N, (long long)s->C, (long long)s->OCg, (long long)w->in[1],
            (long long)w->in[2], (long long)w->k[1], (long long)w->k[2], (long long)w->out[1],
            (long long)w->out[2], (long long)w->s[1], (long long)w->s[2], (long long)w->pb[1],
            (long long)w->pb[2], (long long)w->d[1], (long long)w->d[2],
            value_cname(e, n->inputs[0]), value_cname(e, n->inputs[1]),
            node_input(n, 2) ? value_cname(e, node_input(n, 2)) : "NULL",
            value_cname(e, n->outputs[0]), scratch_cname(e, n, DT_FLOAT, 0));
}

/* conv_direct_f32 on the weight packed at compile time; returns how many epilogues it
 * applied. */
static int conv_emit_nowork(Emitter *e, Node *n, const ConvShape *s)
{
    const ConvPlan p = {CONV_ROWS, 0, CONV_OB};
    const char *wp = conv_packed_weights(e, n, s, &p);
    Value *b = node_input(n, 2);
    int nep;
    const char *ep = conv_tile_epilogues(e, n, &nep);
    WindowArrays a = emit_window(e, &s->w);
    println(e,
            "conv_direct_f32(%lld, %lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %d, "
            "%s); /* no work memory: the scratch budget holds none */",
            (long long)s->N, (long long)s->C, (long long)s->G, (long long)s->OCg, a.in, a.out, a.k,
            a.s, a.pads, a.d, value_cname(e, n->inputs[0]), wp, b ? value_cname(e, b) : "NULL", ep,
            nep, value_cname(e, n->outputs[0]));
    return nep;
}

void conv_emit(Emitter *e, Node *n)
{
    ConvShape s = conv_shape(n);
    int applied = 0;
    if (conv_runs_direct(n, &s) && !conv_is_gemv(n, &s))
        applied = conv_emit_nowork(e, n, &s);
    else if (conv_is_depthwise(&s))
        conv_emit_depthwise(e, n, &s);
    else
        applied = conv_emit_direct(e, n, &s);
    emit_epilogues_from(e, n, applied);
}

double conv_flops(const Node *n)
{
    ConvShape s = conv_shape(n);
    return 2.0 * (double)s.N * (double)s.OC * (double)s.P * (double)s.K;
}

/* ---- ConvTranspose ---- */

/* Python's floor division, for pads computed from a given output shape (may be negative). */
static int64_t floor_div2(int64_t a)
{
    return a >= 0 ? a / 2 : -((-a + 1) / 2);
}

typedef struct ConvTShape {
    int64_t N, C, OC, G, OCg;
    Window w; /* in = input, out = output, pb = leading pads (may be negative) */
} ConvTShape;

static ConvTShape convtranspose_shape(const Node *n)
{
    const Value *x = n->inputs[0], *wt = n->inputs[1];
    if (wt->rank != x->rank)
        fatal_at(n, "weight rank %d differs from input rank %d", wt->rank, x->rank);
    ConvTShape s = {0};
    s.N = x->dims[0];
    s.C = x->dims[1];
    s.G = attr_int(n, "group", 1);
    if (s.G <= 0 || s.C % s.G)
        fatal_at(n, "group %lld does not divide %lld input channels", (long long)s.G,
                 (long long)s.C);
    if (wt->dims[0] != s.C)
        fatal_at(n, "weight has %lld input channels, input gives %lld", (long long)wt->dims[0],
                 (long long)s.C);
    s.OCg = wt->dims[1];
    s.OC = checked_mul(n, s.G, s.OCg);
    int sp = spatial_dims(n, x);
    check_ints_len(n, "kernel_shape", sp);
    for (int j = 0; j < sp; j++)
        if (ints_at(n, "kernel_shape", j, wt->dims[2 + j]) != wt->dims[2 + j])
            fatal_at(n, "kernel_shape disagrees with the weight's shape");
    check_ints_len(n, "output_padding", sp);
    Window w = window_attrs(n, x, wt->dims + 2);
    const char *auto_pad = attr_string(n, "auto_pad", "NOTSET");
    bool same = !strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER");
    bool upper = !strcmp(auto_pad, "SAME_UPPER");
    if (!same && strcmp(auto_pad, "NOTSET") && strcmp(auto_pad, "VALID"))
        fatal_at(n, "auto_pad '%s' is not supported", auto_pad);
    const int64_t *os;
    int nos = attr_ints(n, "output_shape", &os);
    if (nos >= 0 && nos != sp && nos != sp + 2)
        fatal_at(n, "attribute 'output_shape' has %d values, expected %d", nos, sp);
    for (int j = 0, i = 3 - sp; j < sp; j++, i++) {
        int64_t op = ints_at(n, "output_padding", j, 0);
        if (op < 0)
            fatal_at(n, "negative output_padding is not supported");
        /* the full extent of the scatter form: s*(in-1) + output_padding + d*(k-1) + 1 */
        int64_t full = checked_add(n, checked_add(n, checked_mul(n, w.s[i], w.in[i] - 1), op),
                                   checked_add(n, checked_mul(n, w.d[i], w.k[i] - 1), 1));
        if (nos >= 0 || same) {
            w.out[i] = nos >= 0 ? os[nos - sp + j] : checked_mul(n, w.in[i], w.s[i]);
            int64_t total = full - w.out[i];
            w.pb[i] = upper ? floor_div2(total) : total - floor_div2(total);
            w.pe[i] = total - w.pb[i];
        } else {
            if (!strcmp(auto_pad, "VALID"))
                w.pb[i] = w.pe[i] = 0;
            w.out[i] = full - w.pb[i] - w.pe[i];
        }
        if (w.out[i] <= 0)
            fatal_at(n, "the output size %lld of spatial dim %d is not positive",
                     (long long)w.out[i], j);
    }
    s.w = w;
    const Value *b = node_input(n, 2);
    if (b && (b->rank != 1 || b->dims[0] != s.OC))
        fatal_at(n, "bias must have shape [%lld]", (long long)s.OC);
    return s;
}

void convtranspose_infer(Node *n)
{
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i])
            require_float(n, n->inputs[i]);
    ConvTShape s = convtranspose_shape(n);
    set_window_output(n->outputs[0], DT_FLOAT, n->inputs[0], s.OC, &s.w);
}

void convtranspose_emit(Emitter *e, Node *n)
{
    ConvTShape s = convtranspose_shape(n);
    WindowArrays a = emit_window(e, &s.w);
    const char *y = value_cname(e, n->outputs[0]);
    println(e, "convtranspose_f32(%lld, %lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s, %s, %s);",
            (long long)s.N, (long long)s.C, (long long)s.G, (long long)s.OCg, a.in, a.out, a.k, a.s,
            a.pads, a.d, value_cname(e, n->inputs[0]), value_cname(e, n->inputs[1]), y);
    Value *b = node_input(n, 2);
    if (b)
        println(e, "add_channel_bias_f32(%lld, %lld, %lld, %s, %s);", (long long)s.N,
                (long long)s.OC, (long long)window_out_size(&s.w), value_cname(e, b), y);
    emit_epilogues(e, n);
}

double convtranspose_flops(const Node *n)
{
    ConvTShape s = convtranspose_shape(n);
    const Window *w = &s.w;
    return 2.0 * (double)s.N * (double)s.C * (double)window_in_size(w) * (double)s.OCg *
           (double)(w->k[0] * w->k[1] * w->k[2]);
}

/* ---- MaxPool, AveragePool, LpPool ---- */

static Window pool_window(const Node *n)
{
    const Value *x = n->inputs[0];
    int sp = spatial_dims(n, x);
    const int64_t *k;
    if (attr_ints(n, "kernel_shape", &k) != sp)
        fatal_at(n, "kernel_shape must have %d values", sp);
    return window_geometry(n, x, k);
}

/* The explicit pads [begin..., end...] that the auto_pad of Conv or pool n stands for (the
 * weight or kernel_shape gives the kernel), for layout_nhwc.c, whose kernels read the pads
 * attribute: SAME_* become the pads this file computes. Returns the spatial dims. */
int window_explicit_pads(const Node *n, int64_t *pads)
{
    const Value *x = n->inputs[0], *wt = node_input(n, 1);
    Window w = wt ? window_geometry(n, x, wt->dims + 2) : pool_window(n);
    for (int j = 0, i = 3 - w.sp; j < w.sp; j++, i++) {
        pads[j] = w.pb[i];
        pads[w.sp + j] = w.pe[i];
    }
    return w.sp;
}

static bool pool_has_indices(const Node *n)
{
    return n->noutputs > 1 && n->outputs[1]->name[0];
}

void pool_infer(Node *n)
{
    const Value *x = n->inputs[0];
    bool int8 = x->dtype == DT_UINT8 || x->dtype == DT_INT8;
    if (!(int8 && !strcmp(n->op_type, "MaxPool") && n->opset >= 12))
        require_float(n, x);
    Window w = pool_window(n);
    int64_t storage_order = attr_int(n, "storage_order", 0);
    if (storage_order != 0 && (storage_order != 1 || w.sp > 2))
        fatal_at(n, "storage_order=%lld is not supported (only 0, or 1 for 1-D and 2-D)",
                 (long long)storage_order);
    if (!strcmp(n->op_type, "LpPool") && attr_int(n, "p", 2) < 1)
        fatal_at(n, "p must be 1 or more (got %lld)", (long long)attr_int(n, "p", 2));
    if (n->noutputs > 1 && strcmp(n->op_type, "MaxPool"))
        fatal_at(n, "only MaxPool has a second output");
    set_window_output(n->outputs[0], x->dtype, x, x->dims[1], &w);
    if (pool_has_indices(n))
        set_window_output(n->outputs[1], DT_INT64, x, x->dims[1], &w);
}

void pool_emit(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0];
    Window w = pool_window(n);
    bool is_max = !strcmp(n->op_type, "MaxPool"), is_lp = !strcmp(n->op_type, "LpPool");
    bool indices = pool_has_indices(n);
    int include_pad = attr_int(n, "count_include_pad", 0) != 0;
    long long NC = (long long)(x->dims[0] * x->dims[1]);
    if (w.sp <= 2 && !is_lp && !indices && x->dtype == DT_FLOAT) {
        const char *extra = is_max ? "" : xprintf(" %d,", include_pad);
        println(e,
                "%s(%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, "
                "%lld, %lld,%s %s, %s);",
                is_max ? "maxpool_f32" : "avgpool_f32", NC, (long long)w.in[1], (long long)w.in[2],
                (long long)w.out[1], (long long)w.out[2], (long long)w.k[1], (long long)w.k[2],
                (long long)w.s[1], (long long)w.s[2], (long long)w.pb[1], (long long)w.pb[2],
                (long long)w.pe[1], (long long)w.pe[2], (long long)w.d[1], (long long)w.d[2], extra,
                value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
        return;
    }
    WindowArrays a = emit_window(e, &w);
    if (is_max)
        println(e, "maxpool_nd_%s(%lld, %s, %s, %s, %s, %s, %s, %d, %s, %s, %s);",
                x->dtype == DT_UINT8  ? "u8"
                : x->dtype == DT_INT8 ? "i8"
                                      : "f32",
                NC, a.in, a.out, a.k, a.s, a.pads, a.d, (int)attr_int(n, "storage_order", 0),
                value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]),
                indices ? value_cname(e, n->outputs[1]) : "NULL");
    else
        println(e, "avgpool_nd_f32(%lld, %s, %s, %s, %s, %s, %s, %d, %lld, %s, %s);", NC, a.in,
                a.out, a.k, a.s, a.pads, a.d, include_pad,
                is_lp ? (long long)attr_int(n, "p", 2) : 0LL, value_cname(e, n->inputs[0]),
                value_cname(e, n->outputs[0]));
}

/* ---- MaxUnpool ---- */

/* dims: the output's shape; unpooled: the shape the indices address (they differ when the
 * output_shape input pads it). */
static void maxunpool_shape(const Node *n, int64_t *dims, int64_t *unpooled)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1], *shape = node_input(n, 2);
    require_float(n, x);
    require_dtype(n, idx, DT_INT64);
    if (idx->rank != x->rank || memcmp(idx->dims, x->dims, sizeof(int64_t) * (size_t)x->rank))
        fatal_at(n, "indices must have the shape of X");
    Window w = pool_window(n);
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (int j = 0, i = 3 - w.sp; j < w.sp; j++, i++)
        dims[2 + j] =
            checked_add(n, checked_mul(n, w.in[i] - 1, w.s[i]), w.k[i]) - w.pb[i] - w.pe[i];
    memcpy(unpooled, dims, sizeof(int64_t) * (size_t)x->rank);
    if (shape) {
        int count;
        int64_t *os = const_ints(n, shape, &count);
        if (count != x->rank)
            fatal_at(n, "output_shape has %d values, expected %d", count, x->rank);
        for (int i = 0; i < count; i++) {
            if (os[i] < unpooled[i])
                fatal_at(n, "output_shape[%d] is %lld, less than the unpooled size %lld", i,
                         (long long)os[i], (long long)unpooled[i]);
            dims[i] = os[i];
        }
    }
}

void maxunpool_infer(Node *n)
{
    int64_t dims[5], unpooled[5];
    maxunpool_shape(n, dims, unpooled);
    set_shape(n->outputs[0], DT_FLOAT, n->inputs[0]->rank, dims);
}

void maxunpool_emit(Emitter *e, Node *n)
{
    int64_t dims[5], unpooled[5];
    int rank = n->inputs[0]->rank;
    maxunpool_shape(n, dims, unpooled);
    println(e, "maxunpool_f32(%lld, %s, %s, %d, %s, %s, %s);", (long long)value_numel(n->inputs[0]),
            value_cname(e, n->inputs[0]), value_cname(e, n->inputs[1]), rank,
            emit_dims(e, rank, unpooled), emit_dims(e, rank, dims), value_cname(e, n->outputs[0]));
}

/* ---- GlobalAveragePool, GlobalMaxPool ---- */

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
    println(e, "%s(%lld, %lld, %s, %s);",
            strcmp(n->op_type, "GlobalMaxPool") ? "global_avgpool_f32" : "global_maxpool_f32",
            (long long)(x->dims[0] * x->dims[1]), (long long)hw, value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}
