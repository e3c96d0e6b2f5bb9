// Module::exportModelForInferencing, apart from Module.cpp so that programs
// that never export do not link the ONNX writer.

#include "Module.h"
#include "OnnxExport.h"

namespace odt {

Status Module::exportModelForInferencing(
    const std::string &path,
    const std::vector<std::string> &outputNames) const {
  // The parameters as they are now, wherever the session keeps them.
  if (Status synced = checkpoint->synchronizeHost(); !synced)
    return synced.withContext("ExportModelForInferencing");
  return exportInferenceModel(*compiled, params, path, outputNames);
}

} // namespace odt
