// Reading vectors of 8-byte scalars from verified flatbuffers.
//
// flatbuffers' Verifier checks a vector's 4-byte length prefix for
// alignment, not its elements: a hostile or corrupt buffer that passes
// verification can hold an int64 vector at an address that is 4 mod 8, and
// the generated accessors would then read misaligned int64s (undefined
// behaviour; UBSan reports it). These copy the bytes instead. Flatbuffers
// are little-endian, as are the hosts odt targets (x86-64, aarch64).

#ifndef ODT_RUNTIME_FLATBUFFERSREAD_H
#define ODT_RUNTIME_FLATBUFFERSREAD_H

#include "flatbuffers/flatbuffers.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace odt {

inline std::vector<int64_t>
readInt64Vector(const flatbuffers::Vector<int64_t> *vector) {
  std::vector<int64_t> values;
  if (vector && vector->size() > 0) {
    values.resize(vector->size());
    std::memcpy(values.data(), vector->Data(),
                values.size() * sizeof(int64_t));
  }
  return values;
}

} // namespace odt

#endif // ODT_RUNTIME_FLATBUFFERSREAD_H
