/* The compile-and-link check of the templates (it computes nothing; each template's own
 * test_kernels_<name>.c tests what it computes). All templates in one translation unit, the
 * way the compiler builds them for constant folding (O2C_KERNEL empty: extern functions) after
 * kernels.h: compiling rejects any prototype that does not match its definition, any name two
 * templates both define, and any template that needs another one included first. The table
 * takes the address of every function kernels.h declares (generated from kernels.h by
 * gen_templates_link_table.py), so linking fails when a prototype has no definition. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/attention.c"
#include "../../templates/conv.c"
#include "../../templates/conv_nhwc.c"
#include "../../templates/conv_pool.c"
#include "../../templates/data.c"
#include "../../templates/depthwise_nhwc.c"
#include "../../templates/elementwise.c"
#include "../../templates/expand_depthwise.c"
#include "../../templates/gemm.c"
#include "../../templates/image.c"
#include "../../templates/llm.c"
#include "../../templates/loss.c"
#include "../../templates/lowtypes.c"
#include "../../templates/math.c"
#include "../../templates/misc.c"
#include "../../templates/movement.c"
#include "../../templates/nn.c"
#include "../../templates/norm.c"
#include "../../templates/pool.c"
#include "../../templates/pool_nhwc.c"
#include "../../templates/quant.c"
#include "../../templates/quant_nhwc.c"
#include "../../templates/random.c"
#include "../../templates/recurrent.c"
#include "../../templates/reduce.c"
#include "../../templates/signal.c"
#include "../../templates/softmax.c"
#include "../../templates/tensor.c"
#include "../../templates/types.c"

#include <stdio.h>

typedef void (*o2c_any_fn)(void);

#include "templates_link_table.h"

/* External linkage, so no optimiser may drop the table and with it the references. */
extern const o2c_any_fn o2c_templates_link_table[];
const o2c_any_fn o2c_templates_link_table[] = {O2C_TEMPLATES_LINK_TABLE};

int main(void)
{
    /* The check happened when this program was linked; running it only says what it covered. */
    printf("templates_link: all %d functions of kernels.h defined and linked\n",
           (int)(sizeof o2c_templates_link_table / sizeof o2c_templates_link_table[0]));
    return 0;
}
