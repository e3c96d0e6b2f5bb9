#!/usr/bin/env python3
"""Converts ONNX Runtime's text test data to a .npy file.

ORT's training_api test inputs are text: a name line, then the values, e.g.
input-0.in is the line `input-0` then `[v0,v1,...]` (1568 floats), and loss_1.out
is `loss` then `2.1786249`. Values may be separated by commas, whitespace or
newlines, optionally inside brackets.

    /usr/bin/python3 scripts/ort_text_to_npy.py IN_FILE OUT.npy --shape 2,784 [--dtype float32]
    /usr/bin/python3 scripts/ort_text_to_npy.py loss_1.out loss.npy --shape ""   # a scalar

Importable: parse_ort_text(text) -> (name or None, list of value strings) and
load_ort_text(path, shape, dtype) -> numpy array.
"""

import argparse
import re
import sys

import numpy as np

_SEP = re.compile(r"[\s,\[\]]+")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|nan|infinity)$",
                     re.IGNORECASE)


def parse_ort_text(text):
    """Splits ORT test text into (name, value tokens). The name is the first line
    when it is not itself a list of numbers."""
    lines = text.strip().splitlines()
    name = None
    if lines:
        first = lines[0].strip()
        first_tokens = [t for t in _SEP.split(first) if t]
        if first_tokens and not all(_NUMBER.match(t) for t in first_tokens):
            name = first
            lines = lines[1:]
    tokens = [t for t in _SEP.split("\n".join(lines)) if t]
    for t in tokens:
        if not _NUMBER.match(t):
            raise ValueError("not a number: %r" % t)
    return name, tokens


def parse_shape(s):
    s = s.strip()
    if s in ("", "()", "[]", "scalar"):
        return ()
    return tuple(int(d) for d in re.split(r"[,x\s]+", s.strip("()[]")) if d)


def load_ort_text(path, shape, dtype="float32"):
    with open(path, "r") as f:
        _, tokens = parse_ort_text(f.read())
    dt = np.dtype(dtype)
    if dt.kind in ("i", "u", "b"):
        values = np.array([int(float(t)) for t in tokens], dtype=dt)
    else:
        values = np.array([float(t) for t in tokens], dtype=np.float64).astype(dt)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if values.size != count:
        raise ValueError("%s holds %d values; shape %s needs %d"
                         % (path, values.size, list(shape), count))
    return values.reshape(shape)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--shape", required=True,
                    help='comma-separated dims, e.g. 2,784; "" for a scalar')
    ap.add_argument("--dtype", default="float32")
    args = ap.parse_args(argv)
    try:
        arr = load_ort_text(args.input, parse_shape(args.shape), args.dtype)
    except (ValueError, OSError) as e:
        print("ort_text_to_npy: %s" % e, file=sys.stderr)
        return 1
    np.save(args.output, arr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
