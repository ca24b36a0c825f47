// What cutting a matrix product for T threads adds to its work, measured on one core: the blocks of
// the grid of whole products (product_grid) one after another, and a product with shared
// packings (shared_gemm: its packing phase, then its blocks) on one thread, each against the
// whole product on one thread (block_product). Best of 30 rounds of 10 products each. Not part of
// the build: it includes linalg.cpp to reach its internal functions, so the engine's own copies
// of them are overridden at link time.
//
//   ninja -C build/solutions
//   g++ -std=c++20 -O3 -DNDEBUG -march=native -fopenmp -Wno-subobject-linkage -isystem /usr/include/eigen3 \
//     -Isolutions/week01_tensors/src $(ls -d solutions/*/include | sed 's/^/-I/') \
//     tools/bench/gemm_cut_work.cpp build/solutions/libkindling.a -Wl,--allow-multiple-definition \
//     -lz -lboost_context -L/usr/local/cuda/lib -Wl,-rpath,/usr/local/cuda/lib -lcudart -o /tmp/gemm_cut_work
//   for t in 16 8 4 2; do taskset -c 0 /tmp/gemm_cut_work $t; done
//
// A ratio above 1 is work that T real cores share out but that the whole product does not have:
// packing an operand in every block, Eigen's kernel on blocks narrower than its tiles.
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "../../solutions/week01_tensors/src/linalg.cpp"
using namespace kindling;
template <class F>
double best_us(F&& f) {
  double best = 1e18;
  for (int round = 0; round < 30; ++round) {
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < 10; ++r) f();
    best =
        std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 10);
  }
  return best;
}
int main(int argc, char** argv) {
  const std::int64_t T = atoi(argv[1]);
  omp_set_num_threads(1);
  Generator g(1);
  struct C {
    long n, k, m;
    const char* name;
  };
  for (C c : {C{64, 784, 256, "fwd 64x784x256"}, C{64, 256, 784, "grad_x 64x256x784"},
              C{256, 64, 784, "grad_w 256x64x784"}, C{512, 512, 512, "512^3"}}) {
    Tensor a = randn({c.n, c.k}, TensorOptions(), &g), b = randn({c.k, c.m}, TensorOptions(), &g);
    Tensor out = zeros({c.n, c.m});
    float* o = static_cast<float*>(out.data_ptr());
    Operand<float> A{static_cast<const float*>(a.data_ptr()), c.k, true},
        B{static_cast<const float*>(b.data_ptr()), c.m, true};
    const long n = c.n, m = c.m, k = c.k;
    double whole = best_us([&] { block_product(o, m, A, B, n, m, k, 1.0f, false); });
    const std::int64_t old_threads = std::min<std::int64_t>({T, n * m * k / detail::kMatmulGrain, std::max(n, m) / 32});
    const Grid grid = product_grid(n, m, old_threads);
    const auto cut = [](std::int64_t len, std::int64_t parts, std::int64_t p) {
      return p == parts ? len : len * p / parts / 16 * 16;
    };
    double old = best_us([&] {
      for (std::int64_t block = 0; block < grid.rows * grid.cols; ++block) {
        const std::int64_t br = block / grid.cols, bc = block % grid.cols;
        const std::int64_t r0 = cut(n, grid.rows, br), r1 = cut(n, grid.rows, br + 1);
        const std::int64_t c0 = cut(m, grid.cols, bc), c1 = cut(m, grid.cols, bc + 1);
        block_product(o + r0 * m + c0, m, A.from(r0, 0), B.from(0, c0), r1 - r0, c1 - c0, k, 1.0f, false);
      }
    });
    const auto s = shared_panels<float>(n, m, k);
    const std::int64_t limit = std::min<std::int64_t>(T, n * m * k / detail::kMatmulGrain);
    const SharedGrid sg = shared_grid<float>(n, m, limit);
    double shared = s ? best_us([&] { shared_gemm(o, m, A, B, n, m, k, 1.0f, false, *s, sg); }) : 0;
    std::printf("%-18s whole %7.1f us | grid %ldx%ld: %.2fx | shared %ldx%ld (blocks %ld): %.2fx\n", c.name, whole,
                (long)grid.rows, (long)grid.cols, old / whole, (long)sg.cm, (long)sg.cn, (long)(sg.cm * sg.cn),
                shared / whole);
  }
}
