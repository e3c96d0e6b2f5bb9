"""The benchmark zoo: the models, their data and their ORT training artifacts.

    <venv>/bin/python bench/zoo.py OUT_DIR [--only NAME]

For every model: OUT_DIR/<model>/ holds ORT 1.19.2's generate_artifacts
output (training, eval and optimizer models, checkpoint; CrossEntropyLoss,
AdamW) exported from the PyTorch module below (for the real zoo's models:
forward.onnx, and ORT's artifacts in ort/ when ORT can make them, else
ort_failed.txt with its error), and input_b<B>.npy /
labels_b<B>.npy for each benchmarked batch size. bench/peers.py trains the
same PyTorch module (same initial weights) and the same artifacts in ORT.
"""

import argparse
import os
import sys

import numpy as np
import torch

SEED = 0


class MLP(torch.nn.Module):
    """784-512-512-10 with ReLU."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(784, 512), torch.nn.ReLU(),
            torch.nn.Linear(512, 512), torch.nn.ReLU(),
            torch.nn.Linear(512, 10))

    def forward(self, x):
        return self.net(x)


class LeNet5(torch.nn.Module):
    """LeNet-5 on 28x28: Conv 5x5 (padded to 32x32), ReLU, MaxPool, Conv 5x5,
    ReLU, MaxPool, then Gemm 400-120-84-10."""

    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 6, 5, padding=2), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(6, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2))
        self.classifier = torch.nn.Sequential(
            torch.nn.Linear(400, 120), torch.nn.ReLU(),
            torch.nn.Linear(120, 84), torch.nn.ReLU(), torch.nn.Linear(84, 10))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class EncoderLayer(torch.nn.Module):
    """Pre-norm encoder layer: multi-head attention and a GELU FFN."""

    def __init__(self, dim, heads, ffn):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.ffn = torch.nn.Sequential(torch.nn.Linear(dim, ffn), torch.nn.GELU(),
                                       torch.nn.Linear(ffn, dim))

    def forward(self, x):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)
        split = lambda t: t.reshape(b, s, h, d // h).transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
        att = torch.softmax(q @ k.transpose(-1, -2) / (d // h) ** 0.5, dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, s, d))
        return x + self.ffn(self.norm2(x))


class Transformer(torch.nn.Module):
    """2 encoder layers, hidden 128, 4 heads, FFN 512, mean-pooled
    classification head (10 classes)."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(EncoderLayer(128, 4, 512),
                                          EncoderLayer(128, 4, 512))
        self.norm = torch.nn.LayerNorm(128)
        self.head = torch.nn.Linear(128, 10)

    def forward(self, x):
        return self.head(self.norm(self.layers(x)).mean(dim=1))


# The real-model zoo (zoo/models.py) lends its convolutional nets.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "zoo"))
import models as real_models  # noqa: E402
from check import exception_text  # noqa: E402  (ORT's reason, not its C++ signature)


def _real(name):
    return lambda: real_models.MODELS[name].build()


# name: (module class, input shape without the batch, batch sizes). The
# first three train from ORT's own artifacts; the zoo's models from odt's
# generate-artifacts (ORT 1.19.2 cannot train them: bench/run.py says so in
# its ORT column).
MODELS = {
    "mlp": (MLP, (784,), (1, 16, 64, 256)),
    "lenet5": (LeNet5, (1, 28, 28), (64,)),
    "transformer": (Transformer, (128, 128), (8,)),
    "mobilenetv2": (_real("mobilenetv2"), (3, 32, 32), (32,)),
    "resnet18_cifar": (_real("resnet18_cifar"), (3, 32, 32), (32,)),
}
REAL_ZOO = ("mobilenetv2", "resnet18_cifar")
CLASSES = 10


def build(name):
    """The PyTorch module with the seeded initial weights of the artifacts."""
    torch.manual_seed(SEED)
    return MODELS[name][0]()


def data(name, batch):
    rng = np.random.default_rng(batch)
    shape = MODELS[name][1]
    x = rng.standard_normal((batch,) + shape).astype(np.float32)
    y = rng.integers(0, CLASSES, size=batch).astype(np.int64)
    return x, y


def make(name, out_dir):
    import onnx
    from onnxruntime.training import artifacts

    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    model = build(name).train()
    x, _ = data(name, MODELS[name][2][0])
    forward = os.path.join(folder, "forward.onnx")
    torch.onnx.export(model, torch.from_numpy(x), forward, input_names=["input"],
                      output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                      dynamo=False, opset_version=14, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.TRAINING)
    if name in REAL_ZOO:
        # odt's generate-artifacts runs in bench/run.py (it needs the build);
        # ORT is tried on the same file and its failure kept for the report.
        stale = os.path.join(folder, "ort_failed.txt")
        if os.path.exists(stale):
            os.remove(stale)
        os.makedirs(os.path.join(folder, "ort"), exist_ok=True)
        try:
            artifacts.generate_artifacts(
                onnx.load(forward),
                requires_grad=[n for n, _ in model.named_parameters()],
                frozen_params=[], loss=artifacts.LossType.CrossEntropyLoss,
                optimizer=artifacts.OptimType.AdamW,
                artifact_directory=os.path.join(folder, "ort"))
        except Exception as error:  # noqa: BLE001
            with open(os.path.join(folder, "ort_failed.txt"), "w") as f:
                f.write("%s: %s" % (type(error).__name__,
                                    exception_text(error, 300)))
    else:
        artifacts.generate_artifacts(
            onnx.load(forward), requires_grad=[n for n, _ in model.named_parameters()],
            frozen_params=[], loss=artifacts.LossType.CrossEntropyLoss,
            optimizer=artifacts.OptimType.AdamW, artifact_directory=folder)
        os.remove(forward)
    for batch in MODELS[name][2]:
        x, y = data(name, batch)
        np.save(os.path.join(folder, "input_b%d.npy" % batch), x)
        np.save(os.path.join(folder, "labels_b%d.npy" % batch), y)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--only")
    args = parser.parse_args()
    for name in MODELS:
        if not args.only or args.only == name:
            make(name, args.out_dir)
            print("zoo: %s written to %s" % (name, os.path.join(args.out_dir, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
