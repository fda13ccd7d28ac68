# fuzz_compile: the whole pipeline in process under libFuzzer, ASan and UBSan (fuzz/README.md).
# Included from the top-level CMakeLists.txt (it needs the embedded templates made there).
set(FUZZ_SOURCES ${COMPILER_SOURCES})
list(FILTER FUZZ_SOURCES EXCLUDE REGEX "/compiler/main\\.c$")
add_executable(fuzz_compile ${CMAKE_SOURCE_DIR}/fuzz/fuzz_compile.c ${FUZZ_SOURCES} ${EMBEDDED_C})
set_target_properties(fuzz_compile PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
target_include_directories(fuzz_compile PRIVATE ${CMAKE_SOURCE_DIR}/compiler ${CMAKE_SOURCE_DIR}/codegen)
target_link_libraries(fuzz_compile PRIVATE onnx_proto kernels)
target_compile_definitions(fuzz_compile PRIVATE ONNX2C_VERSION="${PROJECT_VERSION}")
target_link_options(fuzz_compile PRIVATE -fsanitize=fuzzer)

# Smoke: a bounded run over the committed corpus (every seed once, then fresh mutations).
# Findings are written to the build folder, never into the corpus.
set(FUZZ_ARTIFACTS ${CMAKE_BINARY_DIR}/fuzz/artifacts/)
set(FUZZ_NEW ${CMAKE_BINARY_DIR}/fuzz/smoke_corpus)
file(MAKE_DIRECTORY ${FUZZ_ARTIFACTS} ${FUZZ_NEW})
add_test(NAME fuzz_smoke
         COMMAND fuzz_compile -runs=3000 -seed=1 -timeout=30 -rss_limit_mb=2048 -max_len=65536
                 -artifact_prefix=${FUZZ_ARTIFACTS} ${FUZZ_NEW} ${CMAKE_SOURCE_DIR}/fuzz/corpus)
set_tests_properties(fuzz_smoke PROPERTIES LABELS "fuzz;negative" TIMEOUT 600)
