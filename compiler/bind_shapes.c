/* bind_shapes.c — fix every graph input: --bind-input turns an input into a constant,
 * --shape overrides a shape, --dim binds symbols. A model whose inputs still have unbound
 * symbolic dims is refused, listing them all. */
#include "load.h"
#include "onnx2c.h"

#include <string.h>

static const Binding *find_binding(const Binding *b, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(b[i].name, name))
            return &b[i];
    return NULL;
}

static void apply_shape_option(Value *v, const Binding *b)
{
    if (v->rank >= 0 && v->rank != b->rank)
        fatal("--shape %s gives rank %d, the model declares rank %d", v->name, b->rank, v->rank);
    for (int i = 0; i < b->rank; i++) {
        if (v->rank >= 0 && v->dims[i] >= 0 && v->dims[i] != b->dims[i])
            fatal("--shape %s: dim %d is %lld in the model, not %lld", v->name, i,
                  (long long)v->dims[i], (long long)b->dims[i]);
        v->dims[i] = b->dims[i];
        v->dim_params[i] = NULL;
    }
    v->rank = b->rank;
}

/* Adds "name" to the comma-separated list unless it is already there. */
static char *list_add(char *list, const char *name)
{
    if (!list)
        return xprintf("'%s'", name);
    char *quoted = xprintf("'%s'", name);
    if (strstr(list, quoted))
        return list;
    return xprintf("%s, %s", list, quoted);
}

/* The file's tensor must fit what the model declares: same element type, same rank, and the
 * same size wherever the model gives a number (symbolic dims take the file's size). */
static void check_bound_tensor(const Value *v, const Value *c, const char *path)
{
    if (v->dtype != DT_UNDEFINED && v->dtype != c->dtype)
        fatal("--bind-input %s: %s holds %s, the input is %s", v->name, path, dtype_name(c->dtype),
              dtype_name(v->dtype));
    if (v->rank >= 0 && v->rank != c->rank)
        fatal("--bind-input %s: %s has rank %d, the input has rank %d", v->name, path, c->rank,
              v->rank);
    for (int d = 0; v->rank >= 0 && d < v->rank; d++)
        if (v->dims[d] >= 0 && v->dims[d] != c->dims[d])
            fatal("--bind-input %s: %s has size %lld in dim %d, the input %lld", v->name, path,
                  (long long)c->dims[d], d, (long long)v->dims[d]);
}

static void remove_graph_input(Graph *g, const Value *v)
{
    int j = 0;
    for (int i = 0; i < g->ninputs; i++)
        if (g->inputs[i] != v)
            g->inputs[j++] = g->inputs[i];
    g->ninputs = j;
}

/* "'a', 'b'": the graph's inputs, for errors that name a wrong one. */
static const char *input_names(const Graph *g)
{
    char *list = NULL;
    for (int i = 0; i < g->ninputs; i++)
        list = list_add(list, g->inputs[i]->name);
    return list ? list : "none";
}

/* Every --dim must name a symbolic dimension of some input: a misspelt symbol would otherwise
 * be ignored silently. */
static void check_dim_symbols(const Graph *g, const Options *opt)
{
    char *symbols = NULL;
    for (int i = 0; i < g->ninputs; i++)
        for (int d = 0; d < g->inputs[i]->rank; d++)
            if (g->inputs[i]->dim_params[d] && g->inputs[i]->dims[d] < 0)
                symbols = list_add(symbols, g->inputs[i]->dim_params[d]);
    for (int i = 0; i < opt->ndims; i++) {
        bool used = false;
        for (int k = 0; k < g->ninputs && !used; k++)
            for (int d = 0; d < g->inputs[k]->rank && !used; d++)
                used = g->inputs[k]->dim_params[d] &&
                       !strcmp(g->inputs[k]->dim_params[d], opt->dims[i].name);
        if (!used)
            fatal("--dim names '%s', which is no symbolic dimension of the inputs (they have: %s)",
                  opt->dims[i].name, symbols ? symbols : "none");
    }
}

/* Shape-determining inputs (Reshape's shape, Resize's scales, TopK's K...) must be constants in
 * a static compiler; --bind-input gives such an input its value for good. */
static void bind_input_value(Graph *g, const char *name, const char *path)
{
    Value *v = value_lookup(g, name);
    if (!v || !v->is_input)
        fatal("--bind-input names '%s', which is not an input of the model (the inputs are %s)",
              name, input_names(g));
    const char *what = xprintf("--bind-input %s: %s: ", name, path);
    size_t len;
    uint8_t *buf = read_file(path, what, &len);
    Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, buf);
    if (!t)
        fatal("%snot a serialized TensorProto", what);
    Value c = {.name = v->name, .rank = -1};
    tensor_to_value_at(t, &c, xprintf("--bind-input %s: tensor", name), dir_of(path));
    onnx__tensor_proto__free_unpacked(t, NULL);
    check_bound_tensor(v, &c, path);
    v->dtype = c.dtype;
    v->rank = c.rank;
    memcpy(v->dims, c.dims, sizeof v->dims);
    memset(v->dim_params, 0, sizeof v->dim_params);
    v->data = c.data;
    v->is_weight = true;
    v->is_input = false;
    remove_graph_input(g, v);
}

void bind_input_values(Model *m, const Options *opt)
{
    for (int i = 0; i < opt->nvalues; i++)
        bind_input_value(m->graph, opt->values[i].name, opt->values[i].path);
}

/* Depth-first over producers; `seen` is indexed by value id and grows on demand. */
static void collect_feeding_inputs(const Value *v, bool **seen, int *nseen, char **list)
{
    if (v->id >= *nseen) {
        int grown = v->id * 2 + 64;
        *seen = xrealloc(*seen, (size_t)grown);
        memset(*seen + *nseen, 0, (size_t)(grown - *nseen));
        *nseen = grown;
    }
    if ((*seen)[v->id])
        return;
    (*seen)[v->id] = true;
    if (v->is_input)
        *list = list_add(*list, v->name);
    const Node *p = v->producer;
    for (int i = 0; p && i < p->ninputs; i++)
        if (p->inputs[i] && !p->inputs[i]->data)
            collect_feeding_inputs(p->inputs[i], seen, nseen, list);
}

const char *graph_inputs_feeding(const Value *v)
{
    bool *seen = NULL;
    int nseen = 0;
    char *list = NULL;
    collect_feeding_inputs(v, &seen, &nseen, &list);
    return list;
}

void bind_shapes(Model *m, const Options *opt)
{
    Graph *g = m->graph;
    check_dim_symbols(g, opt);
    for (int i = 0; i < opt->nshapes; i++) {
        Value *v = value_lookup(g, opt->shapes[i].name);
        if (!v || !v->is_input)
            fatal("--shape names '%s', which is not an input of the model (the inputs are %s)",
                  opt->shapes[i].name, input_names(g));
        apply_shape_option(v, &opt->shapes[i]);
    }
    char *unbound = NULL, *unknown_rank = NULL;
    for (int i = 0; i < g->ninputs; i++) {
        Value *v = g->inputs[i];
        if (!dtype_size(v->dtype))
            fatal("input '%s' has element type %s, which onnx2c does not support", v->name,
                  dtype_name(v->dtype));
        if (v->rank < 0) {
            unknown_rank = list_add(unknown_rank, v->name);
            continue;
        }
        for (int d = 0; d < v->rank; d++) {
            if (v->dims[d] >= 0)
                continue;
            const Binding *b =
                v->dim_params[d] ? find_binding(opt->dims, opt->ndims, v->dim_params[d]) : NULL;
            if (b)
                v->dims[d] = b->dims[0];
            else
                unbound =
                    list_add(unbound, v->dim_params[d] ? v->dim_params[d]
                                                       : xprintf("%s[%d] (unnamed)", v->name, d));
        }
    }
    if (unknown_rank)
        fatal("inputs of unknown rank: %s; give their shapes with --shape INPUT=AxB", unknown_rank);
    if (unbound)
        fatal("unbound symbolic dimensions: %s; bind them with --dim SYMBOL=N (or --shape "
              "INPUT=AxB)",
              unbound);
    for (int i = 0; i < g->ninputs; i++)
        value_numel(g->inputs[i]); /* checks the size for overflow */
}
