// kindling-train: trains an MLP (784-256-10) and a small CNN on Fashion-MNIST with
// the week-5 loop, printing a progress bar per epoch and writing the loss and
// accuracy curves of each run as CSV and SVG. Run it through tools/train-fashion-mnist.

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>

#include <CLI/CLI.hpp>
#include <kindling/cuda/runtime.hpp>
#include <kindling/data.hpp>
#include <kindling/kindling.hpp>
#include <kindling/nn.hpp>
#include <kindling/training.hpp>

using namespace kindling;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<nn::Module> make_model(const std::string& kind) {
  if (kind == "mlp") return std::make_shared<nn::Sequential>(nn::Linear(784, 256), nn::ReLU(), nn::Linear(256, 10));
  return std::make_shared<nn::Sequential>(nn::Conv2d(1, 16, 3, nn::Conv2dOptions{.padding = 1}), nn::ReLU(),
                                          nn::MaxPool2d(2), nn::Conv2d(16, 32, 3, nn::Conv2dOptions{.padding = 1}),
                                          nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), nn::Linear(32 * 7 * 7, 10));
}

// uint8 images (N, 28, 28) -> float32 in [0, 1] on the model's device, shaped for the model. The
// bytes cross to the device first (a quarter of the floats' size); the labels follow the output's
// device inside train_epoch.
train::Prepare prepare_for(const std::string& kind, bool cuda) {
  return [kind, cuda](const Tensor& images) {
    const Tensor x = (cuda ? images.cuda() : images).to(kFloat32) / 255.0;
    return kind == "mlp" ? x.reshape({x.size(0), 784}) : x.reshape({x.size(0), 1, 28, 28});
  };
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kindling-train: Fashion-MNIST with an MLP and a small CNN, the week-5 loop"};
  std::string models = "both", data = "subset", out_dir = "build/runs", optimizer = "sgd", schedule = "cosine";
  std::string device = "cpu";
  std::int64_t max_batches = -1, test_examples = -1;
  int epochs = 10, workers = 0;
  std::int64_t batch_size = 64;
  double lr = 0.05;
  std::uint64_t seed = 0;
  app.add_option("--model", models, "mlp, cnn or both")->check(CLI::IsMember({"mlp", "cnn", "both"}));
  app.add_option("--data", data,
                 "subset (the kit's 1,000 + 500 examples) or full (Debian's dataset-fashion-mnist: "
                 "sudo apt-get install dataset-fashion-mnist)")
      ->check(CLI::IsMember({"subset", "full"}));
  app.add_option("--epochs", epochs, "epochs per model")->check(CLI::PositiveNumber);
  app.add_option("--batch-size", batch_size, "examples per batch")->check(CLI::PositiveNumber);
  app.add_option("--optimizer", optimizer, "sgd (momentum 0.9) or adam")->check(CLI::IsMember({"sgd", "adam"}));
  app.add_option("--lr", lr, "learning rate (sgd: 0.05; pass about 1e-3 for adam)");
  app.add_option("--schedule", schedule, "cosine (annealed to 0 over the epochs) or none")
      ->check(CLI::IsMember({"cosine", "none"}));
  app.add_option("--workers", workers, "DataLoader worker threads")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", seed, "manual_seed: the same seed gives the same run");
  app.add_option(
         "--device", device,
         "cpu, or cuda: the kit's CUDA simulator, which this program's kernels are built for (slow: use --max-batches)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--max-batches", max_batches, "stop each training epoch after this many batches (-1: all)");
  app.add_option("--test-examples", test_examples, "evaluate on the first N test examples (-1: all)");
  app.add_option("--out", out_dir, "where each run's CSV and SVG curves go");
  CLI11_PARSE(app, argc, argv);

  try {
    const std::string root = data == "full" ? "/usr/share/datasets/fashion-mnist"
                                            : std::string(KINDLING_SOURCE_DIR) + "/datasets/fashion-mnist-subset";
    if (data == "full" && !fs::exists(root + "/train-images-idx3-ubyte.gz")) {
      std::cerr << "kindling-train: the full Fashion-MNIST is not installed: sudo apt-get install "
                   "dataset-fashion-mnist (or tools/train-fashion-mnist --install-dataset)\n";
      return 2;
    }
    manual_seed(seed);
    auto train_set = std::make_shared<data::FashionMNIST>(root, true);
    std::shared_ptr<data::Dataset> test_set = std::make_shared<data::FashionMNIST>(root, false);
    if (test_examples >= 0) {
      std::vector<std::int64_t> first(static_cast<std::size_t>(std::min(test_examples, test_set->size())));
      std::iota(first.begin(), first.end(), 0);
      test_set = std::make_shared<data::Subset>(test_set, first);
    }
    const bool cuda = device == "cuda";
    Generator shuffle(seed);
    data::DataLoaderOptions train_opts;
    train_opts.batch_size = batch_size;
    train_opts.shuffle = true;
    train_opts.num_workers = workers;
    train_opts.generator = &shuffle;
    data::DataLoaderOptions test_opts;
    test_opts.batch_size = 500;
    test_opts.num_workers = workers;
    data::DataLoader train_loader(train_set, train_opts), test_loader(test_set, test_opts);
    const bool tty = isatty(STDOUT_FILENO);
    std::cout << "Fashion-MNIST (" << data << "): " << train_set->size() << " training, " << test_set->size()
              << " test examples; batch " << batch_size << ", " << optimizer << " lr " << lr << " (" << schedule
              << "), seed " << seed << ", " << workers << " workers, on "
              << (cuda ? cuda::backend_description() : std::string("cpu")) << "\n";
    fs::create_directories(out_dir);
    for (const std::string kind : {"mlp", "cnn"}) {
      if (models != "both" && models != kind) continue;
      // Each model starts from the seed, so that --model cnn repeats the CNN of --model both.
      manual_seed(seed);
      shuffle.manual_seed(seed);
      auto model = make_model(kind);
      if (cuda) model->to(Device("cuda"));
      std::unique_ptr<optim::Optimizer> opt;
      if (optimizer == "sgd")
        opt = std::make_unique<optim::SGD>(model->parameters(), optim::SGD::Config{.lr = lr, .momentum = 0.9});
      else
        opt = std::make_unique<optim::Adam>(model->parameters(), optim::Adam::Config{.lr = lr});
      std::unique_ptr<optim::lr_scheduler::CosineAnnealingLR> sched;
      if (schedule == "cosine") sched = std::make_unique<optim::lr_scheduler::CosineAnnealingLR>(*opt, epochs);
      const auto prepare = prepare_for(kind, cuda);
      std::vector<train::CurvePoint> curve;
      for (int e = 1; e <= epochs; ++e) {
        train::ProgressBar bar(std::cout, tty, kind + " epoch " + std::to_string(e) + "/" + std::to_string(epochs));
        const train::EpochStats tr =
            train::train_epoch(*model, train_loader, *opt, prepare, std::ref(bar), max_batches);
        const train::EpochStats te = train::evaluate(*model, test_loader, prepare);
        curve.push_back({e, tr, te});
        if (sched) sched->step();  // once per epoch, after the optimizer's steps
        std::printf("%s epoch %d: train loss %.4f acc %.2f%% | test loss %.4f acc %.2f%% | %.1f s\n", kind.c_str(), e,
                    tr.loss, 100 * tr.accuracy, te.loss, 100 * te.accuracy, tr.seconds + te.seconds);
        std::fflush(stdout);
      }
      const std::string base = out_dir + "/" + kind + "-" + data;
      std::ofstream(base + ".csv") << train::curves_csv(curve);
      std::ofstream(base + ".svg") << train::curves_svg(curve, kind + " on Fashion-MNIST (" + data + ")");
      std::cout << "wrote " << base << ".csv and " << base << ".svg\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "kindling-train: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
