/* The IR: values (tensors) and nodes in one graph, with a name index for the loader. */
#include "onnx2c.h"

#include <string.h>

/* Order keys leave room between loaded nodes, so a rewrite can place a new node before an
 * anchor without moving the others; schedule() sorts by key once at the end. */
#define ORDER_GAP ((int64_t)1 << 20)

/* Open-addressing hash map from value name to Value, so loading stays linear in model size. */
typedef struct ValueMap {
    size_t cap, n;
    Value **slots;
} ValueMap;

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static Value **map_slot(ValueMap *m, const char *name)
{
    size_t i = hash_name(name) & (m->cap - 1);
    while (m->slots[i] && strcmp(m->slots[i]->name, name) != 0)
        i = (i + 1) & (m->cap - 1);
    return &m->slots[i];
}

static void map_put(ValueMap *m, Value *v)
{
    if (2 * (m->n + 1) > m->cap) {
        ValueMap bigger = {m->cap ? 2 * m->cap : 64, 0, NULL};
        bigger.slots = xcalloc(bigger.cap, sizeof(Value *));
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i])
                *map_slot(&bigger, m->slots[i]->name) = m->slots[i];
        bigger.n = m->n;
        *m = bigger;
    }
    *map_slot(m, v->name) = v;
    m->n++;
}

Graph *graph_new(void)
{
    Graph *g = xcalloc(1, sizeof(Graph));
    g->by_name = xcalloc(1, sizeof(ValueMap));
    /* never NULL, so that passes may memcpy and qsort a graph without nodes */
    g->cap_nodes = g->cap_values = 64;
    g->nodes = xcalloc((size_t)g->cap_nodes, sizeof(Node *));
    g->values = xcalloc((size_t)g->cap_values, sizeof(Value *));
    return g;
}

Value *value_new_unique(Graph *g, const char *base)
{
    char *name = xstrdup(base);
    for (int k = 2; value_lookup(g, name); k++)
        name = xprintf("%s~%d", base, k);
    return value_new(g, name);
}

Value *value_lookup(Graph *g, const char *name)
{
    if (!g->by_name->cap)
        return NULL;
    return *map_slot(g->by_name, name);
}

Value *value_new(Graph *g, const char *name)
{
    Value *v = xcalloc(1, sizeof(Value));
    v->name = xstrdup(name);
    v->rank = -1;
    v->offset = -1;
    v->id = g->nvalues;
    if (g->nvalues == g->cap_values) {
        g->cap_values = g->cap_values ? 2 * g->cap_values : 64;
        g->values = xrealloc(g->values, (size_t)g->cap_values * sizeof(Value *));
    }
    g->values[g->nvalues++] = v;
    if (*name)
        map_put(g->by_name, v);
    return v;
}

Node *node_new(Graph *g, const char *name, const char *op_type, int ninputs, int noutputs)
{
    /* Nested function calls and unrolled loops multiply: a few hundred bytes of model can ask
     * for 2^40 nodes. */
    if (g->nnodes >= cc->limits.max_nodes)
        fatal("the graph grows past %lld nodes after function inlining and loop unrolling "
              "(--max-nodes raises the limit)",
              (long long)cc->limits.max_nodes);
    Node *n = xcalloc(1, sizeof(Node));
    n->name = xstrdup(name ? name : "");
    n->op_type = xstrdup(op_type);
    n->domain = xstrdup("");
    n->ninputs = ninputs;
    n->noutputs = noutputs;
    n->inputs = xcalloc((size_t)ninputs + 1, sizeof(Value *));
    n->use_slot = xcalloc((size_t)ninputs + 1, sizeof(int));
    n->outputs = xcalloc((size_t)noutputs + 1, sizeof(Value *));
    n->order = (int64_t)g->nnodes * ORDER_GAP;
    if (g->nnodes == g->cap_nodes) {
        g->cap_nodes = g->cap_nodes ? 2 * g->cap_nodes : 64;
        g->nodes = xrealloc(g->nodes, (size_t)g->cap_nodes * sizeof(Node *));
    }
    g->nodes[g->nnodes++] = n;
    return n;
}

const Attr *attr_get(const Node *n, const char *name)
{
    for (int i = 0; i < n->nattrs; i++)
        if (strcmp(n->attrs[i].name, name) == 0)
            return &n->attrs[i];
    return NULL;
}

static const Attr *attr_typed(const Node *n, const char *name, AttrType t, const char *what)
{
    const Attr *a = attr_get(n, name);
    if (a && a->type != t)
        fatal_at(n, "attribute '%s' must be %s", name, what);
    return a;
}

int64_t attr_int(const Node *n, const char *name, int64_t dflt)
{
    const Attr *a = attr_typed(n, name, ATTR_INT, "an int");
    return a ? a->i : dflt;
}

float attr_float(const Node *n, const char *name, float dflt)
{
    const Attr *a = attr_typed(n, name, ATTR_FLOAT, "a float");
    return a ? a->f : dflt;
}

const char *attr_string(const Node *n, const char *name, const char *dflt)
{
    const Attr *a = attr_typed(n, name, ATTR_STRING, "a string");
    return a ? a->s : dflt;
}

int attr_ints(const Node *n, const char *name, const int64_t **out)
{
    const Attr *a = attr_typed(n, name, ATTR_INTS, "a list of ints");
    *out = a ? a->ints : NULL;
    return a ? a->n : -1;
}

Value *node_input(const Node *n, int i)
{
    return i < n->ninputs ? n->inputs[i] : NULL;
}

size_t dtype_size(DType t)
{
    switch (t) {
    case DT_BOOL:
    case DT_UINT8:
    case DT_INT8:
    case DT_FLOAT8E4M3FN:
    case DT_FLOAT8E4M3FNUZ:
    case DT_FLOAT8E5M2:
    case DT_FLOAT8E5M2FNUZ:
    case DT_FLOAT8E8M0:
    case DT_UINT4:
    case DT_INT4:
    case DT_FLOAT4E2M1:
    case DT_UINT2:
    case DT_INT2:
        return 1; /* 4-bit and 2-bit types too: unpacked in memory (templates/lowtypes.c) */
    case DT_UINT16:
    case DT_INT16:
    case DT_FLOAT16:
    case DT_BFLOAT16: return 2;
    case DT_FLOAT:
    case DT_INT32:
    case DT_UINT32: return 4;
    case DT_INT64:
    case DT_UINT64:
    case DT_DOUBLE: return 8;
    default: return 0;
    }
}

const char *dtype_name(DType t)
{
    switch (t) {
    case DT_FLOAT: return "float32";
    case DT_UINT8: return "uint8";
    case DT_INT8: return "int8";
    case DT_UINT16: return "uint16";
    case DT_INT16: return "int16";
    case DT_INT32: return "int32";
    case DT_INT64: return "int64";
    case DT_STRING: return "string";
    case DT_BOOL: return "bool";
    case DT_FLOAT16: return "float16";
    case DT_DOUBLE: return "float64";
    case DT_UINT32: return "uint32";
    case DT_UINT64: return "uint64";
    case DT_BFLOAT16: return "bfloat16";
    case DT_FLOAT8E4M3FN: return "float8e4m3fn";
    case DT_FLOAT8E4M3FNUZ: return "float8e4m3fnuz";
    case DT_FLOAT8E5M2: return "float8e5m2";
    case DT_FLOAT8E5M2FNUZ: return "float8e5m2fnuz";
    case DT_UINT4: return "uint4";
    case DT_INT4: return "int4";
    case DT_FLOAT4E2M1: return "float4e2m1";
    case DT_FLOAT8E8M0: return "float8e8m0";
    case DT_UINT2: return "uint2";
    case DT_INT2: return "int2";
    default: return "undefined";
    }
}

/* The C type holding one element in generated code (16-bit floats are stored as bits). */
const char *dtype_ctype(DType t)
{
    switch (t) {
    case DT_FLOAT: return "float";
    case DT_DOUBLE: return "double";
    case DT_UINT8:
    case DT_BOOL: return "uint8_t";
    case DT_INT8:
    case DT_INT4:
    case DT_INT2: return "int8_t";
    case DT_FLOAT8E4M3FN:
    case DT_FLOAT8E4M3FNUZ:
    case DT_FLOAT8E5M2:
    case DT_FLOAT8E5M2FNUZ:
    case DT_FLOAT8E8M0:
    case DT_FLOAT4E2M1:
    case DT_UINT4:
    case DT_UINT2: return "uint8_t";
    case DT_UINT16:
    case DT_FLOAT16:
    case DT_BFLOAT16: return "uint16_t";
    case DT_INT16: return "int16_t";
    case DT_INT32: return "int32_t";
    case DT_UINT32: return "uint32_t";
    case DT_INT64: return "int64_t";
    case DT_UINT64: return "uint64_t";
    default: return NULL;
    }
}

/* Bits per element in a serialized TensorProto where less than a byte (4-bit types pack two
 * to a byte, 2-bit types four, first element in the lowest bits), else 0. */
int dtype_packed_bits(DType t)
{
    switch (t) {
    case DT_UINT4:
    case DT_INT4:
    case DT_FLOAT4E2M1: return 4;
    case DT_UINT2:
    case DT_INT2: return 2;
    default: return 0;
    }
}

int64_t value_numel(const Value *v)
{
    int64_t n = 1;
    for (int i = 0; i < v->rank; i++)
        n = checked_mul(v->producer, n, v->dims[i]);
    return n;
}

int64_t value_bytes(const Value *v)
{
    return checked_mul(v->producer, value_numel(v), (int64_t)dtype_size(v->dtype));
}

void set_shape(Value *v, DType t, int rank, const int64_t *dims)
{
    v->dtype = t;
    v->rank = rank;
    for (int i = 0; i < rank; i++) {
        v->dims[i] = dims[i];
        v->dim_params[i] = NULL;
    }
    value_numel(v); /* checks the size */
}

/* Op histogram of the live nodes, in order of first appearance. */
void count_ops(const Graph *g, OpCount **out, int *nout)
{
    OpCount *c = xcalloc((size_t)g->nnodes + 1, sizeof(OpCount));
    int nc = 0;
    for (int i = 0; i < g->nnodes; i++) {
        const Node *n = g->nodes[i];
        if (n->dead)
            continue;
        int j = 0;
        while (j < nc && strcmp(c[j].op, n->op_type) != 0)
            j++;
        if (j == nc)
            c[nc++].op = n->op_type;
        c[j].count++;
    }
    *out = c;
    *nout = nc;
}

/* The node's attribute `name`, added if it has none. */
static Attr *attr_slot(Node *n, const char *name)
{
    Attr *a = (Attr *)attr_get(n, name);
    if (!a) {
        n->attrs = xrealloc(n->attrs, (size_t)(n->nattrs + 1) * sizeof(Attr));
        a = &n->attrs[n->nattrs++];
        *a = (Attr){.name = xstrdup(name)};
    }
    return a;
}

void attr_set_int(Node *n, const char *name, int64_t v)
{
    Attr *a = attr_slot(n, name);
    a->type = ATTR_INT;
    a->i = v;
}

void attr_set_float(Node *n, const char *name, float v)
{
    Attr *a = attr_slot(n, name);
    a->type = ATTR_FLOAT;
    a->f = v;
}

void attr_set_string(Node *n, const char *name, const char *v)
{
    Attr *a = attr_slot(n, name);
    a->type = ATTR_STRING;
    a->s = xstrdup(v);
}

/* ---- use lists: every rewrite goes through these, so passes never rescan the graph ---- */

static void use_add(Value *v, Node *n, int input)
{
    if (v->nusers == v->cap_users) {
        v->cap_users = v->cap_users ? 2 * v->cap_users : 4;
        v->users = xrealloc(v->users, (size_t)v->cap_users * sizeof(Use));
    }
    n->use_slot[input] = v->nusers;
    v->users[v->nusers++] = (Use){n, input};
}

/* O(1): the last entry moves into the freed slot and its node learns where it went. */
static void use_remove(Value *v, Node *n, int input)
{
    int k = n->use_slot[input];
    Use last = v->users[--v->nusers];
    v->users[k] = last;
    last.node->use_slot[last.input] = k;
}

bool value_is_used(const Value *v)
{
    return v->nusers > 0 || v->is_output;
}

void node_set_input(Node *n, int i, Value *v)
{
    if (n->inputs[i] == v)
        return;
    if (n->inputs[i])
        use_remove(n->inputs[i], n, i);
    n->inputs[i] = v;
    if (v)
        use_add(v, n, i);
}

void node_resize_inputs(Node *n, int ninputs)
{
    for (int i = ninputs; i < n->ninputs; i++)
        node_set_input(n, i, NULL);
    n->inputs = xrealloc(n->inputs, (size_t)(ninputs + 1) * sizeof(Value *));
    n->use_slot = xrealloc(n->use_slot, (size_t)(ninputs + 1) * sizeof(int));
    for (int i = n->ninputs; i <= ninputs; i++)
        n->inputs[i] = NULL;
    n->ninputs = ninputs;
}

void node_retire(Node *n)
{
    n->dead = true;
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i])
            use_remove(n->inputs[i], n, i);
}

/* The retired node keeps its input pointers (epilogues and --emit-onnx read them). */

void value_replace_uses(Value *old, Value *with)
{
    while (old->nusers) {
        Use u = old->users[old->nusers - 1];
        node_set_input(u.node, u.input, with);
    }
}

Node *sole_user(const Value *v)
{
    return v->nusers == 1 && !v->is_output ? v->users[0].node : NULL;
}

void number_nodes(Graph *g)
{
    for (int i = 0; i < g->nnodes; i++)
        g->nodes[i]->order = (int64_t)i * ORDER_GAP;
}

void node_place_before(Graph *g, Node *n, const Node *anchor)
{
    n->order = anchor->order - ORDER_GAP / 2 + (g->insert_seq++ % (ORDER_GAP / 2));
}

Value *constant_new(Graph *g, const char *name, DType t, int rank, const int64_t *dims)
{
    Value *v = value_new(g, "");
    v->name = xprintf("%s_%d", name, v->id); /* unique; not indexed: never looked up */
    set_shape(v, t, rank, dims);
    v->data = xcalloc(1, (size_t)value_bytes(v) + 1);
    v->is_weight = true;
    return v;
}

void record_fusion(const char *name)
{
    for (int i = 0; i < cc->state.nfusions; i++)
        if (!strcmp(cc->state.fusions[i].op, name)) {
            cc->state.fusions[i].count++;
            return;
        }
    if (cc->state.nfusions < (int)(sizeof cc->state.fusions / sizeof cc->state.fusions[0]))
        cc->state.fusions[cc->state.nfusions++] = (OpCount){name, 1};
}

int fusion_counts(const OpCount **out)
{
    *out = cc->state.fusions;
    return cc->state.nfusions;
}
