/* eliminate_dead.c — drop nodes whose outputs nothing needs. Use counts make it one sweep in
 * reverse graph order: a node is dead once none of its outputs has a use left. */
#include "onnx2c.h"

static bool has_live_output(const Node *n)
{
    for (int i = 0; i < n->noutputs; i++)
        if (value_is_used(n->outputs[i]))
            return true;
    return false;
}

int eliminate_dead(Graph *g)
{
    int removed = 0;
    for (int i = g->nnodes - 1; i >= 0; i--) {
        Node *n = g->nodes[i];
        if (n->dead || has_live_output(n))
            continue;
        node_retire(n);
        removed++;
    }
    return removed;
}
