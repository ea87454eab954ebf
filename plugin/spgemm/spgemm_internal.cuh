// Internal to the SpGEMM (spgemm_*.cu): what its phases share. The device-side counters and
// operand views, small device helpers, the argument blocks of the symbolic and numeric
// kernels, the host launch helpers, and the entry points of each phase, which the driver
// (spgemm_device.cu) calls in order. Each phase's design is described at the top of its file.
#pragma once

#include "spgemm/spgemm_device.h"

#include "common/error.h"
#include "device/group_ops.cuh"
#include "device/runtime.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace amgt::device::spgemm_detail {

constexpr unsigned kFullMask  = group::kFullMask;
constexpr int      kWarpSize  = group::kWarpSize;
constexpr int      kWindowBin = kSymbolicBins - 1;

// ---------------------------------------------------------------------------------------------
// Device-side counters: read back once after pass 1 and once at the end.
struct Meta
{
   int32_t            sym_count[kSymbolicBins];
   int32_t            sym_cursor[kSymbolicBins];
   int32_t            sym2_count[kSymbolicBins];  // pass 2's bins, by C's tiles per row
   int32_t            sym2_cursor[kSymbolicBins];
   int32_t            num_count[kNumericBins];
   int32_t            num_cursor[kNumericBins];
   unsigned long long intermediate;
   unsigned long long tc_products;
   unsigned long long cc_products;
   unsigned long long dense_a_tiles; // A tiles with popcount >= kDenseTileNnz (analysis)
   unsigned long long a_entries;     // A's stored entries (analysis)
   int32_t            error; // an internal inconsistency (a bug), never an input property
};

struct TilesView
{
   const int32_t*  ptr;
   const int32_t*  col;
   const uint16_t* map;
};

// ---------------------------------------------------------------------------------------------
// Small device helpers.

using group::block_exclusive_scan;
using group::block_min;
using group::block_sum;
using group::lane_id;
using group::warp_inclusive_scan;

// First index in a[0, n) whose value is >= key (a ascending).
__device__ __forceinline__ int lower_bound(const int32_t* a, int n, int32_t key)
{
   int lo = 0, hi = n;
   while (lo < hi)
   {
      const int mid = (lo + hi) >> 1;
      if (a[mid] < key) lo = mid + 1;
      else hi = mid;
   }
   return lo;
}

__device__ __forceinline__ void flag_error(int32_t* error)
{
   atomicExch(error, 1);
}

// Start of bin `bin` in the grouped row list: the counts of the bins before it.
__device__ __forceinline__ int32_t bin_start(const int32_t* bin_count, int bin)
{
   int32_t s = 0;
   for (int b = 0; b < bin; ++b) s += bin_count[b];
   return s;
}

// ---------------------------------------------------------------------------------------------
// Kernel arguments.

struct SymbolicArgs
{
   TilesView      A, B;
   const int32_t* rows;      // rows grouped by bin
   const int32_t* bin_count; // Meta::sym_count (device)
   int64_t*       counts;    // pass 1: distinct output tiles per block row
   const int32_t* c_ptr;     // pass 2: C.blk_ptr
   int32_t*       c_col;
   uint16_t*      c_map;
   int32_t*       error;
};

template <class V>
struct NumericArgs
{
   TilesView       A, B;
   const V*        a_val;
   const V*        b_val;
   const int32_t*  c_ptr;
   const int32_t*  c_col;
   const uint16_t* c_map;
   V*              c_val;
   const int32_t*  rows;      // rows grouped by numeric bin
   const int32_t*  bin_count; // Meta::num_count (device)
   Meta*           meta;
   int             tc_min_nnz; // A tiles with at least this popcount use the tensor cores
};

// ---------------------------------------------------------------------------------------------
// Host launch helpers.

// Allows `dyn` bytes of dynamic shared memory (opt-in above 48 KB); false if it cannot fit.
template <class Kernel>
bool fits_shared(Kernel kernel, size_t dyn, const DeviceLimits& lim)
{
   device::FuncAttributes attr{};
   AMGT_DEVICE_CHECK(device::func_attributes(&attr, kernel));
   return attr.sharedSizeBytes + dyn <= static_cast<size_t>(lim.smem_optin);
}

template <class Kernel>
unsigned prepare_launch(Kernel kernel, int threads, size_t dyn, int64_t work_blocks,
                        const DeviceLimits& lim)
{
   AMGT_DEVICE_CHECK(device::set_max_dynamic_smem(kernel, static_cast<int>(dyn)));
   int per_sm = 0;
   AMGT_DEVICE_CHECK(
       device::occupancy_blocks_per_sm(&per_sm, kernel, threads, dyn));
   const int64_t wave = static_cast<int64_t>(std::max(per_sm, 1)) * lim.sms;
   return static_cast<unsigned>(std::max<int64_t>(1, std::min(work_blocks, wave)));
}

// One numeric launch: kWarps rows per block, `per_warp` bytes of dynamic shared memory each.
template <class V>
void launch_numeric_kernel(void (*kernel)(NumericArgs<V>, int), const char* name, int kWarps,
                           size_t per_warp, const NumericArgs<V>& args, int bin, int64_t rows,
                           Stream s, const DeviceLimits& lim)
{
   const size_t dyn = static_cast<size_t>(kWarps) * per_warp;
   AMGT_REQUIRE(fits_shared(kernel, dyn, lim),
                "spgemm: the device has too little shared memory for the numeric phase");
   const unsigned grid =
       prepare_launch(kernel, kWarps * kWarpSize, dyn, (rows + kWarps - 1) / kWarps, lim);
   kernel<<<grid, kWarps * kWarpSize, dyn, s>>>(args, bin);
   AMGT_DEVICE_CHECK_LAUNCH(name);
}

// Calls f(std::integral_constant<int, b>{}) for numeric bin b: each bin's kernel is a template
// instance of its own (window and warps per block are template arguments).
template <class F>
void with_numeric_bin(int bin, F&& f)
{
   static_assert(kNumericBins == 3, "one case per numeric bin");
   switch (bin)
   {
   case 0: return f(std::integral_constant<int, 0>{});
   case 1: return f(std::integral_constant<int, 1>{});
   case 2: return f(std::integral_constant<int, 2>{});
   default: AMGT_THROW("spgemm: no numeric bin " + std::to_string(bin));
   }
}

// ---------------------------------------------------------------------------------------------
// The phases, in the order the driver runs them.

// spgemm_analysis.cu. Bins every block row of C by its bound on the tile products (Meta::
// sym_count) and lists the rows of each bin in sym_rows.
void launch_analysis(TilesView A, const int32_t* b_ptr, int32_t brows, int shared_bins,
                     uint8_t* row_bin, int32_t* sym_rows, Meta* meta, Stream s);

// spgemm_symbolic.cu. Number of leading hash bins (0..kWindowBin-1) whose kernels fit the
// device's shared memory; the analysis routes the other rows to the window bin.
int shared_hash_bins(const DeviceLimits& lim);
// Pass 1: C's tiles per block row into args.counts (bin sizes unknown on the host: every
// kernel strides over its bin's device count; rows_hint sizes the grids).
void symbolic_count(const SymbolicArgs& args, int shared_bins, int64_t rows_hint, Stream s,
                    const DeviceLimits& lim);

// spgemm_analysis.cu. offsets = exclusive sum of counts (brows + 1 entries; the temporary
// storage of the scan goes to scan_temp).
void scan_counts(int64_t* counts, int64_t* offsets, int32_t brows, Buffer<char>& scan_temp,
                 const Allocator& alloc, Stream s);
// Bins the rows by C's tiles per row: num_rows for the numeric phase (Meta::num_count),
// sym_rows again for symbolic pass 2 (Meta::sym2_count).
void launch_output_bins(const int64_t* offsets, int32_t brows, int shared_bins, uint8_t* row_bin,
                        uint8_t* row_bin2, int32_t* num_rows, int32_t* sym_rows, Meta* meta,
                        Stream s);
// C.blk_ptr from the int64 offsets.
void launch_offsets_to_ptr(const int64_t* offsets, int32_t brows, int32_t* ptr, Stream s);

// spgemm_symbolic.cu. Pass 2: C's sorted block columns and bitmaps; bin_rows[b] = the rows of
// pass-2 bin b (host copy of Meta::sym2_count).
void symbolic_fill(const SymbolicArgs& args, int shared_bins, const int32_t* bin_rows, Stream s,
                   const DeviceLimits& lim);

// spgemm_numeric_ordered.cu, spgemm_numeric_pairs.cu. C's values for the rows of numeric bin
// `bin` (rows of them), by the ordered or the pairs kernel.
template <class V>
void launch_ordered(int bin, const NumericArgs<V>& args, int64_t rows, Stream s,
                    const DeviceLimits& lim);
template <class V>
void launch_pairs(int bin, const NumericArgs<V>& args, int64_t rows, Stream s,
                  const DeviceLimits& lim);

// The numeric launchers (and so the numeric kernels) exist for the three storage types only.
#define AMGT_SPGEMM_INSTANTIATE_NUMERIC(launch)                                                     \
   template void launch<double>(int, const NumericArgs<double>&, int64_t, Stream,                  \
                                const DeviceLimits&);                                              \
   template void launch<float>(int, const NumericArgs<float>&, int64_t, Stream,                    \
                               const DeviceLimits&);                                               \
   template void launch<half_t>(int, const NumericArgs<half_t>&, int64_t, Stream,                  \
                                const DeviceLimits&);

} // namespace amgt::device::spgemm_detail
