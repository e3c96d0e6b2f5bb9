// libFuzzer: checkpoint bytes through the runtime's loader (the path
// OdtLoadCheckpoint and OdtLoadCheckpointFromBuffer take). Any input must
// give a state or an error, never a crash, a hang or a sanitizer report; a
// state that loads must save and load again.

#include "Checkpoint.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  odt::Result<odt::CheckpointState> state =
      odt::loadCheckpointFromBuffer(data, size);
  if (!state)
    return 0;
  static const std::string path =
      "/tmp/odt-checkpoint-fuzzer-" + std::to_string(::getpid()) + ".ckpt";
  if (odt::saveCheckpoint(*state, path, /*includeOptimizerState=*/true)) {
    odt::Result<odt::CheckpointState> again = odt::loadCheckpoint(path);
    if (!again)
      std::abort(); // what odt saved, odt must read
  }
  return 0;
}
