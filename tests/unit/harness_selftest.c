/* harness_selftest.c - a hand-written stand-in for a generated model, to test runtime_min's
 * harness end to end (harness_selftest.sh builds and drives it). It is laid out as onnx2c lays
 * out a --harness file: _POSIX_C_SOURCE first, the model and its O2C_MODEL_* macros, then the
 * text of tensor_pb.c and harness.c.
 *
 * Default model, inputs x float [2,3], y int64 [3], h float16 [4]; outputs
 *   0 sum      float [2,3]  x[i][j] + (float)y[j]
 *   1 y_copy   int64 [3]    y
 *   2 positive bool  [2,3]  x[i][j] > 0
 *   3 h_copy   float16 [4]  h (bits)
 * With -DSELFTEST_NO_INPUTS: no inputs, one output, konst int32 [2] = {7, -7}.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <string.h>

#ifndef SELFTEST_NO_INPUTS

#define SELFTEST_NUM_INPUTS  3
#define SELFTEST_NUM_OUTPUTS 4
static const char *const selftest_input_names[3] = {"x", "y", "h"};
static const int32_t selftest_input_dtypes[3] = {1, 7, 10};
static const int32_t selftest_input_ranks[3] = {2, 1, 1};
static const int64_t selftest_input_shape_0[2] = {2, 3};
static const int64_t selftest_input_shape_1[1] = {3};
static const int64_t selftest_input_shape_2[1] = {4};
static const int64_t *const selftest_input_shapes[3] = {
    selftest_input_shape_0, selftest_input_shape_1, selftest_input_shape_2};
static const char *const selftest_output_names[4] = {"sum", "y_copy", "positive", "h_copy"};
static const int32_t selftest_output_dtypes[4] = {1, 7, 9, 10};
static const int32_t selftest_output_ranks[4] = {2, 1, 2, 1};
static const int64_t *const selftest_output_shapes[4] = {
    selftest_input_shape_0, selftest_input_shape_1, selftest_input_shape_0, selftest_input_shape_2};

static int selftest_run_generic(const void *const inputs[], void *const outputs[])
{
    const float *x = (const float *)inputs[0];
    const int64_t *y = (const int64_t *)inputs[1];
    float *sum = (float *)outputs[0];
    uint8_t *positive = (uint8_t *)outputs[2];
    int i, j;
    for (i = 0; i < 2; i++) {
        for (j = 0; j < 3; j++) {
            sum[i * 3 + j] = x[i * 3 + j] + (float)y[j];
            positive[i * 3 + j] = x[i * 3 + j] > 0;
        }
    }
    memcpy(outputs[1], y, 3 * sizeof *y);
    memcpy(outputs[3], inputs[2], 4 * sizeof(uint16_t));
    return 0;
}

#else

#define SELFTEST_NUM_INPUTS  0
#define SELFTEST_NUM_OUTPUTS 1
/* As onnx2c emits them for a model without inputs: one-element dummies. */
static const char *const selftest_input_names[1] = {0};
static const int32_t selftest_input_dtypes[1] = {0};
static const int32_t selftest_input_ranks[1] = {0};
static const int64_t *const selftest_input_shapes[1] = {0};
static const int64_t selftest_output_shape_0[1] = {2};
static const char *const selftest_output_names[1] = {"konst"};
static const int32_t selftest_output_dtypes[1] = {6};
static const int32_t selftest_output_ranks[1] = {1};
static const int64_t *const selftest_output_shapes[1] = {selftest_output_shape_0};

static int selftest_run_generic(const void *const inputs[], void *const outputs[])
{
    int32_t *k = (int32_t *)outputs[0];
    (void)inputs;
    k[0] = 7;
    k[1] = -7;
    return 0;
}

#endif

static int selftest_init(void)
{
    return 0;
}

#define O2C_MODEL_NUM_INPUTS    SELFTEST_NUM_INPUTS
#define O2C_MODEL_NUM_OUTPUTS   SELFTEST_NUM_OUTPUTS
#define O2C_MODEL_INPUT_NAMES   selftest_input_names
#define O2C_MODEL_OUTPUT_NAMES  selftest_output_names
#define O2C_MODEL_INPUT_DTYPES  selftest_input_dtypes
#define O2C_MODEL_OUTPUT_DTYPES selftest_output_dtypes
#define O2C_MODEL_INPUT_RANKS   selftest_input_ranks
#define O2C_MODEL_OUTPUT_RANKS  selftest_output_ranks
#define O2C_MODEL_INPUT_SHAPES  selftest_input_shapes
#define O2C_MODEL_OUTPUT_SHAPES selftest_output_shapes
#define O2C_MODEL_INIT          selftest_init
#define O2C_MODEL_RUN           selftest_run_generic

#include "../../runtime_min/tensor_pb.c"

#include "../../runtime_min/harness.c"
