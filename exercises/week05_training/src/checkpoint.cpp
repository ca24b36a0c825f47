// Checkpoint files: encoding (safetensors with a CRC-32), the header parser, and
// save_checkpoint / load_checkpoint for a model and an optimizer.

#include <zlib.h>

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
    const Tensor c = tensor.detach().contiguous();
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

void save_checkpoint(const std::filesystem::path& path, nn::Module& model, optim::Optimizer* optimizer,
                     std::int64_t epoch, const std::map<std::string, std::string>& extra) {
  FileContents c;
  for (const auto& [key, t] : model.state_dict()) c.tensors["model." + key] = t;
  c.metadata = extra;
  c.metadata["epoch"] = std::to_string(epoch);
  if (optimizer) {
    nlohmann::json groups = nlohmann::json::array();
    std::size_t index = 0;
    for (const auto& g : optimizer->param_groups()) {
      nlohmann::json entry = {{"options", g.options.values}, {"params", nlohmann::json::array()}};
      for (const auto& p : g.params) {
        entry["params"].push_back(index);
        const optim::ParamState& st = optimizer->state(p);
        for (const auto& [name, buf] : st.buffers) c.tensors["optimizer." + std::to_string(index) + "." + name] = buf;
        c.metadata["optimizer." + std::to_string(index) + ".step"] = std::to_string(st.step);
        ++index;
      }
      groups.push_back(entry);
    }
    c.metadata["optimizer.param_groups"] = groups.dump();
  }
  save_file(path, c);
}

std::map<std::string, std::string> load_checkpoint(const std::filesystem::path& path, nn::Module& model,
                                                   optim::Optimizer* optimizer) {
  const FileContents c = load_file(path);
  auto damaged = [&](const std::string& what) { return CheckpointError(path.string() + ": " + what); };
  // The optimizer's part is read and checked completely before anything changes, so
  // that a file that does not fit leaves model and optimizer as they were.
  struct Staged {
    std::map<std::string, double> options;
    std::vector<std::pair<std::map<std::string, Tensor>, double>> params;  // buffers, step
  };
  std::vector<Staged> staged;
  if (optimizer) {
    const auto it = c.metadata.find("optimizer.param_groups");
    if (it == c.metadata.end()) throw damaged("holds no optimizer state");
    const nlohmann::json groups = nlohmann::json::parse(it->second, nullptr, false);
    auto& mine = optimizer->param_groups();
    if (groups.is_discarded() || !groups.is_array() || groups.size() != mine.size())
      throw damaged("the optimizer state has " + (groups.is_array() ? std::to_string(groups.size()) : "no") +
                    " parameter groups, the optimizer " + std::to_string(mine.size()));
    std::size_t index = 0;
    try {
      for (std::size_t gi = 0; gi < mine.size(); ++gi) {
        const nlohmann::json& g = groups[gi];
        if (!g.is_object() || !g.contains("params") || !g["params"].is_array() ||
            g["params"].size() != mine[gi].params.size())
          throw damaged(
              "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
        Staged st;
        if (g.contains("options"))
          for (const auto& [k, v] : g["options"].items()) st.options[k] = v.get<double>();
        for (const auto& p : mine[gi].params) {
          const std::string prefix = "optimizer." + std::to_string(index) + ".";
          std::map<std::string, Tensor> buffers;
          for (const auto& [name, t] : c.tensors)
            if (name.rfind(prefix, 0) == 0) {
              if (t.sizes().vec() != p.sizes().vec() || t.dtype() != p.dtype())
                throw damaged("the optimizer buffer '" + name + "' has shape " + to_string(t.sizes()) +
                              ", its parameter " + to_string(p.sizes()));
              buffers[name.substr(prefix.size())] = t.clone();
            }
          double step = 0;
          if (const auto s = c.metadata.find(prefix + "step"); s != c.metadata.end()) step = std::stod(s->second);
          st.params.emplace_back(std::move(buffers), step);
          ++index;
        }
        staged.push_back(std::move(st));
      }
    } catch (const CheckpointError&) {
      throw;
    } catch (const std::exception& e) {
      throw damaged(std::string("the optimizer state is damaged (") + e.what() + ")");
    }
  }
  nn::StateDict sd;
  for (const auto& [name, t] : c.tensors)
    if (name.rfind("model.", 0) == 0) sd.insert(name.substr(6), t);
  model.load_state_dict(sd, /*strict=*/true);
  if (optimizer) {
    auto& mine = optimizer->param_groups();
    for (std::size_t gi = 0; gi < mine.size(); ++gi) {
      for (const auto& [k, v] : staged[gi].options) mine[gi].options.set(k, v);
      for (std::size_t pi = 0; pi < mine[gi].params.size(); ++pi) {
        optim::ParamState& st = optimizer->state(mine[gi].params[pi]);
        st.buffers = staged[gi].params[pi].first;
        st.step = staged[gi].params[pi].second;
      }
    }
  }
  return c.metadata;
}

}  // namespace kindling::serialize
