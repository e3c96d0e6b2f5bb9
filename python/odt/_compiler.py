"""Running odt-compile from Python: finding it, compiling artifacts (its own
content-addressed cache makes compiling unchanged files again a copy), and
generate-artifacts."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from typing import Iterable, Optional, Sequence

from ._odt import OdtError

try:
    from . import _build_config
except ImportError:  # running from the source tree, not an installed package
    _build_config = None


def find_odt_compile() -> str:
    """The odt-compile to run: $ODT_COMPILE, else the one of the build this
    package was installed from, else the first on PATH."""
    named = os.environ.get("ODT_COMPILE")
    if named:
        if not (os.path.isfile(named) and os.access(named, os.X_OK)):
            raise OdtError(f"$ODT_COMPILE names '{named}', which is not an executable file")
        return named
    built = getattr(_build_config, "ODT_COMPILE", "")
    if built and os.path.isfile(built) and os.access(built, os.X_OK):
        return built
    found = shutil.which("odt-compile")
    if found:
        return found
    raise OdtError(
        "odt-compile was not found: build odt (scripts/build.sh), set $ODT_COMPILE to its "
        "path, or put it on PATH" + (f" (this package was built for {built})" if built else "")
        + "; a folder odt-compile already compiled can be given to Module instead")


def _path(value, what: str) -> str:
    try:
        return os.fspath(value)
    except TypeError:
        raise TypeError(f"{what} must be a path (str or os.PathLike), not "
                        f"{type(value).__name__}") from None


def _run(arguments: Sequence[str], action: str) -> None:
    result = subprocess.run([find_odt_compile(), *arguments], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        message = (result.stderr or result.stdout).strip()
        raise OdtError(f"{action} failed (odt-compile exit status {result.returncode}):\n"
                       f"{message}")


def compile(train_model, eval_model=None, optimizer_model=None, checkpoint=None,
            output_dir=None, extra_args: Iterable[str] = ()) -> str:
    """Compiles ORT training artifacts with odt-compile and returns the
    folder of the compiled model (libmodel.so, model.o, model.h, model.json).

    `train_model` is training_model.onnx, or a folder of artifacts as ORT's
    generate_artifacts writes them (then the other paths are found in it).
    Without `output_dir` the model goes to a new temporary folder. Failures
    raise OdtError with odt-compile's message."""
    arguments = []
    train_model = _path(train_model, "train_model")
    if os.path.isdir(train_model):
        arguments.append(train_model)
    else:
        if not os.path.isfile(train_model):
            raise FileNotFoundError(f"the training model '{train_model}' does not exist")
        arguments += ["--train", train_model]
    for flag, value, what in (("--eval", eval_model, "eval_model"),
                              ("--optimizer", optimizer_model, "optimizer_model"),
                              ("--checkpoint", checkpoint, "checkpoint")):
        if value is not None:
            value = _path(value, what)
            if not os.path.isfile(value):
                raise FileNotFoundError(f"the {what.replace('_', ' ')} '{value}' does not exist")
            arguments += [flag, value]
    if output_dir is None:
        output_dir = tempfile.mkdtemp(prefix="odt-model-")
    output_dir = _path(output_dir, "output_dir")
    arguments += ["-o", output_dir, "--quiet", *extra_args]
    _run(arguments, "compiling " + train_model)
    return output_dir


def generate_artifacts(model_path: str, output_dir: str, arguments: Sequence[str]) -> None:
    _run(["generate-artifacts", model_path, "-o", output_dir, "--quiet", *arguments],
         "generating artifacts for " + model_path)
