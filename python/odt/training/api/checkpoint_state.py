"""CheckpointState, as onnxruntime.training.api.CheckpointState: parameters
and properties as mappings, load_checkpoint and save_checkpoint (ORT's
checkpoint format)."""

from __future__ import annotations

import os

import numpy as np

from ... import _odt

# Properties odt keeps in the state for itself (learning rate, scheduler,
# random stream); the mapping shows the user's own only.
_ODT_PREFIX = "odt."


def _array(value, what: str) -> np.ndarray:
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()  # an OrtValue
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{what} must be a numpy.ndarray (or an OrtValue), not "
                        f"{type(value).__name__}")
    return np.ascontiguousarray(value)


class Parameter:
    """A model parameter: its data, gradient and whether it is trained.
    Returned by CheckpointState.parameters; not made directly."""

    def __init__(self, name: str, state: "_odt.CheckpointState"):
        self._name = name
        self._state = state

    @property
    def name(self) -> str:
        return self._name

    @property
    def data(self) -> np.ndarray:
        """A copy of the parameter's values."""
        return self._state.get_parameter(self._name)

    @data.setter
    def data(self, value: np.ndarray) -> None:
        self._state.update_parameter(self._name, _array(value, f"parameter '{self._name}'"))

    @property
    def grad(self) -> np.ndarray | None:
        """A copy of the gradient buffer; None for a frozen parameter or
        before the first training step's session exists."""
        return self._state.get_gradient(self._name)

    @property
    def requires_grad(self) -> bool:
        return self._state.requires_grad(self._name)

    def __repr__(self) -> str:
        return f"Parameter(name={self.name}, requires_grad={self.requires_grad})"


class Parameters:
    """The state's parameters by name (a mapping; iterating yields
    (name, Parameter) pairs, as ORT's does)."""

    def __init__(self, state: "_odt.CheckpointState"):
        self._state = state

    def __getitem__(self, name: str) -> Parameter:
        if name not in self:
            raise KeyError(f"Parameter {name} not found.")
        return Parameter(name, self._state)

    def __setitem__(self, name: str, value: np.ndarray) -> None:
        if name not in self:
            raise KeyError(f"Parameter {name} not found.")
        self._state.update_parameter(name, _array(value, f"parameter '{name}'"))

    def __contains__(self, name: str) -> bool:
        return isinstance(name, str) and name in self._state.parameter_names()

    def __iter__(self):
        for name in self._state.parameter_names():
            yield name, Parameter(name, self._state)

    def __len__(self) -> int:
        return len(self._state.parameter_names())

    def __repr__(self) -> str:
        return repr(self._state.parameter_names())


class Properties:
    """The state's user properties (int, float or str) by name; iterating
    yields (name, value) pairs, as ORT's does."""

    def __init__(self, state: "_odt.CheckpointState"):
        self._state = state

    def _names(self) -> list:
        return [n for n in self._state.property_names() if not n.startswith(_ODT_PREFIX)]

    def __getitem__(self, name: str) -> int | float | str:
        if name not in self:
            raise KeyError(f"Property {name} not found.")
        return self._state.get_property(name)

    def __setitem__(self, name: str, value: int | float | str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"a property name is a str, not {type(name).__name__}")
        self._state.add_property(name, value)

    def __contains__(self, name: str) -> bool:
        return isinstance(name, str) and name in self._names()

    def __iter__(self):
        for name in self._names():
            yield name, self._state.get_property(name)

    def __len__(self) -> int:
        return len(self._names())

    def __repr__(self) -> str:
        return repr(self._names())


class CheckpointState:
    """Parameters, optimizer state and properties of a training run. Made by
    CheckpointState.load_checkpoint."""

    def __init__(self, state: "_odt.CheckpointState"):
        if not isinstance(state, _odt.CheckpointState):
            raise TypeError(f"Invalid argument for CheckpointState received {type(state)}")
        self._state = state
        self._parameters = Parameters(state)
        self._properties = Properties(state)

    @classmethod
    def load_checkpoint(cls, checkpoint_uri: str | os.PathLike) -> "CheckpointState":
        """Loads a complete or nominal checkpoint (ORT's format)."""
        return cls(_odt.CheckpointState.load(os.fspath(checkpoint_uri)))

    @classmethod
    def save_checkpoint(cls, state: "CheckpointState", checkpoint_uri: str | os.PathLike,
                        include_optimizer_state: bool = False) -> None:
        """Saves the state atomically: on failure the previous file is intact."""
        if not isinstance(state, CheckpointState):
            raise TypeError(f"state must be a CheckpointState, not {type(state).__name__}")
        state._state.save(os.fspath(checkpoint_uri), bool(include_optimizer_state))

    @property
    def parameters(self) -> Parameters:
        return self._parameters

    @property
    def properties(self) -> Properties:
        return self._properties
