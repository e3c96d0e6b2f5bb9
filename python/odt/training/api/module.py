"""Module, as onnxruntime.training.api.Module: training and evaluation steps
of a model that odt-compile compiled ahead of time.

ORT's Module takes the training and eval models (.onnx) and interprets them;
odt compiles them, together with the optimizer model the Optimizer names,
into one native model. The compile happens when the Module is first used (a
step, input_names, the parameters' size, ...), so that an Optimizer made
after the Module, as ORT's examples do, joins the same compiled model.
odt-compile's cache, keyed by the files' contents, makes compiling unchanged
files again a copy of milliseconds. A folder odt-compile made (or that
folder's libmodel.so) may be given instead of the training model: devices
ship compiled code, not a compiler.
"""

from __future__ import annotations

import os
import shutil
import weakref

import numpy as np

from ... import _compiler, _odt
from ..._ortvalue import OrtValue
from .checkpoint_state import CheckpointState


def _is_compiled(path: str) -> bool:
    return (os.path.isdir(path) and os.path.isfile(os.path.join(path, "libmodel.so"))) or \
        (os.path.isfile(path) and path.endswith(".so"))


def _remove_folder(path: str) -> None:
    shutil.rmtree(path, ignore_errors=True)



def _cuda_device(value):
    """The CUDA device number of an array whose data lives in a CUDA
    device's memory by the DLPack protocol (__dlpack_device__ is (2, N):
    kDLCUDA), else None."""
    query = getattr(value, "__dlpack_device__", None)
    if query is None or isinstance(value, np.ndarray):
        return None
    device_type, device_id = query()
    return int(device_id) if int(device_type) == 2 else None

class Module:
    """Training and evaluation of a model (ORT's Module).

    Attributes:
        training: True in training mode (calls run TrainStep), False in
            evaluation mode (EvalStep).
    """

    training: bool

    def __init__(self, train_model_uri: os.PathLike, state: CheckpointState,
                 eval_model_uri: os.PathLike | None = None, device: str = "cpu",
                 session_options=None) -> None:
        if not isinstance(state, CheckpointState):
            raise TypeError(f"state must be a CheckpointState, not {type(state).__name__}")
        # ORT's device names: "cpu", "cuda", "cuda:N". The session checks a
        # CUDA device (driver, device number); no compiled model runs on a
        # GPU yet, so a cuda Module fails here, when it is made, with the
        # runtime's reason, as ORT's does where CUDA is missing.
        device_type, _, device_id = str(device).partition(":")
        device_type = device_type.lower()
        if device_type == "cpu" and device_id in ("", "0"):
            self._device = "cpu"
        else:
            self._device = device_type + (":" + device_id if device_id else "")
        self.training = True
        self._device_type = device_type
        self._state = state
        self._train_model = _compiler._path(train_model_uri, "train_model_uri")
        self._eval_model = (None if eval_model_uri is None
                            else _compiler._path(eval_model_uri, "eval_model_uri"))
        self._optimizer_model = None
        self._precompiled = _is_compiled(self._train_model)
        if not self._precompiled and not os.path.isfile(self._train_model):
            raise FileNotFoundError(f"the training model '{self._train_model}' does not exist")
        if self._eval_model is not None and not self._precompiled and \
                not os.path.isfile(self._eval_model):
            raise FileNotFoundError(f"the eval model '{self._eval_model}' does not exist")
        # ORT's SessionOptions.intra_op_num_threads: threads of the steps.
        self._threads = int(getattr(session_options, "intra_op_num_threads", 0) or 0)
        self._session = None
        self._compiled_dir = None
        if self._device != "cpu":
            self._get_session()

    # -- the compiled model --------------------------------------------------

    def _attach_optimizer(self, optimizer_uri) -> None:
        """Called by Optimizer: the optimizer model joins the compiled model
        (compiled again if the module was already used without it)."""
        path = _compiler._path(optimizer_uri, "optimizer_uri")
        if self._precompiled:
            return  # the folder has its optimizer compiled in
        if not os.path.isfile(path):
            raise FileNotFoundError(f"the optimizer model '{path}' does not exist")
        if self._optimizer_model is not None and \
                os.path.abspath(self._optimizer_model) == os.path.abspath(path):
            return
        self._optimizer_model = path
        if self._session is not None:
            self._session = None  # made again, with the optimizer, when next used

    def _get_session(self) -> "_odt.TrainingSession":
        if self._session is None:
            if self._precompiled:
                model = self._train_model
            else:
                model = _compiler.compile(self._train_model, self._eval_model,
                                          self._optimizer_model)
                # The folder lives as long as the module (the library stays
                # loaded; the cache keeps the compiled files).
                weakref.finalize(self, _remove_folder, model)
                self._compiled_dir = model
            self._session = _odt.TrainingSession(self._state._state, model, self._device)
            if self._threads:
                self._session.set_threads(self._threads)
        return self._session

    # -- steps ---------------------------------------------------------------

    def __call__(self, *user_inputs):
        """A training step (training mode: the loss and any other outputs,
        gradients accumulated) or an evaluation step. Inputs are NumPy
        arrays or OrtValues in the model's input order; outputs come back as
        the inputs came (arrays, or OrtValues when every input is one), one
        output alone, several as a tuple."""
        as_ortvalues = bool(user_inputs) and all(isinstance(x, OrtValue) for x in user_inputs)
        arrays = []
        for index, value in enumerate(user_inputs):
            if isinstance(value, OrtValue):
                if value._device != "cpu" and value._device != self._device_name():
                    raise ValueError(f"input {index} is an OrtValue for {value._device}; this "
                                     f"module runs on {self._device_name()}")
                value = value.numpy()
            elif _cuda_device(value) is not None:
                # A CUDA array (a torch CUDA tensor, a CuPy array: DLPack),
                # read where it is by a session on that device.
                if self._device == "cpu":
                    raise ValueError(f"input {index} is in the memory of cuda:"
                                     f"{_cuda_device(value)}; this module runs on the CPU "
                                     "(make it with device='cuda')")
                arrays.append(value)
                continue
            if not isinstance(value, np.ndarray):
                raise TypeError(f"input {index} must be a numpy.ndarray, an OrtValue or a "
                                f"CUDA array (DLPack), not {type(value).__name__}")
            arrays.append(np.ascontiguousarray(value))
        outputs = self._get_session().step(self.training, arrays)
        if as_ortvalues:
            outputs = [OrtValue(o) for o in outputs]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _device_name(self) -> str:
        """The device as "cpu" or "cuda:N" (a plain "cuda" is cuda:0)."""
        if self._device == "cpu" or ":" in self._device:
            return self._device
        return self._device + ":0"

    def train(self, mode: bool = True) -> "Module":
        self.training = mode
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def lazy_reset_grad(self) -> None:
        """The next training step overwrites the gradients instead of adding
        to them."""
        self._get_session().lazy_reset_grad()

    # -- parameters as one buffer -------------------------------------------

    def get_contiguous_parameters(self, trainable_only: bool = False) -> OrtValue:
        """The parameters (in training-model input order) in one new buffer."""
        session = self._get_session()
        buffer = np.empty(session.parameters_size(bool(trainable_only)), dtype=np.float32)
        session.copy_parameters_to_buffer(buffer, bool(trainable_only))
        return OrtValue(buffer)

    def get_parameters_size(self, trainable_only: bool = True) -> int:
        return self._get_session().parameters_size(bool(trainable_only))

    def copy_buffer_to_parameters(self, buffer, trainable_only: bool = True) -> None:
        """Copies a buffer (an OrtValue or a NumPy array of exactly
        get_parameters_size elements) into the parameters; completes a state
        loaded from a nominal checkpoint."""
        if isinstance(buffer, OrtValue):
            buffer = buffer.numpy()
        if not isinstance(buffer, np.ndarray):
            raise TypeError(f"buffer must be an OrtValue or a numpy.ndarray, not "
                            f"{type(buffer).__name__}")
        self._get_session().copy_buffer_to_parameters(np.ascontiguousarray(buffer),
                                                      bool(trainable_only))

    def export_model_for_inferencing(self, inference_model_uri: str | os.PathLike,
                                     graph_output_names: list[str]) -> None:
        """Writes an ONNX inference model: the eval graph pruned to the
        outputs, the parameters' current values as initializers."""
        if isinstance(graph_output_names, str):
            raise TypeError("graph_output_names is a list of names, not a str")
        self._get_session().export_model_for_inferencing(
            os.fspath(inference_model_uri), [str(n) for n in graph_output_names])

    def input_names(self) -> list[str]:
        """The training (or, in eval mode, the eval) model's user inputs."""
        return self._get_session().input_names(self.training)

    def output_names(self) -> list[str]:
        return self._get_session().output_names(self.training)
