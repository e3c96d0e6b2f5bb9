#!/usr/bin/env python3
"""EmbeddingBags written as PyTorch's TorchScript exporter writes them: a Loop
over the bags whose body slices the bag's indices between two offsets,
gathers their rows and reduces them.

    make_bag_loops.py OUT_DIR

bag_sum.onnx     ids [n] (flat), offsets [bags] -> Loop 'bag_loop' (ReduceSum
                 of emb.weight's rows) -> Gemm(fc) -> logits [bags, 3]
bag_max.onnx     the same with ReduceMax (mode 'max')
early_exit.onnx  the same, but the body's condition is i < 1: the loop may
                 stop before its trip count
double.onnx      bag_sum with a float64 weight
opset15.onnx     bag_sum at opset 15 (before ScatterND's reduction)
bag_lengths.onnx bag_sum whose offsets the model computes from the bags'
                 lengths [batch]: Concat([0], CumSum(lengths)[:-1]), whose
                 length 1 + (batch - 1) odt's symbols cannot name; logits
                 [bags, 3]
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_forward_models import model  # noqa: E402


def const(name, values, dtype=np.int64):
    return helper.make_node(
        "Constant", [], [name],
        value=numpy_helper.from_array(np.asarray(values, dtype=dtype), name))


def bag_model(reduce_op="ReduceSum", early_exit=False, weight=np.float32,
              from_lengths=False):
    rng = np.random.default_rng(0)
    body_nodes = [
        helper.make_node("Gather", ["bounds", "i"], ["start"], axis=0),
        helper.make_node("Gather", ["ends", "i"], ["end"], axis=0),
        const("zero_axis", [0]),
        helper.make_node("Unsqueeze", ["start", "zero_axis"], ["start1"]),
        helper.make_node("Unsqueeze", ["end", "zero_axis"], ["end1"]),
        helper.make_node("Slice", ["ids", "start1", "end1", "zero_axis"],
                         ["bag_ids"]),
        helper.make_node("Gather", ["emb.weight", "bag_ids"], ["rows"],
                         axis=0),
    ]
    if reduce_op == "ReduceSum":
        body_nodes.append(helper.make_node(
            "ReduceSum", ["rows", "zero_axis"], ["bag"], keepdims=0))
    else:
        body_nodes.append(helper.make_node(
            reduce_op, ["rows"], ["bag"], axes=[0], keepdims=0))
    if early_exit:
        body_nodes += [const("one", 1),
                       helper.make_node("Less", ["i", "one"], ["keep"])]
    else:
        body_nodes.append(helper.make_node("Identity", ["cond"], ["keep"]))
    body = helper.make_graph(
        body_nodes, "bag_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("keep", TensorProto.BOOL, []),
         helper.make_tensor_value_info(
             "bag", TensorProto.DOUBLE if weight == np.float64
             else TensorProto.FLOAT, [4])])
    nodes = []
    if from_lengths:
        nodes += [
            const("cumsum_axis", 0), const("zero_1d", [0]),
            const("minus_one_1d", [-1]),
            helper.make_node("CumSum", ["lengths", "cumsum_axis"], ["ends_"]),
            helper.make_node("Slice", ["ends_", "zero_1d", "minus_one_1d"],
                             ["starts"]),
            helper.make_node("Concat", ["zero_1d", "starts"], ["offsets"],
                             name="offsets_concat", axis=0),
        ]
    nodes += [
        helper.make_node("Shape", ["ids"], ["total"]),
        helper.make_node("Concat", ["offsets", "total"], ["bounds"], axis=0),
        const("one_1d", [1]), const("end_1d", [np.iinfo(np.int64).max]),
        const("axis_1d", [0]),
        helper.make_node("Slice", ["bounds", "one_1d", "end_1d", "axis_1d",
                                   "one_1d"], ["ends"]),
        helper.make_node("Shape", ["ends"], ["ends_shape"]),
        const("first", 0),
        helper.make_node("Gather", ["ends_shape", "first"], ["trips"],
                         axis=0),
        const("true", True, dtype=np.bool_),
        helper.make_node("Loop", ["trips", "true"], ["bags"],
                         name="bag_loop", body=body),
        helper.make_node("Gemm", ["bags", "fc.weight", "fc.bias"],
                         ["logits"], name="fc", transB=1),
    ]
    return model(
        nodes,
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["n"]),
         helper.make_tensor_value_info(
             "lengths" if from_lengths else "offsets", TensorProto.INT64,
             ["batch"])],
        [helper.make_tensor_value_info(
            "logits", TensorProto.FLOAT,
            ["bags" if from_lengths else "batch", 3])],
        [numpy_helper.from_array(
            rng.standard_normal((10, 4)).astype(weight), "emb.weight"),
         numpy_helper.from_array(
             rng.standard_normal((3, 4)).astype(np.float32), "fc.weight"),
         numpy_helper.from_array(np.zeros(3, np.float32), "fc.bias")],
        "bags")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onnx.save(bag_model(), os.path.join(out, "bag_sum.onnx"))
    onnx.save(bag_model("ReduceMax"), os.path.join(out, "bag_max.onnx"))
    onnx.save(bag_model(early_exit=True),
              os.path.join(out, "early_exit.onnx"))
    onnx.save(bag_model(weight=np.float64), os.path.join(out, "double.onnx"))
    old = bag_model()
    for opset in old.opset_import:
        if opset.domain in ("", "ai.onnx"):
            opset.version = 15
    onnx.save(old, os.path.join(out, "opset15.onnx"))
    onnx.save(bag_model(from_lengths=True),
              os.path.join(out, "bag_lengths.onnx"))


if __name__ == "__main__":
    main()
