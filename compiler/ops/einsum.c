/* einsum.c — Einsum, as loops over the output's letters with the other letters summed
 * (templates/data.c). */
#include "kernels.h"
#include "ops.h"

#include <stdlib.h>
#include <string.h>

/* ---- Einsum: one or two operands; every letter of the output is a loop dim, every other
 * letter a reduction dim, summed in the order of first appearance in the equation (the
 * flattened reduction index is row-major over them, ascending). "..." stands for the same
 * leading dims in every operand. ---- */

typedef struct EinsumPlan {
    int nops;
    int out_rank, red_rank;
    int64_t out_dims[MAX_RANK], red_dims[MAX_RANK];
    int64_t out_s[2][MAX_RANK], red_s[2][MAX_RANK];
} EinsumPlan;

/* The letters of one term, with "..." expanded into the digits '0', '1', ... (one per
 * ellipsis dim; digits are not letters, so they cannot clash with the equation's). */
static char *einsum_term(const Node *n, const char *s, size_t len, int ell_rank)
{
    char *t = xcalloc(len + MAX_RANK + 1, 1);
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == ' ')
            continue;
        if (s[i] == '.') {
            if (i + 2 >= len + 0 || s[i + 1] != '.' || s[i + 2] != '.')
                fatal_at(n, "malformed '...' in the equation");
            for (int e = 0; e < ell_rank; e++)
                t[k++] = (char)('0' + e);
            i += 2;
            continue;
        }
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
            fatal_at(n, "unexpected character '%c' in the equation", s[i]);
        t[k++] = s[i];
    }
    return t;
}

static bool has_ellipsis(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] == '.')
            return true;
    return false;
}

static int term_letters(const char *s, size_t len)
{
    int c = 0;
    for (size_t i = 0; i < len; i++)
        if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))
            c++;
    return c;
}

static EinsumPlan einsum_plan(const Node *n, int64_t *out_dims_for_infer, int *out_rank)
{
    const char *eq = attr_string(n, "equation", NULL);
    if (!eq)
        fatal_at(n, "attribute 'equation' is required");
    int nops = n->ninputs;
    if (nops < 1 || nops > 2)
        fatal_at(n, "%d operands are not supported (1 or 2 are)", nops);
    const char *arrow = strstr(eq, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - eq) : strlen(eq);
    /* split the operand terms */
    const char *terms[2];
    size_t tlen[2];
    int nt = 0;
    const char *p = eq;
    while (1) {
        const char *comma = memchr(p, ',', lhs_len - (size_t)(p - eq));
        size_t l = comma ? (size_t)(comma - p) : lhs_len - (size_t)(p - eq);
        if (nt >= 2)
            fatal_at(n, "the equation has more operand terms than inputs");
        terms[nt] = p;
        tlen[nt++] = l;
        if (!comma)
            break;
        p = comma + 1;
    }
    if (nt != nops)
        fatal_at(n, "the equation has %d operand terms for %d inputs", nt, nops);
    char *ops[2];
    int ell = -1;
    for (int i = 0; i < nops; i++) {
        const Value *v = n->inputs[i];
        bool has_ell = has_ellipsis(terms[i], tlen[i]);
        int letters = term_letters(terms[i], tlen[i]);
        int er = has_ell ? v->rank - letters : 0;
        if (has_ell && (er < 0 || (ell >= 0 && er != ell)))
            fatal_at(n, "'...' stands for different ranks in the operands");
        if (has_ell)
            ell = er;
        ops[i] = einsum_term(n, terms[i], tlen[i], er);
        if ((int)strlen(ops[i]) != v->rank)
            fatal_at(n, "term %d has %d letters for an input of rank %d", i, (int)strlen(ops[i]),
                     v->rank);
    }
    if (ell < 0)
        ell = 0;
    /* letter sizes */
    int64_t size[128];
    for (int c = 0; c < 128; c++)
        size[c] = -1;
    for (int i = 0; i < nops; i++)
        for (int d = 0; ops[i][d]; d++) {
            int c = (unsigned char)ops[i][d];
            int64_t s = n->inputs[i]->dims[d];
            if (size[c] >= 0 && size[c] != s) {
                if (size[c] == 1 || s == 1) {
                    fatal_at(n, "broadcasting letter '%c' is not supported", c);
                }
                fatal_at(n, "letter '%c' has sizes %lld and %lld", c, (long long)size[c],
                         (long long)s);
            }
            size[c] = s;
        }
    char *out;
    if (arrow) {
        const char *rhs = arrow + 2;
        out = einsum_term(n, rhs, strlen(rhs), ell);
    } else {
        /* implicit output: "..." then letters appearing once, alphabetically */
        out = xcalloc(64 + MAX_RANK, 1);
        int k = 0;
        for (int e = 0; e < ell; e++)
            out[k++] = (char)('0' + e);
        for (int c = 'A'; c <= 'z'; c++) {
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                continue;
            int count = 0;
            for (int i = 0; i < nops; i++)
                for (int d = 0; ops[i][d]; d++)
                    count += ops[i][d] == c;
            if (count == 1)
                out[k++] = (char)c;
        }
    }
    EinsumPlan pl = {0};
    pl.nops = nops;
    int orank = (int)strlen(out);
    if (orank > MAX_RANK)
        fatal_at(n, "output rank is more than %d", MAX_RANK);
    bool used[128] = {false};
    for (int d = 0; d < orank; d++) {
        int c = (unsigned char)out[d];
        if (size[c] < 0)
            fatal_at(n, "output letter '%c' is not in any operand", c);
        if (used[c])
            fatal_at(n, "output letter '%c' is repeated", c);
        used[c] = true;
        pl.out_dims[d] = size[c];
    }
    pl.out_rank = orank;
    /* reduction letters in order of first appearance */
    char red[64];
    int nr = 0;
    for (int i = 0; i < nops; i++)
        for (int d = 0; ops[i][d]; d++) {
            int c = (unsigned char)ops[i][d];
            if (!used[c]) {
                used[c] = true;
                if (nr >= MAX_RANK)
                    fatal_at(n, "more than %d summed letters", MAX_RANK);
                red[nr] = (char)c;
                pl.red_dims[nr++] = size[c];
            }
        }
    pl.red_rank = nr;
    for (int i = 0; i < nops; i++) {
        const Value *v = n->inputs[i];
        int64_t st[MAX_RANK], s = 1;
        for (int d = v->rank - 1; d >= 0; d--) {
            st[d] = s;
            s *= v->dims[d];
        }
        for (int d = 0; d < v->rank; d++) {
            for (int o = 0; o < orank; o++)
                if (out[o] == ops[i][d])
                    pl.out_s[i][o] += st[d];
            for (int r = 0; r < nr; r++)
                if (red[r] == ops[i][d])
                    pl.red_s[i][r] += st[d];
        }
    }
    if (out_dims_for_infer) {
        memcpy(out_dims_for_infer, pl.out_dims, sizeof pl.out_dims);
        *out_rank = orank;
    }
    return pl;
}

void einsum_infer(Node *n)
{
    for (int i = 0; i < n->ninputs; i++)
        if (!n->inputs[i])
            fatal_at(n, "operand %d is missing (its name is empty)", i);
    DType t = n->inputs[0]->dtype;
    if (t != DT_FLOAT && t != DT_DOUBLE)
        fatal_at(n, "type %s is not supported (float32, float64 are)", dtype_name(t));
    for (int i = 1; i < n->ninputs; i++)
        if (n->inputs[i]->dtype != t)
            fatal_at(n, "operands have different types");
    int64_t dims[MAX_RANK];
    int r;
    einsum_plan(n, dims, &r);
    set_shape(n->outputs[0], t, r, dims);
}

void einsum_fold(Node *n)
{
    EinsumPlan p = einsum_plan(n, NULL, NULL);
    const void *b = p.nops == 2 ? n->inputs[1]->data : NULL;
    if (n->inputs[0]->dtype == DT_FLOAT)
        einsum_f32(p.out_rank, p.out_dims, p.out_s[0], p.out_s[1], p.red_rank, p.red_dims,
                   p.red_s[0], p.red_s[1], n->inputs[0]->data, b, n->outputs[0]->data);
    else
        einsum_f64(p.out_rank, p.out_dims, p.out_s[0], p.out_s[1], p.red_rank, p.red_dims,
                   p.red_s[0], p.red_s[1], n->inputs[0]->data, b, n->outputs[0]->data);
}

void einsum_emit(Emitter *e, Node *n)
{
    EinsumPlan p = einsum_plan(n, NULL, NULL);
    if (!value_numel(n->outputs[0]))
        return;
    const char *od = emit_dims(e, p.out_rank, p.out_dims);
    const char *oa = emit_dims(e, p.out_rank, p.out_s[0]),
               *ob = emit_dims(e, p.out_rank, p.out_s[1]);
    const char *rd = emit_dims(e, p.red_rank, p.red_dims);
    const char *ra = emit_dims(e, p.red_rank, p.red_s[0]),
               *rb = emit_dims(e, p.red_rank, p.red_s[1]);
    bool f32 = n->inputs[0]->dtype == DT_FLOAT;
    println(e, "einsum_%s(%d, %s, %s, %s, %d, %s, %s, %s, %s, %s, %s);", f32 ? "f32" : "f64",
            p.out_rank, od, oa, ob, p.red_rank, rd, ra, rb, value_cname(e, n->inputs[0]),
            p.nops == 2 ? value_cname(e, n->inputs[1])
                        : (f32 ? "(const float *)0" : "(const double *)0"),
            value_cname(e, n->outputs[0]));
}

double einsum_flops(const Node *n)
{
    EinsumPlan p = einsum_plan(n, NULL, NULL);
    double f = 2;
    for (int d = 0; d < p.out_rank; d++)
        f *= (double)p.out_dims[d];
    for (int d = 0; d < p.red_rank; d++)
        f *= (double)p.red_dims[d];
    return f;
}
