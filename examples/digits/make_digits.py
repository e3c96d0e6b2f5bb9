"""The digits task for odt's main job: scikit-learn's handwritten digits
(1,797 8x8 images, 10 classes, shipped inside the package) and a forward
model to train on them.

Usage: make_digits.py OUT_DIR [--hidden H] [--seed S]

Writes to OUT_DIR:
  forward.onnx              pixels [N, 64] -> Gemm -> Relu -> Gemm -> logits
                            [N, 10], weights initialized as PyTorch's
                            nn.Linear does (uniform in +-1/sqrt(fan_in)),
                            from numpy's generator seeded with S
  train_pixels.npy          1,437 images (80%, stratified), float32 in [0, 1]
  train_labels.npy          their digits, int64
  test_pixels.npy           the other 360 images, never trained on
  test_labels.npy

odt-compile generate-artifacts turns forward.onnx into the training, eval
and optimizer models (CrossEntropyLoss, AdamW); examples/digits/
train_digits.cpp trains them.
"""

import argparse
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


def linear(rng, fan_in, fan_out, name):
    bound = 1.0 / np.sqrt(fan_in)
    weight = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
    bias = rng.uniform(-bound, bound, fan_out).astype(np.float32)
    return [numpy_helper.from_array(weight, name + ".weight"),
            numpy_helper.from_array(bias, name + ".bias")]


def make_model(hidden, seed):
    rng = np.random.default_rng(seed)
    initializers = linear(rng, 64, hidden, "fc1") + linear(rng, hidden, 10, "fc2")
    nodes = [
        helper.make_node("Gemm", ["pixels", "fc1.weight", "fc1.bias"], ["h"],
                         name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["a"], name="relu"),
        helper.make_node("Gemm", ["a", "fc2.weight", "fc2.bias"], ["logits"],
                         name="fc2", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "digits_mlp",
        [helper.make_tensor_value_info("pixels", TensorProto.FLOAT, ["N", 64])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        initializer=initializers)
    model = helper.make_model(
        graph, opset_imports=[helper.make_operatorsetid("", 17)],
        producer_name="odt examples/digits")
    model.ir_version = 8
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)

    digits = load_digits()
    pixels = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int64)
    train_x, test_x, train_y, test_y = train_test_split(
        pixels, labels, test_size=0.2, stratify=labels, random_state=args.seed)
    for name, array in (("train_pixels", train_x), ("train_labels", train_y),
                        ("test_pixels", test_x), ("test_labels", test_y)):
        np.save(os.path.join(args.out_dir, name + ".npy"),
                np.ascontiguousarray(array))
    with open(os.path.join(args.out_dir, "forward.onnx"), "wb") as f:
        f.write(make_model(args.hidden, args.seed).SerializeToString())
    print("digits: %d training and %d test images of 8x8 pixels, 10 classes"
          % (len(train_y), len(test_y)))


if __name__ == "__main__":
    main()
