// The C API linked from the static odt_runtime, for what the public library
// cannot reach: the runtime's write-failure hook (a "full disk") and its
// external-data threshold.

#include "CApiTestUtil.h"

#include "Checkpoint.h"
#include "FileUtil.h"

namespace capi {
namespace {

/// Disarms the write-failure hook however the test ends.
struct DiskFull {
  explicit DiskFull(int64_t bytes) { odt::testing::setWriteFailureAfterBytes(bytes); }
  ~DiskFull() { odt::testing::setWriteFailureAfterBytes(-1); }
};

// SaveCheckpoint onto a full disk: an error saying so, the old checkpoint
// byte-identical, no temporary file left behind; then a save succeeds.
TEST(RuntimeHookTest, SaveOntoAFullDiskKeepsTheOldCheckpoint) {
  std::string dir = freshDir();
  std::string path = dir + "/model.ckpt";
  State state = loadState(defaultData() + "/checkpoint");
  Session session = createSession(state.get(), defaultModel());
  ASSERT_TRUE(session);
  Inputs inputs = defaultInputs();
  train(session.get(), inputs, 2);
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(state.get(), path.c_str(), true)));
  std::vector<uint8_t> old = readFile(path);
  ASSERT_GT(old.size(), 1000u);

  train(session.get(), inputs, 2); // the state moves on
  for (int64_t allowed : {int64_t(0), int64_t(1), int64_t(100), int64_t(old.size() / 2),
                          int64_t(old.size()) - 1}) {
    SCOPED_TRACE(allowed);
    {
      DiskFull full(allowed);
      EXPECT_TRUE(Fails(OdtSaveCheckpoint(state.get(), path.c_str(), true),
                        {"model.ckpt", "No space left on device"}));
    }
    EXPECT_EQ(readFile(path), old) << "the old checkpoint was damaged";
    EXPECT_EQ(listDir(dir), std::vector<std::string>{"model.ckpt"})
        << "a temporary file was left behind";
    // A new file that cannot be written is not created at all.
    {
      DiskFull full(allowed);
      EXPECT_TRUE(Fails(OdtSaveCheckpoint(state.get(), (dir + "/new.ckpt").c_str(), true),
                        {"new.ckpt", "No space left on device"}));
    }
    EXPECT_FALSE(exists(dir + "/new.ckpt"));
  }
  // The same state is still good and saves once there is room.
  ASSERT_TRUE(Ok(OdtSaveCheckpoint(state.get(), path.c_str(), true)));
  std::vector<uint8_t> now = readFile(path);
  EXPECT_NE(now, old);
  State reloaded = loadState(path);
  EXPECT_TRUE(sameBits(parameters(reloaded.get(), kMlpParameters),
                       parameters(state.get(), kMlpParameters)));
}

// ExportModelForInferencing onto a full disk: the previous export survives.
TEST(RuntimeHookTest, ExportOntoAFullDiskKeepsTheOldModel) {
  std::string dir = freshDir();
  std::string path = dir + "/inference.onnx";
  State state = loadState(defaultData() + "/checkpoint");
  Session session = createSession(state.get(), defaultModel());
  const char *outputs[] = {"logits"};
  ASSERT_TRUE(Ok(OdtExportModelForInferencing(session.get(), path.c_str(), 1, outputs)));
  std::vector<uint8_t> old = readFile(path);
  train(session.get(), defaultInputs(), 2);
  {
    DiskFull full(int64_t(old.size() / 2));
    EXPECT_TRUE(Fails(OdtExportModelForInferencing(session.get(), path.c_str(), 1, outputs),
                      {"inference.onnx", "No space left on device"}));
  }
  EXPECT_EQ(readFile(path), old);
  EXPECT_EQ(listDir(dir), std::vector<std::string>{"inference.onnx"});
  ASSERT_TRUE(Ok(OdtExportModelForInferencing(session.get(), path.c_str(), 1, outputs)));
  EXPECT_NE(readFile(path), old) << "the trained parameters were not exported";
}

// odt's own external-data writer (the C API cannot lower the 1.8 GB
// threshold): a state trained through the C API, re-saved by the runtime with
// every tensor of 64 bytes or more in <checkpoint>.data, then read back
// through the C API — parameters, optimizer state and properties — and
// training continues exactly as from the inline checkpoint.
TEST(RuntimeHookTest, ExternalDataSavedByTheRuntime) {
  std::string dir = freshDir();
  std::string inlinePath = dir + "/inline.ckpt", externalPath = dir + "/external.ckpt";
  Inputs inputs = defaultInputs();
  {
    State state = loadState(defaultData() + "/checkpoint");
    Session session = createSession(state.get(), defaultModel());
    train(session.get(), inputs, 3);
    int64_t epoch = 3;
    ASSERT_TRUE(Ok(OdtAddProperty(state.get(), "epoch", ODT_INT_PROPERTY, &epoch)));
    ASSERT_TRUE(Ok(OdtSaveCheckpoint(state.get(), inlinePath.c_str(), true)));
  }
  odt::Result<odt::CheckpointState> loaded = odt::loadCheckpoint(inlinePath);
  ASSERT_TRUE(loaded) << loaded.getStatus().message();
  odt::Status saved = odt::saveCheckpoint(*loaded, externalPath, true, /*threshold=*/0);
  ASSERT_TRUE(saved) << saved.message();
  ASSERT_TRUE(exists(externalPath + ".data"));
  EXPECT_LT(readFile(externalPath).size(), readFile(inlinePath).size() / 2)
      << "the tensors did not move to the .data file";

  State external = loadState(externalPath);
  State inline_ = loadState(inlinePath);
  ASSERT_TRUE(external && inline_);
  EXPECT_TRUE(sameBits(parameters(external.get(), kMlpParameters),
                       parameters(inline_.get(), kMlpParameters)));
  OdtPropertyType type;
  const void *value = nullptr;
  ASSERT_TRUE(Ok(OdtGetProperty(external.get(), "epoch", &type, &value)));
  EXPECT_EQ(*static_cast<const int64_t *>(value), 3);
  Session a = createSession(external.get(), defaultModel());
  Session b = createSession(inline_.get(), defaultModel());
  EXPECT_TRUE(sameBits(train(a.get(), inputs, 3), train(b.get(), inputs, 3)))
      << "the optimizer state did not survive the external data round trip";

  // The C API saves the small state inline again, and a full disk while the
  // runtime writes the .data file leaves both old files intact.
  std::vector<uint8_t> oldCheckpoint = readFile(externalPath);
  std::vector<uint8_t> oldData = readFile(externalPath + ".data");
  {
    DiskFull full(int64_t(oldData.size() / 2));
    odt::Status failed = odt::saveCheckpoint(*loaded, externalPath, true, 0);
    EXPECT_FALSE(failed);
    EXPECT_NE(failed.message().find("No space left on device"), std::string::npos)
        << failed.message();
  }
  EXPECT_EQ(readFile(externalPath), oldCheckpoint);
  EXPECT_EQ(readFile(externalPath + ".data"), oldData);
}

} // namespace
} // namespace capi
