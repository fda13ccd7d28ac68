/* elementwise.c — the unary ops (activations and math functions, one kernel table) and
 * broadcasting binary arithmetic. Each op maps to one template kernel: called here to fold,
 * named in the emitted C. */
#include "kernels.h"
#include "ops.h"

#include <string.h>

/* ---- unary: one table of kernels, read by binding, folding and emission ----
 * Each row names the op, the element type, the template kernel (what emission writes) and the
 * same kernel as the compiler links it (what folding calls), with the kernel's float parameters
 * and the attributes they come from. float16 and bfloat16 go through promote_half.c. */

/* The kernel's signature (which member of fn) and where its parameters come from. UK_CLIP is
 * UK_F32_2 whose bounds are inputs 1 and 2 from opset 11, with integer kernels of its own. */
typedef enum { UK_F32, UK_F32_1, UK_F32_2, UK_CLIP, UK_I64, UK_F64 } UnaryForm;

typedef struct UnaryKernel {
    const char *op;
    DType t;
    const char *kernel;
    UnaryForm form;
    union {
        void (*f32)(int64_t, const float *, float *);
        void (*f32_1)(int64_t, float, const float *, float *);
        void (*f32_2)(int64_t, float, float, const float *, float *);
        void (*i64)(int64_t, const int64_t *, int64_t *);
        void (*f64)(int64_t, const double *, double *);
    } fn;
    struct {
        const char *attr;
        float dflt;
    } p[2];
    const char *select; /* Gelu: the value of attribute "approximate" this row implements */
    bool list_types;    /* a wrong type is named with the op's types (else "float32 only") */
} UnaryKernel;

/* Rows by signature; NAMED rows name a wrong type as "supports float32 only". */
// clang-format off
#define F32(OP, K)             {OP, DT_FLOAT, #K, UK_F32, {.f32 = K}, {{0}}, NULL, true}
#define F32_1(OP, K, A, D)     {OP, DT_FLOAT, #K, UK_F32_1, {.f32_1 = K}, {{A, D}}, NULL, true}
#define F32_2(OP, K, A, DA, B, DB) \
    {OP, DT_FLOAT, #K, UK_F32_2, {.f32_2 = K}, {{A, DA}, {B, DB}}, NULL, true}
#define NAMED(OP, K)           {OP, DT_FLOAT, #K, UK_F32, {.f32 = K}, {{0}}, NULL, false}
#define NAMED_1(OP, K, A, D)   {OP, DT_FLOAT, #K, UK_F32_1, {.f32_1 = K}, {{A, D}}, NULL, false}
#define NAMED_2(OP, K, A, DA, B, DB) \
    {OP, DT_FLOAT, #K, UK_F32_2, {.f32_2 = K}, {{A, DA}, {B, DB}}, NULL, false}
#define I64(OP, K)             {OP, DT_INT64, #K, UK_I64, {.i64 = K}, {{0}}, NULL, true}
#define F64(OP, K)             {OP, DT_DOUBLE, #K, UK_F64, {.f64 = K}, {{0}}, NULL, true}

/* Rows of one op are adjacent. */
static const UnaryKernel unary_kernels[] = {
    NAMED("Relu", relu_f32),
    NAMED_1("LeakyRelu", leaky_relu_f32, "alpha", 0.01f),
    NAMED("Sigmoid", sigmoid_f32),
    NAMED("Tanh", tanh_f32),
    {"Clip", DT_FLOAT, "clip_f32", UK_CLIP, {.f32_2 = clip_f32},
     {{"min", -INFINITY}, {"max", INFINITY}}, NULL, false},
    NAMED_2("Shrink", shrink_f32, "lambd", 0.5f, "bias", 0.0f),
    NAMED_1("ThresholdedRelu", thresholded_relu_f32, "alpha", 1.0f),
    NAMED_1("Celu", celu_f32, "alpha", 1.0f),
    NAMED("Mish", mish_f32),
    F32("Abs", abs_f32),               I64("Abs", abs_i64),
    F32("Neg", neg_f32),               I64("Neg", neg_i64),
    F32("Exp", exp_f32),               F64("Exp", exp_f64),
    F32("Log", log_f32),               F64("Log", log_f64),
    F32("Sqrt", sqrt_f32),             F32("Reciprocal", reciprocal_f32),
    F32("Erf", erf_f32),               F32("Floor", floor_f32),
    F32("Ceil", ceil_f32),             F32("Sign", sign_f32),
    F32("Sin", sin_f32),               F32("Cos", cos_f32),
    F32("Tan", tan_f32),               F32("Asin", asin_f32),
    F32("Acos", acos_f32),             F32("Atan", atan_f32),
    F32("Sinh", sinh_f32),             F32("Cosh", cosh_f32),
    F32("Asinh", asinh_f32),           F32("Acosh", acosh_f32),
    F32("Atanh", atanh_f32),           F32("Softplus", softplus_f32),
    F32("Softsign", softsign_f32),     F32("Round", round_f32),
    F32("HardSwish", hard_swish_f32),
    F32_2("HardSigmoid", hard_sigmoid_f32, "alpha", 0.2f, "beta", 0.5f),
    F32_1("Elu", elu_f32, "alpha", 1.0f),
    F32_1("Swish", swish_f32, "alpha", 1.0f),
    F32_2("Selu", selu_f32, "alpha", 1.67326319217681884765625f,
          "gamma", 1.05070102214813232421875f),
    /* Gelu: one row per value of attribute "approximate", the first the default */
    {"Gelu", DT_FLOAT, "gelu_f32", UK_F32, {.f32 = gelu_f32}, {{0}}, "none", true},
    {"Gelu", DT_FLOAT, "gelu_tanh_f32", UK_F32, {.f32 = gelu_tanh_f32}, {{0}}, "tanh", true},
};
// clang-format on
#undef F32
#undef F32_1
#undef F32_2
#undef NAMED
#undef NAMED_1
#undef NAMED_2
#undef I64
#undef F64

#define NUNARY (int)(sizeof unary_kernels / sizeof unary_kernels[0])

static int unary_first_row(const Node *n)
{
    for (int i = 0; i < NUNARY; i++)
        if (!strcmp(unary_kernels[i].op, n->op_type))
            return i;
    unreachable();
}

/* "float32 and int64 are": the types of the op's rows, for the error message. */
static const char *unary_type_list(int first)
{
    const char *list = "";
    int count = 0;
    for (int i = first; i < NUNARY && !strcmp(unary_kernels[i].op, unary_kernels[first].op); i++)
        if (i == first || unary_kernels[i].t != unary_kernels[i - 1].t) {
            list = xprintf("%s%s%s", list, count ? " and " : "", dtype_name(unary_kernels[i].t));
            count++;
        }
    return xprintf("%s %s", list, count > 1 ? "are" : "is");
}

/* The row of n's op for its input type (and Gelu's "approximate"); errors name what is
 * supported. Rows of one op are adjacent. */
static const UnaryKernel *unary_kernel(const Node *n)
{
    int first = unary_first_row(n);
    const char *op = unary_kernels[first].op;
    const char *sel = unary_kernels[first].select
                          ? attr_string(n, "approximate", unary_kernels[first].select)
                          : NULL;
    DType t = n->inputs[0]->dtype;
    bool type_ok = false;
    const char *choices = "";
    for (int i = first; i < NUNARY && !strcmp(unary_kernels[i].op, op); i++) {
        const UnaryKernel *k = &unary_kernels[i];
        if (k->t != t)
            continue;
        type_ok = true;
        if (!sel || !strcmp(k->select, sel))
            return k;
        choices = xprintf("%s%s%s", choices, *choices ? ", " : "", k->select);
    }
    if (type_ok)
        fatal_at(n, "approximate='%s' is not one of %s", sel, choices);
    if (!unary_kernels[first].list_types)
        require_dtype(n, n->inputs[0], unary_kernels[first].t);
    fatal_at(n, "type %s is not supported (%s)", dtype_name(t), unary_type_list(first));
}

static float clip_bound(const Node *n, int input, float dflt)
{
    const Value *v = node_input(n, input);
    if (!v)
        return dflt;
    require_float(n, v);
    if (value_numel(v) != 1)
        fatal_at(n, "Clip bound '%s' must be a scalar", v->name);
    if (!v->data)
        return NAN; /* read at run time, see unary_param_cname */
    return *(const float *)v->data;
}

/* The kernel's float parameters: attributes, or Clip's bound inputs from opset 11. */
static int unary_params(const Node *n, const UnaryKernel *k, float p[2])
{
    int np = k->form == UK_F32_1 ? 1 : k->form == UK_F32_2 || k->form == UK_CLIP ? 2 : 0;
    for (int i = 0; i < np; i++)
        p[i] = k->form == UK_CLIP && n->opset >= 11 ? clip_bound(n, i + 1, k->p[i].dflt)
                                                    : attr_float(n, k->p[i].attr, k->p[i].dflt);
    return np;
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
    if (unary_kernels[unary_first_row(n)].form != UK_CLIP)
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
    float p[2];
    unary_params(n, unary_kernel(n), p); /* checks the type, attributes and bounds */
    same_shape_infer(n);
}

void unary_fold(Node *n)
{
    if (clip_int_index(n) >= 0) {
        clip_int_fold(n);
        return;
    }
    const UnaryKernel *k = unary_kernel(n);
    float p[2];
    unary_params(n, k, p);
    int64_t len = value_numel(n->outputs[0]);
    void *x = n->inputs[0]->data, *y = n->outputs[0]->data;
    switch (k->form) {
    case UK_F32: k->fn.f32(len, x, y); break;
    case UK_F32_1: k->fn.f32_1(len, p[0], x, y); break;
    case UK_F32_2:
    case UK_CLIP: k->fn.f32_2(len, p[0], p[1], x, y); break;
    case UK_I64: k->fn.i64(len, x, y); break;
    case UK_F64: k->fn.f64(len, x, y); break;
    }
}

/* A parameter's C expression: a Clip bound that is not a constant is read from its tensor
 * when the model runs. */
static const char *unary_param_cname(Emitter *e, Node *n, const UnaryKernel *k, int i, float p)
{
    Value *v = k->form == UK_CLIP && n->opset >= 11 ? node_input(n, i + 1) : NULL;
    if (v && !v->data)
        return xprintf("%s[0]", value_cname(e, v));
    return c_float(p);
}

void unary_emit(Emitter *e, Node *n)
{
    if (clip_int_index(n) >= 0) {
        clip_int_emit(e, n, clip_int_index(n));
        return;
    }
    const UnaryKernel *k = unary_kernel(n);
    float p[2];
    int np = unary_params(n, k, p);
    const char *params = "";
    for (int i = 0; i < np; i++)
        params = xprintf("%s%s, ", params, unary_param_cname(e, n, k, i, p[i]));
    println(e, "%s(%lld, %s%s, %s);", k->kernel, (long long)value_numel(n->outputs[0]), params,
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
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
