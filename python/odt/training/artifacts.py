"""generate_artifacts, as onnxruntime.training.artifacts.generate_artifacts,
done by odt's own autodiff (`odt-compile generate-artifacts`): the training,
eval and optimizer models and the checkpoint, which ORT 1.19.2 trains too."""

from __future__ import annotations

import os
import tempfile
from enum import Enum
from typing import List, Optional, Union

from .. import _compiler


class LossType(Enum):
    """The loss added to the training model."""

    MSELoss = 1
    CrossEntropyLoss = 2
    BCEWithLogitsLoss = 3
    L1Loss = 4


class OptimType(Enum):
    """The optimizer of the optimizer model."""

    AdamW = 1
    SGD = 2


def _names(value, what: str) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        raise TypeError(f"{what} is a list of names, not a str")
    return [str(v) for v in value]


def generate_artifacts(
    model,
    requires_grad: Optional[List[str]] = None,
    frozen_params: Optional[List[str]] = None,
    loss: Optional[LossType] = None,
    optimizer: Optional[OptimType] = None,
    artifact_directory: Optional[Union[str, bytes, os.PathLike]] = None,
    prefix: str = "",
    ort_format: bool = False,
    custom_op_library: Optional[Union[str, bytes, os.PathLike]] = None,
    additional_output_names: Optional[List[str]] = None,
    nominal_checkpoint: bool = False,
    loss_input_names: Optional[List[str]] = None,
) -> None:
    """Writes `<prefix>training_model.onnx`, `eval_model.onnx`,
    `optimizer_model.onnx` and `checkpoint` (and `nominal_checkpoint`) to
    `artifact_directory` (default: the current folder), as ORT's does.

    `model` is an onnx.ModelProto or the path of an .onnx file. `loss` None
    means the model's first output is the loss already; `optimizer` None
    writes no optimizer model. ORT's onnxblock custom losses and
    optimizers, ORT format and custom op libraries are not supported: they
    raise ValueError/TypeError."""
    if ort_format:
        raise ValueError("ort_format=True: odt writes ONNX models (it compiles them; there "
                         "is no ORT format)")
    if custom_op_library is not None:
        raise ValueError("custom_op_library: odt compiles the standard ONNX operators only")
    if loss is not None and not isinstance(loss, LossType):
        raise TypeError(f"loss must be a LossType or None (odt does not run onnxblock "
                        f"blocks), not {type(loss).__name__}")
    if optimizer is not None and not isinstance(optimizer, OptimType):
        raise TypeError(f"optimizer must be an OptimType or None, not "
                        f"{type(optimizer).__name__}")
    directory = os.fspath(artifact_directory) if artifact_directory is not None else os.getcwd()
    if isinstance(directory, bytes):
        directory = os.fsdecode(directory)

    arguments = ["--loss=" + (loss.name if loss is not None else "none"),
                 "--optimizer=" + (optimizer.name if optimizer is not None else "AdamW")]
    for name in _names(requires_grad, "requires_grad"):
        arguments.append("--requires-grad=" + name)
    for name in _names(frozen_params, "frozen_params"):
        arguments.append("--frozen=" + name)
    for name in _names(additional_output_names, "additional_output_names"):
        arguments.append("--additional-output=" + name)
    loss_inputs = _names(loss_input_names, "loss_input_names")
    if len(loss_inputs) > 1:
        raise ValueError(f"loss_input_names: odt's losses read one model output, got "
                         f"{loss_inputs}")
    arguments += ["--loss-input=" + n for n in loss_inputs]
    if prefix:
        arguments.append("--prefix=" + prefix)
    if nominal_checkpoint:
        arguments.append("--nominal-checkpoint")

    with tempfile.TemporaryDirectory(prefix="odt-artifacts-") as scratch:
        if isinstance(model, (str, bytes, os.PathLike)):
            model_path = os.fsdecode(os.fspath(model))
            if not os.path.isfile(model_path):
                raise FileNotFoundError(f"the model '{model_path}' does not exist")
        elif hasattr(model, "SerializeToString"):
            # An onnx.ModelProto (saved as it is, external data included).
            import onnx
            model_path = os.path.join(scratch, "model.onnx")
            onnx.save(model, model_path)
        else:
            raise TypeError(f"model must be an onnx.ModelProto or a path, not "
                            f"{type(model).__name__}")
        os.makedirs(directory, exist_ok=True)
        _compiler.generate_artifacts(model_path, directory, arguments)
    if optimizer is None:
        optimizer_path = os.path.join(directory, prefix + "optimizer_model.onnx")
        if os.path.exists(optimizer_path):
            os.remove(optimizer_path)
