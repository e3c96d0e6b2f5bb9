// OdtCreateTrainingSessionFromLinkedModel: the default model compiled with
// `odt-compile --name capi_linked` and its model.o linked into this program.
// model.h (included after odt.h) defines capi_linked_linked_model() and
// capi_linked_resolve(); a hand-made OdtLinkedModel with its own resolver
// and context works too.

#include "CApiTestUtil.h"

#include "model.h"

namespace capi {
namespace {

/// A resolver of the user's own: counts its calls in `context`.
void *resolve(void *context, const char *symbol) {
  ++*static_cast<int *>(context);
  struct Entry {
    const char *name;
    void (*function)(void **);
  };
  static const Entry entries[] = {{"capi_linked_train", capi_linked_train},
                                  {"capi_linked_eval", capi_linked_eval},
                                  {"capi_linked_optimizer", capi_linked_optimizer}};
  for (const Entry &entry : entries)
    if (std::strcmp(entry.name, symbol) == 0)
      return reinterpret_cast<void *>(entry.function);
  return nullptr;
}

void *resolveNothing(void *, const char *) { return nullptr; }

OdtLinkedModel linkedModel(int *calls) {
  OdtLinkedModel model;
  model.descriptor = capi_linked_descriptor;
  model.descriptor_size = capi_linked_descriptor_size;
  model.resolve = resolve;
  model.context = calls;
  return model;
}

TEST(LinkedModelTest, TrainsLikeTheSharedLibrary) {
  OdtLinkedModel model = capi_linked_linked_model();
  State state = loadState(defaultData() + "/checkpoint");
  OdtTrainingSession *raw = nullptr;
  ASSERT_TRUE(Ok(OdtCreateTrainingSessionFromLinkedModel(state.get(), &model, &raw)));
  Session linked(raw);

  State other = loadState(defaultData() + "/checkpoint");
  Session loaded = createSession(other.get(), defaultModel());
  Inputs inputs = defaultInputs();
  ASSERT_TRUE(Ok(OdtSetLearningRate(linked.get(), 0.01f)));
  ASSERT_TRUE(Ok(OdtSetLearningRate(loaded.get(), 0.01f)));
  std::vector<float> a = train(linked.get(), inputs, 5);
  std::vector<float> b = train(loaded.get(), inputs, 5);
  EXPECT_TRUE(sameBits(a, b)) << ::testing::PrintToString(a) << " vs "
                              << ::testing::PrintToString(b);
  EXPECT_LT(a.back(), a.front());
  EXPECT_EQ(evalStep(linked.get(), defaultInputs(false)),
            evalStep(loaded.get(), defaultInputs(false)));
}

TEST(LinkedModelTest, OwnResolverAndContext) {
  int calls = 0;
  OdtLinkedModel model = linkedModel(&calls);
  EXPECT_EQ(capi_linked_resolve(nullptr, "capi_linked_eval"),
            reinterpret_cast<void *>(capi_linked_eval));
  EXPECT_EQ(capi_linked_resolve(nullptr, "capi_linked_nothing"), nullptr);
  State state = loadState(defaultData() + "/checkpoint");
  OdtTrainingSession *raw = nullptr;
  ASSERT_TRUE(Ok(OdtCreateTrainingSessionFromLinkedModel(state.get(), &model, &raw)));
  Session linked(raw);
  EXPECT_GE(calls, 3) << "the resolver was asked for the three entry points";
  EXPECT_GT(trainStep(linked.get(), defaultInputs()), 0.0f);
  // The descriptor and resolver are not needed after creation.
  model = OdtLinkedModel();
  EXPECT_TRUE(Ok(OdtOptimizerStep(linked.get())));
}

TEST(LinkedModelTest, BadLinkedModels) {
  int calls = 0;
  State state = loadState(defaultData() + "/checkpoint");
  OdtTrainingSession *raw = nullptr;

  OdtLinkedModel noResolver = linkedModel(&calls);
  noResolver.resolve = nullptr;
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionFromLinkedModel(state.get(), &noResolver, &raw),
                    {"resolver"}));
  OdtLinkedModel noDescriptor = linkedModel(&calls);
  noDescriptor.descriptor = nullptr;
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionFromLinkedModel(state.get(), &noDescriptor, &raw),
                    {"descriptor"}));
  OdtLinkedModel missing = linkedModel(&calls);
  missing.resolve = resolveNothing;
  EXPECT_TRUE(Fails(OdtCreateTrainingSessionFromLinkedModel(state.get(), &missing, &raw),
                    {"capi_linked_", "missing"}));
  // (Cutting only the last string's NUL padding would lose nothing.)
  for (uint64_t size : {uint64_t(0), uint64_t(8), capi_linked_descriptor_size / 2,
                        capi_linked_descriptor_size * 3 / 4}) {
    OdtLinkedModel truncated = linkedModel(&calls);
    truncated.descriptor_size = size;
    EXPECT_TRUE(Fails(OdtCreateTrainingSessionFromLinkedModel(state.get(), &truncated, &raw),
                      {}))
        << "descriptor of " << size << " bytes";
  }
  EXPECT_EQ(raw, nullptr);
}

} // namespace
} // namespace capi
