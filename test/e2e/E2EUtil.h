// Helpers shared by the end-to-end GoogleTests: where the models compiled at
// build time live, and loading a model with its checkpoint into a Module.

#ifndef ODT_TEST_E2E_E2EUTIL_H
#define ODT_TEST_E2E_E2EUTIL_H

#include "Checkpoint.h"
#include "CompiledModel.h"
#include "Module.h"
#include "Npy.h"
#include "Optimizer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace odt::e2e {

/// ${CMAKE_BINARY_DIR}/test/e2e/models/<name>: odt-compile's output.
inline std::string modelDir(const std::string &name) {
  return std::string(ODT_E2E_MODELS_DIR) + "/" + name;
}
/// ${CMAKE_BINARY_DIR}/test/e2e/artifacts/<name>: generated inputs (ONNX
/// models, checkpoints, .npy data) of the models built here.
inline std::string artifactDir(const std::string &name) {
  return std::string(ODT_E2E_ARTIFACTS_DIR) + "/" + name;
}
/// ORT's training_api folder (read in place, never copied).
inline std::string ortTrainingApiDir() {
  return std::string(ODT_SHARED_DIR) + "/conformance/ort/training_api";
}

/// A compiled model bound to a checkpoint: the state must outlive the module,
/// so both live here.
struct Session {
  std::shared_ptr<CompiledModel> model;
  std::unique_ptr<CheckpointState> state;
  std::unique_ptr<Module> module;
};

/// Loads `modelPath` and `checkpointPath` into `session` (fatal failures on
/// error, so call it through ASSERT_NO_FATAL_FAILURE).
inline void openSession(const std::string &modelPath,
                        const std::string &checkpointPath, Session &session) {
  Result<std::shared_ptr<CompiledModel>> model = CompiledModel::load(modelPath);
  ASSERT_TRUE(model) << model.getStatus().message();
  session.model = *model;
  Result<CheckpointState> state = loadCheckpoint(checkpointPath);
  ASSERT_TRUE(state) << state.getStatus().message();
  session.state = std::make_unique<CheckpointState>(state.take());
  Result<std::unique_ptr<Module>> module =
      Module::create(session.model, session.state.get());
  ASSERT_TRUE(module) << module.getStatus().message();
  session.module = module.take();
}

/// Reads a .npy file (fatal failure on error).
inline void readTensor(const std::string &path, Tensor &out) {
  Result<Tensor> tensor = readNpy(path);
  ASSERT_TRUE(tensor) << tensor.getStatus().message();
  out = tensor.take();
}

} // namespace odt::e2e

#endif // ODT_TEST_E2E_E2EUTIL_H
