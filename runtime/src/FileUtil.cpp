#include "FileUtil.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace odt {
namespace {

std::atomic<int64_t> writeFailureBudget{-1};
std::atomic<uint64_t> temporaryCounter{0};

/// Largest single read()/write() request; Linux caps them near 2 GiB anyway.
constexpr size_t kMaxIoChunk = size_t(1) << 30;

std::string errorText(int error) { return std::strerror(error); }

std::string quoted(const std::string &what, const std::string &path) {
  return what + " '" + path + "'";
}

void closeQuietly(int fd) {
  if (fd >= 0)
    ::close(fd);
}

} // namespace

namespace testing {
void setWriteFailureAfterBytes(int64_t bytes) { writeFailureBudget.store(bytes); }
} // namespace testing

std::string parentDirectory(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

Result<std::vector<uint8_t>> readWholeFile(const std::string &path,
                                           const std::string &what,
                                           uint64_t maxSize) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::error("cannot open " + quoted(what, path) + ": " + errorText(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    int error = errno;
    closeQuietly(fd);
    return Status::error("cannot read " + quoted(what, path) + ": " + errorText(error));
  }
  if (S_ISDIR(info.st_mode)) {
    closeQuietly(fd);
    return Status::error("cannot read " + quoted(what, path) + ": " + errorText(EISDIR));
  }
  bool regular = S_ISREG(info.st_mode);
  uint64_t expected = regular && info.st_size > 0 ? uint64_t(info.st_size) : 0;
  if (expected > maxSize) {
    closeQuietly(fd);
    return Status::error(quoted(what, path) + " is too large (" + std::to_string(expected) +
                         " bytes, the limit is " + std::to_string(maxSize) + ")");
  }

  // Past `limit` bytes the file is too large; reading one byte more than a
  // regular file's size detects EOF (or growth) without another round.
  uint64_t limit = maxSize == UINT64_MAX ? uint64_t(SIZE_MAX) : maxSize + 1;
  std::vector<uint8_t> bytes;
  size_t filled = 0;
  try {
    bytes.resize(size_t(std::min<uint64_t>(regular ? expected + 1 : 65536, limit)));
    for (;;) {
      if (filled == bytes.size()) {
        if (filled > maxSize)
          break;
        uint64_t grown = std::min<uint64_t>(uint64_t(bytes.size()) * 2 + 4096, limit);
        bytes.resize(size_t(grown));
      }
      size_t want = std::min(bytes.size() - filled, kMaxIoChunk);
      ssize_t n = ::read(fd, bytes.data() + filled, want);
      if (n < 0) {
        if (errno == EINTR)
          continue;
        int error = errno;
        closeQuietly(fd);
        return Status::error("cannot read " + quoted(what, path) + ": " + errorText(error));
      }
      if (n == 0)
        break;
      filled += size_t(n);
    }
    bytes.resize(filled);
  } catch (const std::bad_alloc &) {
    closeQuietly(fd);
    return Status::error("cannot read " + quoted(what, path) + ": out of memory (" +
                         std::to_string(expected) + " bytes)");
  }
  if (filled > maxSize) {
    closeQuietly(fd);
    return Status::error(quoted(what, path) + " is too large (more than " +
                         std::to_string(maxSize) + " bytes)");
  }
  closeQuietly(fd);
  return bytes;
}

ReadOnlyFile::ReadOnlyFile(ReadOnlyFile &&other) noexcept
    : fd(other.fd), fileSize(other.fileSize), filePath(std::move(other.filePath)),
      label(std::move(other.label)) {
  other.fd = -1;
}

ReadOnlyFile &ReadOnlyFile::operator=(ReadOnlyFile &&other) noexcept {
  if (this != &other) {
    closeQuietly(fd);
    fd = other.fd;
    fileSize = other.fileSize;
    filePath = std::move(other.filePath);
    label = std::move(other.label);
    other.fd = -1;
  }
  return *this;
}

ReadOnlyFile::~ReadOnlyFile() { closeQuietly(fd); }

Status ReadOnlyFile::open(const std::string &path, const std::string &what) {
  closeQuietly(fd);
  fd = -1;
  filePath = path;
  label = what;
  int handle = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (handle < 0)
    return Status::error("cannot open " + quoted(what, path) + ": " + errorText(errno));
  struct stat info;
  if (::fstat(handle, &info) != 0) {
    int error = errno;
    closeQuietly(handle);
    return Status::error("cannot read " + quoted(what, path) + ": " + errorText(error));
  }
  if (!S_ISREG(info.st_mode)) {
    closeQuietly(handle);
    return Status::error("cannot read " + quoted(what, path) + ": not a regular file");
  }
  fd = handle;
  fileSize = uint64_t(info.st_size);
  return Status::ok();
}

Status ReadOnlyFile::readAt(uint64_t offset, void *buffer, size_t length) const {
  if (fd < 0)
    return Status::error("cannot read " + quoted(label, filePath) + ": not open");
  if (offset > fileSize || length > fileSize - offset)
    return Status::error(quoted(label, filePath) + " is too short: " + std::to_string(length) +
                         " bytes at offset " + std::to_string(offset) + " lie past its end (" +
                         std::to_string(fileSize) + " bytes)");
  auto *out = static_cast<uint8_t *>(buffer);
  size_t done = 0;
  while (done < length) {
    size_t want = std::min(length - done, kMaxIoChunk);
    ssize_t n = ::pread(fd, out + done, want, off_t(offset + done));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status::error("cannot read " + quoted(label, filePath) + ": " + errorText(errno));
    }
    if (n == 0)
      return Status::error(quoted(label, filePath) + " ended early: expected " +
                           std::to_string(length) + " bytes at offset " +
                           std::to_string(offset) + ", got " + std::to_string(done));
    done += size_t(n);
  }
  return Status::ok();
}

// ---------------------------------------------------------------------------
// Atomic writing
// ---------------------------------------------------------------------------

AtomicFileWriter::~AtomicFileWriter() { abandon(); }

namespace {

/// Removes the temporary files that writers of `base` in `dir` killed
/// mid-write left behind (".BASE.tmp-PID-N" whose process PID is gone), so
/// repeated crashes do not fill the folder. Files of live processes (this
/// one's other threads included) are in progress and stay.
void removeStaleTemporaries(const std::string &dir, const std::string &base) {
  DIR *folder = ::opendir(dir.c_str());
  if (!folder)
    return;
  std::string prefix = "." + base + ".tmp-";
  while (const dirent *entry = ::readdir(folder)) {
    std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0)
      continue;
    const char *digits = name.c_str() + prefix.size();
    char *end = nullptr;
    long pid = std::strtol(digits, &end, 10);
    if (end == digits || *end != '-' || pid <= 0 || pid == ::getpid())
      continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue; // alive, or not ours to judge
    ::unlink(((dir == "/" ? std::string("/") : dir + "/") + name).c_str());
  }
  ::closedir(folder);
}

} // namespace

Status AtomicFileWriter::open(const std::string &path, const std::string &what) {
  abandon();
  finished = false;
  targetPath = path;
  label = what;
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty() || base == "." || base == "..")
    return Status::error("cannot write " + quoted(what, path) + ": not a file name");
  std::string dir = parentDirectory(path);
  // Keep the temporary name within NAME_MAX even for long target names.
  if (base.size() > 200)
    base.resize(200);
  removeStaleTemporaries(dir, base);
  std::string prefix = (dir == "/" ? std::string("/") : dir + "/") + "." + base + ".tmp-" +
                       std::to_string(::getpid()) + "-";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string candidate = prefix + std::to_string(temporaryCounter.fetch_add(1));
    int handle = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (handle >= 0) {
      fd = handle;
      tempPath = candidate;
      return Status::ok();
    }
    if (errno != EEXIST)
      return Status::error("cannot write " + quoted(what, path) +
                           ": cannot create a temporary file in '" + dir + "': " +
                           errorText(errno));
  }
  return Status::error("cannot write " + quoted(what, path) +
                       ": cannot find a free temporary file name in '" + dir + "'");
}

Status AtomicFileWriter::fail(const std::string &action, int error) {
  std::string temp = tempPath;
  abandon();
  return Status::error("cannot write " + quoted(label, targetPath) + ": " + action +
                       " of temporary file '" + temp + "' failed: " + errorText(error));
}

Status AtomicFileWriter::write(const void *data, size_t size) {
  if (fd < 0 || finished)
    return Status::error("cannot write " + quoted(label, targetPath) + ": file is not open");
  const auto *bytes = static_cast<const uint8_t *>(data);
  size_t done = 0;
  while (done < size) {
    size_t want = std::min(size - done, kMaxIoChunk);
    int64_t budget = writeFailureBudget.load();
    if (budget >= 0) {
      if (budget == 0)
        return fail("write", ENOSPC); // injected by testing::setWriteFailureAfterBytes
      want = std::min(want, size_t(budget));
    }
    ssize_t n = ::write(fd, bytes + done, want);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fail("write", errno);
    }
    if (n == 0)
      return fail("write", EIO);
    if (budget >= 0)
      writeFailureBudget.fetch_sub(n);
    done += size_t(n);
  }
  return Status::ok();
}

Status AtomicFileWriter::writeZeros(size_t count) {
  static const uint8_t zeros[64] = {};
  while (count > 0) {
    size_t chunk = std::min(count, sizeof(zeros));
    ODT_RETURN_IF_ERROR(write(zeros, chunk));
    count -= chunk;
  }
  return Status::ok();
}

Status AtomicFileWriter::finish() {
  if (fd < 0 || finished)
    return Status::error("cannot write " + quoted(label, targetPath) + ": file is not open");
  while (::fsync(fd) != 0) {
    if (errno != EINTR)
      return fail("fsync", errno);
  }
  int handle = fd;
  fd = -1;
  if (::close(handle) != 0 && errno != EINTR)
    return fail("close", errno);
  finished = true;
  return Status::ok();
}

Status AtomicFileWriter::commit() {
  if (!finished || tempPath.empty())
    return Status::error("cannot write " + quoted(label, targetPath) +
                         ": temporary file was not finished");
  if (::rename(tempPath.c_str(), targetPath.c_str()) != 0)
    return fail("rename", errno);
  tempPath.clear();
  finished = false;
  // Make the rename itself durable.
  std::string dir = parentDirectory(targetPath);
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd < 0)
    return Status::error(quoted(label, targetPath) + " was written, but its folder '" + dir +
                         "' cannot be opened to sync it: " + errorText(errno));
  int result;
  while ((result = ::fsync(dirFd)) != 0 && errno == EINTR) {
  }
  int error = errno;
  closeQuietly(dirFd);
  // Some file systems cannot fsync a folder; that is not a failed write.
  if (result != 0 && error != EINVAL && error != ENOTSUP && error != EROFS)
    return Status::error(quoted(label, targetPath) + " was written, but syncing its folder '" +
                         dir + "' failed: " + errorText(error));
  return Status::ok();
}

void AtomicFileWriter::abandon() {
  closeQuietly(fd);
  fd = -1;
  if (!tempPath.empty())
    ::unlink(tempPath.c_str());
  tempPath.clear();
  finished = false;
}

Status writeFileAtomically(const std::string &path, const std::vector<ByteSpan> &pieces,
                           const std::string &what) {
  AtomicFileWriter writer;
  ODT_RETURN_IF_ERROR(writer.open(path, what));
  for (const ByteSpan &piece : pieces)
    ODT_RETURN_IF_ERROR(writer.write(piece.data, piece.size));
  ODT_RETURN_IF_ERROR(writer.finish());
  return writer.commit();
}

} // namespace odt
