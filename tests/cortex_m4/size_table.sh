#!/bin/sh
# The Cortex-M4 sizes of the microcontroller examples next to onnx2c --report's figures: builds
# examples/digits and examples/kws as CTest does (tests/cortex_m4/run_example.sh: portable
# backend, arm-none-eabi-gcc -O2 -mcpu=cortex-m4 -mfpu=fpv4-sp-d16, newlib; run under qemu
# when installed) and prints one row per example:
#   --report:  weights, code estimate and flash (weights + code), arena, RAM (arena + inputs +
#              outputs)
#   model:     .text/.data/.bss of the model's own objects (NAME.o and NAME_weights.o;
#              .text holds the weights, .rodata being linked into .text)
#   firmware:  .text/.data/.bss of the whole ELF (main.c, start-up code, newlib's printf and
#              semihosting, libm)
#   size_table.sh [ONNX2C [WORK_DIR [PYTHON]]]   (defaults: build/onnx2c, build/size_table, .venv)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
onnx2c=${1:-$src/build/onnx2c} work=${2:-$src/build/size_table} py=${3:-$src/.venv/bin/python}
mkdir -p "$work"
sh "$src/tests/cortex_m4/run_example.sh" "$onnx2c" "$src/examples/digits" "$work/digits" "$py" \
    digits --weights >"$work/digits.log" 2>&1 || { cat "$work/digits.log"; exit 1; }
sh "$src/tests/cortex_m4/run_example.sh" "$onnx2c" "$src/examples/kws" "$work/kws" "$py" \
    kws >"$work/kws.log" 2>&1 || { cat "$work/kws.log"; exit 1; }

printf '%-8s | %-38s | %-24s | %s\n' "" "onnx2c --report (bytes)" "model objects (bytes)" \
    "whole firmware ELF (bytes)"
printf '%-8s | %7s %6s %7s %7s %7s | %7s %6s %7s | %7s %6s %7s\n' example weights code \
    flash arena RAM .text .data .bss .text .data .bss
for name in digits kws; do
    d=$work/$name
    report=$("$py" -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["weight_bytes"], r["code_bytes_estimate"], r["flash_bytes_estimate"], r["arena_bytes"],
      r["ram_bytes"])' "$d/$name.json")
    objs=$d/m4/$name.o
    [ ! -f "$d/m4/${name}_weights.o" ] || objs="$objs $d/m4/${name}_weights.o"
    # shellcheck disable=SC2086 # $objs is a list of files
    model=$(arm-none-eabi-size $objs | awk 'NR > 1 { t += $1; d += $2; b += $3 } END { print t, d, b }')
    elf=$(arm-none-eabi-size "$d/m4/$name.elf" | awk 'NR == 2 { print $1, $2, $3 }')
    # shellcheck disable=SC2086 # word splitting of the figures is wanted
    printf '%-8s | %7s %6s %7s %7s %7s | %7s %6s %7s | %7s %6s %7s\n' "$name" $report $model $elf
done
echo "(code: --report's estimate from the C text; digits keeps its weights in digits_weights.c and"
echo " its arena in main.c (-Ddigits_NO_STATIC_ARENA), kws has the static arena in kws.o's .bss)"
