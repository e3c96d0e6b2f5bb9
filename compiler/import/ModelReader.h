//===- ModelReader.h - reading ONNX files -----------------------*- C++ -*-===//

#ifndef ODT_COMPILER_IMPORT_MODELREADER_H
#define ODT_COMPILER_IMPORT_MODELREADER_H

#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace odt {

/// Reads and sanity-checks an ONNX model file. On failure returns nullptr and
/// sets `error` to a message naming the file ("... is not an ONNX model",
/// "... is truncated", "cannot open ...").
std::unique_ptr<::onnx::ModelProto> readModelFile(llvm::StringRef path,
                                                std::string &error);

/// Models of ai.onnx opsets below this are upgraded to it on reading (with
/// ONNX's version converter), so odt implements each op's semantics from
/// opset 13 on.
inline constexpr int kOldestNativeOpset = 13;

/// Upgrades a model whose ai.onnx opset is below kOldestNativeOpset. Only
/// models with ai.onnx nodes alone are converted. Returns false (and sets
/// `error`) if the converter fails.
bool upgradeOldOpset(::onnx::ModelProto &model, llvm::StringRef path,
                     std::string &error);

/// The opset version the model imports for `domain` ("" = ai.onnx), or -1.
int64_t getOpsetVersion(const ::onnx::ModelProto &model, llvm::StringRef domain);

} // namespace odt

#endif // ODT_COMPILER_IMPORT_MODELREADER_H
