/* pipeline.c — the stages from a loaded model to a planned schedule, in their order (the map
 * is in onnx2c.h). main() and the fuzz target both run exactly this, so the fuzzer exercises
 * every pass the command line does. */
#include <stdlib.h>

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
    if (opt->opt_level > 0) {
        fuse_expand_depthwise(m->graph);
        fuse_conv_pool(m->graph);
    }
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

/* Swaps cc's per-compile state with *t: with a zeroed *t it sets a compile aside and the next
 * starts as the first did; with the one set aside it brings that back. */
static void swap_state(CompileState *t)
{
    const CompileState cur = cc->state;
    cc->state = *t;
    *t = cur;
}

/* Frees the protobuf of a compile set aside (unload_model frees the current one). */
static void free_proto(void *proto)
{
    void *cur = cc->state.proto;
    cc->state.proto = proto;
    unload_model();
    cc->state.proto = cur;
}

/* The NCHW compile of --layout=auto while the channels-last one is set aside in *kept: an
 * error frees kept's protobuf too, then goes where errors go (util.c's fail_exit). */
static Model *compile_nchw(const char *path, const Options *opt, const CompileState *kept,
                           ArenaPlan *plan)
{
    jmp_buf fail, *outer = cc->fail_jump;
    cc->fail_jump = &fail;
    if (setjmp(fail)) {
        cc->fail_jump = outer;
        free_proto(kept->proto);
        if (outer)
            longjmp(*outer, 1);
        exit(1);
    }
    Options nchw = *opt;
    nchw.layout = LAYOUT_NCHW;
    Model *m = load_model(path);
    *plan = compile_model(m, &nchw);
    cc->fail_jump = outer;
    return m;
}

/* Loads and compiles the model at path. --layout=auto goes channels-last for speed, but its
 * boundary transposes and band copies can take the arena over the node-order bound; then the
 * model's own layout wins if its arena is smaller, because RAM is the embedded user's hard
 * limit. The passes rewrite the graph, so the NCHW try starts from a fresh load; the
 * channels-last model is kept meanwhile, so a model compiles at most twice. */
Model *compile_model_file(const char *path, const Options *opt, ArenaPlan *plan)
{
    Model *m = load_model(path);
    *plan = compile_model(m, opt);
    if (opt->layout != LAYOUT_AUTO || !has_channels_last(m->graph) ||
        plan->arena_bytes <= m->node_order_bound_bytes)
        return m;
    CompileState nhwc = {0};
    swap_state(&nhwc);
    ArenaPlan nchw_plan;
    Model *nchw = compile_nchw(path, opt, &nhwc, &nchw_plan);
    if (nchw_plan.arena_bytes < plan->arena_bytes) {
        free_proto(nhwc.proto);
        *plan = nchw_plan;
        return nchw;
    }
    unload_model();
    swap_state(&nhwc);
    return m;
}
