/* emit_onnx.c — --emit-onnx: the optimised graph, as the code generator sees it, written back
 * as a standard ONNX model. Fused epilogues become their original nodes again, folded
 * constants become initializers, so onnxruntime can check the frontend on its own. */
#include "load.h"

#include <stdlib.h>
#include <string.h>

typedef struct Writer {
    Onnx__GraphProto *graph;
    int opset; /* of the default domain */
    size_t cap_nodes, cap_inits;
    bool *written; /* per value id: initializer already written */
} Writer;

static const char *value_name(const Value *v)
{
    if (!v)
        return "";
    return v->name[0] ? v->name : xprintf("onnx2c_v%d", v->id);
}

static Onnx__TypeProto *tensor_type(const Value *v)
{
    Onnx__TypeProto *tp = xcalloc(1, sizeof *tp);
    Onnx__TypeProto__Tensor *tt = xcalloc(1, sizeof *tt);
    Onnx__TensorShapeProto *sp = xcalloc(1, sizeof *sp);
    *tp = (Onnx__TypeProto)ONNX__TYPE_PROTO__INIT;
    *tt = (Onnx__TypeProto__Tensor)ONNX__TYPE_PROTO__TENSOR__INIT;
    *sp = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
    tt->has_elem_type = true;
    tt->elem_type = v->dtype;
    sp->n_dim = (size_t)v->rank;
    sp->dim = xcalloc((size_t)v->rank + 1, sizeof(Onnx__TensorShapeProto__Dimension *));
    for (int i = 0; i < v->rank; i++) {
        Onnx__TensorShapeProto__Dimension *d = xcalloc(1, sizeof *d);
        *d = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d->dim_value = v->dims[i];
        sp->dim[i] = d;
    }
    tt->shape = sp;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    return tp;
}

static Onnx__ValueInfoProto *value_info(const Value *v)
{
    Onnx__ValueInfoProto *vi = xcalloc(1, sizeof *vi);
    *vi = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
    vi->name = (char *)value_name(v);
    vi->type = tensor_type(v);
    return vi;
}

/* 4-bit and 2-bit types, one byte per element in memory, packed as TensorProto stores them
 * (first element in the lowest bits). */
static uint8_t *pack_bits(const Value *v, size_t *len)
{
    int bits = dtype_packed_bits(v->dtype), per_byte = 8 / bits;
    int64_t n = value_numel(v);
    *len = (size_t)((n + per_byte - 1) / per_byte);
    uint8_t *out = xcalloc(*len + 1, 1);
    const uint8_t *src = v->data;
    for (int64_t i = 0; i < n; i++)
        out[i / per_byte] |= (uint8_t)((src[i] & ((1u << bits) - 1)) << (bits * (i % per_byte)));
    return out;
}

static Onnx__TensorProto *tensor_proto(const Value *v, const char *name)
{
    Onnx__TensorProto *t = xcalloc(1, sizeof *t);
    *t = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
    t->name = (char *)name;
    t->n_dims = (size_t)v->rank;
    t->dims = (int64_t *)v->dims;
    t->has_data_type = true;
    t->data_type = v->dtype;
    t->has_raw_data = true;
    t->raw_data.len = (size_t)value_bytes(v);
    t->raw_data.data = v->data;
    if (dtype_packed_bits(v->dtype))
        t->raw_data.data = pack_bits(v, &t->raw_data.len);
    return t;
}

static void add_initializer(Writer *w, const Value *v)
{
    if (!v || !v->data || w->written[v->id])
        return;
    w->written[v->id] = true;
    Onnx__GraphProto *g = w->graph;
    if (g->n_initializer == w->cap_inits) {
        w->cap_inits = w->cap_inits ? 2 * w->cap_inits : 16;
        g->initializer = xrealloc(g->initializer, w->cap_inits * sizeof(Onnx__TensorProto *));
    }
    g->initializer[g->n_initializer++] = tensor_proto(v, value_name(v));
}

static Onnx__AttributeProto *attr_proto(const Attr *a)
{
    Onnx__AttributeProto *p = xcalloc(1, sizeof *p);
    *p = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
    p->name = a->name;
    p->has_type = true;
    switch (a->type) {
    case ATTR_FLOAT:
        p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
        p->has_f = true;
        p->f = a->f;
        break;
    case ATTR_INT:
        p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        p->has_i = true;
        p->i = a->i;
        break;
    case ATTR_STRING:
        p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
        p->has_s = true;
        p->s.len = strlen(a->s);
        p->s.data = (uint8_t *)a->s;
        break;
    case ATTR_FLOATS:
        p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
        p->n_floats = (size_t)a->n;
        p->floats = a->floats;
        break;
    case ATTR_INTS:
        p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
        p->n_ints = (size_t)a->n;
        p->ints = a->ints;
        break;
    case ATTR_TENSOR:
        p->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
        p->t = tensor_proto(a->t, "");
        break;
    default: return NULL; /* subgraphs are folded away before this point */
    }
    return p;
}

static void push_node(Writer *w, Onnx__NodeProto *p)
{
    Onnx__GraphProto *g = w->graph;
    if (g->n_node == w->cap_nodes) {
        w->cap_nodes = w->cap_nodes ? 2 * w->cap_nodes : 64;
        g->node = xrealloc(g->node, w->cap_nodes * sizeof(Onnx__NodeProto *));
    }
    g->node[g->n_node++] = p;
}

/* A plain node with two or fewer inputs given by name. */
static void push_simple(Writer *w, const char *name, const char *op, const char *a, const char *b,
                        const char *out)
{
    Onnx__NodeProto *p = xcalloc(1, sizeof *p);
    *p = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
    p->name = (char *)name;
    p->op_type = (char *)op;
    p->n_input = b ? 2 : 1;
    p->input = xcalloc(3, sizeof(char *));
    p->input[0] = (char *)a;
    p->input[1] = (char *)b;
    p->n_output = 1;
    p->output = xcalloc(2, sizeof(char *));
    p->output[0] = (char *)out;
    push_node(w, p);
}

static const char *scalar_initializer(Writer *w, const char *name, float f)
{
    Value *v = xcalloc(1, sizeof(Value)); /* only written out, never part of the graph */
    v->name = (char *)name;
    v->dtype = DT_FLOAT;
    v->rank = 0;
    v->data = xcalloc(1, sizeof(float));
    *(float *)v->data = f;
    Onnx__GraphProto *gp = w->graph;
    if (gp->n_initializer == w->cap_inits) {
        w->cap_inits = w->cap_inits ? 2 * w->cap_inits : 16;
        gp->initializer = xrealloc(gp->initializer, w->cap_inits * sizeof(Onnx__TensorProto *));
    }
    gp->initializer[gp->n_initializer++] = tensor_proto(v, name);
    return name;
}

/* Gelu is an ONNX op from opset 20 on; older models get its formula back. */
static void push_gelu_formula(Writer *w, const Node *n, const char *x, const char *y)
{
    const char *p = n->name;
#define T(s) xprintf("%s/gelu_%s", p, s)
    const char *one = scalar_initializer(w, T("one"), 1.0f);
    const char *half = scalar_initializer(w, T("half"), 0.5f);
    const char *inner;
    if (!strcmp(attr_string(n, "approximate", "none"), "tanh")) {
        push_simple(w, T("x2"), "Mul", x, x, T("x2"));
        push_simple(w, T("x3"), "Mul", x, T("x2"), T("x3"));
        push_simple(w, T("t0"), "Mul", T("x3"), scalar_initializer(w, T("c0"), 0.044715f), T("t0"));
        push_simple(w, T("t1"), "Add", x, T("t0"), T("t1"));
        push_simple(w, T("t2"), "Mul", T("t1"), scalar_initializer(w, T("c1"), 0.7978845608f),
                    T("t2"));
        push_simple(w, T("f"), "Tanh", T("t2"), NULL, T("f"));
    } else {
        push_simple(w, T("d"), "Div", x, scalar_initializer(w, T("sqrt2"), 1.41421356f), T("d"));
        push_simple(w, T("f"), "Erf", T("d"), NULL, T("f"));
    }
    inner = T("f");
    push_simple(w, T("a"), "Add", inner, one, T("a"));
    push_simple(w, T("p"), "Mul", x, T("a"), T("p"));
    push_simple(w, T("y"), "Mul", T("p"), half, y);
#undef T
}

/* Swish is an ONNX op from opset 24 on; in older models the compiler made it from
 * x * Sigmoid(x), which they get back. */
static void push_swish_formula(Writer *w, const Node *n, const char *x, const char *y)
{
    const char *p = n->name, *ax = x;
    float alpha = attr_float(n, "alpha", 1.0f);
    if (alpha != 1.0f) {
        ax = xprintf("%s/swish_ax", p);
        push_simple(w, ax, "Mul", x, scalar_initializer(w, xprintf("%s/swish_alpha", p), alpha),
                    ax);
    }
    const char *s = xprintf("%s/swish_sigmoid", p);
    push_simple(w, s, "Sigmoid", ax, NULL, s);
    push_simple(w, xprintf("%s/swish_mul", p), "Mul", x, s, y);
}

static void add_node(Writer *w, const Node *n, int ninputs, Value *const *inputs, const char *out);

static void push_transpose(Writer *w, const char *name, const char *x, const int64_t *perm,
                           const char *y)
{
    push_simple(w, name, "Transpose", x, NULL, y);
    Onnx__NodeProto *p = w->graph->node[w->graph->n_node - 1];
    Attr a = {.name = "perm", .type = ATTR_INTS, .n = 4, .ints = (int64_t *)perm};
    p->attribute = xcalloc(2, sizeof(Onnx__AttributeProto *));
    p->attribute[p->n_attribute++] = attr_proto(&a); /* keeps the (static) perm */
}

/* layout_nhwc's channels-last nodes (NhwcConv, NhwcMaxPool, NhwcAveragePool,
 * NhwcGlobalAveragePool: onnxruntime's CPU provider runs none of them) as the NCHW op they
 * are, between transposes: a model onnxruntime runs. */
static void push_nhwc_op(Writer *w, const Node *n, const char *x, const char *y)
{
    static const int64_t to_nchw[4] = {0, 3, 1, 2}, to_nhwc[4] = {0, 2, 3, 1};
    const char *xt = xprintf("%s/nchw_in", n->name), *yt = xprintf("%s/nchw_out", n->name);
    Node op = *n;
    /* an NhwcConv with x_nchw (onnx2c's own attribute, the op's last) reads x as it is */
    if (n->nattrs && !strcmp(n->attrs[n->nattrs - 1].name, "x_nchw")) {
        xt = x;
        op.nattrs--;
    } else {
        push_transpose(w, xt, x, to_nchw, xt);
    }
    int nin = n->op->max_inputs < n->ninputs ? n->op->max_inputs : n->ninputs;
    Value xv = {.name = (char *)xt, .id = -1}, *ins[3] = {&xv, NULL, NULL};
    for (int i = 1; i < nin; i++)
        ins[i] = n->inputs[i];
    op.op_type = n->op_type + strlen("Nhwc");
    op.domain = "";
    op.op = op_lookup(op.op_type);
    op.ninputs = nin;
    op.inputs = ins;
    op.nepilogue = 0;
    add_node(w, &op, nin, ins, yt);
    push_transpose(w, xprintf("%s/nhwc_out", n->name), yt, to_nhwc, y);
}

/* Ops the rewrites create that may be newer than the model's opset (or that no runtime
 * runs, `always`), and the formula an older model gets instead (x: the name of input 0, y: of
 * the output). */
typedef struct Formula {
    const char *op;
    void (*push)(Writer *w, const Node *n, const char *x, const char *y);
    bool always;
} Formula;

static const Formula formulas[] = {
    {"Gelu", push_gelu_formula, false},
    {"Swish", push_swish_formula, false},
    {"com.microsoft.NhwcConv", push_nhwc_op, true},
    {"com.microsoft.NhwcMaxPool", push_nhwc_op, true},
    {"com.microsoft.NhwcAveragePool", push_nhwc_op, true},
    {"com.microsoft.NhwcGlobalAveragePool", push_nhwc_op, true},
};

static const Formula *formula_for(const Writer *w, const Node *n)
{
    if (!n->op)
        return NULL;
    for (size_t k = 0; k < sizeof formulas / sizeof formulas[0]; k++)
        if (!strcmp(formulas[k].op, n->op->name) &&
            (formulas[k].always || n->op->min_opset > w->opset))
            return &formulas[k];
    if (n->op->min_opset <= w->opset)
        return NULL;
    /* e.g. onnxruntime's Attention, which becomes the ONNX Attention op of opset 23 */
    fatal_at(n,
             "--emit-onnx cannot write it: the compiler made an ONNX %s, an op of opset %d, "
             "and the model imports opset %d (convert the model to opset %d first)",
             n->op->name, n->op->min_opset, w->opset, n->op->min_opset);
}

/* One NodeProto. `ninputs` may be less than the node's (epilogue operands are not ONNX
 * inputs of a Gemm or Conv); `out` overrides the output name. */
static void add_node(Writer *w, const Node *n, int ninputs, Value *const *inputs, const char *out)
{
    const Formula *f = formula_for(w, n);
    if (f) {
        add_initializer(w, inputs[0]);
        f->push(w, n, value_name(inputs[0]), out ? out : value_name(n->outputs[0]));
        return;
    }
    Onnx__NodeProto *p = xcalloc(1, sizeof *p);
    *p = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
    p->name = n->name;
    p->op_type = n->op_type;
    p->domain = n->domain;
    while (ninputs > 0 && !inputs[ninputs - 1])
        ninputs--;
    p->n_input = (size_t)ninputs;
    p->input = xcalloc((size_t)ninputs + 1, sizeof(char *));
    for (int i = 0; i < ninputs; i++) {
        p->input[i] = (char *)value_name(inputs[i]);
        add_initializer(w, inputs[i]);
    }
    p->n_output = (size_t)n->noutputs;
    p->output = xcalloc((size_t)n->noutputs + 1, sizeof(char *));
    for (int i = 0; i < n->noutputs; i++)
        p->output[i] = (char *)(i == 0 && out ? out : value_name(n->outputs[i]));
    p->attribute = xcalloc((size_t)n->nattrs + 1, sizeof(Onnx__AttributeProto *));
    for (int i = 0; i < n->nattrs; i++) {
        Onnx__AttributeProto *a = attr_proto(&n->attrs[i]);
        if (a)
            p->attribute[p->n_attribute++] = a;
    }
    push_node(w, p);
}

/* A fused node and its epilogues, chained through fresh intermediate names; after the 1x1 conv
 * fused before it, which writes the expanded tensor that the node reads. */
static void add_fused(Writer *w, const Node *n)
{
    const char *result = value_name(n->outputs[0]);
    const char *prev = n->nepilogue ? xprintf("%s/pre_epilogue0", result) : NULL;
    Value *ins[3] = {0};
    Value *const *own = n->inputs;
    const int nown = n->op->max_inputs < n->ninputs ? n->op->max_inputs : n->ninputs;
    if (n->prologue) {
        add_fused(w, n->prologue);
        for (int i = 0; i < nown && i < 3; i++)
            ins[i] = i ? n->inputs[i] : n->prologue->outputs[0];
        own = ins;
    }
    add_node(w, n, nown, own, prev);
    for (int k = 0; k < n->nepilogue; k++) {
        const Epilogue *ep = &n->epilogue[k];
        Value *ins[8] = {0};
        Value prev_value = *n->outputs[0];
        prev_value.name = (char *)prev;
        for (int i = 0; i < ep->node->ninputs && i < 8; i++)
            ins[i] = i == ep->input ? &prev_value : ep->node->inputs[i];
        const char *out =
            k + 1 < n->nepilogue ? xprintf("%s/pre_epilogue%d", result, k + 1) : result;
        prev_value.data = NULL;
        add_node(w, ep->node, ep->node->ninputs, ins, out);
        prev = out;
    }
}

static Onnx__OperatorSetIdProto *opset_import(const char *domain, int64_t version)
{
    Onnx__OperatorSetIdProto *o = xcalloc(1, sizeof *o);
    *o = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
    o->domain = (char *)domain;
    o->has_version = true;
    o->version = version;
    return o;
}

void write_onnx(FILE *f, const Model *m)
{
    const Graph *ig = m->graph;
    Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
    Writer w = {.graph = &graph, .opset = m->opset};
    w.written = xcalloc((size_t)ig->nvalues + 1, sizeof(bool));
    graph.name = "onnx2c_optimized";
    graph.n_input = (size_t)ig->ninputs;
    graph.input = xcalloc((size_t)ig->ninputs + 1, sizeof(Onnx__ValueInfoProto *));
    for (int i = 0; i < ig->ninputs; i++)
        graph.input[i] = value_info(ig->inputs[i]);
    graph.n_output = (size_t)ig->noutputs;
    graph.output = xcalloc((size_t)ig->noutputs + 1, sizeof(Onnx__ValueInfoProto *));
    for (int i = 0; i < ig->noutputs; i++) {
        graph.output[i] = value_info(ig->outputs[i]);
        add_initializer(&w, ig->outputs[i]); /* a folded output */
    }
    for (int i = 0; i < ig->nnodes; i++)
        add_fused(&w, ig->nodes[i]);

    Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
    model.has_ir_version = true;
    /* IR 4 is the first where initializers need not be graph inputs too. */
    model.ir_version = m->ir_version >= 4 ? m->ir_version : 4;
    model.producer_name = "onnx2c";
    const Onnx__ModelProto *src = m->proto;
    model.n_opset_import = src->n_opset_import;
    model.opset_import = xcalloc(src->n_opset_import + 1, sizeof(Onnx__OperatorSetIdProto *));
    bool ms = false; /* com.microsoft imported (or not needed) */
    for (size_t i = 0; i < src->n_opset_import; i++) {
        const char *d = src->opset_import[i]->domain ? src->opset_import[i]->domain : "";
        model.opset_import[i] = opset_import(d, src->opset_import[i]->version);
        ms = ms || !strcmp(d, "com.microsoft");
    }
    for (size_t i = 0; i < graph.n_node && !ms; i++) /* layout_nhwc's QLinearConv, say */
        if (graph.node[i]->domain && !strcmp(graph.node[i]->domain, "com.microsoft")) {
            model.opset_import =
                xrealloc(model.opset_import,
                         (model.n_opset_import + 1) * sizeof(Onnx__OperatorSetIdProto *));
            model.opset_import[model.n_opset_import++] = opset_import("com.microsoft", 1);
            ms = true;
        }
    model.graph = &graph;

    size_t len = onnx__model_proto__get_packed_size(&model);
    uint8_t *buf = xcalloc(1, len + 1);
    onnx__model_proto__pack(&model, buf);
    fwrite(buf, 1, len, f); /* main checks the stream when it closes it */
}
