//===- CompileCache.cpp - compiled models kept by what they were made from ===//

#include "CompileCache.h"

#include "FileUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace odt {

namespace {

/// The first line of every manifest; an entry with another one was written
/// by another version of the cache and is not read.
constexpr llvm::StringLiteral kManifestHeader = "odt-compile cache 1";
constexpr llvm::StringLiteral kManifestName = "manifest";

std::string joinPath(llvm::StringRef dir, llvm::StringRef name) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

std::string hashBytes(llvm::StringRef bytes) {
  return llvm::toHex(llvm::BLAKE3::hash(llvm::arrayRefFromStringRef(bytes)),
                     /*LowerCase=*/true);
}

/// Writes `bytes` to `path` with the runtime's atomic writer (a temporary
/// file, fsync, rename): an entry's files are complete once renamed.
bool writeFile(const std::string &path, llvm::StringRef bytes,
               std::string &error) {
  Status written =
      writeFileAtomically(path, {{bytes.data(), bytes.size()}}, "cache file");
  if (!written)
    error = written.message();
  return static_cast<bool>(written);
}

uint64_t folderBytes(const std::string &folder) {
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(folder, ec), end; !ec && it != end;
       it.increment(ec))
    if (auto status = it->status())
      total += status->getSize();
  return total;
}

} // namespace

void CacheKey::addText(llvm::StringRef label, llvm::StringRef value) {
  // Lengths first: ("ab", "c") and ("a", "bc") must differ.
  hasher.update(llvm::formatv("{0}:{1}:", label.size(), label).str());
  hasher.update(std::to_string(value.size()) + ":");
  hasher.update(value);
}

bool CacheKey::addFile(llvm::StringRef label, const std::string &path,
                       std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!bytes) {
    error = "cannot read '" + path + "': " + bytes.getError().message();
    return false;
  }
  addText(label, (*bytes)->getBuffer());
  return true;
}

std::string CacheKey::finish() {
  return llvm::toHex(hasher.final(), /*LowerCase=*/true);
}

std::string CompileCache::resolveFolder(const std::string &folder) {
  if (!folder.empty())
    return folder;
  if (const char *env = std::getenv("ODT_CACHE_DIR"); env && *env)
    return env;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return joinPath(joinPath(xdg, "odt"), "compile");
  llvm::SmallString<256> home;
  if (!llvm::sys::path::home_directory(home))
    return "";
  return joinPath(joinPath(joinPath(home, ".cache"), "odt"), "compile");
}

CompileCache::CompileCache(std::string folder, uint64_t limitBytes)
    : folder(std::move(folder)), limitBytes(limitBytes) {}

std::optional<std::vector<CompileCache::File>>
CompileCache::fetch(const std::string &key,
                    const std::function<void(const std::string &)> &warn) {
  std::string entry = joinPath(folder, key);
  if (!llvm::sys::fs::is_directory(entry))
    return std::nullopt;
  auto reject = [&](const std::string &why) {
    warn("cache entry '" + entry + "' " + why +
         "; compiling again and replacing it");
    llvm::sys::fs::remove_directories(entry);
    return std::nullopt;
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> manifest =
      llvm::MemoryBuffer::getFile(joinPath(entry, kManifestName));
  if (!manifest)
    return reject("has no manifest");
  llvm::SmallVector<llvm::StringRef> lines;
  (*manifest)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  if (lines.empty() || lines[0] != kManifestHeader)
    return reject("was written by another version of odt-compile's cache");
  if (lines.size() < 2 || lines[1] != ("key " + key))
    return reject("does not hold the key it is named by");
  std::vector<File> files;
  for (llvm::StringRef line : llvm::ArrayRef(lines).drop_front(2)) {
    // file NAME SIZE HASH
    llvm::SmallVector<llvm::StringRef> fields;
    line.split(fields, ' ');
    uint64_t size = 0;
    if (fields.size() != 4 || fields[0] != "file" || fields[1].contains('/') ||
        fields[1].starts_with(".") || fields[2].getAsInteger(10, size))
      return reject("has a malformed manifest");
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
        llvm::MemoryBuffer::getFile(joinPath(entry, fields[1]),
                                    /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!bytes)
      return reject("lacks its file '" + fields[1].str() + "'");
    if ((*bytes)->getBufferSize() != size ||
        hashBytes((*bytes)->getBuffer()) != fields[3])
      return reject("holds a changed '" + fields[1].str() +
                    "' (size or hash differs from its manifest)");
    files.push_back({fields[1].str(), (*bytes)->getBuffer().str()});
  }
  if (files.empty())
    return reject("lists no files");
  // Recently used entries are the last to go.
  int descriptor = -1;
  if (!llvm::sys::fs::openFileForWrite(
          joinPath(entry, kManifestName), descriptor,
          llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_Append)) {
    auto now = std::chrono::system_clock::now();
    (void)llvm::sys::fs::setLastAccessAndModificationTime(
        descriptor,
        llvm::sys::toTimePoint(std::chrono::system_clock::to_time_t(now)));
    llvm::sys::Process::SafelyCloseFileDescriptor(descriptor);
  }
  return files;
}

bool CompileCache::store(const std::string &key, const std::string &staging,
                         const std::vector<std::string> &names,
                         std::string &error) {
  if (std::error_code ec = llvm::sys::fs::create_directories(folder)) {
    error = "cannot create '" + folder + "': " + ec.message();
    return false;
  }
  std::string temp =
      joinPath(folder, ".tmp-" + key + "-" +
                           std::to_string(llvm::sys::Process::getProcessId()));
  llvm::sys::fs::remove_directories(temp);
  auto fail = [&](const std::string &message) {
    error = message;
    llvm::sys::fs::remove_directories(temp);
    return false;
  };
  if (std::error_code ec = llvm::sys::fs::create_directories(temp))
    return fail("cannot create '" + temp + "': " + ec.message());
  std::string manifest = (kManifestHeader + "\nkey " + key + "\n").str();
  for (const std::string &name : names) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
        llvm::MemoryBuffer::getFile(joinPath(staging, name), /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!bytes)
      return fail("cannot read '" + joinPath(staging, name) +
                  "': " + bytes.getError().message());
    std::string message;
    if (!writeFile(joinPath(temp, name), (*bytes)->getBuffer(), message))
      return fail(message);
    manifest += "file " + name + " " +
                std::to_string((*bytes)->getBufferSize()) + " " +
                hashBytes((*bytes)->getBuffer()) + "\n";
  }
  std::string message;
  if (!writeFile(joinPath(temp, kManifestName), manifest, message))
    return fail(message);
  std::string entry = joinPath(folder, key);
  // Another odt-compile may have stored the same entry meanwhile: the same
  // key is the same output, so theirs stays.
  if (llvm::sys::fs::exists(entry)) {
    llvm::sys::fs::remove_directories(temp);
    return true;
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, entry)) {
    if (llvm::sys::fs::exists(entry)) {
      llvm::sys::fs::remove_directories(temp);
      return true;
    }
    return fail("cannot move '" + temp + "' to '" + entry +
                "': " + ec.message());
  }
  trim();
  return true;
}

void CompileCache::trim() {
  struct Entry {
    std::string path;
    llvm::sys::TimePoint<> used;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(folder, ec), end; !ec && it != end;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (name.size() != 64 || !llvm::all_of(name, llvm::isHexDigit))
      continue;
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(joinPath(it->path(), kManifestName), status))
      continue;
    uint64_t bytes = folderBytes(it->path());
    entries.push_back({it->path(), status.getLastModificationTime(), bytes});
    total += bytes;
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.used < b.used; });
  // The newest entry stays even when it alone is over the limit.
  for (size_t i = 0; i + 1 < entries.size() && total > limitBytes; ++i) {
    llvm::sys::fs::remove_directories(entries[i].path);
    total -= entries[i].bytes;
  }
}

} // namespace odt
