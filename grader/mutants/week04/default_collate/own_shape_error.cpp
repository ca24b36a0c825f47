// MUTANT: checks shapes itself and reports a shape mismatch with the field-count message instead of stack's
// Task week04.default_collate. The doc comment above each function is its contract; your code
// goes between BEGIN and END. Hints, one at a time: `./grade hint week04.default_collate`.

#include <kindling/collate.hpp>
#include <kindling/error.hpp>  // KINDLING_TODO, which the worksheet's stubs call

namespace kindling::data {

/// PyTorch's default_collate for examples that are lists of tensors: field f of
/// the batch is stack({example[f] for each example}), so a batch of 0-d labels is
/// a 1-d tensor and a batch of (C, H, W) images is (B, C, H, W).
/// Throws kindling::Error:
/// - no examples: "default_collate: got an empty batch";
/// - examples with different numbers of fields: "each element in list of batch
///   should be of equal size";
/// - a field whose shapes differ: stack's message, e.g. "stack expects each tensor
///   to be equal size, but got [3] at entry 0 and [4] at entry 1".
Batch default_collate(std::vector<Example> examples) {
  // BEGIN SOLUTION week04.default_collate
  KINDLING_CHECK(!examples.empty(), "default_collate: got an empty batch");
  const std::size_t fields = examples[0].size();
  for (const auto& e : examples)
    KINDLING_CHECK(e.size() == fields, "each element in list of batch should be of equal size");
  Batch batch;
  batch.reserve(fields);
  TensorList column(examples.size());
  for (std::size_t f = 0; f < fields; ++f) {
    for (std::size_t i = 0; i < examples.size(); ++i) {
      column[i] = std::move(examples[i][f]);
      KINDLING_CHECK(column[i].sizes().vec() == column[0].sizes().vec(),
                     "each element in list of batch should be of equal size");
    }
    batch.push_back(detail::stack_rows(column));
  }
  return batch;
  // END SOLUTION
}

}  // namespace kindling::data
