#!/usr/bin/env bash
# odt-compile's output depends only on its input: the same artifacts,
# compiled RUNS times, give the same LLVM IR each time.
#
#   reproducible-output.sh ODT_COMPILE ARTIFACT_DIR RUNS
#
# Run on the zoo's mobilenetv3 (TorchScript export), where the order of
# one-shot bufferization's constant globals varied from run to run (2 runs
# in 6) until odt-order-constant-globals fixed it.
set -euo pipefail
compile="$1"
artifacts="$2"
runs="$3"
if [ ! -f "$artifacts/training_model.onnx" ]; then
  echo "reproducible-output: no artifacts in $artifacts (the zoo test that makes them failed?)" >&2
  exit 1
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for run in $(seq 1 "$runs"); do
  "$compile" --quiet "$artifacts" -o "$scratch/out" --emit=llvm > "$scratch/run-$run.ll"
  if [ "$run" -gt 1 ] && ! cmp -s "$scratch/run-1.ll" "$scratch/run-$run.ll"; then
    echo "reproducible-output: run $run's LLVM IR differs from run 1's:" >&2
    diff "$scratch/run-1.ll" "$scratch/run-$run.ll" | head -20 | cut -c1-200 >&2
    exit 1
  fi
done
echo "reproducible-output: $runs compiles of $artifacts gave the same LLVM IR ($(wc -c < "$scratch/run-1.ll") bytes)"
