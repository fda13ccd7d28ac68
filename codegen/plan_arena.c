/* plan_arena.c — give every intermediate tensor an offset in one arena.
 *
 * Buffers. Graph inputs and outputs live in the caller's memory and constants in static data,
 * so neither takes arena space. Every other tensor is in a buffer of the arena: its own, or
 *   - its source's, for a view (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout:
 *     zero-copy, linked by schedule.c), or
 *   - an input's, in place: an elementwise node (OP_ELEMENTWISE in the op table) may write
 *     its output into the buffer of an input that dies at its step, when the two have the
 *     same type and element count and no other operand of the node (nor of an epilogue fused
 *     into it) reads that buffer. Legal because those kernels read element i before they
 *     write element i and take no restrict pointers (templates/elementwise.c and math.c say
 *     "y may be x"; they already run in place as epilogues), and the tiles of emit_chain.c
 *     read and write the same rows of both. Not done for a Gemm taking its residual Add's
 *     buffer: the product stores its result before the epilogue reads the residual.
 *     And a node's output 0 over the input its output_over_input names (a recurrent layer's
 *     Y over X, compiler/ops/recurrent.c says when) or, for OP_CONV_IN_PLACE, the one
 *     conv_in_place_input names (a depthwise Conv's y over x; a Conv's y over the residual
 *     its kernels add in their tile store, the residual's epilogue slot counted as its
 *     own). Node.output_in_place then tells the op's scratch() and emit().
 * Node scratch (a convolution's band plane, a recurrent layer's input projection) is a buffer
 * alive for its node's step. Every size is rounded up to ARENA_ALIGN.
 *
 * Scratch budgets. Where a node's preferred scratch would take the live bytes of its step
 * over the node-order bound (DESIGN.md "Memory figures"), the node gets a budget: the bound
 * less the bytes of the tensors alive at that step, rounded down to ARENA_ALIGN (at least
 * ARENA_ALIGN). Its scratch() then sizes a smaller working set within it (fewer conv rows per
 * band, fewer recurrent steps per input projection), and the buffers are made again. Only
 * those steps shrink: every other node keeps the working set it runs fastest with. A node
 * whose smallest working set does not fit takes the arena over the bound; the budgets are
 * then set again against the live peak it leaves (no other step needs to be smaller).
 *
 * Lifetimes are in schedule steps: a buffer lives from the step of its first producer to the
 * last step that reads it or any tensor sharing it, inclusive; a graph output that is a view is
 * copied out after the last step, so its buffer lives to the end. Two buffers whose lifetimes
 * overlap get disjoint bytes; the live lower bound is the most bytes of buffers alive at one
 * step, and no plan can be smaller.
 *
 * Offsets. The plan kept is the smallest of these (the first on a tie), stopping as soon as
 * one reaches the live lower bound:
 *   - greedy: buffers one by one in a fixed order, each at the lowest offset free for its
 *     whole lifetime (TFLite's "greedy by size"), or in the smallest free gap that holds it;
 *     the orders are largest first, largest bytes x steps first and longest-lived first.
 *     Each is then improved: the buffer that ends highest moves to the front of the order and
 *     the buffers are placed again (a few rounds, within a work budget);
 *   - by steps: steps in order, at each step the new buffers take the best-fitting free block
 *     (or the arena grows), and the buffers that die there return to the free list, merged
 *     with their neighbours.
 * The greedy placements need the list of overlapping pairs; a graph with more than
 * MAX_OVERLAPS of them (where that would cost more time than it saves memory) is planned by
 * steps only. Everything is deterministic: same graph, same offsets. */
#include "onnx2c.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN  64
#define MAX_OVERLAPS 8000000  /* pairs of buffers alive at a common step */
#define WORK_BUDGET  30000000 /* buffers + overlaps visited by all greedy placements together */
#define MAX_ROUNDS   24       /* placements of one greedy order */

typedef struct Buffer {
    int64_t size;    /* bytes, a multiple of ARENA_ALIGN */
    int first, last; /* schedule steps, inclusive */
    int64_t offset;
} Buffer;

typedef struct Buffers {
    Buffer *b;
    int n, cap;
    int *of_value;     /* per value id: its buffer, or -1 */
    int64_t *at_value; /* per value id: its byte offset in that buffer (a slice), else 0 */
    int *of_scratch;   /* per step: the node's scratch buffer, or -1 */
    int in_place;      /* outputs that took an input's buffer */
    int in_slice;      /* Concat inputs written in their slice of its output */
} Buffers;

/* Concat inputs planned in their output's buffer: per value id, the output whose slice it is
 * (NULL for none), the slice's byte offset in it and, for a strided slice, the elements from
 * one of its rows to the next (Value.row_stride; 0: one contiguous block). */
typedef struct Slices {
    Value **of;
    int64_t *at, *stride;
} Slices;

static Value *root_of(Value *v)
{
    while (v->view_of)
        v = v->view_of;
    return v;
}

static int64_t align_up(int64_t n)
{
    return checked_add(NULL, n, ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
}

/* Not for constants, graph inputs and outputs, views, nor an optional output nothing reads. */
static bool needs_arena(const Value *v)
{
    return !v->data && !v->is_input && !v->is_output && !v->view_of && v->producer &&
           (value_is_used(v) || !node_has(v->producer, OP_OPTIONAL_OUTPUTS));
}

static void compute_liveness(Graph *g)
{
    for (int i = 0; i < g->nvalues; i++)
        g->values[i]->first_step = g->values[i]->last_step = -1;
    for (int s = 0; s < g->nnodes; s++) {
        Node *n = g->nodes[s];
        for (int i = 0; i < n->noutputs; i++)
            if (root_of(n->outputs[i])->first_step < 0)
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

/* ---- buffers ---- */

static int new_buffer(Buffers *bs, int64_t size, int first, int last)
{
    if (bs->n == bs->cap) {
        bs->cap = bs->cap ? 2 * bs->cap : 64;
        bs->b = xrealloc(bs->b, (size_t)bs->cap * sizeof(Buffer));
    }
    bs->b[bs->n] = (Buffer){size, first, last, -1};
    return bs->n++;
}

/* How many input slots of n, and of the epilogues fused into it, read buffer `buf`. */
static int reads_of_buffer(const Buffers *bs, const Node *n, int buf)
{
    int count = 0;
    for (int i = 0; i < n->ninputs; i++)
        if (n->inputs[i] && bs->of_value[root_of(n->inputs[i])->id] == buf)
            count++;
    for (int e = 0; e < n->nepilogue; e++) {
        const Epilogue *ep = &n->epilogue[e];
        for (int i = 0; i < ep->node->ninputs; i++)
            if (i != ep->input && ep->node->inputs[i] &&
                bs->of_value[root_of(ep->node->inputs[i])->id] == buf)
                count++;
    }
    return count;
}

/* The buffer of input x of node n (step s) if output y may take it: same type and size, x
 * dies at this step and no other slot of the node or its epilogues reads it (but `reads`
 * slots in all); else -1. */
static int takeable_buffer(const Buffers *bs, const Node *n, int s, Value *x, const Value *y,
                           int reads)
{
    if (!x || x->dtype != y->dtype || value_numel(x) != value_numel(y))
        return -1;
    int buf = bs->of_value[root_of(x)->id];
    if (buf < 0 || bs->b[buf].last != s || bs->b[buf].size != align_up(value_bytes(y)) ||
        reads_of_buffer(bs, n, buf) != reads)
        return -1;
    return buf;
}

/* Slots of n's epilogues that read x: an epilogue's operand is also an input of n. */
static int epilogue_reads(const Node *n, const Value *x)
{
    int count = 0;
    for (int e = 0; e < n->nepilogue; e++)
        for (int i = 0; i < n->epilogue[e].node->ninputs; i++)
            count += i != n->epilogue[e].input && n->epilogue[e].node->inputs[i] == x;
    return count;
}

/* The buffer of an input of node n (step s) that output y may take, or -1: for an elementwise
 * node one of its own operands (inputs appended for its epilogues are read after the head op
 * has written y); for a node with output_over_input (a recurrent layer's Y over its X) the
 * input it names, for output 0. */
static int in_place_buffer(const Buffers *bs, const Node *n, int s, const Value *y)
{
    int over = node_has(n, OP_CONV_IN_PLACE) ? conv_in_place_input(n) : n->output_over_input;
    /* A conv's y over its residual (not input 0) only where it has a scratch budget: its
     * stores then copy each run on the stack first (tiny_resnet8 3%, mobilenetv2_block 6%
     * slower when every residual conv did), worth it only where the bytes are needed. */
    if (node_has(n, OP_CONV_IN_PLACE) && over > 1 && !n->scratch_budget)
        over = 0;
    if (over && y == n->outputs[0]) {
        Value *x = over - 1 < n->ninputs ? n->inputs[over - 1] : NULL;
        return x ? takeable_buffer(bs, n, s, x, y, 1 + epilogue_reads(n, x)) : -1;
    }
    if (!node_has(n, OP_ELEMENTWISE) || n->noutputs != 1)
        return -1;
    /* The operands are the required inputs: x of a unary op, a and b of a binary one (Clip's
     * bounds are scalars read as arguments, not arrays). */
    for (int i = 0; i < n->op->min_inputs && i < n->ninputs; i++) {
        int buf = takeable_buffer(bs, n, s, n->inputs[i], y, 1);
        if (buf >= 0)
            return buf;
    }
    return -1;
}

/* ---- Concat inputs in their slices ---- */

/* Per value id, the slots of the scheduled nodes that read it. */
static int *schedule_reads(const Graph *g)
{
    int *reads = xcalloc((size_t)g->nvalues + 1, sizeof(int));
    for (int s = 0; s < g->nnodes; s++)
        for (int i = 0; i < g->nodes[s]->ninputs; i++)
            if (g->nodes[s]->inputs[i])
                reads[g->nodes[s]->inputs[i]->id]++;
    return reads;
}

/* Whether input x of Concat n (output y, `outer` blocks before the axis) may be a slice of y:
 * an arena tensor of its own (not a view, a constant, a graph input or output) of y's type,
 * in one slot of n, not a slice already nor an output with slices (no nesting); with more
 * than one block (a strided slice: rows of x's last dimension, along y's last axis) only
 * output 0 of a producer whose kernel writes rows at a stride (op_writes_rows) and that
 * nothing but n reads (any other reader would take it as contiguous). */
static bool slice_candidate(const int *reads, const Node *n, const Value *x, const Value *y,
                            int64_t outer, const Slices *sl, const bool *has_slices)
{
    int slots = 0;
    for (int j = 0; j < n->ninputs; j++)
        slots += n->inputs[j] == x;
    if (!needs_arena(x) || x->dtype != y->dtype || slots != 1 || sl->of[x->id] || has_slices[x->id])
        return false;
    return outer == 1 ||
           (x->producer->outputs[0] == x && op_writes_rows(x->producer) && reads[x->id] == 1);
}

/* The inputs of a node with OP_INPUT_SLICES (Concat) whose producers may write them straight
 * into their block of its output y (slice_candidate), y in the arena, at a block that starts
 * ARENA_ALIGN-aligned (the kernels' alignment of any buffer). With every dimension before the
 * axis 1 each input is one contiguous block; along the last axis (NHWC channels) each is a
 * strided slice, rows of its channels a row of y apart, which only a producer that writes
 * rows at a stride takes. The producer then writes it in place (it takes no other buffer)
 * and the slice is y's buffer from its producer's step: plan_arena keeps this only when the
 * live lower bound is no larger than without. The bytes of the slice are never written again
 * while it is read: y's buffer lives until the last reader of y or of any slice, and nothing
 * runs in place over a buffer that is read later. */
static Slices find_slices(const Graph *g)
{
    Slices sl = {xcalloc((size_t)g->nvalues + 1, sizeof(Value *)),
                 xcalloc((size_t)g->nvalues + 1, sizeof(int64_t)),
                 xcalloc((size_t)g->nvalues + 1, sizeof(int64_t))};
    bool *has_slices = xcalloc((size_t)g->nvalues + 1, sizeof(bool));
    int *reads = schedule_reads(g);
    for (int s = 0; s < g->nnodes; s++) {
        const Node *n = g->nodes[s];
        Value *y = n->noutputs ? n->outputs[0] : NULL;
        if (!node_has(n, OP_INPUT_SLICES) || !y || !needs_arena(y) || has_slices[y->id] ||
            sl.of[y->id])
            continue;
        int64_t axis = attr_int(n, "axis", 0), outer = 1, off = 0;
        if (axis < 0)
            axis += y->rank;
        for (int d = 0; d < axis && d < y->rank; d++)
            outer *= y->dims[d];
        if (outer != 1 && axis != y->rank - 1)
            continue;
        const int64_t row = outer == 1 ? 0 : y->dims[axis]; /* elements */
        for (int i = 0; i < n->ninputs; i++) {
            Value *x = n->inputs[i];
            int64_t at = off;
            off = checked_add(NULL, off, outer == 1 ? value_bytes(x) : value_bytes(x) / outer);
            if (at % ARENA_ALIGN || !slice_candidate(reads, n, x, y, outer, &sl, has_slices))
                continue;
            sl.of[x->id] = y;
            sl.at[x->id] = at;
            sl.stride[x->id] = row;
            has_slices[y->id] = true;
        }
    }
    return sl;
}

bool value_in_slice(const Value *x, const Value *y, int64_t byte_offset)
{
    return x && y && !x->view_of && !y->view_of && x->offset >= 0 && y->offset >= 0 &&
           x->offset == y->offset + byte_offset;
}

/* The buffer of y whose slice v is, made at v's step when y has none yet (it then lives to
 * y's last step at least). */
static int slice_buffer(Buffers *bs, const Slices *sl, const Value *v, int64_t *naive)
{
    const Value *y = sl->of[v->id];
    int buf = bs->of_value[y->id];
    if (buf < 0) {
        int64_t size = align_up(value_bytes(y));
        *naive = checked_add(NULL, *naive, size);
        buf = new_buffer(bs, size, v->first_step,
                         y->last_step > v->last_step ? y->last_step : v->last_step);
        bs->of_value[y->id] = buf;
    }
    bs->at_value[v->id] = sl->at[v->id];
    bs->in_slice++;
    return buf;
}

static Buffers make_buffers(Graph *g, bool in_place, const Slices *sl, int64_t *naive)
{
    Buffers bs = {0};
    bs.of_value = xcalloc((size_t)g->nvalues + 1, sizeof(int));
    bs.at_value = xcalloc((size_t)g->nvalues + 1, sizeof(int64_t));
    bs.of_scratch = xcalloc((size_t)g->nnodes + 1, sizeof(int));
    for (int i = 0; i < g->nvalues; i++)
        bs.of_value[i] = -1;
    *naive = 0;
    for (int s = 0; s < g->nnodes; s++) {
        Node *n = g->nodes[s];
        n->output_in_place = false;
        for (int i = 0; i < n->noutputs; i++) {
            Value *v = n->outputs[i];
            if (!needs_arena(v) || bs.of_value[v->id] >= 0)
                continue;
            int64_t size = align_up(value_bytes(v));
            *naive = checked_add(NULL, *naive, size);
            int buf = sl && sl->of[v->id] ? slice_buffer(&bs, sl, v, naive) : -1;
            if (buf >= 0) {
                if (bs.b[buf].last < v->last_step)
                    bs.b[buf].last = v->last_step;
                bs.of_value[v->id] = buf;
                continue;
            }
            buf = in_place ? in_place_buffer(&bs, n, s, v) : -1;
            if (buf >= 0) {
                if (bs.b[buf].last < v->last_step)
                    bs.b[buf].last = v->last_step;
                bs.in_place++;
                n->output_in_place = n->output_in_place || v == n->outputs[0];
            } else {
                buf = new_buffer(&bs, size, v->first_step, v->last_step);
            }
            bs.of_value[v->id] = buf;
        }
        int64_t scratch = n->op && n->op->scratch ? align_up(n->op->scratch(n)) : 0;
        bs.of_scratch[s] = scratch ? new_buffer(&bs, scratch, s, s) : -1;
        *naive = checked_add(NULL, *naive, scratch);
    }
    return bs;
}

/* live[s]: the bytes of buffers alive at step s (0..nsteps). */
static int64_t *live_bytes(const Buffers *bs, int nsteps)
{
    int64_t *live = xcalloc((size_t)nsteps + 2, sizeof(int64_t));
    for (int i = 0; i < bs->n; i++) {
        live[bs->b[i].first] += bs->b[i].size;
        live[bs->b[i].last + 1] -= bs->b[i].size;
    }
    for (int s = 1; s <= nsteps; s++)
        live[s] = checked_add(NULL, live[s], live[s - 1]);
    return live;
}

/* The most bytes of buffers alive at one step. */
static int64_t live_lower_bound(const Buffers *bs, int nsteps)
{
    int64_t *live = live_bytes(bs, nsteps), most = 0;
    for (int s = 0; s <= nsteps; s++)
        if (live[s] > most)
            most = live[s];
    return most;
}

/* Gives a scratch budget to each node whose step is over `target` with its scratch, or that
 * has a budget already (the comment at the top); true when one was given. */
static bool set_scratch_budgets(Graph *g, const Buffers *bs, int64_t target)
{
    int64_t *live = live_bytes(bs, g->nnodes);
    bool changed = false;
    for (int s = 0; s < g->nnodes; s++) {
        int buf = bs->of_scratch[s];
        if (buf < 0 || (live[s] <= target && !g->nodes[s]->scratch_budget))
            continue;
        int64_t room = (target - (live[s] - bs->b[buf].size)) / ARENA_ALIGN * ARENA_ALIGN;
        g->nodes[s]->scratch_budget = room > ARENA_ALIGN ? room : ARENA_ALIGN;
        changed = true;
    }
    return changed;
}

/* ---- placement 3: by steps, best fit ---- */

typedef struct Block {
    int64_t offset, size;
} Block;

typedef struct FreeList {
    Block *blocks;
    int n, cap;
    int64_t top; /* arena size so far */
} FreeList;

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
            fl->top = checked_add(NULL, off, size);
            return off;
        }
        int64_t off = fl->top;
        fl->top = checked_add(NULL, fl->top, size);
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

/* Buffers were made in step order, so those born at step s are a run of indices; the ones
 * dying at s come from a list sorted by last step. */
static int64_t place_by_steps(const Buffers *bs, int nsteps, int64_t *offsets)
{
    int *by_last = xcalloc((size_t)bs->n + 1, sizeof(int));
    int *count = xcalloc((size_t)nsteps + 2, sizeof(int));
    for (int i = 0; i < bs->n; i++)
        count[bs->b[i].last + 1]++;
    for (int s = 0; s <= nsteps; s++)
        count[s + 1] += count[s];
    for (int i = 0; i < bs->n; i++)
        by_last[count[bs->b[i].last]++] = i; /* count[s] now ends the run of step s */
    FreeList fl = {0};
    int born = 0, dead = 0;
    for (int s = 0; s <= nsteps; s++) {
        for (; born < bs->n && bs->b[born].first == s; born++)
            offsets[born] = take_block(&fl, bs->b[born].size);
        for (; dead < bs->n && bs->b[by_last[dead]].last == s; dead++)
            give_block(&fl, offsets[by_last[dead]], bs->b[by_last[dead]].size);
    }
    return fl.top;
}

/* ---- placements 1 and 2: greedy by size ---- */

typedef struct Overlaps {
    int *start; /* [n+1]: buffer i overlaps with[start[i] .. start[i+1]-1] */
    int *with;
} Overlaps;

/* Every pair of buffers alive at a common step, both ways; false when more than max pairs. */
static bool find_overlaps(const Buffers *bs, int64_t max, Overlaps *ov)
{
    /* Sweep the buffers in order of first step (their index order), keeping those alive. */
    int *alive = xcalloc((size_t)bs->n + 1, sizeof(int));
    int nalive = 0;
    int64_t pairs = 0;
    int *degree = xcalloc((size_t)bs->n + 1, sizeof(int));
    for (int pass = 0; pass < 2; pass++) {
        nalive = 0;
        for (int i = 0; i < bs->n; i++) {
            int keep = 0;
            for (int k = 0; k < nalive; k++)
                if (bs->b[alive[k]].last >= bs->b[i].first)
                    alive[keep++] = alive[k];
            nalive = keep;
            for (int k = 0; k < nalive; k++) {
                int j = alive[k];
                if (pass == 0) {
                    degree[i]++;
                    degree[j]++;
                    if (++pairs > max)
                        return false;
                } else {
                    ov->with[ov->start[i] + degree[i]++] = j;
                    ov->with[ov->start[j] + degree[j]++] = i;
                }
            }
            alive[nalive++] = i;
        }
        if (pass == 0) {
            ov->start = xcalloc((size_t)bs->n + 1, sizeof(int));
            for (int i = 0; i < bs->n; i++)
                ov->start[i + 1] = ov->start[i] + degree[i];
            ov->with = xcalloc((size_t)ov->start[bs->n] + 1, sizeof(int));
            memset(degree, 0, (size_t)bs->n * sizeof(int));
        }
    }
    return true;
}

/* Sort keys: the order buffers are placed in, and placed neighbours by offset. */
typedef struct SortKey {
    int64_t key, key2;
    int index;
} SortKey;

static int by_key(const void *pa, const void *pb)
{
    const SortKey *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->key2 != b->key2)
        return a->key2 < b->key2 ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* The orders of the greedy placements: which buffer is placed first. */
typedef enum {
    ORDER_SIZE,     /* largest first (then earliest) */
    ORDER_AREA,     /* largest bytes x steps first (then largest) */
    ORDER_LIFETIME, /* longest-lived first (then largest) */
    ORDER_COUNT
} Order;

static SortKey order_key(const Buffer *b, Order order, int index)
{
    int64_t steps = (int64_t)b->last - b->first + 1;
    int64_t area =
        b->size / ARENA_ALIGN > INT64_MAX / steps ? INT64_MAX : b->size / ARENA_ALIGN * steps;
    switch (order) {
    case ORDER_SIZE: return (SortKey){-b->size, b->first, index};
    case ORDER_AREA: return (SortKey){-area, -b->size, index};
    default: return (SortKey){-steps, -b->size, index};
    }
}

/* Places the buffers in the order given, each at the lowest offset (or in the smallest gap)
 * free for its whole lifetime. `near` has room for the most overlaps of one buffer. */
static int64_t place_in_order(const Buffers *bs, const Overlaps *ov, const int *order,
                              bool best_gap, int64_t *offsets, SortKey *near)
{
    for (int i = 0; i < bs->n; i++)
        offsets[i] = -1;
    int64_t top = 0;
    for (int k = 0; k < bs->n; k++) {
        int i = order[k], nnear = 0;
        for (int j = ov->start[i]; j < ov->start[i + 1]; j++)
            if (offsets[ov->with[j]] >= 0)
                near[nnear++] = (SortKey){offsets[ov->with[j]], 0, ov->with[j]};
        qsort(near, (size_t)nnear, sizeof(SortKey), by_key);
        /* Scan the gaps between the placed neighbours, lowest first; past the last one the
         * arena is free. */
        int64_t size = bs->b[i].size, pos = 0, best = -1, best_size = 0;
        for (int j = 0; j < nnear && !(best >= 0 && !best_gap); j++) {
            int64_t gap = near[j].key - pos;
            if (gap >= size && (best < 0 || gap < best_size)) {
                best = pos;
                best_size = gap;
            }
            int64_t end = near[j].key + bs->b[near[j].index].size;
            if (end > pos)
                pos = end;
        }
        offsets[i] = best >= 0 ? best : pos;
        int64_t end = checked_add(NULL, offsets[i], size);
        if (end > top)
            top = end;
    }
    return top;
}

static void sorted_order(const Buffers *bs, Order order_by, int *order)
{
    SortKey *keys = xcalloc((size_t)bs->n + 1, sizeof(SortKey));
    for (int i = 0; i < bs->n; i++)
        keys[i] = order_key(&bs->b[i], order_by, i);
    qsort(keys, (size_t)bs->n, sizeof(SortKey), by_key);
    for (int i = 0; i < bs->n; i++)
        order[i] = keys[i].index;
}

/* Keeps `offsets` as the plan when it is smaller than the best so far. */
static void keep_smaller(const Buffers *bs, int64_t top, const int64_t *offsets, int64_t *best_top,
                         int64_t *best)
{
    if (*best_top >= 0 && top >= *best_top)
        return;
    *best_top = top;
    memcpy(best, offsets, (size_t)bs->n * sizeof(int64_t));
}

/* The greedy placements, each improved by moving the buffer that ends highest to the front of
 * the order and placing again, until the live lower bound is reached (no plan is smaller) or
 * the work budget is spent. */
static void place_all_greedy(const Buffers *bs, const Overlaps *ov, int64_t lower_bound,
                             int64_t *offsets, int64_t *best_top, int64_t *best)
{
    int *order = xcalloc((size_t)bs->n + 1, sizeof(int));
    SortKey *near = xcalloc((size_t)ov->start[bs->n] + 1, sizeof(SortKey));
    int64_t cost = (int64_t)bs->n + ov->start[bs->n] + 1; /* of one placement */
    int64_t placements = WORK_BUDGET / cost > 1 ? WORK_BUDGET / cost : 1;
    for (int o = 0; o < (int)ORDER_COUNT; o++)
        for (int best_gap = 0; best_gap < 2; best_gap++) {
            sorted_order(bs, (Order)o, order);
            for (int round = 0; round < MAX_ROUNDS; round++) {
                if (placements-- <= 0 || (*best_top >= 0 && *best_top <= lower_bound))
                    return;
                int64_t top = place_in_order(bs, ov, order, best_gap, offsets, near);
                keep_smaller(bs, top, offsets, best_top, best);
                int k = bs->n - 1;
                while (k > 0 && offsets[order[k]] + bs->b[order[k]].size != top)
                    k--;
                int culprit = order[k];
                memmove(order + 1, order, (size_t)k * sizeof(int));
                order[0] = culprit;
            }
        }
}

ArenaPlan plan_arena(Graph *g, int64_t bound)
{
    ArenaPlan plan = {0};
    compute_liveness(g);
    for (int s = 0; s < g->nnodes; s++)
        g->nodes[s]->scratch_budget = 0;
    /* Budgets against the bound; when a node cannot get within it, the live peak it leaves is
     * the target of a second round, so the other nodes do not shrink for nothing. (The
     * discarded buffers go with everything else at exit, util.c.) */
    for (int i = 0; i < g->nvalues; i++) {
        g->values[i]->offset = -1;
        g->values[i]->row_stride = 0;
    }
    /* Concat inputs in their slices where that makes the live peak no larger. */
    Slices found = find_slices(g);
    const Slices *sl = &found;
    Buffers bs = make_buffers(g, true, sl, &plan.naive_bytes);
    if (bs.in_slice) {
        Buffers plain = make_buffers(g, true, NULL, &plan.naive_bytes);
        if (live_lower_bound(&plain, g->nnodes) < live_lower_bound(&bs, g->nnodes)) {
            sl = NULL;
            bs = plain;
        }
    }
    if (set_scratch_budgets(g, &bs, bound)) {
        bs = make_buffers(g, true, sl, &plan.naive_bytes);
        int64_t peak = live_lower_bound(&bs, g->nnodes);
        if (peak > bound && set_scratch_budgets(g, &bs, peak))
            bs = make_buffers(g, true, sl, &plan.naive_bytes);
    }
    plan.lower_bound_bytes = live_lower_bound(&bs, g->nnodes);
    plan.in_place = bs.in_place;
    plan.in_slice = bs.in_slice;

    int64_t *best = xcalloc((size_t)bs.n + 1, sizeof(int64_t));
    int64_t *offsets = xcalloc((size_t)bs.n + 1, sizeof(int64_t));
    int64_t best_top = -1;
    Overlaps ov = {0};
    if (bs.n && find_overlaps(&bs, MAX_OVERLAPS, &ov))
        place_all_greedy(&bs, &ov, plan.lower_bound_bytes, offsets, &best_top, best);
    if (best_top < 0 || best_top > plan.lower_bound_bytes)
        keep_smaller(&bs, place_by_steps(&bs, g->nnodes, offsets), offsets, &best_top, best);
    plan.arena_bytes = best_top; /* 0 with no buffers: place_by_steps placed nothing */

    for (int i = 0; i < g->nvalues; i++)
        if (bs.of_value[i] >= 0) {
            g->values[i]->offset = best[bs.of_value[i]] + bs.at_value[i];
            g->values[i]->row_stride = sl && sl->of[i] ? sl->stride[i] : 0;
        }
    for (int s = 0; s < g->nnodes; s++)
        if (bs.of_scratch[s] >= 0)
            g->nodes[s]->scratch_offset = best[bs.of_scratch[s]];
    return plan; /* the arrays go with everything else at exit (util.c) */
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
        if (op_has(n->op, OP_VIEW) && out0 && n->ninputs && n->inputs[0] && !out0->data &&
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
        live = checked_add(NULL, live, delta[s]);
        if (live > most)
            most = live;
    }
    return most; /* the arrays go with everything else at exit (util.c) */
}
