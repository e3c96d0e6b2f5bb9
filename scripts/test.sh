#!/usr/bin/env bash
# Installs what is missing, builds odt and runs the whole test suite (ctest:
# GoogleTest units, lit + FileCheck suites, end-to-end numeric tests).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${ODT_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
# The peers' venv (PyTorch 2.15, onnx, onnxscript, ONNX Runtime 1.19.2
# training), cached outside the clone and linked at $build/peers.
bash "$root/scripts/setup-peers.sh" "$build/peers" >/dev/null
# Flower (the federated-learning test), a venv of its own the same way.
bash "$root/scripts/setup-peers.sh" "$build/flower" \
  "$root/scripts/flower-requirements.txt" >/dev/null
# nvdisasm (PyPI), which reads the SASS of the tensor-core builds' cubins.
bash "$root/scripts/setup-peers.sh" "$build/cuda-tools" \
  "$root/scripts/cuda-tools-requirements.txt" >/dev/null
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
