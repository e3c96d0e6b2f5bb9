"""Times the peers on the zoo: ONNX Runtime 1.19.2 training, PyTorch eager and
torch.compile.

    <venv>/bin/python bench/peers.py ZOO_DIR MODEL BATCH THREADS \
        [--warmup-runs N] [--repetitions N] [--serve]

Prints one JSON line per peer: {"peer", "model", "batch", "threads",
"median_ms", "min_ms", "max_ms"} (ORT also "start_rss_mib", "peak_rss_mib":
run it first, the process's peak is its) for a training step (ORT: Module train step,
Optimizer.step, lazy_reset_grad; PyTorch: forward, CrossEntropyLoss,
backward, AdamW step, zero_grad), each after the warm-up runs, timed with
time.perf_counter. Both start from the same weights (zoo.py's seed) and data
as odt.

With --flops it prints {"model", "batch", "flops"} instead: the floating-point
operations of one forward, loss and backward of the eager module at that
batch as PyTorch's FlopCounterMode counts them (2 per multiply-add of the
matrix products and convolutions, a convolution's gradients counted with
its groups; elementwise work is not counted).

With --serve the process sets both peers up once (ORT first, and times it
once for its memory figures), prints "ready", then reads commands from
stdin: "ort", "pytorch" or "compile" times that peer again (warm-up runs, then the
timed runs) and prints its JSON line; "quit" ends. bench/run.py times each
peer this way right after each odt run, so that both see the same state of
the shared machine (a Python process takes seconds to start, longer than
the machine's noisy spells).
"""

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo  # noqa: E402
from zoo import exception_text  # noqa: E402


def timed(step, warmup, repetitions):
    for _ in range(warmup):
        step()
    samples = []
    for _ in range(repetitions):
        start = time.perf_counter()
        step()
        samples.append(time.perf_counter() - start)
    return {"median_ms": statistics.median(samples) * 1e3,
            "min_ms": min(samples) * 1e3, "max_ms": max(samples) * 1e3}


def resident_mib():
    """Resident memory of this process now (Linux /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_resident_mib():
    """The process's resident high-water mark (VmHWM)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def ort_artifacts(folder):
    """The folder with ORT's artifacts for the model, or None when ORT could
    not make them (bench/zoo.py then wrote ort_failed.txt)."""
    for candidate in (folder, os.path.join(folder, "ort")):
        if os.path.exists(os.path.join(candidate, "training_model.onnx")):
            return candidate
    return None


def setup_ort(folder, x, y, threads):
    """ORT's training step on the zoo model, and the resident memory before
    its checkpoint was loaded."""
    import onnxruntime as ort
    from onnxruntime.training.api import CheckpointState, Module, Optimizer

    # Memory: the peak above what the process held before the checkpoint
    # was loaded (Python, numpy, torch and onnxruntime imported).
    start = resident_mib()

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    state = CheckpointState.load_checkpoint(os.path.join(folder, "checkpoint"))
    module = Module(os.path.join(folder, "training_model.onnx"), state,
                    os.path.join(folder, "eval_model.onnx"),
                    session_options=options)
    optimizer = Optimizer(os.path.join(folder, "optimizer_model.onnx"), module)
    module.train()

    def step():
        module(x, y)
        optimizer.step()
        module.lazy_reset_grad()
    return step, start


def time_ort(folder, x, y, threads, warmup, repetitions):
    step, start = setup_ort(folder, x, y, threads)
    result = timed(step, warmup, repetitions)
    result.update(start_rss_mib=start, peak_rss_mib=peak_resident_mib())
    return result


def setup_torch(name, x, y, threads, compiled=False):
    """PyTorch's training step on the zoo model: eager, or with
    torch.compile (Inductor's C++ kernels for the forward and backward
    graphs, the optimizer step compiled too). Compiling happens in the first
    calls, which the warm-up runs absorb; compile() runs one step first so
    that the warm-up count does not decide it."""
    torch.set_num_threads(threads)
    model = zoo.build(name).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-6,
                                  weight_decay=0.0)
    loss_fn = torch.nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    forward = torch.compile(model) if compiled else model

    def update():
        optimizer.step()
    if compiled:
        update = torch.compile(update)

    def step():
        loss = loss_fn(forward(xt), yt)
        loss.backward()
        update()
        optimizer.zero_grad(set_to_none=False)
    if compiled:
        step()
        step()
    return step


def step_flops(name, x, y):
    """The FLOPs FlopCounterMode counts in one forward, loss and backward.
    Its rule for a convolution's backward ignores groups (a depthwise
    layer's gradients counted as a dense convolution's, 100 times too
    many): here each gradient asked for (input, weight) counts as much as
    the forward convolution, whose rule does take groups."""
    from torch.utils.flop_counter import FlopCounterMode, conv_flop_count

    def convolution_backward(grad_out_shape, x_shape, w_shape, _bias, _stride,
                             _padding, _dilation, transposed, _output_padding,
                             _groups, output_mask, out_shape=None, **kwargs):
        forward = conv_flop_count(x_shape, w_shape, grad_out_shape, transposed)
        return forward * (int(output_mask[0]) + int(output_mask[1]))

    model = zoo.build(name).train()
    loss_fn = torch.nn.CrossEntropyLoss()
    counter = FlopCounterMode(display=False, custom_mapping={
        torch.ops.aten.convolution_backward: convolution_backward})
    with counter:
        loss_fn(model(torch.from_numpy(x)), torch.from_numpy(y)).backward()
    return counter.get_total_flops()


def serve(args, folder, x, y):
    """--serve: set up both peers, then time them on request (stdin)."""
    def emit(peer, result):
        result.update(peer=peer, model=args.model, batch=args.batch,
                      threads=args.threads)
        print(json.dumps(result), flush=True)

    steps, memory = {}, {}
    ort_folder = ort_artifacts(folder)
    if ort_folder and "ort" in args.peers.split(","):
        try:
            ort_step, start = setup_ort(ort_folder, x, y, args.threads)
            # A first timing makes the process's peak ORT's training
            # loop's; PyTorch's model comes after it.
            timed(ort_step, args.warmup_runs, args.repetitions)
            memory = {"start_rss_mib": start, "peak_rss_mib": peak_resident_mib()}
            steps["ort"] = ort_step
        except Exception as error:  # noqa: BLE001  (ORT cannot train it)
            with open(os.path.join(folder, "ort_failed.txt"), "w") as f:
                f.write("%s: %s" % (type(error).__name__,
                                    exception_text(error, 300)))
    steps["pytorch"] = setup_torch(args.model, x, y, args.threads)
    if "compile" in args.peers.split(","):
        steps["compile"] = setup_torch(args.model, x, y, args.threads,
                                       compiled=True)
    print("ready", flush=True)
    for line in sys.stdin:
        command = line.strip()
        if command == "quit":
            return 0
        if command == "ort" and "ort" not in steps:
            emit(command, {"median_ms": None})  # ORT could not make artifacts
            continue
        if command not in steps:
            print("peers: unknown command %r" % command, file=sys.stderr)
            return 2
        result = timed(steps[command], args.warmup_runs, args.repetitions)
        if command == "ort":
            result.update(memory)
        emit(command, result)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("zoo_dir")
    parser.add_argument("model", choices=sorted(zoo.MODELS))
    parser.add_argument("batch", type=int)
    parser.add_argument("threads", type=int)
    parser.add_argument("--warmup-runs", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--peers", default="ort,pytorch,compile",
                        help="ort, pytorch (eager) and compile (torch.compile)")
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("--flops", action="store_true")
    args = parser.parse_args()
    folder = os.path.join(args.zoo_dir, args.model)
    x = np.load(os.path.join(folder, "input_b%d.npy" % args.batch))
    y = np.load(os.path.join(folder, "labels_b%d.npy" % args.batch))
    if args.serve:
        return serve(args, folder, x, y)
    if args.flops:
        print(json.dumps({"model": args.model, "batch": args.batch,
                          "flops": step_flops(args.model, x, y)}), flush=True)
        return 0
    for peer in args.peers.split(","):
        if peer == "ort":
            if not ort_artifacts(folder):
                continue
            result = time_ort(ort_artifacts(folder), x, y, args.threads,
                              args.warmup_runs, args.repetitions)
        else:
            result = timed(setup_torch(args.model, x, y, args.threads,
                                       compiled=peer == "compile"),
                           args.warmup_runs, args.repetitions)
        result.update(peer=peer, model=args.model, batch=args.batch,
                      threads=args.threads)
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
