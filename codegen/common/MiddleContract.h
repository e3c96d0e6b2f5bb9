//===- MiddleContract.h - names the middle's contract uses ------*- C++ -*-===//
//
// docs/middle-contract.md; enforced by odt-verify-middle.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_COMMON_MIDDLECONTRACT_H
#define ODT_CODEGEN_COMMON_MIDDLECONTRACT_H

#include "llvm/ADT/StringRef.h"

namespace odt {

/// On an op of the middle that embodies a CPU decision the conversion still
/// makes (a string saying which); the only scf.forall ops the contract
/// admits. Each is listed in docs/middle-contract.md, to move to codegen/cpu.
inline constexpr llvm::StringLiteral kCpuDecisionAttr = "odt.cpu_decision";

} // namespace odt

#endif // ODT_CODEGEN_COMMON_MIDDLECONTRACT_H
