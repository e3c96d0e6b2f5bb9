"""Shared setup of the Python end-to-end tests: where odt-run, the models compiled at
build time and ORT's conformance data are, and how to run odt-run.

ctest passes ODT_BIN_DIR, ODT_E2E_MODELS_DIR, ODT_E2E_ARTIFACTS_DIR, ODT_E2E_TMP_DIR
and ODT_SHARED_DIR (test/e2e/CMakeLists.txt). Run by hand from test/e2e with those
set, or with the defaults below (the build folder build-e2e):

    cd test/e2e && /usr/bin/python3 -m unittest -v test_run_errors
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
_BUILD = os.path.join(ROOT, "build-e2e")

BIN_DIR = os.environ.get("ODT_BIN_DIR", os.path.join(_BUILD, "bin"))
MODELS_DIR = os.environ.get("ODT_E2E_MODELS_DIR", os.path.join(_BUILD, "test", "e2e", "models"))
ARTIFACTS_DIR = os.environ.get("ODT_E2E_ARTIFACTS_DIR",
                               os.path.join(_BUILD, "test", "e2e", "artifacts"))
TMP_DIR = os.environ.get("ODT_E2E_TMP_DIR", os.path.join(_BUILD, "test", "e2e", "tmp"))
SHARED_DIR = os.environ.get("ODT_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
ORT_TAPI = os.path.join(SHARED_DIR, "conformance", "ort", "training_api")

ODT_RUN = os.path.join(BIN_DIR, "odt-run")
ORT_MLP = os.path.join(MODELS_DIR, "ort_mlp")
ORT_CHECKPOINT = os.path.join(ORT_TAPI, "checkpoint.ckpt")
ORT_DATA = os.path.join(ARTIFACTS_DIR, "ort_mlp")


def _load(name, path):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


odtc = _load("odtc", os.path.join(ROOT, "scripts", "odtc.py"))
ort_text = _load("ort_text_to_npy", os.path.join(ROOT, "scripts", "ort_text_to_npy.py"))
reference = _load("mlp_reference", os.path.join(ROOT, "test", "reference", "mlp_reference.py"))


def make_tmpdir(test, register=None):
    """A fresh folder under ODT_E2E_TMP_DIR, removed by `register` (default:
    test.addCleanup, i.e. when the test ends; pass cls.addClassCleanup from setUpClass)."""
    os.makedirs(TMP_DIR, exist_ok=True)
    name = test.__name__ if isinstance(test, type) else type(test).__name__
    tmp = tempfile.TemporaryDirectory(dir=TMP_DIR, prefix=name + ".")
    (register or test.addCleanup)(tmp.cleanup)
    return tmp.name


def odt_run(*args, timeout=60):
    """Runs odt-run; returns the CompletedProcess (text stdout and stderr)."""
    return subprocess.run([ODT_RUN] + [str(a) for a in args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)


def json_lines(stdout):
    """The JSON objects odt-run --json printed, one per line."""
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def check_prerequisites(test):
    """Fails (does not skip) when what the build should have made is missing."""
    for path in (ODT_RUN, os.path.join(ORT_MLP, "libmodel.so"), ORT_CHECKPOINT):
        test.assertTrue(os.path.exists(path), "%s is missing (build the e2e models first: "
                        "ninja odt_e2e_models)" % path)
