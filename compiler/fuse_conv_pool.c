/* fuse_conv_pool.c — a CNN's stem, a dense conv and the MaxPool that reads its output, channels
 * last:
 *   NhwcConv (+ its epilogues) -> c -> NhwcMaxPool   =>   one step
 * The pool node keeps the conv node as its prologue (Node.prologue, retired like an epilogue's
 * node) and reads the conv's input; its kernel (templates/conv_pool.c) computes c's rows into
 * a band of scratch just before the pool rows that read them, so c (ResNet-18's and
 * SqueezeNet's largest tensor, 3.2 MB at 224x224) is never stored whole and is read while in
 * cache. The same sums in the same order: the same bits.
 *
 * After eliminate_dead, so that c's one reader is the pool; which pairs fuse is
 * ops/conv_nhwc.c's nhwc_pool_fuses_conv. */
#include "rewrite.h"

static bool fusable(const Match *m)
{
    return nhwc_pool_fuses_conv(m->nodes[1], m->nodes[0]);
}

static const Pattern conv_then_pool = {
    .op = "NhwcMaxPool", .nin = 1, .in = {P_NODE(1, "NhwcConv")}, .where = fusable};

static bool fuse_pool(Graph *g, Node *pool, const Match *m)
{
    (void)g;
    Node *conv = m->nodes[1];
    pool->prologue = conv;
    node_set_input(pool, 0, conv->inputs[0]);
    node_retire(conv);
    record_fusion("conv_maxpool");
    return true;
}

static const RewriteRule conv_pool_rules[] = {{&conv_then_pool, fuse_pool}};

void fuse_conv_pool(Graph *g)
{
    REWRITE(g, conv_pool_rules);
}
