// The SpMV's setup phase (spmv_device.h): make_spmv_plan measures the matrix, chooses a path
// and builds what the path reads and the matrix lacks; the lane rules and the automatic
// choice of a path.
//
// Why packed values. An SpMV is bound by memory traffic. Fine AMG levels hold ~4 nonzeros per
// 4x4 tile, so blk_val's 16 padded values per tile would move (16*8 + 4 + 2) / 4.2 = ~32 bytes
// per nonzero in fp64 against CSR's 12. make_spmv_plan therefore builds `packed_val`: only the
// stored entries, tile after tile, each tile's entries in bitmap order (bit r*4+c ascending,
// i.e. row-major). The CUDA-core kernels read blk_col (4 B) and blk_map (2 B) per tile and
// sizeof(V) per entry: 8 + 6/fill bytes per nonzero in fp64 (9.4 at fill 4.2), 4 + 6/fill in
// fp32, 2 + 6/fill in fp16, plus 12 B per block row (blk_ptr, row_val), the x gather and y.
//
// The automatic choice (choose_spmv_path; the measurements behind it are in bench/RESULTS.md):
// cuda_core_balanced when the longest block row holds more than 64 tiles and at least 4x the
// mean; tensor_core never (kSpmvAutoTensorCore: slower than the packed CUDA-core paths even on
// all-full tiles in fp64; the fp16 path reads 32 B per tile against packed fp16's 2 B per entry,
// so it can only win on nearly full tiles); cuda_core_tiles for 3.5 <= fill < 10 in block rows
// of <= 8 tiles on average, cuda_core for denser tiles there; cuda_core_entries otherwise (block
// rows of <= 4096 tiles); cuda_core for what is left.
#include "spmv/spmv_device.h"
#include "device/warp.cuh"
#include "spmv/spmv_common.cuh"

#include "rows/rows.h"

#include "common/error.h"
#include "device/arith.cuh"
#include "device/launch.h"

#include "device/prim.cuh"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace amgt::device::spmv_detail {

// choose_layout (rows/rows.h) prices the mBSR SpMV by the kernel this file's rule picks.
static_assert(kSpmvTileMinFill == kLayoutTileMinFill && kSpmvTileMaxMeanTiles == kLayoutTileMaxMeanTiles,
              "the layout rule and the SpMV path rule disagree on where the tile kernels run");

namespace {

// out[0] += nnz, out[1] += dense tiles, out[2] = max tiles per block row.
__global__ void measure_kernel(const uint16_t* __restrict__ blk_map, int64_t ntiles,
                               const int32_t* __restrict__ blk_ptr, int32_t block_rows,
                               unsigned long long* out)
{
   unsigned long long nnz = 0, dense = 0, longest = 0;
   const int64_t      n   = ntiles > block_rows ? ntiles : block_rows;
   for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
        i += static_cast<int64_t>(gridDim.x) * blockDim.x)
   {
      if (i < ntiles)
      {
         const int c = __popc(static_cast<unsigned>(blk_map[i]));
         nnz += c;
         dense += c >= kDenseTileNnz;
      }
      if (i < block_rows)
      {
         const unsigned long long len = static_cast<unsigned long long>(blk_ptr[i + 1] - blk_ptr[i]);
         longest                      = len > longest ? len : longest;
      }
   }
#pragma unroll
   for (int d = 16; d > 0; d >>= 1)
   {
      nnz += device::shfl_xor(nnz, d);
      dense += device::shfl_xor(dense, d);
      const unsigned long long o = device::shfl_xor(longest, d);
      longest                    = o > longest ? o : longest;
   }
   if ((threadIdx.x & 31) == 0)
   {
      atomicAdd(out + 0, nnz);
      atomicAdd(out + 1, dense);
      atomicMax(out + 2, longest);
   }
}

// cnt[t] = popcount of tile t, cnt[ntiles] = 0 (so the exclusive scan ends with nnz).
__global__ void tile_counts_kernel(const uint16_t* __restrict__ blk_map, int64_t ntiles,
                                   int64_t* __restrict__ cnt)
{
   const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (t < ntiles) cnt[t] = __popc(static_cast<unsigned>(blk_map[t]));
   else if (t == ntiles) cnt[t] = 0;
}

// 16 threads per tile, one per position: reads of blk_val are fully coalesced.
template <class V>
__global__ void pack_kernel(const uint16_t* __restrict__ blk_map, const V* __restrict__ blk_val,
                            const int64_t* __restrict__ tile_off, int64_t ntiles,
                            V* __restrict__ packed)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const int64_t t = i >> 4;
   const int     p = static_cast<int>(i & 15);
   if (t >= ntiles) return;
   const uint32_t m = blk_map[t];
   if (m & (1u << p)) packed[tile_off[t] + __popc(m & ((1u << p) - 1u))] = blk_val[i];
}

__global__ void row_val_kernel(const int32_t* __restrict__ blk_ptr, const int64_t* __restrict__ tile_off,
                               int32_t block_rows, int64_t* __restrict__ row_val)
{
   const int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (b <= block_rows) row_val[b] = tile_off[blk_ptr[b]];
}

// Balanced path, per block row: the number of 64-tile chunks of a long row (more than 64
// tiles; 0 otherwise) and whether the row is long. Entry block_rows is 0 for both, so the
// exclusive scans end with the totals.
__global__ void chunk_count_kernel(const int32_t* __restrict__ blk_ptr, int32_t block_rows,
                                   int32_t* __restrict__ nchunks, int32_t* __restrict__ is_long)
{
   const int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (b > block_rows) return;
   const int32_t len = b < block_rows ? blk_ptr[b + 1] - blk_ptr[b] : 0;
   nchunks[b]        = len > kBudget ? (len + kBudget - 1) / kBudget : 0;
   is_long[b]        = len > kBudget ? 1 : 0;
}

// Balanced path: chunk k of long row b starts at tile blk_ptr[b] + 64k; long row number
// long_index[b] is b, its first chunk chunk_first[b].
__global__ void chunk_fill_kernel(const int32_t* __restrict__ blk_ptr, const int64_t* __restrict__ tile_off,
                                  const int32_t* __restrict__ chunk_first, const int32_t* __restrict__ long_index,
                                  int32_t block_rows, int32_t* __restrict__ chunk_row,
                                  int32_t* __restrict__ chunk_tile, int64_t* __restrict__ chunk_val,
                                  int32_t* __restrict__ long_row, int32_t* __restrict__ long_chunk)
{
   const int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (b >= block_rows) return;
   const int32_t n = chunk_first[b + 1] - chunk_first[b];
   if (n == 0) return;
   for (int32_t k = 0; k < n; ++k)
   {
      const int32_t c = chunk_first[b] + k;
      const int32_t t = blk_ptr[b] + k * kBudget;
      chunk_row[c]    = static_cast<int32_t>(b);
      chunk_tile[c]   = t;
      chunk_val[c]    = tile_off[t];
   }
   long_row[long_index[b]]   = static_cast<int32_t>(b);
   long_chunk[long_index[b]] = chunk_first[b];
}

// cuda_core_entries, plan: entry_meta[k] for packed entry k = (tile index inside its block
// row) << 4 | bit position r*4+c. One warp per block row, lanes stride over its tiles.
__global__ void entry_meta_kernel(const int32_t* __restrict__ blk_ptr, const uint16_t* __restrict__ blk_map,
                                  const int64_t* __restrict__ tile_off, int32_t block_rows,
                                  uint16_t* __restrict__ meta)
{
   const int64_t b = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
   if (b >= block_rows) return;
   const int     lane  = static_cast<int>(threadIdx.x & 31);
   const int32_t start = blk_ptr[b], end = blk_ptr[b + 1];
   for (int32_t t = start + lane; t < end; t += 32)
   {
      uint32_t m = blk_map[t];
      int64_t  k = tile_off[t];
      const uint32_t rel = static_cast<uint32_t>(t - start) << 4;
      while (m)
      {
         const uint32_t e = static_cast<uint32_t>(__ffs(static_cast<int>(m)) - 1);
         meta[k++]        = static_cast<uint16_t>(rel | e);
         m &= m - 1u;
      }
   }
}

template <class V>
SpmvStats measure(const DeviceMbsr<V>& A, Stream s, const Allocator& alloc)
{
   SpmvStats st;
   st.tiles = A.num_tiles;
   if (A.block_rows > 0) st.mean_tiles_per_block_row = static_cast<double>(A.num_tiles) / A.block_rows;
   if (A.summary.known) // counted by the conversion: no pass, no synchronisation
   {
      st.nnz                     = A.summary.nnz;
      st.dense_tiles             = A.summary.dense_tiles;
      st.max_tiles_per_block_row = A.summary.max_tiles_per_block_row;
      return st;
   }
   const int64_t n = std::max<int64_t>(A.num_tiles, A.block_rows);
   if (n == 0) return st;
   Buffer<unsigned long long> out(3, alloc);
   AMGT_DEVICE_CHECK(device::memset_async(out.get(), 0, 3 * sizeof(unsigned long long), s));
   const unsigned blocks = std::min(blocks_for(n), 4096u);
   measure_kernel<<<blocks, kThreads, 0, s>>>(A.blk_map.get(), A.num_tiles, A.blk_ptr.get(),
                                              A.block_rows, out.get());
   AMGT_DEVICE_CHECK_LAUNCH("measure_kernel");
   unsigned long long h[3] = {0, 0, 0};
   AMGT_DEVICE_CHECK(device::memcpy_async(h, out.get(), sizeof h, device::Copy::to_host, s));
   AMGT_DEVICE_CHECK(device::stream_synchronize(s));
   st.nnz                     = static_cast<int64_t>(h[0]);
   st.dense_tiles             = static_cast<int64_t>(h[1]);
   st.max_tiles_per_block_row = static_cast<int32_t>(h[2]);
   return st;
}

// The shape of a plan's matrix: dimensions, block dimensions and tile count consistent.
template <class V>
void check_plan_input(const DeviceMbsr<V>& A)
{
   AMGT_REQUIRE(A.nrows >= 0 && A.ncols >= 0, "spmv plan: negative dimensions");
   AMGT_REQUIRE(A.block_rows == A.nrows / kTileDim + (A.nrows % kTileDim != 0) &&
                    A.block_cols == A.ncols / kTileDim + (A.ncols % kTileDim != 0),
                "spmv plan: block dimensions do not match nrows/ncols");
   AMGT_REQUIRE(A.num_tiles >= 0 && A.num_tiles <= std::numeric_limits<int32_t>::max(),
                "spmv plan: tile count out of range");
}

// The path of a plan: the forced one or the automatic choice, then what the precision and the
// matrix allow.
template <class V>
SpmvPath plan_path(SpmvPath forced, const SpmvStats& st)
{
   SpmvPath path = forced == SpmvPath::automatic ? choose_spmv_path(StorageTraits<V>::precision, st)
                                                 : forced;
   // fp32 has no tensor-core form of its rounding contract (tf32 inputs): CUDA cores instead.
   if (path == SpmvPath::tensor_core && std::is_same_v<V, float>) path = SpmvPath::cuda_core;
   // cuda_core_entries indexes a tile inside its block row with 12 bits.
   if (path == SpmvPath::cuda_core_entries && st.max_tiles_per_block_row > kSpmvEntryMaxTiles)
      path = choose_spmv_path(StorageTraits<V>::precision, st);
   return path;
}

// Lanes per block row of the path's group kernel. Balanced: the group kernel only sees rows of
// <= 64 tiles, so the narrowest group.
int32_t plan_group_lanes(SpmvPath path, const SpmvStats& st, int32_t block_rows)
{
   if (path == SpmvPath::cuda_core) return spmv_group_lanes(st.mean_tiles_per_block_row);
   if (path == SpmvPath::cuda_core_tiles) return spmv_tile_lanes(st.mean_tiles_per_block_row);
   if (path == SpmvPath::cuda_core_entries)
      return spmv_entry_lanes(block_rows > 0 ? static_cast<double>(st.nnz) / block_rows : 0.0,
                              block_rows);
   return 4;
}

// Per-tile offsets into the packed values: exclusive scan of the tile popcounts (int64: nnz
// may pass 2^31). Returns the scan's temporary storage, to be released only once the stream
// has drained.
template <class V>
Buffer<char> scan_tile_offsets(const DeviceMbsr<V>& A, int64_t* cnt, int64_t* tile_off, Stream s,
                               const Allocator& alloc)
{
   const int64_t ntiles = A.num_tiles;
   tile_counts_kernel<<<blocks_for(ntiles + 1), kThreads, 0, s>>>(A.blk_map.get(), ntiles, cnt);
   AMGT_DEVICE_CHECK_LAUNCH("tile_counts_kernel");
   size_t bytes = 0;
   AMGT_DEVICE_CHECK(device::prim::DeviceScan::ExclusiveSum(nullptr, bytes, cnt, tile_off, ntiles + 1, s));
   Buffer<char> temp(bytes, alloc);
   AMGT_DEVICE_CHECK(device::prim::DeviceScan::ExclusiveSum(temp.get(), bytes, cnt, tile_off, ntiles + 1, s));
   return temp;
}

// The plan's packed values and block-row offsets, packed from A's dense values.
template <class V>
void pack_values(const DeviceMbsr<V>& A, SpmvPlan<V>& plan, const int64_t* tile_off, Stream s,
                 const Allocator& alloc)
{
   const int64_t ntiles = A.num_tiles;
   plan.packed_val      = Buffer<V>(static_cast<size_t>(plan.stats.nnz), alloc);
   pack_kernel<V><<<blocks_for(16 * ntiles), kThreads, 0, s>>>(A.blk_map.get(), A.blk_val.get(),
                                                              tile_off, ntiles, plan.packed_val.get());
   AMGT_DEVICE_CHECK_LAUNCH("pack_kernel");
   row_val_kernel<<<blocks_for(int64_t{A.block_rows} + 1), kThreads, 0, s>>>(
      A.blk_ptr.get(), tile_off, A.block_rows, plan.row_val.get());
   AMGT_DEVICE_CHECK_LAUNCH("row_val_kernel");
}

// cuda_core_entries: the plan's entry decode.
template <class V>
void build_entry_meta(const DeviceMbsr<V>& A, SpmvPlan<V>& plan, const int64_t* tile_off, Stream s,
                      const Allocator& alloc)
{
   plan.entry_meta = Buffer<uint16_t>(static_cast<size_t>(plan.stats.nnz), alloc);
   entry_meta_kernel<<<blocks_for(int64_t{A.block_rows} * 32), kThreads, 0, s>>>(
      A.blk_ptr.get(), A.blk_map.get(), tile_off, A.block_rows, plan.entry_meta.get());
   AMGT_DEVICE_CHECK_LAUNCH("entry_meta_kernel");
}

// cuda_core_balanced: the chunk tables of the long rows and the partial sums' scratch.
template <class V>
void build_chunks(const DeviceMbsr<V>& A, SpmvPlan<V>& plan, const int64_t* tile_off, Stream s,
                  const Allocator& alloc)
{
   using Acc = typename SpmvArith<V>::Acc;
   const int64_t   n = int64_t{A.block_rows} + 1;
   Buffer<int32_t> nchunks(n, alloc), is_long(n, alloc), chunk_first(n, alloc), long_index(n, alloc);
   chunk_count_kernel<<<blocks_for(n), kThreads, 0, s>>>(A.blk_ptr.get(), A.block_rows,
                                                         nchunks.get(), is_long.get());
   AMGT_DEVICE_CHECK_LAUNCH("chunk_count_kernel");
   plan.num_chunks    = exclusive_sum(nchunks.get(), chunk_first.get(), n, s, alloc);
   plan.num_long_rows = exclusive_sum(is_long.get(), long_index.get(), n, s, alloc);
   if (plan.num_chunks > 0)
   {
      plan.chunk_row  = Buffer<int32_t>(plan.num_chunks, alloc);
      plan.chunk_tile = Buffer<int32_t>(plan.num_chunks, alloc);
      plan.chunk_val  = Buffer<int64_t>(plan.num_chunks, alloc);
      plan.long_row   = Buffer<int32_t>(plan.num_long_rows, alloc);
      plan.long_chunk = Buffer<int32_t>(plan.num_long_rows, alloc);
      plan.partial    = Buffer<Acc>(4 * static_cast<size_t>(plan.num_chunks), alloc);
      chunk_fill_kernel<<<blocks_for(A.block_rows), kThreads, 0, s>>>(
         A.blk_ptr.get(), tile_off, chunk_first.get(), long_index.get(), A.block_rows,
         plan.chunk_row.get(), plan.chunk_tile.get(), plan.chunk_val.get(), plan.long_row.get(),
         plan.long_chunk.get());
      AMGT_DEVICE_CHECK_LAUNCH("chunk_fill_kernel");
   }
   AMGT_DEVICE_CHECK(device::stream_synchronize(s)); // before the counts are freed
}

// What the plan's path reads and A lacks: the packed layout (the matrix's own when csr_to_mbsr
// built it, else packed here from the dense values), the entry decode of cuda_core_entries,
// the chunk tables of cuda_core_balanced. Passes only where something is missing.
template <class V>
void build_arrays(const DeviceMbsr<V>& A, SpmvPlan<V>& plan, Stream s, const Allocator& alloc)
{
   const int64_t ntiles     = A.num_tiles;
   const bool    own_packed = !A.has_packed();
   const bool    own_meta   = plan.path == SpmvPath::cuda_core_entries && plan.stats.nnz > 0 &&
                         A.packed_meta.size() != static_cast<size_t>(plan.stats.nnz);
   AMGT_REQUIRE(!own_packed || A.has_dense(), "spmv plan: the matrix holds neither value layout");
   if (own_packed)
   {
      plan.row_val = Buffer<int64_t>(static_cast<size_t>(A.block_rows) + 1, alloc);
      if (ntiles == 0)
      {
         AMGT_DEVICE_CHECK(device::memset_async(plan.row_val.get(), 0, plan.row_val.size() * sizeof(int64_t), s));
         AMGT_DEVICE_CHECK(device::stream_synchronize(s));
         return;
      }
   }
   if (ntiles == 0) return;
   if (!own_packed && !own_meta && plan.path != SpmvPath::cuda_core_balanced)
   {
      return; // everything it reads is in the matrix: no pass, no synchronisation
   }

   Buffer<int64_t>    cnt(ntiles + 1, alloc), tile_off(ntiles + 1, alloc);
   const Buffer<char> temp = scan_tile_offsets(A, cnt.get(), tile_off.get(), s, alloc);
   if (own_packed) pack_values(A, plan, tile_off.get(), s, alloc);
   if (own_meta) build_entry_meta(A, plan, tile_off.get(), s, alloc);
   if (plan.path == SpmvPath::cuda_core_balanced) build_chunks(A, plan, tile_off.get(), s, alloc);
   AMGT_DEVICE_CHECK(device::stream_synchronize(s)); // before cnt, tile_off and temp are freed
}

} // namespace
} // namespace amgt::device::spmv_detail

namespace amgt::device {

const char* to_string(SpmvPath p)
{
   // by enumerator, in spmv_device.h's order
   constexpr const char* kNames[] = {"automatic",   "cuda_core",       "cuda_core_balanced",
                                     "tensor_core", "cuda_core_tiles", "cuda_core_entries"};
   static_assert(sizeof kNames / sizeof kNames[0] == static_cast<size_t>(SpmvPath::cuda_core_entries) + 1,
                 "a name for every path");
   return by_enum(p, kNames, "?");
}

int32_t spmv_group_lanes(double mean_tiles_per_block_row)
{
   // Narrow groups win on short rows (a wide group idles on a row of a few tiles); from about
   // 16 tiles per block row 8 lanes are as fast or faster (timings per G: bench/RESULTS.md).
   if (mean_tiles_per_block_row <= 16) return 4;
   if (mean_tiles_per_block_row <= 48) return 8;
   if (mean_tiles_per_block_row <= 96) return 16;
   return 32;
}

int32_t spmv_tile_lanes(double mean_tiles_per_block_row)
{
   // One tile per lane and step: the narrowest group that takes a mean block row in one or
   // two steps. Wider groups idle on short rows, narrower ones serialise long rows
   // (amgt-kernel-bench --tile-lanes; timings: bench/RESULTS.md).
   if (mean_tiles_per_block_row <= 8) return 4;
   if (mean_tiles_per_block_row <= 16) return 8;
   if (mean_tiles_per_block_row <= 32) return 16;
   return 32;
}

int32_t spmv_entry_lanes(double mean_entries_per_block_row, int64_t block_rows)
{
   // About 16 entries per lane (four passes of four) beat one pass of 32 lanes on long
   // fine-level rows, but a matrix of few block rows needs wider groups to fill the device
   // (timings on three AMG setups: bench/RESULTS.md). So: the narrowest group with <= 16
   // entries per lane, then wider until the launch has 2^19 threads (about two waves of an
   // H100).
   int32_t g = 4;
   while (g < 32 && mean_entries_per_block_row > 16.0 * g) g *= 2;
   while (g < 32 && block_rows * g < (int64_t{1} << 19)) g *= 2;
   return g;
}

SpmvPath choose_spmv_path(Precision p, const SpmvStats& st)
{
   if (st.tiles == 0) return SpmvPath::cuda_core;
   const double fill           = static_cast<double>(st.nnz) / static_cast<double>(st.tiles);
   const double dense_fraction = static_cast<double>(st.dense_tiles) / static_cast<double>(st.tiles);
   if (kSpmvAutoTensorCore && (p == Precision::fp64 || p == Precision::fp16) && fill >= kDenseTileNnz &&
       dense_fraction >= 0.5)
   {
      return SpmvPath::tensor_core;
   }
   if (st.max_tiles_per_block_row > kSpmvBalancedTiles &&
       st.max_tiles_per_block_row >= 4.0 * st.mean_tiles_per_block_row)
   {
      return SpmvPath::cuda_core_balanced;
   }
   // Short block rows of well-filled tiles (7-point fine levels): one tile per lane; of dense
   // tiles: a group of lanes per block row, one lane per tile row (each faster than the other
   // on its kind of tile; bench/RESULTS.md)
   if (fill >= kSpmvTileMinFill && st.mean_tiles_per_block_row <= kSpmvTileMaxMeanTiles)
   {
      return fill >= kDenseTileNnz ? SpmvPath::cuda_core : SpmvPath::cuda_core_tiles;
   }
   if (st.max_tiles_per_block_row <= kSpmvEntryMaxTiles) return SpmvPath::cuda_core_entries;
   return st.mean_tiles_per_block_row <= 16.0 ? SpmvPath::cuda_core_tiles : SpmvPath::cuda_core;
}

template <class V>
SpmvPlan<V> make_spmv_plan(const DeviceMbsr<V>& A, Stream s, const Allocator& alloc, SpmvPath forced)
{
   using namespace spmv_detail;
   check_plan_input(A);

   SpmvPlan<V> plan;
   plan.nrows      = A.nrows;
   plan.ncols      = A.ncols;
   plan.block_rows = A.block_rows;
   plan.num_tiles  = A.num_tiles;
   plan.stats      = measure(A, s, alloc);
   plan.fill       = plan.stats.tiles > 0
                         ? static_cast<double>(plan.stats.nnz) / static_cast<double>(plan.stats.tiles)
                         : 0.0;
   if (A.entry_order)
   {
      // packed entries in CSR order: only the entries kernel reads them (mbsr_device.h)
      AMGT_REQUIRE(forced == SpmvPath::automatic || forced == SpmvPath::cuda_core_entries,
                   "spmv plan: a matrix converted in entry order runs the cuda_core_entries path only");
      AMGT_REQUIRE(A.packed_meta.size() == static_cast<size_t>(plan.stats.nnz) &&
                      plan.stats.max_tiles_per_block_row <= kSpmvEntryMaxTiles,
                   "spmv plan: an entry-order matrix lacks its entry decode");
      plan.path = SpmvPath::cuda_core_entries;
   }
   else { plan.path = plan_path<V>(forced, plan.stats); }
   if (plan.path == SpmvPath::tensor_core)
   {
      AMGT_REQUIRE(A.has_dense(), "spmv plan: the tensor_core path needs the dense layout (blk_val), "
                                  "and this matrix was converted without it");
      return plan; // reads A.blk_val directly
   }
   if (A.nrows == 0) return plan;

   // Offsets inside one block row are int32: 16 * tiles must fit.
   AMGT_REQUIRE(plan.stats.max_tiles_per_block_row < (int32_t{1} << 27),
                "spmv plan: a block row holds too many tiles for int32 offsets");
   plan.group_lanes = plan_group_lanes(plan.path, plan.stats, A.block_rows);
   build_arrays(A, plan, s, alloc);
   return plan;
}

template SpmvPlan<double> make_spmv_plan<double>(const DeviceMbsr<double>&, Stream, const Allocator&,
                                                 SpmvPath);
template SpmvPlan<float>  make_spmv_plan<float>(const DeviceMbsr<float>&, Stream, const Allocator&,
                                                SpmvPath);
template SpmvPlan<half_t> make_spmv_plan<half_t>(const DeviceMbsr<half_t>&, Stream, const Allocator&,
                                                 SpmvPath);

} // namespace amgt::device
