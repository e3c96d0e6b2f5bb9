"""Trains one zoo model the way a user would, in odt, PyTorch and ONNX
Runtime 1.19.2, and compares the losses.

    <peers python> zoo/check.py MODEL EXPORTER --bin BUILD/bin --work DIR
        [--steps 8] [--ort] [--time] [--json FILE]
        [--compile-option=OPTION ...]

1. export: the PyTorch module (zoo/models.py, seeded) goes through
   torch.onnx.export with EXPORTER (zoo/export.py) into DIR/forward.onnx;
2. odt: `odt-compile generate-artifacts` (the model's loss, AdamW in
   PyTorch's mode: adam_mode 0, eps 1e-8, weight decay 0.01) then
   `odt-compile`, then `odt-run train` for STEPS steps, each on its own
   batch (a dataset of STEPS batches, `--batch-size`); the parameters odt
   chose must be the module's (wrong_parameters);
3. PyTorch: the same module, loss and torch.optim.AdamW for STEPS steps on
   the same batches: the reference losses;
4. with --ort: ORT's own generate_artifacts on the same forward.onnx (the
   parameters odt chose, its AdamW node set to PyTorch's mode) and ORT's
   training API for STEPS steps: its outcome is recorded, not required;
5. with --time: odt's training step (odt-run bench) and PyTorch's eager
   step, medians of 20 runs after 3 warm-up runs, the same batch.

Prints one JSON record and exits 0 when odt's losses match PyTorch's (the
first 3 steps within 1e-4 relative, every step within 1e-3 relative +
5e-4 absolute); 1 when odt fails or differs (the record says at which stage
and why). Dropout is exported at ratio 0 so that the losses are
deterministic (odt's and PyTorch's random masks cannot agree).

Float32 training can be chaotic: AdamW's first steps move every weight by
about lr whatever the size of its gradient, so gradients that rounding
alone decides (a BatchNorm weight whose gradient nearly cancels) send two
float32 implementations apart. PyTorch is therefore also run in float64
(the exact trajectory): where PyTorch's own float32 run strays from it by
more than the bound at a step, odt must stay within twice that distance of
the float64 losses there instead (the record's "float32_noise" lists
PyTorch's float32-vs-float64 distance per step). A wrong gradient misses by
far more than either.
"""

import argparse
import inspect
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export as zoo_export  # noqa: E402
import models  # noqa: E402

# 1e-4: at 1e-3, PyTorch's own float32 run of the BatchNorm nets strays
# from its float64 run by up to 3e-3 within 8 steps (ResNet-18), more than
# the bound; at 1e-4 by at most 2e-5 (measured on resnet18_cifar and
# mobilenetv2), so the comparison measures odt, not float32 chaos.
LR = 1e-4
BETAS = (0.9, 0.999)
EPS = 1e-8
WEIGHT_DECAY = 0.01
FIRST_STEPS, FIRST_RTOL = 3, 1e-4
ALL_RTOL, ALL_ATOL = 1e-3, 5e-4
ODT_OPTIMIZER_OPTIONS = ["--adam-mode", "0", "--eps", str(EPS),
                         "--weight-decay", str(WEIGHT_DECAY)]


def build_args(name):
    """Build arguments of the numeric variant: Dropout off."""
    params = inspect.signature(models.spec_of(name).build).parameters
    return {"dropout": 0.0} if "dropout" in params else {}


def last_error_line(text, limit=600):
    """The telling part of a tool's stderr: its first 'error:' line with the
    indented lines under it (odt lists every unsupported node that way),
    else its last non-empty line."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if "error" in line.lower():
            detail = [line.strip()]
            for more in lines[i + 1:]:
                if not more.startswith((" ", "\t")):
                    break
                detail.append(more.strip())
            return "; ".join(detail)[:limit]
    return (lines[-1].strip() if lines else "(no message)")[:limit]


def exception_text(error, limit=400):
    """An exception's message on one line; for ONNX Runtime's, the part
    after its source location (the reason, not the C++ signature)."""
    text = " ".join(str(error).split())
    marker = "[ONNXRuntimeError]"
    if marker in text:
        text = text[text.index(marker):]
    # ORT's enforce messages read "<file>:<line> <C++ signature>(<params>)
    # [const] <reason>": keep the status prefix and the reason.
    location = re.search(r"/onnxruntime_src/\S+:\d+ ", text)
    if location:
        depth, end = 0, None
        for i in range(location.end(), len(text)):
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
                if depth == 0:
                    end = i + 1
                    break
        if end is not None:
            reason = text[end:].strip()
            if reason.startswith("const "):
                reason = reason[len("const "):]
            text = (text[:location.start()] + reason).strip()
    return text[:limit]


def run_tool(argv, timeout=900, stderr=None):
    """Runs a tool; returns (ok, stdout, message). A signal is reported as
    such: a crash is never a diagnostic. `stderr`, a list, gets the tool's
    stderr."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "", "timed out after %d s" % timeout
    if stderr is not None:
        stderr.append(proc.stderr)
    if proc.returncode < 0:
        return False, proc.stdout, "CRASH: killed by signal %d: %s" % (
            -proc.returncode, last_error_line(proc.stderr))
    if proc.returncode != 0:
        return False, proc.stdout, last_error_line(proc.stderr)
    return True, proc.stdout, ""


def save_dataset(name, work, inputs, target):
    files = []
    for input_name, value in inputs.items():
        path = os.path.join(work, input_name + ".npy")
        np.save(path, value)
        files.append("%s=%s" % (input_name, path))
    target_name = "labels" if models.spec_of(name).loss == "CrossEntropyLoss" else "target"
    path = os.path.join(work, target_name + ".npy")
    np.save(path, target)
    files.append("%s=%s" % (target_name, path))
    return files


# Training ops ONNX Runtime registers in the ai.onnx domain, which ONNX's
# checker does not know.
ORT_ONNX_DOMAIN_OPS = {"MaxPoolGrad", "AveragePoolGrad"}


def invalid_artifacts(artifacts):
    """Why the trio generate-artifacts wrote is not valid ONNX for the opset
    it declares (onnx.checker with shape inference), or ""."""
    import onnx
    for name in ("training_model", "eval_model", "optimizer_model"):
        model = onnx.load(os.path.join(artifacts, name + ".onnx"),
                          load_external_data=False)
        try:
            onnx.checker.check_model(model, full_check=True)
        except Exception as error:  # noqa: BLE001
            text = str(error).splitlines()[0]
            unknown = re.match(r"No Op registered for (\w+) ", text)
            if unknown and unknown.group(1) in ORT_ONNX_DOMAIN_OPS:
                continue
            return "%s.onnx is not valid ONNX: %s" % (name, text[:300])
    return ""


def wrong_parameters(name, artifacts):
    """Why odt trains values PyTorch does not, or "". A parameter odt chose
    that has a module parameter's name is one; the others (the exporters'
    folded forms: a transposed weight, the rows of a position table that a
    static sequence length reads) must not hold more elements than the
    module's parameters without an initializer of their name. A constant of
    the exporter's own trained by mistake breaks that, and the losses alone
    can miss it (AdamW moves it by about lr per step)."""
    import onnx
    graph = onnx.load(os.path.join(artifacts, "training_model.onnx"),
                      load_external_data=False).graph
    sizes = {i.name: int(np.prod([d.dim_value for d in
                                  i.type.tensor_type.shape.dim],
                                 dtype=np.int64))
             for i in graph.input}
    chosen = parameters_of(artifacts)
    module = {n: p.numel() for n, p in
              models.build(name, **build_args(name)).named_parameters()
              if p.requires_grad}
    derived = [n for n in chosen if n not in module]
    derived_elements = sum(sizes[n] for n in derived)
    unnamed_elements = sum(size for n, size in module.items()
                           if n not in chosen)
    if derived_elements <= unnamed_elements:
        return ""
    return ("odt trains %d elements in parameters that are not the module's "
            "(%s), but only %d elements of the module's parameters have no "
            "initializer of their name" % (derived_elements, ", ".join(derived),
                                           unnamed_elements))


def odt_train(args, spec, work, batch_files, record):
    artifacts = os.path.join(work, "artifacts")
    compiled = os.path.join(work, "compiled")
    for folder in (artifacts, compiled):
        shutil.rmtree(folder, ignore_errors=True)
    compile_start = time.perf_counter()
    said = []
    ok, out, message = run_tool(
        [os.path.join(args.bin, "odt-compile"), "generate-artifacts",
         os.path.join(work, "forward.onnx"), "-o", artifacts,
         "--loss", spec.loss] + ODT_OPTIMIZER_OPTIONS + spec.options,
        stderr=said)
    if not ok:
        record["odt"] = {"stage": "generate-artifacts", "error": message}
        return None
    note = spec.expect_note.get(args.exporter)
    if note and note not in "".join(said):
        record["odt"] = {"stage": "artifacts",
                         "error": "generate-artifacts did not say: " + note}
        return None
    message = invalid_artifacts(artifacts) or wrong_parameters(
        args.model, artifacts)
    if message:
        record["odt"] = {"stage": "artifacts", "error": message}
        return None
    ok, out, message = run_tool(
        [os.path.join(args.bin, "odt-compile"), artifacts, "-o", compiled,
         "--verify-each"] + args.compile_option)
    if not ok:
        record["odt"] = {"stage": "compile", "error": message}
        return None
    record["odt_compile_s"] = round(time.perf_counter() - compile_start, 2)
    inputs = sum((["--input", f] for f in batch_files), [])
    ok, out, message = run_tool(
        [os.path.join(args.bin, "odt-run"), "train", compiled, "--checkpoint",
         os.path.join(artifacts, "checkpoint"), "--steps", str(args.steps),
         "--batch-size", str(spec.batch), "--lr", repr(LR), "--json"] + inputs)
    if not ok:
        record["odt"] = {"stage": "train", "error": message}
        return None
    losses = [json.loads(line)["loss"] for line in out.splitlines()
              if line.startswith("{")]
    if args.time:
        # One batch: odt-run bench times the same inputs every step.
        first = [f.replace(".npy", ".b0.npy") for f in batch_files]
        for whole, part in zip(batch_files, first):
            value = np.load(whole.split("=", 1)[1])
            np.save(part.split("=", 1)[1], value[:spec.batch])
        ok, out, message = run_tool(
            [os.path.join(args.bin, "odt-run"), "bench", compiled,
             "--checkpoint", os.path.join(artifacts, "checkpoint"),
             "--warmup-runs", "3", "--repetitions", "20", "--json"]
            + sum((["--input", f] for f in first), []))
        if ok:
            for line in out.splitlines():
                if line.startswith("{"):
                    timing = json.loads(line)
                    if timing.get("bench") == "train":
                        record["odt_step_ms"] = timing["median_ms"]
    return losses


def pytorch_train(name, inputs, target, steps, batch, timed,
                  dtype=torch.float32):
    """PyTorch's losses over `steps` steps (step i on rows [i*batch,
    (i+1)*batch) of the dataset), and its median step time on the first
    batch."""
    model = models.build(name, **build_args(name)).to(dtype)
    loss_fn = models.torch_loss(name)
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, betas=BETAS,
                                  eps=EPS, weight_decay=WEIGHT_DECAY)

    def tensor(value):
        t = torch.from_numpy(value)
        return t.to(dtype) if t.is_floating_point() else t

    args = [tensor(value) for value in inputs.values()]
    target = tensor(target)

    def step(i):
        rows = slice(i * batch, (i + 1) * batch)
        loss = loss_fn(model(*[a[rows] for a in args]), target[rows])
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss.item()

    losses = [step(i) for i in range(steps)]
    median = None
    if timed:
        for _ in range(3):
            step(0)
        samples = []
        for _ in range(20):
            start = time.perf_counter()
            step(0)
            samples.append(time.perf_counter() - start)
        median = statistics.median(samples) * 1e3
    return losses, median


def ort_train(args, spec, work, batch_files, parameters, record):
    """ORT 1.19.2 on the same forward model: its own generate_artifacts and
    training API. Returns its losses or None (the reason in the record)."""
    try:
        import onnx
        from onnxruntime.training import artifacts
        from onnxruntime.training.api import CheckpointState, Module, Optimizer
    except Exception as error:  # noqa: BLE001
        record["ort"] = {"stage": "import", "error": exception_text(error)}
        return None
    folder = os.path.join(work, "ort")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    loss = {"CrossEntropyLoss": artifacts.LossType.CrossEntropyLoss,
            "BCEWithLogitsLoss": artifacts.LossType.BCEWithLogitsLoss,
            "MSELoss": artifacts.LossType.MSELoss}[spec.loss]
    try:
        model = onnx.load(os.path.join(work, "forward.onnx"))
        artifacts.generate_artifacts(
            model, requires_grad=parameters, frozen_params=[], loss=loss,
            optimizer=artifacts.OptimType.AdamW, artifact_directory=folder)
        # PyTorch's AdamW, as odt was given.
        opt_path = os.path.join(folder, "optimizer_model.onnx")
        opt = onnx.load(opt_path)
        for node in opt.graph.node:
            if node.op_type == "AdamWOptimizer":
                del node.attribute[:]
                node.attribute.extend([
                    onnx.helper.make_attribute("alpha", BETAS[0]),
                    onnx.helper.make_attribute("beta", BETAS[1]),
                    onnx.helper.make_attribute("epsilon", EPS),
                    onnx.helper.make_attribute("weight_decay", WEIGHT_DECAY),
                    onnx.helper.make_attribute("adam_mode", 0),
                    onnx.helper.make_attribute("correct_bias", 1)])
        onnx.save(opt, opt_path)
    except Exception as error:  # noqa: BLE001
        record["ort"] = {"stage": "generate_artifacts",
                         "error": exception_text(error)}
        return None
    try:
        state = CheckpointState.load_checkpoint(os.path.join(folder, "checkpoint"))
        module = Module(os.path.join(folder, "training_model.onnx"), state,
                        os.path.join(folder, "eval_model.onnx"))
        optimizer = Optimizer(os.path.join(folder, "optimizer_model.onnx"), module)
        optimizer.set_learning_rate(LR)
        feeds = [np.load(f.split("=", 1)[1]) for f in batch_files]
        module.train()
        losses = []
        for i in range(args.steps):
            rows = slice(i * spec.batch, (i + 1) * spec.batch)
            result = module(*[f[rows] for f in feeds])
            value = result[0] if isinstance(result, (list, tuple)) else result
            losses.append(float(np.asarray(value)))
            optimizer.step()
            module.lazy_reset_grad()
        return losses
    except Exception as error:  # noqa: BLE001
        record["ort"] = {"stage": "train", "error": exception_text(error)}
        return None


def bound(step, value):
    """The allowed distance from PyTorch's loss at 0-based `step`."""
    if step < FIRST_STEPS:
        return FIRST_RTOL * abs(value)
    return ALL_RTOL * abs(value) + ALL_ATOL


def compare(losses, reference, exact):
    """(ok, worst relative error against `reference` (PyTorch float32), the
    first failing step or None, the steps judged against `exact` (float64)
    because float32 PyTorch strays from it by more than the bound there)."""
    if losses is None or len(losses) != len(reference):
        return False, None, 0, []
    worst, chaotic = 0.0, []
    for i, (got, want, truth) in enumerate(zip(losses, reference, exact)):
        if got is None or not np.isfinite(got):
            return False, None, i + 1, chaotic
        relative = abs(got - want) / max(abs(want), 1e-30)
        worst = max(worst, relative)
        if abs(got - want) <= bound(i, want):
            continue
        noise = abs(want - truth)
        if noise > bound(i, want) and abs(got - truth) <= 2 * noise:
            chaotic.append(i + 1)
            continue
        return False, worst, i + 1, chaotic
    return True, worst, None, chaotic


def parameters_of(artifacts_dir):
    """The trainable parameters odt chose: the training model's inputs that
    have an accumulation buffer."""
    import onnx
    graph = onnx.load(os.path.join(artifacts_dir, "training_model.onnx"),
                      load_external_data=False).graph
    names = [i.name for i in graph.input]
    return [n for n in names if n + "_grad.accumulation.buffer" in names]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", choices=models.names())
    parser.add_argument("exporter", choices=zoo_export.EXPORTERS)
    parser.add_argument("--bin", required=True, help="odt's build/bin")
    parser.add_argument("--work", required=True)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--ort", action="store_true")
    parser.add_argument("--time", action="store_true")
    parser.add_argument("--threads", type=int, default=0,
                        help="PyTorch's threads for --time (default: its own)")
    parser.add_argument("--json", help="also write the record here")
    parser.add_argument("--compile-option", action="append", default=[],
                        help="an extra odt-compile option for the training "
                             "build (e.g. --gpu-loops-on-cpu)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    name, spec = args.model, models.spec_of(args.model)
    os.makedirs(args.work, exist_ok=True)
    record = {"model": name, "exporter": args.exporter, "about": spec.about}
    try:
        zoo_export.export(name, args.exporter,
                          os.path.join(args.work, "forward.onnx"),
                          **build_args(name))
    except Exception as error:  # noqa: BLE001
        record["export"] = exception_text(error)
        print(json.dumps(record))
        return 1
    inputs, target = models.data(name, spec.batch * args.steps)
    batch_files = save_dataset(name, args.work, inputs, target)
    reference, torch_ms = pytorch_train(name, inputs, target, args.steps,
                                        spec.batch, args.time)
    exact, _ = pytorch_train(name, inputs, target, args.steps, spec.batch,
                             False, dtype=torch.float64)
    record["pytorch_losses"] = reference
    record["float32_noise"] = [abs(a - b) / abs(b) for a, b in zip(reference, exact)]
    if torch_ms is not None:
        record["pytorch_step_ms"] = torch_ms

    losses = odt_train(args, spec, args.work, batch_files, record)
    if losses is not None:
        ok, worst, step, chaotic = compare(losses, reference, exact)
        record["odt"] = {"stage": "trains" if ok else "differs",
                         "losses": losses, "worst_rel": worst,
                         "float64_steps": chaotic}
        if not ok:
            record["odt"]["error"] = "loss differs from PyTorch's at step %s" % step

    if args.ort:
        artifacts_dir = os.path.join(args.work, "artifacts")
        try:
            parameters = parameters_of(artifacts_dir)
        except Exception:  # noqa: BLE001
            import onnx
            parameters = [t.name for t in onnx.load(
                os.path.join(args.work, "forward.onnx")).graph.initializer
                if t.data_type == 1 and len(t.dims) > 0]
        ort_losses = ort_train(args, spec, args.work, batch_files, parameters,
                               record)
        if ort_losses is not None:
            ok, worst, step, chaotic = compare(ort_losses, reference, exact)
            record["ort"] = {"stage": "trains" if ok else "differs",
                             "losses": ort_losses, "worst_rel": worst,
                             "float64_steps": chaotic}
            if not ok:
                record["ort"]["error"] = ("loss differs from PyTorch's at step %s"
                                          % step)
    text = json.dumps(record)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    outcome = record.get("odt", {})
    if outcome.get("stage") == "trains":
        return 0
    # A model odt cannot take yet passes on its clear diagnostic only.
    error = outcome.get("error", "")
    if spec.expect_error and spec.expect_error in error and \
            not error.startswith("CRASH") and outcome.get("stage") != "differs":
        print("expected diagnostic: %s" % error)
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
