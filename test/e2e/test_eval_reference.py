#!/usr/bin/env python3
"""EvalStep of ORT's compiled MLP against the NumPy reference: batches of 1, 2 and 7
random inputs (seeded), INT32 labels in [0, 10) as ORT's model declares, all through the
one compiled model (its batch dim is symbolic). The loss odt-run writes with --output
must match test/reference/mlp_reference.py's forward_loss, evaluated with the
checkpoint's parameters as scripts/odtc.py reads them, to 1e-5 relative."""

import os
import unittest

import numpy as np
import onnx

import e2e_env as env

REL_TOLERANCE = 1e-5
BATCHES = (1, 2, 7)


class EvalMatchesReference(unittest.TestCase):
    def setUp(self):
        env.check_prerequisites(self)
        self.tmp = env.make_tmpdir(self)
        ckpt = env.odtc.read_checkpoint(env.ORT_CHECKPOINT)
        self.params = env.odtc.params_dict(ckpt)
        evalm = onnx.load(os.path.join(env.ORT_TAPI, "eval_model.onnx"))
        (self.loss_name,) = [o.name for o in evalm.graph.output]
        labels = [i for i in evalm.graph.input if i.name == "labels"][0]
        self.assertEqual(labels.type.tensor_type.elem_type, onnx.TensorProto.INT32)
        self.classes = self.params["fc2.bias"].shape[0]
        self.features = self.params["fc1.weight"].shape[1]

    def test_batches(self):
        for batch in BATCHES:
            with self.subTest(batch=batch):
                rng = np.random.default_rng(20240923 + batch)
                x = rng.standard_normal((batch, self.features)).astype(np.float32)
                labels = rng.integers(0, self.classes, batch).astype(np.int32)
                xf = os.path.join(self.tmp, "x%d.npy" % batch)
                lf = os.path.join(self.tmp, "labels%d.npy" % batch)
                of = os.path.join(self.tmp, "loss%d.npy" % batch)
                np.save(xf, x)
                np.save(lf, labels)
                r = env.odt_run("eval", env.ORT_MLP, "--checkpoint", env.ORT_CHECKPOINT,
                                "--input", "input-0=" + xf, "--input", "labels=" + lf,
                                "--output", "%s=%s" % (self.loss_name, of), "--json")
                self.assertEqual(r.returncode, 0, r.stderr)
                loss = np.load(of)
                self.assertEqual(loss.dtype, np.float32)
                self.assertEqual(loss.shape, ())
                (line,) = env.json_lines(r.stdout)
                # --json prints the shortest decimal that reads back as the float32.
                self.assertEqual(list(line["outputs"]), [self.loss_name])
                self.assertEqual(np.float32(line["outputs"][self.loss_name]), loss)
                want, _ = env.reference.forward_loss(self.params, x, labels)
                rel = abs(float(loss) - want) / abs(want)
                print("eval batch %d: odt %.9g, reference %.9g, relative error %.3g"
                      % (batch, float(loss), want, rel))
                self.assertLessEqual(rel, REL_TOLERANCE)


if __name__ == "__main__":
    unittest.main()
