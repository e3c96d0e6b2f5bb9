#!/usr/bin/env python3
"""Runs every ```sh block of docs/guide.md, in order, as one bash script in an empty
working folder: the guide is a test (package.guide).

    run_guide.py --source SRC --build BUILD --peers-python PY --work WORK

The blocks see ODT_SRC, ODT_BUILD and ODT_PREFIX (WORK/prefix), and `python` is the
peers' venv (PyTorch, onnxscript, onnxruntime). The script stops at the first failing
command (set -euo pipefail) and its output is printed as it comes.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys


def blocks(markdown):
    return re.findall(r"^```sh\n(.*?)^```", markdown, flags=re.M | re.S)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--peers-python", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    if not os.path.exists(args.peers_python):
        print("SKIPPED: no peers venv at %s (scripts/setup-peers.sh makes it; "
              "scripts/test.sh always does)" % args.peers_python)
        return 0
    guide = os.path.join(args.source, "docs", "guide.md")
    with open(guide) as f:
        found = blocks(f.read())
    if len(found) < 5:
        print("FAIL: %s has %d sh blocks" % (guide, len(found)))
        return 1
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(os.path.join(args.work, "bin"))
    # `python` is the peers' interpreter, as a user's venv would be.
    # (a wrapper, not a link: a venv knows itself by its interpreter's path)
    wrapper = os.path.join(args.work, "bin", "python")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nexec "%s" "$@"\n' % os.path.abspath(args.peers_python))
    os.chmod(wrapper, 0o755)
    script = ["set -euo pipefail", "set -x"]
    for index, block in enumerate(found, 1):
        script.append(": guide block %d" % index)
        script.append(block)
    path = os.path.join(args.work, "guide.sh")
    with open(path, "w") as f:
        f.write("\n".join(script) + "\n")
    env = dict(os.environ)
    env.update(ODT_SRC=os.path.abspath(args.source), ODT_BUILD=os.path.abspath(args.build),
               ODT_PREFIX=os.path.join(os.path.abspath(args.work), "prefix"),
               PATH=os.path.join(os.path.abspath(args.work), "bin") + os.pathsep
               + env.get("PATH", ""), PYTHONDONTWRITEBYTECODE="1")
    env.pop("ODT_COMPILE", None)
    print("running the %d sh blocks of %s in %s" % (len(found), guide, args.work), flush=True)
    proc = subprocess.run(["bash", path], cwd=args.work, env=env, stderr=subprocess.STDOUT)
    if proc.returncode != 0:
        print("FAIL: a command of docs/guide.md failed (exit %d; the trace above shows which)"
              % proc.returncode)
        return 1
    print("PASS: every command of docs/guide.md ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
