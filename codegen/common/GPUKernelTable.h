//===- GPUKernelTable.h - the kernels a GPU build launches --*- C++ -*-===//
//
// A GPU build's host code is CPU code that launches kernels through a hook
// the runtime installs; the kernels travel as PTX in the model descriptor.
// The GPU backend records the kernels, the CPU backend lowers the launches
// and the descriptor carries both: the names they share are here.
//
//   odt.gpu_kernels  module attribute, [{name = "train_kernel",
//                    parameters = 15, parameter_bytes = array<i64: 8, ...>},
//                    ...]: each kernel of the PTX in the order launches
//                    number them, with its parameter count (a memref
//                    argument is its descriptor's fields) and each
//                    parameter's size
//   odt.gpu_images   module attribute, [{chip = "sm_90", ptx = "..."}]:
//                    the kernels' PTX for each chip, in the order asked
//   __odt_gpu_launch void(i32 kernel, i64 grid x, y, z, i64 block x, y, z,
//                    i32 dynamic shared bytes, void **parameters,
//                    i32 parameter count): what each gpu.launch_func
//                    becomes, called through <prefix>_launch_fn, which
//                    <prefix>_set_launcher sets
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_COMMON_GPUKERNELTABLE_H
#define ODT_CODEGEN_COMMON_GPUKERNELTABLE_H

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

namespace odt {

inline constexpr llvm::StringLiteral kGPUKernelsAttr = "odt.gpu_kernels";
inline constexpr llvm::StringLiteral kGPUImagesAttr = "odt.gpu_images";
inline constexpr llvm::StringLiteral kGPULaunchHook = "__odt_gpu_launch";

/// The bytes a kernel parameter of LLVM type `type` occupies (pointers are
/// 64-bit on every host and device odt builds for; i1 is a byte); -1 for a
/// type odt's launcher does not pass.
inline int64_t getKernelParameterBytes(mlir::Type type) {
  if (mlir::isa<mlir::LLVM::LLVMPointerType>(type))
    return 8;
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  return -1;
}

} // namespace odt

#endif // ODT_CODEGEN_COMMON_GPUKERNELTABLE_H
