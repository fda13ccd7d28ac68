#!/bin/sh
# The compiler keeps no mutable state outside its Compiler (compiler/onnx2c.h): no variable at
# file scope and no static local in compiler/, compiler/ops/ or codegen/ other than `cc`, the pointer to the
# current compilation. Such state would survive compiler_end and make the next compilation in
# the same process differ (the fuzz target, test_repeat). Constant tables are fine.
#   check_no_globals.sh SOURCE_DIR
set -eu
cd "$1"
# declarations at file scope, static locals, and static variables of a struct type defined in
# place; a `static const` with an initializer is a constant table (a `static const T *p;` is not)
found=$(grep -nE '^[A-Za-z_][^(]*(=|;)|^[[:space:]]+static [^(]*(=|;)|^[[:space:]]*static (struct|union) ' \
    compiler/*.c compiler/ops/*.c codegen/*.c |
    grep -vE ':[0-9]+:(typedef|extern|enum|union [A-Za-z_]+ \{|struct [A-Za-z_]+ \{)' |
    grep -vE ':[0-9]+:[[:space:]]*static const [^;]*(=|\{ *$)' |
    grep -vE '^compiler/util\.c:[0-9]+:Compiler \*cc;$' || true)
if [ -n "$found" ]; then
    echo "mutable state outside the Compiler (move it into struct Compiler, compiler/onnx2c.h):"
    echo "$found"
    exit 1
fi
echo "ok: no mutable file-scope or static local variables in compiler/ and codegen/"
