/* image.c — sampling and box ops of the signal family: GridSample, AffineGrid, Col2Im,
 * CenterCropPad, RoiAlign, DeformConv, NonMaxSuppression (templates/image.c). */
#include "kernels.h"
#include "ops.h"

#include <string.h>

/* Index of `s` in the NULL-terminated `names`, or a refusal naming the attribute. */
static int attr_choice(const Node *n, const char *attr, const char *dflt, const char *const *names)
{
    const char *s = attr_string(n, attr, dflt);
    for (int i = 0; names[i]; i++)
        if (!strcmp(s, names[i]))
            return i;
    fatal_at(n, "%s '%s' is not supported", attr, s);
}

/* ---- GridSample ---- */

typedef struct GridSampleShape {
    int64_t N, C, P;
    int r;
    int mode, padding, align_corners;
} GridSampleShape;

static GridSampleShape gridsample_shape(const Node *n)
{
    /* opset 16 names the modes bilinear/bicubic, 20 linear/cubic */
    static const char *const modes[] = {"linear", "nearest", "cubic", "bilinear", "bicubic", NULL};
    static const char *const paddings[] = {"zeros", "border", "reflection", NULL};
    const Value *x = n->inputs[0], *g = n->inputs[1];
    GridSampleShape s = {0};
    s.r = x->rank - 2;
    if (s.r < 1 || s.r > 6)
        fatal_at(n, "input X must have rank 3 to 8 (got %d)", x->rank);
    if (g->rank != x->rank || g->dims[0] != x->dims[0] || g->dims[g->rank - 1] != s.r)
        fatal_at(n, "grid must have shape [N, ..., %d] of rank %d", s.r, x->rank);
    s.N = x->dims[0];
    s.C = x->dims[1];
    s.P = 1;
    for (int i = 1; i < g->rank - 1; i++)
        s.P = checked_mul(n, s.P, g->dims[i]);
    int m = attr_choice(n, "mode", n->opset >= 20 ? "linear" : "bilinear", modes);
    s.mode = m == 3 ? 0 : m == 4 ? 2 : m;
    s.padding = attr_choice(n, "padding_mode", "zeros", paddings);
    s.align_corners = attr_int(n, "align_corners", 0) != 0;
    return s;
}

void gridsample_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    require_float(n, n->inputs[1]);
    gridsample_shape(n);
    const Value *x = n->inputs[0], *g = n->inputs[1];
    int64_t dims[MAX_RANK] = {x->dims[0], x->dims[1]};
    for (int i = 1; i < g->rank - 1; i++)
        dims[i + 1] = g->dims[i];
    set_shape(n->outputs[0], DT_FLOAT, x->rank, dims);
}

void gridsample_fold(Node *n)
{
    GridSampleShape s = gridsample_shape(n);
    gridsample_f32(s.N, s.C, s.r, n->inputs[0]->dims + 2, s.P, s.mode, s.padding, s.align_corners,
                   n->inputs[0]->data, n->inputs[1]->data, n->outputs[0]->data);
}

void gridsample_emit(Emitter *e, Node *n)
{
    GridSampleShape s = gridsample_shape(n);
    println(e, "gridsample_f32(%lld, %lld, %d, %s, %lld, %d, %d, %d, %s, %s, %s);", (long long)s.N,
            (long long)s.C, s.r, emit_dims(e, s.r, n->inputs[0]->dims + 2), (long long)s.P, s.mode,
            s.padding, s.align_corners, value_cname(e, n->inputs[0]), value_cname(e, n->inputs[1]),
            value_cname(e, n->outputs[0]));
}

/* ---- NonMaxSuppression (fold only: the output size depends on the data) ---- */

typedef struct NmsArgs {
    int64_t B, C, nbox, max_per_class;
    float iou, score;
    int has_score, center;
} NmsArgs;

static float nms_float_input(const Node *n, int i, float dflt)
{
    const Value *v = node_input(n, i);
    if (!v || !value_numel(v))
        return dflt;
    require_float(n, v);
    return *(const float *)v->data;
}

static NmsArgs nms_args(const Node *n)
{
    const Value *boxes = n->inputs[0], *scores = n->inputs[1];
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i])
            require_constant(n, n->inputs[i], "input");
    require_float(n, boxes);
    require_float(n, scores);
    if (boxes->rank != 3 || boxes->dims[2] != 4 || scores->rank != 3 ||
        scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1])
        fatal_at(n, "boxes must be [B, N, 4] and scores [B, C, N]");
    NmsArgs a = {boxes->dims[0], scores->dims[1], boxes->dims[1], 0, 0.0f, 0.0f, 0, 0};
    const Value *m = node_input(n, 2);
    if (m && value_numel(m)) {
        int count;
        int64_t *v = const_ints(n, m, &count);
        a.max_per_class = v[0] > 0 ? v[0] : 0;
    }
    a.iou = nms_float_input(n, 3, 0.0f);
    const Value *st = node_input(n, 4);
    a.has_score = st && value_numel(st);
    a.score = nms_float_input(n, 4, 0.0f);
    a.center = attr_int(n, "center_point_box", 0) != 0;
    return a;
}

static int64_t nms_run(const Node *n, int64_t *out)
{
    NmsArgs a = nms_args(n);
    int64_t *work = xcalloc((size_t)a.nbox * 2 + 1, sizeof(int64_t));
    return nms_i64(a.B, a.C, a.nbox, n->inputs[0]->data, n->inputs[1]->data, a.max_per_class, a.iou,
                   a.has_score, a.score, a.center, out, work);
}

void nms_infer(Node *n)
{
    int64_t dims[2] = {nms_run(n, NULL), 3};
    set_shape(n->outputs[0], DT_INT64, 2, dims);
}

void nms_fold(Node *n)
{
    nms_run(n, n->outputs[0]->data);
}

/* ---- Col2Im ---- */

/* Geometry as col2im_f32 takes it (6 * r values); r is returned. */
static int col2im_geometry(const Node *n, int64_t *geo)
{
    const Value *x = n->inputs[0];
    int r, rb;
    int64_t *img = const_ints(n, n->inputs[1], &r), *blk = const_ints(n, n->inputs[2], &rb);
    if (r < 1 || r > MAX_RANK - 2 || rb != r)
        fatal_at(n, "image_shape and block_shape must have the same length, 1 to %d", MAX_RANK - 2);
    if (x->rank != 3)
        fatal_at(n, "input must have rank 3 [N, C * prod(block_shape), L]");
    const int64_t *attr[3];
    const char *names[3] = {"strides", "pads", "dilations"};
    for (int i = 0; i < 3; i++) {
        int count = attr_ints(n, names[i], &attr[i]);
        if (count >= 0 && count != (i == 1 ? 2 * r : r))
            fatal_at(n, "attribute '%s' has %d values, expected %d", names[i], count,
                     i == 1 ? 2 * r : r);
        if (count < 0)
            attr[i] = NULL;
    }
    int64_t blk_size = 1, L = 1;
    for (int d = 0; d < r; d++) {
        int64_t st = attr[0] ? attr[0][d] : 1, dil = attr[2] ? attr[2][d] : 1;
        int64_t pb = attr[1] ? attr[1][d] : 0, pe = attr[1] ? attr[1][d + r] : 0;
        if (img[d] < 1 || blk[d] < 1 || st < 1 || dil < 1 || pb < 0 || pe < 0)
            fatal_at(n, "image, block, strides, pads or dilations out of range in dim %d", d);
        int64_t span = checked_add(n, checked_mul(n, dil, blk[d] - 1), 1);
        int64_t nb = (checked_add(n, img[d], pb + pe) - span) / st + 1;
        if (nb < 1)
            fatal_at(n, "no sliding block fits in dim %d", d);
        geo[d] = img[d];
        geo[r + d] = blk[d];
        geo[2 * r + d] = nb;
        geo[3 * r + d] = st;
        geo[4 * r + d] = pb;
        geo[5 * r + d] = dil;
        blk_size = checked_mul(n, blk_size, blk[d]);
        L = checked_mul(n, L, nb);
    }
    if (x->dims[1] % blk_size || x->dims[2] != L)
        fatal_at(n, "input shape does not match %lld blocks of %lld elements", (long long)L,
                 (long long)blk_size);
    return r;
}

void col2im_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_float(n, x);
    int64_t geo[6 * MAX_RANK];
    int r = col2im_geometry(n, geo);
    int64_t dims[MAX_RANK] = {x->dims[0]};
    int64_t blk_size = 1;
    for (int d = 0; d < r; d++) {
        blk_size *= geo[r + d];
        dims[2 + d] = geo[d];
    }
    dims[1] = x->dims[1] / blk_size;
    set_shape(n->outputs[0], DT_FLOAT, r + 2, dims);
}

void col2im_fold(Node *n)
{
    int64_t geo[6 * MAX_RANK];
    int r = col2im_geometry(n, geo);
    const Value *y = n->outputs[0];
    col2im_f32(y->dims[0], y->dims[1], r, geo, n->inputs[0]->data, y->data);
}

void col2im_emit(Emitter *e, Node *n)
{
    int64_t geo[6 * MAX_RANK];
    int r = col2im_geometry(n, geo);
    const Value *y = n->outputs[0];
    println(e, "col2im_f32(%lld, %lld, %d, %s, %s, %s);", (long long)y->dims[0],
            (long long)y->dims[1], r, emit_dims(e, 6 * r, geo), value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}

/* ---- CenterCropPad ---- */

/* {in_dims, out_dims, shift} as center_crop_pad_bytes takes them. */
static void center_crop_pad_geometry(const Node *n, int64_t *geo)
{
    const Value *x = n->inputs[0];
    int r = x->rank, count;
    int64_t *shape = const_ints(n, n->inputs[1], &count);
    const int64_t *axes;
    int naxes = attr_ints(n, "axes", &axes);
    if ((naxes < 0 ? r : naxes) != count)
        fatal_at(n, "shape has %d values for %d axes", count, naxes < 0 ? r : naxes);
    for (int d = 0; d < r; d++) {
        geo[d] = geo[r + d] = x->dims[d];
        geo[2 * r + d] = 0;
    }
    bool seen[MAX_RANK] = {false};
    for (int i = 0; i < count; i++) {
        int a = naxes < 0 ? i : normalize_axis(n, axes[i], r);
        if (seen[a] || shape[i] < 0)
            fatal_at(n, "axis %d is repeated or its size %lld is negative", a, (long long)shape[i]);
        seen[a] = true;
        geo[r + a] = shape[i];
        /* floor of half the difference goes before: crop starts there, padding ends there */
        geo[2 * r + a] =
            x->dims[a] >= shape[i] ? (x->dims[a] - shape[i]) / 2 : -((shape[i] - x->dims[a]) / 2);
    }
}

void center_crop_pad_infer(Node *n)
{
    const Value *x = n->inputs[0];
    if (!dtype_size(x->dtype))
        fatal_at(n, "type %s is not supported", dtype_name(x->dtype));
    int64_t geo[3 * MAX_RANK];
    center_crop_pad_geometry(n, geo);
    set_shape(n->outputs[0], x->dtype, x->rank, geo + x->rank);
}

void center_crop_pad_fold(Node *n)
{
    int64_t geo[3 * MAX_RANK];
    center_crop_pad_geometry(n, geo);
    const Value *x = n->inputs[0];
    center_crop_pad_bytes(x->rank, geo, (int64_t)dtype_size(x->dtype), x->data,
                          n->outputs[0]->data);
}

void center_crop_pad_emit(Emitter *e, Node *n)
{
    int64_t geo[3 * MAX_RANK];
    center_crop_pad_geometry(n, geo);
    const Value *x = n->inputs[0];
    println(e, "center_crop_pad_bytes(%d, %s, %lld, %s, %s);", x->rank,
            emit_dims(e, 3 * x->rank, geo), (long long)dtype_size(x->dtype),
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}

/* ---- RoiAlign ---- */

typedef struct RoiAlignShape {
    int64_t N, C, H, W, R, OH, OW, sampling_ratio;
    float scale;
    int half_pixel, mode_max;
} RoiAlignShape;

static RoiAlignShape roialign_shape(const Node *n)
{
    static const char *const modes[] = {"avg", "max", NULL};
    static const char *const transforms[] = {"output_half_pixel", "half_pixel", NULL};
    const Value *x = n->inputs[0], *rois = n->inputs[1], *b = n->inputs[2];
    if (x->rank != 4 || rois->rank != 2 || rois->dims[1] != 4 || b->rank != 1 ||
        b->dims[0] != rois->dims[0])
        fatal_at(n, "X must be [N, C, H, W], rois [R, 4] and batch_indices [R]");
    RoiAlignShape s = {x->dims[0],
                       x->dims[1],
                       x->dims[2],
                       x->dims[3],
                       rois->dims[0],
                       attr_int(n, "output_height", 1),
                       attr_int(n, "output_width", 1),
                       attr_int(n, "sampling_ratio", 0),
                       attr_float(n, "spatial_scale", 1.0f),
                       0,
                       0};
    if (s.OH < 1 || s.OW < 1 || s.sampling_ratio < 0)
        fatal_at(n, "output_height, output_width must be positive, sampling_ratio not negative");
    /* opset 10 has no coordinate_transformation_mode: its behaviour is output_half_pixel */
    s.half_pixel = n->opset >= 16 &&
                   attr_choice(n, "coordinate_transformation_mode", "half_pixel", transforms) == 1;
    s.mode_max = attr_choice(n, "mode", "avg", modes);
    return s;
}

void roialign_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    require_float(n, n->inputs[1]);
    require_dtype(n, n->inputs[2], DT_INT64);
    RoiAlignShape s = roialign_shape(n);
    int64_t dims[4] = {s.R, s.C, s.OH, s.OW};
    set_shape(n->outputs[0], DT_FLOAT, 4, dims);
}

void roialign_fold(Node *n)
{
    RoiAlignShape s = roialign_shape(n);
    roialign_f32(s.N, s.C, s.H, s.W, s.R, s.OH, s.OW, s.sampling_ratio, s.scale, s.half_pixel,
                 s.mode_max, n->inputs[0]->data, n->inputs[1]->data, n->inputs[2]->data,
                 n->outputs[0]->data);
}

void roialign_emit(Emitter *e, Node *n)
{
    RoiAlignShape s = roialign_shape(n);
    println(
        e,
        "roialign_f32(%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %s, %d, %d, %s, %s, %s, %s);",
        (long long)s.N, (long long)s.C, (long long)s.H, (long long)s.W, (long long)s.R,
        (long long)s.OH, (long long)s.OW, (long long)s.sampling_ratio, c_float(s.scale),
        s.half_pixel, s.mode_max, value_cname(e, n->inputs[0]), value_cname(e, n->inputs[1]),
        value_cname(e, n->inputs[2]), value_cname(e, n->outputs[0]));
}

/* ---- AffineGrid ---- */

/* Spatial sizes from the constant size input [N, C, (D,) H, W]; r is returned. */
static int affine_grid_dims(const Node *n, int64_t *dims)
{
    const Value *theta = n->inputs[0];
    int count;
    int64_t *size = const_ints(n, n->inputs[1], &count);
    int r = count - 2;
    if ((r != 2 && r != 3) || theta->rank != 3 || theta->dims[1] != r || theta->dims[2] != r + 1 ||
        size[0] != theta->dims[0])
        fatal_at(n, "theta must be [N, 2, 3] with size [N, C, H, W] or [N, 3, 4] with "
                    "[N, C, D, H, W]");
    for (int d = 0; d < r; d++) {
        dims[d] = size[2 + d];
        if (dims[d] < 1)
            fatal_at(n, "size %lld is not positive", (long long)dims[d]);
    }
    return r;
}

void affine_grid_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    int64_t dims[MAX_RANK] = {n->inputs[0]->dims[0]};
    int r = affine_grid_dims(n, dims + 1);
    dims[r + 1] = r;
    set_shape(n->outputs[0], DT_FLOAT, r + 2, dims);
}

void affine_grid_fold(Node *n)
{
    int64_t dims[MAX_RANK];
    int r = affine_grid_dims(n, dims);
    affine_grid_f32(n->inputs[0]->dims[0], r, dims, attr_int(n, "align_corners", 0) != 0,
                    n->inputs[0]->data, n->outputs[0]->data);
}

void affine_grid_emit(Emitter *e, Node *n)
{
    int64_t dims[MAX_RANK];
    int r = affine_grid_dims(n, dims);
    println(e, "affine_grid_f32(%lld, %d, %s, %d, %s, %s);", (long long)n->inputs[0]->dims[0], r,
            emit_dims(e, r, dims), attr_int(n, "align_corners", 0) != 0,
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}

/* ---- DeformConv (2-D) ---- */

typedef struct DeformShape {
    int64_t N, C, H, W, OC, OH, OW;
    int64_t geo[10]; /* group, offset_group, KH, KW, strides, pads begin, dilations */
} DeformShape;

/* An ints attribute of `count` values, or all `dflt`. */
static void ints_or(const Node *n, const char *name, int count, int64_t dflt, int64_t *out)
{
    const int64_t *v;
    int got = attr_ints(n, name, &v);
    if (got >= 0 && got != count)
        fatal_at(n, "attribute '%s' has %d values, expected %d", name, got, count);
    for (int i = 0; i < count; i++)
        out[i] = got < 0 ? dflt : v[i];
}

static DeformShape deform_shape(const Node *n)
{
    const Value *x = n->inputs[0], *w = n->inputs[1], *off = n->inputs[2];
    const Value *b = node_input(n, 3), *m = node_input(n, 4);
    if (x->rank != 4 || w->rank != 4 || off->rank != 4)
        fatal_at(n, "only 2-D DeformConv is supported (X, W and offset of rank 4)");
    DeformShape s = {x->dims[0], x->dims[1], x->dims[2], x->dims[3], w->dims[0], 0, 0, {0}};
    int64_t *g = s.geo, pads[4];
    g[0] = attr_int(n, "group", 1);
    g[1] = attr_int(n, "offset_group", 1);
    const int64_t *ks;
    if (attr_ints(n, "kernel_shape", &ks) < 0) {
        g[2] = w->dims[2];
        g[3] = w->dims[3];
    } else {
        ints_or(n, "kernel_shape", 2, 0, g + 2);
    }
    ints_or(n, "strides", 2, 1, g + 4);
    ints_or(n, "pads", 4, 0, pads);
    g[6] = pads[0];
    g[7] = pads[1];
    ints_or(n, "dilations", 2, 1, g + 8);
    if (g[0] < 1 || g[1] < 1 || s.C % g[0] || s.OC % g[0] || s.C % g[1] ||
        w->dims[1] * g[0] != s.C || w->dims[2] != g[2] || w->dims[3] != g[3] || g[4] < 1 ||
        g[5] < 1 || g[8] < 1 || g[9] < 1 || pads[0] < 0 || pads[1] < 0 || pads[2] < 0 ||
        pads[3] < 0)
        fatal_at(n, "group, offset_group, kernel_shape, strides, pads or dilations do not "
                    "match X and W");
    s.OH = (s.H + pads[0] + pads[2] - ((g[2] - 1) * g[8] + 1)) / g[4] + 1;
    s.OW = (s.W + pads[1] + pads[3] - ((g[3] - 1) * g[9] + 1)) / g[5] + 1;
    int64_t taps = checked_mul(n, g[1], checked_mul(n, g[2], g[3]));
    if (s.OH < 1 || s.OW < 1 || off->dims[0] != s.N || off->dims[1] != 2 * taps ||
        off->dims[2] != s.OH || off->dims[3] != s.OW)
        fatal_at(n, "offset must have shape [%lld, %lld, %lld, %lld]", (long long)s.N,
                 (long long)(2 * taps), (long long)s.OH, (long long)s.OW);
    if (b && (b->rank != 1 || b->dims[0] != s.OC))
        fatal_at(n, "B must have shape [%lld]", (long long)s.OC);
    if (m && (m->rank != 4 || m->dims[0] != s.N || m->dims[1] != taps || m->dims[2] != s.OH ||
              m->dims[3] != s.OW))
        fatal_at(n, "mask must have shape [%lld, %lld, %lld, %lld]", (long long)s.N,
                 (long long)taps, (long long)s.OH, (long long)s.OW);
    return s;
}

void deform_conv_infer(Node *n)
{
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i])
            require_float(n, n->inputs[i]);
    DeformShape s = deform_shape(n);
    int64_t dims[4] = {s.N, s.OC, s.OH, s.OW};
    set_shape(n->outputs[0], DT_FLOAT, 4, dims);
}

void deform_conv_fold(Node *n)
{
    DeformShape s = deform_shape(n);
    const Value *b = node_input(n, 3), *m = node_input(n, 4);
    deform_conv_f32(s.N, s.C, s.H, s.W, s.OC, s.OH, s.OW, s.geo, n->inputs[0]->data,
                    n->inputs[1]->data, n->inputs[2]->data, m ? m->data : NULL, b ? b->data : NULL,
                    n->outputs[0]->data);
}

void deform_conv_emit(Emitter *e, Node *n)
{
    DeformShape s = deform_shape(n);
    Value *b = node_input(n, 3), *m = node_input(n, 4);
    println(
        e, "deform_conv_f32(%lld, %lld, %lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s, %s, %s, %s);",
        (long long)s.N, (long long)s.C, (long long)s.H, (long long)s.W, (long long)s.OC,
        (long long)s.OH, (long long)s.OW, emit_dims(e, 10, s.geo), value_cname(e, n->inputs[0]),
        value_cname(e, n->inputs[1]), value_cname(e, n->inputs[2]), m ? value_cname(e, m) : "NULL",
        b ? value_cname(e, b) : "NULL", value_cname(e, n->outputs[0]));
}

double deform_conv_flops(const Node *n)
{
    DeformShape s = deform_shape(n);
    return 2.0 * (double)value_numel(n->outputs[0]) * (double)(s.C / s.geo[0]) *
           (double)(s.geo[2] * s.geo[3]) * 5.0;
}
