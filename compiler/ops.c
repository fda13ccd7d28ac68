/* ops.c — the op table, from which shape inference, folding and emission are all driven, and
 * the helpers the per-family op files share. */
#include "ops.h"

#include <string.h>

#define VIEW true
#define NO_VIEW false

/* name, inputs min..max, oldest opset, infer, fold, emit, view, flops, scratch, templates */
static const OpDef op_table[] = {
    {"Add", 2, 2, 7, binary_infer, binary_fold, binary_emit, NO_VIEW, numel_flops, NULL, "elementwise"},
    {"Sub", 2, 2, 7, binary_infer, binary_fold, binary_emit, NO_VIEW, numel_flops, NULL, "elementwise"},
    {"Mul", 2, 2, 7, binary_infer, binary_fold, binary_emit, NO_VIEW, numel_flops, NULL, "elementwise"},
    {"Div", 2, 2, 7, binary_infer, binary_fold, binary_emit, NO_VIEW, numel_flops, NULL, "elementwise"},
    {"Relu", 1, 1, 6, unary_infer, unary_fold, unary_emit, NO_VIEW, numel_flops, NULL, "elementwise"},
    {"LeakyRelu", 1, 1, 6, unary_infer, unary_fold, unary_emit, NO_VIEW, numel_flops, NULL, "elementwise"},
    {"Sigmoid", 1, 1, 6, unary_infer, unary_fold, unary_emit, NO_VIEW, numel_flops, NULL, "elementwise"},
    {"Tanh", 1, 1, 6, unary_infer, unary_fold, unary_emit, NO_VIEW, numel_flops, NULL, "elementwise"},
    {"Clip", 1, 3, 6, unary_infer, unary_fold, unary_emit, NO_VIEW, numel_flops, NULL, "elementwise"},
    {"Gemm", 2, 3, 7, gemm_infer, gemm_fold, gemm_emit, NO_VIEW, gemm_flops, NULL, "gemm"},
    {"MatMul", 2, 2, 1, matmul_infer, matmul_fold, matmul_emit, NO_VIEW, matmul_flops, NULL, "gemm"},
    {"Conv", 2, 3, 1, conv_infer, NULL, conv_emit, NO_VIEW, conv_flops, conv_scratch, "gemm conv"},
    {"MaxPool", 1, 1, 1, pool_infer, NULL, pool_emit, NO_VIEW, numel_flops, NULL, "pool"},
    {"AveragePool", 1, 1, 1, pool_infer, NULL, pool_emit, NO_VIEW, numel_flops, NULL, "pool"},
    {"GlobalAveragePool", 1, 1, 1, global_pool_infer, NULL, global_pool_emit, NO_VIEW, numel_flops, NULL, "pool"},
    {"BatchNormalization", 5, 5, 6, batchnorm_infer, batchnorm_fold, batchnorm_emit, NO_VIEW, numel_flops, NULL, "norm"},
    {"Softmax", 1, 1, 1, softmax_infer, softmax_fold, softmax_emit, NO_VIEW, numel_flops, NULL, "softmax"},
    {"LogSoftmax", 1, 1, 1, softmax_infer, softmax_fold, softmax_emit, NO_VIEW, numel_flops, NULL, "softmax"},
    {"Constant", 0, 0, 1, constant_infer, constant_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"Identity", 1, 1, 1, identity_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Dropout", 1, 3, 1, identity_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Flatten", 1, 1, 1, flatten_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Reshape", 2, 2, 5, reshape_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Squeeze", 1, 2, 1, squeeze_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Unsqueeze", 1, 2, 1, unsqueeze_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Shape", 1, 1, 1, shape_infer, shape_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"Transpose", 1, 1, 1, transpose_infer, transpose_fold, transpose_emit, NO_VIEW, NULL, NULL, "movement"},
    {"Concat", 1, 1 << 20, 4, concat_infer, concat_fold, concat_emit, NO_VIEW, NULL, NULL, "movement"},
    {"Gather", 2, 2, 1, gather_infer, gather_fold, gather_emit, NO_VIEW, NULL, NULL, "movement"},
    {"Abs", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Neg", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Exp", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Log", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Sqrt", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Reciprocal", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Erf", 1, 1, 9, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Floor", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Ceil", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Sign", 1, 1, 9, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Sin", 1, 1, 7, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Cos", 1, 1, 7, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Softplus", 1, 1, 1, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Softsign", 1, 1, 1, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"HardSigmoid", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"HardSwish", 1, 1, 14, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Elu", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Selu", 1, 1, 6, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Gelu", 1, 1, 20, math_unary_infer, math_unary_fold, math_unary_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Pow", 2, 2, 7, pow_infer, pow_fold, pow_emit, NO_VIEW, numel_flops, NULL, "math"},
    {"Max", 1, 1 << 20, 8, variadic_infer, variadic_fold, variadic_emit, NO_VIEW, numel_flops, NULL, "math movement"},
    {"Min", 1, 1 << 20, 8, variadic_infer, variadic_fold, variadic_emit, NO_VIEW, numel_flops, NULL, "math movement"},
    {"Sum", 1, 1 << 20, 8, variadic_infer, variadic_fold, variadic_emit, NO_VIEW, numel_flops, NULL, "elementwise movement"},
    {"Mean", 1, 1 << 20, 8, variadic_infer, variadic_fold, variadic_emit, NO_VIEW, numel_flops, NULL, "elementwise movement"},
    {"ReduceSum", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW, reduce_flops, NULL, "reduce"},
    {"ReduceMean", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW, reduce_flops, NULL, "reduce"},
    {"ReduceMax", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW, reduce_flops, NULL, "reduce"},
    {"ReduceMin", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW, reduce_flops, NULL, "reduce"},
    {"ReduceProd", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW, reduce_flops, NULL, "reduce"},
    {"ReduceSumSquare", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW, reduce_flops, NULL, "reduce"},
    {"ReduceL1", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW, reduce_flops, NULL, "reduce"},
    {"ReduceL2", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW, reduce_flops, NULL, "reduce"},
    {"ReduceLogSumExp", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW, reduce_flops, NULL, "reduce"},
    {"LayerNormalization", 2, 3, 17, layernorm_infer, layernorm_fold, layernorm_emit, NO_VIEW, numel_flops, NULL, "reduce"},
    {"Cast", 1, 1, 6, cast_infer, cast_fold, cast_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"CastLike", 2, 2, 15, cast_infer, cast_fold, cast_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Equal", 2, 2, 7, compare_infer, compare_fold, compare_emit, NO_VIEW, numel_flops, NULL, "tensor"},
    {"Less", 2, 2, 7, compare_infer, compare_fold, compare_emit, NO_VIEW, numel_flops, NULL, "tensor"},
    {"Greater", 2, 2, 7, compare_infer, compare_fold, compare_emit, NO_VIEW, numel_flops, NULL, "tensor"},
    {"LessOrEqual", 2, 2, 12, compare_infer, compare_fold, compare_emit, NO_VIEW, numel_flops, NULL, "tensor"},
    {"GreaterOrEqual", 2, 2, 12, compare_infer, compare_fold, compare_emit, NO_VIEW, numel_flops, NULL, "tensor"},
    {"Not", 1, 1, 1, logic_infer, logic_fold, logic_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"And", 2, 2, 7, logic_infer, logic_fold, logic_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Or", 2, 2, 7, logic_infer, logic_fold, logic_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Xor", 2, 2, 7, logic_infer, logic_fold, logic_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Where", 3, 3, 9, where_infer, where_fold, where_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Expand", 2, 2, 8, expand_infer, expand_fold, expand_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Tile", 2, 2, 6, tile_infer, tile_fold, tile_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Slice", 1, 5, 1, slice_infer, slice_fold, slice_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Split", 1, 2, 2, split_infer, split_fold, split_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Size", 1, 1, 1, size_infer, size_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"ConstantOfShape", 1, 1, 9, constant_of_shape_infer, constant_of_shape_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"Range", 3, 3, 11, range_infer, range_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    /* ---- nn family: ops_nn.c (ConvTranspose, pools, normalisations) ---- */
    /* ---- data family: ops_data.c (gather/scatter, pad, resize, index ops) ---- */
    /* ---- types family: ops_types.c (integer/bitwise ops, more element types) ---- */
    /* ---- sequence family: ops_recurrent.c, ops_quant.c (RNN/GRU/LSTM, quantisation) ---- */
};

int op_table_entries(const OpDef **out)
{
    *out = op_table;
    return (int)(sizeof op_table / sizeof op_table[0]);
}

const OpDef *op_lookup(const char *name)
{
    for (size_t i = 0; i < sizeof op_table / sizeof op_table[0]; i++)
        if (!strcmp(op_table[i].name, name))
            return &op_table[i];
    return NULL;
}

int normalize_axis(const Node *n, int64_t axis, int rank)
{
    if (axis < -rank || axis >= (rank ? rank : 1))
        fatal_at(n, "axis %lld is out of range for rank %d", (long long)axis, rank);
    return (int)(axis < 0 ? axis + rank : axis);
}

void require_dtype(const Node *n, const Value *v, DType t)
{
    if (v->dtype != t)
        fatal_at(n, "input '%s' has type %s; this op supports %s only", v->name,
                 dtype_name(v->dtype), dtype_name(t));
}

void require_float(const Node *n, const Value *v)
{
    require_dtype(n, v, DT_FLOAT);
}

void require_constant(const Node *n, const Value *v, const char *what)
{
    if (!v->data)
        fatal_at(n, "%s '%s' must be a compile-time constant", what, v->name);
}

int64_t *const_ints(const Node *n, const Value *v, int *count)
{
    require_constant(n, v, "input");
    if (v->rank > 1)
        fatal_at(n, "input '%s' must be a scalar or 1-D list", v->name);
    int64_t len = value_numel(v);
    int64_t *out = xcalloc((size_t)len + 1, sizeof(int64_t));
    for (int64_t i = 0; i < len; i++) {
        if (v->dtype == DT_INT64)
            out[i] = ((const int64_t *)v->data)[i];
        else if (v->dtype == DT_INT32)
            out[i] = ((const int32_t *)v->data)[i];
        else
            fatal_at(n, "input '%s' must be int64 or int32, not %s", v->name, dtype_name(v->dtype));
    }
    *count = (int)len;
    return out;
}

void broadcast_shape(const Node *n, const Value *a, const Value *b, int *rank, int64_t *dims)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        if (da != db && da != 1 && db != 1)
            fatal_at(n, "shapes of '%s' and '%s' do not broadcast (dim %d: %lld vs %lld)", a->name,
                     b->name, i, (long long)da, (long long)db);
        dims[i] = da == 1 ? db : da;
    }
    *rank = r;
}

/* Element strides of `in` per output dim, 0 where `in` is broadcast. */
void broadcast_strides(const Value *in, int rank, const int64_t *out_dims, int64_t *strides)
{
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; i--) {
        int ii = i - (rank - in->rank);
        int64_t d = ii >= 0 ? in->dims[ii] : 1;
        strides[i] = (d == 1 && out_dims[i] != 1) || ii < 0 ? 0 : s;
        s *= d;
    }
}

double numel_flops(const Node *n)
{
    return (double)value_numel(n->outputs[0]);
}

void same_shape_infer(Node *n)
{
    const Value *x = n->inputs[0];
    set_shape(n->outputs[0], x->dtype, x->rank, x->dims);
}
