"""Training resumed across ONNX Runtime 1.19.2 and odt continues to the same losses.

For ORT's MLP artifacts (training_api) and odt's default model, four runs of N steps of
{TrainStep, OptimizerStep, LazyResetGrad} at a fixed learning rate:
  (i)   all N in ORT (Python API);
  (ii)  all N in odt (odt-run train);
  (iii) k in odt, saved with optimizer state (--save), then N-k in ORT from that file;
  (iv)  k in ORT, saved with optimizer state (save_checkpoint(..., True)), then N-k in
        odt (odt-run train --resume).
The per-step losses of (ii)-(iv) must equal (i) within RTOL, and so must the final
parameters and step counts.

Learning rate: ORT does not save the current learning rate (GroupOptimizerState::
learning_rate is not in the checkpoint; only initial_learning_rate and step are), and an
Optimizer created over a state with optimizer group "group0" starts at ORT's default
0.001, whatever the checkpoint holds (OrtLoadBehaviour below shows it). odt keeps its
learning rate in the property odt.learning_rate, which ORT ignores. So each side's
learning rate is set explicitly after resuming (ORT: Optimizer.set_learning_rate; odt:
odt-run --lr), to a value other than 0.001 so that a forgotten call shows.

Tolerance: both sides compute the same float32 graph; they differ only in rounding
(summation order of the Gemm and ReduceSum reductions, 784/500/64 terms, fused
multiply-adds, AdamW's sqrt/division). One step's loss agrees to a few 1e-7 relative;
over N <= 8 steps of AdamW at these learning rates the differences do not grow past
~1e-6. RTOL = 1e-5 leaves a 10x margin and is still 100x tighter than the effect of
losing the optimizer state on resume (test_moments_matter checks that).
"""

import os
import unittest

import numpy as np

import interop_env as E

RTOL = 1e-5
# Final parameters: measured differences are at most ~1.5e-7 absolute (a few ulps of
# weights of magnitude ~0.5); near-zero weights make relative differences meaningless,
# so an absolute floor of 1e-6 (below one AdamW step, ~lr) goes with rtol 1e-4.
PARAM_RTOL, PARAM_ATOL = 1e-4, 1e-6


class _Resume:
    model = None  # a factory of interop_env.Model
    lr = None
    steps = None
    split = None

    @classmethod
    def setUpClass(cls):
        cls.m = cls.model()
        tmp = cls.tmp = E.make_tmpdir(cls)
        cls.input_args, _ = cls.m.input_files(tmp)
        N, k, lr, m = cls.steps, cls.split, cls.lr, cls.m

        class _T(unittest.TestCase):
            def runTest(self):
                pass
        t = cls._t = _T()
        E.check_prerequisites(t, m)

        # (i) ORT only.
        ort_all = E.OrtTrainer(m, m.checkpoint)
        ort_all.optimizer.set_learning_rate(lr)
        cls.ort_losses = ort_all.train(N)
        cls.ort_params = ort_all.parameters()
        ort_all.save(os.path.join(tmp, "ort_all.ckpt"))

        # (ii) odt only.
        cls.odt_lines = E.odt_train(t, m, cls.input_args, m.checkpoint, N, lr,
                                    save=os.path.join(tmp, "odt_all.ckpt"))
        cls.odt_losses = [e["loss"] for e in cls.odt_lines]

        # (iii) k in odt, then N-k in ORT.
        odt_k = os.path.join(tmp, "odt_k.ckpt")
        cls.odt_first = E.odt_train(t, m, cls.input_args, m.checkpoint, k, lr, save=odt_k)
        ort_rest = E.OrtTrainer(m, odt_k)
        cls.ort_lr_after_resume = ort_rest.optimizer.get_learning_rate()
        ort_rest.optimizer.set_learning_rate(lr)
        cls.ort_rest_losses = ort_rest.train(N - k)
        cls.odt_ort_losses = [e["loss"] for e in cls.odt_first] + cls.ort_rest_losses
        cls.odt_ort_params = ort_rest.parameters()
        ort_rest.save(os.path.join(tmp, "odt_ort.ckpt"))

        # (iv) k in ORT, then N-k in odt.
        ort_k = os.path.join(tmp, "ort_k.ckpt")
        ort_first = E.OrtTrainer(m, m.checkpoint)
        ort_first.optimizer.set_learning_rate(lr)
        first = ort_first.train(k)
        ort_first.save(ort_k)
        cls.odt_rest_lines = E.odt_train(t, m, cls.input_args, ort_k, N - k, lr,
                                         save=os.path.join(tmp, "ort_odt.ckpt"), resume=True)
        cls.ort_odt_losses = first + [e["loss"] for e in cls.odt_rest_lines]

        # Control: the k-step checkpoint's parameters with a fresh optimizer (no moments,
        # step 0), i.e. what a resume that lost the optimizer state would give.
        cls.fresh_lines = E.odt_train(t, m, cls.input_args, ort_k, N - k, lr)

        print("\n" + E.loss_table(
            "%s: lr %g, N %d, k %d" % (m.name, lr, N, k),
            [("(i) ORT", cls.ort_losses), ("(ii) odt", cls.odt_losses),
             ("(iii) odt>ORT", cls.odt_ort_losses), ("(iv) ORT>odt", cls.ort_odt_losses)]),
            flush=True)

    def assertLosses(self, losses, what):
        self.assertEqual(len(losses), self.steps, what)
        np.testing.assert_allclose(np.float32(losses), np.float32(self.ort_losses), rtol=RTOL,
                                   atol=0, err_msg="%s vs all-ORT losses" % what)

    def test_ii_odt_matches_ort(self):
        self.assertLosses(self.odt_losses, "all-odt")
        self.assertEqual([e["step"] for e in self.odt_lines], list(range(1, self.steps + 1)))

    def test_iii_odt_then_ort(self):
        self.assertLosses(self.odt_ort_losses, "odt then ORT")

    def test_iv_ort_then_odt(self):
        self.assertLosses(self.ort_odt_losses, "ORT then odt")
        # odt resumed ORT's step count and used the learning rate given.
        self.assertEqual([e["step"] for e in self.odt_rest_lines],
                         list(range(self.split + 1, self.steps + 1)))
        for e in self.odt_rest_lines:
            self.assertAlmostEqual(e["lr"], self.lr, delta=self.lr * 1e-6)

    def test_ort_resumes_at_default_learning_rate(self):
        # odt's checkpoint holds odt.learning_rate = lr and initial_learning_rate 0.001;
        # ORT's resumed Optimizer is at its default 0.001 regardless.
        self.assertAlmostEqual(self.ort_lr_after_resume, E.ORT_DEFAULT_LR, delta=1e-9)

    def test_step_counts(self):
        for name in ("ort_all", "odt_all", "odt_ort", "ort_odt"):
            ck = E.odtc.read_checkpoint(os.path.join(self.tmp, name + ".ckpt"))
            groups = {g["group_name"]: g for g in ck["optimizer_groups"]}
            self.assertEqual(list(groups), ["group0"], name)
            self.assertEqual(groups["group0"]["step"], self.steps, name)

    def test_final_parameters(self):
        odt_all = E.odtc.params_dict(E.odtc.read_checkpoint(os.path.join(self.tmp,
                                                                         "odt_all.ckpt")))
        ort_odt = E.odtc.params_dict(E.odtc.read_checkpoint(os.path.join(self.tmp,
                                                                         "ort_odt.ckpt")))
        self.assertEqual(sorted(odt_all), sorted(self.ort_params))
        for what, params in (("all-odt", odt_all), ("odt then ORT", self.odt_ort_params),
                             ("ORT then odt", ort_odt)):
            for name, ref in self.ort_params.items():
                np.testing.assert_allclose(params[name], ref, rtol=PARAM_RTOL, atol=PARAM_ATOL,
                                           err_msg="%s: parameter %s" % (what, name))

    def test_moments_matter(self):
        # Resuming without the optimizer state gives clearly different losses, so the
        # comparisons above do test that step and momentums crossed over.
        fresh = [e["loss"] for e in self.fresh_lines]
        resumed = self.ort_losses[self.split:]
        self.assertGreater(E.max_rel_diff(fresh[1:], resumed[1:]), 100 * RTOL,
                           (fresh, resumed))


class OrtMlpResume(_Resume, unittest.TestCase):
    """ORT's MLP artifacts (784-500-10, onnxblock AdamW: adam_mode 1, eps 1e-6, wd 0),
    input-0.in, int32 labels {1, 1}. lr 2e-4 keeps the loss well away from 0 for 8 steps
    (at 1e-3 it falls to 4e-5)."""
    model = staticmethod(E.ort_mlp)
    lr, steps, split = 2e-4, 8, 4


class DefaultModelResume(_Resume, unittest.TestCase):
    """odt's default model (16-32-4, int64 labels, batch 64)."""
    model = staticmethod(E.default_model)
    lr, steps, split = 0.01, 8, 3


class ScheduledResume(unittest.TestCase):
    """The four runs with ORT's linear learning-rate schedule (warm-up W, total T, initial
    lr0) on the default model. ORT's Python LinearLRScheduler(optimizer, warmup_step_count,
    total_step_count, initial_lr) hands the two counts to C++ swapped (see OrtLoadBehaviour),
    so ORT gets (T, W) to schedule warm-up W and total T; odt-run gets --scheduler linear
    --warmup W --total T. ORT keeps no scheduler in its checkpoints: after resuming it is
    registered again, and computes the rate from the resumed step count; odt-run is given
    the same flags again. Per-step learning rates and losses must agree."""
    lr0, warmup, total, steps, split = 0.05, 2, 8, 6, 3

    def ort_run(self, m, checkpoint, steps):
        t = E.OrtTrainer(m, checkpoint)
        sched = E.ort.LinearLRScheduler(t.optimizer, self.total, self.warmup, self.lr0)
        t.module.train()
        losses, lrs = [], []
        for _ in range(steps):
            lrs.append(t.optimizer.get_learning_rate())
            losses.append(float(t.module(*m.inputs.values())))
            t.optimizer.step()
            sched.step()
            t.module.lazy_reset_grad()
        return t, losses, lrs

    def odt_run(self, m, args, checkpoint, steps, save=None, resume=False):
        cmd = ["train", m.odt_dir, "--checkpoint", checkpoint, "--steps", steps, "--lr",
               repr(self.lr0), "--scheduler", "linear", "--warmup", self.warmup, "--total",
               self.total, "--json"] + args + (["--save", save] if save else []) + (
                   ["--resume"] if resume else [])
        p = E.odt_run(*cmd)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = E.json_lines(p.stdout)
        return [e["loss"] for e in lines], [e["lr"] for e in lines]

    def test_scheduled_resume(self):
        m = E.default_model()
        E.check_prerequisites(self, m)
        tmp = E.make_tmpdir(self)
        args, _ = m.input_files(tmp)
        N, k = self.steps, self.split
        _, ort_losses, ort_lrs = self.ort_run(m, m.checkpoint, N)
        odt_losses, odt_lrs = self.odt_run(m, args, m.checkpoint, N)
        odt_k = os.path.join(tmp, "odt_k.ckpt")
        a_losses, a_lrs = self.odt_run(m, args, m.checkpoint, k, save=odt_k)
        _, b_losses, b_lrs = self.ort_run(m, odt_k, N - k)
        t, c_losses, c_lrs = self.ort_run(m, m.checkpoint, k)
        ort_k = os.path.join(tmp, "ort_k.ckpt")
        t.save(ort_k)
        d_losses, d_lrs = self.odt_run(m, args, ort_k, N - k, resume=True)
        print("\n" + E.loss_table(
            "default, linear schedule lr0 %g warmup %d total %d, N %d, k %d"
            % (self.lr0, self.warmup, self.total, N, k),
            [("(i) ORT", ort_losses), ("(ii) odt", odt_losses),
             ("(iii) odt>ORT", a_losses + b_losses), ("(iv) ORT>odt", c_losses + d_losses)])
            + "\nlearning rates: ORT %s" % ["%.6g" % x for x in ort_lrs], flush=True)
        expected_lrs = [self.lr0 * (s / self.warmup if s < self.warmup else
                                    max(0.0, (self.total - s) / (self.total - self.warmup)))
                        for s in range(N)]
        for what, lrs in (("ORT", ort_lrs), ("odt", odt_lrs), ("odt>ORT", a_lrs + b_lrs),
                          ("ORT>odt", c_lrs + d_lrs)):
            np.testing.assert_allclose(lrs, expected_lrs, rtol=1e-6, atol=1e-9, err_msg=what)
        for what, losses in (("all-odt", odt_losses), ("odt then ORT", a_losses + b_losses),
                             ("ORT then odt", c_losses + d_losses)):
            np.testing.assert_allclose(np.float32(losses), np.float32(ort_losses), rtol=RTOL,
                                       atol=0, err_msg=what)


class OrtLoadBehaviour(unittest.TestCase):
    """What ORT's Optimizer takes from a checkpoint it resumes from (the evidence behind
    setting the learning rate explicitly on both sides)."""

    def test_learning_rate_step_and_moments_on_load(self):
        m = E.ort_mlp()
        tmp = E.make_tmpdir(self)
        t = E.OrtTrainer(m, m.checkpoint)
        # A scheduler makes initial_learning_rate (saved) differ from 0.001. ORT's Python
        # LinearLRScheduler(optimizer, warmup, total, initial_lr) passes the two counts to
        # C++ swapped (warmup 9, total 1 here: lr rises by initial_lr/9 per step).
        sched = E.ort.LinearLRScheduler(t.optimizer, 1, 9, 0.0003)
        t.module.train()
        for _ in range(2):
            t.module(*m.inputs.values())
            t.optimizer.step()
            sched.step()
            t.module.lazy_reset_grad()
        lr_at_save = t.optimizer.get_learning_rate()
        self.assertAlmostEqual(lr_at_save, 0.0003 * 2 / 9, delta=1e-9)
        path = os.path.join(tmp, "ort.ckpt")
        t.save(path)
        ck = E.odtc.read_checkpoint(path)
        group = ck["optimizer_groups"][0]
        self.assertEqual((group["group_name"], group["step"]), ("group0", 2))
        self.assertAlmostEqual(group["initial_learning_rate"], 0.0003, delta=1e-9)
        self.assertNotIn("odt.learning_rate", ck["properties"])

        resumed = E.OrtTrainer(m, path)
        # Neither the current rate (6.7e-5) nor initial_learning_rate (3e-4): the default.
        self.assertAlmostEqual(resumed.optimizer.get_learning_rate(), E.ORT_DEFAULT_LR,
                               delta=1e-9)
        # Step and momentums were loaded: saving again without a step writes them back.
        again = os.path.join(tmp, "again.ckpt")
        resumed.save(again)
        ck2 = E.odtc.read_checkpoint(again)
        self.assertEqual(ck2["optimizer_groups"][0]["step"], 2)
        for p, moms in group["states"].items():
            for name, value in moms.items():
                np.testing.assert_array_equal(ck2["optimizer_groups"][0]["states"][p][name],
                                              value)


if __name__ == "__main__":
    unittest.main()
