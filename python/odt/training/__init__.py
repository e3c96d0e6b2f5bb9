"""ONNX Runtime's on-device training Python API (onnxruntime.training), on
odt: `api` (Module, Optimizer, LinearLRScheduler, CheckpointState) and
`artifacts` (generate_artifacts, LossType, OptimType)."""

from . import api, artifacts  # noqa: F401
