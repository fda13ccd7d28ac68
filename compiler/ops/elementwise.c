/* elementwise.c — unary activations and broadcasting binary arithmetic.
 * Each op maps to one template kernel: called here to fold, named in the emitted C. */
#include "kernels.h"
#include "ops.h"

#include <string.h>

/* ---- unary: Relu, LeakyRelu, Sigmoid, Tanh, Clip (float32; float16 and bfloat16 through
 * promote_half.c) ---- */

typedef struct UnaryArgs {
    const char *kernel;
    float lo, hi; /* Clip */
    float alpha;  /* LeakyRelu */
} UnaryArgs;

static float clip_bound(const Node *n, int input, float dflt)
{
    const Value *v = node_input(n, input);
    if (!v)
        return dflt;
    require_float(n, v);
    if (value_numel(v) != 1)
        fatal_at(n, "Clip bound '%s' must be a scalar", v->name);
    if (!v->data)
        return NAN; /* read at run time, see clip_bound_cname */
    return *(const float *)v->data;
}

static UnaryArgs unary_args(const Node *n)
{
    UnaryArgs a = {0};
    const char *op = n->op_type;
    if (!strcmp(op, "Relu")) {
        a.kernel = "relu_f32";
    } else if (!strcmp(op, "LeakyRelu")) {
        a.kernel = "leaky_relu_f32";
        a.alpha = attr_float(n, "alpha", 0.01f);
    } else if (!strcmp(op, "Sigmoid")) {
        a.kernel = "sigmoid_f32";
    } else if (!strcmp(op, "Tanh")) {
        a.kernel = "tanh_f32";
    } else if (!strcmp(op, "Clip")) {
        a.kernel = "clip_f32";
        if (n->opset < 11) {
            a.lo = attr_float(n, "min", -INFINITY);
            a.hi = attr_float(n, "max", INFINITY);
        } else {
            a.lo = clip_bound(n, 1, -INFINITY);
            a.hi = clip_bound(n, 2, INFINITY);
        }
    } else {
        unreachable();
    }
    return a;
}

/* ---- Clip on integer types (opset 12+): bounds of x's type, constant or read at run time ---- */

static const struct {
    DType t;
    const char *suffix, *min, *max; /* the type's range as C macros */
} clip_int_types[] = {
    {DT_INT8, "i8", "INT8_MIN", "INT8_MAX"},     {DT_UINT8, "u8", "0", "UINT8_MAX"},
    {DT_INT16, "i16", "INT16_MIN", "INT16_MAX"}, {DT_UINT16, "u16", "0", "UINT16_MAX"},
    {DT_INT32, "i32", "INT32_MIN", "INT32_MAX"}, {DT_UINT32, "u32", "0", "UINT32_MAX"},
    {DT_INT64, "i64", "INT64_MIN", "INT64_MAX"}, {DT_UINT64, "u64", "0", "UINT64_MAX"},
};

static int clip_int_index(const Node *n)
{
    if (strcmp(n->op_type, "Clip") != 0)
        return -1;
    for (int i = 0; i < (int)(sizeof clip_int_types / sizeof clip_int_types[0]); i++)
        if (clip_int_types[i].t == n->inputs[0]->dtype)
            return i;
    return -1;
}

static void clip_int_infer(Node *n)
{
    if (n->opset < 12)
        fatal_at(n, "integer Clip needs opset 12 or newer");
    for (int i = 1; i <= 2; i++) {
        const Value *v = node_input(n, i);
        if (!v)
            continue;
        require_dtype(n, v, n->inputs[0]->dtype);
        if (value_numel(v) != 1)
            fatal_at(n, "Clip bound '%s' must be a scalar", v->name);
    }
    same_shape_infer(n);
}

/* Calls clip_<suffix>(n, lo, hi, x, y) with the constant bounds (or the type's range). */
#define CLIP_INT_FOLD(SUFFIX, T, MIN, MAX)                                                         \
    {                                                                                              \
        const Value *lo = node_input(n, 1), *hi = node_input(n, 2);                                \
        clip_##SUFFIX(len, lo ? *(const T *)lo->data : (MIN), hi ? *(const T *)hi->data : (MAX),   \
                      n->inputs[0]->data, n->outputs[0]->data);                                    \
        break;                                                                                     \
    }

static void clip_int_fold(Node *n)
{
    int64_t len = value_numel(n->outputs[0]);
    switch (n->inputs[0]->dtype) {
    case DT_INT8: CLIP_INT_FOLD(i8, int8_t, INT8_MIN, INT8_MAX)
    case DT_UINT8: CLIP_INT_FOLD(u8, uint8_t, 0, UINT8_MAX)
    case DT_INT16: CLIP_INT_FOLD(i16, int16_t, INT16_MIN, INT16_MAX)
    case DT_UINT16: CLIP_INT_FOLD(u16, uint16_t, 0, UINT16_MAX)
    case DT_INT32: CLIP_INT_FOLD(i32, int32_t, INT32_MIN, INT32_MAX)
    case DT_UINT32: CLIP_INT_FOLD(u32, uint32_t, 0, UINT32_MAX)
    case DT_INT64: CLIP_INT_FOLD(i64, int64_t, INT64_MIN, INT64_MAX)
    case DT_UINT64: CLIP_INT_FOLD(u64, uint64_t, 0, UINT64_MAX)
    default: unreachable();
    }
}
#undef CLIP_INT_FOLD

/* A bound's C expression: its first element (constants are arrays in the emitted file too). */
static const char *clip_int_bound(Emitter *e, Node *n, int input, const char *dflt)
{
    Value *v = node_input(n, input);
    return v ? xprintf("%s[0]", value_cname(e, v)) : dflt;
}

static void clip_int_emit(Emitter *e, Node *n, int k)
{
    println(e, "clip_%s(%lld, %s, %s, %s, %s);", clip_int_types[k].suffix,
            (long long)value_numel(n->outputs[0]), clip_int_bound(e, n, 1, clip_int_types[k].min),
            clip_int_bound(e, n, 2, clip_int_types[k].max), value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}

void unary_infer(Node *n)
{
    if (clip_int_index(n) >= 0) {
        clip_int_infer(n);
        return;
    }
    if (half_infer(n, unary_infer))
        return;
    require_float(n, n->inputs[0]);
    unary_args(n); /* checks attributes and bounds */
    same_shape_infer(n);
}

void unary_fold(Node *n)
{
    if (half_fold(n, unary_fold))
        return;
    if (clip_int_index(n) >= 0) {
        clip_int_fold(n);
        return;
    }
    UnaryArgs a = unary_args(n);
    int64_t len = value_numel(n->outputs[0]);
    const float *x = n->inputs[0]->data;
    float *y = n->outputs[0]->data;
    if (!strcmp(a.kernel, "relu_f32"))
        relu_f32(len, x, y);
    else if (!strcmp(a.kernel, "leaky_relu_f32"))
        leaky_relu_f32(len, a.alpha, x, y);
    else if (!strcmp(a.kernel, "sigmoid_f32"))
        sigmoid_f32(len, x, y);
    else if (!strcmp(a.kernel, "tanh_f32"))
        tanh_f32(len, x, y);
    else
        clip_f32(len, a.lo, a.hi, x, y);
}

/* A Clip bound that is not a constant is read from its tensor when the model runs. */
static const char *clip_bound_cname(Emitter *e, Node *n, int input, float folded)
{
    Value *v = node_input(n, input);
    if (v && !v->data)
        return xprintf("%s[0]", value_cname(e, v));
    return c_float(folded);
}

void unary_emit(Emitter *e, Node *n)
{
    if (clip_int_index(n) >= 0) {
        clip_int_emit(e, n, clip_int_index(n));
        return;
    }
    UnaryArgs a = unary_args(n);
    long long len = (long long)value_numel(n->outputs[0]);
    const char *x = value_cname(e, n->inputs[0]), *y = value_cname(e, n->outputs[0]);
    if (!strcmp(a.kernel, "leaky_relu_f32"))
        println(e, "%s(%lld, %s, %s, %s);", a.kernel, len, c_float(a.alpha), x, y);
    else if (!strcmp(a.kernel, "clip_f32"))
        println(e, "%s(%lld, %s, %s, %s, %s);", a.kernel, len,
                n->opset < 11 ? c_float(a.lo) : clip_bound_cname(e, n, 1, a.lo),
                n->opset < 11 ? c_float(a.hi) : clip_bound_cname(e, n, 2, a.hi), x, y);
    else
        println(e, "%s(%lld, %s, %s);", a.kernel, len, x, y);
}

/* ---- binary: Add, Sub, Mul, Div with numpy broadcasting, every numeric type ---- */

/* The element types of the binary kernels, by kernel suffix. */
static const struct {
    DType t;
    const char *suffix;
} binary_types[] = {
    {DT_FLOAT, "f32"}, {DT_DOUBLE, "f64"}, {DT_INT8, "i8"},   {DT_UINT8, "u8"},
    {DT_INT16, "i16"}, {DT_UINT16, "u16"}, {DT_INT32, "i32"}, {DT_UINT32, "u32"},
    {DT_INT64, "i64"}, {DT_UINT64, "u64"},
};

static const char *const binary_ops[] = {"Add", "Sub", "Mul", "Div"};
static const char *const binary_names[] = {"add", "sub", "mul", "div"};

static int binary_index(const Node *n)
{
    for (size_t i = 0; i < sizeof binary_ops / sizeof binary_ops[0]; i++)
        if (!strcmp(binary_ops[i], n->op_type))
            return (int)i;
    unreachable();
}

static const char *binary_suffix(const Node *n, DType t)
{
    for (size_t i = 0; i < sizeof binary_types / sizeof binary_types[0]; i++)
        if (binary_types[i].t == t)
            return binary_types[i].suffix;
    fatal_at(n,
             "type %s is not supported (float16, bfloat16, float32, float64 and [u]int8..64 "
             "are)",
             dtype_name(t));
}

void binary_infer(Node *n)
{
    if (half_infer(n, binary_infer))
        return;
    const Value *a = n->inputs[0], *b = n->inputs[1];
    if (a->dtype != b->dtype)
        fatal_at(n, "inputs have different types (%s, %s)", dtype_name(a->dtype),
                 dtype_name(b->dtype));
    binary_suffix(n, a->dtype);
    int rank;
    int64_t dims[MAX_RANK];
    broadcast_shape(n, a, b, &rank, dims);
    set_shape(n->outputs[0], a->dtype, rank, dims);
}

/* Calls OP_<suffix of type T>(ARGS...); the void data pointers convert to the kernel's types. */
#define BINARY_CALL(OP, T, ...)                                                                    \
    switch (T) {                                                                                   \
    case DT_FLOAT: OP##_f32(__VA_ARGS__); break;                                                   \
    case DT_DOUBLE: OP##_f64(__VA_ARGS__); break;                                                  \
    case DT_INT8: OP##_i8(__VA_ARGS__); break;                                                     \
    case DT_UINT8: OP##_u8(__VA_ARGS__); break;                                                    \
    case DT_INT16: OP##_i16(__VA_ARGS__); break;                                                   \
    case DT_UINT16: OP##_u16(__VA_ARGS__); break;                                                  \
    case DT_INT32: OP##_i32(__VA_ARGS__); break;                                                   \
    case DT_UINT32: OP##_u32(__VA_ARGS__); break;                                                  \
    case DT_INT64: OP##_i64(__VA_ARGS__); break;                                                   \
    case DT_UINT64: OP##_u64(__VA_ARGS__); break;                                                  \
    default: unreachable();                                                                        \
    }

void binary_fold(Node *n)
{
    if (half_fold(n, binary_fold))
        return;
    const Value *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
    int64_t sa[MAX_RANK], sb[MAX_RANK];
    broadcast_strides(a, y->rank, y->dims, sa);
    broadcast_strides(b, y->rank, y->dims, sb);
    switch (binary_index(n)) {
    case 0: BINARY_CALL(add, y->dtype, y->rank, y->dims, sa, sb, a->data, b->data, y->data) break;
    case 1: BINARY_CALL(sub, y->dtype, y->rank, y->dims, sa, sb, a->data, b->data, y->data) break;
    case 2: BINARY_CALL(mul, y->dtype, y->rank, y->dims, sa, sb, a->data, b->data, y->data) break;
    default: BINARY_CALL(div, y->dtype, y->rank, y->dims, sa, sb, a->data, b->data, y->data) break;
    }
}

void binary_emit(Emitter *e, Node *n)
{
    Value *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
    int64_t sa[MAX_RANK], sb[MAX_RANK];
    broadcast_strides(a, y->rank, y->dims, sa);
    broadcast_strides(b, y->rank, y->dims, sb);
    const char *dims = emit_dims(e, y->rank, y->dims);
    const char *das = emit_dims(e, y->rank, sa), *dbs = emit_dims(e, y->rank, sb);
    println(e, "%s_%s(%d, %s, %s, %s, %s, %s, %s);", binary_names[binary_index(n)],
            binary_suffix(n, y->dtype), y->rank, dims, das, dbs, value_cname(e, a),
            value_cname(e, b), value_cname(e, y));
}
