/* Memory, errors and checked arithmetic shared by every stage.
 *
 * Allocations are chained in one list so that the compiler can release everything at exit
 * (and so that leak checkers stay quiet on error paths that exit early). */
#include "onnx2c.h"

#include <stdlib.h>
#include <string.h>

typedef struct Block {
    struct Block *prev, *next;
    max_align_t align[];
} Block;

Compiler *cc;

Limits default_limits(void)
{
    return (Limits){
        .max_depth = 64,
        .max_nodes = 250000,
        .max_folded_bytes = (int64_t)64 << 20,
        .max_total_folded_bytes = (int64_t)256 << 20,
        .max_arena_bytes = (int64_t)4 << 30,
    };
}

static void out_of_memory(void)
{
    fatal("out of memory");
}

void *xcalloc(size_t n, size_t size)
{
    if (size && n > (SIZE_MAX - sizeof(Block)) / size)
        out_of_memory();
    Block *b = calloc(1, sizeof(Block) + n * size);
    if (!b)
        out_of_memory();
    b->next = cc->blocks;
    if (cc->blocks)
        cc->blocks->prev = b;
    cc->blocks = b;
    return b->align;
}

void *xrealloc(void *p, size_t size)
{
    if (!p)
        return xcalloc(1, size);
    Block *old = (Block *)((char *)p - offsetof(Block, align));
    Block *b = realloc(old, sizeof(Block) + size);
    if (!b)
        out_of_memory();
    if (b->prev)
        b->prev->next = b;
    else
        cc->blocks = b;
    if (b->next)
        b->next->prev = b;
    return b->align;
}

static void free_all(void)
{
    while (cc->blocks) {
        Block *next = cc->blocks->next;
        free(cc->blocks);
        cc->blocks = next;
    }
}

void compiler_begin(Compiler *c)
{
    if (!c->model_path)
        c->model_path = "<no model>";
    cc = c;
}

/* Frees what the compilation holds; the next one starts from a zeroed Compiler. */
void compiler_end(Compiler *c)
{
    unload_model();
    free_all();
    if (cc == c)
        cc = NULL;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xcalloc(1, n);
    memcpy(d, s, n);
    return d;
}

char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xcalloc(1, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Names come from the model file: control bytes (a newline, an escape sequence) are written as
 * \xNN so that an error stays one line and cannot drive the terminal. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
}

/* Where an error goes: exit status 1, or back to the caller that set cc->fail_jump (main
 * removes its temporary outputs; the fuzz target runs the pipeline many times in one
 * process). */
static _Noreturn void fail_exit(void)
{
    if (cc && cc->fail_jump)
        longjmp(*cc->fail_jump, 1);
    exit(1);
}

static _Noreturn void report_error(const char *prefix, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (cc && cc->silent_errors)
        fail_exit();
    fputs("onnx2c: error: ", stderr);
    put_escaped(stderr, cc && cc->model_path ? cc->model_path : "<no model>");
    fputs(": ", stderr);
    put_escaped(stderr, prefix);
    put_escaped(stderr, buf);
    fputc('\n', stderr);
    fail_exit();
}

_Noreturn void fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_error("", fmt, ap);
}

/* onnx2c: error: FILE: node 'NAME' (OpType, opset N): what is wrong */
_Noreturn void fatal_at(const Node *n, const char *fmt, ...)
{
    char prefix[512];
    snprintf(prefix, sizeof prefix, "node '%s' (%s, opset %d): ", n->name ? n->name : "",
             n->op_type, n->opset);
    va_list ap;
    va_start(ap, fmt);
    report_error(prefix, fmt, ap);
}

_Noreturn void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "onnx2c: usage error: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fprintf(stderr, "usage: onnx2c MODEL.onnx -o OUT.c [options]; onnx2c --help lists them\n");
    va_end(ap);
    exit(2);
}

/* Sizes come from the model file, so products of dims are checked rather than trusted. */
int64_t checked_mul(const Node *n, int64_t a, int64_t b)
{
    int64_t r;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r) || r > ((int64_t)1 << 48)) {
        if (n)
            fatal_at(n, "tensor size overflows (%lld x %lld)", (long long)a, (long long)b);
        fatal("tensor size overflows (%lld x %lld)", (long long)a, (long long)b);
    }
    return r;
}

int64_t checked_add(const Node *n, int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r) || r > ((int64_t)1 << 48)) {
        if (n)
            fatal_at(n, "size overflows (%lld + %lld)", (long long)a, (long long)b);
        fatal("size overflows (%lld + %lld)", (long long)a, (long long)b);
    }
    return r;
}
