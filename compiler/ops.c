/* ops.c — the op table, from which shape inference, folding and emission are all driven, and
 * the helpers the per-family op files share. */
#include "ops.h"

#include <string.h>

/* The flags column (OpFlag, onnx2c.h): what the passes and codegen may assume of an op. */
#define NO_VIEW 0
#define VIEW    OP_VIEW
#define UNARY   (OP_UNARY | OP_ELEMENTWISE | OP_EPILOGUE)     /* y = f(x), constant parameters */
#define ARITH   (OP_BROADCAST | OP_ELEMENTWISE | OP_EPILOGUE) /* broadcasting arithmetic */
#define BCAST   OP_BROADCAST                                  /* broadcasting, not in place */
#define PASS    OP_PASS_THROUGH
#define HALF    OP_HALF /* float16/bfloat16 computed in float32 (promote_half.c) */

/* name, inputs min..max, oldest opset, infer, fold, emit, flags, flops, scratch, templates;
 * one row per op (not wrapped by clang-format) */
// clang-format off
static const OpDef op_table[] = {
    {"Add", 2, 2, 7, binary_infer, binary_fold, binary_emit, ARITH | HALF, numel_flops, NULL, "elementwise"},
    {"Sub", 2, 2, 7, binary_infer, binary_fold, binary_emit, ARITH | HALF, numel_flops, NULL, "elementwise"},
    {"Mul", 2, 2, 7, binary_infer, binary_fold, binary_emit, ARITH | HALF, numel_flops, NULL, "elementwise"},
    {"Div", 2, 2, 7, binary_infer, binary_fold, binary_emit, ARITH | HALF, numel_flops, NULL, "elementwise"},
    {"Relu", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "elementwise"},
    {"LeakyRelu", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "elementwise"},
    {"Sigmoid", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "elementwise"},
    {"Tanh", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "elementwise"},
    {"Clip", 1, 3, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "elementwise"},
    {"Gemm", 2, 3, 7, gemm_infer, gemm_fold, gemm_emit, NO_VIEW | HALF, gemm_flops, NULL, "gemm"},
    {"MatMul", 2, 2, 1, matmul_infer, matmul_fold, matmul_emit, NO_VIEW | HALF, matmul_flops, NULL, "gemm"},
    {"Conv", 2, 3, 1, conv_infer, NULL, conv_emit, OP_CONV_IN_PLACE | HALF, conv_flops, conv_scratch, "gemm conv elementwise math"},
    {"MaxPool", 1, 1, 1, pool_infer, NULL, pool_emit, NO_VIEW, numel_flops, NULL, "pool"},
    {"AveragePool", 1, 1, 1, pool_infer, NULL, pool_emit, NO_VIEW, numel_flops, NULL, "pool"},
    {"GlobalAveragePool", 1, 1, 1, global_pool_infer, NULL, global_pool_emit, NO_VIEW, numel_flops, NULL, "pool"},
    {"BatchNormalization", 5, 5, 6, batchnorm_infer, batchnorm_fold, batchnorm_emit, NO_VIEW, numel_flops, NULL, "norm"},
    {"Softmax", 1, 1, 1, softmax_infer, softmax_fold, softmax_emit, NO_VIEW | HALF, numel_flops, NULL, "softmax"},
    {"LogSoftmax", 1, 1, 1, softmax_infer, softmax_fold, softmax_emit, NO_VIEW | HALF, numel_flops, NULL, "softmax"},
    {"Constant", 0, 0, 1, constant_infer, constant_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"Identity", 1, 1, 1, identity_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Dropout", 1, 3, 1, identity_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Flatten", 1, 1, 1, flatten_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Reshape", 2, 2, 5, reshape_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Squeeze", 1, 2, 1, squeeze_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Unsqueeze", 1, 2, 1, unsqueeze_infer, view_fold, NULL, VIEW, NULL, NULL, NULL},
    {"Shape", 1, 1, 1, shape_infer, shape_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"Transpose", 1, 1, 1, transpose_infer, transpose_fold, transpose_emit, NO_VIEW, NULL, NULL, "movement"},
    {"Concat", 1, 1 << 20, 4, concat_infer, concat_fold, concat_emit, OP_INPUT_SLICES, NULL, NULL, "movement"},
    {"Gather", 2, 2, 1, gather_infer, gather_fold, gather_emit, NO_VIEW, NULL, NULL, "movement"},
    {"Abs", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Neg", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Exp", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Log", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Sqrt", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Reciprocal", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Erf", 1, 1, 9, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Floor", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Ceil", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Sign", 1, 1, 9, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Sin", 1, 1, 7, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Cos", 1, 1, 7, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Softplus", 1, 1, 1, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Softsign", 1, 1, 1, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Round", 1, 1, 11, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"HardSigmoid", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"HardSwish", 1, 1, 14, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Elu", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Selu", 1, 1, 6, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Gelu", 1, 1, 20, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Pow", 2, 2, 7, pow_infer, pow_fold, pow_emit, ARITH | HALF, numel_flops, NULL, "math"},
    {"Max", 1, 1 << 20, 8, variadic_infer, variadic_fold, variadic_emit, NO_VIEW | HALF, numel_flops, NULL, "math movement"},
    {"Min", 1, 1 << 20, 8, variadic_infer, variadic_fold, variadic_emit, NO_VIEW | HALF, numel_flops, NULL, "math movement"},
    {"Sum", 1, 1 << 20, 8, variadic_infer, variadic_fold, variadic_emit, NO_VIEW | HALF, numel_flops, NULL, "elementwise movement"},
    {"Mean", 1, 1 << 20, 8, variadic_infer, variadic_fold, variadic_emit, NO_VIEW | HALF, numel_flops, NULL, "elementwise movement"},
    {"ReduceSum", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW | HALF, reduce_flops, NULL, "reduce"},
    {"ReduceMean", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW | HALF, reduce_flops, NULL, "reduce"},
    {"ReduceMax", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW | HALF, reduce_flops, NULL, "reduce"},
    {"ReduceMin", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW | HALF, reduce_flops, NULL, "reduce"},
    {"ReduceProd", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW | HALF, reduce_flops, NULL, "reduce"},
    {"ReduceSumSquare", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW | HALF, reduce_flops, NULL, "reduce"},
    {"ReduceL1", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW | HALF, reduce_flops, NULL, "reduce"},
    {"ReduceL2", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW | HALF, reduce_flops, NULL, "reduce"},
    {"ReduceLogSumExp", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW | HALF, reduce_flops, NULL, "reduce"},
    {"LayerNormalization", 2, 3, 17, layernorm_infer, layernorm_fold, layernorm_emit, NO_VIEW, numel_flops, NULL, "reduce"},
    {"Cast", 1, 1, 6, cast_infer, cast_fold, cast_emit, PASS | OP_CAST, NULL, NULL, "tensor"},
    {"CastLike", 2, 2, 15, cast_infer, cast_fold, cast_emit, PASS | OP_CAST | OP_SHAPE_ONLY_INPUT, NULL, NULL, "tensor"},
    {"Equal", 2, 2, 7, compare_infer, compare_fold, compare_emit, BCAST | HALF, numel_flops, NULL, "tensor"},
    {"Less", 2, 2, 7, compare_infer, compare_fold, compare_emit, BCAST | HALF, numel_flops, NULL, "tensor"},
    {"Greater", 2, 2, 7, compare_infer, compare_fold, compare_emit, BCAST | HALF, numel_flops, NULL, "tensor"},
    {"LessOrEqual", 2, 2, 12, compare_infer, compare_fold, compare_emit, BCAST | HALF, numel_flops, NULL, "tensor"},
    {"GreaterOrEqual", 2, 2, 12, compare_infer, compare_fold, compare_emit, BCAST | HALF, numel_flops, NULL, "tensor"},
    {"Not", 1, 1, 1, logic_infer, logic_fold, logic_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"And", 2, 2, 7, logic_infer, logic_fold, logic_emit, BCAST, NULL, NULL, "tensor"},
    {"Or", 2, 2, 7, logic_infer, logic_fold, logic_emit, BCAST, NULL, NULL, "tensor"},
    {"Xor", 2, 2, 7, logic_infer, logic_fold, logic_emit, BCAST, NULL, NULL, "tensor"},
    {"Where", 3, 3, 9, where_infer, where_fold, where_emit, BCAST, NULL, NULL, "tensor"},
    {"Expand", 2, 2, 8, expand_infer, expand_fold, expand_emit, PASS, NULL, NULL, "tensor"},
    {"Tile", 2, 2, 6, tile_infer, tile_fold, tile_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Slice", 1, 5, 1, slice_infer, slice_fold, slice_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Split", 1, 2, 2, split_infer, split_fold, split_emit, NO_VIEW, NULL, NULL, "tensor"},
    {"Size", 1, 1, 1, size_infer, size_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"ConstantOfShape", 1, 1, 9, constant_of_shape_infer, constant_of_shape_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"Range", 3, 3, 11, range_infer, range_fold, NULL, NO_VIEW | HALF, NULL, NULL, NULL},
    /* ---- nn family: ops/conv.c (ConvTranspose, pools), ops/normalize.c (normalisations) ---- */
    {"ConvTranspose", 2, 3, 1, convtranspose_infer, NULL, convtranspose_emit, NO_VIEW, convtranspose_flops, NULL, "conv elementwise math"},
    {"LpPool", 1, 1, 2, pool_infer, NULL, pool_emit, NO_VIEW, numel_flops, NULL, "pool"},
    {"GlobalMaxPool", 1, 1, 1, global_pool_infer, NULL, global_pool_emit, NO_VIEW, numel_flops, NULL, "pool"},
    {"MaxUnpool", 2, 3, 9, maxunpool_infer, NULL, maxunpool_emit, NO_VIEW, NULL, NULL, "pool"},
    {"InstanceNormalization", 3, 3, 6, groupnorm_infer, groupnorm_fold, groupnorm_emit, NO_VIEW, numel_flops, NULL, "norm"},
    {"GroupNormalization", 3, 3, 18, groupnorm_infer, groupnorm_fold, groupnorm_emit, NO_VIEW, numel_flops, NULL, "norm"},
    {"LRN", 1, 1, 1, lrn_infer, lrn_fold, lrn_emit, NO_VIEW, numel_flops, NULL, "nn"},
    {"MeanVarianceNormalization", 1, 1, 9, mvn_infer, mvn_fold, mvn_emit, NO_VIEW, numel_flops, NULL, "nn"},
    {"LpNormalization", 1, 1, 1, lpnorm_infer, lpnorm_fold, lpnorm_emit, NO_VIEW, numel_flops, NULL, "nn"},
    /* ---- data family: ops/gather_scatter.c, ops/layout.c, ops/resize.c, ops/activation.c, ops/einsum.c ---- */
    {"GatherElements", 2, 2, 11, gather_elements_infer, gather_elements_fold, gather_elements_emit, NO_VIEW, NULL, NULL, "data"},
    {"ScatterElements", 3, 3, 11, scatter_elements_infer, scatter_elements_fold, scatter_elements_emit, NO_VIEW, NULL, NULL, "data"},
    {"Scatter", 3, 3, 9, scatter_elements_infer, scatter_elements_fold, scatter_elements_emit, NO_VIEW, NULL, NULL, "data"},
    {"GatherND", 2, 2, 11, gather_nd_infer, gather_nd_fold, gather_nd_emit, NO_VIEW, NULL, NULL, "data"},
    {"ScatterND", 3, 3, 11, scatter_nd_infer, scatter_nd_fold, scatter_nd_emit, NO_VIEW, NULL, NULL, "data"},
    {"Pad", 1, 4, 2, pad_infer, pad_fold, pad_emit, NO_VIEW, NULL, NULL, "data"},
    {"Resize", 1, 4, 10, resize_infer, resize_fold, resize_emit, NO_VIEW, numel_flops, resize_scratch, "data"},
    {"Upsample", 1, 2, 7, resize_infer, resize_fold, resize_emit, NO_VIEW, numel_flops, resize_scratch, "data"},
    {"DepthToSpace", 1, 1, 1, d2s_infer, d2s_fold, d2s_emit, NO_VIEW, NULL, NULL, "movement"},
    {"SpaceToDepth", 1, 1, 1, d2s_infer, d2s_fold, d2s_emit, NO_VIEW, NULL, NULL, "movement"},
    {"OneHot", 3, 3, 9, onehot_infer, onehot_fold, onehot_emit, NO_VIEW, NULL, NULL, "data"},
    {"Trilu", 1, 2, 14, trilu_infer, trilu_fold, trilu_emit, NO_VIEW, NULL, NULL, "data"},
    {"EyeLike", 1, 1, 9, eyelike_infer, eyelike_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"Compress", 2, 2, 9, compress_infer, compress_fold, compress_emit, NO_VIEW, NULL, NULL, "movement"},
    {"NonZero", 1, 1, 9, nonzero_infer, nonzero_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"CumSum", 2, 2, 11, cumsum_infer, cumsum_fold, cumsum_emit, NO_VIEW, numel_flops, NULL, "data"},
    {"ArgMax", 1, 1, 1, arg_infer, arg_fold, arg_emit, NO_VIEW, NULL, NULL, "data"},
    {"ArgMin", 1, 1, 1, arg_infer, arg_fold, arg_emit, NO_VIEW, NULL, NULL, "data"},
    {"TopK", 1, 2, 1, topk_infer, topk_fold, topk_emit, NO_VIEW, NULL, NULL, "data"},
    {"Hardmax", 1, 1, 1, hardmax_infer, hardmax_fold, hardmax_emit, NO_VIEW, NULL, NULL, "data"},
    {"Shrink", 1, 1, 9, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "data"},
    {"ThresholdedRelu", 1, 1, 10, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "data"},
    {"Celu", 1, 1, 12, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "data"},
    {"Mish", 1, 1, 18, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "data"},
    {"PRelu", 2, 2, 7, prelu_infer, prelu_fold, prelu_emit, NO_VIEW, numel_flops, NULL, "data"},
    {"Einsum", 1, 2, 12, einsum_infer, einsum_fold, einsum_emit, NO_VIEW | HALF, einsum_flops, NULL, "data"},
    /* ---- types family: ops/bitwise.c (integer/bitwise ops, more element types) ---- */
    {"Mod", 2, 2, 10, types_binary_infer, types_binary_fold, types_binary_emit, NO_VIEW | HALF, numel_flops, NULL, "types"},
    {"BitShift", 2, 2, 11, types_binary_infer, types_binary_fold, types_binary_emit, NO_VIEW | HALF, NULL, NULL, "types"},
    {"BitwiseAnd", 2, 2, 18, types_binary_infer, types_binary_fold, types_binary_emit, NO_VIEW | HALF, NULL, NULL, "types"},
    {"BitwiseOr", 2, 2, 18, types_binary_infer, types_binary_fold, types_binary_emit, NO_VIEW | HALF, NULL, NULL, "types"},
    {"BitwiseXor", 2, 2, 18, types_binary_infer, types_binary_fold, types_binary_emit, NO_VIEW | HALF, NULL, NULL, "types"},
    {"BitwiseNot", 1, 1, 18, bitnot_infer, bitnot_fold, bitnot_emit, NO_VIEW, NULL, NULL, "types"},
    {"IsNaN", 1, 1, 9, classify_infer, classify_fold, classify_emit, NO_VIEW | HALF, NULL, NULL, "types"},
    {"IsInf", 1, 1, 10, classify_infer, classify_fold, classify_emit, NO_VIEW | HALF, NULL, NULL, "types"},
    /* Cast and CastLike with a float16/bfloat16 end: promote_half binds them to this entry,
     * whose emitted code also needs templates/types.c; never looked up from a model. */
    {"Cast(half)", 1, 2, 6, cast_infer, cast_fold, cast_emit, PASS, NULL, NULL, "tensor types"},
    /* ---- signal family: ops/signal.c, ops/image.c (DFT, windows, sampling, boxes) ---- */
    {"DFT", 1, 3, 17, dft_infer, dft_fold, dft_emit, NO_VIEW, dft_flops, NULL, "signal"},
    {"STFT", 2, 4, 17, stft_infer, stft_fold, stft_emit, NO_VIEW, stft_flops, NULL, "signal"},
    {"HannWindow", 1, 1, 17, window_infer, window_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"HammingWindow", 1, 1, 17, window_infer, window_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"BlackmanWindow", 1, 1, 17, window_infer, window_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"MelWeightMatrix", 5, 5, 17, melweight_infer, melweight_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"GridSample", 2, 2, 16, gridsample_infer, gridsample_fold, gridsample_emit, NO_VIEW, numel_flops, NULL, "image"},
    {"NonMaxSuppression", 2, 5, 10, nms_infer, nms_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"Col2Im", 3, 3, 18, col2im_infer, col2im_fold, col2im_emit, NO_VIEW, NULL, NULL, "image"},
    {"CenterCropPad", 2, 2, 18, center_crop_pad_infer, center_crop_pad_fold, center_crop_pad_emit, NO_VIEW, NULL, NULL, "image"},
    {"RoiAlign", 3, 3, 10, roialign_infer, roialign_fold, roialign_emit, NO_VIEW, numel_flops, NULL, "image"},
    {"AffineGrid", 2, 2, 20, affine_grid_infer, affine_grid_fold, affine_grid_emit, NO_VIEW, numel_flops, NULL, "image"},
    {"DeformConv", 3, 5, 19, deform_conv_infer, deform_conv_fold, deform_conv_emit, NO_VIEW, deform_conv_flops, NULL, "image"},
    /* ---- sequence family: ops/recurrent.c, ops/quant.c (RNN/GRU/LSTM, quantisation) ---- */
    {"RNN", 3, 6, 7, recurrent_infer, recurrent_fold, recurrent_emit, OP_OPTIONAL_OUTPUTS, recurrent_flops, recurrent_scratch, "gemm recurrent"},
    {"GRU", 3, 6, 7, recurrent_infer, recurrent_fold, recurrent_emit, OP_OPTIONAL_OUTPUTS, recurrent_flops, recurrent_scratch, "gemm recurrent"},
    {"LSTM", 3, 8, 7, recurrent_infer, recurrent_fold, recurrent_emit, OP_OPTIONAL_OUTPUTS, recurrent_flops, recurrent_scratch, "gemm recurrent"},
    {"QuantizeLinear", 2, 3, 10, quantize_infer, quantize_fold, quantize_emit, NO_VIEW, numel_flops, NULL, "quant"},
    {"DequantizeLinear", 2, 3, 10, dequantize_infer, dequantize_fold, dequantize_emit, NO_VIEW | HALF, numel_flops, NULL, "quant"},
    {"DynamicQuantizeLinear", 1, 1, 11, dynamic_quantize_infer, dynamic_quantize_fold, dynamic_quantize_emit, NO_VIEW, numel_flops, NULL, "quant"},
    {"MatMulInteger", 2, 4, 10, qmatmul_infer, qmatmul_fold, qmatmul_emit, NO_VIEW, qmatmul_flops, NULL, "quant"},
    {"QLinearMatMul", 8, 8, 10, qmatmul_infer, qmatmul_fold, qmatmul_emit, NO_VIEW, qmatmul_flops, NULL, "quant"},
    {"ConvInteger", 2, 4, 10, qconv_infer, qconv_fold, qconv_emit, NO_VIEW, qconv_flops, qconv_scratch, "quant"},
    {"QLinearConv", 8, 9, 10, qconv_infer, qconv_fold, qconv_emit, NO_VIEW, qconv_flops, qconv_scratch, "quant"},
    /* QLinearConv with channels_last = 1 (onnxruntime's com.microsoft op), which layout_nhwc.c
     * makes of a QLinearConv (qconv_nhwc_supported); never looked up from a model */
    {"com.microsoft.QLinearConv", 8, 9, 1, qconv_infer, qconv_fold, qconv_emit, NO_VIEW, qconv_flops, qconv_scratch, "quant quant_nhwc"},
    /* ---- loss family: ops/loss.c (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss) ---- */
    {"NegativeLogLikelihoodLoss", 2, 3, 12, loss_infer, loss_fold, loss_emit, NO_VIEW, numel_flops, NULL, "loss"},
    {"SoftmaxCrossEntropyLoss", 2, 3, 12, loss_infer, loss_fold, loss_emit, NO_VIEW, numel_flops, loss_scratch, "softmax loss"},
    /* the loss helper's gaps in other families: trig, Swish, Det (ops/math.c),
     * ReduceLogSum (ops/reduce.c), CumProd (ops/layout.c) */
    {"Det", 1, 1, 11, det_infer, det_fold, det_emit, NO_VIEW | HALF, numel_flops, det_scratch, "math"},
    {"ReduceLogSum", 1, 2, 1, reduce_infer, reduce_fold, reduce_emit, NO_VIEW | HALF, reduce_flops, NULL, "reduce"},
    {"CumProd", 2, 2, 26, cumsum_infer, cumsum_fold, cumsum_emit, NO_VIEW, numel_flops, NULL, "data"},
    {"Tan", 1, 1, 7, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Asin", 1, 1, 7, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Acos", 1, 1, 7, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Atan", 1, 1, 7, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Sinh", 1, 1, 9, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Cosh", 1, 1, 9, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Asinh", 1, 1, 9, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Acosh", 1, 1, 9, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Atanh", 1, 1, 9, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    {"Swish", 1, 1, 24, unary_infer, unary_fold, unary_emit, UNARY | HALF, numel_flops, NULL, "math"},
    /* ops/random.c: Dropout's infer binds a seeded training-mode Dropout to this entry; never
     * looked up from a model */
    {"Dropout(train)", 1, 3, 12, dropout_train_infer, dropout_train_fold, dropout_train_emit, NO_VIEW, numel_flops, NULL, "random"},
    {"Bernoulli", 1, 1, 15, bernoulli_infer, NULL, NULL, NO_VIEW, NULL, NULL, NULL},
    /* ---- llm family: ops/llm.c (RMSNorm, rotary embedding, SwiGLU, linear attention) ---- */
    {"RMSNormalization", 2, 2, 23, rmsnorm_infer, rmsnorm_fold, rmsnorm_emit, NO_VIEW, numel_flops, NULL, "llm"},
    {"RotaryEmbedding", 3, 4, 23, rope_infer, rope_fold, rope_emit, NO_VIEW | HALF, numel_flops, NULL, "llm"},
    {"SwiGLU", 2, 2, 28, swiglu_infer, swiglu_fold, swiglu_emit, NO_VIEW | HALF, numel_flops, NULL, "llm"},
    {"CausalConvWithState", 2, 4, 27, causal_conv_infer, causal_conv_fold, causal_conv_emit, NO_VIEW | HALF, causal_conv_flops, NULL, "llm"},
    {"LinearAttention", 3, 6, 27, linattn_infer, linattn_fold, linattn_emit, NO_VIEW, linattn_flops, linattn_scratch, "llm"},
    /* ---- lowtypes family: ops/lowtypes.c (float8, float4, int4/int2 element types) ---- */
    /* Cast and CastLike with such a type at one end: lowcast_infer binds them to this entry;
     * never looked up from a model. */
    {"Cast(low)", 1, 1, 19, lowcast_infer, lowcast_fold, lowcast_emit, PASS, NULL, NULL, "types lowtypes"},
    /* QuantizeLinear / DequantizeLinear with a float8 or float4 end (ops/quant.c binds them) */
    {"QuantizeLinear(low)", 2, 3, 19, quantize_infer, quantize_fold, quantize_emit, NO_VIEW, numel_flops, NULL, "types lowtypes"},
    {"DequantizeLinear(low)", 2, 3, 19, dequantize_infer, dequantize_fold, dequantize_emit, NO_VIEW | HALF, numel_flops, NULL, "types lowtypes"},
    /* ---- attention family: ops/attention.c (Attention) ---- */
    {"Attention", 3, 7, 23, attention_infer, attention_fold, attention_emit, NO_VIEW, attention_flops, attention_scratch, "types attention"},
    /* ---- control family: ops/misc.c (Loop/Scan are unrolled by unroll_loops.c) ---- */
    {"BitCast", 1, 1, 26, bitcast_infer, bitcast_fold, bitcast_emit, NO_VIEW, NULL, NULL, "misc"},
    {"ReverseSequence", 2, 2, 10, revseq_infer, revseq_fold, revseq_emit, NO_VIEW, NULL, NULL, "misc"},
    {"TensorScatter", 2, 3, 24, tensor_scatter_infer, tensor_scatter_fold, tensor_scatter_emit, NO_VIEW, NULL, NULL, "misc"},
    {"Unique", 1, 1, 11, unique_infer, unique_fold, NULL, NO_VIEW, NULL, NULL, NULL},
    {"TfIdfVectorizer", 1, 1, 9, tfidf_infer, tfidf_fold, tfidf_emit, NO_VIEW, NULL, NULL, "misc"},
    /* ---- channels-last ops that layout_nhwc.c makes (ops/conv_nhwc.c), named as onnxruntime's
     * com.microsoft ops; never looked up from a model ---- */
    {"com.microsoft.NhwcConv", 2, 3, 1, nhwc_conv_infer, NULL, nhwc_conv_emit, NO_VIEW | OP_WRITES_ROWS, nhwc_conv_flops, nhwc_conv_scratch, "gemm conv conv_nhwc depthwise_nhwc expand_depthwise elementwise math"},
    {"com.microsoft.NhwcMaxPool", 1, 1, 1, nhwc_pool_infer, NULL, nhwc_pool_emit, NO_VIEW, nhwc_pool_flops, nhwc_pool_scratch, "gemm conv conv_nhwc depthwise_nhwc pool_nhwc conv_pool elementwise math"},
    {"com.microsoft.NhwcAveragePool", 1, 1, 1, nhwc_pool_infer, NULL, nhwc_pool_emit, NO_VIEW, numel_flops, NULL, "gemm conv depthwise_nhwc pool_nhwc elementwise math"},
    {"com.microsoft.NhwcGlobalAveragePool", 1, 1, 1, nhwc_global_pool_infer, NULL, nhwc_global_pool_emit, NO_VIEW, numel_flops, NULL, "gemm conv depthwise_nhwc pool_nhwc elementwise math"},
    /* ai.onnx.ml ops: infer_shapes looks them up as "ai.onnx.ml.<op>" */
    {"ai.onnx.ml.TreeEnsemble", 1, 1, 5, tree_ensemble_infer, tree_ensemble_fold, tree_ensemble_emit, NO_VIEW, NULL, NULL, "misc"},
    {"ai.onnx.ml.ArrayFeatureExtractor", 2, 2, 1, afe_infer, afe_fold, afe_emit, NO_VIEW, NULL, NULL, "misc"},
    {"ai.onnx.ml.Binarizer", 1, 1, 1, binarizer_infer, binarizer_fold, binarizer_emit, NO_VIEW, numel_flops, NULL, "misc"},
};
// clang-format on

int op_table_entries(const OpDef **out)
{
    *out = op_table;
    return (int)(sizeof op_table / sizeof op_table[0]);
}

bool op_has(const OpDef *op, unsigned flag)
{
    return op && (op->flags & flag) != 0;
}

bool node_has(const Node *n, unsigned flag)
{
    return n && op_has(n->op, flag);
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

void require_sized(const Node *n, const Value *v)
{
    if (!dtype_size(v->dtype))
        fatal_at(n, "type %s of '%s' is not supported", dtype_name(v->dtype), v->name);
}

void require_float(const Node *n, const Value *v)
{
    require_dtype(n, v, DT_FLOAT);
}

void require_constant(const Node *n, const Value *v, const char *what)
{
    if (!v)
        fatal_at(n, "a required %s is missing (its name is empty)", what);
    if (v->data)
        return;
    const char *inputs = graph_inputs_feeding(v);
    if (inputs)
        fatal_at(n,
                 "%s '%s' must be a compile-time constant; it depends on graph input %s "
                 "(--bind-input NAME=FILE.pb fixes an input's value)",
                 what, v->name, inputs);
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

int64_t *indices_i64(const Value *idx)
{
    if (idx->dtype == DT_INT64)
        return idx->data;
    int64_t count = value_numel(idx);
    int64_t *out = xcalloc((size_t)count + 1, sizeof(int64_t));
    for (int64_t i = 0; i < count; i++)
        out[i] = ((const int32_t *)idx->data)[i];
    return out;
}

const char *indices_cname(Emitter *e, Value *idx)
{
    if (idx->dtype == DT_INT64)
        return value_cname(e, idx);
    return emit_constant(e, DT_INT64, idx->rank, idx->dims, indices_i64(idx));
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
