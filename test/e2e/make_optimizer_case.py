#!/usr/bin/env python3
"""Writes the artifacts of one optimizer-conformance case from a PyTorch trajectory
published by ONNX Runtime (conformance/ort/test_data_generation/{adamw,sgd}_test/cpu/*.json).

    /usr/bin/python3 test/e2e/make_optimizer_case.py JSON OUT_DIR --optimizer adamw|sgd
        [--adam-mode 0|1]

The JSON holds, per parameter name, flattened float lists:
  Parameters[0..T]  (index 0 = the initial values, t = after the t-th update)
  Gradients[0..T-1] (the gradient fed to the t+1-th update)
  Momentum1s, Momentum2s [0..T] (AdamW only; index 0 = zeros)

OUT_DIR gets:
  training_model.onnx   a training graph in ORT's naming contract (docs/ORT-FACTS.md §1)
                        over the JSON's parameters: user inputs `<p>_grad_input`, then
                        the parameters, `<p>_grad.accumulation.buffer`, `lazy_reset_grad`;
                        `<p>_grad` = Identity(`<p>_grad_input`) feeds
                        com.microsoft InPlaceAccumulatorV2; the loss is
                        ReduceSum(first parameter, all axes, keepdims=0).
  optimizer_model.onnx  one com.microsoft AdamWOptimizer (ORT adamw_test.cc settings:
                        mode 0: eps 1e-8, weight_decay 1e-2; mode 1: eps 1e-6,
                        weight_decay 0; alpha 0.9, beta 0.999, correct_bias 1) or
                        SGDOptimizerV2.
  checkpoint            ODTC v2 (scripts/odtc.py) with Parameters[0].
  case.txt              `optimizer NAME`, `steps T`, then `parameter NAME` lines in
                        training-graph order.
  expected/<p>.grads.npy [T, *shape], <p>.params.npy [T+1, *shape] and, for AdamW,
  <p>.momentum0.npy / <p>.momentum1.npy [T+1, *shape], all float32.
"""

import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto
from onnx import helper as oh

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import odtc  # noqa: E402

MS = "com.microsoft"
LAZY_RESET = "lazy_reset_grad"
LOSS = "loss"

# The shapes ORT's optimizer tests give these parameters (the JSON stores them flat).
KNOWN_SHAPES = {"fc1.weight": (2, 3), "fc1.bias": (3,), "fc2.weight": (3, 2), "fc2.bias": (2,)}
# Graph parameter order: ORT's (PyTorch's named_parameters) order.
ORDER = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")

ADAMW_SETTINGS = {
    0: dict(alpha=0.9, beta=0.999, epsilon=1e-8, weight_decay=1e-2, correct_bias=1, adam_mode=0),
    1: dict(alpha=0.9, beta=0.999, epsilon=1e-6, weight_decay=0.0, correct_bias=1, adam_mode=1),
}


def read_case(path):
    """(ordered [(name, shape)], {key: {name: float32 array [steps, *shape]}})."""
    with open(path) as f:
        data = json.load(f)
    names = list(data["Parameters"])
    names.sort(key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))
    params, arrays = [], {}
    for name in names:
        flat = np.asarray(data["Parameters"][name][0], dtype=np.float32)
        shape = KNOWN_SHAPES.get(name, flat.shape)
        if int(np.prod(shape)) != flat.size:
            raise ValueError("%s: %s has %d values, not %s" % (path, name, flat.size, shape))
        params.append((name, tuple(shape)))
    for key, values in data.items():
        arrays[key] = {}
        for name, shape in params:
            a = np.asarray(values[name], dtype=np.float32)
            arrays[key][name] = a.reshape((a.shape[0],) + shape)
    steps = arrays["Gradients"][names[0]].shape[0]
    for key in arrays:
        for name, a in arrays[key].items():
            want = steps if key == "Gradients" else steps + 1
            if a.shape[0] != want:
                raise ValueError("%s: %s[%s] has %d entries, expected %d"
                                 % (path, key, name, a.shape[0], want))
    return params, arrays, steps


def make_training_model(params):
    vi = oh.make_tensor_value_info
    inputs = [vi(n + "_grad_input", TensorProto.FLOAT, list(s)) for n, s in params]
    inputs += [vi(n, TensorProto.FLOAT, list(s)) for n, s in params]
    inputs += [vi(n + "_grad.accumulation.buffer", TensorProto.FLOAT, list(s)) for n, s in params]
    inputs.append(vi(LAZY_RESET, TensorProto.BOOL, [1]))
    nodes = [oh.make_node("ReduceSum", [params[0][0]], [LOSS], name="loss/ReduceSum",
                          keepdims=0, noop_with_empty_axes=0)]
    for i, (n, _) in enumerate(params, start=1):
        nodes.append(oh.make_node("Identity", [n + "_grad_input"], [n + "_grad"],
                                  name="%s_grad/Identity" % n))
        nodes.append(oh.make_node("InPlaceAccumulatorV2",
                                  [n + "_grad.accumulation.buffer", n + "_grad", LAZY_RESET],
                                  [n + "_grad.accumulation.out"],
                                  name="GradientAccumulator%d" % i, domain=MS))
    outputs = [vi(LOSS, TensorProto.FLOAT, [])]
    outputs += [vi(n + "_grad.accumulation.out", TensorProto.BOOL, [1]) for n, _ in params]
    graph = oh.make_graph(nodes, "optimizer_case", inputs, outputs)
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 14), oh.make_opsetid(MS, 1)],
                          producer_name="odt make_optimizer_case.py")
    model.ir_version = 7
    return model


def make_optimizer_model(optimizer, adam_mode):
    def seq(name):
        return oh.make_value_info(
            name, oh.make_sequence_type_proto(oh.make_tensor_type_proto(TensorProto.FLOAT, None)))
    lr = oh.make_tensor_value_info("learning_rate", TensorProto.FLOAT, [1])
    step = oh.make_tensor_value_info("step", TensorProto.INT64, [1])
    if optimizer == "adamw":
        inputs = [lr, step, seq("params"), seq("gradients"), seq("first_order_moments"),
                  seq("second_order_moments")]
        node = oh.make_node("AdamWOptimizer", [i.name for i in inputs], ["updated_flag"],
                            name="AdamWOptimizer", domain=MS, **ADAMW_SETTINGS[adam_mode])
    else:
        inputs = [lr, step, seq("params"), seq("gradients")]
        node = oh.make_node("SGDOptimizerV2", ["learning_rate", "params", "gradients"],
                            ["updated_flag"], name="SGDOptimizerV2", domain=MS)
    graph = oh.make_graph([node], "graph", inputs,
                          [oh.make_tensor_value_info("updated_flag", TensorProto.BOOL, [1])])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid(MS, 1), oh.make_opsetid("", 19)],
                          producer_name="odt make_optimizer_case.py")
    model.ir_version = 9
    return model


def generate(json_path, out_dir, optimizer, adam_mode):
    params, arrays, steps = read_case(json_path)
    if optimizer == "adamw" and ("Momentum1s" not in arrays or "Momentum2s" not in arrays):
        raise ValueError("%s has no Momentum1s/Momentum2s: not an AdamW case" % json_path)
    expected_dir = os.path.join(out_dir, "expected")
    os.makedirs(expected_dir, exist_ok=True)
    onnx.save(make_training_model(params), os.path.join(out_dir, "training_model.onnx"))
    onnx.save(make_optimizer_model(optimizer, adam_mode),
              os.path.join(out_dir, "optimizer_model.onnx"))
    odtc.write_checkpoint(os.path.join(out_dir, "checkpoint"),
                          [(n, arrays["Parameters"][n][0], True) for n, _ in params])
    files = {"Parameters": "params", "Gradients": "grads"}
    if optimizer == "adamw":
        files.update(Momentum1s="momentum0", Momentum2s="momentum1")
    for key, suffix in files.items():
        for n, _ in params:
            np.save(os.path.join(expected_dir, "%s.%s.npy" % (n, suffix)), arrays[key][n])
    with open(os.path.join(out_dir, "case.txt"), "w") as f:
        f.write("optimizer %s\nsteps %d\n" % (optimizer, steps))
        for n, _ in params:
            f.write("parameter %s\n" % n)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("out_dir")
    ap.add_argument("--optimizer", choices=("adamw", "sgd"), required=True)
    ap.add_argument("--adam-mode", type=int, choices=(0, 1), default=0)
    args = ap.parse_args(argv)
    generate(args.json, args.out_dir, args.optimizer, args.adam_mode)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
