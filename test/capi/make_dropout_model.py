"""A forward model whose training step shows its Dropout mask, for
DropoutTest.cpp: y = Dropout(x * scale, ratio 0.3, training_mode true), with
scale a parameter of ones [4096] and x [N, 4096]. odt-compile
generate-artifacts (MSELoss, y as an additional output) makes its training
graph; with x = ones, each y is 0 (dropped) or 1 / 0.7 (kept).

Usage: make_dropout_model.py OUT.onnx
"""

import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

WIDTH = 4096


def main(path):
    nodes = [
        helper.make_node("Mul", ["x", "scale"], ["h"], name="scale"),
        helper.make_node("Dropout", ["h", "ratio", "training_mode"], ["y"],
                         name="drop"),
    ]
    initializers = [
        numpy_helper.from_array(np.ones(WIDTH, np.float32), "scale"),
        numpy_helper.from_array(np.array(0.3, np.float32), "ratio"),
        numpy_helper.from_array(np.array(True), "training_mode"),
    ]
    graph = helper.make_graph(
        nodes, "dropout",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", WIDTH])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", WIDTH])],
        initializer=initializers)
    model = helper.make_model(
        graph, opset_imports=[helper.make_operatorsetid("", 17)])
    model.ir_version = 8
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1])
