#!/usr/bin/env python3
"""Variants of odt's default model (examples/default/make_default.py) for the C API
tests (test/capi), written into OUT_DIR:

    /usr/bin/python3 test/capi/make_capi_models.py OUT_DIR

  sgd/      the default model with an SGDOptimizerV2 optimizer graph (w -= lr * g), so
            that a test can see the accumulated gradient in the parameters it updates
  frozen/   the default model with fc1 frozen, as generate_artifacts writes it with
            frozen_params=[fc1.weight, fc1.bias]: fc1 stays a graph input but has no
            gradient, accumulation buffer or accumulator; checkpoint and
            nominal_checkpoint mark fc1 requires_grad=False
  external/ the default checkpoint with its tensors in checkpoint.data (ORT's external
            data layout, written by scripts/odtc.py)

Every folder gets the artifacts odt-compile reads; the data .npy files stay in the
default model's folder.
"""

import os
import sys

import onnx
import onnx.helper as oh
from onnx import TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "examples", "default"))
import make_default as md  # noqa: E402
import odtc  # noqa: E402

FROZEN = ("fc1.weight", "fc1.bias")


def sgd_optimizer_model():
    def seq(name):
        return oh.make_value_info(
            name, oh.make_sequence_type_proto(oh.make_tensor_type_proto(TensorProto.FLOAT, None)))
    inputs = [oh.make_tensor_value_info("learning_rate", TensorProto.FLOAT, [1]),
              oh.make_tensor_value_info("step", TensorProto.INT64, [1]),
              seq("params"), seq("gradients")]
    node = oh.make_node("SGDOptimizerV2", ["learning_rate", "params", "gradients"],
                        ["updated_flag"], name="SGDOptimizerV2", domain=md.MS)
    graph = oh.make_graph([node], "graph", inputs,
                          [oh.make_tensor_value_info("updated_flag", TensorProto.BOOL, [1])])
    return md._model(graph, md.OPTIM_OPSETS, md.OPTIM_IR)


def frozen_training_model():
    """The default training graph without the gradient path of the frozen params."""
    model = md.make_training_model()
    g = model.graph
    # Values only the frozen parameters' gradients need.
    dead = {md.RELU_OUT + "_grad", md.FC1_OUT + "_grad", "/fc1/Gemm_Grad/dC_reduced"}
    for p in FROZEN:
        dead |= {p + "_grad", p + "_grad.accumulation.buffer", p + "_grad.accumulation.out"}
    keep = [n for n in g.node if not (set(n.output) & dead)]
    del g.node[:]
    g.node.extend(keep)
    used = {i for n in g.node for i in n.input}
    for field in (g.input, g.output, g.value_info):
        kept = [v for v in field if v.name not in dead]
        del field[:]
        field.extend(kept)
    inits = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(inits)
    return model


def save_trio(out_dir, training, optimizer):
    os.makedirs(out_dir, exist_ok=True)
    onnx.save(training, os.path.join(out_dir, "training_model.onnx"))
    onnx.save(md.make_eval_model(), os.path.join(out_dir, "eval_model.onnx"))
    onnx.save(optimizer, os.path.join(out_dir, "optimizer_model.onnx"))


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[0]
    params = md.init_params(0)

    sgd = os.path.join(out, "sgd")
    save_trio(sgd, md.make_training_model(), sgd_optimizer_model())
    odtc.write_checkpoint(os.path.join(sgd, "checkpoint"),
                          [(n, params[n], True) for n in md.PARAM_NAMES])

    frozen = os.path.join(out, "frozen")
    save_trio(frozen, frozen_training_model(), md.make_optimizer_model())
    plist = [(n, params[n], n not in FROZEN) for n in md.PARAM_NAMES]
    odtc.write_checkpoint(os.path.join(frozen, "checkpoint"), plist)
    odtc.write_checkpoint(os.path.join(frozen, "nominal_checkpoint"), plist, nominal=True)

    external = os.path.join(out, "external")
    os.makedirs(external, exist_ok=True)
    odtc.write_checkpoint(os.path.join(external, "checkpoint"),
                          [(n, params[n], True) for n in md.PARAM_NAMES], external_data=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
