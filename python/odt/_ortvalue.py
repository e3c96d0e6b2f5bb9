"""A tensor with the part of onnxruntime.OrtValue's interface that the
training API uses (Module's inputs and outputs, get_contiguous_parameters,
copy_buffer_to_parameters). It holds a NumPy array: no copies. An OrtValue
made for a CUDA device (ortvalue_from_numpy(array, "cuda", N), as ORT users
write for a module on that device) keeps its data in host memory too and
names its device: a session on that device uploads it at each step, where
ORT would have copied it once. Arrays already in a device's memory (torch
CUDA tensors, CuPy arrays) go to Module directly, through DLPack."""

from __future__ import annotations

import numpy as np

_ONNX_TYPE_NAMES = {
    np.dtype(np.float32): "float", np.dtype(np.float64): "double",
    np.dtype(np.float16): "float16", np.dtype(np.int8): "int8",
    np.dtype(np.int16): "int16", np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64", np.dtype(np.uint8): "uint8",
    np.dtype(np.uint16): "uint16", np.dtype(np.uint32): "uint32",
    np.dtype(np.uint64): "uint64", np.dtype(np.bool_): "bool",
}


def _device_of(device_type: str, device_id: int) -> str:
    """ORT's (device_type, device_id) as odt's device name."""
    kind = str(device_type).lower()
    if kind == "cpu" and device_id == 0:
        return "cpu"
    if kind == "cuda" and isinstance(device_id, int) and device_id >= 0:
        return f"cuda:{device_id}"
    raise ValueError(f"odt holds tensors on the CPU or for a CUDA device (device "
                     f"'{device_type}:{device_id}' was asked for)")


class OrtValue:
    """A tensor, as onnxruntime.OrtValue."""

    def __init__(self, array: np.ndarray, device: str = "cpu"):
        if not isinstance(array, np.ndarray):
            raise TypeError(f"OrtValue holds a numpy.ndarray, not {type(array).__name__}")
        self._array = array
        self._device = device

    @staticmethod
    def ortvalue_from_numpy(numpy_obj: np.ndarray, device_type: str = "cpu",
                            device_id: int = 0) -> "OrtValue":
        """Wraps the array (shared, as ORT shares a CPU array's memory); a
        non-contiguous array is copied into a contiguous one. For a CUDA
        device the data stays in host memory (see the module's docstring)."""
        device = _device_of(device_type, device_id)
        return OrtValue(np.ascontiguousarray(numpy_obj), device)

    @staticmethod
    def ortvalue_from_shape_and_type(shape, element_type, device_type: str = "cpu",
                                     device_id: int = 0) -> "OrtValue":
        device = _device_of(device_type, device_id)
        return OrtValue(np.zeros(tuple(shape), dtype=element_type), device)

    @property
    def _ortvalue(self) -> "OrtValue":
        """ORT's Python code passes `OrtValue.ortvalue_from_numpy(a)._ortvalue`
        (its C object) to copy_buffer_to_parameters; here it is the value."""
        return self

    def numpy(self) -> np.ndarray:
        return self._array

    def shape(self) -> list:
        return list(self._array.shape)

    def data_type(self) -> str:
        name = _ONNX_TYPE_NAMES.get(self._array.dtype, str(self._array.dtype))
        return f"tensor({name})"

    def device_name(self) -> str:
        return self._device.partition(":")[0]

    def is_tensor(self) -> bool:
        return True

    def has_value(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"OrtValue({self.data_type()}, shape={self.shape()})"
