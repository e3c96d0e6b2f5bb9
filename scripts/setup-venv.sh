#!/usr/bin/env bash
# Creates (idempotently) the Python virtual environment of the ONNX Runtime
# interoperability tests (test/interop): Debian's /usr/bin/python3 with
# --system-site-packages (so that it sees Debian's python3-torch, numpy, onnx
# and flatbuffers, installed by scripts/setup.sh) plus ONNX Runtime's last
# training release from PyPI, onnxruntime-training-cpu==1.19.2 (Python 3.11).
#
#   bash scripts/setup-venv.sh [VENV_DIR]
#
# VENV_DIR: the argument, else $ODT_VENV, else ${ODT_BUILD_DIR:-build}/ortvenv
# (the ctest suite looks for ${CMAKE_BINARY_DIR}/ortvenv/bin/python unless the
# CMake cache variable ODT_ORT_PYTHON says otherwise).
# Does nothing when the venv already imports onnxruntime.training.api 1.19.2.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-${ODT_VENV:-${ODT_BUILD_DIR:-$root/build}/ortvenv}}"
base_python=/usr/bin/python3
ort_package=onnxruntime-training-cpu
ort_version=1.19.2

say() { echo "odt setup-venv: $*"; }
die() { echo "odt setup-venv: error: $*" >&2; exit 1; }

# Succeeds when $venv/bin/python imports ORT's training API at the right version.
venv_ok() {
  [ -x "$venv/bin/python" ] &&
    "$venv/bin/python" - "$ort_version" >/dev/null 2>&1 <<'EOF'
import sys
import onnxruntime
import onnxruntime.training.api  # noqa: F401
sys.exit(0 if onnxruntime.__version__ == sys.argv[1] else 1)
EOF
}

if venv_ok; then
  say "$venv: onnxruntime-training $ort_version present, nothing to do"
  exit 0
fi

[ -x "$base_python" ] || die "$base_python is missing (run scripts/setup.sh first)"
"$base_python" -c 'import sys; sys.exit(0 if sys.version_info[:2] <= (3, 11) else 1)' ||
  die "$ort_package $ort_version has wheels for Python <= 3.11 only; $base_python is $("$base_python" -V 2>&1)"
"$base_python" -c 'import ensurepip' 2>/dev/null ||
  die "$base_python cannot create venvs (install python3-venv: scripts/setup.sh)"

if [ -x "$venv/bin/python" ]; then
  say "$venv exists but lacks $ort_package $ort_version: updating it"
else
  say "creating $venv ($base_python -m venv --system-site-packages)"
fi
mkdir -p "$(dirname "$venv")"
"$base_python" -m venv --system-site-packages "$venv" ||
  die "could not create the venv $venv"

say "pip install $ort_package==$ort_version into $venv"
if ! "$venv/bin/python" -m pip install --disable-pip-version-check --no-input \
    "$ort_package==$ort_version"; then
  die "pip could not install $ort_package==$ort_version into $venv (is PyPI reachable? see pip's message above)"
fi

if ! venv_ok; then
  "$venv/bin/python" -c 'import onnxruntime.training.api' || true
  die "$venv/bin/python still cannot import onnxruntime.training.api $ort_version (see the error above; it needs python3-torch: scripts/setup.sh)"
fi
say "$venv ready: $("$venv/bin/python" -c 'import onnxruntime; print("onnxruntime", onnxruntime.__version__)' 2>/dev/null)"
