/* lowtypes.c — Cast and CastLike to and from the float8, float4, 4-bit and 2-bit integer
 * types (templates/lowtypes.c, which documents their storage: one byte per element).
 *
 * cast_infer (tensor.c) hands a Cast or CastLike with such a type at either end to
 * lowcast_infer, which turns a CastLike into the Cast it is (as simplify.c would, which would
 * then bind it to the plain Cast entry) and binds the node to the op entry "Cast(low)",
 * whose emitted code needs templates/types.c and templates/lowtypes.c. promote_half leaves
 * these casts alone: cast_low converts float16 and bfloat16 itself (exactly, through float). */
#include "kernels.h"
#include "ops.h"

#include <string.h>

bool is_low_type(DType t)
{
    return t >= DT_FLOAT8E4M3FN && t <= DT_INT2;
}

/* The other end of a cast_low conversion: a low type or one of cast_half's types. */
static bool is_cast_low_type(DType t)
{
    switch (t) {
    case DT_FLOAT:
    case DT_DOUBLE:
    case DT_FLOAT16:
    case DT_BFLOAT16:
    case DT_BOOL:
    case DT_UINT8:
    case DT_INT8:
    case DT_UINT16:
    case DT_INT16:
    case DT_UINT32:
    case DT_INT32:
    case DT_UINT64:
    case DT_INT64: return true;
    default: return is_low_type(t);
    }
}

static DType lowcast_target(const Node *n)
{
    if (!strcmp(n->op_type, "CastLike"))
        return n->inputs[1]->dtype;
    const Attr *a = attr_get(n, "to");
    if (!a || a->type != ATTR_INT)
        fatal_at(n, "attribute 'to' (an int) is required");
    return (DType)a->i;
}

/* round_mode as cast_low takes it: 0 up, 1 down, 2 nearest. */
static int lowcast_round_mode(const Node *n)
{
    static const char *const modes[] = {"up", "down", "nearest"};
    const char *s = attr_string(n, "round_mode", "up");
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, modes[i]))
            return i;
    fatal_at(n, "round_mode '%s' is not one of up, down, nearest", s);
}

static int lowcast_saturate(const Node *n)
{
    int64_t s = attr_int(n, "saturate", 1);
    if (s != 0 && s != 1)
        fatal_at(n, "saturate must be 0 or 1, not %lld", (long long)s);
    return (int)s;
}

void lowcast_infer(Node *n)
{
    const Value *x = n->inputs[0];
    DType to = lowcast_target(n);
    if (!is_cast_low_type(x->dtype))
        fatal_at(n, "cast from %s to %s is not supported", dtype_name(x->dtype), dtype_name(to));
    if (!is_cast_low_type(to))
        fatal_at(n, "cast from %s to %s is not supported", dtype_name(x->dtype), dtype_name(to));
    lowcast_saturate(n);
    lowcast_round_mode(n);
    if (!strcmp(n->op_type, "CastLike")) {
        node_resize_inputs(n, 1);
        n->op_type = xstrdup("Cast");
        attr_set_int(n, "to", (int64_t)to);
    }
    n->op = op_lookup("Cast(low)");
    set_shape(n->outputs[0], to, x->rank, x->dims);
}

void lowcast_fold(Node *n)
{
    const Value *x = n->inputs[0];
    Value *y = n->outputs[0];
    cast_low(value_numel(x), (int)x->dtype, x->data, (int)y->dtype, y->data, lowcast_saturate(n),
             lowcast_round_mode(n));
}

void lowcast_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *y = n->outputs[0];
    println(e, "cast_low(%lld, %d, %s, %d, %s, %d, %d); /* %s -> %s */", (long long)value_numel(x),
            (int)x->dtype, value_cname(e, x), (int)y->dtype, value_cname(e, y), lowcast_saturate(n),
            lowcast_round_mode(n), dtype_name(x->dtype), dtype_name(y->dtype));
}
