/* misc.c — the control family's kernels: BitCast, ReverseSequence, TensorScatter,
 * TfIdfVectorizer (integer n-grams) and the ai.onnx.ml numeric ops TreeEnsemble,
 * ArrayFeatureExtractor and Binarizer.
 *
 * Ops that only move elements take the element size in bytes and copy bytes, so one kernel
 * serves every element type. Index inputs (sequence lengths, write positions, feature
 * indices) may arrive at run time; out-of-range values are clamped or skipped, never read
 * or written out of bounds.
 *
 * Part of the templates: the compiler pastes this text into the generated C file and also
 * links it to fold constants. It includes only standard headers and defines every function
 * with O2C_KERNEL, which the includer sets (generated code: static; compiler: empty).
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef O2C_KERNEL
#define O2C_KERNEL static
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* BitCast: y holds x's bytes, reinterpreted as another type of the same size. */
O2C_KERNEL void bitcast_copy(int64_t nbytes, const void *x, void *y)
{
    memcpy(y, x, (size_t)nbytes);
}

/* ReverseSequence on x viewed as [d0][d1][inner] elements of `esize` bytes: batch b (axis
 * `batch_axis`, 0 or 1; time is the other one) has its first lens[b] time steps reversed,
 * the rest copied. lens[b] is clamped to [0, time length]. */
O2C_KERNEL void reverse_sequence(int64_t d0, int64_t d1, int64_t inner, int batch_axis,
                                 const int64_t *lens, int64_t esize, const void *x, void *y)
{
    const unsigned char *src = x;
    unsigned char *dst = y;
    int64_t steps = batch_axis ? d0 : d1;
    for (int64_t i0 = 0; i0 < d0; i0++) {
        for (int64_t i1 = 0; i1 < d1; i1++) {
            int64_t b = batch_axis ? i1 : i0, t = batch_axis ? i0 : i1, len = lens[b];
            len = len < 0 ? 0 : len > steps ? steps : len;
            int64_t st = t < len ? len - 1 - t : t;
            int64_t j0 = batch_axis ? st : i0, j1 = batch_axis ? i1 : st;
            memcpy(dst + (size_t)((i0 * d1 + i1) * inner) * esize,
                   src + (size_t)((j0 * d1 + j1) * inner) * esize, (size_t)inner * esize);
        }
    }
}

/* TensorScatter: y = past [batch][mid][len][inner] with update [batch][mid][ulen][inner]
 * written at time steps idx[b] .. idx[b]+ulen-1 (modulo len when circular; positions outside
 * [0, len) are skipped). idx NULL means 0 for every batch. */
O2C_KERNEL void tensor_scatter(int64_t batch, int64_t mid, int64_t len, int64_t ulen, int64_t inner,
                               int circular, const int64_t *idx, int64_t esize, const void *past,
                               const void *update, void *y)
{
    const unsigned char *u = update;
    unsigned char *dst = y;
    size_t row = (size_t)inner * esize;
    if (y != past)
        memcpy(y, past, (size_t)(batch * mid * len) * row);
    for (int64_t b = 0; b < batch; b++) {
        int64_t start = idx ? idx[b] : 0;
        for (int64_t m = 0; m < mid; m++) {
            for (int64_t s = 0; s < ulen; s++) {
                int64_t p = start + s;
                if (circular && len > 0)
                    p = ((p % len) + len) % len;
                if (p < 0 || p >= len)
                    continue;
                memcpy(dst + (size_t)((b * mid + m) * len + p) * row,
                       u + (size_t)((b * mid + m) * ulen + s) * row, row);
            }
        }
    }
}

/* TfIdfVectorizer over integer tokens x [rows][cols] (int32 when x_i32, else int64).
 * The n-grams: gram g has gram_len[g] tokens at pool[gram_off[g]..] and counts into output
 * column gram_col[g]. Like onnxruntime: for each skip distance d = 1..max_skip+1 and each
 * start position, the tokens start, start+d, ... are matched against every n-gram of length
 * min_len..max_len; unigrams are counted at d = 1 only. mode 0 TF (counts), 1 IDF (weight,
 * or 1, where the count is non-zero), 2 TFIDF (count times weight); weights NULL means 1. */
O2C_KERNEL void tfidf_vectorize(int64_t rows, int64_t cols, const void *x, int x_i32,
                                int64_t ngrams, const int64_t *gram_len, const int64_t *gram_off,
                                const int64_t *gram_col, const int64_t *pool, int64_t min_len,
                                int64_t max_len, int64_t max_skip, int mode, const float *weights,
                                int64_t out_cols, float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        float *yr = y + r * out_cols;
        for (int64_t c = 0; c < out_cols; c++)
            yr[c] = 0.0f;
        int64_t start_len = min_len;
        for (int64_t d = 1; d <= max_skip + 1; d++) {
            for (int64_t s = 0; s < cols; s++) {
                for (int64_t g = 0; g < ngrams; g++) {
                    int64_t n = gram_len[g];
                    if (n < start_len || n > max_len || s + (n - 1) * d >= cols)
                        continue;
                    int64_t k = 0;
                    for (; k < n; k++) {
                        int64_t pos = r * cols + s + k * d;
                        int64_t tok = x_i32 ? ((const int32_t *)x)[pos] : ((const int64_t *)x)[pos];
                        if (tok != pool[gram_off[g] + k])
                            break;
                    }
                    if (k == n)
                        yr[gram_col[g]] += 1.0f;
                }
            }
            if (start_len == 1)
                start_len = 2;
            if (start_len > max_len)
                break;
        }
        for (int64_t c = 0; c < out_cols; c++) {
            float w = weights ? weights[c] : 1.0f;
            if (mode == 1)
                yr[c] = yr[c] > 0.0f ? w : 0.0f;
            else if (mode == 2)
                yr[c] = weights ? w * yr[c] : yr[c];
        }
    }
}

/* The leaf a TreeEnsemble tree gives row xr, from node `id` (already a leaf when `leaf`);
 * node layout as for tree_ensemble below. */
#define O2C_TREE_LEAF(SUF, T)                                                                      \
    O2C_KERNEL int64_t tree_leaf_##SUF(const T *xr, int64_t id, int leaf, const int64_t *nodes,    \
                                       const T *splits, const T *members)                          \
    {                                                                                              \
        while (!leaf) {                                                                            \
            const int64_t *nd = nodes + 9 * id;                                                    \
            T v = xr[nd[0]], s = splits[id];                                                       \
            int go;                                                                                \
            switch (nd[1]) {                                                                       \
            case 0: go = v <= s; break;                                                            \
            case 1: go = v < s; break;                                                             \
            case 2: go = v >= s; break;                                                            \
            case 3: go = v > s; break;                                                             \
            case 4: go = v == s; break;                                                            \
            case 5: go = v != s; break;                                                            \
            default:                                                                               \
                go = 0;                                                                            \
                for (int64_t k = 0; k < nd[8]; k++)                                                \
                    go |= v == members[nd[7] + k];                                                 \
                break;                                                                             \
            }                                                                                      \
            go |= nd[6] && isnan(v);                                                               \
            id = go ? nd[2] : nd[3];                                                               \
            leaf = (int)(go ? nd[4] : nd[5]);                                                      \
        }                                                                                          \
        return id;                                                                                 \
    }
O2C_TREE_LEAF(f32, float)
O2C_TREE_LEAF(f64, double)

/* TreeEnsemble (ai.onnx.ml) on x [rows][features]. Node i: nodes[9*i + 0..8] = feature,
 * mode (0 <=, 1 <, 2 >=, 3 >, 4 ==, 5 !=, 6 member of members[off .. off+count)), true
 * child, false child, true child is a leaf, false child is a leaf, NaN goes true, member
 * offset, member count; splits[i] its threshold. roots[t] is tree t's root node, or its leaf
 * when root_leaf[t]. Leaf l adds weight[l] to output column target[l] of y [rows][targets],
 * aggregated by agg: 0 average, 1 sum, 2 min (from FLT_MAX), 3 max (from -FLT_MAX; each step
 * rounded to float from double, as the reference computes). */
O2C_KERNEL void tree_ensemble(int64_t rows, int64_t features, const float *x, int64_t ntrees,
                              const int64_t *roots, const uint8_t *root_leaf, const int64_t *nodes,
                              const float *splits, const float *members, const int64_t *target,
                              const float *weight, int agg, int64_t targets, float *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * features;
        float *yr = y + r * targets;
        for (int64_t c = 0; c < targets; c++)
            yr[c] = agg == 2 ? FLT_MAX : agg == 3 ? -FLT_MAX : 0.0f;
        for (int64_t t = 0; t < ntrees; t++) {
            int64_t id = tree_leaf_f32(xr, roots[t], root_leaf[t], nodes, splits, members);
            double w = weight[id];
            float *o = yr + target[id];
            if (agg == 0)
                *o = (float)((double)*o + w / (double)ntrees);
            else if (agg == 1)
                *o = (float)((double)*o + w);
            else if (agg == 2)
                *o = (double)*o < w ? *o : (float)w;
            else
                *o = (double)*o > w ? *o : (float)w;
        }
    }
}

/* TreeEnsemble on double x: as tree_ensemble, with double splits, members, weights and y,
 * accumulated in double (min from DBL_MAX, max from -DBL_MAX). */
O2C_KERNEL void tree_ensemble_f64(int64_t rows, int64_t features, const double *x, int64_t ntrees,
                                  const int64_t *roots, const uint8_t *root_leaf,
                                  const int64_t *nodes, const double *splits, const double *members,
                                  const int64_t *target, const double *weight, int agg,
                                  int64_t targets, double *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const double *xr = x + r * features;
        double *yr = y + r * targets;
        for (int64_t c = 0; c < targets; c++)
            yr[c] = agg == 2 ? DBL_MAX : agg == 3 ? -DBL_MAX : 0.0;
        for (int64_t t = 0; t < ntrees; t++) {
            int64_t id = tree_leaf_f64(xr, roots[t], root_leaf[t], nodes, splits, members);
            double w = weight[id], *o = yr + target[id];
            if (agg == 0)
                *o = *o + w / (double)ntrees;
            else if (agg == 1)
                *o = *o + w;
            else if (agg == 2)
                *o = *o < w ? *o : w;
            else
                *o = *o > w ? *o : w;
        }
    }
}

/* ArrayFeatureExtractor: y [outer][k] = x [outer][n] at columns idx[0..k); an index out of
 * [0, n) gives zero bytes. */
O2C_KERNEL void array_feature_extract(int64_t outer, int64_t n, int64_t k, const int64_t *idx,
                                      int64_t esize, const void *x, void *y)
{
    const unsigned char *src = x;
    unsigned char *dst = y;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < k; j++) {
            unsigned char *d = dst + (size_t)(o * k + j) * esize;
            if (idx[j] < 0 || idx[j] >= n)
                memset(d, 0, (size_t)esize);
            else
                memcpy(d, src + (size_t)((o * n + idx[j]) * esize), (size_t)esize);
        }
}

/* Binarizer (ai.onnx.ml): 1 where x > threshold, else 0 (NaN gives 0). */
O2C_KERNEL void binarizer_f32(int64_t n, float threshold, const float *x, float *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] > threshold ? 1.0f : 0.0f;
}

O2C_KERNEL void binarizer_f64(int64_t n, double threshold, const double *x, double *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] > threshold ? 1.0 : 0.0;
}
