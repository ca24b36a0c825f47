// Module's bookkeeping: registration, modes, dtype conversion, hooks, printing.

#include <cxxabi.h>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <typeinfo>

#include <kindling/device_hooks.hpp>
#include <kindling/module.hpp>

#include "nn_internal.hpp"

namespace kindling::nn {

// ---- StateDict ------------------------------------------------------------------------------------
void StateDict::insert(const std::string& key, Tensor value) {
  if (auto it = index_.find(key); it != index_.end()) {
    items_[it->second].second = std::move(value);
    return;
  }
  index_.emplace(key, items_.size());
  items_.emplace_back(key, std::move(value));
}

const Tensor* StateDict::find(const std::string& key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &items_[it->second].second;
}

const Tensor& StateDict::at(const std::string& key) const {
  const Tensor* t = find(key);
  KINDLING_CHECK_AS(IndexError, t, "'", key, "'");
  return *t;
}

void StateDict::erase(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return;
  items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(it->second));
  index_.clear();
  for (std::size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].first, i);
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> k;
  k.reserve(items_.size());
  for (const auto& item : items_) k.push_back(item.first);
  return k;
}

// ---- Module ---------------------------------------------------------------------------------------
struct Module::Hooks {
  std::vector<std::pair<int, ForwardPreHook>> pre;
  std::vector<std::pair<int, ForwardHook>> post;
  int next_id = 0;
};

Module::Module(std::string type_name) : type_name_(std::move(type_name)), hooks_(std::make_shared<Hooks>()) {}

std::string Module::type_name() const {
  if (!type_name_.empty()) return type_name_;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(*this).name(), nullptr, nullptr, &status),
                                              std::free);
  std::string full = status == 0 && name ? name.get() : typeid(*this).name();
  const std::size_t cut = full.rfind("::");
  return cut == std::string::npos ? full : full.substr(cut + 2);
}

void Module::check_new_name(const std::string& name, const char* what) const {
  KINDLING_CHECK_AS(IndexError, name.find('.') == std::string::npos, what, " name can't contain \".\"");
  KINDLING_CHECK_AS(IndexError, !name.empty(), what, " name can't be empty string \"\"");
  auto taken = [&](const auto& list) {
    return std::any_of(list.begin(), list.end(), [&](const auto& e) { return e.first == name; });
  };
  KINDLING_CHECK_AS(IndexError, !taken(parameters_) && !taken(buffers_) && !taken(children_), "attribute '", name,
                    "' already exists");
}

Tensor Module::register_parameter(const std::string& name, Tensor t, bool requires_grad) {
  check_new_name(name, "parameter");
  if (t.defined()) {
    KINDLING_CHECK(t.is_leaf(), "Cannot assign non-leaf Tensor to parameter '", name,
                   "'. Model parameters must be created explicitly. To express '", name,
                   "' as a function of another Tensor, compute the value in the forward() method.");
    if (requires_grad) t.requires_grad_(true);
  }
  parameters_.emplace_back(name, t);
  return t;
}

Tensor Module::register_buffer(const std::string& name, Tensor t, bool persistent) {
  check_new_name(name, "buffer");
  buffers_.emplace_back(name, t);
  if (!persistent) non_persistent_.push_back(name);
  return t;
}

void Module::register_child(const std::string& name, ModulePtr module) {
  check_new_name(name, "module");
  children_.emplace_back(name, std::move(module));
}

void Module::replace_child(const std::string& name, ModulePtr module) {
  KINDLING_CHECK(module != nullptr, "replace_module: the new module of '", name, "' is null");
  const auto it = std::find_if(children_.begin(), children_.end(), [&](const auto& c) { return c.first == name; });
  KINDLING_CHECK_AS(IndexError, it != children_.end(), "replace_module: ", type_name(), " has no submodule '", name,
                    "'");
  it->second = std::move(module);
}

TensorList Module::parameters(bool recurse) {
  TensorList out;
  for (auto& [name, p] : named_parameters(recurse)) out.push_back(p);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(bool recurse) {
  std::vector<std::pair<std::string, Tensor>> out;
  std::vector<const TensorImpl*> seen;
  // Filled in two steps: GCC 12 misreads the initializer-list vector in a ?: as freeing
  // a pointer with an offset (-Wfree-nonheap-object) once named_modules is out of line.
  std::vector<std::pair<std::string, Module*>> modules;
  if (recurse)
    modules = named_modules();
  else
    modules.emplace_back("", this);
  for (const auto& [prefix, m] : modules) {
    for (const auto& [name, b] : m->buffers_) {
      if (!b.defined() || std::find(seen.begin(), seen.end(), &b.impl()) != seen.end()) continue;
      seen.push_back(&b.impl());
      out.emplace_back(prefix.empty() ? name : prefix + "." + name, b);
    }
  }
  return out;
}

TensorList Module::buffers(bool recurse) {
  TensorList out;
  for (auto& [name, b] : named_buffers(recurse)) out.push_back(b);
  return out;
}

std::vector<ModulePtr> Module::children() const {
  std::vector<ModulePtr> out;
  for (const auto& [name, c] : children_) out.push_back(c);
  return out;
}

Module& Module::train(bool on) {
  training_ = on;
  for (auto& [name, c] : children_)
    if (c) c->train(on);
  return *this;
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& [name, c] : children_)
    if (c) c->apply(fn);
  fn(*this);
  return *this;
}

void Module::zero_grad(bool set_to_none) { autograd::zero_grad(parameters(), set_to_none); }

Module& Module::to(ScalarType dtype) {
  auto convert = [dtype](const Tensor& t) {
    if (!t.defined() || !t.is_floating_point() || t.dtype() == dtype) return;
    detail::set_data(t, t.detach().to(dtype));
    if (t.grad().defined()) t.mutable_grad() = t.grad().to(dtype);  // no autograd state for buffers
  };
  for (auto& [prefix, m] : named_modules()) {
    for (auto& [name, p] : m->parameters_) convert(p);
    for (auto& [name, b] : m->buffers_) convert(b);
  }
  return *this;
}

Module& Module::to(Device device) {
  if (device.is_cuda()) device_backend(DeviceType::CUDA).resolve(device);  // an index beyond the devices: its error
  auto move = [device](const Tensor& t) {
    if (!t.defined()) return;
    const Tensor moved = device.is_cuda() ? t.detach().cuda() : t.detach().cpu();
    if (moved.is_alias_of(t)) return;  // already there
    detail::set_data(t, moved);
    if (t.grad().defined()) t.mutable_grad() = device.is_cuda() ? t.grad().cuda() : t.grad().cpu();
  };
  for (auto& [prefix, m] : named_modules()) {
    for (auto& [name, p] : m->parameters_) move(p);
    for (auto& [name, b] : m->buffers_) move(b);
  }
  return *this;
}

Tensor Module::forward(const Tensor& /*input*/) {
  throw Error("Module [" + type_name() + "] is missing the required \"forward\" function");
}

Tensor Module::operator()(const Tensor& input) {
  // Copies of the lists: a hook may remove itself while it runs.
  Tensor x = input;
  for (const auto& [id, hook] : std::vector(hooks_->pre))
    if (auto replaced = hook(*this, x)) x = *replaced;
  Tensor y = forward(x);
  for (const auto& [id, hook] : std::vector(hooks_->post))
    if (auto replaced = hook(*this, x, y)) y = *replaced;
  return y;
}

RemovableHandle Module::register_forward_pre_hook(ForwardPreHook hook) {
  const int id = hooks_->next_id++;
  hooks_->pre.emplace_back(id, std::move(hook));
  return RemovableHandle([weak = std::weak_ptr<Hooks>(hooks_), id] {
    if (auto h = weak.lock()) std::erase_if(h->pre, [id](const auto& e) { return e.first == id; });
  });
}

RemovableHandle Module::register_forward_hook(ForwardHook hook) {
  const int id = hooks_->next_id++;
  hooks_->post.emplace_back(id, std::move(hook));
  return RemovableHandle([weak = std::weak_ptr<Hooks>(hooks_), id] {
    if (auto h = weak.lock()) std::erase_if(h->post, [id](const auto& e) { return e.first == id; });
  });
}

std::string Module::repr() const {
  // PyTorch's Module.__repr__: extra_repr lines, then "(name): child" lines with
  // the child's own lines indented by two more spaces.
  std::vector<std::string> lines;
  const std::string extra = extra_repr();
  if (!extra.empty()) {
    std::istringstream in(extra);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  for (const auto& [name, child] : children_) {
    std::string text = child ? child->repr() : "None";
    std::string indented;
    for (char c : text) {
      indented += c;
      if (c == '\n') indented += "  ";
    }
    lines.push_back("(" + name + "): " + indented);
  }
  std::string s = type_name() + "(";
  if (!lines.empty()) {
    if (lines.size() == 1 && children_.empty()) {
      s += lines[0];
    } else {
      s += "\n";
      for (const auto& l : lines) s += "  " + l + "\n";
    }
  }
  return s + ")";
}

std::ostream& operator<<(std::ostream& os, const Module& module) { return os << module.repr(); }

std::string detail::py_float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Shortest round-trip digits, then Python's layout: scientific when the
  // exponent is below -4 or at least 16, positional otherwise, always with a
  // fractional part or an exponent.
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, end);  // d.ddde±XX
  const auto e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  const int exponent = std::stoi(sci.substr(e + 1));
  const bool negative = mantissa[0] == '-';
  if (negative) mantissa.erase(0, 1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;
  std::string out;
  if (exponent < -4 || exponent >= 16) {
    out = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "") + "e" + (exponent < 0 ? "-" : "+") +
          (std::abs(exponent) < 10 ? "0" : "") + std::to_string(std::abs(exponent));
  } else if (exponent < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  } else {
    const auto int_digits = static_cast<std::size_t>(exponent + 1);
    if (digits.size() <= int_digits)
      out = digits + std::string(int_digits - digits.size(), '0') + ".0";
    else
      out = digits.substr(0, int_digits) + "." + digits.substr(int_digits);
  }
  return (negative ? "-" : "") + out;
}

}  // namespace kindling::nn
