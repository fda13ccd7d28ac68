/* resize.c — Resize and the old Upsample (templates/data.c). */
#include "kernels.h"
#include "ops.h"

#include <stdlib.h>
#include <string.h>

/* ---- Resize, Upsample ----
 * The compiler maps each output coordinate of each dim to its source taps (indices and
 * weights, in double as the ONNX reference does, then rounded to float). Nearest resizing is
 * one separable gather (any element type); linear and cubic run one 1-D pass per dim that is
 * not the identity, in ascending dim order, through two scratch buffers.
 * resize_plan's steps: resize_attrs (modes as enums), resize_axes, resize_output (scales,
 * sizes, roi -> output dims), then per dim resize_dim_taps (source_coord, nearest_tap,
 * antialias_coeffs / cubic_coeffs). */

typedef struct ResizeDim {
    int64_t in, out;
    int64_t taps;
    int64_t *idx; /* [out][taps]; idx[j*taps] = -1: extrapolated */
    float *w;     /* [out][taps] */
    bool identity;
} ResizeDim;

typedef enum ResizeMode { RESIZE_NEAREST, RESIZE_LINEAR, RESIZE_CUBIC } ResizeMode;

/* coordinate_transformation_mode, in the order of coord_names */
typedef enum ResizeCoord {
    COORD_HALF_PIXEL,
    COORD_ALIGN_CORNERS,
    COORD_ASYMMETRIC,
    COORD_PYTORCH_HALF_PIXEL,
    COORD_TF_CROP_AND_RESIZE,
    COORD_HALF_PIXEL_SYMMETRIC,
} ResizeCoord;

/* nearest_mode, in the order of nearest_names */
typedef enum NearestMode {
    NEAREST_ROUND_PREFER_FLOOR,
    NEAREST_ROUND_PREFER_CEIL,
    NEAREST_FLOOR,
    NEAREST_CEIL,
} NearestMode;

/* The attributes, checked; `old`: Upsample or Resize before opset 11. */
typedef struct ResizeAttrs {
    bool upsample, old;
    ResizeMode mode;
    const char *mode_name;
    ResizeCoord coord;
    NearestMode nearest;
    double cubic_a;
    bool exclude_outside, antialias;
    const char *policy; /* keep_aspect_ratio_policy */
} ResizeAttrs;

typedef struct ResizePlan {
    int rank;
    ResizeMode mode;
    bool interp; /* run 1-D interpolation passes (linear, cubic, or nearest with extrapolation) */
    float extrapolation;
    ResizeDim d[MAX_RANK];
    int64_t out_dims[MAX_RANK];
} ResizePlan;

static const float *float_list(const Node *n, const Value *v, int *count, const char *what)
{
    require_constant(n, v, what);
    if (v->dtype != DT_FLOAT)
        fatal_at(n, "%s must be float32, not %s", what, dtype_name(v->dtype));
    *count = (int)value_numel(v);
    return v->data;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void cubic_coeffs(double r, double A, double *c)
{
    c[0] = ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A;
    c[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
    c[2] = ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1;
    c[3] = ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A;
}

static int name_index(const char *name, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

static ResizeAttrs resize_attrs(const Node *n)
{
    ResizeAttrs a = {0};
    a.upsample = !strcmp(n->op_type, "Upsample");
    a.old = a.upsample || n->opset < 11;
    const char *mode = attr_string(n, "mode", "nearest");
    a.mode_name = mode;
    if (!strcmp(mode, "nearest"))
        a.mode = RESIZE_NEAREST;
    else if (!strcmp(mode, "linear") || (a.old && !strcmp(mode, "bilinear")))
        a.mode = RESIZE_LINEAR;
    else if (!strcmp(mode, "cubic") && !a.old)
        a.mode = RESIZE_CUBIC;
    else
        fatal_at(n, "mode '%s' is not supported (nearest, linear%s are)", mode,
                 a.old ? "" : ", cubic");
    const char *ctm =
        a.old ? "asymmetric" : attr_string(n, "coordinate_transformation_mode", "half_pixel");
    const char *nearest = a.old ? "floor" : attr_string(n, "nearest_mode", "round_prefer_floor");
    a.cubic_a = attr_float(n, "cubic_coeff_a", -0.75f);
    a.exclude_outside = attr_int(n, "exclude_outside", 0) != 0;
    a.antialias = attr_int(n, "antialias", 0) != 0;
    if (a.antialias && a.mode == RESIZE_NEAREST)
        fatal_at(n, "antialias=1 needs mode linear or cubic");
    a.policy = attr_string(n, "keep_aspect_ratio_policy", "stretch");
    static const char *const policies[] = {"stretch", "not_larger", "not_smaller"};
    if (name_index(a.policy, policies, 3) < 0)
        fatal_at(n, "keep_aspect_ratio_policy '%s' is not one of stretch, not_larger, not_smaller",
                 a.policy);
    static const char *const coord_names[] = {"half_pixel",         "align_corners",
                                              "asymmetric",         "pytorch_half_pixel",
                                              "tf_crop_and_resize", "half_pixel_symmetric"};
    int ct = name_index(ctm, coord_names, 6);
    if (ct < 0 || (ct == COORD_HALF_PIXEL_SYMMETRIC && n->opset < 19))
        fatal_at(n, "coordinate_transformation_mode '%s' is not supported", ctm);
    a.coord = (ResizeCoord)ct;
    static const char *const nearest_names[] = {"round_prefer_floor", "round_prefer_ceil", "floor",
                                                "ceil"};
    int nm = name_index(nearest, nearest_names, 4);
    if (nm < 0)
        fatal_at(n, "nearest_mode '%s' is not supported", nearest);
    a.nearest = (NearestMode)nm;
    return a;
}

/* The dims resized (attribute axes, opset 18; else all); returns their count. */
static int resize_axes(const Node *n, int r, int *axes)
{
    const int64_t *ax;
    int nax = attr_ints(n, "axes", &ax);
    if (nax < 0) {
        for (int i = 0; i < r; i++)
            axes[i] = i;
        return r;
    }
    if (nax > r)
        fatal_at(n, "axes has more entries than the rank");
    for (int i = 0; i < nax; i++)
        axes[i] = normalize_axis(n, ax[i], r);
    return nax;
}

/* Per dim: the scale, the output size and the roi (start at roi[d], end at roi[r + d]), from
 * the scales, sizes and roi inputs (or Upsample's attribute), checked. */
static void resize_output(const Node *n, const ResizeAttrs *a, const int *axes, int naxes,
                          double *scale, int64_t *out, double *roi)
{
    const Value *x = n->inputs[0];
    const int r = x->rank;
    const bool upsample = a->upsample;
    const char *policy = a->policy;
    for (int d = 0; d < r; d++) {
        scale[d] = 1.0;
        out[d] = x->dims[d];
        roi[d] = 0.0;
        roi[r + d] = 1.0;
    }
    const Value *scales_v = NULL, *sizes_v = NULL, *roi_v = NULL;
    if (upsample) {
        if (n->opset < 9) {
            const Attr *sa = attr_get(n, "scales");
            if (!sa || sa->type != ATTR_FLOATS)
                fatal_at(n, "attribute 'scales' is required");
            if (sa->n != r)
                fatal_at(n, "scales has %d entries for rank %d", sa->n, r);
            for (int d = 0; d < r; d++)
                scale[d] = sa->floats[d];
        } else {
            scales_v = node_input(n, 1);
        }
    } else if (n->opset < 11) {
        scales_v = node_input(n, 1);
    } else {
        roi_v = node_input(n, 1);
        scales_v = node_input(n, 2);
        sizes_v = node_input(n, 3);
    }
    if (scales_v && value_numel(scales_v) == 0 && scales_v->data)
        scales_v = NULL;
    if (roi_v && roi_v->data && value_numel(roi_v) == 0)
        roi_v = NULL;
    if (scales_v && sizes_v)
        fatal_at(n, "only one of scales and sizes may be given");
    if (!upsample || n->opset >= 9) {
        if (!scales_v && !sizes_v)
            fatal_at(n, "one of scales and sizes is required");
    }
    bool have_sizes = sizes_v != NULL;
    if (scales_v) {
        int c;
        const float *s = float_list(n, scales_v, &c, "scales");
        if (c != naxes)
            fatal_at(n, "scales has %d entries; %d expected", c, naxes);
        for (int i = 0; i < naxes; i++) {
            if (!(s[i] > 0.0f))
                fatal_at(n, "scale %g is not positive", (double)s[i]);
            scale[axes[i]] = s[i];
        }
    }
    if (sizes_v) {
        int c;
        int64_t *s = const_ints(n, sizes_v, &c);
        if (c != naxes)
            fatal_at(n, "sizes has %d entries; %d expected", c, naxes);
        for (int i = 0; i < naxes; i++) {
            if (s[i] < 0)
                fatal_at(n, "size %lld is negative", (long long)s[i]);
            out[axes[i]] = s[i];
        }
    }
    if (roi_v && a->coord == COORD_TF_CROP_AND_RESIZE) {
        int c;
        const float *ro = float_list(n, roi_v, &c, "roi");
        if (c != 2 * naxes)
            fatal_at(n, "roi has %d entries; %d expected", c, 2 * naxes);
        for (int i = 0; i < naxes; i++) {
            roi[axes[i]] = ro[i];
            roi[r + axes[i]] = ro[naxes + i];
        }
    }
    if (have_sizes) {
        for (int d = 0; d < r; d++)
            scale[d] = x->dims[d] ? (double)out[d] / (double)x->dims[d] : 1.0;
        if (strcmp(policy, "stretch")) {
            double s = scale[axes[0]];
            for (int i = 1; i < naxes; i++) {
                double v = scale[axes[i]];
                s = !strcmp(policy, "not_larger") ? (v < s ? v : s) : (v > s ? v : s);
            }
            for (int i = 0; i < naxes; i++) {
                scale[axes[i]] = s;
                out[axes[i]] = (int64_t)(s * (double)x->dims[axes[i]] + 0.5);
            }
        }
    } else {
        for (int d = 0; d < r; d++) {
            double o = scale[d] * (double)x->dims[d];
            if (!(o < 9.0e15))
                fatal_at(n, "output dim %d is too large", d);
            out[d] = (int64_t)o;
        }
    }
    int64_t total = (int64_t)dtype_size(x->dtype);
    for (int d = 0; d < r; d++)
        total = checked_mul(n, total, out[d] > 0 ? out[d] : 1);
    for (int d = 0; d < r; d++) {
        if (out[d] > ((int64_t)1 << 40))
            fatal_at(n, "output dim %d (%lld) is too large", d, (long long)out[d]);
        if (out[d] > 0 && x->dims[d] == 0)
            fatal_at(n, "cannot resize an empty dim to %lld", (long long)out[d]);
    }
    if (a->old && a->mode == RESIZE_NEAREST)
        for (int d = 0; d < r; d++)
            if (scale[d] < 1.0)
                fatal_at(n, "nearest downsampling before opset 11 is not supported (its "
                            "rounding is unspecified)");
}

/* Output coordinate j of a dim of `in` elements resized to `on` at scale s, in input
 * coordinates; *extrap: outside tf_crop_and_resize's roi [r0, r1]. */
static double source_coord(ResizeCoord ct, int64_t j, int64_t in, int64_t on, double s, double r0,
                           double r1, bool *extrap)
{
    const double ow = s * (double)in;
    *extrap = false;
    switch (ct) {
    case COORD_ALIGN_CORNERS: return ow == 1 ? 0.0 : (double)j * (double)(in - 1) / (ow - 1);
    case COORD_ASYMMETRIC: return (double)j / s;
    case COORD_PYTORCH_HALF_PIXEL: return ow == 1 ? -0.5 : ((double)j + 0.5) / s - 0.5;
    case COORD_TF_CROP_AND_RESIZE: {
        double xo = ow == 1 ? (r1 - r0) * (double)(in - 1) / 2
                            : (double)j * (r1 - r0) * (double)(in - 1) / (ow - 1);
        xo += r0 * (double)(in - 1);
        *extrap = xo < 0 || xo > (double)(in - 1);
        return xo;
    }
    case COORD_HALF_PIXEL_SYMMETRIC: {
        double adj = (double)on / ow, off = (double)in / 2 * (1 - adj);
        return off + ((double)j + 0.5) / s - 0.5;
    }
    case COORD_HALF_PIXEL: break;
    }
    return ((double)j + 0.5) / s - 0.5;
}

/* The nearest tap of source coordinate floor f + ratio (integer: ratio is 0). */
static int64_t nearest_tap(NearestMode nm, int64_t f, double ratio, bool integer)
{
    if (integer)
        return f;
    switch (nm) {
    case NEAREST_ROUND_PREFER_FLOOR: return ratio <= 0.5 ? f : f + 1;
    case NEAREST_ROUND_PREFER_CEIL: return ratio < 0.5 ? f : f + 1;
    case NEAREST_FLOOR: return f;
    case NEAREST_CEIL: break;
    }
    return f + 1;
}

/* Antialiased weights of taps aa_start.. at distance `rr` past the floor: the filter (a
 * triangle for linear, Keys' cubic with coefficient A for cubic) stretched by 1/aa, then
 * normalised to sum 1. */
static void antialias_coeffs(ResizeMode mode, double A, double aa, int64_t aa_start, int64_t taps,
                             double rr, double *c)
{
    double sum = 0;
    for (int64_t t = 0; t < taps; t++) {
        double u = fabs(aa * ((double)(aa_start + t) - rr)), v;
        if (mode == RESIZE_LINEAR) {
            v = 1 - u;
            v = v < 0 ? 0 : v > 1 ? 1 : v;
        } else {
            v = u <= 1  ? (A + 2) * u * u * u - (A + 3) * u * u + 1
                : u < 2 ? A * u * u * u - 5 * A * u * u + 8 * A * u - 4 * A
                        : 0.0;
        }
        c[t] = v;
        sum += v;
    }
    for (int64_t t = 0; t < taps; t++)
        c[t] /= sum;
}

/* Dim d's taps: for each output index, the source indices and weights (rd->idx, rd->w). */
static void resize_dim_taps(const Node *n, const ResizeAttrs *a, ResizePlan *p, int d,
                            const double *scale, const double *roi)
{
    const Value *x = n->inputs[0];
    const int r = x->rank;
    const double A = a->cubic_a;
    const bool antialias = a->antialias, exclude_outside = a->exclude_outside;
    ResizeDim *rd = &p->d[d];
    const int64_t in = x->dims[d], on = p->out_dims[d];
    rd->in = in;
    rd->out = on;
    rd->taps = a->mode == RESIZE_NEAREST ? 1 : a->mode == RESIZE_LINEAR ? 2 : 4;
    const double aa = scale[d] < 1.0 ? scale[d] : 1.0; /* antialias: filter scale */
    int64_t aa_start = 0;
    if (antialias) {
        /* the reference's footprint: 2 - 2*start taps, start = floor(-support/scale) + 1 */
        double support = a->mode == RESIZE_LINEAR ? 1.0 : 2.0;
        aa_start = (int64_t)floor(-support / aa) + 1;
        rd->taps = 2 - 2 * aa_start;
        if (rd->taps > 4096)
            fatal_at(n, "antialias filter of %lld taps is too wide", (long long)rd->taps);
    }
    rd->idx = xcalloc((size_t)(on * rd->taps) + 1, sizeof(int64_t));
    rd->w = xcalloc((size_t)(on * rd->taps) + 1, sizeof(float));
    rd->identity = in == on;
    for (int64_t j = 0; j < on; j++) {
        bool extrap;
        double xo = source_coord(a->coord, j, in, on, scale[d], roi[d], roi[r + d], &extrap);
        int64_t *ix = rd->idx + j * rd->taps;
        float *w = rd->w + j * rd->taps;
        if (!(xo > -1e15 && xo < 1e15))
            fatal_at(n, "source coordinate out of range");
        if (extrap) {
            for (int64_t t = 0; t < rd->taps; t++)
                ix[t] = -1;
            rd->identity = false;
            p->interp = true;
            continue;
        }
        double fl = floor(xo), ratio = xo - fl;
        int64_t f = (int64_t)fl;
        bool integer = xo == fl;
        if (a->mode == RESIZE_NEAREST) {
            ix[0] = clamp64(nearest_tap(a->nearest, f, ratio, integer), 0, in - 1);
            w[0] = 1.0f;
            if (ix[0] != j)
                rd->identity = false;
            continue;
        }
        double cbuf[4], *c = cbuf;
        int64_t start;
        if (antialias) {
            c = xcalloc((size_t)rd->taps, sizeof(double));
            antialias_coeffs(a->mode, A, aa, aa_start, rd->taps, integer ? 1.0 : ratio, c);
            start = f - rd->taps / 2 + (integer ? 0 : 1);
        } else if (a->mode == RESIZE_LINEAR) {
            if (integer) {
                c[0] = 0.0, c[1] = 1.0, start = f - 1;
            } else {
                c[0] = 1 - ratio, c[1] = ratio, start = f;
            }
        } else {
            cubic_coeffs(integer ? 1.0 : ratio, A, c);
            start = integer ? f - 2 : f - 1;
        }
        if (exclude_outside) {
            double sum = 0;
            for (int64_t t = 0; t < rd->taps; t++) {
                if (start + t < 0 || start + t >= in)
                    c[t] = 0;
                sum += c[t];
            }
            if (sum != 0)
                for (int64_t t = 0; t < rd->taps; t++)
                    c[t] /= sum;
        }
        double at_j = 0;
        for (int64_t t = 0; t < rd->taps; t++) {
            ix[t] = clamp64(start + t, 0, in - 1);
            w[t] = (float)c[t];
            if (c[t] != 0.0 && ix[t] != j)
                rd->identity = false;
            if (ix[t] == j)
                at_j += c[t];
        }
        if (at_j != 1.0)
            rd->identity = false;
    }
}

/* Attributes, output size, then each dim's taps. */
static ResizePlan resize_plan(const Node *n)
{
    const Value *x = n->inputs[0];
    const int r = x->rank;
    ResizePlan p = {0};
    p.rank = r;
    ResizeAttrs a = resize_attrs(n);
    p.mode = a.mode;
    p.extrapolation = attr_float(n, "extrapolation_value", 0.0f);
    int axes[MAX_RANK];
    int naxes = resize_axes(n, r, axes);
    double scale[MAX_RANK], roi[2 * MAX_RANK];
    resize_output(n, &a, axes, naxes, scale, p.out_dims, roi);
    for (int d = 0; d < r; d++)
        resize_dim_taps(n, &a, &p, d, scale, roi);
    if (p.mode != RESIZE_NEAREST)
        p.interp = true;
    if (p.interp && x->dtype != DT_FLOAT)
        fatal_at(n, "%s resizing of type %s is not supported (float32 is)",
                 p.mode == RESIZE_NEAREST ? "extrapolating nearest" : a.mode_name,
                 dtype_name(x->dtype));
    return p;
}

/* One 1-D pass over axis d of a tensor of dims prev: the elements before the axis (outer)
 * and after it (inner). */
static void pass_extents(const int64_t *prev, int rank, int d, int64_t *outer, int64_t *inner)
{
    *outer = *inner = 1;
    for (int k = 0; k < d; k++)
        *outer *= prev[k];
    for (int k = d + 1; k < rank; k++)
        *inner *= prev[k];
}

void resize_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_sized(n, x);
    if (x->rank < 1)
        fatal_at(n, "a scalar cannot be resized");
    ResizePlan p = resize_plan(n);
    set_shape(n->outputs[0], x->dtype, x->rank, p.out_dims);
}

/* The passes of an interpolating resize: dims that are not the identity, ascending. Pass i
 * turns dim pass[i] from in to out; `shape` is the shape after each pass. */
static int resize_passes(const ResizePlan *p, int *pass, int64_t (*shape)[MAX_RANK])
{
    int np = 0;
    int64_t cur[MAX_RANK];
    for (int d = 0; d < p->rank; d++)
        cur[d] = p->d[d].in;
    for (int d = 0; d < p->rank; d++) {
        if (p->d[d].identity)
            continue;
        cur[d] = p->d[d].out;
        pass[np] = d;
        memcpy(shape[np], cur, sizeof cur);
        np++;
    }
    return np;
}

/* Bytes of one scratch buffer: the largest intermediate (not the last pass's output). */
static int64_t resize_buffer_bytes(const Node *n, const ResizePlan *p)
{
    int pass[MAX_RANK];
    int64_t shape[MAX_RANK][MAX_RANK];
    int np = resize_passes(p, pass, shape);
    int64_t most = 0;
    for (int i = 0; i + 1 < np; i++) {
        int64_t b = 1;
        for (int d = 0; d < p->rank; d++)
            b = checked_mul(n, b, shape[i][d]);
        b = checked_mul(n, b, 4);
        if (b > most)
            most = b;
    }
    return (most + 63) / 64 * 64;
}

int64_t resize_scratch(const Node *n)
{
    ResizePlan p = resize_plan(n);
    if (!p.interp)
        return 0;
    return 2 * resize_buffer_bytes(n, &p);
}

static int64_t *nearest_tables(const ResizePlan *p)
{
    int64_t total = 0;
    for (int d = 0; d < p->rank; d++)
        total += p->d[d].out;
    int64_t *t = xcalloc((size_t)total + 1, sizeof(int64_t)), k = 0;
    for (int d = 0; d < p->rank; d++)
        for (int64_t j = 0; j < p->d[d].out; j++)
            t[k++] = p->d[d].idx[j];
    return t;
}

void resize_fold(Node *n)
{
    const Value *x = n->inputs[0];
    Value *y = n->outputs[0];
    ResizePlan p = resize_plan(n);
    if (!value_numel(y))
        return;
    if (!p.interp) {
        resize_nearest_bytes(p.rank, x->dims, y->dims, nearest_tables(&p),
                             (int64_t)dtype_size(x->dtype), x->data, y->data);
        return;
    }
    int pass[MAX_RANK];
    int64_t shape[MAX_RANK][MAX_RANK];
    int np = resize_passes(&p, pass, shape);
    if (np == 0) {
        memcpy(y->data, x->data, (size_t)value_bytes(x));
        return;
    }
    int64_t bytes = resize_buffer_bytes(n, &p);
    float *buf[2] = {xcalloc((size_t)bytes + 4, 1), xcalloc((size_t)bytes + 4, 1)};
    int64_t prev[MAX_RANK];
    memcpy(prev, x->dims, sizeof prev);
    const float *src = x->data;
    for (int i = 0; i < np; i++) {
        int d = pass[i];
        int64_t outer, inner;
        pass_extents(prev, p.rank, d, &outer, &inner);
        float *dst = i + 1 == np ? (float *)y->data : buf[i % 2];
        resize_1d_f32(outer, p.d[d].in, p.d[d].out, inner, p.d[d].taps, p.d[d].idx, p.d[d].w,
                      p.extrapolation, src, dst);
        src = dst;
        memcpy(prev, shape[i], sizeof prev);
    }
}

void resize_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *y = n->outputs[0];
    ResizePlan p = resize_plan(n);
    if (!value_numel(y))
        return;
    if (!p.interp) {
        int64_t total = 0;
        for (int d = 0; d < p.rank; d++)
            total += p.d[d].out;
        const char *tab = emit_constant(e, DT_INT64, 1, &total, nearest_tables(&p));
        const char *xd = emit_dims(e, x->rank, x->dims), *yd = emit_dims(e, y->rank, y->dims);
        println(e, "resize_nearest_bytes(%d, %s, %s, %s, %d, %s, %s);", p.rank, xd, yd, tab,
                (int)dtype_size(x->dtype), value_cname(e, x), value_cname(e, y));
        return;
    }
    int pass[MAX_RANK];
    int64_t shape[MAX_RANK][MAX_RANK];
    int np = resize_passes(&p, pass, shape);
    if (np == 0) {
        println(e, "memcpy(%s, %s, %lld);", value_cname(e, y), value_cname(e, x),
                (long long)value_bytes(x));
        return;
    }
    int64_t bytes = resize_buffer_bytes(n, &p);
    int64_t prev[MAX_RANK];
    memcpy(prev, x->dims, sizeof prev);
    const char *src = value_cname(e, x);
    for (int i = 0; i < np; i++) {
        int d = pass[i];
        int64_t outer, inner;
        pass_extents(prev, p.rank, d, &outer, &inner);
        const char *dst =
            i + 1 == np ? value_cname(e, y) : scratch_cname(e, n, DT_FLOAT, (i % 2) * bytes);
        int64_t cnt = p.d[d].out * p.d[d].taps;
        const char *ix = emit_constant(e, DT_INT64, 1, &cnt, p.d[d].idx);
        const char *w = emit_constant(e, DT_FLOAT, 1, &cnt, p.d[d].w);
        println(e, "resize_1d_f32(%lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s, %s);",
                (long long)outer, (long long)p.d[d].in, (long long)p.d[d].out, (long long)inner,
                (long long)p.d[d].taps, ix, w, c_float(p.extrapolation), src, dst);
        src = dst;
        memcpy(prev, shape[i], sizeof prev);
    }
}
