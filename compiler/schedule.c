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

void schedule(Graph *g)
{
    int n = 0;
    for (int i = 0; i < g->nnodes; i++)
        if (!g->nodes[i]->dead)
            g->nodes[n++] = g->nodes[i];
    g->nnodes = n;
    qsort(g->nodes, (size_t)n, sizeof(Node *), by_order);
}
