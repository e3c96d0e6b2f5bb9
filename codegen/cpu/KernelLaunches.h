//===- KernelLaunches.h - GPU launches as runtime calls ----*- C++ -*-===//
//
// The host code of a GPU build is compiled by this backend: each
// gpu.launch_func becomes a call of __odt_gpu_launch (GPUKernelTable.h)
// with the kernel's number in odt.gpu_kernels, the grid, and the addresses
// of its parameters as cuLaunchKernel takes them (a memref argument is its
// descriptor's fields, as the kernel's signature has them).
//
//===----------------------------------------------------------------------===//

#ifndef ODT_CODEGEN_CPU_KERNELLAUNCHES_H
#define ODT_CODEGEN_CPU_KERNELLAUNCHES_H

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;
} // namespace mlir

namespace odt {

/// Patterns for odt-convert-to-llvm; they match only gpu.launch_func.
void populateKernelLaunchToLLVMPatterns(mlir::LLVMTypeConverter &converter,
                                        mlir::RewritePatternSet &patterns);

} // namespace odt

#endif // ODT_CODEGEN_CPU_KERNELLAUNCHES_H
