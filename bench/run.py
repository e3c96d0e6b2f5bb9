"""Runs the benchmark zoo through odt and its peers and writes the report.

    build/peers/bin/python bench/run.py --build build [--venv build/peers] \
        [--work /tmp/odt-bench] [--repetitions 20] [--warmup-runs 3] \
        [--rounds 3] [--out docs/benchmarks.md] [--chart docs/benchmarks.png]
        [--only MODEL] [--compile-only]

Per model and batch size: the median time of one training step (forward,
backward, optimizer update, gradient reset) of odt (`odt-run bench`), of
ONNX Runtime 1.19.2 training and of PyTorch eager (bench/peers.py), at 1 and
2 threads, all measured in this one run on this machine, and odt/peer
ratios (below 1: odt is faster). odt-compile's time per model: the wall time
of the whole command cold (an empty --cache-dir) and again from the cache,
with the cold run's peak memory (--compile-only measures only these and
writes them into their section of --out). The chart is a PNG bar chart of the same medians (log scale).
Then matrix products alone (odt-gemm-bench): GFLOP/s of the generated code,
of OpenBLAS and the machine's FMA peak, for 1024^3 and the zoo's shapes; and
convolutions alone (bench/conv_bench.py) against PyTorch and that peak.
Each row's step is also put against that peak: its FLOPs (bench/peers.py
--flops, counted after all timing) over each time, and the share of the
peak odt would need to take half the best peer's time.
"""

import argparse
import json
import math
import os
import platform
import struct
import subprocess
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
# The peers' python (scripts/setup-peers.sh): bench/zoo.py holds PyTorch
# modules and gemm_times writes ONNX models.
try:
    import zoo  # noqa: E402
except ImportError as error:
    sys.exit("bench: %s; run bench/run.py with the peers' python "
             "(build/peers/bin/python, made by scripts/setup-peers.sh)" % error)

THREADS = (1, 2)
# Matrix products timed alone (odt-gemm-bench): (M, N, K, A transposed):
# 1024^3, then the zoo's largest: the MLP's first two layers at batch 256,
# the transformer's FFN and QKV projections at batch 8 x sequence 128, and
# the weight gradient of its second FFN layer (hidden^T x output gradient,
# summed over the 1024 tokens).
GEMM_SHAPES = ((1024, 1024, 1024, False), (256, 512, 784, False),
               (256, 512, 512, False), (1024, 512, 128, False),
               (1024, 384, 128, False), (512, 128, 1024, True))


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit("bench: %s failed:\n%s%s" % (" ".join(command), result.stdout,
                                              result.stderr))
    return result.stdout


def artifacts_dir(work, name):
    """ORT's artifacts for the first models, odt's generate-artifacts output
    for the real zoo's."""
    folder = os.path.join(work, name)
    return os.path.join(folder, "odt") if name in zoo.REAL_ZOO else folder


def odt_times(build, work, name, batch, threads, args):
    folder = os.path.join(work, name)
    out = run([os.path.join(build, "bin", "odt-run"), "bench", "--threads", str(threads),
               os.path.join(work, name + ".compiled"),
               "--checkpoint", os.path.join(artifacts_dir(work, name), "checkpoint"),
               "--input", "input=%s/input_b%d.npy" % (folder, batch),
               "--input", "labels=%s/labels_b%d.npy" % (folder, batch),
               "--warmup-runs", str(args.warmup_runs),
               "--repetitions", str(args.repetitions), "--json"])
    return {line["bench"]: line for line in map(json.loads, out.splitlines())}


COMPILE_RUNS = 3
COMPILE_TIMES_BEGIN = "<!-- compile-times: bench/run.py -->"
COMPILE_TIMES_END = "<!-- /compile-times -->"


def compile_times_of(build, work, name):
    """odt-compile's wall time for one model, cold (an empty cache) and then
    from the cache, and the cold run's peak memory (its timing line) and
    phases: medians of COMPILE_RUNS runs, each with a fresh cache folder."""
    import shutil
    import time
    cold, cached, peaks, lines = [], [], [], []
    out = os.path.join(work, name + ".compiled")
    for i in range(COMPILE_RUNS):
        cache = os.path.join(work, "compile-cache-" + name)
        shutil.rmtree(cache, ignore_errors=True)
        for times in (cold, cached):
            start = time.perf_counter()
            log = subprocess.run([os.path.join(build, "bin", "odt-compile"),
                                  artifacts_dir(work, name), "-o", out,
                                  "--cache-dir", cache],
                                 capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if log.returncode != 0:
                sys.exit("bench: odt-compile %s failed:\n%s" % (name, log.stderr))
            done = [l for l in log.stderr.splitlines() if "done in" in l]
            if times is cold:
                if not done or "from the cache" in done[-1]:
                    sys.exit("bench: odt-compile %s: the cold run was not "
                             "compiled:\n%s" % (name, log.stderr))
                lines.append(done[-1].split("done in ", 1)[1])
                peaks.append(int(done[-1].rsplit("peak memory ", 1)[1].split()[0]))
            elif not done or "from the cache" not in done[-1]:
                sys.exit("bench: odt-compile %s: the second run was not served "
                         "from the cache:\n%s" % (name, log.stderr))
        shutil.rmtree(cache, ignore_errors=True)
    return dict(cold_s=middle(cold), cached_s=middle(cached),
                peak_mib=middle(peaks), cold_line=lines[cold.index(sorted(cold)[len(cold) // 2])],
                **model_code_size(out))


LLVM_BIN = "/usr/lib/llvm-22/bin"


def model_code_size(compiled):
    """The compiled model's footprint on a device: the machine code (.text of
    libmodel.so) and the whole libmodel.so stripped (code, constants and the
    model descriptor)."""
    import tempfile
    library = os.path.join(compiled, "libmodel.so")
    sections = subprocess.run([os.path.join(LLVM_BIN, "llvm-size"), "-A", library],
                              capture_output=True, text=True, check=True).stdout
    text = sum(int(line.split()[1]) for line in sections.splitlines()
               if line.startswith(".text"))
    with tempfile.TemporaryDirectory() as tmp:
        stripped = os.path.join(tmp, "libmodel.so")
        subprocess.run([os.path.join(LLVM_BIN, "llvm-strip"), "--strip-all", "-o", stripped,
                        library], check=True)
        size = os.path.getsize(stripped)
    return dict(text_kib=text / 1024.0, stripped_kib=size / 1024.0)


def compile_times_section(names, times):
    lines = [COMPILE_TIMES_BEGIN, "",
             "odt-compile per model on this machine (%d CPUs): wall time of the "
             "whole command, cold (an empty --cache-dir) and again from the "
             "cache, and the cold run's peak resident memory; medians of %d "
             "runs, each with a fresh cache. The cold run's own timing line "
             "gives the phases. The model's size on a device: its machine code "
             "(.text of libmodel.so) and the whole libmodel.so stripped (code, "
             "constants, the model descriptor); the runtime adds libodt.so "
             "(scripts/runtime-size.sh)." % (os.cpu_count(), COMPILE_RUNS), "",
             "| model | cold s | cached s | peak MiB | code KiB | libmodel.so stripped KiB "
             "| phases of the median cold run |",
             "|---|---|---|---|---|---|---|"]
    for n in names:
        t = times[n]
        lines.append("| %s | %.2f | %.3f | %d | %.0f | %.0f | %s |" % (
            n, t["cold_s"], t["cached_s"], t["peak_mib"], t["text_kib"],
            t["stripped_kib"], t["cold_line"]))
    return lines + ["", COMPILE_TIMES_END]


def replace_compile_times(path, section):
    """Puts `section` in place of the compile-time section of the report
    (a report of that section alone where there is none yet)."""
    text = ""
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    if COMPILE_TIMES_BEGIN in text and COMPILE_TIMES_END in text:
        head, rest = text.split(COMPILE_TIMES_BEGIN, 1)
        tail = rest.split(COMPILE_TIMES_END, 1)[1]
        text = head + "\n".join(section) + tail
    elif text:
        text = text.rstrip("\n") + "\n\n" + "\n".join(section) + "\n"
    else:
        text = "\n".join(section) + "\n"
    with open(path, "w") as f:
        f.write(text)


class Peers:
    """bench/peers.py --serve for one model, batch and thread count: both
    peers set up once, each timed on request, right after odt's run."""

    def __init__(self, venv_python, work, name, batch, threads, args):
        self.process = subprocess.Popen(
            [venv_python, os.path.join(ROOT, "bench", "peers.py"), work, name,
             str(batch), str(threads), "--warmup-runs", str(args.warmup_runs),
             "--repetitions", str(args.repetitions), "--serve"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.expect("ready")

    def expect(self, prefix):
        line = self.process.stdout.readline()
        if not line.startswith(prefix):
            self.process.kill()
            sys.exit("bench: peers.py: expected %r, got %r" % (prefix, line))
        return line

    def time(self, peer):
        self.process.stdin.write(peer + "\n")
        self.process.stdin.flush()
        return json.loads(self.expect("{"))

    def close(self):
        self.process.stdin.write("quit\n")
        self.process.stdin.close()
        if self.process.wait() != 0:
            sys.exit("bench: peers.py failed")


def middle(values):
    """The median of an odd count (the upper middle of an even one)."""
    return sorted(values)[len(values) // 2]


def gemm_times(build, work, args):
    """odt-gemm-bench per shape and thread count: generated product, OpenBLAS
    and the FMA peak, measured in one process each, in --rounds rounds (all
    shapes and thread counts in turn, so a slow phase of the shared machine
    hits one round, not one shape); each figure is the median over rounds."""
    import onnx
    from onnx import helper, TensorProto
    shapes = []
    for m, n, k, transpose_a in GEMM_SHAPES:
        folder = os.path.join(work, "gemm_%dx%dx%d%s" % (m, n, k, "_ta" if transpose_a else ""))
        os.makedirs(folder, exist_ok=True)
        node = (helper.make_node("Gemm", ["a", "b"], ["c"], transA=1) if transpose_a
                else helper.make_node("MatMul", ["a", "b"], ["c"]))
        graph = helper.make_graph(
            [node], "gemm",
            [helper.make_tensor_value_info("a", TensorProto.FLOAT,
                                           [k, m] if transpose_a else [m, k]),
             helper.make_tensor_value_info("b", TensorProto.FLOAT, [k, n])],
            [helper.make_tensor_value_info("c", TensorProto.FLOAT, [m, n])])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                  os.path.join(folder, "gemm.onnx"))
        run([os.path.join(build, "bin", "odt-compile"), "--quiet", "--train",
             os.path.join(folder, "gemm.onnx"), "-o", os.path.join(folder, "compiled")])
        shapes.append((m, n, k, transpose_a, folder))
    samples = {}
    for round_index in range(args.rounds):
        for m, n, k, transpose_a, folder in shapes:
            for threads in THREADS:
                out = run([os.path.join(build, "bin", "odt-gemm-bench"),
                           os.path.join(folder, "compiled"), str(m), str(n), str(k),
                           "--threads", str(threads), "--repetitions",
                           str(max(args.repetitions // 2, 5))]
                          + (["--transpose-a"] if transpose_a else []))
                r = json.loads(out.strip().splitlines()[-1])
                samples.setdefault((m, n, k, transpose_a, threads), []).append(r)
                print("bench: gemm %dx%dx%d t%d round %d odt %.1f openblas %s peak %.1f GFLOP/s" % (
                    m, n, k, threads, round_index + 1, r["odt_gflops"],
                    r["openblas_gflops"], r["peak_gflops"]), flush=True)
    rows = []
    for m, n, k, transpose_a, _ in shapes:
        for threads in THREADS:
            rounds = samples[(m, n, k, transpose_a, threads)]
            row = dict(rounds[0])
            for field in ("odt_gflops", "openblas_gflops", "peak_gflops"):
                row[field] = middle([float(r[field]) for r in rounds])
            rows.append(row)
            print("bench: gemm %dx%dx%d t%d median of %d rounds: odt %.1f openblas %.1f "
                  "peak %.1f GFLOP/s" % (m, n, k, threads, len(rounds), row["odt_gflops"],
                                        row["openblas_gflops"], row["peak_gflops"]),
                  flush=True)
    return rows


def limit_section(venv_python, work, rows, gemms):
    """Each row's step against the FMA peak: the step's FLOPs (bench/peers.py
    --flops, counted after every timing, so that no count runs beside one)
    over each time, and the share of the peak odt would need to take half
    the best peer's time."""
    flops = {}
    for r in rows:
        key = (r["name"], r["batch"])
        if key not in flops:
            out = run([venv_python, os.path.join(ROOT, "bench", "peers.py"), work,
                       r["name"], str(r["batch"]), "1", "--flops"])
            flops[key] = json.loads(out.strip().splitlines()[-1])["flops"]
    peaks = {t: middle([g["peak_gflops"] for g in gemms if g["threads"] == t])
             for t in THREADS}
    lines = ["", "## Against the arithmetic limit", "",
             "Each model's training step in floating-point operations "
             "(`bench/peers.py --flops`: PyTorch's FlopCounterMode over one "
             "forward, loss and backward of the same module and batch, 2 per "
             "multiply-add of its matrix products and convolutions, each "
             "convolution gradient counted with its groups; elementwise work, "
             "the loss and the optimizer are not counted) divided by the "
             "medians above, as a share of the FMA peak measured under Matrix "
             "products at the same thread count. odt can take half the best "
             "peer's time only by running at twice the best peer's share of "
             "the peak (the last column): where that is near or above 100%, "
             "no code does it on this machine, and the ratio above 0.5 is the "
             "peer's efficiency, not odt's gap; where it is well below, the "
             "gap is odt's.", "",
             "| model | batch | threads | GFLOP per step | FMA peak GFLOP/s | "
             "odt % of peak | best peer % of peak | odt/best peer | "
             "0.5x needs % of peak |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        gflop = flops[(r["name"], r["batch"])] / 1e9
        peak = peaks[r["threads"]]
        best_ms = min(v for v in (r["ort"], r["torch"], r["compile"]) if v is not None)
        share = lambda ms: 100.0 * gflop / (ms / 1e3) / peak
        lines.append("| %s | %d | %d | %.3f | %.1f | %.0f%% | %.0f%% | %.2f | %s |" % (
            r["name"], r["batch"], r["threads"], gflop, peak, share(r["odt"]),
            share(best_ms), r["best_ratio"],
            ("**%.0f%%**" if r["best_ratio"] > 0.5 else "%.0f%%") % (2 * share(best_ms))))
    return lines


def conv_times(venv_python, work, args):
    """bench/conv_bench.py at each thread count: odt's and PyTorch's
    convolutions alone, one process per thread count."""
    rows = []
    for threads in THREADS:
        out = run([venv_python, os.path.join(ROOT, "bench", "conv_bench.py"),
                   "--bin", os.path.join(args.build, "bin"),
                   "--work", os.path.join(work, "conv"), "--threads", str(threads),
                   "--warmup-runs", str(args.warmup_runs),
                   "--repetitions", str(args.repetitions)])
        for line in out.splitlines():
            if line.startswith("{"):
                rows.append(json.loads(line))
                print("bench: conv %(shape)s t%(threads)d odt %(odt_forward_gflops).1f/"
                      "%(odt_train_gflops).1f torch %(torch_forward_gflops).1f/"
                      "%(torch_train_gflops).1f GFLOP/s (forward/train)" % rows[-1],
                      flush=True)
    return rows


def png_bar_chart(path, groups, series, colors):
    """A bar chart without text: one group of bars per (model, batch), one
    bar per series, heights on a log scale; the report names the colors."""
    width, height, margin = 40 + 90 * len(groups), 300, 20
    pixels = [[(255, 255, 255)] * width for _ in range(height)]
    values = [v for g in groups for v in g[1] if v]
    low, high = math.log10(min(values)) - 0.3, math.log10(max(values)) + 0.1
    for decade in range(math.floor(low), math.ceil(high) + 1):
        y = height - margin - int((decade - low) / (high - low) * (height - 2 * margin))
        if margin <= y < height - margin:
            for x in range(margin, width - margin):
                pixels[y][x] = (220, 220, 220)
    bar = 80 // len(series)
    for gi, (_, bars) in enumerate(groups):
        for si, value in enumerate(bars):
            if not value:
                continue
            top = height - margin - int((math.log10(value) - low) / (high - low) *
                                        (height - 2 * margin))
            x0 = 40 + gi * 90 + si * bar
            for y in range(max(top, 0), height - margin):
                for x in range(x0, x0 + bar - 2):
                    pixels[y][x] = colors[si]
    raw = b"".join(b"\0" + bytes(c for p in row for c in p) for row in pixels)
    chunk = lambda tag, data: (struct.pack(">I", len(data)) + tag + data +
                               struct.pack(">I", zlib.crc32(tag + data)))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" +
                chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--venv")
    parser.add_argument("--work", default="/tmp/odt-bench")
    parser.add_argument("--warmup-runs", type=int, default=3)
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating odt/peer rounds per row (odd)")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    parser.add_argument("--chart", default=os.path.join(ROOT, "docs", "benchmarks.png"))
    parser.add_argument("--only")
    parser.add_argument("--compile-only", action="store_true",
                        help="only odt-compile's times (cold and cached) and "
                        "peak memory, written into their section of --out")
    args = parser.parse_args()
    venv_python = os.path.join(args.venv or os.path.join(args.build, "peers"),
                               "bin", "python")
    names = [n for n in zoo.MODELS if not args.only or n == args.only]
    os.makedirs(args.work, exist_ok=True)
    rows, compile_times, speedups, ort_failures = [], {}, {}, {}
    for name in names:
        run([venv_python, os.path.join(ROOT, "bench", "zoo.py"), args.work, "--only", name])
        if name in zoo.REAL_ZOO:
            folder = os.path.join(args.work, name)
            run([os.path.join(args.build, "bin", "odt-compile"), "generate-artifacts",
                 os.path.join(folder, "forward.onnx"), "-o", artifacts_dir(args.work, name),
                 "--loss", "CrossEntropyLoss", "--quiet"])
        compile_times[name] = compile_times_of(args.build, args.work, name)
        print("bench: %s compile cold %.2f s, cached %.3f s, peak %d MiB"
              % (name, compile_times[name]["cold_s"],
                 compile_times[name]["cached_s"], compile_times[name]["peak_mib"]),
              flush=True)
        if args.compile_only:
            continue
        for batch in zoo.MODELS[name][2]:
            # Rounds alternate odt and its peers, so a noisy spell of this
            # shared machine hits all of them; each figure is the median of
            # the rounds' medians. A round runs every thread count in turn
            # (odt, then its peers right after it: the peers' processes are
            # set up once per thread count and time each peer on request).
            servers = {t: Peers(venv_python, args.work, name, batch, t, args)
                       for t in THREADS}
            rounds = {t: [] for t in THREADS}
            for _ in range(args.rounds):
                for threads in THREADS:
                    odt = odt_times(args.build, args.work, name, batch, threads,
                                    args)["train"]
                    rounds[threads].append((odt, servers[threads].time("ort"),
                                            servers[threads].time("pytorch"),
                                            servers[threads].time("compile")))
            for server in servers.values():
                server.close()
            # ORT's failure (to make or to load the artifacts), for the report.
            failed = os.path.join(args.work, name, "ort_failed.txt")
            if os.path.exists(failed):
                with open(failed) as f:
                    ort_failures[name] = f.read().strip()
            # odt's speedup from threads: each round's 1-thread time over its
            # time with more threads, taken a moment later.
            speedups[(name, batch)] = [
                middle([one[0]["median_ms"] / many[0]["median_ms"]
                        for one, many in zip(rounds[THREADS[0]], rounds[t])])
                for t in THREADS[1:]]
            for threads in THREADS:
                row_rounds = rounds[threads]
                has_ort = row_rounds[0][1]["median_ms"] is not None
                peers = (1, 2, 3) if has_ort else (2, 3)
                medians = [middle([r[i]["median_ms"] for r in row_rounds])
                           if i == 0 or i in peers else None for i in range(4)]
                odt_mib = middle([r[0]["peak_rss_mib"] - r[0]["start_rss_mib"]
                                  for r in row_rounds])
                ort_mib = middle([r[1]["peak_rss_mib"] - r[1]["start_rss_mib"]
                                  for r in row_rounds]) if has_ort else None
                # Ratios pair each round's odt time with its peers' times
                # taken right after it (the same state of the machine), and
                # take the median of those; "best" is the fastest peer of
                # each round.
                ratios = [middle([r[0]["median_ms"] / r[i]["median_ms"]
                                  for r in row_rounds]) if i in peers else None
                          for i in (1, 2, 3)]
                best = middle([r[0]["median_ms"] / min(r[i]["median_ms"] for i in peers)
                               for r in row_rounds])
                rows.append(dict(name=name, batch=batch, threads=threads,
                                 odt=medians[0], ort=medians[1], torch=medians[2],
                                 compile=medians[3], odt_mib=odt_mib, ort_mib=ort_mib,
                                 ort_ratio=ratios[0], torch_ratio=ratios[1],
                                 compile_ratio=ratios[2], best_ratio=best))
                print("bench: %s b%d t%d odt %.3f ort %s pytorch %.3f compile %.3f ms; "
                      "odt/best peer %.2f" % (
                          name, batch, threads, medians[0],
                          "%.3f" % medians[1] if has_ort else "-", medians[2],
                          medians[3], best), flush=True)

    if args.compile_only:
        replace_compile_times(args.out, compile_times_section(names, compile_times))
        print("bench: wrote the compile times into %s" % args.out)
        return

    lines = [
        "# Benchmarks",
        "",
        "Generated by `bench/run.py` (do not edit); one run on one machine, all",
        "figures from that run. Each figure is the median over %d rounds (odt, then"
        % args.rounds,
        "its peers, at each thread count in turn) of the median of %d timed training steps after %d warm-up"
        % (args.repetitions, args.warmup_runs),
        "steps: forward, loss, backward, AdamW update, gradient reset. odt runs",
        "`odt-run bench` (TrainStep + OptimizerStep + LazyResetGrad); ONNX Runtime",
        "1.19.2 training runs the same artifacts (intra-op threads as given);",
        "PyTorch %s (PyPI: MKL, oneDNN) eager runs the same module and initial" % (
            subprocess.run([venv_python, "-c", "import torch; print(torch.__version__)"],
                           capture_output=True, text=True).stdout.strip() or "?"),
        "weights, and torch.compile the same module compiled by Inductor (default",
        "mode; its optimizer step compiled too; compiling happens before the",
        "warm-up) (torch.set_num_threads); odt runs its parallel loops on that many",
        "threads of the session's pool (`--threads`). Ratios are odt / peer:",
        "below 1, odt is faster; each is the median over the rounds of that",
        "round's odt time over the peer's time measured right after it (the",
        "same state of the machine: the peers' process is set up once per row",
        "and times each peer on request as soon as odt's run ends), so it can",
        "differ from the ratio of the medians shown. Medians on this shared",
        "2-vCPU machine move by up to ~1.5x between runs, and within a run the",
        "machine switches between fast and slow spells of a fraction of a",
        "second to seconds: compare within one report.",
        "",
        "Machine: %s, %d CPUs (`%s`)." % (platform.machine(), os.cpu_count() or 0,
                                          platform.platform()),
        "",
        "Command: `build/peers/bin/python bench/run.py --build build --repetitions %d "
        "--warmup-runs %d --rounds %d`" % (args.repetitions, args.warmup_runs,
                                          args.rounds),
        "",
        "| model | batch | threads | odt ms | ORT ms | PyTorch ms | torch.compile ms "
        "| odt/ORT | odt/PyTorch | odt/torch.compile | odt/best peer |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    fmt = lambda value, spec: spec % value if value is not None else "-"
    for r in rows:
        lines.append("| %s | %d | %d | %.3f | %s | %.3f | %.3f | %s | %.2f | %.2f | **%.2f** |" % (
            r["name"], r["batch"], r["threads"], r["odt"], fmt(r["ort"], "%.3f"),
            r["torch"], r["compile"], fmt(r["ort_ratio"], "%.2f"), r["torch_ratio"],
            r["compile_ratio"], r["best_ratio"]))
    if ort_failures:
        lines += ["", "ORT 1.19.2 could not make training artifacts for: " +
                  "; ".join("%s (%s)" % (n, why.replace("|", "/"))
                            for n, why in sorted(ort_failures.items())) +
                  ". odt trains them from its own generate-artifacts."]
    limit_at = len(lines)
    lines += ["", "## Threads", "",
              "odt's training step with %s threads against 1: the median over "
              "the rounds of each round's 1-thread time over its time with "
              "more threads (measured a moment later in the same round)." % (
                  " and ".join(str(t) for t in THREADS[1:])), "",
              "| model | batch | " + " | ".join(
                  "speedup, %d threads" % t for t in THREADS[1:]) + " |",
              "|---|---|" + "---|" * (len(THREADS) - 1)]
    for (name, batch), values in speedups.items():
        lines.append("| %s | %d | %s |" % (
            name, batch, " | ".join("%.2fx" % v for v in values)))
    lines += ["", "## Memory", "",
              "Peak resident memory of the training loop above what the process "
              "held before loading the model and checkpoint (odt-run: a 3 MiB "
              "binary; ORT: Python with numpy, torch and onnxruntime imported), "
              "1 thread, from the same runs.", "",
              "| model | batch | odt MiB | ORT MiB | odt/ORT |", "|---|---|---|---|---|"]
    for r in rows:
        if r["threads"] == 1 and r["ort_mib"] is not None:
            lines.append("| %s | %d | %.1f | %.1f | %.2f |" % (
                r["name"], r["batch"], r["odt_mib"], r["ort_mib"],
                r["odt_mib"] / r["ort_mib"] if r["ort_mib"] > 0 else float("nan")))
    gemms = gemm_times(args.build, args.work, args) if not args.only else []
    if gemms:
        lines += ["", "## Matrix products", "",
                  "`odt-gemm-bench` (bench/gemm_bench.cpp): the code odt generates for "
                  "one MatMul, checked against a double-precision reference, timed "
                  "on the runtime's thread pool; OpenBLAS's cblas_sgemm on the same "
                  "data and thread count; the FMA peak measured by independent "
                  "fused multiply-add chains on each thread. Each figure is the "
                  "median over %d rounds (every shape and thread count in turn) of "
                  "a median of %d products in one process." % (
                      args.rounds, max(args.repetitions // 2, 5)), "",
                  "A^T: A stored [K, M] (Gemm transA, a weight gradient).", "",
                  "| M | N | K | A | threads | odt GFLOP/s | OpenBLAS GFLOP/s | FMA peak | "
                  "odt/peak | odt/OpenBLAS |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in gemms:
            blas = r["openblas_gflops"]
            lines.append("| %d | %d | %d | %s | %d | %.1f | %s | %.1f | %.0f%% | %s |" % (
                r["m"], r["n"], r["k"], "A^T" if r.get("transpose_a") else "A",
                r["threads"], r["odt_gflops"],
                "%.1f" % blas if blas is not None else "n/a", r["peak_gflops"],
                100.0 * r["odt_gflops"] / r["peak_gflops"],
                "%.2f" % (r["odt_gflops"] / blas) if blas else "n/a"))
    if gemms:
        lines[limit_at:limit_at] = limit_section(venv_python, args.work, rows, gemms)
    convs = conv_times(venv_python, args.work, args) if not args.only else []
    if convs:
        peaks = {t: middle([r["peak_gflops"] for r in gemms if r["threads"] == t])
                 for t in THREADS} if gemms else {}
        lines += ["", "## Convolutions", "",
                  "`bench/conv_bench.py`: one convolution (batch %d, padding "
                  "k/2, no bias) after a trainable per-channel scale, with an MSE "
                  "loss. Forward: odt's EvalStep (scale, convolution, loss) and "
                  "PyTorch's forward under no_grad; train: odt's TrainStep "
                  "(forward, loss, the filter and input gradients; no optimizer) "
                  "and PyTorch's forward + backward, counted as 3x the "
                  "convolution's FLOPs. GFLOP/s from the medians of %d runs, one "
                  "round; %% of peak against the FMA peak measured above at the "
                  "same thread count." % (convs[0]["batch"], args.repetitions), "",
                  "| shape | threads | MFLOP | odt forward GFLOP/s | % peak | odt train "
                  "GFLOP/s | % peak | PyTorch forward GFLOP/s | PyTorch train GFLOP/s |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in convs:
            peak = peaks.get(r["threads"])
            pct = lambda v: "%.0f%%" % (100.0 * v / peak) if peak else "-"
            lines.append("| %s | %d | %.0f | %.1f | %s | %.1f | %s | %.1f | %.1f |" % (
                r["shape"], r["threads"], r["mflop"], r["odt_forward_gflops"],
                pct(r["odt_forward_gflops"]), r["odt_train_gflops"],
                pct(r["odt_train_gflops"]), r["torch_forward_gflops"],
                r["torch_train_gflops"]))
    lines += [""] + compile_times_section(names, compile_times)
    lines += ["", "![training step medians, log scale](benchmarks.png)", "",
              "Chart: per model and batch, bars for odt 1 thread (light blue), "
              "odt 2 threads (blue), ORT 1 thread (orange), ORT 2 threads (red), "
              "PyTorch 1 thread (green), PyTorch 2 threads (dark green), "
              "torch.compile 1 thread (light purple), 2 threads (purple); log "
              "scale, grid lines at powers of ten milliseconds.", ""]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    groups = []
    for name in names:
        for batch in zoo.MODELS[name][2]:
            by = {r["threads"]: r for r in rows
                  if r["name"] == name and r["batch"] == batch}
            groups.append(("%s b%d" % (name, batch),
                           [by[t][peer] for peer in ("odt", "ort", "torch", "compile")
                            for t in THREADS]))
    png_bar_chart(args.chart, groups,
                  ["odt1", "odt2", "ort1", "ort2", "pt1", "pt2", "tc1", "tc2"],
                  [(120, 170, 240), (40, 90, 200), (240, 150, 40), (200, 40, 40),
                   (60, 170, 60), (20, 90, 20), (190, 120, 220), (110, 40, 150)])
    print("bench: wrote %s and %s" % (args.out, args.chart))
    return 0


if __name__ == "__main__":
    sys.exit(main())
