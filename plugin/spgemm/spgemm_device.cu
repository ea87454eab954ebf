// GPU SpGEMM C = A * B on mBSR operands (the format: docs/architecture.md): the host driver, which
// runs the phases on `stream` with one host round trip and owns every temporary.
//
// Files, in the order the phases run:
//   spgemm_analysis.cu         1. bounds and bins of C's block rows, the scan of pass 1's counts
//   spgemm_symbolic.cu         2. C's structure: pass 1 counts, pass 2 writes
//   spgemm_numeric_ordered.cu  3. C's values, ordered kernel (tensor cores: spgemm_mma.cuh)
//   spgemm_numeric_pairs.cu    3. C's values, pairs kernel
//   spgemm_internal.cuh        what the phases share
//
// Phases (all on `stream`; one host round trip, after the symbolic count):
//   1. Analysis: one thread per block row I of C bounds its intermediate tile products (ub)
//      and bins I by that bound; rows with ub == 0 get no bin.
//   2. Symbolic pass 1 counts the distinct output tiles of every row; exclusive scan (int64)
//      gives C's block-row offsets; the numeric phase's bins are built from those counts; then
//      the single host round trip reads C's tile count (to allocate C) and the bin counts.
//      Symbolic pass 2 writes the sorted block columns and the OR-ed bitmaps. Its rows are
//      binned again, by their count: pass 2 clears, scans and sorts its table, so its cost
//      follows the table size, and tables sized by the bound made pass 2 the symbolic phase's
//      largest part (bench/RESULTS.md, the SpGEMM's numeric phase). The new lists reuse pass
//      1's buffer.
//   3. Numeric: one warp per block row of C, by one of two kernels for the whole product:
//      the ordered kernel (numeric_kernel; tensor cores for dense A tiles, bit-identical to
//      spgemm_ref on CUDA cores) or the pairs kernel (numeric_pairs_kernel; low-fill operands,
//      atomics, order not fixed). SpgemmPath::automatic takes the pairs kernel when A's mean
//      tile fill is below 5.5 (kPairsFillLimitTimes2 in spgemm_device.h). The ordered kernel's
//      cost per A tile (sequential A tiles, ballots, 16 lanes per pair) is what low fill
//      exposes; its tensor-core path is what high fill needs (fp32 has no tensor-core path:
//      there the limit only stands for "fill high enough for 16 lanes per pair to be busy").
//
// Output (both kernels): positions whose bit in C's bitmap is clear are written as exact
// zeros; the others get acc_t rounded once to V. Partial tiles (n % 4 != 0) need no guard: the
// bits of rows and columns past n are clear in A and B, so they are clear in C and nothing is
// read past a tile.
//
// Index arithmetic: block rows and tile positions are int32 (C is refused beyond 2^31-1
// tiles); bounds, counts and offsets of the analysis and the scan are int64; value offsets are
// (int64)tile * 16. The pair count of one chunk of G A tiles (symbolic pair enumeration, pairs
// kernel) is an int: it stays below 2^31 unless B block rows average 2^31 / G tiles.
// Memory: all device memory from the Allocator (Buffer<T>); the stream is drained before any
// temporary is released, on the error path too (StreamDrain below).
//
// Open candidates (once profiles say so): several short block rows per warp in the numeric
// phase (fine 7-point levels have ~22 output tiles per block row; the pairs kernel leaves lanes
// idle when a row has fewer than 32 pairs); a per-product binary search in C's columns could
// become a lookup in the symbolic phase's hash table; the fp16 density threshold
// (spgemm_numeric_ordered.cu), measured with amgt-kernel-bench --precision fp16; the automatic
// rule's fill limit between 4.4 and 6.5, where nothing was measured (a per-row choice between
// the kernels is possible but needs both in one launch or per-kernel row lists).
#include "spgemm/spgemm_device.h"
#include "spgemm/spgemm_internal.cuh"

#include "common/error.h"
#include "common/precision.h"

#include <climits>
#include <string>

namespace amgt::device {
namespace {

using namespace spgemm_detail;

// Drains the stream when it goes out of scope. Declared after the temporaries, it is destroyed
// before them: no temporary is released while queued work may still read it, exceptions
// included. The normal path synchronises (checked) before this runs, making it a no-op.
struct StreamDrain
{
   Stream s;
   ~StreamDrain()
   {
      if (device::stream_synchronize(s) != device::kSuccess) (void)device::last_error();
   }
};

template <class V>
void check_operand(const DeviceMbsr<V>& m, const char* name)
{
   const auto blocks = [](int32_t n) { return n / kTileDim + (n % kTileDim != 0); };
   AMGT_REQUIRE(m.nrows >= 0 && m.ncols >= 0 && m.block_rows == blocks(m.nrows) &&
                    m.block_cols == blocks(m.ncols),
                std::string("spgemm: operand ") + name + " has inconsistent block dimensions");
   AMGT_REQUIRE(m.blk_ptr.size() == static_cast<size_t>(m.block_rows) + 1 &&
                    m.blk_col.size() == static_cast<size_t>(m.num_tiles) &&
                    m.blk_map.size() == static_cast<size_t>(m.num_tiles) &&
                    m.blk_val.size() == static_cast<size_t>(m.num_tiles) * 16,
                std::string("spgemm: operand ") + name + " has arrays of the wrong size");
}

// A tile popcount is at most 16: 17 sends no tile to the tensor cores. (The pairs kernel
// never uses them; cuda_core_pairs gets 17 for completeness.)
int tc_min_nnz(SpgemmPath path)
{
   switch (path)
   {
   case SpgemmPath::automatic: return kDenseTileNnz;
   case SpgemmPath::cuda_core: return 17;
   case SpgemmPath::tensor_core: return 0;
   case SpgemmPath::cuda_core_pairs: return 17;
   }
   AMGT_THROW("spgemm: unknown path " + std::to_string(static_cast<int>(path)));
}

// The operands' shapes: A.ncols == B.nrows, and each one consistent in itself.
template <class V>
void check_operands(const DeviceMbsr<V>& A, const DeviceMbsr<V>& B)
{
   AMGT_REQUIRE(A.ncols == B.nrows, "spgemm: dimension mismatch, A is " + std::to_string(A.nrows) +
                                        " x " + std::to_string(A.ncols) + ", B is " +
                                        std::to_string(B.nrows) + " x " +
                                        std::to_string(B.ncols));
   check_operand(A, "A");
   check_operand(B, "B");
}

// C's dimensions and its block-row pointer array (written later); no tiles yet.
template <class V>
DeviceMbsr<V> product_shell(const DeviceMbsr<V>& A, const DeviceMbsr<V>& B, const Allocator& alloc)
{
   DeviceMbsr<V> C;
   C.nrows      = A.nrows;
   C.ncols      = B.ncols;
   C.block_rows = A.block_rows;
   C.block_cols = B.block_cols;
   C.blk_ptr    = Buffer<int32_t>(static_cast<size_t>(C.block_rows) + 1, alloc);
   return C;
}

// The temporaries of one product, and the drain that runs before any of them is released
// (declared last, so destroyed first). The counters and the pass-1 counts start at zero.
struct Workspace
{
   Workspace(int32_t brows, const Allocator& alloc, Stream s)
       : meta(1, alloc), row_bin(brows, alloc), row_bin2(brows, alloc), sym_rows(brows, alloc),
         num_rows(brows, alloc), counts(static_cast<size_t>(brows) + 1, alloc),
         offsets(static_cast<size_t>(brows) + 1, alloc), drain{s}
   {
      AMGT_DEVICE_CHECK(device::memset_async(meta.get(), 0, sizeof(Meta), s));
      AMGT_DEVICE_CHECK(device::memset_async(counts.get(), 0, counts.size() * sizeof(int64_t), s));
   }

   Buffer<Meta>    meta;
   Buffer<uint8_t> row_bin, row_bin2;   // symbolic (then numeric) bin, pass-2 bin of each row
   Buffer<int32_t> sym_rows, num_rows;  // rows grouped by bin
   Buffer<int64_t> counts, offsets;     // pass 1's tiles per row; their exclusive sum
   Buffer<char>    scan_temp;
   StreamDrain     drain;
};

// The one round trip, after symbolic pass 1: the counters (bin counts, A's statistics) and C's
// tile count, checked.
struct Sizes
{
   Meta    meta{};
   int64_t tiles = 0;
};

Sizes read_sizes(const Meta* dm, const int64_t* offsets, int32_t brows, Stream s)
{
   Sizes h;
   AMGT_DEVICE_CHECK(device::memcpy_async(&h.meta, dm, sizeof(Meta), device::Copy::to_host, s));
   AMGT_DEVICE_CHECK(device::memcpy_async(&h.tiles, offsets + brows, sizeof(int64_t),
                                     device::Copy::to_host, s));
   AMGT_DEVICE_CHECK(device::stream_synchronize(s));
   AMGT_REQUIRE(h.meta.error == 0, "spgemm: internal error in the symbolic phase");
   AMGT_REQUIRE(h.tiles <= INT32_MAX, "spgemm: the product has " + std::to_string(h.tiles) +
                                          " tiles, more than 2^31-1");
   return h;
}

// Whether the pairs kernel computes C's values (SpgemmPath's rule; A's entry count comes from
// the analysis, read back with C's size).
bool use_pairs_kernel(SpgemmPath path, int64_t a_entries, int64_t a_tiles)
{
   return path == SpgemmPath::cuda_core_pairs ||
          (path == SpgemmPath::automatic && 2 * a_entries < kPairsFillLimitTimes2 * a_tiles);
}

// C's tile arrays, sized by the symbolic count.
template <class V>
void allocate_tiles(DeviceMbsr<V>& C, int64_t tiles, const Allocator& alloc)
{
   C.num_tiles = tiles;
   C.blk_col   = Buffer<int32_t>(static_cast<size_t>(tiles), alloc);
   C.blk_map   = Buffer<uint16_t>(static_cast<size_t>(tiles), alloc);
   C.blk_val   = Buffer<V>(static_cast<size_t>(tiles) * 16, alloc);
}

// C's values, bin by bin (bin_rows: host copy of Meta::num_count).
template <class V>
void numeric(const NumericArgs<V>& args, bool pairs, const int32_t* bin_rows, Stream s,
             const DeviceLimits& lim)
{
   for (int b = 0; b < kNumericBins; ++b)
   {
      if (bin_rows[b] == 0) continue;
      if (pairs) launch_pairs<V>(b, args, bin_rows[b], s, lim);
      else launch_ordered<V>(b, args, bin_rows[b], s, lim);
   }
}

// Waits for the product (before the temporaries are released), checks the phases agreed and
// fills the statistics from the final counters.
void finish(const Meta* dm, int64_t tiles, Stream s, SpgemmStats& st)
{
   Meta h2{};
   AMGT_DEVICE_CHECK(device::memcpy_async(&h2, dm, sizeof(Meta), device::Copy::to_host, s));
   AMGT_DEVICE_CHECK(device::stream_synchronize(s));
   AMGT_REQUIRE(h2.error == 0, "spgemm: internal error (symbolic and numeric phases disagree)");

   st.intermediate_tiles = static_cast<int64_t>(h2.intermediate);
   st.output_tiles       = tiles;
   st.tc_tile_products   = static_cast<int64_t>(h2.tc_products);
   st.cc_tile_products   = static_cast<int64_t>(h2.cc_products);
   for (int b = 0; b < kSymbolicBins; ++b) st.symbolic_bin_rows[b] = h2.sym_count[b];
   for (int b = 0; b < kNumericBins; ++b) st.numeric_bin_rows[b] = h2.num_count[b];
}

} // namespace

const char* to_string(SpgemmPath p)
{
   switch (p)
   {
   case SpgemmPath::automatic: return "automatic";
   case SpgemmPath::cuda_core: return "cuda_core";
   case SpgemmPath::tensor_core: return "tensor_core";
   case SpgemmPath::cuda_core_pairs: return "cuda_core_pairs";
   }
   return "?";
}

template <class V>
DeviceMbsr<V> spgemm(const DeviceMbsr<V>& A, const DeviceMbsr<V>& B, Stream s,
                     const Allocator& alloc, SpgemmStats* stats, SpgemmPath path)
{
   const int min_nnz = tc_min_nnz(path);
   check_operands(A, B);

   SpgemmStats   st;
   DeviceMbsr<V> C     = product_shell(A, B, alloc);
   const int32_t brows = C.block_rows;

   const DeviceLimits lim   = device_limits();
   const int          nhash = shared_hash_bins(lim);
   st.shared_symbolic_bins  = nhash;

   if (brows == 0 || A.num_tiles == 0 || B.num_tiles == 0)
   {
      AMGT_DEVICE_CHECK(device::memset_async(C.blk_ptr.get(), 0, C.blk_ptr.size() * sizeof(int32_t), s));
      if (stats) *stats = st;
      return C;
   }

   Workspace       w(brows, alloc, s);
   const TilesView av{A.blk_ptr.get(), A.blk_col.get(), A.blk_map.get()};
   const TilesView bv{B.blk_ptr.get(), B.blk_col.get(), B.blk_map.get()};
   Meta* const     dm = w.meta.get();

   // 1. Analysis and symbolic bins.
   launch_analysis(av, bv.ptr, brows, nhash, w.row_bin.get(), w.sym_rows.get(), dm, s);

   // 2. Symbolic pass 1, C's block-row offsets, the numeric and pass-2 bins, the round trip.
   SymbolicArgs sa{av, bv, w.sym_rows.get(), dm->sym_count, w.counts.get(), nullptr, nullptr, nullptr,
                   &dm->error};
   symbolic_count(sa, nhash, brows, s, lim);
   scan_counts(w.counts.get(), w.offsets.get(), brows, w.scan_temp, alloc, s);
   launch_output_bins(w.offsets.get(), brows, nhash, w.row_bin.get(), w.row_bin2.get(),
                      w.num_rows.get(), w.sym_rows.get(), dm, s);
   const Sizes h = read_sizes(dm, w.offsets.get(), brows, s);

   st.dense_a_tiles = static_cast<int64_t>(h.meta.dense_a_tiles);
   st.a_entries     = static_cast<int64_t>(h.meta.a_entries);
   st.pairs_kernel  = use_pairs_kernel(path, st.a_entries, static_cast<int64_t>(A.num_tiles));

   allocate_tiles(C, h.tiles, alloc);
   launch_offsets_to_ptr(w.offsets.get(), brows, C.blk_ptr.get(), s);

   if (h.tiles > 0)
   {
      // 2'. Symbolic pass 2: sorted block columns and bitmaps.
      sa.c_ptr     = C.blk_ptr.get();
      sa.c_col     = C.blk_col.get();
      sa.c_map     = C.blk_map.get();
      sa.bin_count = dm->sym2_count;
      symbolic_fill(sa, nhash, h.meta.sym2_count, s, lim);

      // 3. Numeric.
      NumericArgs<V> na{av,           bv,           A.blk_val.get(), B.blk_val.get(),
                        C.blk_ptr.get(), C.blk_col.get(), C.blk_map.get(), C.blk_val.get(),
                        w.num_rows.get(), dm->num_count, dm, min_nnz};
      numeric(na, st.pairs_kernel, h.meta.num_count, s, lim);
   }

   finish(dm, h.tiles, s, st);
   if (stats) *stats = st;
   return C;
}

#define AMGT_INSTANTIATE(V)                                                                        \
   template DeviceMbsr<V> spgemm<V>(const DeviceMbsr<V>&, const DeviceMbsr<V>&, Stream,           \
                                    const Allocator&, SpgemmStats*, SpgemmPath);
AMGT_INSTANTIATE(double)
AMGT_INSTANTIATE(float)
AMGT_INSTANTIATE(half_t)
#undef AMGT_INSTANTIATE

} // namespace amgt::device
