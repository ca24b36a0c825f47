// Fuzz target: load_checkpoint of a whole training state (model, Adam with its state,
// a StepLR schedule, a generator), from a file whose metadata JSON (optimizer groups,
// scheduler state, epoch) and tensors the fuzzer writes.
//
// The input is a header, a 0 byte, then the data section. The target frames it as a
// safetensors file; where the header holds "kindling.crc32":"00000000" it seals the CRC as
// encode() does, so that the fuzzer reaches the checks behind the CRC (a CRC is no
// defence against a crafted file: anyone can compute one). The seeds are real checkpoints
// taken apart this way (make_seeds.py).

#include <cstring>
#include <string>

#include <kindling/checkpoint.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kindling;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto cut = input.find('\0');
  std::string header = input.substr(0, cut);
  const std::string body = cut == std::string::npos ? "" : input.substr(cut + 1);
  const std::string placeholder = "\"kindling.crc32\":\"00000000\"";
  if (const auto at = header.find(placeholder); at != std::string::npos) {
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", serialize::detail::crc32(body, serialize::detail::crc32(header)));
    header.replace(at + 18, 8, hex);
  }
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  file += header + body;
  fuzz::MemoryFile f(reinterpret_cast<const std::uint8_t*>(file.data()), file.size());

  // The state of tools/oracle/week05.py's python_checkpoint (a seed): Linear(4, 3), Adam with
  // the weight and the bias in two groups.
  manual_seed(3);
  nn::Linear model(4, 3);
  std::vector<optim::ParamGroup> groups(2);
  groups[0].params = {model.weight};
  groups[1].params = {model.bias};
  optim::Adam opt(groups, optim::Adam::Config{.lr = 0.05, .amsgrad = true});
  optim::lr_scheduler::StepLR schedule(opt, 2, 0.5);
  Generator gen(7);
  serialize::TrainingState state{.model = &model, .optimizer = &opt, .scheduler = &schedule};
  state.generators["data"] = &gen;
  try {
    serialize::load_checkpoint(f.path(), state);
  } catch (const serialize::CheckpointError&) {
    return 0;
  }
  // Whatever loaded must train: one step through the loaded model, optimizer and schedule.
  opt.zero_grad();
  const Tensor x = randn({3, 4}, TensorOptions(), &gen);
  model(x).sum().backward();
  opt.step();
  schedule.step();
  return 0;
}
