/* Unit test of templates/misc.c with hand-computed values: BitCast, ReverseSequence (both
 * axis orders, clamped lengths), TensorScatter (linear, circular, out-of-range positions),
 * TfIdfVectorizer (skips, unigrams counted once, IDF/TFIDF), TreeEnsemble (modes, set
 * membership, NaN tracking, aggregation), ArrayFeatureExtractor and Binarizer. The template
 * is compiled after kernels.h with extern kernels, so every prototype there is checked. */
#include "../../templates/kernels.h"

#define O2C_KERNEL
#include "../../templates/misc.c"

#include <stdio.h>

#include "check.h"

static void test_bitcast(void)
{
    float f = 1.0f;
    int32_t i = 0;
    bitcast_copy(4, &f, &i);
    check(i == 0x3f800000, "bitcast 1.0f");
}

static void test_reverse_sequence(void)
{
    /* [time 3][batch 2]: batch 0 reverses 3 steps, batch 1 two */
    const int64_t x[6] = {1, 10, 2, 20, 3, 30}, lens[2] = {3, 2};
    int64_t y[6];
    reverse_sequence(3, 2, 1, 1, lens, 8, x, y);
    const int64_t want[6] = {3, 20, 2, 10, 1, 30};
    check(!memcmp(y, want, sizeof want), "reverse_sequence time-major");
    /* [batch 2][time 3]: lengths 1 (no change) and 9 (clamped to 3) */
    const int64_t lens2[2] = {1, 9};
    const int64_t x2[6] = {1, 2, 3, 4, 5, 6}, want2[6] = {1, 2, 3, 6, 5, 4};
    reverse_sequence(2, 3, 1, 0, lens2, 8, x2, y);
    check(!memcmp(y, want2, sizeof want2), "reverse_sequence batch-major, clamped");
}

static void test_tensor_scatter(void)
{
    /* past [2][4][1], update [2][2][1] at 1 (batch 0) and 3 (batch 1) */
    const float past[8] = {0, 0, 0, 0, 0, 0, 0, 0}, upd[4] = {1, 2, 3, 4};
    const int64_t idx[2] = {1, 3};
    float y[8];
    tensor_scatter(2, 1, 4, 2, 1, 0, idx, 4, past, upd, y);
    const float lin[8] = {0, 1, 2, 0, 0, 0, 0, 3}; /* position 4 of batch 1 is skipped */
    check(!memcmp(y, lin, sizeof lin), "tensor_scatter linear");
    tensor_scatter(2, 1, 4, 2, 1, 1, idx, 4, past, upd, y);
    const float circ[8] = {0, 1, 2, 0, 4, 0, 0, 3};
    check(!memcmp(y, circ, sizeof circ), "tensor_scatter circular");
    tensor_scatter(2, 1, 4, 2, 1, 0, NULL, 4, past, upd, y);
    const float start0[8] = {1, 2, 0, 0, 3, 4, 0, 0};
    check(!memcmp(y, start0, sizeof start0), "tensor_scatter without indices");
}

static void test_tfidf(void)
{
    /* grams: unigram 2 -> col 0, bigram (2,3) -> col 1; tokens 2 3 2 9 3 */
    const int32_t x[5] = {2, 3, 2, 9, 3};
    const int64_t len[2] = {1, 2}, off[2] = {0, 1}, col[2] = {0, 1}, pool[3] = {2, 2, 3};
    float y[2];
    tfidf_vectorize(1, 5, x, 1, 2, len, off, col, pool, 1, 2, 0, 0, NULL, 2, y);
    check(y[0] == 2.0f && y[1] == 1.0f, "tfidf TF, no skip");
    /* skip 1 adds the bigram 2 _ 3 at positions 2, 4; unigrams are not counted again */
    tfidf_vectorize(1, 5, x, 1, 2, len, off, col, pool, 1, 2, 1, 0, NULL, 2, y);
    check(y[0] == 2.0f && y[1] == 2.0f, "tfidf TF, skip 1");
    const float w[2] = {0.5f, 3.0f};
    tfidf_vectorize(1, 5, x, 1, 2, len, off, col, pool, 1, 2, 0, 1, w, 2, y);
    check(y[0] == 0.5f && y[1] == 3.0f, "tfidf IDF");
    tfidf_vectorize(1, 5, x, 1, 2, len, off, col, pool, 1, 2, 0, 2, w, 2, y);
    check(y[0] == 1.0f && y[1] == 3.0f, "tfidf TFIDF");
}

static void test_tree_ensemble(void)
{
    /* node 0: x0 <= 1 ? node 1 : leaf 2;  node 1: x1 in {5, 7} ? leaf 0 : leaf 1 (NaN true) */
    const int64_t nodes[18] = {0, 0, 1, 2, 0, 1, 0, 0, 0, 1, 6, 0, 1, 1, 1, 1, 0, 2};
    const float splits[2] = {1, 0}, members[3] = {5, 7, NAN}, weight[3] = {10, 20, 30};
    const int64_t roots[2] = {0, 0}, target[3] = {0, 0, 1};
    const uint8_t root_leaf[2] = {0, 0};
    const float x[6] = {0, 7, 0, 6, 2, NAN};
    float y[6];
    tree_ensemble(3, 2, x, 2, roots, root_leaf, nodes, splits, members, target, weight, 1, 2, y);
    const float sum[6] = {20, 0, 40, 0, 0, 60};
    check(!memcmp(y, sum, sizeof sum), "tree_ensemble sum over two trees");
    tree_ensemble(3, 2, x, 2, roots, root_leaf, nodes, splits, members, target, weight, 0, 2, y);
    check(y[0] == 10 && y[2] == 20 && y[5] == 30, "tree_ensemble average");
    tree_ensemble(1, 2, x, 2, roots, root_leaf, nodes, splits, members, target, weight, 2, 2, y);
    check(y[0] == 10 && y[1] == FLT_MAX, "tree_ensemble min, untouched target");
}

/* The same trees on doubles; a feature 1 + 1e-12 is not <= 1 (it would be in float). */
static void test_tree_ensemble_f64(void)
{
    const int64_t nodes[18] = {0, 0, 1, 2, 0, 1, 0, 0, 0, 1, 6, 0, 1, 1, 1, 1, 0, 2};
    const double splits[2] = {1, 0}, members[3] = {5, 7, NAN}, weight[3] = {0.1, 0.2, 0.3};
    const int64_t roots[2] = {0, 0}, target[3] = {0, 0, 1};
    const uint8_t root_leaf[2] = {0, 0};
    const double x[6] = {0, 7, 0, 6, 1 + 1e-12, 5};
    double y[6];
    tree_ensemble_f64(3, 2, x, 2, roots, root_leaf, nodes, splits, members, target, weight, 1, 2,
                      y);
    check(y[0] == 0.1 + 0.1 && y[1] == 0 && y[2] == 0.2 + 0.2 && y[3] == 0 && y[4] == 0 &&
              y[5] == 0.3 + 0.3,
          "tree_ensemble_f64 sum, double threshold");
    tree_ensemble_f64(3, 2, x, 2, roots, root_leaf, nodes, splits, members, target, weight, 0, 2,
                      y);
    check(y[0] == 0.1 / 2 + 0.1 / 2 && y[5] == 0.3 / 2 + 0.3 / 2, "tree_ensemble_f64 average");
    tree_ensemble_f64(1, 2, x, 2, roots, root_leaf, nodes, splits, members, target, weight, 3, 2,
                      y);
    check(y[0] == 0.1 && y[1] == -DBL_MAX, "tree_ensemble_f64 max, untouched target");
}

static void test_ml_misc(void)
{
    const float x[6] = {1, 2, 3, 4, 5, 6};
    const int64_t idx[3] = {2, 0, 7};
    float y[6];
    array_feature_extract(2, 3, 3, idx, 4, x, y);
    const float want[6] = {3, 1, 0, 6, 4, 0};
    check(!memcmp(y, want, sizeof want), "array_feature_extract");
    const float b[4] = {0.5f, 1.0f, 1.5f, NAN};
    binarizer_f32(4, 1.0f, b, y);
    check(y[0] == 0 && y[1] == 0 && y[2] == 1 && y[3] == 0, "binarizer");
}

int main(void)
{
    test_bitcast();
    test_reverse_sequence();
    test_tensor_scatter();
    test_tfidf();
    test_tree_ensemble();
    test_tree_ensemble_f64();
    test_ml_misc();
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed != 0;
}
