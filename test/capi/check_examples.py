#!/usr/bin/env python3
"""Runs the C and C++ examples (examples/c, examples/cpp) and odt-run on the default
model with the same data, steps and learning rate, and checks that

  * every program succeeds and the training loss decreases (last < first / 2, and the
    eval loss after training is below the eval loss of the initial checkpoint);
  * the C and C++ programs print exactly the losses odt-run prints (float32 equality:
    the same runtime code runs the same compiled model), and the same eval loss as
    `odt-run eval` on the checkpoint they saved;
  * the saved checkpoints are byte-identical (C, C++, odt-run --save);
  * the exported inference models are byte-identical, pass onnx.checker, and compute
    the logits NumPy computes from the trained checkpoint's parameters.

    check_examples.py --c BIN --cpp BIN --odt-run BIN --model DIR --data DIR --tmp DIR
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

STEPS, LR = 20, "0.01"


def run(cmd, failures=None):
    """Runs cmd and returns its stdout. A non-zero exit raises, or with `failures`
    is recorded there (so that what the program printed is still checked)."""
    print("$ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120)
    sys.stdout.write(proc.stdout)
    sys.stdout.write(proc.stderr)
    sys.stdout.flush()
    if proc.returncode != 0:
        message = "%s exited with %d: %s" % (os.path.basename(cmd[0]), proc.returncode,
                                             proc.stderr.strip())
        if failures is None:
            raise AssertionError(message)
        failures.append(message)
    return proc.stdout


def f32(text):
    return np.float32(float(text))


def parse_example(out):
    losses, eval_loss = [], None
    for line in out.splitlines():
        words = line.split()
        if len(words) == 4 and words[0] == "step" and words[2] == "loss":
            assert int(words[1]) == len(losses) + 1, line
            losses.append(f32(words[3]))
        elif len(words) == 3 and words[:2] == ["eval", "loss"]:
            eval_loss = f32(words[2])
    assert len(losses) == STEPS, "expected %d steps:\n%s" % (STEPS, out)
    assert eval_loss is not None, "no eval loss:\n" + out
    return losses, eval_loss


def eval_loss(odt_run, model, checkpoint, data):
    out = run([odt_run, "eval", model, "--checkpoint", checkpoint,
               "--input", "input=" + os.path.join(data, "eval_input.npy"),
               "--input", "labels=" + os.path.join(data, "eval_labels.npy"), "--json"])
    return f32(json.loads(out.strip().splitlines()[-1])["outputs"]["loss"])


def relu_mlp_logits(params, x):
    h = np.maximum(x @ params["fc1.weight"].T + params["fc1.bias"], 0)
    return h @ params["fc2.weight"].T + params["fc2.bias"]


def check_inference_model(path, checkpoint, data):
    import onnx
    import onnx.checker
    import odtc
    sys.path.insert(0, os.path.join(ROOT, "examples", "default"))
    import make_default

    model = onnx.load(path)
    onnx.checker.check_model(model)
    outputs = [o.name for o in model.graph.output]
    assert outputs == ["logits"], outputs
    inits = {t.name for t in model.graph.initializer}
    for name in make_default.PARAM_NAMES:
        assert name in inits, "%s is not an initializer of the inference model" % name
    params = odtc.params_dict(odtc.read_checkpoint(checkpoint))
    x = np.load(os.path.join(data, "eval_input.npy"))
    y = np.load(os.path.join(data, "eval_labels.npy"))
    feeds = {"input": x, "labels": y}
    names = [i.name for i in model.graph.input if i.name not in inits]
    env = make_default.run_graph(model, {n: feeds[n] for n in names})
    expected = relu_mlp_logits({k: v.astype(np.float64) for k, v in params.items()},
                               x.astype(np.float64))
    np.testing.assert_allclose(env["logits"], expected, rtol=1e-5, atol=1e-6)
    print("inference model: onnx.checker ok, inputs %s, logits == NumPy with the trained "
          "parameters" % names)


def main(argv):
    ap = argparse.ArgumentParser()
    for flag in ("--c", "--cpp", "--odt-run", "--model", "--data", "--tmp"):
        ap.add_argument(flag, required=True)
    args = ap.parse_args(argv)
    shutil.rmtree(args.tmp, ignore_errors=True)
    dirs = {}
    for name in ("c", "cpp", "odt-run"):
        dirs[name] = os.path.join(args.tmp, name)
        os.makedirs(dirs[name])

    failures = []
    results = {}
    for name, binary in (("c", args.c), ("cpp", args.cpp)):
        results[name] = parse_example(
            run([binary, args.model, args.data, dirs[name], str(STEPS), LR], failures))
    out = run([args.odt_run, "train", args.model,
               "--checkpoint", os.path.join(args.data, "checkpoint"),
               "--input", "input=" + os.path.join(args.data, "train_input.npy"),
               "--input", "labels=" + os.path.join(args.data, "train_labels.npy"),
               "--steps", str(STEPS), "--lr", LR, "--json",
               "--save", os.path.join(dirs["odt-run"], "trained.ckpt")])
    reference = [f32(json.loads(line)["loss"]) for line in out.strip().splitlines()]
    assert len(reference) == STEPS, out

    c_losses, c_eval = results["c"]
    cpp_losses, cpp_eval = results["cpp"]
    for name, losses in (("C", c_losses), ("C++", cpp_losses)):
        if losses != reference:
            failures.append("%s losses differ from odt-run's:\n  %s\n  %s"
                            % (name, losses, reference))
    if not c_losses[-1] < c_losses[0] / 2:
        failures.append("the loss did not decrease enough: %s" % c_losses)
    initial_eval = eval_loss(args.odt_run, args.model, os.path.join(args.data, "checkpoint"),
                             args.data)
    trained_eval = eval_loss(args.odt_run, args.model,
                             os.path.join(dirs["c"], "trained.ckpt"), args.data)
    if not (c_eval == cpp_eval == trained_eval):
        failures.append("eval losses differ: C %r, C++ %r, odt-run eval %r"
                        % (c_eval, cpp_eval, trained_eval))
    if not trained_eval < initial_eval:
        failures.append("eval loss %r after training, %r before" % (trained_eval, initial_eval))

    ckpts = {n: open(os.path.join(d, "trained.ckpt"), "rb").read() for n, d in dirs.items()}
    if not ckpts["c"] == ckpts["cpp"] == ckpts["odt-run"]:
        failures.append("the saved checkpoints differ (sizes %s)"
                        % {n: len(b) for n, b in ckpts.items()})

    exported = {}
    for name in ("c", "cpp"):
        path = os.path.join(dirs[name], "inference.onnx")
        exported[name] = open(path, "rb").read() if os.path.exists(path) else None
    if exported["c"] is None or exported["c"] != exported["cpp"]:
        failures.append("the exported inference models are missing or differ")
    else:
        try:
            check_inference_model(os.path.join(dirs["c"], "inference.onnx"),
                                  os.path.join(dirs["c"], "trained.ckpt"), args.data)
        except Exception as error:  # noqa: BLE001 - reported below
            failures.append("inference model: %s: %s" % (type(error).__name__, error))

    print("losses (C = C++ = odt-run): %s -> %s; eval %s -> %s"
          % (reference[0], reference[-1], initial_eval, trained_eval))
    if failures:
        print("FAILED:\n" + "\n".join(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
