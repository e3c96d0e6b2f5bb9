"""odt: on-device training, compiled.

`odt.training.api` is ONNX Runtime's `onnxruntime.training.api` (Module,
Optimizer, LinearLRScheduler, CheckpointState) over models that odt-compile
compiled ahead of time; `odt.training.artifacts.generate_artifacts` is ORT's
artifact generator, done by odt's own autodiff. An ORT user switches by
changing the import.
"""

from ._odt import OdtError, api_version
from ._odt import set_seed as _set_seed
from ._ortvalue import OrtValue
from ._compiler import compile, find_odt_compile

# The release of the runtime inside the extension (the root file VERSION).
from ._odt import __version__


def set_seed(seed: int) -> None:
    """Seeds odt's random number generation (Dropout masks), as ORT's
    onnxruntime.set_seed does."""
    _set_seed(int(seed))


__all__ = ["OdtError", "OrtValue", "api_version", "compile",
           "find_odt_compile", "set_seed"]
