/* signal.c — spectral ops of the signal family: DFT, STFT, HannWindow, HammingWindow,
 * BlackmanWindow, MelWeightMatrix (templates/signal.c). The windows and the mel matrix have
 * data-dependent shapes: they are folded when their inputs are constant and refused
 * otherwise. */
#include "kernels.h"
#include "ops.h"

#include <string.h>

/* A constant integer scalar (or 1-element list) input. */
static int64_t const_scalar(const Node *n, int i, const char *what)
{
    const Value *v = n->inputs[i];
    require_constant(n, v, what);
    int count;
    int64_t *vals = const_ints(n, v, &count);
    if (count != 1)
        fatal_at(n, "%s '%s' must hold one value", what, v->name);
    return vals[0];
}

static float const_float_scalar(const Node *n, int i, const char *what)
{
    const Value *v = n->inputs[i];
    require_constant(n, v, what);
    require_float(n, v);
    if (value_numel(v) != 1)
        fatal_at(n, "%s '%s' must hold one value", what, v->name);
    return *(const float *)v->data;
}

static void require_output_float(const Node *n)
{
    int64_t t = attr_int(n, "output_datatype", DT_FLOAT);
    if (t != DT_FLOAT)
        fatal_at(n, "output_datatype %lld is not supported (only 1, float)", (long long)t);
}

/* ---- DFT ---- */

typedef struct DftShape {
    int64_t outer, len, inner, n, K;
    int c_in, mode, axis;
} DftShape;

static DftShape dft_shape(const Node *n)
{
    const Value *x = n->inputs[0];
    DftShape s = {0};
    if (x->rank < 2 || (x->dims[x->rank - 1] != 1 && x->dims[x->rank - 1] != 2))
        fatal_at(n, "input must have rank 2 or more and a last dim of 1 or 2");
    int64_t axis = attr_int(n, "axis", 1);
    if (n->opset >= 20)
        axis = node_input(n, 2) ? const_scalar(n, 2, "axis") : -2;
    s.axis = normalize_axis(n, axis, x->rank);
    if (s.axis == x->rank - 1)
        fatal_at(n, "axis %lld is the real/imaginary dim", (long long)axis);
    s.c_in = (int)x->dims[x->rank - 1];
    bool inverse = attr_int(n, "inverse", 0) != 0, onesided = attr_int(n, "onesided", 0) != 0;
    s.mode = inverse ? (onesided ? 2 : 1) : 0;
    s.len = x->dims[s.axis];
    s.n = s.mode == 2 ? 2 * (s.len - 1) : s.len;
    if (node_input(n, 1))
        s.n = const_scalar(n, 1, "dft_length");
    if (s.n < 1)
        fatal_at(n, "dft_length %lld must be positive", (long long)s.n);
    s.K = s.mode == 0 && onesided ? s.n / 2 + 1 : s.n;
    s.outer = s.inner = 1;
    for (int i = 0; i < s.axis; i++)
        s.outer = checked_mul(n, s.outer, x->dims[i]);
    for (int i = s.axis + 1; i < x->rank - 1; i++)
        s.inner = checked_mul(n, s.inner, x->dims[i]);
    return s;
}

void dft_infer(Node *n)
{
    const Value *x = n->inputs[0];
    require_float(n, x);
    DftShape s = dft_shape(n);
    int64_t dims[MAX_RANK];
    memcpy(dims, x->dims, sizeof dims);
    dims[s.axis] = s.K;
    dims[x->rank - 1] = s.mode == 2 ? 1 : 2;
    set_shape(n->outputs[0], DT_FLOAT, x->rank, dims);
}

void dft_fold(Node *n)
{
    DftShape s = dft_shape(n);
    dft_f32(s.outer, s.len, s.inner, s.c_in, s.n, s.K, s.mode, n->inputs[0]->data,
            n->outputs[0]->data);
}

void dft_emit(Emitter *e, Node *n)
{
    DftShape s = dft_shape(n);
    println(e, "dft_f32(%lld, %lld, %lld, %d, %lld, %lld, %d, %s, %s);", (long long)s.outer,
            (long long)s.len, (long long)s.inner, s.c_in, (long long)s.n, (long long)s.K, s.mode,
            value_cname(e, n->inputs[0]), value_cname(e, n->outputs[0]));
}

double dft_flops(const Node *n)
{
    DftShape s = dft_shape(n);
    return 8.0 * (double)s.outer * (double)s.inner * (double)s.K * (double)s.n;
}

/* ---- STFT ---- */

typedef struct StftShape {
    int64_t B, len, step, frames, n, K;
    int c_in;
} StftShape;

static StftShape stft_shape(const Node *n)
{
    const Value *x = n->inputs[0], *w = node_input(n, 2);
    StftShape s = {0};
    if (x->rank != 3 || (x->dims[2] != 1 && x->dims[2] != 2))
        fatal_at(n, "signal must have shape [batch, length, 1 or 2]");
    s.B = x->dims[0];
    s.len = x->dims[1];
    s.c_in = (int)x->dims[2];
    s.step = const_scalar(n, 1, "frame_step");
    s.n = node_input(n, 3) ? const_scalar(n, 3, "frame_length") : w ? w->dims[0] : s.len;
    if (w && (w->rank != 1 || w->dims[0] != s.n))
        fatal_at(n, "window must have shape [%lld] (the frame length)", (long long)s.n);
    if (s.step < 1 || s.n < 1 || s.n > s.len)
        fatal_at(n, "frame_step %lld and frame length %lld do not fit a signal of %lld",
                 (long long)s.step, (long long)s.n, (long long)s.len);
    s.frames = 1 + (s.len - s.n) / s.step;
    s.K = attr_int(n, "onesided", 1) ? s.n / 2 + 1 : s.n;
    return s;
}

void stft_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    if (node_input(n, 2))
        require_float(n, n->inputs[2]);
    StftShape s = stft_shape(n);
    int64_t dims[4] = {s.B, s.frames, s.K, 2};
    set_shape(n->outputs[0], DT_FLOAT, 4, dims);
}

void stft_fold(Node *n)
{
    StftShape s = stft_shape(n);
    const Value *w = node_input(n, 2);
    stft_f32(s.B, s.len, s.c_in, s.step, s.frames, s.n, s.K, w ? w->data : NULL, n->inputs[0]->data,
             n->outputs[0]->data);
}

void stft_emit(Emitter *e, Node *n)
{
    StftShape s = stft_shape(n);
    Value *w = node_input(n, 2);
    println(e, "stft_f32(%lld, %lld, %d, %lld, %lld, %lld, %lld, %s, %s, %s);", (long long)s.B,
            (long long)s.len, s.c_in, (long long)s.step, (long long)s.frames, (long long)s.n,
            (long long)s.K, w ? value_cname(e, w) : "NULL", value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]));
}

double stft_flops(const Node *n)
{
    StftShape s = stft_shape(n);
    return 8.0 * (double)s.B * (double)s.frames * (double)s.K * (double)s.n;
}

/* ---- HannWindow, HammingWindow, BlackmanWindow (fold only) ---- */

static int window_kind(const Node *n)
{
    return !strcmp(n->op_type, "HannWindow") ? 0 : !strcmp(n->op_type, "HammingWindow") ? 1 : 2;
}

void window_infer(Node *n)
{
    require_output_float(n);
    int64_t size = const_scalar(n, 0, "size");
    if (size < 0 || (size < 2 && !attr_int(n, "periodic", 1)))
        fatal_at(n, "window size %lld is not supported", (long long)size);
    set_shape(n->outputs[0], DT_FLOAT, 1, &size);
}

void window_fold(Node *n)
{
    window_f32(window_kind(n), n->outputs[0]->dims[0], attr_int(n, "periodic", 1) != 0,
               n->outputs[0]->data);
}

/* ---- MelWeightMatrix (fold only) ---- */

void melweight_infer(Node *n)
{
    require_output_float(n);
    int64_t bins = const_scalar(n, 0, "num_mel_bins"), len = const_scalar(n, 1, "dft_length");
    int64_t rate = const_scalar(n, 2, "sample_rate");
    float lo = const_float_scalar(n, 3, "lower_edge_hertz");
    float hi = const_float_scalar(n, 4, "upper_edge_hertz");
    if (bins < 1 || len < 1 || rate < 1 || !(lo >= 0.0f && lo < hi))
        fatal_at(n, "num_mel_bins, dft_length, sample_rate or the edge frequencies are invalid");
    int64_t dims[2] = {len / 2 + 1, bins};
    set_shape(n->outputs[0], DT_FLOAT, 2, dims);
}

void melweight_fold(Node *n)
{
    melweight_f32(const_scalar(n, 0, "num_mel_bins"), const_scalar(n, 1, "dft_length"),
                  const_scalar(n, 2, "sample_rate"), const_float_scalar(n, 3, "lower_edge_hertz"),
                  const_float_scalar(n, 4, "upper_edge_hertz"), n->outputs[0]->data);
}
