/* llm.c — the llm family: RMSNormalization, RotaryEmbedding, SwiGLU,
 * CausalConvWithState, LinearAttention (templates/llm.c). All compute in float32; float16
 * and bfloat16 operands are promoted by promote_half.c. */
#include "kernels.h"
#include "ops.h"

#include <string.h>

static Value *in(const Node *n, int i)
{
    return node_input(n, i);
}

static void *in_data(const Node *n, int i)
{
    const Value *v = node_input(n, i);
    return v ? v->data : NULL;
}

static const char *in_name(Emitter *e, const Node *n, int i)
{
    Value *v = node_input(n, i);
    return v ? value_cname(e, v) : "NULL";
}

static void require_rank(const Node *n, const Value *v, int rank)
{
    if (v->rank != rank)
        fatal_at(n, "input '%s' must have rank %d (got %d)", v->name, rank, v->rank);
}

static void require_dims(const Node *n, const Value *v, int rank, const int64_t *dims)
{
    bool ok = v->rank == rank;
    for (int i = 0; ok && i < rank; i++)
        ok = v->dims[i] == dims[i];
    if (!ok)
        fatal_at(n, "input '%s' has the wrong shape", v->name);
}

/* ---- RMSNormalization ---- */

typedef struct RmsShape {
    int64_t rows, n;
    int64_t w_strides[MAX_RANK];
} RmsShape;

static RmsShape rms_shape(const Node *n)
{
    const Value *x = in(n, 0), *w = in(n, 1);
    int axis = normalize_axis(n, attr_int(n, "axis", -1), x->rank);
    if (w->rank > x->rank)
        fatal_at(n, "scale has rank %d, more than the input's %d", w->rank, x->rank);
    for (int i = 0; i < w->rank; i++) {
        int64_t d = w->dims[i], want = x->dims[x->rank - w->rank + i];
        if (d != want && d != 1)
            fatal_at(n, "scale does not broadcast to the input (dim %d: %lld vs %lld)", i,
                     (long long)d, (long long)want);
    }
    RmsShape s = {1, 1, {0}};
    for (int i = 0; i < x->rank; i++)
        if (i < axis)
            s.rows = checked_mul(n, s.rows, x->dims[i]);
        else
            s.n = checked_mul(n, s.n, x->dims[i]);
    broadcast_strides(w, x->rank, x->dims, s.w_strides);
    return s;
}

void rmsnorm_infer(Node *n)
{
    if (in(n, 1)->dtype != in(n, 0)->dtype) /* Y has scale's type: keep both the same */
        fatal_at(n, "input and scale must have the same type");
    if (half_infer(n, rmsnorm_infer))
        return;
    require_float(n, in(n, 0));
    require_float(n, in(n, 1));
    if (attr_int(n, "stash_type", 1) != 1)
        fatal_at(n, "stash_type %lld is not supported (only 1, float32)",
                 (long long)attr_int(n, "stash_type", 1));
    rms_shape(n);
    same_shape_infer(n);
}

void rmsnorm_fold(Node *n)
{
    if (half_fold(n, rmsnorm_fold))
        return;
    RmsShape s = rms_shape(n);
    const Value *x = in(n, 0);
    rmsnorm_f32(s.rows, s.n, x->rank, x->dims, s.w_strides, attr_float(n, "epsilon", 1e-5f),
                x->data, in_data(n, 1), n->outputs[0]->data);
}

void rmsnorm_emit(Emitter *e, Node *n)
{
    RmsShape s = rms_shape(n);
    Value *x = in(n, 0);
    println(e, "rmsnorm_f32(%lld, %lld, %d, %s, %s, %s, %s, %s, %s);", (long long)s.rows,
            (long long)s.n, x->rank, emit_dims(e, x->rank, x->dims),
            emit_dims(e, x->rank, s.w_strides), c_float(attr_float(n, "epsilon", 1e-5f)),
            value_cname(e, x), in_name(e, n, 1), value_cname(e, n->outputs[0]));
}

/* ---- RotaryEmbedding ---- */

/* Input [B][H][S][D] (rank 4) or [B][S][H*D] (rank 3, H = num_heads); strides of b, s, h. */
typedef struct RopeShape {
    int64_t B, S, H, D, sb, ss, sh, rd, max_pos;
} RopeShape;

static RopeShape rope_shape(const Node *n)
{
    const Value *x = in(n, 0), *cs = in(n, 1), *sn = in(n, 2), *pos = in(n, 3);
    RopeShape r = {0};
    if (x->rank == 4) {
        r.B = x->dims[0], r.H = x->dims[1], r.S = x->dims[2], r.D = x->dims[3];
        r.sh = checked_mul(n, r.S, r.D);
        r.sb = checked_mul(n, r.H, r.sh);
        r.ss = r.D;
    } else if (x->rank == 3) {
        r.B = x->dims[0], r.S = x->dims[1], r.H = attr_int(n, "num_heads", 0);
        if (r.H <= 0 || x->dims[2] % r.H)
            fatal_at(n, "a rank-3 input needs num_heads dividing its last dim %lld",
                     (long long)x->dims[2]);
        r.D = x->dims[2] / r.H;
        r.sh = r.D;
        r.ss = x->dims[2];
        r.sb = checked_mul(n, r.S, r.ss);
    } else {
        fatal_at(n, "input must have rank 3 or 4 (got %d)", x->rank);
    }
    r.rd = attr_int(n, "rotary_embedding_dim", 0);
    if (r.rd == 0)
        r.rd = r.D;
    if (r.rd < 0 || r.rd > r.D || r.rd % 2)
        fatal_at(n, "rotary_embedding_dim %lld must be even and at most the head size %lld",
                 (long long)r.rd, (long long)r.D);
    if (pos) {
        require_dtype(n, pos, DT_INT64);
        require_dims(n, pos, 2, (int64_t[]){r.B, r.S});
        require_rank(n, cs, 2);
        r.max_pos = cs->dims[0];
        require_dims(n, cs, 2, (int64_t[]){r.max_pos, r.rd / 2});
        require_dims(n, sn, 2, (int64_t[]){r.max_pos, r.rd / 2});
    } else {
        require_dims(n, cs, 3, (int64_t[]){r.B, r.S, r.rd / 2});
        require_dims(n, sn, 3, (int64_t[]){r.B, r.S, r.rd / 2});
    }
    return r;
}

void rope_infer(Node *n)
{
    for (int i = 0; i < 3; i++)
        require_float(n, in(n, i));
    rope_shape(n);
    same_shape_infer(n);
}

void rope_fold(Node *n)
{
    RopeShape r = rope_shape(n);
    rotary_embedding_f32(r.B, r.S, r.H, r.D, r.sb, r.ss, r.sh, r.rd,
                         attr_int(n, "interleaved", 0) != 0, in_data(n, 0), in_data(n, 1),
                         in_data(n, 2), in_data(n, 3), r.max_pos, n->outputs[0]->data);
}

void rope_emit(Emitter *e, Node *n)
{
    RopeShape r = rope_shape(n);
    println(e,
            "rotary_embedding_f32(%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %d, %s, %s, "
            "%s, %s, %lld, %s);",
            (long long)r.B, (long long)r.S, (long long)r.H, (long long)r.D, (long long)r.sb,
            (long long)r.ss, (long long)r.sh, (long long)r.rd, attr_int(n, "interleaved", 0) != 0,
            in_name(e, n, 0), in_name(e, n, 1), in_name(e, n, 2), in_name(e, n, 3),
            (long long)r.max_pos, value_cname(e, n->outputs[0]));
}

/* ---- SwiGLU (Swish itself is in math.c) ---- */

void swiglu_infer(Node *n)
{
    require_float(n, in(n, 0));
    require_float(n, in(n, 1));
    require_dims(n, in(n, 1), in(n, 0)->rank, in(n, 0)->dims); /* no broadcasting */
    same_shape_infer(n);
}

void swiglu_fold(Node *n)
{
    swiglu_f32(value_numel(n->outputs[0]), attr_float(n, "alpha", 1.0f), in_data(n, 0),
               in_data(n, 1), n->outputs[0]->data);
}

void swiglu_emit(Emitter *e, Node *n)
{
    println(e, "swiglu_f32(%lld, %s, %s, %s, %s);", (long long)value_numel(n->outputs[0]),
            c_float(attr_float(n, "alpha", 1.0f)), in_name(e, n, 0), in_name(e, n, 1),
            value_cname(e, n->outputs[0]));
}

/* ---- CausalConvWithState ---- */

typedef struct CausalShape {
    int64_t B, C, L, K;
    int silu;
} CausalShape;

static CausalShape causal_shape(const Node *n)
{
    const Value *x = in(n, 0), *w = in(n, 1), *bias = in(n, 2), *past = in(n, 3);
    require_rank(n, x, 3);
    require_rank(n, w, 3);
    CausalShape s = {x->dims[0], x->dims[1], x->dims[2], w->dims[2], 0};
    if (w->dims[0] != s.C || w->dims[1] != 1 || s.K < 1)
        fatal_at(n, "weight must have shape [%lld, 1, k] with k >= 1", (long long)s.C);
    if (bias)
        require_dims(n, bias, 1, &s.C);
    if (past)
        require_dims(n, past, 3, (int64_t[]){s.B, s.C, s.K - 1});
    const char *act = attr_string(n, "activation", "none");
    if (!strcmp(act, "silu") || !strcmp(act, "swish"))
        s.silu = 1;
    else if (strcmp(act, "none"))
        fatal_at(n, "activation '%s' is not supported (none, silu, swish)", comment_text(act));
    return s;
}

void causal_conv_infer(Node *n)
{
    for (int i = 0; i < n->ninputs; i++)
        if (in(n, i))
            require_float(n, in(n, i));
    CausalShape s = causal_shape(n);
    same_shape_infer(n);
    if (n->noutputs > 1)
        set_shape(n->outputs[1], DT_FLOAT, 3, (int64_t[]){s.B, s.C, s.K - 1});
}

void causal_conv_fold(Node *n)
{
    CausalShape s = causal_shape(n);
    causal_conv_f32(s.B, s.C, s.L, s.K, in_data(n, 0), in_data(n, 1), in_data(n, 2), in_data(n, 3),
                    s.silu, n->outputs[0]->data, n->noutputs > 1 ? n->outputs[1]->data : NULL);
}

void causal_conv_emit(Emitter *e, Node *n)
{
    CausalShape s = causal_shape(n);
    println(e, "causal_conv_f32(%lld, %lld, %lld, %lld, %s, %s, %s, %s, %d, %s, %s);",
            (long long)s.B, (long long)s.C, (long long)s.L, (long long)s.K, in_name(e, n, 0),
            in_name(e, n, 1), in_name(e, n, 2), in_name(e, n, 3), s.silu,
            value_cname(e, n->outputs[0]),
            n->noutputs > 1 && value_numel(n->outputs[1]) ? value_cname(e, n->outputs[1]) : "NULL");
}

double causal_conv_flops(const Node *n)
{
    CausalShape s = causal_shape(n);
    return 2.0 * (double)value_numel(n->outputs[0]) * (double)s.K;
}

/* ---- LinearAttention ---- */

typedef struct LinAttnShape {
    int64_t B, T, Hq, Hkv, dk, dv;
    int decay_per_dim, beta_per_head;
    float scale;
} LinAttnShape;

static LinAttnShape linattn_shape(const Node *n)
{
    const Value *q = in(n, 0), *k = in(n, 1), *v = in(n, 2), *past = in(n, 3), *decay = in(n, 4),
                *beta = in(n, 5);
    LinAttnShape s = {0};
    for (int i = 0; i < 3; i++)
        require_rank(n, in(n, i), 3);
    s.B = q->dims[0], s.T = q->dims[1];
    s.Hq = attr_int(n, "q_num_heads", 0), s.Hkv = attr_int(n, "kv_num_heads", 0);
    if (s.Hq <= 0 || s.Hkv <= 0 || s.Hq % s.Hkv)
        fatal_at(n, "q_num_heads %lld must be a positive multiple of kv_num_heads %lld",
                 (long long)s.Hq, (long long)s.Hkv);
    if (q->dims[2] % s.Hq || v->dims[2] % s.Hkv)
        fatal_at(n, "query/value last dims must divide by q_num_heads/kv_num_heads");
    s.dk = q->dims[2] / s.Hq, s.dv = v->dims[2] / s.Hkv;
    require_dims(n, k, 3, (int64_t[]){s.B, s.T, s.Hkv * s.dk});
    require_dims(n, v, 3, (int64_t[]){s.B, s.T, s.Hkv * s.dv});
    if (past)
        require_dims(n, past, 4, (int64_t[]){s.B, s.Hkv, s.dk, s.dv});
    const char *rule = attr_string(n, "update_rule", "gated_delta");
    bool gated = !strcmp(rule, "gated") || !strcmp(rule, "gated_delta");
    bool delta = !strcmp(rule, "delta") || !strcmp(rule, "gated_delta");
    if (!gated && !delta && strcmp(rule, "linear"))
        fatal_at(n, "update_rule '%s' is not one of linear, gated, delta, gated_delta",
                 comment_text(rule));
    if (gated != (decay != NULL) || delta != (beta != NULL))
        fatal_at(n, "update_rule '%s' %s decay and %s beta", comment_text(rule),
                 gated ? "needs" : "forbids", delta ? "needs" : "forbids");
    if (decay) {
        require_rank(n, decay, 3);
        s.decay_per_dim = decay->dims[2] != s.Hkv;
        require_dims(n, decay, 3, (int64_t[]){s.B, s.T, s.decay_per_dim ? s.Hkv * s.dk : s.Hkv});
    }
    if (beta) {
        require_rank(n, beta, 3);
        s.beta_per_head = beta->dims[2] != 1;
        require_dims(n, beta, 3, (int64_t[]){s.B, s.T, s.beta_per_head ? s.Hkv : 1});
    }
    float scale = attr_float(n, "scale", 0.0f);
    /* the reference's 1 / np.sqrt(d_k) in double, rounded to float */
    s.scale = scale != 0.0f ? scale : (float)(1.0 / sqrt((double)s.dk));
    return s;
}

void linattn_infer(Node *n)
{
    if (in(n, 3) && in(n, 3)->dtype != in(n, 0)->dtype) /* present_state has past's type */
        fatal_at(n, "past_state must have the query's type");
    if (half_infer(n, linattn_infer))
        return;
    for (int i = 0; i < n->ninputs; i++)
        if (in(n, i))
            require_float(n, in(n, i));
    LinAttnShape s = linattn_shape(n);
    set_shape(n->outputs[0], DT_FLOAT, 3, (int64_t[]){s.B, s.T, s.Hq * s.dv});
    if (n->noutputs > 1)
        set_shape(n->outputs[1], DT_FLOAT, 4, (int64_t[]){s.B, s.Hkv, s.dk, s.dv});
}

/* The state lives in present_state, or in scratch when that output is not requested. */
int64_t linattn_scratch(const Node *n)
{
    if (n->noutputs > 1)
        return 0;
    LinAttnShape s = linattn_shape(n);
    int64_t c = checked_mul(n, checked_mul(n, s.B, s.Hkv), checked_mul(n, s.dk, s.dv));
    return checked_mul(n, c, (int64_t)sizeof(float));
}

void linattn_fold(Node *n)
{
    if (half_fold(n, linattn_fold))
        return;
    LinAttnShape s = linattn_shape(n);
    float *state =
        n->noutputs > 1 ? n->outputs[1]->data : xcalloc((size_t)linattn_scratch(n) + 1, 1);
    linear_attention_f32(s.B, s.T, s.Hq, s.Hkv, s.dk, s.dv, s.scale, in_data(n, 0), in_data(n, 1),
                         in_data(n, 2), in_data(n, 3), in_data(n, 4), s.decay_per_dim,
                         in_data(n, 5), s.beta_per_head, n->outputs[0]->data, state);
}

void linattn_emit(Emitter *e, Node *n)
{
    LinAttnShape s = linattn_shape(n);
    const char *state =
        n->noutputs > 1 ? value_cname(e, n->outputs[1]) : scratch_cname(e, n, DT_FLOAT, 0);
    println(e,
            "linear_attention_f32(%lld, %lld, %lld, %lld, %lld, %lld, %s, %s, %s, %s, %s, %s, "
            "%d, %s, %d, %s, %s);",
            (long long)s.B, (long long)s.T, (long long)s.Hq, (long long)s.Hkv, (long long)s.dk,
            (long long)s.dv, c_float(s.scale), in_name(e, n, 0), in_name(e, n, 1), in_name(e, n, 2),
            in_name(e, n, 3), in_name(e, n, 4), s.decay_per_dim, in_name(e, n, 5), s.beta_per_head,
            value_cname(e, n->outputs[0]), state);
}

double linattn_flops(const Node *n)
{
    LinAttnShape s = linattn_shape(n);
    /* write + read (and the delta's retrieval) per token: about 6 flops per state element */
    return 6.0 * (double)s.B * (double)s.T * (double)s.Hq * (double)s.dk * (double)s.dv;
}
