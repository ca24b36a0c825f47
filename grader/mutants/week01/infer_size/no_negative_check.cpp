// MUTANT: never rejects sizes below -1, so [-2, 3] gets the element-count error, not 'invalid shape dimension -2'
// Task week01.infer_size. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week01.infer_size`.

#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call
#include <kindling/tensor.hpp>

namespace kindling {

/// Resolves a requested shape for `numel` elements: at most one entry may be -1,
/// and it becomes whatever makes the element counts agree.
///
/// Throws kindling::Error with PyTorch's words:
/// - two -1 entries: "only one dimension can be inferred";
/// - an entry below -1: "invalid shape dimension -2";
/// - counts that cannot agree: "shape '[4, 2]' is invalid for input of size 6";
/// - a -1 beside a 0 for 0 elements: "cannot reshape tensor of 0 elements into shape
///   [0, -1] because the unspecified dimension size -1 can be any value and is ambiguous".
/// @return the shape with -1 replaced.
Shape infer_size(IntArrayRef shape, std::int64_t numel) {
  // BEGIN SOLUTION week01.infer_size
  std::int64_t known = 1;
  std::optional<std::size_t> infer_dim;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      KINDLING_CHECK(!infer_dim, "only one dimension can be inferred");
      infer_dim = i;
    } else {
      known *= shape[i];
    }
  }
  Shape result = shape.vec();
  if (infer_dim) {
    KINDLING_CHECK(known != 0, "cannot reshape tensor of 0 elements into shape ", to_string(shape),
                   " because the unspecified dimension size -1 can be any value and is ambiguous");
    KINDLING_CHECK(numel % known == 0, "shape '", to_string(shape), "' is invalid for input of size ", numel);
    result[*infer_dim] = numel / known;
  } else {
    KINDLING_CHECK(numel == known, "shape '", to_string(shape), "' is invalid for input of size ", numel);
  }
  return result;
  // END SOLUTION
}

}  // namespace kindling
