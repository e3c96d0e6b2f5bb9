"""Convolutions alone: odt's forward pass and training step per conv shape,
PyTorch's on the same shape, as GFLOP/s.

    <peers python> bench/conv_bench.py --bin BUILD/bin --work DIR --threads T \
        [--warmup-runs 3] [--repetitions 20] [--only NAME]

For each shape a one-layer model y = Conv(x * s, W) (s: a per-channel
scale, trainable, so that the training step needs the convolution's input
gradient as well as its filter gradient) with an MSE loss goes through
`odt-compile generate-artifacts --optimizer SGD --compile` and `odt-run
bench`: the forward figure is EvalStep (scale, convolution, loss), the
training figure is TrainStep alone (forward, loss, the convolution's two
gradients, the scale's; no optimizer), counted as 1x and 3x the
convolution's multiply-adds (2 FLOPs each). PyTorch runs the same module:
forward under no_grad, and forward + backward. Medians of the timed runs
after the warm-up. Prints one JSON line per shape.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

BATCH = 32
# name: (in channels, out channels, height = width, kernel, stride, groups)
SHAPES = {
    "3x3 16->16 32x32": (16, 16, 32, 3, 1, 1),
    "3x3 32->32 16x16": (32, 32, 16, 3, 1, 1),
    "3x3 64->64 8x8": (64, 64, 8, 3, 1, 1),
    "3x3 128->128 8x8": (128, 128, 8, 3, 1, 1),
    "3x3 256->256 4x4": (256, 256, 4, 3, 1, 1),
    "3x3 s2 32->64 16x16": (32, 64, 16, 3, 2, 1),
    "1x1 64->256 8x8": (64, 256, 8, 1, 1, 1),
    "1x1 256->64 8x8": (256, 64, 8, 1, 1, 1),
    "dw3x3 128 16x16": (128, 128, 16, 3, 1, 128),
    "dw3x3 s2 64 16x16": (64, 64, 16, 3, 2, 64),
}


def conv_flops(shape):
    cin, cout, size, kernel, stride, groups = shape
    out = (size + 2 * (kernel // 2) - kernel) // stride + 1
    return 2.0 * BATCH * cout * out * out * (cin // groups) * kernel * kernel


def model(shape, path):
    cin, cout, size, kernel, stride, groups = shape
    rng = np.random.default_rng(0)
    weight = (rng.standard_normal((cout, cin // groups, kernel, kernel)) *
              (1.0 / np.sqrt(cin // groups * kernel * kernel))).astype(np.float32)
    pad = kernel // 2
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "scale"], ["scaled"], name="scale"),
         helper.make_node("Conv", ["scaled", "weight"], ["y"], name="conv",
                          kernel_shape=[kernel, kernel], strides=[stride, stride],
                          pads=[pad] * 4, group=groups)],
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       [BATCH, cin, size, size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.ones((1, cin, 1, 1), np.float32), "scale"),
         numpy_helper.from_array(weight, "weight")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              path)
    return weight


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("conv_bench: %s failed:\n%s%s" % (" ".join(command), result.stdout,
                                                   result.stderr))
    return result.stdout


def odt_times(args, name, shape):
    folder = os.path.join(args.work, name.replace(" ", "_").replace(">", ""))
    os.makedirs(folder, exist_ok=True)
    forward = os.path.join(folder, "forward.onnx")
    model(shape, forward)
    artifacts = os.path.join(folder, "artifacts")
    compiled = os.path.join(folder, "compiled")
    run([os.path.join(args.bin, "odt-compile"), "generate-artifacts", forward,
         "-o", artifacts, "--loss", "MSELoss", "--optimizer", "SGD", "--quiet",
         "--compile", compiled])
    cin, cout, size, kernel, stride, _ = shape
    out = (size + 2 * (kernel // 2) - kernel) // stride + 1
    rng = np.random.default_rng(1)
    np.save(os.path.join(folder, "x.npy"),
            rng.standard_normal((BATCH, cin, size, size)).astype(np.float32))
    np.save(os.path.join(folder, "target.npy"),
            rng.standard_normal((BATCH, cout, out, out)).astype(np.float32))
    lines = run([os.path.join(args.bin, "odt-run"), "bench", compiled,
                 "--checkpoint", os.path.join(artifacts, "checkpoint"),
                 "--threads", str(args.threads),
                 "--input", "x=" + os.path.join(folder, "x.npy"),
                 "--input", "target=" + os.path.join(folder, "target.npy"),
                 "--warmup-runs", str(args.warmup_runs),
                 "--repetitions", str(args.repetitions), "--json"])
    timing = {line["bench"]: line["median_ms"]
              for line in map(json.loads, lines.splitlines())}
    return timing["eval"], timing["train-step"]


def timed(step, args):
    for _ in range(args.warmup_runs):
        step()
    samples = []
    for _ in range(args.repetitions):
        start = time.perf_counter()
        step()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def torch_times(args, shape):
    cin, cout, size, kernel, stride, groups = shape
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups,
                           bias=False)
    scale = torch.nn.Parameter(torch.ones(1, cin, 1, 1))
    x = torch.randn(BATCH, cin, size, size)
    target = torch.randn_like(conv(x))
    loss_fn = torch.nn.MSELoss()

    def forward():
        with torch.no_grad():
            loss_fn(conv(x * scale), target)

    def train():
        loss_fn(conv(x * scale), target).backward()
        conv.weight.grad = None
        scale.grad = None
    return timed(forward, args), timed(train, args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--warmup-runs", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--only")
    args = parser.parse_args()
    for name, shape in SHAPES.items():
        if args.only and args.only != name:
            continue
        flops = conv_flops(shape)
        odt_forward, odt_train = odt_times(args, name, shape)
        torch_forward, torch_train = torch_times(args, shape)
        print(json.dumps({
            "shape": name, "batch": BATCH, "threads": args.threads,
            "mflop": flops / 1e6,
            "odt_forward_ms": odt_forward, "odt_train_ms": odt_train,
            "torch_forward_ms": torch_forward, "torch_train_ms": torch_train,
            "odt_forward_gflops": flops / odt_forward / 1e6,
            "odt_train_gflops": 3 * flops / odt_train / 1e6,
            "torch_forward_gflops": flops / torch_forward / 1e6,
            "torch_train_gflops": 3 * flops / torch_train / 1e6}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
