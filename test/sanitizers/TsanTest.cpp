// Independent sessions in parallel threads, under ThreadSanitizer: each
// thread has its own checkpoint state and session (with its own thread pool
// of 2), trains the default model and ORT's MLP, and must get exactly the
// losses of the same training run alone. TSan fails the test on any data
// race inside libodt (the pool, the step allocator, the global seed, model
// loading); the models' generated code is not instrumented.

#include "CApiTestUtil.h"

#include <thread>

namespace capi {
namespace {

std::vector<float> train(const std::string &checkpoint,
                         const std::string &model, const Inputs &inputs,
                         int steps) {
  State state = loadState(checkpoint);
  Session session = createSession(state.get(), model);
  EXPECT_TRUE(Ok(OdtSetSessionThreads(session.get(), 2)));
  std::vector<float> losses;
  for (int i = 0; i < steps; ++i) {
    losses.push_back(trainStep(session.get(), inputs));
    EXPECT_TRUE(Ok(OdtOptimizerStep(session.get())));
    EXPECT_TRUE(Ok(OdtLazyResetGrad(session.get())));
  }
  return losses;
}

TEST(TsanTest, IndependentSessionsInParallelThreads) {
  const Inputs smallBatch = defaultInputs();
  const Inputs ortBatch = ortInputs();
  const std::string smallCheckpoint = defaultData() + "/checkpoint";
  const std::string ortCheckpoint = ortData("checkpoint.ckpt");
  const int steps = 6;
  std::vector<float> smallAlone =
      train(smallCheckpoint, defaultModel(), smallBatch, steps);
  std::vector<float> ortAlone =
      train(ortCheckpoint, modelDir("ort_mlp"), ortBatch, steps);

  std::vector<std::vector<float>> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t]() {
      results[t] = t % 2 ? train(ortCheckpoint, modelDir("ort_mlp"), ortBatch,
                                 steps)
                         : train(smallCheckpoint, defaultModel(), smallBatch,
                                 steps);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_TRUE(sameBits(results[t], t % 2 ? ortAlone : smallAlone))
        << "thread " << t;
}

} // namespace
} // namespace capi
