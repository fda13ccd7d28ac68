/* All templates in one translation unit, the way the compiler builds them for constant
 * folding (O2C_KERNEL empty: extern functions) after kernels.h: the compiler rejects any
 * prototype that does not match its definition, any name two templates both define, and any
 * template that needs another one included first. The table below makes sure every
 * prototype has a definition (the link fails otherwise). */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/attention.c"
#include "../../templates/conv.c"
#include "../../templates/data.c"
#include "../../templates/elementwise.c"
#include "../../templates/gemm.c"
#include "../../templates/image.c"
#include "../../templates/llm.c"
#include "../../templates/loss.c"
#include "../../templates/lowtypes.c"
#include "../../templates/math.c"
#include "../../templates/movement.c"
#include "../../templates/nn.c"
#include "../../templates/norm.c"
#include "../../templates/pool.c"
#include "../../templates/quant.c"
#include "../../templates/random.c"
#include "../../templates/recurrent.c"
#include "../../templates/reduce.c"
#include "../../templates/signal.c"
#include "../../templates/softmax.c"
#include "../../templates/tensor.c"
#include "../../templates/types.c"

#include <stdio.h>

typedef void (*any_fn)(void);

int main(void)
{
    const any_fn fns[] = {
        (any_fn)dft_f32,
        (any_fn)stft_f32,
        (any_fn)window_f32,
        (any_fn)melweight_f32,
        (any_fn)gridsample_f32,
        (any_fn)nms_i64,
        (any_fn)col2im_f32,
        (any_fn)center_crop_pad_bytes,
        (any_fn)roialign_f32,
        (any_fn)affine_grid_f32,
        (any_fn)deform_conv_f32,
        (any_fn)gemm_f32,
        (any_fn)gemm_epilogue_f32,
        (any_fn)im2col_f32,
        (any_fn)conv_weight_reorder_f32,
        (any_fn)add_channel_bias_f32,
        (any_fn)maxpool_f32,
        (any_fn)avgpool_f32,
        (any_fn)global_avgpool_f32,
        (any_fn)batchnorm_f32,
        (any_fn)softmax_line_max_f32,
        (any_fn)softmax_f32,
        (any_fn)logsoftmax_f32,
        (any_fn)relu_f32,
        (any_fn)leaky_relu_f32,
        (any_fn)sigmoid_f32,
        (any_fn)tanh_f32,
        (any_fn)clip_f32,
        (any_fn)broadcast_coalesce,
        (any_fn)broadcast_next_row,
        (any_fn)add_f32,
        (any_fn)sub_f32,
        (any_fn)mul_f32,
        (any_fn)div_f32,
        (any_fn)add_i64,
        (any_fn)sub_i64,
        (any_fn)mul_i64,
        (any_fn)div_i64,
        (any_fn)strided_copy_bytes,
        (any_fn)transpose_bytes,
        (any_fn)concat_bytes,
        (any_fn)gather_bytes,
        (any_fn)copy_bytes,
        (any_fn)nll_loss_f32,
        (any_fn)dropout_f32,
        (any_fn)llm_offset,
        (any_fn)rmsnorm_f32,
        (any_fn)rotary_embedding_f32,
        (any_fn)swiglu_f32,
        (any_fn)causal_conv_f32,
        (any_fn)linear_attention_f32,
        (any_fn)attention_copy_rows,
        (any_fn)attention_present,
        (any_fn)attention_bias,
        (any_fn)attention_softmax,
        (any_fn)attention_kv_row,
        (any_fn)attention_scores,
        (any_fn)attention_f32,
        (any_fn)low_to_float,
        (any_fn)float_to_low,
        (any_fn)float_to_e8m0,
        (any_fn)e8m0_to_float,
        (any_fn)low_int_wrap,
        (any_fn)double_to_low_int,
        (any_fn)cast_low,
        (any_fn)quantize_linear_low,
        (any_fn)dequantize_linear_low,
    };
    int n = 0;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        n += fns[i] != NULL;
    const int ok = n == (int)(sizeof fns / sizeof fns[0]);
    printf("%d passed, %d failed\n", ok, !ok);
    return !ok;
}
