/* shape.c — constants, shape arithmetic and data movement: Constant, Identity, Dropout,
 * Shape, Reshape, Flatten, Squeeze, Unsqueeze (views of their input's buffer), Transpose,
 * Concat, Gather. On constant inputs (shape subgraphs of exported models) they fold. */
#include "kernels.h"
#include "ops.h"

#include <string.h>

/* ---- Constant ---- */

void constant_infer(Node *n)
{
    static const char *const kinds[] = {"value",         "value_float", "value_floats",
                                        "value_int",     "value_ints",  "value_string",
                                        "value_strings", "sparse_value"};
    int given = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        given += attr_get(n, kinds[i]) != NULL;
    if (given > 1)
        fatal_at(n, "has %d value attributes; ONNX allows exactly one", given);
    const Attr *a = attr_get(n, "value");
    Value *y = n->outputs[0];
    if (a && a->type == ATTR_TENSOR) {
        set_shape(y, a->t->dtype, a->t->rank, a->t->dims);
        return;
    }
    if ((a = attr_get(n, "value_float"))) {
        set_shape(y, DT_FLOAT, 0, NULL);
    } else if ((a = attr_get(n, "value_int"))) {
        set_shape(y, DT_INT64, 0, NULL);
    } else if ((a = attr_get(n, "value_floats")) || (a = attr_get(n, "value_ints"))) {
        int64_t len = a->n;
        set_shape(y, a->type == ATTR_FLOATS ? DT_FLOAT : DT_INT64, 1, &len);
    } else {
        fatal_at(n, "has no supported value attribute (value, value_float(s), value_int(s))");
    }
}

void constant_fold(Node *n)
{
    const Attr *a;
    Value *y = n->outputs[0];
    if ((a = attr_get(n, "value")) && a->type == ATTR_TENSOR)
        memcpy(y->data, a->t->data, (size_t)value_bytes(y));
    else if ((a = attr_get(n, "value_float")))
        *(float *)y->data = a->f;
    else if ((a = attr_get(n, "value_int")))
        *(int64_t *)y->data = a->i;
    else if ((a = attr_get(n, "value_floats")))
        memcpy(y->data, a->floats, (size_t)a->n * sizeof(float));
    else if ((a = attr_get(n, "value_ints")))
        memcpy(y->data, a->ints, (size_t)a->n * sizeof(int64_t));
    y->is_weight = true;
}

/* ---- views: Identity, Dropout, Reshape, Flatten, Squeeze, Unsqueeze ---- */

void view_fold(Node *n)
{
    memcpy(n->outputs[0]->data, n->inputs[0]->data, (size_t)value_bytes(n->outputs[0]));
}

/* Dropout at inference is the identity; its optional mask output is all true. */
void identity_infer(Node *n)
{
    same_shape_infer(n);
    if (!strcmp(n->op_type, "Dropout")) {
        if (dropout_training(n))
            return; /* seeded training mode (random.c); else the identity below */
        if (n->opset < 7 && attr_int(n, "is_test", 0) == 0)
            fatal_at(n, "training mode is not supported (set is_test=1)");
        if (n->noutputs > 1) {
            Value *mask = n->outputs[1];
            set_shape(mask, DT_BOOL, n->inputs[0]->rank, n->inputs[0]->dims);
            mask->data = xcalloc(1, (size_t)value_bytes(mask) + 1);
            memset(mask->data, 1, (size_t)value_bytes(mask));
            mask->is_weight = true;
        }
    }
}

void reshape_infer(Node *n)
{
    const Value *x = n->inputs[0];
    int count;
    int64_t *shape = const_ints(n, n->inputs[1], &count);
    if (count > MAX_RANK)
        fatal_at(n, "target rank %d is more than %d", count, MAX_RANK);
    bool allow_zero = attr_int(n, "allowzero", 0) != 0;
    int64_t dims[MAX_RANK], known = 1, total = value_numel(x);
    int infer_at = -1;
    for (int i = 0; i < count; i++) {
        dims[i] = shape[i];
        if (shape[i] == 0 && !allow_zero) {
            if (i >= x->rank)
                fatal_at(n, "shape entry %d is 0 but the input has rank %d", i, x->rank);
            dims[i] = x->dims[i];
        } else if (shape[i] == -1) {
            if (infer_at >= 0)
                fatal_at(n, "more than one -1 in the target shape");
            infer_at = i;
            continue;
        } else if (shape[i] < 0) {
            fatal_at(n, "invalid target dim %lld", (long long)shape[i]);
        }
        known = checked_mul(n, known, dims[i]);
    }
    if (infer_at >= 0) {
        if (known == 0 || total % known)
            fatal_at(n, "cannot infer the -1 dim: %lld elements into blocks of %lld",
                     (long long)total, (long long)known);
        dims[infer_at] = total / known;
        known *= dims[infer_at];
    }
    if (known != total)
        fatal_at(n, "cannot reshape %lld elements into %lld", (long long)total, (long long)known);
    set_shape(n->outputs[0], x->dtype, count, dims);
}

void flatten_infer(Node *n)
{
    const Value *x = n->inputs[0];
    int64_t a = attr_int(n, "axis", 1);
    if (a < -x->rank || a > x->rank)
        fatal_at(n, "axis %lld is out of range for rank %d", (long long)a, x->rank);
    int axis = (int)(a < 0 ? a + x->rank : a);
    int64_t dims[2] = {1, 1};
    for (int i = 0; i < x->rank; i++)
        dims[i >= axis] = checked_mul(n, dims[i >= axis], x->dims[i]);
    set_shape(n->outputs[0], x->dtype, 2, dims);
}

/* Axes come from the attribute before opset 13 and from the optional input since. */
static int64_t *axes_list(const Node *n, int *count)
{
    const Value *in = node_input(n, 1);
    if (in)
        return const_ints(n, in, count);
    const int64_t *axes;
    *count = attr_ints(n, "axes", &axes);
    return (int64_t *)axes;
}

void squeeze_infer(Node *n)
{
    const Value *x = n->inputs[0];
    int count;
    int64_t *axes = axes_list(n, &count);
    bool drop[MAX_RANK] = {false};
    for (int i = 0; i < count; i++) {
        int ax = normalize_axis(n, axes[i], x->rank);
        if (x->dims[ax] != 1)
            fatal_at(n, "cannot squeeze axis %d of size %lld", ax, (long long)x->dims[ax]);
        drop[ax] = true;
    }
    int64_t dims[MAX_RANK];
    int r = 0;
    for (int i = 0; i < x->rank; i++)
        if (!(count < 0 ? x->dims[i] == 1 : drop[i]))
            dims[r++] = x->dims[i];
    set_shape(n->outputs[0], x->dtype, r, dims);
}

void unsqueeze_infer(Node *n)
{
    const Value *x = n->inputs[0];
    int count;
    int64_t *axes = axes_list(n, &count);
    if (count < 0)
        fatal_at(n, "axes are required");
    int r = x->rank + count;
    if (r > MAX_RANK)
        fatal_at(n, "output rank %d is more than %d", r, MAX_RANK);
    bool inserted[MAX_RANK] = {false};
    for (int i = 0; i < count; i++) {
        int ax = normalize_axis(n, axes[i], r);
        if (inserted[ax])
            fatal_at(n, "axis %d is repeated", ax);
        inserted[ax] = true;
    }
    int64_t dims[MAX_RANK];
    for (int i = 0, j = 0; i < r; i++)
        dims[i] = inserted[i] ? 1 : x->dims[j++];
    set_shape(n->outputs[0], x->dtype, r, dims);
}

/* ---- Shape ---- */

static void shape_range(const Node *n, int *start, int *end)
{
    int r = n->inputs[0]->rank;
    int64_t s = attr_int(n, "start", 0), e = attr_int(n, "end", r);
    s = s < 0 ? s + r : s;
    e = e < 0 ? e + r : e;
    *start = (int)(s < 0 ? 0 : s > r ? r : s);
    *end = (int)(e < 0 ? 0 : e > r ? r : e);
    if (*end < *start)
        *end = *start;
}

void shape_infer(Node *n)
{
    int s, e;
    shape_range(n, &s, &e);
    int64_t len = e - s;
    set_shape(n->outputs[0], DT_INT64, 1, &len);
    /* Shapes are static, so Shape is always a constant, whatever its input. */
    Value *y = n->outputs[0];
    y->data = xcalloc((size_t)len + 1, sizeof(int64_t));
    memcpy(y->data, n->inputs[0]->dims + s, (size_t)len * sizeof(int64_t));
}

void shape_fold(Node *n)
{
    (void)n; /* computed by shape_infer */
}

/* ---- Transpose ---- */

static void transpose_perm(const Node *n, int32_t *perm)
{
    int r = n->inputs[0]->rank;
    const int64_t *p;
    int count = attr_ints(n, "perm", &p);
    bool seen[MAX_RANK] = {false};
    if (count >= 0 && count != r)
        fatal_at(n, "perm has %d entries for rank %d", count, r);
    for (int i = 0; i < r; i++) {
        int64_t v = count < 0 ? r - 1 - i : p[i];
        if (v < 0 || v >= r || seen[v])
            fatal_at(n, "perm is not a permutation of 0..%d", r - 1);
        seen[v] = true;
        perm[i] = (int32_t)v;
    }
}

void transpose_infer(Node *n)
{
    const Value *x = n->inputs[0];
    int32_t perm[MAX_RANK];
    transpose_perm(n, perm);
    int64_t dims[MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        dims[i] = x->dims[perm[i]];
    if (!dtype_size(x->dtype))
        fatal_at(n, "type %s is not supported", dtype_name(x->dtype));
    set_shape(n->outputs[0], x->dtype, x->rank, dims);
}

void transpose_fold(Node *n)
{
    const Value *x = n->inputs[0];
    int32_t perm[MAX_RANK];
    transpose_perm(n, perm);
    transpose_bytes(x->rank, x->dims, perm, (int64_t)dtype_size(x->dtype), x->data,
                    n->outputs[0]->data);
}

void transpose_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    int32_t perm[MAX_RANK];
    transpose_perm(n, perm);
    const char *dims = emit_dims(e, x->rank, x->dims);
    const char *pname = xprintf("perm%d", e->counter++);
    fprintf(e->out, "%*sstatic const int32_t %s[] = {", 4 * e->indent, "", pname);
    for (int i = 0; i < x->rank; i++)
        fprintf(e->out, "%s%d", i ? ", " : "", (int)perm[i]);
    fprintf(e->out, "%s};\n", x->rank ? "" : "0");
    println(e, "transpose_bytes(%d, %s, %s, %d, %s, %s);", x->rank, dims, pname,
            (int)dtype_size(x->dtype), value_cname(e, x), value_cname(e, n->outputs[0]));
}

/* ---- Concat ---- */

void concat_infer(Node *n)
{
    const Value *x0 = n->inputs[0];
    if (!attr_get(n, "axis"))
        fatal_at(n, "attribute 'axis' is required");
    int axis = normalize_axis(n, attr_int(n, "axis", 0), x0->rank);
    int64_t dims[MAX_RANK];
    memcpy(dims, x0->dims, sizeof dims);
    dims[axis] = 0;
    for (int i = 0; i < n->ninputs; i++) {
        const Value *x = n->inputs[i];
        if (!x)
            fatal_at(n, "input %d is missing", i);
        if (x->dtype != x0->dtype || x->rank != x0->rank)
            fatal_at(n, "input '%s' differs in type or rank from the first input", x->name);
        for (int d = 0; d < x->rank; d++)
            if (d != axis && x->dims[d] != x0->dims[d])
                fatal_at(n, "input '%s' differs in dim %d", x->name, d);
        dims[axis] = checked_add(n, dims[axis], x->dims[axis]);
    }
    set_shape(n->outputs[0], x0->dtype, x0->rank, dims);
}

/* Concat as blocks: outer = product of dims before the axis; each input contributes a block
 * of (its axis dim x inner) elements per outer index. */
typedef struct ConcatGeometry {
    int64_t outer, inner_bytes, y_block;
} ConcatGeometry;

static ConcatGeometry concat_geometry(const Node *n)
{
    const Value *y = n->outputs[0];
    int axis = normalize_axis(n, attr_int(n, "axis", 0), y->rank);
    ConcatGeometry g = {1, (int64_t)dtype_size(y->dtype), 0};
    for (int d = 0; d < axis; d++)
        g.outer *= y->dims[d];
    for (int d = axis + 1; d < y->rank; d++)
        g.inner_bytes *= y->dims[d];
    g.y_block = g.inner_bytes * y->dims[axis];
    return g;
}

static int64_t concat_axis_dim(const Node *n, int i)
{
    int axis = normalize_axis(n, attr_int(n, "axis", 0), n->outputs[0]->rank);
    return n->inputs[i]->dims[axis];
}

void concat_fold(Node *n)
{
    ConcatGeometry g = concat_geometry(n);
    int64_t off = 0;
    for (int i = 0; i < n->ninputs; i++) {
        int64_t block = g.inner_bytes * concat_axis_dim(n, i);
        concat_bytes(g.outer, block, g.y_block, off, n->inputs[i]->data, n->outputs[0]->data);
        off += block;
    }
}

/* Copies each input into its block of the output, but for the inputs planned in their block
 * (plan_arena: their producers wrote them there, as one block or as strided rows). */
void concat_emit(Emitter *e, Node *n)
{
    ConcatGeometry g = concat_geometry(n);
    int64_t off = 0;
    for (int i = 0; i < n->ninputs; i++) {
        int64_t block = g.inner_bytes * concat_axis_dim(n, i);
        const int64_t stride = n->inputs[i]->row_stride * (int64_t)dtype_size(n->inputs[i]->dtype);
        if ((g.outer == 1 || stride == g.y_block) &&
            value_in_slice(n->inputs[i], n->outputs[0], off)) {
            println(e, "/* input %d '%s' is in place */", i, comment_text(n->inputs[i]->name));
            off += block;
            continue;
        }
        println(e, "concat_bytes(%lld, %lld, %lld, %lld, %s, %s);", (long long)g.outer,
                (long long)block, (long long)g.y_block, (long long)off,
                value_cname(e, n->inputs[i]), value_cname(e, n->outputs[0]));
        off += block;
    }
}

/* ---- Gather ---- */

void gather_infer(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    int axis = normalize_axis(n, attr_int(n, "axis", 0), x->rank);
    if (idx->dtype != DT_INT64 && idx->dtype != DT_INT32)
        fatal_at(n, "indices must be int64 or int32, not %s", dtype_name(idx->dtype));
    if (idx->dtype == DT_INT32 && !idx->data)
        fatal_at(n, "non-constant int32 indices are not supported (int64 are)");
    int r = x->rank - 1 + idx->rank;
    if (r > MAX_RANK)
        fatal_at(n, "output rank %d is more than %d", r, MAX_RANK);
    int64_t dims[MAX_RANK];
    int k = 0;
    for (int i = 0; i < axis; i++)
        dims[k++] = x->dims[i];
    for (int i = 0; i < idx->rank; i++)
        dims[k++] = idx->dims[i];
    for (int i = axis + 1; i < x->rank; i++)
        dims[k++] = x->dims[i];
    if (idx->data) {
        int64_t count = value_numel(idx);
        for (int64_t i = 0; i < count; i++) {
            int64_t v = idx->dtype == DT_INT64 ? ((const int64_t *)idx->data)[i]
                                               : ((const int32_t *)idx->data)[i];
            if (v < -x->dims[axis] || v >= x->dims[axis])
                fatal_at(n, "index %lld is out of range for axis of size %lld", (long long)v,
                         (long long)x->dims[axis]);
        }
    }
    set_shape(n->outputs[0], x->dtype, r, dims);
}

typedef struct GatherGeometry {
    int64_t outer, axis_len, inner_bytes, count;
} GatherGeometry;

static GatherGeometry gather_geometry(const Node *n)
{
    const Value *x = n->inputs[0];
    int axis = normalize_axis(n, attr_int(n, "axis", 0), x->rank);
    GatherGeometry g = {1, x->dims[axis], (int64_t)dtype_size(x->dtype), value_numel(n->inputs[1])};
    for (int i = 0; i < axis; i++)
        g.outer *= x->dims[i];
    for (int i = axis + 1; i < x->rank; i++)
        g.inner_bytes *= x->dims[i];
    return g;
}

void gather_fold(Node *n)
{
    GatherGeometry g = gather_geometry(n);
    gather_bytes(g.outer, g.axis_len, g.inner_bytes, n->inputs[0]->data, indices_i64(n->inputs[1]),
                 g.count, n->outputs[0]->data);
}

void gather_emit(Emitter *e, Node *n)
{
    GatherGeometry g = gather_geometry(n);
    Value *idx = n->inputs[1];
    const char *iname = indices_cname(e, idx);
    println(e, "gather_bytes(%lld, %lld, %lld, %s, %s, %lld, %s);", (long long)g.outer,
            (long long)g.axis_len, (long long)g.inner_bytes, value_cname(e, n->inputs[0]), iname,
            (long long)g.count, value_cname(e, n->outputs[0]));
}
