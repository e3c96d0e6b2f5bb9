//===- FunctionBodies.h - functions with the same body ----------*- C++ -*-===//
//
// Two passes keep one function where several have the same body: the loop
// outliners (codegen/cpu/OutlineLoops.cpp), for nests a network repeats,
// and odt-merge-entry-modules, for kernels the entry points share.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_COMMON_FUNCTIONBODIES_H
#define ODT_CODEGEN_COMMON_FUNCTIONBODIES_H

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/Hashing.h"

namespace odt {

/// A hash of a function's type and of the kinds and attributes of its ops:
/// equal for functions that may have the same body, which
/// haveSameTypeAndBody then decides.
llvm::hash_code hashTypeAndBody(mlir::FunctionOpInterface function);

/// Whether the two functions have the same type and equivalent bodies
/// (locations aside). Their own attributes are not compared.
bool haveSameTypeAndBody(mlir::FunctionOpInterface a,
                         mlir::FunctionOpInterface b);

} // namespace odt

#endif // ODT_CODEGEN_COMMON_FUNCTIONBODIES_H
