"""LinearLRScheduler, as onnxruntime.training.api.LinearLRScheduler."""

from __future__ import annotations

from .optimizer import Optimizer


class LinearLRScheduler:
    """A linear warm-up from 0 to `initial_lr` over `warmup_step_count`
    steps, then a linear decay to 0 at `total_step_count` (ORT's)."""

    def __init__(self, optimizer: Optimizer, warmup_step_count: int, total_step_count: int,
                 initial_lr: float) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"optimizer must be an odt.training.api.Optimizer, not "
                            f"{type(optimizer).__name__}")
        self._module = optimizer._module
        self._module._get_session().register_linear_lr_scheduler(
            int(warmup_step_count), int(total_step_count), float(initial_lr))

    def step(self) -> None:
        self._module._get_session().scheduler_step()
