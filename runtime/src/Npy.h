// NumPy .npy files (format versions 1.0, 2.0 and 3.0), C order only.

#ifndef ODT_RUNTIME_NPY_H
#define ODT_RUNTIME_NPY_H

#include "Status.h"
#include "Tensor.h"

#include <string>

namespace odt {

/// Reads a .npy file into an owned tensor. Supports little-endian (or
/// byte-order-free) bool, int8/16/32/64, uint8/16/32/64, float16/32/64.
/// Fortran order, big-endian data, object arrays, and truncated or malformed
/// files are errors naming the file.
Result<Tensor> readNpy(const std::string &path);

/// Writes `tensor` as a version 1.0 .npy file (atomically: temporary file then
/// rename).
Status writeNpy(const std::string &path, const Tensor &tensor);

} // namespace odt

#endif // ODT_RUNTIME_NPY_H
