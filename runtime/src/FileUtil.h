// File helpers shared by the runtime's readers and writers: whole-file reads,
// positioned reads from a large file, and atomic replacement of a file
// (temporary file in the same folder, fsync, rename, fsync of the folder).
// Every failure is a Status naming the file and the OS error; nothing throws.

#ifndef ODT_RUNTIME_FILEUTIL_H
#define ODT_RUNTIME_FILEUTIL_H

#include "Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace odt {

/// Reads the whole of a file. `what` names it in messages ("checkpoint" gives
/// "cannot open checkpoint '/x': No such file or directory"). Files larger
/// than `maxSize` bytes are refused before anything is allocated.
Result<std::vector<uint8_t>> readWholeFile(const std::string &path,
                                           const std::string &what = "file",
                                           uint64_t maxSize = UINT64_MAX);

/// A file opened for positioned reads (external tensor data).
class ReadOnlyFile {
public:
  ReadOnlyFile() = default;
  ReadOnlyFile(const ReadOnlyFile &) = delete;
  ReadOnlyFile &operator=(const ReadOnlyFile &) = delete;
  ReadOnlyFile(ReadOnlyFile &&other) noexcept;
  ReadOnlyFile &operator=(ReadOnlyFile &&other) noexcept;
  ~ReadOnlyFile();

  /// Opens `path` (a regular file) and records its size.
  Status open(const std::string &path, const std::string &what = "file");
  uint64_t size() const { return fileSize; }
  const std::string &path() const { return filePath; }
  /// Reads exactly `length` bytes at `offset`; a short read is an error.
  Status readAt(uint64_t offset, void *buffer, size_t length) const;

private:
  int fd = -1;
  uint64_t fileSize = 0;
  std::string filePath;
  std::string label;
};

/// Writes a file so that readers see either the old or the new contents,
/// never a mix: the bytes go to a temporary file next to `path`, which
/// finish() fsyncs and closes and commit() renames over `path` (then fsyncs
/// the folder). Destroying the writer before commit() removes the temporary
/// file, leaving any existing file at `path` untouched.
///
/// Splitting finish() from commit() lets a caller write several files (a
/// checkpoint and its .data file) completely before replacing any of them.
class AtomicFileWriter {
public:
  AtomicFileWriter() = default;
  AtomicFileWriter(const AtomicFileWriter &) = delete;
  AtomicFileWriter &operator=(const AtomicFileWriter &) = delete;
  ~AtomicFileWriter();

  /// Creates the temporary file for `path`. `what` names it in messages.
  Status open(const std::string &path, const std::string &what = "file");
  Status write(const void *data, size_t size);
  /// Writes `count` zero bytes (alignment padding).
  Status writeZeros(size_t count);
  /// fsync + close of the temporary file.
  Status finish();
  /// Renames the finished temporary file over the target and fsyncs the
  /// folder.
  Status commit();
  /// Closes and removes the temporary file (idempotent).
  void abandon();

  const std::string &temporaryPath() const { return tempPath; }

private:
  Status fail(const std::string &action, int error);

  int fd = -1;
  bool finished = false;
  std::string targetPath;
  std::string tempPath;
  std::string label;
};

/// One contiguous piece of a file to write.
struct ByteSpan {
  const void *data;
  size_t size;
};

/// open + write all pieces + finish + commit.
Status writeFileAtomically(const std::string &path,
                           const std::vector<ByteSpan> &pieces,
                           const std::string &what = "file");

/// The folder part of `path` ("." when there is none).
std::string parentDirectory(const std::string &path);

namespace testing {
/// Failure injection for tests of atomic writes. While armed (bytes >= 0),
/// AtomicFileWriter::write lets `bytes` more bytes through, counted across
/// all writers of the process, and then fails as if the disk were full
/// (ENOSPC), so the temporary file is left partly written and the writer's
/// clean-up path runs. Disarm with -1 (the default). Not for production use;
/// the counter is atomic but tests arming it should not write concurrently.
void setWriteFailureAfterBytes(int64_t bytes);
} // namespace testing

} // namespace odt

#endif // ODT_RUNTIME_FILEUTIL_H
