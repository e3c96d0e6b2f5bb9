"""ONNX Runtime's on-device training loop (its tutorial's shape: generate
the artifacts, load the checkpoint, train epochs of mini-batches, evaluate,
export an inference model) on scikit-learn's handwritten digits.

The same script runs on ORT and on odt: the backend changes the import and
nothing else.

    python train_digits.py DATA_DIR WORK_DIR [--backend odt|ort] [--epochs N]
        [--losses FILE.json]

DATA_DIR is what examples/digits/make_digits.py writes (forward.onnx, the
PyTorch-initialized MLP 64-64-10, and the 80/20 split as .npy files).
"""

import argparse
import json
import os
import time

import numpy as np
import onnx

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("data_dir")
parser.add_argument("work_dir")
parser.add_argument("--backend", choices=["odt", "ort"], default="odt")
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--losses", help="write every step's loss and each epoch's time here")
args = parser.parse_args()

if args.backend == "odt":
    from odt.training import api, artifacts
else:
    from onnxruntime.training import api, artifacts

# 1. Training artifacts from the forward model.
artifact_dir = os.path.join(args.work_dir, "artifacts")
os.makedirs(artifact_dir, exist_ok=True)
forward = onnx.load(os.path.join(args.data_dir, "forward.onnx"))
artifacts.generate_artifacts(
    forward,
    requires_grad=[init.name for init in forward.graph.initializer],
    loss=artifacts.LossType.CrossEntropyLoss,
    optimizer=artifacts.OptimType.AdamW,
    artifact_directory=artifact_dir,
    additional_output_names=["logits"],
)

# 2. The training state and the module, optimizer over it.
state = api.CheckpointState.load_checkpoint(os.path.join(artifact_dir, "checkpoint"))
module = api.Module(os.path.join(artifact_dir, "training_model.onnx"), state,
                    os.path.join(artifact_dir, "eval_model.onnx"))
optimizer = api.Optimizer(os.path.join(artifact_dir, "optimizer_model.onnx"), module)


def load(name):
    return np.load(os.path.join(args.data_dir, name + ".npy"))


train_x, train_y = load("train_pixels"), load("train_labels")
test_x, test_y = load("test_pixels"), load("test_labels")

# 3. Epochs of shuffled mini-batches, the test accuracy after each.
rng = np.random.default_rng(0)
losses, epoch_seconds = [], []
for epoch in range(args.epochs):
    module.train()
    order = rng.permutation(len(train_x))
    start = time.perf_counter()
    epoch_losses = []
    for first in range(0, len(order), args.batch_size):
        batch = order[first:first + args.batch_size]
        loss, _ = module(train_x[batch], train_y[batch])
        optimizer.step()
        module.lazy_reset_grad()
        epoch_losses.append(float(loss))
    epoch_seconds.append(time.perf_counter() - start)
    losses += epoch_losses
    module.eval()
    _, logits = module(test_x, test_y)
    accuracy = float((logits.argmax(axis=1) == test_y).mean())
    print(f"epoch {epoch + 1:2d}: loss {np.mean(epoch_losses):.4f}, test accuracy "
          f"{100 * accuracy:.1f}% ({1000 * epoch_seconds[-1]:.1f} ms)", flush=True)

# 4. An inference model with the trained parameters.
module.export_model_for_inferencing(os.path.join(args.work_dir, "digits_inference.onnx"),
                                    ["logits"])
if args.losses:
    with open(args.losses, "w") as f:
        json.dump({"backend": args.backend, "losses": losses, "epoch_seconds": epoch_seconds,
                   "test_accuracy": accuracy}, f)
