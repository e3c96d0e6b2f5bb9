#!/usr/bin/env python3
"""ORT's golden losses through odt-run: ORT's MLP artifacts (training_api) compiled by
odt-compile, trained 2 steps at lr 0.001 on ORT's input-0 with labels {1, 1}. ORT's
published losses (loss_1.out, loss_2.out) must be matched to 1e-5 relative (ORT's own
tolerance is 1e-3 + 1.7e-2 relative)."""

import os
import unittest

import e2e_env as env

REL_TOLERANCE = 1e-5


def golden(index):
    return float(env.ort_text.load_ort_text(os.path.join(env.ORT_TAPI, "loss_%d.out" % index),
                                            (), "float64"))


class GoldenLossesThroughOdtRun(unittest.TestCase):
    def setUp(self):
        env.check_prerequisites(self)
        self.args = ["--checkpoint", env.ORT_CHECKPOINT,
                     "--input", "input-0=" + os.path.join(env.ORT_DATA, "input-0.npy"),
                     "--input", "labels=" + os.path.join(env.ORT_DATA, "labels.npy")]

    def test_two_steps_json(self):
        r = env.odt_run("train", env.ORT_MLP, *self.args, "--steps", "2", "--lr", "0.001",
                        "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = env.json_lines(r.stdout)
        self.assertEqual([line["step"] for line in lines], [1, 2], r.stdout)
        for line, index in zip(lines, (1, 2)):
            want = golden(index)
            rel = abs(line["loss"] - want) / abs(want)
            print("odt-run step %d: loss %.9g, ORT %.9g, relative error %.3g"
                  % (index, line["loss"], want, rel))
            self.assertLessEqual(rel, REL_TOLERANCE, "step %d: %r vs ORT %r"
                                 % (index, line["loss"], want))
            self.assertAlmostEqual(line["lr"], 0.001, delta=1e-9)

    def test_text_output_matches_json(self):
        """Without --json, the same losses in the human format."""
        r = env.odt_run("train", env.ORT_MLP, *self.args, "--steps", "2", "--lr", "0.001")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split() for line in r.stdout.splitlines() if line.strip()]
        self.assertEqual(len(rows), 2, r.stdout)
        for row, index in zip(rows, (1, 2)):
            self.assertEqual(row[:2], ["step", str(index)])
            loss = float(row[row.index("loss") + 1])
            self.assertLessEqual(abs(loss - golden(index)) / golden(index), REL_TOLERANCE)

    def test_eval_before_training_is_the_first_golden(self):
        """The eval graph at the checkpoint's parameters gives TrainStep 1's loss."""
        r = env.odt_run("eval", env.ORT_MLP, *self.args, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        (outputs,) = [line["outputs"] for line in env.json_lines(r.stdout)]
        self.assertEqual(len(outputs), 1, outputs)
        (loss,) = outputs.values()
        self.assertLessEqual(abs(loss - golden(1)) / golden(1), REL_TOLERANCE)


if __name__ == "__main__":
    unittest.main()
