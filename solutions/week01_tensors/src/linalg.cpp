// Matrix products. Floating GEMM goes through Eigen's blocked, packed kernels, single-threaded,
// on a grid of output blocks that the engine's threads share (parallel_gemm), or on slices of a long
// inner dimension (split_k_gemm), each thread packing into buffers it keeps (Packing); operands that are row- or
// column-major with a leading dimension are mapped in place, anything else is made contiguous first.

// Eigen never starts threads of its own: the engine cuts each product for its threads.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>

#include <array>
#include <cassert>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <kindling/device_hooks.hpp>
#include <kindling/factory.hpp>
#include <kindling/linalg.hpp>
#include <kindling/ops.hpp>

#include "autograd_hooks.hpp"
#include "internal.hpp"
#include "loop.hpp"  // max_threads, parallel_ranges
#include "packed_gemm.hpp"

namespace kindling {
namespace {

// How a 2-d operand sits in memory: row-major or column-major with a leading dimension.
struct Layout {
  Tensor t;
  bool row_major;
  std::int64_t ld;
};

Layout layout_of(const Tensor& m) {
  const std::int64_t r = m.sizes()[0], c = m.sizes()[1];
  const std::int64_t s0 = m.strides()[0], s1 = m.strides()[1];
  if ((s1 == 1 || c == 1) && s0 >= std::max<std::int64_t>(c, 1)) return {m, true, s0};
  if ((s0 == 1 || r == 1) && s1 >= std::max<std::int64_t>(r, 1)) return {m, false, s1};
  Tensor cont = m.contiguous();
  return {cont, true, std::max<std::int64_t>(c, 1)};
}

// A matrix in memory (detail::MatrixRef, gemm_raw's operand too).
template <class T>
using Operand = detail::MatrixRef<T>;

// The buffers Eigen packs panels of the operands into. Eigen's product allocates them and frees them
// on every call; on a worker thread glibc serves a block of a few hundred KB from mmap or from the
// thread's own arena and gives the pages back when it is freed, so every product on a worker took
// its page faults again: a 64 x 784 x 256 product (Linear 784->256's forward at batch 64) cut in
// two took 90 faults per call, and 330 instead of 160 us at 2 threads. Each thread keeps its two
// buffers instead, grown as needed, up to kKeptPacking bytes each (a larger one, for a product whose
// arithmetic dwarfs the allocation, is the product's own and freed after it).
constexpr std::size_t kKeptPacking = std::size_t{4} << 20;

struct AlignedFree {
  void operator()(void* p) const { Eigen::internal::aligned_free(p); }
};
template <class T>
using AlignedBuffer = std::unique_ptr<T[], AlignedFree>;

template <class T>
AlignedBuffer<T> aligned_buffer(std::size_t n) {
  return AlignedBuffer<T>(static_cast<T*>(Eigen::internal::aligned_malloc(std::max<std::size_t>(n, 1) * sizeof(T))));
}

// A buffer of at least n values for a packing: slot `slot` (0 to kKeptSlots - 1) of those the calling
// thread keeps and grows, or, for a negative slot or above kKeptPacking bytes, `own`, allocated here
// and freed with it. Slots 0 and 1 are Packing's, the others packed_gemm.hpp's (its slot s is 2 + s).
constexpr int kKeptSlots = 6;
template <class T>
T* packing_buffer(int slot, std::size_t n, AlignedBuffer<T>& own) {
  if (slot < 0 || n * sizeof(T) > kKeptPacking) {
    own = aligned_buffer<T>(n);
    return own.get();
  }
  assert(slot < kKeptSlots);
  thread_local AlignedBuffer<T> kept[kKeptSlots];
  thread_local std::size_t kept_size[kKeptSlots] = {};
  const auto s = static_cast<std::size_t>(slot);
  if (kept_size[s] < n) {
    kept[s] = aligned_buffer<T>(n);
    kept_size[s] = n;
  }
  return kept[s].get();
}

// Eigen's panel sizes for one product: kc along the inner dimension, mc and nc along the rows and
// columns of a column-major result (Eigen computes a row-major result as the column-major
// transpose), as Eigen's own gemm_blocking_space computes them for a single-threaded product.
struct PanelSizes {
  Eigen::Index kc, mc, nc;
};
template <class T>
PanelSizes panel_sizes(std::int64_t rows, std::int64_t cols, std::int64_t depth) {
  PanelSizes s{depth, rows, cols};
  Eigen::internal::computeProductBlockingSizes<T, T, 1>(s.kc, s.mc, s.nc, Eigen::Index{1});
  return s;
}
// Whether Eigen puts both packing buffers on its stack (then there is no allocation to save).
template <class T>
bool packs_on_stack(const PanelSizes& s) {
  return std::max(s.kc * s.mc, s.kc * s.nc) * static_cast<Eigen::Index>(sizeof(T)) <= EIGEN_STACK_ALLOCATION_LIMIT;
}

// Eigen's kernel and packing routines, for products that pack their operands themselves (the
// shared packings below, packed_gemm.hpp). Eigen computes the row-major out = a @ b as the column-major
// out^T = b^T a^T: b^T is the left operand of its kernel (packed by gemm_pack_lhs in panels of mr rows)
// and a^T the right one (gemm_pack_rhs, panels of nr columns). A row-major matrix read as its
// transpose is column-major.
template <class T>
struct EigenKernel {
  using Index = Eigen::Index;
  using Traits = Eigen::internal::gebp_traits<T, T>;
  template <int Order>
  using Mapper = Eigen::internal::const_blas_data_mapper<T, Index, Order>;
  template <int Order>
  using PackLhs = Eigen::internal::gemm_pack_lhs<T, Index, Mapper<Order>, Traits::mr, Traits::LhsProgress,
                                                 typename Traits::LhsPacket4Packing, Order>;
  template <int Order>
  using PackRhs = Eigen::internal::gemm_pack_rhs<T, Index, Mapper<Order>, Traits::nr, Order>;
  using Res = Eigen::internal::blas_data_mapper<T, Index, Eigen::ColMajor, Eigen::Unaligned, 1>;
  using Gebp = Eigen::internal::gebp_kernel<T, T, Index, Res, Traits::mr, Traits::nr, false, false>;
};

// m packed by Pack<Order> (EigenKernel's PackLhs or PackRhs) as its transpose, which is column-major
// when m is row-major and row-major when it is column-major: `outer` rows or columns, k deep.
template <class T, template <int> class Pack>
void pack_transpose(T* to, Operand<T> m, std::int64_t k, std::int64_t outer) {
  using K = EigenKernel<T>;
  if (m.row_major)
    Pack<Eigen::ColMajor>()(to, typename K::template Mapper<Eigen::ColMajor>(m.p, m.ld), k, outer);
  else
    Pack<Eigen::RowMajor>()(to, typename K::template Mapper<Eigen::RowMajor>(m.p, m.ld), k, outer);
}

// Eigen's blocking for one product with the buffers above.
template <class T>
class Packing final : public Eigen::internal::level3_blocking<T, T> {
 public:
  explicit Packing(const PanelSizes& s) {
    this->m_kc = s.kc;
    this->m_mc = s.mc;
    this->m_nc = s.nc;
    this->m_blockA = packing_buffer(0, static_cast<std::size_t>(s.kc * s.mc), own_a_);
    this->m_blockB = packing_buffer(1, static_cast<std::size_t>(s.kc * s.nc), own_b_);
  }

 private:
  AlignedBuffer<T> own_a_, own_b_;
};

// out (n x m, row-major, leading dimension ldo) = alpha * a @ b (+ out when accumulating), one
// thread. A product whose packing buffers need the heap runs Eigen's blocked kernel
// (general_matrix_matrix_product) on the buffers above, with the panel sizes Eigen would choose, so
// the bits are Eigen's; any other goes through Eigen's expression, `noalias() = alpha * (a * b)`
// (gemv for a matrix-vector product, a coefficient loop below Eigen's threshold, or the same kernel
// with its buffers on the stack).
template <class T, int LhsOrder, int RhsOrder>
void block_product(T* out, std::int64_t ldo, Operand<T> a, Operand<T> b, std::int64_t n, std::int64_t m, std::int64_t k,
                   T alpha, bool accumulate) {
  using Eigen::Dynamic, Eigen::OuterStride;
  using Lhs = Eigen::Map<const Eigen::Matrix<T, Dynamic, Dynamic, LhsOrder>, Eigen::Unaligned, OuterStride<>>;
  using Rhs = Eigen::Map<const Eigen::Matrix<T, Dynamic, Dynamic, RhsOrder>, Eigen::Unaligned, OuterStride<>>;
  using Out = Eigen::Map<Eigen::Matrix<T, Dynamic, Dynamic, Eigen::RowMajor>, Eigen::Unaligned, OuterStride<>>;
  Out c(out, n, m, OuterStride<>(ldo));
  const auto expression = [&] {
    const Lhs as(a.p, n, k, OuterStride<>(a.ld));
    const Rhs bs(b.p, k, m, OuterStride<>(b.ld));
    if (accumulate)
      c.noalias() += alpha * (as * bs);
    else
      c.noalias() = alpha * (as * bs);
  };
  // An empty product never reaches the blocking sizes (Eigen's divide by k), as in Eigen's own.
  if (n == 0 || m == 0 || k == 0 || n == 1 || m == 1 || n + m + k < EIGEN_GEMM_TO_COEFFBASED_THRESHOLD)
    return expression();
  const PanelSizes sizes = panel_sizes<T>(m, n, k);
  if (packs_on_stack<T>(sizes)) return expression();
  if (!accumulate) c.setZero();
  Packing<T> blocking(sizes);
  Eigen::internal::general_matrix_matrix_product<Eigen::Index, T, LhsOrder, false, T, RhsOrder, false, Eigen::RowMajor,
                                                 1>::run(n, m, k, a.p, a.ld, b.p, b.ld, out, 1, ldo, alpha, blocking);
}

template <class T>
void block_product(T* out, std::int64_t ldo, Operand<T> a, Operand<T> b, std::int64_t n, std::int64_t m, std::int64_t k,
                   T alpha, bool accumulate) {
  using Eigen::ColMajor, Eigen::RowMajor;
  if (a.row_major && b.row_major)
    block_product<T, RowMajor, RowMajor>(out, ldo, a, b, n, m, k, alpha, accumulate);
  else if (a.row_major)
    block_product<T, RowMajor, ColMajor>(out, ldo, a, b, n, m, k, alpha, accumulate);
  else if (b.row_major)
    block_product<T, ColMajor, RowMajor>(out, ldo, a, b, n, m, k, alpha, accumulate);
  else
    block_product<T, ColMajor, ColMajor>(out, ldo, a, b, n, m, k, alpha, accumulate);
}

// The grid a product of n x m outputs is cut into for `threads` threads: rows x cols blocks,
// rows * cols = threads, each block a whole single-threaded Eigen product. Each block packs its
// rows of `a` and its columns of `b`, so the grid that packs least is the one whose blocks are
// closest to square: it minimises n / rows + m / cols (a 1 x 16 cut of a 1024^2 product packs
// all of `a` sixteen times, a 4 x 4 cut four times). No block is cut below 16 rows or columns
// unless the grid has one block that way.
struct Grid {
  std::int64_t rows, cols;
};
Grid product_grid(std::int64_t n, std::int64_t m, std::int64_t threads) {
  // The 1-d cut of the longer side is always among the candidates: the rule gives at most
  // max(n, m) / 32 threads. Of equal costs, the fewest rows win.
  Grid best{1, threads};
  double best_cost = std::numeric_limits<double>::infinity();
  for (std::int64_t r = 1; r <= threads; ++r) {
    if (threads % r != 0) continue;
    const std::int64_t c = threads / r;
    if ((r > 1 && n / r < 16) || (c > 1 && m / c < 16)) continue;
    const double cost =
        static_cast<double>(n) / static_cast<double>(r) + static_cast<double>(m) / static_cast<double>(c);
    if (cost < best_cost) {
      best = {r, c};
      best_cost = cost;
    }
  }
  return best;
}

// A product whose output is small and whose inner dimension is long (a convolution's weight
// gradient: 32 x 144 outputs over 64 images' 12,544 positions) gives a grid of output blocks few
// pieces (at most one per 32 rows or columns: 4 for that one). Such a product is cut along k
// instead: at most kSplitKPieces slices of about kSplitKLength, each product of a slice into its
// own buffer, one slice per thread, and the buffers added in slice order. The slices follow the
// shape alone, so the bits are the same for any thread count, one included. Only for outputs of
// at most 2^16 elements (the buffers then hold at most 64 x 2^16 of them), and only where the cut
// gives more pieces than the grid would.
constexpr std::int64_t kSplitKMin = 4096, kSplitKLength = 1024, kSplitKPieces = 64, kSplitKMaxOutputs = 1 << 16;

std::int64_t split_k_pieces(std::int64_t k) { return std::min(kSplitKPieces, (k + kSplitKLength - 1) / kSplitKLength); }

template <class T>
void split_k_gemm(T* out, std::int64_t ldo, Operand<T> a, Operand<T> b, std::int64_t n, std::int64_t m, std::int64_t k,
                  T alpha, bool accumulate) {
  using Partial = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const std::int64_t pieces = split_k_pieces(k);
  const std::int64_t length = (k + pieces - 1) / pieces;
  std::vector<Partial> partial;  // allocated before the region: an exception inside it would terminate
  partial.reserve(static_cast<std::size_t>(pieces));
  for (std::int64_t p = 0; p < pieces; ++p) partial.emplace_back(n, m);
  const int threads = detail::parallel_threads("matmul", n * m * k, pieces, detail::kMatmulGrain);
  detail::parallel_ranges(pieces, threads, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t p = lo; p < hi; ++p) {
      // Never empty: (pieces - 1) * length < k, as (pieces - 1)^2 < kSplitKMin.
      const std::int64_t k0 = p * length, len = std::min(length, k - k0);
      block_product(partial[static_cast<std::size_t>(p)].data(), m, a.from(0, k0), b.from(k0, 0), n, m, len, T{1},
                    false);
    }
  });
  for (std::size_t p = 1; p < partial.size(); ++p) partial[0] += partial[p];
  Eigen::Map<Partial, Eigen::Unaligned, Eigen::OuterStride<>> c(out, n, m, Eigen::OuterStride<>(ldo));
  if (accumulate)
    c += alpha * partial[0];
  else
    c = alpha * partial[0];
}

// A product of moderate size on several threads, with its operands packed once between them
// (shared_gemm). The grid above gives every block its own whole product, so every block packs its
// rows of `a` and its columns of `b`: Linear 784->256's forward at batch 64, cut 1 x 8, packed all
// of `a` eight times, and each block's kernel worked on 32 columns where Eigen's is built for mr =
// 48 (docs/performance.md, "Operands packed once between threads"). Here the team first packs both
// operands whole, each thread a share of the panels, into buffers of the calling thread; then,
// after one barrier, each thread runs Eigen's kernel on its block of the packed panels. Blocks are
// made of whole tiles of Eigen's kernel (mr columns of the output by nr rows), and the inner
// dimension is cut into the panels Eigen's one-thread product uses, so each output is computed by
// the same kind of tile, adding the same panels in the same order: the bits are those of
// block_product on one thread, for any thread count. Only where both packings together stay within
// kSharedPacking bytes (about an L2 cache); a larger product loses little to the grid's repeated
// packing (a 1024^2 product cut 4 x 4 costs 1.02-1.08x its one-thread time on one core) and keeps
// Eigen's cache blocking.
constexpr std::size_t kSharedPacking = std::size_t{2} << 20;

// The block grid of a shared product: `cm` slices of the output's columns (Eigen's rows) by `cn`
// slices of its rows, each slice tm units of kSharedUnitM columns or tn units of kSharedUnitN rows
// long (the last one shorter). The units are whole tiles of Eigen's kernel on every instruction set
// (mr is three packets with FMA, 48 floats with AVX-512 and 24 with AVX2, and two without, 8 with
// SSE alone; half as many doubles; nr is 4), so the grid, and the thread count, are the same on
// every machine.
template <class T>
constexpr std::int64_t kSharedUnitM = 192 / static_cast<std::int64_t>(sizeof(T));
constexpr std::int64_t kSharedUnitN = 4;
struct SharedGrid {
  std::int64_t cm, cn, tm, tn;
  // Block `piece`'s output columns [i0, i1) of m (Eigen's rows) and rows [j0, j1) of n.
  template <class T>
  std::array<std::int64_t, 4> block(std::int64_t piece, std::int64_t n, std::int64_t m) const {
    const std::int64_t bm = piece % cm, bn = piece / cm, um = kSharedUnitM<T>;
    return {bm * tm * um, std::min(m, (bm + 1) * tm * um), bn * tn * kSharedUnitN,
            std::min(n, (bn + 1) * tn * kSharedUnitN)};
  }
};

// Eigen's panel sizes for a product that shared_gemm can take, or nothing: what block_product sends
// to Eigen's blocked kernel, with its row and column blocks whole tiles (so that a block of tiles
// holds the same kinds of tile as the one-thread product), within kSharedPacking. Eigen leaves a
// row block of at most mr unrounded: a very flat product (two output rows, k about 120, with AVX2)
// can have blocks of 22, and keeps the grid.
template <class T>
std::optional<PanelSizes> shared_panels(std::int64_t n, std::int64_t m, std::int64_t k) {
  using Traits = typename EigenKernel<T>::Traits;
  static_assert(kSharedUnitM<T> % Traits::mr == 0 && kSharedUnitN % Traits::nr == 0);
  if (n <= 1 || m <= 1 || k == 0 || n + m + k < EIGEN_GEMM_TO_COEFFBASED_THRESHOLD ||
      static_cast<std::size_t>((n + m) * k) * sizeof(T) > kSharedPacking)
    return std::nullopt;
  const PanelSizes s = panel_sizes<T>(m, n, k);
  if ((s.mc < m && s.mc % Traits::mr != 0) || (s.nc < n && s.nc % Traits::nr != 0)) return std::nullopt;
  return s;
}

// The grid for at most `threads` blocks with the shortest slowest block: its outputs, plus the
// packed values it reads (weighted 16: a multiply-add of the kernel is much cheaper than reading a
// value another core packed), rounded up to whole tiles.
template <class T>
SharedGrid shared_grid(std::int64_t n, std::int64_t m, std::int64_t threads) {
  constexpr std::int64_t um = kSharedUnitM<T>, un = kSharedUnitN;
  const std::int64_t tiles_m = (m + um - 1) / um, tiles_n = (n + un - 1) / un;
  SharedGrid best{1, 1, tiles_m, tiles_n};
  std::int64_t best_cost = std::numeric_limits<std::int64_t>::max();
  for (std::int64_t cm = 1; cm <= std::min(threads, tiles_m); ++cm)
    for (std::int64_t cn = 1; cm * cn <= threads && cn <= tiles_n; ++cn) {
      const std::int64_t tm = (tiles_m + cm - 1) / cm, tn = (tiles_n + cn - 1) / cn;
      if ((cm - 1) * tm >= tiles_m || (cn - 1) * tn >= tiles_n) continue;  // a slice would be empty
      const std::int64_t rows = std::min(m, tm * um), cols = std::min(n, tn * un);
      const std::int64_t cost = rows * cols + 16 * (rows + cols);
      if (cost < best_cost) {
        best = {cm, cn, tm, tn};
        best_cost = cost;
      }
    }
  return best;
}

template <class T>
void shared_gemm(T* out, std::int64_t ldo, Operand<T> a, Operand<T> b, std::int64_t n, std::int64_t m, std::int64_t k,
                 T alpha, bool accumulate, const PanelSizes& s, const SharedGrid& grid) {
  using K = EigenKernel<T>;
  const std::int64_t kc = s.kc, panels = (k + kc - 1) / kc;
  // b^T (m x k) and a^T (k x n) packed whole, panel after panel, each panel 64-byte aligned (Eigen
  // stores and loads whole packets there): panel p of b^T at p * lhs_panel, its rows from i at
  // i * depth further (a whole number of packets: i is a multiple of kSharedUnitM); a^T's likewise.
  constexpr std::int64_t align = 64 / static_cast<std::int64_t>(sizeof(T));
  const std::int64_t lhs_panel = (kc * m + align - 1) / align * align, rhs_panel = (kc * n + align - 1) / align * align;
  AlignedBuffer<T> own_lhs, own_rhs;
  T* const lhs = packing_buffer<T>(0, static_cast<std::size_t>(panels * lhs_panel), own_lhs);
  T* const rhs = packing_buffer<T>(1, static_cast<std::size_t>(panels * rhs_panel), own_rhs);
  // The packing is shared out in units: a tile of b^T (mr rows) or a panel of a^T (nr columns), or
  // a slice of one along k (a tile's packing is k-major, so a slice of it is a contiguous piece),
  // or the rows or columns after the last whole tile or panel. The units are listed piece by
  // piece, each piece's block listing the tiles and panels that no earlier piece has listed, and
  // each piece packs the units that start in its share of the (m + n) * k values: on 2 threads each
  // packs the tiles of b^T it multiplies and shares a^T (what another core packed is slow to read).
  using Traits = typename K::Traits;
  struct Unit {
    bool left;
    std::int64_t panel, first, count, k_begin, k_end;  // b^T's rows or a^T's columns [first, first + count)
    std::int64_t owner = 0;                            // the piece that packs it
  };
  const std::int64_t pieces = grid.cm * grid.cn, total = (m + n) * k;
  const std::int64_t k_slice = std::max<std::int64_t>(64, total / (4 * pieces * Traits::mr));
  std::vector<Unit> units;
  const auto list = [&](bool left, std::int64_t from, std::int64_t to) {
    const std::int64_t tile = left ? Traits::mr : Traits::nr, whole = from + (to - from) / tile * tile;
    for (std::int64_t p = 0; p < panels; ++p) {
      const std::int64_t depth = std::min(kc, k - p * kc);
      for (std::int64_t first = from; first < whole; first += tile)
        for (std::int64_t k0 = 0; k0 < depth; k0 += k_slice)
          units.push_back({left, p, first, tile, k0, std::min(depth, k0 + k_slice)});
      if (whole < to) units.push_back({left, p, whole, to - whole, 0, depth});
    }
  };
  std::vector<bool> listed_m(static_cast<std::size_t>(grid.cm)), listed_n(static_cast<std::size_t>(grid.cn));
  for (std::int64_t piece = 0; piece < pieces; ++piece) {
    const auto [i0, i1, j0, j1] = grid.block<T>(piece, n, m);
    const auto bm = static_cast<std::size_t>(piece % grid.cm), bn = static_cast<std::size_t>(piece / grid.cm);
    if (!listed_m[bm]) list(true, i0, i1);
    if (!listed_n[bn]) list(false, j0, j1);
    listed_m[bm] = listed_n[bn] = true;
  }
  for (std::int64_t start = 0; Unit & u : units) {
    u.owner = start * pieces / total;
    start += u.count * (u.k_end - u.k_begin);
  }
  const auto pack_share = [&](std::int64_t piece) {
    for (const Unit& u : units) {
      if (u.owner != piece) continue;
      const std::int64_t k0 = u.panel * kc, depth = std::min(kc, k - k0), tile = u.left ? Traits::mr : Traits::nr;
      // A whole tile or panel sits at first * depth, its k-th row of values k * tile further on.
      const std::int64_t at = u.first * depth + u.k_begin * tile, d = u.k_end - u.k_begin;
      if (u.left)
        pack_transpose<T, K::template PackLhs>(lhs + u.panel * lhs_panel + at, b.from(k0 + u.k_begin, u.first), d,
                                               u.count);
      else
        pack_transpose<T, K::template PackRhs>(rhs + u.panel * rhs_panel + at, a.from(u.first, k0 + u.k_begin), d,
                                               u.count);
    }
  };
  const auto multiply = [&](std::int64_t piece) {
    const auto [i0, i1, j0, j1] = grid.block<T>(piece, n, m);
    if (!accumulate)
      for (std::int64_t j = j0; j < j1; ++j) std::fill(out + j * ldo + i0, out + j * ldo + i1, T{0});
    for (std::int64_t p = 0; p < panels; ++p) {
      const std::int64_t depth = std::min(kc, k - p * kc);
      typename K::Gebp()(typename K::Res(out + j0 * ldo + i0, ldo), lhs + p * lhs_panel + i0 * depth,
                         rhs + p * rhs_panel + j0 * depth, i1 - i0, depth, j1 - j0, alpha);
    }
  };
  detail::parallel_phases(pieces, pack_share, multiply);
}

template <class T>
void parallel_gemm(T* out, std::int64_t ldo, Operand<T> a, Operand<T> b, std::int64_t n, std::int64_t m, std::int64_t k,
                   T alpha, bool accumulate) {
  // A product is cut into a grid of output blocks, one whole single-threaded Eigen product per
  // thread (product_grid), and the blocks run in one region of OpenMP's whole team, as every
  // loop of the engine does (loop.hpp, KINDLING_OMP_FOR). Eigen's own threading is off
  // (EIGEN_DONT_PARALLELIZE, above): its threads share packed panels and wait on one another,
  // spinning, several times a product, and it starts a team of the size it picks. Measured
  // (docs/performance.md, "One team for every region"): on a VM whose second vCPU is sometimes
  // slow, Eigen's threads made a 784->256 Linear fwd+bwd 1.3x slower on 2 threads than on 1;
  // with 16 threads on 2 cores they brought a 512^2 product to 2.8 GFLOP/s (cut: 122).
  // The thread count follows the engine's one rule: a grain of kMatmulGrain multiply-adds per
  // thread, and at most one thread per 32 output columns or rows.
  // The k cut when it gives more pieces than the grid could (and enough work for two threads).
  if (k >= kSplitKMin && k >= 8 * std::max(n, m) && n * m <= kSplitKMaxOutputs &&
      split_k_pieces(k) > std::max(n, m) / 32 && n * m * k >= 2 * detail::kMatmulGrain) {
    split_k_gemm(out, ldo, a, b, n, m, k, alpha, accumulate);
    return;
  }
  // A product with its packings shared: the rule's thread count (without the limit of one thread
  // per 32 rows or columns), then as many as the grid for it has blocks.
  const std::int64_t limit = std::min<std::int64_t>(detail::max_threads(), n * m * k / detail::kMatmulGrain);
  if (limit >= 2)
    if (const std::optional<PanelSizes> s = shared_panels<T>(n, m, k)) {
      const SharedGrid grid = shared_grid<T>(n, m, limit);
      if (detail::parallel_threads("matmul", n * m * k, grid.cm * grid.cn, detail::kMatmulGrain) > 1)
        return shared_gemm(out, ldo, a, b, n, m, k, alpha, accumulate, *s, grid);
      return block_product(out, ldo, a, b, n, m, k, alpha, accumulate);
    }
  const int threads = detail::parallel_threads("matmul", n * m * k, std::max(n, m) / 32, detail::kMatmulGrain);
  if (threads <= 1) {
    block_product(out, ldo, a, b, n, m, k, alpha, accumulate);
    return;
  }
  const Grid grid = product_grid(n, m, threads);
  // Cuts fall on multiples of 16 rows or columns (Eigen's kernels work in panels of 16 floats).
  const auto cut = [](std::int64_t len, std::int64_t parts, std::int64_t p) {
    return p == parts ? len : len * p / parts / 16 * 16;
  };
  detail::parallel_ranges(grid.rows * grid.cols, grid.rows * grid.cols, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t block = lo; block < hi; ++block) {
      const std::int64_t br = block / grid.cols, bc = block % grid.cols;
      const std::int64_t r0 = cut(n, grid.rows, br), r1 = cut(n, grid.rows, br + 1);
      const std::int64_t c0 = cut(m, grid.cols, bc), c1 = cut(m, grid.cols, bc + 1);
      block_product(out + r0 * ldo + c0, ldo, a.from(r0, 0), b.from(0, c0), r1 - r0, c1 - c0, k, alpha, accumulate);
    }
  });
}

template <class T>
void gemm_float(const Tensor& out, const Tensor& a_in, const Tensor& b_in, T alpha, bool accumulate) {
  const std::int64_t n = a_in.sizes()[0], k = a_in.sizes()[1], m = b_in.sizes()[1];
  const Layout a = layout_of(a_in), b = layout_of(b_in);
  parallel_gemm(static_cast<T*>(out.data_ptr()), out.strides()[0],
                Operand<T>{static_cast<const T*>(a.t.data_ptr()), a.ld, a.row_major},
                Operand<T>{static_cast<const T*>(b.t.data_ptr()), b.ld, b.row_major}, n, m, k, alpha, accumulate);
}

// Integer matrices: a plain i-k-j loop (PyTorch supports them on the CPU too).
template <class T>
void gemm_int(const Tensor& out, const Tensor& a, const Tensor& b, T alpha, bool accumulate) {
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  const std::int64_t n = a.sizes()[0], k = a.sizes()[1], m = b.sizes()[1];
  const T* pa = static_cast<const T*>(ac.data_ptr());
  const T* pb = static_cast<const T*>(bc.data_ptr());
  T* po = static_cast<T*>(out.data_ptr());
  const std::int64_t ldo = out.strides()[0];
  for (std::int64_t i = 0; i < n; ++i) {
    T* row = po + i * ldo;
    if (!accumulate) std::fill(row, row + m, T{0});
    for (std::int64_t p = 0; p < k; ++p) {
      const T av = static_cast<T>(alpha * pa[i * k + p]);
      for (std::int64_t j = 0; j < m; ++j) row[j] = static_cast<T>(row[j] + av * pb[p * m + j]);
    }
  }
}

}  // namespace

// Here because this is the one file that includes Eigen (its array functions are
// vectorised for the instruction set the build targets).
void detail::tanh_float(const float* in, float* out, std::int64_t n) {
  Eigen::Map<Eigen::ArrayXf>(out, n) = Eigen::Map<const Eigen::ArrayXf>(in, n).tanh();
}

// out (row-major, contiguous rows) = alpha * a @ b (+ out when accumulating).
void detail::gemm(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha, bool accumulate) {
  if (!out.device().is_cpu()) return device_backend(out.device().type).gemm(out, a, b, alpha, accumulate);
  KINDLING_CHECK(a.dtype() != kBool, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>)
      gemm_float<T>(out, a, b, alpha.to<T>(), accumulate);
    else if constexpr (!std::is_same_v<T, bool>)
      gemm_int<T>(out, a, b, alpha.to<T>(), accumulate);
  });
}

// ---- packed operands (packed_gemm.hpp) ----------------------------------------------------------

template <class T>
bool detail::packed_fits(std::int64_t n, std::int64_t m, std::int64_t k) {
  // What block_product sends to Eigen's blocked kernel (not its coefficient loop or gemv), with the
  // whole inner dimension in one panel (kc >= k) and a's rows in one (nc >= n: packed once, as
  // Eigen packs its right operand once when it is one panel). Eigen packs b's columns mc at a time
  // and its kernel takes them in tiles of mr, 2 mr / 3 or mr / 3 columns (the narrower tiles split
  // each sum between two accumulators): packed whole, every column falls in the same kind of tile as
  // in Eigen's blocks when mc is a multiple of mr (or covers all of b), and then each output adds
  // its products in the order gemm_raw's one-thread product does. b's packing is at most
  // kKeptPacking bytes; a's at most what Eigen's own panel sizes allow (nc * kc).
  if (n <= 1 || m <= 1 || k == 0 || n + m + k < EIGEN_GEMM_TO_COEFFBASED_THRESHOLD) return false;
  const PanelSizes s = panel_sizes<T>(m, n, k);
  constexpr Eigen::Index mr = EigenKernel<T>::Traits::mr;
  return s.kc >= k && s.nc >= n && (s.mc >= m || s.mc % mr == 0) &&
         static_cast<std::size_t>(m * k) * sizeof(T) <= kKeptPacking;
}

template <class T>
struct detail::PackedOperand<T>::Owned {
  AlignedBuffer<T> buffer;
};

template <class T>
detail::PackedOperand<T>::PackedOperand(PackedSide side, MatrixRef<T> m, std::int64_t outer, std::int64_t k, int slot)
    : side_(side), outer_(outer), k_(k) {
  assert(slot < kKeptSlots - 2);
  AlignedBuffer<T> own;
  data_ = packing_buffer<T>(slot < 0 ? -1 : 2 + slot, static_cast<std::size_t>(outer * k), own);
  if (own) own_ = std::make_unique<Owned>(Owned{std::move(own)});
  if (side == PackedSide::left)  // a (outer x k) as the kernel's right operand a^T (k x outer)
    pack_transpose<T, EigenKernel<T>::template PackRhs>(data_, m, k, outer);
  else  // b (k x outer) as the kernel's left operand b^T (outer x k)
    pack_transpose<T, EigenKernel<T>::template PackLhs>(data_, m, k, outer);
}

template <class T>
detail::PackedOperand<T>::PackedOperand(PackedOperand&&) noexcept = default;
template <class T>
detail::PackedOperand<T>& detail::PackedOperand<T>::operator=(PackedOperand&&) noexcept = default;
template <class T>
detail::PackedOperand<T>::~PackedOperand() = default;

template <class T>
void detail::gemm_packed(T* out, std::int64_t ldo, const PackedOperand<T>& a, const PackedOperand<T>& b,
                         bool accumulate) {
  using K = EigenKernel<T>;
  assert(a.side() == PackedSide::left && b.side() == PackedSide::right && a.depth() == b.depth());
  const std::int64_t n = a.outer(), m = b.outer();
  if (!accumulate && ldo == m)  // Eigen's kernel adds into the output: zeroed first, in one pass when it is one run
    std::fill(out, out + n * m, T{0});
  else if (!accumulate)
    for (std::int64_t i = 0; i < n; ++i) std::fill(out + i * ldo, out + i * ldo + m, T{0});
  typename K::Gebp()(typename K::Res(out, ldo), b.data(), a.data(), m, a.depth(), n, T{1});
}

template bool detail::packed_fits<float>(std::int64_t, std::int64_t, std::int64_t);
template bool detail::packed_fits<double>(std::int64_t, std::int64_t, std::int64_t);
template class detail::PackedOperand<float>;
template class detail::PackedOperand<double>;
template void detail::gemm_packed<float>(float*, std::int64_t, const PackedOperand<float>&, const PackedOperand<float>&,
                                         bool);
template void detail::gemm_packed<double>(double*, std::int64_t, const PackedOperand<double>&,
                                          const PackedOperand<double>&, bool);

template <class T>
void detail::gemm_raw(T* out, std::int64_t ldo, MatrixRef<T> a, MatrixRef<T> b, std::int64_t n, std::int64_t m,
                      std::int64_t k, bool accumulate) {
  parallel_gemm(out, ldo, a, b, n, m, k, T{1}, accumulate);
}
template void detail::gemm_raw<float>(float*, std::int64_t, MatrixRef<float>, MatrixRef<float>, std::int64_t,
                                      std::int64_t, std::int64_t, bool);
template void detail::gemm_raw<double>(double*, std::int64_t, MatrixRef<double>, MatrixRef<double>, std::int64_t,
                                       std::int64_t, std::int64_t, bool);

namespace {

std::string dims_of(const Tensor& t) { return std::to_string(t.sizes()[0]) + "x" + std::to_string(t.sizes()[1]); }

// PyTorch's words for two operands of different dtypes in mm, bmm and matmul: a's, then b's.
void check_scalar_types(const Tensor& a, const Tensor& b) {
  KINDLING_CHECK(a.dtype() == b.dtype(), "expected scalar type ", dtype_short_name(a.dtype()), " but found ",
                 dtype_short_name(b.dtype()));
}

// mm's checks, in PyTorch's order. addmm (`self` given) compares the dtypes before anything else,
// in its own words ("self and mat2", then "mat1 and mat2": what nn::Linear with a bias reports for
// an input of the wrong dtype), and words its rank checks its own way.
void check_mm(const Tensor& a, const Tensor& b, const Tensor* self = nullptr) {
  if (self) {
    KINDLING_CHECK(self->dtype() == b.dtype(), "self and mat2 must have the same dtype");
    KINDLING_CHECK(a.dtype() == b.dtype(), "mat1 and mat2 must have the same dtype");
    KINDLING_CHECK(a.dim() == 2, "mat1 must be a matrix, got ", a.dim(), "-D tensor");
    KINDLING_CHECK(b.dim() == 2, "mat2 must be a matrix, got ", b.dim(), "-D tensor");
  }
  KINDLING_CHECK(a.dim() == 2, "self must be a matrix");
  KINDLING_CHECK(b.dim() == 2, "mat2 must be a matrix");
  KINDLING_CHECK(a.sizes()[1] == b.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (", dims_of(a), " and ",
                 dims_of(b), ")");
  check_scalar_types(a, b);
}

}  // namespace

using detail::autograd::differentiable;
using detail::autograd::Op;
using detail::autograd::OpArgs;
namespace {
Tensor addmm_impl(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha);
}  // namespace

Tensor dot(const Tensor& a, const Tensor& b) {
  KINDLING_CHECK(a.dim() == 1 && b.dim() == 1, "1D tensors expected, but got ", a.dim(), "D and ", b.dim(),
                 "D tensors");
  KINDLING_CHECK(a.dtype() == b.dtype(), "dot : expected both vectors to have same dtype, but found ",
                 dtype_short_name(a.dtype()), " and ", dtype_short_name(b.dtype()));
  KINDLING_CHECK(a.numel() == b.numel(), "inconsistent tensor size, expected tensor [", a.numel(), "] and src [",
                 b.numel(), "] to have the same number of elements, but got ", a.numel(), " and ", b.numel(),
                 " elements respectively");
  return differentiable(Op::Dot, {a, b}, [&] { return mm(a.unsqueeze(0), b.unsqueeze(1)).reshape(Shape{}); });
}

Tensor mv(const Tensor& mat, const Tensor& vec) {
  KINDLING_CHECK(mat.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got ", 1, ", ", mat.dim(), ", ",
                 vec.dim());
  KINDLING_CHECK(mat.sizes()[1] == vec.sizes()[0], "size mismatch, got ", mat.sizes()[0], ", ", dims_of(mat), ",",
                 vec.sizes()[0]);
  return differentiable(Op::Mv, {mat, vec}, [&] { return mm(mat, vec.unsqueeze(1)).squeeze(1); });
}

Tensor mm(const Tensor& a, const Tensor& b) {
  check_mm(a, b);
  const Device device = detail::common_device({&a, &b});
  return differentiable(
      Op::Mm, {a, b},
      [&] {
        Tensor out = detail::empty_contiguous({a.sizes()[0], b.sizes()[1]}, a.dtype(), device);
        if (a.sizes()[1] == 0) {
          detail::fill(out, 0);
          return out;
        }
        detail::gemm(out, a, b, 1, false);
        return out;
      },
      [&] { return OpArgs{.column_major = detail::autograd::column_major_bits(a, b)}; });
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  check_mm(mat1, mat2, &self);
  return differentiable(
      Op::Addmm, {self, mat1, mat2}, [&] { return addmm_impl(self, mat1, mat2, beta, alpha); },
      [&] {
        return OpArgs{.alpha = alpha, .beta = beta, .column_major = detail::autograd::column_major_bits(mat1, mat2)};
      });
}

namespace {
Tensor addmm_impl(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  const Shape shape{mat1.sizes()[0], mat2.sizes()[1]};
  Tensor out = detail::empty_contiguous(shape, mat1.dtype(), detail::common_device({&self, &mat1, &mat2}));
  if (beta.to<double>() == 0) {
    detail::fill(out, 0);  // beta == 0 ignores self, NaNs included, as in BLAS
  } else {
    KINDLING_CHECK(IntArrayRef(broadcast_shapes(self.sizes(), shape)).equals(shape), "expand(",
                   legacy_type_name(self.dtype()), "{", to_string(self.sizes()), "}, size=", to_string(shape),
                   "): the number of sizes provided (2) must be greater or equal to the number of dimensions in the "
                   "tensor (",
                   self.dim(), ")");
    const Tensor bias = beta.to<double>() == 1 ? self : mul(self, detail::wrapped_scalar(beta));
    detail::copy(out, bias.expand(shape));
  }
  if (mat1.sizes()[1] > 0) detail::gemm(out, mat1, mat2, alpha, true);
  return out;
}
}  // namespace

Tensor bmm(const Tensor& a, const Tensor& b) {
  KINDLING_CHECK(a.dim() == 3, "batch1 must be a 3D tensor");
  KINDLING_CHECK(b.dim() == 3, "batch2 must be a 3D tensor");
  const std::int64_t batch = a.sizes()[0], n = a.sizes()[1], k = a.sizes()[2], m = b.sizes()[2];
  KINDLING_CHECK(b.sizes()[0] == batch && b.sizes()[1] == k,
                 "Expected size for first two dimensions of batch2 tensor to be: [", batch, ", ", k, "] but got: [",
                 b.sizes()[0], ", ", b.sizes()[1], "].");
  check_scalar_types(a, b);
  const Device device = detail::common_device({&a, &b});
  return differentiable(Op::Bmm, {a, b}, [&] {
    Tensor out = detail::empty_contiguous({batch, n, m}, a.dtype(), device);
    if (k == 0) {
      detail::fill(out, 0);
      return out;
    }
    if (!device.is_cpu()) {  // one launch for the whole batch
      detail::gemm(out, a, b, 1, false);
      return out;
    }
    for (std::int64_t i = 0; i < batch; ++i) detail::gemm(out.select(0, i), a.select(0, i), b.select(0, i), 1, false);
    return out;
  });
}

// matmul, which picks one of the products above by the operands' ranks, is the task
// week01.matmul (src/tasks/matmul.cpp).

}  // namespace kindling
