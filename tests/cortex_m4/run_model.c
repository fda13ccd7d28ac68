/* run_model.c — runs one generated model on a Cortex-M4 under semihosting: reads in<i>.bin
 * (the raw little-endian bytes of each input, in graph order) from the host's working folder,
 * runs the model, writes out<i>.bin. Built with -DMODEL=name -DMODEL_C='"name.c"': the
 * generated file is included, so this is one translation unit. */
#include <stdio.h>

#include MODEL_C

#define O2C_CAT2(a, b) a##b
#define O2C_CAT(a, b) O2C_CAT2(a, b)
#define M(x) O2C_CAT(MODEL, x)

/* Bytes of one element of an ONNX TensorProto data type (onnx2c's in-memory layout). */
static size_t element_bytes(int32_t t)
{
    switch (t) {
    case 2: case 3: case 9: case 17: case 18: case 19: case 20: case 21: case 22: case 23:
    case 24: case 25: case 26:
        return 1;
    case 4: case 5: case 10: case 16:
        return 2;
    case 7: case 11: case 13:
        return 8;
    default:
        return 4;
    }
}

static size_t tensor_bytes(int32_t dtype, int32_t rank, const int64_t *shape)
{
    size_t n = 1;
    for (int32_t d = 0; d < rank; d++)
        n *= (size_t)shape[d];
    return n * element_bytes(dtype);
}

static int transfer(const char *mode, int i, void *buf, size_t bytes)
{
    char name[32];
    snprintf(name, sizeof name, "%s%d.bin", mode[0] == 'r' ? "in" : "out", i);
    FILE *f = fopen(name, mode[0] == 'r' ? "rb" : "wb");
    if (!f) {
        printf("run_model: cannot open %s\n", name);
        return 1;
    }
    size_t done = mode[0] == 'r' ? fread(buf, 1, bytes, f) : fwrite(buf, 1, bytes, f);
    fclose(f);
    if (done != bytes) {
        printf("run_model: %s: %u of %u bytes\n", name, (unsigned)done, (unsigned)bytes);
        return 1;
    }
    return 0;
}

static double slots[(1u << 20) / sizeof(double)]; /* 1 MiB for the inputs and outputs */

int main(void)
{
    const void *inputs[M(_NUM_INPUTS) + 1];
    void *outputs[M(_NUM_OUTPUTS) + 1];
    unsigned char *next = (unsigned char *)slots, *end = next + sizeof slots;
    for (int i = 0; i < M(_NUM_INPUTS); i++) {
        size_t b = tensor_bytes(M(_input_dtypes)[i], M(_input_ranks)[i], M(_input_shapes)[i]);
        if (b > (size_t)(end - next) || transfer("r", i, next, b))
            return 2;
        inputs[i] = next;
        next += (b + 7) / 8 * 8;
    }
    for (int i = 0; i < M(_NUM_OUTPUTS); i++) {
        size_t b = tensor_bytes(M(_output_dtypes)[i], M(_output_ranks)[i], M(_output_shapes)[i]);
        if (b > (size_t)(end - next))
            return 2;
        outputs[i] = next;
        next += (b + 7) / 8 * 8;
    }
    if (M(_run_generic)(inputs, outputs) != 0)
        return 1;
    for (int i = 0; i < M(_NUM_OUTPUTS); i++) {
        size_t b = tensor_bytes(M(_output_dtypes)[i], M(_output_ranks)[i], M(_output_shapes)[i]);
        if (transfer("w", i, outputs[i], b))
            return 2;
    }
    return 0;
}
