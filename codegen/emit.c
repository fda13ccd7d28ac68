/* emit.c — write the model as one C99 file.
 *
 * Layout of the output: the compile line, the schedule (a comment: one line per step with its
 * op, shapes, arena offset and bytes), the API and its tables, the weights as static const
 * data (or, with --weights, declarations of the weights another file defines), the kernel
 * templates the model needs, libxsmm kernel pointers and init, the run function (one call per
 * scheduled node, each under a comment naming the ONNX node; locals are named after their
 * tensors), the typed entry points, and with --harness the test harness. The run function's body is
 * written first into a temporary file, because writing it discovers which constants and kernels are
 * needed. */
#include "embedded.h"
#include "onnx2c.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

void println(Emitter *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(e->out, "%*s", 4 * e->indent, "");
    vfprintf(e->out, fmt, ap);
    fputc('\n', e->out);
    va_end(ap);
}

static Value *root_of(Value *v)
{
    while (v->view_of)
        v = v->view_of;
    return v;
}

/* "_<tensor name>" as identifier characters, at most 24 of them, or "" for an unnamed value:
 * the C names of weights and locals say which tensor they hold (the id keeps them unique).
 * The name ends at a space: emit_constant's "fc1.weight (for Gemm 'fc1')" gives _fc1_weight. */
static const char *name_suffix(const char *tensor)
{
    char buf[26];
    int n = 0;
    buf[n++] = '_';
    for (const char *p = tensor; *p && *p != ' ' && n < 25; p++) {
        char c = isalnum((unsigned char)*p) ? *p : '_';
        if (c != '_' || buf[n - 1] != '_') /* "/conv1/Conv" gives _conv1_Conv */
            buf[n++] = c;
    }
    buf[n] = 0;
    return n > 1 ? xstrdup(buf) : "";
}

/* A weight's C symbol: static "w<id>_<tensor>", or with --weights, where it has external
 * linkage in its own file, "<model>_w<id>_<tensor>" so that two models link together. */
static const char *weight_symbol(const Emitter *e, const Value *v)
{
    const char *s = xprintf("w%d%s", v->id, name_suffix(v->folded_from ? v->folded_from : v->name));
    return e->opt->weights_path ? xprintf("%s_%s", e->name, s) : s;
}

/* The run function's pointer to a value's buffer: "v<id>_<tensor>". */
static const char *local_name(const Value *v)
{
    return xprintf("v%d%s", v->id, name_suffix(v->name));
}

const char *value_cname(Emitter *e, Value *v)
{
    if (v->cname)
        return v->cname;
    v = root_of(v);
    v->referenced = true;
    if (v->data)
        return xprintf("%s.f", weight_symbol(e, v));
    return local_name(v);
}

const char *scratch_cname(Emitter *e, const Node *n, DType t, int64_t byte_offset)
{
    (void)e;
    return xprintf("((%s *)(arena + %lld))", dtype_ctype(t),
                   (long long)(n->scratch_offset + byte_offset));
}

/* An exact C99 float literal (hex), or the macro for infinities and NaN. */
const char *c_float(float f)
{
    if (isnan(f))
        return "NAN";
    if (isinf(f))
        return f > 0 ? "INFINITY" : "-INFINITY";
    return xprintf("%af", (double)f);
}

const char *emit_dims(Emitter *e, int rank, const int64_t *dims)
{
    const char *name = xprintf("dims%d", e->counter++);
    fprintf(e->out, "%*sstatic const int64_t %s[] = {", 4 * e->indent, "", name);
    for (int i = 0; i < rank; i++)
        fprintf(e->out, "%s%lld", i ? ", " : "", (long long)dims[i]);
    fprintf(e->out, "%s};\n", rank ? "" : "0");
    return name;
}

/* An earlier constant of the node being emitted already came from v. */
static bool used_as_source(const Emitter *e, const Value *v)
{
    size_t len = strlen(v->name);
    for (int i = e->node_first_value; i < e->graph->nvalues; i++) {
        const char *name = e->graph->values[i]->name;
        if (!strncmp(name, v->name, len) && !strncmp(name + len, " (for ", 6))
            return true;
    }
    return false;
}

/* The constant input of the node a constant the emitter computes (a packed or transposed
 * weight) comes from: one with as many elements not used yet (GRU packs W, then R, both
 * 3H x H when the input size is H), else the largest. */
static const Value *source_weight(const Emitter *e, int64_t numel)
{
    const Node *n = e->node;
    const Value *from = NULL;
    for (int i = 0; n && i < n->ninputs; i++) {
        const Value *in = n->inputs[i];
        if (!in || !in->data || !in->name[0] || used_as_source(e, in))
            continue;
        bool same = value_numel(in) == numel, from_same = from && value_numel(from) == numel;
        if (!from || (same && !from_same) ||
            (same == from_same && value_bytes(in) > value_bytes(from)))
            from = in;
    }
    return from;
}

/* A constant the emitter computes keeps the name of its source: "fc1.weight (for Gemm
 * 'fc1')". */
const char *emit_constant(Emitter *e, DType t, int rank, const int64_t *dims, void *data)
{
    Value *v = value_new(e->graph, "");
    set_shape(v, t, rank, dims);
    v->data = data;
    const Value *from = source_weight(e, value_numel(v));
    const char *src = from && from->folded_from ? from->folded_from : from ? from->name : "";
    if (from && e->node->name[0])
        v->name = xprintf("%s (for %s '%s')", src, e->node->op_type, e->node->name);
    else if (from)
        v->name = xprintf("%s (for %s)", src, e->node->op_type);
    return value_cname(e, v);
}

const char *xsmm_kernel(Emitter *e, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                        int64_t ldc, bool panels)
{
    XsmmKernel want = {m, n, k, lda, ldb, ldc, panels ? 1 : 0};
    for (int i = 0; i < e->nkernels; i++)
        if (!memcmp(&e->kernels[i], &want, sizeof want))
            return xprintf("xsmm_product%d", i);
    e->kernels = xrealloc(e->kernels, (size_t)(e->nkernels + 1) * sizeof(XsmmKernel));
    e->kernels[e->nkernels] = want;
    return xprintf("xsmm_product%d", e->nkernels++);
}

/* Each epilogue from the first-th on is emitted by its own op's emitter, on a copy of its node
 * whose fused input and output are the producer's result: the kernel runs in place on that
 * buffer. (A conv kernel applies its leading epilogues itself, in its tile store.) */
void emit_epilogues_from(Emitter *e, Node *n, int first)
{
    for (int i = first; i < n->nepilogue; i++) {
        const Epilogue *ep = &n->epilogue[i];
        Node tmp = *ep->node;
        Value *ins[8] = {0}, *outs[1] = {n->outputs[0]};
        for (int k = 0; k < tmp.ninputs && k < 8; k++)
            ins[k] = k == ep->input ? n->outputs[0] : tmp.inputs[k];
        tmp.inputs = ins;
        tmp.outputs = outs;
        tmp.noutputs = 1;
        println(e, "/* epilogue: %s '%s' */", tmp.op_type, comment_text(tmp.name));
        tmp.op->emit(e, &tmp);
    }
}

void emit_epilogues(Emitter *e, Node *n)
{
    emit_epilogues_from(e, n, 0);
}

/* ---- names ---- */

static bool is_c_keyword(const char *s)
{
    static const char *const kw[] = {
        "auto",     "break",  "case",   "char",     "const",    "continue", "default",  "do",
        "double",   "else",   "enum",   "extern",   "float",    "for",      "goto",     "if",
        "inline",   "int",    "long",   "register", "restrict", "return",   "short",    "signed",
        "sizeof",   "static", "struct", "switch",   "typedef",  "union",    "unsigned", "void",
        "volatile", "while",  "inputs", "outputs",  "arena"};
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (!strcmp(s, kw[i]))
            return true;
    return false;
}

static char *c_identifier(const char *s)
{
    char *id = xprintf("_%s", s);
    for (char *p = id + 1; *p; p++)
        if (!isalnum((unsigned char)*p))
            *p = '_';
    bool need_prefix =
        !id[1] || isdigit((unsigned char)id[1]) || is_c_keyword(id + 1) || (id[1] == '_');
    return need_prefix ? xprintf("t%s", id) : id + 1;
}

/* Parameter names of the typed entry point, made unique. */
static char **param_names(Value **vs, int n, char **taken, int ntaken)
{
    char **names = xcalloc((size_t)n + 1, sizeof(char *));
    for (int i = 0; i < n; i++) {
        names[i] = c_identifier(vs[i]->name);
        for (int j = 0; j < i + ntaken; j++) {
            const char *other = j < ntaken ? taken[j] : names[j - ntaken];
            if (!strcmp(other, names[i])) {
                names[i] = xprintf("%s_%d", names[i], i);
                j = -1;
            }
        }
    }
    return names;
}

/* Text safe inside a C comment. */
const char *comment_text(const char *s)
{
    char *t = xstrdup(s);
    for (char *p = t; *p; p++)
        if ((p[0] == '*' && p[1] == '/') || (p[0] == '/' && p[1] == '*') || *p == '\n')
            *p = '_';
    return t;
}

/* ---- weights ---- */

/* Weight words in hex, 8 a line. Formatted by hand: this is most of the compiler's time on
 * large models (one fprintf per word was half of a 100k-node compile). */
static void print_words(FILE *f, const void *data, int64_t n, int width)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *b = data;
    char line[8 * 20 + 8];
    for (int64_t i = 0; i < n; i += 8) {
        char *p = line;
        p += sprintf(p, "%s", i ? "\n    " : "    ");
        for (int64_t j = i; j < n && j < i + 8; j++) {
            uint64_t w = 0;
            memcpy(&w, b + j * width, (size_t)width); /* little-endian host */
            *p++ = '0';
            *p++ = 'x';
            for (int d = 2 * width - 1; d >= 0; d--)
                *p++ = hex[(w >> (4 * d)) & 15];
            if (j + 1 < n)
                *p++ = ',';
            if (j + 1 < i + 8 && j + 1 < n)
                *p++ = ' ';
        }
        fwrite(line, 1, (size_t)(p - line), f);
    }
}

static void print_ints(FILE *f, const Value *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        long long x;
        switch (v->dtype) {
        case DT_INT8:
        case DT_INT4:
        case DT_INT2: x = ((const int8_t *)v->data)[i]; break;
        case DT_UINT8:
        case DT_BOOL:
        case DT_UINT4:
        case DT_UINT2:
        case DT_FLOAT4E2M1:
        case DT_FLOAT8E4M3FN:
        case DT_FLOAT8E4M3FNUZ:
        case DT_FLOAT8E5M2:
        case DT_FLOAT8E5M2FNUZ:
        case DT_FLOAT8E8M0: x = ((const uint8_t *)v->data)[i]; break;
        case DT_INT16: x = ((const int16_t *)v->data)[i]; break;
        case DT_UINT16:
        case DT_FLOAT16:
        case DT_BFLOAT16: x = ((const uint16_t *)v->data)[i]; break;
        case DT_INT32: x = ((const int32_t *)v->data)[i]; break;
        case DT_UINT32: x = ((const uint32_t *)v->data)[i]; break;
        case DT_INT64: x = ((const int64_t *)v->data)[i]; break;
        default: unreachable();
        }
        const char *sep = i % 16 ? " " : (i ? "\n    " : "    ");
        if (v->dtype == DT_INT64 && x == INT64_MIN)
            fprintf(f, "%s(-INT64_C(9223372036854775807) - 1)%s", sep, i + 1 < n ? "," : "");
        else if (v->dtype == DT_INT64)
            fprintf(f, "%sINT64_C(%lld)%s", sep, x, i + 1 < n ? "," : "");
        else
            fprintf(f, "%s%lld%s", sep, x, i + 1 < n ? "," : "");
    }
}

/* Floats are written as their bit patterns through a union: exact, and much faster for a C
 * compiler to parse than decimal literals (a 100k-weight layer compiles in a fraction of the
 * time). */
/* Weights of at least this many bytes are written as rows of string literals. C compilers
 * read a string literal far faster than a list of integer initialisers: for 10 M floats,
 * gcc -O2 takes 10 s and 0.45 GB on the strings and 166 s and 2.2 GB on hex integers. */
#define WEIGHT_STRING_MIN_BYTES 256
/* Bytes per string row: C99 guarantees literals of 4095 characters, and a row that fills its
 * array exactly (no terminating NUL) is valid C. */
#define WEIGHT_ROW_BYTES 4000

/* One row of bytes as a string literal: printable characters as themselves, the rest as
 * 3-digit octal escapes (which, unlike hex escapes, never swallow a following digit). */
static void print_byte_row(FILE *f, const unsigned char *b, int64_t n)
{
    char buf[4 * WEIGHT_ROW_BYTES + 8], *p = buf;
    *p++ = '"';
    for (int64_t i = 0; i < n; i++) {
        unsigned c = b[i];
        if (c >= 32 && c < 127 && c != '"' && c != '\\' && c != '?') {
            *p++ = (char)c;
        } else {
            *p++ = '\\';
            *p++ = (char)('0' + (c >> 6));
            *p++ = (char)('0' + ((c >> 3) & 7));
            *p++ = (char)('0' + (c & 7));
        }
    }
    *p++ = '"';
    fwrite(buf, 1, (size_t)(p - buf), f);
}

/* The type of a weight's declaration. A weight of WEIGHT_STRING_MIN_BYTES or more is the
 * bytes of its little-endian representation (the compiler's host order; emit_preamble refuses
 * big-endian targets), full rows plus a shorter tail, so the union takes exactly the weight's
 * size; it is read through the typed member f. With --weights the definition and the model
 * file's declaration both come from here: the same member list makes the two types compatible
 * (C99 6.2.7). */
static void print_weight_type(FILE *f, const Value *v)
{
    int64_t n = value_numel(v), len = n ? n : 1, bytes = n * (int64_t)dtype_size(v->dtype);
    int64_t rows = bytes / WEIGHT_ROW_BYTES, tail = bytes % WEIGHT_ROW_BYTES;
    if (bytes >= WEIGHT_STRING_MIN_BYTES) {
        fprintf(f, "const union {\n    struct {");
        if (rows)
            fprintf(f, " unsigned char rows[%lld][%d];", (long long)rows, WEIGHT_ROW_BYTES);
        if (tail)
            fprintf(f, " unsigned char tail[%lld];", (long long)tail);
        fprintf(f, " } b;\n    %s f[%lld];\n}", dtype_ctype(v->dtype), (long long)n);
    } else if (v->dtype == DT_FLOAT || v->dtype == DT_DOUBLE) {
        int w = v->dtype == DT_FLOAT ? 4 : 8;
        fprintf(f, "const union { uint%d_t u[%lld]; %s f[%lld]; }", 8 * w, (long long)len,
                dtype_ctype(v->dtype), (long long)len);
    } else {
        fprintf(f, "const struct { %s f[%lld]; }", dtype_ctype(v->dtype), (long long)len);
    }
}

/* The initializer of the type print_weight_type wrote. */
static void print_weight_init(FILE *f, const Value *v)
{
    int64_t n = value_numel(v), bytes = n * (int64_t)dtype_size(v->dtype);
    int64_t rows = bytes / WEIGHT_ROW_BYTES, tail = bytes % WEIGHT_ROW_BYTES;
    const unsigned char *b = v->data;
    fprintf(f, "{{");
    if (bytes >= WEIGHT_STRING_MIN_BYTES) {
        if (rows)
            fprintf(f, "{\n");
        for (int64_t r = 0; r < rows; r++) {
            print_byte_row(f, b + r * WEIGHT_ROW_BYTES, WEIGHT_ROW_BYTES);
            fputs(r + 1 < rows ? ",\n" : "\n}", f);
        }
        if (tail) {
            fputs(rows ? ",\n" : "\n", f);
            print_byte_row(f, b + rows * WEIGHT_ROW_BYTES, tail);
        }
    } else {
        fputc('\n', f);
        if (!n)
            fprintf(f, "    0");
        else if (v->dtype == DT_FLOAT || v->dtype == DT_DOUBLE)
            print_words(f, v->data, n, v->dtype == DT_FLOAT ? 4 : 8);
        else if (v->dtype == DT_UINT64)
            print_words(f, v->data, n, 8);
        else
            print_ints(f, v, n);
    }
    fprintf(f, "\n}};\n");
}

/* A weight's definition: static in the model file, or with --weights external in the weights
 * file. Each starts with the model's NAME_WEIGHTS_SECTION placement hook. */
static void emit_weight(FILE *f, const Emitter *e, const Value *v)
{
    int64_t n = value_numel(v);
    fprintf(f, "/* %s %s", v->name[0] ? comment_text(v->name) : "(folded)", dtype_name(v->dtype));
    for (int i = 0; i < v->rank; i++)
        fprintf(f, "%s%lld", i ? "x" : " [", (long long)v->dims[i]);
    fprintf(f, "%s, %lld bytes */\n", v->rank ? "]" : " scalar",
            (long long)(n * (int64_t)dtype_size(v->dtype)));
    fprintf(f, "%s_WEIGHTS_SECTION\n%s", e->name, e->opt->weights_path ? "" : "static ");
    print_weight_type(f, v);
    fprintf(f, " %s", weight_symbol(e, v));
    if (n * (int64_t)dtype_size(v->dtype) >= WEIGHT_STRING_MIN_BYTES)
        fprintf(f, " %s_WEIGHT_ALIGN", e->name);
    fprintf(f, " = ");
    print_weight_init(f, v);
}

/* The NAME_WEIGHT_ALIGN and NAME_STATIC_ARENA_ALIGN hooks: where vectors are 32 or 64 bytes (AVX,
 * AVX-512), weights of WEIGHT_STRING_MIN_BYTES or more start on a 64-byte cache line. With 64-byte
 * vectors a kernel's loads of a packed panel then never split a line (gcc otherwise places them
 * 32-byte aligned: mlp_b64's portable build 16% slower, libxsmm 3%). With 32-byte vectors a block
 * of rows of a weight then touches no more lines than it spans: conv_lstm's input projection, a
 * libxsmm kernel over 512-row columns of a weight that gcc had placed 32 bytes past a line,
 * took 1.3x the time (Zen 3, the whole model 0.92x the time aligned, mlp_b64 0.95x, gru_kws,
 * vit, gpt_decoder and DS-CNN unchanged). The static arena starts on a line too, for the
 * same loads and stores of the tensors in it, whose offsets are multiples of 64 (NAME_ARENA_ALIGN
 * stays 8 for a caller's arena: any 8-byte aligned arena gives the same results): gcc had placed
 * vit's 32 bytes past a line, and aligned the model ran 0.98x the time (Intel Xeon, AVX-512).
 * Elsewhere (microcontrollers, whose flash holds exactly NAME_WEIGHT_BYTES and whose RAM the
 * arena's 63 bytes of rounding would take) and for compilers without GNU attributes they are
 * empty; either may be redefined. */
static void emit_line_align_hook(FILE *f, const Emitter *e, const char *hook)
{
    fprintf(f,
            "#ifndef %s_%s\n"
            "#if defined(__GNUC__) && (defined(__AVX__) || defined(__AVX512F__))\n"
            "#define %s_%s __attribute__((aligned(64)))\n#else\n"
            "#define %s_%s\n#endif\n#endif\n",
            e->name, hook, e->name, hook, e->name, hook);
}

/* With --weights: the model file's declaration of a weight the weights file defines. */
static void declare_weight(FILE *f, const Emitter *e, const Value *v)
{
    fprintf(f, "extern ");
    print_weight_type(f, v);
    fprintf(f, " %s;\n", weight_symbol(e, v));
}

/* ---- the file ---- */

static const EmbeddedText *embedded(const char *name)
{
    for (const EmbeddedText *t = embedded_texts; t->name; t++)
        if (!strcmp(t->name, name))
            return t;
    fatal("internal error: no embedded file %s", name);
}

static bool op_uses_template(const OpDef *op, const char *file)
{
    size_t len = strlen(file);
    const char *t = op->templates;
    for (const char *p = t ? strstr(t, file) : NULL; p; p = strstr(p + 1, file))
        if ((p == t || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
            return true;
    return false;
}

static bool uses_template(const Graph *g, const char *file)
{
    for (int i = 0; i < g->nnodes; i++) {
        const Node *n = g->nodes[i];
        if (op_uses_template(n->op, file))
            return true;
        for (int k = 0; k < n->nepilogue; k++)
            if (op_uses_template(n->epilogue[k].node->op, file))
                return true;
    }
    return false;
}

/* Templates in the order they are pasted: a template may call kernels of those before it. */
static const char *const template_order[] = {
    "gemm",
    "conv",
    "depthwise_nhwc",   /* after conv: its store calls conv_epilogue_f32 */
    "conv_nhwc",        /* after conv.c: uses its ConvEpilogue and tiles */
    "expand_depthwise", /* calls depthwise_nhwc.c and conv_nhwc.c */
    "pool",
    "pool_nhwc",
    "conv_pool", /* calls conv_nhwc.c and pool_nhwc.c */
    "norm",
    "softmax",
    "elementwise",
    "movement",
    "math",
    "reduce",
    "tensor",
    /* nn family */
    "nn",
    /* data family */
    "data",
    /* types family */
    "types",
    /* signal family */
    "signal",
    "image",
    /* sequence family */
    "recurrent",
    "quant",
    "quant_nhwc", /* calls quant.c */
    /* loss family */
    "loss",
    "random",
    /* llm family */
    "llm",
    /* lowtypes family (after types: uses its 16-bit float conversions) */
    "lowtypes",
    /* attention family */
    "attention",
    /* control family */
    "misc",
};

/* Writes one template. Templates include templates/mathfn.c (the transcendentals) for the
 * compiler's own build; generated code has no project includes, so the first such #include
 * becomes mathfn.c's text and later ones disappear (mathfn.c also guards itself). */
static void emit_template_text(FILE *f, const char *text, bool *mathfn_done)
{
    static const char include[] = "#include \"mathfn.c\"";
    const char *p = strstr(text, include);
    if (!p) {
        fputs(text, f);
        return;
    }
    const char *rest = strchr(p, '\n');
    rest = rest ? rest + 1 : p + strlen(p);
    fwrite(text, 1, (size_t)(p - text), f);
    if (!*mathfn_done)
        fprintf(f, "/* ---- templates/mathfn.c ---- */\n%s\n/* ---- (template continues) ---- */\n",
                embedded("templates/mathfn.c")->text);
    *mathfn_done = true;
    fputs(rest, f);
}

static void emit_templates(FILE *f, const Graph *g)
{
    fprintf(f, "#if defined(__GNUC__)\n#define O2C_KERNEL static __attribute__((unused))\n"
               "#else\n#define O2C_KERNEL static\n#endif\n");
    /* The one switch of the templates' small forms (README "Examples to copy"): register tiles
     * are code that only a vector unit repays. */
    fprintf(f, "#if !defined(O2C_SMALL_CODE) && defined(__ARM_ARCH) && !defined(__ARM_NEON) && \\\n"
               "    !defined(__ARM_FEATURE_MVE)\n#define O2C_SMALL_CODE\n#endif\n");
    fprintf(f, "%s\n", embedded("templates/vector_width.h")->text);
    bool mathfn_done = false;
    for (size_t i = 0; i < sizeof template_order / sizeof template_order[0]; i++) {
        if (!uses_template(g, template_order[i]))
            continue;
        const char *path = xprintf("templates/%s.c", template_order[i]);
        fprintf(f, "/* ---- %s ---- */\n", path);
        emit_template_text(f, embedded(path)->text, &mathfn_done);
        fputc('\n', f);
    }
}

/* The last component of a path: generated files name the model and output files only, so
 * they do not depend on the directory the compiler ran in. */
static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The arena alignment the generated kernels need: their widest element (double, int64). */
#define API_ARENA_ALIGN 8

typedef struct ApiSizes {
    int64_t arena_bytes, weight_bytes;
} ApiSizes;

/* Bytes of the weights the file holds (those the emitted code references). */
static int64_t emitted_weight_bytes(const Graph *g)
{
    int64_t total = 0;
    for (int i = 0; i < g->nvalues; i++)
        if (g->values[i]->referenced && g->values[i]->data)
            total += value_bytes(g->values[i]);
    return total;
}

static const char *link_flags(const Emitter *e)
{
    return e->nkernels ? "-lxsmm -lxsmmnoblas -lm" : "-lm";
}

static void emit_preamble(FILE *f, const Model *m, const Options *opt, const Emitter *e)
{
    const char *out = strcmp(opt->output_path, "-") ? comment_text(file_name(opt->output_path))
                                                    : xprintf("%s.c", e->name); /* -o - */
    const char *line = opt->harness
                           ? xprintf("cc -std=c99 -O3 %s -o model %s", out, link_flags(e))
                           : xprintf("cc -std=c99 -O3 -c %s; link with %s", out, link_flags(e));
    fprintf(f,
            "/* Compile: %s\n"
            " * (-std=c99 keeps gcc from contracting a*b+c into fmas; on x86-64 add -march=native\n"
            " * or -mfma so that fmaf is one instruction rather than a libm call. -O3: gcc 12\n"
            " * vectorises the register-tiled kernels only there, about 2x faster than -O2. Any\n"
            " * level gives the same bits. Cores without a vector unit (Cortex-M) get\n"
            " * O2C_SMALL_CODE: the channels-last kernels' plain loops, a fraction of the\n"
            " * code, the same bits; -DO2C_SMALL_CODE picks them anywhere.)\n"
            " * Generated by onnx2c " ONNX2C_VERSION " from %s (opset %d, gemm backend %s).\n"
            " * Do not edit. The generated code, the kernel text in it included, may be used,\n"
            " * changed and distributed without restriction (see the onnx2c LICENSE).\n"
            " * Products accumulate over k in ascending order with fmaf from 0 (see the onnx2c\n"
            " * design notes), so every backend and CPU gives the same bits. */\n",
            line, comment_text(file_name(m->path)), m->opset,
            opt->gemm == GEMM_LIBXSMM ? "libxsmm" : "portable");
    write_schedule_comment(f, m->graph);
    if (opt->harness)
        /* 64-bit file offsets: 32-bit hosts' readdir/stat fail with EOVERFLOW otherwise. */
        fprintf(f, "#define _POSIX_C_SOURCE 200809L\n#define _FILE_OFFSET_BITS 64\n");
    fprintf(f, "#if defined(__clang__)\n#pragma STDC FP_CONTRACT OFF\n#endif\n");
    fprintf(f,
            "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n");
    if (e->nkernels)
        fprintf(f, "#include <libxsmm.h>\n");
    fprintf(f,
            "#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \\\n"
            "    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__\n"
            "#error \"onnx2c writes weights as little-endian bytes; this target is big-endian\"\n"
            "#endif\n");
    fprintf(
        f,
        "/* Placement hooks: define them (e.g. as __attribute__((section(\".ext_ram\")))) when\n"
        " * compiling this file to put the weights or the static arena in a linker section. */\n"
        "#ifndef %s_WEIGHTS_SECTION\n#define %s_WEIGHTS_SECTION\n#endif\n"
        "#ifndef %s_ARENA_SECTION\n#define %s_ARENA_SECTION\n#endif\n",
        e->name, e->name, e->name, e->name);
    emit_line_align_hook(f, e, "WEIGHT_ALIGN");
    emit_line_align_hook(f, e, "STATIC_ARENA_ALIGN");
    fputc('\n', f);
}

static void emit_tensor_tables(FILE *f, const char *name, const char *kind, Value **vs, int n)
{
    fprintf(f, "const char *const %s_%s_names[%d] = {", name, kind, n ? n : 1);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", vs[i]->name); /* names were checked printable */
    fprintf(f, "%s};\nconst int32_t %s_%s_dtypes[%d] = {", n ? "" : "0", name, kind, n ? n : 1);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? ", " : "", (int)vs[i]->dtype);
    fprintf(f, "%s};\nconst int32_t %s_%s_ranks[%d] = {", n ? "" : "0", name, kind, n ? n : 1);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%d", i ? ", " : "", vs[i]->rank);
    fprintf(f, "%s};\n", n ? "" : "0");
    for (int i = 0; i < n; i++) {
        fprintf(f, "static const int64_t %s_%s_shape_%d[%d] = {", name, kind, i,
                vs[i]->rank ? vs[i]->rank : 1);
        for (int d = 0; d < vs[i]->rank; d++)
            fprintf(f, "%s%lld", d ? ", " : "", (long long)vs[i]->dims[d]);
        fprintf(f, "%s};\n", vs[i]->rank ? "" : "0");
    }
    fprintf(f, "const int64_t *const %s_%s_shapes[%d] = {", name, kind, n ? n : 1);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%s_%s_shape_%d", i ? ", " : "", name, kind, i);
    fprintf(f, "%s};\n", n ? "" : "0");
}

/* An array parameter with the tensor's shape; a pointer for scalars and empty tensors (C has
 * no zero-length arrays). */
static void print_array_param(FILE *f, const Value *v, const char *pname, bool is_const)
{
    bool as_array = v->rank && value_numel(v);
    fprintf(f, "%s%s %s%s", is_const ? "const " : "", dtype_ctype(v->dtype), as_array ? "" : "*",
            pname);
    for (int d = 0; as_array && d < v->rank; d++)
        fprintf(f, "[%lld]", (long long)v->dims[d]);
}

/* NAME_run(inputs..., outputs...), or with_arena: NAME_run_arena(void *arena, inputs..., ...) */
static void emit_typed_signature(FILE *f, const Graph *g, const char *name, char **in_names,
                                 char **out_names, bool with_arena)
{
    fprintf(f, "int %s_run%s(%s", name, with_arena ? "_arena" : "",
            with_arena ? "void *arena, " : "");
    for (int i = 0; i < g->ninputs; i++) {
        print_array_param(f, g->inputs[i], in_names[i], true);
        fprintf(f, ", ");
    }
    for (int i = 0; i < g->noutputs; i++) {
        print_array_param(f, g->outputs[i], out_names[i], false);
        fprintf(f, "%s", i + 1 < g->noutputs ? ", " : ")");
    }
}

/* The API: what --header writes and what the .c file declares before defining it. */
/* NAME_INPUT_<i>_ELEMENTS / _BYTES (or OUTPUT) for each tensor of vs. */
static void emit_size_macros(FILE *f, const char *name, const char *kind, Value **vs, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(f, "#define %s_%s_%d_ELEMENTS %lld\n#define %s_%s_%d_BYTES %lld\n", name, kind, i,
                (long long)value_numel(vs[i]), name, kind, i, (long long)value_bytes(vs[i]));
}

static void emit_api(FILE *f, const Graph *g, const char *name, const ApiSizes *sz, char **in_names,
                     char **out_names)
{
    fprintf(f,
            "/* RAM: the arena (static, or the caller's: aligned to %s_ARENA_ALIGN bytes); flash:\n"
            " * the weights (static const data) and the code. */\n",
            name);
    fprintf(f, "#define %s_ARENA_BYTES %lld\n#define %s_ARENA_ALIGN %d\n", name,
            (long long)sz->arena_bytes, name, API_ARENA_ALIGN);
    fprintf(f, "#define %s_WEIGHT_BYTES %lld\n", name, (long long)sz->weight_bytes);
    emit_size_macros(f, name, "INPUT", g->inputs, g->ninputs);
    emit_size_macros(f, name, "OUTPUT", g->outputs, g->noutputs);
    fprintf(f, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", name, g->ninputs, name,
            g->noutputs);
    fprintf(f, "/* Dispatches (and checks) the model's kernels once; returns 0 on success. Run\n"
               " * calls it if needed, so calling it is optional but moves the cost out of the\n"
               " * first run. The _with_arena form uses the caller's arena as scratch. */\n");
    fprintf(f, "int %s_init(void);\nint %s_init_with_arena(void *arena);\n", name, name);
    fprintf(f,
            "/* Runs the model with a caller-provided arena of %s_ARENA_BYTES bytes (aligned to\n"
            " * %s_ARENA_ALIGN bytes); inputs/outputs in graph order. Returns 0 on success.\n"
            " * %s_run_arena is the typed form. Defining %s_NO_STATIC_ARENA when compiling\n"
            " * the .c file leaves out the static arena and the entry points that use it\n"
            " * (%s_init, %s_run_generic, %s_run): only the _arena forms remain. */\n",
            name, name, name, name, name, name, name);
    fprintf(f,
            "int %s_run_with_arena(void *arena, const void *const inputs[], void *const "
            "outputs[]);\n",
            name);
    fprintf(f, "/* The same with the model's static arena (not reentrant). */\n");
    fprintf(f, "int %s_run_generic(const void *const inputs[], void *const outputs[]);\n", name);
    emit_typed_signature(f, g, name, in_names, out_names, false);
    fprintf(f, ";\n");
    emit_typed_signature(f, g, name, in_names, out_names, true);
    fprintf(f, ";\n");
    fprintf(f, "extern const char *const %s_input_names[], *const %s_output_names[];\n", name,
            name);
    fprintf(f,
            "extern const int32_t %s_input_dtypes[], %s_output_dtypes[]; /* ONNX "
            "TensorProto.DataType */\n",
            name, name);
    fprintf(f, "extern const int32_t %s_input_ranks[], %s_output_ranks[];\n", name, name);
    fprintf(f, "extern const int64_t *const %s_input_shapes[], *const %s_output_shapes[];\n\n",
            name, name);
}

/* ---- libxsmm kernels: dispatch and the init-time check (runtime_min/xsmm_glue.c) ----
 *
 * The check runs each JIT kernel once and compares its bits with the portable product. It
 * must cost no RAM beyond the planned arena: the result c (n columns of ldc floats) goes into
 * the arena,
 * which is free while init runs, and each operand is read either from the check pool, a float
 * weight of the model (static const, so flash on a microcontroller), when the pool holds as
 * many floats as the operand, or else from deterministic data generated into the arena after
 * c. The reference is computed in chunks on the stack (o2c_xsmm_matches), so nothing else is
 * needed. A kernel whose check does not fit the arena is not dispatched: its product keeps the
 * portable kernel, with the same bits. */

/* A weight with full mantissas shows a different summation order as well as generated data
 * does; one of zeros, ones or small integers would hide it. */
static bool full_mantissas(const Value *v)
{
    const uint32_t *u = v->data;
    int64_t n = value_numel(v), full = 0;
    for (int64_t i = 0; i < n; i++)
        full += (u[i] & 0xffu) != 0;
    return n > 0 && full * 4 >= n * 3;
}

/* The largest float weight with full mantissas, or NULL. */
static const Value *check_pool(const Graph *g)
{
    const Value *best = NULL;
    for (int i = 0; i < g->nvalues; i++) {
        const Value *v = g->values[i];
        if (!v->referenced || !v->data || v->view_of || v->dtype != DT_FLOAT)
            continue;
        if ((!best || value_numel(v) > value_numel(best)) && full_mantissas(v))
            best = v;
    }
    return best;
}

/* Where the check finds one operand of a kernel: the pool, or an arena offset (in floats). */
typedef struct CheckOperand {
    bool in_pool;
    int64_t off, floats;
} CheckOperand;

typedef struct KernelCheck {
    CheckOperand a, b;
    int64_t floats; /* arena floats the check uses: the result c, then operands not in the pool */
} KernelCheck;

static CheckOperand check_operand(int64_t floats, int64_t pool_floats, int64_t *used)
{
    CheckOperand o = {floats <= pool_floats, 0, floats};
    if (!o.in_pool) {
        o.off = *used;
        *used += floats;
    }
    return o;
}

static KernelCheck kernel_check(const XsmmKernel *k, int64_t pool_floats)
{
    KernelCheck c = {0};
    c.floats = k->ldc * k->n;
    c.a = check_operand(k->m * k->k, pool_floats, &c.floats);
    c.b = check_operand(k->k * k->n, pool_floats, &c.floats);
    return c;
}

/* Declares the check's operand NAME: the pool, or arena floats filled from SEED. */
static void emit_check_operand(FILE *f, const char *name, const CheckOperand *o, const char *pool,
                               unsigned seed)
{
    if (o->in_pool) {
        fprintf(f, "        const float *%s = %s;\n", name, pool);
        return;
    }
    fprintf(f,
            "        float *%s = (float *)arena + %lld;\n"
            "        o2c_fill(%s, %lld, %uu);\n",
            name, (long long)o->off, name, (long long)o->floats, seed);
}

static void emit_kernel_init(FILE *f, const XsmmKernel *k, int i, const char *pool,
                             int64_t pool_floats, int64_t arena_bytes)
{
    KernelCheck c = kernel_check(k, pool_floats);
    if (k->lda != k->m || k->ldb != k->k || k->ldc < k->m || (k->ldc != k->m && !k->panel))
        fatal("internal error: libxsmm product %d is not packed (o2c_xsmm_run assumes it)", i);
    if (c.floats > arena_bytes / (int64_t)sizeof(float)) {
        fprintf(f,
                "    /* xsmm_kernel%d: its check would need %lld bytes, more than the arena; the\n"
                "     * portable kernel stays. */\n",
                i, (long long)(c.floats * (int64_t)sizeof(float)));
        return;
    }
    fprintf(f, "    {\n");
    emit_check_operand(f, "a", &c.a, pool, 12345u);
    emit_check_operand(f, "b", &c.b, pool, 67890u);
    fprintf(f, "        o2c_xsmm_setup%s(&xsmm_kernel%d, %lld, %lld, %lld, ",
            k->panel ? "_panels" : "", i, (long long)k->m, (long long)k->n, (long long)k->k);
    if (k->panel) /* C's columns ldc apart */
        fprintf(f, "%lld, ", (long long)k->ldc);
    fprintf(f, "a, b, (float *)arena);\n    }\n");
}

/* Each libxsmm product goes through a small function that falls back to the portable kernel
 * when init found the JIT kernel's bits differ (or did not dispatch it). */
static void emit_init(FILE *f, const Emitter *e, int64_t arena_bytes)
{
    if (e->nkernels)
        fprintf(f, "/* ---- runtime_min/xsmm_glue.c ---- */\n%s\n",
                embedded("runtime_min/xsmm_glue.c")->text);
    fprintf(f, "static int %s_ready;\n", e->name);
    for (int i = 0; i < e->nkernels; i++) {
        const XsmmKernel *k = &e->kernels[i];
        fprintf(
            f,
            "static O2cXsmm xsmm_kernel%d; /* m=%lld n=%lld k=%lld%s */\n"
            "static void xsmm_product%d(const float *a, const float *b, float *c)\n{\n"
            "    if (xsmm_kernel%d.kernel[0][0])\n        o2c_xsmm_run(&xsmm_kernel%d, a, b, c);\n",
            i, (long long)k->m, (long long)k->n, (long long)k->k,
            k->panel ? ", a packed in row panels" : "", i, i, i);
        if (k->panel)
            fprintf(f,
                    "    else\n        o2c_xsmm_reference_panels(%lld, %lld, %lld, %lld, "
                    "GEMM_XSMM_PANEL, a, b, c);\n}\n",
                    (long long)k->m, (long long)k->n, (long long)k->k, (long long)k->ldc);
        else
            fprintf(f, "    else\n        o2c_xsmm_reference(%lld, %lld, %lld, a, b, c);\n}\n",
                    (long long)k->m, (long long)k->n, (long long)k->k);
    }
    const Value *pool = e->nkernels ? check_pool(e->graph) : NULL;
    const char *pool_name = pool ? xprintf("%s.f", weight_symbol(e, pool)) : NULL;
    int64_t pool_floats = pool ? value_numel(pool) : 0;
    fprintf(f, "\nint %s_init_with_arena(void *arena)\n{\n", e->name);
    fprintf(f, "    (void)arena; /* unused when no kernel check fits in it */\n");
    if (pool)
        fprintf(f, "    /* The check pool: %s (%lld floats). */\n",
                pool->name[0] ? comment_text(pool->name) : "a folded weight",
                (long long)pool_floats);
    for (int i = 0; i < e->nkernels; i++)
        emit_kernel_init(f, &e->kernels[i], i, pool_name, pool_floats, arena_bytes);
    fprintf(f, "    %s_ready = 1;\n    return 0;\n}\n\n", e->name);
}

/* Declarations of the run function's locals: pointers into the arena, inputs and outputs. */
static void emit_locals(FILE *f, const Graph *g)
{
    for (int i = 0; i < g->nvalues; i++) {
        const Value *v = g->values[i];
        if (!v->referenced || v->data || v->view_of)
            continue;
        const char *ct = dtype_ctype(v->dtype);
        int out_index = -1, in_index = -1;
        for (int j = 0; j < g->noutputs && out_index < 0; j++)
            if (g->outputs[j] == v)
                out_index = j;
        for (int j = 0; j < g->ninputs && in_index < 0; j++)
            if (g->inputs[j] == v)
                in_index = j;
        if (in_index >= 0)
            fprintf(f, "    const %s *%s = (const %s *)inputs[%d];\n", ct, local_name(v), ct,
                    in_index);
        else if (out_index >= 0)
            fprintf(f, "    %s *%s = (%s *)outputs[%d];\n", ct, local_name(v), ct, out_index);
        else
            fprintf(f, "    %s *%s = (%s *)(arena + %lld);\n", ct, local_name(v), ct,
                    (long long)v->offset);
    }
}

/* A graph output the schedule did not write in place (a constant, an input, a view, or the
 * same value listed twice) is copied into the caller's buffer at the end. */
static void emit_output_copies(Emitter *e)
{
    Graph *g = e->graph;
    for (int i = 0; i < g->noutputs; i++) {
        Value *v = g->outputs[i];
        bool first = true;
        for (int j = 0; j < i; j++)
            if (g->outputs[j] == v)
                first = false;
        if (first && !v->data && !v->is_input && !v->view_of)
            continue;
        println(e, "memcpy(outputs[%d], %s, %lld);", i, value_cname(e, v),
                (long long)value_bytes(v));
    }
}

static void emit_node_comment(Emitter *e, const Node *n)
{
    char attrs[256] = "";
    size_t len = 0;
    for (int i = 0; i < n->nattrs && len < sizeof attrs - 40; i++) {
        const Attr *a = &n->attrs[i];
        if (a->type == ATTR_INT)
            len += (size_t)snprintf(attrs + len, sizeof attrs - len, " %s=%lld",
                                    comment_text(a->name), (long long)a->i);
        else if (a->type == ATTR_FLOAT)
            len += (size_t)snprintf(attrs + len, sizeof attrs - len, " %s=%g",
                                    comment_text(a->name), a->f);
        else if (a->type == ATTR_INTS && a->n <= 8) {
            len +=
                (size_t)snprintf(attrs + len, sizeof attrs - len, " %s=[", comment_text(a->name));
            for (int j = 0; j < a->n; j++)
                len += (size_t)snprintf(attrs + len, sizeof attrs - len, "%s%lld", j ? "," : "",
                                        (long long)a->ints[j]);
            len += (size_t)snprintf(attrs + len, sizeof attrs - len, "]");
        }
    }
    println(e, "/* %s '%s'%s */", n->op_type, comment_text(n->name), attrs);
}

static void emit_run_body(Emitter *e)
{
    Graph *g = e->graph;
    e->indent = 1;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (op_has(n->op, OP_VIEW) && !n->op->emit)
            continue;
        emit_node_comment(e, n);
        e->node = n;
        e->node_first_value = g->nvalues;
        if (n->nepilogue && node_has(n, OP_ELEMENTWISE))
            emit_chain(e, n);
        else
            n->op->emit(e, n);
        e->node = NULL;
    }
    emit_output_copies(e);
}

static void copy_stream(FILE *from, FILE *to)
{
    char buf[1 << 14];
    size_t n;
    rewind(from);
    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        fwrite(buf, 1, n, to);
}

/* The typed entry points: NAME_run_arena always, NAME_run (with the static arena) unless
 * NAME_NO_STATIC_ARENA is defined. */
static void emit_typed_body(FILE *f, const Graph *g, const char *name, char **in_names,
                            char **out_names, const char *arena)
{
    fprintf(f, "\n{\n    const void *inputs[%d];\n    void *outputs[%d];\n",
            g->ninputs ? g->ninputs : 1, g->noutputs);
    if (!g->ninputs)
        fprintf(f, "    inputs[0] = 0;\n");
    for (int i = 0; i < g->ninputs; i++)
        fprintf(f, "    inputs[%d] = %s;\n", i, in_names[i]);
    for (int i = 0; i < g->noutputs; i++)
        fprintf(f, "    outputs[%d] = %s;\n", i, out_names[i]);
    fprintf(f, "    return %s_run_with_arena(%s, inputs, outputs);\n}\n\n", name, arena);
}

static void emit_entry_points(FILE *f, const Graph *g, const char *name, char **in_names,
                              char **out_names)
{
    emit_typed_signature(f, g, name, in_names, out_names, true);
    emit_typed_body(f, g, name, in_names, out_names, "arena");
    fprintf(f, "#ifndef %s_NO_STATIC_ARENA\n", name);
    fprintf(f,
            "%s_ARENA_SECTION static union { double align; unsigned char bytes[%s_ARENA_BYTES + "
            "1]; } %s_arena %s_STATIC_ARENA_ALIGN;\n\n",
            name, name, name, name);
    fprintf(f, "int %s_init(void)\n{\n    return %s_init_with_arena(%s_arena.bytes);\n}\n\n", name,
            name, name);
    fprintf(f, "int %s_run_generic(const void *const inputs[], void *const outputs[])\n{\n", name);
    fprintf(f, "    return %s_run_with_arena(%s_arena.bytes, inputs, outputs);\n}\n\n", name, name);
    emit_typed_signature(f, g, name, in_names, out_names, false);
    emit_typed_body(f, g, name, in_names, out_names, xprintf("%s_arena.bytes", name));
    fprintf(f, "#endif\n\n");
}

static void emit_harness(FILE *f, const char *name)
{
    static const char *const fields[][2] = {{"NUM_INPUTS", "NUM_INPUTS"},
                                            {"NUM_OUTPUTS", "NUM_OUTPUTS"},
                                            {"INPUT_NAMES", "input_names"},
                                            {"OUTPUT_NAMES", "output_names"},
                                            {"INPUT_DTYPES", "input_dtypes"},
                                            {"OUTPUT_DTYPES", "output_dtypes"},
                                            {"INPUT_RANKS", "input_ranks"},
                                            {"OUTPUT_RANKS", "output_ranks"},
                                            {"INPUT_SHAPES", "input_shapes"},
                                            {"OUTPUT_SHAPES", "output_shapes"},
                                            {"INIT", "init"},
                                            {"RUN", "run_generic"}};
    fprintf(f, "/* ---- test harness (--harness) ---- */\n");
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        fprintf(f, "#define O2C_MODEL_%s %s_%s\n", fields[i][0], name, fields[i][1]);
    fprintf(f, "%s\n%s\n", embedded("runtime_min/tensor_pb.c")->text,
            embedded("runtime_min/harness.c")->text);
}

static void check_printable_names(Value **vs, int n)
{
    for (int i = 0; i < n; i++)
        for (const char *p = vs[i]->name; *p; p++)
            if (!isprint((unsigned char)*p) || *p == '"' || *p == '\\' || *p == '?')
                fatal("input/output name '%s' has characters onnx2c does not put in a C string",
                      vs[i]->name);
}

/* --weights: the weights' own translation unit. */
static void emit_weights_file(FILE *f, const Model *m, const Emitter *e)
{
    const char *model_c = strcmp(e->opt->output_path, "-")
                              ? comment_text(file_name(e->opt->output_path))
                              : xprintf("%s.c", e->name);
    fprintf(f,
            "/* Weights of the model compiled by onnx2c " ONNX2C_VERSION " from %s (--weights):\n"
            " * compile this file and %s, and link both. %s_WEIGHTS_SECTION, when defined,\n"
            " * places every weight (e.g. "
            "-D'%s_WEIGHTS_SECTION=__attribute__((section(\".qspi\")))').\n"
            " * Do not edit. May be used without restriction (see the onnx2c LICENSE). */\n"
            "#include <stdint.h>\n#ifndef %s_WEIGHTS_SECTION\n#define %s_WEIGHTS_SECTION\n"
            "#endif\n",
            comment_text(file_name(m->path)), model_c, e->name, e->name, e->name, e->name);
    emit_line_align_hook(f, e, "WEIGHT_ALIGN");
    fprintf(f, "\n");
    int n = 0;
    for (int i = 0; i < e->graph->nvalues; i++)
        if (e->graph->values[i]->referenced && e->graph->values[i]->data)
            emit_weight(f, e, e->graph->values[i]), n++;
    if (!n) /* ISO C forbids an empty translation unit */
        fprintf(f, "typedef int %s_no_weights;\n", e->name);
}

void emit_model(Model *m, const Options *opt, const ArenaPlan *plan, const char *name, FILE *out,
                FILE *header, FILE *weights)
{
    Graph *g = m->graph;
    check_printable_names(g->inputs, g->ninputs);
    check_printable_names(g->outputs, g->noutputs);
    FILE *body = tmpfile();
    if (!body)
        fatal("cannot create a temporary file");
    Emitter e = {.out = body, .opt = opt, .graph = g, .name = name};
    emit_run_body(&e);

    char **in_names = param_names(g->inputs, g->ninputs, NULL, 0);
    char **out_names = param_names(g->outputs, g->noutputs, in_names, g->ninputs);
    emit_preamble(out, m, opt, &e);
    int64_t arena_bytes = plan->arena_bytes; /* the kernel checks fit in it (emit_init) */
    ApiSizes sz = {arena_bytes, emitted_weight_bytes(g)};
    emit_api(out, g, name, &sz, in_names, out_names);
    if (header) {
        fprintf(header,
                "/* API of the model compiled by onnx2c " ONNX2C_VERSION " from %s. */\n"
                "#ifndef %s_H\n#define %s_H\n#include <stdint.h>\n\n"
                "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
                comment_text(file_name(m->path)), name, name);
        emit_api(header, g, name, &sz, in_names, out_names);
        fprintf(header, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
    }
    emit_tensor_tables(out, name, "input", g->inputs, g->ninputs);
    emit_tensor_tables(out, name, "output", g->outputs, g->noutputs);
    fputc('\n', out);
    if (weights) {
        fprintf(out, "/* The weights, defined in %s (--weights). */\n",
                comment_text(file_name(opt->weights_path)));
        emit_weights_file(weights, m, &e);
    }
    for (int i = 0; i < g->nvalues; i++)
        if (g->values[i]->referenced && g->values[i]->data) {
            if (weights)
                declare_weight(out, &e, g->values[i]);
            else
                emit_weight(out, &e, g->values[i]);
        }
    fputc('\n', out);
    long code_start = ftell(out); /* the code, for the report's flash estimate */
    emit_templates(out, g);
    emit_init(out, &e, arena_bytes);

    fprintf(out,
            "int %s_run_with_arena(void *arena_ptr, const void *const inputs[], "
            "void *const outputs[])\n{\n",
            name);
    fprintf(out, "    unsigned char *arena = (unsigned char *)arena_ptr;\n");
    fprintf(out, "    (void)arena;\n    (void)inputs;\n    (void)outputs;\n");
    fprintf(out, "    if (!%s_ready && %s_init_with_arena(arena) != 0)\n        return -1;\n", name,
            name);
    emit_locals(out, g);
    copy_stream(body, out);
    fclose(body);
    fprintf(out, "    return 0;\n}\n\n");
    emit_entry_points(out, g, name, in_names, out_names);
    m->code_text_bytes = code_start >= 0 && ftell(out) >= code_start ? ftell(out) - code_start : 0;
    if (opt->harness)
        emit_harness(out, name);
}
