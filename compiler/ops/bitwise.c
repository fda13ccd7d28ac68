/* bitwise.c — integer and bit ops (Mod, BitShift, BitwiseAnd, BitwiseOr, BitwiseXor,
 * BitwiseNot) and float classification (IsNaN, IsInf). Kernels in templates/types.c; the
 * broadcasting ones use the loop spaces of tensor.c (broadcast_loop). float16 and
 * bfloat16 operands compute in float32 (see promote_half.c). */
#include "kernels.h"
#include "ops.h"

#include <string.h>

typedef void (*TypesBinary)(int, const int64_t *, const int64_t *, const int64_t *, const void *,
                            const void *, void *);
typedef void (*TypesUnary)(int64_t, const void *, void *);

/* The integer types, in the order of the kernel rows below. */
static const struct {
    DType t;
    const char *suffix;
} int_types[] = {
    {DT_INT8, "i8"},   {DT_UINT8, "u8"},   {DT_INT16, "i16"}, {DT_UINT16, "u16"},
    {DT_INT32, "i32"}, {DT_UINT32, "u32"}, {DT_INT64, "i64"}, {DT_UINT64, "u64"},
};
#define NUM_INT_TYPES ((int)(sizeof int_types / sizeof int_types[0]))
#define INT_ROW(op)                                                                                \
    {                                                                                              \
        op##_i8, op##_u8, op##_i16, op##_u16, op##_i32, op##_u32, op##_i64, op##_u64               \
    }

static const TypesBinary fmod_int[] = INT_ROW(fmod), mod_int[] = INT_ROW(mod),
                         shl_int[] = INT_ROW(shl), shr_int[] = INT_ROW(shr),
                         and_int[] = INT_ROW(bitand), or_int[] = INT_ROW(bitor),
                         xor_int[] = INT_ROW(bitxor);
static const TypesUnary not_int[] = INT_ROW(bitnot);

static int int_type_index(DType t)
{
    for (int i = 0; i < NUM_INT_TYPES; i++)
        if (int_types[i].t == t)
            return i;
    return -1;
}

/* The broadcasting kernel of a binary node: its name in the emitted C and its function. */
typedef struct TypesKernel {
    const char *name;
    TypesBinary fn;
} TypesKernel;

static TypesKernel types_binary_kernel(const Node *n)
{
    const char *op = n->op_type;
    DType t = n->inputs[0]->dtype;
    int k = int_type_index(t);
    TypesKernel r = {0};
    if (!strcmp(op, "Mod")) {
        int64_t fmod = attr_int(n, "fmod", 0);
        if (fmod != 0 && fmod != 1)
            fatal_at(n, "attribute fmod is %lld, not 0 or 1", (long long)fmod);
        if (t == DT_FLOAT) {
            r.fn = fmod ? fmod_f32 : mod_f32;
            r.name = fmod ? "fmod_f32" : "mod_f32";
            return r;
        }
        if (t == DT_DOUBLE) {
            r.fn = fmod ? fmod_f64 : mod_f64;
            r.name = fmod ? "fmod_f64" : "mod_f64";
            return r;
        }
        if (k < 0)
            fatal_at(n,
                     "type %s is not supported (float16, bfloat16, float32, float64 and "
                     "[u]int8..64 are)",
                     dtype_name(t));
        r.fn = fmod ? fmod_int[k] : mod_int[k];
        r.name = xprintf("%s_%s", fmod ? "fmod" : "mod", int_types[k].suffix);
        return r;
    }
    if (k < 0)
        fatal_at(n, "type %s is not supported ([u]int8..64 are)", dtype_name(t));
    if (!strcmp(op, "BitShift")) {
        const char *dir = attr_string(n, "direction", "");
        if (!strcmp(dir, "LEFT"))
            r.fn = shl_int[k], r.name = "shl";
        else if (!strcmp(dir, "RIGHT"))
            r.fn = shr_int[k], r.name = "shr";
        else
            fatal_at(n, "attribute direction must be LEFT or RIGHT, not '%s'", dir);
    } else if (!strcmp(op, "BitwiseAnd")) {
        r.fn = and_int[k], r.name = "bitand";
    } else if (!strcmp(op, "BitwiseOr")) {
        r.fn = or_int[k], r.name = "bitor";
    } else if (!strcmp(op, "BitwiseXor")) {
        r.fn = xor_int[k], r.name = "bitxor";
    } else {
        unreachable();
    }
    r.name = xprintf("%s_%s", r.name, int_types[k].suffix);
    return r;
}

void types_binary_infer(Node *n)
{
    const Value *a = n->inputs[0], *b = n->inputs[1];
    if (a->dtype != b->dtype)
        fatal_at(n, "inputs have different types (%s, %s)", dtype_name(a->dtype),
                 dtype_name(b->dtype));
    types_binary_kernel(n); /* checks the type and attributes */
    int rank;
    int64_t dims[MAX_RANK];
    broadcast_shape(n, a, b, &rank, dims);
    set_shape(n->outputs[0], a->dtype, rank, dims);
}

void types_binary_fold(Node *n)
{
    Value *y = n->outputs[0];
    LoopSpace l = broadcast_loop(y, 2, n->inputs);
    types_binary_kernel(n).fn(l.rank, l.dims, l.strides[0], l.strides[1], n->inputs[0]->data,
                              n->inputs[1]->data, y->data);
}

void types_binary_emit(Emitter *e, Node *n)
{
    emit_broadcast_binary(e, n, types_binary_kernel(n).name);
}

/* ---- BitwiseNot ---- */

static int bitnot_index(const Node *n)
{
    int k = int_type_index(n->inputs[0]->dtype);
    if (k < 0)
        fatal_at(n, "type %s is not supported ([u]int8..64 are)", dtype_name(n->inputs[0]->dtype));
    return k;
}

void bitnot_infer(Node *n)
{
    bitnot_index(n);
    same_shape_infer(n);
}

void bitnot_fold(Node *n)
{
    not_int[bitnot_index(n)](value_numel(n->outputs[0]), n->inputs[0]->data, n->outputs[0]->data);
}

void bitnot_emit(Emitter *e, Node *n)
{
    println(e, "bitnot_%s(%lld, %s, %s);", int_types[bitnot_index(n)].suffix,
            (long long)value_numel(n->outputs[0]), value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}

/* ---- IsNaN, IsInf: float -> bool ---- */

static const char *classify_suffix(const Node *n)
{
    DType t = n->inputs[0]->dtype;
    if (t != DT_FLOAT && t != DT_DOUBLE)
        fatal_at(n, "type %s is not supported (float16, bfloat16, float32, float64 are)",
                 dtype_name(t));
    return t == DT_FLOAT ? "f32" : "f64";
}

static int detect(const Node *n, const char *name)
{
    int64_t v = attr_int(n, name, 1);
    if (v != 0 && v != 1)
        fatal_at(n, "attribute %s is %lld, not 0 or 1", name, (long long)v);
    return (int)v;
}

void classify_infer(Node *n)
{
    classify_suffix(n);
    if (!strcmp(n->op_type, "IsInf")) {
        detect(n, "detect_positive");
        detect(n, "detect_negative");
    }
    const Value *x = n->inputs[0];
    set_shape(n->outputs[0], DT_BOOL, x->rank, x->dims);
}

void classify_fold(Node *n)
{
    bool f32 = !strcmp(classify_suffix(n), "f32");
    int64_t len = value_numel(n->outputs[0]);
    const void *x = n->inputs[0]->data;
    uint8_t *y = n->outputs[0]->data;
    if (!strcmp(n->op_type, "IsNaN")) {
        (f32 ? isnan_f32 : isnan_f64)(len, x, y);
    } else {
        int pos = detect(n, "detect_positive"), neg = detect(n, "detect_negative");
        (f32 ? isinf_f32 : isinf_f64)(len, pos, neg, x, y);
    }
}

void classify_emit(Emitter *e, Node *n)
{
    const char *suffix = classify_suffix(n);
    long long len = (long long)value_numel(n->outputs[0]);
    const char *x = value_cname(e, n->inputs[0]), *y = value_cname(e, n->outputs[0]);
    if (!strcmp(n->op_type, "IsNaN"))
        println(e, "isnan_%s(%lld, %s, %s);", suffix, len, x, y);
    else
        println(e, "isinf_%s(%lld, %d, %d, %s, %s);", suffix, len, detect(n, "detect_positive"),
                detect(n, "detect_negative"), x, y);
}
