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
#   run.sh federated PYTHON BUILD_DIR DATA_PYTHON WORK_DIR
#       make_digits.py, then examples/python/federated_digits.py run: a
#       Flower server and 4 clients (PYTHON: the Flower venv), 5 rounds;
#       the global model's held-out accuracy must reach 90%
#
# PYTHON is the peers' venv (numpy, onnx, ONNX Runtime 1.19.2 training);
# without it the tests are skipped (exit 77), saying so.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# A fresh WORK_DIR with the digits data in WORK_DIR/data, and the package
# on PYTHONPATH.
prepare_digits() {
  local build_dir="$1" data_python="$2" work="$3"
  rm -rf "$work"
  mkdir -p "$work"
  "$data_python" "$here/../../examples/digits/make_digits.py" "$work/data"
  export PYTHONPATH="$build_dir/python/site${PYTHONPATH:+:$PYTHONPATH}"
}
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
    work="$5"
    prepare_digits "$3" "$4" "$work"
    exec "$python" "$here/digits_parity.py" "$work" --epochs 3
    ;;
  federated)
    work="$5"
    prepare_digits "$3" "$4" "$work"
    "$python" "$here/../../examples/python/federated_digits.py" run "$work/data" \
      "$work/run" --clients 4 --rounds 5 --result "$work/federated.json" --timeout 300 \
      2> "$work/flower.log" || { tail -40 "$work/flower.log"; exit 1; }
    exec "$python" - "$work/federated.json" <<'PY'
import json, sys
rounds = json.load(open(sys.argv[1]))["rounds"]
final = rounds[-1]["accuracy"]
print("global accuracy per round: " + ", ".join("%.1f%%" % (100 * r["accuracy"]) for r in rounds))
if final < 0.90:
    sys.exit("FAILED: the global model's accuracy after %d rounds is %.1f%% (< 90%%)"
             % (rounds[-1]["round"], 100 * final))
if any(b["accuracy"] < a["accuracy"] - 0.05 for a, b in zip(rounds, rounds[1:])):
    sys.exit("FAILED: the accuracy fell by more than 5 points in a round")
print("PASSED")
PY
    ;;
  *)
    echo "run.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac
