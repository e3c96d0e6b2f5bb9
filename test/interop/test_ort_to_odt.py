"""Checkpoints written by ONNX Runtime 1.19.2 load in odt.

  - ORT's own test checkpoints, read in place: training_api/checkpoint.ckpt (the MLP),
    nominal_checkpoint (test_nominal.py covers it further), ort_format/checkpoint
    (trainable and frozen parameters): odt's C API (OdtLoadCheckpoint, OdtGetParameter)
    sees the parameters ORT sees, bit for bit; odt-run eval on checkpoint.ckpt gives
    ORT's eval loss.
  - A checkpoint ORT saves after training with optimizer state and int, float and
    string properties: odt reads the properties (OdtGetProperty) and parameters, odt-run
    eval gives ORT's eval loss, odt-run train --resume continues at ORT's step count
    and keeps the properties in what it saves.
"""

import os
import unittest

import numpy as np

import interop_env as E

RTOL = 1e-5  # see test_resume.py
# The properties ORT writes: an int64 beyond 32 bits, a float (stored as float32) and
# a non-ASCII string.
PROPS = {"epoch": -(2 ** 40) - 3, "best_loss": 0.1, "note": "trained by ORT, \u00e9t\u00e9 \u2713"}


def ort_eval_loss(model, checkpoint):
    state = E.ort.CheckpointState.load_checkpoint(checkpoint)
    module = E.ort.Module(model.train, state, model.eval, "cpu")
    module.eval()
    return float(module(*model.inputs.values()))


def first_output(stdout):
    """The eval model's first output (the loss) in odt-run eval --json's line."""
    return list(E.json_lines(stdout)[0]["outputs"].values())[0]


def ort_parameters(checkpoint):
    state = E.ort.CheckpointState.load_checkpoint(checkpoint)
    return {name: (p.data.copy(), p.requires_grad) for name, p in state.parameters}


class OrtTestCheckpoints(unittest.TestCase):
    def setUp(self):
        self.tmp = E.make_tmpdir(self)
        self.m = E.ort_mlp()
        E.check_prerequisites(self, self.m)

    def check_parameters(self, checkpoint):
        ort_params = ort_parameters(checkpoint)
        self.assertTrue(ort_params)
        odt = E.odt_parameters(self, checkpoint, list(ort_params), self.tmp)
        for name, (value, _) in ort_params.items():
            self.assertEqual(odt[name].dtype, value.dtype, name)
            np.testing.assert_array_equal(odt[name], value, err_msg=name)
        return ort_params

    def test_mlp_checkpoint(self):
        params = self.check_parameters(self.m.checkpoint)
        self.assertEqual(sorted(params), ["fc1.bias", "fc1.weight", "fc2.bias", "fc2.weight"])

    def test_mlp_checkpoint_eval_loss(self):
        run_args, _ = self.m.input_files(self.tmp)
        p = E.odt_run("eval", self.m.odt_dir, "--checkpoint", self.m.checkpoint, "--json",
                      *run_args)
        self.assertEqual(p.returncode, 0, p.stderr)
        odt_loss = first_output(p.stdout)
        ort_loss = ort_eval_loss(self.m, self.m.checkpoint)
        np.testing.assert_allclose(np.float32(odt_loss), np.float32(ort_loss), rtol=RTOL)

    def test_ort_format_checkpoint(self):
        # Frozen fc1.*, trainable fc2.*; no model for it here: parameters only.
        params = self.check_parameters(os.path.join(E.ORT_TAPI, "ort_format", "checkpoint"))
        self.assertEqual({n: g for n, (_, g) in params.items()},
                         {"fc1.weight": False, "fc1.bias": False, "fc2.weight": True,
                          "fc2.bias": True})

    def test_nominal_checkpoint_loads(self):
        entries = E.driver(self, "params", self.m.nominal, self.tmp,
                           "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")
        self.assertTrue(all(e.get("nominal") and e["dtype"] == "float32" for e in entries),
                        entries)


class OrtTrainedCheckpoint(unittest.TestCase):
    """ORT trains 3 steps at lr 2e-4, adds properties and saves with optimizer state."""
    steps, lr = 3, 2e-4

    @classmethod
    def setUpClass(cls):
        cls.m = E.ort_mlp()
        cls.tmp = E.make_tmpdir(cls)
        cls.run_args, _ = cls.m.input_files(cls.tmp)
        trainer = E.OrtTrainer(cls.m, cls.m.checkpoint)
        trainer.optimizer.set_learning_rate(cls.lr)
        trainer.train(cls.steps)
        for name, value in PROPS.items():
            trainer.state.properties[name] = value
        cls.path = os.path.join(cls.tmp, "ort_trained.ckpt")
        trainer.save(cls.path)
        cls.params = trainer.parameters()
        trainer.module.eval()
        cls.eval_loss = float(trainer.module(*cls.m.inputs.values()))
        cls.next_losses = trainer.train(2)

    def setUp(self):
        E.check_prerequisites(self, self.m)

    def test_file_has_optimizer_state(self):
        ck = E.odtc.read_checkpoint(self.path)
        self.assertEqual([(g["group_name"], g["step"]) for g in ck["optimizer_groups"]],
                         [("group0", self.steps)])

    def test_properties(self):
        got = {e["name"]: e for e in E.driver(self, "props", self.path, *PROPS)}
        self.assertEqual(got["epoch"].get("type"), "int", got["epoch"])
        self.assertEqual(got["epoch"]["value"], PROPS["epoch"])
        self.assertEqual(got["best_loss"].get("type"), "float", got["best_loss"])
        self.assertEqual(np.float32(got["best_loss"]["value"]), np.float32(PROPS["best_loss"]))
        self.assertEqual(got["note"].get("type"), "string", got["note"])
        self.assertEqual(got["note"]["value"], PROPS["note"])

    def test_parameters(self):
        odt = E.odt_parameters(self, self.path, list(self.params), self.tmp)
        for name, value in self.params.items():
            np.testing.assert_array_equal(odt[name], value, err_msg=name)

    def test_eval(self):
        p = E.odt_run("eval", self.m.odt_dir, "--checkpoint", self.path, "--json",
                      *self.run_args)
        self.assertEqual(p.returncode, 0, p.stderr)
        loss = first_output(p.stdout)
        np.testing.assert_allclose(np.float32(loss), np.float32(self.eval_loss), rtol=RTOL)

    def test_resume_keeps_step_losses_and_properties(self):
        saved = os.path.join(self.tmp, "odt_resumed.ckpt")
        lines = E.odt_train(self, self.m, self.run_args, self.path, 2, self.lr, save=saved,
                            resume=True)
        self.assertEqual([e["step"] for e in lines], [self.steps + 1, self.steps + 2])
        np.testing.assert_allclose(np.float32([e["loss"] for e in lines]),
                                   np.float32(self.next_losses), rtol=RTOL)
        # ORT keeps a checkpoint's properties when it saves; so must odt.
        got = {e["name"]: e for e in E.driver(self, "props", saved, *PROPS)}
        for name in PROPS:
            self.assertIn("value", got[name], "odt dropped property %s: %s" % (name, got[name]))
        self.assertEqual(got["note"]["value"], PROPS["note"])
        self.assertEqual(E.odtc.read_checkpoint(saved)["properties"]["epoch"], PROPS["epoch"])


if __name__ == "__main__":
    unittest.main()
