/* load.c — read an ONNX ModelProto with protobuf-c and convert it to the IR. */
#define _XOPEN_SOURCE 700 /* realpath, fileno, fseeko for external data */
#include "load.h"
#include "onnx2c.h"
#include "sha1.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* `what` prefixes the error messages ("" for the model, which fatal() names already). */
uint8_t *read_file(const char *path, const char *what, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fatal("%scannot open: %s", what, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = xcalloc(1, cap);
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        buf = xrealloc(buf, cap);
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed)
        fatal("%scannot read the file", what);
    *len = n;
    return buf;
}

static int64_t tensor_numel(const Onnx__TensorProto *t, const char *what)
{
    int64_t n = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0)
            fatal("%s '%s' has a negative dimension", what, t->name ? t->name : "");
        n = checked_mul(NULL, n, t->dims[i]);
    }
    return n;
}

/* Copies typed-field data (the non-raw encodings of TensorProto) into host layout. */
static void copy_typed_field(const Onnx__TensorProto *t, DType dt, int64_t numel, void *dst,
                             const char *what)
{
    size_t have;
    switch (dt) {
    case DT_FLOAT: have = t->n_float_data; break;
    case DT_DOUBLE: have = t->n_double_data; break;
    case DT_INT64: have = t->n_int64_data; break;
    case DT_UINT32:
    case DT_UINT64: have = t->n_uint64_data; break;
    default: have = t->n_int32_data; break;
    }
    if ((int64_t)have != numel)
        fatal("%s '%s' holds %zu elements, its shape needs %lld", what, t->name ? t->name : "",
              have, (long long)numel);
    for (int64_t i = 0; i < numel; i++) {
        switch (dt) {
        case DT_FLOAT: ((float *)dst)[i] = t->float_data[i]; break;
        case DT_DOUBLE: ((double *)dst)[i] = t->double_data[i]; break;
        case DT_INT64: ((int64_t *)dst)[i] = t->int64_data[i]; break;
        case DT_UINT32: ((uint32_t *)dst)[i] = (uint32_t)t->uint64_data[i]; break;
        case DT_UINT64: ((uint64_t *)dst)[i] = t->uint64_data[i]; break;
        case DT_INT32: ((int32_t *)dst)[i] = t->int32_data[i]; break;
        case DT_INT16: ((int16_t *)dst)[i] = (int16_t)t->int32_data[i]; break;
        case DT_INT8: ((int8_t *)dst)[i] = (int8_t)t->int32_data[i]; break;
        case DT_UINT16:
        case DT_FLOAT16:
        case DT_BFLOAT16: ((uint16_t *)dst)[i] = (uint16_t)t->int32_data[i]; break;
        case DT_UINT8:
        case DT_FLOAT8E4M3FN:
        case DT_FLOAT8E4M3FNUZ:
        case DT_FLOAT8E5M2:
        case DT_FLOAT8E5M2FNUZ:
        case DT_FLOAT8E8M0: ((uint8_t *)dst)[i] = (uint8_t)t->int32_data[i]; break;
        case DT_BOOL: ((uint8_t *)dst)[i] = t->int32_data[i] != 0; break;
        default: unreachable();
        }
    }
}

/* 4-bit and 2-bit elements, packed as TensorProto stores them (first element in the lowest
 * bits), to one byte each as onnx2c keeps them: the signed types sign-extended. */
static void unpack_bits(DType dt, const uint8_t *src, int64_t numel, uint8_t *dst)
{
    int bits = dtype_packed_bits(dt), per_byte = 8 / bits;
    unsigned mask = (1u << bits) - 1, sign = 1u << (bits - 1);
    bool is_signed = dt == DT_INT4 || dt == DT_INT2;
    for (int64_t i = 0; i < numel; i++) {
        unsigned u = (src[i / per_byte] >> (bits * (int)(i % per_byte))) & mask;
        dst[i] = (uint8_t)(is_signed && (u & sign) ? u | ~mask : u);
    }
}

/* Packed data of a 4-bit or 2-bit type: raw_data bytes, or int32_data holding one packed byte
 * each (onnx.proto: "each int32_data stores two [four] elements"). */
static void load_packed(const Onnx__TensorProto *t, DType dt, int64_t numel, uint8_t *dst,
                        const char *what)
{
    int64_t per_byte = 8 / dtype_packed_bits(dt), nbytes = (numel + per_byte - 1) / per_byte;
    const uint8_t *src = t->raw_data.data;
    size_t have = t->has_raw_data ? t->raw_data.len : t->n_int32_data;
    if ((int64_t)have != nbytes)
        fatal("%s '%s' holds %zu packed bytes, its shape needs %lld", what, t->name ? t->name : "",
              have, (long long)nbytes);
    if (!t->has_raw_data) {
        uint8_t *bytes = xcalloc((size_t)nbytes + 1, 1);
        for (int64_t i = 0; i < nbytes; i++)
            bytes[i] = (uint8_t)t->int32_data[i];
        src = bytes;
    }
    unpack_bits(dt, src, numel, dst);
}

/* ---- external data (TensorProto.external_data, as PyTorch's exporter writes by default) ----
 * Keys: "location" (required; a path relative to the model's folder), "offset" and "length"
 * (decimal strings; the default length runs to the end of the file). The model comes from
 * someone else, so the location may name only a regular file inside the model's folder:
 * absolute paths, ".." components and symlinks that resolve outside it are refused. */

static const char *external_key(const Onnx__TensorProto *t, const char *key)
{
    const char *found = NULL;
    for (size_t i = 0; i < t->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = t->external_data[i];
        if (e->key && !strcmp(e->key, key))
            found = e->value ? e->value : "";
    }
    return found;
}

/* A decimal string of at most 18 digits: no sign, no spaces, no overflow. */
static int64_t external_int(const char *s, const char *key, const char *what, const char *name)
{
    int64_t v = 0;
    size_t n = strlen(s);
    if (n == 0 || n > 18)
        fatal("%s '%s' has an external data %s that is not a byte count", what, name, key);
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            fatal("%s '%s' has an external data %s that is not a byte count", what, name, key);
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* "a/b/model.onnx" -> "a/b", "model.onnx" -> "." */
char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    char *d = xcalloc(1, (size_t)(slash - path) + 1);
    memcpy(d, path, (size_t)(slash - path));
    return d;
}

/* The location as the spec allows it: relative, no "..", no empty name. */
static void check_location(const char *loc, const char *what, const char *name)
{
    if (!*loc)
        fatal("%s '%s' has external data with an empty location", what, name);
    if (loc[0] == '/')
        fatal("%s '%s' has external data at an absolute path, which is refused (the location "
              "must be relative to the model's folder)",
              what, name);
    for (const char *p = loc; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            fatal("%s '%s' has an external data location with '..', which is refused (the "
                  "file must be inside the model's folder)",
                  what, name);
        p += n;
        p += *p == '/';
    }
}

/* Opens the file the location names, after resolving symlinks, only when it lies inside dir. */
static FILE *open_external(const char *dir, const char *loc, const char *what, const char *name)
{
    char real_dir[PATH_MAX], real_file[PATH_MAX];
    if (!realpath(dir, real_dir))
        fatal("%s '%s': cannot resolve the model's folder: %s", what, name, strerror(errno));
    const char *joined = xprintf("%s/%s", dir, loc);
    if (!realpath(joined, real_file))
        fatal("%s '%s': cannot open its external data file: %s", what, name, strerror(errno));
    size_t n = strlen(real_dir);
    bool inside = !strcmp(real_dir, "/") ? real_file[0] == '/'
                                         : !strncmp(real_file, real_dir, n) && real_file[n] == '/';
    if (!inside)
        fatal("%s '%s' has an external data file that resolves outside the model's folder, "
              "which is refused",
              what, name);
    FILE *f = fopen(real_file, "rb");
    if (!f)
        fatal("%s '%s': cannot open its external data file: %s", what, name, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        fatal("%s '%s' has an external data location that is not a regular file", what, name);
    }
    return f;
}

/* The `checksum` key: 40 hex digits, lowercased into hex[41]. */
static void checksum_key(const char *sum, char hex[41], const char *what, const char *name)
{
    size_t n = strlen(sum);
    for (size_t i = 0; i < n && n == 40; i++)
        if (!isxdigit((unsigned char)sum[i]))
            n = 0;
    if (n != 40)
        fatal("%s '%s' has an external data checksum that is not a SHA-1 digest (40 hex "
              "digits)",
              what, name);
    for (size_t i = 0; i < 40; i++)
        hex[i] = (char)tolower((unsigned char)sum[i]);
    hex[40] = '\0';
}

/* The digest of the whole of f. */
static void file_sha1(FILE *f, char hex[41])
{
    Sha1 s;
    uint8_t buf[1 << 14], d[20];
    size_t n;
    sha1_init(&s);
    rewind(f);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha1_update(&s, buf, n);
    sha1_final(&s, d);
    sha1_to_hex(d, hex);
}

/* The spec defines `checksum` as the SHA-1 of the file `location` names; a writer that keeps
 * one tensor per file hashes exactly the tensor's bytes, which are then the same thing. Both
 * are accepted (either way, a changed byte of the tensor is refused). A file's digest is
 * computed once per compilation: a file holding every weight names the same checksum in
 * each tensor. */
static void check_checksum(const char *want, FILE *f, const char *dir, const char *loc,
                           const void *data, int64_t bytes, const char *what, const char *name)
{
    char got[41];
    sha1_hex(data, (size_t)bytes, got);
    if (!strcmp(got, want))
        return;
    const char *key = xprintf("%s/%s %s", dir, loc, want);
    for (int i = 0; i < cc->nchecked_files; i++)
        if (!strcmp(cc->checked_files[i], key))
            return;
    file_sha1(f, got);
    if (ferror(f) || strcmp(got, want)) {
        fclose(f);
        fatal("%s '%s': its external data in '%s' does not match its checksum (SHA-1 %s, the "
              "file's is %s): the file is corrupt or not the model's",
              what, name, loc, want, got);
    }
    cc->checked_files =
        xrealloc(cc->checked_files, (size_t)(cc->nchecked_files + 1) * sizeof(char *));
    cc->checked_files[cc->nchecked_files++] = key;
}

/* Reads the `bytes` bytes a tensor keeps in an external file into dst. */
static void read_external(const Onnx__TensorProto *t, const char *dir, int64_t bytes, void *dst,
                          const char *what)
{
    const char *name = t->name ? t->name : "";
    const char *loc = external_key(t, "location");
    if (!loc)
        fatal("%s '%s' keeps its data in an external file but names no location", what, name);
    check_location(loc, what, name);
    const char *sum = external_key(t, "checksum");
    char want[41];
    if (sum)
        checksum_key(sum, want, what, name);
    const char *s_off = external_key(t, "offset"), *s_len = external_key(t, "length");
    int64_t offset = s_off ? external_int(s_off, "offset", what, name) : 0;
    FILE *f = open_external(dir, loc, what, name);
    struct stat st;
    fstat(fileno(f), &st);
    int64_t size = (int64_t)st.st_size;
    if (offset > size) {
        fclose(f);
        fatal("%s '%s' has an external data offset %lld past the end of '%s' (%lld bytes)", what,
              name, (long long)offset, loc, (long long)size);
    }
    int64_t length = s_len ? external_int(s_len, "length", what, name) : size - offset;
    if (length > size - offset) {
        fclose(f);
        fatal("%s '%s' has external data (offset %lld, length %lld) past the end of '%s' (%lld "
              "bytes)",
              what, name, (long long)offset, (long long)length, loc, (long long)size);
    }
    if (length != bytes) {
        fclose(f);
        fatal("%s '%s' has %lld bytes of external data, its shape needs %lld", what, name,
              (long long)length, (long long)bytes);
    }
    bool ok =
        fseeko(f, (off_t)offset, SEEK_SET) == 0 && fread(dst, 1, (size_t)bytes, f) == (size_t)bytes;
    if (!ok) {
        fclose(f);
        fatal("%s '%s': cannot read its external data from '%s'", what, name, loc);
    }
    if (sum)
        check_checksum(want, f, dir, loc, dst, bytes, what, name);
    fclose(f);
}

/* Fills v's type, shape and data from a TensorProto (initializer or Constant attribute). */
void tensor_to_value(const Onnx__TensorProto *t, Value *v, const char *what)
{
    tensor_to_value_at(t, v, what, dir_of(cc->model_path));
}

/* The same, for a tensor whose external data is relative to the folder `dir`. */
void tensor_to_value_at(const Onnx__TensorProto *t, Value *v, const char *what, const char *dir)
{
    DType dt = (DType)t->data_type;
    if (!dtype_size(dt))
        fatal("%s '%s' has element type %s, which onnx2c does not support", what,
              t->name ? t->name : "", dtype_name(dt));
    if (t->n_dims > MAX_RANK)
        fatal("%s '%s' has rank %zu, more than %d", what, t->name ? t->name : "", t->n_dims,
              MAX_RANK);
    int64_t numel = tensor_numel(t, what);
    v->dtype = dt;
    v->rank = (int)t->n_dims;
    for (size_t i = 0; i < t->n_dims; i++)
        v->dims[i] = t->dims[i];
    int64_t bytes = checked_mul(NULL, numel, (int64_t)dtype_size(dt));
    bool external =
        t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    /* Inline data holds at most 4 elements per byte (2-bit types) or one per typed entry: a
     * shape asking for more is refused before the allocation (a 100-byte model could ask for
     * gigabytes here). The exact checks follow. */
    size_t held =
        t->n_float_data + t->n_double_data + t->n_int64_data + t->n_uint64_data + t->n_int32_data;
    if (!external && (uint64_t)numel / 4 > (uint64_t)t->raw_data.len + held)
        fatal("%s '%s' holds fewer elements than its shape needs (%lld)", what,
              t->name ? t->name : "", (long long)numel);
    v->data = xcalloc(1, (size_t)bytes + 1);
    if (external && dtype_packed_bits(dt)) {
        int64_t per_byte = 8 / dtype_packed_bits(dt);
        uint8_t *packed = xcalloc((size_t)(numel / per_byte) + 2, 1);
        read_external(t, dir, (numel + per_byte - 1) / per_byte, packed, what);
        unpack_bits(dt, packed, numel, v->data);
    } else if (external) {
        read_external(t, dir, bytes, v->data, what);
    } else if (dtype_packed_bits(dt)) {
        load_packed(t, dt, numel, v->data, what);
    } else if (t->has_raw_data) {
        if ((int64_t)t->raw_data.len != bytes)
            fatal("%s '%s' has %zu bytes of raw data, its shape needs %lld", what,
                  t->name ? t->name : "", t->raw_data.len, (long long)bytes);
        if (bytes)
            memcpy(v->data, t->raw_data.data, (size_t)bytes);
    } else {
        copy_typed_field(t, dt, numel, v->data, what);
    }
    v->is_weight = true;
}

void convert_attr(Attr *a, const Onnx__AttributeProto *p)
{
    a->name = xstrdup(p->name ? p->name : "");
    switch (p->type) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        a->type = ATTR_FLOAT;
        a->f = p->f;
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        a->type = ATTR_INT;
        a->i = p->i;
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
        a->type = ATTR_STRING;
        a->s = xcalloc(1, p->s.len + 1);
        if (p->s.len)
            memcpy(a->s, p->s.data, p->s.len);
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
        a->type = ATTR_FLOATS;
        a->n = (int)p->n_floats;
        a->floats = xcalloc(p->n_floats + 1, sizeof(float));
        if (p->n_floats)
            memcpy(a->floats, p->floats, p->n_floats * sizeof(float));
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
        a->type = ATTR_INTS;
        a->n = (int)p->n_ints;
        a->ints = xcalloc(p->n_ints + 1, sizeof(int64_t));
        if (p->n_ints)
            memcpy(a->ints, p->ints, p->n_ints * sizeof(int64_t));
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
        a->type = ATTR_TENSOR;
        if (!p->t)
            fatal("attribute '%s' has no tensor", a->name);
        a->t = xcalloc(1, sizeof(Value));
        a->t->name = a->name;
        a->t->offset = -1;
        tensor_to_value(p->t, a->t, "tensor attribute");
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
        a->type = ATTR_GRAPH;
        a->graph = p->g;
        break;
    default: a->type = ATTR_OTHER; break;
    }
}

int opset_of(const Onnx__ModelProto *mp, const char *domain)
{
    if (!strcmp(domain, "ai.onnx"))
        domain = "";
    for (size_t i = 0; i < mp->n_opset_import; i++) {
        const char *d = mp->opset_import[i]->domain ? mp->opset_import[i]->domain : "";
        if (!strcmp(d, "ai.onnx"))
            d = "";
        if (!strcmp(d, domain))
            return (int)mp->opset_import[i]->version;
    }
    return 0;
}

/* Type and shape from a ValueInfoProto; symbolic dims keep their names for bind_shapes. */
static void convert_value_info(Value *v, const Onnx__ValueInfoProto *vi)
{
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
        fatal("graph input or output '%s' is not a tensor (sequences, maps and optionals are "
              "not supported)",
              v->name);
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    v->dtype = (DType)tt->elem_type;
    if (!tt->shape)
        return; /* rank unknown: must come from --shape */
    if (tt->shape->n_dim > MAX_RANK)
        fatal("'%s' has rank %zu, more than %d", v->name, tt->shape->n_dim, MAX_RANK);
    v->rank = (int)tt->shape->n_dim;
    for (int i = 0; i < v->rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        v->dims[i] = -1;
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (d->dim_value < 0)
                fatal("'%s' has a negative dimension (%lld)", v->name, (long long)d->dim_value);
            v->dims[i] = d->dim_value;
        } else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
            v->dim_params[i] = xstrdup(d->dim_param);
    }
}

static void convert_graph(Model *m, const Onnx__ModelProto *mp)
{
    const Onnx__GraphProto *gp = mp->graph;
    Graph *g = m->graph;
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *t = gp->initializer[i];
        if (!t->name || value_lookup(g, t->name))
            fatal("initializer '%s' is unnamed or defined twice", t->name ? t->name : "");
        Value *v = value_new(g, t->name);
        tensor_to_value(t, v, "initializer");
        g->loaded_bytes = checked_add(NULL, g->loaded_bytes, value_bytes(v));
    }
    g->inputs = xcalloc(gp->n_input + 1, sizeof(Value *));
    for (size_t i = 0; i < gp->n_input; i++) {
        const char *name = gp->input[i]->name ? gp->input[i]->name : "";
        Value *known = value_lookup(g, name);
        if (known && known->is_input)
            fatal("graph input '%s' is listed twice", name);
        if (known)
            continue; /* an initializer with a default: a weight, not an input */
        Value *v = value_new(g, name);
        convert_value_info(v, gp->input[i]);
        v->is_input = true;
        g->inputs[g->ninputs++] = v;
    }
    convert_nodes(m, top_scope(m), gp->node, gp->n_node);
    g->outputs = xcalloc(gp->n_output + 1, sizeof(Value *));
    for (size_t i = 0; i < gp->n_output; i++) {
        const char *name = gp->output[i]->name ? gp->output[i]->name : "";
        Value *v = value_lookup(g, name);
        if (!v)
            fatal("graph output '%s' is not computed by any node", name);
        v->is_output = true;
        g->outputs[g->noutputs++] = v;
    }
    if (!g->noutputs)
        fatal("the graph has no outputs");
}

/* ---- nesting pre-scan ----
 * protobuf-c unpacks nested messages by recursion, so a 100 KB file of If nodes nested 3,000
 * deep overflows the stack inside it. Before unpacking, this walks the wire format along the
 * fields through which graphs and types can nest (field numbers from onnx.proto) and refuses a
 * model nested deeper than cc->limits.max_depth. Malformed bytes end the scan quietly: the
 * unpacker then reports them. */

typedef enum {
    PB_MODEL,
    PB_GRAPH,
    PB_NODE,
    PB_ATTR,
    PB_FUNCTION,
    PB_TRAINING,
    PB_VALUE_INFO,
    PB_TYPE,
    PB_TYPE_WRAPPER,
    PB_OTHER
} PbKind;

/* The kind of message field `field` of a `kind` message holds, or PB_OTHER. */
static PbKind pb_child(PbKind kind, uint64_t field)
{
    switch (kind) {
    case PB_MODEL:
        return field == 7    ? PB_GRAPH
               : field == 25 ? PB_FUNCTION
               : field == 20 ? PB_TRAINING
                             : PB_OTHER;
    case PB_TRAINING: return field == 1 || field == 2 ? PB_GRAPH : PB_OTHER;
    case PB_GRAPH:
        return field == 1                                  ? PB_NODE
               : field == 11 || field == 12 || field == 13 ? PB_VALUE_INFO
                                                           : PB_OTHER;
    case PB_FUNCTION: return field == 7 ? PB_NODE : field == 12 ? PB_VALUE_INFO : PB_OTHER;
    case PB_NODE: return field == 5 ? PB_ATTR : PB_OTHER;
    case PB_ATTR:
        return field == 6 || field == 11    ? PB_GRAPH
               : field == 14 || field == 15 ? PB_TYPE
                                            : PB_OTHER;
    case PB_VALUE_INFO: return field == 2 ? PB_TYPE : PB_OTHER;
    /* sequence_type, map_type, optional_type: wrappers whose element is a TypeProto again */
    case PB_TYPE: return field == 4 || field == 5 || field == 9 ? PB_TYPE_WRAPPER : PB_OTHER;
    case PB_TYPE_WRAPPER: return field == 1 || field == 2 ? PB_TYPE : PB_OTHER;
    default: return PB_OTHER;
    }
}

static bool pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return true;
    }
    return false;
}

/* depth counts graphs (and, separately, types) enclosing this message. */
static void scan_nesting(PbKind kind, const uint8_t *p, const uint8_t *end, int graphs, int types)
{
    if (graphs > cc->limits.max_depth)
        fatal("subgraphs nest more than %d deep (--max-depth raises the limit)",
              cc->limits.max_depth);
    if (types > cc->limits.max_depth)
        fatal("types nest more than %d deep (--max-depth raises the limit)", cc->limits.max_depth);
    while (p < end) {
        uint64_t tag, len;
        if (!pb_varint(&p, end, &tag))
            return;
        switch (tag & 7) {
        case 0:
            if (!pb_varint(&p, end, &len))
                return;
            break;
        case 1:
            if (end - p < 8)
                return;
            p += 8;
            break;
        case 5:
            if (end - p < 4)
                return;
            p += 4;
            break;
        case 2: {
            if (!pb_varint(&p, end, &len) || len > (uint64_t)(end - p))
                return;
            PbKind child = pb_child(kind, tag >> 3);
            if (child != PB_OTHER)
                scan_nesting(child, p, p + len, graphs + (child == PB_GRAPH),
                             types + (child == PB_TYPE));
            p += len;
            break;
        }
        default: return; /* groups (3, 4) and invalid wire types */
        }
    }
}

/* The unpacked model (cc->state.proto): If branches and functions are read from it until
 * compiler_end. */
void unload_model(void)
{
    if (cc->state.proto)
        onnx__model_proto__free_unpacked(cc->state.proto, NULL);
    cc->state.proto = NULL;
}

Model *load_model(const char *path)
{
    cc->model_path = path;
    size_t len;
    uint8_t *buf = read_file(path, "", &len);
    return load_model_bytes(path, buf, len);
}

/* The same for a model already in memory; path names it in messages and locates external
 * data. */
Model *load_model_bytes(const char *path, const uint8_t *buf, size_t len)
{
    cc->model_path = path;
    unload_model();
    scan_nesting(PB_MODEL, buf, buf + len, 0, 0);
    Onnx__ModelProto *mp = onnx__model_proto__unpack(NULL, len, buf);
    if (!mp)
        fatal("not a valid ONNX model (the protobuf could not be parsed; truncated or not an "
              "ONNX file?)");
    cc->state.proto = mp;
    if (!mp->graph)
        fatal("not a valid ONNX model (it has no graph)");
    Model *m = xcalloc(1, sizeof(Model));
    m->path = path;
    m->proto = mp;
    m->ir_version = mp->ir_version;
    m->opset = opset_of(mp, "");
    if (!m->opset && !mp->n_opset_import) /* a model of other domains only (ai.onnx.ml) is fine */
        fatal("the model imports no operator set");
    if (m->opset > MAX_KNOWN_OPSET) /* its ops' semantics are not written yet */
        fatal("the model imports opset %d; onnx2c knows opsets up to %d", m->opset,
              MAX_KNOWN_OPSET);
    m->graph = graph_new();
    convert_graph(m, mp);
    m->nodes_before = m->graph->nnodes;
    count_ops(m->graph, &m->ops_before, &m->ops_before_n);
    return m;
}
