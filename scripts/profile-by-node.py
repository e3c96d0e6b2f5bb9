"""Where a compiled model's training step goes, by the ONNX nodes behind
each task: perf's samples of `odt-run train` grouped by the nodes whose ops
each parallel task (`__odt_par_N`) and serial loop nest (`__odt_loop_N`)
was made from. Identical loop nests share one outlined function (a
transformer's layers): such a task is marked (xN), its N call sites' nodes
listed, and its share is all of them together.

    python3 scripts/profile-by-node.py ARTIFACT_DIR --input NAME=FILE.npy ...
        [--bin build/bin] [--threads 1] [--steps 200] [--top 30]
    python3 scripts/profile-by-node.py ARTIFACT_DIR --list-tasks [--bin DIR]

It compiles ARTIFACT_DIR again (no cache) with
`--mlir-print-ir-after=odt-outline-parallel-loops --mlir-print-debuginfo`,
reads the training entry point's outlined functions and the node names in
their ops' locations (#loc aliases and fused locations resolved), records
`odt-run train --steps N` with `perf record` (cpu-clock; this VM has no
call graphs), and prints each task's share with its nodes, then the shares
summed per node kind (the op type in the node's name, e.g. Conv_Grad,
BatchNormalization). A task whose ops came from several nodes counts for
each of them in the by-kind sums (they can add up to more than 100%).
--list-tasks prints each task of the training step with its nodes and
stops (no perf: what the test suite checks).
Names the merge of entry modules suffixed (`__odt_par_5.1`, an eval-step
copy) are read as their unsuffixed train-step function.
Needs perf (linux-perf) and odt-compile/odt-run from --bin.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile


def outlined_functions(dump):
    """{function name: set of node names} for the training entry point's
    module in an --mlir-print-ir-after dump."""
    sections = dump.split("// -----// IR Dump After")
    train = next((s for s in sections if "func.func @train(" in s), None)
    if train is None:
        sys.exit("profile-by-node: no training entry point in the dump")
    aliases = dict(re.findall(r"^(#loc\d+) = (loc\(.*\))$", train, re.M))

    def names(text):
        # Resolve aliases until none is left (fused locs name others).
        for _ in range(8):
            expanded = re.sub(r"#loc\d+", lambda m: aliases.get(m.group(0), ""), text)
            if expanded == text:
                break
            text = expanded
        return {n for n in re.findall(r'"([^"]+)"\(', text)
                if not n.endswith(".onnx")}

    functions = {}
    for match in re.finditer(
            r"^  func\.func private @(__odt_(?:par|loop)_[0-9.]+)\(.*?^  }",
            train, re.M | re.S):
        functions[match.group(1)] = names(match.group(0))
    # Outlining gives identical loop nests one function (the two layers'
    # ffn products of a transformer): its samples are all its call sites',
    # whose nodes the calls' locations name.
    calls = collections.defaultdict(list)
    for match in re.finditer(r"^    call @(__odt_(?:par|loop)_[0-9.]+)\(.*?(loc\(.*\))$",
                             train, re.M):
        calls[match.group(1)].append(names(match.group(2)))
    for name, sites in calls.items():
        if name in functions and len(sites) > 1:
            for site in sites:
                functions[name] |= site
    return functions, {name: len(sites) for name, sites in calls.items()}


def times(count):
    """' (x2)' for a task called from two places in the step, else ''."""
    return " (x%d)" % count if count > 1 else ""


def node_kind(name):
    """The op type a node name carries: its last path part without a
    trailing number (/features/features.0/Conv -> Conv)."""
    last = name.rstrip("/").split("/")[-1]
    return re.sub(r"[_.]?\d+$", "", last) or last


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("artifacts")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--list-tasks", action="store_true")
    parser.add_argument("--bin", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "bin"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        compiled = os.path.join(work, "compiled")
        result = subprocess.run(
            [os.path.join(args.bin, "odt-compile"), args.artifacts, "-o", compiled,
             "--no-cache", "--quiet", "--mlir-print-ir-after=odt-outline-parallel-loops",
             "--mlir-print-debuginfo"], capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit("profile-by-node: odt-compile failed:\n" + result.stderr[-2000:])
        functions, calls = outlined_functions(result.stderr)
        if args.list_tasks:
            for name in sorted(functions, key=lambda f: [int(p) if p.isdigit() else p
                                                         for p in re.split(r"[_.]", f)]):
                print("%s%s: %s" % (name, times(calls.get(name, 1)),
                                    ", ".join(sorted(functions[name])) or "-"))
            return
        if not args.input:
            sys.exit("profile-by-node: --input NAME=FILE.npy is needed to train")
        checkpoint = os.path.join(args.artifacts, "checkpoint")
        record = os.path.join(work, "perf.data")
        command = [os.path.join(args.bin, "odt-run"), "train", compiled,
                   "--checkpoint", checkpoint, "--steps", str(args.steps),
                   "--threads", str(args.threads)]
        for value in args.input:
            command += ["--input", value]
        result = subprocess.run(["perf", "record", "-q", "-o", record, "--"] + command,
                                capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit("profile-by-node: perf record failed:\n" + result.stderr[-2000:])
        report = subprocess.run(["perf", "report", "-i", record, "--no-children",
                                 "--sort", "sym"], capture_output=True, text=True).stdout
    rows, by_kind, other = [], collections.Counter(), 0.0
    for line in report.splitlines():
        match = re.match(r"\s*([0-9.]+)%\s+\[[.k]\]\s+(\S+)", line)
        if not match:
            continue
        share, symbol = float(match.group(1)), match.group(2)
        task = re.search(r"(__odt_(?:par|loop)_\d+)(?:\.\d+)?(?:_task)?$", symbol)
        nodes = functions.get(task.group(1), set()) if task else set()
        symbol += times(calls.get(task.group(1), 1)) if task else ""
        rows.append((share, symbol, nodes))
        if nodes:
            for kind in {node_kind(n) for n in nodes}:
                by_kind[kind] += share
        else:
            other += share
    print("%6s  %-32s %s" % ("share", "symbol", "nodes"))
    for share, symbol, nodes in rows[:args.top]:
        print("%5.1f%%  %-32s %s" % (share, symbol, ", ".join(sorted(nodes)) or "-"))
    print("\nby node kind (a task counts for each kind it holds):")
    for kind, share in by_kind.most_common():
        print("%5.1f%%  %s" % (share, kind))
    print("%5.1f%%  (not a model task: runtime, memset, kernel)" % other)


if __name__ == "__main__":
    main()
