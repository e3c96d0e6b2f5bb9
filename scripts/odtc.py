#!/usr/bin/env python3
"""Reader and writer for ONNX Runtime's on-device training checkpoint format.

The format is a flatbuffer with file identifier "ODTC", version 2 (schema in
runtime/schema/checkpoint.fbs, facts in docs/ORT-FACTS.md section 4). This module
uses only the low-level `flatbuffers` Python runtime (Builder, Table, number
types) and no flatc-generated code, so that it is an implementation independent
of odt's C++ one: the tests cross-check both against each other and against
`flatc --json`.

Run it with Debian's interpreter (it has numpy and python3-flatbuffers):

    /usr/bin/python3 scripts/odtc.py dump CKPT

API
---
read_checkpoint(path) -> dict
    {"version": int,
     "params": [{"name", "dtype" (ONNX TensorProto code), "dims" (list),
                 "data" (numpy array, or None when nominal), "requires_grad"}],
     "is_nominal": bool, "has_external_data": bool,
     "optimizer_groups": [{"group_name", "step", "initial_learning_rate",
                           "states": {param_name: {momentum_name: array}}}],
     "properties": {name: int | float | str}}
    Parameters are listed trainable ones first, then frozen ones, each in file
    order.

write_checkpoint(path, params, optimizer_groups=None, properties=None,
                 nominal=False, external_data=False)
    params: list of (name, numpy array, requires_grad). Tensors are sorted by
    name, as ORT does. optimizer_groups has the structure read_checkpoint
    returns. Python ints become IntProperty (int64), floats FloatProperty
    (float32), strs StringProperty. With external_data=True, tensors of at
    least 64 bytes go to `<path>.data` (4-byte aligned, 8 for INT64/DOUBLE),
    as ORT does for big checkpoints.
"""

import json
import os
import sys

import numpy as np
import flatbuffers
from flatbuffers import encode
from flatbuffers import number_types as N
from flatbuffers.table import Table

FILE_IDENTIFIER = b"ODTC"
CHECKPOINT_VERSION = 2
EXTERNAL_DATA_MIN_BYTES = 64

# ONNX TensorProto data type codes (= the flatbuffers TensorDataType values).
DTYPE_NAMES = {
    0: "UNDEFINED", 1: "FLOAT", 2: "UINT8", 3: "INT8", 4: "UINT16", 5: "INT16",
    6: "INT32", 7: "INT64", 8: "STRING", 9: "BOOL", 10: "FLOAT16", 11: "DOUBLE",
    12: "UINT32", 13: "UINT64", 14: "COMPLEX64", 15: "COMPLEX128", 16: "BFLOAT16",
    17: "FLOAT8E4M3FN", 18: "FLOAT8E4M3FNUZ", 19: "FLOAT8E5M2", 20: "FLOAT8E5M2FNUZ",
}

# ONNX code -> little-endian numpy dtype. BFLOAT16 and the FLOAT8 types have no
# numpy equivalent: their raw bits are exposed as uint16 / uint8.
_CODE_TO_NP = {
    1: np.dtype("<f4"), 2: np.dtype("u1"), 3: np.dtype("i1"), 4: np.dtype("<u2"),
    5: np.dtype("<i2"), 6: np.dtype("<i4"), 7: np.dtype("<i8"), 9: np.dtype("?"),
    10: np.dtype("<f2"), 11: np.dtype("<f8"), 12: np.dtype("<u4"), 13: np.dtype("<u8"),
    14: np.dtype("<c8"), 15: np.dtype("<c16"), 16: np.dtype("<u2"),
    17: np.dtype("u1"), 18: np.dtype("u1"), 19: np.dtype("u1"), 20: np.dtype("u1"),
}

_NP_TO_CODE = {
    np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3,
    np.dtype(np.uint16): 4, np.dtype(np.int16): 5, np.dtype(np.int32): 6,
    np.dtype(np.int64): 7, np.dtype(np.bool_): 9, np.dtype(np.float16): 10,
    np.dtype(np.float64): 11, np.dtype(np.uint32): 12, np.dtype(np.uint64): 13,
    np.dtype(np.complex64): 14, np.dtype(np.complex128): 15,
}

STRING_CODE = 8


def _vt(field_id):
    """vtable offset of a field: flatbuffers field ids follow declaration order."""
    return 4 + 2 * field_id


# Field ids, in the schema's declaration order.
class _Tensor:
    name, doc_string, dims, data_type, raw_data, string_data, external_data_offset = range(7)


class _ModuleState:
    requires_grad_params, frozen_params, is_nominal_state, has_external_data = range(4)


class _ParameterOptimizerState:
    param_name, momentums = range(2)


class _OptimizerGroup:
    group_name, step, initial_learning_rate, optimizer_states = range(4)


class _Property:
    name, value = range(2)


class _PropertyBag:
    ints, floats, strings = range(3)


class _Checkpoint:
    version, module_state, optimizer_groups, property_bag = range(4)


class CheckpointError(Exception):
    pass


def dtype_to_code(dtype):
    """ONNX data type code of a numpy dtype (any byte order)."""
    dt = np.dtype(dtype)
    if dt.kind in ("U", "S", "O"):
        return STRING_CODE
    for np_dt, code in _NP_TO_CODE.items():
        if np_dt.kind == dt.kind and np_dt.itemsize == dt.itemsize:
            return code
    raise CheckpointError("unsupported numpy dtype %s" % dt)


def code_to_dtype(code):
    try:
        return _CODE_TO_NP[code]
    except KeyError:
        raise CheckpointError("unsupported tensor data type %d" % code)


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

def _field_pos(tab, field_id):
    """Absolute position of a field's value, or 0 when it is absent."""
    o = tab.Offset(_vt(field_id))
    return tab.Pos + o if o else 0


def _scalar(tab, field_id, flags, default):
    o = tab.Offset(_vt(field_id))
    return tab.Get(flags, tab.Pos + o) if o else default


def _string(tab, field_id):
    o = tab.Offset(_vt(field_id))
    if not o:
        return None
    return tab.String(tab.Pos + o).decode("utf-8")


def _subtable(tab, field_id):
    o = tab.Offset(_vt(field_id))
    if not o:
        return None
    return Table(tab.Bytes, tab.Indirect(tab.Pos + o))


def _vector_len(tab, field_id):
    o = tab.Offset(_vt(field_id))
    return tab.VectorLen(o) if o else None


def _table_vector(tab, field_id):
    """List of sub-tables of a vector-of-tables field (empty when absent)."""
    o = tab.Offset(_vt(field_id))
    if not o:
        return []
    n = tab.VectorLen(o)
    start = tab.Vector(o)
    return [Table(tab.Bytes, tab.Indirect(start + 4 * i)) for i in range(n)]


def _string_vector(tab, field_id):
    o = tab.Offset(_vt(field_id))
    if not o:
        return None
    n = tab.VectorLen(o)
    start = tab.Vector(o)
    return [tab.String(start + 4 * i).decode("utf-8") for i in range(n)]


def _numpy_vector(tab, field_id, flags):
    o = tab.Offset(_vt(field_id))
    if not o:
        return None
    return tab.GetVectorAsNumpy(flags, o)


class _ExternalData:
    def __init__(self, path):
        self.path = path
        self._bytes = None

    def read(self, offset, nbytes):
        if self._bytes is None:
            if not os.path.exists(self.path):
                raise CheckpointError("external data file %s is missing" % self.path)
            with open(self.path, "rb") as f:
                self._bytes = f.read()
        if offset < 0 or offset + nbytes > len(self._bytes):
            raise CheckpointError("external data [%d, %d) lies outside %s (%d bytes)"
                                  % (offset, offset + nbytes, self.path, len(self._bytes)))
        return self._bytes[offset:offset + nbytes]


def _read_tensor(tab, nominal, external):
    name = _string(tab, _Tensor.name)
    code = _scalar(tab, _Tensor.data_type, N.Int32Flags, 0)
    dims_np = _numpy_vector(tab, _Tensor.dims, N.Int64Flags)
    dims = [int(d) for d in dims_np] if dims_np is not None else []
    ext_offset = _scalar(tab, _Tensor.external_data_offset, N.Int64Flags, -1)
    doc = _string(tab, _Tensor.doc_string)
    out = {"name": name, "dtype": code, "dims": dims, "data": None}
    if doc:
        out["doc_string"] = doc
    if nominal:
        return out
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if code == STRING_CODE:
        strings = _string_vector(tab, _Tensor.string_data)
        if strings is None:
            raise CheckpointError("string tensor %s has no string_data" % name)
        out["data"] = np.array(strings, dtype=object).reshape(dims)
        return out
    dt = code_to_dtype(code)
    if ext_offset >= 0:
        if external is None:
            raise CheckpointError("tensor %s has external data but the checkpoint has no "
                                  "external data file" % name)
        raw = external.read(ext_offset, count * dt.itemsize)
        out["external_data_offset"] = ext_offset
    else:
        raw_np = _numpy_vector(tab, _Tensor.raw_data, N.Uint8Flags)
        if raw_np is None:
            raise CheckpointError("tensor %s has no raw_data" % name)
        raw = raw_np.tobytes()
    if len(raw) != count * dt.itemsize:
        raise CheckpointError("tensor %s: %d bytes of data for dims %s of %s"
                              % (name, len(raw), dims, DTYPE_NAMES.get(code, code)))
    out["data"] = np.frombuffer(raw, dtype=dt).reshape(dims).copy()
    return out


def read_checkpoint_bytes(buf, external_data_path=None):
    """Parses a checkpoint from bytes. external_data_path is `<checkpoint>.data`."""
    buf = bytearray(buf)
    if len(buf) < 8:
        raise CheckpointError("file too short for a flatbuffer (%d bytes)" % len(buf))
    if bytes(buf[4:8]) != FILE_IDENTIFIER:
        raise CheckpointError("file identifier %r is not %r" % (bytes(buf[4:8]), FILE_IDENTIFIER))
    root = Table(buf, encode.Get(N.UOffsetTFlags.packer_type, buf, 0))

    version = _scalar(root, _Checkpoint.version, N.Int32Flags, 0)
    result = {"version": version, "params": [], "is_nominal": False,
              "has_external_data": False, "optimizer_groups": [], "properties": {}}
    if version != CHECKPOINT_VERSION:
        raise CheckpointError("checkpoint version %d is not %d" % (version, CHECKPOINT_VERSION))

    external = None
    ms = _subtable(root, _Checkpoint.module_state)
    if ms is not None:
        nominal = bool(_scalar(ms, _ModuleState.is_nominal_state, N.BoolFlags, False))
        has_ext = bool(_scalar(ms, _ModuleState.has_external_data, N.BoolFlags, False))
        result["is_nominal"] = nominal
        result["has_external_data"] = has_ext
        if has_ext and external_data_path is not None:
            external = _ExternalData(external_data_path)
        for field, trainable in ((_ModuleState.requires_grad_params, True),
                                 (_ModuleState.frozen_params, False)):
            for t in _table_vector(ms, field):
                p = _read_tensor(t, nominal, external)
                p["requires_grad"] = trainable
                result["params"].append(p)

    if external is None and external_data_path is not None:
        external = _ExternalData(external_data_path)  # momentums may be external too
    for g in _table_vector(root, _Checkpoint.optimizer_groups):
        group = {
            "group_name": _string(g, _OptimizerGroup.group_name),
            "step": _scalar(g, _OptimizerGroup.step, N.Int64Flags, 0),
            "initial_learning_rate": _scalar(g, _OptimizerGroup.initial_learning_rate,
                                             N.Float32Flags, 0.0),
            "states": {},
        }
        for s in _table_vector(g, _OptimizerGroup.optimizer_states):
            pname = _string(s, _ParameterOptimizerState.param_name)
            moms = {}
            for t in _table_vector(s, _ParameterOptimizerState.momentums):
                m = _read_tensor(t, False, external)
                moms[m["name"]] = m["data"]
            group["states"][pname] = moms
        result["optimizer_groups"].append(group)

    bag = _subtable(root, _Checkpoint.property_bag)
    if bag is not None:
        for t in _table_vector(bag, _PropertyBag.ints):
            result["properties"][_string(t, _Property.name)] = int(
                _scalar(t, _Property.value, N.Int64Flags, 0))
        for t in _table_vector(bag, _PropertyBag.floats):
            result["properties"][_string(t, _Property.name)] = float(
                _scalar(t, _Property.value, N.Float32Flags, 0.0))
        for t in _table_vector(bag, _PropertyBag.strings):
            result["properties"][_string(t, _Property.name)] = _string(t, _Property.value)
    return result


def read_checkpoint(path):
    with open(path, "rb") as f:
        buf = f.read()
    return read_checkpoint_bytes(buf, external_data_path=str(path) + ".data")


def params_dict(ckpt):
    """{name: numpy array} of a checkpoint's parameters (read_checkpoint's result)."""
    return {p["name"]: p["data"] for p in ckpt["params"]}


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def _end_offsets_vector(b, offsets):
    b.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


def _int64_vector(b, values):
    b.StartVector(8, len(values), 8)
    for v in reversed(values):
        b.PrependInt64(int(v))
    return b.EndVector()


def _bytes_vector(b, data, alignment):
    b.StartVector(1, len(data), alignment)
    b.head = b.head - len(data)
    b.Bytes[b.head:b.head + len(data)] = data
    return b.EndVector()


class _ExternalWriter:
    def __init__(self):
        self.chunks = bytearray()

    def add(self, raw, alignment):
        pad = (-len(self.chunks)) % alignment
        self.chunks.extend(b"\0" * pad)
        offset = len(self.chunks)
        self.chunks.extend(raw)
        return offset


def _write_tensor(b, name, array, nominal=False, external=None):
    arr = np.asarray(array)
    code = dtype_to_code(arr.dtype)
    name_off = b.CreateString(name)
    if nominal:
        # ORT's nominal tensors keep their name and type, with empty dims and raw_data.
        dims_off = _int64_vector(b, [])
        raw_off = _bytes_vector(b, b"", 4)
        b.StartObject(7)
        b.PrependUOffsetTRelativeSlot(_Tensor.name, name_off, 0)
        b.PrependUOffsetTRelativeSlot(_Tensor.dims, dims_off, 0)
        b.PrependUOffsetTRelativeSlot(_Tensor.raw_data, raw_off, 0)
        b.PrependInt32Slot(_Tensor.data_type, code, 0)
        return b.EndObject()
    dims_off = _int64_vector(b, list(arr.shape))
    raw_off = strings_off = None
    ext_offset = -1
    if code == STRING_CODE:
        offs = [b.CreateString(str(s)) for s in arr.reshape(-1)]
        strings_off = _end_offsets_vector(b, offs)
    else:
        le = arr.astype(code_to_dtype(code), copy=False)
        raw = np.ascontiguousarray(le).tobytes()
        alignment = 8 if code_to_dtype(code).itemsize >= 8 else 4
        if external is not None and len(raw) >= EXTERNAL_DATA_MIN_BYTES:
            ext_offset = external.add(raw, alignment)
        else:
            raw_off = _bytes_vector(b, raw, alignment)
    b.StartObject(7)
    b.PrependInt64Slot(_Tensor.external_data_offset, ext_offset, -1)
    b.PrependUOffsetTRelativeSlot(_Tensor.name, name_off, 0)
    b.PrependUOffsetTRelativeSlot(_Tensor.dims, dims_off, 0)
    if raw_off is not None:
        b.PrependUOffsetTRelativeSlot(_Tensor.raw_data, raw_off, 0)
    if strings_off is not None:
        b.PrependUOffsetTRelativeSlot(_Tensor.string_data, strings_off, 0)
    b.PrependInt32Slot(_Tensor.data_type, code, 0)
    return b.EndObject()


def _write_property(b, name, kind, value):
    name_off = b.CreateString(name)
    value_off = b.CreateString(value) if kind == "str" else None
    b.StartObject(2)
    if kind == "int":
        b.PrependInt64Slot(_Property.value, int(value), 0)
    elif kind == "float":
        b.PrependFloat32Slot(_Property.value, float(value), 0.0)
    b.PrependUOffsetTRelativeSlot(_Property.name, name_off, 0)
    if value_off is not None:
        b.PrependUOffsetTRelativeSlot(_Property.value, value_off, 0)
    return b.EndObject()


def checkpoint_to_bytes(params, optimizer_groups=None, properties=None, nominal=False,
                        external_data=False):
    """Returns (checkpoint bytes, external data bytes or None). See write_checkpoint."""
    b = flatbuffers.Builder(1024)
    external = _ExternalWriter() if (external_data and not nominal) else None

    seen = set()
    for name, _, _ in params:
        if name in seen:
            raise CheckpointError("duplicate parameter %s" % name)
        seen.add(name)
    ordered = sorted(params, key=lambda p: p[0])
    trainable = [_write_tensor(b, n, a, nominal, external) for n, a, rg in ordered if rg]
    frozen = [_write_tensor(b, n, a, nominal, external) for n, a, rg in ordered if not rg]
    trainable_vec = _end_offsets_vector(b, trainable)
    frozen_vec = _end_offsets_vector(b, frozen)
    b.StartObject(4)
    b.PrependUOffsetTRelativeSlot(_ModuleState.requires_grad_params, trainable_vec, 0)
    b.PrependUOffsetTRelativeSlot(_ModuleState.frozen_params, frozen_vec, 0)
    b.PrependBoolSlot(_ModuleState.is_nominal_state, bool(nominal), False)
    b.PrependBoolSlot(_ModuleState.has_external_data, external is not None, False)
    module_state = b.EndObject()

    group_offs = []
    for g in optimizer_groups or []:
        state_offs = []
        for pname in sorted(g.get("states", {})):
            moms = g["states"][pname]
            mom_offs = [_write_tensor(b, mn, moms[mn], False, external) for mn in sorted(moms)]
            mom_vec = _end_offsets_vector(b, mom_offs)
            pname_off = b.CreateString(pname)
            b.StartObject(2)
            b.PrependUOffsetTRelativeSlot(_ParameterOptimizerState.param_name, pname_off, 0)
            b.PrependUOffsetTRelativeSlot(_ParameterOptimizerState.momentums, mom_vec, 0)
            state_offs.append(b.EndObject())
        states_vec = _end_offsets_vector(b, state_offs)
        gname_off = b.CreateString(g.get("group_name", "group0"))
        b.StartObject(4)
        b.PrependInt64Slot(_OptimizerGroup.step, int(g.get("step", 0)), 0)
        b.PrependUOffsetTRelativeSlot(_OptimizerGroup.group_name, gname_off, 0)
        b.PrependFloat32Slot(_OptimizerGroup.initial_learning_rate,
                             float(g.get("initial_learning_rate", 0.0)), 0.0)
        b.PrependUOffsetTRelativeSlot(_OptimizerGroup.optimizer_states, states_vec, 0)
        group_offs.append(b.EndObject())
    groups_vec = _end_offsets_vector(b, group_offs)

    bag = None
    if properties:
        ints, floats, strings = [], [], []
        for name in sorted(properties):
            v = properties[name]
            if isinstance(v, (bool, np.bool_)):
                raise CheckpointError("property %s: bool is not a property type" % name)
            if isinstance(v, (int, np.integer)):
                ints.append(_write_property(b, name, "int", v))
            elif isinstance(v, (float, np.floating)):
                floats.append(_write_property(b, name, "float", v))
            elif isinstance(v, str):
                strings.append(_write_property(b, name, "str", v))
            else:
                raise CheckpointError("property %s: unsupported type %s" % (name, type(v)))
        vecs = [_end_offsets_vector(b, x) for x in (ints, floats, strings)]
        b.StartObject(3)
        for field, vec in zip((_PropertyBag.ints, _PropertyBag.floats, _PropertyBag.strings), vecs):
            b.PrependUOffsetTRelativeSlot(field, vec, 0)
        bag = b.EndObject()

    b.StartObject(4)
    b.PrependInt32Slot(_Checkpoint.version, CHECKPOINT_VERSION, 0)
    b.PrependUOffsetTRelativeSlot(_Checkpoint.module_state, module_state, 0)
    b.PrependUOffsetTRelativeSlot(_Checkpoint.optimizer_groups, groups_vec, 0)
    if bag is not None:
        b.PrependUOffsetTRelativeSlot(_Checkpoint.property_bag, bag, 0)
    root = b.EndObject()
    b.Finish(root, file_identifier=FILE_IDENTIFIER)
    ext = bytes(external.chunks) if external is not None else None
    return bytes(b.Output()), ext


def write_checkpoint(path, params, optimizer_groups=None, properties=None, nominal=False,
                     external_data=False):
    """Writes an ODTC v2 checkpoint. params: list of (name, numpy array, requires_grad)."""
    buf, ext = checkpoint_to_bytes(params, optimizer_groups, properties, nominal, external_data)
    with open(path, "wb") as f:
        f.write(buf)
    ext_path = str(path) + ".data"
    if ext is not None:
        with open(ext_path, "wb") as f:
            f.write(ext)


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------

def _preview(arr, n=6):
    if arr is None:
        return "(nominal: no data)"
    flat = np.asarray(arr).reshape(-1)
    vals = ", ".join(("%.8g" % v) if np.issubdtype(flat.dtype, np.floating) else str(v)
                     for v in flat[:n])
    more = ", ..." if flat.size > n else ""
    return "[%s%s]" % (vals, more)


def dump(path, out=sys.stdout):
    c = read_checkpoint(path)
    w = out.write
    w("checkpoint %s: version %d%s%s\n" % (
        path, c["version"], ", nominal" if c["is_nominal"] else "",
        ", external data" if c["has_external_data"] else ""))
    w("parameters (%d):\n" % len(c["params"]))
    for p in c["params"]:
        w("  %-32s %-8s %-14s %s  %s\n" % (
            p["name"], DTYPE_NAMES.get(p["dtype"], str(p["dtype"])),
            "[" + ",".join(str(d) for d in p["dims"]) + "]",
            "trainable" if p["requires_grad"] else "frozen   ", _preview(p["data"])))
    if not c["optimizer_groups"]:
        w("optimizer state: none\n")
    for g in c["optimizer_groups"]:
        w("optimizer group %s: step %d, initial_learning_rate %.8g\n" % (
            g["group_name"], g["step"], g["initial_learning_rate"]))
        for pname, moms in g["states"].items():
            for mname, arr in moms.items():
                w("  %-32s %-10s %s\n" % (pname, mname, _preview(arr)))
    if c["properties"]:
        w("properties:\n")
        for k, v in c["properties"].items():
            w("  %s = %s (%s)\n" % (k, json.dumps(v), type(v).__name__))
    else:
        w("properties: none\n")


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="ORT training checkpoint (ODTC v2) tool")
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump", help="print a human summary of a checkpoint")
    d.add_argument("checkpoint")
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        try:
            dump(args.checkpoint)
        except (CheckpointError, OSError) as e:
            print("odtc: %s: %s" % (args.checkpoint, e), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
