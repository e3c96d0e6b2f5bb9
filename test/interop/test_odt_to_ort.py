"""Checkpoints written by odt load in ONNX Runtime 1.19.2.

odt-run trains (ORT's MLP and the default model) and saves with --save (parameters,
optimizer state, odt.learning_rate); the C driver adds int, float and string properties
through OdtAddProperty and saves with OdtSaveCheckpoint(include_optimizer_state=true).
ORT loads the result: parameters equal odt's bit for bit, the properties read back
through state.properties, and the optimizer state is there: an ORT Optimizer created
over the state and saved again without a step writes odt's step count and momentums
back unchanged (the Python API has no getter for them), and ORT's eval loss equals
odt's.
"""

import os
import unittest

import numpy as np

import interop_env as E

RTOL = 1e-5  # see test_resume.py
PROPS = [("i", "epoch", 12), ("i", "big", 2 ** 40 + 7), ("f", "best_loss", 0.25),
         ("s", "note", "saved by odt's C API \u2713")]


class _OdtToOrt:
    model = None
    lr = None
    steps = 3

    @classmethod
    def setUpClass(cls):
        cls.m = cls.model()
        cls.tmp = E.make_tmpdir(cls)
        cls.run_args, _ = cls.m.input_files(cls.tmp)
        cls.trained = os.path.join(cls.tmp, "odt_trained.ckpt")
        cls.with_props = os.path.join(cls.tmp, "odt_props.ckpt")

    def setUp(self):
        E.check_prerequisites(self, self.m)
        cls = type(self)
        if not hasattr(cls, "odt_ckpt"):
            E.odt_train(self, self.m, self.run_args, self.m.checkpoint, self.steps, self.lr,
                        save=self.trained)
            E.driver(self, "addprops", self.trained, self.with_props,
                     *["%s:%s=%s" % p for p in PROPS])
            cls.odt_ckpt = E.odtc.read_checkpoint(self.with_props)

    def test_parameters(self):
        names = [p["name"] for p in self.odt_ckpt["params"]]
        odt = E.odt_parameters(self, self.with_props, names, self.tmp)
        state = E.ort.CheckpointState.load_checkpoint(self.with_props)
        self.assertEqual(sorted(n for n, _ in state.parameters), sorted(names))
        for name, p in state.parameters:
            self.assertTrue(p.requires_grad, name)
            np.testing.assert_array_equal(p.data, odt[name], err_msg=name)

    def test_properties(self):
        state = E.ort.CheckpointState.load_checkpoint(self.with_props)
        props = dict(state.properties)
        for kind, name, value in PROPS:
            self.assertIn(name, props)
            if kind == "f":
                self.assertIsInstance(props[name], float)
                self.assertEqual(np.float32(props[name]), np.float32(value))
            else:
                self.assertEqual(props[name], value)
                self.assertIsInstance(props[name], int if kind == "i" else str)
        # odt's own learning rate property is an ordinary float property to ORT.
        self.assertAlmostEqual(props["odt.learning_rate"], self.lr, delta=self.lr * 1e-6)

    def test_optimizer_state(self):
        group = self.odt_ckpt["optimizer_groups"][0]
        self.assertEqual((group["group_name"], group["step"]), ("group0", self.steps))
        trainer = E.OrtTrainer(self.m, self.with_props)
        # The learning rate is not resumed (ORT's default, not odt.learning_rate).
        self.assertAlmostEqual(trainer.optimizer.get_learning_rate(), E.ORT_DEFAULT_LR,
                               delta=1e-9)
        again = os.path.join(self.tmp, "ort_again.ckpt")
        trainer.save(again)
        ort_group = E.odtc.read_checkpoint(again)["optimizer_groups"][0]
        self.assertEqual(ort_group["step"], self.steps)
        self.assertEqual(sorted(ort_group["states"]), sorted(group["states"]))
        for param, moms in group["states"].items():
            self.assertEqual(sorted(moms), ["momentum0", "momentum1"], param)
            for name, value in moms.items():
                self.assertTrue(np.any(value != 0), (param, name))
                np.testing.assert_array_equal(ort_group["states"][param][name], value,
                                              err_msg="%s %s" % (param, name))

    def test_eval_loss(self):
        p = E.odt_run("eval", self.m.odt_dir, "--checkpoint", self.with_props, "--json",
                      *self.run_args)
        self.assertEqual(p.returncode, 0, p.stderr)
        odt_loss = list(E.json_lines(p.stdout)[0]["outputs"].values())[0]
        state = E.ort.CheckpointState.load_checkpoint(self.with_props)
        module = E.ort.Module(self.m.train, state, self.m.eval, "cpu")
        module.eval()
        ort_loss = float(module(*self.m.inputs.values()))
        np.testing.assert_allclose(np.float32(odt_loss), np.float32(ort_loss), rtol=RTOL)


class OrtMlpToOrt(_OdtToOrt, unittest.TestCase):
    model = staticmethod(E.ort_mlp)
    lr = 2e-4


class DefaultModelToOrt(_OdtToOrt, unittest.TestCase):
    model = staticmethod(E.default_model)
    lr = 0.01


if __name__ == "__main__":
    unittest.main()
