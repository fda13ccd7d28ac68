/* ops_recurrent.c — RNN, GRU and LSTM (float32): all directions (forward, reverse,
 * bidirectional), layouts 0 and 1, the optional inputs B, sequence_lens (constant or a
 * runtime int32 tensor), initial_h, initial_c, P, attributes clip, linear_before_reset (GRU),
 * input_forget (LSTM). One kernel call per node (templates/recurrent.c), whose products are
 * gemm_f32 calls (templates/gemm.c, pasted first), so the numerics contract holds.
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

static int64_t rnn_scratch_count(const Node *n, const RnnShape *s)
{
    int64_t gh = checked_mul(n, s->gates, s->H);
    int64_t tb = checked_mul(n, s->T, s->B);
    int64_t f = checked_mul(n, tb, gh);
    f = checked_add(n, f, checked_mul(n, s->B, gh));
    f = checked_add(n, f, checked_mul(n, 3 * s->B, s->H));
    return f;
}

int64_t recurrent_scratch(const Node *n)
{
    RnnShape s = rnn_shape(n);
    return checked_mul(n, rnn_scratch_count(n, &s), (int64_t)sizeof(float));
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
    float *scratch = xcalloc((size_t)rnn_scratch_count(n, &s) + 1, sizeof(float));
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

static const char *out_name(Emitter *e, const Node *n, int i)
{
    return i < n->noutputs ? value_cname(e, n->outputs[i]) : "NULL";
}

void recurrent_emit(Emitter *e, Node *n)
{
    RnnShape s = rnn_shape(n);
    int nact = (int)s.D * s.nacts;
    int64_t ad[1] = {nact};
    int32_t *act = xcalloc((size_t)nact, sizeof(int32_t));
    float *alpha = xcalloc((size_t)nact, sizeof(float)),
          *beta = xcalloc((size_t)nact, sizeof(float));
    memcpy(act, s.act, (size_t)nact * sizeof(int32_t));
    memcpy(alpha, s.alpha, (size_t)nact * sizeof(float));
    memcpy(beta, s.beta, (size_t)nact * sizeof(float));
    const char *a = emit_constant(e, DT_INT32, 1, ad, act);
    const char *al = emit_constant(e, DT_FLOAT, 1, ad, alpha);
    const char *be = emit_constant(e, DT_FLOAT, 1, ad, beta);
    const char *scratch = scratch_cname(e, n, DT_FLOAT, 0);
    const char *common =
        xprintf("%lld, %lld, %lld, %lld, %lld, %d, %d", (long long)s.T, (long long)s.B,
                (long long)s.I, (long long)s.H, (long long)s.D, s.layout, s.reverse_mask);
    const char *ins =
        xprintf("%s, %s, %s, %s, %s, %s", in_name(e, n, 0), in_name(e, n, 1), in_name(e, n, 2),
                in_name(e, n, 3), in_name(e, n, 4), in_name(e, n, 5));
    const char *tail = xprintf("%s, %s, %s, %d, %s", a, al, be, s.has_clip, c_float(s.clip));
    if (s.gates == 1)
        println(e, "rnn_f32(%s, %s, %s, %s, %s, %s);", common, ins, tail, out_name(e, n, 0),
                out_name(e, n, 1), scratch);
    else if (s.gates == 3)
        println(e, "gru_f32(%s, %d, %s, %s, %s, %s, %s);", common, s.lbr, ins, tail,
                out_name(e, n, 0), out_name(e, n, 1), scratch);
    else
        println(e, "lstm_f32(%s, %d, %s, %s, %s, %s, %s, %s, %s, %s);", common, s.input_forget, ins,
                in_name(e, n, 6), in_name(e, n, 7), tail, out_name(e, n, 0), out_name(e, n, 1),
                out_name(e, n, 2), scratch);
}
