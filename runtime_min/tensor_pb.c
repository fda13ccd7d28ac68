/* tensor_pb.c - a minimal reader and writer of ONNX TensorProto in protobuf wire format.
 *
 * The compiler embeds this text into a generated model file when --harness is given (after the
 * model code, before harness.c), so everything here is static, uses only standard C headers,
 * and every name starts with o2c_. No protobuf library: the few fields the harness needs are
 * decoded by hand, and every read is bounds-checked, because test data comes from outside.
 *
 * Public functions (each returns NULL on success, otherwise a short reason, a string literal or
 * strerror() text, to be printed after the file name):
 *   o2c_dtype_size(dtype)                   bytes per element, 0 for an unsupported data_type
 *   o2c_dtype_name(dtype)                   "float", "int64", ... for messages
 *   o2c_tensor_decode(buf, len, &t)         parse one serialized TensorProto into t
 *   o2c_tensor_read_file(path, &t)          read a whole file and decode it
 *   o2c_tensor_encode(name, dtype, rank, dims, data, &buf, &len)
 *                                           serialize dims, data_type, name and raw_data
 *   o2c_tensor_write_file(path, name, dtype, rank, dims, data)
 *   o2c_tensor_free(&t)                     release what decode allocated
 *
 * Element buffers hold the natural C type in host byte order: float, double, int8_t, uint8_t,
 * int16_t, uint16_t, int32_t, int64_t, uint32_t, uint64_t; bool as uint8_t 0/1; float16 and
 * bfloat16 as their uint16_t bit patterns. The float8 types, float8e8m0 and float4e2m1 take
 * one uint8_t per element holding the code; int4/int2 one int8_t (sign-extended), uint4/uint2
 * one uint8_t, as the generated code keeps them. On the wire (raw_data, or int32_data with
 * one packed byte per entry) 4-bit elements are packed two to a byte and 2-bit ones four,
 * first element in the lowest bits; decode unpacks and encode packs them.
 *   o2c_low_float_value(dtype, code)        a float8/float8e8m0/float4e2m1 code as a double
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ONNX allows any rank; test data in practice stays far below this. */
#define O2C_TENSOR_MAX_RANK 16

/* Groups (wire types 3/4) nest; bound the recursion so hostile input cannot exhaust the stack. */
#define O2C_PB_MAX_GROUP_DEPTH 32

/* TensorProto.DataType numbers that the reader supports (onnx.proto). */
enum o2c_dtype {
    O2C_DTYPE_FLOAT = 1,
    O2C_DTYPE_UINT8 = 2,
    O2C_DTYPE_INT8 = 3,
    O2C_DTYPE_UINT16 = 4,
    O2C_DTYPE_INT16 = 5,
    O2C_DTYPE_INT32 = 6,
    O2C_DTYPE_INT64 = 7,
    O2C_DTYPE_BOOL = 9,
    O2C_DTYPE_FLOAT16 = 10,
    O2C_DTYPE_DOUBLE = 11,
    O2C_DTYPE_UINT32 = 12,
    O2C_DTYPE_UINT64 = 13,
    O2C_DTYPE_BFLOAT16 = 16,
    O2C_DTYPE_FLOAT8E4M3FN = 17,
    O2C_DTYPE_FLOAT8E4M3FNUZ = 18,
    O2C_DTYPE_FLOAT8E5M2 = 19,
    O2C_DTYPE_FLOAT8E5M2FNUZ = 20,
    O2C_DTYPE_UINT4 = 21,
    O2C_DTYPE_INT4 = 22,
    O2C_DTYPE_FLOAT4E2M1 = 23,
    O2C_DTYPE_FLOAT8E8M0 = 24,
    O2C_DTYPE_UINT2 = 25,
    O2C_DTYPE_INT2 = 26
};

/* TensorProto field numbers used here. */
enum o2c_tp_field {
    O2C_TP_DIMS = 1,
    O2C_TP_DATA_TYPE = 2,
    O2C_TP_SEGMENT = 3,
    O2C_TP_FLOAT_DATA = 4,
    O2C_TP_INT32_DATA = 5,
    O2C_TP_STRING_DATA = 6,
    O2C_TP_INT64_DATA = 7,
    O2C_TP_NAME = 8,
    O2C_TP_RAW_DATA = 9,
    O2C_TP_DOUBLE_DATA = 10,
    O2C_TP_UINT64_DATA = 11,
    O2C_TP_EXTERNAL_DATA = 13,
    O2C_TP_DATA_LOCATION = 14
};

enum o2c_pb_wire {
    O2C_PB_VARINT = 0,
    O2C_PB_FIXED64 = 1,
    O2C_PB_BYTES = 2,
    O2C_PB_GROUP_START = 3,
    O2C_PB_GROUP_END = 4,
    O2C_PB_FIXED32 = 5
};

/* A decoded tensor; decode fills every field, o2c_tensor_free releases name and data. */
typedef struct o2c_tensor {
    int32_t dtype; /* TensorProto.DataType */
    int32_t rank;
    int64_t dims[O2C_TENSOR_MAX_RANK];
    size_t count; /* number of elements: product of dims, 1 for rank 0 */
    char *name;   /* NUL-terminated, "" when the proto has none */
    void *data;   /* count elements of the natural C type (see top of file) */
} o2c_tensor;

/* Unread rest of a message: a pointer and a length, so no out-of-range pointer is ever formed. */
typedef struct o2c_pb_reader {
    const uint8_t *p;
    size_t n;
} o2c_pb_reader;

/* One field: its number, wire type and either a scalar value or a length-delimited payload. */
typedef struct o2c_pb_field {
    uint32_t number;
    int wire;
    uint64_t value;
    o2c_pb_reader bytes;
} o2c_pb_field;

static size_t o2c_dtype_size(int32_t dtype)
{
    switch (dtype) {
    case O2C_DTYPE_UINT8:
    case O2C_DTYPE_INT8:
    case O2C_DTYPE_BOOL: return 1;
    case O2C_DTYPE_FLOAT8E4M3FN:
    case O2C_DTYPE_FLOAT8E4M3FNUZ:
    case O2C_DTYPE_FLOAT8E5M2:
    case O2C_DTYPE_FLOAT8E5M2FNUZ:
    case O2C_DTYPE_UINT4:
    case O2C_DTYPE_INT4:
    case O2C_DTYPE_FLOAT4E2M1:
    case O2C_DTYPE_FLOAT8E8M0:
    case O2C_DTYPE_UINT2:
    case O2C_DTYPE_INT2: return 1; /* in memory; see the top of the file for the wire */
    case O2C_DTYPE_UINT16:
    case O2C_DTYPE_INT16:
    case O2C_DTYPE_FLOAT16:
    case O2C_DTYPE_BFLOAT16: return 2;
    case O2C_DTYPE_FLOAT:
    case O2C_DTYPE_INT32:
    case O2C_DTYPE_UINT32: return 4;
    case O2C_DTYPE_INT64:
    case O2C_DTYPE_DOUBLE:
    case O2C_DTYPE_UINT64: return 8;
    default: return 0;
    }
}

static const char *o2c_dtype_name(int32_t dtype)
{
    switch (dtype) {
    case O2C_DTYPE_FLOAT: return "float";
    case O2C_DTYPE_UINT8: return "uint8";
    case O2C_DTYPE_INT8: return "int8";
    case O2C_DTYPE_UINT16: return "uint16";
    case O2C_DTYPE_INT16: return "int16";
    case O2C_DTYPE_INT32: return "int32";
    case O2C_DTYPE_INT64: return "int64";
    case O2C_DTYPE_BOOL: return "bool";
    case O2C_DTYPE_FLOAT16: return "float16";
    case O2C_DTYPE_DOUBLE: return "double";
    case O2C_DTYPE_UINT32: return "uint32";
    case O2C_DTYPE_UINT64: return "uint64";
    case O2C_DTYPE_BFLOAT16: return "bfloat16";
    case O2C_DTYPE_FLOAT8E4M3FN: return "float8e4m3fn";
    case O2C_DTYPE_FLOAT8E4M3FNUZ: return "float8e4m3fnuz";
    case O2C_DTYPE_FLOAT8E5M2: return "float8e5m2";
    case O2C_DTYPE_FLOAT8E5M2FNUZ: return "float8e5m2fnuz";
    case O2C_DTYPE_UINT4: return "uint4";
    case O2C_DTYPE_INT4: return "int4";
    case O2C_DTYPE_FLOAT4E2M1: return "float4e2m1";
    case O2C_DTYPE_FLOAT8E8M0: return "float8e8m0";
    case O2C_DTYPE_UINT2: return "uint2";
    case O2C_DTYPE_INT2: return "int2";
    default: return "unsupported";
    }
}

/* Bits per element on the wire for the types packed below a byte, else 0. */
static int o2c_dtype_packed_bits(int32_t dtype)
{
    switch (dtype) {
    case O2C_DTYPE_UINT4:
    case O2C_DTYPE_INT4:
    case O2C_DTYPE_FLOAT4E2M1: return 4;
    case O2C_DTYPE_UINT2:
    case O2C_DTYPE_INT2: return 2;
    default: return 0;
    }
}

/* Bytes of `count` elements on the wire (raw_data), packed types rounded up. */
static size_t o2c_wire_bytes(int32_t dtype, size_t count)
{
    int bits = o2c_dtype_packed_bits(dtype);
    return bits ? count / (size_t)(8 / bits) + (count % (size_t)(8 / bits) != 0)
                : count * o2c_dtype_size(dtype);
}

/* A float8 (17..20), float4e2m1 (23) or float8e8m0 (24) code as a double, exactly; NaN for
 * the codes that are NaN. Any other dtype gives 0. */
static double o2c_low_float_value(int32_t dtype, unsigned code)
{
    /* exponent bits, mantissa bits, bias; kind 0 IEEE (e5m2), 1 only S.1111.111 is NaN,
     * 2 0x80 is NaN (the fnuz types), 3 no NaN (float4) */
    int e_bits = 4, m_bits = 3, bias = 7, kind = 1, width, neg;
    unsigned mag, e, m;
    double v;
    switch (dtype) {
    case O2C_DTYPE_FLOAT8E4M3FN: break;
    case O2C_DTYPE_FLOAT8E4M3FNUZ: bias = 8, kind = 2; break;
    case O2C_DTYPE_FLOAT8E5M2: e_bits = 5, m_bits = 2, bias = 15, kind = 0; break;
    case O2C_DTYPE_FLOAT8E5M2FNUZ: e_bits = 5, m_bits = 2, bias = 16, kind = 2; break;
    case O2C_DTYPE_FLOAT4E2M1: e_bits = 2, m_bits = 1, bias = 1, kind = 3; break;
    case O2C_DTYPE_FLOAT8E8M0: return code == 0xff ? NAN : ldexp(1.0, (int)code - 127);
    default: return 0.0;
    }
    width = e_bits + m_bits;
    mag = code & ((1u << width) - 1);
    neg = (int)((code >> width) & 1);
    e = mag >> m_bits;
    m = mag & ((1u << m_bits) - 1);
    if ((kind == 2 && neg && mag == 0) || (kind == 1 && mag == (1u << width) - 1) ||
        (kind == 0 && e == (1u << e_bits) - 1 && m))
        return NAN;
    if (kind == 0 && e == (1u << e_bits) - 1)
        v = INFINITY;
    else if (e == 0)
        v = ldexp((double)m, 1 - bias - m_bits);
    else
        v = ldexp((double)(m | (1u << m_bits)), (int)e - bias - m_bits);
    return neg ? -v : v;
}

/* ---- wire-format reading ---- */

/* Base-128 varint: at most 10 bytes, and the 10th may only carry bit 63. */
static int o2c_pb_read_varint(o2c_pb_reader *r, uint64_t *v)
{
    uint64_t x = 0;
    size_t i;
    for (i = 0; i < r->n && i < 10; i++) {
        uint8_t b = r->p[i];
        if (i == 9 && b > 1)
            return -1;
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            r->p += i + 1;
            r->n -= i + 1;
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* Little-endian fixed-width value of 4 or 8 bytes. */
static int o2c_pb_read_fixed(o2c_pb_reader *r, size_t size, uint64_t *v)
{
    uint64_t x = 0;
    size_t i;
    if (r->n < size)
        return -1;
    for (i = 0; i < size; i++)
        x |= (uint64_t)r->p[i] << (8 * i);
    r->p += size;
    r->n -= size;
    *v = x;
    return 0;
}

static int o2c_pb_read_bytes(o2c_pb_reader *r, o2c_pb_reader *out)
{
    uint64_t len;
    if (o2c_pb_read_varint(r, &len) || len > r->n)
        return -1;
    out->p = r->p;
    out->n = (size_t)len;
    r->p += out->n;
    r->n -= out->n;
    return 0;
}

static int o2c_pb_read_tag(o2c_pb_reader *r, uint32_t *number, int *wire)
{
    uint64_t tag;
    if (o2c_pb_read_varint(r, &tag))
        return -1;
    /* Field numbers are 1 .. 2^29-1; wire types 6 and 7 do not exist. */
    if (tag >> 32 || (tag >> 3) == 0 || (tag & 7) > O2C_PB_FIXED32)
        return -1;
    *number = (uint32_t)(tag >> 3);
    *wire = (int)(tag & 7);
    return 0;
}

static int o2c_pb_skip_group(o2c_pb_reader *r, uint32_t number, int depth);

/* Reads the value that follows a tag; groups are skipped whole (they carry nothing we use). */
static int o2c_pb_read_value(o2c_pb_reader *r, o2c_pb_field *f, int depth)
{
    f->value = 0;
    f->bytes.p = NULL;
    f->bytes.n = 0;
    switch (f->wire) {
    case O2C_PB_VARINT: return o2c_pb_read_varint(r, &f->value);
    case O2C_PB_FIXED64: return o2c_pb_read_fixed(r, 8, &f->value);
    case O2C_PB_BYTES: return o2c_pb_read_bytes(r, &f->bytes);
    case O2C_PB_GROUP_START: return o2c_pb_skip_group(r, f->number, depth + 1);
    case O2C_PB_FIXED32: return o2c_pb_read_fixed(r, 4, &f->value);
    default: /* an end-group tag without its start */ return -1;
    }
}

static int o2c_pb_skip_group(o2c_pb_reader *r, uint32_t number, int depth)
{
    o2c_pb_field f;
    if (depth > O2C_PB_MAX_GROUP_DEPTH)
        return -1;
    for (;;) {
        if (o2c_pb_read_tag(r, &f.number, &f.wire))
            return -1;
        if (f.wire == O2C_PB_GROUP_END)
            return f.number == number ? 0 : -1;
        if (o2c_pb_read_value(r, &f, depth))
            return -1;
    }
}

/* Next top-level field of a message; returns 1 at the end, 0 for a field, -1 when malformed. */
static int o2c_pb_next_field(o2c_pb_reader *r, o2c_pb_field *f)
{
    if (r->n == 0)
        return 1;
    if (o2c_pb_read_tag(r, &f->number, &f->wire) || o2c_pb_read_value(r, f, 0))
        return -1;
    return 0;
}

/* ---- repeated numeric fields ----
 * A repeated scalar may arrive packed (one length-delimited payload) or unpacked (one tag per
 * element), and a writer may mix both and split either over several occurrences; protobuf says
 * the reader concatenates them in order. */

/* Width of one element of a packed payload: 0 for varints. */
static size_t o2c_pb_packed_width(int scalar_wire)
{
    return scalar_wire == O2C_PB_FIXED32 ? 4 : scalar_wire == O2C_PB_FIXED64 ? 8 : 0;
}

/* Number of elements in a packed payload, or -1 when it cannot hold whole elements. Counts
 * never exceed the input length, so sums of them cannot overflow size_t. */
static int o2c_pb_packed_count(o2c_pb_reader payload, int scalar_wire, size_t *count)
{
    size_t width = o2c_pb_packed_width(scalar_wire), i, n = 0;
    if (width) {
        if (payload.n % width)
            return -1;
        *count = payload.n / width;
        return 0;
    }
    for (i = 0; i < payload.n; i++)
        n += !(payload.p[i] & 0x80);
    if (payload.n && (payload.p[payload.n - 1] & 0x80))
        return -1; /* the last varint is cut off */
    *count = n;
    return 0;
}

/* Counts the elements of field f (already read) of a repeated scalar field. */
static int o2c_pb_count_repeated(const o2c_pb_field *f, int scalar_wire, size_t *total)
{
    size_t n = 1;
    if (f->wire == O2C_PB_BYTES) {
        if (o2c_pb_packed_count(f->bytes, scalar_wire, &n))
            return -1;
    } else if (f->wire != scalar_wire) {
        return -1;
    }
    *total += n;
    return 0;
}

/* Walks the elements of one repeated scalar field across all its occurrences in a message. */
typedef struct o2c_pb_cursor {
    o2c_pb_reader msg;    /* rest of the message */
    o2c_pb_reader packed; /* rest of the current packed payload */
    uint32_t number;
    int scalar_wire;
} o2c_pb_cursor;

static void o2c_pb_cursor_init(o2c_pb_cursor *c, const uint8_t *buf, size_t len, uint32_t number,
                               int scalar_wire)
{
    c->msg.p = buf;
    c->msg.n = len;
    c->packed.p = NULL;
    c->packed.n = 0;
    c->number = number;
    c->scalar_wire = scalar_wire;
}

/* Next element as a raw 64-bit value (varint value or fixed-width bits). */
static int o2c_pb_cursor_next(o2c_pb_cursor *c, uint64_t *v)
{
    o2c_pb_field f;
    size_t width = o2c_pb_packed_width(c->scalar_wire);
    while (c->packed.n == 0) {
        if (o2c_pb_next_field(&c->msg, &f) != 0)
            return -1; /* the scan pass counted more elements than exist */
        if (f.number != c->number)
            continue;
        if (f.wire == c->scalar_wire) {
            *v = f.value;
            return 0;
        }
        if (f.wire != O2C_PB_BYTES)
            return -1;
        c->packed = f.bytes;
    }
    return width ? o2c_pb_read_fixed(&c->packed, width, v) : o2c_pb_read_varint(&c->packed, v);
}

/* ---- TensorProto decoding ---- */

/* What the first pass over a TensorProto found; the second pass fetches the elements. */
typedef struct o2c_tp_scan {
    int32_t dtype;
    size_t n_dims;
    size_t n_float, n_int32, n_int64, n_double, n_uint64;
    int has_name, has_raw;
    o2c_pb_reader name, raw; /* the last occurrence wins, as protobuf specifies */
} o2c_tp_scan;

/* Two's-complement reinterpretation without implementation-defined conversions. */
static int64_t o2c_u64_to_i64(uint64_t v)
{
    return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
}

/* An int32 field keeps the low 32 bits of its varint (negative values are sign-extended to 10
 * bytes on the wire), as protobuf parsers do. */
static int32_t o2c_pb_int32(uint64_t v)
{
    uint32_t lo = (uint32_t)(v & 0xffffffffu);
    return lo <= (uint32_t)INT32_MAX ? (int32_t)lo : -(int32_t)(~lo) - 1;
}

static const char *o2c_tp_scan_field(o2c_tp_scan *s, const o2c_pb_field *f)
{
    switch (f->number) {
    case O2C_TP_DIMS:
        return o2c_pb_count_repeated(f, O2C_PB_VARINT, &s->n_dims) ? "bad dims field" : NULL;
    case O2C_TP_DATA_TYPE:
        if (f->wire != O2C_PB_VARINT)
            return "bad data_type field";
        s->dtype = o2c_pb_int32(f->value);
        return NULL;
    case O2C_TP_FLOAT_DATA:
        return o2c_pb_count_repeated(f, O2C_PB_FIXED32, &s->n_float) ? "bad float_data" : NULL;
    case O2C_TP_INT32_DATA:
        return o2c_pb_count_repeated(f, O2C_PB_VARINT, &s->n_int32) ? "bad int32_data" : NULL;
    case O2C_TP_INT64_DATA:
        return o2c_pb_count_repeated(f, O2C_PB_VARINT, &s->n_int64) ? "bad int64_data" : NULL;
    case O2C_TP_DOUBLE_DATA:
        return o2c_pb_count_repeated(f, O2C_PB_FIXED64, &s->n_double) ? "bad double_data" : NULL;
    case O2C_TP_UINT64_DATA:
        return o2c_pb_count_repeated(f, O2C_PB_VARINT, &s->n_uint64) ? "bad uint64_data" : NULL;
    case O2C_TP_NAME:
        if (f->wire != O2C_PB_BYTES)
            return "bad name field";
        s->has_name = 1;
        s->name = f->bytes;
        return NULL;
    case O2C_TP_RAW_DATA:
        if (f->wire != O2C_PB_BYTES)
            return "bad raw_data field";
        s->has_raw = 1;
        s->raw = f->bytes;
        return NULL;
    case O2C_TP_SEGMENT: return "segmented tensors are not supported";
    case O2C_TP_STRING_DATA: return "string tensors are not supported";
    case O2C_TP_EXTERNAL_DATA: return "external data is not supported";
    case O2C_TP_DATA_LOCATION:
        if (f->wire != O2C_PB_VARINT)
            return "bad data_location field";
        return f->value != 0 ? "external data is not supported" : NULL;
    default: return NULL; /* doc_string, metadata_props and fields newer than this reader */
    }
}

static const char *o2c_tp_scan_message(const uint8_t *buf, size_t len, o2c_tp_scan *s)
{
    o2c_pb_reader r;
    o2c_pb_field f;
    int rc;
    memset(s, 0, sizeof *s);
    r.p = buf;
    r.n = len;
    while ((rc = o2c_pb_next_field(&r, &f)) == 0) {
        const char *why = o2c_tp_scan_field(s, &f);
        if (why)
            return why;
    }
    return rc < 0 ? "malformed protobuf (truncated or invalid field)" : NULL;
}

/* dims -> t->dims, t->rank, t->count; dims are varints, so re-read them with a cursor. */
static const char *o2c_tp_read_dims(const uint8_t *buf, size_t len, const o2c_tp_scan *s,
                                    o2c_tensor *t)
{
    o2c_pb_cursor c;
    size_t i, count = 1;
    int zero = 0;
    if (s->n_dims > O2C_TENSOR_MAX_RANK)
        return "rank too large";
    o2c_pb_cursor_init(&c, buf, len, O2C_TP_DIMS, O2C_PB_VARINT);
    for (i = 0; i < s->n_dims; i++) {
        uint64_t v;
        if (o2c_pb_cursor_next(&c, &v))
            return "malformed dims";
        if (v > (uint64_t)INT64_MAX)
            return "negative dimension";
        t->dims[i] = (int64_t)v;
        zero |= v == 0;
    }
    /* A zero dimension makes the tensor empty whatever the others are; otherwise the product
     * (times the element size, so byte counts fit too) must fit in size_t. */
    for (i = 0; i < s->n_dims && !zero; i++) {
        uint64_t d = (uint64_t)t->dims[i];
        if (d > SIZE_MAX / o2c_dtype_size(t->dtype) / count)
            return "element count overflows";
        count *= (size_t)d;
    }
    t->rank = (int32_t)s->n_dims;
    t->count = zero ? 0 : count;
    return NULL;
}

/* Element i of a host buffer <-> the low `size` bytes of a 64-bit value. memcpy of the unsigned
 * type of the same width gives the element's bit pattern for every supported type. */
static void o2c_set_bits(void *data, size_t i, size_t size, uint64_t v)
{
    uint8_t b1 = (uint8_t)v;
    uint16_t b2 = (uint16_t)v;
    uint32_t b4 = (uint32_t)v;
    uint8_t *dst = (uint8_t *)data + i * size;
    switch (size) {
    case 1: memcpy(dst, &b1, 1); break;
    case 2: memcpy(dst, &b2, 2); break;
    case 4: memcpy(dst, &b4, 4); break;
    default: memcpy(dst, &v, 8); break;
    }
}

static uint64_t o2c_get_bits(const void *data, size_t i, size_t size)
{
    uint8_t b1;
    uint16_t b2;
    uint32_t b4;
    uint64_t b8;
    const uint8_t *src = (const uint8_t *)data + i * size;
    switch (size) {
    case 1: memcpy(&b1, src, 1); return b1;
    case 2: memcpy(&b2, src, 2); return b2;
    case 4: memcpy(&b4, src, 4); return b4;
    default: memcpy(&b8, src, 8); return b8;
    }
}

/* Stores element i given as a 64-bit field value. Typed fields are wider than most element
 * types, so a value outside the type's range is malformed rather than silently truncated. */
static const char *o2c_tp_store(o2c_tensor *t, size_t i, uint64_t v, int from_int32_data)
{
    int64_t s = from_int32_data ? o2c_pb_int32(v) : o2c_u64_to_i64(v);
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    switch (t->dtype) {
    case O2C_DTYPE_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
    case O2C_DTYPE_UINT8:
    case O2C_DTYPE_FLOAT8E4M3FN:
    case O2C_DTYPE_FLOAT8E4M3FNUZ:
    case O2C_DTYPE_FLOAT8E5M2:
    case O2C_DTYPE_FLOAT8E5M2FNUZ:
    case O2C_DTYPE_FLOAT8E8M0: lo = 0, hi = UINT8_MAX; break;
    case O2C_DTYPE_BOOL: lo = 0, hi = 1; break;
    case O2C_DTYPE_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
    case O2C_DTYPE_UINT16:
    case O2C_DTYPE_FLOAT16:
    case O2C_DTYPE_BFLOAT16: lo = 0, hi = UINT16_MAX; break;
    case O2C_DTYPE_UINT32: lo = 0, hi = UINT32_MAX; break;
    default: /* float/double bits, int32 (already 32 bits), int64, uint64: any value */ break;
    }
    if (s < lo || s > hi)
        return "value out of range for data_type";
    /* (uint64_t)s has the element's two's-complement bits in its low bytes. */
    o2c_set_bits(t->data, i, o2c_dtype_size(t->dtype), from_int32_data ? (uint64_t)s : v);
    return NULL;
}

/* The typed field that ONNX uses for each data_type, and its element count from the scan. */
static uint32_t o2c_tp_typed_field(int32_t dtype, const o2c_tp_scan *s, size_t *n, int *wire)
{
    *wire = O2C_PB_VARINT;
    switch (dtype) {
    case O2C_DTYPE_FLOAT:
        *n = s->n_float;
        *wire = O2C_PB_FIXED32;
        return O2C_TP_FLOAT_DATA;
    case O2C_DTYPE_DOUBLE:
        *n = s->n_double;
        *wire = O2C_PB_FIXED64;
        return O2C_TP_DOUBLE_DATA;
    case O2C_DTYPE_INT64: *n = s->n_int64; return O2C_TP_INT64_DATA;
    case O2C_DTYPE_UINT32:
    case O2C_DTYPE_UINT64: *n = s->n_uint64; return O2C_TP_UINT64_DATA;
    default: /* int32, the narrower integers, bool and the 16-bit floats */
        *n = s->n_int32;
        return O2C_TP_INT32_DATA;
    }
}

static const char *o2c_tp_read_typed(const uint8_t *buf, size_t len, const o2c_tp_scan *s,
                                     o2c_tensor *t)
{
    o2c_pb_cursor c;
    size_t n, i;
    int wire;
    uint32_t field = o2c_tp_typed_field(t->dtype, s, &n, &wire);
    if (s->has_raw)
        return NULL;
    o2c_pb_cursor_init(&c, buf, len, field, wire);
    for (i = 0; i < n; i++) {
        uint64_t v;
        const char *why;
        if (o2c_pb_cursor_next(&c, &v))
            return "malformed data field";
        why = o2c_tp_store(t, i, v, field == O2C_TP_INT32_DATA);
        if (why)
            return why;
    }
    return NULL;
}

/* raw_data: fixed-width little-endian elements, assembled byte by byte so any host works. */
static const char *o2c_tp_read_raw(const o2c_tp_scan *s, o2c_tensor *t)
{
    size_t size = o2c_dtype_size(t->dtype), i, k;
    if (!s->has_raw)
        return NULL;
    for (i = 0; i < t->count; i++) {
        uint64_t v = 0;
        for (k = 0; k < size; k++)
            v |= (uint64_t)s->raw.p[i * size + k] << (8 * k);
        if (t->dtype == O2C_DTYPE_BOOL && v > 1)
            return "bool value out of range";
        o2c_set_bits(t->data, i, size, v);
    }
    return NULL;
}

/* Wire bytes of a packed type -> one element per byte, the signed types sign-extended. */
static void o2c_unpack(int32_t dtype, const uint8_t *src, size_t count, uint8_t *dst)
{
    unsigned bits = (unsigned)o2c_dtype_packed_bits(dtype), per_byte = 8 / bits, i;
    unsigned mask = (1u << bits) - 1, sign = 1u << (bits - 1);
    int is_signed = dtype == O2C_DTYPE_INT4 || dtype == O2C_DTYPE_INT2;
    size_t k;
    for (k = 0; k < count; k++) {
        unsigned u;
        i = (unsigned)(k % per_byte);
        u = (src[k / per_byte] >> (bits * i)) & mask;
        dst[k] = (uint8_t)(is_signed && (u & sign) ? u | ~mask : u);
    }
}

/* A packed type's elements from raw_data or from int32_data (one packed byte per entry). */
static const char *o2c_tp_read_packed(const uint8_t *buf, size_t len, const o2c_tp_scan *s,
                                      o2c_tensor *t)
{
    o2c_pb_cursor c;
    size_t nbytes = o2c_wire_bytes(t->dtype, t->count), i;
    uint8_t *bytes;
    if (s->has_raw) {
        o2c_unpack(t->dtype, s->raw.p, t->count, (uint8_t *)t->data);
        return NULL;
    }
    bytes = (uint8_t *)malloc(nbytes ? nbytes : 1);
    if (!bytes)
        return "out of memory";
    o2c_pb_cursor_init(&c, buf, len, O2C_TP_INT32_DATA, O2C_PB_VARINT);
    for (i = 0; i < nbytes; i++) {
        uint64_t v;
        int32_t b;
        if (o2c_pb_cursor_next(&c, &v)) {
            free(bytes);
            return "malformed data field";
        }
        b = o2c_pb_int32(v);
        if (b < 0 || b > 255) {
            free(bytes);
            return "value out of range for data_type";
        }
        bytes[i] = (uint8_t)b;
    }
    o2c_unpack(t->dtype, bytes, t->count, (uint8_t *)t->data);
    free(bytes);
    return NULL;
}

/* The data must match data_type and dims before anything is allocated: then allocations are
 * bounded by the input size, whatever dims claim. */
static const char *o2c_tp_check_data(const o2c_tp_scan *s, const o2c_tensor *t)
{
    size_t n, all = s->n_float + s->n_int32 + s->n_int64 + s->n_double + s->n_uint64;
    int wire;
    if (s->has_raw) {
        if (all)
            return "both raw_data and typed data";
        if (s->raw.n != o2c_wire_bytes(t->dtype, t->count))
            return "raw_data size does not match dims and data_type";
        return NULL;
    }
    o2c_tp_typed_field(t->dtype, s, &n, &wire);
    if (all != n)
        return "data in a field that does not match data_type";
    /* packed types: one int32_data entry per packed byte */
    if (n != (o2c_dtype_packed_bits(t->dtype) ? o2c_wire_bytes(t->dtype, t->count) : t->count))
        return n ? "element count does not match dims" : "tensor has no data";
    return NULL;
}

static void o2c_tensor_free(o2c_tensor *t)
{
    free(t->name);
    free(t->data);
    memset(t, 0, sizeof *t);
}

static const char *o2c_tp_decode_into(const uint8_t *buf, size_t len, o2c_tensor *t)
{
    o2c_tp_scan s;
    const char *why = o2c_tp_scan_message(buf, len, &s);
    if (why)
        return why;
    t->dtype = s.dtype;
    if (o2c_dtype_size(t->dtype) == 0)
        return "unsupported or missing data_type";
    why = o2c_tp_read_dims(buf, len, &s, t);
    if (why)
        return why;
    why = o2c_tp_check_data(&s, t);
    if (why)
        return why;
    t->name = (char *)malloc(s.has_name ? s.name.n + 1 : 1);
    /* At least one byte, so a successful decode always has non-NULL data. */
    t->data = malloc(t->count ? t->count * o2c_dtype_size(t->dtype) : 1);
    if (!t->name || !t->data)
        return "out of memory";
    if (s.has_name)
        memcpy(t->name, s.name.p, s.name.n);
    t->name[s.has_name ? s.name.n : 0] = '\0';
    if (o2c_dtype_packed_bits(t->dtype))
        return o2c_tp_read_packed(buf, len, &s, t);
    why = o2c_tp_read_typed(buf, len, &s, t);
    return why ? why : o2c_tp_read_raw(&s, t);
}

/* On failure t is left empty (freeing it again is harmless). */
static const char *o2c_tensor_decode(const uint8_t *buf, size_t len, o2c_tensor *t)
{
    const char *why;
    memset(t, 0, sizeof *t);
    why = o2c_tp_decode_into(buf, len, t);
    if (why)
        o2c_tensor_free(t);
    return why;
}

/* Reads a whole stream into a malloc'd buffer; fread in chunks works for pipes too. */
static const char *o2c_read_stream(FILE *f, uint8_t **out, size_t *out_len)
{
    size_t cap = 4096, len = 0;
    uint8_t *buf = (uint8_t *)malloc(cap);
    if (!buf)
        return "out of memory";
    for (;;) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap)
            break;
        if (cap > SIZE_MAX / 2) {
            free(buf);
            return "file too large";
        } else {
            uint8_t *bigger = (uint8_t *)realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                return "out of memory";
            }
            buf = bigger;
            cap *= 2;
        }
    }
    if (ferror(f)) {
        free(buf);
        return "read error";
    }
    *out = buf;
    *out_len = len;
    return NULL;
}

static const char *o2c_tensor_read_file(const char *path, o2c_tensor *t)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    const char *why;
    FILE *f = fopen(path, "rb");
    memset(t, 0, sizeof *t);
    if (!f)
        return strerror(errno);
    why = o2c_read_stream(f, &buf, &len);
    fclose(f);
    if (why)
        return why;
    why = o2c_tensor_decode(buf, len, t);
    free(buf);
    return why;
}

/* ---- writing ---- */

static size_t o2c_pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static uint8_t *o2c_pb_put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Host elements -> little-endian bytes (the inverse of o2c_tp_read_raw). */
static uint8_t *o2c_put_raw_elements(uint8_t *p, const void *data, size_t count, size_t size)
{
    size_t i, k;
    for (i = 0; i < count; i++) {
        uint64_t v = o2c_get_bits(data, i, size);
        for (k = 0; k < size; k++)
            *p++ = (uint8_t)(v >> (8 * k));
    }
    return p;
}

/* One element per byte -> wire bytes of a packed type (the inverse of o2c_unpack). */
static uint8_t *o2c_put_packed(uint8_t *p, int32_t dtype, const void *data, size_t count)
{
    unsigned bits = (unsigned)o2c_dtype_packed_bits(dtype), per_byte = 8 / bits;
    unsigned mask = (1u << bits) - 1;
    const uint8_t *src = (const uint8_t *)data;
    size_t k;
    for (k = 0; k < count; k += per_byte) {
        unsigned b = 0, i;
        for (i = 0; i < per_byte && k + i < count; i++)
            b |= (src[k + i] & mask) << (bits * i);
        *p++ = (uint8_t)b;
    }
    return p;
}

/* Fields in field-number order (dims unpacked, as onnx's own writer does), so the bytes equal
 * numpy_helper.from_array(array, name).SerializeToString(). name may be NULL (left out). */
static const char *o2c_tensor_encode(const char *name, int32_t dtype, int32_t rank,
                                     const int64_t *dims, const void *data, uint8_t **out,
                                     size_t *out_len)
{
    size_t size = o2c_dtype_size(dtype), count = 1, total = 0, name_len, nbytes, i;
    uint8_t *buf, *p;
    int zero = 0;
    if (size == 0)
        return "unsupported data_type";
    if (rank < 0 || rank > O2C_TENSOR_MAX_RANK)
        return "bad rank";
    for (i = 0; i < (size_t)rank; i++) {
        if (dims[i] < 0)
            return "negative dimension";
        zero |= dims[i] == 0;
        total += 1 + o2c_pb_varint_size((uint64_t)dims[i]);
    }
    for (i = 0; i < (size_t)rank && !zero; i++) {
        if ((uint64_t)dims[i] > SIZE_MAX / size / count)
            return "element count overflows";
        count *= (size_t)dims[i];
    }
    nbytes = zero ? 0 : o2c_wire_bytes(dtype, count);
    name_len = name ? strlen(name) : 0;
    /* Keeps the sum below (payloads plus a few 11-byte tags and lengths) from overflowing. */
    if (nbytes > SIZE_MAX / 4 || name_len > SIZE_MAX / 4)
        return "tensor too large";
    total += 1 + o2c_pb_varint_size((uint64_t)dtype);
    if (name)
        total += 1 + o2c_pb_varint_size(name_len) + name_len;
    total += 1 + o2c_pb_varint_size(nbytes) + nbytes;
    buf = (uint8_t *)malloc(total);
    if (!buf)
        return "out of memory";
    p = buf;
    for (i = 0; i < (size_t)rank; i++) {
        *p++ = O2C_TP_DIMS << 3 | O2C_PB_VARINT;
        p = o2c_pb_put_varint(p, (uint64_t)dims[i]);
    }
    *p++ = O2C_TP_DATA_TYPE << 3 | O2C_PB_VARINT;
    p = o2c_pb_put_varint(p, (uint64_t)dtype);
    if (name) {
        *p++ = O2C_TP_NAME << 3 | O2C_PB_BYTES;
        p = o2c_pb_put_varint(p, name_len);
        memcpy(p, name, name_len);
        p += name_len;
    }
    *p++ = O2C_TP_RAW_DATA << 3 | O2C_PB_BYTES;
    p = o2c_pb_put_varint(p, nbytes);
    if (o2c_dtype_packed_bits(dtype))
        o2c_put_packed(p, dtype, data, zero ? 0 : count);
    else
        o2c_put_raw_elements(p, data, nbytes / size, size);
    *out = buf;
    *out_len = total;
    return NULL;
}

static const char *o2c_tensor_write_file(const char *path, const char *name, int32_t dtype,
                                         int32_t rank, const int64_t *dims, const void *data)
{
    uint8_t *buf;
    size_t len;
    int bad;
    FILE *f;
    const char *why = o2c_tensor_encode(name, dtype, rank, dims, data, &buf, &len);
    if (why)
        return why;
    f = fopen(path, "wb");
    if (!f) {
        why = strerror(errno);
        free(buf);
        return why;
    }
    bad = fwrite(buf, 1, len, f) != len;
    bad |= fclose(f) != 0;
    free(buf);
    return bad ? "write error" : NULL;
}
