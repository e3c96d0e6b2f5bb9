#!/usr/bin/env python3
"""Tests of scripts/odtc.py, the independent Python reader/writer of ORT's ODTC v2
checkpoints, against ORT's own checkpoints and against flatc's reading of the schema.

Run: /usr/bin/python3 -m unittest discover -s test/python -v   (from the project root)
ORT's files are read in place from ../shared/conformance/ort (never copied).
"""

import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCHEMA = os.path.join(ROOT, "runtime", "schema", "checkpoint.fbs")


def _find_conformance():
    for c in (os.environ.get("ODT_ORT_CONFORMANCE"),
              os.path.join(ROOT, "..", "shared", "conformance", "ort"),
              "/work/shared/conformance/ort"):
        if c and os.path.isdir(c):
            return os.path.normpath(c)
    return None


ORT = _find_conformance()
TAPI = os.path.join(ORT, "training_api") if ORT else None
FLATC = shutil.which("flatc")


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


odtc = _load("odtc", os.path.join(ROOT, "scripts", "odtc.py"))


def flatc_json(path, tmp):
    """flatc's JSON reading of a checkpoint (the schema-driven C++ flatbuffers parser)."""
    subprocess.run([FLATC, "--json", "--raw-binary", "--strict-json", "-o", tmp, SCHEMA,
                    "--", path], check=True, capture_output=True)
    with open(os.path.join(tmp, os.path.basename(path).rsplit(".", 1)[0] + ".json")) as f:
        return json.load(f)


def assert_matches_flatc(tc, ours, js):
    """Every field read by odtc equals flatc's reading."""
    tc.assertEqual(ours["version"], js["version"])
    ms = js.get("module_state", {})
    tc.assertEqual(ours["is_nominal"], ms.get("is_nominal_state", False))
    tc.assertEqual(ours["has_external_data"], ms.get("has_external_data", False))
    expected = ([(t, True) for t in ms.get("requires_grad_params", [])]
                + [(t, False) for t in ms.get("frozen_params", [])])
    tc.assertEqual(len(ours["params"]), len(expected))
    for p, (t, rg) in zip(ours["params"], expected):
        tc.assertEqual(p["name"], t["name"])
        tc.assertEqual(p["requires_grad"], rg)
        tc.assertEqual(odtc.DTYPE_NAMES[p["dtype"]], t["data_type"])
        tc.assertEqual(p["dims"], t.get("dims", []))
        if p["data"] is None:
            tc.assertTrue(ours["is_nominal"])
            tc.assertEqual(t.get("raw_data", []), [])
        elif "external_data_offset" in t:
            tc.assertEqual(p["external_data_offset"], t["external_data_offset"])
        else:
            tc.assertEqual(p["data"].tobytes(), bytes(t["raw_data"]))
    groups = js.get("optimizer_groups", [])
    tc.assertEqual(len(ours["optimizer_groups"]), len(groups))
    for g, jg in zip(ours["optimizer_groups"], groups):
        tc.assertEqual(g["group_name"], jg["group_name"])
        tc.assertEqual(g["step"], jg.get("step", 0))
        tc.assertAlmostEqual(g["initial_learning_rate"], jg.get("initial_learning_rate", 0.0),
                             places=6)
        tc.assertEqual(list(g["states"]), [s["param_name"] for s in jg["optimizer_states"]])
        for s in jg["optimizer_states"]:
            moms = g["states"][s["param_name"]]
            tc.assertEqual(list(moms), [m["name"] for m in s["momentums"]])
            for m in s["momentums"]:
                if "raw_data" in m:
                    tc.assertEqual(moms[m["name"]].tobytes(), bytes(m["raw_data"]))
    bag = js.get("property_bag", {})
    expected_props = {}
    for kind in ("ints", "floats", "strings"):
        for prop in bag.get(kind, []):
            expected_props[prop["name"]] = prop.get("value", 0 if kind != "strings" else None)
    tc.assertEqual(set(ours["properties"]), set(expected_props))
    for k, v in expected_props.items():
        if isinstance(v, float):
            tc.assertAlmostEqual(ours["properties"][k], v, places=5)
        else:
            tc.assertEqual(ours["properties"][k], v)


@unittest.skipIf(ORT is None, "ORT conformance data not found")
class ReadOrtCheckpoints(unittest.TestCase):
    def test_checkpoint_ckpt(self):
        c = odtc.read_checkpoint(os.path.join(TAPI, "checkpoint.ckpt"))
        self.assertEqual(c["version"], 2)
        self.assertFalse(c["is_nominal"])
        self.assertFalse(c["has_external_data"])
        self.assertEqual(c["optimizer_groups"], [])
        self.assertEqual(c["properties"], {})
        shapes = {p["name"]: p["dims"] for p in c["params"]}
        self.assertEqual(shapes, {"fc1.weight": [500, 784], "fc1.bias": [500],
                                  "fc2.weight": [10, 500], "fc2.bias": [10]})
        # ORT sorts tensors by name when saving.
        self.assertEqual([p["name"] for p in c["params"]], sorted(shapes))
        for p in c["params"]:
            self.assertEqual(p["dtype"], 1)
            self.assertTrue(p["requires_grad"])
            self.assertEqual(p["data"].dtype, np.float32)
            self.assertEqual(list(p["data"].shape), p["dims"])
            self.assertTrue(np.all(np.isfinite(p["data"])))
            # PyTorch Linear init: |w| <= 1/sqrt(fan_in)
            fan_in = 784 if p["name"].startswith("fc1") else 500
            self.assertLessEqual(np.max(np.abs(p["data"])), 1 / np.sqrt(fan_in) + 1e-7)

    def test_nominal_checkpoint(self):
        c = odtc.read_checkpoint(os.path.join(TAPI, "nominal_checkpoint"))
        self.assertTrue(c["is_nominal"])
        # ORT's nominal checkpoint is NOT sorted by name: it keeps the model order.
        self.assertEqual([p["name"] for p in c["params"]],
                         ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"])
        for p in c["params"]:
            self.assertIsNone(p["data"])
            self.assertEqual(p["dims"], [])
            self.assertEqual(p["dtype"], 1)
            self.assertTrue(p["requires_grad"])

    def test_ort_format_checkpoint_frozen(self):
        c = odtc.read_checkpoint(os.path.join(TAPI, "ort_format", "checkpoint"))
        got = [(p["name"], p["dims"], p["requires_grad"]) for p in c["params"]]
        self.assertEqual(got, [("fc2.bias", [5], True), ("fc2.weight", [5, 20], True),
                               ("fc1.bias", [20], False), ("fc1.weight", [20, 10], False)])

    def test_custom_ops_checkpoint(self):
        c = odtc.read_checkpoint(os.path.join(TAPI, "custom_ops", "checkpoint"))
        got = [(p["name"], p["dims"]) for p in c["params"]]
        self.assertEqual(got, [("onnx::gemm.bias::2", [10]), ("onnx::gemm.weight::1", [5, 10])])

    @unittest.skipIf(FLATC is None, "flatc not installed")
    def test_cross_check_with_flatc(self):
        tmp = tempfile.mkdtemp()
        try:
            for rel in ("checkpoint.ckpt", "nominal_checkpoint", "ort_format/checkpoint",
                        "custom_ops/checkpoint"):
                with self.subTest(rel):
                    path = os.path.join(TAPI, rel)
                    sub = os.path.join(tmp, rel.replace("/", "_"))
                    os.makedirs(sub)
                    assert_matches_flatc(self, odtc.read_checkpoint(path), flatc_json(path, sub))
        finally:
            shutil.rmtree(tmp)

    @unittest.skipIf(FLATC is None, "flatc not installed")
    def test_rewrite_reproduces_ort_structure(self):
        """Rewriting ORT's checkpoints with odtc gives the same flatc JSON: same
        fields present and absent, same order, same bytes."""
        tmp = tempfile.mkdtemp()
        try:
            for rel in ("ort_format/checkpoint", "custom_ops/checkpoint", "checkpoint.ckpt"):
                with self.subTest(rel):
                    src = os.path.join(TAPI, rel)
                    c = odtc.read_checkpoint(src)
                    out = os.path.join(tmp, rel.replace("/", "_") + ".out")
                    odtc.write_checkpoint(out, [(p["name"], p["data"], p["requires_grad"])
                                                for p in c["params"]])
                    d1, d2 = os.path.join(tmp, "a" + rel[:3]), os.path.join(tmp, "b" + rel[:3])
                    os.makedirs(d1)
                    os.makedirs(d2)
                    self.assertEqual(flatc_json(src, d1), flatc_json(out, d2))
            # Nominal: same content; ORT keeps model order where odtc sorts.
            src = os.path.join(TAPI, "nominal_checkpoint")
            c = odtc.read_checkpoint(src)
            arrays = {"fc1.weight": np.zeros((500, 784), np.float32),
                      "fc1.bias": np.zeros(500, np.float32),
                      "fc2.weight": np.zeros((10, 500), np.float32),
                      "fc2.bias": np.zeros(10, np.float32)}
            out = os.path.join(tmp, "nominal.out")
            odtc.write_checkpoint(out, [(n, a, True) for n, a in arrays.items()], nominal=True)
            d1, d2 = os.path.join(tmp, "n1"), os.path.join(tmp, "n2")
            os.makedirs(d1)
            os.makedirs(d2)
            j1, j2 = flatc_json(src, d1), flatc_json(out, d2)
            key = lambda t: t["name"]  # noqa: E731
            for j in (j1, j2):
                j["module_state"]["requires_grad_params"].sort(key=key)
                j.pop("optimizer_groups", None)  # ORT omits it in nominal checkpoints
            self.assertEqual(j1, j2)
        finally:
            shutil.rmtree(tmp)


class RoundTrip(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def _params(self):
        rng = np.random.default_rng(1)
        return [
            ("w", rng.standard_normal((3, 4)).astype(np.float32), True),
            ("b", rng.standard_normal(4).astype(np.float32), True),
            ("frozen.i64", np.arange(-6, 6, dtype=np.int64).reshape(3, 4), False),
            ("i32", np.array([1, -2, 3], dtype=np.int32), True),
            ("mask", np.array([[True, False], [False, True]]), False),
            ("f64", rng.standard_normal((5, 5)), True),
            ("f16", np.array([0.5, -1.25, 3.0], dtype=np.float16), False),
            ("u8", np.array([0, 255, 7], dtype=np.uint8), False),
            ("i8", np.array([-128, 127, 0], dtype=np.int8), False),
            ("scalar", np.array(2.5, dtype=np.float32), True),
            ("empty", np.zeros((0, 3), dtype=np.float32), True),
        ]

    def _groups(self):
        return [{"group_name": "group0", "step": 7, "initial_learning_rate": 0.01,
                 "states": {"w": {"momentum0": np.full((3, 4), 0.5, np.float32),
                                  "momentum1": np.full((3, 4), 0.25, np.float32)},
                            "b": {"momentum0": np.arange(4, dtype=np.float32),
                                  "momentum1": np.ones(4, np.float32)}}}]

    def _props(self):
        return {"epoch": 3, "best_loss": 0.125, "note": "héllo", "neg": -(2 ** 40)}

    def _check(self, c, params, groups, props):
        self.assertEqual(c["version"], 2)
        trainable = sorted([p for p in params if p[2]], key=lambda p: p[0])
        frozen = sorted([p for p in params if not p[2]], key=lambda p: p[0])
        self.assertEqual([p["name"] for p in c["params"]],
                         [p[0] for p in trainable] + [p[0] for p in frozen])
        by = {p["name"]: p for p in c["params"]}
        for name, arr, rg in params:
            got = by[name]
            self.assertEqual(got["requires_grad"], rg)
            self.assertEqual(got["dtype"], odtc.dtype_to_code(arr.dtype))
            self.assertEqual(got["dims"], list(arr.shape))
            self.assertEqual(got["data"].dtype, arr.dtype)
            np.testing.assert_array_equal(got["data"], arr)
        self.assertEqual(len(c["optimizer_groups"]), len(groups))
        for g, e in zip(c["optimizer_groups"], groups):
            self.assertEqual(g["group_name"], e["group_name"])
            self.assertEqual(g["step"], e["step"])
            self.assertAlmostEqual(g["initial_learning_rate"], e["initial_learning_rate"], 6)
            self.assertEqual(list(g["states"]), sorted(e["states"]))
            for pname, moms in e["states"].items():
                self.assertEqual(list(g["states"][pname]), sorted(moms))
                for mname, arr in moms.items():
                    np.testing.assert_array_equal(g["states"][pname][mname], arr)
        self.assertEqual(c["properties"], props)
        self.assertIsInstance(c["properties"]["epoch"], int)
        self.assertIsInstance(c["properties"]["best_loss"], float)

    def test_round_trip(self):
        path = os.path.join(self.tmp, "ckpt")
        params, groups, props = self._params(), self._groups(), self._props()
        odtc.write_checkpoint(path, params, groups, props)
        with open(path, "rb") as f:
            self.assertEqual(f.read(8)[4:], b"ODTC")
        c = odtc.read_checkpoint(path)
        self.assertFalse(c["has_external_data"])
        self.assertFalse(os.path.exists(path + ".data"))
        self._check(c, params, groups, props)
        # Written twice: byte-identical (deterministic).
        odtc.write_checkpoint(path + "2", params, groups, props)
        with open(path, "rb") as a, open(path + "2", "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_external_data_round_trip(self):
        path = os.path.join(self.tmp, "ckpt")
        params, groups, props = self._params(), self._groups(), self._props()
        odtc.write_checkpoint(path, params, groups, props, external_data=True)
        c = odtc.read_checkpoint(path)
        self.assertTrue(c["has_external_data"])
        self.assertTrue(os.path.exists(path + ".data"))
        self._check(c, params, groups, props)
        ext = {p["name"]: p for p in c["params"] if "external_data_offset" in p}
        # >= 64 bytes go external: w (48 B) stays, f64 (200 B) goes.
        self.assertIn("f64", ext)
        self.assertNotIn("w", ext)
        self.assertEqual(ext["f64"]["external_data_offset"] % 8, 0)
        for p in ext.values():
            self.assertGreaterEqual(p["data"].nbytes, 64)
            self.assertEqual(p["external_data_offset"] % 4, 0)
        os.remove(path + ".data")
        with self.assertRaises(odtc.CheckpointError):
            odtc.read_checkpoint(path)

    def test_nominal(self):
        path = os.path.join(self.tmp, "nominal")
        params = self._params()
        odtc.write_checkpoint(path, params, nominal=True)
        c = odtc.read_checkpoint(path)
        self.assertTrue(c["is_nominal"])
        for p in c["params"]:
            self.assertIsNone(p["data"])
            self.assertEqual(p["dims"], [])
        self.assertEqual(sorted((p["name"], p["dtype"]) for p in c["params"]),
                         sorted((n, odtc.dtype_to_code(a.dtype)) for n, a, _ in params))

    def test_no_optimizer_state_no_properties(self):
        path = os.path.join(self.tmp, "plain")
        odtc.write_checkpoint(path, [("a", np.ones(2, np.float32), True)])
        c = odtc.read_checkpoint(path)
        self.assertEqual(c["optimizer_groups"], [])
        self.assertEqual(c["properties"], {})

    @unittest.skipIf(FLATC is None, "flatc not installed")
    def test_flatc_reads_our_output(self):
        for ext in (False, True):
            with self.subTest(external_data=ext):
                path = os.path.join(self.tmp, "ckpt_%d" % ext)
                odtc.write_checkpoint(path, self._params(), self._groups(), self._props(),
                                      external_data=ext)
                d = os.path.join(self.tmp, "j%d" % ext)
                os.makedirs(d)
                assert_matches_flatc(self, odtc.read_checkpoint(path), flatc_json(path, d))

    def test_errors(self):
        bad = os.path.join(self.tmp, "bad")
        with open(bad, "wb") as f:
            f.write(b"\x08\0\0\0XXXX\0\0\0\0")
        with self.assertRaises(odtc.CheckpointError):
            odtc.read_checkpoint(bad)
        with self.assertRaises(odtc.CheckpointError):
            odtc.write_checkpoint(bad, [("a", np.ones(1, np.float32), True),
                                        ("a", np.ones(1, np.float32), False)])
        with self.assertRaises(odtc.CheckpointError):
            odtc.write_checkpoint(bad, [("a", np.ones(1, np.float32), True)],
                                  properties={"flag": True})

    def test_version_must_be_2(self):
        path = os.path.join(self.tmp, "v")
        odtc.write_checkpoint(path, [("a", np.ones(1, np.float32), True)])
        with open(path, "rb") as f:
            buf = bytearray(f.read())
        # Patch the version field: find the int32 2 that odtc reads as version.
        root = int.from_bytes(buf[0:4], "little")
        vtable = root - int.from_bytes(buf[root:root + 4], "little", signed=True)
        voff = int.from_bytes(buf[vtable + 4:vtable + 6], "little")
        self.assertEqual(int.from_bytes(buf[root + voff:root + voff + 4], "little"), 2)
        buf[root + voff:root + voff + 4] = (3).to_bytes(4, "little")
        with self.assertRaises(odtc.CheckpointError):
            odtc.read_checkpoint_bytes(bytes(buf))


class Cli(unittest.TestCase):
    def test_dump_own(self):
        tmp = tempfile.mkdtemp()
        try:
            path = os.path.join(tmp, "c")
            odtc.write_checkpoint(
                path, [("fc.weight", np.arange(6, dtype=np.float32).reshape(2, 3), True)],
                [{"group_name": "group0", "step": 2, "initial_learning_rate": 0.001,
                  "states": {"fc.weight": {"momentum0": np.zeros((2, 3), np.float32),
                                           "momentum1": np.zeros((2, 3), np.float32)}}}],
                {"epoch": 4})
            r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "odtc.py"),
                                "dump", path], capture_output=True, text=True, check=True)
            self.assertIn("fc.weight", r.stdout)
            self.assertIn("[2,3]", r.stdout)
            self.assertIn("FLOAT", r.stdout)
            self.assertIn("group0: step 2", r.stdout)
            self.assertIn("momentum1", r.stdout)
            self.assertIn("epoch = 4", r.stdout)
            r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "odtc.py"),
                                "dump", os.path.join(tmp, "missing")],
                               capture_output=True, text=True)
            self.assertNotEqual(r.returncode, 0)
        finally:
            shutil.rmtree(tmp)

    @unittest.skipIf(ORT is None, "ORT conformance data not found")
    def test_dump_ort(self):
        buf = io.StringIO()
        odtc.dump(os.path.join(TAPI, "checkpoint.ckpt"), out=buf)
        text = buf.getvalue()
        for s in ("fc1.weight", "[500,784]", "fc2.bias", "[10]", "optimizer state: none"):
            self.assertIn(s, text)


if __name__ == "__main__":
    unittest.main()
