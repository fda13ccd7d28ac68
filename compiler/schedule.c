/* schedule.c — the order nodes run in. ONNX requires graphs to be topologically sorted and
 * every pass so far keeps the loaded order, so the schedule is the live nodes in model order:
 * deterministic, and what a reader of the model expects. */
#include "onnx2c.h"

void schedule(Graph *g)
{
    int n = 0;
    for (int i = 0; i < g->nnodes; i++)
        if (!g->nodes[i]->dead)
            g->nodes[n++] = g->nodes[i];
    g->nnodes = n;
}
