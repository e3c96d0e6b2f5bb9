"""Exports a zoo model's forward graph as a user would, with either of
PyTorch's ONNX exporters.

    <peers python> zoo/export.py MODEL EXPORTER OUT.onnx

EXPORTER: "dynamo" (torch.onnx.export(dynamo=True), opset 18, PyTorch's
default) or "torchscript" (dynamo=False, opset 17). The batch dim is
symbolic ("batch"); the module is in training mode, so BatchNorm normalizes
with batch statistics and Dropout is active where the exporter keeps it.

The dynamo exporter's graph optimizer (optimize=True, its default) folds
BatchNorm into the preceding convolution even in training mode, which
leaves nothing to train as PyTorch does (odt-compile generate-artifacts
refuses such a graph and says so): models with BatchNorm are exported with
optimize=False, as a user must; the others with the defaults.
"""

import argparse
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402

EXPORTERS = ("dynamo", "torchscript")
OPSETS = {"dynamo": 18, "torchscript": 17}


def has_batchnorm(model):
    return any(isinstance(m, torch.nn.modules.batchnorm._BatchNorm)
               for m in model.modules())


def export(name, exporter, path, optimize=None, **build_args):
    """Exports the model; `optimize` overrides the dynamo exporter's graph
    optimization (default: on unless the model has BatchNorm)."""
    model = models.build(name, **build_args)
    spec = models.spec_of(name)
    inputs, _ = models.data(name, spec.batch)
    args = tuple(torch.from_numpy(value) for value in inputs.values())
    names = list(inputs)
    dynamic_axes = {n: {0: "batch"} for n in names}
    dynamic_axes["output"] = {0: "batch"}
    if exporter == "dynamo":
        batch = torch.export.Dim("batch", min=1, max=4096)
        dynamic_shapes = tuple({0: batch} for _ in names)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            program = torch.onnx.export(
                model, args, dynamo=True, opset_version=OPSETS[exporter],
                input_names=names, output_names=["output"],
                dynamic_shapes=dynamic_shapes, external_data=False,
                optimize=(not has_batchnorm(model) if optimize is None
                          else optimize),
                verbose=False)
        program.save(path)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                model, args, path, dynamo=False, opset_version=OPSETS[exporter],
                input_names=names, output_names=["output"],
                dynamic_axes=dynamic_axes, do_constant_folding=False,
                training=torch.onnx.TrainingMode.TRAINING)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", choices=models.names())
    parser.add_argument("exporter", choices=EXPORTERS)
    parser.add_argument("out")
    args = parser.parse_args()
    export(args.model, args.exporter, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
