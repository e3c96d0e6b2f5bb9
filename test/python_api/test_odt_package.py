"""What odt's Python package adds to or refuses beyond ORT's API: compiled
folders, odt.compile, odt-compile lookup, devices, odt's own properties,
arrays that are not contiguous, and clear errors for what ORT's API allows
but odt cannot do. Runs on odt only."""

import contextlib
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import odt
from odt.training import api, artifacts

from test_training_api import batch, forward_model, load_state, make_module, path


@contextlib.contextmanager
def _on_the_mock_driver():
    """ODT_CUDA_DRIVER set to the tests' mock libcuda while the block runs."""
    saved = os.environ.get("ODT_CUDA_DRIVER")
    os.environ["ODT_CUDA_DRIVER"] = os.environ["ODT_TEST_MOCK_CUDA"]
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("ODT_CUDA_DRIVER", None)
        else:
            os.environ["ODT_CUDA_DRIVER"] = saved


def _gpu_build(folder):
    """ORT's MLP compiled for sm_90 into `folder`/gpu."""
    return odt.compile(path("training_model.onnx"), path("eval_model.onnx"),
                       path("adamw.onnx"), output_dir=os.path.join(folder, "gpu"),
                       extra_args=["--gpu-arch=sm_90"])


class _MockDriver:
    """The tests' mock libcuda, the same library the runtime loads: device
    memory (host memory it hands out as the device's) and its event log."""

    def __init__(self, library):
        import ctypes
        self.ctypes = ctypes
        self.lib = ctypes.CDLL(library)
        function = ctypes.c_void_p()
        found = ctypes.c_int()
        self.lib.cuGetProcAddress_v2(b"cuMemAlloc", ctypes.byref(function), 12000,
                                     ctypes.c_uint64(0), ctypes.byref(found))
        self.alloc = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_uint64),
                                      ctypes.c_size_t)(function.value)
        self.lib.odtMockCudaLog.restype = ctypes.c_char_p

    def device_copy(self, array):
        address = self.ctypes.c_uint64()
        self.assert_ok(self.alloc(self.ctypes.byref(address), array.nbytes))
        self.ctypes.memmove(address.value, array.ctypes.data, array.nbytes)
        return address.value

    @staticmethod
    def assert_ok(result):
        if result != 0:
            raise RuntimeError("the mock's cuMemAlloc failed: %d" % result)

    def log(self):
        return self.lib.odtMockCudaLog().decode()


class _MockCudaArray:
    """A CUDA array by the DLPack protocol (as torch CUDA tensors and CuPy
    arrays are) over the mock driver's device memory."""

    def __init__(self, mock, array, transposed=False):
        import ctypes

        class Device(ctypes.Structure):
            _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]

        class DataType(ctypes.Structure):
            _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                        ("lanes", ctypes.c_uint16)]

        class Tensor(ctypes.Structure):
            _fields_ = [("data", ctypes.c_void_p), ("device", Device), ("ndim", ctypes.c_int32),
                        ("dtype", DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                        ("strides", ctypes.POINTER(ctypes.c_int64)),
                        ("byte_offset", ctypes.c_uint64)]

        deleter_type = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

        class Managed(ctypes.Structure):
            _fields_ = [("dl_tensor", Tensor), ("manager_ctx", ctypes.c_void_p),
                        ("deleter", deleter_type)]

        self.ctypes = ctypes
        self.shape = (ctypes.c_int64 * array.ndim)(*array.shape)
        strides = array.strides[::-1] if transposed else array.strides
        self.strides = (ctypes.c_int64 * array.ndim)(*[s // array.itemsize for s in strides])
        code = {"f": 2, "i": 0, "u": 1}[array.dtype.kind]  # DLPack's float, int, uint
        self.deleter = deleter_type(lambda _: None)  # the memory is the mock's
        self.managed = Managed()
        tensor = self.managed.dl_tensor
        tensor.data = mock.device_copy(array)
        tensor.device = Device(2, 0)  # kDLCUDA, device 0
        tensor.ndim = array.ndim
        tensor.dtype = DataType(code, array.itemsize * 8, 1)
        tensor.shape = self.shape
        tensor.strides = self.strides
        self.managed.deleter = self.deleter

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, **kwargs):
        new_capsule = self.ctypes.pythonapi.PyCapsule_New
        new_capsule.restype = self.ctypes.py_object
        new_capsule.argtypes = [self.ctypes.c_void_p, self.ctypes.c_char_p,
                                self.ctypes.c_void_p]
        return new_capsule(self.ctypes.addressof(self.managed), b"dltensor", None)


class CompiledFolderTest(unittest.TestCase):
    def test_module_from_a_compiled_folder(self):
        with tempfile.TemporaryDirectory() as tmp:
            folder = odt.compile(path("training_model.onnx"), path("eval_model.onnx"),
                                 path("adamw.onnx"), output_dir=os.path.join(tmp, "m"))
            self.assertTrue(os.path.isfile(os.path.join(folder, "libmodel.so")))
            # With ODT_COMPILE pointing nowhere: no compiler is needed.
            os.environ["ODT_COMPILE"] = "/nonexistent/odt-compile"
            try:
                state = load_state()
                module = api.Module(folder, state)
                opt = api.Optimizer(folder, module)
                x, y = batch()
                loss = module(x, y)
                opt.step()
            finally:
                del os.environ["ODT_COMPILE"]
            _, reference, ref_opt = make_module()
            self.assertEqual(float(loss), float(reference(x, y)))

    def test_missing_compiler_is_a_clear_error(self):
        os.environ["ODT_COMPILE"] = "/nonexistent/odt-compile"
        try:
            _, module, _ = make_module()
            with self.assertRaisesRegex(odt.OdtError, "ODT_COMPILE"):
                module(*batch())
        finally:
            del os.environ["ODT_COMPILE"]

    def test_a_model_odt_compile_rejects(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "training_model.onnx")
            with open(bad, "wb") as f:
                f.write(b"not a protobuf")
            module = api.Module(bad, load_state())
            with self.assertRaisesRegex(odt.OdtError, "odt-compile"):
                module(*batch())


class OdtBehaviourTest(unittest.TestCase):
    def test_devices(self):
        # A CUDA device is opened when the Module is made: here no driver
        # (ODT_CUDA_DRIVER names a missing file), a wrong name, and the
        # tests' mock driver, whose device the CPU-only model cannot use.
        saved = os.environ.get("ODT_CUDA_DRIVER")
        try:
            os.environ["ODT_CUDA_DRIVER"] = "/no/such/dir/libcuda.so.1"
            with self.assertRaisesRegex(odt.OdtError,
                                        "opening cuda:0: could not load the CUDA driver"):
                api.Module(path("training_model.onnx"), load_state(), device="cuda")
            with self.assertRaisesRegex(odt.OdtError, "unknown device 'gpu:1'"):
                api.Module(path("training_model.onnx"), load_state(), device="gpu:1")
            os.environ["ODT_CUDA_DRIVER"] = os.environ["ODT_TEST_MOCK_CUDA"]
            with self.assertRaisesRegex(odt.OdtError,
                                        r"CPU code only, no kernels for .*\(cuda:0, sm_90\)"):
                api.Module(path("training_model.onnx"), load_state(), device="CUDA:0")
        finally:
            if saved is None:
                os.environ.pop("ODT_CUDA_DRIVER", None)
            else:
                os.environ["ODT_CUDA_DRIVER"] = saved
        module = api.Module(path("training_model.onnx"), load_state(), device="cpu:0")
        self.assertEqual(module.input_names(), ["input-0", "labels"])

    def test_a_gpu_build_trains_on_a_cuda_device(self):
        # A GPU build on the tests' mock driver (sm_90): the session's state
        # lives on the device; the mock's kernels compute nothing, so only
        # the path is checked: steps run, parameters and checkpoints come
        # back through the host, and the losses are not compared.
        with tempfile.TemporaryDirectory() as tmp, _on_the_mock_driver():
            folder = _gpu_build(tmp)
            state = load_state()
            module = api.Module(folder, state, device="cuda")
            opt = api.Optimizer(folder, module)
            before = module.get_contiguous_parameters().numpy().copy()
            x, y = batch()
            for _ in range(3):
                module(x, y)
                opt.step()
                module.lazy_reset_grad()
            after = module.get_contiguous_parameters().numpy()
            self.assertEqual(after.shape, before.shape)
            saved_path = os.path.join(tmp, "on_device.ckpt")
            api.CheckpointState.save_checkpoint(state, saved_path)
            self.assertTrue(os.path.getsize(saved_path) > 0)
            with self.assertRaisesRegex(odt.OdtError,
                                        "used by a training session on a device"):
                api.Module(folder, state, device="cuda")

    def test_cuda_arrays_are_read_on_the_device(self):
        # A batch already in the device's memory (what a torch CUDA tensor or
        # a CuPy array gives through DLPack) goes to the session as it is:
        # copied on the device, not through the host. Here the memory is the
        # mock driver's and the array a DLPack producer over it.
        with tempfile.TemporaryDirectory() as tmp, _on_the_mock_driver():
            folder = _gpu_build(tmp)
            mock = _MockDriver(os.environ["ODT_TEST_MOCK_CUDA"])
            x, y = batch()
            on_device = _MockCudaArray(mock, x)
            module = api.Module(folder, load_state(), device="cuda")
            opt = api.Optimizer(folder, module)
            start = len(mock.log())
            for _ in range(3):
                loss = module(on_device, y)
                opt.step()
            self.assertEqual(np.asarray(loss).shape, ())
            self.assertIn("copy on device %d" % x.nbytes, mock.log()[start:])
            self.assertNotIn("copy to device %d" % x.nbytes, mock.log()[start:])
            # An OrtValue made for the device (ORT's way) holds host data,
            # uploaded at each step.
            loss = module(odt.OrtValue.ortvalue_from_numpy(x, "cuda", 0),
                          odt.OrtValue.ortvalue_from_numpy(y, "cuda", 0))
            self.assertEqual(loss.device_name(), "cpu")
            # Labels must come from host memory (the runtime checks them).
            with self.assertRaisesRegex(odt.OdtError, "host memory"):
                module(on_device, _MockCudaArray(mock, y))
            with self.assertRaisesRegex(TypeError, "C-contiguous"):
                module(_MockCudaArray(mock, x, transposed=True), y)
            # A CPU module does not take device memory, nor an OrtValue of
            # another device.
            _, cpu_module, _ = make_module()
            with self.assertRaisesRegex(ValueError, "runs on the CPU"):
                cpu_module(on_device, y)
            with self.assertRaisesRegex(ValueError, "OrtValue for cuda:1"):
                module(odt.OrtValue.ortvalue_from_numpy(x, "cuda", 1), y)
            with self.assertRaisesRegex(ValueError, "'rocm:0'"):
                odt.OrtValue.ortvalue_from_numpy(x, "rocm", 0)

    def test_odt_properties_are_hidden_and_reserved(self):
        state, module, opt = make_module()
        api.LinearLRScheduler(opt, 2, 4, 0.1)  # records odt.lr_scheduler.*
        self.assertEqual(len(state.properties), 0)
        self.assertNotIn("odt.lr_scheduler.warmup_steps", state.properties)
        with self.assertRaisesRegex(odt.OdtError, "reserved"):
            state.properties["odt.mine"] = 1
        with self.assertRaises(TypeError):
            state.properties["flag"] = True
        with self.assertRaises(TypeError):
            state.properties["list"] = [1]

    def test_arrays_that_are_not_contiguous(self):
        _, module, _ = make_module()
        x, y = batch()
        expected = float(module(x, y))
        module.lazy_reset_grad()
        transposed = np.asfortranarray(x)
        self.assertFalse(transposed.flags.c_contiguous)
        self.assertEqual(float(module(transposed, y)), expected)
        with self.assertRaisesRegex(TypeError, "input 1"):
            module(x, [1, 2, 3, 4])

    def test_errors_name_the_input(self):
        _, module, _ = make_module()
        x, y = batch()
        with self.assertRaisesRegex(odt.OdtError, "input-0.*float32.*float64"):
            module(x.astype(np.float64), y)

    def test_generate_artifacts_refuses_what_odt_cannot_do(self):
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(TypeError):
                artifacts.generate_artifacts(forward_model(), loss=object(),
                                             artifact_directory=tmp)
            with self.assertRaises(ValueError):
                artifacts.generate_artifacts(forward_model(), ort_format=True,
                                             artifact_directory=tmp)
            with self.assertRaises(FileNotFoundError):
                artifacts.generate_artifacts(os.path.join(tmp, "none.onnx"),
                                             artifact_directory=tmp)
            # optimizer=None: no optimizer model, as ORT.
            artifacts.generate_artifacts(forward_model(),
                                         loss=artifacts.LossType.CrossEntropyLoss,
                                         artifact_directory=tmp, prefix="p_")
            self.assertTrue(os.path.isfile(os.path.join(tmp, "p_training_model.onnx")))
            self.assertFalse(os.path.exists(os.path.join(tmp, "p_optimizer_model.onnx")))

    def test_session_options_threads(self):
        # ORT's SessionOptions.intra_op_num_threads reaches the session:
        # one thread trains to the same loss; a negative count is refused.
        class Options:
            intra_op_num_threads = 1
        x, y = batch()
        one = api.Module(path("training_model.onnx"), load_state(), path("eval_model.onnx"),
                         session_options=Options())
        _, default, _ = make_module(optimizer=False)
        self.assertEqual(float(one(x, y)), float(default(x, y)))
        Options.intra_op_num_threads = -1
        bad = api.Module(path("training_model.onnx"), load_state(), session_options=Options())
        with self.assertRaisesRegex(odt.OdtError, "thread"):
            bad(x, y)

    def test_set_seed_and_version(self):
        odt.set_seed(123)
        self.assertEqual(odt.api_version(), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
