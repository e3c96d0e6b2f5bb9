#!/usr/bin/env bash
# odt's main job on its built-in default: installs what is missing, builds odt,
# makes the default model (an MLP in ONNX Runtime's artifact format, with its
# data), compiles it ahead of time and trains it, printing the loss per step.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${ODT_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"

work="$build/default"
rm -rf "$work"
mkdir -p "$work"
echo "== making the default model and data (examples/default/make_default.py)"
/usr/bin/python3 "$root/examples/default/make_default.py" "$work/artifacts"
echo "== odt-compile $work/artifacts -o $work/compiled"
"$build/bin/odt-compile" "$work/artifacts" -o "$work/compiled"
echo "== odt-run train: 20 steps of TrainStep, OptimizerStep (AdamW), LazyResetGrad"
"$build/bin/odt-run" train "$work/compiled" \
  --checkpoint "$work/artifacts/checkpoint" \
  --input "input=$work/artifacts/train_input.npy" \
  --input "labels=$work/artifacts/train_labels.npy" \
  --steps 20 --lr 0.01 --save "$work/trained.ckpt"
echo "== odt-run eval on held-out data, before and after training"
"$build/bin/odt-run" eval "$work/compiled" \
  --checkpoint "$work/artifacts/checkpoint" \
  --input "input=$work/artifacts/eval_input.npy" \
  --input "labels=$work/artifacts/eval_labels.npy"
"$build/bin/odt-run" eval "$work/compiled" \
  --checkpoint "$work/trained.ckpt" \
  --input "input=$work/artifacts/eval_input.npy" \
  --input "labels=$work/artifacts/eval_labels.npy"
