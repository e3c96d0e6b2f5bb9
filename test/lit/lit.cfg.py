# -*- Python -*-
# lit configuration of odt's dialect, import, pass, lowering and tool tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "ODT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
# Generators and data used by tests, not tests themselves.
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.odt_obj_root, "test", "lit")

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
# odt's tools first, then LLVM's (FileCheck, not, count, split-file).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.odt_tools_dir, append_path=True)

llvm_config.use_default_substitutions()

# odt-compile's cache of compiled models: the tests' own, not the user's.
config.environment["ODT_CACHE_DIR"] = os.path.join(config.test_exec_root,
                                                   "compile-cache")

# %shared: the read-only conformance data (ORT's artifacts live under
# %shared/conformance/ort/training_api); tests read it in place, never copy it.
# %python: the interpreter with onnx and numpy (Debian's, not pyenv's).
# use_default_substitutions() defines its own %python (lit's interpreter):
# replace it.
config.substitutions = [s for s in config.substitutions if s[0] != "%python"]
config.substitutions.append(("%shared", config.odt_shared_dir))
# %odt_bin: the folder of odt-compile and odt-run; %scripts: scripts/.
config.substitutions.append(("%odt_bin", config.odt_tools_dir))
config.substitutions.append(
    ("%scripts", os.path.join(os.path.dirname(os.path.dirname(
        config.test_source_root)), "scripts")))
config.substitutions.append(("%python", config.odt_test_python))
# %peers_python: the peers' venv (scripts/setup-peers.sh: PyTorch 2.15,
# onnx, onnxscript). Tests that need PyTorch say `REQUIRES: peers`; without
# the venv lit reports them UNSUPPORTED, naming the feature.
config.substitutions.append(("%peers_python", config.odt_peers_python))
if os.path.exists(config.odt_peers_python):
    config.available_features.add("peers")

# %mock_cuda: the mock CUDA driver of test/runtime/mock_cuda (ODT_CUDA_DRIVER
# points odt-run at it). %cuda_stub: the CUDA toolkit's stub libcuda; tests
# of it say `REQUIRES: cuda-stub` (UNSUPPORTED, naming the feature, on a
# machine without the toolkit).
config.substitutions.append(("%mock_cuda", config.odt_mock_cuda))
if config.odt_cuda_stub:
    config.substitutions.append(("%cuda_stub", config.odt_cuda_stub))
    config.available_features.add("cuda-stub")

# The CUDA toolkit's ptxas, where odt-compile finds it by default: a GPU
# build then carries cubins. Tests of them say `REQUIRES: ptxas`.
import shutil  # noqa: E402
_ptxas = shutil.which("ptxas") or next(
    (p for p in (os.path.join(os.environ.get("CUDA_HOME", "/nonexistent"), "bin", "ptxas"),
                 "/usr/local/cuda/bin/ptxas") if os.access(p, os.X_OK)), None)
if _ptxas:
    config.available_features.add("ptxas")

llvm_config.add_tool_substitutions(
    ["odt-opt", "odt-compile"], [config.odt_tools_dir])
llvm_config.add_tool_substitutions(["split-file"], [config.llvm_tools_dir])
