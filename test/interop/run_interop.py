#!/usr/bin/env python3
"""Runs one interop test module (Python unittest) with ONNX Runtime's venv python.

    /usr/bin/python3 run_interop.py MODULE [unittest args...]

ctest calls it (test/interop/CMakeLists.txt) with ODT_ORT_PYTHON set. When that
interpreter is missing (scripts/setup-peers.sh has not run), it prints why and exits
77, which ctest reports as SKIPPED (SKIP_RETURN_CODE). A venv that exists but cannot
import onnxruntime.training.api is a failure, not a skip.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SKIP = 77


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    python = os.environ.get("ODT_ORT_PYTHON",
                            os.path.join(ROOT, "build", "peers", "bin", "python"))
    if not os.path.exists(python):
        print("SKIPPED: ONNX Runtime's venv python %s is missing (create it with "
              "`bash scripts/setup-peers.sh %s`, or configure with "
              "-DODT_ORT_PYTHON=/path/to/venv/bin/python)"
              % (python, os.path.dirname(os.path.dirname(python))))
        return SKIP
    cmd = [python, "-m", "unittest", "-v"] + argv
    print("running:", " ".join(cmd), flush=True)
    return subprocess.call(cmd, cwd=HERE)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
