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

static bool has_channels_last(const Graph *g)
{
    for (int i = 0; i < g->nnodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->channels_last)
            return true;
    return false;
}

/* Loads and compiles the model at path. --layout=auto goes channels-last for speed, but its
 * boundary transposes and band copies can take the arena over the node-order bound; then the
 * model's own layout wins if its arena is smaller, because RAM is the embedded user's hard
 * limit. The passes rewrite the graph, so each try starts from a fresh load. */
Model *compile_model_file(const char *path, const Options *opt, ArenaPlan *plan)
{
    Model *m = load_model(path);
    *plan = compile_model(m, opt);
    if (opt->layout != LAYOUT_AUTO || !has_channels_last(m->graph) ||
        plan->arena_bytes <= m->node_order_bound_bytes)
        return m;
    const int64_t nhwc_arena = plan->arena_bytes;
    Options nchw = *opt;
    nchw.layout = LAYOUT_NCHW;
    m = load_model(path);
    *plan = compile_model(m, &nchw);
    if (plan->arena_bytes < nhwc_arena)
        return m;
    m = load_model(path);
    *plan = compile_model(m, opt);
    return m;
}
