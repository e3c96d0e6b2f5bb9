#!/usr/bin/env python3
"""odt on other architectures, for real: the runtime cross-built with the project's
toolchain files (clang-22, Debian's cross libraries), models compiled with
odt-compile --target=<arch>-linux-gnu, and training run under qemu-user.

    run_cross.py prepare --build BUILD --peers-python PY --work WORK
    run_cross.py run --arch aarch64|riscv64 --build BUILD --work WORK

prepare makes the bench zoo's MLP and LeNet-5 (ORT's artifacts, bench/zoo.py) and
trains them on this machine (the reference losses). run builds the runtime for the
architecture (runtime-only: -DODT_BUILD_COMPILER=OFF), compiles ORT's MLP
(conformance/ort/training_api) and the two zoo models for it, trains them under
qemu and checks
  * ORT's golden losses (loss_1.out, loss_2.out) within 1e-5 relative;
  * the zoo models' losses equal to this machine's within 1e-5 relative, step by
    step (different kernels and summation orders, the same arithmetic);
  * libodt.so for the architecture within the 330 KB budget (scripts/runtime-size.sh).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared"))
ORT_TAPI = os.path.join(SHARED, "conformance", "ort", "training_api")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import ort_text_to_npy as ort_text  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
import make_ort_data  # noqa: E402

ZOO = {"mlp": 16, "lenet5": 64}   # model: batch (one of bench/zoo.py's sizes)
ZOO_STEPS = 5
REL_TOLERANCE = 1e-5


def run(cmd, **kwargs):
    print("$ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          **kwargs)
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout[-4000:])
        sys.stdout.write(proc.stderr[-4000:])
        raise SystemExit("FAIL: %s exited with %d" % (os.path.basename(cmd[0]),
                                                      proc.returncode))
    return proc.stdout


def json_losses(text):
    return [json.loads(line)["loss"] for line in text.splitlines() if line.startswith("{")]


def zoo_train_args(folder, batch):
    return ["--checkpoint", os.path.join(folder, "checkpoint"),
            "--input", "input=" + os.path.join(folder, "input_b%d.npy" % batch),
            "--input", "labels=" + os.path.join(folder, "labels_b%d.npy" % batch),
            "--steps", str(ZOO_STEPS), "--json"]


def prepare(args):
    zoo = os.path.join(args.work, "zoo")
    host = os.path.join(args.work, "host")
    os.makedirs(host, exist_ok=True)
    if not os.path.exists(args.peers_python):
        print("SKIPPED: no peers venv at %s (scripts/setup-peers.sh makes it; "
              "scripts/test.sh always does)" % args.peers_python)
        return 0
    for name, batch in ZOO.items():
        folder = os.path.join(zoo, name)
        if not os.path.exists(os.path.join(folder, "labels_b%d.npy" % batch)):
            run([args.peers_python, os.path.join(ROOT, "bench", "zoo.py"), zoo,
                 "--only", name])
        model = os.path.join(host, name)
        run([os.path.join(args.build, "bin", "odt-compile"), folder, "-o", model, "--quiet"])
        out = run([os.path.join(args.build, "bin", "odt-run"), "train", model]
                  + zoo_train_args(folder, batch))
        losses = json_losses(out)
        if len(losses) != ZOO_STEPS:
            raise SystemExit("FAIL: %s: %d losses on this machine" % (name, len(losses)))
        with open(os.path.join(host, name + ".json"), "w") as f:
            json.dump(losses, f)
        print("%s on this machine: %s" % (name, losses))
    return 0


def check_close(what, got, want, rows):
    rel = abs(got - want) / abs(want)
    rows.append((what, got, want, rel))
    return rel <= REL_TOLERANCE


def run_arch(args):
    triple = args.arch + "-linux-gnu"
    work = os.path.join(args.work, args.arch)
    os.makedirs(work, exist_ok=True)
    host = os.path.join(args.work, "host")
    if not all(os.path.exists(os.path.join(host, n + ".json")) for n in ZOO):
        print("SKIPPED: no reference losses from `run_cross.py prepare` (it needs the "
              "peers venv)")
        return 0
    qemu = shutil.which("qemu-" + args.arch)
    sysroot = "/usr/" + triple
    if not qemu or not os.path.isdir(os.path.join(sysroot, "lib")):
        raise SystemExit("FAIL: qemu-%s or %s missing: scripts/setup.sh installs qemu-user "
                         "and g++-%s" % (args.arch, sysroot, triple))

    # The runtime, built for the architecture by the project's own CMake.
    runtime = os.path.join(work, "runtime")
    started = time.time()
    if not os.path.exists(os.path.join(runtime, "build.ninja")):
        run(["cmake", "-G", "Ninja", "-S", ROOT, "-B", runtime, "-DODT_BUILD_COMPILER=OFF",
             "-DCMAKE_TOOLCHAIN_FILE=" + os.path.join(ROOT, "cmake", "toolchains",
                                                      triple + ".cmake")])
    run(["ninja", "-C", runtime])
    print("runtime for %s built in %.1f s" % (triple, time.time() - started))
    odt_run = [qemu, "-L", sysroot, os.path.join(runtime, "bin", "odt-run")]
    compile_ = [os.path.join(args.build, "bin", "odt-compile"), "--quiet",
                "--target=" + triple]

    failures, rows = [], []
    # ORT's MLP and its golden losses.
    model = os.path.join(work, "ort_mlp")
    run(compile_ + ["--train", os.path.join(ORT_TAPI, "training_model.onnx"),
                    "--eval", os.path.join(ORT_TAPI, "eval_model.onnx"),
                    "--optimizer", os.path.join(ORT_TAPI, "adamw.onnx"),
                    "--checkpoint", os.path.join(ORT_TAPI, "checkpoint.ckpt"), "-o", model])
    # ORT's input and labels, made as the e2e tests make them.
    data = os.path.join(work, "ort_data")
    if make_ort_data.main([ORT_TAPI, data]) != 0:
        raise SystemExit("FAIL: test/e2e/make_ort_data.py could not read %s" % ORT_TAPI)
    out = run(odt_run + ["train", model, "--checkpoint", os.path.join(ORT_TAPI, "checkpoint.ckpt"),
                         "--input", "input-0=" + os.path.join(data, "input-0.npy"),
                         "--input", "labels=" + os.path.join(data, "labels.npy"),
                         "--steps", "2", "--lr", "0.001", "--json"])
    losses = json_losses(out)
    for step in (1, 2):
        want = float(ort_text.load_ort_text(os.path.join(ORT_TAPI, "loss_%d.out" % step),
                                            (), "float64"))
        if len(losses) < step or not check_close("ORT MLP step %d vs ORT golden" % step,
                                                 losses[step - 1], want, rows):
            failures.append("ORT MLP step %d: %s vs ORT's %r" % (step, losses, want))

    # The bench zoo's MLP and LeNet-5 against this machine.
    for name, batch in ZOO.items():
        folder = os.path.join(args.work, "zoo", name)
        model = os.path.join(work, name)
        run(compile_ + [folder, "-o", model])
        with open(os.path.join(host, name + ".json")) as f:
            want = json.load(f)
        started = time.time()
        losses = json_losses(run(odt_run + ["train", model] + zoo_train_args(folder, batch)))
        seconds = time.time() - started
        if len(losses) != len(want):
            failures.append("%s: %d steps ran, %d wanted" % (name, len(losses), len(want)))
            continue
        for step, (got, ref) in enumerate(zip(losses, want), 1):
            if not check_close("%s step %d vs x86-64" % (name, step), got, ref, rows):
                failures.append("%s step %d: %r vs %r on this machine" % (name, step, got, ref))
        print("%s under qemu-%s: %d steps in %.1f s" % (name, args.arch, len(losses), seconds))

    print("\n%-32s %-14s %-14s %s" % ("loss", args.arch, "reference", "relative error"))
    for what, got, want, rel in rows:
        print("%-32s %-14.9g %-14.9g %.3g" % (what, got, want, rel))

    size = subprocess.run(["bash", os.path.join(ROOT, "scripts", "runtime-size.sh"),
                           os.path.realpath(os.path.join(runtime, "lib", "libodt.so"))],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(size.stdout, end="")
    if size.returncode != 0:
        failures.append("libodt.so for %s is over its budget" % triple)
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        return 1
    print("PASS: %s trains ORT's MLP to ORT's losses and the zoo models to this "
          "machine's, under qemu" % triple)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("prepare", "run"))
    parser.add_argument("--arch", choices=("aarch64", "riscv64"))
    parser.add_argument("--build", required=True)
    parser.add_argument("--peers-python")
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    if args.command == "prepare":
        return prepare(args)
    if not args.arch:
        parser.error("run needs --arch")
    return run_arch(args)


if __name__ == "__main__":
    sys.exit(main())
