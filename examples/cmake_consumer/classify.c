/* classify.c — the model in a user's own C program: read mlp_INPUT_0_ELEMENTS raw float32
 * values, run the model with the static arena, write the scores as raw float32 and print the
 * class with the highest score.   classify input.f32 output.f32 */
#include <stdio.h>

#include "mlp.h"

int main(int argc, char **argv)
{
    static float input[1][784], scores[1][10];
    if (argc != 3 || mlp_INPUT_0_BYTES != sizeof input || mlp_OUTPUT_0_BYTES != sizeof scores) {
        fprintf(stderr, "usage: classify input.f32 output.f32\n");
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (!in || fread(input, 1, sizeof input, in) != sizeof input) {
        fprintf(stderr, "classify: cannot read %d floats from %s\n", mlp_INPUT_0_ELEMENTS, argv[1]);
        return 2;
    }
    fclose(in);
    if (mlp_run((const float(*)[784])input, scores) != 0) {
        fprintf(stderr, "classify: the model failed to run\n");
        return 1;
    }
    FILE *out = fopen(argv[2], "wb");
    if (!out || fwrite(scores, 1, sizeof scores, out) != sizeof scores || fclose(out)) {
        fprintf(stderr, "classify: cannot write %s\n", argv[2]);
        return 2;
    }
    int best = 0;
    for (int i = 1; i < mlp_OUTPUT_0_ELEMENTS; i++)
        if (scores[0][i] > scores[0][best])
            best = i;
    printf("class %d (arena %d bytes, weights %d bytes)\n", best, mlp_ARENA_BYTES,
           mlp_WEIGHT_BYTES);
    return 0;
}
