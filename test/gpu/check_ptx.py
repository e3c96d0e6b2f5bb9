#!/usr/bin/env python3
"""Every GPU kernel of a model assembles for every chip.

odt-compile --emit=ptx makes the model's kernels (one PTX module per chip,
every kernel of the training, eval and optimizer steps in it); ptxas, from
the CUDA toolkit, assembles each for its chip with -Werror and
--warn-on-spills (a spill to local memory is an error). Prints one line per
chip: kernels, the most registers a kernel uses, its shared memory.

Exit 77 (ctest's SKIP_RETURN_CODE) with the reason when there is nothing to
assemble with (no ptxas) or nothing to compile (the zoo made no artifacts:
a model odt does not take ends on its diagnostic there).
"""
import argparse
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


def split_modules(text):
    """{chip: ptx} from odt-compile --emit=ptx's output."""
    modules = {}
    for part in re.split(r"^// odt PTX for ", text, flags=re.M)[1:]:
        header, _, body = part.partition("\n")
        modules[header.split(":")[0]] = body
    return modules


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--odt-compile", required=True)
    parser.add_argument("--artifacts", required=True)
    parser.add_argument("--chips", default="sm_80,sm_87,sm_89,sm_90")
    args = parser.parse_args()
    chips = args.chips.split(",")
    if not os.path.isdir(args.artifacts):
        print("SKIP: no artifacts at %s: the zoo check made none (a model odt "
              "does not take ends on its diagnostic there)" % args.artifacts)
        return SKIP
    ptxas = find_ptxas()
    if ptxas is None:
        print("SKIP: ptxas not found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin):"
              " the CUDA toolkit is missing, so the PTX cannot be assembled")
        return SKIP
    made = subprocess.run(
        [args.odt_compile, args.artifacts, "--emit=ptx", "--quiet",
         "--gpu-arch=" + ",".join(chips)], capture_output=True, text=True)
    if made.returncode != 0:
        print("odt-compile --emit=ptx failed:\n" + made.stderr)
        return 1
    modules = split_modules(made.stdout)
    if sorted(modules) != sorted(chips):
        print("expected PTX for %s, got %s" % (chips, sorted(modules)))
        return 1
    failed = False
    with tempfile.TemporaryDirectory() as work:
        for chip in chips:
            ptx = modules[chip]
            entries = len(re.findall(r"^\.visible \.entry ", ptx, flags=re.M))
            target = re.search(r"^\.target (\S+)", ptx, flags=re.M)
            if target is None or target.group(1) != chip or entries == 0:
                print("%s: PTX for %s has %d kernels" % (
                    chip, target.group(1) if target else "no target", entries))
                failed = True
                continue
            source = os.path.join(work, chip + ".ptx")
            with open(source, "w") as f:
                f.write(ptx)
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
                  "at most %d registers, %d bytes of shared memory" % (
                      chip, entries, max(registers or [0]), max(shared or [0])))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
