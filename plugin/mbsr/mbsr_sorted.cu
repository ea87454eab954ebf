// The sorted (radix-sort) conversion CSR -> mBSR, the fallback of csr_to_mbsr (overview in
// mbsr_device.cu), and the row-pointer check that both conversions run.
//
// Sorted (the fallback). Every entry gets a key (block row, block column) and a payload (entry
// index, position inside the tile); a stable radix sort groups the entries of each tile, in
// CSR order, so duplicate entries are summed in the same order as the CPU reference. One
// thread per tile then builds the bitmap and the 16 values. (A stable segmented sort per block
// row with 32-bit keys was tried: on an H100, 6.1 against 8.7 ms (conversion and SpMV plan)
// on the 27-point 100^3 fine level, but 27.9 against 13.3 ms on the 7-point 160^3 level-1
// operator and slower on most coarse operators; the radix sort stayed as the fallback.)
#include "mbsr/mbsr_internal.cuh"

#include "device/arith.cuh"
#include "device/launch.h"

#include "device/prim.cuh"

#include <algorithm>

namespace amgt::device::mbsr_detail {
namespace {

// kBadRowPtr unless row_ptr starts at 0, ends at nnz and never decreases. make_keys only
// binary-searches row_ptr, so a bad row pointer gives wrong keys, never an out-of-bounds
// access, and the conversion refuses it at its one read-back (with the tile count).
__global__ void check_row_ptr(const int32_t* __restrict__ row_ptr, int32_t nrows, int64_t nnz, int* bad)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i > nrows) return;
   const bool ok = i == 0 ? row_ptr[0] == 0
                          : row_ptr[i] >= row_ptr[i - 1] && (i < nrows || row_ptr[i] == nnz);
   if (!ok) atomicOr(bad, kBadRowPtr);
}

// Row of entry k: the last row whose start is <= k (rows may be empty).
__device__ inline int32_t row_of(const int32_t* row_ptr, int32_t nrows, int64_t k)
{
   int32_t lo = 0, hi = nrows; // answer in [0, nrows)
   while (hi - lo > 1)
   {
      int32_t mid = lo + (hi - lo) / 2;
      if (row_ptr[mid] <= k) lo = mid;
      else hi = mid;
   }
   return lo;
}

__global__ void make_keys(const int32_t* row_ptr, const int32_t* col, int32_t nrows, int32_t ncols,
                          int64_t nnz, uint64_t* keys, uint64_t* payload, int* bad)
{
   int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (k >= nnz) return;
   int32_t r = row_of(row_ptr, nrows, k);
   int32_t c = col[k];
   if (c < 0 || c >= ncols)
   {
      atomicOr(bad, kBadColumn);
      c = 0; // keep the sort well defined; the conversion is rejected afterwards
   }
   keys[k]    = (static_cast<uint64_t>(r >> 2) << 32) | static_cast<uint32_t>(c >> 2);
   payload[k] = (static_cast<uint64_t>(k) << 4) | static_cast<uint64_t>((r & 3) * 4 + (c & 3));
}

__global__ void head_flags(const uint64_t* keys, int64_t nnz, int32_t* heads)
{
   int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (k >= nnz) return;
   heads[k] = (k == 0 || keys[k] != keys[k - 1]) ? 1 : 0;
}

__global__ void tile_starts(const int32_t* tile_of, int64_t nnz, int32_t* start)
{
   int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (k >= nnz) return;
   if (k == 0 || tile_of[k] != tile_of[k - 1]) start[tile_of[k] - 1] = static_cast<int32_t>(k);
   if (k == nnz - 1) start[tile_of[k]] = static_cast<int32_t>(nnz);
}

template <class V>
__global__ void fill_tiles(const uint64_t* keys, const uint64_t* payload, const int32_t* start,
                           const double* val, int64_t ntiles, int32_t* blk_col, uint16_t* blk_map,
                           V* blk_val, int32_t* tile_row)
{
   int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (t >= ntiles) return;
   double   acc[16];
   uint32_t map = 0;
#pragma unroll
   for (int p = 0; p < 16; ++p) acc[p] = 0.0;
   for (int32_t k = start[t]; k < start[t + 1]; ++k)
   {
      uint64_t pl = payload[k];
      int      p  = static_cast<int>(pl & 15u);
      int64_t  e  = static_cast<int64_t>(pl >> 4);
      double   v  = val ? val[e] : 1.0;
      // unrolled select keeps acc in registers (a run-time index would spill it)
#pragma unroll
      for (int q = 0; q < 16; ++q)
         if (q == p) acc[q] += v;
      map |= 1u << p;
   }
   uint64_t key = keys[start[t]];
   blk_col[t]   = static_cast<int32_t>(key & 0xffffffffu);
   tile_row[t]  = static_cast<int32_t>(key >> 32);
   blk_map[t]   = static_cast<uint16_t>(map);
#pragma unroll
   for (int p = 0; p < 16; ++p) blk_val[t * 16 + p] = Arith<V>::from_double(acc[p]);
}

// blk_ptr[b] = first tile of block row b (tiles are sorted by block row).
__global__ void block_row_ptr(const int32_t* tile_row, int64_t ntiles, int32_t block_rows,
                              int32_t* blk_ptr)
{
   int32_t b = blockIdx.x * blockDim.x + threadIdx.x;
   if (b > block_rows) return;
   int64_t lo = 0, hi = ntiles; // first t with tile_row[t] >= b
   while (lo < hi)
   {
      int64_t mid = (lo + hi) / 2;
      if (tile_row[mid] < b) lo = mid + 1;
      else hi = mid;
   }
   blk_ptr[b] = static_cast<int32_t>(lo);
}

int end_bit_for(int32_t block_rows)
{
   int bits = 1;
   while (bits < 31 && (int64_t{1} << bits) <= block_rows) ++bits;
   return 32 + bits;
}

} // namespace

void launch_check_row_ptr(const int32_t* row_ptr, int32_t nrows, int64_t nnz, int* bad, Stream stream)
{
   check_row_ptr<<<blocks_for(int64_t{nrows} + 1), kThreads, 0, stream>>>(row_ptr, nrows, nnz, bad);
   AMGT_DEVICE_CHECK_LAUNCH("check_row_ptr");
}

template <class V>
DeviceMbsr<V> csr_to_mbsr_sorted(const CsrView& a, Stream stream, const Allocator& alloc)
{
   DeviceMbsr<V> m   = mbsr_shell<V>(a);
   m.blk_ptr         = Buffer<int32_t>(static_cast<size_t>(m.block_rows) + 1, alloc);
   const int64_t nnz = a.nnz;
   if (nnz == 0)
   {
      AMGT_DEVICE_CHECK(device::memset_async(m.blk_ptr.get(), 0, m.blk_ptr.size() * sizeof(int32_t), stream));
      return m;
   }

   Buffer<uint64_t> keys(nnz, alloc), keys_sorted(nnz, alloc);
   Buffer<uint64_t> payload(nnz, alloc), payload_sorted(nnz, alloc);
   Buffer<int32_t>  heads(nnz, alloc), tile_of(nnz, alloc);
   Buffer<int>      bad(1, alloc);
   AMGT_DEVICE_CHECK(device::memset_async(bad.get(), 0, sizeof(int), stream));

   launch_check_row_ptr(a.row_ptr, a.nrows, nnz, bad.get(), stream);
   make_keys<<<blocks_for(nnz), kThreads, 0, stream>>>(a.row_ptr, a.col, a.nrows, a.ncols, nnz,
                                                        keys.get(), payload.get(), bad.get());
   AMGT_DEVICE_CHECK_LAUNCH("make_keys");

   size_t temp_bytes = 0;
   AMGT_DEVICE_CHECK(device::prim::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys.get(), keys_sorted.get(),
                                                     payload.get(), payload_sorted.get(), nnz, 0,
                                                     end_bit_for(m.block_rows), stream));
   size_t scan_bytes = 0;
   AMGT_DEVICE_CHECK(device::prim::DeviceScan::InclusiveSum(nullptr, scan_bytes, heads.get(), tile_of.get(),
                                                   nnz, stream));
   Buffer<char> temp(std::max(temp_bytes, scan_bytes), alloc);
   AMGT_DEVICE_CHECK(device::prim::DeviceRadixSort::SortPairs(temp.get(), temp_bytes, keys.get(),
                                                     keys_sorted.get(), payload.get(),
                                                     payload_sorted.get(), nnz, 0,
                                                     end_bit_for(m.block_rows), stream));
   head_flags<<<blocks_for(nnz), kThreads, 0, stream>>>(keys_sorted.get(), nnz, heads.get());
   AMGT_DEVICE_CHECK_LAUNCH("head_flags");
   AMGT_DEVICE_CHECK(device::prim::DeviceScan::InclusiveSum(temp.get(), scan_bytes, heads.get(), tile_of.get(),
                                                   nnz, stream));

   int32_t ntiles = 0;
   int     is_bad = 0;
   AMGT_DEVICE_CHECK(device::memcpy_async(&ntiles, tile_of.get() + nnz - 1, sizeof(int32_t),
                                     device::Copy::to_host, stream));
   AMGT_DEVICE_CHECK(device::memcpy_async(&is_bad, bad.get(), sizeof(int), device::Copy::to_host, stream));
   AMGT_DEVICE_CHECK(device::stream_synchronize(stream));
   require_valid_input(is_bad);

   m.num_tiles = ntiles;
   m.blk_col   = Buffer<int32_t>(ntiles, alloc);
   m.blk_map   = Buffer<uint16_t>(ntiles, alloc);
   m.blk_val   = Buffer<V>(static_cast<size_t>(ntiles) * 16, alloc);
   Buffer<int32_t> start(static_cast<size_t>(ntiles) + 1, alloc), tile_row(ntiles, alloc);

   tile_starts<<<blocks_for(nnz), kThreads, 0, stream>>>(tile_of.get(), nnz, start.get());
   AMGT_DEVICE_CHECK_LAUNCH("tile_starts");
   fill_tiles<V><<<blocks_for(ntiles), kThreads, 0, stream>>>(
      keys_sorted.get(), payload_sorted.get(), start.get(), a.val, ntiles, m.blk_col.get(),
      m.blk_map.get(), m.blk_val.get(), tile_row.get());
   AMGT_DEVICE_CHECK_LAUNCH("fill_tiles");
   block_row_ptr<<<blocks_for(int64_t{m.block_rows} + 1), kThreads, 0, stream>>>(
      tile_row.get(), ntiles, m.block_rows, m.blk_ptr.get());
   AMGT_DEVICE_CHECK_LAUNCH("block_row_ptr");
   // the temporaries are freed when this returns: finish the work that reads them first
   AMGT_DEVICE_CHECK(device::stream_synchronize(stream));
   return m;
}

template DeviceMbsr<double> csr_to_mbsr_sorted<double>(const CsrView&, Stream, const Allocator&);
template DeviceMbsr<float>  csr_to_mbsr_sorted<float>(const CsrView&, Stream, const Allocator&);
template DeviceMbsr<half_t> csr_to_mbsr_sorted<half_t>(const CsrView&, Stream, const Allocator&);

} // namespace amgt::device::mbsr_detail
