#!/usr/bin/env bash
# Prepares a machine to build and test onnx2c, then builds it. Idempotent: on a prepared
# machine it installs nothing, needs no network and only re-runs the (incremental) build.
#
#   bash scripts/setup.sh            # build into build/
#   ONNX2C_BUILD_DIR=build-dbg bash scripts/setup.sh
#
# 1. Debian packages, only those missing (apt-get; as root, or through sudo when available):
#    cmake make gcc g++ libc6-dev clang pkg-config protobuf-c-compiler libprotobuf-c-dev
#    libxsmm-dev python3 python3-venv gcc-arm-none-eabi libnewlib-arm-none-eabi (the portable
#    output must also build for microcontrollers; tests check it), gcc-aarch64-linux-gnu
#    gcc-arm-linux-gnueabihf libc6-dev-arm64-cross libc6-dev-armhf-cross qemu-user qemu-system-arm
#    (the cross-target bit-exactness tests, the Cortex-M4 run)
# 2. .venv at the repository root with the pinned packages of requirements.txt.
# 3. cmake configure + build into $ONNX2C_BUILD_DIR (default build/).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${ONNX2C_BUILD_DIR:-build}
JOBS=$(nproc 2>/dev/null || echo 2)
log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# ---- 1. system packages -------------------------------------------------------------------
missing=()
have() { command -v "$1" >/dev/null 2>&1; }
need_cmd() { have "$1" || missing+=("$2"); }
need_cmd cmake cmake
need_cmd make make
need_cmd gcc gcc
need_cmd g++ g++
need_cmd clang clang
need_cmd pkg-config pkg-config
need_cmd protoc-c protobuf-c-compiler
need_cmd arm-none-eabi-gcc gcc-arm-none-eabi
[ -e /usr/lib/arm-none-eabi/include/math.h ] || missing+=(libnewlib-arm-none-eabi)
# aarch64 and armhf builds run under qemu-user: the cross-target bit-exactness tests
need_cmd aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
need_cmd arm-linux-gnueabihf-gcc gcc-arm-linux-gnueabihf
need_cmd qemu-aarch64 qemu-user
need_cmd qemu-system-arm qemu-system-arm
# libFuzzer for the fuzz smoke test (clang's runtime libraries)
if have clang && ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' |
        clang -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1; then
    missing+=(libclang-rt-14-dev)
fi
[ -e /usr/aarch64-linux-gnu/lib/libc.a ] || missing+=(libc6-dev-arm64-cross)
[ -e /usr/arm-linux-gnueabihf/lib/libc.a ] || missing+=(libc6-dev-armhf-cross)
[ -e /usr/include/stdio.h ] || missing+=(libc6-dev)
if have pkg-config; then
    pkg-config --exists libprotobuf-c || missing+=(libprotobuf-c-dev)
    pkg-config --exists libxsmm || missing+=(libxsmm-dev)
else
    missing+=(libprotobuf-c-dev libxsmm-dev)
fi
if [ ! -x .venv/bin/python ]; then
    need_cmd python3 python3
    # Debian's python3 ships venv without ensurepip; python3-venv adds it.
    if have python3 && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        missing+=(python3-venv)
    fi
fi

if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    if [ "$(id -u)" = 0 ]; then
        SUDO=()
    elif have sudo; then
        SUDO=(sudo)
    else
        die "missing packages: ${missing[*]} (not root and no sudo: install them and re-run)"
    fi
    have apt-get || die "missing packages: ${missing[*]} (no apt-get: install them and re-run)"
    export DEBIAN_FRONTEND=noninteractive
    "${SUDO[@]}" apt-get update -qq
    "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---- 2. Python venv -----------------------------------------------------------------------
if [ ! -x .venv/bin/python ]; then
    log "creating .venv"
    python3 -m venv .venv
fi
# Pinned requirements already installed? (checked offline, without pip)
if ! .venv/bin/python - requirements.txt <<'EOF'
import sys
from importlib import metadata
ok = True
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, _, want = line.partition("==")
    try:
        have = metadata.version(name.strip())
    except metadata.PackageNotFoundError:
        have = None
    if have != want.strip():
        ok = False
sys.exit(0 if ok else 1)
EOF
then
    log "installing requirements.txt into .venv"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
fi

# ---- 3. configure and build ---------------------------------------------------------------
mkdir -p "$BUILD_DIR"
if ! cmake -S . -B "$BUILD_DIR" -DPython3_EXECUTABLE="$PWD/.venv/bin/python" \
        >"$BUILD_DIR/setup-configure.log" 2>&1; then
    cat "$BUILD_DIR/setup-configure.log" >&2
    die "cmake configure failed (log: $BUILD_DIR/setup-configure.log)"
fi
if ! cmake --build "$BUILD_DIR" -j"$JOBS" >"$BUILD_DIR/setup-build.log" 2>&1; then
    cat "$BUILD_DIR/setup-build.log" >&2
    die "build failed (log: $BUILD_DIR/setup-build.log)"
fi
log "built $BUILD_DIR/onnx2c"
