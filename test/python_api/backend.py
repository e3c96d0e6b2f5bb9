"""The backend a Python API test runs on, chosen by $ODT_TEST_BACKEND:
"odt" (odt.training) or "ort" (onnxruntime.training 1.19.2). The tests
import `api`, `artifacts` and `OrtValue` from here, so one file runs on
both: what differs between them is the import alone."""

import os

NAME = os.environ.get("ODT_TEST_BACKEND", "odt")

if NAME == "odt":
    from odt import OrtValue
    from odt.training import api, artifacts
    import odt as _package

    def set_seed(seed):
        _package.set_seed(seed)
elif NAME == "ort":
    import onnxruntime
    from onnxruntime import OrtValue
    from onnxruntime.training import api, artifacts

    def set_seed(seed):
        onnxruntime.set_seed(seed)
else:
    raise SystemExit(f"ODT_TEST_BACKEND must be odt or ort, not {NAME!r}")

__all__ = ["NAME", "OrtValue", "api", "artifacts", "set_seed"]
