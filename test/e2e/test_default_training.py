#!/usr/bin/env python3
"""odt's default model (examples/default, generated and compiled at build time) trained
20 steps by odt-run at lr 0.01 on its training data. Each step's loss must match the
NumPy reference's `train` (same checkpoint, data and AdamW attributes, the latter read
from the optimizer graph) within 1e-4 relative, and the loss must fall."""

import os
import unittest

import numpy as np
import onnx
from onnx import helper as oh

import e2e_env as env

STEPS = 20
LR = 0.01
REL_TOLERANCE = 1e-4

DEFAULT_MODEL = os.path.join(env.MODELS_DIR, "default")
DEFAULT_DATA = os.path.join(env.ARTIFACTS_DIR, "default")


def adamw_attributes(path):
    """The AdamWOptimizer attributes of an optimizer graph, as mlp_reference's kwargs."""
    (node,) = onnx.load(path).graph.node
    assert node.op_type == "AdamWOptimizer", node.op_type
    a = {attr.name: oh.get_attribute_value(attr) for attr in node.attribute}
    return dict(alpha=a.get("alpha", 0.9), beta=a.get("beta", 0.999),
                eps=a.get("epsilon", 1e-8), weight_decay=a.get("weight_decay", 1e-2),
                correct_bias=bool(a.get("correct_bias", 1)), adam_mode=a.get("adam_mode", 0))


class DefaultModelTraining(unittest.TestCase):
    def setUp(self):
        env.check_prerequisites(self)
        self.assertTrue(os.path.exists(os.path.join(DEFAULT_MODEL, "libmodel.so")))
        self.checkpoint = os.path.join(DEFAULT_DATA, "checkpoint")
        self.params = env.odtc.params_dict(env.odtc.read_checkpoint(self.checkpoint))

    def data(self, split):
        x = os.path.join(DEFAULT_DATA, split + "_input.npy")
        y = os.path.join(DEFAULT_DATA, split + "_labels.npy")
        return x, y, np.load(x), np.load(y)

    def test_twenty_adamw_steps_match_the_reference(self):
        xf, yf, x, y = self.data("train")
        r = env.odt_run("train", DEFAULT_MODEL, "--checkpoint", self.checkpoint,
                        "--input", "input=" + xf, "--input", "labels=" + yf,
                        "--steps", STEPS, "--lr", LR, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = env.json_lines(r.stdout)
        self.assertEqual([line["step"] for line in lines], list(range(1, STEPS + 1)))
        odt = [line["loss"] for line in lines]

        kwargs = adamw_attributes(os.path.join(DEFAULT_DATA, "optimizer_model.onnx"))
        ref = env.reference.train(self.params, x, y, STEPS, LR, **kwargs)
        worst = 0.0
        for step, (got, want) in enumerate(zip(odt, ref), start=1):
            rel = abs(got - want) / abs(want)
            worst = max(worst, rel)
            self.assertLessEqual(rel, REL_TOLERANCE,
                                 "step %d: odt %r, reference %r" % (step, got, want))
        print("default model, %d AdamW steps (%s): loss %.6g -> %.6g, max relative "
              "error vs reference %.3g" % (STEPS, kwargs, odt[0], odt[-1], worst))
        self.assertLess(odt[-1], 0.5 * odt[0], odt)
        self.assertLess(np.mean(odt[-5:]), np.mean(odt[:5]), odt)

    def test_eval_matches_the_reference(self):
        xf, yf, x, y = self.data("eval")
        r = env.odt_run("eval", DEFAULT_MODEL, "--checkpoint", self.checkpoint,
                        "--input", "input=" + xf, "--input", "labels=" + yf, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        (line,) = env.json_lines(r.stdout)
        want, _ = env.reference.forward_loss(self.params, x, y)
        self.assertLessEqual(abs(line["outputs"]["loss"] - want) / want, 1e-5, line)


if __name__ == "__main__":
    unittest.main()
