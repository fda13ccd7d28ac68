/* emit_chain.c — an elementwise node and the elementwise epilogues fused into it, emitted as
 * one loop over tiles of the output: every op runs on a tile (a few thousand elements, so it
 * stays in L1) before the next tile starts, instead of one pass over the tensor per op.
 *
 * Tiles are blocks of R rows of the output's leading dimension. Each op is emitted by its own
 * emitter on a copy of its node whose tensors are "tile views": values of the tile's shape
 * whose C expression points at the tile. An operand that does not vary along the leading
 * dimension (a bias row, a scalar) is passed whole; one that does is offset like the output. */
#include "onnx2c.h"

#include <string.h>

#define TILE_ELEMENTS 4096

typedef struct Tiling {
    int64_t rows;      /* leading dim of the output */
    int64_t tile_rows; /* R: divides rows */
    int64_t row_size;  /* elements per output row */
} Tiling;

static Tiling choose_tiling(const Value *y)
{
    Tiling t = {y->rank ? y->dims[0] : 1, 1, 1};
    for (int i = 1; i < y->rank; i++)
        t.row_size *= y->dims[i];
    t.tile_rows = t.rows;
    for (int64_t r = 1; r <= t.rows; r++)
        if (t.rows % r == 0 && r * t.row_size <= TILE_ELEMENTS)
            t.tile_rows = r; /* the largest divisor that fits */
    return t;
}

/* Does v vary along the output's leading dimension? (right-aligned numpy broadcasting) */
static bool varies_by_row(const Value *v, const Value *y)
{
    return v->rank == y->rank && y->rank && v->dims[0] == y->dims[0] && y->dims[0] > 1;
}

/* The tile of v for tile index `t` (a C expression), as a value of the tile's shape. */
static Value *tile_view(Emitter *e, Value *v, const Value *y, const Tiling *tl)
{
    if (!varies_by_row(v, y) || tl->tile_rows == tl->rows)
        return v; /* one tile: the whole tensor */
    Value *t = xcalloc(1, sizeof(Value));
    *t = *v;
    t->dims[0] = tl->tile_rows;
    int64_t per_row = value_numel(v) / v->dims[0];
    t->cname = xprintf("(%s + t * %lld)", value_cname(e, v), (long long)(tl->tile_rows * per_row));
    return t;
}

static void emit_on_tile(Emitter *e, const Node *n, int fused_input, Value *y_tile, const Value *y,
                         const Tiling *tl)
{
    Node tmp = *n;
    Value *ins[8] = {0}, *outs[1] = {y_tile};
    for (int k = 0; k < n->ninputs && k < 8; k++)
        ins[k] = k == fused_input ? y_tile
                 : n->inputs[k]   ? tile_view(e, n->inputs[k], y, tl)
                                  : NULL;
    tmp.inputs = ins;
    tmp.outputs = outs;
    tmp.noutputs = 1;
    n->op->emit(e, &tmp);
}

void emit_chain(Emitter *e, Node *n)
{
    Value *y = n->outputs[0];
    Tiling tl = choose_tiling(y);
    int64_t tiles = tl.rows / tl.tile_rows;
    if (tiles > 1) {
        println(e, "for (int64_t t = 0; t < %lld; t++) {", (long long)tiles);
        e->indent++;
    }
    Value *y_tile = tiles > 1 ? tile_view(e, y, y, &tl) : y;
    emit_on_tile(e, n, -1, y_tile, y, &tl);
    for (int i = 0; i < n->nepilogue; i++) {
        const Epilogue *ep = &n->epilogue[i];
        println(e, "/* %s '%s' */", ep->node->op_type, comment_text(ep->node->name));
        emit_on_tile(e, ep->node, ep->input, y_tile, y, &tl);
    }
    if (tiles > 1) {
        e->indent--;
        println(e, "}");
    }
}
