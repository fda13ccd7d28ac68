/* test_repeat.c — the whole pipeline runs many times in one process (compiler_begin/end):
 * compiling a model again gives the same bytes as the first time, and so does compiling it
 * after a compilation that failed half way (a node limit stops it inside function inlining,
 * loop unrolling or folding, with the passes' tables half filled).
 *
 *   test_repeat MODEL.onnx...   (exit 0 when every model passes) */
#define _XOPEN_SOURCE 700 /* open_memstream */
#include "onnx2c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Text {
    char *c, *h, *report; /* the C file, the header, --report and --report-json */
    size_t nc, nh, nreport;
    bool failed;
} Text;

/* One compilation as main does it, every output in memory. max_nodes 0: the default. The
 * Text and the Compiler are on the heap: the compilation changes them, and they are read
 * after the longjmp. */
static Text *compile(const char *path, GemmBackend gemm, int64_t max_nodes)
{
    Text *t = calloc(1, sizeof *t);
    Compiler *cx = calloc(1, sizeof *cx);
    if (!t || !cx)
        abort();
    Options opt = {.gemm = gemm,
                   .opt_level = 1,
                   .harness = true,
                   .input_path = path,
                   .output_path = "model.c",
                   .header_path = "model.h"};
    FILE *c = open_memstream(&t->c, &t->nc), *h = open_memstream(&t->h, &t->nh),
         *r = open_memstream(&t->report, &t->nreport);
    if (!c || !h || !r)
        abort();
    jmp_buf jump;
    cx->limits = default_limits();
    if (max_nodes)
        cx->limits.max_nodes = max_nodes;
    cx->fail_jump = &jump;
    cx->silent_errors = true;
    compiler_begin(cx);
    if (!setjmp(jump)) {
        Model *m = load_model(path);
        ArenaPlan plan = compile_model(m, &opt);
        emit_model(m, &opt, &plan, "model", c, h, NULL);
        print_report(r, m, &plan);
        write_report_json(r, m, &plan);
        write_dot(r, m);
    } else {
        t->failed = true;
    }
    compiler_end(cx);
    free(cx);
    fclose(c);
    fclose(h);
    fclose(r);
    return t;
}

static void text_free(Text *t)
{
    free(t->c);
    free(t->h);
    free(t->report);
    free(t);
}

static bool same(const Text *a, const Text *b)
{
    return a->nc == b->nc && a->nh == b->nh && a->nreport == b->nreport &&
           !memcmp(a->c, b->c, a->nc) && !memcmp(a->h, b->h, a->nh) &&
           !memcmp(a->report, b->report, a->nreport);
}

static int failures;

static void check(bool ok, const char *path, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL %s: %s\n", path, what);
        failures++;
    }
}

static void test_model(const char *path, GemmBackend gemm)
{
    Text *first = compile(path, gemm, 0);
    check(!first->failed && first->nc > 0, path, "the first compilation fails");
    Text *again = compile(path, gemm, 0);
    check(!again->failed, path, "the second compilation fails");
    check(same(first, again), path, "the second compilation gives other bytes");
    /* Fails after a few nodes are made: in the loader, inlining or unrolling. */
    Text *stopped = compile(path, gemm, 3);
    check(stopped->failed, path, "a limit of 3 nodes does not stop it");
    Text *after = compile(path, gemm, 0);
    check(!after->failed, path, "the compilation after a failed one fails");
    check(same(first, after), path, "the compilation after a failed one gives other bytes");
    text_free(first);
    text_free(again);
    text_free(stopped);
    text_free(after);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_repeat MODEL.onnx...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        test_model(argv[i], GEMM_PORTABLE);
        test_model(argv[i], GEMM_LIBXSMM);
    }
    if (failures)
        return 1;
    printf("ok: %d models compiled 4 times each per backend, same bytes every time\n", argc - 1);
    return 0;
}
