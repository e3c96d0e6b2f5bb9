#!/usr/bin/env python3
"""Prints an ONNX model's inputs, outputs, initializers and nodes, one per
line, for FileCheck.  print_model.py MODEL.onnx"""

import sys

import onnx


def dims(value):
    shape = value.type.tensor_type.shape
    return "x".join(d.dim_param or str(d.dim_value) for d in shape.dim)


def main():
    model = onnx.load(sys.argv[1])
    graph = model.graph
    print("opsets:", " ".join("%s:%d" % (o.domain or "ai.onnx", o.version)
                              for o in model.opset_import))
    for i in graph.input:
        kind = "seq" if i.type.HasField("sequence_type") else dims(i)
        print("input:", i.name, kind)
    for o in graph.output:
        print("output:", o.name, dims(o))
    for t in graph.initializer:
        print("initializer:", t.name, list(t.dims))
    for n in graph.node:
        attrs = " ".join(
            "%s=%s" % (a.name, onnx.helper.get_attribute_value(a))
            for a in n.attribute)
        print("node: %s%s(%s) -> %s %s" % (
            n.domain + ":" if n.domain else "", n.op_type, ", ".join(n.input),
            ", ".join(n.output), attrs))


if __name__ == "__main__":
    main()
