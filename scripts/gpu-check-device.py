#!/usr/bin/env python3
"""The GPU device check, part 2: run on the machine with the GPU.

    python3 gpu-check-device.py CHECK_DIR [--out RESULTS] [--device cuda:0]
                                [--repetitions N] [--no-torch] [--plumbing]

CHECK_DIR is what scripts/gpu-check.sh prepared (odt-run, the GPU builds,
checkpoints, inputs, manifests). For every model:
  * odt-run trains it on the GPU (--device cuda) for the manifest's steps;
    the losses must match the manifest's: ORT's golden losses within 1e-5
    relative, the CPU build's within 1e-4 relative for the first 3 steps and
    1e-3 relative + 5e-4 absolute for all (the zoo's rule); a tensor-core
    build (MODEL@tf32, @tf32x3, @bf16) against the CPU run of its loops with
    the tensor cores' rounding emulated, by the same rule (the check of the
    mma.sync fragments' layout);
  * odt-run bench times the training step (TrainStep + OptimizerStep +
    LazyResetGrad, graph replays after the first two calls), median of N;
  * PyTorch eager CUDA (the machine's torch) trains the same module (bench/
    zoo.py, copied into CHECK_DIR/python) at the same batch with AdamW:
    median step time over N, and its kernel launches in one step (torch's
    profiler), against odt's kernels per step (the GPU build's table).
RESULTS/gpu-check.json and RESULTS/gpu-check.md hold the figures; the exit
status is 1 when a model fails or a loss is off.

--plumbing runs everything without comparing losses or timing PyTorch: for
the mock driver of the tests (its kernels compute nothing), where it checks
that the script, the prepared folder and odt-run fit together.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

GOLDEN_TOLERANCE = 1e-5
FIRST_STEPS, FIRST_TOLERANCE = 3, 1e-4
REL_TOLERANCE, ABS_TOLERANCE = 1e-3, 5e-4


def odt_run(check_dir, *args, timeout=300):
    command = [os.path.join(check_dir, "bin", "odt-run")] + list(args)
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return result, time.monotonic() - start


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def losses_match(manifest, losses):
    """None when they match, else the first step that does not, in words."""
    want = manifest["losses"]
    if len(losses) != len(want):
        return "%d losses, expected %d" % (len(losses), len(want))
    golden = manifest["reference"].startswith("ORT")
    for step, (got, expected) in enumerate(zip(losses, want), 1):
        error = abs(got - expected)
        if golden:
            fits = error <= GOLDEN_TOLERANCE * abs(expected)
        elif step <= FIRST_STEPS:
            fits = error <= FIRST_TOLERANCE * abs(expected)
        else:
            fits = error <= REL_TOLERANCE * abs(expected) + ABS_TOLERANCE
        if not fits:
            return "step %d: %.9g, %s %.9g" % (step, got, manifest["reference"], expected)
    return None


def odt_kernels_per_step(gpu_build):
    """Kernels a training step launches (TrainStep + OptimizerStep): each
    kernel of the table launches once per call of its step."""
    with open(os.path.join(gpu_build, "model.json")) as f:
        kernels = json.load(f)["gpu"]["kernels"]
    return sum(1 for k in kernels if k["name"].startswith(("train_", "optimizer_")))


def torch_eager(check_dir, name, batch, device, warmup, repetitions):
    """PyTorch eager CUDA: the zoo module's training step (forward,
    CrossEntropyLoss, backward, AdamW, zero_grad) on the manifest's batch."""
    import numpy as np  # noqa: F401  (bench/zoo.py needs it)
    import torch
    sys.path.insert(0, os.path.join(check_dir, "python", "bench"))
    import zoo

    torch.backends.cuda.matmul.allow_tf32 = False  # ORT's fp32 numerics
    torch.backends.cudnn.allow_tf32 = False
    model = zoo.build(name).train().to(device)
    x, y = zoo.data(name, batch)
    xt = torch.from_numpy(x).to(device)
    yt = torch.from_numpy(y).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-6, weight_decay=0.0)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        loss = loss_fn(model(xt), yt)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=False)
        return loss

    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(repetitions):
        start = time.perf_counter()
        step().item()  # the loss back on the host, as odt's TrainStep
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    kernels = None
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        kernels = sum(1 for e in prof.events()
                      if e.device_type == torch.autograd.DeviceType.CUDA
                      and not e.name.startswith(("Memcpy", "Memset")))
    except Exception as error:  # noqa: BLE001
        print("gpu-check: %s: the profiler could not count kernels: %s" % (name, error))
    return {"median_ms": statistics.median(times), "min_ms": min(times),
            "kernels": kernels, "torch": torch.__version__,
            "gpu": torch.cuda.get_device_name(torch.device(device))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("check_dir")
    parser.add_argument("--out", default=None)
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--warmup-runs", type=int, default=5)
    parser.add_argument("--repetitions", type=int, default=50)
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--plumbing", action="store_true")
    args = parser.parse_args()
    check_dir = os.path.abspath(args.check_dir)
    out = args.out or os.path.join(check_dir, "results")
    os.makedirs(out, exist_ok=True)

    rows, failed = [], False
    for name in sorted(os.listdir(os.path.join(check_dir, "models"))):
        folder = os.path.join(check_dir, "models", name)
        with open(os.path.join(folder, "manifest.json")) as f:
            manifest = json.load(f)
        with open(os.path.join(folder, "input_name")) as f:
            input_name = f.read().strip()
        gpu = os.path.join(folder, "gpu")
        data = ["--checkpoint", os.path.join(folder, "checkpoint"),
                "--input", "%s=%s" % (input_name, os.path.join(folder, "input.npy")),
                "--input", "labels=" + os.path.join(folder, "labels.npy"),
                "--device", args.device]
        row = {"model": name, "batch": manifest.get("batch"),
               "reference": manifest["reference"], "odt_kernels": odt_kernels_per_step(gpu)}
        trained, seconds = odt_run(check_dir, "train", gpu, *data, "--steps",
                                   str(manifest["steps"]), "--lr", str(manifest["lr"]),
                                   "--json")
        row["train_seconds"] = round(seconds, 2)
        if trained.returncode != 0:
            row["error"] = trained.stderr.strip()[-600:]
            failed = True
            rows.append(row)
            print("gpu-check: %s: odt-run train failed:\n%s" % (name, row["error"]))
            continue
        losses = [line["loss"] for line in json_lines(trained.stdout)]
        row["losses"] = losses
        row["expected"] = manifest["losses"]
        if not args.plumbing:
            mismatch = losses_match(manifest, losses)
            row["losses_match"] = mismatch is None
            if mismatch:
                row["error"] = "losses differ: " + mismatch
                failed = True
        timed, _ = odt_run(check_dir, "bench", gpu, *data, "--warmup-runs",
                           str(args.warmup_runs), "--repetitions",
                           str(args.repetitions), "--json")
        if timed.returncode != 0:
            row["error"] = timed.stderr.strip()[-600:]
            failed = True
        else:
            bench = {line["bench"]: line for line in json_lines(timed.stdout)}
            row["odt_step_ms"] = bench["train"]["median_ms"]
            row["odt_eval_ms"] = bench.get("eval", {}).get("median_ms")
        if manifest.get("torch_model") and not (args.no_torch or args.plumbing):
            try:
                row["torch_eager"] = torch_eager(check_dir, manifest["torch_model"],
                                                 manifest["batch"], args.device,
                                                 args.warmup_runs, args.repetitions)
                if row.get("odt_step_ms"):
                    row["odt_over_torch"] = row["odt_step_ms"] / row["torch_eager"]["median_ms"]
            except Exception as error:  # noqa: BLE001
                row["torch_error"] = "%s: %s" % (type(error).__name__, error)
        rows.append(row)
        print("gpu-check: %s" % json.dumps(row))

    with open(os.path.join(out, "gpu-check.json"), "w") as f:
        json.dump({"host": platform.node(), "device": args.device, "models": rows}, f, indent=1)
    lines = ["| model | batch | losses | odt step ms | PyTorch eager ms | odt / eager "
             "| odt kernels | eager kernels |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        eager = row.get("torch_eager") or {}

        def fmt(value, pattern="%.3f"):
            return pattern % value if value is not None else "-"
        verdict = ("error" if "error" in row and "losses_match" not in row
                   else "match " + row["reference"] if row.get("losses_match")
                   else "not compared" if args.plumbing else "DIFFER")
        lines.append("| %s | %s | %s | %s | %s | %s | %d | %s |" % (
            row["model"], row.get("batch") or "-", verdict, fmt(row.get("odt_step_ms")),
            fmt(eager.get("median_ms")), fmt(row.get("odt_over_torch"), "%.2f"),
            row["odt_kernels"], fmt(eager.get("kernels"), "%d")))
    with open(os.path.join(out, "gpu-check.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
