// A model's kept panels (entry arguments with roles packed_panels and
// panels_stale, added by odt-compile) as the runtime checks them when a
// Module is created: a descriptor that pairs them wrongly, sizes them from
// symbols, names no parameter or gives train and eval different shapes is
// refused with a message naming the panels. The behaviour of well-formed
// ones on compiled models: e2e.OrtMlpTest.KeptPanelsFollowTheParameters.

#include "Checkpoint.h"
#include "CompiledModel.h"
#include "Module.h"

#include "model_generated.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace odt {
namespace {

using ::testing::HasSubstr;

struct PanelArg {
  std::string name;
  fb::ArgumentRole role;
  std::vector<int64_t> dims; // -1: the symbol "batch"
  int parameter;
  int dataType = 1;
};

void entryPointCall(void **) {}

/// A model with parameter "w" (f32 [4, 8]) and one eval entry point, or a
/// train and an eval one, each taking `args` (the same for both unless
/// `evalArgs` is given).
Result<std::shared_ptr<CompiledModel>>
modelWith(const std::vector<PanelArg> &args,
          const std::vector<PanelArg> *evalArgs = nullptr) {
  flatbuffers::FlatBufferBuilder fbb;
  auto makeArgs = [&](const std::vector<PanelArg> &list) {
    std::vector<flatbuffers::Offset<fb::Argument>> out;
    out.push_back(fb::CreateArgument(
        fbb, fbb.CreateString("w"), fb::ArgumentRole::Parameter, 1,
        fbb.CreateVector(std::vector<flatbuffers::Offset<fb::Dim>>{
            fb::CreateDim(fbb, 4), fb::CreateDim(fbb, 8)}),
        0, false));
    for (const PanelArg &arg : list) {
      std::vector<flatbuffers::Offset<fb::Dim>> dims;
      for (int64_t size : arg.dims)
        dims.push_back(size >= 0 ? fb::CreateDim(fbb, size)
                                 : fb::CreateDim(fbb, -1,
                                                 fbb.CreateString("batch")));
      out.push_back(fb::CreateArgument(fbb, fbb.CreateString(arg.name),
                                       arg.role, arg.dataType,
                                       fbb.CreateVector(dims), arg.parameter,
                                       true));
    }
    return fbb.CreateVector(out);
  };
  std::vector<flatbuffers::Offset<fb::EntryPoint>> entries;
  entries.push_back(fb::CreateEntryPoint(fbb, fb::EntryKind::Eval,
                                         fbb.CreateString("m_eval"),
                                         makeArgs(evalArgs ? *evalArgs : args)));
  if (evalArgs)
    entries.push_back(fb::CreateEntryPoint(fbb, fb::EntryKind::Train,
                                           fbb.CreateString("m_train"),
                                           makeArgs(args)));
  std::vector<flatbuffers::Offset<fb::ParameterInfo>> params = {
      fb::CreateParameterInfo(fbb, fbb.CreateString("w"), 1,
                              fbb.CreateVector(std::vector<int64_t>{4, 8}),
                              false)};
  auto model = fb::CreateModel(fbb, kModelABIVersion, fbb.CreateString("m"),
                               fbb.CreateString("test"),
                               fbb.CreateVector(params),
                               fbb.CreateVector(entries));
  fb::FinishModelBuffer(fbb, model);
  // The model has no runtime hooks (P_set_allocator, P_set_parallel): only
  // its entry points resolve.
  auto resolve = [](void *, const char *name) -> void * {
    std::string symbol = name;
    if (symbol.find("_set_") != std::string::npos)
      return nullptr;
    return reinterpret_cast<void *>(&entryPointCall);
  };
  return CompiledModel::fromDescriptor(fbb.GetBufferPointer(), fbb.GetSize(),
                                       resolve, nullptr, "panels-model");
}

Status createModule(const std::vector<PanelArg> &args,
                    const std::vector<PanelArg> *evalArgs = nullptr) {
  Result<std::shared_ptr<CompiledModel>> model = modelWith(args, evalArgs);
  if (!model)
    return model.getStatus();
  CheckpointState state;
  auto param = std::make_shared<Parameter>();
  param->name = "w";
  param->requiresGrad = false;
  param->data = Tensor::zeros(DataType::Float, {4, 8});
  state.parameters.push_back(param);
  Result<std::unique_ptr<Module>> module = Module::create(*model, &state);
  return module ? Status::ok() : module.getStatus();
}

const fb::ArgumentRole kPanels = fb::ArgumentRole::PackedPanels;
const fb::ArgumentRole kStale = fb::ArgumentRole::PanelsStale;

TEST(PanelCacheTest, WellFormedPanelsAreAccepted) {
  std::vector<PanelArg> args = {{"w.panels_t_32", kPanels, {1, 8, 32}, 0},
                                {"w.panels_t_32.stale", kStale, {1}, 0, 9}};
  Status status = createModule(args);
  EXPECT_TRUE(status) << status.message();
  // Train and eval share panels of one name and shape.
  status = createModule(args, &args);
  EXPECT_TRUE(status) << status.message();
}

TEST(PanelCacheTest, MalformedPanelsAreRefused) {
  struct Case {
    const char *what;
    std::vector<PanelArg> args;
    const char *message;
  };
  std::vector<Case> cases = {
      {"no stale flag", {{"w.panels_t_32", kPanels, {1, 8, 32}, 0}},
       "has no stale flag"},
      {"a flag of another name",
       {{"w.panels_t_32", kPanels, {1, 8, 32}, 0},
        {"w.panels_32.stale", kStale, {1}, 0, 9}},
       "has no stale flag"},
      {"symbolic dims",
       {{"w.panels_t_32", kPanels, {1, -1, 32}, 0},
        {"w.panels_t_32.stale", kStale, {1}, 0, 9}},
       "its dims must be static"},
      {"no parameter",
       {{"w.panels_t_32", kPanels, {1, 8, 32}, -1},
        {"w.panels_t_32.stale", kStale, {1}, -1, 9}},
       "names no parameter"},
  };
  for (const Case &c : cases) {
    Status status = createModule(c.args);
    ASSERT_FALSE(status) << c.what;
    EXPECT_THAT(status.message(), HasSubstr("malformed panel cache 'w.panels"))
        << c.what;
    EXPECT_THAT(status.message(), HasSubstr(c.message)) << c.what;
  }
  // A parameter index past the model's is the descriptor loader's error.
  Status outside = createModule({{"w.panels_t_32", kPanels, {1, 8, 32}, 3},
                                 {"w.panels_t_32.stale", kStale, {1}, 3, 9}});
  ASSERT_FALSE(outside);
  EXPECT_THAT(outside.message(),
              HasSubstr("'w.panels_t_32' refers to a parameter that does not "
                        "exist"));
  std::vector<PanelArg> train = {{"w.panels_t_32", kPanels, {1, 8, 32}, 0},
                                 {"w.panels_t_32.stale", kStale, {1}, 0, 9}};
  std::vector<PanelArg> eval = {{"w.panels_t_32", kPanels, {2, 8, 32}, 0},
                                {"w.panels_t_32.stale", kStale, {1}, 0, 9}};
  Status status = createModule(train, &eval);
  ASSERT_FALSE(status);
  EXPECT_THAT(status.message(), HasSubstr("different shapes"));
}

} // namespace
} // namespace odt
