"""Nominal checkpoints (names and types only) across ONNX Runtime 1.19.2 and odt.

ORT's nominal_checkpoint (training_api) and the default model's (make_default.py
--nominal-checkpoint) load in odt as nominal states; odt-run refuses to train or
evaluate on one with an error that says so; through odt's C API a session on the
nominal state, completed with OdtCopyBufferToParameters(trainable_only=false) from the
full checkpoint's OdtCopyParametersToBuffer(trainable_only=false), trains to exactly the
losses of a session on the full checkpoint, and to ORT's losses for the same procedure
(ORT: Module on the nominal state, copy_buffer_to_parameters(buffer, False), then the
Optimizer). The completed state, saved, is a full checkpoint that ORT loads.

ORT note: an ORT Optimizer created over a nominal state defers building its state; its
set_learning_rate() then crashes the process (segmentation fault, 1.19.2), and so does a
train step after a failed one on the nominal module. The ORT reference below therefore
creates the Optimizer after completing the state.
"""

import os
import unittest

import numpy as np

import interop_env as E

RTOL = 1e-5  # see test_resume.py
STEPS = 3


class _Nominal:
    model = None
    lr = None

    @classmethod
    def setUpClass(cls):
        cls.m = cls.model()
        cls.tmp = E.make_tmpdir(cls)
        cls.run_args, cls.specs = cls.m.input_files(cls.tmp)
        cls.saved = os.path.join(cls.tmp, "completed.ckpt")
        cls.names = [p["name"] for p in E.odtc.read_checkpoint(cls.m.checkpoint)["params"]]
        # ORT's reference: the same procedure in ORT.
        full = E.OrtTrainer(cls.m, cls.m.checkpoint)
        cls.ort_size = full.module.get_parameters_size(False)
        buffer = full.module.get_contiguous_parameters(False)
        state = E.ort.CheckpointState.load_checkpoint(cls.m.nominal)
        module = E.ort.Module(cls.m.train, state, cls.m.eval, "cpu")
        module.copy_buffer_to_parameters(buffer, False)
        nominal = E.OrtTrainer.__new__(E.OrtTrainer)
        nominal.model, nominal.state, nominal.module = cls.m, state, module
        nominal.optimizer = E.ort.Optimizer(cls.m.optimizer, module)
        nominal.optimizer.set_learning_rate(cls.lr)
        cls.ort_losses = nominal.train(STEPS)

    def setUp(self):
        E.check_prerequisites(self, self.m)

    def nominal_run(self):
        """odt_interop_driver nominal: the C API procedure (cached per class)."""
        cls = type(self)
        if not hasattr(cls, "_nominal"):
            p = E.run([E.DRIVER, "nominal", self.m.odt_dir, self.m.nominal, self.m.checkpoint,
                       STEPS, repr(self.lr), self.saved] + self.specs)
            cls._nominal = (p, E.json_lines(p.stdout))
        p, lines = cls._nominal
        self.assertEqual(p.returncode, 0, "odt_interop_driver nominal failed:\n%s%s"
                         % (p.stdout, p.stderr))
        return lines

    def test_loads_as_nominal(self):
        entries = E.driver(self, "params", self.m.nominal, self.tmp, *self.names)
        self.assertEqual([e["name"] for e in entries], self.names)
        for e in entries:
            self.assertTrue(e.get("nominal"), e)
            self.assertEqual((e["dtype"], e["rank"]), ("float32", 0), e)

    def test_odt_run_refuses_nominal(self):
        for command in ("train", "eval"):
            p = E.odt_run(command, self.m.odt_dir, "--checkpoint", self.m.nominal,
                          *self.run_args)
            self.assertEqual(p.returncode, 1, (command, p.stdout, p.stderr))
            self.assertEqual(p.stdout, "", command)
            self.assertIn("nominal", p.stderr,
                          "odt-run %s on a nominal checkpoint should say that the checkpoint "
                          "is nominal; it says: %s" % (command, p.stderr.strip()))

    def test_sizes(self):
        sizes = self.nominal_run()[0]
        self.assertEqual(sizes["nominal_size"], self.ort_size, sizes)
        self.assertEqual(sizes["full_size"], self.ort_size, sizes)
        self.assertEqual(sizes["nominal_trainable_size"], sizes["full_trainable_size"], sizes)

    def test_train_step_before_completion_fails(self):
        message = self.nominal_run()[1]["train_before_complete"]
        self.assertIsNotNone(message, "OdtTrainStep on a nominal state succeeded")
        self.assertIn("nominal", message)

    def test_completed_state_trains_like_full(self):
        steps = self.nominal_run()[2:]
        self.assertEqual([s["step"] for s in steps], list(range(1, STEPS + 1)))
        full = [s["full"] for s in steps]
        nominal = [s["nominal"] for s in steps]
        print("\n" + E.loss_table("%s: nominal completed through the C API, lr %g"
                                  % (self.m.name, self.lr),
                                  [("ORT nominal", self.ort_losses), ("odt full", full),
                                   ("odt nominal", nominal)]), flush=True)
        self.assertEqual(nominal, full)  # same code, same parameters: bit for bit
        np.testing.assert_allclose(np.float32(nominal), np.float32(self.ort_losses),
                                   rtol=RTOL, atol=0)

    def test_completed_state_saved_loads_in_ort(self):
        self.nominal_run()
        ck = E.odtc.read_checkpoint(self.saved)
        self.assertFalse(ck["is_nominal"])
        self.assertEqual(ck["optimizer_groups"][0]["step"], STEPS)
        state = E.ort.CheckpointState.load_checkpoint(self.saved)
        odt_params = E.odt_parameters(self, self.saved, self.names, self.tmp)
        for name, p in state.parameters:
            np.testing.assert_array_equal(p.data, odt_params[name], err_msg=name)


class OrtMlpNominal(_Nominal, unittest.TestCase):
    model = staticmethod(E.ort_mlp)
    lr = 2e-4


class DefaultModelNominal(_Nominal, unittest.TestCase):
    model = staticmethod(E.default_model)
    lr = 0.01


if __name__ == "__main__":
    unittest.main()
