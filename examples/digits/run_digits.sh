#!/usr/bin/env bash
# odt's main job: trains an MLP on scikit-learn's handwritten digits and
# checks what it learned.
#
#   run_digits.sh BUILD_DIR WORK_DIR [EPOCHS]
#
# 1. make_digits.py: the data (80/20 stratified split) and a forward ONNX
#    model (64 -> 64 -> ReLU -> 10);
# 2. odt-compile generate-artifacts: training, eval and optimizer models and
#    a checkpoint (CrossEntropyLoss, AdamW), by odt's own autodiff;
# 3. odt-compile: the artifacts to native code;
# 4. train_digits (examples/digits/train_digits.cpp, public C++ API only):
#    epochs of shuffled mini-batches, test accuracy after each, then
#    ExportModelForInferencing;
# 5. the exported inference model compiled and run on the test images once
#    more: its accuracy must be the trained session's, and at least 95%.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$1"
work="$2"
epochs="${3:-20}"
bin="$build/bin"
rm -rf "$work"
mkdir -p "$work"

echo "== data and forward model (examples/digits/make_digits.py)"
/usr/bin/python3 "$here/make_digits.py" "$work/data"
echo "== odt-compile generate-artifacts"
"$bin/odt-compile" generate-artifacts "$work/data/forward.onnx" \
  --loss=CrossEntropyLoss --additional-output=logits -o "$work/artifacts"
echo "== odt-compile $work/artifacts -o $work/compiled"
"$bin/odt-compile" "$work/artifacts" -o "$work/compiled" --quiet
echo "== train_digits: $epochs epochs"
mkdir -p "$work/out"
"$bin/train_digits" "$work/compiled" "$work/artifacts" "$work/data" \
  "$work/out" "$epochs" | tee "$work/train.log"
echo "== the exported inference model, compiled and evaluated on the test images"
"$bin/odt-compile" --eval "$work/out/digits.onnx" -o "$work/inference" --quiet
"$bin/odt-run" eval "$work/inference" \
  --input "pixels=$work/data/test_pixels.npy" \
  --output "logits=$work/out/test_logits.npy" > /dev/null
/usr/bin/python3 - "$work" <<'PY'
import re
import sys

import numpy as np

work = sys.argv[1]
logits = np.load(work + "/out/test_logits.npy")
labels = np.load(work + "/data/test_labels.npy")
exported = float((logits.argmax(axis=1) == labels).mean())
trained = float(re.findall(r"test accuracy ([0-9.]+)%",
                           open(work + "/train.log").read())[-1]) / 100
print("exported model: test accuracy %.1f%% (%d of %d images)"
      % (100 * exported, round(exported * len(labels)), len(labels)))
if abs(exported - trained) > 0.5 / len(labels):
    sys.exit("the exported model's accuracy %.4f differs from the trained "
             "session's %.4f" % (exported, trained))
if exported < 0.95:
    sys.exit("test accuracy %.1f%% is below 95%%" % (100 * exported))
PY
