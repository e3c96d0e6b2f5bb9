"""examples/python/train_digits.py run on ONNX Runtime 1.19.2 and on odt
(the same script; only the import differs): every step's loss must agree
within 1e-4, and odt's test accuracy must be ORT's. Prints both epoch
times (medians).

    digits_parity.py WORK_DIR [--epochs N]

WORK_DIR/data must hold make_digits.py's output."""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
example = os.path.join(here, "../../examples/python/train_digits.py")
parser = argparse.ArgumentParser()
parser.add_argument("work_dir")
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()

results = {}
for backend in ("ort", "odt"):
    out = os.path.join(args.work_dir, backend)
    losses = os.path.join(args.work_dir, backend + ".json")
    run = subprocess.run([sys.executable, example, os.path.join(args.work_dir, "data"), out,
                          "--backend", backend, "--epochs", str(args.epochs),
                          "--losses", losses],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    print(f"== {backend}\n{run.stdout}", end="")
    if run.returncode != 0:
        sys.exit(f"{backend} failed (exit {run.returncode}):\n{run.stderr[-4000:]}")
    with open(losses) as f:
        results[backend] = json.load(f)

ort, odt = (np.array(results[b]["losses"]) for b in ("ort", "odt"))
if ort.shape != odt.shape:
    sys.exit(f"step counts differ: ORT {ort.shape[0]}, odt {odt.shape[0]}")
difference = np.abs(ort - odt)
worst = int(difference.argmax())
print(f"{len(ort)} steps: largest loss difference {difference[worst]:.2e} at step {worst + 1} "
      f"(ORT {ort[worst]:.6f}, odt {odt[worst]:.6f})")
for backend in ("ort", "odt"):
    seconds = results[backend]["epoch_seconds"]
    print(f"{backend}: median epoch {1000 * float(np.median(seconds)):.1f} ms "
          f"({len(ort) // args.epochs} steps), test accuracy "
          f"{100 * results[backend]['test_accuracy']:.1f}%")
if difference[worst] > 1e-4:
    sys.exit("FAILED: a step's loss differs by more than 1e-4")
if results["odt"]["test_accuracy"] != results["ort"]["test_accuracy"]:
    sys.exit("FAILED: the test accuracies differ")
print("PASSED")
