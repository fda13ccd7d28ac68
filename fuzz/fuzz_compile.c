/* fuzz_compile.c — libFuzzer target: the whole pipeline (load -> passes -> codegen, the
 * reports and --emit-onnx) on one input, in process, with every output written into memory.
 *
 * Each input gets a Compiler of its own: errors call fatal(), which longjmps back here
 * (cc->fail_jump) instead of exiting, and compiler_end() frees everything, so the next input
 * starts from scratch. A crash, a sanitizer report, a hang (-timeout) or an allocation over
 * -rss_limit_mb is a finding. Build and run: see fuzz/README.md. */
#define _XOPEN_SOURCE 700 /* open_memstream */
#include "onnx2c.h"

#include <stdlib.h>
#include <string.h>

/* Tighter than the command line's defaults, so that one execution stays fast. */
static Limits fuzz_limits(void)
{
    return (Limits){
        .max_depth = 32,
        .max_nodes = 5000,
        .max_folded_bytes = (int64_t)4 << 20,
        .max_total_folded_bytes = (int64_t)16 << 20,
        .max_arena_bytes = (int64_t)1 << 40,
    };
}

/* What main() does, for one backend and option set, into memory. */
static void compile(const uint8_t *data, size_t size, const Options *opt, FILE *out, FILE *extra)
{
    Model *m = load_model_bytes("fuzz.onnx", data, size);
    ArenaPlan plan = compile_model(m, opt);
    emit_model(m, opt, &plan, "fuzz", out, extra, NULL);
    print_report(extra, m, &plan);
    write_report_json(extra, m, &plan);
    write_onnx(extra, m);
    write_dot(extra, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The last byte picks the options, so both backends and -O0 are covered. */
    Options opt = {.gemm = GEMM_PORTABLE,
                   .opt_level = 1,
                   .harness = true,
                   .input_path = "fuzz.onnx",
                   .output_path = "fuzz.c",
                   .header_path = "fuzz.h"};
    if (size > 0) {
        opt.gemm = data[size - 1] & 1 ? GEMM_LIBXSMM : GEMM_PORTABLE;
        opt.opt_level = data[size - 1] & 2 ? 0 : 1;
    }
    char *text = NULL, *etext = NULL;
    size_t len = 0, elen = 0;
    FILE *out = open_memstream(&text, &len), *extra = open_memstream(&etext, &elen);
    if (!out || !extra)
        abort();
    /* On the heap: the compilation changes it, and it is read after the longjmp. */
    Compiler *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    jmp_buf jump;
    c->limits = fuzz_limits();
    c->fail_jump = &jump;
    c->silent_errors = getenv("ONNX2C_FUZZ_VERBOSE") == NULL;
    compiler_begin(c);
    if (!setjmp(jump))
        compile(data, size, &opt, out, extra);
    compiler_end(c);
    free(c);
    fclose(out);
    fclose(extra);
    free(text);
    free(etext);
    return 0;
}
