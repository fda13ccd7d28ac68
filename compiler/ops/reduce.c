/* reduce.c — reductions (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
 * ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp) and LayerNormalization.
 * Kernels in templates/reduce.c. */
#include "kernels.h"
#include "ops.h"

#include <string.h>

/* ---- reductions ---- */

static const struct {
    const char *op, *kernel;
    bool f64, int64, bytes; /* also for float64; for int64; for bool and uint8 */
} reduce_ops[] = {
    {"ReduceSum", "reduce_sum", true, true, false},
    {"ReduceProd", "reduce_prod", false, true, false},
    {"ReduceMean", "reduce_mean", false, false, false},
    {"ReduceMax", "reduce_max", false, true, true},
    {"ReduceMin", "reduce_min", false, true, true},
    {"ReduceSumSquare", "reduce_sum_square", false, false, false},
    {"ReduceL1", "reduce_l1", false, false, false},
    {"ReduceL2", "reduce_l2", false, false, false},
    {"ReduceLogSumExp", "reduce_log_sum_exp", true, false, false},
    {"ReduceLogSum", "reduce_log_sum", false, false, false},
};

static int reduce_index(const Node *n)
{
    for (size_t i = 0; i < sizeof reduce_ops / sizeof reduce_ops[0]; i++)
        if (!strcmp(reduce_ops[i].op, n->op_type))
            return (int)i;
    unreachable();
}

/* Kernel name for the node's element type, e.g. reduce_max_f32. */
static const char *reduce_kernel(const Node *n)
{
    int k = reduce_index(n);
    DType t = n->inputs[0]->dtype;
    if (t == DT_FLOAT)
        return xprintf("%s_f32", reduce_ops[k].kernel);
    if (t == DT_DOUBLE && reduce_ops[k].f64)
        return xprintf("%s_f64", reduce_ops[k].kernel);
    if (t == DT_INT64 && reduce_ops[k].int64)
        return xprintf("%s_i64", reduce_ops[k].kernel);
    if (t == DT_UINT8 && reduce_ops[k].bytes)
        return xprintf("%s_u8", reduce_ops[k].kernel);
    if (t == DT_BOOL && reduce_ops[k].bytes) /* max: any (as uint8); min: all */
        return !strcmp(n->op_type, "ReduceMin") ? "reduce_min_bool" : "reduce_max_u8";
    bool more = reduce_ops[k].f64 || reduce_ops[k].int64;
    fatal_at(n, "type %s is not supported (float32%s%s%s %s)", dtype_name(t),
             reduce_ops[k].f64 ? ", float64" : "", reduce_ops[k].int64 ? ", int64" : "",
             reduce_ops[k].bytes ? ", uint8, bool" : "", more ? "are" : "is");
}

/* Marks the reduced axes. The axes are an attribute before opset 18 (13 for ReduceSum) and
 * an optional constant input since; none or an empty list means all axes, or none at all
 * with noop_with_empty_axes. */
static void reduce_axes(const Node *n, bool *reduced)
{
    const Value *x = n->inputs[0];
    bool from_input = n->opset >= (!strcmp(n->op_type, "ReduceSum") ? 13 : 18);
    const int64_t *axes = NULL;
    int count = -1;
    if (from_input) {
        const Value *in = node_input(n, 1);
        if (in && in->rank == 1 && in->dims[0] == 0)
            count = 0; /* an empty list is known from its shape, even as a graph input */
        else if (in)
            axes = const_ints(n, in, &count);
    } else {
        if (node_input(n, 1))
            fatal_at(n, "the axes input needs opset %d or newer",
                     !strcmp(n->op_type, "ReduceSum") ? 13 : 18);
        count = attr_ints(n, "axes", &axes);
    }
    bool noop = from_input && attr_int(n, "noop_with_empty_axes", 0) != 0;
    for (int d = 0; d < x->rank; d++)
        reduced[d] = count <= 0 && !noop;
    for (int i = 0; i < count; i++) {
        int d = normalize_axis(n, axes[i], x->rank);
        if (reduced[d])
            fatal_at(n, "axis %d is repeated", d);
        reduced[d] = true;
    }
}

void reduce_infer(Node *n)
{
    const Value *x = n->inputs[0];
    reduce_kernel(n); /* checks the type */
    bool reduced[MAX_RANK];
    reduce_axes(n, reduced);
    bool keep = attr_int(n, "keepdims", 1) != 0;
    int64_t dims[MAX_RANK];
    int r = 0;
    for (int d = 0; d < x->rank; d++) {
        if (!reduced[d])
            dims[r++] = x->dims[d];
        else if (keep)
            dims[r++] = 1;
    }
    set_shape(n->outputs[0], x->dtype, r, dims);
}

/* Kept and reduced dims with their strides in x, size-1 dims dropped and neighbours of the
 * same kind merged where x steps through them as through one. */
typedef struct ReduceGeometry {
    int out_rank, red_rank;
    int64_t out_dims[MAX_RANK], out_strides[MAX_RANK], red_dims[MAX_RANK], red_strides[MAX_RANK];
} ReduceGeometry;

static void geometry_add(int *rank, int64_t *dims, int64_t *strides, int64_t dim, int64_t stride)
{
    if (*rank > 0 && strides[*rank - 1] == stride * dim) {
        dims[*rank - 1] *= dim;
        strides[*rank - 1] = stride;
    } else {
        dims[*rank] = dim;
        strides[*rank] = stride;
        (*rank)++;
    }
}

static ReduceGeometry reduce_geometry(const Node *n)
{
    const Value *x = n->inputs[0];
    bool reduced[MAX_RANK];
    reduce_axes(n, reduced);
    ReduceGeometry g = {0};
    int64_t stride[MAX_RANK], s = 1;
    for (int d = x->rank - 1; d >= 0; d--) {
        stride[d] = s;
        s *= x->dims[d];
    }
    for (int d = 0; d < x->rank; d++) {
        if (x->dims[d] == 1)
            continue;
        if (reduced[d])
            geometry_add(&g.red_rank, g.red_dims, g.red_strides, x->dims[d], stride[d]);
        else
            geometry_add(&g.out_rank, g.out_dims, g.out_strides, x->dims[d], stride[d]);
    }
    return g;
}

void reduce_fold(Node *n)
{
    ReduceGeometry g = reduce_geometry(n);
    const char *k = reduce_kernel(n);
    const void *x = n->inputs[0]->data;
    void *y = n->outputs[0]->data;
#define REDUCE_CALL(NAME)                                                                          \
    if (!strcmp(k, #NAME)) {                                                                       \
        NAME(g.out_rank, g.out_dims, g.out_strides, g.red_rank, g.red_dims, g.red_strides, x, y);  \
        return;                                                                                    \
    }
    REDUCE_CALL(reduce_sum_f32)
    REDUCE_CALL(reduce_sum_f64)
    REDUCE_CALL(reduce_sum_i64)
    REDUCE_CALL(reduce_prod_f32)
    REDUCE_CALL(reduce_prod_i64)
    REDUCE_CALL(reduce_mean_f32)
    REDUCE_CALL(reduce_sum_square_f32)
    REDUCE_CALL(reduce_l1_f32)
    REDUCE_CALL(reduce_l2_f32)
    REDUCE_CALL(reduce_log_sum_f32)
    REDUCE_CALL(reduce_max_f32)
    REDUCE_CALL(reduce_min_f32)
    REDUCE_CALL(reduce_max_i64)
    REDUCE_CALL(reduce_min_i64)
    REDUCE_CALL(reduce_max_u8)
    REDUCE_CALL(reduce_min_u8)
    REDUCE_CALL(reduce_min_bool)
    REDUCE_CALL(reduce_log_sum_exp_f32)
    REDUCE_CALL(reduce_log_sum_exp_f64)
#undef REDUCE_CALL
    unreachable();
}

void reduce_emit(Emitter *e, Node *n)
{
    ReduceGeometry g = reduce_geometry(n);
    const char *od = emit_dims(e, g.out_rank, g.out_dims);
    const char *os = emit_dims(e, g.out_rank, g.out_strides);
    const char *rd = emit_dims(e, g.red_rank, g.red_dims);
    const char *rs = emit_dims(e, g.red_rank, g.red_strides);
    println(e, "%s(%d, %s, %s, %d, %s, %s, %s, %s);", reduce_kernel(n), g.out_rank, od, os,
            g.red_rank, rd, rs, value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}

double reduce_flops(const Node *n)
{
    return (double)value_numel(n->inputs[0]);
}

/* ---- LayerNormalization ---- */

typedef struct LayerNormArgs {
    int axis;
    int64_t rows, n; /* x viewed as [rows][n], normalised along n */
    int64_t scale_stride, bias_stride;
    float eps;
} LayerNormArgs;

/* Scale and bias broadcast to x's dims from the axis on: all of them (stride 1) or one value
 * (stride 0); other partial broadcasts are refused. */
static int64_t layernorm_param_stride(const Node *n, const Value *p, const LayerNormArgs *a)
{
    const Value *x = n->inputs[0];
    require_float(n, p);
    Value tail = {.name = (char *)"normalized dims", .rank = x->rank - a->axis};
    memcpy(tail.dims, x->dims + a->axis, sizeof(int64_t) * (size_t)tail.rank);
    int rank;
    int64_t dims[MAX_RANK];
    broadcast_shape(n, &tail, p, &rank, dims);
    if (rank != tail.rank || memcmp(dims, tail.dims, sizeof(int64_t) * (size_t)rank))
        fatal_at(n, "'%s' does not broadcast to the normalized dims", p->name);
    int64_t numel = value_numel(p);
    if (numel == a->n)
        return 1;
    if (numel == 1)
        return 0;
    fatal_at(n, "'%s' broadcasts over only some of the normalized dims, which is not supported",
             p->name);
}

static LayerNormArgs layernorm_args(const Node *n)
{
    const Value *x = n->inputs[0];
    require_float(n, x);
    if (x->rank < 1)
        fatal_at(n, "the input must have rank 1 or more");
    if (attr_int(n, "stash_type", 1) != 1)
        fatal_at(n, "stash_type %lld is not supported (only 1, float32, is)",
                 (long long)attr_int(n, "stash_type", 1));
    LayerNormArgs a = {0};
    a.axis = normalize_axis(n, attr_int(n, "axis", -1), x->rank);
    a.rows = a.n = 1;
    for (int d = 0; d < x->rank; d++) {
        if (d < a.axis)
            a.rows *= x->dims[d];
        else
            a.n *= x->dims[d];
    }
    a.eps = attr_float(n, "epsilon", 1e-5f);
    a.scale_stride = layernorm_param_stride(n, n->inputs[1], &a);
    const Value *b = node_input(n, 2);
    a.bias_stride = b ? layernorm_param_stride(n, b, &a) : 0;
    return a;
}

void layernorm_infer(Node *n)
{
    const Value *x = n->inputs[0];
    LayerNormArgs a = layernorm_args(n);
    set_shape(n->outputs[0], DT_FLOAT, x->rank, x->dims);
    int64_t dims[MAX_RANK];
    for (int d = 0; d < x->rank; d++)
        dims[d] = d < a.axis ? x->dims[d] : 1;
    for (int i = 1; i < n->noutputs && i < 3; i++)
        if (n->outputs[i])
            set_shape(n->outputs[i], DT_FLOAT, x->rank, dims);
}

static Value *layernorm_output(const Node *n, int i)
{
    return i < n->noutputs ? n->outputs[i] : NULL;
}

void layernorm_fold(Node *n)
{
    LayerNormArgs a = layernorm_args(n);
    const Value *b = node_input(n, 2);
    Value *mean = layernorm_output(n, 1), *inv = layernorm_output(n, 2);
    layernorm_f32(a.rows, a.n, n->inputs[0]->data, n->inputs[1]->data, a.scale_stride,
                  b ? b->data : NULL, a.bias_stride, a.eps, n->outputs[0]->data,
                  mean ? mean->data : NULL, inv ? inv->data : NULL);
}

void layernorm_emit(Emitter *e, Node *n)
{
    LayerNormArgs a = layernorm_args(n);
    Value *b = node_input(n, 2);
    Value *mean = layernorm_output(n, 1), *inv = layernorm_output(n, 2);
    println(e, "layernorm_f32(%lld, %lld, %s, %s, %d, %s, %d, %s, %s, %s, %s);", (long long)a.rows,
            (long long)a.n, value_cname(e, n->inputs[0]), value_cname(e, n->inputs[1]),
            (int)a.scale_stride, b ? value_cname(e, b) : "NULL", (int)a.bias_stride, c_float(a.eps),
            value_cname(e, n->outputs[0]),
            mean && value_is_used(mean) ? value_cname(e, mean) : "NULL",
            inv && value_is_used(inv) ? value_cname(e, inv) : "NULL");
}
