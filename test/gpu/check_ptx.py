#!/usr/bin/env python3
"""A model's GPU build: every kernel assembles for every chip, and the host
code's launches agree with the kernels' signatures.

odt-compile --gpu-arch builds the model for GPUs: its kernels (one PTX module
per chip, every kernel of the training, eval and optimizer steps in it, also
written as OUT/model.<chip>.ptx) and host code that launches them through
the runtime. ptxas, from the CUDA toolkit, assembles each PTX for its chip
with -Werror and --warn-on-spills (a spill to local memory is an error).
model.json lists the kernels the host code launches with the size of each
parameter its launches pass; each must be a `.entry` of every PTX with
exactly those `.param`s (count and sizes; checked without ptxas too).
Prints one line per chip: kernels, the most registers a kernel uses, its
shared memory.

With --precision tf32, tf32x3 or bf16 (the products on tensor cores), the
PTX must hold mma.sync instructions of that type and each chip's SASS
(nvdisasm on the cubin: from --cuda-tools, the venv of
scripts/cuda-tools-requirements.txt (PyPI's nvidia-cuda-nvdisasm), or PATH) HMMA instructions; the count of each
is printed. Without nvdisasm the SASS check says so and is skipped (exit
77 once everything else passed).

Exit 77 (ctest's SKIP_RETURN_CODE) with the reason when there is nothing to
assemble with (no ptxas) or nothing to compile (the zoo made no artifacts:
a model odt does not take ends on its diagnostic there).
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def find_ptxas():
    for candidate in (shutil.which("ptxas"),
                      os.path.join(os.environ.get("CUDA_HOME", ""), "bin", "ptxas"),
                      "/usr/local/cuda/bin/ptxas"):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_nvdisasm(venv):
    """The cuda-tools venv's nvdisasm (PyPI's nvidia-cuda-nvdisasm), else
    PATH's; None when neither exists."""
    if venv:
        found = sorted(glob.glob(os.path.join(
            venv, "lib", "python3*", "site-packages", "nvidia", "*", "bin", "nvdisasm")))
        if found:
            return found[0]
    return shutil.which("nvdisasm")


PTX_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}


def entry_parameters(ptx):
    """{kernel: [bytes of each .param]} of every .entry in a PTX module."""
    entries = {}
    for match in re.finditer(r"^\.visible \.entry (\w+)\(([^)]*)\)", ptx, flags=re.M):
        sizes = re.findall(r"\.param\s+\.[busf](8|16|32|64)\b", match.group(2))
        count = len(re.findall(r"\.param\b", match.group(2)))
        # A parameter of another form (an aggregate) has no size here, and
        # then the list is shorter than the count: no match.
        entries[match.group(1)] = [PTX_BYTES[size] for size in sizes] + \
            [None] * (count - len(sizes))
    return entries


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--odt-compile", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--chips", default="sm_80,sm_87,sm_89,sm_90")
    parser.add_argument("--precision", default="fp32",
                        help="odt-compile --gpu-precision")
    parser.add_argument("--cuda-tools", default=None,
                        help="the venv of scripts/cuda-tools-requirements.txt, "
                             "whose nvdisasm checks the SASS (else PATH's)")
    args = parser.parse_args()
    chips = args.chips.split(",")
    if not os.path.isdir(args.artifacts):
        print("SKIP: no artifacts at %s: the zoo check made none (a model odt "
              "does not take ends on its diagnostic there)" % args.artifacts)
        return SKIP
    work = tempfile.mkdtemp(prefix="check_ptx.")
    try:
        return check(args, chips, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check(args, chips, work):
    out = os.path.join(work, "out")
    made = subprocess.run(
        # --ptxas=off: this script assembles each chip's PTX itself, with
        # -Werror --warn-on-spills (lit gpu/cubin.test covers the cubins).
        [args.odt_compile, args.artifacts, "-o", out, "--quiet", "--no-cache",
         "--gpu-arch=" + ",".join(chips), "--ptxas=off",
         "--gpu-precision=" + args.precision], capture_output=True, text=True)
    if made.returncode != 0:
        print("odt-compile --gpu-arch failed:\n" + made.stderr)
        return 1
    with open(os.path.join(out, "model.json")) as f:
        gpu = json.load(f).get("gpu")
    if gpu is None or gpu.get("chips") != chips:
        print("model.json: expected a GPU build for %s, got %s" % (chips, gpu))
        return 1
    launched = {}
    for kernel in gpu["kernels"]:
        if len(kernel["parameter_bytes"]) != kernel["parameters"]:
            print("model.json: kernel %s lists %d parameter sizes for %d "
                  "parameters" % (kernel["name"], len(kernel["parameter_bytes"]),
                                  kernel["parameters"]))
            return 1
        launched[kernel["name"]] = kernel["parameter_bytes"]
    # The launches' parameters (count and each one's size) against each
    # PTX first: that needs no toolkit.
    for chip in chips:
        with open(os.path.join(out, "model.%s.ptx" % chip)) as f:
            parameters = entry_parameters(f.read())
        if parameters != launched:
            wrong = sorted(name for name in set(parameters) | set(launched)
                           if parameters.get(name) != launched.get(name))
            print("%s: the host's launches disagree with the PTX on %d "
                  "kernels, e.g. %s: launched with parameters of %s bytes, "
                  ".entry has %s" % (chip, len(wrong), wrong[0],
                                     launched.get(wrong[0]), parameters.get(wrong[0])))
            return 1
    # The mma.sync of the precision asked for, in every chip's PTX.
    mma_type = {"tf32": "tf32", "tf32x3": "tf32", "bf16": "bf16"}.get(args.precision)
    mma_counts = {}
    for chip in chips:
        with open(os.path.join(out, "model.%s.ptx" % chip)) as f:
            ptx = f.read()
        mma = len(re.findall(r"mma\.sync\.aligned\.m16n8k(?:8|16)\.row\.col\.f32\.%s\.%s\.f32"
                             % (mma_type, mma_type), ptx)) if mma_type else 0
        if mma_type and mma == 0:
            print("%s: --gpu-precision=%s, but the PTX has no mma.sync on %s" % (
                chip, args.precision, mma_type))
            return 1
        if not mma_type and "mma.sync" in ptx:
            print("%s: an fp32 build has mma.sync in its PTX" % chip)
            return 1
        mma_counts[chip] = mma
    ptxas = find_ptxas()
    if ptxas is None:
        print("SKIP: ptxas not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin):"
              " the CUDA toolkit is missing, so the PTX cannot be assembled "
              "(each kernel's launches pass its .entry's parameters, count and "
              "sizes)")
        return SKIP
    nvdisasm = find_nvdisasm(args.cuda_tools)
    sass_skipped = False
    failed = False
    for chip in chips:
        source = os.path.join(out, "model.%s.ptx" % chip)
        with open(source) as f:
            ptx = f.read()
        parameters = entry_parameters(ptx)
        entries = len(parameters)
        target = re.search(r"^\.target (\S+)", ptx, flags=re.M)
        if target is None or target.group(1) != chip or entries == 0:
            print("%s: PTX for %s has %d kernels" % (
                chip, target.group(1) if target else "no target", entries))
            failed = True
            continue
        result = subprocess.run(
            [ptxas, "-arch=" + chip, "-v", "-Werror", "--warn-on-spills",
             source, "-o", os.path.join(work, chip + ".cubin")],
            capture_output=True, text=True)
        if result.returncode != 0:
            print("%s: ptxas failed:\n%s" % (chip, result.stderr[-4000:]))
            failed = True
            continue
        registers = [int(n) for n in re.findall(r"Used (\d+) registers", result.stderr)]
        shared = [int(n) for n in re.findall(r"(\d+) bytes smem", result.stderr)]
        print("%s: %d kernels assembled (ptxas -Werror --warn-on-spills), "
              "each launched with its .entry's parameters (count and sizes), at most "
              "%d registers, %d bytes of shared memory" % (
                  chip, entries, max(registers or [0]), max(shared or [0])))
        if not mma_type:
            continue
        if nvdisasm is None:
            print("%s: %d mma.sync in the PTX; SASS not checked: nvdisasm not "
                  "found (scripts/setup-peers.sh build/cuda-tools "
                  "scripts/cuda-tools-requirements.txt, then --cuda-tools)" % (
                      chip, mma_counts[chip]))
            sass_skipped = True
            continue
        sass = subprocess.run([nvdisasm, os.path.join(work, chip + ".cubin")],
                              capture_output=True, text=True)
        if sass.returncode != 0:
            print("%s: nvdisasm failed:\n%s" % (chip, sass.stderr[-2000:]))
            failed = True
            continue
        hmma = len(re.findall(r"\bHMMA\.", sass.stdout))
        print("%s: %d mma.sync (%s) in the PTX, %d HMMA in the SASS" % (
            chip, mma_counts[chip], mma_type, hmma))
        if hmma == 0:
            print("%s: the SASS has no HMMA instruction" % chip)
            failed = True
    if failed:
        return 1
    return SKIP if sass_skipped else 0


if __name__ == "__main__":
    sys.exit(main())
