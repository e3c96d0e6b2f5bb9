"""A CPU tensor with the part of onnxruntime.OrtValue's interface that the
training API uses (Module's inputs and outputs, get_contiguous_parameters,
copy_buffer_to_parameters). It holds a NumPy array: no copies."""

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


def _check_device(device_type: str, device_id: int) -> None:
    if str(device_type).lower() != "cpu" or device_id != 0:
        raise ValueError(
            f"odt holds tensors on the CPU only (device '{device_type}:{device_id}' "
            "was asked for)")


class OrtValue:
    """A tensor on the CPU, as onnxruntime.OrtValue."""

    def __init__(self, array: np.ndarray):
        if not isinstance(array, np.ndarray):
            raise TypeError(f"OrtValue holds a numpy.ndarray, not {type(array).__name__}")
        self._array = array

    @staticmethod
    def ortvalue_from_numpy(numpy_obj: np.ndarray, device_type: str = "cpu",
                            device_id: int = 0) -> "OrtValue":
        """Wraps the array (shared, as ORT shares a CPU array's memory); a
        non-contiguous array is copied into a contiguous one."""
        _check_device(device_type, device_id)
        return OrtValue(np.ascontiguousarray(numpy_obj))

    @staticmethod
    def ortvalue_from_shape_and_type(shape, element_type, device_type: str = "cpu",
                                     device_id: int = 0) -> "OrtValue":
        _check_device(device_type, device_id)
        return OrtValue(np.zeros(tuple(shape), dtype=element_type))

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
        return "cpu"

    def is_tensor(self) -> bool:
        return True

    def has_value(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"OrtValue({self.data_type()}, shape={self.shape()})"
