#!/usr/bin/env python3
"""Tests of the NumPy reference test/reference/mlp_reference.py (against ORT's golden
losses, finite differences and PyTorch-made optimizer trajectories), of
scripts/ort_text_to_npy.py, and of odt's default model examples/default/make_default.py
(against ORT's example artifacts and, through a NumPy interpreter of its graphs,
against the reference).

Run: /usr/bin/python3 -m unittest discover -s test/python -v   (from the project root)
ORT's files are read in place from ../shared/conformance/ort (never copied).
"""

import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def _find_conformance():
    for c in (os.environ.get("ODT_ORT_CONFORMANCE"),
              os.path.join(ROOT, "..", "shared", "conformance", "ort"),
              "/work/shared/conformance/ort"):
        if c and os.path.isdir(c):
            return os.path.normpath(c)
    return None


ORT = _find_conformance()
TAPI = os.path.join(ORT, "training_api") if ORT else None
GEN = os.path.join(ORT, "test_data_generation") if ORT else None


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


REF_PATH = os.path.join(ROOT, "test", "reference", "mlp_reference.py")
T2N_PATH = os.path.join(ROOT, "scripts", "ort_text_to_npy.py")
MAKE_PATH = os.path.join(ROOT, "examples", "default", "make_default.py")
odtc = _load("odtc", os.path.join(ROOT, "scripts", "odtc.py"))
ref = _load("mlp_reference", REF_PATH)
t2n = _load("ort_text_to_npy", T2N_PATH)
make_default = _load("make_default", MAKE_PATH)

# ORT's golden values (onnxruntime/test/testdata/training_api/loss_{1,2}.out).
GOLDEN_LOSS_1 = 2.1786249
GOLDEN_LOSS_2 = 0.36050943

# Tolerances for the optimizer trajectories: |got - want| <= ATOL + RTOL * |want|.
# ORT's own test allows rtol 1e-4 / atol 1e-5 on weights; the float32 reference lands
# within ~0.2 of these tighter bounds.
ATOL, RTOL = 1e-6, 1e-5


def _random_params(rng, n_in, n_hidden, n_out, dtype=np.float64):
    return {"fc1.weight": rng.standard_normal((n_hidden, n_in)).astype(dtype) * 0.5,
            "fc1.bias": rng.standard_normal(n_hidden).astype(dtype) * 0.1,
            "fc2.weight": rng.standard_normal((n_out, n_hidden)).astype(dtype) * 0.5,
            "fc2.bias": rng.standard_normal(n_out).astype(dtype) * 0.1}


@unittest.skipIf(ORT is None, "ORT conformance data not found")
class OrtGolden(unittest.TestCase):
    """ORT's own golden recipe: checkpoint.ckpt, input-0.in, labels {1, 1}."""

    @classmethod
    def setUpClass(cls):
        cls.params = odtc.params_dict(odtc.read_checkpoint(os.path.join(TAPI, "checkpoint.ckpt")))
        cls.x = t2n.load_ort_text(os.path.join(TAPI, "input-0.in"), (2, 784), "float32")
        cls.labels = np.array([1, 1], dtype=np.int32)

    def test_golden_files(self):
        l1 = t2n.load_ort_text(os.path.join(TAPI, "loss_1.out"), (), "float32")
        l2 = t2n.load_ort_text(os.path.join(TAPI, "loss_2.out"), (), "float32")
        self.assertEqual(float(l1), np.float32(GOLDEN_LOSS_1))
        self.assertEqual(float(l2), np.float32(GOLDEN_LOSS_2))

    def test_first_loss(self):
        loss, log_prob = ref.forward_loss(self.params, self.x, self.labels)
        self.assertAlmostEqual(loss / GOLDEN_LOSS_1, 1.0, delta=1e-5)
        self.assertEqual(log_prob.shape, (2, 10))
        np.testing.assert_allclose(np.exp(log_prob).sum(axis=1), 1.0, rtol=1e-12)

    def test_loss_after_one_adamw_step(self):
        # TrainStep, (LazyResetGrad, TrainStep: the same loss), OptimizerStep at lr
        # 0.001 with adamw.onnx's attributes, TrainStep.
        losses = ref.train(self.params, self.x, self.labels, 2, 0.001, adam_mode=1,
                           eps=1e-6, weight_decay=0.0)
        self.assertAlmostEqual(losses[0] / GOLDEN_LOSS_1, 1.0, delta=1e-5)
        self.assertAlmostEqual(losses[1] / GOLDEN_LOSS_2, 1.0, delta=1e-5)

    def test_cli(self):
        tmp = tempfile.mkdtemp()
        try:
            x, lab = os.path.join(tmp, "x.npy"), os.path.join(tmp, "l.npy")
            subprocess.run([sys.executable, T2N_PATH, os.path.join(TAPI, "input-0.in"), x,
                            "--shape", "2,784"], check=True)
            np.save(lab, self.labels)
            ckpt = os.path.join(TAPI, "checkpoint.ckpt")
            r = subprocess.run([sys.executable, REF_PATH, "--checkpoint", ckpt, "--input", x,
                                "--labels", lab, "--steps", "2", "--lr", "0.001",
                                "--adam-mode", "1", "--save-checkpoint",
                                os.path.join(tmp, "out.ckpt")],
                               check=True, capture_output=True, text=True)
            lines = [json.loads(s) for s in r.stdout.splitlines()]
            self.assertEqual([d["step"] for d in lines], [1, 2])
            self.assertAlmostEqual(lines[0]["loss"] / GOLDEN_LOSS_1, 1.0, delta=1e-5)
            self.assertAlmostEqual(lines[1]["loss"] / GOLDEN_LOSS_2, 1.0, delta=1e-5)
            saved = odtc.read_checkpoint(os.path.join(tmp, "out.ckpt"))
            self.assertEqual(saved["optimizer_groups"][0]["step"], 2)
            self.assertEqual(sorted(saved["optimizer_groups"][0]["states"]["fc1.bias"]),
                             ["momentum0", "momentum1"])
            r = subprocess.run([sys.executable, REF_PATH, "--checkpoint", ckpt, "--input", x,
                                "--labels", lab, "--eval"],
                               check=True, capture_output=True, text=True)
            self.assertAlmostEqual(json.loads(r.stdout)["loss"] / GOLDEN_LOSS_1, 1.0, delta=1e-5)
        finally:
            shutil.rmtree(tmp)


class Gradients(unittest.TestCase):
    def _finite_difference(self, params, x, labels, reduction, h=1e-6):
        num = {}
        for k, v in params.items():
            g = np.zeros_like(v)
            for idx in np.ndindex(v.shape):
                old = v[idx]
                v[idx] = old + h
                lp = ref.forward_loss(params, x, labels, reduction)[0]
                v[idx] = old - h
                lm = ref.forward_loss(params, x, labels, reduction)[0]
                v[idx] = old
                g[idx] = (lp - lm) / (2 * h)
            num[k] = g
        return num

    def test_against_finite_differences(self):
        rng = np.random.default_rng(42)
        for reduction in ("mean", "sum"):
            with self.subTest(reduction=reduction):
                params = _random_params(rng, 5, 7, 3)
                x = rng.standard_normal((6, 5))
                labels = rng.integers(0, 3, 6)
                # Keep away from ReLU kinks, where finite differences are meaningless.
                z1 = x @ params["fc1.weight"].T + params["fc1.bias"]
                self.assertGreater(np.min(np.abs(z1)), 1e-3)
                analytic = ref.gradients(params, x, labels, reduction)
                numeric = self._finite_difference(params, x, labels, reduction)
                self.assertEqual(sorted(analytic), sorted(ref.PARAM_NAMES))
                for k in ref.PARAM_NAMES:
                    self.assertEqual(analytic[k].shape, params[k].shape)
                    np.testing.assert_allclose(analytic[k], numeric[k], rtol=1e-6, atol=1e-8,
                                               err_msg=k)

    def test_mean_is_sum_over_n(self):
        rng = np.random.default_rng(3)
        params = _random_params(rng, 4, 6, 3)
        x, labels = rng.standard_normal((5, 4)), rng.integers(0, 3, 5)
        gm, gs = ref.gradients(params, x, labels, "mean"), ref.gradients(params, x, labels, "sum")
        for k in gm:
            np.testing.assert_allclose(gm[k] * 5, gs[k], rtol=1e-12)
        lm = ref.forward_loss(params, x, labels, "mean")[0]
        ln = ref.forward_loss(params, x, labels, "none")[0]
        self.assertEqual(ln.shape, (5,))
        self.assertAlmostEqual(lm, ln.mean(), places=12)

    def test_forward_matches_definition(self):
        rng = np.random.default_rng(5)
        params = _random_params(rng, 4, 6, 3, np.float32)
        x, labels = rng.standard_normal((5, 4)).astype(np.float32), rng.integers(0, 3, 5)
        p = {k: v.astype(np.float64) for k, v in params.items()}
        h = np.maximum(x @ p["fc1.weight"].T + p["fc1.bias"], 0)
        y = h @ p["fc2.weight"].T + p["fc2.bias"]
        prob = np.exp(y) / np.exp(y).sum(axis=1, keepdims=True)
        want = -np.mean(np.log(prob[np.arange(5), labels]))
        self.assertAlmostEqual(ref.forward_loss(params, x, labels)[0], want, places=12)
        np.testing.assert_allclose(ref.logits(params, x), y, rtol=1e-12)


def _trajectory(path, with_moments):
    with open(path) as f:
        d = json.load(f)
    keys = ("Parameters", "Gradients") + (("Momentum1s", "Momentum2s") if with_moments else ())
    return tuple({k: [np.array(s, dtype=np.float64) for s in v] for k, v in d[key].items()}
                 for key in keys)


# ORT's test settings for these files (orttraining/.../optimizer/adamw_test.cc):
# mode 0 = torch.optim.AdamW defaults, mode 1 = transformers.AdamW; lr 1e-3.
ADAMW_SETTINGS = {0: dict(alpha=0.9, beta=0.999, eps=1e-8, weight_decay=1e-2, adam_mode=0),
                  1: dict(alpha=0.9, beta=0.999, eps=1e-6, weight_decay=0.0, adam_mode=1)}


@unittest.skipIf(ORT is None, "ORT conformance data not found")
class Optimizers(unittest.TestCase):
    def _close(self, got, want, what):
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)

    def test_adamw_against_pytorch(self):
        files = sorted(glob.glob(os.path.join(GEN, "adamw_test", "*", "*.json")))
        self.assertEqual(len([f for f in files if os.sep + "cpu" + os.sep in f]), 4)
        for path in files:
            mode = int(path[-len("0.json")])
            kw = ADAMW_SETTINGS[mode]
            P, G, M1, M2 = _trajectory(path, True)
            names = list(P)
            self.assertEqual(len(P[names[0]]), 11)
            self.assertEqual(len(G[names[0]]), 10)
            chained = ({k: P[k][0] for k in names}, {k: M1[k][0] for k in names},
                       {k: M2[k][0] for k in names})
            for s in range(10):
                at = lambda D, i: {k: D[k][i] for k in names}  # noqa: E731
                # From the recorded state of step s (ORT's "baseline inputs" test) ...
                p, m1, m2 = ref.adamw_step(at(P, s), at(G, s), at(M1, s), at(M2, s), s + 1,
                                           1e-3, **kw)
                # ... and carrying our own state across all 10 steps ("strict" test).
                chained = ref.adamw_step(chained[0], at(G, s), chained[1], chained[2], s + 1,
                                         1e-3, **kw)
                for k in names:
                    tag = "%s step %d %s" % (os.path.relpath(path, GEN), s + 1, k)
                    self._close(p[k], P[k][s + 1], tag + " weight")
                    self._close(m1[k], M1[k][s + 1], tag + " m1")
                    self._close(m2[k], M2[k][s + 1], tag + " m2")
                    self._close(chained[0][k], P[k][s + 1], tag + " weight (chained)")
                    self._close(chained[1][k], M1[k][s + 1], tag + " m1 (chained)")
                    self._close(chained[2][k], M2[k][s + 1], tag + " m2 (chained)")

    def test_sgd_against_pytorch(self):
        files = sorted(glob.glob(os.path.join(GEN, "sgd_test", "*", "*.json")))
        self.assertEqual(len([f for f in files if os.sep + "cpu" + os.sep in f]), 2)
        for path in files:
            P, G = _trajectory(path, False)
            names = list(P)
            chained = {k: P[k][0] for k in names}
            for s in range(10):
                p = ref.sgd_step({k: P[k][s] for k in names}, {k: G[k][s] for k in names}, 1e-3)
                chained = ref.sgd_step(chained, {k: G[k][s] for k in names}, 1e-3)
                for k in names:
                    self._close(p[k], P[k][s + 1], "%s step %d %s" % (path, s + 1, k))
                    self._close(chained[k], P[k][s + 1], "%s step %d %s chained" % (path, s + 1, k))


class AdamWFormulas(unittest.TestCase):
    """adamw_step against the formulas of docs/ORT-FACTS.md §2, evaluated in float64."""

    def _f64_step(self, w, g, m, v, t, lr, a1, b2, eps, wd, c, mode):
        a = 1 - a1 ** t if c else 1.0
        b = 1 - b2 ** t if c else 1.0
        if mode == 0:
            w = w - lr * wd * w
        m = a1 * m + (1 - a1) * g
        v = b2 * v + (1 - b2) * g * g
        if mode == 0:
            w = w - lr * m / (a * (np.sqrt(v / b) + eps))
        else:
            w = w - (lr * np.sqrt(b) / a) * m / (np.sqrt(v) + eps)
            w = w - lr * wd * w
        return w, m, v

    def test_both_modes(self):
        rng = np.random.default_rng(9)
        for mode in (0, 1):
            for c in (True, False):
                for wd in (0.0, 0.05):
                    with self.subTest(mode=mode, correct_bias=c, wd=wd):
                        w = {"p": rng.standard_normal(20)}
                        m = {"p": rng.standard_normal(20) * 0.1}
                        v = {"p": rng.random(20) * 0.1}
                        g = {"p": rng.standard_normal(20)}
                        got = ref.adamw_step(w, g, m, v, 3, 0.01, 0.9, 0.999, 1e-6, wd, c, mode)
                        want = self._f64_step(w["p"], g["p"], m["p"], v["p"], 3, 0.01, 0.9,
                                              0.999, 1e-6, wd, c, mode)
                        for x, y in zip(got, want):
                            self.assertEqual(x["p"].dtype, np.float32)
                            np.testing.assert_allclose(x["p"], y, rtol=2e-6, atol=1e-7)

    def test_first_step_moves_by_lr(self):
        # With bias correction, step 1 of Adam moves each weight by
        # lr * g / (|g| + eps / sqrt(1 - beta)) ~ lr * sign(g) (within 1e-3 here).
        g = {"p": np.array([0.3, -2.0, 5e-2], np.float32)}
        z = {"p": np.zeros(3, np.float32)}
        w, _, _ = ref.adamw_step(z, g, z, z, 1, 0.01)
        np.testing.assert_allclose(w["p"], -0.01 * np.sign(g["p"]), rtol=1e-3)

    def test_inputs_unchanged(self):
        w = {"p": np.ones(3, np.float32)}
        before = w["p"].copy()
        ref.adamw_step(w, {"p": np.ones(3)}, {"p": np.zeros(3)}, {"p": np.zeros(3)}, 1, 0.1)
        ref.sgd_step(w, {"p": np.ones(3)}, 0.1)
        np.testing.assert_array_equal(w["p"], before)


class OrtTextToNpy(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def _write(self, text):
        path = os.path.join(self.tmp, "in.txt")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_formats(self):
        cases = ["input-0\n[1,2.5,-3e-2,4]\n", "x\n1 2.5\n-3e-2\n 4", "[1, 2.5,\n-3e-2, 4]",
                 "name\n1,2.5,-3e-2,4,"]
        for text in cases:
            with self.subTest(text=text):
                a = t2n.load_ort_text(self._write(text), (2, 2), "float32")
                np.testing.assert_array_equal(a, np.array([[1, 2.5], [-3e-2, 4]], np.float32))
        self.assertEqual(t2n.load_ort_text(self._write("loss\n0.36050943\n"), ()).shape, ())
        a = t2n.load_ort_text(self._write("labels\n[1,1]"), (2,), "int64")
        self.assertEqual(a.dtype, np.int64)
        with self.assertRaises(ValueError):
            t2n.load_ort_text(self._write("x\n[1,2,3]"), (2, 2))
        with self.assertRaises(ValueError):
            t2n.load_ort_text(self._write("x\n[1,abc]"), (2,))
        self.assertEqual(t2n.parse_shape(""), ())
        self.assertEqual(t2n.parse_shape("2,784"), (2, 784))

    @unittest.skipIf(ORT is None, "ORT conformance data not found")
    def test_cli_on_ort_files(self):
        out = os.path.join(self.tmp, "x.npy")
        subprocess.run([sys.executable, T2N_PATH, os.path.join(TAPI, "input-0.in"), out,
                        "--shape", "2,784", "--dtype", "float32"], check=True)
        x = np.load(out)
        self.assertEqual((x.shape, x.dtype), ((2, 784), np.float32))
        self.assertAlmostEqual(float(x[0, 0]), -0.127598, places=6)
        out = os.path.join(self.tmp, "l.npy")
        subprocess.run([sys.executable, T2N_PATH, os.path.join(TAPI, "loss_2.out"), out,
                        "--shape", ""], check=True)
        self.assertEqual(np.load(out).shape, ())
        r = subprocess.run([sys.executable, T2N_PATH, os.path.join(TAPI, "input-0.in"), out,
                            "--shape", "3,784"], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)


class DefaultModel(unittest.TestCase):
    """examples/default/make_default.py"""

    @classmethod
    def setUpClass(cls):
        import onnx
        cls.onnx = onnx
        cls.tmp = tempfile.mkdtemp()
        cls.out = os.path.join(cls.tmp, "seed0")
        make_default.generate(cls.out, seed=0)
        cls.train = onnx.load(os.path.join(cls.out, "training_model.onnx"))
        cls.eval = onnx.load(os.path.join(cls.out, "eval_model.onnx"))
        cls.optim = onnx.load(os.path.join(cls.out, "optimizer_model.onnx"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_files(self):
        self.assertEqual(sorted(os.listdir(self.out)), sorted([
            "training_model.onnx", "eval_model.onnx", "optimizer_model.onnx", "checkpoint",
            "train_input.npy", "train_labels.npy", "eval_input.npy", "eval_labels.npy"]))
        for name, shape, dtype in (("train_input", (64, 16), np.float32),
                                   ("train_labels", (64,), np.int64),
                                   ("eval_input", (16, 16), np.float32),
                                   ("eval_labels", (16,), np.int64)):
            a = np.load(os.path.join(self.out, name + ".npy"))
            self.assertEqual((a.shape, a.dtype), (shape, dtype), name)
        labels = np.load(os.path.join(self.out, "train_labels.npy"))
        self.assertEqual(np.bincount(labels).tolist(), [16, 16, 16, 16])

    def test_checkpoint(self):
        c = odtc.read_checkpoint(os.path.join(self.out, "checkpoint"))
        self.assertEqual([(p["name"], p["dims"], p["dtype"], p["requires_grad"]) for p in c["params"]],
                         [("fc1.bias", [32], 1, True), ("fc1.weight", [32, 16], 1, True),
                          ("fc2.bias", [4], 1, True), ("fc2.weight", [4, 32], 1, True)])
        self.assertEqual(c["optimizer_groups"], [])
        for p in c["params"]:
            fan_in = 16 if p["name"].startswith("fc1") else 32
            self.assertLessEqual(np.max(np.abs(p["data"])), 1 / np.sqrt(fan_in))
            self.assertGreater(np.std(p["data"]), 0.25 / np.sqrt(fan_in))

    def test_deterministic(self):
        again = os.path.join(self.tmp, "seed0b")
        other = os.path.join(self.tmp, "seed1")
        make_default.generate(again, seed=0)
        make_default.generate(other, seed=1)
        for f in os.listdir(self.out):
            with open(os.path.join(self.out, f), "rb") as a, open(os.path.join(again, f), "rb") as b:
                self.assertEqual(a.read(), b.read(), f)
        for f in ("checkpoint", "train_input.npy"):
            with open(os.path.join(self.out, f), "rb") as a, open(os.path.join(other, f), "rb") as b:
                self.assertNotEqual(a.read(), b.read(), f)

    def test_verify(self):
        """onnx.checker, and the graphs run by a NumPy interpreter agree with the
        reference (loss, gradients, accumulation, lazy reset), and 20 AdamW steps at
        lr 0.01 reduce the loss."""
        losses = make_default.verify(self.out, log=lambda *a: None)
        self.assertEqual(len(losses), 20)
        self.assertLess(losses[-1], 0.5 * losses[0])
        self.assertTrue(all(b < a for a, b in zip(losses[:5], losses[1:6])))

    def test_training_graph_contract(self):
        g = self.train.graph
        params = ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
        self.assertEqual([i.name for i in g.input],
                         ["input", "labels"] + params
                         + [p + "_grad.accumulation.buffer" for p in params] + ["lazy_reset_grad"])
        self.assertEqual([o.name for o in g.output],
                         ["loss"] + [p + "_grad.accumulation.out" for p in params])
        ttype = lambda v: v.type.tensor_type  # noqa: E731
        dims = lambda v: [d.dim_param or d.dim_value for d in ttype(v).shape.dim]  # noqa: E731
        by = {v.name: v for v in list(g.input) + list(g.output)}
        self.assertEqual((ttype(by["input"]).elem_type, dims(by["input"])), (1, ["batch_size", 16]))
        self.assertEqual((ttype(by["labels"]).elem_type, dims(by["labels"])), (7, ["batch_size"]))
        self.assertEqual((ttype(by["lazy_reset_grad"]).elem_type, dims(by["lazy_reset_grad"])),
                         (9, [1]))
        self.assertEqual((ttype(by["loss"]).elem_type, dims(by["loss"])), (1, []))
        for p in params:
            self.assertEqual(dims(by[p]), dims(by[p + "_grad.accumulation.buffer"]))
            self.assertEqual((ttype(by[p + "_grad.accumulation.out"]).elem_type,
                              dims(by[p + "_grad.accumulation.out"])), (9, [1]))
        inits = {t.name: t for t in g.initializer}
        seed = self.onnx.numpy_helper.to_array(inits["loss_grad"])
        self.assertEqual((seed.shape, float(seed)), ((), 1.0))
        self.assertEqual(self.train.ir_version, 7)
        self.assertEqual(sorted((o.domain, o.version) for o in self.train.opset_import),
                         [("", 14), ("com.microsoft", 1)])

    @unittest.skipIf(ORT is None, "ORT conformance data not found")
    def test_same_nodes_as_ort_example(self):
        """Node for node, the same op types, domains and attributes as ORT's
        generate_artifacts output in training_api/training_model.onnx."""
        def sig(model):
            out = []
            for n in model.graph.node:
                attrs = {a.name: self.onnx.helper.get_attribute_value(a) for a in n.attribute}
                out.append((n.domain, n.op_type, len(n.input), len(n.output), attrs))
            return out
        ort_train = self.onnx.load(os.path.join(TAPI, "training_model.onnx"))
        ort_eval = self.onnx.load(os.path.join(TAPI, "eval_model.onnx"))
        self.assertEqual(sig(self.train), sig(ort_train))
        self.assertEqual(sig(self.eval), sig(ort_eval))
        self.assertEqual(self.eval.ir_version, ort_eval.ir_version)
        self.assertEqual([(o.domain, o.version) for o in self.eval.opset_import],
                         [(o.domain, o.version) for o in ort_eval.opset_import])
        self.assertEqual([m.key for m in self.eval.metadata_props],
                         [m.key for m in ort_eval.metadata_props])
        # The wiring: the same producer/consumer structure, up to renaming.
        def wiring(model):
            producer = {}
            for i, n in enumerate(model.graph.node):
                for o in n.output:
                    producer[o] = i
            gin = [v.name for v in model.graph.input]
            inits = [t.name for t in model.graph.initializer]
            def src(name):
                if name in producer:
                    return ("node", producer[name], list(model.graph.node[producer[name]].output)
                            .index(name))
                if name in gin:
                    return ("input", gin.index(name))
                return ("init", self.onnx.numpy_helper.to_array(
                    model.graph.initializer[inits.index(name)]).tolist())
            return [[src(i) for i in n.input] for n in model.graph.node]
        self.assertEqual(wiring(self.train), wiring(ort_train))
        self.assertEqual(wiring(self.eval), wiring(ort_eval))

    @unittest.skipIf(ORT is None, "ORT conformance data not found")
    def test_optimizer_like_adamw_onnx(self):
        ort = self.onnx.load(os.path.join(TAPI, "adamw.onnx"))
        self.assertEqual(self.optim.ir_version, ort.ir_version)
        self.assertEqual([(o.domain, o.version) for o in self.optim.opset_import],
                         [(o.domain, o.version) for o in ort.opset_import])
        self.assertEqual([(i.name, i.type) for i in self.optim.graph.input],
                         [(i.name, i.type) for i in ort.graph.input])
        self.assertEqual(len(self.optim.graph.node), 1)
        n, o = self.optim.graph.node[0], ort.graph.node[0]
        self.assertEqual((n.domain, n.op_type, list(n.input)), (o.domain, o.op_type, list(o.input)))
        self.assertEqual(list(n.attribute), list(o.attribute))
        self.assertEqual(self.optim.graph.output[0].name, "updated_flag")
        self.assertEqual(self.optim.graph.output[0].type, ort.graph.output[0].type)

    def test_cli(self):
        out = os.path.join(self.tmp, "cli")
        r = subprocess.run([sys.executable, MAKE_PATH, out, "--seed", "0", "--verify",
                            "--nominal-checkpoint"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("onnx.checker: ok", r.stdout)
        self.assertTrue(odtc.read_checkpoint(os.path.join(out, "nominal_checkpoint"))["is_nominal"])
        with open(os.path.join(out, "checkpoint"), "rb") as a, \
                open(os.path.join(self.out, "checkpoint"), "rb") as b:
            self.assertEqual(a.read(), b.read())


if __name__ == "__main__":
    unittest.main()
