/* plan_arena.c — give every intermediate tensor an offset in one arena.
 *
 * Liveness is measured in schedule steps: a buffer lives from the step of its producer to the
 * last step that reads it or any view of it (Reshape, Flatten, ... share their source's
 * buffer). Steps are visited in order; at each step the outputs get the best-fitting free
 * block (or the arena grows), and buffers whose last use was this step go back to the free
 * list, merged with their neighbours. Graph inputs and outputs live in the caller's memory and
 * constants in static data, so neither takes arena space. Node scratch (e.g. the im2col
 * buffer of a convolution) lives for its node's step only. */
#include "onnx2c.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 64

typedef struct Block {
    int64_t offset, size;
} Block;

typedef struct FreeList {
    Block *blocks;
    int n, cap;
    int64_t top; /* arena size so far */
} FreeList;

static Value *root_of(Value *v)
{
    while (v->view_of)
        v = v->view_of;
    return v;
}

static int64_t align_up(int64_t n)
{
    return (n + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
}

static int64_t take_block(FreeList *fl, int64_t size)
{
    int best = -1;
    for (int i = 0; i < fl->n; i++)
        if (fl->blocks[i].size >= size && (best < 0 || fl->blocks[i].size < fl->blocks[best].size))
            best = i;
    if (best < 0) {
        /* Grow the arena, reusing a free block at its end. */
        if (fl->n && fl->blocks[fl->n - 1].offset + fl->blocks[fl->n - 1].size == fl->top) {
            int64_t off = fl->blocks[fl->n - 1].offset;
            fl->n--;
            fl->top = off + size;
            return off;
        }
        int64_t off = fl->top;
        fl->top += size;
        return off;
    }
    int64_t off = fl->blocks[best].offset;
    fl->blocks[best].offset += size;
    fl->blocks[best].size -= size;
    if (!fl->blocks[best].size) {
        memmove(&fl->blocks[best], &fl->blocks[best + 1],
                (size_t)(fl->n - best - 1) * sizeof(Block));
        fl->n--;
    }
    return off;
}

/* Returns a block to the list (kept sorted by offset) and merges it with its neighbours. */
static void give_block(FreeList *fl, int64_t offset, int64_t size)
{
    if (fl->n == fl->cap) {
        fl->cap = fl->cap ? 2 * fl->cap : 16;
        fl->blocks = xrealloc(fl->blocks, (size_t)fl->cap * sizeof(Block));
    }
    int i = 0;
    while (i < fl->n && fl->blocks[i].offset < offset)
        i++;
    memmove(&fl->blocks[i + 1], &fl->blocks[i], (size_t)(fl->n - i) * sizeof(Block));
    fl->blocks[i] = (Block){offset, size};
    fl->n++;
    if (i + 1 < fl->n && fl->blocks[i].offset + fl->blocks[i].size == fl->blocks[i + 1].offset) {
        fl->blocks[i].size += fl->blocks[i + 1].size;
        memmove(&fl->blocks[i + 1], &fl->blocks[i + 2], (size_t)(fl->n - i - 2) * sizeof(Block));
        fl->n--;
    }
    if (i > 0 && fl->blocks[i - 1].offset + fl->blocks[i - 1].size == fl->blocks[i].offset) {
        fl->blocks[i - 1].size += fl->blocks[i].size;
        memmove(&fl->blocks[i], &fl->blocks[i + 1], (size_t)(fl->n - i - 1) * sizeof(Block));
        fl->n--;
    }
}

static bool needs_arena(const Value *v)
{
    return !v->data && !v->is_input && !v->is_output && !v->view_of && v->producer;
}

static void compute_liveness(Graph *g)
{
    for (int i = 0; i < g->nvalues; i++)
        g->values[i]->first_step = g->values[i]->last_step = -1;
    for (int s = 0; s < g->nnodes; s++) {
        Node *n = g->nodes[s];
        for (int i = 0; i < n->noutputs; i++)
            root_of(n->outputs[i])->first_step = s;
        for (int i = 0; i < n->ninputs; i++)
            if (n->inputs[i])
                root_of(n->inputs[i])->last_step = s;
    }
    for (int i = 0; i < g->nvalues; i++) {
        Value *v = g->values[i];
        if (v->first_step >= 0 && v->last_step < v->first_step)
            v->last_step = v->first_step; /* computed but unread: still needs a place */
    }
    /* A graph output that is a view is copied out after the last step: its buffer stays. */
    for (int i = 0; i < g->noutputs; i++)
        root_of(g->outputs[i])->last_step = g->nnodes;
}

ArenaPlan plan_arena(Graph *g)
{
    ArenaPlan plan = {0, 0, 0};
    compute_liveness(g);
    FreeList fl = {0};
    int64_t live = 0;
    /* A node may read one value many times (Concat of x with itself), so the list of what
     * dies at a step is as long as the longest node, not the number of values. */
    int most = 1;
    for (int s = 0; s < g->nnodes; s++)
        if (g->nodes[s]->ninputs + g->nodes[s]->noutputs > most)
            most = g->nodes[s]->ninputs + g->nodes[s]->noutputs;
    Value **ending = xcalloc((size_t)most, sizeof(Value *));
    for (int s = 0; s < g->nnodes; s++) {
        Node *n = g->nodes[s];
        for (int i = 0; i < n->noutputs; i++) {
            Value *v = n->outputs[i];
            if (!needs_arena(v) || v->offset >= 0)
                continue;
            int64_t size = align_up(value_bytes(v));
            v->offset = take_block(&fl, size);
            live += size;
            plan.naive_bytes += size;
        }
        int64_t scratch = n->op->scratch ? align_up(n->op->scratch(n)) : 0;
        if (scratch) {
            n->scratch_offset = take_block(&fl, scratch);
            plan.naive_bytes += scratch;
        }
        if (live + scratch > plan.lower_bound_bytes)
            plan.lower_bound_bytes = live + scratch;
        if (scratch)
            give_block(&fl, n->scratch_offset, scratch);
        /* Free what dies here: inputs read for the last time, outputs never read. */
        int nend = 0;
        for (int i = 0; i < n->ninputs; i++)
            if (n->inputs[i])
                ending[nend++] = root_of(n->inputs[i]);
        for (int i = 0; i < n->noutputs; i++)
            ending[nend++] = root_of(n->outputs[i]);
        for (int i = 0; i < nend; i++) {
            Value *v = ending[i];
            if (!needs_arena(v) || v->last_step != s || v->offset < 0)
                continue;
            v->last_step = -2; /* freed once even if read twice by this node */
            int64_t size = align_up(value_bytes(v));
            give_block(&fl, v->offset, size);
            live -= size;
        }
    }
    plan.arena_bytes = fl.top;
    return plan;
}

/* The node-order bound (DESIGN.md "Memory figures"): the most bytes of intermediate tensors
 * alive at one step when the model's nodes run in the order of the file, each tensor in a
 * buffer of its own, with no fusion and no in-place. main.c takes it right after shape
 * inference: functions are inlined, If on known conditions replaced by their branch, loops
 * unrolled and the constant subgraphs (Shape arithmetic, ...) folded, so the folded nodes do
 * not run; no rewrite has run yet (not even promote_half's float32 working copies of float16
 * tensors). Like the arena, every tensor is counted rounded up to ARENA_ALIGN; a view
 * (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout) shares its source's buffer
 * unless it is a graph output. Graph inputs, outputs and constants are not counted. A tensor
 * is alive from the step of its producer through the last step that reads it or one of its
 * views; one nobody reads, at its producer's step. */
int64_t node_order_bound(const Graph *g)
{
    int nv = g->nvalues, ns = 0;
    int *root = xcalloc((size_t)nv + 1, sizeof(int));
    int *first = xcalloc((size_t)nv + 1, sizeof(int));
    int *last = xcalloc((size_t)nv + 1, sizeof(int));
    for (int i = 0; i < nv; i++) {
        root[i] = i;
        first[i] = last[i] = -1;
    }
    for (int s = 0; s < g->nnodes; s++) {
        const Node *n = g->nodes[s];
        if (n->dead)
            continue;
        for (int i = 0; i < n->ninputs; i++)
            if (n->inputs[i])
                last[root[n->inputs[i]->id]] = ns;
        const Value *out0 = n->noutputs ? n->outputs[0] : NULL;
        if (n->op && n->op->is_view && out0 && n->ninputs && n->inputs[0] && !out0->data &&
            !out0->is_output)
            root[out0->id] = root[n->inputs[0]->id];
        for (int i = 0; i < n->noutputs; i++) {
            int r = root[n->outputs[i]->id];
            if (first[r] < 0)
                first[r] = ns;
            if (last[r] < ns)
                last[r] = ns;
        }
        ns++;
    }
    /* Bytes that start being alive at each step, and that stop after it. */
    int64_t *delta = xcalloc((size_t)ns + 1, sizeof(int64_t));
    for (int i = 0; i < nv; i++) {
        const Value *v = g->values[i];
        if (root[i] != i || first[i] < 0 || v->data || v->is_input || v->is_output)
            continue;
        int64_t size = align_up(value_bytes(v));
        delta[first[i]] += size;
        delta[last[i] + 1] -= size;
    }
    int64_t live = 0, most = 0;
    for (int s = 0; s < ns; s++) {
        live += delta[s];
        if (live > most)
            most = live;
    }
    return most; /* the arrays go with everything else at exit (util.c) */
}
