//===- AbiRecord.h - the entry points' ABI, recorded on the module -*- C++
//-*-===//
//
// What the model descriptor says about the entry points comes from the graph:
// names, roles, ONNX data types, symbolic dims, the valid values of integer
// inputs (from the ops that index with them), the optimizer's
// hyper-parameters. Lowering erases most of it (onnx ops become loops,
// unsigned types signless, results output buffers), so odt-record-abi writes
// it once, at the end of the graph stage, as the module attribute `odt.abi`;
// a pass that changes an entry point's arguments afterwards amends the record
// (odt-destination-passing appends codegen's panel caches), and the
// descriptor is built from the final module's record alone:
//
//   odt.abi = {
//     parameters = [{name, data_type, dims = [i64...], trainable}, ...],
//     optimizer = {kind = "AdamW" | "SGD", alpha, beta, epsilon,
//                  weight_decay, correct_bias, adam_mode},
//                  (with an optimizer entry point; {} without its op)
//     entries = {
//       train = {arguments = [ARG...], outputs = [ARG...],
//                shape_function (unit, if it has one),
//                dim_checks = [message...] (its shape function's checks),
//                divisibility = [{symbols, multiple_of, reason}...]},
//       eval = ..., optimizer = ...}}
//   ARG = {name, role, data_type (ONNX's), dims = [i64 size | "symbol"...],
//          writes, parameter (if per-parameter),
//          value_range = [min, max], value_exception, value_range_reason
//          (integer inputs used as indices or labels)}
//
// `arguments` are the entry point's arguments in order, `outputs` its
// results not tied to an argument, which odt-destination-passing appends to
// the arguments in that order.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_COMMON_ABIRECORD_H
#define ODT_CODEGEN_COMMON_ABIRECORD_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace odt {

inline constexpr llvm::StringLiteral kAbiAttr = "odt.abi";

/// An entry point: a function with a body whose arguments carry odt.role
/// (or that takes nothing and returns something).
bool isEntryPoint(mlir::func::FuncOp func);

/// The record of one entry point argument of `type` whose attributes
/// (odt.name, odt.role, odt.param, onnx.dims) are `attrs`. Emits an error
/// at `loc` (one without name, role or ranked tensor type, or with a
/// dynamic dim without a symbol) and fails on it.
mlir::FailureOr<mlir::DictionaryAttr>
describeAbiArgument(mlir::DictionaryAttr attrs, mlir::Type type, bool writes,
                    llvm::StringRef entry, mlir::Location loc);

/// Appends `arguments` to the arguments of `entry` in the module's record;
/// nothing if the module has none (IR that did not pass the graph stage).
void appendAbiArguments(mlir::ModuleOp module, llvm::StringRef entry,
                        llvm::ArrayRef<mlir::Attribute> arguments);

/// The record of entry point `entry` in the module's ABI record; null if
/// the module has none (IR that did not pass the graph stage).
mlir::DictionaryAttr getAbiEntry(mlir::ModuleOp module, llvm::StringRef entry);

/// Sets field `name` of entry point `entry` in the module's record to
/// `value`; nothing if the module has none.
void setAbiEntryField(mlir::ModuleOp module, llvm::StringRef entry,
                      llvm::StringRef name, mlir::Attribute value);

} // namespace odt

#endif // ODT_CODEGEN_COMMON_ABIRECORD_H
