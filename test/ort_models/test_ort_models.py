#!/usr/bin/env python3
"""odt reproduces ONNX Runtime's training on artifacts ORT generated.

For each model of make_models.py: ORT's generate_artifacts (in the interop
venv) writes the artifacts and ORT trains them for 10 AdamW steps; odt
compiles the same artifacts and trains from the same checkpoint and data;
every step's loss must match ORT's within 1e-4 relative (the coverage
issue's bound; both sides compute float32 and differ in rounding only).

Environment: ODT_BIN (odt-compile, odt-run), ODT_ORT_PYTHON (the venv's
python; the test reports SKIPPED with the reason when it is missing), and
optionally ODT_ORT_MODELS_WORK (scratch folder).
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("ODT_BIN", "")
ORT_PYTHON = os.environ.get("ODT_ORT_PYTHON", "")
STEPS = 10
RELATIVE_TOLERANCE = 1e-4


def ort_available():
    if not ORT_PYTHON or not os.path.exists(ORT_PYTHON):
        return False
    probe = subprocess.run([ORT_PYTHON, "-c", "import onnxruntime.training.api"],
                           capture_output=True)
    return probe.returncode == 0


class OrtModelsTest(unittest.TestCase):
    model = None  # set by the generated subclasses

    @classmethod
    def setUpClass(cls):
        if not ort_available():
            raise unittest.SkipTest(
                "SKIPPED: no ONNX Runtime training venv at ODT_ORT_PYTHON=%r "
                "(make it with scripts/setup-peers.sh)" % ORT_PYTHON)
        cls.work = os.environ.get("ODT_ORT_MODELS_WORK") or tempfile.mkdtemp(
            prefix="odt-ort-models-")
        made = subprocess.run(
            [ORT_PYTHON, os.path.join(HERE, "make_models.py"), cls.work,
             "--steps", str(STEPS), "--only", cls.model],
            capture_output=True, text=True)
        if made.returncode:
            raise AssertionError("make_models.py failed:\n" + made.stderr[-3000:])
        cls.folder = os.path.join(cls.work, cls.model)

    def train(self, *compile_flags):
        """odt's STEPS losses, compiled with `compile_flags`."""
        compiled = os.path.join(self.folder, "compiled" + "".join(compile_flags))
        compile_run = subprocess.run(
            [os.path.join(BIN, "odt-compile"), "--quiet", *compile_flags, self.folder,
             "-o", compiled], capture_output=True, text=True)
        self.assertEqual(compile_run.returncode, 0, compile_run.stderr)
        train = subprocess.run(
            [os.path.join(BIN, "odt-run"), "train", compiled,
             "--checkpoint", os.path.join(self.folder, "checkpoint"),
             "--input", "input=" + os.path.join(self.folder, "input.npy"),
             "--input", "labels=" + os.path.join(self.folder, "labels.npy"),
             "--steps", str(STEPS), "--lr", repr(self.reference["learning_rate"]),
             "--json"], capture_output=True, text=True)
        self.assertEqual(train.returncode, 0, train.stderr)
        losses = [json.loads(line)["loss"] for line in train.stdout.splitlines()]
        self.assertEqual(len(losses), STEPS)
        return losses

    def assert_close(self, what, ours, theirs):
        worst = 0.0
        for step, (a, b) in enumerate(zip(ours, theirs), 1):
            relative = abs(a - b) / abs(b)
            worst = max(worst, relative)
            self.assertLessEqual(relative, RELATIVE_TOLERANCE,
                                 "%s, step %d: %.9g vs %.9g (relative %.3g)" % (
                                     what, step, a, b, relative))
        print("%s: %s, %d steps, worst relative difference %.3g"
              % (self.model, what, STEPS, worst))

    def setUp(self):
        with open(os.path.join(self.folder, "ort_losses.json")) as f:
            self.reference = json.load(f)

    def test_losses_match_ort(self):
        self.assert_close("odt vs ORT", self.train(), self.reference["losses"])

    def test_simple_codegen_agrees(self):
        """The reference build (no fusion, no product kernels, libm's exp)
        matches ORT and the optimized build."""
        simple = self.train("--simple-codegen")
        self.assert_close("simple codegen vs ORT", simple, self.reference["losses"])
        self.assert_close("optimized vs simple codegen", self.train(), simple)

    def test_avx2_build_agrees(self):
        """Code for another CPU (--cpu=haswell: AVX2, 8-lane kernels with 6-row
        tiles instead of AVX-512's 16 x 8) trains to ORT's losses too."""
        with open("/proc/cpuinfo") as f:
            flags = f.read()
        if " avx2" not in flags or " fma" not in flags:
            self.skipTest("SKIPPED: this CPU has no AVX2/FMA to run a haswell build")
        self.assert_close("AVX2 build vs ORT", self.train("--cpu=haswell"),
                          self.reference["losses"])


def load_tests(loader, tests, pattern):
    suite = unittest.TestSuite()
    names = [n for n in sys.argv[1:] if not n.startswith("-")] or [
        "mlp_gelu_layernorm", "cnn_conv_bn_pool", "transformer_block",
        "mlp_clip_grad_norm"]
    for name in names:
        case = type("OrtModel_" + name, (OrtModelsTest,), {"model": name})
        suite.addTests(loader.loadTestsFromTestCase(case))
    return suite


if __name__ == "__main__":
    runner = unittest.TextTestRunner(verbosity=2)
    result = runner.run(load_tests(unittest.defaultTestLoader, None, None))
    sys.exit(0 if result.wasSuccessful() else 1)
