#!/usr/bin/env bash
# Rebuilds fuzz/corpus: every model of the test suite (tests/models, tests/frontend/models,
# examples, the negative catalogue) and of the ONNX backend node tests, minimised by libFuzzer
# to the smallest set that keeps their coverage. Developer-run; the result is committed.
#
#   bash fuzz/make_corpus.sh BUILD_FUZZ BUILD
#     BUILD_FUZZ  a build with -DONNX2C_FUZZ=ON (holds fuzz/fuzz_compile)
#     BUILD       a normal build whose tests made BUILD/tests/negative and BUILD/tests/node_tests
#                 (ctest -R 'negative_models|backend_node_data')
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzz_build=${1:?usage: make_corpus.sh BUILD_FUZZ BUILD}
build=${2:?usage: make_corpus.sh BUILD_FUZZ BUILD}
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
i=0
while IFS= read -r -d '' f; do
    [ "$(stat -c %s "$f")" -le 65536 ] || continue # the fuzzer's -max_len
    cp "$f" "$seeds/seed_$i.onnx"
    i=$((i + 1))
done < <(find tests/models tests/frontend/models examples "$build/tests/negative" "$build/tests/node_tests" \
              -name '*.onnx' -print0 | sort -z)
echo "make_corpus: $i seeds"
rm -rf fuzz/corpus.new
mkdir -p fuzz/corpus.new
nice -n 19 "$fuzz_build/fuzz/fuzz_compile" -merge=1 -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    fuzz/corpus.new "$seeds"
rm -rf fuzz/corpus
mv fuzz/corpus.new fuzz/corpus
echo "make_corpus: $(ls fuzz/corpus | wc -l) files, $(du -sk fuzz/corpus | cut -f1) KB in fuzz/corpus"
