// Task week04.csv_dataset: a map-style Dataset over a CSV file (size() and get()), then the
// torchvision-style pipeline of the study notes: Compose(ToTensor, Normalize) and
// next(iter(loader)). Expected values from PyTorch 1.13 (tools/oracle/week04.py, which also
// writes the shipped file data/tiny_images.csv).
#include <filesystem>
#include <fstream>
#include <limits>

#include <unistd.h>

#include <kindling/data.hpp>

#include "testing.hpp"

namespace kindling::testing {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("kindling-week04-csv-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string tiny_images() { return std::string(KINDLING_TEST_DATA) + "/tiny_images.csv"; }

TEST(week04_csv_dataset, SizeAndItemsOfAKaggleStyleFile) {
  data::CsvDataset ds(tiny_images(), 0);  // label first, then 6 pixels
  ASSERT_EQ(ds.size(), static_cast<std::int64_t>(oracle_number("csv_first_batch", "len")));
  const Values features = oracle_values("csv_first_batch", "features");
  const Values labels = oracle_values("csv_first_batch", "all_labels");
  for (std::int64_t i = 0; i < ds.size(); ++i) {
    SCOPED_TRACE("item " + std::to_string(i));
    const data::Example e = ds.get(i);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0].dtype(), kFloat32);
    EXPECT_EQ(e[0].sizes().vec(), (Shape{6}));
    EXPECT_EQ(e[1].dtype(), kInt64);
    EXPECT_EQ(e[1].dim(), 0);
    EXPECT_EQ(e[1].item<std::int64_t>(), static_cast<std::int64_t>(labels.values[static_cast<std::size_t>(i)]));
    for (std::int64_t j = 0; j < 6; ++j)
      EXPECT_EQ(e[0][j].item<float>(), features.values[static_cast<std::size_t>(i * 6 + j)]);
  }
}

TEST(week04_csv_dataset, ItemsAreViewsOfOneTensorRead) {
  data::CsvDataset ds(tiny_images(), 0);
  const data::Example a = ds.get(1), b = ds.get(3);
  // Both rows live in the same storage, two rows (6 floats each) apart: nothing is copied per item.
  EXPECT_EQ(static_cast<const char*>(b[0].data_ptr()) - static_cast<const char*>(a[0].data_ptr()),
            2 * 6 * static_cast<std::ptrdiff_t>(sizeof(float)));
  expect_error<IndexError>([&] { ds.get(5); }, "index 5 is out of range for a dataset of 5 items");
  expect_error<IndexError>([&] { ds.get(-1); }, "index -1 is out of range for a dataset of 5 items");
}

TEST(week04_csv_dataset, LabelColumnsHeadersAndLineEnds) {
  const fs::path dir = scratch("columns");
  std::ofstream(dir / "last.csv") << "a,b,label\r\n1.5,2,0\r\n\r\n3, 4.25\t,2\r\n";
  data::CsvDataset last((dir / "last.csv").string());  // defaults: label in the last column, a header
  ASSERT_EQ(last.size(), 2);
  EXPECT_TRUE(equal(last.get(1)[0], tensor({3.0f, 4.25f})));
  EXPECT_EQ(last.get(1)[1].item<std::int64_t>(), 2);
  std::ofstream(dir / "middle.csv") << "0.5,7,9.5\n1,8.9,2\n";
  data::CsvDataset middle((dir / "middle.csv").string(), 1, false);  // no header, label in the middle
  ASSERT_EQ(middle.size(), 2);
  EXPECT_TRUE(equal(middle.get(0)[0], tensor({0.5f, 9.5f})));
  EXPECT_EQ(middle.get(1)[1].item<std::int64_t>(), 8);  // truncated
  data::CsvDataset from_end((dir / "middle.csv").string(), -3, false);
  EXPECT_TRUE(equal(from_end.get(1)[0], tensor({8.9f, 2.0f})));
  EXPECT_EQ(from_end.get(1)[1].item<std::int64_t>(), 1);
  std::ofstream(dir / "empty.csv") << "a,b,label\n";
  data::CsvDataset empty((dir / "empty.csv").string());
  EXPECT_EQ(empty.size(), 0);
}

TEST(week04_csv_dataset, BadFilesSayWhereAndWhat) {
  const fs::path dir = scratch("bad");
  const std::string missing = (dir / "missing.csv").string();
  expect_error<Error>([&] { data::CsvDataset ds(missing); }, missing + ": cannot open");
  const std::string bad = (dir / "bad.csv").string();
  std::ofstream(bad) << "a,b,label\n1,2,0\n3,x,1\n";
  expect_error<Error>([&] { data::CsvDataset ds(bad); }, bad + ":3: field 2 ('x') is not a number");
  const std::string trailing = (dir / "trailing.csv").string();
  std::ofstream(trailing) << "a,b,label\n1,2,0\n3,4kg,1\n";
  expect_error<Error>([&] { data::CsvDataset ds(trailing); }, trailing + ":3: field 2 ('4kg') is not a number");
  const std::string shorter = (dir / "short.csv").string();
  std::ofstream(shorter) << "a,b,label\n1,2,0\n\n3,1\n";
  expect_error<Error>([&] { data::CsvDataset ds(shorter); }, shorter + ":4: expected 3 fields, got 2");
  const std::string column = (dir / "column.csv").string();
  std::ofstream(column) << "1,2,0\n";
  expect_error<Error>([&] { data::CsvDataset ds(column, 5, false); },
                      column + ": label column 5 is out of range for 3 fields");
  expect_error<Error>([&] { data::CsvDataset ds(column, -4, false); },
                      column + ": label column -4 is out of range for 3 fields");
}

// Converting a double outside int64's range (or NaN) to an integer is undefined behaviour,
// not a wrong number: the label must be checked before the cast (found by fuzzing).
TEST(week04_csv_dataset, LabelsThatDoNotFitInInt64AreRefused) {
  const fs::path dir = scratch("range");
  int k = 0;
  for (const std::string label : {"0x1p63", "1e300", "-1e19", "inf", "-inf", "nan", "9223372036854775808"}) {
    const std::string path = (dir / ("l" + std::to_string(k++) + ".csv")).string();
    std::ofstream(path) << "a,label\n1,0\n2," << label << "\n";
    expect_error<Error>([&] { data::CsvDataset ds(path); },
                        path + ":3: label '" + label + "' is out of range for int64");
  }
  // The edges that do fit are read, truncated as before.
  const std::string edges = (dir / "edges.csv").string();
  std::ofstream(edges) << "a,label\n1,-0x1p63\n2,9.2233720368547748e18\n3,-2.75\n";
  data::CsvDataset ds(edges);
  EXPECT_EQ(ds.get(0)[1].item<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(ds.get(1)[1].item<std::int64_t>(), 9223372036854774784LL);
  EXPECT_EQ(ds.get(2)[1].item<std::int64_t>(), -2);
}

TEST(week04_csv_dataset, ComposeToTensorNormalizeAndTheFirstBatch) {
  // image, label = next(iter(DataLoader(TinyImages(csv, Compose([ToTensor(), Normalize(0.5, 0.25)])), 2)))
  auto csv = std::make_shared<data::CsvDataset>(tiny_images(), 0);
  const data::Transform as_image = [](data::Example e) {
    e.at(0) = e.at(0).view({2, 3}).to(kUInt8);  // the pixels as an (H, W) uint8 image
    return e;
  };
  namespace T = data::transforms;
  auto images =
      std::make_shared<data::MapDataset>(csv, T::Compose({as_image, T::ToTensor(), T::Normalize({0.5}, {0.25})}));
  data::DataLoader loader(images, {.batch_size = 2});
  EXPECT_EQ(loader.size(), 3);
  const data::Batch first = *loader.begin();
  ASSERT_EQ(first.size(), 2u);
  expect_values(first[0], oracle_values("csv_first_batch", "images"));
  expect_values(first[1], oracle_values("csv_first_batch", "labels"));
}

}  // namespace
}  // namespace kindling::testing
