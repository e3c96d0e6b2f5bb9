#!/usr/bin/env bash
# The runtime-only build (-DODT_BUILD_COMPILER=OFF) on a machine without
# LLVM, MLIR, clang, protobuf, ONNX or flatc: a private mount namespace hides
# them (tmpfs over their folders, /dev/null over flatc), so CMake can find
# none of them and the build must use GCC and the pre-generated schema
# headers. Then that odt-run (GCC-built) trains the default model compiled by
# the full build, printing exactly what the full build's odt-run prints.
#
#   runtime_only.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
work=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

inner=$(cat <<'INNER'
set -euo pipefail
src=$1 work=$2 hide=$3
if [ "$hide" = 1 ]; then
  for dir in /usr/lib/llvm-* /usr/include/llvm-* /usr/include/onnx /usr/include/google \
             /usr/lib/x86_64-linux-gnu/cmake/ONNX /usr/lib/x86_64-linux-gnu/cmake/protobuf \
             /usr/lib/x86_64-linux-gnu/cmake/flatbuffers; do
    [ -d "$dir" ] && mount -t tmpfs none "$dir"
  done
  for tool in /usr/bin/flatc /usr/bin/clang /usr/bin/clang++ /usr/bin/clang-22 \
              /usr/bin/clang++-22 /usr/bin/ld.lld /usr/bin/ld.lld-22; do
    [ -e "$tool" ] && mount --bind /dev/null "$tool"
  done
  if [ -e /usr/lib/llvm-22/bin/clang ] || command -v clang-22 > /dev/null ||
     [ -s /usr/bin/flatc ]; then
    echo "FAIL: LLVM or flatc still visible" >&2
    exit 1
  fi
  echo "hidden: /usr/lib/llvm-*, ONNX, protobuf, flatbuffers' CMake package, flatc, clang, lld"
fi
cmake -G Ninja -S "$src" -B "$work/build" -DODT_BUILD_COMPILER=OFF \
      -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; echo "FAIL: configure" >&2; exit 1; }
grep -E "runtime-only|no flatc" "$work/configure.log"
ninja -C "$work/build" > "$work/build.log" 2>&1 ||
  { cat "$work/build.log"; echo "FAIL: build" >&2; exit 1; }
INNER
)

if unshare -m --propagation private true 2> /dev/null; then
  unshare -m --propagation private bash -c "$inner" inner "$src" "$work" 1
else
  echo "NOTE: no private mount namespace here (unshare needs root): LLVM stays" \
       "visible, the runtime-only configuration is still built with GCC"
  bash -c "$inner" inner "$src" "$work" 0
fi
if grep -n "warning:" "$work/build.log"; then
  fail "the GCC build of the runtime has warnings"
fi
echo "built with GCC, no warnings: $(ls "$work/build/lib")"

model="$build/examples/models/default"
data="$build/examples/default"
args=(train "$model" --checkpoint "$data/checkpoint" --input "input=$data/train_input.npy"
      --input "labels=$data/train_labels.npy" --steps 5 --lr 0.01)
"$work/build/bin/odt-run" "${args[@]}" > "$work/gcc.txt"
"$build/bin/odt-run" "${args[@]}" > "$work/full.txt"
cmp "$work/gcc.txt" "$work/full.txt" ||
  { paste "$work/gcc.txt" "$work/full.txt"; fail "the GCC-built odt-run trains differently"; }
cat "$work/gcc.txt"
bash "$src/scripts/runtime-size.sh" --budget 100000 "$work/build/lib/libodt.so.$(head -1 "$src/VERSION")"
echo "PASS"
