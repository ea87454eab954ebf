// mBSR -> CSR on the GPU (mbsr_to_csr, mbsr_device.h): the row counts, their scan and the
// fill, one warp per block row.
#include "mbsr/mbsr_device.h"
#include "device/warp.cuh"

#include "device/arith.cuh"
#include "device/group_ops.cuh"
#include "device/launch.h"

#include "device/prim.cuh"

#include <algorithm>

namespace amgt::device {
namespace {

// mBSR -> CSR, one warp per block row (grid-stride). A thread per row (the first version) read
// every tile of its block row four times over (once per row of the block row) and wrote its
// row alone, so the stores of a warp landed in 32 rows far apart; measured on an H100 it took
// 12.7 ms to write back the 101M-entry product laplace7 n=160 A*A. Here the warp takes the
// block row's tiles 32 at a time (lane = tile, one load of bitmap and column), and for each of
// the four rows an exclusive scan of the lanes' nibble popcounts gives every lane its place in
// that row: the row's entries are written by consecutive lanes to consecutive positions.
constexpr int kWarpsPerBlock = kThreads / 32;

__global__ void csr_row_counts(const int32_t* blk_ptr, const uint16_t* blk_map, int32_t nrows,
                               int32_t block_rows, int32_t* counts)
{
   const int     lane  = group::lane_id();
   const int64_t warp0 = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
   const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / 32;
   if (warp0 == 0 && lane == 0) counts[nrows] = 0; // the scan's last entry becomes nnz
   for (int64_t b = warp0; b < block_rows; b += warps)
   {
      int n[4] = {0, 0, 0, 0};
      for (int32_t t = blk_ptr[b] + lane; t < blk_ptr[b + 1]; t += 32)
      {
         const unsigned map = blk_map[t];
#pragma unroll
         for (int r = 0; r < 4; ++r) n[r] += __popc((map >> (4 * r)) & 0xFu);
      }
#pragma unroll
      for (int r = 0; r < 4; ++r)
      {
         const int total = group::warp_sum(n[r]);
         const int64_t i = 4 * b + r;
         if (lane == 0 && i < nrows) counts[i] = total;
      }
   }
}

template <class V>
__global__ void csr_fill(const int32_t* blk_ptr, const int32_t* blk_col, const uint16_t* blk_map,
                         const V* blk_val, int32_t nrows, int32_t block_rows,
                         const int32_t* row_ptr, int32_t* col, double* val)
{
   const int     lane  = group::lane_id();
   const int64_t warp0 = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
   const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / 32;
   for (int64_t b = warp0; b < block_rows; b += warps)
   {
      // next free position of each row of the block row (rows past n: never written, since
      // their bits are clear in every tile)
      int32_t pos[4];
#pragma unroll
      for (int r = 0; r < 4; ++r)
      {
         const int64_t i = 4 * b + r;
         pos[r]          = i < nrows ? row_ptr[i] : 0;
      }
      const int32_t te = blk_ptr[b + 1];
      for (int32_t t0 = blk_ptr[b]; t0 < te; t0 += 32)
      {
         const int32_t  t    = t0 + lane;
         const bool     have = t < te;
         const unsigned map  = have ? blk_map[t] : 0u;
         const int32_t  c0   = have ? blk_col[t] * 4 : 0;
#pragma unroll
         for (int r = 0; r < 4; ++r)
         {
            const unsigned nib   = (map >> (4 * r)) & 0xFu;
            const int      cnt   = __popc(nib);
            const int      incl  = group::warp_inclusive_scan(cnt);
            int32_t        p     = pos[r] + incl - cnt;
            const V*       src   = blk_val + static_cast<int64_t>(t) * 16 + 4 * r;
#pragma unroll
            for (int c = 0; c < 4; ++c)
            {
               if (nib & (1u << c))
               {
                  col[p] = c0 + c;
                  val[p] = Arith<V>::to_double(src[c]);
                  ++p;
               }
            }
            pos[r] += device::shfl(incl, 31);
         }
      }
   }
}

// Enough warps to cover the block rows, capped at a few waves (the kernels stride).
inline unsigned warp_blocks_for(int64_t block_rows)
{
   const int64_t blocks = (block_rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
   return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(blocks, 65535)));
}

} // namespace

template <class V>
void mbsr_to_csr(const DeviceMbsr<V>& m, int32_t* row_ptr, int32_t* col, double* val, Stream stream,
                 const Allocator& alloc)
{
   Buffer<int32_t> counts(static_cast<size_t>(m.nrows) + 1, alloc);
   csr_row_counts<<<warp_blocks_for(m.block_rows), kThreads, 0, stream>>>(
      m.blk_ptr.get(), m.blk_map.get(), m.nrows, m.block_rows, counts.get());
   AMGT_DEVICE_CHECK_LAUNCH("csr_row_counts");
   size_t bytes = 0;
   AMGT_DEVICE_CHECK(device::prim::DeviceScan::ExclusiveSum(nullptr, bytes, counts.get(), row_ptr, m.nrows + 1, stream));
   Buffer<char> temp(bytes, alloc);
   AMGT_DEVICE_CHECK(device::prim::DeviceScan::ExclusiveSum(temp.get(), bytes, counts.get(), row_ptr, m.nrows + 1, stream));
   if (m.nrows > 0)
   {
      csr_fill<V><<<warp_blocks_for(m.block_rows), kThreads, 0, stream>>>(
         m.blk_ptr.get(), m.blk_col.get(), m.blk_map.get(), m.blk_val.get(), m.nrows, m.block_rows,
         row_ptr, col, val);
      AMGT_DEVICE_CHECK_LAUNCH("csr_fill");
   }
   AMGT_DEVICE_CHECK(device::stream_synchronize(stream)); // before counts/temp are freed
}

template void mbsr_to_csr<double>(const DeviceMbsr<double>&, int32_t*, int32_t*, double*, Stream, const Allocator&);
template void mbsr_to_csr<float>(const DeviceMbsr<float>&, int32_t*, int32_t*, double*, Stream, const Allocator&);
template void mbsr_to_csr<half_t>(const DeviceMbsr<half_t>&, int32_t*, int32_t*, double*, Stream, const Allocator&);

} // namespace amgt::device
