/* recurrent.c — RNN, GRU and LSTM (float32): all directions (forward, reverse,
 * bidirectional), layouts 0 and 1, the optional inputs B, sequence_lens (constant or a
 * runtime int32 tensor), initial_h, initial_c, P, attributes clip, linear_before_reset (GRU),
 * input_forget (LSTM). The emitted code runs the pieces of templates/recurrent.c with the
 * products in between emitted by emit_product (libxsmm with --gemm=libxsmm, the constant
 * weights transposed at compile time so they are contiguous right operands): per direction one
 * product X x W^T over all time steps, then per step one product h x R^T (two for GRU without
 * linear_before_reset) and the gate pass. Constant folding runs the whole-layer kernels
 * (rnn_f32, gru_f32, lstm_f32), which call the same pieces with gemm_f32: the same bits.
 *
 * The activations attribute (a list of strings) is not kept by the loader, so a node that
 * sets it is refused; the default activations (RNN: Tanh; GRU: Sigmoid, Tanh; LSTM: Sigmoid,
 * Tanh, Tanh) take no alpha/beta, so activation_alpha/beta are then unused. */
#include "kernels.h"
#include "ops.h"

#include <string.h>

/* Activation codes of templates/recurrent.c. */
enum { ACT_TANH = 1, ACT_SIGMOID = 2 };

typedef struct RnnShape {
    int gates; /* RNN 1, GRU 3, LSTM 4 */
    int nacts; /* activations per direction */
    int64_t T, B, I, H, D;
    int layout;
    int reverse_mask; /* bit d: direction d runs backwards */
    int has_clip;
    float clip;
    int lbr, input_forget;
    int32_t act[6];
    float alpha[6], beta[6];
} RnnShape;

static bool is_lstm(const Node *n)
{
    return !strcmp(n->op_type, "LSTM");
}

static void require_dims(const Node *n, const Value *v, const char *what, int rank,
                         const int64_t *dims)
{
    bool ok = v->rank == rank;
    for (int i = 0; ok && i < rank; i++)
        ok = v->dims[i] == dims[i];
    if (!ok) {
        char buf[128] = "";
        size_t len = 0;
        for (int i = 0; i < rank && len < sizeof buf - 24; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld", i ? "x" : "",
                                    (long long)dims[i]);
        fatal_at(n, "%s '%s' must have shape [%s]", what, v->name, buf);
    }
}

static RnnShape rnn_shape(const Node *n)
{
    RnnShape s = {0};
    const char *op = n->op_type;
    s.gates = !strcmp(op, "RNN") ? 1 : !strcmp(op, "GRU") ? 3 : 4;
    s.nacts = !strcmp(op, "RNN") ? 1 : !strcmp(op, "GRU") ? 2 : 3;
    const Value *x = n->inputs[0], *w = n->inputs[1], *r = n->inputs[2];
    for (int i = 0; i < n->ninputs; i++) {
        const Value *v = n->inputs[i];
        if (v && i != 4)
            require_float(n, v);
    }
    s.layout = (int)attr_int(n, "layout", 0);
    if (s.layout != 0 && s.layout != 1)
        fatal_at(n, "layout %d is not 0 or 1", s.layout);
    if (s.layout && n->opset < 14)
        fatal_at(n, "the layout attribute needs opset 14 or newer");
    if (x->rank != 3 || w->rank != 3 || r->rank != 3)
        fatal_at(n, "X, W and R must be 3-D (got ranks %d, %d, %d)", x->rank, w->rank, r->rank);
    s.T = s.layout ? x->dims[1] : x->dims[0];
    s.B = s.layout ? x->dims[0] : x->dims[1];
    s.I = x->dims[2];
    s.D = w->dims[0];
    s.H = r->dims[2];
    const char *dir = attr_string(n, "direction", "forward");
    int64_t want_d;
    if (!strcmp(dir, "forward")) {
        want_d = 1;
    } else if (!strcmp(dir, "reverse")) {
        want_d = 1;
        s.reverse_mask = 1;
    } else if (!strcmp(dir, "bidirectional")) {
        want_d = 2;
        s.reverse_mask = 2;
    } else {
        fatal_at(n, "direction '%s' is not forward, reverse or bidirectional", dir);
    }
    if (s.D != want_d)
        fatal_at(n, "direction '%s' needs %lld directions in W, it has %lld", dir,
                 (long long)want_d, (long long)s.D);
    int64_t hs = attr_int(n, "hidden_size", s.H);
    if (hs != s.H)
        fatal_at(n, "hidden_size %lld disagrees with R's last dimension %lld", (long long)hs,
                 (long long)s.H);
    if (s.H <= 0)
        fatal_at(n, "hidden_size must be positive");
    int64_t gh = checked_mul(n, s.gates, s.H);
    int64_t wd[3] = {s.D, gh, s.I}, rd[3] = {s.D, gh, s.H};
    require_dims(n, w, "W", 3, wd);
    require_dims(n, r, "R", 3, rd);
    const Value *b = node_input(n, 3), *sl = node_input(n, 4), *h0 = node_input(n, 5);
    if (b) {
        int64_t bd[2] = {s.D, checked_mul(n, 2, gh)};
        require_dims(n, b, "B", 2, bd);
    }
    int64_t sd[3] = {s.layout ? s.B : s.D, s.layout ? s.D : s.B, s.H};
    if (h0)
        require_dims(n, h0, "initial_h", 3, sd);
    if (is_lstm(n)) {
        const Value *c0 = node_input(n, 6), *p = node_input(n, 7);
        if (c0)
            require_dims(n, c0, "initial_c", 3, sd);
        if (p) {
            int64_t pd[2] = {s.D, checked_mul(n, 3, s.H)};
            require_dims(n, p, "P", 2, pd);
        }
    }
    if (sl) {
        if (sl->dtype != DT_INT32)
            fatal_at(n, "sequence_lens has type %s; it must be int32", dtype_name(sl->dtype));
        int64_t ld[1] = {s.B};
        require_dims(n, sl, "sequence_lens", 1, ld);
        if (sl->data)
            for (int64_t i = 0; i < s.B; i++) {
                int32_t v = ((const int32_t *)sl->data)[i];
                if (v < 1 || v > s.T)
                    fatal_at(n, "sequence_lens[%lld] = %d is outside 1..%lld", (long long)i, (int)v,
                             (long long)s.T);
            }
    }
    if (attr_get(n, "activations"))
        fatal_at(n, "the activations attribute is not supported (string lists are not loaded); "
                    "only the default activations are");
    const Attr *clip = attr_get(n, "clip");
    if (clip) {
        s.has_clip = 1;
        s.clip = attr_float(n, "clip", 0.0f);
        if (!(s.clip > 0.0f))
            fatal_at(n, "clip must be positive");
    }
    if (!strcmp(op, "GRU")) {
        s.lbr = (int)attr_int(n, "linear_before_reset", 0);
        if (s.lbr != 0 && s.lbr != 1)
            fatal_at(n, "linear_before_reset must be 0 or 1");
    }
    if (is_lstm(n)) {
        s.input_forget = (int)attr_int(n, "input_forget", 0);
        if (s.input_forget != 0 && s.input_forget != 1)
            fatal_at(n, "input_forget must be 0 or 1");
    }
    for (int d = 0; d < s.D; d++)
        for (int k = 0; k < s.nacts; k++)
            s.act[d * s.nacts + k] = s.gates == 1 ? ACT_TANH : k == 0 ? ACT_SIGMOID : ACT_TANH;
    /* checked sizes of the outputs and scratch */
    checked_mul(n, checked_mul(n, checked_mul(n, s.T, s.B), gh), 4);
    return s;
}

void recurrent_infer(Node *n)
{
    RnnShape s = rnn_shape(n);
    int64_t y[4], yh[3];
    if (s.layout) {
        y[0] = s.B, y[1] = s.T, y[2] = s.D, y[3] = s.H;
        yh[0] = s.B, yh[1] = s.D, yh[2] = s.H;
    } else {
        y[0] = s.T, y[1] = s.D, y[2] = s.B, y[3] = s.H;
        yh[0] = s.D, yh[1] = s.B, yh[2] = s.H;
    }
    /* Y may take X's buffer (output_over_input, plan_arena) with one direction, I = H and no
     * sequence_lens: row (t, b) of Y is then at the place of row (t, b) of X (either layout),
     * and each step writes only rows whose X the projection (of all steps, or of the step's
     * chunk, at the chunk's first step) has read already; rows past a length would be zeroed
     * at the start, hence no sequence_lens. */
    n->output_over_input = s.D == 1 && s.I == s.H && !node_input(n, 4) ? 1 : 0;
    int max_out = is_lstm(n) ? 3 : 2;
    if (n->noutputs > max_out)
        fatal_at(n, "has %d outputs, the op has %d", n->noutputs, max_out);
    for (int i = 0; i < n->noutputs; i++) {
        if (i == 0)
            set_shape(n->outputs[0], DT_FLOAT, 4, y);
        else
            set_shape(n->outputs[i], DT_FLOAT, 3, yh);
    }
}

/* Floats of scratch with the input projection of `steps` steps at a time (rnn_f32's layout:
 * xw, hr, then h, c and hh of B x H each). */
static int64_t rnn_scratch_count(const Node *n, const RnnShape *s, int64_t steps)
{
    int64_t gh = checked_mul(n, s->gates, s->H);
    int64_t f = checked_mul(n, checked_mul(n, steps, s->B), gh);
    f = checked_add(n, f, checked_mul(n, s->B, gh));
    f = checked_add(n, f, checked_mul(n, 3 * s->B, s->H));
    return f;
}

/* Steps per input projection when a budget cannot be met even one step at a time: chunks of
 * fewer steps cost more time than they save memory (gru_kws: 16 steps 1.03x the time of all
 * 49, 1 step 1.34x). */
#define RNN_MIN_CHUNK 16

/* Rows of the portable product's register tiles (GEMM_MR of templates/gemm.c): chunks of
 * whole tiles keep every row of the projection in them (conv_lstm's chunks of 10 steps ran
 * the portable backend 1.13x slower than one product of all 100). */
#define RNN_ROW_TILE 6

/* Steps per input projection: all T, or under a scratch budget (plan_arena) the most that fit
 * (RNN_MIN_CHUNK when not even one does), evened out over the chunks. A reverse direction with
 * sequence_lens reads different times per batch at one step, so it always projects all T. */
static int64_t rnn_chunk(const Node *n, const RnnShape *s)
{
    int64_t budget = n->scratch_budget / (int64_t)sizeof(float);
    if (!budget || (s->reverse_mask && node_input(n, 4)) || rnn_scratch_count(n, s, s->T) <= budget)
        return s->T;
    int64_t steps = 1;
    if (rnn_scratch_count(n, s, 1) > budget)
        steps = s->T < RNN_MIN_CHUNK ? s->T : RNN_MIN_CHUNK;
    while (steps < s->T && rnn_scratch_count(n, s, steps + 1) <= budget)
        steps++;
    if (steps >= RNN_ROW_TILE * s->B)
        return steps / (RNN_ROW_TILE * s->B) * RNN_ROW_TILE * s->B; /* whole row tiles */
    int64_t chunks = (s->T + steps - 1) / steps;
    return (s->T + chunks - 1) / chunks;
}

/* Output i is computed (OP_OPTIONAL_OUTPUTS leaves an unread one without a buffer). */
static bool rnn_output_used(const Node *n, int i)
{
    return i < n->noutputs && value_is_used(n->outputs[i]);
}

/* The layer runs unit by unit with no scratch (templates/recurrent.c, the zero-scratch steps)
 * when its budget cannot hold the scratch of even one step (its tensors alone reach the
 * node-order bound, e.g. a layer whose input and outputs are all graph inputs and outputs)
 * and its outputs can hold the state: Y (and Y_c for LSTM, Y_h for GRU without
 * linear_before_reset) computed, Y not over X, no sequence_lens. */
static bool rnn_units(const Node *n, const RnnShape *s)
{
    const int64_t budget = n->scratch_budget / (int64_t)sizeof(float);
    if (!budget || rnn_scratch_count(n, s, 1) <= budget || node_input(n, 4) || n->output_in_place ||
        !rnn_output_used(n, 0))
        return false;
    if (s->gates == 4)
        return rnn_output_used(n, 2);
    return s->gates == 1 || s->lbr || rnn_output_used(n, 1);
}

int64_t recurrent_scratch(const Node *n)
{
    RnnShape s = rnn_shape(n);
    if (rnn_units(n, &s))
        return 0;
    return checked_mul(n, rnn_scratch_count(n, &s, rnn_chunk(n, &s)), (int64_t)sizeof(float));
}

double recurrent_flops(const Node *n)
{
    RnnShape s = rnn_shape(n);
    return 2.0 * (double)s.D * (double)s.T * (double)s.B * (double)(s.gates * s.H) *
           (double)(s.I + s.H);
}

static void *in_data(const Node *n, int i)
{
    const Value *v = node_input(n, i);
    return v ? v->data : NULL;
}

static void *out_data(const Node *n, int i)
{
    return i < n->noutputs ? n->outputs[i]->data : NULL;
}

void recurrent_fold(Node *n)
{
    RnnShape s = rnn_shape(n);
    float *scratch = xcalloc((size_t)rnn_scratch_count(n, &s, s.T) + 1, sizeof(float));
    const float *x = in_data(n, 0), *w = in_data(n, 1), *r = in_data(n, 2), *b = in_data(n, 3);
    const int32_t *sl = in_data(n, 4);
    const float *h0 = in_data(n, 5);
    if (s.gates == 1)
        rnn_f32(s.T, s.B, s.I, s.H, s.D, s.layout, s.reverse_mask, x, w, r, b, sl, h0, s.act,
                s.alpha, s.beta, s.has_clip, s.clip, out_data(n, 0), out_data(n, 1), scratch);
    else if (s.gates == 3)
        gru_f32(s.T, s.B, s.I, s.H, s.D, s.layout, s.reverse_mask, s.lbr, x, w, r, b, sl, h0, s.act,
                s.alpha, s.beta, s.has_clip, s.clip, out_data(n, 0), out_data(n, 1), scratch);
    else
        lstm_f32(s.T, s.B, s.I, s.H, s.D, s.layout, s.reverse_mask, s.input_forget, x, w, r, b, sl,
                 h0, in_data(n, 6), in_data(n, 7), s.act, s.alpha, s.beta, s.has_clip, s.clip,
                 out_data(n, 0), out_data(n, 1), out_data(n, 2), scratch);
}

static const char *in_name(Emitter *e, const Node *n, int i)
{
    Value *v = node_input(n, i);
    return v ? value_cname(e, v) : "NULL";
}

/* Output i, or NULL when absent or unread (OP_OPTIONAL_OUTPUTS: it has no buffer). */
static const char *out_name(Emitter *e, const Node *n, int i)
{
    return i < n->noutputs && value_is_used(n->outputs[i]) ? value_cname(e, n->outputs[i]) : "NULL";
}

/* Rows row0..row0+N of direction d of a constant [D][rows][K] weight, transposed at compile
 * time to a [K][N] constant, so the product reads a contiguous row-major right operand (what
 * libxsmm takes). */
static const char *weight_transposed(Emitter *e, const Node *n, const Value *w, int64_t d,
                                     int64_t rows, int64_t K, int64_t row0, int64_t N)
{
    const float *src = (const float *)w->data + (d * rows + row0) * K;
    float *t = xcalloc((size_t)checked_mul(n, K, N) + 1, sizeof(float));
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++)
            t[k * N + j] = src[j * K + k];
    int64_t dims[2] = {K, N};
    return emit_constant(e, DT_FLOAT, 2, dims, t);
}

/* y[M][N] = a[M][K] x (rows row0..row0+N of direction d of w [D][rows][K])^T: a libxsmm kernel
 * (emit_product) when w is constant, else the portable product reading w as it is. step: as
 * emit_gemv_const takes it (NULL, or "s" in the step loop). */
static void emit_weight_product(Emitter *e, const Node *n, Value *w, int64_t d, int64_t rows,
                                int64_t K, int64_t row0, int64_t N, int64_t M, const char *a,
                                const char *y, const char *step)
{
    if (w->data) {
        const float *src = (const float *)w->data + (d * rows + row0) * K; /* [N][K] */
        if (!emit_gemv_const(e, M, N, K, a, 1, src, 1, K, y, step))
            emit_product(e, M, N, K, a, K, 1, weight_transposed(e, n, w, d, rows, K, row0, N), N, 1,
                         y);
        return;
    }
    const char *wd =
        xprintf("%s + %lld", value_cname(e, w), (long long)checked_mul(n, d * rows + row0, K));
    emit_product(e, M, N, K, a, K, 1, wd, 1, K, y);
}

/* input i of direction d: its name plus d * per_dir elements, or NULL when absent */
static const char *in_dir(Emitter *e, const Node *n, int i, int64_t d, int64_t per_dir)
{
    Value *v = node_input(n, i);
    return v ? xprintf("%s + %lld", value_cname(e, v), (long long)(d * per_dir)) : "NULL";
}

/* The bias arguments wb, rb of rnn_step_f32 / lstm_step_f32 for direction d (GH gates): a
 * constant B gives one constant Wb + Rb summed at compile time (the float each step summed
 * before) and rb NULL; a B computed at run time its halves; none NULL, NULL. */
static const char *bias_sum_args(Emitter *e, const Node *n, int64_t d, int64_t GH)
{
    Value *v = node_input(n, 3);
    if (!v)
        return "NULL, NULL";
    if (!v->data)
        return xprintf("%s + %lld, %s + %lld", value_cname(e, v), (long long)(d * 2 * GH),
                       value_cname(e, v), (long long)(d * 2 * GH + GH));
    const float *b = (const float *)v->data + d * 2 * GH;
    float *sum = xcalloc((size_t)GH, sizeof(float));
    for (int64_t j = 0; j < GH; j++)
        sum[j] = b[j] + b[GH + j];
    int64_t dims[1] = {GH};
    return xprintf("%s, NULL", emit_constant(e, DT_FLOAT, 1, dims, sum));
}

/* The right operand of direction d's projection: W_d^T as one [I][GH] constant (transposed at
 * compile time, shared by the products of every chunk size), or W itself read transposed. */
typedef struct Operand {
    const char *b;
    int64_t rs, cs;
} Operand;

static Operand projection_weight(Emitter *e, const Node *n, const RnnShape *s, int64_t d)
{
    Value *w = n->inputs[1];
    const int64_t GH = s->gates * s->H, I = s->I;
    if (w->data)
        return (Operand){weight_transposed(e, n, w, d, GH, I, 0, GH), GH, 1};
    return (Operand){xprintf("%s + %lld", value_cname(e, w), (long long)checked_mul(n, d * GH, I)),
                     1, I};
}

/* xw = the rows of X of times rnn_t0 .. rnn_t0+nt-1 (nt a constant) x W_d^T, in X's row
 * order: one product of nt*B rows (layout 1: one of nt rows per batch). */
static void emit_chunk_projection(Emitter *e, const Node *n, const RnnShape *s, const Operand *w,
                                  int64_t nt)
{
    Value *x = n->inputs[0];
    const int64_t GH = s->gates * s->H, I = s->I;
    if (!s->layout || s->B == 1) {
        const char *a =
            xprintf("%s + rnn_t0 * %lld", value_cname(e, x), (long long)checked_mul(n, s->B, I));
        emit_product(e, nt * s->B, GH, I, a, I, 1, w->b, w->rs, w->cs, "rnn_xw");
        return;
    }
    println(e, "for (int64_t b = 0; b < %lld; b++) {", (long long)s->B);
    e->indent++;
    const char *a = xprintf("%s + (b * %lld + rnn_t0) * %lld", value_cname(e, x), (long long)s->T,
                            (long long)I);
    emit_product(e, nt, GH, I, a, I, 1, w->b, w->rs, w->cs,
                 xprintf("rnn_xw + b * %lld", (long long)(nt * GH)));
    e->indent--;
    println(e, "}");
}

/* At the first step of each chunk of C steps: rnn_t0, rnn_nt the times of its steps (forward
 * s .. s+nt-1; reverse, whose step s is time T-1-s, T-s-nt .. T-s-1) and their projection. */
static void emit_chunk_start(Emitter *e, const Node *n, const RnnShape *s, int64_t d, int rev,
                             int64_t C)
{
    const int64_t T = s->T;
    const Operand w = projection_weight(e, n, s, d);
    println(e, "if (s %% %lld == 0) {", (long long)C);
    e->indent++;
    println(e, "rnn_nt = %lld - s < %lld ? %lld - s : %lld;", (long long)T, (long long)C,
            (long long)T, (long long)C);
    println(e, rev ? "rnn_t0 = %lld - s - rnn_nt;" : "rnn_t0 = s;", (long long)T);
    if (T % C) {
        println(e, "if (rnn_nt == %lld) {", (long long)C);
        e->indent++;
        emit_chunk_projection(e, n, s, &w, C);
        e->indent--;
        println(e, "} else {");
        e->indent++;
        emit_chunk_projection(e, n, s, &w, T % C);
        e->indent--;
        println(e, "}");
    } else {
        emit_chunk_projection(e, n, s, &w, C);
    }
    e->indent--;
    println(e, "}");
}

/* The zero-scratch layer (rnn_units): per direction T steps of the unit-by-unit kernel, then
 * Y_h from Y's last row. */
static void emit_units(Emitter *e, const Node *n, const RnnShape *s)
{
    const int64_t G = s->gates, H = s->H, GH = G * H;
    const char *Y = out_name(e, n, 0), *Yh = out_name(e, n, 1);
    for (int64_t d = 0; d < s->D; d++) {
        const int rev = (s->reverse_mask >> d) & 1;
        const int32_t *a = s->act + d * s->nacts;
        const float *al = s->alpha + d * s->nacts, *be = s->beta + d * s->nacts;
        const char *common = xprintf("%lld, %lld, %lld, %lld, %lld, %d, %d, %lld, s",
                                     (long long)s->T, (long long)s->B, (long long)s->I,
                                     (long long)H, (long long)s->D, s->layout, rev, (long long)d);
        const char *wr = xprintf("%s, %s, %s, %s", in_name(e, n, 0), in_dir(e, n, 1, d, GH * s->I),
                                 in_dir(e, n, 2, d, GH * H), in_dir(e, n, 3, d, 2 * GH));
        const char *act = xprintf("%d, %s, %s", (int)a[0], c_float(al[0]), c_float(be[0]));
        for (int k = 1; k < s->nacts; k++)
            act = xprintf("%s, %d, %s, %s", act, (int)a[k], c_float(al[k]), c_float(be[k]));
        println(e, "/* direction %lld, unit by unit: no arena memory */", (long long)d);
        println(e, "for (int64_t s = 0; s < %lld; s++)", (long long)s->T);
        e->indent++;
        if (G == 1)
            println(e, "rnn_units_step_f32(%s, %s, %s, %s, %d, %s, %s);", common, wr,
                    in_name(e, n, 5), act, s->has_clip, c_float(s->clip), Y);
        else if (G == 3)
            println(e, "gru_units_step_f32(%s, %d, %s, %s, %s, %d, %s, %s, %s);", common, s->lbr,
                    wr, in_name(e, n, 5), act, s->has_clip, c_float(s->clip), Y, Yh);
        else
            println(e, "lstm_units_step_f32(%s, %d, %s, %s, %s, %s, %s, %d, %s, %s, %s);", common,
                    s->input_forget, wr, in_dir(e, n, 7, d, 3 * H), in_name(e, n, 5),
                    in_name(e, n, 6), act, s->has_clip, c_float(s->clip), Y, out_name(e, n, 2));
        e->indent--;
        println(e, "rnn_units_end_f32(%lld, %lld, %lld, %lld, %d, %d, %lld, %s, %s);",
                (long long)s->T, (long long)s->B, (long long)H, (long long)s->D, s->layout, rev,
                (long long)d, Y, Yh);
    }
}

/* One layer as the whole-layer kernels of templates/recurrent.c run it, with the products
 * emitted (libxsmm when the weights are constant): per direction, xw = X x W_d^T over all
 * T*B rows (under a scratch budget: over the rows of each chunk of steps, at its first step),
 * then T steps of one product against R_d (GRU without linear_before_reset: two) and the
 * gate pass. The scratch is laid out as rnn_f32 / gru_f32 / lstm_f32 lay it out, xw holding
 * C steps. */
void recurrent_emit(Emitter *e, Node *n)
{
    RnnShape s = rnn_shape(n);
    if (rnn_units(n, &s)) {
        emit_units(e, n, &s);
        return;
    }
    const int64_t G = s.gates, H = s.H, B = s.B, T = s.T;
    const int64_t GH = G * H, C = rnn_chunk(n, &s);
    const char *xt = C < T ? "rnn_t0, rnn_nt" : xprintf("0, %lld", (long long)T);
    const bool gru = G == 3, lstm = G == 4;
    const int64_t hw = gru && !s.lbr ? 2 * H : GH; /* width of the step's product h x R^T */
    Value *x = n->inputs[0], *w = n->inputs[1], *r = n->inputs[2];
    const char *sl = in_name(e, n, 4), *h0 = in_name(e, n, 5);
    const char *c0 = lstm ? in_name(e, n, 6) : "NULL";
    const char *Y = out_name(e, n, 0), *Yh = out_name(e, n, 1);
    const char *Yc = lstm ? out_name(e, n, 2) : "NULL";
    const char *clip = c_float(s.clip);
    println(e, "{");
    e->indent++;
    println(e, "float *const rnn_xw = %s;", scratch_cname(e, n, DT_FLOAT, 0));
    println(e, "float *const rnn_hr = rnn_xw + %lld, *const rnn_h = rnn_hr + %lld;",
            (long long)(C * B * GH), (long long)(B * GH));
    println(e, "float *const rnn_c = rnn_h + %lld, *const rnn_hh = rnn_c + %lld;",
            (long long)(B * H), (long long)(B * H));
    println(e, "(void)rnn_c;");
    println(e, "(void)rnn_hh;");
    if (C < T)
        println(e, "int64_t rnn_t0 = 0, rnn_nt = %lld;", (long long)C);
    for (int64_t d = 0; d < s.D; d++) {
        const int rev = (s.reverse_mask >> d) & 1;
        const int32_t *a = s.act + d * s.nacts;
        const float *al = s.alpha + d * s.nacts, *be = s.beta + d * s.nacts;
        const char *common =
            xprintf("%lld, %lld, %lld, %lld, %d, %d, %lld, s, %s", (long long)T, (long long)B,
                    (long long)H, (long long)s.D, s.layout, rev, (long long)d, sl);
        println(e, "/* direction %lld */", (long long)d);
        if (C == T)
            emit_weight_product(e, n, w, d, GH, s.I, 0, GH, T * B, value_cname(e, x), "rnn_xw",
                                NULL);
        println(e, "rnn_begin_f32(%lld, %lld, %lld, %lld, %d, %lld, %s, %s, %s, rnn_h, %s, %s);",
                (long long)T, (long long)B, (long long)H, (long long)s.D, s.layout, (long long)d,
                sl, h0, c0, lstm ? "rnn_c" : "NULL", Y);
        println(e, "for (int64_t s = 0; s < %lld; s++) {", (long long)T);
        e->indent++;
        if (C < T)
            emit_chunk_start(e, n, &s, d, rev, C);
        emit_weight_product(e, n, r, d, GH, H, 0, hw, B, "rnn_h", "rnn_hr", "s");
        if (G == 1) {
            println(e, "rnn_step_f32(%s, rnn_xw, %s, rnn_hr, %s, %d, %s, %s, %d, %s, rnn_h, %s);",
                    common, xt, bias_sum_args(e, n, d, GH), (int)a[0], c_float(al[0]),
                    c_float(be[0]), s.has_clip, clip, Y);
        } else if (gru) {
            const char *wb = in_dir(e, n, 3, d, 2 * GH); /* its halves are summed per gate */
            println(e,
                    "gru_reset_f32(%lld, %lld, %lld, %d, %d, s, %s, %d, rnn_xw, %s, rnn_hr, %s, "
                    "%d, %s, %s, %d, %s, rnn_h, rnn_c);",
                    (long long)T, (long long)B, (long long)H, s.layout, rev, sl, s.lbr, xt, wb,
                    (int)a[0], c_float(al[0]), c_float(be[0]), s.has_clip, clip);
            if (!s.lbr)
                emit_weight_product(e, n, r, d, GH, H, 2 * H, H, B, "rnn_c", "rnn_hh", "s");
            println(e,
                    "gru_update_f32(%s, %d, rnn_xw, %s, rnn_hr, rnn_hh, rnn_c, %s, %d, %s, %s, "
                    "%d, %s, %s, %d, %s, rnn_h, %s);",
                    common, s.lbr, xt, wb, (int)a[0], c_float(al[0]), c_float(be[0]), (int)a[1],
                    c_float(al[1]), c_float(be[1]), s.has_clip, clip, Y);
        } else {
            println(e,
                    "lstm_step_f32(%s, %d, rnn_xw, %s, rnn_hr, %s, %s, %d, %s, %s, %d, %s, %s, "
                    "%d, %s, %s, %d, %s, rnn_h, rnn_c, %s);",
                    common, s.input_forget, xt, bias_sum_args(e, n, d, GH),
                    in_dir(e, n, 7, d, 3 * H), (int)a[0], c_float(al[0]), c_float(be[0]), (int)a[1],
                    c_float(al[1]), c_float(be[1]), (int)a[2], c_float(al[2]), c_float(be[2]),
                    s.has_clip, clip, Y);
        }
        e->indent--;
        println(e, "}");
        println(e, "rnn_end_f32(%lld, %lld, %lld, %lld, %d, %lld, %s, rnn_h, %s, %s, %s);",
                (long long)T, (long long)B, (long long)H, (long long)s.D, s.layout, (long long)d,
                sl, lstm ? "rnn_c" : "NULL", Yh, Yc);
    }
    e->indent--;
    println(e, "}");
}
