// libFuzzer: .npy bytes through the runtime's parser (odt-run's inputs).
// Any input must give a tensor or an error; a tensor's element count must
// match the bytes it holds.

#include "Npy.h"

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  odt::Result<odt::Tensor> tensor = odt::readNpyFromBuffer(data, size);
  if (tensor && tensor->byteSize() > size)
    std::abort(); // a tensor larger than its file: sizes were not checked
  return 0;
}
