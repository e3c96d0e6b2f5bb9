"""Optimizer, as onnxruntime.training.api.Optimizer: the optimizer model's
step over the module's parameters and gradients."""

from __future__ import annotations

import os


class Optimizer:
    """Updates the module's parameters from their gradients (ORT's
    Optimizer). odt compiles the optimizer model into the module's model."""

    def __init__(self, optimizer_uri: str | os.PathLike, module) -> None:
        from .module import Module
        if not isinstance(module, Module):
            raise TypeError(f"module must be an odt.training.api.Module, not "
                            f"{type(module).__name__}")
        module._attach_optimizer(optimizer_uri)
        self._module = module

    def step(self) -> None:
        """One optimizer step; the optimizer's step counter advances."""
        self._module._get_session().optimizer_step()

    def set_learning_rate(self, learning_rate: float) -> None:
        self._module._get_session().set_learning_rate(float(learning_rate))

    def get_learning_rate(self) -> float:
        return self._module._get_session().get_learning_rate()
