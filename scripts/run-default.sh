#!/usr/bin/env bash
# odt's main job on its built-in default: installs what is missing, builds
# odt, then trains an MLP on scikit-learn's handwritten digits (shipped with
# Debian's python3-sklearn): odt's own generate-artifacts makes the training,
# eval and optimizer models from a forward ONNX model, odt-compile compiles
# them ahead of time, and examples/digits/train_digits (odt's C++ API) trains
# epochs of shuffled mini-batches, printing the test accuracy after each,
# then exports an inference model, which is compiled and evaluated once more
# (it must reach 95%). examples/digits/run_digits.sh says each step.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${ODT_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
bash "$root/examples/digits/run_digits.sh" "$build" "$build/default"
