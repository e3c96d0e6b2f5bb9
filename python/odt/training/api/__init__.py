"""onnxruntime.training.api on odt: the same classes, signatures and
semantics, over models compiled ahead of time by odt-compile."""

from .checkpoint_state import CheckpointState, Parameter, Parameters, Properties
from .lr_scheduler import LinearLRScheduler
from .module import Module
from .optimizer import Optimizer

__all__ = ["CheckpointState", "LinearLRScheduler", "Module", "Optimizer",
           "Parameter", "Parameters", "Properties"]
