"""The on-device training Python API (onnxruntime.training.api and
.artifacts), tested against ORT's documented behaviour. The same file runs
on odt and on ONNX Runtime 1.19.2 ($ODT_TEST_BACKEND, see backend.py); where
ORT 1.19.2 departs from its own documentation or is lenient with a mistake
odt refuses, the test says so and checks each backend's behaviour.

Data: ORT's own training artifacts (an MNIST MLP 784-500-10; tests read
them from $ODT_TEST_ORT_ARTIFACTS, never copy them)."""

import os
import tempfile
import unittest

import numpy as np

import backend
from backend import OrtValue, api, artifacts

ORT = os.environ.get("ODT_TEST_ORT_ARTIFACTS",
                     os.path.join(os.path.dirname(__file__),
                                  "../../../shared/conformance/ort/training_api"))
PARAMETERS = {"fc1.weight": (500, 784), "fc1.bias": (500,),
              "fc2.weight": (10, 500), "fc2.bias": (10,)}
PARAMETER_COUNT = sum(int(np.prod(s)) for s in PARAMETERS.values())


def path(name):
    return os.path.join(ORT, name)


def batch(seed=0, size=4):
    rng = np.random.default_rng(seed)
    return (rng.random((size, 784), dtype=np.float32),
            rng.integers(0, 10, size).astype(np.int32))


def load_state():
    return api.CheckpointState.load_checkpoint(path("checkpoint.ckpt"))


def make_module(state=None, optimizer=True):
    state = state or load_state()
    module = api.Module(path("training_model.onnx"), state, path("eval_model.onnx"))
    opt = api.Optimizer(path("adamw.onnx"), module) if optimizer else None
    return state, module, opt


class CheckpointStateTest(unittest.TestCase):
    def test_parameters_mapping(self):
        state = load_state()
        params = state.parameters
        self.assertEqual(len(params), 4)
        self.assertEqual(sorted(name for name, _ in params), sorted(PARAMETERS))
        for name, shape in PARAMETERS.items():
            self.assertIn(name, params)
            parameter = params[name]
            self.assertEqual(parameter.name, name)
            self.assertEqual(parameter.data.shape, shape)
            self.assertEqual(parameter.data.dtype, np.float32)
            self.assertTrue(parameter.requires_grad)
            self.assertIn(name, repr(parameter))
        self.assertNotIn("fc3.weight", params)
        with self.assertRaises(KeyError):
            params["fc3.weight"]
        for name, parameter in params:
            self.assertEqual(name, parameter.name)

    def test_parameter_data_can_be_set(self):
        # ORT 1.19.2 crashes (SIGSEGV) when a parameter is set on a state no
        # Module uses yet: the tests make one first. (Parameter.data is a
        # view of the parameter in ORT, a copy in odt: neither is written.)
        state, module, _ = make_module(optimizer=False)  # kept alive (ORT)
        bias = state.parameters["fc2.bias"]
        new = np.arange(10, dtype=np.float32)
        bias.data = new
        np.testing.assert_array_equal(state.parameters["fc2.bias"].data, new)
        state.parameters["fc2.bias"] = new * 2
        np.testing.assert_array_equal(state.parameters["fc2.bias"].data, new * 2)
        with self.assertRaises(KeyError):
            state.parameters["fc3.bias"] = new

    def test_properties_mapping(self):
        state = load_state()
        props = state.properties
        self.assertEqual(len(props), 0)
        props["epoch"] = 7
        props["accuracy"] = 0.875
        props["note"] = "trained on a board"
        self.assertEqual(len(props), 3)
        self.assertEqual(props["epoch"], 7)
        self.assertIsInstance(props["epoch"], int)
        self.assertEqual(props["accuracy"], 0.875)
        self.assertIsInstance(props["accuracy"], float)
        self.assertEqual(props["note"], "trained on a board")
        self.assertIn("epoch", props)
        self.assertNotIn("loss", props)
        with self.assertRaises(KeyError):
            props["loss"]
        self.assertEqual(dict(props), {"epoch": 7, "accuracy": 0.875,
                                       "note": "trained on a board"})
        props["epoch"] = "replaced"
        self.assertEqual(props["epoch"], "replaced")

    def test_save_and_load(self):
        state, module, _ = make_module(optimizer=False)  # ORT: see above
        state.properties["epoch"] = 3
        state.parameters["fc2.bias"] = np.full(10, 0.25, dtype=np.float32)
        with tempfile.TemporaryDirectory() as tmp:
            saved = os.path.join(tmp, "saved.ckpt")
            api.CheckpointState.save_checkpoint(state, saved)
            again = api.CheckpointState.load_checkpoint(saved)
        self.assertEqual(again.properties["epoch"], 3)
        np.testing.assert_array_equal(again.parameters["fc2.bias"].data,
                                      np.full(10, 0.25, dtype=np.float32))
        np.testing.assert_array_equal(again.parameters["fc1.weight"].data,
                                      state.parameters["fc1.weight"].data)


class ModuleTest(unittest.TestCase):
    def test_train_step_returns_the_loss(self):
        _, module, _ = make_module()
        self.assertTrue(module.training)
        self.assertEqual(module.input_names(), ["input-0", "labels"])
        self.assertEqual(len(module.output_names()), 1)
        loss = module(*batch())
        self.assertIsInstance(loss, np.ndarray)
        self.assertEqual(loss.dtype, np.float32)
        self.assertEqual(loss.shape, ())
        self.assertTrue(np.isfinite(loss))

    def test_ortvalue_inputs_give_ortvalue_outputs(self):
        _, module, _ = make_module()
        x, y = batch()
        as_arrays = module(x, y)
        module.lazy_reset_grad()
        as_values = module(OrtValue.ortvalue_from_numpy(x), OrtValue.ortvalue_from_numpy(y))
        self.assertIsInstance(as_values, OrtValue)
        self.assertEqual(float(as_values.numpy()), float(as_arrays))

    def test_train_and_eval_modes(self):
        state, module, _ = make_module()
        x, y = batch()
        self.assertIs(module.eval(), module)
        self.assertFalse(module.training)
        eval_loss = module(x, y)
        self.assertIs(module.train(), module)
        self.assertTrue(module.training)
        train_loss = module(x, y)
        # The same parameters: the eval loss is the training loss.
        self.assertAlmostEqual(float(eval_loss), float(train_loss), places=5)
        self.assertIs(module.train(False), module)
        self.assertFalse(module.training)

    def test_gradients_accumulate_until_lazy_reset(self):
        state, module, _ = make_module()
        x, y = batch()
        module(x, y)
        first = state.parameters["fc1.weight"].grad.copy()
        self.assertTrue(np.any(first != 0))
        module(x, y)
        np.testing.assert_allclose(state.parameters["fc1.weight"].grad, 2 * first,
                                   rtol=1e-5, atol=1e-7)
        module.lazy_reset_grad()
        module(x, y)
        np.testing.assert_allclose(state.parameters["fc1.weight"].grad, first,
                                   rtol=1e-5, atol=1e-7)

    def test_contiguous_parameters_round_trip(self):
        state, module, _ = make_module()
        self.assertEqual(module.get_parameters_size(), PARAMETER_COUNT)
        self.assertEqual(module.get_parameters_size(False), PARAMETER_COUNT)
        buffer = module.get_contiguous_parameters().numpy()
        self.assertEqual(buffer.shape, (PARAMETER_COUNT,))
        total = sum(float(p.data.astype(np.float64).sum()) for _, p in state.parameters)
        self.assertAlmostEqual(float(buffer.astype(np.float64).sum()), total, places=2)
        halved = (buffer * 0.5).astype(np.float32)
        module.copy_buffer_to_parameters(OrtValue.ortvalue_from_numpy(halved)._ortvalue)
        np.testing.assert_array_equal(module.get_contiguous_parameters(True).numpy(), halved)
        bias = state.parameters["fc2.bias"].data
        self.assertTrue(np.any(np.isin(bias, halved)))

    def test_export_model_for_inferencing(self):
        import onnx
        state, module, opt = make_module()
        x, y = batch()
        module(x, y)
        opt.step()
        with tempfile.TemporaryDirectory() as tmp:
            exported = os.path.join(tmp, "inference.onnx")
            module.export_model_for_inferencing(exported, ["output-0"])
            model = onnx.load(exported)
        self.assertEqual([o.name for o in model.graph.output], ["output-0"])
        initializers = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
        for name in PARAMETERS:
            np.testing.assert_array_equal(initializers[name], state.parameters[name].data)
        self.assertNotIn("SoftmaxCrossEntropyLoss", [n.op_type for n in model.graph.node])


class OptimizerTest(unittest.TestCase):
    def test_learning_rate(self):
        _, module, opt = make_module()
        self.assertAlmostEqual(opt.get_learning_rate(), 0.001, places=7)
        opt.set_learning_rate(0.01)
        self.assertAlmostEqual(opt.get_learning_rate(), 0.01, places=7)

    def test_steps_lower_the_loss(self):
        state, module, opt = make_module()
        x, y = batch()
        before = state.parameters["fc2.weight"].data.copy()
        losses = []
        for _ in range(5):
            losses.append(float(module(x, y)))
            opt.step()
            module.lazy_reset_grad()
        self.assertFalse(np.array_equal(state.parameters["fc2.weight"].data, before))
        self.assertLess(losses[-1], losses[0])

    def test_linear_lr_scheduler(self):
        _, module, opt = make_module()
        warmup, total, initial = 2, 4, 0.1
        if backend.NAME == "ort":
            # ORT 1.19.2's Python binding passes warm-up and total to its C++
            # scheduler swapped (docs/ORT-FACTS.md §2); odt does not.
            scheduler = api.LinearLRScheduler(opt, total, warmup, initial)
        else:
            scheduler = api.LinearLRScheduler(opt, warmup, total, initial)
        x, y = batch()
        rates = []
        for _ in range(4):
            module(x, y)
            opt.step()
            scheduler.step()
            module.lazy_reset_grad()
            rates.append(opt.get_learning_rate())
        np.testing.assert_allclose(rates, [0.05, 0.1, 0.05, 0.0], atol=1e-7)


def forward_model():
    """A small forward model (digits-sized MLP) made with onnx's helper."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(1)
    weights = [numpy_helper.from_array(rng.uniform(-0.1, 0.1, s).astype(np.float32), n)
               for n, s in (("w1", (16, 8)), ("b1", (16,)), ("w2", (3, 16)), ("b2", (3,)))]
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], transB=1),
             helper.make_node("Relu", ["h"], ["a"]),
             helper.make_node("Gemm", ["a", "w2", "b2"], ["logits"], transB=1)]
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 3])],
        initializer=weights)
    model = helper.make_model(graph, opset_imports=[helper.make_operatorsetid("", 17)])
    model.ir_version = 8
    return model


class ArtifactsTest(unittest.TestCase):
    def test_generate_artifacts_then_train(self):
        with tempfile.TemporaryDirectory() as tmp:
            artifacts.generate_artifacts(
                forward_model(), requires_grad=["w1", "b1", "w2", "b2"],
                loss=artifacts.LossType.CrossEntropyLoss,
                optimizer=artifacts.OptimType.AdamW, artifact_directory=tmp)
            for name in ("training_model.onnx", "eval_model.onnx", "optimizer_model.onnx",
                         "checkpoint"):
                self.assertTrue(os.path.isfile(os.path.join(tmp, name)), name)
            state = api.CheckpointState.load_checkpoint(os.path.join(tmp, "checkpoint"))
            self.assertEqual(sorted(n for n, _ in state.parameters), ["b1", "b2", "w1", "w2"])
            module = api.Module(os.path.join(tmp, "training_model.onnx"), state,
                                os.path.join(tmp, "eval_model.onnx"))
            opt = api.Optimizer(os.path.join(tmp, "optimizer_model.onnx"), module)
            opt.set_learning_rate(0.05)
            rng = np.random.default_rng(2)
            x = rng.random((12, 8), dtype=np.float32)
            y = (np.arange(12) % 3).astype(np.int64)
            losses = []
            for _ in range(30):
                losses.append(float(module(x, y)))
                opt.step()
                module.lazy_reset_grad()
            self.assertLess(losses[-1], 0.5 * losses[0])


class BadInputTest(unittest.TestCase):
    """Mistakes a user makes from Python: an exception, never a crash."""

    def test_wrong_inputs(self):
        _, module, _ = make_module()
        x, y = batch()
        for bad in ((x.astype(np.float64), y),  # dtype
                    (x[:, :100].copy(), y),      # shape
                    (x,),                        # count
                    (x, y, y)):
            with self.assertRaises(Exception):
                module(*bad)
        # The module still works after the errors.
        self.assertTrue(np.isfinite(module(x, y)))

    def test_missing_files(self):
        with self.assertRaises(Exception):
            api.CheckpointState.load_checkpoint(path("no_such_checkpoint"))
        with self.assertRaises(Exception):
            api.Module(path("no_such_model.onnx"), load_state())
        with tempfile.TemporaryDirectory() as tmp:
            garbage = os.path.join(tmp, "garbage.ckpt")
            with open(garbage, "wb") as f:
                f.write(b"\x00" * 64)
            with self.assertRaises(Exception):
                api.CheckpointState.load_checkpoint(garbage)

    def test_checkpoint_of_another_model(self):
        with tempfile.TemporaryDirectory() as tmp:
            artifacts.generate_artifacts(forward_model(), requires_grad=["w1", "b1", "w2", "b2"],
                                         loss=artifacts.LossType.CrossEntropyLoss,
                                         optimizer=artifacts.OptimType.AdamW,
                                         artifact_directory=tmp)
            other = api.CheckpointState.load_checkpoint(os.path.join(tmp, "checkpoint"))
            with self.assertRaises(Exception):
                module = api.Module(path("training_model.onnx"), other, path("eval_model.onnx"))
                module(*batch())

    def test_optimizer_step_before_any_forward(self):
        state, module, opt = make_module()
        before = state.parameters["fc2.bias"].data.copy()
        if backend.NAME == "odt":
            with self.assertRaisesRegex(Exception, "no TrainStep"):
                opt.step()
        else:
            opt.step()  # ORT 1.19.2 applies zero gradients and counts a step
        np.testing.assert_array_equal(state.parameters["fc2.bias"].data, before)

    def test_wrong_buffer_for_parameters(self):
        _, module, _ = make_module()
        with self.assertRaises(Exception):
            module.copy_buffer_to_parameters(
                OrtValue.ortvalue_from_numpy(np.zeros(10, dtype=np.float32))._ortvalue)


if __name__ == "__main__":
    unittest.main(verbosity=2)
