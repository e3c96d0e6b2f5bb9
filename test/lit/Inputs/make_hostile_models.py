"""Writes ONNX models a careless or hostile author could hand to odt-compile.

Usage: make_hostile_models.py OUT_DIR

Each model holds one defect that odt-compile once crashed on, silently
ignored or obeyed; odt must refuse each with a clear message:

  attr_<op>_<attribute>.onnx  an attribute of the wrong kind (Gemm transB as
                              a string, Softmax axis as a float, Conv group
                              as a tensor, LeakyRelu alpha as an int,
                              Transpose perm as floats, ...)
  data/ext_*.onnx             an initializer whose external data is read
                              from outside the model's folder (absolute,
                              '..', a symbolic link out), at an offset that
                              is not a number or lies beyond the file, or
                              with a length past the file's end;
                              data/ext_ok.onnx is the valid control
  dup_node_output.onnx        two nodes writing the same value
  dup_graph_output.onnx       one graph output listed twice
  node_writes_input.onnx      a node writing over a graph input
  no_outputs.onnx             a graph without outputs
  huge_input.onnx             an input of 2^31 x 2^31 floats (2^64 bytes)
  huge_initializer.onnx       an initializer of that size

  gather_constant_oob.onnx    a Gather of column 4 of x [N, 4] (a constant
                              index the lowering used to clamp to 3)

a forward model whose run-time indices the runtime must check:

  embedding.onnx              ids [N, 3] (int64) -> Gather from a [10, 4]
                              table -> mean -> Gemm -> logits [N, 2]; with
                              ids_ok.npy, ids_high.npy (10 at [1, 2]),
                              ids_low.npy (-11 at [0, 0]), labels.npy

a forward model whose symbolic dims must fit at run time:

  reshape_minus_one.onnx      x [N, 4] reshaped to [-1, 3]: only N a
                              multiple of 3 fills it (x_2x4.npy does not,
                              x_3x4.npy does; the -1 dim used to be rounded
                              down, dropping elements)

and one valid model that once failed with an internal message:

  concat_empty.onnx           x [2, 4] concatenated with an empty [2, 0]
                              initializer along axis 1: y == x
"""

import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT


def value(name, shape):
    return helper.make_tensor_value_info(name, FLOAT, shape)


def make_model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "hostile", inputs, outputs,
                              initializer=list(initializers))
    model = helper.make_model(
        graph, opset_imports=[helper.make_operatorsetid("", 17)])
    model.ir_version = 8
    return model


def raw_tensor(name, dims):
    tensor = TensorProto()
    tensor.name = name
    tensor.data_type = FLOAT
    tensor.dims.extend(dims)
    return tensor


def wrong_attribute(op, inputs, attribute, value_, shape, **attrs):
    node = helper.make_node(op, inputs, ["y"], name="node", **attrs)
    node.attribute.append(helper.make_attribute(attribute, value_))
    model_inputs = [value("x", ["N", 4])]
    if "w" in inputs:
        model_inputs.append(value("w", [3, 4]))
    return make_model([node], model_inputs, [value("y", shape)])


def external_gemm(location, offset=None, length=None):
    weight = raw_tensor("w", [3, 4])
    weight.data_location = TensorProto.EXTERNAL
    for key, entry in (("location", location), ("offset", offset),
                       ("length", length)):
        if entry is not None:
            item = weight.external_data.add()
            item.key = key
            item.value = str(entry)
    return make_model(
        [helper.make_node("Gemm", ["x", "w"], ["y"], name="fc", transB=1)],
        [value("x", ["N", 4])], [value("y", ["N", 3])], [weight])


def main(out_dir):
    data_dir = os.path.join(out_dir, "data")
    os.makedirs(data_dir, exist_ok=True)
    models = {
        "attr_gemm_transB": wrong_attribute("Gemm", ["x", "w"], "transB",
                                            "yes", ["N", 3]),
        "attr_gemm_alpha": wrong_attribute("Gemm", ["x", "w"], "alpha", "x",
                                           ["N", 3], transB=1),
        "attr_softmax_axis": wrong_attribute("Softmax", ["x"], "axis", 1.0,
                                             ["N", 4]),
        "attr_flatten_axis": wrong_attribute("Flatten", ["x"], "axis", "1",
                                             ["N", 4]),
        "attr_reducemean_keepdims": wrong_attribute(
            "ReduceMean", ["x"], "keepdims", 1.0, ["N", 1]),
        "attr_leakyrelu_alpha": wrong_attribute("LeakyRelu", ["x"], "alpha",
                                                2, ["N", 4]),
        "attr_transpose_perm": wrong_attribute("Transpose", ["x"], "perm",
                                               [1.0, 0.0], [4, "N"]),
        "attr_conv_group": wrong_attribute(
            "Conv", ["x", "w"], "group",
            numpy_helper.from_array(np.ones(1, np.int64)), ["N", 3]),
        "dup_node_output": make_model(
            [helper.make_node("Relu", ["x"], ["y"], name="first"),
             helper.make_node("Neg", ["x"], ["y"], name="second")],
            [value("x", ["N", 4])], [value("y", ["N", 4])]),
        "dup_graph_output": make_model(
            [helper.make_node("Relu", ["x"], ["y"], name="first")],
            [value("x", ["N", 4])],
            [value("y", ["N", 4]), value("y", ["N", 4])]),
        "node_writes_input": make_model(
            [helper.make_node("Relu", ["x"], ["x"], name="first")],
            [value("x", ["N", 4])], [value("x", ["N", 4])]),
        "no_outputs": make_model(
            [helper.make_node("Relu", ["x"], ["y"], name="first")],
            [value("x", ["N", 4])], []),
        "huge_input": make_model(
            [helper.make_node("Relu", ["x"], ["y"], name="first")],
            [value("x", [2**31, 2**31])], [value("y", [2**31, 2**31])]),
        "huge_initializer": make_model(
            [helper.make_node("Add", ["x", "w"], ["y"], name="first")],
            [value("x", [1, 1])], [value("y", [2**31, 2**31])],
            [raw_tensor("w", [2**31, 2**31])]),
        "gather_constant_oob": make_model(
            [helper.make_node("Gather", ["x", "column"], ["y"], name="pick",
                              axis=1)],
            [value("x", ["N", 4])], [value("y", ["N"])],
            [numpy_helper.from_array(np.array(4, np.int64), "column")]),
        "embedding": make_model(
            [helper.make_node("Gather", ["table", "ids"], ["vectors"],
                              name="embed"),
             helper.make_node("ReduceMean", ["vectors"], ["pooled"],
                              name="pool", axes=[1], keepdims=0),
             helper.make_node("Gemm", ["pooled", "head"], ["logits"],
                              name="head", transB=1)],
            [helper.make_tensor_value_info("ids", TensorProto.INT64,
                                           ["N", 3])],
            [value("logits", ["N", 2])],
            [numpy_helper.from_array(
                np.linspace(-1, 1, 40, dtype=np.float32).reshape(10, 4),
                "table"),
             numpy_helper.from_array(
                 np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4),
                 "head")]),
        "reshape_minus_one": make_model(
            [helper.make_node("Reshape", ["x", "target"], ["y"], name="fold")],
            [value("x", ["N", 4])], [value("y", ["M", 3])],
            [numpy_helper.from_array(np.array([-1, 3], np.int64), "target")]),
        "concat_empty": make_model(
            [helper.make_node("Concat", ["x", "e"], ["y"], name="cat",
                              axis=1)],
            [value("x", [2, 4])], [value("y", [2, 4])],
            [numpy_helper.from_array(np.zeros((2, 0), np.float32), "e")]),
    }
    for name, model in models.items():
        with open(os.path.join(out_dir, name + ".onnx"), "wb") as f:
            f.write(model.SerializeToString())

    np.arange(12, dtype=np.float32).tofile(os.path.join(data_dir, "w.bin"))
    link = os.path.join(data_dir, "link.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.join(out_dir, "secret.bin"), link)
    with open(os.path.join(out_dir, "secret.bin"), "wb") as f:
        f.write(bytes(range(48)))
    external = {
        "ext_ok": external_gemm("w.bin"),
        "ext_dotdot": external_gemm("../secret.bin", 0, 48),
        "ext_absolute": external_gemm(os.path.join(out_dir, "secret.bin"),
                                      0, 48),
        "ext_symlink": external_gemm("link.bin", 0, 48),
        "ext_offset_text": external_gemm("w.bin", "12abc", 36),
        "ext_offset_huge": external_gemm("w.bin", 2**63 - 8, 48),
        "ext_past_end": external_gemm("w.bin", 24, 48),
        "ext_missing": external_gemm("nothing.bin"),
    }
    for name, model in external.items():
        with open(os.path.join(data_dir, name + ".onnx"), "wb") as f:
            f.write(model.SerializeToString())
    np.save(os.path.join(out_dir, "x.npy"),
            np.arange(8, dtype=np.float32).reshape(2, 4))
    np.save(os.path.join(out_dir, "x_2x4.npy"),
            np.arange(8, dtype=np.float32).reshape(2, 4))
    np.save(os.path.join(out_dir, "x_3x4.npy"),
            np.arange(12, dtype=np.float32).reshape(3, 4))
    ids = np.array([[0, 1, 2], [7, 8, 9]], np.int64)
    np.save(os.path.join(out_dir, "ids_ok.npy"), ids)
    high = ids.copy()
    high[1, 2] = 10
    np.save(os.path.join(out_dir, "ids_high.npy"), high)
    low = ids.copy()
    low[0, 0] = -11
    np.save(os.path.join(out_dir, "ids_low.npy"), low)
    np.save(os.path.join(out_dir, "labels.npy"), np.array([0, 1], np.int64))


if __name__ == "__main__":
    main(sys.argv[1])
