//===- GPUKernelTable.h - the kernels a GPU build launches --*- C++ -*-===//
//
// A GPU build's host code is CPU code that launches kernels through a hook
// the runtime installs; the kernels travel as PTX in the model descriptor.
// The GPU backend records the kernels, the CPU backend lowers the launches
// and the descriptor carries both: the names they share are here.
//
//   odt.gpu_kernels  module attribute, [{name = "train_kernel",
//                    parameters = 15}, ...]: each kernel of the PTX in the
//                    order launches number them, with its parameter count
//                    (a memref argument is its descriptor's fields)
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

#include "llvm/ADT/StringRef.h"

namespace odt {

inline constexpr llvm::StringLiteral kGPUKernelsAttr = "odt.gpu_kernels";
inline constexpr llvm::StringLiteral kGPUImagesAttr = "odt.gpu_images";
inline constexpr llvm::StringLiteral kGPULaunchHook = "__odt_gpu_launch";

} // namespace odt

#endif // ODT_CODEGEN_COMMON_GPUKERNELTABLE_H
