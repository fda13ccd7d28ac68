/* report.c — what the compiler did, for people (--report) and tools (--report-json). */
#include "onnx2c.h"

#include <stdlib.h>
#include <string.h>

double model_mflops(const Graph *g)
{
    double flops = 0;
    for (int i = 0; i < g->nnodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->op->flops)
            flops += g->nodes[i]->op->flops(g->nodes[i]);
    return flops / 1e6;
}

/* Bytes of constant data the emitted file carries. */
int64_t model_weight_bytes(const Graph *g)
{
    int64_t bytes = 0;
    for (int i = 0; i < g->nvalues; i++)
        if (g->values[i]->referenced && g->values[i]->data)
            bytes += value_bytes(g->values[i]);
    return bytes;
}

static int live_nodes(const Graph *g)
{
    int n = 0;
    for (int i = 0; i < g->nnodes; i++)
        n += !g->nodes[i]->dead;
    return n;
}

/* Integer arithmetic: the node reads and writes integer tensors (QLinearConv, ConvInteger, ...
 * and integer data movement); Quantize/DequantizeLinear, which compute in float, are not. */
static bool integer_type(DType t)
{
    switch (t) {
    case DT_INT8:
    case DT_UINT8:
    case DT_INT16:
    case DT_UINT16:
    case DT_INT32:
    case DT_UINT32:
    case DT_INT64:
    case DT_UINT64:
    case DT_BOOL:
    case DT_INT4:
    case DT_UINT4:
    case DT_INT2:
    case DT_UINT2: return true;
    default: return false;
    }
}

static bool runs_in_integers(const Node *n)
{
    return n->ninputs && n->inputs[0] && integer_type(n->inputs[0]->dtype) &&
           integer_type(n->outputs[0]->dtype);
}

/* "integer", "float", or "none" for views (they only reinterpret a buffer). */
static const char *arithmetic(const Node *n)
{
    if (n->outputs[0]->view_of)
        return "none";
    return runs_in_integers(n) ? "integer" : "float";
}

static int64_t values_bytes(Value *const *vs, int n)
{
    int64_t bytes = 0;
    for (int i = 0; i < n; i++)
        bytes += value_bytes(vs[i]);
    return bytes;
}

/* Where output 0 of a node lives, into buf: "arena@OFFSET", "output", "view", "constant" or
 * "unwritten". */
static void placement(const Value *v, char *buf, size_t len)
{
    if (v->is_output)
        snprintf(buf, len, "output");
    else if (v->view_of)
        snprintf(buf, len, "view");
    else if (v->data)
        snprintf(buf, len, "constant");
    else if (v->offset < 0)
        snprintf(buf, len, "unwritten"); /* an optional output nothing reads */
    else
        snprintf(buf, len, "arena@%lld", (long long)v->offset);
}

static void print_shape(FILE *f, const Value *v)
{
    if (!v->rank)
        fprintf(f, "scalar");
    for (int i = 0; i < v->rank; i++)
        fprintf(f, "%s%lld", i ? "x" : "", (long long)v->dims[i]);
}

/* One scheduled node as the reports show it. */
typedef struct Layer {
    const Node *node;
    const Value *out; /* output 0 */
    double mflops;
    int64_t bytes; /* of output 0 */
    char placement[32];
    const char *arithmetic;
    int64_t scratch;    /* bytes of the node's planned scratch (op scratch()), 0 for none */
    int64_t scratch_at; /* its arena offset */
} Layer;

/* The live nodes in schedule order as layers; returns their count. */
static int collect_layers(const Graph *g, Layer **layers)
{
    Layer *l = xcalloc((size_t)g->nnodes + 1, sizeof(Layer));
    int n = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const Node *nd = g->nodes[i];
        if (nd->dead)
            continue;
        Layer *x = &l[n++];
        x->node = nd;
        x->out = nd->outputs[0];
        x->mflops = nd->op->flops ? nd->op->flops(nd) / 1e6 : 0.0;
        x->bytes = value_bytes(x->out);
        placement(x->out, x->placement, sizeof x->placement);
        x->arithmetic = arithmetic(nd);
        x->scratch = nd->op && nd->op->scratch ? nd->op->scratch(nd) : 0;
        x->scratch_at = nd->scratch_offset;
    }
    *layers = l;
    return n;
}

/* The files of --report-json and --dot: an error that names the file ends the compilation. */
/* The op and its fused epilogues, "Conv+Add+Relu", into buf; after a fused 1x1 conv's,
 * "NhwcConv+Clip>NhwcConv". */
static void fused_ops(const Node *n, char *buf, size_t len)
{
    size_t used = 0;
    if (n->prologue) {
        fused_ops(n->prologue, buf, len);
        used = strlen(buf);
        used += (size_t)snprintf(buf + used, len - used, ">");
    }
    if (used >= len)
        return;
    used += (size_t)snprintf(buf + used, len - used, "%s", n->op_type);
    for (int k = 0; k < n->nepilogue && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "+%s", n->epilogue[k].node->op_type);
}

/* The input shapes of a node, "1x3x8x8, 8x3x3x3, 8" (with its epilogues' other inputs). */
static void print_input_shapes(FILE *f, const Node *n)
{
    int shown = 0;
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i]) {
            fprintf(f, "%s", shown++ ? ", " : "");
            print_shape(f, n->inputs[i]);
        }
    for (int k = 0; k < n->nepilogue; k++) {
        const Epilogue *ep = &n->epilogue[k];
        for (int i = 0; i < ep->node->ninputs; i++)
            if (i != ep->input && ep->node->inputs[i]) {
                fprintf(f, "%s", shown++ ? ", " : "");
                print_shape(f, ep->node->inputs[i]);
            }
    }
}

/* The generated file's first summary: the schedule a reader follows through the run function
 * (one "/\* Op 'name' *\/" comment per step there). */
void write_schedule_comment(FILE *f, const Graph *g)
{
    Layer *l;
    int n = collect_layers(g, &l);
    fprintf(f,
            "/* Schedule: %d steps. step: op (+ fused epilogues) 'node': input shapes -> output\n"
            " * shape and type, where the output lives (arena@byte offset, output, view of an\n"
            " * input's buffer, constant), its bytes.\n",
            n);
    for (int i = 0; i < n; i++) {
        char ops[160];
        fused_ops(l[i].node, ops, sizeof ops);
        fprintf(f, " * %4d: %s '%s': ", i, comment_text(ops), comment_text(l[i].node->name));
        print_input_shapes(f, l[i].node);
        fprintf(f, " -> ");
        print_shape(f, l[i].out);
        fprintf(f, " %s  %s  %lld\n", dtype_name(l[i].out->dtype), l[i].placement,
                (long long)l[i].bytes);
    }
    fprintf(f, " */\n\n");
}

/* A string inside a Graphviz label: quotes and backslashes escaped. */
static void dot_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

/* Edges into layer i from whatever computes each of its inputs: a graph input ("in<k>") or an
 * earlier layer ("n<j>"); constants are folded into the layer and have no box. */
static void dot_edges(FILE *f, const Graph *g, const Node *n, int i, const int *layer_of)
{
    for (int k = -1; k < n->nepilogue; k++) {
        const Node *src = k < 0 ? n : n->epilogue[k].node;
        for (int j = 0; j < src->ninputs; j++) {
            const Value *v = src->inputs[j];
            if (!v || (k >= 0 && j == n->epilogue[k].input))
                continue;
            for (int in = 0; in < g->ninputs; in++)
                if (g->inputs[in] == v)
                    fprintf(f, "  in%d -> n%d;\n", in, i);
            if (layer_of[v->id] >= 0 && layer_of[v->id] != i)
                fprintf(f, "  n%d -> n%d;\n", layer_of[v->id], i);
        }
    }
}

static void dot_tensor(FILE *f, const char *id, const char *kind, const Value *v)
{
    fprintf(f, "  %s [shape=ellipse, label=\"%s '", id, kind);
    dot_text(f, v->name);
    fprintf(f, "'\\n");
    print_shape(f, v);
    fprintf(f, " %s\"];\n", dtype_name(v->dtype));
}

/* --dot: one box per scheduled step (the fused kernel, its output shape, where the output
 * lives and its bytes), the graph inputs and outputs as ellipses, data flow as edges. */
void write_dot(FILE *f, const Model *m)
{
    const Graph *g = m->graph;
    Layer *l;
    int n = collect_layers(g, &l);
    int *layer_of = xcalloc((size_t)g->nvalues + 1, sizeof(int));
    for (int i = 0; i < g->nvalues; i++)
        layer_of[i] = -1;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < l[i].node->noutputs; k++)
            if (l[i].node->outputs[k])
                layer_of[l[i].node->outputs[k]->id] = i;
    fprintf(f, "digraph onnx2c {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
    for (int i = 0; i < g->ninputs; i++)
        dot_tensor(f, xprintf("in%d", i), "input", g->inputs[i]);
    for (int i = 0; i < n; i++) {
        char ops[160];
        fused_ops(l[i].node, ops, sizeof ops);
        fprintf(f, "  n%d [label=\"%d: ", i, i);
        dot_text(f, ops);
        fprintf(f, " '");
        dot_text(f, l[i].node->name);
        fprintf(f, "'\\n");
        print_shape(f, l[i].out);
        fprintf(f, " %s\\n%s, %lld bytes\\n%s\"];\n", dtype_name(l[i].out->dtype), l[i].placement,
                (long long)l[i].bytes, l[i].arithmetic);
    }
    for (int i = 0; i < g->noutputs; i++)
        dot_tensor(f, xprintf("out%d", i), "output", g->outputs[i]);
    for (int i = 0; i < n; i++)
        dot_edges(f, g, l[i].node, i, layer_of);
    for (int i = 0; i < g->noutputs; i++) {
        const Value *v = g->outputs[i];
        if (layer_of[v->id] >= 0)
            fprintf(f, "  n%d -> out%d;\n", layer_of[v->id], i);
        for (int in = 0; in < g->ninputs; in++)
            if (g->inputs[in] == v)
                fprintf(f, "  in%d -> out%d;\n", in, i);
    }
    fprintf(f, "}\n");
}

/* One line per scheduled node: what a firmware engineer checks against RAM and time. */
static void print_layers(FILE *f, const Graph *g)
{
    Layer *l;
    int n = collect_layers(g, &l);
    fprintf(f, "layers (step, op, name, output, MFLOPs, output bytes, placement, arithmetic, "
               "scratch bytes@arena offset):\n");
    for (int i = 0; i < n; i++) {
        const Node *nd = l[i].node;
        char ops[160];
        fused_ops(nd, ops, sizeof ops);
        fprintf(f, "  %4d  %-20s %-24s ", i, ops, nd->name[0] ? nd->name : "-");
        print_shape(f, l[i].out);
        fprintf(f, " %s  %.3f  %lld  %s  %s", dtype_name(l[i].out->dtype), l[i].mflops,
                (long long)l[i].bytes, l[i].placement, l[i].arithmetic);
        if (l[i].scratch)
            fprintf(f, "  scratch %lld@%lld", (long long)l[i].scratch, (long long)l[i].scratch_at);
        fputc('\n', f);
    }
}

static void print_counts(FILE *f, const OpCount *c, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(f, "%s  %-24s %d", i ? "\n" : "", c[i].op, c[i].count);
    fputc('\n', f);
}

/* Machine code of the generated kernels and run functions, estimated from their C text:
 * CODE_TEXT_PER_BYTE bytes of C give one byte of Cortex-M4 Thumb-2 code at -O2 (measured with
 * arm-none-eabi-gcc 12 on examples/digits and examples/kws: tests/cortex_m4/size_table.sh
 * prints the measured figures next to this estimate). The kernels are pasted whole and the C
 * compiler drops the functions a model does not call, so it is an estimate, not a bound. */
#define CODE_TEXT_PER_BYTE 10

static int64_t code_bytes_estimate(const Model *m)
{
    return m->code_text_bytes / CODE_TEXT_PER_BYTE;
}

/* The nodes layout_nhwc made channels-last (--layout). */
static int channels_last_nodes(const Graph *g)
{
    int k = 0;
    for (int i = 0; i < g->nnodes; i++)
        k += !g->nodes[i]->dead && g->nodes[i]->channels_last;
    return k;
}

void print_report(FILE *f, const Model *m, const ArenaPlan *plan)
{
    const Graph *g = m->graph;
    OpCount *after;
    int nafter;
    count_ops(g, &after, &nafter);
    fprintf(f, "onnx2c report for %s\n", m->path);
    fprintf(f, "nodes: %d before, %d after\n", m->nodes_before, live_nodes(g));
    fprintf(f, "ops before:\n");
    print_counts(f, m->ops_before, m->ops_before_n);
    fprintf(f, "ops after:\n");
    print_counts(f, after, nafter);
    const OpCount *fusions;
    int nfusions = fusion_counts(&fusions);
    fprintf(f, "fusions:%s\n", nfusions ? "" : " none");
    if (nfusions)
        print_counts(f, fusions, nfusions);
    fprintf(f,
            "arena: %lld bytes (naive sum of intermediates %lld, live lower bound %lld, %d in "
            "place, %d in Concat slices)\n",
            (long long)plan->arena_bytes, (long long)plan->naive_bytes,
            (long long)plan->lower_bound_bytes, plan->in_place, plan->in_slice);
    fprintf(f, "node-order bound: %lld bytes\n", (long long)m->node_order_bound_bytes);
    fprintf(f, "channels-last: %d nodes run on [N][H][W][C] tensors (--layout)\n",
            channels_last_nodes(g));
    fprintf(f, "weights: %lld bytes\n", (long long)model_weight_bytes(g));
    fprintf(f, "compute: %.3f MFLOPs per inference\n", model_mflops(g));
    int64_t in = values_bytes(g->inputs, g->ninputs), out = values_bytes(g->outputs, g->noutputs);
    fprintf(f, "RAM: %lld bytes (arena %lld + inputs %lld + outputs %lld)\n",
            (long long)(plan->arena_bytes + in + out), (long long)plan->arena_bytes, (long long)in,
            (long long)out);
    int64_t code = code_bytes_estimate(m);
    fprintf(f,
            "flash: %lld bytes (weights %lld + code about %lld: an estimate from the %lld bytes of "
            "C text)\n",
            (long long)(model_weight_bytes(g) + code), (long long)model_weight_bytes(g),
            (long long)code, (long long)m->code_text_bytes);
    print_layers(f, g);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_counts(FILE *f, const OpCount *c, int n)
{
    fputc('{', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_string(f, c[i].op);
        fprintf(f, ": %d", c[i].count);
    }
    fputc('}', f);
}

/* The per-layer table of print_layers as a JSON array. */
static void json_layers(FILE *f, const Graph *g)
{
    Layer *l;
    int n = collect_layers(g, &l);
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s{\"op\": ", i ? ", " : "");
        json_string(f, l[i].node->op_type);
        fprintf(f, ", \"name\": ");
        json_string(f, l[i].node->name);
        fprintf(f, ", \"dtype\": \"%s\", \"shape\": [", dtype_name(l[i].out->dtype));
        for (int d = 0; d < l[i].out->rank; d++)
            fprintf(f, "%s%lld", d ? ", " : "", (long long)l[i].out->dims[d]);
        fprintf(f,
                "], \"mflops\": %.6f, \"bytes\": %lld, \"placement\": \"%s\", "
                "\"arithmetic\": \"%s\", \"scratch_bytes\": %lld, \"scratch_offset\": %lld}",
                l[i].mflops, (long long)l[i].bytes, l[i].placement, l[i].arithmetic,
                (long long)l[i].scratch, (long long)(l[i].scratch ? l[i].scratch_at : -1));
    }
    fputc(']', f);
}

void write_report_json(FILE *f, const Model *m, const ArenaPlan *plan)
{
    const Graph *g = m->graph;
    OpCount *after;
    int nafter;
    count_ops(g, &after, &nafter);
    fprintf(f,
            "{\"onnx2c_version\": \"" ONNX2C_VERSION
            "\", \"nodes_before\": %d, \"nodes_after\": %d, "
            "\"ops_before\": ",
            m->nodes_before, live_nodes(g));
    json_counts(f, m->ops_before, m->ops_before_n);
    fprintf(f, ", \"ops_after\": ");
    json_counts(f, after, nafter);
    const OpCount *fusions;
    int nfusions = fusion_counts(&fusions);
    fprintf(f, ", \"fusions\": ");
    json_counts(f, fusions, nfusions);
    fprintf(f,
            ", \"arena_bytes\": %lld, \"arena_naive_bytes\": %lld, "
            "\"arena_lower_bound_bytes\": %lld, \"arena_in_place\": %d, \"arena_in_slice\": %d, "
            "\"node_order_bound_bytes\": %lld, \"weight_bytes\": %lld, \"mflops\": %.6f",
            (long long)plan->arena_bytes, (long long)plan->naive_bytes,
            (long long)plan->lower_bound_bytes, plan->in_place, plan->in_slice,
            (long long)m->node_order_bound_bytes, (long long)model_weight_bytes(g),
            model_mflops(g));
    int64_t in = values_bytes(g->inputs, g->ninputs), out = values_bytes(g->outputs, g->noutputs);
    fprintf(f, ", \"input_bytes\": %lld, \"output_bytes\": %lld, \"ram_bytes\": %lld",
            (long long)in, (long long)out, (long long)(plan->arena_bytes + in + out));
    fprintf(f, ", \"code_bytes_estimate\": %lld, \"flash_bytes_estimate\": %lld, \"layers\": ",
            (long long)code_bytes_estimate(m),
            (long long)(code_bytes_estimate(m) + model_weight_bytes(g)));
    json_layers(f, g);
    fprintf(f, ", \"nhwc_nodes\": [");
    for (int i = 0, k = 0; i < g->nnodes; i++)
        if (!g->nodes[i]->dead && g->nodes[i]->channels_last) {
            fprintf(f, "%s", k++ ? ", " : "");
            json_string(f, g->nodes[i]->name);
        }
    fprintf(f, "]}\n");
}
