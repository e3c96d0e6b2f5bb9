#!/usr/bin/env python3
"""Runs one-node models through ONNX Runtime (the training venv's python).

    <venv>/bin/python ort_reference.py MANIFEST.json

MANIFEST lists cases: {"model": path, "inputs": {name: npy}, "outputs":
{name: npy}}. Each model runs on ORT's CPU execution provider; every output
named in "outputs" is saved to its .npy file. A case ORT refuses is reported
in the manifest's sibling MANIFEST.errors.json ({case model: message}) and
the others still run.
"""

import json
import sys

import numpy as np
import onnxruntime as ort


def main():
    manifest_path = sys.argv[1]
    with open(manifest_path) as f:
        cases = json.load(f)
    ort.set_default_logger_severity(3)
    errors = {}
    for case in cases:
        try:
            session = ort.InferenceSession(case["model"],
                                           providers=["CPUExecutionProvider"])
            feeds = {name: np.load(path) for name, path in case["inputs"].items()}
            names = list(case["outputs"])
            results = session.run(names, feeds)
            for name, value in zip(names, results):
                np.save(case["outputs"][name], np.asarray(value))
        except Exception as error:  # ORT reports any failure as an exception
            errors[case["model"]] = str(error)[:2000]
    with open(manifest_path + ".errors.json", "w") as f:
        json.dump(errors, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
