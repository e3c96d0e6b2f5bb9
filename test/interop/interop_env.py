"""Shared setup of the ONNX Runtime interoperability tests (test/interop).

They run in the peers' venv of scripts/setup-peers.sh (onnxruntime-training-cpu
1.19.2, PyTorch 2.15, onnx), started by run_interop.py from ctest, which
passes ODT_BIN_DIR, ODT_INTEROP_DRIVER, ODT_INTEROP_MODELS_DIR, ODT_INTEROP_ARTIFACTS_DIR,
ODT_INTEROP_TMP_DIR and ODT_SHARED_DIR (test/interop/CMakeLists.txt). By hand, from
test/interop, with the build folder build-interop:

    ../../build-interop/peers/bin/python -m unittest -v test_resume

Both sides are driven the way their users drive them: ORT through its Python API
(onnxruntime.training.api), odt through odt-run and, for what odt-run does not offer
(properties, nominal states), through odt's C API (odt_interop_driver.c).
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
_BUILD = os.path.join(ROOT, "build-interop")

BIN_DIR = os.environ.get("ODT_BIN_DIR", os.path.join(_BUILD, "bin"))
DRIVER = os.environ.get("ODT_INTEROP_DRIVER", os.path.join(BIN_DIR, "odt_interop_driver"))
MODELS_DIR = os.environ.get("ODT_INTEROP_MODELS_DIR",
                            os.path.join(_BUILD, "test", "interop", "models"))
ARTIFACTS_DIR = os.environ.get("ODT_INTEROP_ARTIFACTS_DIR",
                               os.path.join(_BUILD, "test", "interop", "artifacts"))
TMP_DIR = os.environ.get("ODT_INTEROP_TMP_DIR", os.path.join(_BUILD, "test", "interop", "tmp"))
SHARED_DIR = os.environ.get("ODT_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
ORT_TAPI = os.path.join(SHARED_DIR, "conformance", "ort", "training_api")
ODT_RUN = os.path.join(BIN_DIR, "odt-run")

# ORT's default learning rate: what an Optimizer starts with, also when it resumes
# from a checkpoint's optimizer state (GroupOptimizerState::learning_rate is not
# saved; see test_resume.OrtLoadBehaviour).
ORT_DEFAULT_LR = 0.001

try:
    from onnxruntime.training import api as ort  # noqa: E402
    import onnxruntime
except ImportError as e:  # a venv that exists but is broken is a failure, not a skip
    raise ImportError("%s cannot import onnxruntime.training.api (%s): rerun "
                      "scripts/setup-peers.sh" % (sys.executable, e))
assert onnxruntime.__version__ == "1.19.2", onnxruntime.__version__


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


class Model:
    """One model in both worlds: ORT's artifact paths, odt's compiled folder and the
    training inputs (name -> array, in the training model's input order)."""

    def __init__(self, name, train, eval_, optimizer, checkpoint, odt_dir, inputs,
                 nominal=None):
        self.name, self.train, self.eval, self.optimizer = name, train, eval_, optimizer
        self.checkpoint, self.odt_dir, self.inputs, self.nominal = (
            checkpoint, odt_dir, inputs, nominal)

    def input_files(self, tmp):
        """Writes the inputs as .npy (odt-run) and raw .bin (the C driver) under tmp;
        returns (odt-run --input arguments, driver input specs)."""
        run_args, specs = [], []
        for name, array in self.inputs.items():
            npy = os.path.join(tmp, "%s.%s.npy" % (self.name, name))
            np.save(npy, array)
            run_args += ["--input", "%s=%s" % (name, npy)]
            binary = os.path.join(tmp, "%s.%s.bin" % (self.name, name))
            array.tofile(binary)
            code = {np.dtype("float32"): "f32", np.dtype("int32"): "i32",
                    np.dtype("int64"): "i64"}[array.dtype]
            specs.append("%s:%s:%s" % (binary, code, ",".join(str(d) for d in array.shape)))
        return run_args, specs


def ort_mlp():
    """ORT's own MLP test artifacts (784-500-10, AdamW from onnxblock) and the inputs of
    ORT's TrainingApiTest: input-0.in and int32 labels {1, 1}."""
    x = ort_text.load_ort_text(os.path.join(ORT_TAPI, "input-0.in"), (2, 784), "float32")
    return Model("ort_mlp", os.path.join(ORT_TAPI, "training_model.onnx"),
                 os.path.join(ORT_TAPI, "eval_model.onnx"), os.path.join(ORT_TAPI, "adamw.onnx"),
                 os.path.join(ORT_TAPI, "checkpoint.ckpt"), os.path.join(MODELS_DIR, "ort_mlp"),
                 {"input-0": x, "labels": np.array([1, 1], dtype=np.int32)},
                 nominal=os.path.join(ORT_TAPI, "nominal_checkpoint"))


def default_model():
    """odt's default model (examples/default/make_default.py), generated at build time."""
    d = os.path.join(ARTIFACTS_DIR, "default")
    return Model("default", os.path.join(d, "training_model.onnx"),
                 os.path.join(d, "eval_model.onnx"), os.path.join(d, "optimizer_model.onnx"),
                 os.path.join(d, "checkpoint"), os.path.join(MODELS_DIR, "default"),
                 {"input": np.load(os.path.join(d, "train_input.npy")),
                  "labels": np.load(os.path.join(d, "train_labels.npy"))},
                 nominal=os.path.join(d, "nominal_checkpoint"))


def make_tmpdir(test):
    """A fresh folder under ODT_INTEROP_TMP_DIR, removed when the test (or class) ends."""
    os.makedirs(TMP_DIR, exist_ok=True)
    cls = test if isinstance(test, type) else type(test)
    tmp = tempfile.TemporaryDirectory(dir=TMP_DIR, prefix=cls.__name__ + ".")
    (test.addClassCleanup if isinstance(test, type) else test.addCleanup)(tmp.cleanup)
    return tmp.name


def check_prerequisites(test, *models):
    for path in [ODT_RUN, DRIVER] + [os.path.join(m.odt_dir, "libmodel.so") for m in models]:
        test.assertTrue(os.path.exists(path), "%s is missing (build first: ninja odt-run "
                        "odt_interop_driver odt_interop_models; the driver needs odt's C API "
                        "library, CMake target odt)" % path)


# ---------------------------------------------------------------------------
# odt
# ---------------------------------------------------------------------------

def run(cmd, timeout=60):
    return subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout)


def odt_run(*args):
    return run([ODT_RUN] + list(args))


def json_lines(stdout):
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def odt_train(test, model, input_args, checkpoint, steps, lr, save=None, resume=False):
    """odt-run train --json; returns [{"step", "loss", "lr"}] (fails the test on error)."""
    args = ["train", model.odt_dir, "--checkpoint", checkpoint, "--steps", steps,
            "--lr", repr(float(lr)), "--json"] + input_args
    if save:
        args += ["--save", save]
    if resume:
        args.append("--resume")
    p = odt_run(*args)
    test.assertEqual(p.returncode, 0, "odt-run %s\nstderr: %s" % (" ".join(map(str, args)),
                                                                p.stderr))
    return json_lines(p.stdout)


def driver(test, *args, expect_ok=True):
    """Runs odt_interop_driver; returns its JSON lines."""
    p = run([DRIVER] + list(args))
    if expect_ok:
        test.assertEqual(p.returncode, 0, "odt_interop_driver %s\nstdout: %s\nstderr: %s"
                         % (" ".join(map(str, args)), p.stdout, p.stderr))
    return json_lines(p.stdout)


def odt_parameters(test, checkpoint, names, tmp):
    """{name: array} read through odt's C API (OdtGetParameter)."""
    out = {}
    for entry in driver(test, "params", checkpoint, tmp, *names):
        test.assertNotIn("nominal", entry, entry)
        out[entry["name"]] = np.fromfile(entry["file"], dtype=entry["dtype"]).reshape(
            entry["dims"])
    return out


# ---------------------------------------------------------------------------
# ORT
# ---------------------------------------------------------------------------

class OrtTrainer:
    """ORT's Module + Optimizer over a checkpoint, as ORT's Python users write it."""

    def __init__(self, model, checkpoint):
        self.model = model
        self.state = ort.CheckpointState.load_checkpoint(checkpoint)
        self.module = ort.Module(model.train, self.state, model.eval, "cpu")
        # Optimizer(uri, module) takes the module's CheckpointState: when that state
        # holds optimizer group "group0", ORT's Optimizer loads step and momentums from
        # it (Optimizer::LoadStateDict); otherwise it starts at step 0 with zero moments.
        self.optimizer = ort.Optimizer(model.optimizer, self.module)

    def train(self, steps):
        """steps x {TrainStep, OptimizerStep, LazyResetGrad}; returns the losses."""
        self.module.train()
        losses = []
        for _ in range(steps):
            loss = self.module(*self.model.inputs.values())
            self.optimizer.step()
            self.module.lazy_reset_grad()
            losses.append(float(loss))
        return losses

    def parameters(self):
        return {name: p.data.copy() for name, p in self.state.parameters}

    def save(self, path):
        ort.CheckpointState.save_checkpoint(self.state, path, include_optimizer_state=True)


def max_rel_diff(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-30))) if a.size else 0.0


def loss_table(title, columns):
    """A printable table of per-step losses: columns is [(name, [loss...])]; the
    first column is the reference of the relative differences."""
    names = [c[0] for c in columns]
    ref = columns[0][1]
    lines = [title, "step  " + "  ".join("%-14s" % n for n in names)]
    for i in range(len(ref)):
        lines.append("%4d  " % (i + 1) + "  ".join(
            "%-14s" % (str(np.float32(c[1][i])) if i < len(c[1]) else "-") for c in columns))
    lines.append("max rel diff vs %s: " % names[0] + ", ".join(
        "%s %.2e" % (n, max_rel_diff(c, ref)) for n, c in columns[1:]))
    return "\n".join(lines)
