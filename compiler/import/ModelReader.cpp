//===- ModelReader.cpp - reading ONNX files -------------------------------===//

#include "compiler/import/ModelReader.h"

#include "onnx/onnx_pb.h"
#include "onnx/version_converter/convert.h"

#include "llvm/Support/MemoryBuffer.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace odt {

std::unique_ptr<::onnx::ModelProto> readModelFile(llvm::StringRef path,
                                                std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error = "cannot open '" + path.str() + "': " + buffer.getError().message();
    return nullptr;
  }
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.empty()) {
    error = "'" + path.str() + "' is empty, not an ONNX model";
    return nullptr;
  }
  auto model = std::make_unique<::onnx::ModelProto>();
  google::protobuf::io::ArrayInputStream stream(bytes.data(),
                                                static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT32_MAX);
  if (!model->ParseFromCodedStream(&coded) ||
      !coded.ConsumedEntireMessage()) {
    error = "'" + path.str() +
            "' is not an ONNX model (protobuf parse failed: the file is "
            "truncated, corrupt or of another format)";
    return nullptr;
  }
  // Protobuf accepts many byte strings; an ONNX model has an IR version, an
  // opset import and a graph.
  if (model->ir_version() <= 0 || model->opset_import_size() == 0 ||
      !model->has_graph()) {
    error = "'" + path.str() +
            "' is not an ONNX model (no ir_version, opset_import or graph)";
    return nullptr;
  }
  return model;
}

bool upgradeOldOpset(::onnx::ModelProto &model, llvm::StringRef path,
                     std::string &error) {
  int64_t opset = getOpsetVersion(model, "");
  if (opset < 1 || opset >= kOldestNativeOpset)
    return true;
  for (const auto &node : model.graph().node())
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return true; // mixed domains: left to the importer's opset check
  try {
    model = ::onnx::version_conversion::ConvertVersion(model,
                                                       kOldestNativeOpset);
  } catch (const std::exception &exception) {
    error = "'" + path.str() + "': cannot upgrade ai.onnx opset " +
            std::to_string(opset) + " to " +
            std::to_string(kOldestNativeOpset) + ": " + exception.what();
    return false;
  }
  return true;
}

int64_t getOpsetVersion(const ::onnx::ModelProto &model, llvm::StringRef domain) {
  for (const auto &opset : model.opset_import()) {
    llvm::StringRef name = opset.domain();
    bool isDefault = name.empty() || name == "ai.onnx";
    if ((domain.empty() || domain == "ai.onnx") ? isDefault : name == domain)
      return opset.version();
  }
  return -1;
}

} // namespace odt
