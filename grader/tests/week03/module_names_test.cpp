// The given engine (not graded): a module without a given name prints as its class, as PyTorch
// prints `Net()` for `class Net(nn.Module)`; as<T>() finds a module's type.
#include "week03_support.hpp"

using namespace kindling;

namespace kindling::testing_names {
struct TinyNet : nn::Module {
  TinyNet() { fc = register_module("fc", std::make_shared<nn::Linear>(2, 1)); }
  std::shared_ptr<nn::Linear> fc;
};
struct Empty : nn::Module {};
}  // namespace kindling::testing_names

TEST(EngineModuleNames, AModuleWithoutANamePrintsAsItsClass) {
  testing_names::Empty empty;
  EXPECT_EQ(empty.type_name(), "Empty");  // namespaces are left out, as Python prints the class
  EXPECT_EQ(empty.repr(), "Empty()");
  testing_names::TinyNet net;
  EXPECT_EQ(net.repr(), "TinyNet(\n  (fc): Linear(in_features=2, out_features=1, bias=True)\n)");
  EXPECT_EQ(nn::Module().type_name(), "Module");
  EXPECT_EQ(nn::Linear(2, 1).type_name(), "Linear");  // a given name stays
}

TEST(EngineModuleNames, AsFindsTheModulesType) {
  testing_names::TinyNet net;
  nn::Module& fc = *net.fc;
  ASSERT_NE(fc.as<nn::Linear>(), nullptr);
  EXPECT_EQ(fc.as<nn::Linear>()->out_features, 1);
  EXPECT_EQ(fc.as<nn::Conv2d>(), nullptr);
  const nn::Module& const_net = net;
  EXPECT_EQ(const_net.as<nn::Linear>(), nullptr);
  EXPECT_NE(const_net.as<testing_names::TinyNet>(), nullptr);
}
