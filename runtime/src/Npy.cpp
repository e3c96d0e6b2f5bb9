// NumPy .npy reading and writing. The header is a Python dict literal; it is
// parsed with a small recursive-descent parser for the subset NumPy writes
// (strings, integers, True/False/None, tuples and lists), in any key order and
// with trailing commas, so files from any NumPy version read the same.

#include "Npy.h"

#include "FileUtil.h"

#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <new>
#include <vector>

namespace odt {
namespace {

static_assert(sizeof(uint16_t) == 2 && sizeof(uint32_t) == 4, "");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
/// The data of files we write starts at a multiple of this.
constexpr size_t kHeaderAlignment = 64;

bool hostIsLittleEndian() {
  uint16_t probe = 1;
  uint8_t first;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

uint32_t readLittleEndian(const uint8_t *bytes, int count) {
  uint32_t value = 0;
  for (int i = count - 1; i >= 0; --i)
    value = value << 8 | bytes[i];
  return value;
}

/// A value of the Python literal subset found in .npy headers.
struct PyValue {
  enum class Kind { String, Integer, Bool, None, Sequence } kind = Kind::None;
  std::string text;
  int64_t integer = 0;
  bool flag = false;
  std::vector<PyValue> items;
};

class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  /// Parses the whole header: one dict, then only whitespace.
  bool parseHeader(std::map<std::string, PyValue> &dict) {
    skipSpace();
    if (!parseDict(dict))
      return false;
    skipSpace();
    if (pos != text.size())
      return failAt("unexpected text after the header dict");
    return true;
  }

  const std::string &error() const { return message; }

private:
  bool failAt(const std::string &what) {
    if (message.empty())
      message = what + " at character " + std::to_string(pos);
    return false;
  }
  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  bool accept(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  bool parseDict(std::map<std::string, PyValue> &dict) {
    if (!accept('{'))
      return failAt("expected '{'");
    for (;;) {
      if (accept('}'))
        return true;
      PyValue key;
      skipSpace();
      if (!parseString(key))
        return failAt("expected a quoted key");
      if (!accept(':'))
        return failAt("expected ':' after key '" + key.text + "'");
      PyValue value;
      if (!parseValue(value, 0))
        return false;
      if (dict.count(key.text))
        return failAt("key '" + key.text + "' appears twice");
      dict.emplace(key.text, std::move(value));
      if (accept(','))
        continue;
      if (accept('}'))
        return true;
      return failAt("expected ',' or '}'");
    }
  }

  bool parseValue(PyValue &value, int depth) {
    if (depth > 16)
      return failAt("header nests too deeply");
    skipSpace();
    if (pos >= text.size())
      return failAt("header ends early");
    char c = text[pos];
    if (c == '\'' || c == '"')
      return parseString(value);
    if (c == '(' || c == '[')
      return parseSequence(value, depth);
    if (c == '-' || c == '+' || (c >= '0' && c <= '9'))
      return parseInteger(value);
    for (const char *word : {"True", "False", "None"}) {
      size_t length = std::strlen(word);
      if (text.compare(pos, length, word) == 0) {
        pos += length;
        value.kind = word[0] == 'N' ? PyValue::Kind::None : PyValue::Kind::Bool;
        value.flag = word[0] == 'T';
        return true;
      }
    }
    return failAt("unexpected character '" + std::string(1, c) + "'");
  }

  bool parseString(PyValue &value) {
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return failAt("expected a string");
    char quote = text[pos++];
    value.kind = PyValue::Kind::String;
    value.text.clear();
    while (pos < text.size() && text[pos] != quote) {
      if (text[pos] == '\\' && pos + 1 < text.size())
        ++pos;
      value.text += text[pos++];
    }
    if (pos >= text.size())
      return failAt("unterminated string");
    ++pos;
    return true;
  }

  bool parseInteger(PyValue &value) {
    bool negative = false;
    if (text[pos] == '-' || text[pos] == '+')
      negative = text[pos++] == '-';
    if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
      return failAt("expected digits");
    uint64_t magnitude = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      magnitude = magnitude * 10 + uint64_t(text[pos++] - '0');
      if (magnitude > uint64_t(std::numeric_limits<int64_t>::max()))
        return failAt("integer too large");
    }
    if (pos < text.size() && (text[pos] == 'L' || text[pos] == 'l'))
      ++pos; // Python 2 long suffix, as old NumPy wrote shapes
    value.kind = PyValue::Kind::Integer;
    value.integer = negative ? -int64_t(magnitude) : int64_t(magnitude);
    return true;
  }

  bool parseSequence(PyValue &value, int depth) {
    char close = text[pos++] == '(' ? ')' : ']';
    value.kind = PyValue::Kind::Sequence;
    for (;;) {
      if (accept(close))
        return true;
      PyValue item;
      if (!parseValue(item, depth + 1))
        return false;
      value.items.push_back(std::move(item));
      if (accept(','))
        continue;
      if (accept(close))
        return true;
      return failAt(std::string("expected ',' or '") + close + "'");
    }
  }

  const std::string &text;
  size_t pos = 0;
  std::string message;
};

/// The DataType for a descr such as '<f4'; an error text otherwise.
bool parseDescr(const std::string &descr, DataType &type, std::string &error) {
  static const struct {
    const char *code;
    DataType type;
  } kinds[] = {
      {"f2", DataType::Float16}, {"f4", DataType::Float},  {"f8", DataType::Double},
      {"i1", DataType::Int8},    {"i2", DataType::Int16},  {"i4", DataType::Int32},
      {"i8", DataType::Int64},   {"u1", DataType::UInt8},  {"u2", DataType::UInt16},
      {"u4", DataType::UInt32},  {"u8", DataType::UInt64}, {"b1", DataType::Bool},
  };
  // bfloat16 as ml_dtypes saves it: an opaque 2-byte void ('<V2'; NumPy's
  // own spelling of a void dtype is '|V2'). The model's input type decides
  // whether such a file fits, so a float16 input is told it got bfloat16.
  if (descr == "<V2" || descr == "|V2" || descr == "=V2") {
    type = DataType::BFloat16;
    return true;
  }
  if (descr.size() >= 2) {
    char order = descr[0];
    std::string code = descr.substr(1);
    for (const auto &kind : kinds) {
      if (code != kind.code)
        continue;
      size_t size = dataTypeSize(kind.type);
      if (order == '<' || order == '=' || (size == 1 && (order == '|' || order == '>'))) {
        type = kind.type;
        return true;
      }
      if (order == '>') {
        error = "big-endian data ('" + descr + "') is not supported";
        return false;
      }
      if (order == '|') {
        error = "dtype '" + descr + "' has no byte order for a multi-byte type";
        return false;
      }
      break;
    }
  }
  error = "unsupported dtype '" + descr + "'";
  return false;
}

Result<Tensor> parseNpy(const uint8_t *bytes, size_t size, const std::string &label) {
  auto fault = [&](const std::string &text) { return Status::error(label + ": " + text); };
  if (size < kMagicSize + 2 || std::memcmp(bytes, kMagic, kMagicSize) != 0)
    return fault("not a .npy file (bad magic)");
  int major = bytes[6], minor = bytes[7];
  size_t lengthBytes;
  if (major == 1)
    lengthBytes = 2;
  else if (major == 2 || major == 3)
    lengthBytes = 4;
  else
    return fault("unsupported .npy format version " + std::to_string(major) + "." +
                 std::to_string(minor));
  size_t prefix = kMagicSize + 2 + lengthBytes;
  if (size < prefix)
    return fault("file is truncated in the header");
  uint64_t headerLength = readLittleEndian(bytes + kMagicSize + 2, int(lengthBytes));
  if (headerLength > size - prefix)
    return fault("file is truncated: the header needs " + std::to_string(headerLength) +
                 " bytes, " + std::to_string(size - prefix) + " remain");
  std::string header(reinterpret_cast<const char *>(bytes + prefix), size_t(headerLength));

  std::map<std::string, PyValue> dict;
  HeaderParser parser(header);
  if (!parser.parseHeader(dict))
    return fault("malformed header: " + parser.error());

  auto descrEntry = dict.find("descr");
  auto orderEntry = dict.find("fortran_order");
  auto shapeEntry = dict.find("shape");
  if (descrEntry == dict.end() || orderEntry == dict.end() || shapeEntry == dict.end())
    return fault("header lacks one of 'descr', 'fortran_order', 'shape'");
  if (descrEntry->second.kind != PyValue::Kind::String)
    return fault("structured or non-string dtypes are not supported");
  DataType type = DataType::Undefined;
  std::string error;
  if (!parseDescr(descrEntry->second.text, type, error))
    return fault(error);
  if (orderEntry->second.kind != PyValue::Kind::Bool)
    return fault("'fortran_order' is not True or False");
  if (orderEntry->second.flag)
    return fault("Fortran-order arrays are not supported (save with C order)");
  if (shapeEntry->second.kind != PyValue::Kind::Sequence)
    return fault("'shape' is not a tuple");
  Shape shape;
  for (const PyValue &dim : shapeEntry->second.items) {
    if (dim.kind != PyValue::Kind::Integer || dim.integer < 0)
      return fault("'shape' must hold non-negative integers");
    shape.push_back(dim.integer);
  }
  int64_t count = numElements(shape);
  uint64_t elementSize = dataTypeSize(type);
  if (count < 0 || count > std::numeric_limits<int64_t>::max() / int64_t(elementSize))
    return fault("shape " + formatShape(shape) + " is too large");
  uint64_t expected = uint64_t(count) * elementSize;
  uint64_t actual = size - prefix - headerLength;
  if (actual < expected)
    return fault("data is truncated: shape " + formatShape(shape) + " of " +
                 dataTypeName(type) + " needs " + std::to_string(expected) + " bytes, found " +
                 std::to_string(actual));
  if (actual > expected)
    return fault("data has " + std::to_string(actual) + " bytes, shape " +
                 formatShape(shape) + " of " + dataTypeName(type) + " needs " +
                 std::to_string(expected) + " (trailing bytes)");
  return Tensor::copyOf(type, shape, bytes + prefix + headerLength);
}

} // namespace

std::string npyDescr(DataType type) {
  switch (type) {
  case DataType::Float: return "<f4";
  case DataType::Double: return "<f8";
  case DataType::Float16: return "<f2";
  case DataType::Int8: return "|i1";
  case DataType::Int16: return "<i2";
  case DataType::Int32: return "<i4";
  case DataType::Int64: return "<i8";
  case DataType::UInt8: return "|u1";
  case DataType::UInt16: return "<u2";
  case DataType::UInt32: return "<u4";
  case DataType::UInt64: return "<u8";
  case DataType::Bool: return "|b1";
  case DataType::BFloat16: return "<V2"; // ml_dtypes.bfloat16's descr
  case DataType::String:
  case DataType::Undefined:
    return "";
  }
  return "";
}

Result<Tensor> readNpyFromBuffer(const void *data, size_t size, const std::string &name) {
  if (!data && size != 0)
    return Status::error(name + ": null data pointer");
  static const uint8_t empty[1] = {};
  try {
    return parseNpy(data ? static_cast<const uint8_t *>(data) : empty, size, name);
  } catch (const std::bad_alloc &) {
    return Status::error(name + ": out of memory");
  } catch (const std::exception &error) {
    return Status::error(name + ": " + error.what());
  }
}

Result<Tensor> readNpy(const std::string &path) {
  if (!hostIsLittleEndian())
    return Status::error("npy file '" + path + "': big-endian hosts are not supported");
  try {
    Result<std::vector<uint8_t>> bytes = readWholeFile(path, "npy file");
    if (!bytes)
      return bytes.getStatus();
    return parseNpy(bytes->data(), bytes->size(), "npy file '" + path + "'");
  } catch (const std::bad_alloc &) {
    return Status::error("npy file '" + path + "': out of memory");
  } catch (const std::exception &error) {
    return Status::error("npy file '" + path + "': " + error.what());
  }
}

Status writeNpy(const std::string &path, const Tensor &tensor) {
  std::string label = "cannot write npy file '" + path + "'";
  if (!hostIsLittleEndian())
    return Status::error(label + ": big-endian hosts are not supported");
  if (tensor.empty())
    return Status::error(label + ": the tensor is empty");
  std::string descr = npyDescr(tensor.dtype());
  if (descr.empty())
    return Status::error(label + ": .npy has no dtype for " + dataTypeName(tensor.dtype()));
  if (tensor.size() < 0)
    return Status::error(label + ": invalid shape " + formatShape(tensor.shape()));
  if (tensor.byteSize() != 0 && tensor.data() == nullptr)
    return Status::error(label + ": the tensor has no buffer");
  try {
    std::string shape = "(";
    for (size_t i = 0; i < tensor.shape().size(); ++i)
      shape += std::to_string(tensor.shape()[i]) + (tensor.shape().size() == 1 ? "," : "") +
               (i + 1 < tensor.shape().size() ? ", " : "");
    shape += ")";
    std::string dict =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Version 1.0 unless the header outgrows its 16-bit length field.
    int major = dict.size() + 1 + kHeaderAlignment <= 65535 ? 1 : 2;
    size_t prefix = kMagicSize + 2 + (major == 1 ? 2 : 4);
    size_t total = (prefix + dict.size() + 1 + kHeaderAlignment - 1) / kHeaderAlignment *
                   kHeaderAlignment;
    std::string header(kMagic, kMagicSize);
    header += char(major);
    header += char(0);
    uint32_t headerLength = uint32_t(total - prefix);
    for (size_t i = 0; i < prefix - kMagicSize - 2; ++i)
      header += char((headerLength >> (8 * i)) & 0xff);
    header += dict;
    header.append(total - header.size() - 1, ' ');
    header += '\n';
    return writeFileAtomically(
        path, {{header.data(), header.size()}, {tensor.data(), tensor.byteSize()}}, "npy file");
  } catch (const std::bad_alloc &) {
    return Status::error(label + ": out of memory");
  }
}

} // namespace odt
