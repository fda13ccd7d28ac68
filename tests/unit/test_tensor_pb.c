/* test_tensor_pb.c - unit test of runtime_min/tensor_pb.c, the harness's TensorProto reader and
 * writer.
 *
 *   test_tensor_pb [FIXTURE_DIR]      (default: fixtures, relative to the working directory)
 *
 * Checks: decoding the fixture files against the values gen_tensor_pb_fixtures.py wrote
 * (fixtures/expected.h); encode -> decode round trips, byte-identical to onnx's own writer for
 * from_array files; every truncation and many one-byte corruptions of every fixture (run under
 * -fsanitize=address to see that nothing reads past the input); hand-written malformed messages,
 * each of which must be rejected; and file reading and writing. Exit status 0 when all pass.
 */
#include "../../runtime_min/tensor_pb.c"

#include "fixtures/expected.h"

static int n_passed, n_failed;

static void check(int ok, const char *context, const char *what, int line)
{
    if (ok) {
        n_passed++;
        return;
    }
    n_failed++;
    printf("FAIL (line %d) %s: %s\n", line, context, what);
}

#define CHECK(context, cond) check((cond) != 0, (context), #cond, __LINE__)

/* Reads a fixture into an exactly-sized heap buffer, so ASan sees any read past its end. */
static uint8_t *load_file(const char *dir, const char *file, size_t *len)
{
    char path[512];
    uint8_t tmp[4096], *buf;
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    f = fopen(path, "rb");
    if (!f)
        return NULL;
    *len = fread(tmp, 1, sizeof tmp, f);
    fclose(f);
    buf = (uint8_t *)malloc(*len ? *len : 1);
    if (buf)
        memcpy(buf, tmp, *len);
    return buf;
}

static uint8_t *copy_bytes(const uint8_t *src, size_t len)
{
    uint8_t *p = (uint8_t *)malloc(len ? len : 1);
    if (p && len)
        memcpy(p, src, len);
    return p;
}

static int same_dims(const o2c_tensor *t, int32_t rank, const int64_t *dims)
{
    int32_t i;
    if (t->rank != rank)
        return 0;
    for (i = 0; i < rank; i++)
        if (t->dims[i] != dims[i])
            return 0;
    return 1;
}

static int same_tensor(const o2c_tensor *a, const o2c_tensor *b)
{
    return a->dtype == b->dtype && same_dims(a, b->rank, b->dims) && a->count == b->count &&
           strcmp(a->name, b->name) == 0 &&
           memcmp(a->data, b->data, a->count * o2c_dtype_size(a->dtype)) == 0;
}

/* A decode that succeeded must describe a consistent tensor. */
static int consistent(const o2c_tensor *t)
{
    size_t count = 1;
    int32_t i;
    for (i = 0; i < t->rank; i++)
        count *= (size_t)t->dims[i];
    return t->name && t->data && o2c_dtype_size(t->dtype) > 0 && t->rank >= 0 &&
           t->rank <= O2C_TENSOR_MAX_RANK && count == t->count;
}

static void test_fixture_values(const char *dir, const expected_tensor *e)
{
    char path[512];
    o2c_tensor t;
    const char *why;
    snprintf(path, sizeof path, "%s/%s", dir, e->file);
    why = o2c_tensor_read_file(path, &t);
    CHECK(e->file, why == NULL);
    if (why) {
        printf("  %s: %s\n", path, why);
        return;
    }
    CHECK(e->file, t.dtype == e->dtype);
    CHECK(e->file, same_dims(&t, e->rank, e->dims));
    CHECK(e->file, t.count == e->count);
    CHECK(e->file, strcmp(t.name, e->name) == 0);
    CHECK(e->file, memcmp(t.data, e->bits, e->count * o2c_dtype_size(e->dtype)) == 0);
    CHECK(e->file, strcmp(o2c_dtype_name(t.dtype), "unsupported") != 0);
    o2c_tensor_free(&t);
}

/* encode(decode(file)) decodes to the same tensor; from_array files come back byte for byte. */
static void test_round_trip(const uint8_t *file, size_t len, const expected_tensor *e)
{
    o2c_tensor a, b;
    uint8_t *enc = NULL;
    size_t enc_len = 0;
    if (o2c_tensor_decode(file, len, &a) != NULL) {
        CHECK(e->file, !"decodes");
        return;
    }
    CHECK(e->file, o2c_tensor_encode(e->name[0] ? e->name : NULL, a.dtype, a.rank, a.dims, a.data,
                                     &enc, &enc_len) == NULL);
    if (e->onnx_layout)
        CHECK(e->file, enc_len == len && memcmp(enc, file, len) == 0);
    CHECK(e->file, o2c_tensor_decode(enc, enc_len, &b) == NULL);
    CHECK(e->file, same_tensor(&a, &b));
    free(enc);
    o2c_tensor_free(&a);
    o2c_tensor_free(&b);
}

/* Every strict prefix: never a crash; for from_array files (raw_data comes last) always an
 * error, since a prefix lacks all or part of the data. */
static void test_truncations(const uint8_t *file, size_t len, const expected_tensor *e)
{
    size_t n;
    int all_safe = 1, all_rejected = 1;
    for (n = 0; n < len; n++) {
        uint8_t *p = copy_bytes(file, n);
        o2c_tensor t;
        if (o2c_tensor_decode(p, n, &t) == NULL) {
            all_safe &= consistent(&t);
            all_rejected = 0;
        }
        o2c_tensor_free(&t);
        free(p);
    }
    CHECK(e->file, all_safe);
    if (e->onnx_layout && e->count > 0)
        CHECK(e->file, all_rejected);
}

/* One-byte corruptions at every position: decode must either fail or give a sane tensor. */
static void test_corruptions(const uint8_t *file, size_t len, const expected_tensor *e)
{
    static const int deltas[] = {-1, 0x00, 0xff, 0x80, 0x7f, 0x01};
    size_t i, k;
    int all_safe = 1;
    for (i = 0; i < len; i++) {
        for (k = 0; k < sizeof deltas / sizeof deltas[0]; k++) {
            uint8_t *p = copy_bytes(file, len);
            o2c_tensor t;
            p[i] = deltas[k] < 0 ? (uint8_t)(p[i] ^ 0x80) : (uint8_t)deltas[k];
            if (o2c_tensor_decode(p, len, &t) == NULL)
                all_safe &= consistent(&t);
            o2c_tensor_free(&t);
            free(p);
        }
    }
    CHECK(e->file, all_safe);
}

/* Hand-written messages, as hex. ok=1: must decode (and then `value`, when set, is element 0 as
 * a 64-bit pattern); ok=0: must be rejected. */
typedef struct crafted {
    const char *what;
    const char *hex;
    int ok;
} crafted;

static const crafted crafted_cases[] = {
    {"baseline float [1] raw", "08 01 10 01 4a 04 00 00 80 3f", 1},
    {"empty message", "", 0},
    {"varint with 11 bytes", "08 80 80 80 80 80 80 80 80 80 80 00 10 01", 0},
    {"varint 10th byte > 1", "08 01 10 81 80 80 80 80 80 80 80 80 02 4a 04 00 00 80 3f", 0},
    {"varint 10th byte 1", "08 01 10 81 80 80 80 80 80 80 80 80 01 4a 04 00 00 80 3f", 1},
    {"varint cut at end", "10 81", 0},
    {"length past the end", "08 02 10 01 4a 09 00 00 80 3f 00 00 80 3f", 0},
    {"length 2^64-1", "10 01 4a ff ff ff ff ff ff ff ff ff 01", 0},
    {"fixed32 cut", "08 01 10 01 25 00 00 80", 0},
    {"fixed64 cut", "08 01 10 0b 51 00 00 00 00 00 00 f0", 0},
    {"wire type 6", "0e 00", 0},
    {"wire type 7", "0f 00", 0},
    {"field number 0", "00 01 10 01", 0},
    {"tag above 32 bits", "80 80 80 80 10 01 10 01", 0},
    {"end-group at top level", "0c 10 01", 0},
    {"unterminated group", "08 01 10 01 4a 04 00 00 80 3f a3 06 08 01", 0},
    {"group ended by another field", "08 01 10 01 4a 04 00 00 80 3f a3 06 ac 06", 0},
    {"group skipped", "08 01 a3 06 08 05 1d 00 00 00 00 a4 06 10 01 4a 04 00 00 80 3f", 1},
    {"negative dim", "08 ff ff ff ff ff ff ff ff ff 01 10 01", 0},
    {"dims product overflows",
     "08 80 80 80 80 80 80 80 80 40 08 80 80 80 80 80 80 80 80 40 10 01 4a 00", 0},
    {"zero dim next to a huge one", "08 00 08 80 80 80 80 80 80 80 80 40 10 01 4a 00", 1},
    {"float_data packed, 3 bytes", "08 01 10 01 22 03 00 00 00", 0},
    {"double_data packed, 4 bytes", "08 01 10 0b 52 04 00 00 00 00", 0},
    {"int64_data packed, varint cut", "08 01 10 07 3a 01 80", 0},
    {"int64_data packed, overlong varint", "08 01 10 07 3a 0b ff ff ff ff ff ff ff ff ff ff 01", 0},
    {"raw_data too short", "08 02 10 01 4a 04 00 00 80 3f", 0},
    {"raw_data too long", "08 01 10 01 4a 05 00 00 80 3f 00", 0},
    {"int8 128", "08 01 10 03 2a 02 80 01", 0},
    {"int8 -129", "08 01 10 03 28 ff fe ff ff ff ff ff ff ff 01", 0},
    {"int8 -128 (unpacked, 10-byte varint)", "08 01 10 03 28 80 ff ff ff ff ff ff ff ff 01", 1},
    {"uint8 256", "08 01 10 02 28 80 02", 0},
    {"uint8 -1", "08 01 10 02 28 ff ff ff ff ff ff ff ff ff 01", 0},
    {"int16 32768", "08 01 10 05 28 80 80 02", 0},
    {"uint16 65536", "08 01 10 04 28 80 80 04", 0},
    {"float16 -1", "08 01 10 0a 28 ff ff ff ff ff ff ff ff ff 01", 0},
    {"bool 2 in int32_data", "08 01 10 09 28 02", 0},
    {"bool 2 in raw_data", "08 01 10 09 4a 01 02", 0},
    {"uint32 2^32", "08 01 10 0c 58 80 80 80 80 10", 0},
    {"int32_data keeps the low 32 bits", "08 01 10 06 28 85 80 80 80 10", 1},
    {"raw_data and float_data", "08 01 10 01 25 00 00 80 3f 4a 04 00 00 80 3f", 0},
    {"float_data for an int64 tensor", "08 01 10 07 25 00 00 80 3f", 0},
    {"float_data with too few elements", "08 02 10 01 25 00 00 80 3f", 0},
    {"float_data with too many elements", "08 01 10 01 22 08 00 00 80 3f 00 00 80 3f", 0},
    {"no data", "08 02 10 01", 0},
    {"empty tensor without data", "08 00 10 01", 1},
    {"scalar without dims", "10 07 38 05", 1},
    {"data_type missing", "08 01 4a 04 00 00 80 3f", 0},
    {"data_type 0", "08 01 10 00 4a 04 00 00 80 3f", 0},
    {"data_type string", "08 01 10 08 32 01 61", 0},
    {"data_type complex64", "08 01 10 0e 4a 08 00 00 80 3f 00 00 80 3f", 0},
    {"data_type -1", "08 01 10 ff ff ff ff ff ff ff ff ff 01 4a 01 00", 0},
    {"data_type as fixed32", "08 01 15 01 00 00 00 4a 04 00 00 80 3f", 0},
    {"name as varint", "08 01 10 01 40 01 4a 04 00 00 80 3f", 0},
    {"raw_data as varint", "08 01 10 01 48 01", 0},
    {"dims as fixed32", "0d 01 00 00 00 10 01 4a 04 00 00 80 3f", 0},
    {"float_data as varint", "08 01 10 01 20 01", 0},
    {"data_location external", "08 01 10 01 4a 04 00 00 80 3f 70 01", 0},
    {"data_location default", "08 01 10 01 4a 04 00 00 80 3f 70 00", 1},
    {"external_data", "08 01 10 01 4a 04 00 00 80 3f 6a 00", 0},
    {"segment", "08 01 10 01 4a 04 00 00 80 3f 1a 00", 0},
    {"unknown fields of every wire type",
     "a0 06 01 a9 06 01 02 03 04 05 06 07 08 b2 06 01 ff bd 06 01 02 03 04 "
     "08 01 10 01 4a 04 00 00 80 3f",
     1},
};

static size_t parse_hex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    unsigned v;
    int used;
    while (n < cap && sscanf(hex, " %2x%n", &v, &used) == 1) {
        out[n++] = (uint8_t)v;
        hex += used;
    }
    return n;
}

static void test_crafted(void)
{
    size_t i;
    for (i = 0; i < sizeof crafted_cases / sizeof crafted_cases[0]; i++) {
        const crafted *c = &crafted_cases[i];
        uint8_t tmp[256], *p;
        size_t len = parse_hex(c->hex, tmp, sizeof tmp);
        o2c_tensor t;
        const char *why;
        p = copy_bytes(tmp, len);
        why = o2c_tensor_decode(p, len, &t);
        CHECK(c->what, c->ok ? why == NULL : why != NULL);
        if (c->ok && why)
            printf("  %s: %s\n", c->what, why);
        if (!why)
            CHECK(c->what, consistent(&t));
        o2c_tensor_free(&t);
        free(p);
    }
}

static void expect_values(void)
{
    /* Values of the crafted cases that decode; the reader must find these elements. */
    uint8_t buf[64], *p;
    size_t len;
    o2c_tensor t;
    len = parse_hex("08 01 10 06 28 85 80 80 80 10", buf, sizeof buf);
    p = copy_bytes(buf, len);
    CHECK("int32 low bits",
          o2c_tensor_decode(p, len, &t) == NULL && t.count == 1 && ((int32_t *)t.data)[0] == 5);
    o2c_tensor_free(&t);
    free(p);
    len = parse_hex("08 01 10 03 28 80 ff ff ff ff ff ff ff ff 01", buf, sizeof buf);
    p = copy_bytes(buf, len);
    CHECK("int8 -128", o2c_tensor_decode(p, len, &t) == NULL && ((int8_t *)t.data)[0] == -128);
    o2c_tensor_free(&t);
    free(p);
    len = parse_hex("10 07 38 05", buf, sizeof buf);
    p = copy_bytes(buf, len);
    CHECK("scalar int64",
          o2c_tensor_decode(p, len, &t) == NULL && t.rank == 0 && ((int64_t *)t.data)[0] == 5);
    o2c_tensor_free(&t);
    free(p);
}

/* Well-formed nested groups are skipped, but nesting deeper than the reader allows is refused
 * rather than recursed into (the stack is the limit otherwise). */
/* Decodes `hex` (a copy on the heap, so ASan sees overreads); NULL on success. */
static const char *decode_hex(const char *hex, o2c_tensor *t)
{
    uint8_t buf[64], *p;
    size_t len = parse_hex(hex, buf, sizeof buf);
    const char *why;
    p = copy_bytes(buf, len);
    why = o2c_tensor_decode(p, len, t);
    free(p);
    return why;
}

/* The 4-bit and 2-bit types (packed on the wire, one byte each in memory) and the 8-bit and
 * 4-bit float codes; byte patterns worked out by hand from onnx.proto's packing rule. */
static void test_low_types(void)
{
    static const int8_t i4[5] = {-8, -3, 0, 1, 7};
    static const uint8_t u2[5] = {0, 1, 2, 3, 1},
                         want_enc[] = {0x08, 0x05, 0x10, 0x16, 0x4a, 0x03, 0xd8, 0x10, 0x07};
    static const int64_t five[1] = {5};
    o2c_tensor t;
    uint8_t *enc = NULL;
    size_t enc_len = 0;
    /* int4 [5] = -8 -3 0 1 7: nibbles 8 d 0 1 7, low nibble first */
    CHECK("int4 raw", decode_hex("08 05 10 16 4a 03 d8 10 07", &t) == NULL && t.count == 5 &&
                          memcmp(t.data, i4, 5) == 0);
    o2c_tensor_free(&t);
    CHECK("int4 encode",
          o2c_tensor_encode(NULL, O2C_DTYPE_INT4, 1, five, i4, &enc, &enc_len) == NULL &&
              enc_len == sizeof want_enc && memcmp(enc, want_enc, enc_len) == 0);
    free(enc);
    /* uint2 [5] = 0 1 2 3 1 in int32_data, one packed byte per entry: 0xe4 (228), 0x01 */
    CHECK("uint2 int32_data",
          decode_hex("08 05 10 19 2a 03 e4 01 01", &t) == NULL && memcmp(t.data, u2, 5) == 0);
    o2c_tensor_free(&t);
    CHECK("uint2 raw",
          decode_hex("08 05 10 19 4a 02 e4 01", &t) == NULL && memcmp(t.data, u2, 5) == 0);
    o2c_tensor_free(&t);
    CHECK("int2 sign", decode_hex("08 04 10 1a 4a 01 e4", &t) == NULL &&
                           ((int8_t *)t.data)[2] == -2 && ((int8_t *)t.data)[3] == -1);
    o2c_tensor_free(&t);
    CHECK("int4 raw too short", decode_hex("08 05 10 16 4a 02 d8 10", &t) != NULL);
    CHECK("uint2 entry > 255", decode_hex("08 05 10 19 2a 03 80 02 01", &t) != NULL);
    CHECK("uint4 entries short", decode_hex("08 05 10 15 2a 02 10 32", &t) != NULL);
    /* float8e4m3fn [3] = 1, 448, -0.5 */
    CHECK("e4m3fn raw", decode_hex("08 03 10 11 4a 03 38 7e b0", &t) == NULL && t.count == 3 &&
                            o2c_low_float_value(t.dtype, ((uint8_t *)t.data)[1]) == 448.0);
    o2c_tensor_free(&t);
    CHECK("e4m3fn int32_data",
          decode_hex("08 01 10 11 28 b0 01", &t) == NULL && ((uint8_t *)t.data)[0] == 0xb0);
    o2c_tensor_free(&t);
    CHECK("e4m3fn codes",
          o2c_low_float_value(17, 0x38) == 1.0 && o2c_low_float_value(17, 0xb0) == -0.5 &&
              o2c_low_float_value(17, 0x01) == 1.0 / 512 && isnan(o2c_low_float_value(17, 0x7f)) &&
              isnan(o2c_low_float_value(17, 0xff)));
    CHECK("e4m3fnuz codes", o2c_low_float_value(18, 0x7f) == 240.0 &&
                                isnan(o2c_low_float_value(18, 0x80)) &&
                                o2c_low_float_value(18, 0x40) == 1.0);
    CHECK("e5m2 codes",
          o2c_low_float_value(19, 0x7b) == 57344.0 && isinf(o2c_low_float_value(19, 0xfc)) &&
              o2c_low_float_value(19, 0xfc) < 0 && isnan(o2c_low_float_value(19, 0x7d)));
    CHECK("e5m2fnuz codes", o2c_low_float_value(20, 0x7f) == 57344.0 &&
                                isnan(o2c_low_float_value(20, 0x80)) &&
                                o2c_low_float_value(20, 0x01) == ldexp(1.0, -17));
    CHECK("float4 codes", o2c_low_float_value(23, 0x7) == 6.0 &&
                              o2c_low_float_value(23, 0x1) == 0.5 &&
                              o2c_low_float_value(23, 0xb) == -1.5);
    CHECK("e8m0 codes", o2c_low_float_value(24, 127) == 1.0 &&
                            o2c_low_float_value(24, 0) == ldexp(1.0, -127) &&
                            isnan(o2c_low_float_value(24, 0xff)));
}

static void test_group_depth(void)
{
    static const int depths[2] = {5, 100};
    uint8_t buf[512];
    o2c_tensor t;
    int k, i;
    for (k = 0; k < 2; k++) {
        size_t n = 0;
        for (i = 0; i < depths[k]; i++) {
            buf[n++] = 0xa3; /* field 100, start group */
            buf[n++] = 0x06;
        }
        for (i = 0; i < depths[k]; i++) {
            buf[n++] = 0xa4; /* field 100, end group */
            buf[n++] = 0x06;
        }
        memcpy(buf + n, "\x08\x01\x10\x01\x4a\x04\x00\x00\x80\x3f", 10);
        n += 10;
        CHECK("group depth", (o2c_tensor_decode(buf, n, &t) == NULL) == (depths[k] < 32));
        o2c_tensor_free(&t);
    }
}

static void test_rank_limit(void)
{
    uint8_t buf[128];
    size_t n = 0, i;
    o2c_tensor t;
    int32_t rank;
    for (rank = O2C_TENSOR_MAX_RANK; rank <= O2C_TENSOR_MAX_RANK + 1; rank++) {
        n = 0;
        for (i = 0; i < (size_t)rank; i++) {
            buf[n++] = 0x08; /* dims: 1 */
            buf[n++] = 0x01;
        }
        memcpy(buf + n, "\x10\x01\x4a\x04\x00\x00\x80\x3f", 8);
        n += 8;
        CHECK("rank limit",
              (o2c_tensor_decode(buf, n, &t) == NULL) == (rank <= O2C_TENSOR_MAX_RANK));
        o2c_tensor_free(&t);
    }
}

static void test_encode_errors(void)
{
    int64_t dims[2] = {2, -1};
    float data[2] = {0, 0};
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECK("encode string", o2c_tensor_encode("x", 8, 1, dims, data, &buf, &len) != NULL);
    CHECK("encode negative dim", o2c_tensor_encode("x", 1, 2, dims, data, &buf, &len) != NULL);
    CHECK("encode rank",
          o2c_tensor_encode("x", 1, O2C_TENSOR_MAX_RANK + 1, dims, data, &buf, &len) != NULL);
    CHECK("dtype size", o2c_dtype_size(8) == 0 && o2c_dtype_size(0) == 0);
    CHECK("dtype name", strcmp(o2c_dtype_name(14), "unsupported") == 0);
}

static void test_files(const char *dir)
{
    static const int64_t dims[2] = {2, 2};
    static const int16_t data[4] = {-1, 2, -32768, 32767};
    char path[512];
    const char *tmp = getenv("TMPDIR");
    o2c_tensor t;
    int local;
    snprintf(path, sizeof path, "%s/o2c_test_tensor_pb_%p.pb", tmp ? tmp : "/tmp", (void *)&local);
    CHECK("write_file", o2c_tensor_write_file(path, "w", O2C_DTYPE_INT16, 2, dims, data) == NULL);
    CHECK("read back", o2c_tensor_read_file(path, &t) == NULL && t.dtype == O2C_DTYPE_INT16 &&
                           same_dims(&t, 2, dims) && strcmp(t.name, "w") == 0 &&
                           memcmp(t.data, data, sizeof data) == 0);
    o2c_tensor_free(&t);
    remove(path);
    snprintf(path, sizeof path, "%s/does_not_exist.pb", dir);
    CHECK("missing file", o2c_tensor_read_file(path, &t) != NULL && t.data == NULL);
    CHECK("directory", o2c_tensor_read_file(dir, &t) != NULL && t.data == NULL);
    CHECK("unwritable path", o2c_tensor_write_file("/nonexistent-dir/x.pb", "w", O2C_DTYPE_INT16, 2,
                                                   dims, data) != NULL);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "fixtures";
    size_t i;
    for (i = 0; i < sizeof expected_tensors / sizeof expected_tensors[0]; i++) {
        const expected_tensor *e = &expected_tensors[i];
        size_t len = 0;
        uint8_t *file = load_file(dir, e->file, &len);
        CHECK(e->file, file != NULL);
        if (!file) {
            printf("  cannot read %s/%s (run from tests/unit or pass the fixture dir)\n", dir,
                   e->file);
            continue;
        }
        test_fixture_values(dir, e);
        test_round_trip(file, len, e);
        test_truncations(file, len, e);
        test_corruptions(file, len, e);
        free(file);
    }
    test_crafted();
    expect_values();
    test_low_types();
    test_group_depth();
    test_rank_limit();
    test_encode_errors();
    test_files(dir);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}
