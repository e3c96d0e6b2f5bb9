#!/usr/bin/env python3
"""generate-artifacts end to end: PyTorch-exported forward models (make_models.py)
become ORT-style artifacts by odt's autodiff; odt compiles and trains them,
ONNX Runtime 1.19.2 loads and trains the same files, and both must follow
the training PyTorch did from the same weights and data within 1e-4 relative
per step (float32 on all sides; they differ in rounding only):
  ce_adamw: --loss CrossEntropyLoss, AdamW in PyTorch's mode (adam_mode 0)
  mse_sgd:  --loss MSELoss --optimizer SGD
The checkpoint generate-artifacts writes also goes through ORT's
CheckpointState (load, save) and odt trains from ORT's copy to the same
losses.

Environment: ODT_BIN (odt-compile, odt-run), ODT_ORT_PYTHON (the venv's
python, which also has PyTorch and onnx; the test reports SKIPPED with the
reason when it is missing); ODT_KEEP_WORK=1 keeps the scratch folder.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("ODT_BIN", "")
ORT_PYTHON = os.environ.get("ODT_ORT_PYTHON", "")
STEPS = 8
RELATIVE_TOLERANCE = 1e-4


def venv_available():
    if not ORT_PYTHON or not os.path.exists(ORT_PYTHON):
        return False
    probe = subprocess.run(
        [ORT_PYTHON, "-c", "import onnxruntime.training.api, torch, onnx"],
        capture_output=True)
    return probe.returncode == 0


class GenerateArtifactsTest(unittest.TestCase):
    model = None  # set per model below

    @classmethod
    def setUpClass(cls):
        if not venv_available():
            raise unittest.SkipTest(
                "SKIPPED: no venv with ONNX Runtime training, PyTorch and onnx "
                "at ODT_ORT_PYTHON=%r (make it with scripts/setup-peers.sh)"
                % ORT_PYTHON)
        cls.work = tempfile.mkdtemp(prefix="odt-generate-")
        made = subprocess.run(
            [ORT_PYTHON, os.path.join(HERE, "make_models.py"), cls.work,
             "--steps", str(STEPS), "--models", cls.model],
            capture_output=True, text=True)
        if made.returncode:
            raise AssertionError("make_models.py failed:\n" + made.stderr[-3000:])
        cls.folder = os.path.join(cls.work, cls.model)
        with open(os.path.join(cls.folder, "torch_losses.json")) as f:
            cls.reference = json.load(f)

    @classmethod
    def tearDownClass(cls):
        if not os.environ.get("ODT_KEEP_WORK"):
            shutil.rmtree(cls.work, ignore_errors=True)

    def run_tool(self, *args):
        run = subprocess.run([os.path.join(BIN, args[0]), *args[1:]],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0,
                         "%s failed:\n%s" % (" ".join(args), run.stderr))
        return run

    def setup_flags(self, setup):
        if setup == "ce_adamw":
            adamw = self.reference["adamw"]
            return (["--loss", "CrossEntropyLoss", "--adam-mode", "0",
                     "--beta1", repr(adamw["betas"][0]),
                     "--beta2", repr(adamw["betas"][1]),
                     "--eps", repr(adamw["eps"]),
                     "--weight-decay", repr(adamw["weight_decay"])],
                    "labels", adamw["lr"])
        return (["--loss", "MSELoss", "--optimizer", "SGD"], "target",
                self.reference["sgd_lr"])

    def odt_losses(self, compiled, checkpoint, loss_input, lr):
        run = self.run_tool(
            "odt-run", "train", compiled, "--checkpoint", checkpoint,
            "--input", "input=" + os.path.join(self.folder, "input.npy"),
            "--input", "%s=%s" % (loss_input,
                                  os.path.join(self.folder, loss_input + ".npy")),
            "--steps", str(STEPS), "--lr", repr(lr), "--json")
        return [json.loads(line)["loss"] for line in run.stdout.splitlines()]

    def assert_close(self, what, ours, theirs):
        self.assertEqual(len(ours), len(theirs), what)
        worst = 0.0
        for step, (a, b) in enumerate(zip(ours, theirs), 1):
            relative = abs(a - b) / abs(b)
            worst = max(worst, relative)
            self.assertLessEqual(
                relative, RELATIVE_TOLERANCE,
                "%s, step %d: %r vs PyTorch %r" % (what, step, a, b))
        print("%s %s: %d steps, worst relative difference from PyTorch %.2e"
              % (self.model, what, len(ours), worst))

    def check_setup(self, setup):
        flags, loss_input, lr = self.setup_flags(setup)
        artifacts = os.path.join(self.folder, setup)
        compiled = os.path.join(self.folder, setup + "_compiled")
        self.run_tool("odt-compile", "generate-artifacts",
                      os.path.join(self.folder, "forward.onnx"), "-o", artifacts,
                      "--quiet", *flags, "--compile", compiled)
        for name in ("training_model.onnx", "eval_model.onnx",
                     "optimizer_model.onnx", "checkpoint"):
            self.assertTrue(os.path.exists(os.path.join(artifacts, name)), name)
        reference = self.reference[setup]

        ours = self.odt_losses(compiled, os.path.join(artifacts, "checkpoint"),
                               loss_input, lr)
        self.assert_close(setup + " odt", ours, reference)

        resaved = os.path.join(self.folder, setup + "_ort_checkpoint")
        ort = subprocess.run(
            [ORT_PYTHON, os.path.join(HERE, "ort_train.py"), artifacts,
             "--input", os.path.join(self.folder, "input.npy"),
             "--loss-input", "%s=%s" % (loss_input, os.path.join(
                 self.folder, loss_input + ".npy")),
             "--steps", str(STEPS), "--lr", repr(lr), "--resave", resaved],
            capture_output=True, text=True)
        self.assertEqual(ort.returncode, 0, "ORT failed:\n" + ort.stderr[-4000:])
        result = json.loads(ort.stdout.splitlines()[-1])
        self.assertEqual(result["input_names"], ["input", loss_input])
        self.assertEqual(result["output_names"], ["loss"])
        self.assert_close(setup + " ORT", result["losses"], reference)

        # ORT's copy of the checkpoint trains the same in odt.
        self.assertEqual(
            self.odt_losses(compiled, resaved, loss_input, lr), ours,
            "odt from ORT's re-saved checkpoint")

    def test_external_data(self):
        """Artifacts whose initializers live in `<model>.data` (forced with a
        low --external-data-above; fc1 stays a constant when only fc2
        trains): ORT and odt load them and train to the same losses."""
        if self.model != "mlp":
            self.skipTest("external data is checked on the MLP only")
        artifacts = os.path.join(self.folder, "external")
        compiled = os.path.join(self.folder, "external_compiled")
        self.run_tool("odt-compile", "generate-artifacts",
                      os.path.join(self.folder, "forward.onnx"), "-o", artifacts,
                      "--quiet", "--loss", "MSELoss", "--optimizer", "SGD",
                      "--requires-grad", "fc2.weight,fc2.bias",
                      "--external-data-above", "0", "--compile", compiled)
        self.assertTrue(os.path.exists(
            os.path.join(artifacts, "training_model.onnx.data")))
        lr = self.reference["sgd_lr"]
        ours = self.odt_losses(compiled, os.path.join(artifacts, "checkpoint"),
                               "target", lr)
        ort = subprocess.run(
            [ORT_PYTHON, os.path.join(HERE, "ort_train.py"), artifacts,
             "--input", os.path.join(self.folder, "input.npy"),
             "--loss-input", "target=" + os.path.join(self.folder, "target.npy"),
             "--steps", str(STEPS), "--lr", repr(lr)],
            capture_output=True, text=True)
        self.assertEqual(ort.returncode, 0, "ORT failed:\n" + ort.stderr[-4000:])
        theirs = json.loads(ort.stdout.splitlines()[-1])["losses"]
        for step, (a, b) in enumerate(zip(ours, theirs), 1):
            self.assertLessEqual(abs(a - b), RELATIVE_TOLERANCE * abs(b),
                                 "step %d: odt %r, ORT %r" % (step, a, b))
        self.assertLess(ours[-1], ours[0])

    def test_ce_adamw(self):
        self.check_setup("ce_adamw")

    def test_mse_sgd(self):
        self.check_setup("mse_sgd")


if __name__ == "__main__":
    model = sys.argv.pop(1)
    GenerateArtifactsTest.model = model
    unittest.main(verbosity=2)
