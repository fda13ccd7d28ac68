/* report.c — what the compiler did, for people (--report) and tools (--report-json). */
#include "onnx2c.h"

#include <errno.h>
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

static void print_counts(FILE *f, const OpCount *c, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(f, "%s  %-24s %d", i ? "\n" : "", c[i].op, c[i].count);
    fputc('\n', f);
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
            "place)\n",
            (long long)plan->arena_bytes, (long long)plan->naive_bytes,
            (long long)plan->lower_bound_bytes, plan->in_place);
    fprintf(f, "node-order bound: %lld bytes\n", (long long)m->node_order_bound_bytes);
    fprintf(f, "weights: %lld bytes\n", (long long)model_weight_bytes(g));
    fprintf(f, "compute: %.3f MFLOPs per inference\n", model_mflops(g));
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

void write_report_json(const char *path, const Model *m, const ArenaPlan *plan)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "onnx2c: error: %s: cannot write: %s\n", path, strerror(errno));
        exit(1);
    }
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
            "\"arena_lower_bound_bytes\": %lld, \"arena_in_place\": %d, "
            "\"node_order_bound_bytes\": %lld, \"weight_bytes\": %lld, \"mflops\": %.6f}\n",
            (long long)plan->arena_bytes, (long long)plan->naive_bytes,
            (long long)plan->lower_bound_bytes, plan->in_place,
            (long long)m->node_order_bound_bytes, (long long)model_weight_bytes(g),
            model_mflops(g));
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "onnx2c: error: %s: write failed\n", path);
        exit(1);
    }
}
