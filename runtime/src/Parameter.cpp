// Parameter: ORT's training Parameter operations on odt's buffers.

#include "Checkpoint.h"

#include <cstring>

namespace odt {

namespace {

Status checkSameLayout(const std::string &what, const std::string &name,
                       DataType expectedType, int64_t expectedCount,
                       const Tensor &tensor) {
  if (tensor.empty() || tensor.data() == nullptr)
    return Status::error(what + " of parameter '" + name +
                         "': no buffer given");
  if (tensor.dtype() != expectedType)
    return Status::error(what + " of parameter '" + name + "': expected " +
                         dataTypeName(expectedType) + ", got " +
                         dataTypeName(tensor.dtype()));
  if (tensor.size() != expectedCount)
    return Status::error(what + " of parameter '" + name + "': expected " +
                         std::to_string(expectedCount) + " elements, got " +
                         std::to_string(tensor.size()) + " (shape " +
                         formatShape(tensor.shape()) + ")");
  return Status::ok();
}

} // namespace

Status Parameter::resetGrad() {
  if (!requiresGrad || gradient.empty())
    return Status::ok();
  std::memset(gradient.data(), 0, gradient.byteSize());
  ++gradientVersion;
  return Status::ok();
}

Status Parameter::setGrad(const Tensor &value) {
  if (!requiresGrad)
    return Status::error("parameter '" + name +
                         "' is frozen and has no gradient");
  if (gradient.empty())
    return Status::error("parameter '" + name +
                         "' has no gradient buffer yet (create a Module)");
  ODT_RETURN_IF_ERROR(
      checkSameLayout("SetGrad", name, dtype, gradient.size(), value));
  std::memcpy(gradient.data(), value.data(), gradient.byteSize());
  ++gradientVersion;
  return Status::ok();
}

Status Parameter::copyTo(Tensor &destination) const {
  if (data.empty())
    return Status::error("parameter '" + name +
                         "' has no values (the state is nominal)");
  ODT_RETURN_IF_ERROR(
      checkSameLayout("CopyTo", name, dtype, data.size(), destination));
  std::memcpy(destination.data(), data.data(), data.byteSize());
  return Status::ok();
}

Status Parameter::copyFrom(const Tensor &source) {
  if (data.empty())
    return Status::error("parameter '" + name +
                         "' has no buffer (the state is nominal)");
  ODT_RETURN_IF_ERROR(
      checkSameLayout("CopyFrom", name, dtype, data.size(), source));
  std::memcpy(data.data(), source.data(), data.byteSize());
  ++version;
  return Status::ok();
}

} // namespace odt
