// ExportModelForInferencing (runtime/src/OnnxExport.h) on models compiled at
// build time: what the descriptor embeds, the exported graph as read back by
// the runtime's own wire-format reader, and the errors a caller can meet
// (no eval graph, nominal state, unknown or no output names, unwritable
// path). test_export.py checks the exported models with onnx and
// onnxruntime.

#include "E2EUtil.h"
#include "OnnxExport.h"

#include <gmock/gmock.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace odt::e2e {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char *kLoss = "onnx::loss::21273";

class ExportTest : public ::testing::Test {
protected:
  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    tmp = std::string(ODT_E2E_MODELS_DIR) + "/../tmp/" + info->name() + "." +
          std::to_string(::getpid());
    fs::remove_all(tmp);
    fs::create_directories(tmp);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
  }
  std::string tmp;
};

/// The names of a graph's nodes (op types), inputs, outputs and initializers.
struct GraphNames {
  std::vector<std::string> ops, inputs, outputs, initializers;
  std::map<std::string, std::string> rawData;
};

std::string stringField(std::string_view message, uint32_t number) {
  Result<std::vector<protowire::Field>> fields = protowire::parseMessage(message);
  std::string value;
  if (fields)
    for (const protowire::Field &field : *fields)
      if (field.number == number)
        value = std::string(field.bytes());
  return value;
}

GraphNames readGraph(const std::string &bytes) {
  GraphNames names;
  std::string graph = stringField(bytes, 7);
  Result<std::vector<protowire::Field>> fields = protowire::parseMessage(graph);
  EXPECT_TRUE(fields) << fields.getStatus().message();
  if (!fields)
    return names;
  for (const protowire::Field &field : *fields) {
    switch (field.number) {
    case 1: names.ops.push_back(stringField(field.bytes(), 4)); break;
    case 5:
      names.initializers.push_back(stringField(field.bytes(), 8));
      names.rawData[names.initializers.back()] = stringField(field.bytes(), 9);
      break;
    case 11: names.inputs.push_back(stringField(field.bytes(), 1)); break;
    case 12: names.outputs.push_back(stringField(field.bytes(), 1)); break;
    }
  }
  return names;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(ExportTest, DescriptorEmbedsTheEvalModel) {
  Result<std::shared_ptr<CompiledModel>> model = CompiledModel::load(modelDir("ort_mlp"));
  ASSERT_TRUE(model) << model.getStatus().message();
  EXPECT_FALSE((*model)->evalModelTemplate().empty());
  EXPECT_THAT((*model)->evalModelParameters(),
              ElementsAre("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"));
  // The template is the eval graph: its outputs and inputs as ORT wrote them.
  std::string bytes((*model)->evalModelTemplate().begin(),
                    (*model)->evalModelTemplate().end());
  GraphNames graph = readGraph(bytes);
  EXPECT_THAT(graph.ops, ElementsAre("Gemm", "Relu", "Gemm", "SoftmaxCrossEntropyLoss"));
  EXPECT_THAT(graph.inputs, ElementsAre("input-0", "labels", "fc1.weight", "fc1.bias",
                                        "fc2.weight", "fc2.bias"));
  EXPECT_THAT(graph.outputs, ElementsAre(kLoss));
}

TEST_F(ExportTest, ExportsCurrentParameterValues) {
  Session session;
  ASSERT_NO_FATAL_FAILURE(openSession(modelDir("ort_mlp"),
                                      ortTrainingApiDir() + "/checkpoint.ckpt", session));
  // Change a parameter the way training would: the export must carry it.
  std::shared_ptr<Parameter> bias = session.module->findParameter("fc2.bias");
  ASSERT_TRUE(bias);
  bias->data.data<float>()[3] = 1234.5f;
  std::string path = tmp + "/logits.onnx";
  Status status = exportInferenceModel(*session.model, session.module->parameters(), path,
                                       {"output-0"});
  ASSERT_TRUE(status) << status.message();
  GraphNames graph = readGraph(readFile(path));
  EXPECT_THAT(graph.ops, ElementsAre("Gemm", "Relu", "Gemm"));
  EXPECT_THAT(graph.inputs, ElementsAre("input-0"));
  EXPECT_THAT(graph.outputs, ElementsAre("output-0"));
  EXPECT_THAT(graph.initializers, ElementsAre("fc1.weight", "fc1.bias", "fc2.weight",
                                              "fc2.bias"));
  for (const std::shared_ptr<Parameter> &param : session.module->parameters()) {
    const std::string &raw = graph.rawData[param->name];
    ASSERT_EQ(raw.size(), param->data.byteSize()) << param->name;
    EXPECT_EQ(std::memcmp(raw.data(), param->data.data(), raw.size()), 0) << param->name;
  }
  float exported;
  std::memcpy(&exported, graph.rawData["fc2.bias"].data() + 3 * sizeof(float), sizeof exported);
  EXPECT_EQ(exported, 1234.5f);
}

TEST_F(ExportTest, ModelWithoutEvalGraph) {
  Session session;
  std::string dir = artifactDir("optimizer_sgd_single_weight");
  ASSERT_NO_FATAL_FAILURE(
      openSession(modelDir("optimizer_sgd_single_weight"), dir + "/checkpoint", session));
  Status status = exportInferenceModel(*session.model, session.module->parameters(),
                                       tmp + "/m.onnx", {"loss"});
  ASSERT_FALSE(status);
  EXPECT_THAT(status.message(), HasSubstr("has no eval graph to export"));
  EXPECT_FALSE(fs::exists(tmp + "/m.onnx"));
}

TEST_F(ExportTest, NominalStateIsRefused) {
  Result<std::shared_ptr<CompiledModel>> model = CompiledModel::load(modelDir("ort_mlp"));
  ASSERT_TRUE(model) << model.getStatus().message();
  Result<CheckpointState> state = loadCheckpoint(ortTrainingApiDir() + "/nominal_checkpoint");
  ASSERT_TRUE(state) << state.getStatus().message();
  ASSERT_TRUE(state->isNominal);
  Status status = exportInferenceModel(**model, state->parameters, tmp + "/m.onnx",
                                       {"output-0"});
  ASSERT_FALSE(status);
  EXPECT_THAT(status.message(), HasSubstr("has no data (the checkpoint state is nominal)"));
  EXPECT_TRUE(fs::is_empty(tmp));
}

TEST_F(ExportTest, CallerErrors) {
  Session session;
  ASSERT_NO_FATAL_FAILURE(openSession(modelDir("ort_mlp"),
                                      ortTrainingApiDir() + "/checkpoint.ckpt", session));
  const auto &params = session.module->parameters();
  Status unknown = exportInferenceModel(*session.model, params, tmp + "/m.onnx",
                                        {kLoss, "logits"});
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.message(), HasSubstr("'logits' is not a value of the eval graph"));
  Status none = exportInferenceModel(*session.model, params, tmp + "/m.onnx", {});
  ASSERT_FALSE(none);
  EXPECT_THAT(none.message(), HasSubstr("no output names given"));
  Status missing = exportInferenceModel(*session.model, {params[0]}, tmp + "/m.onnx",
                                        {"output-0"});
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.message(), HasSubstr("reads parameter 'fc1.bias', which is not "
                                           "among the parameters given"));
  Status unwritable = exportInferenceModel(*session.model, params,
                                           tmp + "/no/such/dir/m.onnx", {"output-0"});
  ASSERT_FALSE(unwritable);
  EXPECT_THAT(unwritable.message(), HasSubstr("No such file or directory"));
  EXPECT_TRUE(fs::is_empty(tmp));
  // Labels as an output: a graph input that stays one, no nodes.
  ASSERT_TRUE(exportInferenceModel(*session.model, params, tmp + "/labels.onnx",
                                   {"labels"}));
  GraphNames graph = readGraph(readFile(tmp + "/labels.onnx"));
  EXPECT_TRUE(graph.ops.empty());
  EXPECT_THAT(graph.inputs, ElementsAre("labels"));
  EXPECT_THAT(graph.outputs, ElementsAre("labels"));
  EXPECT_TRUE(graph.initializers.empty());
}

} // namespace
} // namespace odt::e2e
