// odt_export_helper: drives the C++ API for test_export.py. Loads a compiled
// model and a checkpoint, optionally trains (TrainStep, OptimizerStep,
// LazyResetGrad per step), runs EvalStep, and exports inference models.
//
//   odt_export_helper MODEL_DIR CHECKPOINT OUT_DIR
//       [--train X.npy LABELS.npy STEPS] --eval X.npy LABELS.npy
//       [--export FILE NAME[,NAME...] [THRESHOLD]]...
//
// Writes OUT_DIR/eval_<i>.npy (the EvalStep outputs, in order) and
// OUT_DIR/param_<i>.npy (every parameter's current value) and prints one JSON
// object naming them: {"eval_outputs": [...], "parameters": [...],
// "exports": [{"file": ..., "error": ...}]}. An export that fails is reported
// with its message (exit status 0); anything else that fails exits 1.

#include "Checkpoint.h"
#include "CompiledModel.h"
#include "Module.h"
#include "Npy.h"
#include "OnnxExport.h"
#include "Optimizer.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using namespace odt;

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "odt_export_helper: %s\n", message.c_str());
  std::exit(1);
}

Tensor read(const std::string &path) {
  Result<Tensor> tensor = readNpy(path);
  if (!tensor)
    die(tensor.getStatus().message());
  return tensor.take();
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> split(const std::string &text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos)
      return parts;
    start = comma + 1;
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4)
    die("usage: odt_export_helper MODEL_DIR CHECKPOINT OUT_DIR [--train X L STEPS] "
        "--eval X L [--export FILE NAMES [THRESHOLD]]...");
  std::string modelDir = argv[1], checkpoint = argv[2], outDir = argv[3];
  std::string trainX, trainLabels, evalX, evalLabels;
  int steps = 0;
  struct Export {
    std::string file;
    std::vector<std::string> names;
    uint64_t threshold = kDefaultExportExternalDataThreshold;
  };
  std::vector<Export> exports;
  for (int i = 4; i < argc; ++i) {
    std::string arg = argv[i];
    auto need = [&](int count) {
      if (i + count >= argc)
        die(arg + " needs " + std::to_string(count) + " values");
    };
    if (arg == "--train") {
      need(3);
      trainX = argv[++i];
      trainLabels = argv[++i];
      steps = std::atoi(argv[++i]);
    } else if (arg == "--eval") {
      need(2);
      evalX = argv[++i];
      evalLabels = argv[++i];
    } else if (arg == "--export") {
      need(2);
      Export e;
      e.file = argv[++i];
      std::string names = argv[++i];
      if (!names.empty())
        e.names = split(names);
      if (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0)
        e.threshold = std::strtoull(argv[++i], nullptr, 10);
      exports.push_back(e);
    } else {
      die("unknown argument '" + arg + "'");
    }
  }

  Result<std::shared_ptr<CompiledModel>> model = CompiledModel::load(modelDir);
  if (!model)
    die(model.getStatus().message());
  Result<CheckpointState> loaded = loadCheckpoint(checkpoint);
  if (!loaded)
    die(loaded.getStatus().message());
  CheckpointState state = loaded.take();
  Result<std::unique_ptr<Module>> created = Module::create(*model, &state);
  if (!created)
    die(created.getStatus().message());
  Module &module = **created;

  if (steps > 0) {
    Result<std::unique_ptr<Optimizer>> optimizer = Optimizer::create(module);
    if (!optimizer)
      die(optimizer.getStatus().message());
    std::vector<Tensor> inputs = {read(trainX), read(trainLabels)}, outputs;
    for (int step = 0; step < steps; ++step) {
      Status status = module.trainStep(inputs, outputs);
      if (status)
        status = (*optimizer)->step();
      if (status)
        status = module.lazyResetGrad();
      if (!status)
        die("training step " + std::to_string(step + 1) + ": " + status.message());
    }
  }

  std::string json = "{\"eval_outputs\": [";
  if (!evalX.empty()) {
    std::vector<Tensor> inputs = {read(evalX), read(evalLabels)}, outputs;
    Status status = module.evalStep(inputs, outputs);
    if (!status)
      die("EvalStep: " + status.message());
    std::vector<std::string> names = module.evalOutputNames();
    for (size_t i = 0; i < outputs.size(); ++i) {
      Status written = writeNpy(outDir + "/eval_" + std::to_string(i) + ".npy", outputs[i]);
      if (!written)
        die(written.message());
      json += (i ? ", " : "") + jsonString(i < names.size() ? names[i] : "");
    }
  }
  json += "], \"parameters\": [";
  for (size_t i = 0; i < module.parameters().size(); ++i) {
    const Parameter &param = *module.parameters()[i];
    Status written = writeNpy(outDir + "/param_" + std::to_string(i) + ".npy", param.data);
    if (!written)
      die(written.message());
    json += (i ? ", " : "") + jsonString(param.name);
  }
  json += "], \"exports\": [";
  for (size_t i = 0; i < exports.size(); ++i) {
    Status status = exportInferenceModel(**model, module.parameters(), exports[i].file,
                                         exports[i].names, exports[i].threshold);
    json += std::string(i ? ", " : "") + "{\"file\": " + jsonString(exports[i].file) +
            ", \"error\": " + (status ? "null" : jsonString(status.message())) + "}";
  }
  json += "]}";
  std::printf("%s\n", json.c_str());
  return 0;
}
