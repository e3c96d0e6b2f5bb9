#!/usr/bin/env python3
"""Writes docs/op-coverage.md: every operator odt's onnx dialect defines, the
opsets and element types it accepts, its lowering, whether it has a gradient
rule, and its result in the ONNX backend node tests.

    /usr/bin/python3 scripts/op_coverage.py --build build \
        --conformance docs/conformance.md --out docs/op-coverage.md

Sources, all read (never edited by hand):
  dialects/onnx/ops/*.td           the ops, their family and summary
  <build>/dialects/onnx/ONNXOps.md the operand types (mlir-tblgen -gen-op-doc)
  codegen/conversion/*.cpp           which file lowers each op
  compiler/autodiff/rules/*.cpp    gradient rules (ODT_GRADIENT_RULE(Op))
  docs/conformance.md              scripts/onnx_backend_tests.py's report
"""

import argparse
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Ops derive from ONNX_Op, ONNX_MSOp, Op, or a family class such as
# ONNX_ElemFloatUnaryOp or ONNX_ReduceOp whose first argument is the mnemonic.
DEF = re.compile(r'^def (ONNX_(\w+?)Op)\s*(?:\n\s*)?:\s*(ONNX_\w*Op|Op)<\s*"?'
                 r'(?:ONNX_Dialect,\s*")?([\w.]+)"', re.M)


def read_ops():
    ops = []
    for path in sorted(glob.glob(os.path.join(ROOT, "dialects/onnx/ops/*.td"))):
        family = os.path.splitext(os.path.basename(path))[0]
        text = open(path).read()
        for match in DEF.finditer(text):
            record, _, base, mnemonic = match.groups()
            if base == "Op" and mnemonic == "NoValue":
                continue
            name = mnemonic[3:] if mnemonic.startswith("ms.") else mnemonic
            domain = "com.microsoft" if base == "ONNX_MSOp" or mnemonic.startswith("ms.") else "ai.onnx"
            body = text[match.end():text.find("\n}", match.end())]
            summary = re.search(r'let summary = "([^"]*)"', body)
            ops.append({"record": record, "name": name, "domain": domain,
                        "family": family,
                        "op": ("onnx.ms." if domain == "com.microsoft" else "onnx.") + name,
                        "summary": summary.group(1) if summary else ""})
    return ops


def operand_types(doc_path):
    """op name -> sorted element types mentioned for its operands."""
    types = {}
    if not os.path.exists(doc_path):
        return types
    text = open(doc_path).read()
    for section in re.split(r"\n### `", text)[1:]:
        name = section.split("`", 1)[0]
        operands = section.split("#### Operands:", 1)
        if len(operands) < 2:
            continue
        table = operands[1].split("####", 1)[0]
        words = {
            "16-bit float": "f16", "bfloat16": "bf16", "32-bit float": "f32",
            "64-bit float": "f64", "1-bit signless integer": "bool",
            "8-bit signless integer": "i8", "16-bit signless integer": "i16",
            "32-bit signless integer": "i32", "64-bit signless integer": "i64",
            "8-bit unsigned integer": "u8", "16-bit unsigned integer": "u16",
            "32-bit unsigned integer": "u32", "64-bit unsigned integer": "u64",
            "signless integer": "int", "any type": "any",
        }
        order = list(words.values())
        found = {v for k, v in words.items() if k in table}
        if "int" in found and found & {"i8", "i16", "i32", "i64"}:
            found.discard("int")
        types[name] = sorted(found, key=order.index)
    return types


def lowerings():
    result = {}
    for path in glob.glob(os.path.join(ROOT, "codegen/conversion/*.cpp")):
        text = open(path).read()
        for record in re.findall(r"OpConversionPattern<\s*onnx::(\w+)Op\s*>", text):
            result.setdefault(record, os.path.relpath(path, ROOT))
        for record in re.findall(r"OpRewritePattern<\s*onnx::(\w+)Op\s*>", text):
            result.setdefault(record, os.path.relpath(path, ROOT))
    # Templated patterns shared by a family (Arithmetic.cpp, Variadic.cpp):
    # patterns.add<LowerX<onnx::AddOp, ...>, ...>.
    for path in glob.glob(os.path.join(ROOT, "codegen/conversion/*.cpp")):
        text = open(path).read()
        for added in re.findall(r"patterns\.add<(.*?)>\(", text, re.S):
            for record in re.findall(r"<\s*onnx::(\w+)Op\b", added):
                result.setdefault(record, os.path.relpath(path, ROOT))
    # Ops rewritten into ai.onnx ops before the lowering.
    for name in ("DecomposeTrainingOps.cpp", "DecomposeCompositeOps.cpp"):
        decompose = os.path.join(ROOT, "compiler/passes", name)
        if not os.path.exists(decompose):
            continue
        text = open(decompose).read()
        for record in re.findall(r"dyn_cast<\s*onnx::(\w+)Op\s*>", text):
            result.setdefault(record, "`%s` (into ai.onnx ops)" %
                              os.path.relpath(decompose, ROOT))
    return result


def lit_tests():
    """op name (as in the dialect: onnx.X or onnx.ms.X) -> the lit files
    whose input uses it: test/lit/conversion (its lowering) and
    test/lit/compiler (its rewrite into other ops, for decomposed ones)."""
    result = {}
    for folder in ("conversion", "compiler"):
        for path in sorted(glob.glob(os.path.join(ROOT, "test/lit", folder, "*.mlir"))):
            text = "\n".join(line for line in open(path)
                             if not line.lstrip().startswith("//"))
            # An op in the input: `%r = onnx.X...` (attributes such as
            # onnx.dims are not preceded by `=`).
            for name in set(re.findall(r"=\s*onnx\.((?:ms\.)?\w+)", text)):
                result.setdefault(name, []).append(
                    os.path.relpath(path, os.path.join(ROOT, "test/lit")))
    return result


def decomposed_ops():
    """Ops odt-decompose-composite-ops rewrites (their gradients are those
    of the ops they become)."""
    path = os.path.join(ROOT, "compiler/passes/DecomposeCompositeOps.cpp")
    if not os.path.exists(path):
        return set()
    text = open(path).read()
    body = text[text.find("struct DecomposeCompositeOpsPass"):]
    return set(re.findall(r"dyn_cast<\s*onnx::(\w+)Op\s*>", body))


def gradient_rules():
    rules = set()
    for path in glob.glob(os.path.join(ROOT, "compiler/autodiff/rules/*.cpp")):
        text = open(path).read()
        rules.update(re.findall(r"^ODT_GRADIENT_RULE\((\w+)\)", text, re.M))
        # Piecewise-constant ops share a zero-gradient model.
        rules.update(re.findall(r"attachInterface<ZeroGradient<onnx::(\w+)Op>>",
                                text))
    return rules


def conformance(path):
    """op name -> (passed, total) over the backend tests that use it."""
    counts = {}
    if not os.path.exists(path):
        return counts
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("test_"):
            continue
        passed = cells[2] == "pass"
        for op in cells[1].split():
            p, t = counts.get(op, (0, 0))
            counts[op] = (p + passed, t + 1)
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--conformance", default=os.path.join(ROOT, "docs/conformance.md"))
    parser.add_argument("--out", default=os.path.join(ROOT, "docs/op-coverage.md"))
    args = parser.parse_args()

    ops = read_ops()
    types = operand_types(os.path.join(args.build, "dialects/onnx/ONNXOps.md"))
    lowered = lowerings()
    grads = gradient_rules()
    composite = decomposed_ops()
    # generate-artifacts trains these forward ops as their training forms.
    trained_as = {"GRU": "GRUTraining", "LSTM": "LSTMTraining"}
    tests = conformance(args.conformance)
    lits = lit_tests()
    lines = [
        "# Operator coverage",
        "",
        "Generated by `scripts/op_coverage.py` from the dialect's TableGen files, the",
        "lowering sources and `docs/conformance.md` (do not edit). Opsets: every op",
        "implements ai.onnx 13–21 semantics; models of older opsets are upgraded to 13",
        "by ONNX's version converter when they are read. Element types are those the",
        "op's operands accept. Lit test: the files under test/lit/conversion (its",
        "lowering) and test/lit/compiler (its rewrite into other ops) whose input",
        "uses it. Backend tests: passing / selected ONNX node tests that use the op.",
        "",
        "| op | domain | family | element types | lowering | lit test | gradient rule | backend tests |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for op in sorted(ops, key=lambda o: (o["domain"], o["name"])):
        record = op["record"][len("ONNX_"):-len("Op")]
        passed, total = tests.get(op["name"], (0, 0)) if op["domain"] == "ai.onnx" else (0, 0)
        dialect_name = op["op"][len("onnx."):]
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            op["name"], op["domain"], op["family"],
            " ".join(types.get(op["op"], [])) or "-",
            ("none" if record not in lowered else lowered[record]
             if lowered[record].startswith("`") else "`%s`" % lowered[record]),
            " ".join("`%s`" % f for f in lits.get(dialect_name, [])) or "-",
            "yes" if record in grads else
            ("yes (as %s)" % trained_as[record] if record in trained_as else
             "yes (its decomposition's)" if record in composite else
             "is a gradient" if op["domain"] == "com.microsoft" and "Grad" in op["name"] else "-"),
            "%d / %d" % (passed, total) if total else "-"))
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("op_coverage: %d ops written to %s" % (len(ops), args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
