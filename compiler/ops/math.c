/* math.c — elementwise math: Pow with broadcasting, the variadic Max, Min, Sum, Mean, and
 * Det. Kernels in templates/math.c (Sum and Mean use add_f32/div_f32 of elementwise.c). The
 * unary math functions (Abs, Exp, Sin, Gelu, ...) are rows of the unary table in
 * elementwise.c. */
#include "kernels.h"
#include "ops.h"

#include <string.h>

/* ---- Pow: float32 base with a float32 or integer exponent; int32/int64 base with a float32
 * or int32/int64 exponent (the result has the base's type) ---- */

static const struct {
    DType base, exp;
    const char *kernel;
} pow_kernels[] = {
    {DT_FLOAT, DT_FLOAT, "pow_f32"},      {DT_FLOAT, DT_INT64, "pow_f32_i64"},
    {DT_FLOAT, DT_INT32, "pow_f32_i32"},  {DT_FLOAT, DT_UINT64, "pow_f32_u64"},
    {DT_FLOAT, DT_UINT32, "pow_f32_u32"}, {DT_INT32, DT_FLOAT, "pow_i32_f32"},
    {DT_INT64, DT_FLOAT, "pow_i64_f32"},  {DT_INT32, DT_INT32, "pow_i32_i32"},
    {DT_INT32, DT_INT64, "pow_i32_i64"},  {DT_INT64, DT_INT32, "pow_i64_i32"},
    {DT_INT64, DT_INT64, "pow_i64_i64"},
};

static const char *pow_kernel(const Node *n)
{
    const Value *a = n->inputs[0], *b = n->inputs[1];
    bool base_ok = false;
    for (size_t i = 0; i < sizeof pow_kernels / sizeof pow_kernels[0]; i++) {
        if (pow_kernels[i].base == a->dtype && pow_kernels[i].exp == b->dtype)
            return pow_kernels[i].kernel;
        base_ok |= pow_kernels[i].base == a->dtype;
    }
    if (!base_ok)
        fatal_at(n, "base type %s is not supported (float32, int32, int64 are)",
                 dtype_name(a->dtype));
    fatal_at(n, "exponent type %s is not supported with a %s base (float32, int32, int64%s are)",
             dtype_name(b->dtype), dtype_name(a->dtype),
             a->dtype == DT_FLOAT ? ", uint32, uint64" : "");
}

void pow_infer(Node *n)
{
    pow_kernel(n);
    if (n->opset < 12 && (n->inputs[0]->dtype != DT_FLOAT || n->inputs[1]->dtype != DT_FLOAT))
        fatal_at(n, "integer operands need opset 12 or newer");
    int rank;
    int64_t dims[MAX_RANK];
    broadcast_shape(n, n->inputs[0], n->inputs[1], &rank, dims);
    set_shape(n->outputs[0], n->inputs[0]->dtype, rank, dims);
}

void pow_fold(Node *n)
{
    Value *y = n->outputs[0];
    LoopSpace l = broadcast_loop(y, 2, n->inputs);
    const char *k = pow_kernel(n);
    const void *a = n->inputs[0]->data, *b = n->inputs[1]->data;
#define POW_CALL(NAME)                                                                             \
    if (!strcmp(k, #NAME)) {                                                                       \
        NAME(l.rank, l.dims, l.strides[0], l.strides[1], a, b, y->data);                           \
        return;                                                                                    \
    }
    POW_CALL(pow_f32)
    POW_CALL(pow_f32_i64)
    POW_CALL(pow_f32_i32)
    POW_CALL(pow_f32_u64)
    POW_CALL(pow_f32_u32)
    POW_CALL(pow_i32_f32)
    POW_CALL(pow_i64_f32)
    POW_CALL(pow_i32_i32)
    POW_CALL(pow_i32_i64)
    POW_CALL(pow_i64_i32)
    POW_CALL(pow_i64_i64)
#undef POW_CALL
    unreachable();
}

void pow_emit(Emitter *e, Node *n)
{
    emit_broadcast_binary(e, n, pow_kernel(n));
}

/* ---- Max, Min, Sum, Mean: y = x0 op x1 op ... left to right, each step broadcast to the
 * output's shape (y is the first operand of every step after the first) ---- */

static const char *variadic_kernel(const Node *n)
{
    static const struct {
        DType t;
        const char *suffix;
    } types[] = {
        {DT_FLOAT, "f32"}, {DT_DOUBLE, "f64"}, {DT_INT8, "i8"},   {DT_UINT8, "u8"},
        {DT_INT16, "i16"}, {DT_UINT16, "u16"}, {DT_INT32, "i32"}, {DT_UINT32, "u32"},
        {DT_INT64, "i64"}, {DT_UINT64, "u64"},
    };
    const char *op = n->op_type;
    DType t = n->inputs[0]->dtype;
    bool minmax = !strcmp(op, "Max") || !strcmp(op, "Min");
    size_t k = 0, ntypes = minmax ? sizeof types / sizeof types[0] : 2;
    while (k < ntypes && types[k].t != t)
        k++;
    if (k == ntypes)
        fatal_at(n, "type %s is not supported (%s)", dtype_name(t),
                 minmax ? "float16, bfloat16, float32, float64 and [u]int8..64 are"
                        : "float16, bfloat16, float32 and float64 are");
    return xprintf("%s_%s",
                   !strcmp(op, "Max")   ? "max"
                   : !strcmp(op, "Min") ? "min"
                                        : "add",
                   types[k].suffix);
}

void variadic_infer(Node *n)
{
    variadic_kernel(n);
    Value acc = *n->inputs[0];
    for (int i = 1; i < n->ninputs; i++) {
        const Value *x = n->inputs[i];
        if (!x)
            fatal_at(n, "input %d is missing", i);
        if (x->dtype != acc.dtype)
            fatal_at(n, "inputs have different types (%s, %s)", dtype_name(acc.dtype),
                     dtype_name(x->dtype));
        int rank;
        int64_t dims[MAX_RANK];
        broadcast_shape(n, &acc, x, &rank, dims);
        acc.rank = rank;
        memcpy(acc.dims, dims, sizeof dims);
    }
    set_shape(n->outputs[0], acc.dtype, acc.rank, acc.dims);
}

/* Kernels of one step, by name (the templates' functions, as the compiler links them). */
static void variadic_step(const char *k, const LoopSpace *l, const void *a, const void *b, void *y)
{
    const int64_t *d = l->dims, *sa = l->strides[0], *sb = l->strides[1];
#define VARIADIC_STEP(NAME)                                                                        \
    if (!strcmp(k, #NAME)) {                                                                       \
        NAME(l->rank, d, sa, sb, a, b, y);                                                         \
        return;                                                                                    \
    }
#define VARIADIC_MINMAX(SUFFIX) VARIADIC_STEP(max_##SUFFIX) VARIADIC_STEP(min_##SUFFIX)
    VARIADIC_MINMAX(f32)
    VARIADIC_MINMAX(f64)
    VARIADIC_MINMAX(i8)
    VARIADIC_MINMAX(u8)
    VARIADIC_MINMAX(i16)
    VARIADIC_MINMAX(u16)
    VARIADIC_MINMAX(i32)
    VARIADIC_MINMAX(u32)
    VARIADIC_MINMAX(i64)
    VARIADIC_MINMAX(u64)
    VARIADIC_STEP(add_f32)
    VARIADIC_STEP(add_f64)
    VARIADIC_STEP(div_f32)
    VARIADIC_STEP(div_f64)
#undef VARIADIC_MINMAX
#undef VARIADIC_STEP
    unreachable();
}

/* The loop space of step i (1..n-1): operands (x0, x1) for the first, (y, xi) after. */
static LoopSpace variadic_loop(const Node *n, int i)
{
    Value *ops[2] = {i == 1 ? n->inputs[0] : n->outputs[0], n->inputs[i]};
    return broadcast_loop(n->outputs[0], 2, ops);
}

/* Mean divides the sum by the count: y = y / count, the count a scalar of stride 0. */
static LoopSpace mean_loop(const Node *n)
{
    LoopSpace l = {.rank = 1};
    l.dims[0] = value_numel(n->outputs[0]);
    l.strides[0][0] = 1;
    return l;
}

void variadic_fold(Node *n)
{
    Value *y = n->outputs[0];
    const char *k = variadic_kernel(n);
    if (n->ninputs == 1)
        memcpy(y->data, n->inputs[0]->data, (size_t)value_bytes(y));
    for (int i = 1; i < n->ninputs; i++) {
        LoopSpace l = variadic_loop(n, i);
        variadic_step(k, &l, i == 1 ? n->inputs[0]->data : y->data, n->inputs[i]->data, y->data);
    }
    if (!strcmp(n->op_type, "Mean") && n->ninputs > 1) {
        LoopSpace l = mean_loop(n);
        float count = (float)n->ninputs;
        double count64 = n->ninputs;
        if (y->dtype == DT_DOUBLE)
            variadic_step("div_f64", &l, y->data, &count64, y->data);
        else
            variadic_step("div_f32", &l, y->data, &count, y->data);
    }
}

void variadic_emit(Emitter *e, Node *n)
{
    Value *y = n->outputs[0];
    const char *k = variadic_kernel(n), *yname = value_cname(e, y);
    if (n->ninputs == 1)
        println(e, "copy_bytes(%lld, %s, %s);", (long long)value_bytes(y),
                value_cname(e, n->inputs[0]), yname);
    for (int i = 1; i < n->ninputs; i++) {
        LoopSpace l = variadic_loop(n, i);
        const char *dims = emit_dims(e, l.rank, l.dims);
        const char *sa = emit_dims(e, l.rank, l.strides[0]),
                   *sb = emit_dims(e, l.rank, l.strides[1]);
        println(e, "%s(%d, %s, %s, %s, %s, %s, %s);", k, l.rank, dims, sa, sb,
                i == 1 ? value_cname(e, n->inputs[0]) : yname, value_cname(e, n->inputs[i]), yname);
    }
    if (!strcmp(n->op_type, "Mean") && n->ninputs > 1) {
        LoopSpace l = mean_loop(n);
        bool f64 = y->dtype == DT_DOUBLE;
        void *count = xcalloc(1, sizeof(double));
        if (f64)
            *(double *)count = n->ninputs;
        else
            *(float *)count = (float)n->ninputs;
        const char *dims = emit_dims(e, l.rank, l.dims);
        const char *sa = emit_dims(e, l.rank, l.strides[0]),
                   *sb = emit_dims(e, l.rank, l.strides[1]);
        println(e, "div_%s(%d, %s, %s, %s, %s, %s, %s);", f64 ? "f64" : "f32", l.rank, dims, sa, sb,
                yname, emit_constant(e, y->dtype, 0, NULL, count), yname);
    }
}

/* ---- Det: x [..][n][n] -> y [..], scratch n*n doubles ---- */

static void det_geometry(const Node *n, int64_t *batch, int64_t *m)
{
    const Value *x = n->inputs[0];
    if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
        fatal_at(n, "input must be square matrices [.., n, n]");
    *m = x->dims[x->rank - 1];
    *batch = 1;
    for (int i = 0; i < x->rank - 2; i++)
        *batch = checked_mul(n, *batch, x->dims[i]);
}

void det_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_float(n, x);
    int64_t batch, m;
    det_geometry(n, &batch, &m);
    checked_mul(n, checked_mul(n, m, m), 8);
    set_shape(n->outputs[0], DT_FLOAT, x->rank - 2, x->dims);
}

void det_fold(Node *n)
{
    int64_t batch, m;
    det_geometry(n, &batch, &m);
    double *a = xcalloc((size_t)(m * m) + 1, sizeof(double));
    det_f32(batch, m, n->inputs[0]->data, n->outputs[0]->data, a);
}

int64_t det_scratch(const Node *n)
{
    int64_t batch, m;
    det_geometry(n, &batch, &m);
    return m * m * (int64_t)sizeof(double);
}

void det_emit(Emitter *e, Node *n)
{
    int64_t batch, m;
    det_geometry(n, &batch, &m);
    println(e, "det_f32(%lld, %lld, %s, %s, %s);", (long long)batch, (long long)m,
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]),
            scratch_cname(e, n, DT_DOUBLE, 0));
}
