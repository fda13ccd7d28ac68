// classify.cpp — the same model from C++: the generated header declares its API extern "C".
// This one brings its own arena (mlp_run_arena), as a program with several models or threads
// would.   classify_cpp input.f32 output.f32
#include <cstdio>
#include <vector>

#include "mlp.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: classify_cpp input.f32 output.f32\n");
        return 2;
    }
    static float input[1][mlp_INPUT_0_ELEMENTS], scores[1][mlp_OUTPUT_0_ELEMENTS];
    std::FILE *in = std::fopen(argv[1], "rb");
    if (!in || std::fread(input, 1, sizeof input, in) != sizeof input) {
        std::fprintf(stderr, "classify_cpp: cannot read %s\n", argv[1]);
        return 2;
    }
    std::fclose(in);
    // An arena of mlp_ARENA_BYTES, aligned to mlp_ARENA_ALIGN (double's alignment suffices).
    std::vector<double> arena(mlp_ARENA_BYTES / sizeof(double) + 1);
    if (mlp_run_arena(arena.data(), input, scores) != 0) {
        std::fprintf(stderr, "classify_cpp: the model failed to run\n");
        return 1;
    }
    std::FILE *out = std::fopen(argv[2], "wb");
    if (!out || std::fwrite(scores, 1, sizeof scores, out) != sizeof scores || std::fclose(out)) {
        std::fprintf(stderr, "classify_cpp: cannot write %s\n", argv[2]);
        return 2;
    }
    int best = 0;
    for (int i = 1; i < mlp_OUTPUT_0_ELEMENTS; i++)
        if (scores[0][i] > scores[0][best])
            best = i;
    std::printf("class %d\n", best);
    return 0;
}
