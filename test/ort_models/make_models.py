#!/usr/bin/env python3
"""Makes ONNX Runtime training artifacts for three model families and ORT's
own losses over N optimizer steps on them (AdamW; for mlp_clip_grad_norm,
SGD after gradient clipping), as references for odt.

    <venv>/bin/python test/ort_models/make_models.py OUT_DIR [--steps 10]

Needs the peers' venv (scripts/setup-peers.sh): onnxruntime-training 1.19.2
and PyTorch 2.15. For each model M it writes OUT_DIR/M/ with
generate_artifacts' four files, input.npy, labels.npy and ort_losses.json
(the loss of each TrainStep, then OptimizerStep and LazyResetGrad, ORT's loop).

The models are the ones the coverage issue names: an MLP with GELU and
LayerNorm; a CNN with Conv, BatchNormalization, MaxPool and
GlobalAveragePool; a transformer encoder block with multi-head attention.
Dropout is 0 so that both sides compute the same function.
"""

import argparse
import json
import os
import sys

import numpy as np
import onnx
import torch
from onnxruntime.training import artifacts, onnxblock
from onnxruntime.training.api import CheckpointState, Module, Optimizer

LEARNING_RATE = 1e-3


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.norm = torch.nn.LayerNorm(32)
        self.fc2 = torch.nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.norm(self.fc1(x))))


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 4, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(4)
        self.conv2 = torch.nn.Conv2d(4, 8, 3)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        x = torch.relu(self.norm(self.conv1(x)))
        x = torch.nn.functional.max_pool2d(x, 2)
        x = torch.relu(self.conv2(x))
        return self.fc(torch.flatten(self.pool(x), 1))


class EncoderBlock(torch.nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.attention = torch.nn.MultiheadAttention(dim, heads, dropout=0.0,
                                                     batch_first=True)
        self.norm1 = torch.nn.LayerNorm(dim)
        self.ffn = torch.nn.Sequential(torch.nn.Linear(dim, 64), torch.nn.GELU(),
                                       torch.nn.Linear(64, dim))
        self.norm2 = torch.nn.LayerNorm(dim)
        self.head = torch.nn.Linear(dim, 3)

    def forward(self, x):
        a, _ = self.attention(x, x, x, need_weights=False)
        x = self.norm1(x + a)
        x = self.norm2(x + self.ffn(x))
        return self.head(x.mean(dim=1))


MODELS = {
    "mlp_gelu_layernorm": (MLP, (8, 16), 4),
    "cnn_conv_bn_pool": (CNN, (8, 1, 8, 8), 3),
    "transformer_block": (EncoderBlock, (4, 8, 32), 3),
    # The MLP again, trained by SGD after clipping the global gradient norm
    # (ORT's InplaceClipGradNorm before SGDOptimizerV2). SGD, since Adam's
    # update hardly changes when all gradients are scaled by one factor;
    # max_norm is small enough that every step clips.
    "mlp_clip_grad_norm": (MLP, (8, 16), 4),
}

# Optimizers other than generate_artifacts' plain AdamW, by model name.
CLIP_MAX_NORM = 0.05
# Learning rates other than LEARNING_RATE: the clipped SGD steps are large
# enough that ignoring the clip would move the losses far out of tolerance.
LEARNING_RATES = {"mlp_clip_grad_norm": 0.2}


def optimizer_for(name):
    if name == "mlp_clip_grad_norm":
        return onnxblock.optim.SGD(
            clip_grad=onnxblock.optim.ClipGradNorm(CLIP_MAX_NORM))
    return artifacts.OptimType.AdamW


def fix_eval_batch_norm(path):
    """ORT 1.19.2's generate_artifacts leaves the training outputs (running
    mean and variance) on the eval graph's BatchNormalization while setting
    training_mode=0, which ORT itself then refuses to load. Those outputs are
    unused: drop them, as a correct generator would."""
    model = onnx.load(path)
    changed = False
    for node in model.graph.node:
        if node.op_type != "BatchNormalization" or len(node.output) == 1:
            continue
        training = [a.i for a in node.attribute if a.name == "training_mode"]
        if not training or training[0] == 0:
            del node.output[1:]
            changed = True
    if changed:
        onnx.save(model, path)


def make(name, out_dir, steps):
    factory, shape, classes = MODELS[name]
    torch.manual_seed(0)
    model = factory()
    model.train()
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, classes, size=shape[0]).astype(np.int64)
    folder = os.path.join(out_dir, name)
    os.makedirs(folder, exist_ok=True)
    forward = os.path.join(folder, "forward.onnx")
    torch.onnx.export(model, torch.from_numpy(x), forward, input_names=["input"],
                      output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                      dynamo=False, opset_version=14, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.TRAINING)
    requires_grad = [n for n, _ in model.named_parameters()]
    artifacts.generate_artifacts(
        onnx.load(forward), requires_grad=requires_grad, frozen_params=[],
        loss=artifacts.LossType.CrossEntropyLoss,
        optimizer=optimizer_for(name), artifact_directory=folder)
    os.remove(forward)
    fix_eval_batch_norm(os.path.join(folder, "eval_model.onnx"))
    np.save(os.path.join(folder, "input.npy"), x)
    np.save(os.path.join(folder, "labels.npy"), y)

    # ORT's own training loop on the artifacts: the reference losses.
    state = CheckpointState.load_checkpoint(os.path.join(folder, "checkpoint"))
    module = Module(os.path.join(folder, "training_model.onnx"), state,
                    os.path.join(folder, "eval_model.onnx"))
    optimizer = Optimizer(os.path.join(folder, "optimizer_model.onnx"), module)
    learning_rate = LEARNING_RATES.get(name, LEARNING_RATE)
    optimizer.set_learning_rate(learning_rate)
    module.train()
    losses = []
    for _ in range(steps):
        loss = module(x, y)
        optimizer.step()
        module.lazy_reset_grad()
        losses.append(float(np.asarray(loss)))
    with open(os.path.join(folder, "ort_losses.json"), "w") as f:
        json.dump({"learning_rate": learning_rate, "losses": losses}, f, indent=1)
    return losses


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--only", help="one model name")
    args = parser.parse_args()
    for name in MODELS:
        if args.only and name != args.only:
            continue
        losses = make(name, args.out_dir, args.steps)
        print(name, " ".join("%.7g" % l for l in losses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
