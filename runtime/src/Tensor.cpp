#include "Tensor.h"

#include <cstdlib>
#include <cstring>
#include <limits>

namespace odt {

size_t dataTypeSize(DataType type) {
  switch (type) {
  case DataType::Float:
  case DataType::Int32:
  case DataType::UInt32:
    return 4;
  case DataType::UInt8:
  case DataType::Int8:
  case DataType::Bool:
    return 1;
  case DataType::UInt16:
  case DataType::Int16:
  case DataType::Float16:
  case DataType::BFloat16:
    return 2;
  case DataType::Int64:
  case DataType::Double:
  case DataType::UInt64:
    return 8;
  case DataType::Undefined:
  case DataType::String:
    return 0;
  }
  return 0;
}

std::string dataTypeName(DataType type) {
  switch (type) {
  case DataType::Float: return "float32";
  case DataType::UInt8: return "uint8";
  case DataType::Int8: return "int8";
  case DataType::UInt16: return "uint16";
  case DataType::Int16: return "int16";
  case DataType::Int32: return "int32";
  case DataType::Int64: return "int64";
  case DataType::String: return "string";
  case DataType::Bool: return "bool";
  case DataType::Float16: return "float16";
  case DataType::Double: return "float64";
  case DataType::UInt32: return "uint32";
  case DataType::UInt64: return "uint64";
  case DataType::BFloat16: return "bfloat16";
  case DataType::Undefined: return "undefined";
  }
  return "dtype(" + std::to_string(static_cast<int32_t>(type)) + ")";
}

bool isKnownFixedSizeType(int32_t code) {
  return code >= 0 && code <= 16 && code != 14 && code != 15 &&
         dataTypeSize(static_cast<DataType>(code)) != 0;
}

std::string formatShape(const Shape &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

int64_t numElements(const Shape &shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return -1;
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim)
      return -1;
    count *= dim;
  }
  return count;
}

void Tensor::FreeDeleter::operator()(void *p) const { std::free(p); }

Tensor Tensor::zeros(DataType type, Shape shape) {
  Tensor tensor = uninitialized(type, std::move(shape));
  if (tensor.ptr && tensor.byteSize())
    std::memset(tensor.ptr, 0, (tensor.byteSize() + 63) / 64 * 64);
  return tensor;
}

Tensor Tensor::uninitialized(DataType type, Shape shape) {
  Tensor tensor;
  tensor.type = type;
  tensor.count = numElements(shape);
  tensor.dims = std::move(shape);
  size_t bytes = tensor.byteSize();
  // 64-byte alignment for vector loads; aligned_alloc needs a multiple size.
  size_t rounded = (bytes + 63) / 64 * 64;
  void *memory = tensor.count < 0 ? nullptr
                                  : std::aligned_alloc(64, rounded ? rounded : 64);
  if (!memory)
    return Tensor(); // empty: the caller reports the failed allocation
  tensor.storage = std::shared_ptr<void>(memory, FreeDeleter());
  tensor.ptr = memory;
  return tensor;
}

Tensor Tensor::view(DataType type, Shape shape, void *data) {
  Tensor tensor;
  tensor.type = type;
  tensor.count = numElements(shape);
  tensor.dims = std::move(shape);
  tensor.ptr = data;
  return tensor;
}

Tensor Tensor::deviceView(DataType type, Shape shape, void *data, int device) {
  Tensor tensor = view(type, std::move(shape), data);
  tensor.deviceOrdinal = device;
  return tensor;
}

void Tensor::becomeView(DataType newType, const Shape &shape, void *data,
                        int device) {
  storage.reset();
  type = newType;
  dims.assign(shape.begin(), shape.end());
  count = numElements(dims);
  ptr = data;
  deviceOrdinal = device;
}

Tensor Tensor::copyOf(DataType type, Shape shape, const void *bytes) {
  Tensor tensor = zeros(type, std::move(shape));
  if (tensor.byteSize())
    std::memcpy(tensor.ptr, bytes, tensor.byteSize());
  return tensor;
}

Tensor Tensor::clone() const {
  if (empty())
    return Tensor();
  if (onDevice())
    return deviceView(type, dims, ptr, deviceOrdinal);
  return copyOf(type, dims, ptr);
}

} // namespace odt
