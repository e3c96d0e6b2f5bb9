#!/usr/bin/env python3
"""Numeric tests of odt's com.microsoft training ops on one-node models.

    test_training_ops.py GROUP --reference numpy|ort

For every case of GROUP the test builds a one-node ONNX model (ai.onnx 17 +
com.microsoft 1), compiles it with `odt-compile --eval` and runs it with
`odt-run eval`, then compares each output with
  - numpy: a NumPy formula written from ORT's CPU kernel (always runs);
  - ort:   ONNX Runtime 1.19.2's training build, run through the venv's
           python (ODT_ORT_PYTHON); the test prints SKIPPED with the reason
           and exits 0 without it.
Float inputs are graph inputs (a plain model's float initializers would
become parameters); integer constants (shapes, axes) are initializers.

Environment: ODT_BIN (odt-compile, odt-run), ODT_ORT_PYTHON, optionally
ODT_TRAINING_OPS_WORK (scratch folder, kept).
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("ODT_BIN", "")
ORT_PYTHON = os.environ.get("ODT_ORT_PYTHON", "")

F32 = np.float32
RNG = np.random.default_rng(20261129)


def randn(*shape):
    return RNG.standard_normal(shape).astype(F32)


class Case:
    """One node, its inputs (None: an absent optional input), integer
    initializers, attributes, outputs (name, numpy dtype, shape) and the
    NumPy reference (a function of the input arrays giving the outputs)."""

    def __init__(self, name, op, inputs, outputs, reference, domain="com.microsoft",
                 attrs=None, initializers=None, rtol=1e-5, atol=1e-5):
        self.name, self.op, self.domain = name, op, domain
        self.inputs = inputs
        self.outputs = outputs
        self.reference = reference
        self.attrs = attrs or {}
        self.initializers = initializers or {}
        self.rtol, self.atol = rtol, atol

    def model(self):
        graph_inputs, node_inputs, inits = [], [], []
        for name, value in self.inputs:
            if value is None:
                node_inputs.append("")
                continue
            node_inputs.append(name)
            if name in self.initializers:
                inits.append(numpy_helper.from_array(value, name))
            else:
                graph_inputs.append(helper.make_tensor_value_info(
                    name, helper.np_dtype_to_tensor_dtype(value.dtype)
                    if hasattr(helper, "np_dtype_to_tensor_dtype")
                    else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[value.dtype],
                    value.shape))
        outputs = [helper.make_tensor_value_info(
            name, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)], shape)
            for name, dtype, shape in self.outputs]
        node = helper.make_node(self.op, node_inputs,
                                [name for name, _, _ in self.outputs],
                                domain=self.domain, name=self.name, **self.attrs)
        graph = helper.make_graph([node], self.name, graph_inputs, outputs, inits)
        return helper.make_model(graph, opset_imports=[
            helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])

    def feeds(self):
        return {name: value for name, value in self.inputs
                if value is not None and name not in self.initializers}

    def expected(self):
        values = {name: value for name, value in self.inputs}
        result = self.reference(**{k: v for k, v in values.items()})
        if not isinstance(result, (list, tuple)):
            result = [result]
        return {name: np.asarray(value)
                for (name, _, _), value in zip(self.outputs, result)}


# --- NumPy references (from ORT's CPU kernels and function bodies) -------

erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x):
    x = x.astype(np.float64)
    return (0.5 * x * (1 + erf(x / math.sqrt(2)))).astype(F32)


def fast_gelu(x):
    x = x.astype(np.float64)
    return (0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                   (x + 0.044715 * x ** 3)))).astype(F32)


def gelu_grad(dy, x):
    x = x.astype(np.float64)
    cdf = 0.5 * (1 + erf(x / math.sqrt(2)))
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
    return (dy * (cdf + x * pdf)).astype(F32)


def fast_gelu_grad(dy, x):
    x = x.astype(np.float64)
    a, g = math.sqrt(2 / math.pi), 0.044715
    t = np.tanh(a * (x + g * x ** 3))
    return (dy * 0.5 * (1 + t + (1 - t * t) * (a * x + 3 * g * a * x ** 3))).astype(F32)


def softmax(x, axes):
    e = np.exp(x - x.max(axis=axes, keepdims=True))
    return e / e.sum(axis=axes, keepdims=True)


def softmax_axes(rank, axis, coerced):
    axis = axis + rank if axis < 0 else axis
    return tuple(range(axis, rank)) if coerced else (axis,)


def softmax_grad(dy, y, axes):
    return (y * (dy - (y * dy).sum(axis=axes, keepdims=True))).astype(F32)


def log_softmax_grad(dy, y, axes):
    return (dy - np.exp(y) * dy.sum(axis=axes, keepdims=True)).astype(F32)


def sample_weights(labels, weights, ignore_index, classes):
    w = np.ones(labels.shape, np.float64) if weights is None else \
        weights.astype(np.float64)[np.clip(labels, 0, classes - 1)]
    if ignore_index is not None:
        w = np.where(labels == ignore_index, 0.0, w)
    return w


def sce_internal(scores, labels, weights, ignore_index, reduction):
    x = scores.astype(np.float64)
    logp = x - np.log(np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True)) \
        - x.max(1, keepdims=True)
    classes = scores.shape[1]
    w = sample_weights(labels, weights, ignore_index, classes)
    picked = np.take_along_axis(logp, np.expand_dims(np.clip(labels, 0, classes - 1), 1),
                                1)[:, 0]
    loss = -picked * w
    if reduction == "sum":
        loss = loss.sum()
    elif reduction == "mean":
        loss = loss.sum() / w.sum()
    return np.asarray(loss, F32), logp.astype(F32)


def sce_internal_grad(dy, logp, labels, weights, ignore_index, bias, reduction):
    classes = logp.shape[1]
    w = sample_weights(labels, weights, ignore_index, classes)
    if reduction == "none":
        g = w * dy
    elif reduction == "sum":
        g = w * float(dy)
    else:
        g = w * float(dy) / w.sum()
    onehot = np.zeros(logp.shape)
    np.put_along_axis(onehot, np.expand_dims(np.clip(labels, 0, classes - 1), 1), 1.0, 1)
    d = (np.exp(logp.astype(np.float64)) - onehot) * np.expand_dims(g, 1)
    if bias is not None:
        d = d + bias
    return d.astype(F32)


def row_col(x, axis):
    axis = axis + x.ndim if axis < 0 else axis
    return tuple(range(axis)), tuple(range(axis, x.ndim))


def layer_norm_stats(x, axis, eps=1e-5):
    _, cols = row_col(x, axis)
    mean = x.mean(axis=cols, keepdims=True)
    inv = 1 / np.sqrt(x.var(axis=cols, keepdims=True) + eps)
    return mean.astype(F32), inv.astype(F32)


def layer_norm_grad(dy, x, scale, mean, inv, axis):
    rows, cols = row_col(x, axis)
    dy, x, mean, inv = (a.astype(np.float64) for a in (dy, x, mean, inv))
    xhat = (x - mean) * inv
    b = dy * scale * inv
    x_grad = b - b.mean(axis=cols, keepdims=True) - \
        xhat * (b * xhat).mean(axis=cols, keepdims=True)
    return (x_grad.astype(F32), (dy * xhat).sum(axis=rows).astype(F32),
            dy.sum(axis=rows).astype(F32))


def simplified_layer_norm(x, scale, axis, eps):
    _, cols = row_col(x, axis)
    x64 = x.astype(np.float64)
    inv = 1 / np.sqrt((x64 * x64).mean(axis=cols, keepdims=True) + eps)
    return (x64 * inv * scale).astype(F32), inv.astype(F32)


def simplified_layer_norm_grad(dy, x, scale, inv, axis):
    rows, cols = row_col(x, axis)
    dy, x, inv = (a.astype(np.float64) for a in (dy, x, inv))
    xhat = x * inv
    b = dy * scale * inv
    x_grad = b - xhat * (b * xhat).mean(axis=cols, keepdims=True)
    return x_grad.astype(F32), (dy * xhat).sum(axis=rows).astype(F32)


def channel_axes(x):
    return (0,) + tuple(range(2, x.ndim))


def channel_view(v, x):
    return v.reshape((1, -1) + (1,) * (x.ndim - 2))


def batch_norm_internal(x, scale, b, in_mean, in_var, eps, momentum):
    axes = channel_axes(x)
    x64 = x.astype(np.float64)
    mean, var = x64.mean(axis=axes), x64.var(axis=axes)
    inv = 1 / np.sqrt(var + eps)
    y = (x64 - channel_view(mean, x)) * channel_view(inv, x) * channel_view(scale, x) \
        + channel_view(b, x)
    return (y.astype(F32), (in_mean * momentum + mean * (1 - momentum)).astype(F32),
            (in_var * momentum + var * (1 - momentum)).astype(F32), mean.astype(F32),
            inv.astype(F32))


def batch_norm_grad(dy, x, scale, mean, inv):
    axes = channel_axes(x)
    m = x.size // x.shape[1]
    dy, x = dy.astype(np.float64), x.astype(np.float64)
    centered = x - channel_view(mean, x)
    d_bias = dy.sum(axis=axes)
    d_scale = (centered * channel_view(inv, x) * dy).sum(axis=axes)
    dx = channel_view(scale * inv / m, x) * (
        dy * m - channel_view(d_bias, x) -
        centered * channel_view(d_scale * inv, x))
    return dx.astype(F32), d_scale.astype(F32), d_bias.astype(F32)


def conv_grad(dy, x, w, strides, pads, dilations, group):
    """2-D ConvGrad by loops over output positions and kernel offsets."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    mg = m // group
    (sh, sw), (dh, dw_) = strides, dilations
    pt, pl, pb, pr = pads
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    dxp = np.zeros_like(xp)
    dw = np.zeros(w.shape)
    dy64 = dy.astype(np.float64)
    for g in range(group):
        ms, cs = slice(g * mg, (g + 1) * mg), slice(g * cg, (g + 1) * cg)
        for oh in range(dy.shape[2]):
            for ow in range(dy.shape[3]):
                for i in range(kh):
                    for j in range(kw):
                        ih, iw = oh * sh + i * dh, ow * sw + j * dw_
                        grad = dy64[:, ms, oh, ow]                  # [n, mg]
                        dw[ms, :, i, j] += grad.T @ xp[:, cs, ih, iw]
                        dxp[:, cs, ih, iw] += grad @ w[ms, :, i, j]
    dx = dxp[:, :, pt:pt + h, pl:pl + wd]
    return dx.astype(F32), dw.astype(F32), dy64.sum(axis=(0, 2, 3)).astype(F32)


def max_pool_with_indices(x, k, s):
    """2-D MaxPool (no padding) and ORT's flat indices over all of x."""
    n, c, h, w = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    y = np.zeros((n, c, oh, ow), F32)
    idx = np.zeros((n, c, oh, ow), np.int64)
    for a in range(n):
        for b in range(c):
            for i in range(oh):
                for j in range(ow):
                    window = x[a, b, i * s:i * s + k, j * s:j * s + k]
                    r, q = np.unravel_index(np.argmax(window), window.shape)
                    y[a, b, i, j] = window[r, q]
                    idx[a, b, i, j] = ((a * c + b) * h + i * s + r) * w + j * s + q
    return y, idx


def max_pool_grad(dy, indices, x_shape):
    dx = np.zeros(int(np.prod(x_shape)), np.float64)
    np.add.at(dx, indices.reshape(-1), dy.reshape(-1))
    return dx.reshape(x_shape).astype(F32)


def average_pool_grad(dy, x_shape, kernel, strides, pads, count_include_pad):
    """ORT's AveragePoolGrad (1-D and 2-D): each dY element spread over its
    window clipped to the input."""
    dx = np.zeros(x_shape, np.float64)
    spatial = len(kernel)
    for pos in np.ndindex(*dy.shape[2:]):
        bounds = []
        for a in range(spatial):
            start = pos[a] * strides[a] - pads[a]
            bounds.append((max(start, 0), min(start + kernel[a], x_shape[2 + a])))
        count = int(np.prod(kernel)) if count_include_pad else \
            int(np.prod([e - b for b, e in bounds]))
        region = (slice(None), slice(None)) + tuple(slice(b, e) for b, e in bounds)
        dx[region] += (dy[(slice(None), slice(None)) + pos] / count)[
            (...,) + (None,) * spatial]
    return dx.astype(F32)


def gather_grad(shape, indices, dy, axis):
    dx = np.zeros(tuple(shape), np.float64)
    axis = axis + len(shape) if axis < 0 else axis
    flat = indices.reshape(-1)
    q = indices.ndim
    dyv = dy.reshape(dy.shape[:axis] + (flat.size,) + dy.shape[axis + q:])
    for j, a in enumerate(flat):
        a = a + shape[axis] if a < 0 else a
        index = (slice(None),) * axis + (a,)
        dx[index] += np.take(dyv, j, axis=axis)
    return dx.astype(F32)


def gather_elements_grad(dy, shape, indices, axis):
    dx = np.zeros(tuple(shape), np.float64)
    for pos in np.ndindex(*dy.shape):
        target = list(pos)
        a = indices[pos]
        target[axis] = a + shape[axis] if a < 0 else a
        dx[tuple(target)] += dy[pos]
    return dx.astype(F32)


def reduce_to(full, shape):
    """Sums a broadcast result back to `shape`."""
    lead = full.ndim - len(shape)
    out = full.sum(axis=tuple(range(lead))) if lead else full
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and out.shape[i] != 1)
    return out.sum(axis=axes, keepdims=True) if axes else out


def broadcast_gradient_args(a, b):
    """ORT's kernel."""
    a_axes, b_axes = [], []
    i, j = len(a) - 1, len(b) - 1
    k = max(len(a), len(b)) - 1
    while i >= 0 and j >= 0:
        if a[i] != b[j]:
            if a[i] == 1:
                a_axes.append(k)
            elif b[j] == 1:
                b_axes.append(k)
        i, j, k = i - 1, j - 1, k - 1
    while k >= 0:
        (a_axes if i < 0 else b_axes).append(k)
        k -= 1
    return a_axes, b_axes


def f32(value):
    return np.asarray(value).astype(F32)


# --- the cases, by group --------------------------------------------------

def activation_cases():
    x, dy = randn(3, 7), randn(3, 7)
    sig = (1 / (1 + np.exp(-x))).astype(F32)
    tanh = np.tanh(x).astype(F32)
    leaky = np.where(x > 0, x, 0.2 * x).astype(F32)
    bias = randn(7)
    out = [("dX", F32, [3, 7])]
    return [
        Case("relu_grad", "ReluGrad", [("dY", dy), ("X", np.maximum(x, 0).astype(F32))],
             out, lambda dY, X: f32(np.where(X > 0, dY, 0))),
        Case("sigmoid_grad", "SigmoidGrad", [("dY", dy), ("Y", sig)], out,
             lambda dY, Y: f32(dY * Y * (1 - Y))),
        Case("tanh_grad", "TanhGrad", [("dY", dy), ("Y", tanh)], out,
             lambda dY, Y: f32(dY * (1 - Y * Y))),
        Case("leaky_relu_grad", "LeakyReluGrad", [("dY", dy), ("Y", leaky)], out,
             lambda dY, Y: f32(np.where(Y > 0, dY, 0.2 * dY)), attrs={"alpha": 0.2}),
        Case("leaky_relu_grad_default", "LeakyReluGrad", [("dY", dy), ("Y", leaky)], out,
             lambda dY, Y: f32(np.where(Y > 0, dY, 0.01 * dY))),
        Case("gelu_grad", "GeluGrad", [("dY", dy), ("X", x * 2)], out,
             lambda dY, X: gelu_grad(dY, X)),
        Case("fast_gelu_grad", "FastGeluGrad", [("dY", dy), ("X", x * 2)], out,
             lambda dY, X: fast_gelu_grad(dY, X)),
        Case("gelu", "Gelu", [("X", x)], [("Y", F32, [3, 7])], lambda X: gelu(X)),
        Case("bias_gelu", "BiasGelu", [("A", x), ("B", bias)], [("C", F32, [3, 7])],
             lambda A, B: gelu(A + B)),
        Case("fast_gelu", "FastGelu", [("X", x)], [("Y", F32, [3, 7])],
             lambda X: fast_gelu(X)),
        Case("fast_gelu_bias", "FastGelu", [("X", x), ("bias", bias)],
             [("Y", F32, [3, 7])], lambda X, bias: fast_gelu(X + bias)),
    ]


def softmax_cases():
    x, dy = randn(2, 3, 5), randn(2, 3, 5)
    cases = []
    for op, coerced, axis in [("SoftmaxGrad_13", False, -1), ("SoftmaxGrad_13", False, 1),
                              ("SoftmaxGrad", True, 1), ("SoftmaxGrad", True, 2)]:
        axes = softmax_axes(3, axis, coerced)
        y = softmax(x, axes).astype(F32)
        cases.append(Case("%s_axis%d" % (op.lower(), axis), op, [("dY", dy), ("Y", y)],
                          [("dX", F32, [2, 3, 5])],
                          lambda dY, Y, axes=axes: softmax_grad(dY, Y, axes),
                          attrs={"axis": axis}))
    for op, coerced, axis in [("LogSoftmaxGrad_13", False, -1),
                              ("LogSoftmaxGrad_13", False, 0),
                              ("LogSoftmaxGrad", True, 1)]:
        axes = softmax_axes(3, axis, coerced)
        y = np.log(softmax(x, axes)).astype(F32)
        cases.append(Case("%s_axis%d" % (op.lower(), axis), op, [("dY", dy), ("X", y)],
                          [("dX", F32, [2, 3, 5])],
                          lambda dY, X, axes=axes: log_softmax_grad(dY, X, axes),
                          attrs={"axis": axis}))
    # The defaults: axis 1 (coerced) and -1.
    y = softmax(x, (1, 2)).astype(F32)
    cases.append(Case("softmax_grad_default", "SoftmaxGrad", [("dY", dy), ("Y", y)],
                      [("dX", F32, [2, 3, 5])],
                      lambda dY, Y: softmax_grad(dY, Y, (1, 2))))
    return cases


def loss_cases():
    cases = []
    scores, labels = randn(6, 5), np.array([0, 4, 2, -1, 1, 3], np.int64)
    weights = np.abs(randn(5)) + 0.5
    ignore = np.array(-1, np.int64)
    for reduction in ["mean", "sum", "none"]:
        for use_weights in [False, True]:
            w = weights if use_weights else None
            name = "sce_internal_%s%s" % (reduction, "_weighted" if use_weights else "")
            out_shape = [6] if reduction == "none" else []
            cases.append(Case(
                name, "SoftmaxCrossEntropyLossInternal",
                [("scores", scores), ("labels", labels), ("weights", w),
                 ("ignore_index", ignore)],
                [("output", F32, out_shape), ("log_prob", F32, [6, 5])],
                lambda scores, labels, weights, ignore_index, r=reduction:
                    sce_internal(scores, labels, weights, int(ignore_index), r),
                attrs={"reduction": reduction}, initializers={"ignore_index"},
                rtol=1e-5, atol=1e-5))
            _, logp = sce_internal(scores, labels, w, -1, reduction)
            dy = randn(6) if reduction == "none" else np.array(1.5, F32)
            cases.append(Case(
                name + "_grad", "SoftmaxCrossEntropyLossInternalGrad",
                [("dY", dy), ("log_prob", logp), ("label", labels), ("weight", w),
                 ("ignore_index", ignore)],
                [("d_logits", F32, [6, 5])],
                lambda dY, log_prob, label, weight, ignore_index, r=reduction:
                    sce_internal_grad(dY, log_prob, label, weight, int(ignore_index),
                                      None, r),
                attrs={"reduction": reduction}, initializers={"ignore_index"}))
    # SoftmaxCrossEntropyLossGrad (attributes only, no ignore_index input).
    for reduction in ["mean", "sum"]:
        _, logp = sce_internal(scores, labels, None, -1, reduction)
        cases.append(Case(
            "sce_loss_grad_" + reduction, "SoftmaxCrossEntropyLossGrad",
            [("dY", np.array(0.8, F32)), ("log_prob", logp), ("label", labels)],
            [("d_logits", F32, [6, 5])],
            lambda dY, log_prob, label, r=reduction:
                sce_internal_grad(dY, log_prob, label, None, -1, None, r),
            attrs={"reduction": reduction, "ignore_index": -1}))
    # K-dimensional scores, int32 labels, no ignore_index, a bias.
    scores3 = randn(2, 4, 3)
    labels3 = np.array([[0, 3, 1], [2, 2, 0]], np.int32)
    _, logp3 = sce_internal(scores3, labels3, None, None, "mean")
    bias = randn(2, 4, 3)
    cases.append(Case(
        "sce_internal_kdim", "SoftmaxCrossEntropyLossInternal",
        [("scores", scores3), ("labels", labels3)],
        [("output", F32, []), ("log_prob", F32, [2, 4, 3])],
        lambda scores, labels: sce_internal(scores, labels, None, None, "mean")))
    cases.append(Case(
        "sce_internal_kdim_grad_bias", "SoftmaxCrossEntropyLossInternalGrad",
        [("dY", np.array(0.7, F32)), ("log_prob", logp3), ("label", labels3),
         ("weight", None), ("ignore_index", None), ("bias", bias)],
        [("d_logits", F32, [2, 4, 3])],
        lambda dY, log_prob, label, weight, ignore_index, bias:
            sce_internal_grad(dY, log_prob, label, None, None, bias, "mean")))
    return cases


def normalization_cases():
    cases = []
    for shape, axis in [((4, 6), -1), ((2, 3, 4), 1)]:
        x, dy = randn(*shape), randn(*shape)
        _, cols = row_col(x, axis)
        scale = randn(*[shape[c] for c in cols])
        mean, inv = layer_norm_stats(x, axis)
        tag = "axis%d" % axis
        cases.append(Case(
            "layer_norm_grad_" + tag, "LayerNormalizationGrad",
            [("Y_grad", dy), ("X", x), ("scale", scale), ("mean", mean),
             ("inv_std_dev", inv)],
            [("X_grad", F32, list(shape)), ("scale_grad", F32, list(scale.shape)),
             ("bias_grad", F32, list(scale.shape))],
            lambda Y_grad, X, scale, mean, inv_std_dev, axis=axis:
                layer_norm_grad(Y_grad, X, scale, mean, inv_std_dev, axis),
            attrs={"axis": axis, "epsilon": 1e-5, "stash_type": 1}, atol=1e-4,
            rtol=1e-4))
        _, inv_rms = simplified_layer_norm(x, scale, axis, 1e-5)
        stat_shape = list(inv_rms.shape)
        cases.append(Case(
            "simplified_layer_norm_" + tag, "SimplifiedLayerNormalization",
            [("X", x), ("scale", scale)],
            [("Y", F32, list(shape)), ("inv_std_var", F32, stat_shape)],
            lambda X, scale, axis=axis: simplified_layer_norm(X, scale, axis, 1e-5),
            domain="", attrs={"axis": axis, "epsilon": 1e-5}))
        cases.append(Case(
            "simplified_layer_norm_grad_" + tag, "SimplifiedLayerNormalizationGrad",
            [("Y_grad", dy), ("X", x), ("scale", scale), ("inv_std_var", inv_rms)],
            [("X_grad", F32, list(shape)), ("scale_grad", F32, list(scale.shape))],
            lambda Y_grad, X, scale, inv_std_var, axis=axis:
                simplified_layer_norm_grad(Y_grad, X, scale, inv_std_var, axis),
            attrs={"axis": axis}, atol=1e-4, rtol=1e-4))
    for shape in [(4, 3, 2, 5), (5, 3)]:
        x, dy = randn(*shape) * 2 + 0.5, randn(*shape)
        c = shape[1]
        scale, b = randn(c), randn(c)
        in_mean, in_var = randn(c), np.abs(randn(c)) + 0.5
        tag = "rank%d" % len(shape)
        cases.append(Case(
            "batch_norm_internal_" + tag, "BatchNormInternal",
            [("X", x), ("scale", scale), ("B", b), ("input_mean", in_mean),
             ("input_var", in_var)],
            [("Y", F32, list(shape)), ("running_mean", F32, [c]),
             ("running_var", F32, [c]), ("saved_mean", F32, [c]),
             ("saved_inv_std", F32, [c])],
            lambda X, scale, B, input_mean, input_var:
                batch_norm_internal(X, scale, B, input_mean, input_var, 1e-3, 0.8),
            attrs={"epsilon": 1e-3, "momentum": 0.8}, atol=1e-4, rtol=1e-4))
        _, _, _, mean, inv = batch_norm_internal(x, scale, b, in_mean, in_var, 1e-5, 0.9)
        cases.append(Case(
            "batch_norm_grad_" + tag, "BatchNormalizationGrad",
            [("dY", dy), ("X", x), ("scale", scale), ("mean", mean),
             ("variance", inv)],
            [("X_grad", F32, list(shape)), ("scale_grad", F32, [c]),
             ("bias_grad", F32, [c])],
            lambda dY, X, scale, mean, variance:
                batch_norm_grad(dY, X, scale, mean, variance),
            attrs={"epsilon": 1e-5}, atol=1e-4, rtol=1e-4))
    return cases


def conv_pool_cases():
    cases = []
    for name, xs, ws, attrs in [
            ("conv_grad_pad", (2, 3, 6, 6), (4, 3, 3, 3), {"pads": [1, 1, 1, 1]}),
            ("conv_grad_stride", (2, 2, 7, 7), (3, 2, 3, 3),
             {"strides": [2, 2], "pads": [1, 0, 1, 0]}),
            ("conv_grad_dilation_group", (1, 4, 8, 8), (6, 2, 2, 3),
             {"dilations": [2, 1], "group": 2, "pads": [0, 1, 2, 1]}),
            # The phases of dX's positions (ConvGrad.cpp): a stride above
            # the kernel (phases no tap reaches, zero), a padding above
            # the kernel's reach (dY cropped for a phase), a 1x1 shortcut.
            ("conv_grad_stride3_k2", (1, 2, 8, 7), (3, 2, 2, 2),
             {"strides": [3, 3]}),
            ("conv_grad_stride2_pad2", (2, 2, 6, 5), (3, 2, 3, 3),
             {"strides": [2, 2], "pads": [2, 2, 2, 1]}),
            ("conv_grad_1x1_stride2", (2, 4, 6, 6), (5, 4, 1, 1),
             {"strides": [2, 2]}),
            ("conv_grad_depthwise_stride2", (2, 4, 7, 6), (4, 1, 3, 3),
             {"strides": [2, 2], "pads": [1, 1, 1, 1], "group": 4}),
            ("conv_grad_group_stride2", (1, 4, 6, 7), (6, 2, 3, 2),
             {"strides": [2, 3], "pads": [1, 0, 2, 1], "group": 2})]:
        x, w = randn(*xs), randn(*ws)
        strides = attrs.get("strides", [1, 1])
        dil = attrs.get("dilations", [1, 1])
        pads = attrs.get("pads", [0, 0, 0, 0])
        out = [(xs[2 + i] + pads[i] + pads[i + 2] - ((ws[2 + i] - 1) * dil[i] + 1))
               // strides[i] + 1 for i in range(2)]
        dy = randn(xs[0], ws[0], *out)
        full = dict(attrs, kernel_shape=list(ws[2:]))
        cases.append(Case(
            name, "ConvGrad", [("dY", dy), ("X", x), ("W", w)],
            [("dX", F32, list(xs)), ("dW", F32, list(ws)), ("dB", F32, [ws[0]])],
            lambda dY, X, W, s=strides, p=pads, d=dil, g=attrs.get("group", 1):
                conv_grad(dY, X, W, s, p, d, g),
            attrs=full, atol=1e-4, rtol=1e-4))
    # Windows that tile the input (k = s: one candidate window per element,
    # no sum) and overlapping ones (a sum over kernel offsets). (A tiled
    # pool of 7 rows cannot be a one-node case: without the MaxPool, dX's
    # size is inferred as the smallest input, 6.)
    for xs, k, s in [((2, 3, 6, 6), 2, 2), ((1, 2, 8, 4), 2, 2), ((1, 2, 7, 7), 3, 2)]:
        x = randn(*xs)
        y, idx = max_pool_with_indices(x, k, s)
        dy = randn(*y.shape)
        cases.append(Case(
            "max_pool_grad_k%d_s%d_h%d" % (k, s, xs[2]), "MaxPoolGrad",
            [("dY", dy), ("Indices", idx)], [("dX", F32, list(xs))],
            lambda dY, Indices, shape=xs: max_pool_grad(dY, Indices, shape),
            domain="", attrs={"kernel_shape": [k, k], "strides": [s, s]}))
    for xs, k, s, p, include in [((2, 3, 6, 6), [2, 2], [2, 2], [0, 0, 0, 0], 0),
                                 ((1, 2, 5, 5), [3, 3], [2, 2], [1, 1, 1, 1], 0),
                                 ((1, 2, 5, 5), [3, 3], [2, 2], [1, 1, 1, 1], 1),
                                 ((2, 3, 9), [3], [1], [1, 1], 0)]:
        out = [(xs[2 + i] + p[i] + p[i + len(k)] - k[i]) // s[i] + 1
               for i in range(len(k))]
        dy = randn(xs[0], xs[1], *out)
        cases.append(Case(
            "average_pool_grad_%dd_k%d_p%d_inc%d" % (len(k), k[0], p[0], include),
            "AveragePoolGrad", [("dY", dy)], [("dX", F32, list(xs))],
            lambda dY, shape=xs, k=k, s=s, p=p, inc=include:
                average_pool_grad(dY, shape, k, s, p, inc),
            domain="", attrs={"kernel_shape": k, "strides": s, "pads": p,
                              "count_include_pad": include}))
    return cases


def structural_cases():
    cases = []
    i64 = lambda v: np.array(v, np.int64)
    indices = np.array([[3, 0, 3, 19], [7, -1, 0, 2]], np.int64)
    dy = randn(2, 4, 8)
    cases.append(Case(
        "gather_grad_axis0", "GatherGrad",
        [("shape", i64([20, 8])), ("indices", indices), ("dY", dy)],
        [("dX", F32, [20, 8])],
        lambda shape, indices, dY: gather_grad(shape, indices, dY, 0),
        initializers={"shape"}))
    ind1 = np.array([2, 0, 2], np.int32)
    dy1 = randn(3, 3, 4)
    cases.append(Case(
        "gather_grad_axis1", "GatherGrad",
        [("shape", i64([3, 5, 4])), ("indices", ind1), ("dY", dy1)],
        [("dX", F32, [3, 5, 4])],
        lambda shape, indices, dY: gather_grad(shape, indices, dY, 1),
        attrs={"axis": 1}, initializers={"shape"}))
    eind = np.array([[0, 4], [2, 2], [1, 0]], np.int64)
    edy = randn(3, 2)
    cases.append(Case(
        "gather_elements_grad", "GatherElementsGrad",
        [("dY", edy), ("shape", i64([3, 5])), ("indices", eind)],
        [("dX", F32, [3, 5])],
        lambda dY, shape, indices: gather_elements_grad(dY, shape, indices, 1),
        attrs={"axis": 1}, initializers={"shape"}))
    ddy = randn(4, 6)
    mask = RNG.random((4, 6)) > 0.3
    for ratio, tag in [(np.array(0.25, F32), "ratio"), (None, "default"),
                       (np.array(0.0, F32), "zero")]:
        cases.append(Case(
            "dropout_grad_" + tag, "DropoutGrad",
            [("dy", ddy), ("mask", mask), ("ratio", ratio)], [("dx", F32, [4, 6])],
            lambda dy, mask, ratio, r=ratio: f32(
                dy if r is not None and float(r) == 0 else
                np.where(mask, dy / (1 - (0.5 if r is None else float(r))), 0))))
    sdy = randn(2, 3, 2)
    cases.append(Case(
        "slice_grad", "SliceGrad",
        [("dY", sdy), ("shape", i64([4, 3, 5])), ("starts", i64([1, -4])),
         ("ends", i64([3, 100])), ("axes", i64([0, 2])), ("steps", i64([1, 2]))],
        [("dX", F32, [4, 3, 5])],
        lambda dY, shape, starts, ends, axes, steps: (
            lambda dx: (dx.__setitem__((slice(1, 3), slice(None), slice(1, 5, 2)), dY),
                        dx)[1])(np.zeros((4, 3, 5), F32)),
        initializers={"shape", "starts", "ends", "axes", "steps"}))
    a, b = randn(2, 3, 4), np.abs(randn(3, 1)) + 0.5
    gdy = randn(2, 3, 4)
    cases.append(Case(
        "div_grad", "DivGrad", [("dY", gdy), ("A", a), ("B", b)],
        [("dA", F32, [2, 3, 4]), ("dB", F32, [3, 1])],
        lambda dY, A, B: (f32(reduce_to(dY / B, A.shape)),
                          f32(reduce_to(-dY * A / (B * B), B.shape))),
        rtol=1e-4, atol=1e-4))
    data = randn(3, 4, 5)
    for axes, keep, noop, tag in [([0, -1], 1, 0, "keep"), ([1], 0, 0, "drop"),
                                  ([], 1, 1, "noop"), ([], 0, 0, "all")]:
        expected_axes = tuple(sorted(a % 3 for a in axes)) if axes or noop else (0, 1, 2)
        shape = list(np.sum(data, axis=expected_axes, keepdims=bool(keep)).shape) \
            if expected_axes else [3, 4, 5]
        cases.append(Case(
            "reduce_sum_training_" + tag, "ReduceSumTraining",
            [("data", data), ("axes", i64(axes))], [("reduced", F32, shape)],
            lambda data, axes, e=expected_axes, k=keep: f32(
                np.sum(data, axis=e, keepdims=bool(k)) if e else data),
            attrs={"keepdims": keep, "noop_with_empty_axes": noop},
            initializers={"axes"}, rtol=1e-5, atol=1e-5))
    for (sa, sb), tag in [(([2, 1, 4], [3, 1]), "mixed"), (([5], [2, 3, 5]), "lead"),
                          (([2, 3], [2, 3]), "same")]:
        ea, eb = broadcast_gradient_args(sa, sb)
        cases.append(Case(
            "broadcast_gradient_args_" + tag, "BroadcastGradientArgs",
            [("a_shape", i64(sa)), ("b_shape", i64(sb))],
            [("a_axes", np.int64, [len(ea)]), ("b_axes", np.int64, [len(eb)])],
            lambda a_shape, b_shape, ea=ea, eb=eb: (i64(ea), i64(eb)),
            initializers={"a_shape", "b_shape"}))
    for sa, sb, ta, tb, alpha in [((2, 3, 4), (2, 4, 5), 0, 0, 1.0),
                                  ((2, 4, 3), (5, 4), 1, 1, 0.5),
                                  ((1, 3, 4), (2, 5, 4), 0, 1, 2.0),
                                  ((3, 4), (2, 1, 4, 6), 0, 0, 1.0),
                                  # Enough rows (40) for the packed path with B
                                  # transposed: its panels are filled by 16 x 16
                                  # register transposes, with k = 300 leaving 12
                                  # values after the last full block and n = 37
                                  # a column tile partly past B's end.
                                  ((40, 300), (37, 300), 0, 1, 1.0),
                                  # 13 rows: computed transposed (C^T = B A^T,
                                  # one vector of rows per column), k = 300 in
                                  # two blocks, n = 37 ending in a tile of 5.
                                  ((13, 300), (37, 300), 0, 1, 0.5),
                                  ((2, 16, 40), (24, 40), 0, 1, 1.0),
                                  # A weight gradient's shape: k = 16 and 300
                                  # rows take blocks of 64 whole rows (the
                                  # last 44: 5 row tiles and 4 single rows).
                                  ((16, 300), (16, 40), 1, 0, 1.0),
                                  # 5 rows read B in place, k = 100 in blocks
                                  # of 32 (the last 4), n = 37.
                                  ((5, 100), (100, 37), 0, 0, 2.0)]:
        A, B = randn(*sa), randn(*sb)
        swap = lambda m, t: np.swapaxes(m, -1, -2) if t else m
        ref = alpha * np.matmul(swap(A, ta), swap(B, tb))
        cases.append(Case(
            "fused_matmul_%s_%s_t%d%d" % ("x".join(map(str, sa)), "x".join(map(str, sb)),
                                          ta, tb),
            "FusedMatMul", [("A", A), ("B", B)], [("Y", F32, list(ref.shape))],
            lambda A, B, ta=ta, tb=tb, alpha=alpha: f32(
                alpha * np.matmul(swap(A.astype(np.float64), ta),
                                  swap(B.astype(np.float64), tb))),
            attrs={"transA": ta, "transB": tb, "alpha": alpha}, rtol=1e-4, atol=1e-4))
    x = randn(3, 4)
    for scale, down in [(np.array([2.5], F32), 0), (np.array(4, np.int64), 1)]:
        cases.append(Case(
            "scale_%s_down%d" % (scale.dtype, down), "Scale",
            [("input", x), ("scale", scale)], [("output", F32, [3, 4])],
            lambda input, scale, d=down: f32(
                input / float(np.asarray(scale).reshape(-1)[0]) if d
                else input * float(np.asarray(scale).reshape(-1)[0])),
            attrs={"scale_down": down}))
    whole = randn(2, 8)
    cases.append(Case(
        "split_training", "SplitTraining",
        [("input", whole), ("split", np.array([3, 5], np.int64))],
        [("out0", F32, [2, 3]), ("out1", F32, [2, 5])],
        lambda input, split: (input[:, :3], input[:, 3:]),
        attrs={"axis": 1}, initializers={"split"}))
    p, q = randn(2, 3), randn(2, 5)
    cases.append(Case(
        "concat_training", "ConcatTraining", [("p", p), ("q", q)],
        [("concat_result", F32, [2, 8]), ("per_input_length", np.int64, [2])],
        lambda p, q: (np.concatenate([p, q], axis=1), np.array([3, 5], np.int64)),
        attrs={"axis": 1}))
    return cases


def accumulation_cases():
    buf, value = randn(3, 4), randn(3, 4)
    cases = []
    for signal, tag in [(np.array([True]), "true"), (np.array([False]), "false"),
                        (None, "none")]:
        cases.append(Case(
            "in_place_accumulator_" + tag, "InPlaceAccumulator",
            [("old_sum", buf), ("value", value), ("update_signal", signal)],
            [("new_sum", F32, [3, 4])],
            lambda old_sum, value, update_signal, s=signal: f32(
                old_sum if s is not None and not bool(s[0]) else old_sum + value)))
    cases.append(Case(
        "in_place_accumulator_broadcast", "InPlaceAccumulator",
        [("old_sum", buf), ("value", randn(4))], [("new_sum", F32, [3, 4])],
        lambda old_sum, value: f32(old_sum + value)))
    for overwrite, tag in [(np.array([True]), "overwrite"),
                           (np.array([False]), "accumulate")]:
        cases.append(Case(
            "in_place_accumulator_v2_" + tag, "InPlaceAccumulatorV2",
            [("accumulation_buffer", buf), ("value", value),
             ("overwrite_flag", overwrite)],
            [("updated_flag", np.bool_, [1]), ("accumulation_buffer_out", F32, [3, 4])],
            lambda accumulation_buffer, value, overwrite_flag, o=overwrite: (
                np.array([True]),
                f32(value if bool(o[0]) else accumulation_buffer + value))))
    cases.append(Case(
        "zero_gradient", "ZeroGradient",
        [("old_gradient", buf), ("reset_signal", np.array([1], np.int64))],
        [("zero_gradient", F32, [3, 4])],
        lambda old_gradient, reset_signal: np.zeros((3, 4), F32)))
    return cases


GROUPS = {
    "activation": activation_cases,
    "softmax": softmax_cases,
    "loss": loss_cases,
    "normalization": normalization_cases,
    "conv_pool": conv_pool_cases,
    "structural": structural_cases,
    "accumulation": accumulation_cases,
}


# --- running ---------------------------------------------------------------

def ort_available():
    if not ORT_PYTHON or not os.path.exists(ORT_PYTHON):
        return "no ONNX Runtime venv at ODT_ORT_PYTHON=%r (scripts/setup-peers.sh)" \
            % ORT_PYTHON
    probe = subprocess.run([ORT_PYTHON, "-c", "import onnxruntime"],
                           capture_output=True, text=True)
    if probe.returncode:
        return "onnxruntime does not import in %s: %s" % (ORT_PYTHON,
                                                          probe.stderr[-300:])
    return None


def run_odt(case, folder):
    """Compiles and runs `case` with odt; returns {output: array} or raises."""
    model_path = os.path.join(folder, "model.onnx")
    onnx.save(case.model(), model_path)
    compiled = os.path.join(folder, "compiled")
    done = subprocess.run([os.path.join(BIN, "odt-compile"), "--quiet", "--eval",
                           model_path, "-o", compiled], capture_output=True, text=True)
    if done.returncode:
        raise AssertionError("odt-compile failed:\n" + done.stderr[-3000:])
    command = [os.path.join(BIN, "odt-run"), "eval", compiled]
    for name, value in case.feeds().items():
        path = os.path.join(folder, "in_%s.npy" % name)
        np.save(path, value)
        command += ["--input", "%s=%s" % (name, path)]
    outputs = {}
    for name, _, _ in case.outputs:
        outputs[name] = os.path.join(folder, "odt_%s.npy" % name)
        command += ["--output", "%s=%s" % (name, outputs[name])]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        raise AssertionError("odt-run failed:\n" + done.stderr[-3000:])
    return {name: np.load(path) for name, path in outputs.items()}


def run_ort(cases, folders, work):
    manifest = []
    for case, folder in zip(cases, folders):
        model_path = os.path.join(folder, "model.onnx")
        if not os.path.exists(model_path):
            onnx.save(case.model(), model_path)
        inputs = {}
        for name, value in case.feeds().items():
            inputs[name] = os.path.join(folder, "in_%s.npy" % name)
            np.save(inputs[name], value)
        manifest.append({"model": model_path, "inputs": inputs,
                         "outputs": {name: os.path.join(folder, "ort_%s.npy" % name)
                                     for name, _, _ in case.outputs}})
    path = os.path.join(work, "ort_manifest.json")
    with open(path, "w") as f:
        json.dump(manifest, f)
    done = subprocess.run([ORT_PYTHON, os.path.join(HERE, "ort_reference.py"), path],
                          capture_output=True, text=True)
    if done.returncode:
        raise AssertionError("ort_reference.py failed:\n" + done.stderr[-3000:])
    with open(path + ".errors.json") as f:
        errors = json.load(f)
    results = []
    for case, entry in zip(cases, manifest):
        if entry["model"] in errors:
            results.append(errors[entry["model"]])
            continue
        results.append({name: np.load(p) for name, p in entry["outputs"].items()})
    return results


def compare(label, ours, reference, case):
    problems = []
    for name, expected in reference.items():
        got = ours[name]
        expected = np.asarray(expected)
        if got.shape != expected.shape:
            problems.append("%s %s: shape %s, %s expects %s" % (
                case.name, name, got.shape, label, expected.shape))
            continue
        if got.dtype.kind in "biu":
            if not np.array_equal(got, expected.astype(got.dtype)):
                problems.append("%s %s: %s vs %s %s" % (case.name, name, got.tolist(),
                                                        label, expected.tolist()))
            continue
        if not np.allclose(got, expected, rtol=case.rtol, atol=case.atol):
            worst = np.max(np.abs(got.astype(np.float64) - expected))
            problems.append("%s %s: max |odt - %s| = %.3g (rtol %g, atol %g)" % (
                case.name, name, label, worst, case.rtol, case.atol))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("group", choices=sorted(GROUPS))
    parser.add_argument("--reference", choices=["numpy", "ort"], default="numpy")
    parser.add_argument("--only", help="run the cases whose name contains this")
    args = parser.parse_args()
    if args.reference == "ort":
        reason = ort_available()
        if reason:
            print("SKIPPED: " + reason)
            return 0
    cases = [c for c in GROUPS[args.group]() if not args.only or args.only in c.name]
    work = os.environ.get("ODT_TRAINING_OPS_WORK") or tempfile.mkdtemp(
        prefix="odt-training-ops-")
    folders = []
    for case in cases:
        folder = os.path.join(work, args.group, case.name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        folders.append(folder)
    failures = []
    ours = []
    for case, folder in zip(cases, folders):
        try:
            ours.append(run_odt(case, folder))
        except AssertionError as error:
            ours.append(None)
            failures.append("%s: %s" % (case.name, error))
    if args.reference == "numpy":
        references = [case.expected() for case in cases]
    else:
        references = run_ort(cases, folders, os.path.join(work, args.group))
    for case, got, reference in zip(cases, ours, references):
        if got is None:
            continue
        if isinstance(reference, str):
            failures.append("%s: ONNX Runtime refused the model: %s" % (case.name,
                                                                         reference))
            continue
        problems = compare(args.reference, got, reference, case)
        failures.extend(problems)
        print("%-48s %s" % (case.name, "FAIL" if problems else "ok"))
    if not os.environ.get("ODT_TRAINING_OPS_WORK"):
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("\n".join(["", "FAILED:"] + failures))
        return 1
    print("%d cases of %s match %s" % (len(cases), args.group, args.reference))
    return 0


if __name__ == "__main__":
    sys.exit(main())
