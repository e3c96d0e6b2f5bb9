#!/usr/bin/env python3
"""Bad input at run time: odt-run must answer each with one clear message on stderr
("odt-run: error: ...") that names the culprit (the input, the file, the parameter)
and exit with status 1 — never crash, never print results.

The model is ORT's MLP compiled at build time (models/ort_mlp); the data are ORT's
input-0 batch and labels {1, 1}, or variations of them written to a temporary folder.
"""

import json
import os
import shutil
import unittest

import numpy as np

import e2e_env as env

PARAMS = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")
ORT_FORMAT_CHECKPOINT = os.path.join(env.ORT_TAPI, "ort_format", "checkpoint")


class OdtRunCase(unittest.TestCase):
    """Helpers: a temporary folder per class, running odt-run, checking its errors."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = env.make_tmpdir(cls, cls.addClassCleanup)

    def setUp(self):
        env.check_prerequisites(self)
        self.x = os.path.join(env.ORT_DATA, "input-0.npy")
        self.labels = os.path.join(env.ORT_DATA, "labels.npy")

    # -- helpers ----------------------------------------------------------------------

    def path(self, name):
        return os.path.join(self.tmp, name)

    def save(self, name, array):
        path = self.path(name)
        np.save(path, array)
        return path

    def write(self, name, data):
        path = self.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def run_odt(self, command, model=None, checkpoint=None, inputs=None, extra=()):
        model = env.ORT_MLP if model is None else model
        checkpoint = env.ORT_CHECKPOINT if checkpoint is None else checkpoint
        if inputs is None:
            inputs = {"input-0": self.x, "labels": self.labels}
        args = [command, model, "--checkpoint", checkpoint]
        for name, file in inputs.items():
            args += ["--input", "%s=%s" % (name, file)]
        return env.odt_run(*args, *extra)

    def assert_error(self, result, *needles):
        """Exit status 1, nothing on stdout, one 'odt-run: error:' line naming every
        needle."""
        self.assertGreaterEqual(result.returncode, 0,
                                "odt-run died of signal %d; stderr: %s"
                                % (-result.returncode, result.stderr))
        self.assertEqual(result.returncode, 1, "stdout: %r\nstderr: %r"
                         % (result.stdout, result.stderr))
        self.assertEqual(result.stdout, "")
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertTrue(lines[0].startswith("odt-run: error: "), result.stderr)
        for needle in needles:
            self.assertIn(needle, lines[0])

    def assert_both(self, *needles, **run_kwargs):
        """The same error from train and eval."""
        for command in ("train", "eval"):
            with self.subTest(command=command):
                self.assert_error(self.run_odt(command, **run_kwargs), *needles)


class RunErrors(OdtRunCase):
    # -- inputs -----------------------------------------------------------------------

    def test_unknown_input_name(self):
        self.assert_both("labelz", inputs={"input-0": self.x, "labelz": self.labels})

    def test_missing_input(self):
        self.assert_both("labels", inputs={"input-0": self.x})
        self.assert_both("input-0", inputs={"labels": self.labels})

    def test_float64_input(self):
        x64 = self.save("x64.npy", np.load(self.x).astype(np.float64))
        self.assert_both("input-0", "float64", "float32",
                         inputs={"input-0": x64, "labels": self.labels})

    def test_int64_labels_where_the_model_wants_int32(self):
        l64 = self.save("l64.npy", np.array([1, 1], dtype=np.int64))
        self.assert_both("labels", "int64", "int32", inputs={"input-0": self.x, "labels": l64})

    def test_wrong_feature_count(self):
        x = self.save("x2x100.npy", np.zeros((2, 100), dtype=np.float32))
        self.assert_both("input-0", "[2, 100]", "784", inputs={"input-0": x, "labels": self.labels})

    def test_wrong_rank(self):
        x = self.save("x1568.npy", np.zeros((1568,), dtype=np.float32))
        self.assert_both("input-0", inputs={"input-0": x, "labels": self.labels})

    def test_labels_length_differs_from_the_batch(self):
        l3 = self.save("l3.npy", np.array([1, 1, 1], dtype=np.int32))
        self.assert_both("labels", "[3]", inputs={"input-0": self.x, "labels": l3})

    def test_truncated_npy(self):
        with open(self.x, "rb") as f:
            data = f.read()
        path = self.write("truncated.npy", data[:len(data) // 2])
        self.assert_both("input-0", path, "truncated",
                         inputs={"input-0": path, "labels": self.labels})

    def test_not_an_npy_file(self):
        path = self.write("text.npy", b"input-0\n[0.1, 0.2]\n")
        self.assert_both("input-0", path, inputs={"input-0": path, "labels": self.labels})

    def test_missing_npy_file(self):
        path = self.path("no-such-input.npy")
        self.assert_both("input-0", path, inputs={"input-0": path, "labels": self.labels})

    def test_unknown_output_name(self):
        out = self.path("out.npy")
        self.assert_error(self.run_odt("eval", extra=["--output", "logitz=" + out]), "logitz")
        self.assertFalse(os.path.exists(out))

    def test_out_of_range_labels_are_refused(self):
        """Labels outside [0, 10) are invalid (ONNX: 0 <= label < C; this model has
        no ignore_index). odt-run refuses them, naming the input and the value."""
        for values in ([1, 10], [1, 2 ** 30], [-1, 1], [-2 ** 31, 1]):
            labels = self.save("bad-labels.npy", np.array(values, dtype=np.int32))
            bad = next(v for v in values if not 0 <= v < 10)
            for command in ("train", "eval"):
                with self.subTest(labels=values, command=command):
                    r = self.run_odt(command, inputs={"input-0": self.x, "labels": labels})
                    self.assert_error(r, "labels", str(bad), "[0, 9]")

    def test_empty_batch_is_refused(self):
        """A batch of no rows would make the mean loss 0/0 (NaN) without a word."""
        x = self.save("empty-x.npy", np.zeros((0, 784), np.float32))
        labels = self.save("empty-labels.npy", np.zeros((0,), np.int32))
        self.assert_both("input-0", "[0, 784]", "is 0",
                         inputs={"input-0": x, "labels": labels})

    # -- non-finite losses ------------------------------------------------------------

    def nan_input(self):
        x = np.load(self.x)
        x[0, 5] = np.nan
        return self.save("nan-x.npy", x)

    def test_nan_loss_warns_and_json_stays_json(self):
        """By default training goes on (as in ORT), with a warning on stderr, and
        --json prints null for the NaN (JSON has no NaN)."""
        saved = self.path("after-nan.ckpt")
        r = self.run_odt("train", inputs={"input-0": self.nan_input(), "labels": self.labels},
                         extra=["--steps", "2", "--json", "--save", saved])
        self.assertEqual(r.returncode, 0, r.stderr)
        records = [json.loads(line) for line in r.stdout.splitlines()]
        self.assertEqual([rec["step"] for rec in records], [1, 2])
        self.assertEqual([rec["loss"] for rec in records], [None, None])
        self.assertIn("odt-run: warning: step 1: the loss is nan", r.stderr)
        self.assertIn("2 of 2 steps had a non-finite loss", r.stderr)
        self.assertTrue(os.path.exists(saved))

    def test_stop_on_nan(self):
        """--stop-on-nan: an error at the first non-finite loss, and nothing saved."""
        saved = self.path("never.ckpt")
        r = self.run_odt("train", inputs={"input-0": self.nan_input(), "labels": self.labels},
                         extra=["--steps", "3", "--stop-on-nan", "--save", saved])
        self.assert_error(r, "step 1", "the loss is NaN", "nothing was saved")
        self.assertFalse(os.path.exists(saved))
        # Finite data trains as usual with the option on.
        r = self.run_odt("train", extra=["--steps", "2", "--stop-on-nan"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")

    # -- checkpoints ------------------------------------------------------------------

    def test_missing_checkpoint(self):
        path = self.path("no-such-checkpoint")
        self.assert_both(path, checkpoint=path)

    def test_random_bytes_checkpoint(self):
        rng = np.random.default_rng(7)
        path = self.write("random.ckpt", rng.bytes(4096))
        self.assert_both(path, checkpoint=path)
        # Past the file identifier check: flatbuffers verification must refuse it.
        data = bytearray(rng.bytes(4096))
        data[4:8] = b"ODTC"
        path = self.write("random-odtc.ckpt", bytes(data))
        self.assert_both(path, checkpoint=path)

    def test_empty_checkpoint(self):
        path = self.write("empty.ckpt", b"")
        self.assert_both(path, checkpoint=path)

    def test_truncated_checkpoint(self):
        with open(env.ORT_CHECKPOINT, "rb") as f:
            data = f.read()
        # The file ends in a string ("fc1.bias", its terminator, 3 bytes of padding):
        # cutting 8 bytes leaves that string unterminated.
        for cut in (16, len(data) // 4, len(data) // 2, len(data) - 8):
            with self.subTest(bytes=cut):
                path = self.write("truncated-%d.ckpt" % cut, data[:cut])
                self.assert_both(path, checkpoint=path)

    def test_checkpoint_of_another_model(self):
        """ORT's ort_format checkpoint (10->20->5, fc1 frozen) with the 784->500->10 MLP."""
        r = self.run_odt("train", checkpoint=ORT_FORMAT_CHECKPOINT)
        self.assert_error(r)
        self.assertTrue(any("'%s'" % p in r.stderr for p in PARAMS), r.stderr)
        r = self.run_odt("eval", checkpoint=ORT_FORMAT_CHECKPOINT)
        self.assert_error(r)
        self.assertTrue(any("'%s'" % p in r.stderr for p in PARAMS), r.stderr)

    def _ort_params(self):
        return env.odtc.params_dict(env.odtc.read_checkpoint(env.ORT_CHECKPOINT))

    def test_checkpoint_parameter_with_another_shape(self):
        params = self._ort_params()
        params["fc2.bias"] = np.zeros(11, dtype=np.float32)
        path = self.path("shape.ckpt")
        env.odtc.write_checkpoint(path, [(n, a, True) for n, a in params.items()])
        self.assert_both("fc2.bias", "[11]", "[10]", checkpoint=path)

    def test_checkpoint_parameter_with_another_dtype(self):
        params = self._ort_params()
        params["fc1.bias"] = params["fc1.bias"].astype(np.float64)
        path = self.path("dtype.ckpt")
        env.odtc.write_checkpoint(path, [(n, a, True) for n, a in params.items()])
        self.assert_both("fc1.bias", "float64", checkpoint=path)

    def test_checkpoint_missing_a_parameter(self):
        params = self._ort_params()
        del params["fc2.weight"]
        path = self.path("missing.ckpt")
        env.odtc.write_checkpoint(path, [(n, a, True) for n, a in params.items()])
        self.assert_both("fc2.weight", checkpoint=path)

    def test_checkpoint_with_an_extra_parameter(self):
        params = self._ort_params()
        params["fc3.weight"] = np.zeros((2, 2), dtype=np.float32)
        path = self.path("extra.ckpt")
        env.odtc.write_checkpoint(path, [(n, a, True) for n, a in params.items()])
        self.assert_both("fc3.weight", checkpoint=path)

    def test_checkpoint_of_the_default_model(self):
        """odt's default MLP (16->32->4) checkpoint with ORT's MLP: same names, other
        shapes."""
        default = os.path.join(env.ARTIFACTS_DIR, "default", "checkpoint")
        r = self.run_odt("train", checkpoint=default)
        self.assert_error(r)
        self.assertTrue(any("'%s'" % p in r.stderr for p in PARAMS), r.stderr)

    # -- compiled models --------------------------------------------------------------

    def test_missing_model_folder(self):
        path = self.path("no-such-model")
        self.assert_both(path, model=path)

    def test_folder_without_a_model(self):
        path = self.path("empty-model")
        os.makedirs(path, exist_ok=True)
        self.assert_both(path, model=path)

    def test_garbage_libmodel(self):
        folder = self.path("garbage-model")
        self.write("garbage-model/libmodel.so", np.random.default_rng(3).bytes(8192))
        self.assert_both(folder, model=folder)
        self.write("elf-header-only/libmodel.so", b"\x7fELF\x02\x01\x01" + b"\0" * 57)
        folder = self.path("elf-header-only")
        self.assert_both(folder, model=folder)

    def test_foreign_shared_library(self):
        """A real shared library that odt-compile did not make (numpy's C extension)."""
        import numpy.core._multiarray_umath as foreign
        folder = self.path("foreign-model")
        os.makedirs(folder, exist_ok=True)
        shutil.copy(foreign.__file__, os.path.join(folder, "libmodel.so"))
        self.assert_both(folder, model=folder)


class MissingEntryPoints(OdtRunCase):
    """A model compiled without one of its steps (its own ctest entry,
    e2e.test_run_errors.missing_entry_points)."""

    def test_eval_of_a_model_without_an_eval_graph(self):
        """optimizer_sgd_single_weight is compiled from a training and an optimizer model
        only: eval must say that there is no eval graph, not that the (right) input is
        unknown."""
        name = "optimizer_sgd_single_weight"
        grad = self.save("grad.npy", np.zeros((2, 3), dtype=np.float32))
        r = self.run_odt("eval", model=os.path.join(env.MODELS_DIR, name),
                         checkpoint=os.path.join(env.ARTIFACTS_DIR, name, "checkpoint"),
                         inputs={"fc1.weight_grad_input": grad})
        self.assert_error(r, "eval")
        self.assertNotIn("has no input", r.stderr)


if __name__ == "__main__":
    unittest.main()
