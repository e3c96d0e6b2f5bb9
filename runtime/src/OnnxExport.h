// ExportModelForInferencing without protobuf: odt-compile embeds an "export
// template" in the model descriptor (the eval model, serialized ONNX, with
// value_info for every value it could type; compiler/export), and the runtime
// rewrites it with a minimal protobuf wire-format reader and writer into an
// inference model: outputs set to the names asked for, nodes that cannot reach
// them pruned, unused inputs dropped, parameters turned into initializers that
// hold their current values.

#ifndef ODT_RUNTIME_ONNXEXPORT_H
#define ODT_RUNTIME_ONNXEXPORT_H

#include "Checkpoint.h"
#include "FileUtil.h"
#include "Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace odt {

class CompiledModel;

//===----------------------------------------------------------------------===//
// Protobuf wire format (https://protobuf.dev/programming-guides/encoding/)
//===----------------------------------------------------------------------===//

namespace protowire {

enum class WireType : uint8_t {
  Varint = 0,
  Fixed64 = 1,
  Bytes = 2, // length-delimited: strings, bytes, messages, packed fields
  Fixed32 = 5,
};

/// One field of a message as it lies in the buffer (nothing is copied).
struct Field {
  uint32_t number = 0;
  WireType type = WireType::Varint;
  /// Varint, Fixed32 and Fixed64 payloads.
  uint64_t value = 0;
  /// Bytes payload.
  const uint8_t *data = nullptr;
  size_t size = 0;
  /// The whole field, tag included, for verbatim copies.
  const uint8_t *raw = nullptr;
  size_t rawSize = 0;

  std::string_view bytes() const {
    return {reinterpret_cast<const char *>(data), size};
  }
};

/// Splits one message into its fields, in order (no recursion). Errors: a
/// truncated tag, varint or payload, a varint longer than 10 bytes, field
/// number 0 or above 2^29-1, groups (wire types 3 and 4, which ONNX never
/// uses) and the undefined wire types 6 and 7. `what` names the message in
/// messages ("GraphProto").
Result<std::vector<Field>> parseMessage(const uint8_t *data, size_t size,
                                        const char *what = "message");
inline Result<std::vector<Field>> parseMessage(std::string_view bytes,
                                               const char *what = "message") {
  return parseMessage(reinterpret_cast<const uint8_t *>(bytes.data()),
                      bytes.size(), what);
}

/// Appends the varint encoding of `value` (negative int64 values are
/// written as their 64-bit two's complement, 10 bytes, as protobuf does).
void appendVarint(std::string &out, uint64_t value);

/// Builds a message as a list of pieces, so large payloads (parameter data)
/// can be referenced instead of copied. Borrowed memory must outlive the
/// writer and every piece list taken from it.
class Writer {
public:
  void varint(uint32_t number, uint64_t value);
  /// A length-delimited field (string, bytes), copied.
  void bytes(uint32_t number, std::string_view payload);
  /// A length-delimited field whose payload is referenced, not copied.
  void borrowedBytes(uint32_t number, const void *data, size_t size);
  /// A nested message (moved in).
  void message(uint32_t number, Writer &&message);
  /// A field exactly as parsed (tag included).
  void copy(const Field &field);
  /// Raw bytes (no tag), copied.
  void raw(std::string_view bytes);
  /// Raw bytes (no tag), referenced.
  void borrowedRaw(const void *data, size_t size);
  /// `count` zero bytes (no tag).
  void zeros(size_t count);

  /// Total size in bytes.
  uint64_t size() const { return total; }
  /// The contiguous pieces, in order; valid until the writer changes.
  std::vector<ByteSpan> pieces() const;
  /// All of it in one string (for small messages and tests).
  std::string str() const;

private:
  struct Segment {
    std::string owned;
    const void *borrowed = nullptr;
    size_t borrowedSize = 0;
  };
  std::string &tail();

  std::vector<Segment> segments;
  uint64_t total = 0;
};

} // namespace protowire

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

/// Total initializer bytes above which the export moves tensors to external
/// data: protobuf cannot read a message of 2 GiB or more, and the graph needs
/// room too (the checkpoint's threshold, 1800 MiB).
constexpr uint64_t kDefaultExportExternalDataThreshold =
    uint64_t(1800) * 1024 * 1024;
/// With external data, tensors of at least this many bytes go to the .data
/// file (onnx's own default size_threshold); smaller ones stay inline.
constexpr uint64_t kExportExternalDataMinBytes = 1024;
/// Alignment of each tensor in the .data file (a page, so readers may mmap).
constexpr uint64_t kExportExternalDataAlignment = 4096;

/// An inference model built in memory: the model file and, when external data
/// is used, the .data file next to it. Pieces may reference parameter data.
struct InferenceModelFiles {
  protowire::Writer model;
  protowire::Writer data;
  bool hasExternalData = false;
  /// The `location` recorded in the tensors (the .data file's name).
  std::string dataFileName;
};

/// The rewrite itself, on a serialized template (a ModelProto) and the names
/// of its parameter graph inputs. `dataFileName` is the external data
/// location the tensors record if the initializers hold more than
/// `externalDataThreshold` bytes. Errors name the fault: no outputs, a name
/// that is not a value of the graph, a repeated output, a parameter missing
/// from `parameters`, without data (nominal state) or of another dtype or
/// shape than the graph declares, a malformed template.
Result<InferenceModelFiles> buildInferenceModel(
    const uint8_t *templateData, size_t templateSize,
    const std::vector<std::string> &templateParameters,
    const std::vector<std::shared_ptr<Parameter>> &parameters,
    const std::vector<std::string> &outputNames,
    const std::string &dataFileName, uint64_t externalDataThreshold);

/// ORT's Module::ExportModelForInferencing: writes the eval graph of `model`
/// as an ONNX inference model to `path`, with outputs `outputNames` (any
/// values of the eval graph), and the current values of `parameters` as
/// initializers. Above `externalDataThreshold` bytes of initializers the
/// tensor data goes to `<path>.data` (ONNX external data, location relative
/// to the model). Both files are written atomically (temporary file, rename);
/// on failure the files at `path` are untouched.
Status exportInferenceModel(
    const CompiledModel &model,
    const std::vector<std::shared_ptr<Parameter>> &parameters,
    const std::string &path, const std::vector<std::string> &outputNames,
    uint64_t externalDataThreshold = kDefaultExportExternalDataThreshold);

} // namespace odt

#endif // ODT_RUNTIME_ONNXEXPORT_H
