/* main.c — the command line: parse options, run the pipeline, write the outputs. */
#define _XOPEN_SOURCE 700 /* mkstemp, realpath, fchmod */
#include "load.h"
#include "onnx2c.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Each option with an example, so that --help alone is enough to start. */
static const char usage_text[] =
    "usage: onnx2c MODEL.onnx -o OUT.c [options]\n"
    "  -o FILE                output C file (required; - for standard output)\n"
    "                           onnx2c mnist.onnx -o mnist.c\n"
    "  --header FILE          also write the API as a header\n"
    "                           onnx2c mnist.onnx -o mnist.c --header mnist.h\n"
    "  --weights FILE         put the weights in their own C file (compile and link both)\n"
    "                           onnx2c mnist.onnx -o mnist.c --weights mnist_weights.c\n"
    "  --name NAME            prefix of every emitted symbol (default: from the file name)\n"
    "                           onnx2c model.onnx -o kws.c --name kws   (kws_run, kws_init)\n"
    "  --dim SYMBOL=N         bind a symbolic dimension\n"
    "                           onnx2c bert.onnx -o bert.c --dim batch=1 --dim seq=128\n"
    "  --shape INPUT=AxBxC    fix an input's shape\n"
    "                           onnx2c resnet.onnx -o resnet.c --shape data=1x3x224x224\n"
    "  --bind-input INPUT=FILE.pb  make an input a constant (a serialized TensorProto)\n"
    "                           onnx2c m.onnx -o m.c --bind-input mask=mask.pb\n"
    "  --gemm=libxsmm|portable  product backend (default: libxsmm on x86-64, else portable)\n"
    "                           onnx2c m.onnx -o m.c --gemm=portable   (microcontrollers)\n"
    "  --layout=nchw|nhwc|auto  tensor layout between 2-D convs: nhwc runs them and the ops\n"
    "                         between them channels-last (default: auto, the layout the cost\n"
    "                         rule in README picks)\n"
    "                           onnx2c mobilenet.onnx -o m.c --layout=nhwc\n"
    "  --harness              also emit a main() test harness\n"
    "                           onnx2c m.onnx -o m.c --harness && cc -O3 m.c -o m -lm &&\n"
    "                           ./m test_data_set_0\n"
    "  --report               print what the compiler did (RAM, flash, a per-layer table)\n"
    "                           onnx2c m.onnx -o m.c --report\n"
    "  --report-json FILE     write the same facts as JSON\n"
    "                           onnx2c m.onnx -o m.c --report-json m.json\n"
    "  --dot FILE             write the scheduled graph (fused kernels, shapes, arena offsets)\n"
    "                         for Graphviz\n"
    "                           onnx2c m.onnx -o m.c --dot m.dot && dot -Tsvg m.dot -o m.svg\n"
    "  --emit-onnx FILE       write the optimised graph as an ONNX model\n"
    "                           onnx2c m.onnx -o m.c --emit-onnx m.opt.onnx\n"
    "  -O0 | -O1              -O0 turns off rewrites; folding for static shapes stays (default "
    "-O1)\n"
    "                           onnx2c m.onnx -o m.c -O0\n"
    "  --max-depth N          nesting of subgraphs and function calls (default 64)\n"
    "                           onnx2c deep.onnx -o deep.c --max-depth 200\n"
    "  --max-nodes N          nodes after inlining and unrolling (default 250000)\n"
    "                           onnx2c loop.onnx -o loop.c --max-nodes 1000000\n"
    "  --max-folded-bytes N   bytes of one folded constant (default 64 MiB, or twice the\n"
    "                         model's weights if more)\n"
    "                           onnx2c m.onnx -o m.c --max-folded-bytes 1073741824\n"
    "  --max-total-folded-bytes N  bytes of all folded constants (default 256 MiB, or twice\n"
    "                         the model's weights if more)\n"
    "                           onnx2c m.onnx -o m.c --max-total-folded-bytes 4294967296\n"
    "  --max-arena-bytes N    bytes of the planned arena (default 4294967296)\n"
    "                           onnx2c m.onnx -o m.c --max-arena-bytes 262144   (fail if more)\n"
    "  --list-ops             print the supported operators and exit\n"
    "                           onnx2c --list-ops | grep Conv\n"
    "  --version              print the version and exit\n"
    "                           onnx2c --version\n"
    "  --help                 this text\n";

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const OpDef *const *)a)->name, (*(const OpDef *const *)b)->name);
}

/* One line per supported op: name, oldest supported opset. Rows that only refuse (no fold, no
 * emit) and the variants an op rebinds to ("Cast(low)") are not ops of their own. */
static void list_ops(void)
{
    const OpDef *table;
    int n = op_table_entries(&table), shown = 0;
    const OpDef **sorted = xcalloc((size_t)n + 1, sizeof(OpDef *));
    for (int i = 0; i < n; i++)
        if (!strchr(table[i].name, '(') && (table[i].fold || table[i].emit))
            sorted[shown++] = &table[i];
    qsort(sorted, (size_t)shown, sizeof(OpDef *), by_name);
    for (int i = 0; i < shown; i++)
        printf("%s (opset %d+)\n", sorted[i]->name, sorted[i]->min_opset);
}

static int64_t parse_dim(const char *s, const char *what)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0 || v > ((int64_t)1 << 40))
        usage_error("%s: '%s' is not a valid dimension", what, s);
    return v;
}

/* "NAME=AxBxC" (or "NAME=N" for --dim) */
static Binding parse_binding(const char *arg, const char *opt, bool single)
{
    const char *eq = strrchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        usage_error("%s expects NAME=%s, got '%s'", opt, single ? "N" : "AxBxC", arg);
    Binding b = {0};
    b.name = xcalloc(1, (size_t)(eq - arg) + 1);
    memcpy(b.name, arg, (size_t)(eq - arg));
    const char *p = eq + 1;
    for (;;) {
        if (b.rank == MAX_RANK)
            usage_error("%s: more than %d dims in '%s'", opt, MAX_RANK, arg);
        const char *x = strchr(p, 'x');
        char *part = x ? xcalloc(1, (size_t)(x - p) + 1) : xstrdup(p);
        if (x)
            memcpy(part, p, (size_t)(x - p));
        b.dims[b.rank++] = parse_dim(part, opt);
        if (!x)
            break;
        if (single)
            usage_error("%s expects NAME=N, got '%s'", opt, arg);
        p = x + 1;
    }
    return b;
}

static void add_binding(Binding **list, int *n, Binding b)
{
    *list = xrealloc(*list, (size_t)(*n + 1) * sizeof(Binding));
    (*list)[(*n)++] = b;
}

/* "NAME=FILE.pb": the first '=' ends the name, so a path may hold '='. */
static void add_input_value(Options *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        usage_error("--bind-input expects INPUT=FILE.pb, got '%s'", arg);
    char *name = xcalloc(1, (size_t)(eq - arg) + 1);
    memcpy(name, arg, (size_t)(eq - arg));
    o->values = xrealloc(o->values, (size_t)(o->nvalues + 1) * sizeof *o->values);
    o->values[o->nvalues++] = (struct InputValue){name, eq + 1};
}

static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    if (!strncmp(argv[*i], name, len) && argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (*i + 1 >= argc)
        usage_error("%s needs a value", name);
    return argv[++*i];
}

static bool is_option(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return !strncmp(arg, name, len) && (arg[len] == 0 || arg[len] == '=');
}

/* A limit option's value: a positive count, at most 2^62. */
static int64_t parse_limit(const char *s, const char *what)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v <= 0 || v > ((int64_t)1 << 62))
        usage_error("%s: '%s' is not a positive count", what, s);
    return v;
}

/* --max-NAME N: true when argv[*i] is one of the limit options (and consumes its value). */
static bool limit_option(int argc, char **argv, int *i)
{
    static const struct {
        const char *name;
        size_t field; /* offset in Limits */
    } limits[] = {
        {"--max-nodes", offsetof(Limits, max_nodes)},
        {"--max-folded-bytes", offsetof(Limits, max_folded_bytes)},
        {"--max-total-folded-bytes", offsetof(Limits, max_total_folded_bytes)},
        {"--max-arena-bytes", offsetof(Limits, max_arena_bytes)},
    };
    if (is_option(argv[*i], "--max-depth")) {
        int64_t v = parse_limit(option_value(argc, argv, i, "--max-depth"), "--max-depth");
        if (v > 100000)
            usage_error("--max-depth: at most 100000");
        cc->limits.max_depth = (int)v;
        return true;
    }
    for (size_t k = 0; k < sizeof limits / sizeof *limits; k++)
        if (is_option(argv[*i], limits[k].name)) {
            *(int64_t *)((char *)&cc->limits + limits[k].field) =
                parse_limit(option_value(argc, argv, i, limits[k].name), limits[k].name);
            return true;
        }
    return false;
}

static GemmBackend default_gemm(void)
{
#if defined(__x86_64__)
    return GEMM_LIBXSMM;
#else
    return GEMM_PORTABLE;
#endif
}

/* Levenshtein distance of two short strings (option names), capped at 9. */
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b), row[64];
    if (la > 62 || lb > 62)
        return 9;
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb] < 9 ? row[lb] : 9;
}

/* An unknown option is a usage error that names the closest known one, if one is close. */
static void unknown_option(const char *arg)
{
    static const char *const known[] = {"-o",
                                        "--header",
                                        "--weights",
                                        "--dot",
                                        "--name",
                                        "--dim",
                                        "--shape",
                                        "--bind-input",
                                        "--gemm",
                                        "--layout",
                                        "--harness",
                                        "--report",
                                        "--report-json",
                                        "--emit-onnx",
                                        "--list-ops",
                                        "--version",
                                        "--help",
                                        "--max-depth",
                                        "--max-nodes",
                                        "--max-folded-bytes",
                                        "--max-total-folded-bytes",
                                        "--max-arena-bytes"};
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    const char *best = NULL;
    int best_d = 3; /* suggest only within two edits */
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        int d = edit_distance(name, known[k]);
        if (d < best_d) {
            best_d = d;
            best = known[k];
        }
    }
    if (best)
        usage_error("unknown option '%s' (did you mean %s?)", arg, best);
    usage_error("unknown option '%s'", arg);
}

static Options parse_args(int argc, char **argv)
{
    Options o = {.gemm = default_gemm(), .opt_level = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            exit(0);
        } else if (!strcmp(a, "--version")) {
            puts("onnx2c " ONNX2C_VERSION);
            exit(0);
        } else if (!strcmp(a, "--list-ops")) {
            list_ops();
            exit(0);
        } else if (!strcmp(a, "-o")) {
            o.output_path = option_value(argc, argv, &i, "-o");
        } else if (is_option(a, "--header")) {
            o.header_path = option_value(argc, argv, &i, "--header");
        } else if (is_option(a, "--weights")) {
            o.weights_path = option_value(argc, argv, &i, "--weights");
        } else if (is_option(a, "--dot")) {
            o.dot_path = option_value(argc, argv, &i, "--dot");
        } else if (is_option(a, "--name")) {
            o.name = option_value(argc, argv, &i, "--name");
        } else if (is_option(a, "--dim")) {
            add_binding(&o.dims, &o.ndims,
                        parse_binding(option_value(argc, argv, &i, "--dim"), "--dim", true));
        } else if (is_option(a, "--shape")) {
            add_binding(&o.shapes, &o.nshapes,
                        parse_binding(option_value(argc, argv, &i, "--shape"), "--shape", false));
        } else if (is_option(a, "--bind-input")) {
            add_input_value(&o, option_value(argc, argv, &i, "--bind-input"));
        } else if (is_option(a, "--gemm")) {
            const char *v = option_value(argc, argv, &i, "--gemm");
            if (!strcmp(v, "libxsmm"))
                o.gemm = GEMM_LIBXSMM;
            else if (!strcmp(v, "portable"))
                o.gemm = GEMM_PORTABLE;
            else
                usage_error("--gemm must be libxsmm or portable, not '%s'", v);
        } else if (is_option(a, "--layout")) {
            const char *v = option_value(argc, argv, &i, "--layout");
            if (!strcmp(v, "nchw"))
                o.layout = LAYOUT_NCHW;
            else if (!strcmp(v, "nhwc"))
                o.layout = LAYOUT_NHWC;
            else if (!strcmp(v, "auto"))
                o.layout = LAYOUT_AUTO;
            else
                usage_error("--layout must be nchw, nhwc or auto, not '%s'", v);
        } else if (!strcmp(a, "--harness")) {
            o.harness = true;
        } else if (!strcmp(a, "--report")) {
            o.report = true;
        } else if (is_option(a, "--report-json")) {
            o.report_json_path = option_value(argc, argv, &i, "--report-json");
        } else if (is_option(a, "--emit-onnx")) {
            o.emit_onnx_path = option_value(argc, argv, &i, "--emit-onnx");
        } else if (limit_option(argc, argv, &i)) {
            continue;
        } else if (!strcmp(a, "-O0") || !strcmp(a, "-O1") || !strcmp(a, "-O2")) {
            o.opt_level = a[2] - '0';
        } else if (a[0] == '-' && a[1]) {
            unknown_option(a);
        } else if (o.input_path) {
            usage_error("more than one model given ('%s' and '%s')", o.input_path, a);
        } else {
            o.input_path = a;
        }
    }
    if (!o.input_path)
        usage_error("no model given");
    if (!o.output_path)
        usage_error("no output file given (-o OUT.c)");
    if (o.weights_path && !strcmp(o.weights_path, "-"))
        usage_error("--weights needs a file name, not -");
    return o;
}

static void check_symbol_name(const char *name)
{
    bool ok = isalpha((unsigned char)name[0]) || name[0] == '_';
    for (const char *p = name; *p; p++)
        ok = ok && (isalnum((unsigned char)*p) || *p == '_');
    if (!ok)
        usage_error("--name '%s' is not a C identifier", name);
}

/* The file name's stem as a C identifier: "models/mnist-8.onnx" -> "mnist_8". A model zoo's
 * "resnet/model.onnx" and "vgg/model.onnx" would both give "model" and collide at link time,
 * so a file named model.onnx takes its folder's name: "resnet". */
static const char *name_from_path(const char *path)
{
    char *copy = xprintf("%s", path);
    char *slash = strrchr(copy, '/');
    char *base = slash ? slash + 1 : copy;
    char *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = 0;
    if (!strcmp(base, "model") && slash && slash != copy) {
        *slash = 0;
        char *parent = strrchr(copy, '/');
        parent = parent ? parent + 1 : copy;
        if (*parent && strcmp(parent, ".") && strcmp(parent, ".."))
            base = parent;
    }
    char *name = xprintf("%s%s", isdigit((unsigned char)base[0]) ? "m_" : "", base);
    for (char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p))
            *p = '_';
    return *name ? name : "model";
}

/* ---- outputs ----
 * Each output is written to a temporary file in its destination folder and renamed over the
 * destination only when every output has been written, so a failed compile leaves nothing
 * behind and never a truncated file: an error longjmps back to main (cc->fail_jump), which
 * removes the temporaries. Errors name the model, like every other error line. */

typedef struct Output {
    const char *path;
    char *tmp; /* NULL once renamed */
} Output;

typedef struct Outputs {
    Output list[6];
    int n;
    FILE *stdout_copy; /* "-o -": the C, copied to standard output once all succeeded */
} Outputs;

static void remove_temporaries(const Outputs *o)
{
    for (int i = 0; i < o->n; i++)
        if (o->list[i].tmp)
            unlink(o->list[i].tmp);
}

static _Noreturn void write_error(const char *path, const char *what)
{
    fatal("%s '%s': %s", what, path, strerror(errno));
}

/* Creates an empty temporary file next to path, with the permissions a new file gets, and
 * returns its name. */
static const char *temporary_for(Outputs *o, const char *path)
{
    const char *slash = strrchr(path, '/');
    char *tmp = slash ? xprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1)
                      : xprintf(".%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        write_error(path, "cannot write");
    mode_t mask = umask(0);
    umask(mask);
    o->list[o->n++] = (Output){path, tmp};
    if (fchmod(fd, 0666 & ~mask) || close(fd))
        write_error(path, "cannot write");
    return tmp;
}

static bool is_stdout(const char *path)
{
    return !strcmp(path, "-");
}

/* "-o -": the C is written to an anonymous temporary file and copied to standard output only
 * once the whole compilation succeeded, so a failure prints no partial C. */
static FILE *open_output(Outputs *o, const char *path)
{
    if (is_stdout(path)) {
        o->stdout_copy = tmpfile();
        if (!o->stdout_copy)
            write_error(path, "cannot create a temporary file for");
        return o->stdout_copy;
    }
    const char *tmp = temporary_for(o, path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        write_error(path, "cannot write");
    return f;
}

static void close_output(const Outputs *o, FILE *f, const char *path)
{
    if (f == o->stdout_copy) {
        fflush(f);
        return;
    }
    if (ferror(f) | fclose(f))
        write_error(path, "cannot write");
}

static void commit_outputs(Outputs *o)
{
    if (o->stdout_copy) {
        char buf[1 << 14];
        size_t n;
        rewind(o->stdout_copy);
        while ((n = fread(buf, 1, sizeof buf, o->stdout_copy)) > 0)
            if (fwrite(buf, 1, n, stdout) != n)
                write_error("-", "cannot write to standard output");
        if (ferror(o->stdout_copy) || fflush(stdout))
            write_error("-", "cannot write to standard output");
    }
    for (int i = 0; i < o->n; i++) {
        if (rename(o->list[i].tmp, o->list[i].path))
            write_error(o->list[i].path, "cannot write");
        o->list[i].tmp = NULL;
    }
}

/* Two paths name the same file: the same inode when both exist, else the same resolved folder
 * and file name. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (!stat(a, &sa) && !stat(b, &sb))
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ra[PATH_MAX], rb[PATH_MAX];
    const char *da = dir_of(a), *db = dir_of(b);
    const char *ba = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
    const char *bb = strrchr(b, '/') ? strrchr(b, '/') + 1 : b;
    if (!realpath(da, ra) || !realpath(db, rb))
        return !strcmp(a, b);
    return !strcmp(ra, rb) && !strcmp(ba, bb);
}

/* An output must not overwrite an input (the model, a --bind-input file) or another output. */
static void check_output_paths(const Options *o)
{
    const char *outs[6] = {o->output_path,      o->header_path,    o->weights_path,
                           o->report_json_path, o->emit_onnx_path, o->dot_path};
    const char *opts[6] = {"-o", "--header", "--weights", "--report-json", "--emit-onnx", "--dot"};
    for (int i = 0; i < 6; i++) {
        if (!outs[i])
            continue;
        if (same_file(outs[i], o->input_path))
            usage_error("%s '%s' is the input model", opts[i], outs[i]);
        for (int k = 0; k < o->nvalues; k++)
            if (same_file(outs[i], o->values[k].path))
                usage_error("%s '%s' is the --bind-input file of '%s'", opts[i], outs[i],
                            o->values[k].name);
        for (int j = 0; j < i; j++)
            if (outs[j] && same_file(outs[i], outs[j]))
                usage_error("%s and %s both write '%s'", opts[j], opts[i], outs[i]);
    }
}

/* Everything after parsing the options; errors longjmp back to main. */
static void compile(const Options *opt, Outputs *outs)
{
    const char *name = opt->name ? opt->name : name_from_path(opt->input_path);
    check_symbol_name(name);

    ArenaPlan plan;
    Model *m = compile_model_file(opt->input_path, opt, &plan);

    FILE *out = open_output(outs, opt->output_path);
    FILE *header = opt->header_path ? open_output(outs, opt->header_path) : NULL;
    FILE *weights = opt->weights_path ? open_output(outs, opt->weights_path) : NULL;
    emit_model(m, opt, &plan, name, out, header, weights);
    close_output(outs, out, opt->output_path);
    if (header)
        close_output(outs, header, opt->header_path);
    if (weights)
        close_output(outs, weights, opt->weights_path);
    if (opt->report) /* on stderr when the C goes to stdout */
        print_report(is_stdout(opt->output_path) ? stderr : stdout, m, &plan);
    if (opt->report_json_path) {
        FILE *f = open_output(outs, opt->report_json_path);
        write_report_json(f, m, &plan);
        close_output(outs, f, opt->report_json_path);
    }
    if (opt->emit_onnx_path) {
        FILE *f = open_output(outs, opt->emit_onnx_path);
        write_onnx(f, m);
        close_output(outs, f, opt->emit_onnx_path);
    }
    if (opt->dot_path) {
        FILE *f = open_output(outs, opt->dot_path);
        write_dot(f, m);
        close_output(outs, f, opt->dot_path);
    }
    commit_outputs(outs);
}

int main(int argc, char **argv)
{
    /* On the heap, not local: the compilation changes both, and main reads them after a
     * longjmp. */
    Compiler *c = calloc(1, sizeof *c);
    if (!c)
        fatal("out of memory");
    c->limits = default_limits();
    compiler_begin(c);
    Options opt = parse_args(argc, argv);
    check_output_paths(&opt);
    Outputs *outs = xcalloc(1, sizeof(Outputs));
    jmp_buf fail;
    c->fail_jump = &fail;
    if (setjmp(fail)) {
        remove_temporaries(outs);
        compiler_end(c);
        free(c);
        return 1;
    }
    compile(&opt, outs);
    compiler_end(c);
    free(c);
    return 0;
}
