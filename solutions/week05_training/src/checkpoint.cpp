// Checkpoint files: encoding (safetensors with a CRC-32), the header parser, and
// save_checkpoint / load_checkpoint of a training state (model, optimizer, schedule, generators).

#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include <kindling/checkpoint.hpp>
#include <kindling/no_grad.hpp>

#include "checkpoint_internal.hpp"

namespace kindling::serialize {

namespace detail {

namespace {
const std::pair<const char*, ScalarType> kDtypes[] = {{"F32", kFloat32}, {"F64", kFloat64}, {"I64", kInt64},
                                                      {"I32", kInt32},   {"U8", kUInt8},    {"BOOL", kBool}};
std::optional<ScalarType> dtype_of(const std::string& s) {
  for (const auto& [n, t] : kDtypes)
    if (s == n) return t;
  return std::nullopt;
}
const char* kCrcKey = "kindling.crc32";
}  // namespace

std::string safetensors_dtype(ScalarType t) {
  for (const auto& [n, d] : kDtypes)
    if (d == t) return n;
  return "?";
}

std::uint32_t crc32(const std::string& bytes, std::uint32_t crc) {
  std::size_t done = 0;
  while (done < bytes.size()) {  // zlib takes a uInt length
    const auto chunk = static_cast<uInt>(std::min<std::size_t>(bytes.size() - done, 1u << 30));
    crc = static_cast<std::uint32_t>(::crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), chunk));
    done += chunk;
  }
  return crc;
}

std::string hex8(std::uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

Header parse_header(const std::string& header, const std::string& name) {
  auto error = [&](const std::string& what) { return CheckpointError(name + ": " + what); };
  const nlohmann::json j = nlohmann::json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw error("the header is not valid JSON");
  Header h;
  for (const auto& [key, v] : j.items()) {
    if (key == "__metadata__") {
      if (!v.is_object()) throw error("the __metadata__ must map strings to strings");
      for (const auto& [mk, mv] : v.items()) {
        if (!mv.is_string()) throw error("the __metadata__ must map strings to strings");
        h.metadata[mk] = mv.get<std::string>();
      }
      continue;
    }
    const std::string what = "tensor '" + key + "': ";
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
      throw error(what + "needs dtype, shape and data_offsets");
    Entry e;
    e.name = key;
    const auto dtype = v["dtype"].is_string() ? dtype_of(v["dtype"].get<std::string>()) : std::nullopt;
    if (!dtype) throw error(what + "unknown dtype " + v["dtype"].dump());
    e.dtype = *dtype;
    if (!v["shape"].is_array()) throw error(what + "the shape must be a list of sizes >= 0");
    for (const auto& s : v["shape"]) {
      // Sizes up to 2^62: a larger one cannot be a tensor, and must not turn negative.
      if (!s.is_number_integer() ||
          (s.is_number_unsigned() ? s.get<std::uint64_t>() > (1ULL << 62) : s.get<std::int64_t>() < 0))
        throw error(what + "the shape must be a list of sizes >= 0");
      e.shape.push_back(static_cast<std::int64_t>(s.get<std::uint64_t>()));
    }
    const auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned() ||
        off[0].get<std::uint64_t>() > off[1].get<std::uint64_t>())
      throw error(what + "data_offsets must be [begin, end] with 0 <= begin <= end");
    e.begin = off[0].get<std::uint64_t>();
    e.end = off[1].get<std::uint64_t>();
    h.entries.push_back(std::move(e));
  }
  if (const auto it = h.metadata.find(kCrcKey); it != h.metadata.end()) {
    const std::string& c = it->second;
    if (c.size() != 8 || c.find_first_not_of("0123456789abcdef") != std::string::npos)
      throw error(std::string("the ") + kCrcKey + " value must be 8 lowercase hex digits");
    const auto key_at = header.find(std::string("\"") + kCrcKey + "\"");
    const auto colon = key_at == std::string::npos ? key_at : header.find(':', key_at);
    const auto quote = colon == std::string::npos ? colon : header.find('"', colon);
    if (quote == std::string::npos || header.compare(quote + 1, 8, c) != 0)
      throw error(std::string("cannot locate the ") + kCrcKey + " value in the header");
    h.crc = c;
    h.crc_at = quote + 1;
  }
  return h;
}

}  // namespace detail

std::string encode(const FileContents& contents) {
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  for (const auto& [name, tensor] : contents.tensors) {
    KINDLING_CHECK(tensor.defined(), "cannot save the undefined tensor '", name, "'");
    KINDLING_CHECK(name != "__metadata__", "a tensor may not be named __metadata__");
    const Tensor c = tensor.detach().cpu().contiguous();  // a CUDA tensor is written from a host copy
    const std::size_t begin = data.size();
    data.append(static_cast<const char*>(c.data_ptr()), static_cast<std::size_t>(c.numel()) * c.element_size());
    header[name] = {{"dtype", detail::safetensors_dtype(c.dtype())},
                    {"shape", c.sizes().vec()},
                    {"data_offsets", {begin, data.size()}}};
  }
  nlohmann::json meta = nlohmann::json::object();
  for (const auto& [k, v] : contents.metadata) meta[k] = v;
  meta["kindling.crc32"] = "00000000";
  header["__metadata__"] = meta;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // safetensors pads the header to 8 bytes
  const std::uint32_t crc = detail::crc32(data, detail::crc32(text));
  const auto at = text.find("\"kindling.crc32\":\"00000000\"");
  text.replace(at + 18, 8, detail::hex8(crc));
  std::string out(8, '\0');
  std::uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + text + data;
}

FileContents load_file(const std::filesystem::path& path, bool require_crc) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError(path.string() + ": cannot open the file (" + std::strerror(errno) + ")");
  std::ostringstream s;
  s << in.rdbuf();
  return detail::decode(s.str(), path.string(), require_crc);
}

void save_file(const std::filesystem::path& path, const FileContents& contents) {
  write_atomically(path, encode(contents));
}

namespace {

// Options PyTorch keeps as booleans (Kindling's Options hold them as 0 or 1).
bool is_flag(const std::string& name) {
  for (const char* f :
       {"nesterov", "maximize", "amsgrad", "centered", "capturable", "differentiable", "foreach", "fused"})
    if (name == f) return true;
  return false;
}

// One group as PyTorch's optimizer.state_dict()["param_groups"][i] holds it.
nlohmann::json pytorch_group(const optim::PackedGroup& g) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, v] : g.options.values) {
    if (k == "beta1" || k == "beta2") continue;
    if (is_flag(k))
      j[k] = v != 0;
    else
      j[k] = v;
  }
  if (g.options.has("beta1") && g.options.has("beta2")) j["betas"] = {g.options["beta1"], g.options["beta2"]};
  j["params"] = g.params;
  return j;
}

// And back; throws std::exception for a group of the wrong form.
optim::PackedGroup kindling_group(const nlohmann::json& j) {
  KINDLING_CHECK(j.is_object() && j.contains("params") && j["params"].is_array(),
                 "a parameter group is not an object with a list of params");
  optim::PackedGroup g;
  for (const auto& [k, v] : j.items()) {
    if (k == "params") {
      for (const auto& i : v) g.params.push_back(i.get<std::int64_t>());
    } else if (k == "betas") {
      KINDLING_CHECK(v.is_array() && v.size() == 2, "betas is not a pair");
      g.options.set("beta1", v[0].get<double>()).set("beta2", v[1].get<double>());
    } else if (v.is_boolean()) {
      g.options.set(k, v.get<bool>() ? 1 : 0);
    } else if (v.is_number()) {
      g.options.set(k, v.get<double>());
    } else {
      KINDLING_CHECK(v.is_null(), "the option '", k, "' is neither a number nor a flag");  // foreach: None
    }
  }
  return g;
}

// A schedule's state as a JSON object: number lists (inf and nan as strings) and strings.
nlohmann::json scheduler_json(const optim::lr_scheduler::SchedulerState& st) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [k, values] : st.numbers) {
    nlohmann::json list = nlohmann::json::array();
    for (double v : values)
      if (std::isfinite(v))
        list.push_back(v);
      else
        list.push_back(std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
    j[k] = list;
  }
  for (const auto& [k, v] : st.strings) j[k] = v;
  return j;
}

optim::lr_scheduler::SchedulerState scheduler_state(const nlohmann::json& j) {
  KINDLING_CHECK(j.is_object(), "the schedule's state is not an object");
  optim::lr_scheduler::SchedulerState st;
  for (const auto& [k, v] : j.items()) {
    if (v.is_string()) {
      st.strings[k] = v.get<std::string>();
      continue;
    }
    KINDLING_CHECK(v.is_array(), "the schedule's '", k, "' is neither a list of numbers nor a string");
    std::vector<double>& out = st.numbers[k];
    for (const auto& e : v) {
      if (e.is_number()) {
        out.push_back(e.get<double>());
      } else {
        const std::string word = e.is_string() ? e.get<std::string>() : "";
        KINDLING_CHECK(word == "inf" || word == "-inf" || word == "nan", "the schedule's '", k,
                       "' holds something that is not a number");
        out.push_back(word == "nan" ? std::nan("") : (word == "inf" ? 1.0 : -1.0) * HUGE_VAL);
      }
    }
  }
  return st;
}

std::string text_of(const Tensor& bytes) {
  KINDLING_CHECK(bytes.scalar_type() == kUInt8 && bytes.dim() == 1, "a generator state is a 1-d uint8 tensor");
  const auto* p = bytes.data_ptr<std::uint8_t>();
  return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(bytes.numel()));
}

Tensor bytes_of(const std::string& text) {
  Tensor t = zeros({static_cast<std::int64_t>(text.size())}, TensorOptions().dtype(kUInt8));
  std::copy(text.begin(), text.end(), reinterpret_cast<char*>(t.data_ptr<std::uint8_t>()));
  return t;
}

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const TrainingState& what) {
  FileContents c;
  c.metadata = what.extra;
  c.metadata["epoch"] = std::to_string(what.epoch);
  if (what.model)
    for (const auto& [key, t] : what.model->state_dict()) c.tensors["model." + key] = t;
  if (what.optimizer) {
    const optim::OptimizerState st = what.optimizer->state_dict();
    for (const auto& [index, ps] : st.state) {
      const std::string prefix = "optimizer.state." + std::to_string(index) + ".";
      for (const auto& [name, buf] : ps.buffers) c.tensors[prefix + name] = buf;
      if (ps.step != 0) c.tensors[prefix + "step"] = full({}, Scalar(ps.step), TensorOptions().dtype(kFloat64));
    }
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : st.param_groups) groups.push_back(pytorch_group(g));
    c.metadata["optimizer.param_groups"] = groups.dump();
  }
  if (what.scheduler) c.metadata["scheduler"] = scheduler_json(what.scheduler.state_dict()).dump();
  for (const auto& [name, g] : what.generators) c.tensors["rng." + name] = bytes_of(g->get_state());
  save_file(path, c);
}

std::map<std::string, std::string> load_checkpoint(const std::filesystem::path& path, TrainingState& what) {
  const FileContents c = load_file(path);
  auto damaged = [&](const std::string& what_is_wrong) {
    return CheckpointError(path.string() + ": " + what_is_wrong);
  };
  // Everything is read and checked first; then the parts are loaded, and if one
  // still refuses, the ones loaded before it are put back.
  nn::StateDict sd;
  for (const auto& [name, t] : c.tensors)
    if (name.rfind("model.", 0) == 0) sd.insert(name.substr(6), t);
  if (what.model) {
    std::vector<std::string> problems;
    const nn::StateDict mine = what.model->state_dict();
    for (const auto& [key, t] : mine) {
      const Tensor* saved = sd.find(key);
      if (!saved)
        problems.push_back("'" + key + "' is missing");
      else if (!saved->sizes().equals(t.sizes()))
        problems.push_back("'" + key + "' has shape " + to_string(saved->sizes()) + ", the model's " +
                           to_string(t.sizes()));
    }
    for (const auto& [key, t] : sd)
      if (!mine.find(key)) problems.push_back("'" + key + "' is not in the model");
    if (!problems.empty()) {
      std::string text = "the model does not fit: ";
      for (std::size_t i = 0; i < problems.size(); ++i) text += (i ? "; " : "") + problems[i];
      throw damaged(text);
    }
  }
  optim::OptimizerState opt_state;
  std::optional<optim::lr_scheduler::SchedulerState> sched_state;
  std::map<std::string, std::string> rng_states;
  try {
    if (what.optimizer) {
      const auto it = c.metadata.find("optimizer.param_groups");
      if (it == c.metadata.end()) throw damaged("holds no optimizer state");
      const nlohmann::json groups = nlohmann::json::parse(it->second);
      KINDLING_CHECK(groups.is_array(), "the parameter groups are not a list");
      for (const auto& g : groups) opt_state.param_groups.push_back(kindling_group(g));
      for (const auto& [name, t] : c.tensors) {
        if (name.rfind("optimizer.state.", 0) != 0) continue;
        const std::string rest = name.substr(16);
        const auto dot = rest.find('.');
        KINDLING_CHECK(dot != std::string::npos, "'", name, "' names no buffer");
        std::size_t used = 0;
        const std::int64_t index = std::stoll(rest.substr(0, dot), &used);
        KINDLING_CHECK(used == dot && index >= 0, "'", name, "' has no parameter index");
        const std::string buffer = rest.substr(dot + 1);
        optim::ParamState& ps = opt_state.state[index];
        if (buffer == "step") {
          KINDLING_CHECK(t.numel() == 1, "'", name, "' is not one number");
          ps.step = t.to(kFloat64).item<double>();
        } else {
          ps.buffers[buffer] = t;
        }
      }
    }
    if (what.scheduler) {
      const auto it = c.metadata.find("scheduler");
      if (it == c.metadata.end()) throw damaged("holds no schedule state");
      sched_state = scheduler_state(nlohmann::json::parse(it->second));
    }
    for (const auto& [name, g] : what.generators) {
      const auto it = c.tensors.find("rng." + name);
      if (it == c.tensors.end()) throw damaged("holds no state for the generator '" + name + "'");
      Generator probe;
      probe.set_state(text_of(it->second));  // checks the text
      rng_states[name] = text_of(it->second);
    }
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    throw damaged(std::string("the training state is damaged: ") + e.what());
  }

  std::optional<optim::OptimizerState> opt_before;
  std::optional<optim::lr_scheduler::SchedulerState> sched_before;
  try {
    if (what.optimizer) {
      opt_before = what.optimizer->state_dict();
      what.optimizer->load_state_dict(opt_state);
    }
    if (what.scheduler) {
      sched_before = what.scheduler.state_dict();
      what.scheduler.load_state_dict(*sched_state);
    }
  } catch (const std::exception& e) {
    if (opt_before) what.optimizer->load_state_dict(*opt_before);
    if (sched_before) what.scheduler.load_state_dict(*sched_before);
    throw damaged(std::string("the ") + (opt_before && !sched_before ? "optimizer" : "training") +
                  " state does not fit: " + e.what());
  }
  if (what.model) what.model->load_state_dict(sd, /*strict=*/true);
  for (const auto& [name, g] : what.generators) g->set_state(rng_states.at(name));
  what.extra = c.metadata;
  what.extra.erase("epoch");
  what.extra.erase("optimizer.param_groups");
  what.extra.erase("scheduler");
  what.extra.erase("kindling.crc32");
  try {
    what.epoch = std::stoll(c.metadata.at("epoch"));
  } catch (const std::exception&) {
    throw damaged("has no epoch number");
  }
  return c.metadata;
}

void save_checkpoint(const std::filesystem::path& path, nn::Module& model, optim::Optimizer* optimizer,
                     std::int64_t epoch, const std::map<std::string, std::string>& extra) {
  save_checkpoint(path, TrainingState{.model = &model, .optimizer = optimizer, .epoch = epoch, .extra = extra});
}

std::map<std::string, std::string> load_checkpoint(const std::filesystem::path& path, nn::Module& model,
                                                   optim::Optimizer* optimizer) {
  TrainingState state{.model = &model, .optimizer = optimizer};
  return load_checkpoint(path, state);
}

}  // namespace kindling::serialize
