#!/usr/bin/env python3
"""Makes the forward models, data and PyTorch reference trajectories that the
generate-artifacts tests train against.

    <venv>/bin/python test/autodiff/make_models.py OUT_DIR [--steps 8]

For each model M, OUT_DIR/M/ gets forward.onnx (exported by PyTorch, batch
dim symbolic), input.npy, labels.npy (int64 classes), target.npy (float, the
output's shape) and torch_losses.json: the loss of each of `steps` training
steps done in PyTorch from the same weights, for two setups:
  ce_adamw: CrossEntropyLoss + torch.optim.AdamW (ORT's adam_mode 0)
  mse_sgd:  MSELoss + torch.optim.SGD
Dropout is absent so both sides compute the same function.
"""

import argparse
import json
import os

import numpy as np
import torch

ADAMW = dict(lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)
SGD_LR = 0.05


class MLP(torch.nn.Module):
    """Gemm and Relu."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class NormMLP(torch.nn.Module):
    """LayerNormalization (opset 17) or its decomposed form (earlier opsets),
    Erf-based GELU, Tanh and Sigmoid."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.norm = torch.nn.LayerNorm(32)
        self.fc2 = torch.nn.Linear(32, 32)
        self.fc3 = torch.nn.Linear(32, 4)

    def forward(self, x):
        h = torch.nn.functional.gelu(self.norm(self.fc1(x)))
        h = torch.tanh(self.fc2(h)) * torch.sigmoid(h)
        return self.fc3(h)


class CNN(torch.nn.Module):
    """Conv, MaxPool, GlobalAveragePool, Flatten."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(4, 8, 3)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.nn.functional.max_pool2d(x, 2)
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(self.pool(x), 1))


class NormCNN(torch.nn.Module):
    """BatchNormalization in training mode (batch statistics), as PyTorch
    exports a model in train()."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.norm(self.conv(x))), 2)
        return self.fc(torch.flatten(x, 1))


class Attention(torch.nn.Module):
    """Self-attention written out: MatMul on 3-D inputs, Reshape and
    Transpose with shape subgraphs (symbolic batch), Softmax, a residual and
    a mean over the sequence."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.norm = torch.nn.LayerNorm(dim)
        self.head = torch.nn.Linear(dim, 3)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        def split(t):
            return t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
        scores = torch.matmul(q, k.transpose(-2, -1)) / (d // self.heads) ** 0.5
        a = torch.matmul(torch.softmax(scores, dim=-1), v)
        a = a.transpose(1, 2).reshape(b, s, d)
        x = self.norm(x + self.proj(a))
        return self.head(x.mean(dim=1))


# name: (module, input shape, classes, opset)
MODELS = {
    "mlp": (MLP, (8, 16), 4, 13),
    "norm_mlp": (NormMLP, (8, 16), 4, 17),
    "norm_mlp_decomposed": (NormMLP, (8, 16), 4, 14),
    "cnn": (CNN, (4, 1, 8, 8), 3, 13),
    "cnn_batchnorm": (NormCNN, (4, 1, 8, 8), 3, 15),
    "attention": (Attention, (4, 6, 16), 3, 15),
}


def torch_losses(factory, x, y, target, setup, steps):
    torch.manual_seed(0)
    model = factory()
    if setup == "ce_adamw":
        optimizer = torch.optim.AdamW(model.parameters(), **ADAMW)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=SGD_LR)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        out = model(torch.from_numpy(x))
        if setup == "ce_adamw":
            loss = torch.nn.functional.cross_entropy(out, torch.from_numpy(y))
        else:
            loss = torch.nn.functional.mse_loss(out, torch.from_numpy(target))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def make(name, out_dir, steps):
    factory, shape, classes, opset = MODELS[name]
    torch.manual_seed(0)
    model = factory()
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, classes, size=shape[0]).astype(np.int64)
    target = rng.standard_normal((shape[0], classes)).astype(np.float32)
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    torch.onnx.export(model, torch.from_numpy(x),
                      os.path.join(folder, "forward.onnx"),
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"},
                                    "output": {0: "batch"}},
                      dynamo=False, opset_version=opset, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.TRAINING)
    np.save(os.path.join(folder, "input.npy"), x)
    np.save(os.path.join(folder, "labels.npy"), y)
    np.save(os.path.join(folder, "target.npy"), target)
    losses = {setup: torch_losses(factory, x, y, target, setup, steps)
              for setup in ("ce_adamw", "mse_sgd")}
    losses["adamw"] = ADAMW
    losses["sgd_lr"] = SGD_LR
    with open(os.path.join(folder, "torch_losses.json"), "w") as f:
        json.dump(losses, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--models", nargs="*", default=sorted(MODELS))
    args = parser.parse_args()
    for name in args.models:
        make(name, args.out_dir, args.steps)


if __name__ == "__main__":
    main()
