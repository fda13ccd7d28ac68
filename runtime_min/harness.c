/* harness.c - main() of a model compiled with onnx2c --harness.
 *
 *   prog [--rtol R] [--atol A] [--exact] [--require-outputs] [--write-outputs DIR] [--bench N]
 *        DIR...
 *
 * Each DIR holds input_<i>.pb (one per model input, graph order) and optionally output_<i>.pb,
 * serialized TensorProtos as in the ONNX backend test suite. The harness loads the inputs, runs
 * the model, and compares each output that has a file as numpy.allclose does
 * (|got - want| <= atol + rtol * |want|, NaN equals NaN, infinities must match exactly) for
 * float types, exactly for integers and bool; --exact compares bits for all types. A missing
 * output_<i>.pb is "not compared", or with --require-outputs an error (so a test cannot pass
 * without its reference). A missing input_<i>.pb, or an input_<i>.pb or output_<i>.pb beyond
 * the model's inputs or outputs, is an error: it means the data is not for this model. Exit
 * status: 0 all compared outputs match, 1 a mismatch, 2 unreadable, malformed, missing or extra
 * data, a model error or a usage error (2 wins over 1). --bench N then times N runs after one
 * warm-up run, on the last loaded inputs (zeros when no DIR is given), and also reports the time
 * of the one init call. --write-outputs DIR writes output_<i>.pb files (after each data DIR, so
 * the last one's outputs remain).
 *
 * The compiler embeds this text after the model code and after tensor_pb.c, in one file (it
 * uses tensor_pb.c's functions and O2C_DTYPE_* names). It sees the model only through these
 * macros, defined by the generated file before this text:
 *   O2C_MODEL_NUM_INPUTS, O2C_MODEL_NUM_OUTPUTS       int constants
 *   O2C_MODEL_INPUT_NAMES, O2C_MODEL_OUTPUT_NAMES     const char *const []
 *   O2C_MODEL_INPUT_DTYPES, O2C_MODEL_OUTPUT_DTYPES   const int32_t [] (TensorProto.DataType)
 *   O2C_MODEL_INPUT_RANKS, O2C_MODEL_OUTPUT_RANKS     const int32_t []
 *   O2C_MODEL_INPUT_SHAPES, O2C_MODEL_OUTPUT_SHAPES   const int64_t *const [] (dims per tensor)
 *   O2C_MODEL_INIT    int f(void), 0 on success
 *   O2C_MODEL_RUN     int f(const void *const inputs[], void *const outputs[]), 0 on success
 * A model without inputs still needs the input tables as expressions of those types (they are
 * never indexed; ISO C has no empty arrays, so a one-element dummy does). The generated file
 * defines _POSIX_C_SOURCE at its top, for clock_gettime and mkdir.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Exit statuses, ordered: the worst one seen is the program's status. */
enum o2c_status { O2C_STATUS_OK = 0, O2C_STATUS_MISMATCH = 1, O2C_STATUS_ERROR = 2 };

/* Upper bound of --bench N, so the table of timings stays a reasonable allocation. */
#define O2C_BENCH_MAX_RUNS 10000000L

/* A model input or output: its table entries and a host buffer of its size. */
typedef struct o2c_port {
    const char *name;
    int32_t dtype;
    int32_t rank;
    const int64_t *shape;
    size_t count; /* elements */
    void *buf;
} o2c_port;

typedef struct o2c_options {
    double rtol, atol;
    int exact;
    int require_outputs;   /* a missing output_<i>.pb is an error, not "not compared" */
    const char *write_dir; /* NULL: do not write */
    long bench_runs;       /* 0: no benchmark */
    int first_dir;         /* argv index of the first data directory */
} o2c_options;

/* Ports plus the pointer arrays O2C_MODEL_RUN takes (each sized n + 1: C has no empty arrays). */
typedef struct o2c_harness {
    const char *prog;
    o2c_port *in, *out;
    const void **in_ptrs;
    void **out_ptrs;
} o2c_harness;

static void o2c_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: error: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void o2c_usage(const char *prog)
{
    printf("usage: %s [--rtol R] [--atol A] [--exact] [--require-outputs] [--write-outputs DIR] "
           "[--bench N] DIR...\n",
           prog);
}

/* ---- command line ---- */

/* Value of option `name` at argv[*i], given as "--name VALUE" or "--name=VALUE"; NULL when
 * argv[*i] is another option. Sets *missing when the value is absent. */
static const char *o2c_option_value(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

static int o2c_parse_tolerance(const char *s, double *out)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (end == s || *end != '\0' || errno || !(v >= 0) || isinf(v))
        return -1;
    *out = v;
    return 0;
}

static int o2c_parse_runs(const char *s, long *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno || v < 1 || v > O2C_BENCH_MAX_RUNS)
        return -1;
    *out = v;
    return 0;
}

/* Returns 0 to go on, 1 after --help, -1 on a usage error (already reported). */
static int o2c_parse_args(const char *prog, int argc, char **argv, o2c_options *opt)
{
    int i, missing = 0;
    opt->rtol = 1e-3;
    opt->atol = 1e-5;
    opt->exact = 0;
    opt->require_outputs = 0;
    opt->write_dir = NULL;
    opt->bench_runs = 0;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *v;
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            o2c_usage(prog);
            return 1;
        } else if (strcmp(argv[i], "--exact") == 0) {
            opt->exact = 1;
        } else if (strcmp(argv[i], "--require-outputs") == 0) {
            opt->require_outputs = 1;
        } else if ((v = o2c_option_value(argc, argv, &i, "--rtol", &missing)) != NULL) {
            if (o2c_parse_tolerance(v, &opt->rtol)) {
                o2c_error(prog, "--rtol needs a number >= 0, not '%s'", v);
                return -1;
            }
        } else if ((v = o2c_option_value(argc, argv, &i, "--atol", &missing)) != NULL) {
            if (o2c_parse_tolerance(v, &opt->atol)) {
                o2c_error(prog, "--atol needs a number >= 0, not '%s'", v);
                return -1;
            }
        } else if ((v = o2c_option_value(argc, argv, &i, "--bench", &missing)) != NULL) {
            if (o2c_parse_runs(v, &opt->bench_runs)) {
                o2c_error(prog, "--bench needs a run count from 1 to %ld, not '%s'",
                          O2C_BENCH_MAX_RUNS, v);
                return -1;
            }
        } else if ((v = o2c_option_value(argc, argv, &i, "--write-outputs", &missing)) != NULL) {
            opt->write_dir = v;
        } else {
            o2c_error(prog,
                      missing ? "%s needs a value (see --help)"
                              : "unknown option '%s' (see --help)",
                      argv[i]);
            return -1;
        }
    }
    opt->first_dir = i;
    if (i >= argc && opt->bench_runs == 0) {
        o2c_error(prog, "no test data directory given (see --help)");
        return -1;
    }
    return 0;
}

/* ---- model ports ---- */

static void o2c_format_shape(char *buf, size_t size, int32_t rank, const int64_t *dims)
{
    size_t used = 0;
    int32_t d;
    buf[0] = '\0';
    for (d = 0; d < rank && used < size; d++)
        used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, d ? "," : "[", dims[d]);
    if (used < size)
        snprintf(buf + used, size - used, "%s", rank ? "]" : "[]");
}

static int o2c_port_init(o2c_port *p, const char *name, int32_t dtype, int32_t rank,
                         const int64_t *shape)
{
    size_t size = o2c_dtype_size(dtype), count = 1;
    int32_t d;
    p->name = name;
    p->dtype = dtype;
    p->rank = rank;
    p->shape = shape;
    p->buf = NULL;
    if (size == 0 || rank < 0 || rank > O2C_TENSOR_MAX_RANK)
        return -1;
    for (d = 0; d < rank; d++) {
        if (shape[d] < 0 ||
            (shape[d] > 0 && count > 0 && (uint64_t)shape[d] > SIZE_MAX / size / count))
            return -1;
        count *= (size_t)shape[d];
    }
    p->count = count;
    /* Zeroed, so --bench without a data directory runs on defined inputs. */
    p->buf = calloc(count ? count : 1, size);
    return p->buf ? 0 : -1;
}

static void o2c_harness_free(o2c_harness *h)
{
    int i;
    for (i = 0; h->in && i < O2C_MODEL_NUM_INPUTS; i++)
        free(h->in[i].buf);
    for (i = 0; h->out && i < O2C_MODEL_NUM_OUTPUTS; i++)
        free(h->out[i].buf);
    free(h->in);
    free(h->out);
    free(h->in_ptrs);
    free(h->out_ptrs);
}

static int o2c_harness_init(o2c_harness *h, const char *prog)
{
    int i;
    h->prog = prog;
    h->in = (o2c_port *)calloc(O2C_MODEL_NUM_INPUTS + 1, sizeof *h->in);
    h->out = (o2c_port *)calloc(O2C_MODEL_NUM_OUTPUTS + 1, sizeof *h->out);
    h->in_ptrs = (const void **)calloc(O2C_MODEL_NUM_INPUTS + 1, sizeof *h->in_ptrs);
    h->out_ptrs = (void **)calloc(O2C_MODEL_NUM_OUTPUTS + 1, sizeof *h->out_ptrs);
    if (!h->in || !h->out || !h->in_ptrs || !h->out_ptrs) {
        o2c_error(prog, "out of memory");
        return -1;
    }
    for (i = 0; i < O2C_MODEL_NUM_INPUTS; i++) {
        if (o2c_port_init(&h->in[i], O2C_MODEL_INPUT_NAMES[i], O2C_MODEL_INPUT_DTYPES[i],
                          O2C_MODEL_INPUT_RANKS[i], O2C_MODEL_INPUT_SHAPES[i])) {
            o2c_error(prog, "model input %d '%s': unsupported type or shape, or out of memory", i,
                      O2C_MODEL_INPUT_NAMES[i]);
            return -1;
        }
        h->in_ptrs[i] = h->in[i].buf;
    }
    for (i = 0; i < O2C_MODEL_NUM_OUTPUTS; i++) {
        if (o2c_port_init(&h->out[i], O2C_MODEL_OUTPUT_NAMES[i], O2C_MODEL_OUTPUT_DTYPES[i],
                          O2C_MODEL_OUTPUT_RANKS[i], O2C_MODEL_OUTPUT_SHAPES[i])) {
            o2c_error(prog, "model output %d '%s': unsupported type or shape, or out of memory", i,
                      O2C_MODEL_OUTPUT_NAMES[i]);
            return -1;
        }
        h->out_ptrs[i] = h->out[i].buf;
    }
    return 0;
}

/* "DIR/PREFIX_I.pb", malloc'd. */
static char *o2c_data_path(const char *dir, const char *prefix, int i)
{
    size_t size = strlen(dir) + strlen(prefix) + 32;
    char *path = (char *)malloc(size);
    if (path)
        snprintf(path, size, "%s/%s_%d.pb", dir, prefix, i);
    return path;
}

static int o2c_same_shape(const o2c_tensor *t, const o2c_port *p)
{
    int32_t d;
    if (t->rank != p->rank)
        return 0;
    for (d = 0; d < p->rank; d++)
        if (t->dims[d] != p->shape[d])
            return 0;
    return 1;
}

/* ---- the files of a data directory ---- */

/* Index k of a file named PREFIX_<k>.pb; -1 when the name is of that form but k is not written
 * the way the harness reads it (leading zero, too large), -2 when it is another file. */
static long o2c_file_index(const char *name, const char *prefix)
{
    size_t n = strlen(prefix), i;
    long k = 0;
    if (strncmp(name, prefix, n) != 0 || name[n] != '_')
        return -2;
    name += n + 1;
    for (i = 0; name[i] >= '0' && name[i] <= '9'; i++)
        k = k > 99999999L ? 100000000L : k * 10 + (name[i] - '0');
    if (i == 0 || strcmp(name + i, ".pb") != 0)
        return -2;
    return (name[0] == '0' && i > 1) || k >= 100000000L ? -1 : k;
}

/* Keeps in `first` the alphabetically first of the names seen, so the report is the same
 * whatever order readdir gives. */
static void o2c_keep_first(char *first, size_t size, const char *name)
{
    if (first[0] == '\0' || strcmp(name, first) < 0)
        snprintf(first, size, "%s", name);
}

/* The data must be for this model: an input_<i>.pb for every input, and no input_<i>.pb or
 * output_<i>.pb beyond the model's inputs and outputs (such a file is a sign of data for
 * another model, or of inputs fed in the wrong order). One error line for the first problem. */
static int o2c_check_files(const o2c_harness *h, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char extra_in[300] = "", extra_out[300] = "";
    unsigned char *have;
    int i;
    if (!d) {
        o2c_error(h->prog, "%s: cannot open directory: %s", dir, strerror(errno));
        return O2C_STATUS_ERROR;
    }
    have = (unsigned char *)calloc(O2C_MODEL_NUM_INPUTS + 1, 1);
    if (!have) {
        closedir(d);
        o2c_error(h->prog, "out of memory");
        return O2C_STATUS_ERROR;
    }
    while ((e = readdir(d)) != NULL) {
        long k = o2c_file_index(e->d_name, "input");
        if (k >= 0 && k < O2C_MODEL_NUM_INPUTS)
            have[k] = 1;
        else if (k != -2)
            o2c_keep_first(extra_in, sizeof extra_in, e->d_name);
        k = o2c_file_index(e->d_name, "output");
        if (k != -2 && !(k >= 0 && k < O2C_MODEL_NUM_OUTPUTS))
            o2c_keep_first(extra_out, sizeof extra_out, e->d_name);
    }
    closedir(d);
    for (i = 0; i < O2C_MODEL_NUM_INPUTS && have[i]; i++)
        ;
    free(have);
    if (i < O2C_MODEL_NUM_INPUTS) {
        o2c_error(h->prog, "%s/input_%d.pb: missing: model input %d '%s' has no file", dir, i, i,
                  O2C_MODEL_INPUT_NAMES[i]);
    } else if (extra_in[0]) {
        o2c_error(h->prog, "%s/%s: extra file: the model has %d input%s (input_0.pb ...)", dir,
                  extra_in, O2C_MODEL_NUM_INPUTS, O2C_MODEL_NUM_INPUTS == 1 ? "" : "s");
    } else if (extra_out[0]) {
        o2c_error(h->prog, "%s/%s: extra file: the model has %d output%s (output_0.pb ...)", dir,
                  extra_out, O2C_MODEL_NUM_OUTPUTS, O2C_MODEL_NUM_OUTPUTS == 1 ? "" : "s");
    } else {
        return O2C_STATUS_OK;
    }
    return O2C_STATUS_ERROR;
}

/* ---- inputs ---- */

static int o2c_load_input(const o2c_harness *h, const char *dir, int i)
{
    const o2c_port *p = &h->in[i];
    char *path = o2c_data_path(dir, "input", i);
    char have[512], want[512];
    o2c_tensor t;
    const char *why;
    int status = O2C_STATUS_ERROR;
    if (!path) {
        o2c_error(h->prog, "out of memory");
        return O2C_STATUS_ERROR;
    }
    why = o2c_tensor_read_file(path, &t);
    if (why) {
        o2c_error(h->prog, "%s: %s", path, why);
    } else if (t.dtype != p->dtype) {
        o2c_error(h->prog, "%s: data_type %s, but model input %d '%s' is %s", path,
                  o2c_dtype_name(t.dtype), i, p->name, o2c_dtype_name(p->dtype));
    } else if (!o2c_same_shape(&t, p) || t.count != p->count) {
        o2c_format_shape(have, sizeof have, t.rank, t.dims);
        o2c_format_shape(want, sizeof want, p->rank, p->shape);
        o2c_error(h->prog, "%s: shape %s, but model input %d '%s' has shape %s", path, have, i,
                  p->name, want);
    } else {
        memcpy(p->buf, t.data, t.count * o2c_dtype_size(t.dtype));
        status = O2C_STATUS_OK;
    }
    o2c_tensor_free(&t);
    free(path);
    return status;
}

/* ---- comparison ---- */

static int o2c_is_float(int32_t dtype)
{
    return dtype == O2C_DTYPE_FLOAT || dtype == O2C_DTYPE_DOUBLE || dtype == O2C_DTYPE_FLOAT16 ||
           dtype == O2C_DTYPE_BFLOAT16 ||
           (dtype >= O2C_DTYPE_FLOAT8E4M3FN && dtype <= O2C_DTYPE_FLOAT8E5M2FNUZ) ||
           dtype == O2C_DTYPE_FLOAT4E2M1 || dtype == O2C_DTYPE_FLOAT8E8M0;
}

static float o2c_float_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* IEEE binary16 -> binary32, exact (every half is a float). */
static float o2c_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) /* inf, NaN */
        return o2c_float_from_bits(sign | 0x7f800000 | man << 13);
    if (exp != 0)
        return o2c_float_from_bits(sign | (exp + 112) << 23 | man << 13);
    if (man == 0)
        return o2c_float_from_bits(sign);
    /* Subnormal half: shift the mantissa up to its leading 1, a normal float. */
    exp = 113;
    while (!(man & 0x400)) {
        man <<= 1;
        exp--;
    }
    return o2c_float_from_bits(sign | exp << 23 | (man & 0x3ff) << 13);
}

/* Element i of a float-type buffer, widened to double (exactly). */
static double o2c_float_value(int32_t dtype, const void *data, size_t i)
{
    switch (dtype) {
    case O2C_DTYPE_DOUBLE: return ((const double *)data)[i];
    case O2C_DTYPE_FLOAT16: return o2c_half_to_float(((const uint16_t *)data)[i]);
    case O2C_DTYPE_BFLOAT16: /* the top half of a float */
        return o2c_float_from_bits((uint32_t)((const uint16_t *)data)[i] << 16);
    case O2C_DTYPE_FLOAT: return ((const float *)data)[i];
    default: /* the 8-bit and 4-bit float codes */
        return o2c_low_float_value(dtype, ((const uint8_t *)data)[i]);
    }
}

/* Element i of an integer or bool buffer other than uint64, widened to int64 (exactly). */
static int64_t o2c_int_value(int32_t dtype, const void *data, size_t i)
{
    switch (dtype) {
    case O2C_DTYPE_INT8:
    case O2C_DTYPE_INT4:
    case O2C_DTYPE_INT2: return ((const int8_t *)data)[i];
    case O2C_DTYPE_UINT8:
    case O2C_DTYPE_UINT4:
    case O2C_DTYPE_UINT2:
    case O2C_DTYPE_BOOL: return ((const uint8_t *)data)[i];
    case O2C_DTYPE_INT16: return ((const int16_t *)data)[i];
    case O2C_DTYPE_UINT16: return ((const uint16_t *)data)[i];
    case O2C_DTYPE_INT32: return ((const int32_t *)data)[i];
    case O2C_DTYPE_UINT32: return ((const uint32_t *)data)[i];
    default: return ((const int64_t *)data)[i];
    }
}

/* numpy.allclose for one pair: |got - want| <= atol + rtol * |want|, where NaN equals NaN and an
 * infinity only itself (the errors of such pairs are 0 or infinite). The relative error is left
 * at 0 where want == 0: it is undefined there, and atol decides. */
static int o2c_close(double got, double want, const o2c_options *opt, double *abs_err,
                     double *rel_err)
{
    double abs_want = want < 0 ? -want : want;
    if (isnan(got) || isnan(want) || isinf(got) || isinf(want)) {
        int same = (isnan(got) && isnan(want)) || got == want;
        *abs_err = *rel_err = same ? 0 : INFINITY;
        return same;
    }
    *abs_err = got > want ? got - want : want - got;
    *rel_err = abs_want > 0 ? *abs_err / abs_want : 0;
    return *abs_err <= opt->atol + opt->rtol * abs_want;
}

/* Errors of an integer pair; subtracted in uint64, exact for any two int64 or uint64 values
 * (a difference in double could round to 0). */
static void o2c_int_error(int32_t dtype, const void *got, const void *want, size_t i,
                          double *abs_err, double *rel_err)
{
    uint64_t diff;
    double abs_want;
    if (dtype == O2C_DTYPE_UINT64) {
        uint64_t g = ((const uint64_t *)got)[i], w = ((const uint64_t *)want)[i];
        diff = g > w ? g - w : w - g;
        abs_want = (double)w;
    } else {
        int64_t g = o2c_int_value(dtype, got, i), w = o2c_int_value(dtype, want, i);
        diff = g > w ? (uint64_t)g - (uint64_t)w : (uint64_t)w - (uint64_t)g;
        abs_want = w < 0 ? -(double)w : (double)w;
    }
    *abs_err = (double)diff;
    *rel_err = abs_want > 0 ? *abs_err / abs_want : 0;
}

typedef struct o2c_comparison {
    size_t mismatches, first;
    double max_abs, max_rel;
} o2c_comparison;

/* Float types within tolerance, integers and bool exactly; --exact: every type bit for bit. */
static void o2c_compare(const o2c_port *p, const void *want, const o2c_options *opt,
                        o2c_comparison *c)
{
    size_t size = o2c_dtype_size(p->dtype), i;
    memset(c, 0, sizeof *c);
    for (i = 0; i < p->count; i++) {
        double abs_err, rel_err;
        int ok;
        if (o2c_is_float(p->dtype)) {
            ok = o2c_close(o2c_float_value(p->dtype, p->buf, i), o2c_float_value(p->dtype, want, i),
                           opt, &abs_err, &rel_err);
        } else {
            o2c_int_error(p->dtype, p->buf, want, i, &abs_err, &rel_err);
            ok = abs_err == 0;
        }
        if (opt->exact)
            ok = memcmp((const char *)p->buf + i * size, (const char *)want + i * size, size) == 0;
        c->max_abs = abs_err > c->max_abs ? abs_err : c->max_abs;
        c->max_rel = rel_err > c->max_rel ? rel_err : c->max_rel;
        if (!ok && c->mismatches++ == 0)
            c->first = i;
    }
}

/* Element i for a message; with --exact, float types also show their bits. */
static void o2c_format_value(char *buf, size_t size, int32_t dtype, const void *data, size_t i,
                             int exact)
{
    if (dtype == O2C_DTYPE_UINT64) {
        snprintf(buf, size, "%" PRIu64, ((const uint64_t *)data)[i]);
    } else if (!o2c_is_float(dtype)) {
        snprintf(buf, size, "%" PRId64, o2c_int_value(dtype, data, i));
    } else {
        size_t width = o2c_dtype_size(dtype);
        int used = snprintf(buf, size, dtype == O2C_DTYPE_DOUBLE ? "%.17g" : "%.9g",
                            o2c_float_value(dtype, data, i));
        if (exact && used > 0 && (size_t)used < size)
            snprintf(buf + used, size - used, " (0x%0*" PRIx64 ")", (int)(2 * width),
                     o2c_get_bits(data, i, width));
    }
}

static void o2c_report_mismatch(const o2c_port *p, const void *want, const o2c_comparison *c,
                                int exact)
{
    char got_s[64], want_s[64];
    o2c_format_value(got_s, sizeof got_s, p->dtype, p->buf, c->first, exact);
    o2c_format_value(want_s, sizeof want_s, p->dtype, want, c->first, exact);
    printf("MISMATCH (%lu of %lu elements, first at index %lu: got %s want %s)\n",
           (unsigned long)c->mismatches, (unsigned long)p->count, (unsigned long)c->first, got_s,
           want_s);
}

/* Compares output i with DIR/output_<i>.pb when that file exists; prints one line. */
static int o2c_check_output(const o2c_harness *h, const char *dir, int i, const o2c_options *opt)
{
    const o2c_port *p = &h->out[i];
    char *path = o2c_data_path(dir, "output", i);
    char have[512], want[512];
    o2c_tensor t;
    o2c_comparison c;
    const char *why;
    FILE *probe;
    int status = O2C_STATUS_MISMATCH;
    if (!path) {
        o2c_error(h->prog, "out of memory");
        return O2C_STATUS_ERROR;
    }
    /* Expected outputs are optional: only a file that does not exist is skipped; any other
     * failure to open it is reported by the reader below. */
    errno = 0;
    probe = fopen(path, "rb");
    if (!probe && errno == ENOENT) {
        if (opt->require_outputs) {
            o2c_error(h->prog, "%s: output %d '%s': no output_%d.pb (--require-outputs)", dir, i,
                      p->name, i);
            status = O2C_STATUS_ERROR;
        } else {
            printf("%s: output %d '%s': no output_%d.pb, not compared\n", dir, i, p->name, i);
            status = O2C_STATUS_OK;
        }
        free(path);
        return status;
    }
    if (probe)
        fclose(probe);
    why = o2c_tensor_read_file(path, &t);
    if (why) {
        o2c_error(h->prog, "%s: %s", path, why);
        status = O2C_STATUS_ERROR;
    } else if (t.dtype != p->dtype || !o2c_same_shape(&t, p)) {
        o2c_format_shape(have, sizeof have, p->rank, p->shape);
        o2c_format_shape(want, sizeof want, t.rank, t.dims);
        printf("%s: output %d '%s': MISMATCH (model gives %s %s, expected %s %s)\n", dir, i,
               p->name, o2c_dtype_name(p->dtype), have, o2c_dtype_name(t.dtype), want);
    } else {
        o2c_compare(p, t.data, opt, &c);
        printf("%s: output %d '%s': max_abs_err=%.3g max_rel_err=%.3g ", dir, i, p->name, c.max_abs,
               c.max_rel);
        if (c.mismatches == 0) {
            printf("ok\n");
            status = O2C_STATUS_OK;
        } else {
            o2c_report_mismatch(p, t.data, &c, opt->exact);
        }
    }
    o2c_tensor_free(&t);
    free(path);
    return status;
}

/* ---- writing outputs ---- */

static int o2c_write_outputs(const o2c_harness *h, const char *dir)
{
    int i;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        o2c_error(h->prog, "%s: cannot create directory: %s", dir, strerror(errno));
        return O2C_STATUS_ERROR;
    }
    for (i = 0; i < O2C_MODEL_NUM_OUTPUTS; i++) {
        const o2c_port *p = &h->out[i];
        char *path = o2c_data_path(dir, "output", i);
        const char *why =
            path ? o2c_tensor_write_file(path, p->name, p->dtype, p->rank, p->shape, p->buf)
                 : "out of memory";
        if (why) {
            o2c_error(h->prog, "%s: %s", path ? path : dir, why);
            free(path);
            return O2C_STATUS_ERROR;
        }
        free(path);
    }
    return O2C_STATUS_OK;
}

/* ---- one data directory ---- */

static int o2c_run_model(const o2c_harness *h)
{
    int rc = O2C_MODEL_RUN(h->in_ptrs, h->out_ptrs);
    if (rc != 0)
        o2c_error(h->prog, "model run failed with status %d", rc);
    return rc;
}

static int o2c_run_dir(const o2c_harness *h, const char *dir, const o2c_options *opt)
{
    int i, status = O2C_STATUS_OK, s;
    if (o2c_check_files(h, dir) != O2C_STATUS_OK)
        return O2C_STATUS_ERROR;
    for (i = 0; i < O2C_MODEL_NUM_INPUTS; i++)
        if (o2c_load_input(h, dir, i) != O2C_STATUS_OK)
            return O2C_STATUS_ERROR;
    /* A pattern, so an output the model fails to write cannot pass with a previous result. */
    for (i = 0; i < O2C_MODEL_NUM_OUTPUTS; i++)
        memset(h->out[i].buf, 0xff, h->out[i].count * o2c_dtype_size(h->out[i].dtype));
    if (o2c_run_model(h) != 0)
        return O2C_STATUS_ERROR;
    for (i = 0; i < O2C_MODEL_NUM_OUTPUTS; i++) {
        s = o2c_check_output(h, dir, i, opt);
        status = s > status ? s : status;
    }
    if (opt->write_dir) {
        s = o2c_write_outputs(h, opt->write_dir);
        status = s > status ? s : status;
    }
    return status;
}

/* ---- benchmark ---- */

static double o2c_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int o2c_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Prints `bench: runs=N median_us=X min_us=Y init_us=Z`; init_us is the model's init call
 * (libxsmm JIT dispatch and kernel checks), timed once before the first data directory. */
static int o2c_bench(const o2c_harness *h, long runs, double init_us)
{
    double *us = (double *)malloc((size_t)runs * sizeof *us), median;
    long r;
    if (!us) {
        o2c_error(h->prog, "out of memory");
        return O2C_STATUS_ERROR;
    }
    if (o2c_run_model(h) != 0) { /* warm-up: caches, page faults, lazy JIT */
        free(us);
        return O2C_STATUS_ERROR;
    }
    for (r = 0; r < runs; r++) {
        double t0 = o2c_now_us();
        int rc = O2C_MODEL_RUN(h->in_ptrs, h->out_ptrs);
        us[r] = o2c_now_us() - t0;
        if (rc != 0) {
            o2c_error(h->prog, "model run failed with status %d", rc);
            free(us);
            return O2C_STATUS_ERROR;
        }
    }
    qsort(us, (size_t)runs, sizeof *us, o2c_compare_doubles);
    median = runs % 2 ? us[runs / 2] : (us[runs / 2 - 1] + us[runs / 2]) / 2;
    printf("bench: runs=%ld median_us=%.3f min_us=%.3f init_us=%.3f\n", runs, median, us[0],
           init_us);
    free(us);
    return O2C_STATUS_OK;
}

int main(int argc, char **argv)
{
    const char *prog = argc > 0 && argv[0] ? argv[0] : "harness";
    o2c_options opt;
    o2c_harness h;
    int status = O2C_STATUS_OK, i, rc;
    double init_start, init_us;
    rc = o2c_parse_args(prog, argc, argv, &opt);
    if (rc != 0)
        return rc > 0 ? O2C_STATUS_OK : O2C_STATUS_ERROR;
    memset(&h, 0, sizeof h);
    if (o2c_harness_init(&h, prog) != 0) {
        o2c_harness_free(&h);
        return O2C_STATUS_ERROR;
    }
    init_start = o2c_now_us();
    rc = O2C_MODEL_INIT();
    init_us = o2c_now_us() - init_start;
    if (rc != 0) {
        o2c_error(prog, "model init failed with status %d", rc);
        o2c_harness_free(&h);
        return O2C_STATUS_ERROR;
    }
    for (i = opt.first_dir; i < argc; i++) {
        int s = o2c_run_dir(&h, argv[i], &opt);
        status = s > status ? s : status;
    }
    /* Timings of a model that could not even be fed are of no use. */
    if (opt.bench_runs > 0 && status != O2C_STATUS_ERROR) {
        int s = o2c_bench(&h, opt.bench_runs, init_us);
        status = s > status ? s : status;
    }
    o2c_harness_free(&h);
    return status;
}
