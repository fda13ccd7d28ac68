/* attention.c — the attention family: ONNX Attention (opsets 23 to 25) on
 * templates/attention.c. The kernel reads 3-D and 4-D Q, K, V through strides, concatenates
 * the past key/value cache on the fly and writes the present cache when it is wanted; all
 * the masking (attn_mask, is_causal, sliding window, nonpad_kv_seqlen) happens per score.
 * float16/bfloat16 nodes compute in float32 between Casts (promote_half.c), but the kernel
 * rounds its intermediates to the 16-bit type where the ONNX reference does (a bfloat16 ulp
 * is far above the test tolerances), so the node remembers its original type here. */
#include "kernels.h"
#include "ops.h"

#include <math.h>
#include <string.h>

enum { IN_Q, IN_K, IN_V, IN_MASK, IN_PAST_K, IN_PAST_V, IN_NONPAD };
enum { OUT_Y, OUT_PRESENT_K, OUT_PRESENT_V, OUT_QK };

typedef struct AttnShape {
    int64_t geo[ATT_NGEO];
    int rank; /* of Q, K, V and Y: 3 or 4 */
    float sqrt_scale, softcap;
} AttnShape;

/* Nodes whose Q was float16/bfloat16 before promote_half, with that type. */
struct HalfNode {
    const Node *node;
    DType type;
}; /* in cc->half_nodes */

static DType attention_half_type(const Node *n)
{
    if (is_half_type(n->inputs[IN_Q]->dtype))
        return n->inputs[IN_Q]->dtype;
    for (int i = 0; i < cc->nhalf_nodes; i++)
        if (cc->half_nodes[i].node == n)
            return cc->half_nodes[i].type;
    return DT_UNDEFINED;
}

static void remember_half(const Node *n)
{
    for (int i = 0; i < cc->nhalf_nodes; i++)
        if (cc->half_nodes[i].node == n)
            return;
    cc->half_nodes =
        xrealloc(cc->half_nodes, (size_t)(cc->nhalf_nodes + 1) * sizeof *cc->half_nodes);
    cc->half_nodes[cc->nhalf_nodes].node = n;
    cc->half_nodes[cc->nhalf_nodes++].type = n->inputs[IN_Q]->dtype;
}

/* Rounded to the node's 16-bit type, if it has one. */
static float round_half(DType t, float x)
{
    return t ? attention_round((int64_t)t, x) : x;
}

static bool is_attention_float(DType t)
{
    return t == DT_FLOAT || is_half_type(t);
}

/* Q, K, V, the cache and a float mask share one float type; a mask may also be bool. */
static void attention_check_types(const Node *n)
{
    const Value *q = n->inputs[IN_Q], *mask = node_input(n, IN_MASK);
    if (!is_attention_float(q->dtype))
        fatal_at(n, "Q has type %s; Attention supports float32, float16 and bfloat16",
                 dtype_name(q->dtype));
    const int same[] = {IN_K, IN_V, IN_PAST_K, IN_PAST_V};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        const Value *v = node_input(n, same[i]);
        if (v && v->dtype != q->dtype)
            fatal_at(n, "input '%s' has type %s, Q has %s; mixed types are not supported", v->name,
                     dtype_name(v->dtype), dtype_name(q->dtype));
    }
    if (mask && mask->dtype != DT_BOOL && mask->dtype != q->dtype)
        fatal_at(n, "attn_mask has type %s; it must be bool or Q's type %s",
                 dtype_name(mask->dtype), dtype_name(q->dtype));
    const Value *nonpad = node_input(n, IN_NONPAD);
    if (nonpad)
        require_dtype(n, nonpad, DT_INT64);
}

static void require_dims(const Node *n, const Value *v, int rank, const int64_t *dims)
{
    bool ok = v->rank == rank;
    for (int i = 0; ok && i < rank; i++)
        ok = v->dims[i] == dims[i];
    if (!ok)
        fatal_at(n, "input '%s' does not have the shape the other inputs imply", v->name);
}

static int64_t divide_heads(const Node *n, const Value *v, int64_t heads)
{
    if (heads <= 0 || v->dims[2] % heads)
        fatal_at(n, "hidden size %lld of '%s' is not a multiple of %lld heads",
                 (long long)v->dims[2], v->name, (long long)heads);
    return v->dims[2] / heads;
}

/* Sizes and the strides of Q, K, V (new tokens) and Y for 3-D or 4-D inputs. */
static void attention_layout(const Node *n, AttnShape *s)
{
    const Value *q = n->inputs[IN_Q], *k = n->inputs[IN_K], *v = n->inputs[IN_V];
    int64_t *g = s->geo;
    s->rank = q->rank;
    if ((q->rank != 3 && q->rank != 4) || k->rank != q->rank || v->rank != q->rank)
        fatal_at(n, "Q, K and V must all be 3-D or all 4-D (got ranks %d, %d, %d)", q->rank,
                 k->rank, v->rank);
    int64_t attr_hq = attr_int(n, "q_num_heads", 0), attr_hkv = attr_int(n, "kv_num_heads", 0);
    g[ATT_B] = q->dims[0];
    if (q->rank == 3) {
        g[ATT_HQ] = attr_hq;
        g[ATT_HKV] = attr_hkv;
        g[ATT_L] = q->dims[1];
        g[ATT_SNEW] = k->dims[1];
        g[ATT_D] = divide_heads(n, q, attr_hq);
        g[ATT_DV] = divide_heads(n, v, attr_hkv);
        if (divide_heads(n, k, attr_hkv) != g[ATT_D])
            fatal_at(n, "the head sizes of Q and K differ");
        int64_t kd[3] = {g[ATT_B], g[ATT_SNEW], k->dims[2]},
                vd[3] = {g[ATT_B], g[ATT_SNEW], v->dims[2]};
        require_dims(n, k, 3, kd);
        require_dims(n, v, 3, vd);
    } else {
        if (n->opset >= 25 && (attr_get(n, "q_num_heads") || attr_get(n, "kv_num_heads")))
            fatal_at(n, "q_num_heads and kv_num_heads must not be given for 4-D inputs");
        g[ATT_HQ] = q->dims[1];
        g[ATT_HKV] = k->dims[1];
        g[ATT_L] = q->dims[2];
        g[ATT_SNEW] = k->dims[2];
        g[ATT_D] = q->dims[3];
        g[ATT_DV] = v->dims[3];
        if ((attr_hq && attr_hq != g[ATT_HQ]) || (attr_hkv && attr_hkv != g[ATT_HKV]))
            fatal_at(n, "q_num_heads / kv_num_heads disagree with the shapes of Q and K");
        int64_t kd[4] = {g[ATT_B], g[ATT_HKV], g[ATT_SNEW], g[ATT_D]};
        int64_t vd[4] = {g[ATT_B], g[ATT_HKV], g[ATT_SNEW], g[ATT_DV]};
        require_dims(n, k, 4, kd);
        require_dims(n, v, 4, vd);
    }
    if (g[ATT_HQ] <= 0 || g[ATT_HKV] <= 0 || g[ATT_HQ] % g[ATT_HKV])
        fatal_at(n, "%lld query heads are not a multiple of %lld key/value heads",
                 (long long)g[ATT_HQ], (long long)g[ATT_HKV]);
    /* element strides of batch, head and row: [B][S][H][size] for 3-D, [B][H][S][size] 4-D */
    const int64_t seq[4] = {g[ATT_L], g[ATT_SNEW], g[ATT_SNEW], g[ATT_L]};
    const int64_t heads[4] = {g[ATT_HQ], g[ATT_HKV], g[ATT_HKV], g[ATT_HQ]};
    const int64_t size[4] = {g[ATT_D], g[ATT_D], g[ATT_DV], g[ATT_DV]};
    const int first[4] = {ATT_Q_SB, ATT_K_SB, ATT_V_SB, ATT_Y_SB};
    for (int t = 0; t < 4; t++) {
        int64_t row = checked_mul(n, heads[t], size[t]);
        g[first[t]] = checked_mul(n, seq[t], row);
        g[first[t] + 1] = q->rank == 3 ? size[t] : checked_mul(n, seq[t], size[t]);
        g[first[t] + 2] = q->rank == 3 ? row : size[t];
    }
}

/* The past cache (both or none) and nonpad_kv_seqlen (opset 24, not with a past cache). */
static void attention_cache(const Node *n, AttnShape *s)
{
    int64_t *g = s->geo;
    const Value *pk = node_input(n, IN_PAST_K), *pv = node_input(n, IN_PAST_V);
    const Value *nonpad = node_input(n, IN_NONPAD);
    if (!pk != !pv)
        fatal_at(n, "past_key and past_value must be given together");
    g[ATT_P] = pk ? (pk->rank == 4 ? pk->dims[2] : -1) : 0;
    if (pk) {
        int64_t kd[4] = {g[ATT_B], g[ATT_HKV], g[ATT_P], g[ATT_D]};
        int64_t vd[4] = {g[ATT_B], g[ATT_HKV], g[ATT_P], g[ATT_DV]};
        require_dims(n, pk, 4, kd);
        require_dims(n, pv, 4, vd);
    }
    if (nonpad) {
        if (pk)
            fatal_at(n, "nonpad_kv_seqlen cannot be combined with past_key/past_value");
        require_dims(n, nonpad, 1, &g[ATT_B]);
    }
    checked_add(n, g[ATT_P], g[ATT_SNEW]);
}

/* attn_mask broadcast to [B][Hq][L][S], its last dim padded (masked) up to S. */
static void attention_mask(const Node *n, AttnShape *s)
{
    int64_t *g = s->geo;
    const Value *m = node_input(n, IN_MASK);
    g[ATT_MASK_KIND] = !m ? ATT_MASK_NONE : m->dtype == DT_BOOL ? ATT_MASK_BOOL : ATT_MASK_FLOAT;
    if (!m)
        return;
    const int64_t S = g[ATT_P] + g[ATT_SNEW];
    if (m->rank < 1 || m->rank > 4)
        fatal_at(n, "attn_mask must have rank 1 to 4 (got %d)", m->rank);
    g[ATT_M_LEN] = m->dims[m->rank - 1];
    if (g[ATT_M_LEN] > S)
        fatal_at(n, "attn_mask has %lld keys, more than the %lld of K", (long long)g[ATT_M_LEN],
                 (long long)S);
    const int64_t target[3] = {g[ATT_B], g[ATT_HQ], g[ATT_L]};
    int64_t stride = g[ATT_M_LEN];
    for (int t = 2; t >= 0; t--) {
        int i = m->rank - 1 - (3 - t); /* the mask dim aligned with target dim t */
        int64_t d = i >= 0 ? m->dims[i] : 1;
        if (d != target[t] && d != 1)
            fatal_at(n, "attn_mask dim %d (%lld) does not broadcast to %lld", i, (long long)d,
                     (long long)target[t]);
        g[ATT_M_SB + t] = d == 1 ? 0 : stride;
        stride *= d;
    }
}

static void attention_attrs(const Node *n, AttnShape *s)
{
    int64_t *g = s->geo;
    g[ATT_CAUSAL] = attr_int(n, "is_causal", 0);
    g[ATT_QK_MODE] = attr_int(n, "qk_matmul_output_mode", 0);
    g[ATT_LEFT] = n->opset >= 25 ? attr_int(n, "left_window_size", -1) : -1;
    g[ATT_RIGHT] = n->opset >= 25 ? attr_int(n, "right_window_size", -1) : -1;
    if (g[ATT_CAUSAL] != 0 && g[ATT_CAUSAL] != 1)
        fatal_at(n, "is_causal must be 0 or 1");
    if (g[ATT_QK_MODE] < 0 || g[ATT_QK_MODE] > 3)
        fatal_at(n, "qk_matmul_output_mode %lld is not 0 to 3", (long long)g[ATT_QK_MODE]);
    if (g[ATT_LEFT] < -1 || g[ATT_RIGHT] < -1)
        fatal_at(n, "left_window_size and right_window_size must be -1 or nonnegative");
    int64_t prec = attr_int(n, "softmax_precision", DT_FLOAT);
    if (prec != DT_FLOAT && prec != DT_FLOAT16 && prec != DT_BFLOAT16 && prec != DT_DOUBLE)
        fatal_at(n, "softmax_precision %lld is not supported (1, 10, 11, 16 are)", (long long)prec);
    /* the reference runs the softmax in Q's type unless softmax_precision says otherwise */
    DType half = attention_half_type(n);
    g[ATT_ROUND] = half;
    g[ATT_SOFTMAX] = attr_get(n, "softmax_precision") ? prec : half ? half : DT_FLOAT;
    s->softcap = round_half(half, attr_float(n, "softcap", 0.0f));
    if (s->softcap < 0.0f || isnan(s->softcap))
        fatal_at(n, "softcap must be 0 (none) or positive");
    /* As the reference: scale (default 1/sqrt(head size)) in double, its square root rounded
     * once to float; Q and K are each multiplied by it. */
    const Attr *scale = attr_get(n, "scale");
    double sc = scale ? (double)scale->f : 1.0 / sqrt((double)g[ATT_D]);
    s->sqrt_scale = round_half(half, (float)sqrt(sc));
}

static AttnShape attention_shape(const Node *n)
{
    AttnShape s = {0};
    attention_layout(n, &s);
    attention_cache(n, &s);
    attention_mask(n, &s);
    attention_attrs(n, &s);
    return s;
}

void attention_infer(Node *n)
{
    attention_check_types(n);
    if (is_half_type(n->inputs[IN_Q]->dtype))
        remember_half(n);
    if (half_infer(n, attention_infer))
        return;
    AttnShape s = attention_shape(n);
    const int64_t *g = s.geo, S = g[ATT_P] + g[ATT_SNEW];
    int64_t y3[3] = {g[ATT_B], g[ATT_L], checked_mul(n, g[ATT_HQ], g[ATT_DV])};
    int64_t y4[4] = {g[ATT_B], g[ATT_HQ], g[ATT_L], g[ATT_DV]};
    int64_t pk[4] = {g[ATT_B], g[ATT_HKV], S, g[ATT_D]};
    int64_t pv[4] = {g[ATT_B], g[ATT_HKV], S, g[ATT_DV]};
    int64_t qk[4] = {g[ATT_B], g[ATT_HQ], g[ATT_L], S};
    const int64_t *dims[4] = {s.rank == 3 ? y3 : y4, pk, pv, qk};
    for (int i = 0; i < n->noutputs && i < 4; i++)
        set_shape(n->outputs[i], DT_FLOAT, i == OUT_Y ? s.rank : 4, dims[i]);
    if (n->noutputs > 4)
        fatal_at(n, "has %d outputs, Attention has at most 4", n->noutputs);
}

static int64_t attention_scratch_floats(const AttnShape *s)
{
    return s->geo[ATT_D] + s->geo[ATT_P] + s->geo[ATT_SNEW];
}

/* Input i as float32 (16-bit data converted), NULL when omitted. */
static void *float_data(const Node *n, int i)
{
    const Value *v = node_input(n, i);
    if (!v || !is_half_type(v->dtype))
        return v ? v->data : NULL;
    float *f = xcalloc((size_t)value_numel(v) + 1, sizeof(float));
    cast_half(value_numel(v), (int)v->dtype, v->data, DT_FLOAT, f);
    return f;
}

void attention_fold(Node *n)
{
    AttnShape s = attention_shape(n);
    float *scratch = xcalloc((size_t)attention_scratch_floats(&s) + 1, sizeof(float));
    float *out[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < n->noutputs && i < 4; i++)
        out[i] = xcalloc((size_t)value_numel(n->outputs[i]) + 1, sizeof(float));
    attention_f32(s.geo, s.sqrt_scale, s.softcap, float_data(n, IN_Q), float_data(n, IN_K),
                  float_data(n, IN_V), float_data(n, IN_PAST_K), float_data(n, IN_PAST_V),
                  float_data(n, IN_MASK), float_data(n, IN_NONPAD), out[OUT_Y], out[OUT_PRESENT_K],
                  out[OUT_PRESENT_V], out[OUT_QK], scratch);
    for (int i = 0; i < n->noutputs && i < 4; i++) {
        Value *y = n->outputs[i];
        if (is_half_type(y->dtype))
            cast_half(value_numel(y), DT_FLOAT, out[i], (int)y->dtype, y->data);
        else
            memcpy(y->data, out[i], (size_t)value_bytes(y));
    }
}

static const char *in_name(Emitter *e, const Node *n, int i)
{
    Value *v = node_input(n, i);
    return v ? value_cname(e, v) : "NULL";
}

/* Optional outputs nobody reads are not computed. */
static const char *out_name(Emitter *e, const Node *n, int i)
{
    Value *v = i < n->noutputs ? n->outputs[i] : NULL;
    return v && value_is_used(v) ? value_cname(e, v) : "NULL";
}

void attention_emit(Emitter *e, Node *n)
{
    AttnShape s = attention_shape(n);
    const char *geo = emit_dims(e, ATT_NGEO, s.geo);
    const char *q = in_name(e, n, IN_Q), *k = in_name(e, n, IN_K), *v = in_name(e, n, IN_V);
    const char *pk = in_name(e, n, IN_PAST_K), *pv = in_name(e, n, IN_PAST_V);
    const char *mask = in_name(e, n, IN_MASK), *nonpad = in_name(e, n, IN_NONPAD);
    println(e, "attention_f32(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s);", geo,
            c_float(s.sqrt_scale), c_float(s.softcap), q, k, v, pk, pv, mask, nonpad,
            value_cname(e, n->outputs[OUT_Y]), out_name(e, n, OUT_PRESENT_K),
            out_name(e, n, OUT_PRESENT_V), out_name(e, n, OUT_QK),
            scratch_cname(e, n, DT_FLOAT, 0));
}

double attention_flops(const Node *n)
{
    AttnShape s = attention_shape(n);
    const int64_t *g = s.geo;
    double rows = (double)g[ATT_B] * (double)g[ATT_HQ] * (double)g[ATT_L];
    return 2.0 * rows * (double)(g[ATT_P] + g[ATT_SNEW]) * (double)(g[ATT_D] + g[ATT_DV]);
}

int64_t attention_scratch(const Node *n)
{
    AttnShape s = attention_shape(n);
    return checked_mul(n, attention_scratch_floats(&s), (int64_t)sizeof(float));
}
