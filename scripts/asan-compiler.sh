#!/usr/bin/env bash
# odt-compile and odt-opt built with ASan+UBSan (odt's own code instrumented;
# LLVM's and MLIR's shared libraries are not), then the lit suite run against
# them and, when the zoo's artifacts exist (ctest -L zoo made them), every
# zoo model compiled. Not part of scripts/test.sh: the instrumented build of
# the compiler takes ~45 minutes on 2 cores (test/sanitizers/CMakeLists.txt
# says what CI instruments instead).
#
#   scripts/asan-compiler.sh          uses ${ODT_BUILD_DIR:-build} for the
#                                     other tools (odt-run, the peers) and
#                                     builds into ${ODT_ASAN_BUILD_DIR:-build-asan}
#
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs when it
# is compiled with ASan; odt's instrumented copies of its header code and the
# uninstrumented copies inside libLLVM.so then disagree about what is
# poisoned (lld's allocator reported use-after-poison on every link). Turning
# manual poisoning off keeps every check of odt's own code.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${ODT_BUILD_DIR:-$root/build}"
asan="${ODT_ASAN_BUILD_DIR:-$root/build-asan}"
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g1"
if [ ! -f "$asan/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$asan" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null || exit 1
fi
cmake --build "$asan" --target odt-compile odt-opt -- -j"$(nproc)" || exit 1
[ -x "$build/bin/odt-run" ] || { echo "asan-compiler: build $build first (scripts/build.sh)"; exit 1; }

export ASAN_OPTIONS="detect_leaks=0:allow_user_poisoning=0:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The instrumented compiler next to the build's other tools, and a lit
# configuration that points at them.
tools="$asan/lit-tools"
rm -rf "$tools" && mkdir -p "$tools"
for tool in "$build"/bin/*; do ln -s "$tool" "$tools/"; done
rm -f "$tools/odt-compile" "$tools/odt-opt"
cp "$asan/bin/odt-compile" "$asan/bin/odt-opt" "$tools/"
site="$asan/lit-site"
mkdir -p "$site"
sed -e "s|^config.odt_obj_root = .*|config.odt_obj_root = \"$site/obj\"|" \
    -e "s|^config.odt_tools_dir = .*|config.odt_tools_dir = \"$tools\"|" \
    "$build/test/lit/lit.site.cfg.py" > "$site/lit.site.cfg.py"
cat >> "$site/lit.site.cfg.py" <<PY
config.environment["ASAN_OPTIONS"] = "$ASAN_OPTIONS"
config.environment["UBSAN_OPTIONS"] = "$UBSAN_OPTIONS"
PY
status=0
echo "== lit suite with the instrumented odt-compile and odt-opt"
/usr/lib/llvm-22/bin/lit -s -j"$(nproc)" "$site" || status=1

zoo="$build/test/zoo/work"
if [ -d "$zoo" ]; then
  echo "== zoo models compiled by the instrumented odt-compile"
  out="$asan/zoo" && rm -rf "$out" && mkdir -p "$out"
  compiled=0 failed=0
  for artifacts in "$zoo"/*/artifacts; do
    name="$(basename "$(dirname "$artifacts")")"
    if "$tools/odt-compile" --no-cache --quiet "$artifacts" -o "$out/$name" \
         > "$out/$name.log" 2>&1; then
      compiled=$((compiled + 1))
    else
      failed=$((failed + 1)) status=1
      echo "FAIL $name (log: $out/$name.log)"
      grep -m1 "ERROR: AddressSanitizer\|runtime error" "$out/$name.log"
    fi
  done
  echo "zoo: $compiled compiled, $failed failed"
fi
exit $status
