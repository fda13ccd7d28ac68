/* vector_width.h — the vector width of the generated code: codegen/emit.c pastes this file
 * ahead of the templates, and the per-layer benchmarks include it, so that they time the kernels
 * as the generated code compiles them. gcc tunes its Intel AVX-512 targets to 256-bit vectors
 * (-mprefer-vector-width=256): the register tiles, sized for 32 zmm registers, then run at half
 * the FMA rate (squeezenet1_1 1.6x slower). The width never changes a bit: no sum is
 * reassociated. -DO2C_KEEP_VECTOR_WIDTH keeps gcc's choice; clang has no such pragma (README
 * "Vector width"). */
#if defined(__GNUC__) && __GNUC__ >= 8 && !defined(__clang__) && defined(__AVX512F__) &&           \
    !defined(O2C_KEEP_VECTOR_WIDTH)
#pragma GCC target("prefer-vector-width=512")
#endif
