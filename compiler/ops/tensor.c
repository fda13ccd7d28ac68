/* tensor.c — comparisons and logic (Equal, Less, Greater, LessOrEqual, GreaterOrEqual,
 * Not, And, Or, Xor, Where), Cast and CastLike, the strided copies (Slice, Split, Expand,
 * Tile), and the ops that only ever fold (Size, ConstantOfShape, Range). The kernels are in
 * templates/tensor.c; this file also holds the loop-space helpers the broadcasting kernels
 * of math.c and tensor.c share (broadcast_loop). */
#include "kernels.h"
#include "ops.h"

#include <string.h>

/* ---- loop spaces ---- */

/* The iteration space of a broadcasting kernel: output y's dims and each operand's element
 * strides (0 where broadcast), with size-1 dims dropped and neighbouring dims merged where
 * every operand steps through them as through one (y is contiguous, so it always can). */
LoopSpace broadcast_loop(const Value *y, int nops, Value *const *operands)
{
    int64_t s[3][MAX_RANK];
    for (int k = 0; k < nops; k++)
        broadcast_strides(operands[k], y->rank, y->dims, s[k]);
    LoopSpace l = {0};
    for (int d = 0; d < y->rank; d++) {
        if (y->dims[d] == 1)
            continue;
        bool merge = l.rank > 0;
        for (int k = 0; k < nops && merge; k++)
            merge = l.strides[k][l.rank - 1] == s[k][d] * y->dims[d];
        if (merge) {
            l.dims[l.rank - 1] *= y->dims[d];
            for (int k = 0; k < nops; k++)
                l.strides[k][l.rank - 1] = s[k][d];
        } else {
            l.dims[l.rank] = y->dims[d];
            for (int k = 0; k < nops; k++)
                l.strides[k][l.rank] = s[k][d];
            l.rank++;
        }
    }
    if (l.rank == 0) { /* one element */
        l.dims[0] = 1;
        l.rank = 1;
    }
    return l;
}

/* Emits a call NAME(rank, dims, strides of each operand, ARGS...). */
static void emit_loop_call(Emitter *e, const char *kernel, const LoopSpace *l, int nops,
                           const char *rest)
{
    const char *dims = emit_dims(e, l->rank, l->dims);
    const char *s[3];
    for (int k = 0; k < nops; k++)
        s[k] = emit_dims(e, l->rank, l->strides[k]);
    if (nops == 2)
        println(e, "%s(%d, %s, %s, %s, %s);", kernel, l->rank, dims, s[0], s[1], rest);
    else
        println(e, "%s(%d, %s, %s, %s, %s, %s);", kernel, l->rank, dims, s[0], s[1], s[2], rest);
}

void emit_broadcast_binary(Emitter *e, Node *n, const char *kernel)
{
    Value *y = n->outputs[0];
    LoopSpace l = broadcast_loop(y, 2, n->inputs);
    emit_loop_call(e, kernel, &l, 2,
                   xprintf("%s, %s, %s", value_cname(e, n->inputs[0]), value_cname(e, n->inputs[1]),
                           value_cname(e, y)));
}

/* A strided copy y[i] = x[offset + sum i_d*strides[d]] (see strided_gather_bytes); up to 16
 * dims because Tile splits every dim in two. */
typedef struct CopyPlan {
    int rank;
    int64_t dims[2 * MAX_RANK], strides[2 * MAX_RANK], offset;
} CopyPlan;

/* Drops size-1 dims and merges neighbours that are contiguous in x too. */
static void copy_plan_simplify(CopyPlan *p)
{
    int r = 0;
    for (int d = 0; d < p->rank; d++) {
        if (p->dims[d] == 1)
            continue;
        if (r > 0 && p->strides[r - 1] == p->strides[d] * p->dims[d]) {
            p->dims[r - 1] *= p->dims[d];
            p->strides[r - 1] = p->strides[d];
        } else {
            p->dims[r] = p->dims[d];
            p->strides[r] = p->strides[d];
            r++;
        }
    }
    if (r == 0) {
        p->dims[0] = 1;
        p->strides[0] = 1;
        r = 1;
    }
    p->rank = r;
}

/* Row-major element strides of a value. */
static void value_strides(const Value *v, int64_t *s)
{
    int64_t st = 1;
    for (int d = v->rank - 1; d >= 0; d--) {
        s[d] = st;
        st *= v->dims[d];
    }
}

static void copy_plan_fold(CopyPlan p, const Value *x, Value *y)
{
    copy_plan_simplify(&p);
    strided_gather_bytes(p.rank, p.dims, p.strides, p.offset, (int64_t)dtype_size(x->dtype),
                         x->data, y->data);
}

static void copy_plan_emit(Emitter *e, CopyPlan p, Value *x, Value *y)
{
    copy_plan_simplify(&p);
    if (!value_numel(y))
        return;
    const char *dims = emit_dims(e, p.rank, p.dims), *strides = emit_dims(e, p.rank, p.strides);
    println(e, "strided_gather_bytes(%d, %s, %s, %lld, %d, %s, %s);", p.rank, dims, strides,
            (long long)p.offset, (int)dtype_size(x->dtype), value_cname(e, x), value_cname(e, y));
}

/* ---- element types ---- */

/* Types the comparison and Cast kernels know, in the order of their kernel suffixes. */
static const struct {
    DType t;
    const char *suffix;
} tensor_types[] = {
    {DT_FLOAT, "f32"}, {DT_DOUBLE, "f64"}, {DT_INT8, "i8"},   {DT_UINT8, "u8"},
    {DT_INT16, "i16"}, {DT_UINT16, "u16"}, {DT_INT32, "i32"}, {DT_UINT32, "u32"},
    {DT_INT64, "i64"}, {DT_UINT64, "u64"}, {DT_BOOL, "u8"},
};
#define NUM_TENSOR_TYPES ((int)(sizeof tensor_types / sizeof tensor_types[0]))

static int tensor_type_index(DType t)
{
    for (int i = 0; i < NUM_TENSOR_TYPES; i++)
        if (tensor_types[i].t == t)
            return i;
    return -1;
}

static bool is_float_type(DType t)
{
    return t == DT_FLOAT || t == DT_DOUBLE;
}

static void require_numeric(const Node *n, const Value *v, bool allow_bool)
{
    int i = tensor_type_index(v->dtype);
    if (i < 0 || (!allow_bool && v->dtype == DT_BOOL))
        fatal_at(n,
                 "input '%s' has type %s, which this op does not support (float32, float64, "
                 "[u]int8..64%s are)",
                 v->name, dtype_name(v->dtype), allow_bool ? ", bool" : "");
}

/* ---- comparisons: Equal, Less, Greater, LessOrEqual, GreaterOrEqual ---- */

typedef void (*CompareFn)(int, const int64_t *, const int64_t *, const int64_t *, const void *,
                          const void *, uint8_t *);

#define COMPARE_ROW(op)                                                                            \
    {                                                                                              \
        op##_f32, op##_f64, op##_i8, op##_u8, op##_i16, op##_u16, op##_i32, op##_u32, op##_i64,    \
            op##_u64, op##_u8                                                                      \
    }

static const struct {
    const char *op, *kernel;
    CompareFn fns[NUM_TENSOR_TYPES];
} compare_ops[] = {
    {"Equal", "equal", COMPARE_ROW(equal)},
    {"Less", "less", COMPARE_ROW(less)},
    {"Greater", "greater", COMPARE_ROW(greater)},
    {"LessOrEqual", "less_equal", COMPARE_ROW(less_equal)},
    {"GreaterOrEqual", "greater_equal", COMPARE_ROW(greater_equal)},
};

static int compare_index(const Node *n)
{
    for (size_t i = 0; i < sizeof compare_ops / sizeof compare_ops[0]; i++)
        if (!strcmp(compare_ops[i].op, n->op_type))
            return (int)i;
    unreachable();
}

static void broadcast_infer(Node *n, DType out_type)
{
    int rank;
    int64_t dims[MAX_RANK];
    broadcast_shape(n, n->inputs[0], n->inputs[1], &rank, dims);
    set_shape(n->outputs[0], out_type, rank, dims);
}

void compare_infer(Node *n)
{
    const Value *a = n->inputs[0], *b = n->inputs[1];
    if (a->dtype != b->dtype)
        fatal_at(n, "inputs have different types (%s, %s)", dtype_name(a->dtype),
                 dtype_name(b->dtype));
    require_numeric(n, a, !strcmp(n->op_type, "Equal"));
    broadcast_infer(n, DT_BOOL);
}

void compare_fold(Node *n)
{
    Value *y = n->outputs[0];
    LoopSpace l = broadcast_loop(y, 2, n->inputs);
    compare_ops[compare_index(n)].fns[tensor_type_index(n->inputs[0]->dtype)](
        l.rank, l.dims, l.strides[0], l.strides[1], n->inputs[0]->data, n->inputs[1]->data,
        y->data);
}

void compare_emit(Emitter *e, Node *n)
{
    emit_broadcast_binary(e, n,
                          xprintf("%s_%s", compare_ops[compare_index(n)].kernel,
                                  tensor_types[tensor_type_index(n->inputs[0]->dtype)].suffix));
}

/* ---- logic: Not, And, Or, Xor ---- */

static const struct {
    const char *op, *kernel;
    void (*fn)(int, const int64_t *, const int64_t *, const int64_t *, const uint8_t *,
               const uint8_t *, uint8_t *);
} logic_ops[] = {
    {"And", "and_bool", and_bool},
    {"Or", "or_bool", or_bool},
    {"Xor", "xor_bool", xor_bool},
};

static int logic_index(const Node *n)
{
    for (size_t i = 0; i < sizeof logic_ops / sizeof logic_ops[0]; i++)
        if (!strcmp(logic_ops[i].op, n->op_type))
            return (int)i;
    unreachable();
}

void logic_infer(Node *n)
{
    for (int i = 0; i < n->ninputs; i++)
        require_dtype(n, n->inputs[i], DT_BOOL);
    if (!strcmp(n->op_type, "Not"))
        same_shape_infer(n);
    else
        broadcast_infer(n, DT_BOOL);
}

void logic_fold(Node *n)
{
    Value *y = n->outputs[0];
    if (!strcmp(n->op_type, "Not")) {
        not_bool(value_numel(y), n->inputs[0]->data, y->data);
        return;
    }
    LoopSpace l = broadcast_loop(y, 2, n->inputs);
    logic_ops[logic_index(n)].fn(l.rank, l.dims, l.strides[0], l.strides[1], n->inputs[0]->data,
                                 n->inputs[1]->data, y->data);
}

void logic_emit(Emitter *e, Node *n)
{
    Value *y = n->outputs[0];
    if (!strcmp(n->op_type, "Not"))
        println(e, "not_bool(%lld, %s, %s);", (long long)value_numel(y),
                value_cname(e, n->inputs[0]), value_cname(e, y));
    else
        emit_broadcast_binary(e, n, logic_ops[logic_index(n)].kernel);
}

/* ---- Where ---- */

void where_infer(Node *n)
{
    const Value *c = n->inputs[0], *x = n->inputs[1], *y = n->inputs[2];
    require_dtype(n, c, DT_BOOL);
    if (x->dtype != y->dtype)
        fatal_at(n, "inputs X and Y have different types (%s, %s)", dtype_name(x->dtype),
                 dtype_name(y->dtype));
    if (!dtype_size(x->dtype) || x->dtype == DT_STRING)
        fatal_at(n, "type %s is not supported", dtype_name(x->dtype));
    Value xy = {.name = (char *)"X/Y", .rank = 0};
    broadcast_shape(n, x, y, &xy.rank, xy.dims);
    int rank;
    int64_t dims[MAX_RANK];
    broadcast_shape(n, c, &xy, &rank, dims);
    set_shape(n->outputs[0], x->dtype, rank, dims);
}

void where_fold(Node *n)
{
    Value *out = n->outputs[0];
    LoopSpace l = broadcast_loop(out, 3, n->inputs);
    where_bytes(l.rank, l.dims, l.strides[0], l.strides[1], l.strides[2],
                (int64_t)dtype_size(out->dtype), n->inputs[0]->data, n->inputs[1]->data,
                n->inputs[2]->data, out->data);
}

void where_emit(Emitter *e, Node *n)
{
    Value *out = n->outputs[0];
    LoopSpace l = broadcast_loop(out, 3, n->inputs);
    emit_loop_call(e, "where_bytes", &l, 3,
                   xprintf("%d, %s, %s, %s, %s", (int)dtype_size(out->dtype),
                           value_cname(e, n->inputs[0]), value_cname(e, n->inputs[1]),
                           value_cname(e, n->inputs[2]), value_cname(e, out)));
}

/* ---- Cast, CastLike ---- */

static DType cast_target(const Node *n)
{
    if (!strcmp(n->op_type, "CastLike"))
        return n->inputs[1]->dtype;
    const Attr *a = attr_get(n, "to");
    if (!a || a->type != ATTR_INT)
        fatal_at(n, "attribute 'to' (an int) is required");
    return (DType)a->i;
}

/* A type's name, or its number for the types onnx2c has no name for (float8, int4, ...). */
static const char *type_text(DType t)
{
    const char *s = dtype_name(t);
    return strcmp(s, "undefined") ? s : xprintf("type %d", (int)t);
}

void cast_infer(Node *n)
{
    const Value *x = n->inputs[0];
    DType to = cast_target(n);
    if (is_low_type(x->dtype) || is_low_type(to)) { /* float8, int4, ...: lowtypes.c */
        lowcast_infer(n);
        return;
    }
    bool half = is_half_type(x->dtype) || is_half_type(to); /* cast_half in templates/types.c */
    if (tensor_type_index(x->dtype) < 0 && !(half && is_half_type(x->dtype)))
        fatal_at(n,
                 "cast from %s is not supported (float16, bfloat16, float32, float64, [u]int8..64 "
                 "and bool are)",
                 type_text(x->dtype));
    if (tensor_type_index(to) < 0 && !(half && is_half_type(to)))
        fatal_at(n,
                 "cast to %s is not supported (float16, bfloat16, float32, float64, [u]int8..64 "
                 "and bool are)",
                 type_text(to));
    set_shape(n->outputs[0], to, x->rank, x->dims);
}

/* Bounds (exclusive) within which a float converts to an integer type without overflow;
 * kept in step with O2C_CAST_TYPES_A in templates/tensor.c. */
static bool float_fits(double v, DType to)
{
    switch (to) {
    case DT_INT8: return v > -129.0 && v < 128.0;
    case DT_UINT8: return v > -1.0 && v < 256.0;
    case DT_INT16: return v > -32769.0 && v < 32768.0;
    case DT_UINT16: return v > -1.0 && v < 65536.0;
    case DT_INT32: return v > -2147483649.0 && v < 2147483648.0;
    case DT_UINT32: return v > -1.0 && v < 4294967296.0;
    case DT_INT64: return v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    case DT_UINT64: return v > -1.0 && v < 18446744073709551616.0;
    default: return true; /* float, double, bool: always defined */
    }
}

void cast_fold(Node *n)
{
    const Value *x = n->inputs[0];
    Value *y = n->outputs[0];
    int64_t len = value_numel(x);
    bool half = is_half_type(x->dtype) || is_half_type(y->dtype);
    if (is_float_type(x->dtype) || is_half_type(x->dtype)) {
        for (int64_t i = 0; i < len; i++) {
            const uint16_t *h = x->data;
            double v = x->dtype == DT_FLOAT     ? ((const float *)x->data)[i]
                       : x->dtype == DT_DOUBLE  ? ((const double *)x->data)[i]
                       : x->dtype == DT_FLOAT16 ? half_to_float(h[i])
                                                : bfloat16_to_float(h[i]);
            if (!float_fits(v, y->dtype))
                fatal_at(n,
                         "cannot fold the cast of %g (element %lld) to %s: the value is NaN or "
                         "out of range, where numpy, onnxruntime and C all differ",
                         v, (long long)i, dtype_name(y->dtype));
        }
    }
    if (half)
        cast_half(len, (int)x->dtype, x->data, (int)y->dtype, y->data);
    else
        cast_tensor(len, (int)x->dtype, x->data, (int)y->dtype, y->data);
}

void cast_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *y = n->outputs[0];
    bool half = is_half_type(x->dtype) || is_half_type(y->dtype);
    println(e, "%s(%lld, %d, %s, %d, %s); /* %s -> %s */", half ? "cast_half" : "cast_tensor",
            (long long)value_numel(x), (int)x->dtype, value_cname(e, x), (int)y->dtype,
            value_cname(e, y), dtype_name(x->dtype), dtype_name(y->dtype));
}

/* ---- Expand ---- */

void expand_infer(Node *n)
{
    const Value *x = n->inputs[0];
    int count;
    int64_t *shape = const_ints(n, n->inputs[1], &count);
    if (count > MAX_RANK)
        fatal_at(n, "target rank %d is more than %d", count, MAX_RANK);
    Value target = {.name = (char *)"shape", .rank = count};
    for (int i = 0; i < count; i++) {
        if (shape[i] < 0)
            fatal_at(n, "invalid target dim %lld", (long long)shape[i]);
        target.dims[i] = shape[i];
    }
    int rank;
    int64_t dims[MAX_RANK];
    broadcast_shape(n, x, &target, &rank, dims);
    if (!dtype_size(x->dtype))
        fatal_at(n, "type %s is not supported", dtype_name(x->dtype));
    set_shape(n->outputs[0], x->dtype, rank, dims);
}

static CopyPlan expand_plan(const Node *n)
{
    const Value *y = n->outputs[0];
    CopyPlan p = {.rank = y->rank};
    broadcast_strides(n->inputs[0], y->rank, y->dims, p.strides);
    memcpy(p.dims, y->dims, sizeof(int64_t) * (size_t)y->rank);
    return p;
}

void expand_fold(Node *n)
{
    copy_plan_fold(expand_plan(n), n->inputs[0], n->outputs[0]);
}

void expand_emit(Emitter *e, Node *n)
{
    copy_plan_emit(e, expand_plan(n), n->inputs[0], n->outputs[0]);
}

/* ---- Tile: output dim d of size reps*len is the pair (rep, i) with x strides (0, s) ---- */

static int64_t *tile_repeats(const Node *n)
{
    const Value *x = n->inputs[0];
    int count;
    int64_t *reps = const_ints(n, n->inputs[1], &count);
    if (count != x->rank)
        fatal_at(n, "repeats has %d entries for an input of rank %d", count, x->rank);
    for (int i = 0; i < count; i++)
        if (reps[i] < 0)
            fatal_at(n, "repeat %lld is negative", (long long)reps[i]);
    return reps;
}

void tile_infer(Node *n)
{
    const Value *x = n->inputs[0];
    int64_t *reps = tile_repeats(n), dims[MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        dims[i] = checked_mul(n, x->dims[i], reps[i]);
    if (!dtype_size(x->dtype))
        fatal_at(n, "type %s is not supported", dtype_name(x->dtype));
    set_shape(n->outputs[0], x->dtype, x->rank, dims);
}

static CopyPlan tile_plan(const Node *n)
{
    const Value *x = n->inputs[0];
    int64_t *reps = tile_repeats(n), s[MAX_RANK];
    value_strides(x, s);
    CopyPlan p = {.rank = 2 * x->rank};
    for (int i = 0; i < x->rank; i++) {
        p.dims[2 * i] = reps[i];
        p.strides[2 * i] = 0;
        p.dims[2 * i + 1] = x->dims[i];
        p.strides[2 * i + 1] = s[i];
    }
    return p;
}

void tile_fold(Node *n)
{
    copy_plan_fold(tile_plan(n), n->inputs[0], n->outputs[0]);
}

void tile_emit(Emitter *e, Node *n)
{
    copy_plan_emit(e, tile_plan(n), n->inputs[0], n->outputs[0]);
}

/* ---- Slice ---- */

/* Per input dim: first index, step and count of the slice (ONNX's clamping rules). */
typedef struct SliceDims {
    int64_t start[MAX_RANK], step[MAX_RANK], count[MAX_RANK];
} SliceDims;

static SliceDims slice_dims(const Node *n)
{
    const Value *x = n->inputs[0];
    int ns, ne, na = -1, nst = -1;
    const int64_t *starts, *ends, *axes = NULL, *steps = NULL;
    if (n->opset < 10) {
        if (n->ninputs > 1)
            fatal_at(n, "before opset 10, starts, ends and axes are attributes, not inputs");
        ns = attr_ints(n, "starts", &starts);
        ne = attr_ints(n, "ends", &ends);
        na = attr_ints(n, "axes", &axes);
        if (ns < 0 || ne < 0)
            fatal_at(n, "attributes 'starts' and 'ends' are required");
    } else {
        if (!node_input(n, 1) || !node_input(n, 2))
            fatal_at(n, "inputs 'starts' and 'ends' are required");
        starts = const_ints(n, n->inputs[1], &ns);
        ends = const_ints(n, n->inputs[2], &ne);
        if (node_input(n, 3))
            axes = const_ints(n, n->inputs[3], &na);
        if (node_input(n, 4))
            steps = const_ints(n, n->inputs[4], &nst);
    }
    if (ne != ns || (axes && na != ns) || (steps && nst != ns))
        fatal_at(n, "starts, ends, axes and steps have different lengths");
    SliceDims s;
    bool seen[MAX_RANK] = {false};
    for (int d = 0; d < x->rank; d++) {
        s.start[d] = 0;
        s.step[d] = 1;
        s.count[d] = x->dims[d];
    }
    for (int i = 0; i < ns; i++) {
        int d = axes ? normalize_axis(n, axes[i], x->rank) : i;
        if (d >= x->rank)
            fatal_at(n, "%d starts for an input of rank %d", ns, x->rank);
        if (seen[d])
            fatal_at(n, "axis %d is repeated", d);
        seen[d] = true;
        int64_t dim = x->dims[d], step = steps ? steps[i] : 1, b = starts[i], en = ends[i];
        if (step == 0)
            fatal_at(n, "step 0 on axis %d", d);
        if (b < 0)
            b += dim; /* no overflow: dim >= 0 */
        if (en < 0)
            en += dim;
        int64_t count;
        if (step > 0) {
            b = b < 0 ? 0 : b > dim ? dim : b;
            en = en < 0 ? 0 : en > dim ? dim : en;
            count = en > b ? (en - b - 1) / step + 1 : 0;
        } else {
            int64_t back = step < -INT64_MAX ? INT64_MAX : -step;
            b = b < 0 ? 0 : b > dim - 1 ? dim - 1 : b;
            en = en < -1 ? -1 : en > dim - 1 ? dim - 1 : en;
            count = b > en ? (b - en - 1) / back + 1 : 0;
        }
        s.start[d] = count ? b : 0;
        s.step[d] = step;
        s.count[d] = count;
    }
    return s;
}

void slice_infer(Node *n)
{
    const Value *x = n->inputs[0];
    if (!dtype_size(x->dtype))
        fatal_at(n, "type %s is not supported", dtype_name(x->dtype));
    SliceDims s = slice_dims(n);
    set_shape(n->outputs[0], x->dtype, x->rank, s.count);
}

static CopyPlan slice_plan(const Node *n)
{
    const Value *x = n->inputs[0];
    SliceDims s = slice_dims(n);
    int64_t st[MAX_RANK];
    value_strides(x, st);
    CopyPlan p = {.rank = x->rank};
    for (int d = 0; d < x->rank; d++) {
        p.dims[d] = s.count[d];
        p.strides[d] = s.step[d] * st[d];
        p.offset += s.start[d] * st[d];
    }
    return p;
}

void slice_fold(Node *n)
{
    copy_plan_fold(slice_plan(n), n->inputs[0], n->outputs[0]);
}

void slice_emit(Emitter *e, Node *n)
{
    copy_plan_emit(e, slice_plan(n), n->inputs[0], n->outputs[0]);
}

/* ---- Split ---- */

/* Sizes of the outputs along the axis. */
static int64_t *split_sizes(const Node *n, int *axis_out)
{
    const Value *x = n->inputs[0];
    int axis = normalize_axis(n, attr_int(n, "axis", 0), x->rank);
    int64_t len = x->rank ? x->dims[axis] : 1;
    int count = -1;
    const int64_t *given = NULL;
    if (node_input(n, 1))
        given = const_ints(n, n->inputs[1], &count);
    else if (n->opset < 13)
        count = attr_ints(n, "split", &given);
    int64_t *sizes = xcalloc((size_t)n->noutputs + 1, sizeof(int64_t));
    if (given && count >= 0) {
        if (count != n->noutputs)
            fatal_at(n, "split has %d entries for %d outputs", count, n->noutputs);
        int64_t total = 0;
        for (int i = 0; i < count; i++) {
            if (given[i] < 0)
                fatal_at(n, "split size %lld is negative", (long long)given[i]);
            sizes[i] = given[i];
            total = checked_add(n, total, given[i]);
        }
        if (total != len)
            fatal_at(n, "split sizes add up to %lld, the axis has %lld", (long long)total,
                     (long long)len);
    } else {
        const Attr *no = attr_get(n, "num_outputs");
        if (no && (no->type != ATTR_INT || no->i != n->noutputs))
            fatal_at(n, "num_outputs does not match the node's %d outputs", n->noutputs);
        /* ceil(len / outputs) each, the last one gets the rest (the onnx reference) */
        int64_t k = n->noutputs, chunk = len % k ? len / k + 1 : len / k, rest = len;
        for (int i = 0; i < k; i++) {
            sizes[i] = i + 1 < k ? chunk : rest;
            rest -= sizes[i];
            if (sizes[i] < 0)
                fatal_at(n, "axis of size %lld does not split into %d parts of %lld",
                         (long long)len, n->noutputs, (long long)chunk);
        }
    }
    *axis_out = axis;
    return sizes;
}

void split_infer(Node *n)
{
    const Value *x = n->inputs[0];
    if (!x->rank)
        fatal_at(n, "cannot split a scalar");
    if (!dtype_size(x->dtype))
        fatal_at(n, "type %s is not supported", dtype_name(x->dtype));
    int axis;
    int64_t *sizes = split_sizes(n, &axis);
    for (int i = 0; i < n->noutputs; i++) {
        int64_t dims[MAX_RANK];
        memcpy(dims, x->dims, sizeof dims);
        dims[axis] = sizes[i];
        set_shape(n->outputs[i], x->dtype, x->rank, dims);
    }
}

static CopyPlan split_plan(const Node *n, int i)
{
    const Value *x = n->inputs[0];
    int axis;
    int64_t *sizes = split_sizes(n, &axis), st[MAX_RANK];
    value_strides(x, st);
    CopyPlan p = {.rank = x->rank};
    memcpy(p.dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
    memcpy(p.strides, st, sizeof(int64_t) * (size_t)x->rank);
    p.dims[axis] = sizes[i];
    for (int j = 0; j < i; j++)
        p.offset += sizes[j] * st[axis];
    return p;
}

void split_fold(Node *n)
{
    for (int i = 0; i < n->noutputs; i++)
        copy_plan_fold(split_plan(n, i), n->inputs[0], n->outputs[i]);
}

void split_emit(Emitter *e, Node *n)
{
    for (int i = 0; i < n->noutputs; i++)
        copy_plan_emit(e, split_plan(n, i), n->inputs[0], n->outputs[i]);
}

/* ---- Size: static shapes make it a constant ---- */

void size_infer(Node *n)
{
    Value *y = n->outputs[0];
    set_shape(y, DT_INT64, 0, NULL);
    y->data = xcalloc(1, sizeof(int64_t));
    *(int64_t *)y->data = value_numel(n->inputs[0]);
}

void size_fold(Node *n)
{
    (void)n; /* computed by size_infer */
}

/* ---- ConstantOfShape ---- */

void constant_of_shape_infer(Node *n)
{
    int count;
    int64_t *shape = const_ints(n, n->inputs[0], &count);
    if (n->inputs[0]->rank != 1)
        fatal_at(n, "the shape input must be 1-D");
    if (count > MAX_RANK)
        fatal_at(n, "rank %d is more than %d", count, MAX_RANK);
    for (int i = 0; i < count; i++)
        if (shape[i] < 0)
            fatal_at(n, "invalid dim %lld", (long long)shape[i]);
    const Attr *a = attr_get(n, "value");
    DType t = DT_FLOAT;
    if (a) {
        if (a->type != ATTR_TENSOR || value_numel(a->t) != 1)
            fatal_at(n, "attribute 'value' must be a one-element tensor");
        t = a->t->dtype;
        if (!dtype_size(t))
            fatal_at(n, "type %s is not supported", dtype_name(t));
    }
    set_shape(n->outputs[0], t, count, shape);
}

void constant_of_shape_fold(Node *n)
{
    Value *y = n->outputs[0];
    const Attr *a = attr_get(n, "value");
    static const float zero = 0.0f;
    fill_bytes(value_numel(y), (int64_t)dtype_size(y->dtype), a ? a->t->data : &zero, y->data);
}

/* ---- Range: numpy.arange(start, limit, delta) of constant scalars ---- */

static double range_scalar(const Node *n, int i)
{
    const Value *v = n->inputs[i];
    require_constant(n, v, "input");
    if (value_numel(v) != 1)
        fatal_at(n, "input '%s' must be a scalar", v->name);
    switch (v->dtype) {
    case DT_FLOAT: return *(const float *)v->data;
    case DT_DOUBLE: return *(const double *)v->data;
    case DT_INT16: return *(const int16_t *)v->data;
    case DT_INT32: return *(const int32_t *)v->data;
    case DT_INT64: return (double)*(const int64_t *)v->data;
    default:
        fatal_at(n, "type %s is not supported (float32, float64, int16, int32, int64 are)",
                 dtype_name(v->dtype));
    }
}

static int64_t range_int(const Node *n, int i)
{
    const Value *v = n->inputs[i];
    switch (v->dtype) {
    case DT_INT16: return *(const int16_t *)v->data;
    case DT_INT32: return *(const int32_t *)v->data;
    default: return *(const int64_t *)v->data;
    }
}

static int64_t range_count(const Node *n)
{
    DType t = n->inputs[0]->dtype;
    for (int i = 0; i < 3; i++) {
        range_scalar(n, i);
        if (n->inputs[i]->dtype != t)
            fatal_at(n, "start, limit and delta have different types");
    }
    if (is_float_type(t)) {
        double start = range_scalar(n, 0), limit = range_scalar(n, 1), delta = range_scalar(n, 2);
        double c = ceil((limit - start) / delta);
        if (delta == 0 || !isfinite(c) || c > (double)((int64_t)1 << 48))
            fatal_at(n, "the range has no finite size (start %g, limit %g, delta %g)", start, limit,
                     delta);
        return c > 0 ? (int64_t)c : 0;
    }
    int64_t start = range_int(n, 0), limit = range_int(n, 1), delta = range_int(n, 2);
    if (delta == 0)
        fatal_at(n, "delta is 0");
    int64_t diff;
    if (__builtin_sub_overflow(limit, start, &diff) || diff == INT64_MIN)
        fatal_at(n, "the range is too long");
    if ((diff > 0) != (delta > 0) || diff == 0)
        return 0;
    /* ceil(diff / delta) for operands of the same sign */
    int64_t count = diff / delta + (diff % delta != 0);
    if (count > ((int64_t)1 << 48))
        fatal_at(n, "the range is too long");
    return count;
}

void range_infer(Node *n)
{
    int64_t count = range_count(n);
    set_shape(n->outputs[0], n->inputs[0]->dtype, 1, &count);
}

void range_fold(Node *n)
{
    Value *y = n->outputs[0];
    int64_t count = y->dims[0];
    DType t = y->dtype;
    if (is_float_type(t)) {
        double *tmp = xcalloc((size_t)count + 1, sizeof(double));
        range_f64(count, range_scalar(n, 0), range_scalar(n, 2), tmp);
        cast_tensor(count, DT_DOUBLE, tmp, (int)t, y->data); /* numpy: arange in float64, astype */
    } else {
        int64_t *tmp = xcalloc((size_t)count + 1, sizeof(int64_t));
        range_i64(count, range_int(n, 0), range_int(n, 2), tmp);
        cast_tensor(count, DT_INT64, tmp, (int)t, y->data);
    }
}
