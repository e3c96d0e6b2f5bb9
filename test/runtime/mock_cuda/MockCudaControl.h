// The mock CUDA driver's control functions (MockCudaDriver.cpp), found in
// the loaded mock library by the tests that drive it.

#ifndef ODT_TEST_MOCK_CUDA_CONTROL_H
#define ODT_TEST_MOCK_CUDA_CONTROL_H

#include <dlfcn.h>

#include <sstream>
#include <string>
#include <vector>

namespace odt {
namespace test {

struct MockCudaControl {
  void (*reset)() = nullptr;
  int (*set)(const char *, long long) = nullptr;
  const char *(*log)() = nullptr;
  long long (*liveBytes)() = nullptr;
  int (*contextRefs)() = nullptr;

  /// Loads the mock at `path` (the same library the runtime then opens as
  /// its driver) and finds every control function; false with `error` set
  /// if one is missing.
  bool load(const char *path, std::string &error) {
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      error = dlerror();
      return false;
    }
    reset = reinterpret_cast<void (*)()>(dlsym(library, "odtMockCudaReset"));
    set = reinterpret_cast<int (*)(const char *, long long)>(
        dlsym(library, "odtMockCudaSet"));
    log = reinterpret_cast<const char *(*)()>(dlsym(library, "odtMockCudaLog"));
    liveBytes = reinterpret_cast<long long (*)()>(
        dlsym(library, "odtMockCudaLiveBytes"));
    contextRefs =
        reinterpret_cast<int (*)()>(dlsym(library, "odtMockCudaContextRefs"));
    if (!reset || !set || !log || !liveBytes || !contextRefs) {
      error = std::string("a control function is missing from ") + path;
      return false;
    }
    return true;
  }

  /// The log's lines from line `from` on that start with `prefix`.
  std::vector<std::string> logLines(const std::string &prefix,
                                    size_t from = 0) const {
    std::vector<std::string> lines;
    std::istringstream text(log());
    std::string line;
    for (size_t i = 0; std::getline(text, line); ++i)
      if (i >= from && line.compare(0, prefix.size(), prefix) == 0)
        lines.push_back(line);
    return lines;
  }
  size_t logLength() const { return logLines("").size(); }
};

} // namespace test
} // namespace odt

#endif // ODT_TEST_MOCK_CUDA_CONTROL_H
