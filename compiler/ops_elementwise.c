/* ops_elementwise.c — unary activations and broadcasting binary arithmetic.
 * Each op maps to one template kernel: called here to fold, named in the emitted C. */
#include "ops.h"
#include "kernels.h"

#include <string.h>

/* ---- unary: Relu, LeakyRelu, Sigmoid, Tanh, Clip ---- */

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

void unary_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    unary_args(n); /* checks attributes and bounds */
    same_shape_infer(n);
}

void unary_fold(Node *n)
{
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

/* ---- binary: Add, Sub, Mul, Div with numpy broadcasting ---- */

typedef void (*BinaryF32)(int, const int64_t *, const int64_t *, const int64_t *, const float *,
                          const float *, float *);
typedef void (*BinaryI64)(int, const int64_t *, const int64_t *, const int64_t *, const int64_t *,
                          const int64_t *, int64_t *);

static const struct {
    const char *op, *name;
    BinaryF32 f32;
    BinaryI64 i64;
} binary_kernels[] = {
    {"Add", "add", add_f32, add_i64},
    {"Sub", "sub", sub_f32, sub_i64},
    {"Mul", "mul", mul_f32, mul_i64},
    {"Div", "div", div_f32, div_i64},
};

static int binary_index(const Node *n)
{
    for (size_t i = 0; i < sizeof binary_kernels / sizeof binary_kernels[0]; i++)
        if (!strcmp(binary_kernels[i].op, n->op_type))
            return (int)i;
    unreachable();
}

void binary_infer(Node *n)
{
    const Value *a = n->inputs[0], *b = n->inputs[1];
    if (a->dtype != b->dtype)
        fatal_at(n, "inputs have different types (%s, %s)", dtype_name(a->dtype),
                 dtype_name(b->dtype));
    if (a->dtype != DT_FLOAT && a->dtype != DT_INT64)
        fatal_at(n, "type %s is not supported (float32 and int64 are)", dtype_name(a->dtype));
    int rank;
    int64_t dims[MAX_RANK];
    broadcast_shape(n, a, b, &rank, dims);
    set_shape(n->outputs[0], a->dtype, rank, dims);
}

void binary_fold(Node *n)
{
    const Value *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
    int64_t sa[MAX_RANK], sb[MAX_RANK];
    broadcast_strides(a, y->rank, y->dims, sa);
    broadcast_strides(b, y->rank, y->dims, sb);
    int k = binary_index(n);
    if (y->dtype == DT_FLOAT)
        binary_kernels[k].f32(y->rank, y->dims, sa, sb, a->data, b->data, y->data);
    else
        binary_kernels[k].i64(y->rank, y->dims, sa, sb, a->data, b->data, y->data);
}

void binary_emit(Emitter *e, Node *n)
{
    Value *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
    int64_t sa[MAX_RANK], sb[MAX_RANK];
    broadcast_strides(a, y->rank, y->dims, sa);
    broadcast_strides(b, y->rank, y->dims, sb);
    const char *dims = emit_dims(e, y->rank, y->dims);
    const char *das = emit_dims(e, y->rank, sa), *dbs = emit_dims(e, y->rank, sb);
    println(e, "%s_%s(%d, %s, %s, %s, %s, %s, %s);", binary_kernels[binary_index(n)].name,
            y->dtype == DT_FLOAT ? "f32" : "i64", y->rank, dims, das, dbs, value_cname(e, a),
            value_cname(e, b), value_cname(e, y));
}
