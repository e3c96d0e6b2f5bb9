// Status and Result: the runtime's error values. Nothing in the runtime throws
// across its API; every failure path returns a Status with a message that
// names the file, tensor or argument at fault.

#ifndef ODT_RUNTIME_STATUS_H
#define ODT_RUNTIME_STATUS_H

#include <optional>
#include <string>
#include <utility>

namespace odt {

class [[nodiscard]] Status {
public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.failed = true;
    status.text = std::move(message);
    return status;
  }

  bool isOk() const { return !failed; }
  explicit operator bool() const { return !failed; }
  const std::string &message() const { return text; }

  /// Prefixes the message with context ("loading checkpoint 'x': ...").
  Status withContext(const std::string &context) const {
    if (!failed)
      return *this;
    return error(context + ": " + text);
  }

private:
  bool failed = false;
  std::string text;
};

/// A value or the Status explaining why there is none.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : value(std::move(value)) {}
  Result(Status status) : status(std::move(status)) {}

  bool isOk() const { return value.has_value(); }
  explicit operator bool() const { return isOk(); }
  const Status &getStatus() const { return status; }
  T &operator*() { return *value; }
  const T &operator*() const { return *value; }
  T *operator->() { return &*value; }
  const T *operator->() const { return &*value; }
  T take() { return std::move(*value); }

private:
  std::optional<T> value;
  Status status;
};

} // namespace odt

#define ODT_RETURN_IF_ERROR(expr)                                              \
  do {                                                                         \
    ::odt::Status odtStatusTmp = (expr);                                       \
    if (!odtStatusTmp.isOk())                                                  \
      return odtStatusTmp;                                                     \
  } while (0)

#endif // ODT_RUNTIME_STATUS_H
