//===- Roles.h - what each entry-point argument is --------------*- C++ -*-===//
//
// Every argument and result of an entry point carries `odt.role` (one of the
// names below), `odt.name` (the ONNX name) and, for per-parameter roles,
// `odt.param` (index into the module's `odt.parameters`). A result that
// updates state carries `odt.tied` (the argument whose buffer it overwrites).
// The descriptor and the runtime follow these exactly (runtime/schema/
// model.fbs uses the same roles).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_COMPILER_TRAINING_ROLES_H
#define ODT_COMPILER_TRAINING_ROLES_H

#include "ModelAbi.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace odt {

/// The roles of the ABI (ModelAbi.h, made from runtime/schema/model.fbs: the
/// same names and values as the descriptor and the runtime), then the
/// compiler's own.
/// PackedPanels and PanelsStale are added by codegen
/// (odt-vectorize-contractions), RandomState by odt-add-random-state.
enum class ArgRole {
#define ODT_ROLE_ENUMERATOR(name, value, spelling, words) name = value,
  ODT_ARGUMENT_ROLES(ODT_ROLE_ENUMERATOR)
#undef ODT_ROLE_ENUMERATOR
  /// `<p>_grad.accumulation.out`: ORT's per-parameter accumulation flag
  /// outputs. Not user outputs; dropped by the training-program assembly.
  GradAccumFlag,
};

llvm::StringRef getRoleName(ArgRole role);
std::optional<ArgRole> parseRole(llvm::StringRef name);

/// The argument of `func` whose role is random_state (odt-add-random-state
/// adds it), or null.
mlir::BlockArgument getRandomStateArgument(mlir::func::FuncOp func);

// Attribute names on entry-point arguments and results.
inline constexpr llvm::StringLiteral kRoleAttr = "odt.role";
inline constexpr llvm::StringLiteral kNameAttr = "odt.name";
inline constexpr llvm::StringLiteral kParamAttr = "odt.param";
inline constexpr llvm::StringLiteral kTiedAttr = "odt.tied";
inline constexpr llvm::StringLiteral kDimsAttr = "onnx.dims";
/// On an op: the names its results get in an exported ONNX graph (an
/// ArrayAttr of strings, "" for a fresh name).
inline constexpr llvm::StringLiteral kResultNamesAttr = "odt.result_names";
/// On an entry point: divisibility requirements on its symbols (an array of
/// {symbols, multiple_of, reason}), checked by the runtime.
inline constexpr llvm::StringLiteral kDivisibilityAttr = "odt.divisibility";
/// The `odt.name` of the random_state argument.
inline constexpr llvm::StringLiteral kRandomStateName = "odt.random_state";
// Module attribute: the parameters, in training-graph input order.
inline constexpr llvm::StringLiteral kParametersAttr = "odt.parameters";

} // namespace odt

#endif // ODT_COMPILER_TRAINING_ROLES_H
