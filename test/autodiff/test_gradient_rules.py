#!/usr/bin/env python3
"""Finite-difference checks of every gradient rule odt has.

Each case is a one-op forward model whose floating-point inputs are all
initializers (so all of them are trainable parameters). generate-artifacts
adds MSELoss with reduction "sum" against a random target, so the gradient
reaching the op is a random, non-uniform tensor. The `loss:` cases check the
losses generate-artifacts builds (MSE, L1, BCE with logits, cross entropy;
mean and sum) the same way, on a Gemm's scores. The gradient of every
parameter is then taken three ways:
  fd:  central differences of the eval model's loss, evaluated by ONNX
       Runtime's inference session in float32;
  ort: ONNX Runtime's training session running odt's training graph
       (CheckpointState.parameters[p].grad after one TrainStep);
  odt: odt's compiled training step, read back as p0 - p1 after one SGD
       step with learning rate 1.
ort and odt must both match fd.

Tolerance: float32 evaluation of a loss of size L carries rounding ~ 1e-7 L,
so a central difference with step h errs by ~ 1e-7 L / h plus a truncation
h^2 |f'''| / 6. With h = 1e-2 and L, f''' of order 1-10 (the inputs are
O(1) and kept away from kinks: Relu/Abs/MaxPool inputs are at least 0.1 from
their switching points, so a step of 1e-2 never crosses one) both terms are
below 1e-3 in absolute terms. The check is |g - fd| <= 2e-3 + 1e-2 |fd|; a
wrong rule (a missing factor, a transposed product, a dropped broadcast sum)
misses by orders of magnitude more. Up to 8 entries per parameter are
checked, chosen at random.

    test_gradient_rules.py [CASE ...]      (default: all)

Environment: ODT_BIN, ODT_ORT_PYTHON (this script re-executes itself with
that interpreter, which has onnx and ONNX Runtime training; SKIPPED when it
is missing).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BIN = os.environ.get("ODT_BIN", "")
ORT_PYTHON = os.environ.get("ODT_ORT_PYTHON", "")
STEP = 1e-2
ABSOLUTE, RELATIVE = 2e-3, 1e-2
ENTRIES = 8


def cases():
    """name -> (nodes, initializers {name: array}, output shape, extra)."""
    import numpy as np
    from onnx import helper

    rng = np.random.default_rng(1)

    def r(*shape, low=None, away=None):
        a = rng.standard_normal(shape).astype(np.float32)
        if low is not None:
            a = (np.abs(a) + low).astype(np.float32)
        if away is not None:  # keep |a| >= away (kinks at 0)
            a = (np.sign(a) * (np.abs(a) + away)).astype(np.float32)
        return a

    def i64(*values):
        return np.array(values, dtype=np.int64)

    n = helper.make_node
    c = {}

    def unary(op, x, **attrs):
        c[op if op not in c else op + "_2"] = (
            [n(op, ["x"], ["y"], name=op.lower(), **attrs)], {"x": x})

    def binary(op, a, b):
        c[op] = ([n(op, ["a", "b"], ["y"], name=op.lower())], {"a": a, "b": b})

    binary("Add", r(2, 3), r(3))
    binary("Sub", r(3), r(2, 3))
    binary("Mul", r(2, 1, 3), r(4, 1))
    binary("Div", r(2, 3), r(3, low=0.5))
    binary("Pow", r(2, 3, low=0.5), r(3))
    for op in ("Neg", "Sigmoid", "Tanh", "Exp", "Sin", "Cos", "Softplus", "Atan",
               "Erf", "Identity"):
        unary(op, r(2, 3))
    unary("Abs", r(2, 3, away=0.1))
    unary("Relu", r(2, 3, away=0.1))
    unary("LeakyRelu", r(2, 3, away=0.1), alpha=0.2)
    unary("Log", r(2, 3, low=0.5))
    unary("Sqrt", r(2, 3, low=0.5))
    unary("Reciprocal", r(2, 3, low=0.5))
    c["Where"] = ([n("Where", ["cond", "a", "b"], ["y"], name="where")],
                  {"a": r(2, 3), "b": r(3)},
                  {"cond": np.array([[True, False, True], [False, False, True]])})
    unary("Cast", r(2, 3), to=1)
    c["Dropout"] = ([n("Dropout", ["x", "ratio", "training"], ["y", "mask"],
                       name="dropout")], {"x": r(2, 3)},
                    {"ratio": np.array(0.0, dtype=np.float32),
                     "training": np.array(True)})
    c["SoftmaxCrossEntropyLoss"] = (
        [n("SoftmaxCrossEntropyLoss", ["scores", "labels"], ["y"], name="sce",
           reduction="sum")], {"scores": r(4, 3)}, {"labels": i64(0, 2, 1, 2)})
    c["Gelu"] = ([n("Gelu", ["x"], ["y"], name="gelu")], {"x": r(2, 3)}, {}, 20)
    c["Gelu_tanh"] = ([n("Gelu", ["x"], ["y"], name="gelu", approximate="tanh")],
                      {"x": r(2, 3)}, {}, 20)
    c["MSGelu"] = ([n("Gelu", ["x"], ["y"], name="gelu", domain="com.microsoft")],
                   {"x": r(2, 3)})
    # Rules ORT's gradient builder lacks or that PyTorch models rarely use.
    # Max and Min: every pair at least 0.2 apart, so no step crosses a tie.
    pairs = (np.array([[0.5, -1.0, 0.3], [-0.4, 1.2, -0.9]], np.float32),
             np.array([0.1, -0.3, 0.8], np.float32))
    binary("Max", *pairs)
    binary("Min", *pairs)
    binary("Mean", r(2, 3), r(3))
    c["Clip"] = ([n("Clip", ["x", "lo", "hi"], ["y"], name="clip")],
                 {"x": np.array([[-2.0, -0.6, -0.2], [0.3, 0.7, 1.9]], np.float32)},
                 {"lo": np.array(-0.5, np.float32), "hi": np.array(1.0, np.float32)})
    unary("Elu", r(2, 3, away=0.1), alpha=0.7)
    unary("HardSigmoid", np.array([[-4.0, -1.0, 0.2], [1.5, 2.2, 4.0]], np.float32))
    c["ReduceMax"] = ([n("ReduceMax", ["x"], ["y"], name="reducemax", axes=[1],
                         keepdims=0)], {"x": r(2, 4, 3)})
    c["ReduceMin"] = ([n("ReduceMin", ["x"], ["y"], name="reducemin", axes=[0, 2])],
                      {"x": r(2, 4, 3)})
    c["ReduceLogSumExp"] = ([n("ReduceLogSumExp", ["x"], ["y"], name="rlse",
                               axes=[1], keepdims=0)], {"x": r(3, 4)})
    c["CumSum"] = ([n("CumSum", ["x", "axis"], ["y"], name="cumsum", exclusive=1)],
                   {"x": r(3, 4)}, {"axis": np.array(1, np.int64)})
    c["CumSum_reverse"] = ([n("CumSum", ["x", "axis"], ["y"], name="cumsum",
                              reverse=1)], {"x": r(3, 4)},
                           {"axis": np.array(0, np.int64)})
    c["TopK"] = ([n("TopK", ["x", "k"], ["y", "indices"], name="topk", axis=1)],
                 {"x": (rng.permutation(12).astype(np.float32) * 0.5).reshape(3, 4)},
                 {"k": i64(2)})
    c["Einsum"] = ([n("Einsum", ["a", "b"], ["y"], name="einsum",
                      equation="bij,bjk->bik")], {"a": r(2, 3, 4), "b": r(2, 4, 5)})
    c["Einsum_summed_label"] = (
        [n("Einsum", ["a", "b"], ["y"], name="einsum", equation="ij,kl->ik")],
        {"a": r(3, 4), "b": r(2, 5)})
    c["BatchNormalization"] = (
        [n("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"],
           name="bn", epsilon=1e-3)],
        {"x": r(2, 3, 2, 2), "scale": r(3), "bias": r(3), "mean": r(3),
         "var": r(3, low=0.5)})
    # Training-mode BatchNormalization, as generate-artifacts rewrites it.
    c["BatchNormInternal"] = (
        [n("BatchNormInternal", ["x", "scale", "bias", "mean", "var"],
           ["y", "running_mean", "running_var", "saved_mean", "saved_inv_std"],
           name="bn", domain="com.microsoft", epsilon=1e-3)],
        {"x": r(3, 2, 2, 2), "scale": r(2), "bias": r(2)},
        {"mean": np.zeros(2, np.float32), "var": np.ones(2, np.float32)})
    c["GatherElements"] = ([n("GatherElements", ["x", "indices"], ["y"],
                              name="gather_elements", axis=1)], {"x": r(3, 4)},
                           {"indices": np.array([[0, 3], [1, 1], [2, 0]], np.int64)})
    c["ScatterElements"] = ([n("ScatterElements", ["x", "indices", "updates"], ["y"],
                               name="scatter", axis=1)],
                            {"x": r(3, 4), "updates": r(3, 2)},
                            {"indices": np.array([[0, 3], [1, 2], [2, 0]], np.int64)})
    c["ScatterElements_add"] = ([n("ScatterElements", ["x", "indices", "updates"],
                                   ["y"], name="scatter", axis=0, reduction="add")],
                                {"x": r(3, 4), "updates": r(2, 4)},
                                {"indices": np.array([[0, 2, 1, 1], [2, 2, 0, 1]],
                                                     np.int64)})
    c["Trilu"] = ([n("Trilu", ["x", "k"], ["y"], name="trilu", upper=0)],
                  {"x": r(2, 4, 4)}, {"k": np.array(1, np.int64)})
    c["ReduceL2"] = ([n("ReduceL2", ["x"], ["y"], name="reducel2", axes=[1],
                        keepdims=0)], {"x": r(3, 4)})
    c["NegativeLogLikelihoodLoss"] = (
        [n("NegativeLogLikelihoodLoss", ["x", "target", "weight"], ["y"],
           name="nll", ignore_index=1)], {"x": r(5, 3, 2)},
        {"target": np.array([[0, 2], [1, 1], [2, 0], [0, 1], [2, 2]], np.int64),
         "weight": r(3, low=0.2)})
    c["ConvTranspose"] = ([n("ConvTranspose", ["x", "w", "b"], ["y"],
                             name="convtranspose", strides=[2, 1],
                             pads=[1, 0, 0, 1])],
                          {"x": r(2, 3, 3, 4), "w": r(3, 2, 3, 3), "b": r(2)})
    # ORT contrib ops (ORT's own gradient builder lacks some of these).
    ms = {"domain": "com.microsoft"}
    c["FusedMatMul"] = ([n("FusedMatMul", ["a", "b"], ["y"], name="fmm", alpha=0.5,
                           **ms)], {"a": r(2, 3, 4), "b": r(4, 5)})
    c["FusedMatMul_transposed"] = (
        [n("FusedMatMul", ["a", "b"], ["y"], name="fmm", transA=1, transB=1, **ms)],
        {"a": r(4, 3), "b": r(2, 5, 4)})
    c["BiasGelu"] = ([n("BiasGelu", ["a", "b"], ["y"], name="biasgelu", **ms)],
                     {"a": r(2, 3), "b": r(3)})
    c["FastGelu"] = ([n("FastGelu", ["x", "bias"], ["y"], name="fastgelu", **ms)],
                     {"x": r(2, 3), "bias": r(3)})
    c["Scale"] = ([n("Scale", ["x", "s"], ["y"], name="scale", scale_down=1, **ms)],
                  {"x": r(2, 3)}, {"s": np.array([4.0], np.float32)})
    c["SimplifiedLayerNormalization"] = (
        [n("SimplifiedLayerNormalization", ["x", "scale"], ["y"], name="rms",
           axis=-1)], {"x": r(3, 6), "scale": r(6)})
    c["Split"] = ([n("Split", ["x", "split"], ["y", "unused"], name="split", axis=1)],
                  {"x": r(2, 5)}, {"split": i64(3, 2)})
    c["Pad"] = ([n("Pad", ["x", "pads"], ["y"], name="pad")], {"x": r(2, 3)},
                {"pads": i64(1, 0, 0, 2)})
    c["Tile"] = ([n("Tile", ["x", "repeats"], ["y"], name="tile")], {"x": r(2, 3)},
                 {"repeats": i64(2, 3)})
    # The losses generate-artifacts appends, on a Gemm's scores: (nodes,
    # params, constants, opset, --loss, --reduction).
    scores = ([n("Gemm", ["a", "b"], ["y"], name="gemm")],
              {"a": r(4, 3), "b": r(3, 5)}, {}, 17)
    for loss in ("MSELoss", "L1Loss", "BCEWithLogitsLoss", "CrossEntropyLoss"):
        for reduction in ("mean", "sum"):
            c["loss:%s:%s" % (loss, reduction)] = scores + (loss, reduction)
    # Weighted losses: --loss-weight and --pos-weight tensors.
    c["loss:CrossEntropyLoss:mean:weight"] = scores + (
        "CrossEntropyLoss", "mean", {"loss-weight": r(5, low=0.2)})
    c["loss:BCEWithLogitsLoss:mean:pos_weight"] = scores + (
        "BCEWithLogitsLoss", "mean", {"pos-weight": r(5, low=0.2)})
    c["loss:BCEWithLogitsLoss:sum:weight,pos_weight"] = scores + (
        "BCEWithLogitsLoss", "sum",
        {"loss-weight": r(4, 1, low=0.2), "pos-weight": r(5, low=0.2)})
    c["Sum"] = ([n("Sum", ["a", "b", "c"], ["y"], name="sum")],
                {"a": r(2, 3), "b": r(3), "c": r(2, 1)})
    # Products.
    c["Gemm"] = ([n("Gemm", ["a", "b", "c"], ["y"], name="gemm", alpha=0.5,
                    beta=2.0)], {"a": r(3, 4), "b": r(4, 5), "c": r(5)})
    c["Gemm_transposed"] = (
        [n("Gemm", ["a", "b", "c"], ["y"], name="gemm", transA=1, transB=1)],
        {"a": r(4, 3), "b": r(5, 4), "c": r(3, 1)})
    c["MatMul"] = ([n("MatMul", ["a", "b"], ["y"], name="matmul")],
                   {"a": r(3, 4), "b": r(4, 2)})
    c["MatMul_shared_weight"] = ([n("MatMul", ["a", "b"], ["y"], name="matmul")],
                                 {"a": r(2, 3, 4), "b": r(4, 2)})
    c["MatMul_batched"] = ([n("MatMul", ["a", "b"], ["y"], name="matmul")],
                           {"a": r(2, 1, 3, 4), "b": r(3, 4, 2)})
    c["Conv"] = ([n("Conv", ["x", "w", "b"], ["y"], name="conv",
                    kernel_shape=[3, 3], pads=[1, 0, 1, 2], strides=[2, 1])],
                 {"x": r(2, 2, 5, 5), "w": r(3, 2, 3, 3), "b": r(3)})
    # Stride 2 on an even size (the last row and column reach no output):
    # dX spreads dY with zeros and correlates it with the flipped filter.
    c["Conv_stride2"] = ([n("Conv", ["x", "w"], ["y"], name="conv",
                            kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2])],
                         {"x": r(2, 3, 6, 6), "w": r(4, 3, 3, 3)})
    # MaxPool: distinct values, so no tie moves under a step.
    pool_in = (rng.permutation(2 * 2 * 4 * 4).astype(np.float32) * 0.3
               ).reshape(2, 2, 4, 4)
    c["MaxPool"] = ([n("MaxPool", ["x"], ["y"], name="maxpool",
                       kernel_shape=[2, 2], strides=[2, 2])], {"x": pool_in})
    c["AveragePool"] = ([n("AveragePool", ["x"], ["y"], name="avgpool",
                           kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
                        {"x": r(2, 2, 5, 5)})
    unary("GlobalAveragePool", r(2, 3, 4, 4))
    # Reductions, normalizations.
    c["ReduceSum"] = ([n("ReduceSum", ["x", "axes"], ["y"], name="reducesum",
                         keepdims=0)], {"x": r(2, 3, 4)}, {"axes": i64(1)})
    c["ReduceMean"] = ([n("ReduceMean", ["x"], ["y"], name="reducemean",
                          axes=[0, 2])], {"x": r(2, 3, 4)})
    unary("Softmax", r(2, 5), axis=1)
    unary("LogSoftmax", r(2, 3, 4), axis=1)
    c["LayerNormalization"] = (
        [n("LayerNormalization", ["x", "scale", "bias"], ["y"], name="layernorm",
           axis=-1)], {"x": r(3, 6), "scale": r(6), "bias": r(6)})
    # Data movement.
    c["Reshape"] = ([n("Reshape", ["x", "shape"], ["y"], name="reshape")],
                    {"x": r(2, 6)}, {"shape": i64(3, -1)})
    unary("Flatten", r(2, 3, 2), axis=2)
    c["Squeeze"] = ([n("Squeeze", ["x", "axes"], ["y"], name="squeeze")],
                    {"x": r(2, 1, 3)}, {"axes": i64(1)})
    c["Unsqueeze"] = ([n("Unsqueeze", ["x", "axes"], ["y"], name="unsqueeze")],
                      {"x": r(2, 3)}, {"axes": i64(0, 3)})
    unary("Transpose", r(2, 3, 4), perm=[2, 0, 1])
    c["Expand"] = ([n("Expand", ["x", "shape"], ["y"], name="expand")],
                   {"x": r(3, 1)}, {"shape": i64(2, 3, 4)})
    c["Concat"] = ([n("Concat", ["a", "b"], ["y"], name="concat", axis=1)],
                   {"a": r(2, 3), "b": r(2, 2)})
    c["Slice"] = ([n("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"],
                     name="slice")], {"x": r(4, 6)},
                  {"starts": i64(1, 0), "ends": i64(4, 6), "axes": i64(0, 1),
                   "steps": i64(1, 2)})
    c["Gather"] = ([n("Gather", ["x", "indices"], ["y"], name="gather", axis=0)],
                   {"x": r(5, 3)}, {"indices": i64(0, 3, 3, 1)})
    c["GatherND"] = ([n("GatherND", ["x", "indices"], ["y"], name="gathernd")],
                     {"x": r(3, 4, 2)},
                     {"indices": np.array([[0, 1], [2, 3], [0, 1]], np.int64)})
    c["ScatterND"] = ([n("ScatterND", ["x", "indices", "updates"], ["y"],
                         name="scatternd")],
                      {"x": r(4, 3), "updates": r(2, 3)},
                      {"indices": np.array([[1], [3]], np.int64)})
    c["ScatterND_add"] = ([n("ScatterND", ["x", "indices", "updates"], ["y"],
                             name="scatternd", reduction="add")],
                          {"x": r(4, 3), "updates": r(3, 3)},
                          {"indices": np.array([[1], [3], [1]], np.int64)}, 18)
    # Activations PyTorch exports (inputs kept 0.1 from every kink).
    unary("HardSwish", np.array([[-4.0, -2.2, -0.7], [0.4, 1.9, 3.5]], np.float32))
    # Mish is an opset 18 op.
    c["Mish"] = ([n("Mish", ["x"], ["y"], name="mish")], {"x": r(2, 3)}, {}, 18)
    c["PRelu"] = ([n("PRelu", ["x", "slope"], ["y"], name="prelu")],
                  {"x": r(2, 3, away=0.1), "slope": r(3)})
    unary("Selu", r(2, 3, away=0.1))
    unary("Celu", r(2, 3, away=0.1), alpha=0.5)
    unary("ThresholdedRelu",
          np.array([[-1.0, 0.2, 0.7], [0.9, 1.4, 2.0]], np.float32), alpha=0.5)
    # Mod (fmod): the quotient a / b stays 0.1 from integers.
    c["Mod"] = ([n("Mod", ["a", "b"], ["y"], name="mod", fmod=1)],
                {"a": np.array([[2.5, -1.3, 0.6], [3.7, -2.6, 1.3]], np.float32)},
                {"b": np.array([1.0, 0.5, 0.8], np.float32)})
    c["ReduceProd"] = ([n("ReduceProd", ["x"], ["y"], name="reduceprod", axes=[1],
                          keepdims=0)], {"x": r(3, 4)})
    c["ReduceL1"] = ([n("ReduceL1", ["x"], ["y"], name="reducel1", axes=[0, 2])],
                     {"x": r(2, 3, 4, away=0.1)})
    c["ReduceSumSquare"] = ([n("ReduceSumSquare", ["x"], ["y"], name="rss",
                               axes=[1], keepdims=0)], {"x": r(3, 4)})
    c["ReduceLogSum"] = ([n("ReduceLogSum", ["x"], ["y"], name="rls", axes=[1],
                            keepdims=0)], {"x": r(3, 4, low=0.3)})
    # Recurrent layers: every operand trains. ONNX Runtime cannot run odt's
    # back-propagation-through-time ops (RNNGrad is odt's; its GRUGrad and
    # LSTMGrad take other operands), so only odt is checked against the
    # finite differences there ("ort": skipped, saying so).
    no_ort = {"ort": False}

    def recurrent(op, hidden, gates, direction="forward", extra=None, **attrs):
        d = 2 if direction == "bidirectional" else 1
        params = {"x": r(3, 2, 4, low=None) * 0.5,
                  "w": r(d, gates * hidden, 4) * 0.5,
                  "r": r(d, gates * hidden, hidden) * 0.5,
                  "b": r(d, 2 * gates * hidden) * 0.5,
                  "h0": r(d, 2, hidden) * 0.5}
        inputs = ["x", "w", "r", "b", "", "h0"]
        if extra:
            params.update(extra)
            inputs += list(extra)
        params = {k: v.astype(np.float32) for k, v in params.items()}
        return ([n(op, inputs, ["y", "y_h"], name=op.lower(), hidden_size=hidden,
                   direction=direction, **attrs)], params, {}, 17, "MSELoss",
                "sum", {}, no_ort)

    c["RNN"] = recurrent("RNN", 5, 1)
    c["RNN_bidirectional_relu"] = recurrent(
        "RNN", 4, 1, "bidirectional", activations=["Relu", "Relu"])
    c["GRUTraining"] = recurrent("GRU", 5, 3, linear_before_reset=1)
    c["GRUTraining_reset_first"] = recurrent("GRU", 4, 3, "bidirectional",
                                             linear_before_reset=0)
    c["GRUTraining_reverse"] = recurrent("GRU", 3, 3, "reverse",
                                         linear_before_reset=1)
    c["LSTMTraining"] = recurrent(
        "LSTM", 4, 4, "bidirectional",
        extra={"c0": r(2, 2, 4) * 0.5, "p": r(2, 12) * 0.5})
    c["LSTMTraining_plain"] = recurrent("LSTM", 5, 4)
    # Cases added later draw their data after all of the above, so that
    # theirs stay the same.
    # output_padding within the end pads (a decoder's k3 s2 p1 op1), and
    # beyond them (rows only the bias reaches).
    c["ConvTranspose_output_padding"] = (
        [n("ConvTranspose", ["x", "w", "b"], ["y"], name="convtranspose_op",
           strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])],
        {"x": r(2, 3, 3, 4), "w": r(3, 2, 3, 3), "b": r(2)})
    c["ConvTranspose_output_padding_past_pads"] = (
        [n("ConvTranspose", ["x", "w", "b"], ["y"], name="convtranspose_op2",
           strides=[2, 3], pads=[0, 1, 0, 0], output_padding=[1, 2])],
        {"x": r(1, 2, 3, 2), "w": r(2, 2, 2, 3), "b": r(2)})
    # Stride 2 on an odd size: 4 and 5 both pool to 2, so dX's size comes
    # from X, not from dY.
    c["AveragePool_odd"] = ([n("AveragePool", ["x"], ["y"], name="avgpool_odd",
                               kernel_shape=[2, 2], strides=[2, 2])],
                            {"x": r(2, 2, 5, 5)})
    # Negative steps: a flip (torch.flip) and every other row backwards.
    # (ORT 1.19.2's SliceGrad fails on them: narrowing_error.)
    c["Slice_negative_steps"] = (
        [n("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"],
           name="slice_back")], {"x": r(5, 6)},
        {"starts": i64(-1, 4), "ends": i64(-7, 0), "axes": i64(1, 0),
         "steps": i64(-1, -2)}, 17, "MSELoss", "sum", {}, {"ort": False})
    # Reflect and edge padding (ReflectionPad2d between convolutions, and
    # 'replicate'): the padded copies send their gradient back to what they
    # copied, corners through both axes.
    c["Pad_reflect"] = (
        [n("Pad", ["x", "pads"], ["y"], name="pad_reflect", mode="reflect")],
        {"x": r(2, 2, 4, 5)}, {"pads": i64(0, 0, 2, 1, 0, 0, 1, 3)})
    c["Pad_edge"] = (
        [n("Pad", ["x", "pads"], ["y"], name="pad_edge", mode="edge")],
        {"x": r(2, 3, 4)}, {"pads": i64(0, 2, 1, 0, 1, 2)})
    return c


def build_model(name, case, folder):
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import helper, numpy_helper
    nodes, params = case[0], case[1]
    constants = case[2] if len(case) > 2 else {}
    opset = case[3] if len(case) > 3 else 17
    inits = [numpy_helper.from_array(v, k) for k, v in params.items()]
    inits += [numpy_helper.from_array(v, k) for k, v in constants.items()]
    graph = helper.make_graph(nodes, name, [], [helper.make_empty_tensor_value_info("y")],
                              inits)
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", opset), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 8
    # The output's shape, from ONNX Runtime itself (the reference).
    probe = os.path.join(folder, "probe.onnx")
    onnx.save(model, probe)
    y = ort.InferenceSession(probe).run(None, {})[0]
    graph.output[0].CopyFrom(helper.make_tensor_value_info(
        "y", onnx.TensorProto.FLOAT, list(y.shape)))
    path = os.path.join(folder, "forward.onnx")
    onnx.save(model, path)
    return path, y.shape


def reference_loss(kind, reduction, y, target, weights):
    """PyTorch's definitions of the losses, in float64."""
    import numpy as np
    weight = weights.get("loss-weight")
    if kind == "CrossEntropyLoss":
        log_prob = y - np.log(np.exp(y - y.max(1, keepdims=True)).sum(1, keepdims=True)) \
            - y.max(1, keepdims=True)
        w = np.ones(y.shape[1]) if weight is None else weight.astype(np.float64)
        picked = -log_prob[np.arange(len(target)), target] * w[target]
        return picked.sum() / (w[target].sum() if reduction == "mean" else 1.0)
    if kind == "MSELoss":
        per = (y - target) ** 2
    elif kind == "L1Loss":
        per = np.abs(y - target)
    else:
        softplus = np.logaddexp(0, -y)  # -log(sigmoid(y))
        pos = 1.0 if "pos-weight" not in weights else weights["pos-weight"]
        per = pos * target * softplus + (1 - target) * (y + softplus)
        if weight is not None:
            per = per * weight
    return per.mean() if reduction == "mean" else per.sum()


def session_output(folder):
    import onnxruntime as ort
    return ort.InferenceSession(os.path.join(folder, "forward.onnx")).run(None, {})[0]


def run(args):
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode:
        raise AssertionError("%s failed:\n%s" % (" ".join(args), done.stderr[-3000:]))
    return done


def check(name, case, work):
    import numpy as np
    import onnxruntime as ort
    from onnxruntime.training.api import CheckpointState, Module
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import odtc

    folder = os.path.join(work, name)
    os.makedirs(folder)
    forward, shape = build_model(name, case, folder)
    rng = np.random.default_rng(7)
    loss_kind, reduction = (case[4], case[5]) if len(case) > 4 else ("MSELoss", "sum")
    target_name = "target"
    if loss_kind == "CrossEntropyLoss":
        target_name = "labels"
        target = rng.integers(0, shape[1], size=shape[0]).astype(np.int64)
    elif loss_kind == "BCEWithLogitsLoss":
        target = rng.uniform(0, 1, shape).astype(np.float32)
    else:
        target = rng.standard_normal(shape).astype(np.float32)
        if loss_kind == "L1Loss":  # keep |y - t| away from L1's kink
            y = session_output(folder)
            target = (y + np.sign(target) * (np.abs(target) + 0.1)).astype(np.float32)
    target_path = os.path.join(folder, "target.npy")
    np.save(target_path, target)
    artifacts = os.path.join(folder, "artifacts")
    compiled = os.path.join(folder, "compiled")
    weight_flags = []
    for flag, value in (case[6] if len(case) > 6 else {}).items():
        path = os.path.join(folder, flag + ".npy")
        np.save(path, value)
        weight_flags += ["--" + flag, path]
    run([os.path.join(BIN, "odt-compile"), "generate-artifacts", forward, "-o",
         artifacts, "--loss", loss_kind, "--reduction", reduction, "--optimizer",
         "SGD", "--quiet", "--compile", compiled, *weight_flags,
         "--requires-grad", ",".join(case[1])])
    params = case[1]

    # Finite differences on the eval graph (parameters are its inputs).
    session = ort.InferenceSession(os.path.join(artifacts, "eval_model.onnx"))
    def loss(values):
        feeds = {target_name: target, **values}
        return float(session.run(None, feeds)[0])
    fd = {}
    picks = {}
    for p, value in params.items():
        flat = value.reshape(-1)
        picks[p] = rng.choice(flat.size, size=min(ENTRIES, flat.size), replace=False)
        fd[p] = []
        for index in picks[p]:
            plus, minus = flat.copy(), flat.copy()
            plus[index] += STEP
            minus[index] -= STEP
            up = loss({**params, p: plus.reshape(value.shape)})
            down = loss({**params, p: minus.reshape(value.shape)})
            fd[p].append((up - down) / (2 * STEP))

    # The loss itself against its definition (PyTorch's, in NumPy float64).
    if len(case) > 4:
        expected = reference_loss(loss_kind, reduction,
                                  session_output(folder).astype(np.float64),
                                  target, case[6] if len(case) > 6 else {})
        actual = loss(params)
        if abs(actual - expected) > 1e-5 * max(1.0, abs(expected)):
            return 0.0, ["%s: loss %.7g, its definition gives %.7g"
                         % (name, actual, expected)]

    # ORT's gradients, where ORT can run odt's training graph.
    options = case[7] if len(case) > 7 else {}
    ort_grads = None
    if options.get("ort", True):
        state = CheckpointState.load_checkpoint(os.path.join(artifacts, "checkpoint"))
        module = Module(os.path.join(artifacts, "training_model.onnx"), state,
                        os.path.join(artifacts, "eval_model.onnx"))
        module.train()
        module(target)
        ort_grads = {p: np.array(state.parameters[p].grad).reshape(-1)
                     for p in params}

    # odt's gradients: p0 - p1 after one SGD step at learning rate 1.
    saved = os.path.join(folder, "after_step")
    run([os.path.join(BIN, "odt-run"), "train", compiled, "--checkpoint",
         os.path.join(artifacts, "checkpoint"), "--input",
         "%s=%s" % (target_name, target_path),
         "--steps", "1", "--lr", "1", "--save", saved])
    after = {q["name"]: q["data"] for q in odtc.read_checkpoint(saved)["params"]}
    odt_grads = {p: (params[p].astype(np.float64) - after[p].astype(np.float64)
                     ).reshape(-1) for p in params}

    worst = 0.0
    failures = []
    for p in params:
        for k, index in enumerate(picks[p]):
            expected = fd[p][k]
            bound = ABSOLUTE + RELATIVE * abs(expected)
            for who, grads in (("ort", ort_grads), ("odt", odt_grads)):
                if grads is None:
                    continue
                error = abs(grads[p][index] - expected)
                worst = max(worst, error / bound)
                if error > bound:
                    failures.append("%s d/d%s[%d]: %s %.6g, finite differences %.6g"
                                    % (name, p, index, who, grads[p][index], expected))
    return worst, failures


def main():
    if os.environ.get("ODT_GRADCHECK_CHILD") != "1":
        if not ORT_PYTHON or not os.path.exists(ORT_PYTHON):
            print("SKIPPED: no ONNX Runtime training venv at ODT_ORT_PYTHON=%r "
                  "(make it with scripts/setup-peers.sh)" % ORT_PYTHON)
            return 0
        env = dict(os.environ, ODT_GRADCHECK_CHILD="1")
        return subprocess.run([ORT_PYTHON, os.path.abspath(__file__), *sys.argv[1:]],
                              env=env).returncode
    all_cases = cases()
    # Every rule in compiler/autodiff/rules has a case (named after its op).
    rules = set()
    rules_dir = os.path.join(ROOT, "compiler", "autodiff", "rules")
    for file in os.listdir(rules_dir):
        with open(os.path.join(rules_dir, file)) as f:
            rules.update(re.findall(r"^ODT_GRADIENT_RULE\((\w+)\)", f.read(), re.M))
    untested = sorted(rules - {name.split("_")[0] for name in all_cases
                               if not name.startswith("loss:")})
    if untested:
        print("FAIL: gradient rules without a finite-difference case: %s"
              % ", ".join(untested))
        return 1
    names = sys.argv[1:] or sorted(all_cases)
    unknown = [n for n in names if n not in all_cases]
    if unknown:
        print("unknown cases: %s" % ", ".join(unknown))
        return 2
    work = tempfile.mkdtemp(prefix="odt-gradcheck-")
    failed = 0
    try:
        for name in names:
            try:
                worst, failures = check(name, all_cases[name], work)
            except Exception as error:  # one broken case must not hide the rest
                print("FAIL %s: %s: %s" % (name, type(error).__name__, error))
                failed += 1
                continue
            if failures:
                failed += 1
                print("FAIL %s:\n  %s" % (name, "\n  ".join(failures)))
            else:
                skipped = len(all_cases[name]) > 7 and not all_cases[name][7].get("ort", True)
                print("ok   %-30s worst error / bound %.3f%s" % (
                    name, worst, " (odt only: ONNX Runtime cannot run this "
                    "training graph)" if skipped else ""))
    finally:
        if not os.environ.get("ODT_KEEP_WORK"):
            shutil.rmtree(work, ignore_errors=True)
    print("%d of %d gradient rules checked failed" % (failed, len(names)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
