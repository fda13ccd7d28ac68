/* contrib_attention.c — onnxruntime's transformer ops (com.microsoft), as the transformer
 * optimiser (onnxruntime.transformers.optimizer) and onnxruntime's exporters write them,
 * replaced by the ONNX Attention op (opset 23, compiler/ops/attention.c) and the standard ops
 * around it, so that attention runs in the one kernel templates/attention.c:
 *
 *   Attention(x, W, bias, mask_index, past, attention_bias)
 *       MatMul(x, W) [+ bias] split into Q, K, V of [B][S][hidden]; past [2][B][N][P][H] is
 *       the past key and value; Attention (N heads, is_causal = unidirectional); present =
 *       the present key and value stacked again as [2][B][N][P + S][H]
 *   MultiHeadAttention(q, k, v, bias, key_padding_mask, attention_bias, past_key, past_value)
 *       Q, K, V brought to [B][seq][hidden] (packed QKV [B][S][N][3][H], packed KV
 *       [B][L][N][2][H] and K, V as [B][N][L][H] are split, transposed, reshaped) [+ bias;
 *       of Q only when K, V are [B][N][L][H], as onnxruntime adds it], then Attention
 *   GroupQueryAttention(q, k, v, past_key, past_value, seqlens_k, total_sequence_length,
 *                       cos_cache, sin_cache, position_ids, attention_bias)
 *       [Split of packed QKV] [RotaryEmbedding of Q and K], Attention with kv_num_heads,
 *       causal (local_window_size: a constant mask), when seqlens_k and
 *       total_sequence_length are constants that say no sequence is padded (each seqlens_k +
 *       1 = total = past + new)
 *   EmbedLayerNormalization(ids, segment_ids, word, position, segment, gamma, beta, mask,
 *                           position_ids)
 *       Gathers, Adds, LayerNormalization; mask_index = the number of ones in each mask row
 *   BiasSoftmax(x, bias)   Add, Softmax over the dimensions from axis on
 *
 * Masks as onnxruntime's CPU kernels apply them: an additive float mask, 0 where a key is
 * attended, mask_filter_value (default -10000) where not (not -inf: a row that masks every
 * key attends to all of them evenly, as onnxruntime's does), added to the scaled scores
 * together with attention_bias; unidirectional masking is Attention's is_causal. */
#include "contrib.h"

#include <math.h>
#include <string.h>

static Value *reshape(const Expansion *e, Value *x, int rank, const int64_t *dims, Value *out)
{
    return expansion_binary(e, "Reshape", x, expansion_ints(e, rank, dims), out);
}

/* x split along axis into count parts of the given sizes. */
static Value **split(const Expansion *e, Value *x, int axis, int count, const int64_t *sizes)
{
    Value *ins[2] = {x, expansion_ints(e, count, sizes)};
    Node *h = expansion_node(e, "Split", 2, ins, count, NULL);
    attr_set_int(h, "axis", axis);
    return h->outputs;
}

/* x[index] along axis 0 (the axis dropped). */
static Value *take0(const Expansion *e, Value *x, int64_t index)
{
    Value *i = constant_new(e->g, xprintf("%s/index", e->origin->name), DT_INT64, 0, NULL);
    *(int64_t *)i->data = index;
    return expansion_binary(e, "Gather", x, i, NULL);
}

/* An int32 constant [1][count] holding 0, 1, ... count - 1 (key positions). */
static Value *positions_i32(const Expansion *e, int64_t count)
{
    int64_t dims[2] = {1, count};
    Value *c = constant_new(e->g, xprintf("%s/positions", e->origin->name), DT_INT32, 2, dims);
    for (int64_t i = 0; i < count; i++)
        ((int32_t *)c->data)[i] = (int32_t)i;
    return c;
}

static Value *int32_scalar(const Expansion *e, int32_t v)
{
    Value *c = constant_new(e->g, xprintf("%s/int", e->origin->name), DT_INT32, 0, NULL);
    *(int32_t *)c->data = v;
    return c;
}

/* onnxruntime's mask_index (Attention) or key_padding_mask (MultiHeadAttention), int32, for
 * B batches of S queries over T keys, as Attention's additive attn_mask:
 *   [B]        key j attended when j < end[b]
 *   [2B]       end[b] then start[b]: start[b] <= j < end[b] (allow_2b)
 *   [B][T]     raw 0/1, a value > 0 attends
 *   [B][S][T]  raw per query (allow_3d)
 * giving [B][1][S][T], 0 or mask_filter_value. */
static Value *ort_mask(const Expansion *e, Value *m, int64_t B, int64_t S, int64_t T, bool allow_2b,
                       bool allow_3d)
{
    const Node *n = e->origin;
    float filter = attr_float(n, "mask_filter_value", -10000.0f);
    require_dtype(n, m, DT_INT32);
    Value *attend;
    if (m->rank == 1 && (m->dims[0] == B || (allow_2b && m->dims[0] == 2 * B))) {
        Value *j = positions_i32(e, T), *end = m, *start = NULL;
        if (m->dims[0] == 2 * B) {
            int64_t halves[2] = {B, B};
            Value **se = split(e, m, 0, 2, halves);
            end = se[0];
            start = se[1];
        }
        int64_t col[2] = {B, 1};
        attend = expansion_binary(e, "Less", j, reshape(e, end, 2, col, NULL), NULL);
        if (start) {
            Value *after =
                expansion_binary(e, "GreaterOrEqual", j, reshape(e, start, 2, col, NULL), NULL);
            attend = expansion_binary(e, "And", attend, after, NULL);
        }
    } else if ((m->rank == 2 && m->dims[0] == B && m->dims[1] == T) ||
               (allow_3d && m->rank == 3 && m->dims[0] == B && m->dims[1] == S &&
                m->dims[2] == T)) {
        attend = expansion_binary(e, "Greater", m, int32_scalar(e, 0), NULL);
    } else {
        fatal_at(
            n,
            "mask '%s' of rank %d is not one of the supported forms ([%lld]%s, [%lld][%lld]%s; "
            "batch %lld, %lld queries, %lld keys)",
            m->name, m->rank, (long long)B, allow_2b ? ", [2 * batch]" : "", (long long)B,
            (long long)T, allow_3d ? ", [batch][queries][keys]" : "", (long long)B, (long long)S,
            (long long)T);
    }
    int64_t dims[4] = {B, 1, m->rank == 3 ? S : 1, T}, zdims[4] = {1, 1, S, 1};
    /* zeros [1][1][S][1]: the mask has S rows (onnxruntime's Attention wants them) */
    Value *zeros = constant_new(e->g, xprintf("%s/zeros", n->name), DT_FLOAT, 4, zdims);
    Value *ins[3] = {reshape(e, attend, 4, dims, NULL), zeros, expansion_float(e, filter)};
    return expansion_node1(e, "Where", 3, ins, NULL);
}

/* The mask (or NULL) plus attention_bias [B or 1][N][S][T] (or NULL). */
static Value *with_bias(const Expansion *e, Value *mask, Value *bias)
{
    if (!bias)
        return mask;
    require_float(e->origin, bias);
    if (bias->rank != 4)
        fatal_at(e->origin, "attention_bias '%s' must have rank 4, not %d", bias->name, bias->rank);
    return mask ? expansion_binary(e, "Add", mask, bias, NULL) : bias;
}

static void refuse_output(const Node *n, int i, const char *what)
{
    if (i < n->noutputs && value_is_used(n->outputs[i]))
        fatal_at(n, "output %d ('%s', %s) is not supported", i, n->outputs[i]->name, what);
}

static Value *output_or_null(const Node *n, int i)
{
    return i < n->noutputs && value_is_used(n->outputs[i]) ? n->outputs[i] : NULL;
}

/* The ONNX Attention node on 3-D q [B][S][Hq*D], k, v [B][L][Hkv*D(v)], optional mask and
 * past key/value [B][Hkv][P][D]; writes y, and present key/value when asked (pk_out, pv_out
 * non-NULL: set to the present values). */
static void attention_node(const Expansion *e, Value *const qkv[3], Value *mask, Value *past_k,
                           Value *past_v, int64_t q_heads, int64_t kv_heads, bool causal, Value *y,
                           Value **pk_out, Value **pv_out)
{
    const Node *n = e->origin;
    Value *ins[6] = {qkv[0], qkv[1], qkv[2], mask, past_k, past_v};
    int nin = past_k ? 6 : mask ? 4 : 3;
    /* with a past, present outputs even when nobody reads them: onnxruntime's Attention
     * refuses a past without them (--emit-onnx); the kernel skips what is not read */
    int nout = past_k || (pk_out && *pk_out) || (pv_out && *pv_out) ? 3 : 1;
    Value *outs[3] = {y, pk_out ? *pk_out : NULL, pv_out ? *pv_out : NULL};
    Node *h = expansion_node(e, "Attention", nin, ins, nout, outs);
    h->opset = e->opset > 23 ? e->opset : 23;
    attr_set_int(h, "q_num_heads", q_heads);
    attr_set_int(h, "kv_num_heads", kv_heads);
    if (causal)
        attr_set_int(h, "is_causal", 1);
    float scale = attr_float(n, "scale", 0.0f);
    if (scale != 0.0f)
        attr_set_float(h, "scale", scale);
    float softcap = attr_float(n, "softcap", 0.0f);
    if (softcap != 0.0f)
        attr_set_float(h, "softcap", softcap);
    if (nout == 3 && pk_out) {
        *pk_out = h->outputs[1];
        *pv_out = h->outputs[2];
    }
}

static int64_t heads_attr(const Node *n, const char *name)
{
    int64_t h = attr_int(n, name, 0);
    if (h <= 0)
        fatal_at(n, "attribute %s must be positive (got %lld)", name, (long long)h);
    return h;
}

static void require_3d(const Node *n, const Value *v, const char *what)
{
    if (v->rank != 3)
        fatal_at(n, "%s '%s' must be [batch][sequence][hidden], not of rank %d", what, v->name,
                 v->rank);
}

/* ---- Attention ---- */

void ort_attention(const Expansion *e, Node *n)
{
    if (attr_int(n, "do_rotary", 0))
        fatal_at(n, "do_rotary=1 is not supported");
    if (attr_int(n, "past_present_share_buffer", 0) || node_input(n, 6))
        fatal_at(n, "past_present_share_buffer / past_sequence_length are not supported");
    int64_t N = heads_attr(n, "num_heads");
    Value *x = n->inputs[0], *w = n->inputs[1], *bias = node_input(n, 2);
    require_float(n, x);
    require_3d(n, x, "input");
    if (w->rank != 2 || w->dims[0] != x->dims[2])
        fatal_at(n, "weights '%s' must be [%lld][q + k + v hidden]", w->name,
                 (long long)x->dims[2]);
    int64_t sizes[3];
    const int64_t *given;
    if (attr_ints(n, "qkv_hidden_sizes", &given) == 3) {
        memcpy(sizes, given, sizeof sizes);
    } else {
        if (w->dims[1] % 3)
            fatal_at(n, "weights '%s' have %lld columns, not 3 x hidden", w->name,
                     (long long)w->dims[1]);
        sizes[0] = sizes[1] = sizes[2] = w->dims[1] / 3;
    }
    if (sizes[0] != sizes[1] || sizes[0] <= 0 || sizes[2] <= 0 || sizes[0] % N || sizes[2] % N ||
        checked_add(n, checked_add(n, sizes[0], sizes[1]), sizes[2]) != w->dims[1])
        fatal_at(n,
                 "qkv_hidden_sizes (%lld, %lld, %lld) do not fit %lld weight columns and "
                 "%lld heads",
                 (long long)sizes[0], (long long)sizes[1], (long long)sizes[2],
                 (long long)w->dims[1], (long long)N);
    int64_t B = x->dims[0], S = x->dims[1], H = sizes[0] / N, P = 0;
    Value *qkv = expansion_binary(e, "MatMul", x, w, NULL);
    if (bias)
        qkv = expansion_binary(e, "Add", qkv, bias, NULL);
    Value **parts = split(e, qkv, 2, 3, sizes);
    Value *past = node_input(n, 4), *pk = NULL, *pv = NULL;
    if (past) {
        if (past->rank != 5 || past->dims[0] != 2 || past->dims[1] != B || past->dims[2] != N ||
            past->dims[4] != H || sizes[2] != sizes[0])
            fatal_at(n, "past '%s' must be [2][%lld][%lld][past][%lld] (and v hidden = q hidden)",
                     past->name, (long long)B, (long long)N, (long long)H);
        P = past->dims[3];
        pk = take0(e, past, 0);
        pv = take0(e, past, 1);
    }
    int64_t T = checked_add(n, P, S);
    Value *mask = node_input(n, 3);
    if (mask && mask->rank == 4)
        fatal_at(n, "a 4-D mask_index (Megatron) is not supported (onnxruntime's CPU kernel does "
                    "not run it either)");
    if (mask)
        mask = ort_mask(e, mask, B, S, T, true, true);
    mask = with_bias(e, mask, node_input(n, 5));
    Value *present = output_or_null(n, 1), *prk = NULL, *prv = NULL;
    if (present && sizes[2] != sizes[0])
        fatal_at(n, "output present needs the v hidden size to equal the q hidden size");
    if (present) { /* Attention writes them; the Concat below stacks them */
        prk = value_new_unique(e->g, n->name);
        prv = value_new_unique(e->g, n->name);
    }
    attention_node(e, parts, mask, pk, pv, N, N, attr_int(n, "unidirectional", 0) != 0,
                   n->outputs[0], present ? &prk : NULL, present ? &prv : NULL);
    if (present) {
        int64_t dims[5] = {1, B, N, T, H};
        Value *ins[2] = {reshape(e, prk, 5, dims, NULL), reshape(e, prv, 5, dims, NULL)};
        Node *c = expansion_node(e, "Concat", 2, ins, 1, &present);
        attr_set_int(c, "axis", 0);
    }
}

/* ---- MultiHeadAttention ---- */

/* A packed [B][S][N][count][H] tensor as count tensors [B][S][N * H]. */
static void unpack_heads(const Expansion *e, Value *x, int count, Value **out)
{
    int64_t ones[3] = {1, 1, 1};
    Value **parts = split(e, x, 3, count, ones);
    int64_t dims[3] = {x->dims[0], x->dims[1], checked_mul(e->origin, x->dims[2], x->dims[4])};
    for (int i = 0; i < count; i++)
        out[i] = reshape(e, parts[i], 3, dims, NULL);
}

/* [B][N][L][H] as [B][L][N * H]. */
static Value *bnsh_to_bsd(const Expansion *e, Value *x)
{
    Node *t = expansion_node(e, "Transpose", 1, &x, 1, NULL);
    int64_t perm[4] = {0, 2, 1, 3};
    t->attrs = xcalloc(1, sizeof(Attr));
    t->attrs[0] = (Attr){.name = xstrdup("perm"), .type = ATTR_INTS, .n = 4};
    t->attrs[0].ints = xcalloc(4, sizeof(int64_t));
    memcpy(t->attrs[0].ints, perm, sizeof perm);
    t->nattrs = 1;
    int64_t dims[3] = {x->dims[0], x->dims[2], checked_mul(e->origin, x->dims[1], x->dims[3])};
    return reshape(e, t->outputs[0], 3, dims, NULL);
}

void multi_head_attention(const Expansion *e, Node *n)
{
    if (node_input(n, 8) || node_input(n, 9))
        fatal_at(n, "past_sequence_length / cache_indirection (beam search) are not supported");
    refuse_output(n, 3, "the attention scores");
    int64_t N = heads_attr(n, "num_heads");
    Value *q = n->inputs[0], *k = node_input(n, 1), *v = node_input(n, 2);
    Value *bias = node_input(n, 3), *pk = node_input(n, 6), *pv = node_input(n, 7);
    require_float(n, q);
    Value *qkv[3] = {q, k, v};
    bool bnsh = false;
    if (q->rank == 5 && !k && !v) {
        if (q->dims[2] != N || q->dims[3] != 3)
            fatal_at(n, "packed query '%s' must be [batch][sequence][%lld][3][head size]", q->name,
                     (long long)N);
        unpack_heads(e, q, 3, qkv);
    } else if (q->rank == 3 && k && k->rank == 5 && !v) {
        if (k->dims[2] != N || k->dims[3] != 2)
            fatal_at(n, "packed key '%s' must be [batch][sequence][%lld][2][head size]", k->name,
                     (long long)N);
        unpack_heads(e, k, 2, qkv + 1);
    } else if (q->rank == 3 && k && v && k->rank == 4 && v->rank == 4) {
        if (k->dims[1] != N || v->dims[1] != N)
            fatal_at(n, "key and value of rank 4 must be [batch][%lld][sequence][head size]",
                     (long long)N);
        qkv[1] = bnsh_to_bsd(e, k);
        qkv[2] = bnsh_to_bsd(e, v);
        bnsh = true;
    } else if (q->rank == 3 && k && v && k->rank == 3 && v->rank == 3) {
        /* separate Q, K, V */
    } else {
        fatal_at(n, "query, key and value are not one of the supported forms (separate "
                    "[batch][sequence][hidden], packed QKV, packed KV, key/value "
                    "[batch][heads][sequence][head size])");
    }
    /* the sizes of the new values, from the original inputs */
    int64_t B = q->dims[0], S = q->dims[1];
    int64_t L = !k ? S : k->rank == 4 ? k->dims[2] : k->dims[1];
    int64_t Dq = q->rank == 5 ? q->dims[2] * q->dims[4] : q->dims[2];
    int64_t Dk = !k             ? Dq
                 : k->rank == 3 ? k->dims[2]
                 : k->rank == 4 ? k->dims[1] * k->dims[3]
                                : k->dims[2] * k->dims[4];
    int64_t Dv = !k ? Dq : !v ? Dk : v->rank == 3 ? v->dims[2] : v->dims[1] * v->dims[3];
    if (Dq != Dk || Dq % N || Dv % N)
        fatal_at(n,
                 "query and key hidden sizes (%lld, %lld) must be equal and, like value's "
                 "(%lld), a multiple of %lld heads",
                 (long long)Dq, (long long)Dk, (long long)Dv, (long long)N);
    if (bias) {
        if (bias->rank != 1 || bias->dims[0] != checked_add(n, 2 * Dq, Dv))
            fatal_at(n, "bias '%s' must be [%lld]", bias->name, (long long)(2 * Dq + Dv));
        int64_t sizes[3] = {Dq, Dq, Dv};
        Value **b = split(e, bias, 0, 3, sizes);
        for (int i = 0; i < (bnsh ? 1 : 3); i++) /* K, V of [B][N][L][H]: as given, no bias */
            qkv[i] = expansion_binary(e, "Add", qkv[i], b[i], NULL);
    }
    int64_t P = 0;
    if (!pk != !pv)
        fatal_at(n, "past_key and past_value must be given together");
    if (pk) {
        if (bnsh)
            fatal_at(n, "past_key/past_value with key/value of rank 4 are not supported");
        int64_t kd[4] = {B, N, pk->dims[2], Dq / N}, vd[4] = {B, N, pk->dims[2], Dv / N};
        for (int i = 0; i < 4; i++)
            if (pk->rank != 4 || pv->rank != 4 || pk->dims[i] != kd[i] || pv->dims[i] != vd[i])
                fatal_at(n, "past_key/past_value must be [%lld][%lld][past][head size]",
                         (long long)B, (long long)N);
        P = pk->dims[2];
    }
    Value *mask = node_input(n, 4);
    if (mask)
        mask = ort_mask(e, mask, B, S, checked_add(n, P, L), false, false);
    mask = with_bias(e, mask, node_input(n, 5));
    Value *prk = output_or_null(n, 1), *prv = output_or_null(n, 2);
    if (prk && !prv)
        prv = value_new_unique(e->g, n->name); /* the Attention node writes both */
    if (prv && !prk)
        prk = value_new_unique(e->g, n->name);
    attention_node(e, qkv, mask, pk, pv, N, N, attr_int(n, "unidirectional", 0) != 0, n->outputs[0],
                   prk ? &prk : NULL, prv ? &prv : NULL);
}

/* ---- GroupQueryAttention ---- */

static int64_t const_scalar(const Node *n, const Value *v, const char *what)
{
    require_constant(n, v, what);
    int count;
    int64_t *x = const_ints(n, v, &count);
    if (count != 1)
        fatal_at(n, "%s '%s' must hold one value", what, v->name);
    return x[0];
}

/* RotaryEmbedding of x [B][S][heads * H] at positions pos [B][S]. */
static Value *rotary(const Expansion *e, Value *x, Value *pos, int64_t heads, int64_t H)
{
    const Node *n = e->origin;
    Value *cos = n->inputs[7], *sin = n->inputs[8];
    Value *ins[4] = {x, cos, sin, pos};
    Node *h = expansion_node(e, "RotaryEmbedding", 4, ins, 1, NULL);
    h->opset = e->opset > 23 ? e->opset : 23;
    attr_set_int(h, "interleaved", attr_int(n, "rotary_interleaved", 0));
    attr_set_int(h, "num_heads", heads);
    if (cos->rank != 2 || 2 * cos->dims[1] > H)
        fatal_at(n, "cos_cache '%s' must be [positions][rotary dim / 2 <= %lld]", cos->name,
                 (long long)(H / 2));
    if (2 * cos->dims[1] != H)
        attr_set_int(h, "rotary_embedding_dim", 2 * cos->dims[1]);
    return h->outputs[0];
}

/* local_window_size w >= 1: the query at position p = P + i attends the w keys p - w + 1 .. p,
 * as onnxruntime's kernel counts them (the causal mask gives the upper end): a constant
 * [1][1][S][P + S] mask, -inf from key 0 to p - w. */
static Value *local_window(const Expansion *e, int64_t S, int64_t P)
{
    int64_t w = attr_int(e->origin, "local_window_size", -1);
    if (w < -1 || w == 0)
        fatal_at(e->origin, "local_window_size %lld is not -1 (none) or positive", (long long)w);
    if (w == -1)
        return NULL;
    int64_t T = P + S, dims[4] = {1, 1, S, T};
    Value *m = constant_new(e->g, xprintf("%s/window", e->origin->name), DT_FLOAT, 4, dims);
    for (int64_t i = 0; i < S; i++)
        for (int64_t j = 0; j < T; j++)
            ((float *)m->data)[i * T + j] = j <= P + i - w ? -INFINITY : 0.0f;
    return m;
}

void group_query_attention(const Expansion *e, Node *n)
{
    if (attr_int(n, "smooth_softmax", 0) || node_input(n, 11))
        fatal_at(n, "smooth_softmax / head_sink are not supported");
    if (attr_int(n, "qk_output", 0))
        fatal_at(n, "qk_output other than 0 is not supported");
    refuse_output(n, 3, "the attention scores");
    int64_t N = heads_attr(n, "num_heads"), KV = heads_attr(n, "kv_num_heads");
    Value *q = n->inputs[0], *k = node_input(n, 1), *v = node_input(n, 2);
    Value *pk = node_input(n, 3), *pv = node_input(n, 4);
    Value *seqlens = node_input(n, 5), *total = node_input(n, 6);
    if (!seqlens || !total)
        fatal_at(n, "seqlens_k and total_sequence_length are required");
    require_float(n, q);
    require_3d(n, q, "query");
    if (N % KV)
        fatal_at(n, "num_heads %lld is not a multiple of kv_num_heads %lld", (long long)N,
                 (long long)KV);
    int64_t B = q->dims[0], S = q->dims[1], H;
    Value *qkv[3] = {q, k, v};
    if (!k && !v) {
        if (q->dims[2] % (N + 2 * KV))
            fatal_at(n, "packed query '%s' hidden size %lld is not (%lld + 2 x %lld) heads",
                     q->name, (long long)q->dims[2], (long long)N, (long long)KV);
        H = q->dims[2] / (N + 2 * KV);
        int64_t sizes[3] = {N * H, KV * H, KV * H};
        Value **parts = split(e, q, 2, 3, sizes);
        memcpy(qkv, parts, sizeof qkv);
    } else {
        if (!k || !v)
            fatal_at(n, "key and value must be given together");
        require_3d(n, k, "key");
        require_3d(n, v, "value");
        if (q->dims[2] % N)
            fatal_at(n, "query hidden size %lld is not a multiple of %lld heads",
                     (long long)q->dims[2], (long long)N);
        H = q->dims[2] / N;
        if (k->dims[2] != KV * H || v->dims[2] != KV * H || k->dims[1] != S || v->dims[1] != S)
            fatal_at(n, "key and value must be [%lld][%lld][%lld]", (long long)B, (long long)S,
                     (long long)(KV * H));
    }
    int64_t P = 0;
    if (!pk != !pv)
        fatal_at(n, "past_key and past_value must be given together");
    if (pk) {
        int64_t d[4] = {B, KV, pk->dims[2], H};
        for (int i = 0; i < 4; i++)
            if (pk->rank != 4 || pv->rank != 4 || pk->dims[i] != d[i] || pv->dims[i] != d[i])
                fatal_at(n, "past_key/past_value must be [%lld][%lld][past][%lld]", (long long)B,
                         (long long)KV, (long long)H);
        P = pk->dims[2];
    }
    /* Static lengths without padding: every sequence holds total = past + new tokens. */
    int64_t T = const_scalar(n, total, "total_sequence_length");
    int count;
    require_constant(n, seqlens, "seqlens_k");
    const int64_t *lens = const_ints(n, seqlens, &count);
    if (T != checked_add(n, P, S))
        fatal_at(n,
                 "total_sequence_length %lld is not past %lld + new %lld (a shared past/present "
                 "buffer is not supported)",
                 (long long)T, (long long)P, (long long)S);
    if (count != B)
        fatal_at(n, "seqlens_k '%s' has %d values, not %lld", seqlens->name, count, (long long)B);
    for (int i = 0; i < count; i++)
        if (lens[i] != T - 1)
            fatal_at(n,
                     "seqlens_k[%d] = %lld: padded sequences are not supported (all must be "
                     "total_sequence_length - 1 = %lld)",
                     i, (long long)lens[i], (long long)(T - 1));
    if (pk && !P)
        pk = pv = NULL; /* an empty past */
    if (attr_int(n, "do_rotary", 0)) {
        if (!node_input(n, 7) || !node_input(n, 8))
            fatal_at(n, "do_rotary=1 needs cos_cache and sin_cache");
        Value *pos = node_input(n, 9);
        if (!pos) { /* the positions of the new tokens: past, past + 1, ... */
            int64_t dims[2] = {B, S};
            pos = constant_new(e->g, xprintf("%s/positions", n->name), DT_INT64, 2, dims);
            for (int64_t i = 0; i < B * S; i++)
                ((int64_t *)pos->data)[i] = P + i % S;
        }
        qkv[0] = rotary(e, qkv[0], pos, N, H);
        qkv[1] = rotary(e, qkv[1], pos, KV, H);
    }
    Value *mask = with_bias(e, local_window(e, S, P), node_input(n, 10));
    Value *prk = output_or_null(n, 1), *prv = output_or_null(n, 2);
    if (prk && !prv)
        prv = value_new_unique(e->g, n->name);
    if (prv && !prk)
        prk = value_new_unique(e->g, n->name);
    attention_node(e, qkv, mask, pk, pv, N, KV, true, n->outputs[0], prk ? &prk : NULL,
                   prv ? &prv : NULL);
}

/* ---- EmbedLayerNormalization ---- */

static Value *required(const Node *n, int i, const char *what)
{
    Value *v = node_input(n, i);
    if (!v)
        fatal_at(n, "required input %d (%s) is missing", i, what);
    return v;
}

/* table[ids] (Gather takes int64 indices at run time: int32 ones are widened first). */
static Value *lookup(const Expansion *e, Value *table, Value *ids)
{
    if (ids->dtype == DT_INT32 && !ids->data) {
        Node *cast = expansion_node(e, "Cast", 1, &ids, 1, NULL);
        attr_set_int(cast, "to", DT_INT64);
        ids = cast->outputs[0];
    }
    return expansion_binary(e, "Gather", table, ids, NULL);
}

void embed_layernorm(const Expansion *e, Node *n)
{
    Value *ids = n->inputs[0], *seg = node_input(n, 1), *segemb = node_input(n, 4);
    Value *word = required(n, 2, "word_embedding"), *posemb = required(n, 3, "position_embedding");
    Value *gamma = required(n, 5, "gamma"), *beta = required(n, 6, "beta");
    Value *mask = node_input(n, 7), *pos = node_input(n, 8);
    if (ids->rank != 2)
        fatal_at(n, "input_ids '%s' must be [batch][sequence]", ids->name);
    if (!seg != !segemb)
        fatal_at(n, "segment_ids and segment_embedding must be given together");
    int64_t B = ids->dims[0], S = ids->dims[1];
    if (!pos) {
        int64_t len = S;
        pos = constant_new(e->g, xprintf("%s/positions", n->name), DT_INT64, 1, &len);
        for (int64_t i = 0; i < S; i++)
            ((int64_t *)pos->data)[i] = i;
    }
    Value *sum_out = output_or_null(n, 2);
    Value *s = lookup(e, word, ids);
    s = expansion_binary(e, "Add", s, lookup(e, posemb, pos), seg ? NULL : sum_out);
    if (seg)
        s = expansion_binary(e, "Add", s, lookup(e, segemb, seg), sum_out);
    expansion_normalize(e, n, false, s, gamma, beta, attr_float(n, "epsilon", 1e-12f));
    Value *mask_index = output_or_null(n, 1);
    if (!mask_index)
        return;
    if (!mask) { /* onnxruntime writes zeros */
        Value *zeros = constant_new(e->g, xprintf("%s/mask_index", n->name), DT_INT32, 1, &B);
        expansion_node1(e, "Identity", 1, &zeros, mask_index);
        return;
    }
    require_dtype(n, mask, DT_INT32);
    /* the number of elements equal to 1 in each row, as onnxruntime counts them */
    Value *ones = expansion_binary(e, "Equal", mask, int32_scalar(e, 1), NULL);
    Node *cast = expansion_node(e, "Cast", 1, &ones, 1, NULL);
    attr_set_int(cast, "to", DT_INT64); /* ReduceSum sums int64 */
    int64_t axis = 1;
    Value *ins[2] = {cast->outputs[0], expansion_ints(e, 1, &axis)};
    Node *r = expansion_node(e, "ReduceSum", 2, ins, 1, NULL);
    attr_set_int(r, "keepdims", 0);
    Node *narrow = expansion_node(e, "Cast", 1, r->outputs, 1, &mask_index);
    attr_set_int(narrow, "to", DT_INT32);
}

/* ---- BiasSoftmax ---- */

/* Softmax(x + bias) over the dimensions from axis on, flattened (Softmax before opset 13);
 * bias broadcasts to x. */
void bias_softmax(const Expansion *e, Node *n)
{
    Value *x = n->inputs[0], *bias = n->inputs[1], *out = n->outputs[0];
    require_float(n, x);
    int axis = normalize_axis(n, attr_int(n, "axis", 1), x->rank);
    bool ok = bias->rank <= x->rank;
    for (int i = 0; ok && i < bias->rank; i++) {
        int64_t d = bias->dims[bias->rank - 1 - i];
        ok = d == 1 || d == x->dims[x->rank - 1 - i];
    }
    if (!ok)
        fatal_at(n, "bias '%s' does not broadcast to the shape of '%s'", bias->name, x->name);
    bool last = axis == x->rank - 1;
    Value *sum = expansion_binary(e, "Add", x, bias, NULL);
    if (!last) {
        int64_t rows = 1, cols = 1;
        for (int i = 0; i < x->rank; i++)
            if (i < axis)
                rows = checked_mul(n, rows, x->dims[i]);
            else
                cols = checked_mul(n, cols, x->dims[i]);
        int64_t dims[2] = {rows, cols};
        sum = reshape(e, sum, 2, dims, NULL);
    }
    Node *h = expansion_node(e, "Softmax", 1, &sum, 1, last ? &out : NULL);
    attr_set_int(h, "axis", -1);
    if (!last)
        reshape(e, h->outputs[0], x->rank, x->dims, out);
}
