// Task week03.module_list: ModuleList and ModuleDict register what they hold, so that the
// owner's parameters, state_dict and repr include it; a plain std::vector registers nothing.
// Names, order, repr and errors from PyTorch 1.13 (tools/oracle/week03.py).

#include "oracle_json.hpp"
#include "week03_support.hpp"

namespace kindling::testing {
namespace {

using nn::Module;
using nn::ModulePtr;

// A Linear look-alike built from Module's registry alone, so that these tests do not
// depend on the Linear tasks; it prints as PyTorch's Linear does.
struct Lin : Module {
  Lin(std::int64_t in_features, std::int64_t out_features) : Module("Linear"), in(in_features), out(out_features) {
    weight = register_parameter("weight", zeros({out, in}).requires_grad_());
    bias = register_parameter("bias", zeros({out}).requires_grad_());
  }
  Tensor forward(const Tensor& x) override { return mm(x, weight.t()) + bias; }
  std::string extra_repr() const override {
    return "in_features=" + std::to_string(in) + ", out_features=" + std::to_string(out) + ", bias=True";
  }
  std::int64_t in, out;
  Tensor weight, bias;
};

ModulePtr lin(std::int64_t in, std::int64_t out) { return std::make_shared<Lin>(in, out); }

// The oracle's WithList: blocks = ModuleList([Linear(2, 3), ReLU(), Linear(3, 1)]),
// heads = ModuleDict({"act": ReLU(), "out": Linear(1, 1)}).
struct WithList : Module {
  WithList() : Module("WithList") {
    blocks = register_module("blocks", std::make_shared<nn::ModuleList>());
    blocks->push_back(lin(2, 3));
    blocks->push_back(std::make_shared<nn::ReLU>());
    blocks->push_back(lin(3, 1));
    heads = register_module("heads", std::make_shared<nn::ModuleDict>());
    heads->insert("act", std::make_shared<nn::ReLU>());
    heads->insert("out", lin(1, 1));
  }
  std::shared_ptr<nn::ModuleList> blocks;
  std::shared_ptr<nn::ModuleDict> heads;
};

// A std::vector member, as a Python list attribute: nothing in it is registered.
struct WithPlainList : Module {
  WithPlainList() : Module("WithPlainList") { blocks = {lin(2, 3), std::make_shared<nn::ReLU>(), lin(3, 1)}; }
  std::vector<ModulePtr> blocks;
};

template <class Named>
std::vector<std::string> names_of(const Named& named) {
  std::vector<std::string> out;
  for (const auto& [name, x] : named) out.push_back(name);
  return out;
}

std::vector<std::string> strings(const nlohmann::json& j) { return j.get<std::vector<std::string>>(); }

}  // namespace

TEST(week03_module_list, ParametersOfEverythingInTheContainersBelongToTheOwner) {
  const auto& c = oracle_json("module_list");
  WithList m;
  EXPECT_EQ(names_of(m.named_parameters()), strings(c.at("names_before")));
  EXPECT_EQ(m.blocks->size(), 3U);
  EXPECT_EQ(m.heads->size(), 2U);
}

TEST(week03_module_list, ReplacingAKeyKeepsItsPlaceAndNewOnesGoLast) {
  const auto& c = oracle_json("module_list");
  WithList m;
  m.heads->insert("act", std::make_shared<nn::Tanh>());
  m.heads->insert("extra", lin(1, 2));
  m.blocks->push_back(lin(1, 4));
  EXPECT_EQ(names_of(m.named_parameters()), strings(c.at("names_after")));
  EXPECT_EQ(names_of(m.state_dict()), strings(c.at("state_dict_keys")));
  EXPECT_EQ(m.heads->keys(), strings(c.at("dict_keys")));
  EXPECT_EQ(names_of(m.named_children()), strings(c.at("children")));
  EXPECT_EQ(names_of(m.named_modules()), strings(c.at("modules")));
  EXPECT_EQ(m.repr(), c.at("repr").get<std::string>());
  EXPECT_EQ((*m.heads)["act"].type_name(), "Tanh");  // the old ReLU is gone
}

TEST(week03_module_list, IndexingCountsFromEitherEnd) {
  WithList m;
  nn::ModuleList& list = *m.blocks;
  EXPECT_EQ(&list[0], list.modules()[0].get());
  EXPECT_EQ(&list[-1], list.modules()[2].get());
  EXPECT_EQ(&list[-3], list.modules()[0].get());
  EXPECT_EQ(list[1].type_name(), "ReLU");
  EXPECT_EQ(&(*m.heads)["out"], m.heads->named_children()[1].second.get());
  EXPECT_TRUE(m.heads->contains("act"));
}

TEST(week03_module_list, ErrorsArePyTorchs) {
  const auto& c = oracle_json("module_list");
  WithList m;
  m.blocks->push_back(lin(1, 4));  // four entries, as in the oracle
  expect_error<IndexError>([&] { (void)(*m.blocks)[4]; }, c.at("list_index_error").at("message").get<std::string>());
  expect_error<IndexError>([&] { (void)(*m.blocks)[-5]; },
                           c.at("list_negative_error").at("message").get<std::string>());
  EXPECT_EQ(c.at("dict_key_error").at("type").get<std::string>(), "KeyError");
  expect_error<IndexError>([&] { (void)(*m.heads)["fc"]; }, c.at("dict_key_error").at("message").get<std::string>());
}

TEST(week03_module_list, APlainVectorRegistersNothing) {
  const auto& c = oracle_json("module_list");
  WithPlainList plain;
  EXPECT_EQ(static_cast<std::int64_t>(plain.parameters().size()), c.at("plain_list_parameters").get<std::int64_t>());
  // The same modules pushed into a ModuleList are found: two Linears, four tensors.
  nn::ModuleList list;
  for (const ModulePtr& b : plain.blocks) list.push_back(b);
  EXPECT_EQ(names_of(list.named_parameters()), (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
}

}  // namespace kindling::testing
