/* fuzz_compile.c — libFuzzer target: the whole pipeline (load -> passes -> codegen) on one
 * input, in process, with the C written into memory.
 *
 * Errors in the compiler call fatal(), which longjmps back here (g_fail_jump) instead of
 * exiting; compiler_reset() then frees everything, so the next input starts from scratch.
 * A crash, a sanitizer report, a hang (-timeout) or an allocation over -rss_limit_mb is a
 * finding. Build and run: see fuzz/README.md. */
#define _XOPEN_SOURCE 700 /* open_memstream */
#include "onnx2c.h"

#include <stdlib.h>
#include <string.h>

/* Tighter than the command line's defaults, so that one execution stays fast. */
static void set_fuzz_limits(void)
{
    g_limits.max_depth = 32;
    g_limits.max_nodes = 5000;
    g_limits.max_folded_bytes = (int64_t)4 << 20;
    g_limits.max_total_folded_bytes = (int64_t)16 << 20;
    g_limits.max_arena_bytes = (int64_t)1 << 40;
}

/* What main() does, for one backend and option set, into memory. */
static void compile(const uint8_t *data, size_t size, const Options *opt, FILE *out, FILE *header)
{
    Model *m = load_model_bytes("fuzz.onnx", data, size);
    ArenaPlan plan = compile_model(m, opt);
    emit_model(m, opt, &plan, "fuzz", out, header, NULL);
    print_report(out, m, &plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        set_fuzz_limits();
        g_silent_errors = getenv("ONNX2C_FUZZ_VERBOSE") == NULL;
        ready = true;
    }
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
    char *text = NULL, *htext = NULL;
    size_t len = 0, hlen = 0;
    FILE *out = open_memstream(&text, &len), *header = open_memstream(&htext, &hlen);
    if (!out || !header)
        abort();
    jmp_buf jump;
    g_fail_jump = &jump;
    if (!setjmp(jump))
        compile(data, size, &opt, out, header);
    g_fail_jump = NULL;
    fclose(out);
    fclose(header);
    free(text);
    free(htext);
    compiler_reset();
    return 0;
}
