/* pipeline.c — the stages from a loaded model to a planned schedule, in their order (the map
 * is in onnx2c.h). main() and the fuzz target both run exactly this, so the fuzzer exercises
 * every pass the command line does. */
#include "onnx2c.h"

ArenaPlan compile_model(Model *m, const Options *opt)
{
    bind_input_values(m, opt);
    bind_shapes(m, opt);
    infer_shapes(m);
    m->node_order_bound_bytes = node_order_bound(m->graph);
    promote_half(m->graph);
    number_nodes(m->graph);
    if (opt->opt_level > 0) {
        simplify(m->graph);
        fuse_qdq(m->graph);
        fuse_gemm(m->graph);
        fuse_gelu(m->graph);
        fuse_epilogues(m->graph);
        fuse_elementwise(m->graph);
        layout_nhwc(m, opt->layout);
    }
    eliminate_dead(m->graph);
    schedule(m->graph);
    ArenaPlan plan = plan_arena(m->graph, m->node_order_bound_bytes);
    if (plan.arena_bytes > cc->limits.max_arena_bytes)
        fatal("the planned arena needs %lld bytes, more than the limit of %lld "
              "(--max-arena-bytes raises it)",
              (long long)plan.arena_bytes, (long long)cc->limits.max_arena_bytes);
    return plan;
}
