/* inline_functions.c — node conversion with name scopes: model-local functions are expanded
 * in place as they are met (nested calls, attribute references, default attributes,
 * function-level opset imports, any domain), and If nodes with a folded condition are replaced
 * by their taken branch (fold_if, called by infer_shapes). Exporters such as onnxscript's
 * torchlib wrap every aten op in functions and guard them with If on the input's rank; after
 * this pass the graph is flat. */
#include "load.h"

#include <string.h>

Scope *top_scope(Model *m)
{
    (void)m;
    if (!cc->top_scope) {
        cc->top_scope = xcalloc(1, sizeof(Scope));
        cc->top_scope->prefix = "";
    }
    return cc->top_scope;
}

void scope_bind(Scope *s, const char *name, Value *v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->names = xrealloc(s->names, (size_t)s->cap * sizeof(char *));
        s->values = xrealloc(s->values, (size_t)s->cap * sizeof(Value *));
    }
    s->names[s->n] = name;
    s->values[s->n++] = v;
}

Value *scope_lookup(Model *m, const Scope *s, const char *name)
{
    for (; s; s = s->parent) {
        if (s == cc->top_scope)
            return value_lookup(m->graph, name);
        for (int i = s->n - 1; i >= 0; i--)
            if (!strcmp(s->names[i], name))
                return s->values[i];
        if (!s->sees_parent)
            return NULL;
    }
    return NULL;
}

static Value *scope_define(Model *m, Scope *s, const Node *n, const char *name)
{
    Graph *g = m->graph;
    if (!*name)
        return value_new(g, "");
    if (s == cc->top_scope) {
        if (value_lookup(g, name))
            fatal_at(n, "output '%s' is already defined (the graph is not in SSA form)", name);
        return value_new(g, name);
    }
    char *full = xprintf("%s%s", s->prefix, name);
    for (int k = 2; value_lookup(g, full); k++)
        full = xprintf("%s%s~%d", s->prefix, name, k);
    Value *v = value_new(g, full);
    scope_bind(s, name, v);
    return v;
}

static int node_opset(Model *m, const Scope *s, const char *domain)
{
    for (; s; s = s->parent) {
        if (!s->fn)
            continue;
        const Onnx__FunctionProto *fn = s->fn;
        const char *d = !strcmp(domain, "ai.onnx") ? "" : domain;
        for (size_t i = 0; i < fn->n_opset_import; i++) {
            const char *fd = fn->opset_import[i]->domain ? fn->opset_import[i]->domain : "";
            if (!strcmp(fd, "ai.onnx"))
                fd = "";
            if (!strcmp(fd, d))
                return (int)fn->opset_import[i]->version;
        }
        break;
    }
    return opset_of(m->proto, domain);
}

static const Onnx__FunctionProto *find_function(Model *m, const Onnx__NodeProto *np)
{
    const Onnx__ModelProto *mp = m->proto;
    const char *domain = np->domain ? np->domain : "";
    const char *overload = np->overload ? np->overload : "";
    for (size_t i = 0; i < mp->n_functions; i++) {
        const Onnx__FunctionProto *f = mp->functions[i];
        if (!strcmp(f->name ? f->name : "", np->op_type ? np->op_type : "") &&
            !strcmp(f->domain ? f->domain : "", domain) &&
            !strcmp(f->overload ? f->overload : "", overload))
            return f;
    }
    return NULL;
}

static const Attr *find_attr(const Attr *attrs, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(attrs[i].name, name))
            return &attrs[i];
    return NULL;
}

/* The function's default for an attribute the caller did not set (FunctionProto.attribute_proto).
 */
static const Onnx__AttributeProto *function_default(const Onnx__FunctionProto *fn, const char *name)
{
    for (size_t i = 0; fn && i < fn->n_attribute_proto; i++)
        if (!strcmp(fn->attribute_proto[i]->name ? fn->attribute_proto[i]->name : "", name))
            return fn->attribute_proto[i];
    return NULL;
}

/* A node's attributes; inside a function, `ref_attr_name` takes the caller's value (or the
 * function's default; an attribute with neither is left out, as the spec says). */
static void convert_attrs(Node *n, const Onnx__NodeProto *np, const Scope *s)
{
    n->attrs = xcalloc(np->n_attribute + 1, sizeof(Attr));
    for (size_t i = 0; i < np->n_attribute; i++) {
        const Onnx__AttributeProto *p = np->attribute[i];
        const char *name = p->name ? p->name : "";
        if (!p->ref_attr_name || !*p->ref_attr_name) {
            convert_attr(&n->attrs[n->nattrs++], p);
            continue;
        }
        const Attr *given = find_attr(s->call_attrs, s->ncall_attrs, p->ref_attr_name);
        if (given) {
            n->attrs[n->nattrs] = *given;
            n->attrs[n->nattrs++].name = xstrdup(name);
            continue;
        }
        const Onnx__AttributeProto *dflt = function_default(s->fn, p->ref_attr_name);
        if (dflt) {
            convert_attr(&n->attrs[n->nattrs], dflt);
            n->attrs[n->nattrs++].name = xstrdup(name);
        }
    }
}

static void expand_function(Model *m, Scope *s, const Onnx__NodeProto *np,
                            const Onnx__FunctionProto *fn);

static void convert_node(Model *m, Scope *s, const Onnx__NodeProto *np)
{
    const Onnx__FunctionProto *fn = find_function(m, np);
    if (fn) {
        expand_function(m, s, np, fn);
        return;
    }
    Graph *g = m->graph;
    Node *n = node_new(g, xprintf("%s%s", s->prefix, np->name ? np->name : ""),
                       np->op_type ? np->op_type : "", (int)np->n_input, (int)np->n_output);
    n->domain = xstrdup(np->domain ? np->domain : "");
    n->opset = node_opset(m, s, n->domain);
    n->scope = s;
    if (!np->n_output)
        fatal_at(n, "has no outputs");
    for (size_t i = 0; i < np->n_input; i++) {
        if (!*np->input[i])
            continue;
        Value *v = scope_lookup(m, s, np->input[i]);
        if (!v)
            fatal_at(n, "reads '%s', which no earlier node, graph input or initializer defines",
                     np->input[i]);
        node_set_input(n, (int)i, v);
    }
    convert_attrs(n, np, s);
    for (size_t i = 0; i < np->n_output; i++) {
        n->outputs[i] = scope_define(m, s, n, np->output[i]);
        n->outputs[i]->producer = n;
    }
}

void convert_nodes(Model *m, Scope *s, Onnx__NodeProto *const *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        convert_node(m, s, nodes[i]);
}

/* Identity from a value computed inside a scope to the name the outer scope expects; the
 * simplify pass removes it again. */
static void bind_output(Model *m, Scope *outer, Value *inner, const char *outer_name,
                        const char *node_name)
{
    Node *id = node_new(m->graph, node_name, "Identity", 1, 1);
    id->opset = opset_of(m->proto, "");
    id->scope = outer;
    node_set_input(id, 0, inner);
    id->outputs[0] = scope_define(m, outer, id, outer_name);
    id->outputs[0]->producer = id;
}

static void expand_function(Model *m, Scope *s, const Onnx__NodeProto *np,
                            const Onnx__FunctionProto *fn)
{
    const char *call = np->name && *np->name ? np->name : np->op_type;
    int depth = 0;
    for (const Scope *p = s; p; p = p->parent, depth++)
        if (p->fn == fn)
            fatal("node '%s' (%s, domain %s): function '%s' calls itself (recursion is not "
                  "allowed in ONNX functions)",
                  call, np->op_type, np->domain ? np->domain : "", fn->name);
    if (depth > cc->limits.max_depth)
        fatal("node '%s' (%s): function calls and subgraphs nest more than %d deep (--max-depth "
              "raises the limit)",
              call, np->op_type, cc->limits.max_depth);
    if (np->n_input > fn->n_input || np->n_output > fn->n_output)
        fatal("node '%s' (%s): the call has %zu inputs and %zu outputs, function '%s' takes at "
              "most %zu and %zu",
              call, np->op_type, np->n_input, np->n_output, fn->name, fn->n_input, fn->n_output);
    Scope *fs = xcalloc(1, sizeof(Scope));
    fs->parent = s;
    fs->fn = fn;
    fs->prefix = xprintf("%s%s#%d/", s->prefix, call, ++cc->state.expansion_counter);
    /* The caller's attributes, themselves possibly references into an enclosing function. */
    Node tmp = {.name = (char *)call, .op_type = np->op_type};
    convert_attrs(&tmp, np, s);
    fs->call_attrs = tmp.attrs;
    fs->ncall_attrs = tmp.nattrs;
    for (size_t i = 0; i < fn->n_input; i++) {
        Value *v = i < np->n_input && *np->input[i] ? scope_lookup(m, s, np->input[i]) : NULL;
        if (i < np->n_input && *np->input[i] && !v)
            fatal("node '%s' (%s): reads '%s', which is not defined", call, np->op_type,
                  np->input[i]);
        if (v)
            scope_bind(fs, fn->input[i], v);
    }
    convert_nodes(m, fs, fn->node, fn->n_node);
    for (size_t i = 0; i < np->n_output && i < fn->n_output; i++) {
        if (!*np->output[i])
            continue;
        Value *v = scope_lookup(m, fs, fn->output[i]);
        if (!v)
            fatal("node '%s' (%s): function '%s' does not compute its output '%s'", call,
                  np->op_type, fn->name, fn->output[i]);
        bind_output(m, s, v, np->output[i], xprintf("%s#%d/return", call, cc->state.expansion_counter));
    }
}

/* ---- If with a folded condition ---- */

/* Moves the nodes appended since `first_new` to just after position `at`, so that they run
 * before the nodes that read the If's outputs. */
void move_new_nodes(Graph *g, int at, int first_new)
{
    int count = g->nnodes - first_new, tail = first_new - (at + 1);
    Node **tmp = xcalloc((size_t)count + 1, sizeof(Node *));
    memcpy(tmp, g->nodes + first_new, (size_t)count * sizeof(Node *));
    memmove(g->nodes + at + 1 + count, g->nodes + at + 1, (size_t)tail * sizeof(Node *));
    memcpy(g->nodes + at + 1, tmp, (size_t)count * sizeof(Node *));
}

Value **splice_graph(Model *m, const Node *n, const Onnx__GraphProto *g, const char *prefix,
                     Value *const *ins, const char *what)
{
    Scope *s = xcalloc(1, sizeof(Scope));
    s->parent = n->scope;
    s->sees_parent = true;
    if (n->scope) { /* a body inside a function sees the call's attributes too */
        s->fn = n->scope->fn;
        s->call_attrs = n->scope->call_attrs;
        s->ncall_attrs = n->scope->ncall_attrs;
    }
    s->prefix = prefix;
    for (size_t i = 0; ins && i < g->n_input; i++)
        scope_bind(s, g->input[i]->name ? g->input[i]->name : "", ins[i]);
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        tensor_to_value(t, scope_define(m, s, n, t->name ? t->name : ""), "initializer");
    }
    convert_nodes(m, s, g->node, g->n_node);
    Value **outs = xcalloc(g->n_output + 1, sizeof(Value *));
    for (size_t i = 0; i < g->n_output; i++) {
        const char *name = g->output[i]->name ? g->output[i]->name : "";
        outs[i] = scope_lookup(m, s, name);
        if (!outs[i])
            fatal_at(n, "%s output '%s' is not defined", what, name);
    }
    return outs;
}

/* Converts one branch's nodes into the graph (after the If's position once moved) and returns
 * the values of its outputs. */
static Value **splice_branch(Model *m, Node *n, bool then)
{
    const char *which = then ? "then_branch" : "else_branch";
    const Attr *a = attr_get(n, which);
    if (!a || a->type != ATTR_GRAPH || !a->graph)
        fatal_at(n, "has no %s graph", which);
    const Onnx__GraphProto *branch = a->graph;
    if (branch->n_output != (size_t)n->noutputs)
        fatal_at(n, "%s has %zu outputs, the node %d", which, branch->n_output, n->noutputs);
    const char *prefix = xprintf("%s/%s/", n->name[0] ? n->name : "If", then ? "then" : "else");
    return splice_graph(m, n, branch, prefix, NULL, which);
}

/* A node computing output i of the If from the branch results. */
static void join_output(Model *m, Node *n, int i, const char *op, int ninputs, Value **ins)
{
    Node *j =
        node_new(m->graph, xprintf("%s/out%d", n->name[0] ? n->name : "If", i), op, ninputs, 1);
    j->opset = opset_of(m->proto, "");
    j->scope = n->scope;
    for (int k = 0; k < ninputs; k++)
        node_set_input(j, k, ins[k]);
    j->outputs[0] = n->outputs[i];
    j->outputs[0]->producer = j;
}

/* With a constant condition the taken branch replaces the If. With a condition known only at
 * run time both branches are computed (ONNX branches have no side effects) and Where picks
 * each output, which needs both branches to give the same shapes (checked by Where). */
void fold_if(Model *m, int index)
{
    Graph *g = m->graph;
    Node *n = g->nodes[index];
    Value *cond = n->inputs[0];
    if (value_numel(cond) != 1 || cond->dtype != DT_BOOL)
        fatal_at(n, "the condition must be a single bool");
    int first_new = g->nnodes;
    if (cond->data) {
        Value **outs = splice_branch(m, n, *(const uint8_t *)cond->data != 0);
        for (int i = 0; i < n->noutputs; i++)
            join_output(m, n, i, "Identity", 1, &outs[i]);
    } else {
        Value **then_outs = splice_branch(m, n, true), **else_outs = splice_branch(m, n, false);
        for (int i = 0; i < n->noutputs; i++) {
            Value *ins[3] = {cond, then_outs[i], else_outs[i]};
            join_output(m, n, i, "Where", 3, ins);
        }
    }
    node_retire(n);
    move_new_nodes(g, index, first_new);
}
