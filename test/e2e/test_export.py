#!/usr/bin/env python3
"""ExportModelForInferencing on ORT's compiled MLP (models/ort_mlp, compiled with
eval_model.onnx, so its descriptor embeds the export template).

odt_export_helper (test/e2e/export_helper.cpp) loads ORT's checkpoint through the C++
API, optionally trains 3 steps (TrainStep, OptimizerStep, LazyResetGrad on ORT's
input-0/labels), runs EvalStep on a seeded batch of 2 and exports inference models with
outputs ["output-0"] (the logits, an intermediate value of the eval graph) and
["onnx::loss::21273"] (the loss), inline and with external data (threshold 1000 bytes).
The exported models must:
  * pass onnx.checker.check_model (onnx 1.12);
  * be pruned as ORT prunes them (nodes, inputs, outputs, initializers);
  * hold the parameters' current values (bit-exact with what the runtime holds, and
    different from the checkpoint after training);
  * reproduce odt's EvalStep loss and the NumPy reference's logits to 1e-5 relative,
    evaluated by a NumPy interpreter of the exported graph (always) and by
    onnxruntime's InferenceSession (when an onnxruntime is available: importable here,
    or the interpreter named by ODT_ORT_PYTHON; otherwise that test is SKIPPED with the
    reason).
EvalModelWithInitializers does the same for an eval graph with an initializer of its
own stored as external data (compiled at test time): the template holds its data, and
export keeps it (inline, or in the export's .data file).
"""

import json
import os
import subprocess
import sys
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

import e2e_env as env

REL_TOLERANCE = 1e-5
LOGITS = "output-0"
LOSS = "onnx::loss::21273"
PARAMS = ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")
HELPER = os.path.join(env.BIN_DIR, "odt_export_helper")
TRAIN_STEPS = 3

# ONNX Runtime runs in a Python that has it: this one if it imports onnxruntime, else
# ODT_ORT_PYTHON (the venv of scripts/setup-peers.sh; CMake passes its path).

# Runs exported models. argv[1]: a JSON list of [model, feeds.npz, outputs.npz]; prints
# the output names of each model as JSON.
_ORT_RUN_SCRIPT = r"""
import json, sys
import numpy as np
import onnxruntime as ort
names = []
for model, feeds, out in json.loads(sys.argv[1]):
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    outputs = session.run(None, dict(np.load(feeds)))
    np.savez(out, **{"out%d" % i: v for i, v in enumerate(outputs)})
    names.append([o.name for o in session.get_outputs()])
print(json.dumps(names))
"""

# ORT's own ExportModelForInferencing. argv[1]: ORT's training_api folder; argv[2]: a
# JSON list of [path, output names].
_ORT_EXPORT_SCRIPT = r"""
import json, os, sys
from onnxruntime.training import api
tapi = sys.argv[1]
state = api.CheckpointState.load_checkpoint(os.path.join(tapi, "checkpoint.ckpt"))
module = api.Module(os.path.join(tapi, "training_model.onnx"), state,
                    os.path.join(tapi, "eval_model.onnx"))
for path, names in json.loads(sys.argv[2]):
    module.export_model_for_inferencing(path, names)
"""


def _find_ort_python(module):
    """(interpreter, None) for a Python that imports `module`, or (None, why not)."""
    def imports(python):
        probe = subprocess.run([python, "-c", "import " + module], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
        last = probe.stderr.strip().splitlines()[-1:]
        return probe.returncode == 0, " ".join(last)
    ok, why = imports(sys.executable)
    if ok:
        return sys.executable, None
    reason = "%s cannot import %s (%s)" % (sys.executable, module, why)
    python = os.environ.get("ODT_ORT_PYTHON", "")
    if not python:
        return None, reason + "; set ODT_ORT_PYTHON to a Python that can"
    if not os.access(python, os.X_OK):
        return None, "%s; ODT_ORT_PYTHON=%s does not exist (make it with " \
            "scripts/setup-peers.sh)" % (reason, python)
    ok, why = imports(python)
    if ok:
        return python, None
    return None, "%s; nor can ODT_ORT_PYTHON=%s (%s)" % (reason, python, why)


def _run_python(python, *args, timeout=300):
    r = subprocess.run([python, "-c"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout)
    if r.returncode != 0:
        raise AssertionError("%s failed:\n%s" % (python, r.stderr))
    return r.stdout


def ort_run(python, jobs):
    """Runs [(model path, feeds)] in onnxruntime; returns [(output names, arrays)]."""
    spec = []
    for path, feeds in jobs:
        feeds_file, out_file = path + ".feeds.npz", path + ".ort.npz"
        np.savez(feeds_file, **feeds)
        spec.append([path, feeds_file, out_file])
    names = json.loads(_run_python(python, _ORT_RUN_SCRIPT, json.dumps(spec)))
    results = []
    for model_names, (_, _, out_file) in zip(names, spec):
        outs = np.load(out_file)
        results.append((model_names, [outs["out%d" % i] for i in range(len(outs.files))]))
    return results


# ---------------------------------------------------------------------------
# A NumPy interpreter for the exported graph (the ops of ORT's MLP eval graph)
# ---------------------------------------------------------------------------

def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def run_numpy(model, feeds):
    """Evaluates `model` (a loaded ModelProto, external data read) in float64."""
    values = {k: np.asarray(v) for k, v in feeds.items()}
    for init in model.graph.initializer:
        values[init.name] = numpy_helper.to_array(init)
    for node in model.graph.node:
        a = _attrs(node)
        ins = [values[n] if n else None for n in node.input]
        if node.op_type == "Gemm":
            x, w = ins[0].astype(np.float64), ins[1].astype(np.float64)
            x = x.T if a.get("transA", 0) else x
            w = w.T if a.get("transB", 0) else w
            y = a.get("alpha", 1.0) * (x @ w)
            if len(ins) > 2 and ins[2] is not None:
                y = y + a.get("beta", 1.0) * ins[2].astype(np.float64)
            outs = [y]
        elif node.op_type == "Relu":
            outs = [np.maximum(ins[0], 0)]
        elif node.op_type == "SoftmaxCrossEntropyLoss":
            scores = ins[0].astype(np.float64)
            labels = ins[1].astype(np.int64)
            m = scores.max(axis=1, keepdims=True)
            log_prob = scores - m - np.log(np.exp(scores - m).sum(axis=1, keepdims=True))
            ignore = a.get("ignore_index")
            keep = np.ones(labels.shape, bool) if ignore is None else labels != ignore
            nll = -log_prob[np.arange(labels.size), np.where(keep, labels, 0)] * keep
            reduction = a.get("reduction", b"mean")
            reduction = reduction.decode() if isinstance(reduction, bytes) else reduction
            loss = {"mean": lambda: nll.sum() / keep.sum(), "sum": nll.sum,
                    "none": lambda: nll}[reduction]()
            outs = [np.asarray(loss), log_prob]
        else:
            raise NotImplementedError("run_numpy: operator %s" % node.op_type)
        for name, value in zip(node.output, outs):
            if name:
                values[name] = value
    return [values[o.name] for o in model.graph.output]


def rel_error(got, want):
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    return float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30))


class ExportForInferencing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for path in (HELPER, os.path.join(env.ORT_MLP, "libmodel.so"), env.ORT_CHECKPOINT):
            if not os.path.exists(path):
                raise AssertionError("%s is missing (build odt_export_helper and the e2e "
                                     "models first)" % path)
        cls.tmp = env.make_tmpdir(cls, cls.addClassCleanup)
        cls.ort_python, cls.ort_reason = _find_ort_python("onnxruntime")
        cls.ort_training_python, cls.ort_training_reason = _find_ort_python(
            "onnxruntime.training.api")
        ckpt = env.odtc.read_checkpoint(env.ORT_CHECKPOINT)
        cls.checkpoint_params = env.odtc.params_dict(ckpt)
        rng = np.random.default_rng(20250611)
        features = cls.checkpoint_params["fc1.weight"].shape[1]
        classes = cls.checkpoint_params["fc2.bias"].shape[0]
        cls.x = rng.standard_normal((2, features)).astype(np.float32)
        cls.labels = rng.integers(0, classes, 2).astype(np.int32)
        cls.x_file = os.path.join(cls.tmp, "x.npy")
        cls.labels_file = os.path.join(cls.tmp, "labels.npy")
        np.save(cls.x_file, cls.x)
        np.save(cls.labels_file, cls.labels)
        # run name -> {"params", "eval", "files": {export name: path}}
        cls.runs = {"loaded": cls._run("loaded", 0), "trained": cls._run("trained", TRAIN_STEPS)}

    @classmethod
    def _run(cls, name, steps):
        out = os.path.join(cls.tmp, name)
        os.makedirs(out)
        exports = {
            "logits": ([LOGITS], None),
            "loss": ([LOSS], None),
            "both": ([LOSS, LOGITS], None),
            "logits_external": ([LOGITS], 1000),
            "loss_external": ([LOSS], 1000),
        }
        args = [HELPER, env.ORT_MLP, env.ORT_CHECKPOINT, out]
        if steps:
            args += ["--train", os.path.join(env.ORT_DATA, "input-0.npy"),
                     os.path.join(env.ORT_DATA, "labels.npy"), str(steps)]
        args += ["--eval", cls.x_file, cls.labels_file]
        files = {}
        for key, (names, threshold) in exports.items():
            files[key] = os.path.join(out, key + ".onnx")
            args += ["--export", files[key], ",".join(names)]
            if threshold is not None:
                args.append(str(threshold))
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=120)
        if r.returncode != 0:
            raise AssertionError("odt_export_helper failed:\n" + r.stderr)
        result = json.loads(r.stdout)
        for e in result["exports"]:
            if e["error"] is not None:
                raise AssertionError("export %s failed: %s" % (e["file"], e["error"]))
        params = {p: np.load(os.path.join(out, "param_%d.npy" % i))
                  for i, p in enumerate(result["parameters"])}
        evals = {n: np.load(os.path.join(out, "eval_%d.npy" % i))
                 for i, n in enumerate(result["eval_outputs"])}
        return {"params": params, "eval": evals, "files": files}

    def feeds(self, model):
        available = {"input-0": self.x, "labels": self.labels}
        return {i.name: available[i.name] for i in model.graph.input}

    def each_run(self):
        for run_name, run in self.runs.items():
            with self.subTest(run=run_name):
                yield run_name, run

    # -- validity -----------------------------------------------------------

    def test_checker_accepts_every_export(self):
        for _, run in self.each_run():
            for key, path in run["files"].items():
                with self.subTest(export=key):
                    onnx.checker.check_model(path)  # by path: external data checked too
                    onnx.checker.check_model(onnx.load(path), full_check=True)

    # -- ORT's pruning --------------------------------------------------------

    def test_logits_export_is_pruned(self):
        for _, run in self.each_run():
            m = onnx.load(run["files"]["logits"])
            g = m.graph
            self.assertEqual([n.op_type for n in g.node], ["Gemm", "Relu", "Gemm"])
            # labels fed only the loss: dropped; parameters are initializers now.
            self.assertEqual([i.name for i in g.input], ["input-0"])
            self.assertEqual([o.name for o in g.output], [LOGITS])
            self.assertEqual(sorted(t.name for t in g.initializer), sorted(PARAMS))
            out = g.output[0].type.tensor_type
            self.assertEqual(out.elem_type, onnx.TensorProto.FLOAT)
            self.assertEqual([d.dim_param or d.dim_value for d in out.shape.dim],
                             ["input-0_dim0", 10])
            self.assertEqual(sorted(v.name for v in g.value_info),
                             ["/fc1/Gemm_output_0", "/relu/Relu_output_0"])
            # Everything else of the eval model is kept.
            evalm = onnx.load(os.path.join(env.ORT_TAPI, "eval_model.onnx"))
            self.assertEqual(m.ir_version, evalm.ir_version)
            self.assertEqual(m.opset_import, evalm.opset_import)
            self.assertEqual(m.producer_name, evalm.producer_name)
            self.assertEqual(g.name, evalm.graph.name)

    def test_loss_export_keeps_the_loss(self):
        for _, run in self.each_run():
            g = onnx.load(run["files"]["loss"]).graph
            self.assertEqual([n.op_type for n in g.node],
                             ["Gemm", "Relu", "Gemm", "SoftmaxCrossEntropyLoss"])
            self.assertEqual([i.name for i in g.input], ["input-0", "labels"])
            self.assertEqual([o.name for o in g.output], [LOSS])
            both = onnx.load(run["files"]["both"]).graph
            self.assertEqual([o.name for o in both.output], [LOSS, LOGITS])

    # -- current values --------------------------------------------------------

    def test_initializers_hold_current_values(self):
        for run_name, run in self.each_run():
            for key in ("logits", "loss_external"):
                m = onnx.load(run["files"][key])
                got = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
                for p in PARAMS:
                    self.assertEqual(got[p].dtype, np.float32)
                    np.testing.assert_array_equal(got[p], run["params"][p])
                    trained = not np.array_equal(got[p], self.checkpoint_params[p])
                    self.assertEqual(trained, run_name == "trained", p)

    # -- numbers ----------------------------------------------------------------

    def check_numbers(self, run, key, outputs, evaluator):
        """Outputs of export `key` must match odt's EvalStep (loss) and the NumPy
        reference with the run's current parameters (logits, loss)."""
        m = onnx.load(run["files"][key])
        names = [o.name for o in m.graph.output]
        self.assertEqual(len(outputs), len(names))
        want_loss, _ = env.reference.forward_loss(run["params"], self.x, self.labels)
        want_logits = env.reference.logits(run["params"], self.x)
        for name, got in zip(names, outputs):
            if name == LOSS:
                odt = run["eval"][LOSS]
                print("%s %s: loss %s %.9g, odt EvalStep %.9g, reference %.9g"
                      % (key, evaluator, evaluator, float(got), float(odt), want_loss))
                self.assertLessEqual(rel_error(got, odt), REL_TOLERANCE)
                self.assertLessEqual(rel_error(got, want_loss), REL_TOLERANCE)
            else:
                self.assertEqual(np.shape(got), (2, 10))
                err = rel_error(got, want_logits)
                print("%s %s: logits relative error %.3g" % (key, evaluator, err))
                self.assertLessEqual(err, REL_TOLERANCE)

    def test_numpy_evaluation_matches_odt(self):
        for _, run in self.each_run():
            for key, path in run["files"].items():
                with self.subTest(export=key):
                    m = onnx.load(path)
                    self.check_numbers(run, key, run_numpy(m, self.feeds(m)), "numpy")

    def test_onnxruntime_matches_odt(self):
        if self.ort_python is None:
            self.skipTest(self.ort_reason)
        jobs, checks = [], []
        for run_name, run in self.runs.items():
            for key, path in run["files"].items():
                m = onnx.load(path)
                jobs.append((path, self.feeds(m)))
                checks.append((run_name, run, key, m))
        for (run_name, run, key, m), (names, outputs) in zip(checks, ort_run(self.ort_python, jobs)):
            with self.subTest(run=run_name, export=key):
                self.assertEqual(names, [o.name for o in m.graph.output])
                for value in outputs:
                    self.assertEqual(value.dtype, np.float32)
                self.check_numbers(run, key, outputs, "onnxruntime")

    # -- ORT's own export ------------------------------------------------------

    def test_same_model_as_ort_export(self):
        # ORT's Module.export_model_for_inferencing on the same checkpoint: the same
        # inputs, outputs and initializers (byte for byte), the same nodes (ORT also
        # writes attributes at their default values), and the same results.
        if self.ort_training_python is None:
            self.skipTest(self.ort_training_reason)
        run = self.runs["loaded"]
        folder = os.path.join(self.tmp, "ort_export")
        os.makedirs(folder, exist_ok=True)
        spec = [[os.path.join(folder, key + ".onnx"), names]
                for key, names in (("logits", [LOGITS]), ("loss", [LOSS]),
                                   ("both", [LOSS, LOGITS]))]
        _run_python(self.ort_training_python, _ORT_EXPORT_SCRIPT, env.ORT_TAPI,
                    json.dumps(spec))
        jobs = []
        for ort_path, _ in spec:
            key = os.path.basename(ort_path)[:-len(".onnx")]
            with self.subTest(export=key):
                ours, theirs = onnx.load(run["files"][key]), onnx.load(ort_path)
                self.assertEqual(ours.ir_version, theirs.ir_version)
                self.assertEqual(ours.producer_name, theirs.producer_name)
                self.assertEqual(ours.metadata_props, theirs.metadata_props)
                self.assertLessEqual({(o.domain, o.version) for o in ours.opset_import},
                                     {(o.domain, o.version) for o in theirs.opset_import})
                g, h = ours.graph, theirs.graph
                self.assertEqual(g.name, h.name)
                for field in ("input", "output", "initializer"):
                    self.assertEqual([x.SerializeToString() for x in getattr(g, field)],
                                     [x.SerializeToString() for x in getattr(h, field)], field)
                self.assertEqual(len(g.node), len(h.node))
                for a, b in zip(g.node, h.node):
                    self.assertEqual((a.name, a.op_type, a.domain, a.input, a.output),
                                     (b.name, b.op_type, b.domain, b.input, b.output))
                    mine = {x.name: x for x in a.attribute}
                    for attr in b.attribute:
                        if attr.name in mine:
                            self.assertEqual(mine[attr.name], attr)
                        else:  # a default ORT wrote out
                            default = onnx.defs.get_schema(a.op_type, 14, a.domain) \
                                .attributes[attr.name].default_value
                            self.assertEqual(onnx.helper.get_attribute_value(attr),
                                             onnx.helper.get_attribute_value(default))
                jobs += [(run["files"][key], self.feeds(ours)), (ort_path, self.feeds(ours))]
        results = ort_run(self.ort_python or self.ort_training_python, jobs)
        for (ours_names, ours_out), (theirs_names, theirs_out) in zip(results[::2],
                                                                      results[1::2]):
            self.assertEqual(ours_names, theirs_names)
            for a, b in zip(ours_out, theirs_out):
                np.testing.assert_array_equal(a, b)

    # -- external data ----------------------------------------------------------

    def test_external_data(self):
        for _, run in self.each_run():
            path = run["files"]["logits_external"]
            self.assertTrue(os.path.isfile(path + ".data"))
            self.assertFalse(os.path.exists(run["files"]["logits"] + ".data"))
            raw = onnx.load(path, load_external_data=False)
            where = {t.name: (t.data_location, {e.key: e.value for e in t.external_data})
                     for t in raw.graph.initializer}
            # fc2.bias (40 bytes) stays inline, the others go to the .data file.
            self.assertEqual(where["fc2.bias"], (onnx.TensorProto.DEFAULT, {}))
            size = os.path.getsize(path + ".data")
            for p in ("fc1.weight", "fc1.bias", "fc2.weight"):
                location, entries = where[p]
                self.assertEqual(location, onnx.TensorProto.EXTERNAL, p)
                self.assertEqual(entries["location"], "logits_external.onnx.data")
                offset, length = int(entries["offset"]), int(entries["length"])
                self.assertEqual(offset % 4096, 0)
                self.assertEqual(length, run["params"][p].nbytes)
                self.assertLessEqual(offset + length, size)
            self.assertLess(os.path.getsize(path), 4096)
            # Loaded with its data, the same model as the inline export.
            inline = onnx.load(run["files"]["logits"])
            external = onnx.load(path)
            for a, b in zip(inline.graph.initializer, external.graph.initializer):
                self.assertEqual(a.name, b.name)
                np.testing.assert_array_equal(numpy_helper.to_array(a),
                                              numpy_helper.to_array(b))
            np.testing.assert_array_equal(run_numpy(inline, self.feeds(inline))[0],
                                          run_numpy(external, self.feeds(external))[0])

    # -- errors ------------------------------------------------------------------

    def test_errors_are_reported(self):
        out = os.path.join(self.tmp, "errors")
        exported = os.path.join(out, "exported")
        os.makedirs(exported)
        r = subprocess.run(
            [HELPER, env.ORT_MLP, env.ORT_CHECKPOINT, out,
             "--export", os.path.join(exported, "unknown.onnx"), "logits",
             "--export", os.path.join(exported, "none.onnx"), "",
             "--export", os.path.join(exported, "no", "such", "dir.onnx"), LOGITS],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
            timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        errors = [e["error"] for e in json.loads(r.stdout)["exports"]]
        self.assertIn("'logits' is not a value of the eval graph", errors[0])
        self.assertIn("'onnx::loss::21273'", errors[0])  # the graph's outputs are listed
        self.assertIn("no output names given", errors[1])
        self.assertIn("No such file or directory", errors[2])
        self.assertEqual(os.listdir(exported), [])  # nothing written, no temporaries


class EvalModelWithInitializers(unittest.TestCase):
    """An eval graph with an initializer of its own, stored as external data next to
    the eval model: odt-compile reads it into the template (the exported model must
    not need the eval model's files), and export keeps it when a kept node reads it
    (moving it to the export's own .data file above the threshold). ORT's eval graph
    plus a projection: projected = Gemm(output-0, projection[64, 10], transB=1), a
    second graph output."""

    @classmethod
    def setUpClass(cls):
        compiler = os.path.join(env.BIN_DIR, "odt-compile")
        for path in (HELPER, compiler, env.ORT_CHECKPOINT):
            if not os.path.exists(path):
                raise AssertionError("%s is missing" % path)
        cls.tmp = env.make_tmpdir(cls, cls.addClassCleanup)
        cls.ort_python, cls.ort_reason = _find_ort_python("onnxruntime")
        m = onnx.load(os.path.join(env.ORT_TAPI, "eval_model.onnx"))
        rng = np.random.default_rng(7)
        cls.projection = rng.standard_normal((64, 10)).astype(np.float32)
        m.graph.initializer.append(numpy_helper.from_array(cls.projection, "projection"))
        m.graph.node.append(onnx.helper.make_node(
            "Gemm", ["output-0", "projection"], ["projected"], name="/project/Gemm", transB=1))
        m.graph.output.append(onnx.helper.make_tensor_value_info(
            "projected", onnx.TensorProto.FLOAT, ["input-0_dim0", 64]))
        source = os.path.join(cls.tmp, "source")
        os.makedirs(source)
        eval_path = os.path.join(source, "eval_model.onnx")
        onnx.save_model(m, eval_path, save_as_external_data=True,
                        all_tensors_to_one_file=True, location="eval_model.onnx.data",
                        size_threshold=0)
        model_dir = os.path.join(cls.tmp, "model")
        r = subprocess.run([compiler, "--eval", eval_path, "--checkpoint", env.ORT_CHECKPOINT,
                            "-o", model_dir, "--quiet"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
        if r.returncode != 0:
            raise AssertionError("odt-compile failed:\n" + r.stderr)
        # The compiled model must not need the eval model's data any more.
        os.rename(eval_path + ".data", eval_path + ".data.moved")
        cls.x = np.load(os.path.join(env.ORT_DATA, "input-0.npy"))
        out = os.path.join(cls.tmp, "out")
        os.makedirs(out)
        cls.files = {"inline": os.path.join(out, "projected.onnx"),
                     "external": os.path.join(out, "projected_external.onnx")}
        r = subprocess.run([HELPER, model_dir, env.ORT_CHECKPOINT, out,
                            "--eval", os.path.join(env.ORT_DATA, "input-0.npy"),
                            os.path.join(env.ORT_DATA, "labels.npy"),
                            "--export", cls.files["inline"], "projected",
                            "--export", cls.files["external"], "projected", "100"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=120)
        if r.returncode != 0:
            raise AssertionError("odt_export_helper failed:\n" + r.stderr)
        result = json.loads(r.stdout)
        for e in result["exports"]:
            if e["error"] is not None:
                raise AssertionError("export %s failed: %s" % (e["file"], e["error"]))
        cls.odt = np.load(os.path.join(out, "eval_%d.npy"
                                       % result["eval_outputs"].index("projected")))

    def test_structure(self):
        for key, path in self.files.items():
            with self.subTest(export=key):
                onnx.checker.check_model(path)
                m = onnx.load(path)
                self.assertEqual([n.name for n in m.graph.node],
                                 ["/fc1/Gemm", "/relu/Relu", "/fc2/Gemm", "/project/Gemm"])
                self.assertEqual([i.name for i in m.graph.input], ["input-0"])
                inits = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
                self.assertEqual(list(inits), ["projection"] + list(PARAMS))
                np.testing.assert_array_equal(inits["projection"], self.projection)
        raw = onnx.load(self.files["external"], load_external_data=False)
        location = {t.name: t.data_location for t in raw.graph.initializer}
        self.assertEqual(location["projection"], onnx.TensorProto.EXTERNAL)
        self.assertEqual(location["fc2.bias"], onnx.TensorProto.DEFAULT)

    def check(self, outputs, evaluator):
        (got,) = outputs
        err = rel_error(got, self.odt)
        print("projected %s: relative error to odt's EvalStep %.3g" % (evaluator, err))
        self.assertLessEqual(err, REL_TOLERANCE)

    def test_numpy_evaluation_matches_odt(self):
        for key, path in self.files.items():
            with self.subTest(export=key):
                self.check(run_numpy(onnx.load(path), {"input-0": self.x}), "numpy")

    def test_onnxruntime_matches_odt(self):
        if self.ort_python is None:
            self.skipTest(self.ort_reason)
        results = ort_run(self.ort_python,
                          [(p, {"input-0": self.x}) for p in self.files.values()])
        for key, (names, outputs) in zip(self.files, results):
            with self.subTest(export=key):
                self.assertEqual(names, ["projected"])
                self.check(outputs, "onnxruntime")


if __name__ == "__main__":
    unittest.main()
