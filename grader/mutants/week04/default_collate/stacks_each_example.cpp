// MUTANT: stacks the fields of each example instead of each field across the examples (batch and field axes swapped)
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
  for (auto& e : examples) batch.push_back(detail::stack_rows(e));
  return batch;
  // END SOLUTION
}

}  // namespace kindling::data
