/* random.c — ops that draw random numbers. Training-mode Dropout with a seed attribute is
 * deterministic (templates/random.c reproduces the reference's generator), so it compiles;
 * everything else random is refused, since no reference output could be reproduced. */
#include "kernels.h"
#include "ops.h"

#include <string.h>

static float dropout_ratio(const Node *n)
{
    const Value *r = node_input(n, 1);
    if (!r)
        return 0.5f;
    require_constant(n, r, "ratio");
    require_float(n, r);
    if (value_numel(r) != 1)
        fatal_at(n, "ratio must be one value");
    float ratio = *(const float *)r->data;
    if (!(ratio >= 0.0f && ratio <= 1.0f))
        fatal_at(n, "ratio %g is outside [0, 1]", (double)ratio);
    return ratio;
}

static uint32_t dropout_seed(const Node *n)
{
    if (!attr_get(n, "seed"))
        fatal_at(n, "training-mode Dropout without a seed attribute is random; only a seeded "
                    "one (reproducible) is supported");
    int64_t seed = attr_int(n, "seed", 0);
    if (seed < 0 || seed > 0xffffffffLL)
        fatal_at(n, "seed %lld is outside [0, 2^32)", (long long)seed);
    return (uint32_t)seed;
}

static bool dropout_has_mask(const Node *n)
{
    return n->noutputs > 1 && n->outputs[1]->name[0];
}

bool dropout_training(Node *n)
{
    const Value *mode = node_input(n, 2);
    if (!mode)
        return false;
    require_constant(n, mode, "training_mode");
    if (mode->dtype != DT_BOOL || value_numel(mode) != 1)
        fatal_at(n, "training_mode must be one bool");
    if (!*(const uint8_t *)mode->data || dropout_ratio(n) == 0.0f)
        return false; /* the identity, as at inference */
    n->op = op_lookup("Dropout(train)");
    dropout_train_infer(n);
    return true;
}

void dropout_train_infer(Node *n)
{
    require_float(n, n->inputs[0]);
    dropout_seed(n);
    same_shape_infer(n);
    if (dropout_has_mask(n))
        set_shape(n->outputs[1], DT_BOOL, n->inputs[0]->rank, n->inputs[0]->dims);
}

void dropout_train_fold(Node *n)
{
    dropout_f32(value_numel(n->inputs[0]), dropout_seed(n), dropout_ratio(n), n->inputs[0]->data,
                n->outputs[0]->data, dropout_has_mask(n) ? n->outputs[1]->data : NULL);
}

void dropout_train_emit(Emitter *e, Node *n)
{
    println(e, "dropout_f32(%lld, %luu, %s, %s, %s, %s);", (long long)value_numel(n->inputs[0]),
            (unsigned long)dropout_seed(n), c_float(dropout_ratio(n)), value_cname(e, n->inputs[0]),
            value_cname(e, n->outputs[0]),
            dropout_has_mask(n) ? value_cname(e, n->outputs[1]) : "NULL");
}

void bernoulli_infer(Node *n)
{
    /* the backend tests' outputs come from numpy's global generator, not from the op's seed */
    fatal_at(n, "random sampling is not supported (outputs are not reproducible)");
}
