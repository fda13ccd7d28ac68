/* misc.c — the control family's ops: BitCast, ReverseSequence, TensorScatter, Unique
 * (fold-only: its output shape depends on the data), TfIdfVectorizer (integer tokens) and the
 * ai.onnx.ml numeric ops TreeEnsemble, ArrayFeatureExtractor and Binarizer. Kernels in
 * templates/misc.c. (Loop and Scan are unrolled before inference: unroll_loops.c.) */
#include "kernels.h"
#include "ops.h"

#include <stdlib.h>
#include <string.h>

static int64_t prod(const int64_t *dims, int from, int to)
{
    int64_t p = 1;
    for (int i = from; i < to; i++)
        p *= dims[i]; /* bounded by the value's size, checked by set_shape */
    return p;
}

/* ---- BitCast ---- */

void bitcast_infer(Node *n)
{
    const Value *x = n->inputs[0];
    DType to = (DType)attr_int(n, "to", 0);
    require_sized(n, x);
    if (!dtype_size(to) || dtype_size(to) != dtype_size(x->dtype))
        fatal_at(n, "cannot bit-cast %s to %s (both must be supported types of the same size)",
                 dtype_name(x->dtype), dtype_name(to));
    set_shape(n->outputs[0], to, x->rank, x->dims);
}

void bitcast_fold(Node *n)
{
    bitcast_copy(value_bytes(n->inputs[0]), n->inputs[0]->data, n->outputs[0]->data);
}

void bitcast_emit(Emitter *e, Node *n)
{
    println(e, "bitcast_copy(%lld, %s, %s);", (long long)value_bytes(n->inputs[0]),
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}

/* ---- ReverseSequence ---- */

static int revseq_batch_axis(const Node *n)
{
    int64_t b = attr_int(n, "batch_axis", 1), t = attr_int(n, "time_axis", 0);
    if (!((b == 0 && t == 1) || (b == 1 && t == 0)))
        fatal_at(n, "batch_axis and time_axis must be 0 and 1 (in either order)");
    return (int)b;
}

void revseq_infer(Node *n)
{
    const Value *x = n->inputs[0], *lens = n->inputs[1];
    require_sized(n, x);
    if (x->rank < 2)
        fatal_at(n, "input must have rank 2 or more");
    int b = revseq_batch_axis(n);
    require_dtype(n, lens, DT_INT64);
    if (lens->rank != 1 || lens->dims[0] != x->dims[b])
        fatal_at(n, "sequence_lens must be 1-D with the batch size %lld", (long long)x->dims[b]);
    same_shape_infer(n);
}

void revseq_fold(Node *n)
{
    const Value *x = n->inputs[0];
    reverse_sequence(x->dims[0], x->dims[1], prod(x->dims, 2, x->rank), revseq_batch_axis(n),
                     n->inputs[1]->data, (int64_t)dtype_size(x->dtype), x->data,
                     n->outputs[0]->data);
}

void revseq_emit(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0];
    println(e, "reverse_sequence(%lld, %lld, %lld, %d, %s, %lld, %s, %s);", (long long)x->dims[0],
            (long long)x->dims[1], (long long)prod(x->dims, 2, x->rank), revseq_batch_axis(n),
            value_cname(e, n->inputs[1]), (long long)dtype_size(x->dtype),
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}

/* ---- TensorScatter ---- */

typedef struct ScatterGeo {
    int64_t batch, mid, len, ulen, inner;
    int circular;
} ScatterGeo;

static ScatterGeo scatter_geo(const Node *n)
{
    const Value *past = n->inputs[0], *upd = n->inputs[1];
    if (past->rank < 2 || upd->rank != past->rank)
        fatal_at(n, "past_cache and update must have the same rank, 2 or more");
    int axis = normalize_axis(n, attr_int(n, "axis", -2), past->rank);
    if (axis == 0)
        fatal_at(n, "axis 0 is the batch axis; the sequence axis must come after it");
    for (int i = 0; i < past->rank; i++)
        if (i != axis ? upd->dims[i] != past->dims[i] : upd->dims[i] > past->dims[i])
            fatal_at(n, "update shape does not fit past_cache in dim %d", i);
    const char *mode = attr_string(n, "mode", "linear");
    if (strcmp(mode, "linear") && strcmp(mode, "circular"))
        fatal_at(n, "mode '%s' is not supported (linear, circular are)", mode);
    return (ScatterGeo){past->dims[0],
                        prod(past->dims, 1, axis),
                        past->dims[axis],
                        upd->dims[axis],
                        prod(past->dims, axis + 1, past->rank),
                        !strcmp(mode, "circular")};
}

void tensor_scatter_infer(Node *n)
{
    const Value *past = n->inputs[0], *upd = n->inputs[1], *idx = node_input(n, 2);
    require_sized(n, past);
    if (upd->dtype != past->dtype)
        fatal_at(n, "update must have past_cache's type");
    ScatterGeo g = scatter_geo(n);
    if (idx) {
        require_dtype(n, idx, DT_INT64);
        if (idx->rank != 1 || idx->dims[0] != g.batch)
            fatal_at(n, "write_indices must be 1-D with the batch size %lld", (long long)g.batch);
    }
    same_shape_infer(n);
}

void tensor_scatter_fold(Node *n)
{
    ScatterGeo g = scatter_geo(n);
    const Value *idx = node_input(n, 2);
    tensor_scatter(g.batch, g.mid, g.len, g.ulen, g.inner, g.circular, idx ? idx->data : NULL,
                   (int64_t)dtype_size(n->inputs[0]->dtype), n->inputs[0]->data, n->inputs[1]->data,
                   n->outputs[0]->data);
}

void tensor_scatter_emit(Emitter *e, Node *n)
{
    ScatterGeo g = scatter_geo(n);
    Value *idx = node_input(n, 2);
    println(e, "tensor_scatter(%lld, %lld, %lld, %lld, %lld, %d, %s, %lld, %s, %s, %s);",
            (long long)g.batch, (long long)g.mid, (long long)g.len, (long long)g.ulen,
            (long long)g.inner, g.circular, idx ? value_cname(e, idx) : "NULL",
            (long long)dtype_size(n->inputs[0]->dtype), value_cname(e, n->inputs[0]),
            value_cname(e, n->inputs[1]), value_cname(e, n->outputs[0]));
}

/* ---- Unique (computed at compile time: the output size depends on the data) ---- */

/* What the comparators compare (through cc->sort_context: qsort passes no context): x's
 * slices along the axis, as outer x len x inner. */
typedef struct UniqueSort {
    const Value *x;
    int64_t inner, len, outer;
} UniqueSort;

static double elem_f(const Value *v, int64_t i)
{
    switch (v->dtype) {
    case DT_FLOAT: return ((const float *)v->data)[i];
    case DT_DOUBLE: return ((const double *)v->data)[i];
    case DT_FLOAT16: return half_to_float(((const uint16_t *)v->data)[i]);
    case DT_BFLOAT16: return bfloat16_to_float(((const uint16_t *)v->data)[i]);
    default: return 0;
    }
}

static int64_t elem_i(const Value *v, int64_t i)
{
    const void *d = v->data;
    switch (v->dtype) {
    case DT_INT8: return ((const int8_t *)d)[i];
    case DT_UINT8:
    case DT_BOOL: return ((const uint8_t *)d)[i];
    case DT_INT16: return ((const int16_t *)d)[i];
    case DT_UINT16: return ((const uint16_t *)d)[i];
    case DT_INT32: return ((const int32_t *)d)[i];
    case DT_UINT32: return ((const uint32_t *)d)[i];
    default: return ((const int64_t *)d)[i]; /* uint64 above 2^63 compares as negative */
    }
}

static bool is_float_type(DType t)
{
    return t == DT_FLOAT || t == DT_DOUBLE || t == DT_FLOAT16 || t == DT_BFLOAT16;
}

/* Slices a and b along the axis, compared element by element; ties by position (stable). */
static int slice_cmp(const void *pa, const void *pb)
{
    const UniqueSort *u = cc->sort_context;
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    for (int64_t o = 0; o < u->outer; o++)
        for (int64_t k = 0; k < u->inner; k++) {
            int64_t ia = (o * u->len + a) * u->inner + k;
            int64_t ib = (o * u->len + b) * u->inner + k;
            if (is_float_type(u->x->dtype)) {
                double x = elem_f(u->x, ia), y = elem_f(u->x, ib);
                if (x != y)
                    return x < y ? -1 : 1;
            } else {
                int64_t x = elem_i(u->x, ia), y = elem_i(u->x, ib);
                if (x != y)
                    return x < y ? -1 : 1;
            }
        }
    return 0;
}

static int stable_cmp(const void *pa, const void *pb)
{
    int c = slice_cmp(pa, pb);
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return c ? c : (a > b) - (a < b);
}

static void set_ints(Value *v, int64_t count, const int64_t *src)
{
    set_shape(v, DT_INT64, 1, &count);
    v->data = xcalloc((size_t)count + 1, sizeof(int64_t));
    memcpy(v->data, src, (size_t)count * sizeof(int64_t));
}

void unique_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_sized(n, x);
    require_constant(n, x, "input (Unique's output size depends on the data)");
    const Attr *axis_attr = attr_get(n, "axis");
    int axis = axis_attr ? normalize_axis(n, attr_int(n, "axis", 0), x->rank) : -1;
    UniqueSort u = {.x = x,
                    .len = axis < 0 ? value_numel(x) : x->dims[axis],
                    .outer = axis < 0 ? 1 : prod(x->dims, 0, axis),
                    .inner = axis < 0 ? 1 : prod(x->dims, axis + 1, x->rank)};
    cc->sort_context = &u;
    int64_t len = u.len;
    int64_t *order = xcalloc((size_t)len + 1, sizeof(int64_t));
    for (int64_t i = 0; i < len; i++)
        order[i] = i;
    qsort(order, (size_t)len, sizeof(int64_t), stable_cmp);
    /* groups of equal slices in sorted order: first position (smallest index) and count */
    int64_t *first = xcalloc((size_t)len + 1, sizeof(int64_t));
    int64_t *count = xcalloc((size_t)len + 1, sizeof(int64_t));
    int64_t *group_of = xcalloc((size_t)len + 1, sizeof(int64_t));
    int64_t ng = 0;
    for (int64_t i = 0; i < len; i++) {
        if (!i || slice_cmp(&order[i - 1], &order[i]))
            first[ng++] = order[i];
        count[ng - 1]++;
        group_of[order[i]] = ng - 1;
    }
    int64_t *rank_of = xcalloc((size_t)ng + 1, sizeof(int64_t)); /* group -> output position */
    int64_t *at = xcalloc((size_t)ng + 1, sizeof(int64_t));      /* output position -> group */
    for (int64_t g = 0; g < ng; g++)
        at[g] = g;
    if (!attr_int(n, "sorted", 1)) { /* by first occurrence */
        int64_t p = 0;
        for (int64_t i = 0; i < len; i++)
            if (first[group_of[i]] == i)
                at[p++] = group_of[i];
    }
    for (int64_t p = 0; p < ng; p++)
        rank_of[at[p]] = p;
    int64_t *idx = xcalloc((size_t)ng + 1, sizeof(int64_t));
    int64_t *cnt = xcalloc((size_t)ng + 1, sizeof(int64_t));
    int64_t *inv = xcalloc((size_t)len + 1, sizeof(int64_t));
    for (int64_t p = 0; p < ng; p++)
        idx[p] = first[at[p]], cnt[p] = count[at[p]];
    for (int64_t i = 0; i < len; i++)
        inv[i] = rank_of[group_of[i]];
    /* Y: the unique slices in output order */
    Value *y = n->outputs[0];
    int64_t dims[MAX_RANK];
    int rank = axis < 0 ? 1 : x->rank;
    memcpy(dims, x->dims, sizeof dims);
    dims[axis < 0 ? 0 : axis] = ng;
    set_shape(y, x->dtype, rank, dims);
    size_t es = dtype_size(x->dtype);
    y->data = xcalloc(1, (size_t)value_bytes(y) + 1);
    for (int64_t o = 0; o < u.outer; o++)
        for (int64_t p = 0; p < ng; p++)
            memcpy((char *)y->data + (size_t)((o * ng + p) * u.inner) * es,
                   (const char *)x->data + (size_t)((o * len + idx[p]) * u.inner) * es,
                   (size_t)u.inner * es);
    cc->sort_context = NULL;
    if (n->noutputs > 1)
        set_ints(n->outputs[1], ng, idx);
    if (n->noutputs > 2)
        set_ints(n->outputs[2], len, inv);
    if (n->noutputs > 3)
        set_ints(n->outputs[3], ng, cnt);
}

void unique_fold(Node *n)
{
    (void)n; /* computed by unique_infer */
}

/* ---- TfIdfVectorizer ---- */

typedef struct Grams {
    int64_t n, *len, *off, *col, *pool;
    int64_t min_len, max_len, max_skip, out_cols;
    int mode;
    const float *weights;
} Grams;

static Grams tfidf_grams(const Node *n)
{
    Grams g = {0};
    const int64_t *counts, *indexes;
    int ncounts = attr_ints(n, "ngram_counts", &counts);
    int nindexes = attr_ints(n, "ngram_indexes", &indexes);
    int npool = attr_ints(n, "pool_int64s", (const int64_t **)&g.pool);
    if (npool < 0)
        fatal_at(n, "only pool_int64s is supported (string pools are not)");
    if (ncounts < 1 || nindexes < 1)
        fatal_at(n, "attributes ngram_counts and ngram_indexes are required");
    g.min_len = attr_int(n, "min_gram_length", 1);
    g.max_len = attr_int(n, "max_gram_length", 1);
    g.max_skip = attr_int(n, "max_skip_count", 0);
    if (g.min_len < 1 || g.max_len < g.min_len || g.max_skip < 0 || g.max_skip > 1 << 20)
        fatal_at(n, "gram lengths or max_skip_count out of range");
    const char *mode = attr_string(n, "mode", "TF");
    g.mode = !strcmp(mode, "TF") ? 0 : !strcmp(mode, "IDF") ? 1 : !strcmp(mode, "TFIDF") ? 2 : -1;
    if (g.mode < 0)
        fatal_at(n, "mode '%s' is not TF, IDF or TFIDF", mode);
    for (int i = 0; i < nindexes; i++) {
        if (indexes[i] < 0 || indexes[i] > 1 << 24)
            fatal_at(n, "ngram_indexes entry %lld is out of range", (long long)indexes[i]);
        if (indexes[i] + 1 > g.out_cols)
            g.out_cols = indexes[i] + 1;
    }
    const Attr *w = attr_get(n, "weights");
    if (w && w->type == ATTR_FLOATS && w->n) {
        if (w->n < g.out_cols)
            fatal_at(n, "weights has %d entries, the output %lld columns", w->n,
                     (long long)g.out_cols);
        g.weights = w->floats;
    }
    g.len = xcalloc((size_t)npool + 1, sizeof(int64_t));
    g.off = xcalloc((size_t)npool + 1, sizeof(int64_t));
    g.col = xcalloc((size_t)npool + 1, sizeof(int64_t));
    int64_t id = 0;
    for (int i = 0; i < ncounts; i++) {
        int64_t start = counts[i], end = i + 1 < ncounts ? counts[i + 1] : npool, size = i + 1;
        if (start < 0 || end > npool || end < start)
            fatal_at(n, "ngram_counts do not fit the pool");
        for (int64_t s = start; s + size <= end; s += size, id++) {
            if (id >= nindexes)
                fatal_at(n, "more n-grams than ngram_indexes entries");
            if (size < g.min_len || size > g.max_len)
                continue;
            int64_t k = 0; /* a repeated n-gram counts once, in its last column (as the trie) */
            while (k < g.n &&
                   !(g.len[k] == size && !memcmp(g.pool + g.off[k], g.pool + s, (size_t)size * 8)))
                k++;
            g.len[k] = size, g.off[k] = s, g.col[k] = indexes[id];
            if (k == g.n)
                g.n++;
        }
    }
    return g;
}

void tfidf_infer(Node *n)
{
    const Value *x = n->inputs[0];
    if (x->dtype != DT_INT32 && x->dtype != DT_INT64)
        fatal_at(n, "input type %s is not supported (int32, int64 are)", dtype_name(x->dtype));
    if (x->rank != 1 && x->rank != 2)
        fatal_at(n, "input must be [C] or [B, C]");
    Grams g = tfidf_grams(n);
    int64_t dims[2] = {x->dims[0], g.out_cols};
    if (x->rank == 1)
        set_shape(n->outputs[0], DT_FLOAT, 1, &g.out_cols);
    else
        set_shape(n->outputs[0], DT_FLOAT, 2, dims);
}

static int64_t tfidf_rows(const Value *x)
{
    return x->rank == 2 ? x->dims[0] : 1;
}

void tfidf_fold(Node *n)
{
    const Value *x = n->inputs[0];
    Grams g = tfidf_grams(n);
    tfidf_vectorize(tfidf_rows(x), x->dims[x->rank - 1], x->data, x->dtype == DT_INT32, g.n, g.len,
                    g.off, g.col, g.pool, g.min_len, g.max_len, g.max_skip, g.mode, g.weights,
                    g.out_cols, n->outputs[0]->data);
}

static const char *ints_constant(Emitter *e, int64_t count, int64_t *data)
{
    int64_t len = count ? count : 1;
    return emit_constant(e, DT_INT64, 1, &len, data);
}

void tfidf_emit(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0];
    Grams g = tfidf_grams(n);
    int64_t npool = attr_ints(n, "pool_int64s", &(const int64_t *){0});
    const char *w =
        g.weights ? emit_constant(e, DT_FLOAT, 1, &g.out_cols, (void *)g.weights) : "NULL";
    println(e,
            "tfidf_vectorize(%lld, %lld, %s, %d, %lld, %s, %s, %s, %s, %lld, %lld, %lld, %d, "
            "%s, %lld, %s);",
            (long long)tfidf_rows(x), (long long)x->dims[x->rank - 1], value_cname(e, n->inputs[0]),
            x->dtype == DT_INT32, (long long)g.n, ints_constant(e, g.n, g.len),
            ints_constant(e, g.n, g.off), ints_constant(e, g.n, g.col),
            ints_constant(e, npool, g.pool), (long long)g.min_len, (long long)g.max_len,
            (long long)g.max_skip, g.mode, w, (long long)g.out_cols, value_cname(e, n->outputs[0]));
}

/* ---- ai.onnx.ml TreeEnsemble ---- */

typedef struct Trees {
    int64_t nnodes, nleaves, ntrees, targets;
    int64_t *nodes, *roots, *leaf_target;
    uint8_t *root_leaf;
    DType dtype; /* of x, y, splits, members and weights: float or double */
    const void *splits, *members, *leaf_weight;
    int64_t nmembers;
    int agg;
} Trees;

static bool tree_member_is_nan(const Trees *t, int64_t i)
{
    return t->dtype == DT_DOUBLE ? isnan(((const double *)t->members)[i])
                                 : isnan(((const float *)t->members)[i]);
}

static const int64_t *tree_ints(const Node *n, const char *name, int64_t want)
{
    const int64_t *v;
    int len = attr_ints(n, name, &v);
    if (len < 0 || (want >= 0 && len != want))
        fatal_at(n, "attribute '%s' is missing or has the wrong length", name);
    return v;
}

static const Value *tree_tensor(const Node *n, const char *name, DType t, bool required)
{
    const Attr *a = attr_get(n, name);
    if (!a) {
        if (required)
            fatal_at(n, "attribute '%s' is required", name);
        return NULL;
    }
    if (a->type != ATTR_TENSOR || a->t->dtype != t || a->t->rank != 1)
        fatal_at(n, "attribute '%s' must be a 1-D %s tensor", name, dtype_name(t));
    return a->t;
}

/* Refuses a node graph with a cycle, which would never reach a leaf. */
static void tree_check_acyclic(const Node *n, const Trees *t, int64_t id, uint8_t *state)
{
    if (state[id] == 2)
        return;
    if (state[id] == 1)
        fatal_at(n, "the tree nodes form a cycle");
    state[id] = 1;
    const int64_t *nd = t->nodes + 9 * id;
    if (!nd[4])
        tree_check_acyclic(n, t, nd[2], state);
    if (!nd[5])
        tree_check_acyclic(n, t, nd[3], state);
    state[id] = 2;
}

static Trees tree_model(const Node *n)
{
    Trees t = {0};
    t.dtype = n->inputs[0]->dtype == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
    const Value *splits = tree_tensor(n, "nodes_splits", t.dtype, true);
    t.nnodes = splits->dims[0];
    t.splits = splits->data;
    const Value *modes = tree_tensor(n, "nodes_modes", DT_UINT8, true);
    const Value *weights = tree_tensor(n, "leaf_weights", t.dtype, true);
    const Value *members = tree_tensor(n, "membership_values", t.dtype, false);
    t.nleaves = weights->dims[0];
    t.leaf_weight = weights->data;
    if (modes->dims[0] != t.nnodes)
        fatal_at(n, "nodes_modes and nodes_splits differ in length");
    const int64_t *feat = tree_ints(n, "nodes_featureids", t.nnodes),
                  *tid = tree_ints(n, "nodes_truenodeids", t.nnodes),
                  *fid = tree_ints(n, "nodes_falsenodeids", t.nnodes),
                  *tleaf = tree_ints(n, "nodes_trueleafs", t.nnodes),
                  *fleaf = tree_ints(n, "nodes_falseleafs", t.nnodes);
    t.leaf_target = (int64_t *)tree_ints(n, "leaf_targetids", t.nleaves);
    const int64_t *missing;
    int nmissing = attr_ints(n, "nodes_missing_value_tracks_true", &missing);
    if (nmissing >= 0 && nmissing != t.nnodes)
        fatal_at(n, "nodes_missing_value_tracks_true has the wrong length");
    t.targets = attr_int(n, "n_targets", -1);
    if (t.targets < 1 || t.targets > 1 << 24)
        fatal_at(n, "attribute n_targets must be positive");
    t.agg = (int)attr_int(n, "aggregate_function", 1);
    if (t.agg < 0 || t.agg > 3)
        fatal_at(n, "aggregate_function %d is not supported", t.agg);
    if (attr_int(n, "post_transform", 0) != 0)
        fatal_at(n, "post_transform other than NONE is not supported");
    for (int64_t l = 0; l < t.nleaves; l++)
        if (t.leaf_target[l] < 0 || t.leaf_target[l] >= t.targets)
            fatal_at(n, "leaf_targetids entry %lld is out of range", (long long)l);
    t.nodes = xcalloc((size_t)(9 * t.nnodes) + 1, sizeof(int64_t));
    t.members = members ? members->data : NULL;
    int64_t next_member = 0, nvals = members ? members->dims[0] : 0;
    for (int64_t i = 0; i < t.nnodes; i++) {
        int64_t *nd = t.nodes + 9 * i;
        uint8_t mode = ((const uint8_t *)modes->data)[i];
        if (mode > 6)
            fatal_at(n, "node mode %d is not supported", mode);
        nd[0] = feat[i], nd[1] = mode, nd[2] = tid[i], nd[3] = fid[i];
        nd[4] = tleaf[i] != 0, nd[5] = fleaf[i] != 0, nd[6] = nmissing > 0 && missing[i];
        for (int k = 0; k < 2; k++)
            if (nd[2 + k] < 0 || nd[2 + k] >= (nd[4 + k] ? t.nleaves : t.nnodes))
                fatal_at(n, "node %lld has a child out of range", (long long)i);
        if (mode == 6) { /* the next NaN-terminated set of membership_values */
            nd[7] = next_member;
            while (next_member < nvals && !tree_member_is_nan(&t, next_member))
                next_member++;
            nd[8] = next_member - nd[7];
            if (next_member++ >= nvals)
                fatal_at(n, "membership_values has too few sets");
        }
    }
    const int64_t *roots;
    t.ntrees = attr_ints(n, "tree_roots", &roots);
    if (t.ntrees < 1)
        fatal_at(n, "attribute tree_roots is required");
    t.roots = xcalloc((size_t)t.ntrees + 1, sizeof(int64_t));
    t.root_leaf = xcalloc((size_t)t.ntrees + 1, 1);
    uint8_t *state = xcalloc((size_t)t.nnodes + 1, 1);
    for (int64_t r = 0; r < t.ntrees; r++) {
        int64_t id = roots[r];
        if (id < 0 || id >= t.nnodes)
            fatal_at(n, "tree root %lld is out of range", (long long)id);
        const int64_t *nd = t.nodes + 9 * id;
        /* a tree that is one leaf: both children the same leaf */
        t.root_leaf[r] = nd[4] && nd[5] && nd[2] == nd[3];
        t.roots[r] = t.root_leaf[r] ? nd[2] : id;
        if (!t.root_leaf[r])
            tree_check_acyclic(n, &t, id, state);
    }
    t.nmembers = nvals;
    return t;
}

void tree_ensemble_infer(Node *n)
{
    const Value *x = n->inputs[0];
    if (x->dtype != DT_DOUBLE)
        require_float(n, x);
    if (x->rank != 2)
        fatal_at(n, "input must be [N, features]");
    Trees t = tree_model(n);
    for (int64_t i = 0; i < t.nnodes; i++)
        if (t.nodes[9 * i] < 0 || t.nodes[9 * i] >= x->dims[1])
            fatal_at(n, "node %lld reads feature %lld, the input has %lld", (long long)i,
                     (long long)t.nodes[9 * i], (long long)x->dims[1]);
    int64_t dims[2] = {x->dims[0], t.targets};
    set_shape(n->outputs[0], t.dtype, 2, dims);
}

void tree_ensemble_fold(Node *n)
{
    const Value *x = n->inputs[0];
    Trees t = tree_model(n);
    if (t.dtype == DT_DOUBLE) {
        tree_ensemble_f64(x->dims[0], x->dims[1], x->data, t.ntrees, t.roots, t.root_leaf, t.nodes,
                          t.splits, t.members, t.leaf_target, t.leaf_weight, t.agg, t.targets,
                          n->outputs[0]->data);
        return;
    }
    tree_ensemble(x->dims[0], x->dims[1], x->data, t.ntrees, t.roots, t.root_leaf, t.nodes,
                  t.splits, t.members, t.leaf_target, t.leaf_weight, t.agg, t.targets,
                  n->outputs[0]->data);
}

void tree_ensemble_emit(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0];
    Trees t = tree_model(n);
    int64_t nn = 9 * t.nnodes, nm = t.nmembers ? t.nmembers : 1;
    const char *members = t.members ? emit_constant(e, t.dtype, 1, &nm, (void *)t.members) : "NULL";
    println(e, "tree_ensemble%s(%lld, %lld, %s, %lld, %s, %s, %s, %s, %s, %s, %s, %d, %lld, %s);",
            t.dtype == DT_DOUBLE ? "_f64" : "", (long long)x->dims[0], (long long)x->dims[1],
            value_cname(e, n->inputs[0]), (long long)t.ntrees,
            emit_constant(e, DT_INT64, 1, &t.ntrees, t.roots),
            emit_constant(e, DT_UINT8, 1, &t.ntrees, t.root_leaf),
            emit_constant(e, DT_INT64, 1, &nn, t.nodes),
            emit_constant(e, t.dtype, 1, &t.nnodes, (void *)t.splits), members,
            emit_constant(e, DT_INT64, 1, &t.nleaves, t.leaf_target),
            emit_constant(e, t.dtype, 1, &t.nleaves, (void *)t.leaf_weight), t.agg,
            (long long)t.targets, value_cname(e, n->outputs[0]));
}

/* ---- ai.onnx.ml ArrayFeatureExtractor ---- */

void afe_infer(Node *n)
{
    const Value *x = n->inputs[0], *idx = n->inputs[1];
    require_sized(n, x);
    require_dtype(n, idx, DT_INT64);
    if (x->rank < 1)
        fatal_at(n, "input must have rank 1 or more");
    int64_t dims[MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    int rank = x->rank == 1 ? 2 : x->rank;
    if (x->rank == 1)
        dims[0] = 1;
    dims[rank - 1] = value_numel(idx);
    set_shape(n->outputs[0], x->dtype, rank, dims);
}

void afe_fold(Node *n)
{
    const Value *x = n->inputs[0];
    array_feature_extract(prod(x->dims, 0, x->rank - 1), x->dims[x->rank - 1],
                          value_numel(n->inputs[1]), n->inputs[1]->data,
                          (int64_t)dtype_size(x->dtype), x->data, n->outputs[0]->data);
}

void afe_emit(Emitter *e, Node *n)
{
    const Value *x = n->inputs[0];
    println(e, "array_feature_extract(%lld, %lld, %lld, %s, %lld, %s, %s);",
            (long long)prod(x->dims, 0, x->rank - 1), (long long)x->dims[x->rank - 1],
            (long long)value_numel(n->inputs[1]), value_cname(e, n->inputs[1]),
            (long long)dtype_size(x->dtype), value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}

/* ---- ai.onnx.ml Binarizer ---- */

void binarizer_infer(Node *n)
{
    DType t = n->inputs[0]->dtype;
    if (t != DT_FLOAT && t != DT_DOUBLE)
        fatal_at(n, "type %s is not supported (float32, float64 are)", dtype_name(t));
    same_shape_infer(n);
}

void binarizer_fold(Node *n)
{
    int64_t count = value_numel(n->inputs[0]);
    float thr = attr_float(n, "threshold", 0.0f);
    if (n->inputs[0]->dtype == DT_FLOAT)
        binarizer_f32(count, thr, n->inputs[0]->data, n->outputs[0]->data);
    else
        binarizer_f64(count, thr, n->inputs[0]->data, n->outputs[0]->data);
}

void binarizer_emit(Emitter *e, Node *n)
{
    bool f32 = n->inputs[0]->dtype == DT_FLOAT;
    println(e, "binarizer_%s(%lld, %s, %s, %s);", f32 ? "f32" : "f64",
            (long long)value_numel(n->inputs[0]), c_float(attr_float(n, "threshold", 0.0f)),
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}
