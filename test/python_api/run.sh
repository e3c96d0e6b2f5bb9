#!/usr/bin/env bash
# The Python package's tests (test/python_api/CMakeLists.txt runs this).
#
#   run.sh install PYTHON SOURCE_DIR BUILD_DIR ODT_COMPILE
#       pip install SOURCE_DIR (the repository: pyproject.toml) into
#       BUILD_DIR/python/site, with the package's CMake build kept in
#       BUILD_DIR/python/build so that reinstalling is incremental
#   run.sh test PYTHON BUILD_DIR SCRIPT [ARGS...]
#       runs SCRIPT with that folder on PYTHONPATH
#   run.sh digits PYTHON BUILD_DIR DATA_PYTHON WORK_DIR
#       examples/digits/make_digits.py (DATA_PYTHON: Debian's python3 with
#       scikit-learn) into WORK_DIR/data, then digits_parity.py: the Python
#       digits example on ORT and on odt, losses compared
#
# PYTHON is the peers' venv (numpy, onnx, ONNX Runtime 1.19.2 training);
# without it the tests are skipped (exit 77), saying so.
set -euo pipefail
mode="$1"
python="$2"
if [ ! -x "$python" ]; then
  echo "SKIPPED: $python is missing (make it with scripts/setup-peers.sh)"
  exit 77
fi
case "$mode" in
  install)
    source_dir="$3"; build_dir="$4"; compiler="$5"
    exec "$python" -m pip install --disable-pip-version-check --no-input --quiet \
      --no-deps --upgrade --target "$build_dir/python/site" \
      --config-settings=build-dir="$build_dir/python/build" \
      --config-settings=cmake.define.ODT_COMPILE="$compiler" "$source_dir"
    ;;
  test)
    build_dir="$3"; shift 3
    export PYTHONPATH="$build_dir/python/site${PYTHONPATH:+:$PYTHONPATH}"
    exec "$python" "$@"
    ;;
  digits)
    build_dir="$3"; data_python="$4"; work="$5"
    here="$(cd "$(dirname "$0")" && pwd)"
    rm -rf "$work"
    mkdir -p "$work"
    "$data_python" "$here/../../examples/digits/make_digits.py" "$work/data"
    export PYTHONPATH="$build_dir/python/site${PYTHONPATH:+:$PYTHONPATH}"
    exec "$python" "$here/digits_parity.py" "$work" --epochs 3
    ;;
  *)
    echo "run.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
