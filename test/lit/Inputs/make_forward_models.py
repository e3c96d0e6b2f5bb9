#!/usr/bin/env python3
"""Small forward models for the generate-artifacts lit tests.

    make_forward_models.py OUT_DIR

mlp.onnx        input [batch, 4] -> Gemm(fc1) -> Relu -> Gemm(fc2) -> logits [batch, 3];
                also an initializer `unused` on no path to the output and an
                int64 initializer `int_shape` (Reshape's target, a no-op)
no_rule.onnx    input -> MatMul(w) + Range(start, 5, 1) (node 'range': a float
                Range has no gradient rule)
int_output.onnx input -> Gemm(w) -> ArgMax (an int64 output)
rank1.onnx      input -> Gemm(w) -> ReduceSum over axis 1 -> [batch]
dropout.onnx    input -> Gemm(w) -> Dropout(ratio 0.5, training_mode true), as
                PyTorch exports in training mode
batchnorm.onnx  image [batch, 2, 3, 3] -> BatchNormalization in training mode
                (running statistics as outputs, as PyTorch exports it)
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def tensor(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def model(nodes, inputs, outputs, initializers, name):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    m = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    f32 = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 4])

    mlp = model(
        [helper.make_node("Reshape", ["input", "int_shape"], ["flat"], name="reshape"),
         helper.make_node("Gemm", ["flat", "fc1.weight", "fc1.bias"], ["h"],
                          name="fc1", transB=1),
         helper.make_node("Relu", ["h"], ["r"], name="relu"),
         helper.make_node("Gemm", ["r", "fc2.weight", "fc2.bias"], ["logits"],
                          name="fc2", transB=1),
         helper.make_node("Mul", ["logits", "unused"], ["scaled"], name="scale")],
        [x],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3]),
         helper.make_tensor_value_info("scaled", TensorProto.FLOAT, ["batch", 3])],
        [tensor("fc1.weight", f32(5, 4)), tensor("fc1.bias", f32(5)),
         tensor("fc2.weight", f32(3, 5)), tensor("fc2.bias", f32(3)),
         tensor("unused", f32(3)),
         tensor("int_shape", np.array([-1, 4], dtype=np.int64))],
        "mlp")
    onnx.save(mlp, os.path.join(out, "mlp.onnx"))

    no_rule = model(
        [helper.make_node("MatMul", ["input", "w"], ["h"], name="matmul"),
         helper.make_node("Range", ["start", "limit", "delta"], ["ramp"],
                          name="range"),
         helper.make_node("Add", ["h", "ramp"], ["values"], name="add")],
        [x],
        [helper.make_tensor_value_info("values", TensorProto.FLOAT, ["batch", 3])],
        [tensor("w", f32(4, 3)), tensor("start", np.array(0.5, np.float32)),
         tensor("limit", np.array(3.5, np.float32)),
         tensor("delta", np.array(1.0, np.float32))],
        "no_rule")
    onnx.save(no_rule, os.path.join(out, "no_rule.onnx"))

    int_output = model(
        [helper.make_node("Gemm", ["input", "w"], ["h"], name="gemm"),
         helper.make_node("ArgMax", ["h"], ["class"], name="argmax", axis=1)],
        [x],
        [helper.make_tensor_value_info("class", TensorProto.INT64, ["batch", 1])],
        [tensor("w", f32(4, 3))], "int_output")
    onnx.save(int_output, os.path.join(out, "int_output.onnx"))

    rank1 = model(
        [helper.make_node("Gemm", ["input", "w"], ["h"], name="gemm"),
         helper.make_node("ReduceSum", ["h", "axes"], ["s"], name="sum",
                          keepdims=0)],
        [x],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, ["batch"])],
        [tensor("w", f32(4, 3)), tensor("axes", np.array([1], dtype=np.int64))],
        "rank1")
    onnx.save(rank1, os.path.join(out, "rank1.onnx"))

    dropout = model(
        [helper.make_node("Gemm", ["input", "w"], ["h"], name="gemm"),
         helper.make_node("Dropout", ["h", "ratio", "training"], ["y", "mask"],
                          name="dropout")],
        [x],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
        [tensor("w", f32(4, 3)), tensor("ratio", np.array(0.5, dtype=np.float32)),
         tensor("training", np.array(True))], "dropout")
    onnx.save(dropout, os.path.join(out, "dropout.onnx"))

    image = helper.make_tensor_value_info("image", TensorProto.FLOAT,
                                          ["batch", 2, 3, 3])
    batchnorm = model(
        [helper.make_node("BatchNormalization",
                          ["image", "bn.weight", "bn.bias", "bn.running_mean",
                           "bn.running_var"], ["y", "mean_out", "var_out"],
                          name="bn", training_mode=1)],
        [image],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 2, 3, 3])],
        [tensor("bn.weight", f32(2)), tensor("bn.bias", f32(2)),
         tensor("bn.running_mean", np.zeros(2, np.float32)),
         tensor("bn.running_var", np.ones(2, np.float32))], "batchnorm")
    onnx.save(batchnorm, os.path.join(out, "batchnorm.onnx"))

    # As PyTorch's dynamo exporter writes a small net: Clip's bounds, a
    # scalar scale and BatchNorm's running statistics are initializers too,
    # next to the weights; an integer shape and an initializer nobody reads.
    exported = model(
        [helper.make_node("Gemm", ["input", "encoder.0.weight", "encoder.0.bias"],
                          ["h"], name="encoder.0", transB=1),
         helper.make_node("Clip", ["h", "clip_min", "clip_max"], ["c"], name="relu6"),
         helper.make_node("Mul", ["c", "scale"], ["s"], name="scale_node"),
         helper.make_node("Unsqueeze", ["s", "axes23"], ["s4"], name="unsqueeze"),
         helper.make_node("BatchNormalization",
                          ["s4", "norm.weight", "norm.bias", "norm.running_mean",
                           "norm.running_var"], ["n4", "mean_out", "var_out"],
                          name="norm", training_mode=1),
         helper.make_node("Reshape", ["n4", "flat_shape"], ["n"], name="flatten"),
         helper.make_node("Gemm", ["n", "head.weight", "head.bias"], ["logits"],
                          name="head", transB=1)],
        [x],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])],
        [tensor("encoder.0.weight", f32(5, 4)), tensor("encoder.0.bias", f32(5)),
         tensor("clip_min", np.array(0.0, np.float32)),
         tensor("clip_max", np.array(6.0, np.float32)),
         tensor("scale", np.array(0.5, np.float32)),
         tensor("axes23", np.array([2, 3], np.int64)),
         tensor("norm.weight", f32(5)), tensor("norm.bias", f32(5)),
         tensor("norm.running_mean", np.zeros(5, np.float32)),
         tensor("norm.running_var", np.ones(5, np.float32)),
         tensor("flat_shape", np.array([-1, 5], np.int64)),
         tensor("head.weight", f32(3, 5)), tensor("head.bias", f32(3)),
         tensor("stale", f32(2))],
        "exported")
    onnx.save(exported, os.path.join(out, "exported.onnx"))

    # A reflect Pad between a Conv and the output on an image of symbolic
    # size: its gradient needs the padded dims' sizes.
    free_image = helper.make_tensor_value_info("image", TensorProto.FLOAT,
                                               ["batch", 2, "h", "w"])
    reflect = model(
        [helper.make_node("Conv", ["image", "conv.weight"], ["c"], name="conv"),
         helper.make_node("Pad", ["c", "pads"], ["p"], name="reflect",
                          mode="reflect"),
         helper.make_node("GlobalAveragePool", ["p"], ["g"], name="pool"),
         helper.make_node("Flatten", ["g"], ["y"], name="flatten")],
        [free_image],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
        [tensor("conv.weight", f32(3, 2, 1, 1)),
         tensor("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))],
        "reflect_free_size")
    onnx.save(reflect, os.path.join(out, "reflect_free_size.onnx"))


if __name__ == "__main__":
    main()
