#pragma once
/// @file error.hpp
/// Kindling's exceptions. PyTorch raises RuntimeError, ValueError and IndexError;
/// Kindling throws kindling::Error and its kinds with the same messages.

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace kindling {

/// PyTorch's RuntimeError: the base of every error the engine throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// PyTorch's ValueError (bad argument values, e.g. a sampler's num_samples).
class ValueError : public Error {
 public:
  using Error::Error;
};

/// PyTorch's IndexError (a dimension or an index out of range).
class IndexError : public Error {
 public:
  using Error::Error;
};

/// PyTorch's TypeError (an argument of the wrong kind).
class TypeError : public Error {
 public:
  using Error::Error;
};

/// Thrown by every stub in the exercises tree. Its message starts with
/// "[not implemented] <task id>", which the grader looks for.
class NotImplemented : public Error {
 public:
  /// @param task the task id, e.g. "week01.view".
  /// @param where the file and line of the stub.
  NotImplemented(const std::string& task, const std::string& where)
      : Error("[not implemented] " + task + ": fill in the stub at " + where +
              " (its doc comment is the contract; hints are in the week's README.md)"),
        task_(task) {}
  /// The task id whose stub threw.
  const std::string& task() const noexcept { return task_; }

 private:
  std::string task_;
};

namespace detail {
/// Concatenates its arguments with operator<<.
template <class... Args>
std::string concat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
/// Throws NotImplemented for `task`; called by KINDLING_TODO.
[[noreturn]] inline void todo(const char* task, const char* file, int line) {
  throw NotImplemented(task, std::string(file) + ":" + std::to_string(line));
}
}  // namespace detail

}  // namespace kindling

/// The body of a stub: throws kindling::NotImplemented naming the task.
#define KINDLING_TODO(task) ::kindling::detail::todo(task, __FILE__, __LINE__)

/// Throws `kind` with the streamed message when `cond` is false.
#define KINDLING_CHECK_AS(kind, cond, ...)                 \
  do {                                                     \
    if (!(cond)) [[unlikely]]                              \
      throw kind(::kindling::detail::concat(__VA_ARGS__)); \
  } while (0)

/// Throws kindling::Error (PyTorch's RuntimeError) when `cond` is false.
#define KINDLING_CHECK(cond, ...) KINDLING_CHECK_AS(::kindling::Error, cond, __VA_ARGS__)
