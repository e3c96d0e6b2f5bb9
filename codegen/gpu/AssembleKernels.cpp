//===- AssembleKernels.cpp - A GPU build's PTX assembled to SASS ----------===//
//
// With the CUDA toolkit's ptxas at hand, a GPU build carries each chip's
// kernels as a cubin (SASS) next to their PTX: the driver loads the cubin
// on a device of that chip instead of compiling the PTX when the session
// starts (seconds for a model of a few hundred kernels), and a kernel
// ptxas refuses is a compile-time error here rather than a load-time one
// on the device.
//
//===----------------------------------------------------------------------===//

#include "codegen/common/GPUKernelTable.h"
#include "codegen/gpu/GPUBackend.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <thread>

using namespace mlir;

namespace odt {

namespace {

/// Runs ptxas on one chip's PTX; the cubin's bytes, or an error.
FailureOr<std::string> assemble(StringRef ptxas, StringRef chip, StringRef ptx,
                                std::string &error) {
  SmallString<128> input, output, messages;
  auto fail = [&](const Twine &why) -> FailureOr<std::string> {
    error = ("assembling the " + chip + " kernels with " + ptxas + ": " + why)
                .str();
    return failure();
  };
  int inputFd = -1;
  if (std::error_code code = llvm::sys::fs::createTemporaryFile(
          "odt-kernels", "ptx", inputFd, input))
    return fail(code.message());
  {
    llvm::raw_fd_ostream stream(inputFd, /*shouldClose=*/true);
    stream << ptx;
  }
  llvm::FileRemover removeInput(input);
  if (llvm::sys::fs::createTemporaryFile("odt-kernels", "cubin", output) ||
      llvm::sys::fs::createTemporaryFile("odt-ptxas", "txt", messages))
    return fail("no temporary file");
  llvm::FileRemover removeOutput(output), removeMessages(messages);
  std::string arch = ("-arch=" + chip).str();
  StringRef arguments[] = {ptxas, arch, "-O3", input, "-o", output};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(messages),
                                          StringRef(messages)};
  std::string launchError;
  int status = llvm::sys::ExecuteAndWait(ptxas, arguments, std::nullopt,
                                         redirects, 0, 0, &launchError);
  if (status != 0) {
    std::string said;
    if (auto text = llvm::MemoryBuffer::getFile(messages))
      said = StringRef((*text)->getBuffer()).trim().str();
    return fail(status < 0 ? launchError
                           : "exit status " + std::to_string(status) +
                                 (said.empty() ? "" : ":\n" + said));
  }
  auto cubin = llvm::MemoryBuffer::getFile(output, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!cubin)
    return fail("no cubin written");
  return (*cubin)->getBuffer().str();
}

} // namespace

LogicalResult assembleKernelImages(ModuleOp module, StringRef ptxas,
                                   std::string &error) {
  auto images = module->getAttrOfType<ArrayAttr>(kGPUImagesAttr);
  if (!images)
    return success();
  SmallVector<DictionaryAttr> dicts(images.getAsRange<DictionaryAttr>());
  SmallVector<FailureOr<std::string>> cubins(dicts.size(), failure());
  SmallVector<std::string> errors(dicts.size());
  // One ptxas per chip, at once: each is single-threaded.
  std::vector<std::thread> workers;
  for (size_t i = 0; i < dicts.size(); ++i)
    workers.emplace_back([&, i] {
      cubins[i] =
          assemble(ptxas, dicts[i].getAs<StringAttr>("chip").getValue(),
                   dicts[i].getAs<StringAttr>("ptx").getValue(), errors[i]);
    });
  for (std::thread &worker : workers)
    worker.join();
  Builder builder(module.getContext());
  SmallVector<Attribute> assembled;
  for (size_t i = 0; i < dicts.size(); ++i) {
    if (failed(cubins[i])) {
      error = errors[i];
      return failure();
    }
    SmallVector<NamedAttribute> entries(dicts[i].getValue());
    entries.push_back(
        builder.getNamedAttr("cubin", builder.getStringAttr(*cubins[i])));
    assembled.push_back(builder.getDictionaryAttr(entries));
  }
  module->setAttr(kGPUImagesAttr, builder.getArrayAttr(assembled));
  return success();
}

} // namespace odt
