/* schedule.c — the order nodes run in: the live nodes sorted by their order keys. Loaded
 * nodes keep the model's (topological) order, and a rewrite that adds a node places it just
 * before the node that reads it, so the result is a deterministic topological order. */
#include "onnx2c.h"

#include <stdlib.h>

static int by_order(const void *a, const void *b)
{
    const Node *x = *(Node *const *)a, *y = *(Node *const *)b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* A view's output shares its input's buffer. Linked here, after every rewrite, from the live
 * view nodes alone, so no pass has to keep the links up to date. */
static void link_views(Graph *g)
{
    for (int i = 0; i < g->nvalues; i++)
        g->values[i]->view_of = NULL;
    for (int i = 0; i < g->nnodes; i++) {
        Node *n = g->nodes[i];
        if (op_has(n->op, OP_VIEW) && !n->outputs[0]->data && n->inputs[0])
            n->outputs[0]->view_of = n->inputs[0];
    }
}

void schedule(Graph *g)
{
    int n = 0;
    for (int i = 0; i < g->nnodes; i++)
        if (!g->nodes[i]->dead)
            g->nodes[n++] = g->nodes[i];
    g->nnodes = n;
    if (n > 1) /* a graph without nodes may have no array */
        qsort(g->nodes, (size_t)n, sizeof(Node *), by_order);
    link_views(g);
}
