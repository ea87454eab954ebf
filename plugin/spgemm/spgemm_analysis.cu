// SpGEMM phase 1 (the overview is in spgemm_device.cu): the bounds and bins of C's block rows,
// and the row lists that every later phase walks.
//
// analyze_rows: one thread per block row I of C computes the bound
//   ub(I) = sum over A's tiles (I,K) of len(B block row K)            (int64)
// i.e. the number of intermediate tile products, and puts I into symbolic bin
//   b = 0 for ub < 128, ..., 6 for ub < 8192, 7 for ub >= 8192 (powers of two),
// no bin for ub == 0; a hash bin whose table does not fit the device goes to bin 7. The same
// kernel counts A's dense tiles (popcount >= kDenseTileNnz) and stored entries for
// SpgemmPath::automatic's choice of numeric kernel; the counts travel with the bin counts in
// the driver's one round trip.
// output_bins: once pass 1 has counted C's tiles per row (nc), the rows are binned for the
// numeric phase (nc <= 32, <= 128, longer) and again for symbolic pass 2, whose table needs to
// hold the row's nc distinct keys only (nc < T/2): nc is often several times below the bound ub
// that sized pass 1's table (fine AMG products: ub ~500, nc ~45).
// scatter_rows: a block-local histogram plus one scatter pass (per-block ranks from shared
// atomics, one global atomic per bin and block to reserve a range) groups the rows of each
// bin into one list. Rows are independent, so the order inside a bin does not matter for the
// result (it is not deterministic, the output is).
#include "spgemm/spgemm_internal.cuh"

#include "device/launch.h"
#include "mbsr/bitmap.h"

#include "device/prim.cuh"

namespace amgt::device::spgemm_detail {
namespace {

constexpr uint8_t kNoBin = 0xff; // a row with no tile products

__device__ __forceinline__ uint8_t symbolic_bin_of(int64_t ub, int shared_bins)
{
   if (ub >= (int64_t{128} << (kWindowBin - 1))) return kWindowBin; // >= 8192
   const int lg = 63 - __clzll(static_cast<long long>(ub));        // ub >= 1
   const int b  = max(0, lg - 6);                                    // ub < 128 * 2^b
   return static_cast<uint8_t>(b < shared_bins ? b : kWindowBin);
}

__global__ void analyze_rows(TilesView A, const int32_t* b_ptr, int32_t brows, int shared_bins,
                             uint8_t* row_bin, Meta* meta)
{
   __shared__ int                hist[kSymbolicBins];
   __shared__ unsigned long long sum;
   __shared__ unsigned long long dense;
   __shared__ unsigned long long entries;
   if (threadIdx.x < kSymbolicBins) hist[threadIdx.x] = 0;
   if (threadIdx.x == 0)
   {
      sum     = 0;
      dense   = 0;
      entries = 0;
   }
   __syncthreads();
   const int32_t i = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
   if (i < brows)
   {
      int64_t ub = 0;
      int64_t nd = 0; // dense A tiles of the row (statistics)
      int64_t ne = 0; // A's entries in the row: SpgemmPath::automatic's choice of kernel
      for (int32_t ta = A.ptr[i]; ta < A.ptr[i + 1]; ++ta)
      {
         const int32_t k = A.col[ta];
         ub += b_ptr[k + 1] - b_ptr[k];
         const int pc = tile_popcount(A.map[ta]);
         nd += pc >= kDenseTileNnz;
         ne += pc;
      }
      if (nd) atomicAdd(&dense, static_cast<unsigned long long>(nd));
      if (ne) atomicAdd(&entries, static_cast<unsigned long long>(ne));
      uint8_t b = kNoBin;
      if (ub > 0)
      {
         b = symbolic_bin_of(ub, shared_bins);
         atomicAdd(&hist[b], 1);
         atomicAdd(&sum, static_cast<unsigned long long>(ub));
      }
      row_bin[i] = b;
   }
   __syncthreads();
   if (threadIdx.x < kSymbolicBins && hist[threadIdx.x] > 0)
      atomicAdd(&meta->sym_count[threadIdx.x], hist[threadIdx.x]);
   if (threadIdx.x == 0 && sum > 0) atomicAdd(&meta->intermediate, sum);
   if (threadIdx.x == 0 && dense > 0) atomicAdd(&meta->dense_a_tiles, dense);
   if (threadIdx.x == 0 && entries > 0) atomicAdd(&meta->a_entries, entries);
}

// After pass 1 C's tiles per row (nc) are known: the numeric bins, and the bins of symbolic pass
// 2, whose table needs only nc < T/2 (the distinct keys it will hold) instead of pass 1's bound
// ub on the products, often several times larger (fine AMG products: ub ~500 tile pairs for
// nc ~45 output tiles, a 1024-slot table where 128 slots do).
__global__ void output_bins(const int64_t* offsets, int32_t brows, int shared_bins,
                            uint8_t* row_bin, uint8_t* row_bin2, Meta* meta)
{
   __shared__ int hist[kNumericBins];
   __shared__ int hist2[kSymbolicBins];
   if (threadIdx.x < kNumericBins) hist[threadIdx.x] = 0;
   if (threadIdx.x < kSymbolicBins) hist2[threadIdx.x] = 0;
   __syncthreads();
   const int32_t i = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
   if (i < brows)
   {
      const int64_t nc = offsets[i + 1] - offsets[i];
      uint8_t       b  = kNoBin;
      uint8_t       b2 = kNoBin;
      if (nc > 0)
      {
         b = nc <= 32 ? 0 : (nc <= 128 ? 1 : 2);
         atomicAdd(&hist[b], 1);
         b2 = symbolic_bin_of(nc, shared_bins);
         atomicAdd(&hist2[b2], 1);
      }
      row_bin[i]  = b;
      row_bin2[i] = b2;
   }
   __syncthreads();
   if (threadIdx.x < kNumericBins && hist[threadIdx.x] > 0)
      atomicAdd(&meta->num_count[threadIdx.x], hist[threadIdx.x]);
   if (threadIdx.x < kSymbolicBins && hist2[threadIdx.x] > 0)
      atomicAdd(&meta->sym2_count[threadIdx.x], hist2[threadIdx.x]);
}

// Groups the rows by bin: list[start(bin) + rank] = row. The per-block ranks come from shared
// atomics and one global atomic per bin and block reserves the block's range.
__global__ void scatter_rows(const uint8_t* row_bin, int32_t n, int nbins, const int32_t* bin_count,
                             int32_t* cursor, int32_t* list)
{
   __shared__ int local[kSymbolicBins];
   __shared__ int base[kSymbolicBins];
   if (threadIdx.x < kSymbolicBins) local[threadIdx.x] = 0;
   __syncthreads();
   const int32_t i    = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
   const int     b    = i < n ? row_bin[i] : kNoBin;
   int           rank = 0;
   if (b < nbins) rank = atomicAdd(&local[b], 1);
   __syncthreads();
   if (static_cast<int>(threadIdx.x) < nbins && local[threadIdx.x] > 0)
      base[threadIdx.x] = atomicAdd(&cursor[threadIdx.x], local[threadIdx.x]);
   __syncthreads();
   if (b < nbins) list[bin_start(bin_count, b) + base[b] + rank] = i;
}

__global__ void offsets_to_ptr(const int64_t* offsets, int32_t n, int32_t* ptr)
{
   const int32_t i = static_cast<int32_t>(blockIdx.x * blockDim.x + threadIdx.x);
   if (i <= n) ptr[i] = static_cast<int32_t>(offsets[i]);
}

} // namespace

void launch_analysis(TilesView A, const int32_t* b_ptr, int32_t brows, int shared_bins,
                     uint8_t* row_bin, int32_t* sym_rows, Meta* meta, Stream s)
{
   analyze_rows<<<blocks_for(brows), kThreads, 0, s>>>(A, b_ptr, brows, shared_bins, row_bin, meta);
   AMGT_DEVICE_CHECK_LAUNCH("analyze_rows");
   scatter_rows<<<blocks_for(brows), kThreads, 0, s>>>(row_bin, brows, kSymbolicBins, meta->sym_count,
                                                       meta->sym_cursor, sym_rows);
   AMGT_DEVICE_CHECK_LAUNCH("scatter_rows");
}

void scan_counts(int64_t* counts, int64_t* offsets, int32_t brows, Buffer<char>& scan_temp,
                 const Allocator& alloc, Stream s)
{
   size_t scan_bytes = 0;
   AMGT_DEVICE_CHECK(
       device::prim::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, offsets, brows + 1, s));
   scan_temp = Buffer<char>(scan_bytes, alloc);
   AMGT_DEVICE_CHECK(
       device::prim::DeviceScan::ExclusiveSum(scan_temp.get(), scan_bytes, counts, offsets, brows + 1, s));
}

void launch_output_bins(const int64_t* offsets, int32_t brows, int shared_bins, uint8_t* row_bin,
                        uint8_t* row_bin2, int32_t* num_rows, int32_t* sym_rows, Meta* meta,
                        Stream s)
{
   output_bins<<<blocks_for(brows), kThreads, 0, s>>>(offsets, brows, shared_bins, row_bin,
                                                      row_bin2, meta);
   AMGT_DEVICE_CHECK_LAUNCH("output_bins");
   scatter_rows<<<blocks_for(brows), kThreads, 0, s>>>(row_bin, brows, kNumericBins, meta->num_count,
                                                       meta->num_cursor, num_rows);
   AMGT_DEVICE_CHECK_LAUNCH("scatter_rows");
   // pass 2's row lists go where pass 1's were: pass 1 has read them by now (stream order)
   scatter_rows<<<blocks_for(brows), kThreads, 0, s>>>(row_bin2, brows, kSymbolicBins,
                                                       meta->sym2_count, meta->sym2_cursor, sym_rows);
   AMGT_DEVICE_CHECK_LAUNCH("scatter_rows");
}

void launch_offsets_to_ptr(const int64_t* offsets, int32_t brows, int32_t* ptr, Stream s)
{
   offsets_to_ptr<<<blocks_for(int64_t{brows} + 1), kThreads, 0, s>>>(offsets, brows, ptr);
   AMGT_DEVICE_CHECK_LAUNCH("offsets_to_ptr");
}

} // namespace amgt::device::spgemm_detail
