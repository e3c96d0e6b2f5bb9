"""Counts the GPU kernels of each bench zoo model's steps and writes them into
docs/gpu.md (between its `<!-- kernels -->` markers).

    build/peers/bin/python bench/gpu_kernels.py --build build \
        [--work /tmp/odt-bench] [--out docs/gpu.md] [--chip sm_90]

The models are bench/run.py's (made the same way, in the same --work
folder). For each, `odt-compile ARTIFACTS --emit=ptx --gpu-arch=CHIP` gives
the PTX module of all its kernels; a kernel's name starts with its step's
entry point (train_kernel_12, optimizer_kernel_3, ...), so counting the
`.entry` lines per prefix gives the kernels of each step. A step launches
each of its kernels once, except inside a loop the step runs (a recurrent
cell's time loop), where a kernel launches once per iteration: the script
reads the host code (printed after kernel outlining) and fails if a launch
sits in a loop, so the counts are launches per step.
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import run as bench  # noqa: E402  (bench/run.py: the zoo's folders)

BEGIN, END = "<!-- kernels -->", "<!-- /kernels -->"
STEPS = ("train", "optimizer", "eval")


def launches_in_host_loops(host_ir):
    """gpu.launch_func ops nested in a host scf.for or scf.while (by the
    printed IR's indentation), in the IR printed after kernel outlining."""
    found, loops = [], []
    for line in host_ir.split("\n"):
        stripped = line.strip()
        if stripped.startswith("gpu.module"):
            continue
        indent = len(line) - len(line.lstrip())
        while loops and indent <= loops[-1]:
            loops.pop()
        if re.search(r"\bscf\.(for|while)\b", stripped):
            loops.append(indent)
        if "gpu.launch_func" in stripped and loops:
            found.append(stripped[:120])
    return found


def count_kernels(odt_compile, artifacts, chip):
    made = subprocess.run([odt_compile, artifacts, "--emit=ptx", "--gpu-arch=" + chip,
                           "--quiet", "--mlir-print-ir-after=gpu-kernel-outlining"],
                          capture_output=True, text=True)
    if made.returncode != 0:
        sys.exit("gpu_kernels: odt-compile --emit=ptx failed on %s:\n%s" %
                 (artifacts, made.stderr))
    counts = {step: 0 for step in STEPS}
    for name in re.findall(r"^\.visible \.entry (\w+)\(", made.stdout, flags=re.M):
        step = name.split("_kernel")[0]
        if step not in counts:
            sys.exit("gpu_kernels: kernel '%s' of %s belongs to no known step" %
                     (name, artifacts))
        counts[step] += 1
    # Each kernel launches once per step: none in a loop of the host code.
    in_loops = launches_in_host_loops(made.stderr)
    if in_loops:
        sys.exit("gpu_kernels: %s launches kernels in a host loop (so more than "
                 "once per step), e.g. %s" % (artifacts, in_loops[0]))
    header = re.search(r"^// odt PTX for %s: (\d+) kernels" % chip, made.stdout, flags=re.M)
    if not header or int(header.group(1)) != sum(counts.values()):
        sys.exit("gpu_kernels: the kernel count of %s's PTX header and its "
                 ".entry lines disagree" % artifacts)
    return counts


def table(rows, chip):
    lines = ["| model | training step: TrainStep + OptimizerStep | TrainStep | "
             "OptimizerStep | EvalStep |", "|---|---|---|---|---|"]
    for name, counts in rows:
        lines.append("| %s | %d | %d | %d | %d |" % (
            name, counts["train"] + counts["optimizer"], counts["train"],
            counts["optimizer"], counts["eval"]))
    return "\n".join([
        "Kernels per step for %s, from `build/peers/bin/python bench/gpu_kernels.py "
        "--build build` (bench/run.py's models; each kernel launches once per "
        "step):" % chip, ""] + lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work", default="/tmp/odt-bench")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "gpu.md"))
    parser.add_argument("--chip", default="sm_90")
    args = parser.parse_args()
    odt_compile = os.path.join(args.build, "bin", "odt-compile")
    os.makedirs(args.work, exist_ok=True)
    rows = []
    for name in bench.zoo.MODELS:
        bench.run([sys.executable, os.path.join(ROOT, "bench", "zoo.py"), args.work,
                   "--only", name])
        if name in bench.zoo.REAL_ZOO:
            bench.run([odt_compile, "generate-artifacts",
                       os.path.join(args.work, name, "forward.onnx"), "-o",
                       bench.artifacts_dir(args.work, name), "--loss",
                       "CrossEntropyLoss", "--quiet"])
        counts = count_kernels(odt_compile, bench.artifacts_dir(args.work, name), args.chip)
        print("gpu_kernels: %s %s" % (name, counts))
        rows.append((name, counts))
    with open(args.out) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        sys.exit("gpu_kernels: %s lacks the %s ... %s markers" % (args.out, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(args.out, "w") as f:
        f.write(head + BEGIN + "\n" + table(rows, args.chip) + "\n" + END + tail)
    return 0


if __name__ == "__main__":
    sys.exit(main())
