// Module::exportModelForInferencing, apart from Module.cpp so that programs
// that never export do not link the ONNX writer.

#include "Module.h"
#include "OnnxExport.h"

namespace odt {

Status Module::exportModelForInferencing(
    const std::string &path, const std::vector<std::string> &outputNames) const {
  return exportInferenceModel(*compiled, params, path, outputNames);
}

} // namespace odt
