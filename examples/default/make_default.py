#!/usr/bin/env python3
"""Writes odt's built-in default model: the four ONNX Runtime training artifacts of a
small MLP classifier and a synthetic data set, deterministically from a seed.

    /usr/bin/python3 examples/default/make_default.py OUT_DIR [--seed 0] [--verify]
        [--nominal-checkpoint]

Writes into OUT_DIR:
  training_model.onnx   forward + loss + gradients + InPlaceAccumulatorV2, in the exact
                        conventions of ORT's generate_artifacts (docs/ORT-FACTS.md §1,
                        modelled on conformance/ort/training_api/training_model.onnx)
  eval_model.onnx       forward + loss, parameters as graph inputs
  optimizer_model.onnx  one com.microsoft AdamWOptimizer over sequences (as adamw.onnx)
  checkpoint            ODTC v2, written with scripts/odtc.py; no optimizer state
  nominal_checkpoint    (with --nominal-checkpoint) names and types only
  train_input.npy float32 [64,16], train_labels.npy int64 [64]
  eval_input.npy  float32 [16,16], eval_labels.npy  int64 [16]

The model: input float [batch_size, 16] -> Gemm(fc1, transB=1) [32] -> Relu ->
Gemm(fc2, transB=1) [4] -> SoftmaxCrossEntropyLoss(reduction=mean) with INT64 labels
[batch_size]. Parameters are initialized like PyTorch's nn.Linear (weight and bias
uniform in ±1/sqrt(fan_in)) from numpy.random.default_rng(seed), in the order
fc1.weight, fc1.bias, fc2.weight, fc2.bias. The data are 4 Gaussian blobs in 16-d
(centres and points from numpy.random.default_rng(seed + 1)), balanced classes.

--verify checks the result: onnx.checker on every graph (the eval graph with
full_check and strict shape inference), a small NumPy interpreter running the
training and eval graphs node by node, compared against the independent reference
test/reference/mlp_reference.py (loss, gradients, gradient accumulation and lazy
reset), and that 20 AdamW steps at lr 0.01 visibly reduce the loss.
"""

import argparse
import os
import sys

import numpy as np
import onnx
import onnx.checker
import onnx.helper as oh
import onnx.numpy_helper as onh
import onnx.shape_inference
from onnx import TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import odtc  # noqa: E402

IN_FEATURES, HIDDEN, CLASSES = 16, 32, 4
N_TRAIN, N_EVAL = 64, 16
BATCH = "batch_size"
MS = "com.microsoft"
PARAMS = [("fc1.weight", [HIDDEN, IN_FEATURES]), ("fc1.bias", [HIDDEN]),
          ("fc2.weight", [CLASSES, HIDDEN]), ("fc2.bias", [CLASSES])]
PARAM_NAMES = [n for n, _ in PARAMS]

# Names inside the graphs (ORT derives them from the PyTorch export; these follow
# the same patterns).
X, LABELS, LOGITS, LOSS, LOG_PROB = "input", "labels", "logits", "loss", "log_prob"
FC1_OUT, RELU_OUT = "/fc1/Gemm_output_0", "/relu/Relu_output_0"
LAZY_RESET = "lazy_reset_grad"

# ORT's example artifacts: ai.onnx 14 + com.microsoft 1, IR 7 for the training and
# eval models; com.microsoft 1 + ai.onnx 19, IR 9 for the optimizer model.
TRAIN_OPSETS = [("", 14), (MS, 1)]
EVAL_OPSETS = [("", 14)]
OPTIM_OPSETS = [(MS, 1), ("", 19)]
TRAIN_IR, OPTIM_IR = 7, 9
PRODUCER = "odt make_default.py"

# onnxblock's AdamW (as in ORT's adamw.onnx): float attributes are float32 values.
ADAMW_ATTRS = dict(adam_mode=1, alpha=0.9, beta=0.999, correct_bias=1, epsilon=1e-6,
                   weight_decay=0.0)


# ---------------------------------------------------------------------------
# Graphs
# ---------------------------------------------------------------------------

def _tensor_vi(name, elem, dims):
    return oh.make_tensor_value_info(name, elem, dims)


def _forward_nodes(training):
    # ORT's training graph spells out transA=0 on the forward Gemms; its eval graph
    # carries only alpha, beta, transB.
    extra = dict(transA=0) if training else {}
    return [
        oh.make_node("Gemm", [X, "fc1.weight", "fc1.bias"], [FC1_OUT], name="/fc1/Gemm",
                     alpha=1.0, beta=1.0, transB=1, **extra),
        oh.make_node("Relu", [FC1_OUT], [RELU_OUT], name="/relu/Relu"),
        oh.make_node("Gemm", [RELU_OUT, "fc2.weight", "fc2.bias"], [LOGITS], name="/fc2/Gemm",
                     alpha=1.0, beta=1.0, transB=1, **extra),
        oh.make_node("SoftmaxCrossEntropyLoss", [LOGITS, LABELS], [LOSS, LOG_PROB],
                     name="SoftmaxCrossEntropyLoss", reduction="mean"),
    ]


def _user_inputs():
    return [_tensor_vi(X, TensorProto.FLOAT, [BATCH, IN_FEATURES]),
            _tensor_vi(LABELS, TensorProto.INT64, [BATCH])]


def _param_inputs(suffix=""):
    return [_tensor_vi(n + suffix, TensorProto.FLOAT, dims) for n, dims in PARAMS]


def _forward_value_info():
    return [
        _tensor_vi(FC1_OUT, TensorProto.FLOAT, [BATCH, HIDDEN]),
        _tensor_vi(RELU_OUT, TensorProto.FLOAT, [BATCH, HIDDEN]),
        _tensor_vi(LOGITS, TensorProto.FLOAT, [BATCH, CLASSES]),
        _tensor_vi(LOSS, TensorProto.FLOAT, []),
        _tensor_vi(LOG_PROB, TensorProto.FLOAT, [BATCH, CLASSES]),
    ]


def _model(graph, opsets, ir_version, metadata=None):
    m = oh.make_model(graph, opset_imports=[oh.make_opsetid(d, v) for d, v in opsets],
                      producer_name=PRODUCER)
    m.ir_version = ir_version
    for k, v in (metadata or {}).items():
        e = m.metadata_props.add()
        e.key, e.value = k, v
    return m


def make_training_model():
    bw = "Backward pass"
    loss_grad = LOSS + "_grad"
    logits_grad = LOGITS + "_grad"
    axes2 = "/fc2/Gemm_Grad/ReduceAxes_for_/fc2/Gemm_Grad/dC_reduced"
    axes1 = "/fc1/Gemm_Grad/ReduceAxes_for_/fc1/Gemm_Grad/dC_reduced"
    nodes = _forward_nodes(training=True) + [
        oh.make_node("SoftmaxCrossEntropyLossGrad", [loss_grad, LOG_PROB, LABELS], [logits_grad],
                     name="SoftmaxCrossEntropyLoss_Grad/SoftmaxCrossEntropyLossGrad_0",
                     domain=MS, doc_string=bw, reduction="mean"),
        oh.make_node("ReduceSum", [logits_grad, axes2], ["/fc2/Gemm_Grad/dC_reduced"],
                     name="/fc2/Gemm_Grad/ReduceSum_3", doc_string=bw,
                     noop_with_empty_axes=0, keepdims=0),
        oh.make_node("Identity", ["/fc2/Gemm_Grad/dC_reduced"], ["fc2.bias_grad"],
                     name="/fc2/Gemm_Grad/Identity_4", doc_string=bw),
        oh.make_node("Gemm", [logits_grad, RELU_OUT], ["fc2.weight_grad"],
                     name="/fc2/Gemm_Grad/Gemm_1", doc_string=bw,
                     transB=0, alpha=1.0, beta=0.0, transA=1),
        oh.make_node("Gemm", [logits_grad, "fc2.weight"], [RELU_OUT + "_grad"],
                     name="/fc2/Gemm_Grad/Gemm_0", doc_string=bw,
                     transB=0, transA=0, beta=0.0, alpha=1.0),
        oh.make_node("ReluGrad", [RELU_OUT + "_grad", RELU_OUT], [FC1_OUT + "_grad"],
                     name="/relu/Relu_Grad/ReluGrad_0", domain=MS, doc_string=bw),
        oh.make_node("ReduceSum", [FC1_OUT + "_grad", axes1], ["/fc1/Gemm_Grad/dC_reduced"],
                     name="/fc1/Gemm_Grad/ReduceSum_2", doc_string=bw,
                     noop_with_empty_axes=0, keepdims=0),
        oh.make_node("Identity", ["/fc1/Gemm_Grad/dC_reduced"], ["fc1.bias_grad"],
                     name="/fc1/Gemm_Grad/Identity_3", doc_string=bw),
        oh.make_node("Gemm", [FC1_OUT + "_grad", X], ["fc1.weight_grad"],
                     name="/fc1/Gemm_Grad/Gemm_0", doc_string=bw,
                     transB=0, alpha=1.0, beta=0.0, transA=1),
    ]
    for i, p in enumerate(PARAM_NAMES, start=1):
        nodes.append(oh.make_node(
            "InPlaceAccumulatorV2",
            [p + "_grad.accumulation.buffer", p + "_grad", LAZY_RESET],
            [p + "_grad.accumulation.out"], name="GradientAccumulator%d" % i, domain=MS))

    inputs = (_user_inputs() + _param_inputs() + _param_inputs("_grad.accumulation.buffer")
              + [_tensor_vi(LAZY_RESET, TensorProto.BOOL, [1])])
    outputs = ([_tensor_vi(LOSS, TensorProto.FLOAT, [])]
               + [_tensor_vi(p + "_grad.accumulation.out", TensorProto.BOOL, [1])
                  for p in PARAM_NAMES])
    initializers = [
        onh.from_array(np.array(1.0, dtype=np.float32), loss_grad),
        onh.from_array(np.array([0], dtype=np.int64), axes1),
        onh.from_array(np.array([0], dtype=np.int64), axes2),
    ]
    value_info = _forward_value_info() + [
        _tensor_vi(logits_grad, TensorProto.FLOAT, [BATCH, CLASSES]),
        _tensor_vi(RELU_OUT + "_grad", TensorProto.FLOAT, [BATCH, HIDDEN]),
        _tensor_vi(FC1_OUT + "_grad", TensorProto.FLOAT, [BATCH, HIDDEN]),
    ]
    graph = oh.make_graph(nodes, "default_mlp", inputs, outputs, initializer=initializers,
                          value_info=value_info)
    return _model(graph, TRAIN_OPSETS, TRAIN_IR)


def make_eval_model():
    graph = oh.make_graph(_forward_nodes(training=False), "default_mlp",
                          _user_inputs() + _param_inputs(),
                          [_tensor_vi(LOSS, TensorProto.FLOAT, [])],
                          value_info=_forward_value_info())
    # generate_artifacts records the forward model's own outputs for
    # ExportModelForInferencing.
    return _model(graph, EVAL_OPSETS, TRAIN_IR, metadata={"InferenceGraphOutputs": LOGITS})


def make_optimizer_model():
    def seq(name):
        return oh.make_value_info(
            name, oh.make_sequence_type_proto(oh.make_tensor_type_proto(TensorProto.FLOAT, None)))
    inputs = [_tensor_vi("learning_rate", TensorProto.FLOAT, [1]),
              _tensor_vi("step", TensorProto.INT64, [1]),
              seq("params"), seq("gradients"), seq("first_order_moments"),
              seq("second_order_moments")]
    node = oh.make_node("AdamWOptimizer", [i.name for i in inputs], ["updated_flag"],
                        name="AdamWOptimizer", domain=MS, **ADAMW_ATTRS)
    graph = oh.make_graph([node], "graph", inputs,
                          [_tensor_vi("updated_flag", TensorProto.BOOL, [1])])
    return _model(graph, OPTIM_OPSETS, OPTIM_IR)


# ---------------------------------------------------------------------------
# Parameters and data
# ---------------------------------------------------------------------------

def init_params(seed):
    """PyTorch nn.Linear init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias."""
    rng = np.random.default_rng(seed)
    out = {}
    for layer, (fan_out, fan_in) in (("fc1", (HIDDEN, IN_FEATURES)), ("fc2", (CLASSES, HIDDEN))):
        bound = 1.0 / np.sqrt(fan_in)
        out[layer + ".weight"] = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        out[layer + ".bias"] = rng.uniform(-bound, bound, (fan_out,)).astype(np.float32)
    return out


def make_data(seed):
    """4 Gaussian blobs in 16-d: centres N(0, 1.5^2), points centre + N(0, 1)."""
    rng = np.random.default_rng(seed + 1)
    centres = rng.normal(0.0, 1.5, (CLASSES, IN_FEATURES))

    def draw(n):
        labels = rng.permutation(np.arange(n) % CLASSES).astype(np.int64)
        x = centres[labels] + rng.normal(0.0, 1.0, (n, IN_FEATURES))
        return x.astype(np.float32), labels

    x_train, y_train = draw(N_TRAIN)
    x_eval, y_eval = draw(N_EVAL)
    return x_train, y_train, x_eval, y_eval


# ---------------------------------------------------------------------------
# A NumPy interpreter for exactly the ops these graphs use (for --verify)
# ---------------------------------------------------------------------------

def _attrs(node):
    return {a.name: oh.get_attribute_value(a) for a in node.attribute}


def run_graph(model, feeds):
    """Runs a training or eval graph of this script in float64. InPlaceAccumulatorV2
    updates the buffers in `feeds` in place, as ORT does. Returns {name: value} of
    every computed value."""
    env = {k: (np.asarray(v, np.float64) if np.asarray(v).dtype.kind == "f" else np.asarray(v))
           for k, v in feeds.items()}
    for init in model.graph.initializer:
        env[init.name] = onh.to_array(init)
    for node in model.graph.node:
        a = _attrs(node)
        i = [env[n] for n in node.input]
        op = (node.domain or "", node.op_type)
        if op == ("", "Gemm"):
            A = i[0].T if a.get("transA", 0) else i[0]
            B = i[1].T if a.get("transB", 0) else i[1]
            y = a.get("alpha", 1.0) * (A @ B)
            if len(i) > 2:
                y = y + a.get("beta", 1.0) * i[2]
            out = [y]
        elif op == ("", "Relu"):
            out = [np.maximum(i[0], 0.0)]
        elif op == ("", "SoftmaxCrossEntropyLoss"):
            assert a.get("reduction", b"mean") in (b"mean", "mean")
            s = i[0] - i[0].max(axis=1, keepdims=True)
            lp = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
            lab = i[1].astype(np.int64)
            out = [np.mean(-lp[np.arange(lab.size), lab]), lp]
        elif op == (MS, "SoftmaxCrossEntropyLossGrad"):
            dy, lp, lab = i[0], i[1], i[2].astype(np.int64)
            g = np.exp(lp)
            g[np.arange(lab.size), lab] -= 1.0
            out = [g * dy / lab.size]
        elif op == ("", "ReduceSum"):
            assert a.get("keepdims", 1) == 0
            out = [i[0].sum(axis=tuple(int(x) for x in i[1]))]
        elif op == ("", "Identity"):
            out = [i[0]]
        elif op == (MS, "ReluGrad"):
            out = [i[0] * (i[1] > 0)]
        elif op == (MS, "InPlaceAccumulatorV2"):
            buf = env[node.input[0]]
            if bool(np.asarray(i[2]).reshape(-1)[0]):
                buf[...] = i[1]
            else:
                buf[...] += i[1]
            feeds[node.input[0]][...] = buf
            out = [np.array([True])]
        else:
            raise NotImplementedError("%s:%s" % op)
        for name, val in zip(node.output, out):
            env[name] = val
    return env


# ---------------------------------------------------------------------------
# Verification
# ---------------------------------------------------------------------------

def _reference():
    ref_dir = os.path.join(ROOT, "test", "reference")
    if ref_dir not in sys.path:
        sys.path.insert(0, ref_dir)
    import mlp_reference
    return mlp_reference


def check_models(train, evalm, optim):
    """onnx.checker on each graph. The checker skips com.microsoft ops it has no
    schema for. onnx 1.12 knows IR <= 8 and ai.onnx <= 17, so the optimizer model
    (IR 9, ai.onnx 19, but no ai.onnx node) is checked as a copy with IR 8 and
    ai.onnx 17, which changes nothing it contains."""
    onnx.checker.check_model(evalm, full_check=True)
    onnx.shape_inference.infer_shapes(evalm, check_type=True, strict_mode=True)
    onnx.checker.check_model(train)
    opt = onnx.ModelProto()
    opt.CopyFrom(optim)
    opt.ir_version = min(opt.ir_version, onnx.IR_VERSION)
    for o in opt.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = min(o.version, onnx.defs.onnx_opset_version())
    onnx.checker.check_model(opt)


def verify(out_dir, log=print):
    ref = _reference()
    train = onnx.load(os.path.join(out_dir, "training_model.onnx"))
    evalm = onnx.load(os.path.join(out_dir, "eval_model.onnx"))
    optim = onnx.load(os.path.join(out_dir, "optimizer_model.onnx"))
    check_models(train, evalm, optim)
    log("onnx.checker: ok")

    ck = odtc.read_checkpoint(os.path.join(out_dir, "checkpoint"))
    params = odtc.params_dict(ck)
    assert [p["name"] for p in ck["params"]] == sorted(PARAM_NAMES)
    assert all(p["requires_grad"] for p in ck["params"]) and not ck["optimizer_groups"]
    x = np.load(os.path.join(out_dir, "train_input.npy"))
    y = np.load(os.path.join(out_dir, "train_labels.npy"))

    feeds = {X: x, LABELS: y, LAZY_RESET: np.array([True])}
    feeds.update(params)
    for p in PARAM_NAMES:
        feeds[p + "_grad.accumulation.buffer"] = np.full(params[p].shape, 7.0)  # stale
    env = run_graph(train, feeds)
    loss, grads = ref.loss_and_gradients(params, x, y)
    assert np.allclose(env[LOSS], loss, rtol=1e-12, atol=0), (env[LOSS], loss)
    for p in PARAM_NAMES:
        np.testing.assert_allclose(env[p + "_grad"], grads[p], rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(feeds[p + "_grad.accumulation.buffer"], grads[p],
                                   rtol=1e-10, atol=1e-14)
    # A second TrainStep without LazyResetGrad accumulates: 2x the gradient.
    feeds[LAZY_RESET] = np.array([False])
    run_graph(train, feeds)
    for p in PARAM_NAMES:
        np.testing.assert_allclose(feeds[p + "_grad.accumulation.buffer"], 2 * grads[p],
                                   rtol=1e-10, atol=1e-14)
    log("training graph (NumPy interpreter) == reference: loss %.7f, gradients, "
        "accumulation, lazy reset" % loss)

    xe = np.load(os.path.join(out_dir, "eval_input.npy"))
    ye = np.load(os.path.join(out_dir, "eval_labels.npy"))
    eval_feeds = {X: xe, LABELS: ye}
    eval_feeds.update(params)
    eenv = run_graph(evalm, eval_feeds)
    assert np.isclose(eenv[LOSS], ref.forward_loss(params, xe, ye)[0], rtol=1e-12)
    log("eval graph == reference: loss %.7f" % eenv[LOSS])

    a = {k: ADAMW_ATTRS[k] for k in ("alpha", "beta", "weight_decay", "adam_mode")}
    losses = ref.train(params, x, y, 20, 0.01, eps=ADAMW_ATTRS["epsilon"],
                       correct_bias=bool(ADAMW_ATTRS["correct_bias"]), **a)
    log("reference AdamW lr 0.01: loss %.4f -> %.4f over 20 steps" % (losses[0], losses[-1]))
    assert losses[-1] < 0.5 * losses[0], losses
    return losses


# ---------------------------------------------------------------------------

def generate(out_dir, seed=0, nominal=False):
    os.makedirs(out_dir, exist_ok=True)
    onnx.save(make_training_model(), os.path.join(out_dir, "training_model.onnx"))
    onnx.save(make_eval_model(), os.path.join(out_dir, "eval_model.onnx"))
    onnx.save(make_optimizer_model(), os.path.join(out_dir, "optimizer_model.onnx"))
    params = init_params(seed)
    plist = [(n, params[n], True) for n in PARAM_NAMES]
    odtc.write_checkpoint(os.path.join(out_dir, "checkpoint"), plist)
    if nominal:
        odtc.write_checkpoint(os.path.join(out_dir, "nominal_checkpoint"), plist, nominal=True)
    x_train, y_train, x_eval, y_eval = make_data(seed)
    np.save(os.path.join(out_dir, "train_input.npy"), x_train)
    np.save(os.path.join(out_dir, "train_labels.npy"), y_train)
    np.save(os.path.join(out_dir, "eval_input.npy"), x_eval)
    np.save(os.path.join(out_dir, "eval_labels.npy"), y_eval)


def main(argv):
    ap = argparse.ArgumentParser(description="Write odt's default MLP training artifacts")
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--verify", action="store_true",
                    help="check the graphs and their semantics against the NumPy reference")
    ap.add_argument("--nominal-checkpoint", action="store_true",
                    help="also write nominal_checkpoint (names and types only)")
    args = ap.parse_args(argv)
    generate(args.out_dir, args.seed, args.nominal_checkpoint)
    if args.verify:
        verify(args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
