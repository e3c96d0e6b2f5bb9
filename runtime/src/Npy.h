// NumPy .npy files (format versions 1.0, 2.0 and 3.0), C order only.

#ifndef ODT_RUNTIME_NPY_H
#define ODT_RUNTIME_NPY_H

#include "Status.h"
#include "Tensor.h"

#include <cstddef>
#include <string>

namespace odt {

/// Reads a .npy file into an owned tensor. Supports little-endian (or
/// byte-order-free) bool, int8/16/32/64, uint8/16/32/64, float16/32/64.
/// Fortran order, big-endian data, object arrays, and truncated or malformed
/// files are errors naming the file.
Result<Tensor> readNpy(const std::string &path);

/// Parses .npy bytes held in memory; `name` labels messages
/// ("npy buffer: ...").
Result<Tensor> readNpyFromBuffer(const void *data, size_t size,
                                 const std::string &name = "npy buffer");

/// The NumPy dtype string ('<f4', '|b1', ...) for `type`; empty if .npy has
/// no equivalent (string, undefined). bfloat16 is '<V2', as ml_dtypes saves
/// it (np.load gives 2-byte voids: `.view(ml_dtypes.bfloat16)`), and a
/// '<V2' or '|V2' file reads as bfloat16.
std::string npyDescr(DataType type);

/// Writes `tensor` as a version 1.0 .npy file (atomically: temporary file then
/// rename).
Status writeNpy(const std::string &path, const Tensor &tensor);

} // namespace odt

#endif // ODT_RUNTIME_NPY_H
