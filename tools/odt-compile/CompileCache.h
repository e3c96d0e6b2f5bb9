//===- CompileCache.h - compiled models kept by what they were made from --===//
//
// A content-addressed cache of odt-compile's outputs: an entry is named by a
// BLAKE3 hash of everything the output depends on (the compiler's own
// executable, the LLVM version, the models' bytes, the checkpoint's
// parameter names, --input-value data, the resolved target and the options
// that change code) and holds the output files with a manifest of their
// sizes and hashes. An entry is checked before it is used: a foreign format
// version, a key that is not its folder's, a missing, resized or changed
// file all make it a miss (with a warning) that is recompiled and replaced,
// never loaded. Entries are written to a temporary folder and renamed into
// place; the least recently used are removed when the cache outgrows its
// limit.
//
//===----------------------------------------------------------------------===//

#ifndef ODT_TOOLS_COMPILECACHE_H
#define ODT_TOOLS_COMPILECACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/BLAKE3.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace odt {

/// Builds an entry's key from the inputs, in a fixed order.
class CacheKey {
public:
  /// Adds a labelled value (an option, a version).
  void addText(llvm::StringRef label, llvm::StringRef value);
  /// Adds a file's bytes under a label; false (with `error`) if it cannot
  /// be read.
  bool addFile(llvm::StringRef label, const std::string &path,
               std::string &error);
  /// The key: 64 hex digits.
  std::string finish();

private:
  llvm::BLAKE3 hasher;
};

class CompileCache {
public:
  /// `folder` when given, else $ODT_CACHE_DIR, else $XDG_CACHE_HOME/odt/
  /// compile, else ~/.cache/odt/compile.
  static std::string resolveFolder(const std::string &folder);

  explicit CompileCache(std::string folder, uint64_t limitBytes);

  struct File {
    std::string name, bytes;
  };
  /// The files of the entry `key` as checked against its manifest, or
  /// nullopt on a miss. An entry that fails its checks is reported through
  /// `warn`, removed, and is a miss.
  std::optional<std::vector<File>>
  fetch(const std::string &key,
        const std::function<void(const std::string &)> &warn);

  /// Stores the files `names` of `staging` as the entry `key`, then trims
  /// the cache to its limit. False (with `error`) if it could not be
  /// written; the cache is then as it was.
  bool store(const std::string &key, const std::string &staging,
             const std::vector<std::string> &names, std::string &error);

  const std::string &getFolder() const { return folder; }

private:
  void trim();

  std::string folder;
  uint64_t limitBytes;
};

} // namespace odt

#endif // ODT_TOOLS_COMPILECACHE_H
