#!/usr/bin/env python3
"""Trains generate-artifacts' output with ONNX Runtime's training API (run
in the interop venv) and prints the losses as JSON; with --resave, also
loads the checkpoint with ORT's CheckpointState and saves it again.

    ort_train.py ARTIFACT_DIR --input F --loss-input NAME=F --steps N --lr LR
                 [--resave PATH]
"""

import argparse
import json

import numpy as np
from onnxruntime.training.api import CheckpointState, Module, Optimizer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("artifacts")
    parser.add_argument("--input", required=True)
    parser.add_argument("--loss-input", required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--lr", type=float, required=True)
    parser.add_argument("--resave")
    args = parser.parse_args()
    folder = args.artifacts
    state = CheckpointState.load_checkpoint(folder + "/checkpoint")
    if args.resave:
        CheckpointState.save_checkpoint(state, args.resave)
    module = Module(folder + "/training_model.onnx", state,
                    folder + "/eval_model.onnx")
    optimizer = Optimizer(folder + "/optimizer_model.onnx", module)
    optimizer.set_learning_rate(args.lr)
    x = np.load(args.input)
    target = np.load(args.loss_input.split("=", 1)[1])
    module.train()
    losses = []
    for _ in range(args.steps):
        losses.append(float(module(x, target)))
        optimizer.step()
        module.lazy_reset_grad()
    module.eval()
    eval_loss = float(module(x, target))
    print(json.dumps({"losses": losses, "eval_loss": eval_loss,
                      "input_names": module.input_names(),
                      "output_names": module.output_names()}))


if __name__ == "__main__":
    main()
