// libFuzzer: model descriptor bytes (the flatbuffer every compiled model
// embeds) through the runtime's verification, as a model linked into a
// program would give them. Entry points resolve to a function that must
// never be called; the runtime hooks (P_set_allocator, P_set_parallel) are
// absent. Any input must give a model or an error.

#include "CompiledModel.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

void neverCalled(void **) { std::abort(); }

void *resolve(void *, const char *name) {
  if (std::string(name).find("_set_") != std::string::npos)
    return nullptr;
  return reinterpret_cast<void *>(&neverCalled);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)odt::CompiledModel::fromDescriptor(data, size, resolve, nullptr,
                                           "fuzzed descriptor");
  return 0;
}
