// Tensor: a dtype, a shape and a contiguous row-major buffer, either owned
// (64-byte aligned, for the generated vector code) or borrowed from the caller.

#ifndef ODT_RUNTIME_TENSOR_H
#define ODT_RUNTIME_TENSOR_H

#include "Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace odt {

/// Element types, numbered as ONNX TensorProto.DataType (and the checkpoint's
/// TensorDataType), so values pass through files unchanged.
enum class DataType : int32_t {
  Undefined = 0,
  Float = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  UInt32 = 12,
  UInt64 = 13,
  BFloat16 = 16,
};

/// Size of one element in bytes; 0 for Undefined, String and unknown codes.
size_t dataTypeSize(DataType type);
/// "float32", "int64", ... (NumPy spelling); "dtype(N)" for unknown codes.
std::string dataTypeName(DataType type);
/// Whether `code` is one of the DataType values above with a fixed size.
bool isKnownFixedSizeType(int32_t code);

using Shape = std::vector<int64_t>;
/// "[2, 784]".
std::string formatShape(const Shape &shape);
/// Product of dims (1 for a scalar); -1 if a dim is negative or it overflows.
int64_t numElements(const Shape &shape);

class Tensor {
public:
  Tensor() = default;

  /// A zero-filled owned tensor; empty() if the memory cannot be had.
  static Tensor zeros(DataType type, Shape shape);
  /// An owned buffer whose contents are undefined until written. Nothing
  /// touches its pages, so a large one costs no resident memory until used
  /// (the kept panels of a product that never takes the packed path).
  static Tensor uninitialized(DataType type, Shape shape);
  /// A tensor over caller memory; the caller keeps it alive and sized.
  static Tensor view(DataType type, Shape shape, void *data);
  /// A tensor over caller memory of CUDA device `device` (`data` is its
  /// device address): the host never reads or writes it; a session on
  /// that device copies it on the device.
  static Tensor deviceView(DataType type, Shape shape, void *data, int device);
  /// Makes this tensor a view of `data` (dropping what it owned), reusing
  /// its shape storage: rebinding a step's inputs allocates nothing.
  /// `device`: as deviceView's, or -1 for host memory.
  void becomeView(DataType type, const Shape &shape, void *data,
                  int device = -1);
  /// An owned copy of `bytes` (must be exactly byteSize() long).
  static Tensor copyOf(DataType type, Shape shape, const void *bytes);

  DataType dtype() const { return type; }
  const Shape &shape() const { return dims; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t size() const { return count; }
  size_t byteSize() const { return static_cast<size_t>(count) * dataTypeSize(type); }
  bool empty() const { return type == DataType::Undefined; }
  bool ownsData() const { return storage != nullptr; }
  /// The CUDA device whose memory holds the data, or -1 (host memory).
  int device() const { return deviceOrdinal; }
  bool onDevice() const { return deviceOrdinal >= 0; }

  void *data() { return ptr; }
  const void *data() const { return ptr; }
  template <typename T> T *data() { return static_cast<T *>(ptr); }
  template <typename T> const T *data() const { return static_cast<const T *>(ptr); }

  /// A deep copy that owns its buffer; of a device tensor, another view of
  /// the same device memory (the host cannot copy it).
  Tensor clone() const;

private:
  struct FreeDeleter {
    void operator()(void *p) const;
  };
  DataType type = DataType::Undefined;
  Shape dims;
  int64_t count = 0;
  void *ptr = nullptr;
  int deviceOrdinal = -1;
  std::shared_ptr<void> storage;
};

} // namespace odt

#endif // ODT_RUNTIME_TENSOR_H
