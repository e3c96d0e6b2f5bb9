#!/usr/bin/env python3
"""Converts the inputs and golden losses of ORT's training_api test to .npy files.

    /usr/bin/python3 test/e2e/make_ort_data.py TRAINING_API_DIR OUT_DIR

OUT_DIR gets input-0.npy (float32 [2, 784], from input-0.in), labels.npy (int32 {1, 1},
the labels of ORT's TrainingApiTest recipe), loss_1.npy and loss_2.npy (float32 scalars,
from loss_1.out and loss_2.out: ORT's golden losses).
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "..", "scripts")))
from ort_text_to_npy import load_ort_text  # noqa: E402


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    src, out = argv
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "input-0.npy"),
            load_ort_text(os.path.join(src, "input-0.in"), (2, 784), "float32"))
    np.save(os.path.join(out, "labels.npy"), np.array([1, 1], dtype=np.int32))
    for i in (1, 2):
        np.save(os.path.join(out, "loss_%d.npy" % i),
                load_ort_text(os.path.join(src, "loss_%d.out" % i), (), "float32"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
