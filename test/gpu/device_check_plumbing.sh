#!/usr/bin/env bash
# The device check's two halves fit together without a GPU: scripts/
# gpu-check.sh prepares ORT's MLP (a GPU build for sm_90, its checkpoint,
# inputs and ORT's golden losses), and gpu-check-device.py runs it from the
# prepared folder alone with odt-run on the mock CUDA driver. The mock's
# kernels compute nothing, so --plumbing compares no loss: what a real GPU
# shows is for the device machine.
#   device_check_plumbing.sh BUILD_DIR MOCK_DRIVER PYTHON WORK_DIR
set -euo pipefail
build=$1 mock=$2 python=$3 work=$4
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"
ODT_PEERS_PYTHON=$python bash "$root/scripts/gpu-check.sh" --build "$build" \
  --models ort_mlp --out "$work/check"
for file in bin/odt-run gpu-check-device.py python/bench/zoo.py \
            models/ort_mlp/gpu/libmodel.so models/ort_mlp/gpu/model.json \
            models/ort_mlp/checkpoint models/ort_mlp/manifest.json; do
  [ -s "$work/check/$file" ] || { echo "FAIL: no $file in the prepared folder"; exit 1; }
done
# The folder stands alone: moved elsewhere, it still runs.
mv "$work/check" "$work/moved"
ODT_CUDA_DRIVER=$mock "$python" "$work/moved/gpu-check-device.py" "$work/moved" \
  --out "$work/results" --plumbing --warmup-runs 1 --repetitions 3
grep -q '^| ort_mlp | - | not compared | ' "$work/results/gpu-check.md" ||
  { echo "FAIL: no ort_mlp row in gpu-check.md"; exit 1; }
"$python" - "$work/results/gpu-check.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["models"]
assert len(rows) == 1 and "error" not in rows[0], rows
assert len(rows[0]["losses"]) == 2 and rows[0]["odt_step_ms"] > 0, rows
assert rows[0]["expected"][0] > 2.0, rows  # ORT's golden loss 1 (2.17862...)
print("device check plumbing: OK")
PY
