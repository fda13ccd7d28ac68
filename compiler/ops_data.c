/* ops_data.c — index and layout ops: GatherElements, GatherND, ScatterElements (and the old
 * Scatter), ScatterND, Pad, Resize (and Upsample), DepthToSpace, SpaceToDepth, OneHot, Trilu,
 * EyeLike, Compress, NonZero, CumSum, TopK, ArgMax, ArgMin, Hardmax, the activations Shrink,
 * ThresholdedRelu, Celu, Mish, PRelu, and Einsum. Kernels in templates/data.c (DepthToSpace,
 * SpaceToDepth and Compress use transpose_bytes and gather_bytes of movement.c). */
#include "kernels.h"
#include "ops.h"

#include <stdlib.h>
#include <string.h>

/* Type codes of data.c's computing kernels (O2C_DATA_*). */
enum { TY_BYTES = 0, TY_F32 = 1, TY_I64 = 2, TY_F64 = 3, TY_I32 = 4 };

static int type_code(DType t)
{
    switch (t) {
    case DT_FLOAT: return TY_F32;
    case DT_INT64: return TY_I64;
    case DT_DOUBLE: return TY_F64;
    case DT_INT32: return TY_I32;
    default: return TY_BYTES;
    }
}

static const char *type_suffix(const Node *n, DType t, const char *what)
{
    switch (t) {
    case DT_FLOAT: return "f32";
    case DT_DOUBLE: return "f64";
    case DT_INT32: return "i32";
    case DT_INT64: return "i64";
    default:
        fatal_at(n, "%s type %s is not supported (float32, float64, int32, int64 are)", what,
                 dtype_name(t));
    }
}

static void require_sized(const Node *n, const Value *v)
{
    if (!dtype_size(v->dtype))
        fatal_at(n, "type %s of '%s' is not supported", dtype_name(v->dtype), v->name);
}

/* Index inputs: int64 as they are, or constant int32 (widened at compile time). */
static void require_indices(const Node *n, const Value *idx)
{
    if (idx->dtype != DT_INT64 && idx->dtype != DT_INT32)
        fatal_at(n, "indices must be int64 or int32, not %s", dtype_name(idx->dtype));
    if (idx->dtype == DT_INT32 && !idx->data)
        fatal_at(n, "non-constant int32 indices are not supported (int64 are)");
}

static int64_t *indices_i64(const Value *idx)
{
    if (idx->dtype == DT_INT64)
        return idx->data;
    int64_t count = value_numel(idx);
    int64_t *out = xcalloc((size_t)count + 1, sizeof(int64_t));
    for (int64_t i = 0; i < count; i++)
        out[i] = ((const int32_t *)idx->data)[i];
    return out;
}

static const char *indices_cname(Emitter *e, Value *idx)
{
    if (idx->dtype == DT_INT64)
        return value_cname(e, idx);
    return emit_constant(e, DT_INT64, idx->rank, idx->dims, indices_i64(idx));
}

/* [outer][n][inner] around `axis`. */
static void split_at(const Value *v, int axis, int64_t *outer, int64_t *n, int64_t *inner)
{
    *outer = 1;
    *inner = 1;
    for (int d = 0; d < axis; d++)
        *outer *= v->dims[d];
    for (int d = axis + 1; d < v->rank; d++)
        *inner *= v->dims[d];
    *n = v->rank ? v->dims[axis] : 1;
}

/* Scatter reductions: 0 none, 1 add, 2 mul, 3 max, 4 min. */
static int scatter_reduction(const Node *n)
{
    const char *r = attr_string(n, "reduction", "none");
    static const char *const names[] = {"none", "add", "mul", "max", "min"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(r, names[i])) {
            DType t = n->inputs[0]->dtype;
            if (i && type_code(t) == TY_BYTES)
                fatal_at(n,
                         "reduction '%s' on type %s is not supported (float32, float64, "
                         "int32, int64 are)",
                         r, dtype_name(t));
            return i;
        }
    fatal_at(n, "reduction '%s' is not one of none, add, mul, max, min", r);
}

/* ---- GatherElements, ScatterElements, Scatter ---- */

static int elements_axis(const Node *n)
{
    return normalize_axis(n, attr_int(n, "axis", 0), n->inputs[0]->rank);
}

/* Constant indices are checked here, once: the kernels trust them. Index i of idx addresses a
 * dim of size bounds[i % k]; negative indices count from the end. */
static void check_const_indices(const Node *n, const Value *idx, int64_t k, const int64_t *bounds)
{
    if (!idx->data)
        return;
    const int64_t *v = indices_i64(idx);
    for (int64_t i = 0, count = value_numel(idx); i < count; i++) {
        int64_t b = bounds[i % k];
        if (v[i] < -b || v[i] >= b)
            fatal_at(n, "index %lld is out of range for a dim of size %lld", (long long)v[i],
                     (long long)b);
    }
}

static void check_elements(const Node *n, const Value *x, const Value *idx)
{
    require_sized(n, x);
    require_indices(n, idx);
    if (idx->rank != x->rank || x->rank < 1)
        fatal_at(n, "indices must have the rank of the data (%d), not %d", x->rank, idx->rank);
    int axis = elements_axis(n);
    for (int d = 0; d < x->rank; d++)
        if (d != axis && idx->dims[d] > x->dims[d])
            fatal_at(n, "indices dim %d (%lld) is larger than the data's (%lld)", d,
                     (long long)idx->dims[d], (long long)x->dims[d]);
    check_const_indices(n, idx, 1, &x->dims[axis]);
}

void gather_elements_infer(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    check_elements(n, x, idx);
    set_shape(n->outputs[0], x->dtype, idx->rank, idx->dims);
}

void gather_elements_fold(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    gather_elements_bytes(x->rank, x->dims, idx->dims, elements_axis(n),
                          (int64_t)dtype_size(x->dtype), x->data, indices_i64(idx),
                          n->outputs[0]->data);
}

void gather_elements_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *idx = n->inputs[1];
    if (!value_numel(n->outputs[0]))
        return;
    const char *xd = emit_dims(e, x->rank, x->dims), *id = emit_dims(e, idx->rank, idx->dims);
    println(e, "gather_elements_bytes(%d, %s, %s, %d, %d, %s, %s, %s);", x->rank, xd, id,
            elements_axis(n), (int)dtype_size(x->dtype), value_cname(e, x), indices_cname(e, idx),
            value_cname(e, n->outputs[0]));
}

void scatter_elements_infer(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1], *u = n->inputs[2];
    check_elements(n, x, idx);
    if (u->dtype != x->dtype || u->rank != idx->rank ||
        memcmp(u->dims, idx->dims, sizeof(int64_t) * (size_t)u->rank))
        fatal_at(n, "updates must have the data's type and the indices' shape");
    scatter_reduction(n);
    same_shape_infer(n);
}

void scatter_elements_fold(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    scatter_elements(x->rank, x->dims, idx->dims, elements_axis(n), type_code(x->dtype),
                     scatter_reduction(n), (int64_t)dtype_size(x->dtype), x->data, indices_i64(idx),
                     n->inputs[2]->data, n->outputs[0]->data);
}

void scatter_elements_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *idx = n->inputs[1];
    if (!value_numel(x))
        return;
    const char *xd = emit_dims(e, x->rank, x->dims), *id = emit_dims(e, idx->rank, idx->dims);
    println(e, "scatter_elements(%d, %s, %s, %d, %d, %d, %d, %s, %s, %s, %s);", x->rank, xd, id,
            elements_axis(n), type_code(x->dtype), scatter_reduction(n), (int)dtype_size(x->dtype),
            value_cname(e, x), indices_cname(e, idx), value_cname(e, n->inputs[2]),
            value_cname(e, n->outputs[0]));
}

/* ---- GatherND, ScatterND ---- */

typedef struct NdGeometry {
    int64_t batch, n, k, slice_elems;
    int64_t dims[MAX_RANK]; /* the k indexed dims */
} NdGeometry;

static NdGeometry nd_geometry(const Node *n, int batch_dims)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    NdGeometry g = {1, 1, 0, 1, {0}};
    if (idx->rank < 1)
        fatal_at(n, "indices must have rank 1 or more");
    g.k = idx->dims[idx->rank - 1];
    if (batch_dims < 0 || batch_dims >= idx->rank || batch_dims >= x->rank)
        fatal_at(n, "batch_dims %d is out of range", batch_dims);
    if (g.k < 1 || g.k > x->rank - batch_dims)
        fatal_at(n, "the last indices dim (%lld) must be 1..%d", (long long)g.k,
                 x->rank - batch_dims);
    for (int d = 0; d < batch_dims; d++) {
        if (x->dims[d] != idx->dims[d])
            fatal_at(n, "batch dim %d differs between data and indices", d);
        g.batch *= x->dims[d];
    }
    for (int d = batch_dims; d < idx->rank - 1; d++)
        g.n *= idx->dims[d];
    for (int64_t d = 0; d < g.k; d++)
        g.dims[d] = x->dims[batch_dims + d];
    for (int d = batch_dims + (int)g.k; d < x->rank; d++)
        g.slice_elems *= x->dims[d];
    check_const_indices(n, idx, g.k, g.dims);
    return g;
}

void gather_nd_infer(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    require_sized(n, x);
    require_indices(n, idx);
    int b = (int)attr_int(n, "batch_dims", 0);
    NdGeometry g = nd_geometry(n, b);
    int64_t dims[MAX_RANK];
    int r = 0;
    for (int d = 0; d < idx->rank - 1; d++)
        dims[r++] = idx->dims[d];
    for (int d = b + (int)g.k; d < x->rank; d++) {
        if (r >= MAX_RANK)
            fatal_at(n, "output rank is more than %d", MAX_RANK);
        dims[r++] = x->dims[d];
    }
    set_shape(n->outputs[0], x->dtype, r, dims);
}

void gather_nd_fold(Node *n)
{
    const Value *x = n->inputs[0];
    NdGeometry g = nd_geometry(n, (int)attr_int(n, "batch_dims", 0));
    gather_nd_bytes(g.batch, g.n, g.k, g.dims, g.slice_elems * (int64_t)dtype_size(x->dtype),
                    x->data, indices_i64(n->inputs[1]), n->outputs[0]->data);
}

void gather_nd_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    if (!value_numel(n->outputs[0]))
        return;
    NdGeometry g = nd_geometry(n, (int)attr_int(n, "batch_dims", 0));
    const char *dims = emit_dims(e, (int)g.k, g.dims);
    println(e, "gather_nd_bytes(%lld, %lld, %lld, %s, %lld, %s, %s, %s);", (long long)g.batch,
            (long long)g.n, (long long)g.k, dims,
            (long long)(g.slice_elems * (int64_t)dtype_size(x->dtype)), value_cname(e, x),
            indices_cname(e, n->inputs[1]), value_cname(e, n->outputs[0]));
}

void scatter_nd_infer(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1], *u = n->inputs[2];
    require_sized(n, x);
    require_indices(n, idx);
    NdGeometry g = nd_geometry(n, 0);
    int r = 0;
    int64_t dims[2 * MAX_RANK];
    for (int d = 0; d < idx->rank - 1; d++)
        dims[r++] = idx->dims[d];
    for (int d = (int)g.k; d < x->rank; d++)
        dims[r++] = x->dims[d];
    if (u->dtype != x->dtype || u->rank != r || memcmp(u->dims, dims, sizeof(int64_t) * (size_t)r))
        fatal_at(n, "updates must have the data's type and shape indices.shape[:-1] + "
                    "data.shape[k:]");
    scatter_reduction(n);
    same_shape_infer(n);
}

void scatter_nd_fold(Node *n)
{
    const Value *x = n->inputs[0];
    NdGeometry g = nd_geometry(n, 0);
    scatter_nd(value_numel(x), g.n, g.k, g.dims, g.slice_elems, type_code(x->dtype),
               scatter_reduction(n), (int64_t)dtype_size(x->dtype), x->data,
               indices_i64(n->inputs[1]), n->inputs[2]->data, n->outputs[0]->data);
}

void scatter_nd_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    if (!value_numel(x))
        return;
    NdGeometry g = nd_geometry(n, 0);
    const char *dims = emit_dims(e, (int)g.k, g.dims);
    println(e, "scatter_nd(%lld, %lld, %lld, %s, %lld, %d, %d, %d, %s, %s, %s, %s);",
            (long long)value_numel(x), (long long)g.n, (long long)g.k, dims,
            (long long)g.slice_elems, type_code(x->dtype), scatter_reduction(n),
            (int)dtype_size(x->dtype), value_cname(e, x), indices_cname(e, n->inputs[1]),
            value_cname(e, n->inputs[2]), value_cname(e, n->outputs[0]));
}

/* ---- Pad ---- */

typedef struct PadPlan {
    int mode; /* 0 constant, 1 reflect, 2 edge, 3 wrap */
    int64_t begin[MAX_RANK], end[MAX_RANK];
    const Value *value;          /* constant_value input, or NULL */
    unsigned char attr_value[8]; /* value when there is no input (the attribute, or zero) */
} PadPlan;

static PadPlan pad_plan(const Node *n)
{
    const Value *x = n->inputs[0];
    int r = x->rank;
    PadPlan p = {0};
    const char *mode = attr_string(n, "mode", "constant");
    static const char *const modes[] = {"constant", "reflect", "edge", "wrap"};
    p.mode = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(mode, modes[i]))
            p.mode = i;
    if (p.mode < 0 || (p.mode == 3 && n->opset < 19))
        fatal_at(n, "mode '%s' is not one of constant, reflect, edge%s", mode,
                 n->opset >= 19 ? ", wrap" : "");
    const int64_t *pads;
    int npads;
    int64_t *axes = NULL;
    int naxes = r;
    if (n->opset < 11) {
        npads = attr_ints(n, "pads", &pads);
        if (npads < 0)
            npads = attr_ints(n, "paddings", &pads);
        if (npads < 0)
            fatal_at(n, "attribute 'pads' is required");
        float v = attr_float(n, "value", 0.0f);
        if (x->dtype != DT_FLOAT && v != 0.0f)
            fatal_at(n, "a non-zero 'value' needs float32 data");
        memcpy(p.attr_value, &v, sizeof v);
    } else {
        pads = const_ints(n, n->inputs[1], &npads);
        const Value *cv = node_input(n, 2);
        if (cv && value_numel(cv) > 0) {
            if (cv->dtype != x->dtype)
                fatal_at(n, "constant_value type %s differs from the data's %s",
                         dtype_name(cv->dtype), dtype_name(x->dtype));
            p.value = cv;
        }
        const Value *ax = node_input(n, 3);
        if (ax) {
            axes = const_ints(n, ax, &naxes);
        }
    }
    if (npads != 2 * naxes)
        fatal_at(n, "pads has %d entries; it needs 2 x %d", npads, naxes);
    for (int i = 0; i < naxes; i++) {
        int d = axes ? normalize_axis(n, axes[i], r) : i;
        p.begin[d] = pads[i];
        p.end[d] = pads[naxes + i];
    }
    for (int d = 0; d < r; d++) {
        int64_t big = (int64_t)1 << 48; /* so that the sum below cannot overflow */
        if (p.begin[d] < -big || p.begin[d] > big || p.end[d] < -big || p.end[d] > big)
            fatal_at(n, "pads of dim %d (%lld, %lld) are out of range", d, (long long)p.begin[d],
                     (long long)p.end[d]);
        if (p.mode != 0 && x->dims[d] == 0 && (p.begin[d] > 0 || p.end[d] > 0))
            fatal_at(n, "cannot pad an empty dim in mode '%s'", mode);
        if (x->dims[d] + p.begin[d] + p.end[d] < 0)
            fatal_at(n, "pads remove more than dim %d holds", d);
    }
    return p;
}

static void pad_out_dims(const Node *n, const PadPlan *p, int64_t *dims)
{
    const Value *x = n->inputs[0];
    for (int d = 0; d < x->rank; d++)
        dims[d] = checked_add(n, checked_add(n, x->dims[d], p->begin[d]), p->end[d]);
}

void pad_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_sized(n, x);
    if (x->rank < 1)
        fatal_at(n, "a scalar cannot be padded");
    PadPlan p = pad_plan(n);
    int64_t dims[MAX_RANK];
    pad_out_dims(n, &p, dims);
    set_shape(n->outputs[0], x->dtype, x->rank, dims);
}

void pad_fold(Node *n)
{
    const Value *x = n->inputs[0], *y = n->outputs[0];
    PadPlan p = pad_plan(n);
    pad_bytes(x->rank, x->dims, y->dims, p.begin, p.mode, (int64_t)dtype_size(x->dtype),
              p.value ? p.value->data : p.attr_value, x->data, y->data);
}

void pad_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *y = n->outputs[0];
    if (!value_numel(y))
        return;
    PadPlan p = pad_plan(n);
    const char *vname;
    if (p.value) {
        vname = value_cname(e, (Value *)p.value);
    } else {
        void *v = xcalloc(1, 8);
        memcpy(v, p.attr_value, 8);
        vname = emit_constant(e, x->dtype, 0, NULL, v);
    }
    const char *xd = emit_dims(e, x->rank, x->dims), *yd = emit_dims(e, y->rank, y->dims);
    const char *bd = emit_dims(e, x->rank, p.begin);
    println(e, "pad_bytes(%d, %s, %s, %s, %d, %d, %s, %s, %s);", x->rank, xd, yd, bd, p.mode,
            (int)dtype_size(x->dtype), vname, value_cname(e, x), value_cname(e, y));
}

/* ---- Resize, Upsample ----
 * The compiler maps each output coordinate of each dim to its source taps (indices and
 * weights, in double as the ONNX reference does, then rounded to float). Nearest resizing is
 * one separable gather (any element type); linear and cubic run one 1-D pass per dim that is
 * not the identity, in ascending dim order, through two scratch buffers. */

typedef struct ResizeDim {
    int64_t in, out;
    int64_t taps;
    int64_t *idx; /* [out][taps]; idx[j*taps] = -1: extrapolated */
    float *w;     /* [out][taps] */
    bool identity;
} ResizeDim;

typedef struct ResizePlan {
    int rank;
    int mode;    /* 0 nearest, 1 linear, 2 cubic */
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

static ResizePlan resize_plan(const Node *n)
{
    const Value *x = n->inputs[0];
    const int r = x->rank;
    ResizePlan p = {0};
    p.rank = r;
    bool upsample = !strcmp(n->op_type, "Upsample");
    bool old = upsample || n->opset < 11;
    const char *mode = attr_string(n, "mode", "nearest");
    if (!strcmp(mode, "nearest"))
        p.mode = 0;
    else if (!strcmp(mode, "linear") || (old && !strcmp(mode, "bilinear")))
        p.mode = 1;
    else if (!strcmp(mode, "cubic") && !old)
        p.mode = 2;
    else
        fatal_at(n, "mode '%s' is not supported (nearest, linear%s are)", mode,
                 old ? "" : ", cubic");
    const char *ctm =
        old ? "asymmetric" : attr_string(n, "coordinate_transformation_mode", "half_pixel");
    const char *nearest = old ? "floor" : attr_string(n, "nearest_mode", "round_prefer_floor");
    double A = attr_float(n, "cubic_coeff_a", -0.75f);
    bool exclude_outside = attr_int(n, "exclude_outside", 0) != 0;
    p.extrapolation = attr_float(n, "extrapolation_value", 0.0f);
    bool antialias = attr_int(n, "antialias", 0) != 0;
    if (antialias && p.mode == 0)
        fatal_at(n, "antialias=1 needs mode linear or cubic");
    const char *policy = attr_string(n, "keep_aspect_ratio_policy", "stretch");
    if (strcmp(policy, "stretch") && strcmp(policy, "not_larger") && strcmp(policy, "not_smaller"))
        fatal_at(n, "keep_aspect_ratio_policy '%s' is not one of stretch, not_larger, not_smaller",
                 policy);
    static const char *const ctms[] = {"half_pixel",         "align_corners",
                                       "asymmetric",         "pytorch_half_pixel",
                                       "tf_crop_and_resize", "half_pixel_symmetric"};
    int ct = -1;
    for (int i = 0; i < 6; i++)
        if (!strcmp(ctm, ctms[i]))
            ct = i;
    if (ct < 0 || (ct == 5 && n->opset < 19))
        fatal_at(n, "coordinate_transformation_mode '%s' is not supported", ctm);
    static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    int nm = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(nearest, nms[i]))
            nm = i;
    if (nm < 0)
        fatal_at(n, "nearest_mode '%s' is not supported", nearest);

    /* axes (opset 18) */
    int axes[MAX_RANK], naxes = r;
    const int64_t *ax;
    int nax = attr_ints(n, "axes", &ax);
    if (nax >= 0) {
        if (nax > r)
            fatal_at(n, "axes has more entries than the rank");
        naxes = nax;
        for (int i = 0; i < nax; i++)
            axes[i] = normalize_axis(n, ax[i], r);
    } else {
        for (int i = 0; i < r; i++)
            axes[i] = i;
    }

    /* scales / sizes / roi */
    double scale[MAX_RANK];
    int64_t out[MAX_RANK];
    double roi[2 * MAX_RANK];
    for (int d = 0; d < r; d++) {
        scale[d] = 1.0;
        out[d] = x->dims[d];
        roi[d] = 0.0;
        roi[r + d] = 1.0;
    }
    const Value *scales_v = NULL, *sizes_v = NULL, *roi_v = NULL;
    if (upsample) {
        if (n->opset < 9) {
            const Attr *a = attr_get(n, "scales");
            if (!a || a->type != ATTR_FLOATS)
                fatal_at(n, "attribute 'scales' is required");
            if (a->n != r)
                fatal_at(n, "scales has %d entries for rank %d", a->n, r);
            for (int d = 0; d < r; d++)
                scale[d] = a->floats[d];
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
    if (roi_v && ct == 4) {
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
        p.out_dims[d] = out[d];
        if (out[d] > 0 && x->dims[d] == 0)
            fatal_at(n, "cannot resize an empty dim to %lld", (long long)out[d]);
    }
    if (old && p.mode == 0)
        for (int d = 0; d < r; d++)
            if (scale[d] < 1.0)
                fatal_at(n, "nearest downsampling before opset 11 is not supported (its "
                            "rounding is unspecified)");

    /* taps per dim */
    for (int d = 0; d < r; d++) {
        ResizeDim *rd = &p.d[d];
        const int64_t in = x->dims[d], on = out[d];
        rd->in = in;
        rd->out = on;
        rd->taps = p.mode == 0 ? 1 : p.mode == 1 ? 2 : 4;
        const double aa = scale[d] < 1.0 ? scale[d] : 1.0; /* antialias: filter scale */
        int64_t aa_start = 0;
        if (antialias) {
            /* the reference's footprint: 2 - 2*start taps, start = floor(-support/scale) + 1 */
            double support = p.mode == 1 ? 1.0 : 2.0;
            aa_start = (int64_t)floor(-support / aa) + 1;
            rd->taps = 2 - 2 * aa_start;
            if (rd->taps > 4096)
                fatal_at(n, "antialias filter of %lld taps is too wide", (long long)rd->taps);
        }
        rd->idx = xcalloc((size_t)(on * rd->taps) + 1, sizeof(int64_t));
        rd->w = xcalloc((size_t)(on * rd->taps) + 1, sizeof(float));
        rd->identity = in == on;
        const double s = scale[d], ow = s * (double)in;
        for (int64_t j = 0; j < on; j++) {
            double xo;
            bool extrap = false;
            switch (ct) {
            case 1: /* align_corners */
                xo = ow == 1 ? 0.0 : (double)j * (double)(in - 1) / (ow - 1);
                break;
            case 2: xo = (double)j / s; break;
            case 3: xo = ow == 1 ? -0.5 : ((double)j + 0.5) / s - 0.5; break;
            case 4: {
                double r0 = roi[d], r1 = roi[r + d];
                xo = ow == 1 ? (r1 - r0) * (double)(in - 1) / 2
                             : (double)j * (r1 - r0) * (double)(in - 1) / (ow - 1);
                xo += r0 * (double)(in - 1);
                extrap = xo < 0 || xo > (double)(in - 1);
                break;
            }
            case 5: {
                double adj = (double)on / ow, off = (double)in / 2 * (1 - adj);
                xo = off + ((double)j + 0.5) / s - 0.5;
                break;
            }
            default: xo = ((double)j + 0.5) / s - 0.5; break;
            }
            int64_t *ix = rd->idx + j * rd->taps;
            float *w = rd->w + j * rd->taps;
            if (!(xo > -1e15 && xo < 1e15))
                fatal_at(n, "source coordinate out of range");
            if (extrap) {
                for (int64_t t = 0; t < rd->taps; t++)
                    ix[t] = -1;
                rd->identity = false;
                p.interp = true;
                continue;
            }
            double fl = floor(xo), ratio = xo - fl;
            int64_t f = (int64_t)fl;
            bool integer = xo == fl;
            if (p.mode == 0) {
                int64_t k;
                if (integer)
                    k = f;
                else if (nm == 0)
                    k = ratio <= 0.5 ? f : f + 1;
                else if (nm == 1)
                    k = ratio < 0.5 ? f : f + 1;
                else if (nm == 2)
                    k = f;
                else
                    k = f + 1;
                ix[0] = clamp64(k, 0, in - 1);
                w[0] = 1.0f;
                if (ix[0] != j)
                    rd->identity = false;
                continue;
            }
            double cbuf[4], *c = cbuf;
            int64_t start;
            if (antialias) {
                double rr = integer ? 1.0 : ratio, sum = 0;
                c = xcalloc((size_t)rd->taps, sizeof(double));
                for (int64_t t = 0; t < rd->taps; t++) {
                    double a = fabs(aa * ((double)(aa_start + t) - rr)), v;
                    if (p.mode == 1) {
                        v = 1 - a;
                        v = v < 0 ? 0 : v > 1 ? 1 : v;
                    } else {
                        v = a <= 1  ? (A + 2) * a * a * a - (A + 3) * a * a + 1
                            : a < 2 ? A * a * a * a - 5 * A * a * a + 8 * A * a - 4 * A
                                    : 0.0;
                    }
                    c[t] = v;
                    sum += v;
                }
                for (int64_t t = 0; t < rd->taps; t++)
                    c[t] /= sum;
                start = f - rd->taps / 2 + (integer ? 0 : 1);
            } else if (p.mode == 1) {
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
    if (p.mode != 0)
        p.interp = true;
    if (p.interp && x->dtype != DT_FLOAT)
        fatal_at(n, "%s resizing of type %s is not supported (float32 is)",
                 p.mode == 0 ? "extrapolating nearest" : mode, dtype_name(x->dtype));
    return p;
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
        int64_t outer = 1, inner = 1;
        int d = pass[i];
        for (int k = 0; k < d; k++)
            outer *= prev[k];
        for (int k = d + 1; k < p.rank; k++)
            inner *= prev[k];
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
        int64_t outer = 1, inner = 1;
        int d = pass[i];
        for (int k = 0; k < d; k++)
            outer *= prev[k];
        for (int k = d + 1; k < p.rank; k++)
            inner *= prev[k];
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

/* ---- DepthToSpace, SpaceToDepth: a transpose of a 6-D view ---- */

typedef struct D2SPlan {
    int64_t dims[6];
    int32_t perm[6];
} D2SPlan;

static D2SPlan d2s_plan(const Node *n, int64_t *out_dims)
{
    const Value *x = n->inputs[0];
    if (x->rank != 4)
        fatal_at(n, "input must have rank 4 (NCHW), not %d", x->rank);
    int64_t b = attr_int(n, "blocksize", 0);
    if (b < 1)
        fatal_at(n, "attribute 'blocksize' must be 1 or more");
    int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
    D2SPlan p;
    if (!strcmp(n->op_type, "DepthToSpace")) {
        if (C % (b * b))
            fatal_at(n, "channels (%lld) are not a multiple of blocksize^2", (long long)C);
        int64_t c = C / (b * b);
        const char *mode = attr_string(n, "mode", "DCR");
        if (!strcmp(mode, "DCR")) {
            int64_t d[6] = {N, b, b, c, H, W};
            int32_t q[6] = {0, 3, 4, 1, 5, 2};
            memcpy(p.dims, d, sizeof d);
            memcpy(p.perm, q, sizeof q);
        } else if (!strcmp(mode, "CRD")) {
            int64_t d[6] = {N, c, b, b, H, W};
            int32_t q[6] = {0, 1, 4, 2, 5, 3};
            memcpy(p.dims, d, sizeof d);
            memcpy(p.perm, q, sizeof q);
        } else {
            fatal_at(n, "mode '%s' is not one of DCR, CRD", mode);
        }
        int64_t o[4] = {N, c, checked_mul(n, H, b), checked_mul(n, W, b)};
        memcpy(out_dims, o, sizeof o);
    } else {
        if (H % b || W % b)
            fatal_at(n, "height and width must be multiples of blocksize");
        const char *mode = attr_string(n, "mode", "DCR");
        if (strcmp(mode, "DCR") && strcmp(mode, "CRD"))
            fatal_at(n, "mode '%s' is not one of DCR, CRD", mode);
        bool crd = !strcmp(mode, "CRD");
        int64_t d[6] = {N, C, H / b, b, W / b, b};
        int32_t q[6] = {0, 3, 5, 1, 2, 4};
        if (crd) {
            int32_t q2[6] = {0, 1, 3, 5, 2, 4};
            memcpy(q, q2, sizeof q2);
        }
        memcpy(p.dims, d, sizeof d);
        memcpy(p.perm, q, sizeof q);
        int64_t o[4] = {N, checked_mul(n, C, b * b), H / b, W / b};
        memcpy(out_dims, o, sizeof o);
    }
    return p;
}

void d2s_infer(Node *n)
{
    require_sized(n, n->inputs[0]);
    int64_t out[4];
    d2s_plan(n, out);
    set_shape(n->outputs[0], n->inputs[0]->dtype, 4, out);
}

void d2s_fold(Node *n)
{
    int64_t out[4];
    D2SPlan p = d2s_plan(n, out);
    transpose_bytes(6, p.dims, p.perm, (int64_t)dtype_size(n->inputs[0]->dtype), n->inputs[0]->data,
                    n->outputs[0]->data);
}

void d2s_emit(Emitter *e, Node *n)
{
    int64_t out[4];
    D2SPlan p = d2s_plan(n, out);
    if (!value_numel(n->outputs[0]))
        return;
    const char *dims = emit_dims(e, 6, p.dims);
    const char *pname = xprintf("perm%d", e->counter++);
    println(e, "static const int32_t %s[] = {%d, %d, %d, %d, %d, %d};", pname, p.perm[0], p.perm[1],
            p.perm[2], p.perm[3], p.perm[4], p.perm[5]);
    println(e, "transpose_bytes(6, %s, %s, %d, %s, %s);", dims, pname,
            (int)dtype_size(n->inputs[0]->dtype), value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}

/* ---- OneHot ---- */

static int64_t onehot_depth(const Node *n)
{
    const Value *dv = n->inputs[1];
    require_constant(n, dv, "depth");
    if (value_numel(dv) != 1)
        fatal_at(n, "depth must hold one value");
    double d;
    switch (dv->dtype) {
    case DT_FLOAT: d = *(const float *)dv->data; break;
    case DT_DOUBLE: d = *(const double *)dv->data; break;
    case DT_INT64: d = (double)*(const int64_t *)dv->data; break;
    case DT_INT32: d = *(const int32_t *)dv->data; break;
    default: fatal_at(n, "depth type %s is not supported", dtype_name(dv->dtype));
    }
    if (!(d >= 1 && d < 1e12))
        fatal_at(n, "depth %g is out of range", d);
    return (int64_t)d;
}

static int onehot_idx_type(const Node *n)
{
    switch (n->inputs[0]->dtype) {
    case DT_INT64: return TY_I64;
    case DT_INT32: return TY_I32;
    case DT_FLOAT: return TY_F32;
    case DT_DOUBLE: return TY_F64;
    default:
        fatal_at(n, "indices type %s is not supported (int64, int32, float32, float64 are)",
                 dtype_name(n->inputs[0]->dtype));
    }
}

static int onehot_axis(const Node *n)
{
    return normalize_axis(n, attr_int(n, "axis", -1), n->inputs[0]->rank + 1);
}

void onehot_infer(Node *n)
{
    const Value *idx = n->inputs[0], *vals = n->inputs[2];
    onehot_idx_type(n);
    require_sized(n, vals);
    if (value_numel(vals) != 2)
        fatal_at(n, "values must hold two elements (off, on)");
    if (idx->rank + 1 > MAX_RANK)
        fatal_at(n, "output rank is more than %d", MAX_RANK);
    int axis = onehot_axis(n);
    int64_t dims[MAX_RANK];
    for (int d = 0, k = 0; d <= idx->rank; d++)
        dims[d] = d == axis ? onehot_depth(n) : idx->dims[k++];
    set_shape(n->outputs[0], vals->dtype, idx->rank + 1, dims);
}

static void onehot_geometry(const Node *n, int64_t *outer, int64_t *inner)
{
    const Value *y = n->outputs[0];
    int64_t depth;
    split_at(y, onehot_axis(n), outer, &depth, inner);
}

void onehot_fold(Node *n)
{
    int64_t outer, inner;
    onehot_geometry(n, &outer, &inner);
    one_hot_bytes(outer, onehot_depth(n), inner, onehot_idx_type(n), n->inputs[0]->data,
                  (int64_t)dtype_size(n->inputs[2]->dtype), n->inputs[2]->data,
                  n->outputs[0]->data);
}

void onehot_emit(Emitter *e, Node *n)
{
    int64_t outer, inner;
    onehot_geometry(n, &outer, &inner);
    if (!value_numel(n->outputs[0]))
        return;
    println(e, "one_hot_bytes(%lld, %lld, %lld, %d, %s, %d, %s, %s);", (long long)outer,
            (long long)onehot_depth(n), (long long)inner, onehot_idx_type(n),
            value_cname(e, n->inputs[0]), (int)dtype_size(n->inputs[2]->dtype),
            value_cname(e, n->inputs[2]), value_cname(e, n->outputs[0]));
}

/* ---- Trilu ---- */

static int64_t trilu_k(const Node *n)
{
    const Value *k = node_input(n, 1);
    if (!k || !k->data)
        return 0; /* absent, or read at run time (trilu_k_cname) */
    int c;
    int64_t *v = const_ints(n, k, &c);
    if (c != 1)
        fatal_at(n, "k must hold one value");
    return v[0];
}

/* k as a C expression: the constant, or the first element of the run-time input. */
static const char *trilu_k_cname(Emitter *e, const Node *n)
{
    Value *k = node_input(n, 1);
    if (!k || k->data)
        return xprintf("%lld", (long long)trilu_k(n));
    return xprintf("(int64_t)%s[0]", value_cname(e, k));
}

void trilu_infer(Node *n)
{
    const Value *x = n->inputs[0], *k = node_input(n, 1);
    require_sized(n, x);
    if (x->rank < 2)
        fatal_at(n, "input must have rank 2 or more");
    if (k && (k->dtype != DT_INT64 || value_numel(k) != 1))
        fatal_at(n, "k must be one int64 value");
    trilu_k(n);
    same_shape_infer(n);
}

static void trilu_geometry(const Value *x, int64_t *batch, int64_t *rows, int64_t *cols)
{
    *rows = x->dims[x->rank - 2];
    *cols = x->dims[x->rank - 1];
    *batch = 1;
    for (int d = 0; d < x->rank - 2; d++)
        *batch *= x->dims[d];
}

void trilu_fold(Node *n)
{
    const Value *x = n->inputs[0];
    int64_t b, r, c;
    trilu_geometry(x, &b, &r, &c);
    trilu_bytes(b, r, c, trilu_k(n), attr_int(n, "upper", 1) != 0, (int64_t)dtype_size(x->dtype),
                x->data, n->outputs[0]->data);
}

void trilu_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    int64_t b, r, c;
    trilu_geometry(x, &b, &r, &c);
    if (!value_numel(x))
        return;
    println(e, "trilu_bytes(%lld, %lld, %lld, %s, %d, %d, %s, %s);", (long long)b, (long long)r,
            (long long)c, trilu_k_cname(e, n), attr_int(n, "upper", 1) != 0,
            (int)dtype_size(x->dtype), value_cname(e, x), value_cname(e, n->outputs[0]));
}

/* ---- EyeLike: its value depends only on the input's shape, so it is always a constant ---- */

static void store_one(DType t, void *p, int64_t i)
{
    switch (t) {
    case DT_FLOAT: ((float *)p)[i] = 1.0f; break;
    case DT_DOUBLE: ((double *)p)[i] = 1.0; break;
    case DT_FLOAT16: ((uint16_t *)p)[i] = 0x3c00; break;
    case DT_BFLOAT16: ((uint16_t *)p)[i] = 0x3f80; break;
    case DT_INT8:
    case DT_UINT8:
    case DT_BOOL: ((uint8_t *)p)[i] = 1; break;
    case DT_INT16:
    case DT_UINT16: ((uint16_t *)p)[i] = 1; break;
    case DT_INT32:
    case DT_UINT32: ((uint32_t *)p)[i] = 1; break;
    case DT_INT64:
    case DT_UINT64: ((uint64_t *)p)[i] = 1; break;
    default: break;
    }
}

void eyelike_infer(Node *n)
{
    const Value *x = n->inputs[0];
    if (x->rank != 2)
        fatal_at(n, "input must have rank 2, not %d", x->rank);
    DType t = (DType)attr_int(n, "dtype", x->dtype);
    if (!dtype_size(t) || t == DT_STRING)
        fatal_at(n, "dtype %s is not supported", dtype_name(t));
    Value *y = n->outputs[0];
    set_shape(y, t, 2, x->dims);
    y->data = xcalloc(1, (size_t)value_bytes(y) + 1);
    int64_t k = attr_int(n, "k", 0);
    for (int64_t r = 0; r < x->dims[0]; r++)
        if (r + k >= 0 && r + k < x->dims[1])
            store_one(t, y->data, r * x->dims[1] + r + k);
}

void eyelike_fold(Node *n)
{
    (void)n; /* computed by eyelike_infer */
}

/* ---- Compress: a constant condition makes it a Gather ---- */

typedef struct CompressPlan {
    int axis; /* -1: flattened */
    int64_t count, *idx;
} CompressPlan;

static CompressPlan compress_plan(const Node *n)
{
    const Value *x = n->inputs[0], *c = n->inputs[1];
    require_constant(n, c, "condition");
    if (c->dtype != DT_BOOL)
        fatal_at(n, "condition must be bool, not %s", dtype_name(c->dtype));
    if (c->rank != 1)
        fatal_at(n, "condition must be 1-D");
    CompressPlan p = {-1, 0, NULL};
    const Attr *a = attr_get(n, "axis");
    int64_t len = value_numel(x);
    if (a) {
        p.axis = normalize_axis(n, a->i, x->rank);
        len = x->dims[p.axis];
    }
    int64_t cl = value_numel(c);
    p.idx = xcalloc((size_t)(cl < len ? cl : len) + 1, sizeof(int64_t));
    for (int64_t i = 0; i < cl && i < len; i++)
        if (((const uint8_t *)c->data)[i])
            p.idx[p.count++] = i;
    return p;
}

void compress_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_sized(n, x);
    CompressPlan p = compress_plan(n);
    if (p.axis < 0) {
        set_shape(n->outputs[0], x->dtype, 1, &p.count);
    } else {
        int64_t dims[MAX_RANK];
        memcpy(dims, x->dims, sizeof dims);
        dims[p.axis] = p.count;
        set_shape(n->outputs[0], x->dtype, x->rank, dims);
    }
}

static void compress_geometry(const Node *n, const CompressPlan *p, int64_t *outer,
                              int64_t *axis_len, int64_t *inner_bytes)
{
    const Value *x = n->inputs[0];
    if (p->axis < 0) {
        *outer = 1;
        *axis_len = value_numel(x);
        *inner_bytes = (int64_t)dtype_size(x->dtype);
        return;
    }
    int64_t inner;
    split_at(x, p->axis, outer, axis_len, &inner);
    *inner_bytes = inner * (int64_t)dtype_size(x->dtype);
}

void compress_fold(Node *n)
{
    CompressPlan p = compress_plan(n);
    int64_t outer, len, inner;
    compress_geometry(n, &p, &outer, &len, &inner);
    gather_bytes(outer, len, inner, n->inputs[0]->data, p.idx, p.count, n->outputs[0]->data);
}

void compress_emit(Emitter *e, Node *n)
{
    CompressPlan p = compress_plan(n);
    int64_t outer, len, inner;
    compress_geometry(n, &p, &outer, &len, &inner);
    if (!value_numel(n->outputs[0]))
        return;
    const char *idx = emit_constant(e, DT_INT64, 1, &p.count, p.idx);
    println(e, "gather_bytes(%lld, %lld, %lld, %s, %s, %lld, %s);", (long long)outer,
            (long long)len, (long long)inner, value_cname(e, n->inputs[0]), idx, (long long)p.count,
            value_cname(e, n->outputs[0]));
}

/* ---- NonZero: the output's shape depends on the data, so only constant inputs work ---- */

static bool element_nonzero(const Value *x, int64_t i)
{
    size_t s = dtype_size(x->dtype);
    const unsigned char *p = (const unsigned char *)x->data + (size_t)i * s;
    if (x->dtype == DT_FLOAT) {
        float f;
        memcpy(&f, p, 4);
        return f != 0.0f;
    }
    if (x->dtype == DT_DOUBLE) {
        double f;
        memcpy(&f, p, 8);
        return f != 0.0;
    }
    if (x->dtype == DT_FLOAT16 || x->dtype == DT_BFLOAT16) {
        uint16_t h;
        memcpy(&h, p, 2);
        return (h & 0x7fff) != 0;
    }
    for (size_t k = 0; k < s; k++)
        if (p[k])
            return true;
    return false;
}

void nonzero_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_sized(n, x);
    require_constant(n, x, "input (its output shape depends on the data)");
    int64_t total = value_numel(x), count = 0;
    for (int64_t i = 0; i < total; i++)
        count += element_nonzero(x, i);
    int r = x->rank ? x->rank : 1;
    int64_t dims[2] = {r, count};
    Value *y = n->outputs[0];
    set_shape(y, DT_INT64, 2, dims);
    int64_t *out = xcalloc((size_t)(r * count) + 1, sizeof(int64_t));
    int64_t k = 0;
    for (int64_t i = 0; i < total; i++) {
        if (!element_nonzero(x, i))
            continue;
        int64_t rem = i;
        for (int d = x->rank - 1; d >= 0; d--) {
            out[d * count + k] = rem % x->dims[d];
            rem /= x->dims[d];
        }
        k++;
    }
    y->data = out;
}

void nonzero_fold(Node *n)
{
    (void)n; /* computed by nonzero_infer */
}

/* ---- CumSum, CumProd ---- */

static int cumsum_axis(const Node *n)
{
    const Value *av = n->inputs[1];
    if (!av->data) {
        if ((av->dtype != DT_INT64 && av->dtype != DT_INT32) || value_numel(av) != 1)
            fatal_at(n, "axis must be one int64 or int32 value");
        return -1; /* chosen at run time (cumsum_emit) */
    }
    int c;
    int64_t *a = const_ints(n, n->inputs[1], &c);
    if (c != 1)
        fatal_at(n, "axis must hold one value");
    return normalize_axis(n, a[0], n->inputs[0]->rank);
}

void cumsum_infer(Node *n)
{
    type_suffix(n, n->inputs[0]->dtype, "input");
    if (n->inputs[0]->rank < 1)
        fatal_at(n, "input must have rank 1 or more");
    cumsum_axis(n);
    same_shape_infer(n);
}

void cumsum_fold(Node *n)
{
    const Value *x = n->inputs[0];
    int64_t outer, len, inner;
    split_at(x, cumsum_axis(n), &outer, &len, &inner);
    int ex = attr_int(n, "exclusive", 0) != 0, rev = attr_int(n, "reverse", 0) != 0;
    void *y = n->outputs[0]->data;
    bool prod = !strcmp(n->op_type, "CumProd");
    if (x->dtype == DT_FLOAT)
        (prod ? cumprod_f32 : cumsum_f32)(outer, len, inner, ex, rev, x->data, y);
    else if (x->dtype == DT_DOUBLE)
        (prod ? cumprod_f64 : cumsum_f64)(outer, len, inner, ex, rev, x->data, y);
    else if (x->dtype == DT_INT32)
        (prod ? cumprod_i32 : cumsum_i32)(outer, len, inner, ex, rev, x->data, y);
    else
        (prod ? cumprod_i64 : cumsum_i64)(outer, len, inner, ex, rev, x->data, y);
}

/* A run-time axis selects one of the rank calls; an axis out of range leaves y zero. */
void cumsum_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *y = n->outputs[0];
    int axis = cumsum_axis(n);
    if (!value_numel(x))
        return;
    const char *sfx = type_suffix(n, x->dtype, "input");
    int ex = attr_int(n, "exclusive", 0) != 0, rev = attr_int(n, "reverse", 0) != 0;
    int first = axis >= 0 ? axis : 0, last = axis >= 0 ? axis : x->rank - 1;
    if (axis < 0) {
        println(e, "{");
        e->indent++;
        println(e, "const int64_t axis = (int64_t)%s[0];", value_cname(e, n->inputs[1]));
        println(e, "memset(%s, 0, %lld);", value_cname(e, y), (long long)value_bytes(y));
    }
    for (int a = first; a <= last; a++) {
        int64_t outer, len, inner;
        split_at(x, a, &outer, &len, &inner);
        if (axis < 0)
            println(e, "%sif (axis == %d || axis == %d)", a == first ? "" : "else ", a,
                    a - x->rank);
        println(e, "%scum%s_%s(%lld, %lld, %lld, %d, %d, %s, %s);", axis < 0 ? "    " : "",
                strcmp(n->op_type, "CumProd") ? "sum" : "prod", sfx, (long long)outer,
                (long long)len, (long long)inner, ex, rev, value_cname(e, x), value_cname(e, y));
    }
    if (axis < 0) {
        e->indent--;
        println(e, "}");
    }
}

/* ---- ArgMax, ArgMin ---- */

static int arg_axis(const Node *n)
{
    return normalize_axis(n, attr_int(n, "axis", 0), n->inputs[0]->rank);
}

void arg_infer(Node *n)
{
    const Value *x = n->inputs[0];
    type_suffix(n, x->dtype, "input");
    if (x->rank < 1)
        fatal_at(n, "input must have rank 1 or more");
    int axis = arg_axis(n);
    if (x->dims[axis] == 0)
        fatal_at(n, "the reduced axis is empty");
    if (attr_int(n, "select_last_index", 0) && n->opset < 12)
        fatal_at(n, "select_last_index needs opset 12");
    int64_t dims[MAX_RANK];
    int r = 0;
    bool keep = attr_int(n, "keepdims", 1) != 0;
    for (int d = 0; d < x->rank; d++)
        if (d != axis)
            dims[r++] = x->dims[d];
        else if (keep)
            dims[r++] = 1;
    set_shape(n->outputs[0], DT_INT64, r, dims);
}

void arg_fold(Node *n)
{
    const Value *x = n->inputs[0];
    int64_t outer, len, inner;
    split_at(x, arg_axis(n), &outer, &len, &inner);
    int is_min = !strcmp(n->op_type, "ArgMin"), last = attr_int(n, "select_last_index", 0) != 0;
    int64_t *y = n->outputs[0]->data;
    switch (x->dtype) {
    case DT_FLOAT: arg_f32(outer, len, inner, is_min, last, x->data, y); break;
    case DT_DOUBLE: arg_f64(outer, len, inner, is_min, last, x->data, y); break;
    case DT_INT32: arg_i32(outer, len, inner, is_min, last, x->data, y); break;
    default: arg_i64(outer, len, inner, is_min, last, x->data, y); break;
    }
}

void arg_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    int64_t outer, len, inner;
    split_at(x, arg_axis(n), &outer, &len, &inner);
    println(e, "arg_%s(%lld, %lld, %lld, %d, %d, %s, %s);", type_suffix(n, x->dtype, "input"),
            (long long)outer, (long long)len, (long long)inner, !strcmp(n->op_type, "ArgMin"),
            attr_int(n, "select_last_index", 0) != 0, value_cname(e, x),
            value_cname(e, n->outputs[0]));
}

/* ---- TopK ---- */

static int64_t topk_k(const Node *n)
{
    if (n->opset < 10) {
        if (!attr_get(n, "k"))
            fatal_at(n, "attribute 'k' is required");
        return attr_int(n, "k", 0);
    }
    if (n->ninputs < 2 || !n->inputs[1])
        fatal_at(n, "input K is required");
    int c;
    int64_t *k = const_ints(n, n->inputs[1], &c);
    if (c != 1)
        fatal_at(n, "K must hold one value");
    return k[0];
}

static const char *topk_suffix(const Node *n)
{
    return n->inputs[0]->dtype == DT_UINT64 ? "u64" : type_suffix(n, n->inputs[0]->dtype, "input");
}

void topk_infer(Node *n)
{
    const Value *x = n->inputs[0];
    topk_suffix(n);
    if (x->rank < 1)
        fatal_at(n, "input must have rank 1 or more");
    int axis = normalize_axis(n, attr_int(n, "axis", -1), x->rank);
    int64_t k = topk_k(n);
    if (k < 0 || k > x->dims[axis])
        fatal_at(n, "k %lld is out of range for an axis of %lld", (long long)k,
                 (long long)x->dims[axis]);
    if (n->noutputs != 2)
        fatal_at(n, "needs two outputs");
    int64_t dims[MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = k;
    set_shape(n->outputs[0], x->dtype, x->rank, dims);
    set_shape(n->outputs[1], DT_INT64, x->rank, dims);
}

void topk_fold(Node *n)
{
    const Value *x = n->inputs[0];
    int64_t outer, len, inner;
    split_at(x, normalize_axis(n, attr_int(n, "axis", -1), x->rank), &outer, &len, &inner);
    int64_t k = topk_k(n);
    int largest = attr_int(n, "largest", 1) != 0;
    void *v = n->outputs[0]->data;
    int64_t *ix = n->outputs[1]->data;
    switch (x->dtype) {
    case DT_FLOAT: topk_f32(outer, len, inner, k, largest, x->data, v, ix); break;
    case DT_DOUBLE: topk_f64(outer, len, inner, k, largest, x->data, v, ix); break;
    case DT_INT32: topk_i32(outer, len, inner, k, largest, x->data, v, ix); break;
    case DT_UINT64: topk_u64(outer, len, inner, k, largest, x->data, v, ix); break;
    default: topk_i64(outer, len, inner, k, largest, x->data, v, ix); break;
    }
}

void topk_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    int64_t outer, len, inner;
    split_at(x, normalize_axis(n, attr_int(n, "axis", -1), x->rank), &outer, &len, &inner);
    if (!value_numel(n->outputs[0]))
        return;
    println(e, "topk_%s(%lld, %lld, %lld, %lld, %d, %s, %s, %s);", topk_suffix(n), (long long)outer,
            (long long)len, (long long)inner, (long long)topk_k(n), attr_int(n, "largest", 1) != 0,
            value_cname(e, x), value_cname(e, n->outputs[0]), value_cname(e, n->outputs[1]));
}

/* ---- Hardmax: along `axis` from opset 13; before, on the 2-D flattening at `axis` ---- */

static void hardmax_geometry(const Node *n, int64_t *outer, int64_t *len, int64_t *inner)
{
    const Value *x = n->inputs[0];
    if (n->opset >= 13) {
        split_at(x, normalize_axis(n, attr_int(n, "axis", -1), x->rank), outer, len, inner);
        return;
    }
    int64_t a = attr_int(n, "axis", 1);
    if (a < -x->rank || a > x->rank)
        fatal_at(n, "axis %lld is out of range", (long long)a);
    int axis = (int)(a < 0 ? a + x->rank : a);
    *outer = 1;
    *len = 1;
    *inner = 1;
    for (int d = 0; d < x->rank; d++) {
        if (d < axis)
            *outer *= x->dims[d];
        else
            *len *= x->dims[d];
    }
}

void hardmax_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    if (n->inputs[0]->rank < 1)
        fatal_at(n, "input must have rank 1 or more");
    int64_t o, l, i;
    hardmax_geometry(n, &o, &l, &i);
    same_shape_infer(n);
}

void hardmax_fold(Node *n)
{
    int64_t o, l, i;
    hardmax_geometry(n, &o, &l, &i);
    hardmax_f32(o, l, i, n->inputs[0]->data, n->outputs[0]->data);
}

void hardmax_emit(Emitter *e, Node *n)
{
    int64_t o, l, i;
    hardmax_geometry(n, &o, &l, &i);
    println(e, "hardmax_f32(%lld, %lld, %lld, %s, %s);", (long long)o, (long long)l, (long long)i,
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}

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

/* ---- Einsum: one or two operands; every letter of the output is a loop dim, every other
 * letter a reduction dim, summed in the order of first appearance in the equation (the
 * flattened reduction index is row-major over them, ascending). "..." stands for the same
 * leading dims in every operand. ---- */

typedef struct EinsumPlan {
    int nops;
    int out_rank, red_rank;
    int64_t out_dims[MAX_RANK], red_dims[MAX_RANK];
    int64_t out_s[2][MAX_RANK], red_s[2][MAX_RANK];
} EinsumPlan;

/* The letters of one term, with "..." expanded into the digits '0', '1', ... (one per
 * ellipsis dim; digits are not letters, so they cannot clash with the equation's). */
static char *einsum_term(const Node *n, const char *s, size_t len, int ell_rank)
{
    char *t = xcalloc(len + MAX_RANK + 1, 1);
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == ' ')
            continue;
        if (s[i] == '.') {
            if (i + 2 >= len + 0 || s[i + 1] != '.' || s[i + 2] != '.')
                fatal_at(n, "malformed '...' in the equation");
            for (int e = 0; e < ell_rank; e++)
                t[k++] = (char)('0' + e);
            i += 2;
            continue;
        }
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
            fatal_at(n, "unexpected character '%c' in the equation", s[i]);
        t[k++] = s[i];
    }
    return t;
}

static bool has_ellipsis(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == '.')
            return true;
    return false;
}

static int term_letters(const char *s, size_t len)
{
    int c = 0;
    for (size_t i = 0; i < len; i++)
        if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))
            c++;
    return c;
}

static EinsumPlan einsum_plan(const Node *n, int64_t *out_dims_for_infer, int *out_rank)
{
    const char *eq = attr_string(n, "equation", NULL);
    if (!eq)
        fatal_at(n, "attribute 'equation' is required");
    int nops = n->ninputs;
    if (nops < 1 || nops > 2)
        fatal_at(n, "%d operands are not supported (1 or 2 are)", nops);
    const char *arrow = strstr(eq, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - eq) : strlen(eq);
    /* split the operand terms */
    const char *terms[2];
    size_t tlen[2];
    int nt = 0;
    const char *p = eq;
    while (1) {
        const char *comma = memchr(p, ',', lhs_len - (size_t)(p - eq));
        size_t l = comma ? (size_t)(comma - p) : lhs_len - (size_t)(p - eq);
        if (nt >= 2)
            fatal_at(n, "the equation has more operand terms than inputs");
        terms[nt] = p;
        tlen[nt++] = l;
        if (!comma)
            break;
        p = comma + 1;
    }
    if (nt != nops)
        fatal_at(n, "the equation has %d operand terms for %d inputs", nt, nops);
    char *ops[2];
    int ell = -1;
    for (int i = 0; i < nops; i++) {
        const Value *v = n->inputs[i];
        bool has_ell = has_ellipsis(terms[i], tlen[i]);
        int letters = term_letters(terms[i], tlen[i]);
        int er = has_ell ? v->rank - letters : 0;
        if (has_ell && (er < 0 || (ell >= 0 && er != ell)))
            fatal_at(n, "'...' stands for different ranks in the operands");
        if (has_ell)
            ell = er;
        ops[i] = einsum_term(n, terms[i], tlen[i], er);
        if ((int)strlen(ops[i]) != v->rank)
            fatal_at(n, "term %d has %d letters for an input of rank %d", i, (int)strlen(ops[i]),
                     v->rank);
    }
    if (ell < 0)
        ell = 0;
    /* letter sizes */
    int64_t size[128];
    for (int c = 0; c < 128; c++)
        size[c] = -1;
    for (int i = 0; i < nops; i++)
        for (int d = 0; ops[i][d]; d++) {
            int c = (unsigned char)ops[i][d];
            int64_t s = n->inputs[i]->dims[d];
            if (size[c] >= 0 && size[c] != s) {
                if (size[c] == 1 || s == 1) {
                    fatal_at(n, "broadcasting letter '%c' is not supported", c);
                }
                fatal_at(n, "letter '%c' has sizes %lld and %lld", c, (long long)size[c],
                         (long long)s);
            }
            size[c] = s;
        }
    char *out;
    if (arrow) {
        const char *rhs = arrow + 2;
        out = einsum_term(n, rhs, strlen(rhs), ell);
    } else {
        /* implicit output: "..." then letters appearing once, alphabetically */
        out = xcalloc(64 + MAX_RANK, 1);
        int k = 0;
        for (int e = 0; e < ell; e++)
            out[k++] = (char)('0' + e);
        for (int c = 'A'; c <= 'z'; c++) {
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                continue;
            int count = 0;
            for (int i = 0; i < nops; i++)
                for (int d = 0; ops[i][d]; d++)
                    count += ops[i][d] == c;
            if (count == 1)
                out[k++] = (char)c;
        }
    }
    EinsumPlan pl = {0};
    pl.nops = nops;
    int orank = (int)strlen(out);
    if (orank > MAX_RANK)
        fatal_at(n, "output rank is more than %d", MAX_RANK);
    bool used[128] = {false};
    for (int d = 0; d < orank; d++) {
        int c = (unsigned char)out[d];
        if (size[c] < 0)
            fatal_at(n, "output letter '%c' is not in any operand", c);
        if (used[c])
            fatal_at(n, "output letter '%c' is repeated", c);
        used[c] = true;
        pl.out_dims[d] = size[c];
    }
    pl.out_rank = orank;
    /* reduction letters in order of first appearance */
    char red[64];
    int nr = 0;
    for (int i = 0; i < nops; i++)
        for (int d = 0; ops[i][d]; d++) {
            int c = (unsigned char)ops[i][d];
            if (!used[c]) {
                used[c] = true;
                if (nr >= MAX_RANK)
                    fatal_at(n, "more than %d summed letters", MAX_RANK);
                red[nr] = (char)c;
                pl.red_dims[nr++] = size[c];
            }
        }
    pl.red_rank = nr;
    for (int i = 0; i < nops; i++) {
        const Value *v = n->inputs[i];
        int64_t st[MAX_RANK], s = 1;
        for (int d = v->rank - 1; d >= 0; d--) {
            st[d] = s;
            s *= v->dims[d];
        }
        for (int d = 0; d < v->rank; d++) {
            for (int o = 0; o < orank; o++)
                if (out[o] == ops[i][d])
                    pl.out_s[i][o] += st[d];
            for (int r = 0; r < nr; r++)
                if (red[r] == ops[i][d])
                    pl.red_s[i][r] += st[d];
        }
    }
    if (out_dims_for_infer) {
        memcpy(out_dims_for_infer, pl.out_dims, sizeof pl.out_dims);
        *out_rank = orank;
    }
    return pl;
}

void einsum_infer(Node *n)
{
    for (int i = 0; i < n->ninputs; i++)
        if (!n->inputs[i])
            fatal_at(n, "operand %d is missing (its name is empty)", i);
    if (half_infer(n, einsum_infer))
        return;
    DType t = n->inputs[0]->dtype;
    if (t != DT_FLOAT && t != DT_DOUBLE)
        fatal_at(n, "type %s is not supported (float32, float64 are)", dtype_name(t));
    for (int i = 1; i < n->ninputs; i++)
        if (n->inputs[i]->dtype != t)
            fatal_at(n, "operands have different types");
    int64_t dims[MAX_RANK];
    int r;
    einsum_plan(n, dims, &r);
    set_shape(n->outputs[0], t, r, dims);
}

void einsum_fold(Node *n)
{
    if (half_fold(n, einsum_fold))
        return;
    EinsumPlan p = einsum_plan(n, NULL, NULL);
    const void *b = p.nops == 2 ? n->inputs[1]->data : NULL;
    if (n->inputs[0]->dtype == DT_FLOAT)
        einsum_f32(p.out_rank, p.out_dims, p.out_s[0], p.out_s[1], p.red_rank, p.red_dims,
                   p.red_s[0], p.red_s[1], n->inputs[0]->data, b, n->outputs[0]->data);
    else
        einsum_f64(p.out_rank, p.out_dims, p.out_s[0], p.out_s[1], p.red_rank, p.red_dims,
                   p.red_s[0], p.red_s[1], n->inputs[0]->data, b, n->outputs[0]->data);
}

void einsum_emit(Emitter *e, Node *n)
{
    EinsumPlan p = einsum_plan(n, NULL, NULL);
    if (!value_numel(n->outputs[0]))
        return;
    const char *od = emit_dims(e, p.out_rank, p.out_dims);
    const char *oa = emit_dims(e, p.out_rank, p.out_s[0]),
               *ob = emit_dims(e, p.out_rank, p.out_s[1]);
    const char *rd = emit_dims(e, p.red_rank, p.red_dims);
    const char *ra = emit_dims(e, p.red_rank, p.red_s[0]),
               *rb = emit_dims(e, p.red_rank, p.red_s[1]);
    bool f32 = n->inputs[0]->dtype == DT_FLOAT;
    println(e, "einsum_%s(%d, %s, %s, %s, %d, %s, %s, %s, %s, %s, %s);", f32 ? "f32" : "f64",
            p.out_rank, od, oa, ob, p.red_rank, rd, ra, rb, value_cname(e, n->inputs[0]),
            p.nops == 2 ? value_cname(e, n->inputs[1])
                        : (f32 ? "(const float *)0" : "(const double *)0"),
            value_cname(e, n->outputs[0]));
}

double einsum_flops(const Node *n)
{
    EinsumPlan p = einsum_plan(n, NULL, NULL);
    double f = 2;
    for (int d = 0; d < p.out_rank; d++)
        f *= (double)p.out_dims[d];
    for (int d = 0; d < p.red_rank; d++)
        f *= (double)p.red_dims[d];
    return f;
}
