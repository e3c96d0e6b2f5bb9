#!/usr/bin/env bash
# The installed odt as an application sees it:
#   1. `cmake --install` of odt's build into a fresh prefix;
#   2. examples/ configured as a project of its own against that prefix
#      (find_package(odt), odt_add_model linking the default model into
#      train_default_linked with the static runtime), built and run: the three
#      programs and the build's odt-run print the same losses;
#   3. the C example compiled by hand with `pkg-config --cflags --libs odt`;
#   4. odt_add_model's errors at configure time (a missing artifact folder, a
#      folder without training_model.onnx, an unknown triple);
#   5. the installed tools' --version and libodt.so's exported symbols.
#
#   run_package.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
work=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
artifacts="$build/examples/default"
compiled="$build/examples/models/default"
version=$(head -1 "$src/VERSION")
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

echo "== 1. cmake --install into $work/prefix"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for f in bin/odt-compile bin/odt-run include/odt/odt.h include/odt/odt.hpp \
         lib/libodt.a lib/cmake/odt/odtConfig.cmake lib/cmake/odt/OdtAddModel.cmake \
         lib/pkgconfig/odt.pc share/doc/odt/LICENSE; do
  [ -e "$work/prefix/$f" ] || fail "the install has no $f"
done
ls "$work/prefix"/lib/libodt.so.* > /dev/null || fail "the install has no libodt.so"

echo "== 2. examples/ against the installed package"
cmake -G Ninja -S "$src/examples" -B "$work/examples" \
      -DCMAKE_PREFIX_PATH="$work/prefix" -DODT_EXAMPLES_ARTIFACTS="$artifacts" \
      -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" ||
  { cat "$work/configure.log"; fail "configuring examples/ against the install"; }
ninja -C "$work/examples" > "$work/build.log" ||
  { cat "$work/build.log"; fail "building examples/ against the install"; }
# The programs find libodt.so through the RPATH CMake gives them (the prefix).
mkdir -p "$work/out_c" "$work/out_cpp" "$work/out_linked" "$work/out_pc"
losses() { grep -E '^(step|eval)' | sed 's/ *$//'; }
"$work/examples/train_default" "$compiled" "$artifacts" "$work/out_c" 10 | losses > "$work/c.txt"
"$work/examples/train_default_cpp" "$compiled" "$artifacts" "$work/out_cpp" 10 | losses > "$work/cpp.txt"
"$work/examples/train_default_linked" linked "$artifacts" "$work/out_linked" 10 | losses > "$work/linked.txt"
[ "$(grep -c '^step' "$work/c.txt")" = 10 ] || { cat "$work/c.txt"; fail "train_default printed no 10 steps"; }
cmp "$work/c.txt" "$work/linked.txt" ||
  { paste "$work/c.txt" "$work/linked.txt"; fail "the linked-in model trains differently from libmodel.so"; }
"$build/bin/odt-run" train "$compiled" --checkpoint "$artifacts/checkpoint" \
    --input "input=$artifacts/train_input.npy" --input "labels=$artifacts/train_labels.npy" \
    --steps 10 --lr 0.01 | awk '{print "step", $2, "loss", $4}' > "$work/odt-run.txt"
# The same float32 losses (printed with 9 digits by the examples, the
# shortest exact form by odt-run).
same_losses() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys
import numpy as np
def losses(path):
    return [np.float32(l.split()[3]) for l in open(path) if l.startswith("step")]
a, b = losses(sys.argv[1]), losses(sys.argv[2])
sys.exit(0 if len(a) == 10 and a == b else 1)
PY
}
same_losses "$work/c.txt" "$work/odt-run.txt" ||
  { paste "$work/c.txt" "$work/odt-run.txt"; fail "the installed example and odt-run disagree"; }
same_losses "$work/cpp.txt" "$work/odt-run.txt" ||
  { paste "$work/cpp.txt" "$work/odt-run.txt"; fail "the C++ example and odt-run disagree"; }
ldd "$work/examples/train_default_linked" | grep -q libodt &&
  fail "train_default_linked should carry the static runtime, not load libodt.so"
echo "losses equal: train_default, train_default_cpp, train_default_linked, odt-run"
sed -n '1p;$p' "$work/c.txt"

echo "== 3. pkg-config"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
[ "$(pkg-config --modversion odt)" = "$version" ] || fail "pkg-config --modversion odt"
cc -std=c11 -Wall -Wextra -pedantic "$src/examples/c/train_default.c" -o "$work/pc_train" \
   $(pkg-config --cflags --libs odt)
LD_LIBRARY_PATH="$work/prefix/lib" "$work/pc_train" "$compiled" "$artifacts" \
    "$work/out_pc" 10 | losses | cmp - "$work/c.txt" || fail "the pkg-config build disagrees"
echo "pkg-config build: same losses"

echo "== 4. odt_add_model's errors"
bad() {  # bad NAME EXPECTED-MESSAGE ODT_ADD_MODEL-ARGUMENTS...
  local name=$1 expected=$2
  shift 2
  mkdir -p "$work/bad_$name"
  cat > "$work/bad_$name/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(bad_$name LANGUAGES C)
find_package(odt REQUIRED)
odt_add_model(model $*)
CMAKE
  if cmake -S "$work/bad_$name" -B "$work/bad_$name/build" \
        -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/bad_$name.log" 2>&1; then
    fail "odt_add_model($*) configured; it must fail"
  fi
  # CMake wraps its messages: compare with the lines joined.
  local message
  message=$(sed -n '/CMake Error/,/Call Stack/p' "$work/bad_$name.log" | tr -s ' \n' ' ')
  grep -qF "$expected" <<< "$message" ||
    { cat "$work/bad_$name.log"; fail "odt_add_model($*): no '$expected' message"; }
  message=${message#*(message):}
  echo "odt_add_model(...) fails:${message%Call Stack*}"
}
bad missing "does not exist" ARTIFACTS "$work/no-such-folder"
mkdir -p "$work/empty"
bad empty "holds no training_model.onnx" ARTIFACTS "$work/empty"
bad triple "unknown TARGET_TRIPLE 'sparc-sun-solaris'" ARTIFACTS "$artifacts" TARGET_TRIPLE sparc-sun-solaris
bad noartifacts "ARTIFACTS <folder> is required" TARGET_TRIPLE aarch64-linux-gnu

echo "== 5. versions and exported symbols"
"$work/prefix/bin/odt-run" --version | grep -qx "odt-run (odt) $version" || fail "odt-run --version"
"$work/prefix/bin/odt-compile" --version | grep -q "odt-compile (odt) $version" ||
  fail "odt-compile --version"
lib=$(ls "$work/prefix"/lib/libodt.so.*.*.* | head -1)
others=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^Odt' || true)
[ -z "$others" ] || fail "libodt.so exports more than the Odt* API: $others"
echo "libodt.so exports $(nm -D --defined-only "$lib" | wc -l) symbols, all Odt*"
echo "PASS"
