"""Writes small ONNX models that odt-compile must reject with a clear message.

Usage: make_bad_models.py OUT_DIR

Each model is a variation of one valid forward graph, Gemm -> Relu on
x [N, 4] and a weight [3, 4] (transB), so each file holds exactly one defect:

  unsupported_ops.onnx   several nodes of op types odt does not support
  opset9.onnx            a valid graph (one Relu) importing ai.onnx opset 9,
                         which odt upgrades to 13 before importing
  opset99.onnx           the same graph importing an ai.onnx opset from the future
  unknown_attribute.onnx a Gemm with an attribute ONNX's Gemm does not have
  bad_attribute_value.onnx a Softmax whose axis is outside its input's rank
  dangling_output.onnx   a graph output that no node computes
  shape_mismatch.onnx    a Gemm whose inner dims are 3 and 4
  valid.onnx             the valid graph itself (a control)

and not_onnx.bin, 4 KiB of (seeded, so reproducible) random bytes.
"""

import os
import random
import sys

from onnx import TensorProto, checker, helper


def make_model(nodes, outputs, opset=17, weight_shape=(3, 4), check=True):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, list(weight_shape))
    graph = helper.make_graph(nodes, "bad", [x, w], outputs)
    model = helper.make_model(
        graph, opset_imports=[helper.make_operatorsetid("", opset),
                              helper.make_operatorsetid("com.example", 1)])
    model.ir_version = 8
    if check:
        checker.check_model(model)
    return model


def output(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def gemm(**attrs):
    return helper.make_node("Gemm", ["x", "w"], ["y"], name="fc1", transB=1,
                            **attrs)


def relu():
    return helper.make_node("Relu", ["y"], ["z"], name="act1")


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    models = {
        "valid": make_model([gemm(), relu()], [output("z", ["N", 3])]),
        # Supported nodes between unsupported ones; one unsupported node has
        # no name, one comes from a domain odt does not know.
        "unsupported_ops": make_model(
            [
                gemm(),
                helper.make_node("Shrink", ["y"], ["s"], name="gate"),
                helper.make_node("Hardmax", ["s"], ["t"], axis=1),
                helper.make_node("Relu", ["t"], ["r"], name="act1"),
                helper.make_node("LpNormalization", ["r"], ["q"],
                                 name="probs", axis=1),
                helper.make_node("Scale", ["q"], ["z"], name="custom",
                                 domain="com.example"),
            ],
            [output("z", ["N", 3])], check=False),
        # Relu alone: Gemm's C is required before opset 11.
        "opset9": make_model(
            [helper.make_node("Relu", ["x"], ["z"], name="act1")],
            [output("z", ["N", 4])], opset=9),
        "opset99": make_model(
            [helper.make_node("Relu", ["x"], ["z"], name="act1")],
            [output("z", ["N", 4])], opset=99, check=False),
        # The checker rejects an attribute Gemm does not define: that is the
        # point of this file.
        "unknown_attribute": make_model(
            [gemm(broadcast=1), relu()], [output("z", ["N", 3])],
            check=False),
        "bad_attribute_value": make_model(
            [gemm(), helper.make_node("Softmax", ["y"], ["z"], name="probs",
                                      axis=7)],
            [output("z", ["N", 3])], check=False),
        "dangling_output": make_model(
            [gemm(), relu()],
            [output("z", ["N", 3]), output("nobody", ["N", 3])],
            check=False),
        "shape_mismatch": make_model(
            [gemm(), relu()], [output("z", ["N", 4])], weight_shape=(4, 3),
            check=False),
    }
    for name, model in models.items():
        with open(os.path.join(out_dir, name + ".onnx"), "wb") as f:
            f.write(model.SerializeToString())
    noise = random.Random(20240229)
    with open(os.path.join(out_dir, "not_onnx.bin"), "wb") as f:
        f.write(bytes(noise.getrandbits(8) for _ in range(4096)))


if __name__ == "__main__":
    main(sys.argv[1])
