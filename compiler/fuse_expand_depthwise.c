/* fuse_expand_depthwise.c — an inverted-residual block's expand 1x1 conv into the depthwise
 * conv that reads its output (MobileNetV2/V3, EfficientNet), channels last:
 *   NhwcConv 1x1 (+ its epilogues) -> e -> NhwcConv depthwise   =>   one step
 * The depthwise node keeps the 1x1 node as its prologue (Node.prologue, retired like an
 * epilogue's node) and reads the 1x1 conv's input; its kernel (templates/expand_depthwise.c)
 * computes e's rows into a ring of scratch just before the depthwise rows that read them, so e
 * (the largest tensor of these nets: 112x112x96 floats in MobileNetV2) is never stored whole
 * and is read while in cache. The same sums in the same order: the same bits.
 *
 * After eliminate_dead, so that the NCHW transposes layout_nhwc.c left for e are gone and e's
 * one reader is the depthwise conv; which pairs fuse is ops/conv_nhwc.c's
 * nhwc_conv_fuses_expand. */
#include "rewrite.h"

static bool fusable(const Match *m)
{
    return nhwc_conv_fuses_expand(m->nodes[1], m->nodes[0]);
}

static const Pattern expand_then_depthwise = {
    .op = "NhwcConv", .nin = 1, .in = {P_NODE(1, "NhwcConv")}, .where = fusable};

static bool fuse_expand(Graph *g, Node *dw, const Match *m)
{
    (void)g;
    Node *expand = m->nodes[1];
    dw->prologue = expand;
    node_set_input(dw, 0, expand->inputs[0]);
    node_retire(expand);
    record_fusion("expand_depthwise");
    return true;
}

static const RewriteRule expand_depthwise_rules[] = {{&expand_then_depthwise, fuse_expand}};

void fuse_expand_depthwise(Graph *g)
{
    REWRITE(g, expand_depthwise_rules);
}
