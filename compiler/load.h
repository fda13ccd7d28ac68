/* load.h — shared by the loader (load.c) and the node conversion that expands model-local
 * functions and splices If branches (inline_functions.c). */
#ifndef LOAD_H
#define LOAD_H

#include "onnx.pb-c.h"
#include "onnx2c.h"

/* Names visible while converting a list of nodes. The top level uses the graph's name index;
 * a function body sees only its formal inputs and what it defines; an If branch also sees its
 * parent's names. Values defined in nested scopes get the scope's prefix, so names stay
 * unique in the flat graph ("layer1#3/mm"). */
typedef struct Scope {
    struct Scope *parent;
    bool sees_parent;
    const char *prefix;
    int n, cap;
    const char **names;
    Value **values;
    const Onnx__FunctionProto *fn; /* the function being expanded, or NULL */
    const Attr *call_attrs;        /* the caller's attributes, for ref_attr_name */
    int ncall_attrs;
} Scope;

uint8_t *read_file(const char *path, const char *what, size_t *len);
/* External data is read relative to the model's folder (tensor_to_value) or dir. */
void tensor_to_value(const Onnx__TensorProto *t, Value *v, const char *what);
void tensor_to_value_at(const Onnx__TensorProto *t, Value *v, const char *what, const char *dir);
char *dir_of(const char *path); /* "a/b/m.onnx" -> "a/b", "m.onnx" -> "." */
void convert_attr(Attr *a, const Onnx__AttributeProto *p);
int opset_of(const Onnx__ModelProto *mp, const char *domain);

Scope *top_scope(Model *m);
void scope_bind(Scope *s, const char *name, Value *v);
Value *scope_lookup(Model *m, const Scope *s, const char *name); /* NULL if not visible */
void convert_nodes(Model *m, Scope *s, Onnx__NodeProto *const *nodes, size_t n);
/* Converts subgraph g (an If branch, a loop body, a modifier graph) in a scope below node n's,
 * its values named prefix+name, its inputs bound to ins; returns its outputs' values. */
Value **splice_graph(Model *m, const Node *n, const Onnx__GraphProto *g, const char *prefix,
                     Value *const *ins, const char *what);

#endif
