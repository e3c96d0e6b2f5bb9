#!/usr/bin/env bash
# Runs one of odt's fuzzers for a while, from its corpus, and reports what it
# found (crashes land in the scratch folder; add each, once fixed, to
# fuzz/corpus/<target>/ as a regression case).
#
#   fuzz/run.sh TARGET SECONDS [JOBS]   TARGET: checkpoint, npy, descriptor,
#                                       onnx_import, capi_sequence
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${ODT_BUILD_DIR:-$root/build}"
target="$1"
seconds="$2"
jobs="${3:-1}"
scratch="$build/fuzz/scratch/$target-long"
mkdir -p "$scratch"
leaks=1
[ "$target" = onnx_import ] && leaks=0
cd "$scratch"
ASAN_OPTIONS="detect_leaks=$leaks:abort_on_error=1" \
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$build/bin/${target}_fuzzer" "$scratch" "$root/fuzz/corpus/$target" \
  -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=10 \
  -print_final_stats=1 -artifact_prefix="$scratch/" \
  -jobs="$jobs" -workers="$jobs"
