// npy.hpp — reads NumPy .npy files (format 1.x, little-endian float32,
// int32 or int64, C order) for the C++ examples; the data become tensors
// through Odt::Value::CreateTensor without a copy.

#ifndef ODT_EXAMPLES_NPY_HPP
#define ODT_EXAMPLES_NPY_HPP

#include "odt/odt.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace examples {

/// A .npy file (format 1.x, little-endian float32, int32 or int64, C order)
/// and a tensor over its data.
struct Npy {
  Odt::DataType type = ODT_UNDEFINED;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

/// The text after `key` in the header, or throws.
inline std::string field(const std::string &header, const std::string &key,
                  const std::string &path) {
  size_t at = header.find(key);
  if (at == std::string::npos)
    throw std::runtime_error("'" + path + "': no " + key + " in the header");
  at = header.find_first_not_of(' ', at + key.size());
  return at == std::string::npos ? std::string() : header.substr(at);
}

inline Npy readNpy(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
    throw std::runtime_error("'" + path + "' is not a .npy file");
  if (bytes[6] != 1)
    throw std::runtime_error("'" + path + "': .npy format version " +
                             std::to_string(bytes[6]) +
                             ", only 1.x is supported");
  size_t headerLen = bytes[8] | size_t(bytes[9]) << 8;
  if (10 + headerLen > bytes.size())
    throw std::runtime_error("'" + path + "': truncated header");
  std::string header(bytes.begin() + 10, bytes.begin() + 10 + headerLen);

  Npy npy;
  size_t elementSize = 0;
  std::string descr = field(header, "'descr':", path);
  if (descr.compare(0, 5, "'<f4'") == 0)
    npy.type = ODT_FLOAT, elementSize = 4;
  else if (descr.compare(0, 5, "'<i4'") == 0)
    npy.type = ODT_INT32, elementSize = 4;
  else if (descr.compare(0, 5, "'<i8'") == 0)
    npy.type = ODT_INT64, elementSize = 8;
  else
    throw std::runtime_error("'" + path +
                             "': dtype must be '<f4', '<i4' or '<i8'");
  if (field(header, "'fortran_order':", path).compare(0, 5, "False") != 0)
    throw std::runtime_error("'" + path + "': only C order is supported");
  std::string shape = field(header, "'shape':", path);
  if (shape.empty() || shape[0] != '(')
    throw std::runtime_error("'" + path + "': bad shape in the header");
  size_t count = 1;
  for (const char *p = shape.c_str() + 1;;) {
    while (*p == ' ' || *p == ',')
      ++p;
    if (*p == ')')
      break;
    char *next = nullptr;
    long long dim = std::strtoll(p, &next, 10);
    if (next == p || dim < 0 || (dim && count > SIZE_MAX / 8 / size_t(dim)))
      throw std::runtime_error("'" + path + "': bad shape in the header");
    npy.shape.push_back(dim);
    count *= size_t(dim);
    p = next;
  }
  if (bytes.size() - 10 - headerLen != count * elementSize)
    throw std::runtime_error("'" + path + "': the file holds " +
                             std::to_string(bytes.size() - 10 - headerLen) +
                             " data bytes, the header says " +
                             std::to_string(count * elementSize));
  npy.data.assign(bytes.begin() + 10 + headerLen, bytes.end());
  return npy;
}

} // namespace examples

#endif // ODT_EXAMPLES_NPY_HPP
