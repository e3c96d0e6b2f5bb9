#!/usr/bin/env bash
# Installs what is missing, builds odt and runs the whole test suite (ctest:
# GoogleTest units, lit + FileCheck suites, end-to-end numeric tests).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${ODT_BUILD_DIR:-$root/build}"
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
# ONNX Runtime 1.19.2 (training) in a venv, for the interop tests.
bash "$root/scripts/setup-venv.sh" "$build/ortvenv"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
