/* bind_shapes.c — fix every graph input's shape: --shape overrides, --dim binds symbols.
 * A model whose inputs still have unbound symbolic dims is refused, listing them all. */
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

void bind_shapes(Model *m, const Options *opt)
{
    Graph *g = m->graph;
    for (int i = 0; i < opt->nshapes; i++) {
        Value *v = value_lookup(g, opt->shapes[i].name);
        if (!v || !v->is_input)
            fatal("--shape names '%s', which is not an input of the model", opt->shapes[i].name);
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
                unbound = list_add(unbound, v->dim_params[d]
                                                ? v->dim_params[d]
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
