/* gather_scatter.c — GatherElements, ScatterElements (and the old Scatter), GatherND,
 * ScatterND. Kernels in templates/data.c, called with its type codes (TY_*, ops.h). Gather is
 * in shape.c. */
#include "kernels.h"
#include "ops.h"

#include <stdlib.h>
#include <string.h>

static int type_code(DType t)
{
    switch (t) {
    case DT_FLOAT: return TY_F32;
    case DT_INT64: return TY_I64;
    case DT_DOUBLE: return TY_F64;
    case DT_INT32: return TY_I32;
    default: return TY_BYTES;
    }
}

/* Index inputs: int64 as they are, or constant int32 (widened at compile time). */
static void require_indices(const Node *n, const Value *idx)
{
    if (idx->dtype != DT_INT64 && idx->dtype != DT_INT32)
        fatal_at(n, "indices must be int64 or int32, not %s", dtype_name(idx->dtype));
    if (idx->dtype == DT_INT32 && !idx->data)
        fatal_at(n, "non-constant int32 indices are not supported (int64 are)");
}

/* Scatter reductions: 0 none, 1 add, 2 mul, 3 max, 4 min. */
static int scatter_reduction(const Node *n)
{
    const char *r = attr_string(n, "reduction", "none");
    static const char *const names[] = {"none", "add", "mul", "max", "min"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(r, names[i])) {
            DType t = n->inputs[0]->dtype;
            if (i && type_code(t) == TY_BYTES)
                fatal_at(n,
                         "reduction '%s' on type %s is not supported (float32, float64, "
                         "int32, int64 are)",
                         r, dtype_name(t));
            return i;
        }
    fatal_at(n, "reduction '%s' is not one of none, add, mul, max, min", r);
}

/* ---- GatherElements, ScatterElements, Scatter ---- */

static int elements_axis(const Node *n)
{
    return normalize_axis(n, attr_int(n, "axis", 0), n->inputs[0]->rank);
}

/* Constant indices are checked here, once: the kernels trust them. Index i of idx addresses a
 * dim of size bounds[i % k]; negative indices count from the end. */
static void check_const_indices(const Node *n, const Value *idx, int64_t k, const int64_t *bounds)
{
    if (!idx->data)
        return;
    const int64_t *v = indices_i64(idx);
    for (int64_t i = 0, count = value_numel(idx); i < count; i++) {
        int64_t b = bounds[i % k];
        if (v[i] < -b || v[i] >= b)
            fatal_at(n, "index %lld is out of range for a dim of size %lld", (long long)v[i],
                     (long long)b);
    }
}

static void check_elements(const Node *n, const Value *x, const Value *idx)
{
    require_sized(n, x);
    require_indices(n, idx);
    if (idx->rank != x->rank || x->rank < 1)
        fatal_at(n, "indices must have the rank of the data (%d), not %d", x->rank, idx->rank);
    int axis = elements_axis(n);
    for (int d = 0; d < x->rank; d++)
        if (d != axis && idx->dims[d] > x->dims[d])
            fatal_at(n, "indices dim %d (%lld) is larger than the data's (%lld)", d,
                     (long long)idx->dims[d], (long long)x->dims[d]);
    check_const_indices(n, idx, 1, &x->dims[axis]);
}

void gather_elements_infer(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    check_elements(n, x, idx);
    set_shape(n->outputs[0], x->dtype, idx->rank, idx->dims);
}

void gather_elements_fold(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    gather_elements_bytes(x->rank, x->dims, idx->dims, elements_axis(n),
                          (int64_t)dtype_size(x->dtype), x->data, indices_i64(idx),
                          n->outputs[0]->data);
}

void gather_elements_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *idx = n->inputs[1];
    if (!value_numel(n->outputs[0]))
        return;
    const char *xd = emit_dims(e, x->rank, x->dims), *id = emit_dims(e, idx->rank, idx->dims);
    println(e, "gather_elements_bytes(%d, %s, %s, %d, %d, %s, %s, %s);", x->rank, xd, id,
            elements_axis(n), (int)dtype_size(x->dtype), value_cname(e, x), indices_cname(e, idx),
            value_cname(e, n->outputs[0]));
}

void scatter_elements_infer(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1], *u = n->inputs[2];
    check_elements(n, x, idx);
    if (u->dtype != x->dtype || u->rank != idx->rank ||
        memcmp(u->dims, idx->dims, sizeof(int64_t) * (size_t)u->rank))
        fatal_at(n, "updates must have the data's type and the indices' shape");
    scatter_reduction(n);
    same_shape_infer(n);
}

void scatter_elements_fold(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    scatter_elements(x->rank, x->dims, idx->dims, elements_axis(n), type_code(x->dtype),
                     scatter_reduction(n), (int64_t)dtype_size(x->dtype), x->data, indices_i64(idx),
                     n->inputs[2]->data, n->outputs[0]->data);
}

void scatter_elements_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0], *idx = n->inputs[1];
    if (!value_numel(x))
        return;
    const char *xd = emit_dims(e, x->rank, x->dims), *id = emit_dims(e, idx->rank, idx->dims);
    println(e, "scatter_elements(%d, %s, %s, %d, %d, %d, %d, %s, %s, %s, %s);", x->rank, xd, id,
            elements_axis(n), type_code(x->dtype), scatter_reduction(n), (int)dtype_size(x->dtype),
            value_cname(e, x), indices_cname(e, idx), value_cname(e, n->inputs[2]),
            value_cname(e, n->outputs[0]));
}

/* ---- GatherND, ScatterND ---- */

typedef struct NdGeometry {
    int64_t batch, n, k, slice_elems;
    int64_t dims[MAX_RANK]; /* the k indexed dims */
} NdGeometry;

static NdGeometry nd_geometry(const Node *n, int batch_dims)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    NdGeometry g = {1, 1, 0, 1, {0}};
    if (idx->rank < 1)
        fatal_at(n, "indices must have rank 1 or more");
    g.k = idx->dims[idx->rank - 1];
    if (batch_dims < 0 || batch_dims >= idx->rank || batch_dims >= x->rank)
        fatal_at(n, "batch_dims %d is out of range", batch_dims);
    if (g.k < 1 || g.k > x->rank - batch_dims)
        fatal_at(n, "the last indices dim (%lld) must be 1..%d", (long long)g.k,
                 x->rank - batch_dims);
    for (int d = 0; d < batch_dims; d++) {
        if (x->dims[d] != idx->dims[d])
            fatal_at(n, "batch dim %d differs between data and indices", d);
        g.batch *= x->dims[d];
    }
    for (int d = batch_dims; d < idx->rank - 1; d++)
        g.n *= idx->dims[d];
    for (int64_t d = 0; d < g.k; d++)
        g.dims[d] = x->dims[batch_dims + d];
    for (int d = batch_dims + (int)g.k; d < x->rank; d++)
        g.slice_elems *= x->dims[d];
    check_const_indices(n, idx, g.k, g.dims);
    return g;
}

void gather_nd_infer(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    require_sized(n, x);
    require_indices(n, idx);
    int b = (int)attr_int(n, "batch_dims", 0);
    NdGeometry g = nd_geometry(n, b);
    int64_t dims[MAX_RANK];
    int r = 0;
    for (int d = 0; d < idx->rank - 1; d++)
        dims[r++] = idx->dims[d];
    for (int d = b + (int)g.k; d < x->rank; d++) {
        if (r >= MAX_RANK)
            fatal_at(n, "output rank is more than %d", MAX_RANK);
        dims[r++] = x->dims[d];
    }
    set_shape(n->outputs[0], x->dtype, r, dims);
}

void gather_nd_fold(Node *n)
{
    const Value *x = n->inputs[0];
    NdGeometry g = nd_geometry(n, (int)attr_int(n, "batch_dims", 0));
    gather_nd_bytes(g.batch, g.n, g.k, g.dims, g.slice_elems * (int64_t)dtype_size(x->dtype),
                    x->data, indices_i64(n->inputs[1]), n->outputs[0]->data);
}

void gather_nd_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    if (!value_numel(n->outputs[0]))
        return;
    NdGeometry g = nd_geometry(n, (int)attr_int(n, "batch_dims", 0));
    const char *dims = emit_dims(e, (int)g.k, g.dims);
    println(e, "gather_nd_bytes(%lld, %lld, %lld, %s, %lld, %s, %s, %s);", (long long)g.batch,
            (long long)g.n, (long long)g.k, dims,
            (long long)(g.slice_elems * (int64_t)dtype_size(x->dtype)), value_cname(e, x),
            indices_cname(e, n->inputs[1]), value_cname(e, n->outputs[0]));
}

void scatter_nd_infer(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1], *u = n->inputs[2];
    require_sized(n, x);
    require_indices(n, idx);
    NdGeometry g = nd_geometry(n, 0);
    int r = 0;
    int64_t dims[2 * MAX_RANK];
    for (int d = 0; d < idx->rank - 1; d++)
        dims[r++] = idx->dims[d];
    for (int d = (int)g.k; d < x->rank; d++)
        dims[r++] = x->dims[d];
    if (u->dtype != x->dtype || u->rank != r || memcmp(u->dims, dims, sizeof(int64_t) * (size_t)r))
        fatal_at(n, "updates must have the data's type and shape indices.shape[:-1] + "
                    "data.shape[k:]");
    scatter_reduction(n);
    same_shape_infer(n);
}

void scatter_nd_fold(Node *n)
{
    const Value *x = n->inputs[0];
    NdGeometry g = nd_geometry(n, 0);
    scatter_nd(value_numel(x), g.n, g.k, g.dims, g.slice_elems, type_code(x->dtype),
               scatter_reduction(n), (int64_t)dtype_size(x->dtype), x->data,
               indices_i64(n->inputs[1]), n->inputs[2]->data, n->outputs[0]->data);
}

void scatter_nd_emit(Emitter *e, Node *n)
{
    Value *x = n->inputs[0];
    if (!value_numel(x))
        return;
    NdGeometry g = nd_geometry(n, 0);
    const char *dims = emit_dims(e, (int)g.k, g.dims);
    println(e, "scatter_nd(%lld, %lld, %lld, %s, %lld, %d, %d, %d, %s, %s, %s, %s);",
            (long long)value_numel(x), (long long)g.n, (long long)g.k, dims,
            (long long)g.slice_elems, type_code(x->dtype), scatter_reduction(n),
            (int)dtype_size(x->dtype), value_cname(e, x), indices_cname(e, n->inputs[1]),
            value_cname(e, n->inputs[2]), value_cname(e, n->outputs[0]));
}
