//===- CPUTarget.h - the target a module is compiled for --------*- C++ -*-===//
//
// What the CPU backend's decisions depend on, recorded once on the module
// by odt-set-cpu-target as `odt.target`:
//
//   odt.target = {triple = "x86_64-unknown-linux-gnu", cpu = "haswell",
//                 features = "+avx,+avx2,+fma,...", vector_width = 8,
//                 tile_rows = 6, native_bf16 = false}
//
// The passes that size kernels (odt-select-contraction-kernels,
// odt-vectorize-contractions) read it there; their own options, when
// given, override it (lit tests of one pass).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_CPU_CPUTARGET_H
#define ODT_CODEGEN_CPU_CPUTARGET_H

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace odt {

inline constexpr llvm::StringLiteral kTargetAttr = "odt.target";

struct CPUTargetInfo {
  std::string triple, cpu, features;
  /// f32 lanes of one vector register, and rows of a product kernel's
  /// register tile (AVX-512: 16 x 8; AVX/AVX2: 8 x 6; NEON: 4 x 8).
  int64_t vectorWidth = 0, tileRows = 0;
  /// f32 <-> bf16 conversions exist in hardware.
  bool nativeBFloat16 = false;
};

mlir::DictionaryAttr buildTargetAttr(mlir::MLIRContext *context,
                                     const CPUTargetInfo &target);

/// The `odt.target` of `op`'s module (or of `op` itself, a module), if it
/// has a well-formed one.
std::optional<CPUTargetInfo> readTargetAttr(mlir::Operation *op);

} // namespace odt

#endif // ODT_CODEGEN_CPU_CPUTARGET_H
