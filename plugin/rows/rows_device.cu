// The row-wise layout on the device (rows_device.h): the fill sample, the one-pass build and
// the SpMV.
//
// SpMV: a group of G lanes per row (G = rows_lanes(mean row length), a power of two <= 32),
// lane g taking entries g, g + G, ... of its row; consecutive rows' groups read one
// contiguous stretch of col/col16 and val, so the loads of a warp are coalesced whatever the
// row lengths. The group's partial sums are added with xor shuffles; lane 0 writes y. Rounding
// and the final combination as every SpMV kernel (spmv/spmv_common.cuh).
#include "rows/rows_device.h"
#include "device/warp.cuh"

#include "common/error.h"
#include "common/hash.h"
#include "device/arith.cuh"
#include "device/launch.h"
#include "spmv/spmv_common.cuh"

#include <algorithm>
#include <vector>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace amgt::device {
namespace {

using spmv_detail::combine;
using spmv_detail::kFull;
using spmv_detail::row_of;
using spmv_detail::x_of;

// ---------------------------------------------------------------------------------------
// Fill sample: one warp per sampled block row (rows 4b..4b+3, whose entries are one contiguous
// stretch of the CSR). Its tiles are the distinct block columns, counted as the fresh inserts
// into a hash table in shared memory (2 kFillSampleMaxEntries slots a warp, so probing ends);
// the columns are loaded into registers first, so their loads are in flight together. (It
// compared each entry with every entry before it, a chain of dependent shared loads: about
// E^2/32 a lane, 60-100 us a matrix on the H100 where block rows hold hundreds of entries.)
constexpr int kSampleWarps = kThreads / 32;
constexpr int kSampleLog2T = 10;
constexpr int kSamplePer   = kFillSampleMaxEntries / 32; // entries a lane
static_assert((1 << kSampleLog2T) >= 2 * kFillSampleMaxEntries, "the table stays at most half full");
constexpr int32_t kSampleEmpty = INT32_MIN; // never a key: keys are columns >> 2

__global__ void __launch_bounds__(kThreads)
   fill_sample_kernel(const int32_t* __restrict__ row_ptr, const int32_t* __restrict__ col,
                      int32_t nrows, int64_t block_rows, int64_t samples,
                      unsigned long long* __restrict__ out)
{
   __shared__ int32_t table[kSampleWarps][1 << kSampleLog2T];
   const int     warp = static_cast<int>(threadIdx.x) / 32;
   const int     lane = static_cast<int>(threadIdx.x) & 31;
   const int64_t s    = blockIdx.x * static_cast<int64_t>(kSampleWarps) + warp;
   unsigned long long entries = 0, tiles = 0, span = 0, counted = 0, nrow = 0, len_sum = 0, len_sq = 0;
   if (s < samples)
   {
      const int64_t b  = s * block_rows / samples; // evenly spread, strictly increasing
      const int32_t r0 = static_cast<int32_t>(4 * b);
      const int32_t r1 = min(r0 + 4, nrows);
      int32_t       rp[5];
#pragma unroll
      for (int q = 0; q < 5; ++q) rp[q] = row_ptr[min(r0 + q, r1)];
      const int32_t begin = rp[0], end = rp[4];
      const int32_t n     = end - begin;
      const bool    count = n <= kFillSampleMaxEntries;
      if (lane < r1 - r0)
      {
         const unsigned long long len = static_cast<unsigned long long>(row_ptr[r0 + lane + 1] - row_ptr[r0 + lane]);
         nrow    = 1;
         len_sum = len;
         len_sq  = len * len;
      }
      auto spread = [&](int32_t k, int32_t c) {
         const int32_t            r = r0 + (k >= rp[1]) + (k >= rp[2]) + (k >= rp[3]);
         const long long          d = static_cast<long long>(c) - r;
         const unsigned long long a = static_cast<unsigned long long>(d < 0 ? -d : d);
         span                       = a > span ? a : span;
      };
      if (count)
      {
         int32_t* keys = table[warp];
         for (int k = lane; k < (1 << kSampleLog2T); k += 32) keys[k] = kSampleEmpty;
         int32_t cj[kSamplePer];
#pragma unroll
         for (int j = 0; j < kSamplePer; ++j)
         {
            const int32_t k = begin + lane + 32 * j;
            cj[j]           = k < end ? col[k] : 0;
         }
         device::sync_warp();
#pragma unroll
         for (int j = 0; j < kSamplePer; ++j)
         {
            const int32_t k = begin + lane + 32 * j;
            if (k >= end) continue;
            spread(k, cj[j]);
            const int32_t key = cj[j] >> 2;
            uint32_t      h   = fibonacci_slot(key, kSampleLog2T);
            while (true)
            {
               const int32_t cur = *reinterpret_cast<volatile int32_t*>(&keys[h]);
               if (cur == key) break;
               if (cur == kSampleEmpty)
               {
                  const int32_t prev = atomicCAS(&keys[h], kSampleEmpty, key);
                  if (prev == kSampleEmpty) ++tiles;
                  if (prev == kSampleEmpty || prev == key) break;
               }
               h = (h + 1) & ((1u << kSampleLog2T) - 1);
            }
         }
         if (lane == 0)
         {
            entries = static_cast<unsigned long long>(n);
            counted = 1;
         }
      }
      else
      {
         for (int32_t k = begin + lane; k < end; k += 32) spread(k, col[k]);
      }
   }
#pragma unroll
   for (int d = 16; d > 0; d >>= 1)
   {
      tiles += device::shfl_xor(tiles, d);
      nrow += device::shfl_xor(nrow, d);
      len_sum += device::shfl_xor(len_sum, d);
      len_sq += device::shfl_xor(len_sq, d);
      const unsigned long long o = device::shfl_xor(span, d);
      span                       = o > span ? o : span;
   }
   if (lane == 0 && s < samples)
   {
      atomicAdd(out + 0, counted);
      atomicAdd(out + 1, entries);
      atomicAdd(out + 2, tiles);
      atomicMax(out + 3, span);
      atomicAdd(out + 4, nrow);
      atomicAdd(out + 5, len_sum);
      atomicAdd(out + 6, len_sq);
   }
}

// ---------------------------------------------------------------------------------------
// Exact span: G lanes per row (grid-stride), each lane the largest |col - row| of its
// entries, one atomicMax per warp.
template <int G>
__global__ void __launch_bounds__(kThreads)
   span_kernel(const int32_t* __restrict__ row_ptr, const int32_t* __restrict__ col, int32_t nrows,
               unsigned long long* __restrict__ out)
{
   const int          g      = static_cast<int>(threadIdx.x) & (G - 1);
   const int64_t      stride = static_cast<int64_t>(gridDim.x) * blockDim.x / G;
   unsigned long long span   = 0;
   for (int64_t row = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G; row < nrows; row += stride)
   {
      const int32_t end = __ldg(row_ptr + row + 1);
      for (int32_t k = __ldg(row_ptr + row) + g; k < end; k += G)
      {
         const long long d = static_cast<long long>(__ldg(col + k)) - row;
         const auto      a = static_cast<unsigned long long>(d < 0 ? -d : d);
         span              = a > span ? a : span;
      }
   }
#pragma unroll
   for (int d = 16; d > 0; d >>= 1)
   {
      const unsigned long long o = device::shfl_xor(span, d);
      span                       = o > span ? o : span;
   }
   if ((threadIdx.x & 31) == 0 && span > 0) atomicMax(out, span);
}

// ---------------------------------------------------------------------------------------
// Build: G lanes per row write the row's values in V (scaled: a_ij / (u_i * u_j) in double,
// the expression of precision/policy.h, rounded once) and, when asked, its 16-bit offsets; an
// entry beyond kNarrowSpan sets *wide.
template <class V, int G, bool Scaled, bool Values, bool Narrow>
__global__ void __launch_bounds__(kThreads)
   build_kernel(const int32_t* __restrict__ row_ptr, const int32_t* __restrict__ col,
                const double* __restrict__ val, int32_t nrows, const double* __restrict__ u,
                V* __restrict__ out_val, int16_t* __restrict__ out_col16, int32_t* __restrict__ wide)
{
   const int64_t row = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
   const int     g   = static_cast<int>(threadIdx.x) & (G - 1);
   if (row >= nrows) return;
   const int32_t begin = row_ptr[row], end = row_ptr[row + 1];
   bool          over  = false;
   for (int32_t k = begin + g; k < end; k += G)
   {
      const int32_t j = col[k];
      if constexpr (Values)
      {
         const double v = val ? val[k] : 1.0;
         if constexpr (Scaled) out_val[k] = Arith<V>::from_double(v / (u[row] * u[j]));
         else out_val[k] = Arith<V>::from_double(v);
      }
      if constexpr (Narrow)
      {
         const int64_t d = static_cast<int64_t>(j) - row;
         over            = over || d > kNarrowSpan || d < -kNarrowSpan;
         out_col16[k]    = static_cast<int16_t>(over ? 0 : d);
      }
   }
   if constexpr (Narrow)
   {
      if (over) atomicExch(wide, 1);
   }
}

template <class V, int G, bool Scaled, bool Values, bool Narrow>
void launch_build(const CsrView& a, const double* u, V* out_val, int16_t* out_col16, int32_t* wide,
                  Stream s)
{
   build_kernel<V, G, Scaled, Values, Narrow>
      <<<blocks_for(static_cast<int64_t>(a.nrows) * G), kThreads, 0, s>>>(
         a.row_ptr, a.col, a.val, a.nrows, u, out_val, out_col16, wide);
   AMGT_DEVICE_CHECK_LAUNCH("rows build_kernel");
}

// ---------------------------------------------------------------------------------------
// SpMV. Each lane takes kUnroll entries of its row per step (entries g, g + G, g + 2G, ...):
// their columns and values are loaded first, then their x, then the multiply-adds, so a lane
// has kUnroll independent load chains in flight (one chain per lane, column -> x -> FMA, left
// the kernel bound by latency at a quarter of the bandwidth). Lane 0 loads its row's b first,
// so that load does not wait until after the reduction (laplace27 n=200's fine A on the H100:
// fp64 1266 -> 1039 us, fp32 997 -> 747; bench/RESULTS.md, record 2026-11-26c).
constexpr int kUnroll = 4;

template <class V, int G, bool Narrow, bool Unscale>
__global__ void __launch_bounds__(kThreads)
   rows_spmv_kernel(const int32_t* __restrict__ row_ptr, const int32_t* __restrict__ col,
                    const int16_t* __restrict__ col16,
                    const typename SpmvArith<V>::Bits* __restrict__ val, int32_t nrows, double alpha,
                    const double* __restrict__ x, double beta, const double* yb, double* y,
                    const double* __restrict__ us)
{
   using A    = SpmvArith<V>;
   using Acc  = typename A::Acc;
   using Bits = typename A::Bits;
   const int64_t row  = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
   const int     g    = static_cast<int>(threadIdx.x) & (G - 1);
   const bool    live = row < nrows;
   constexpr bool use16 = Narrow; // one column type per kernel (rows_device.h: the registers)
   Acc sum = Acc(0);
   // yb may be y (the in-place product): row's b is read here and y[row] written at the end by
   // the same lane only
   const double bi = live && g == 0 && beta != 0.0 ? yb[row] : 0.0;
   if (live)
   {
      const int32_t begin = __ldg(row_ptr + row), end = __ldg(row_ptr + row + 1);
      for (int32_t k = begin + g; k < end; k += kUnroll * G)
      {
         int64_t j[kUnroll];
         Bits    v[kUnroll];
#pragma unroll
         for (int u = 0; u < kUnroll; ++u)
         {
            const int32_t kk = k + u * G;
            j[u]             = -1;
            if (kk < end)
            {
               if constexpr (use16) j[u] = row + __ldg(col16 + kk);
               else j[u] = static_cast<int64_t>(__ldg(col + kk));
               v[u] = __ldg(val + kk);
            }
         }
         double xj[kUnroll];
#pragma unroll
         for (int u = 0; u < kUnroll; ++u) xj[u] = j[u] >= 0 ? x_of<Unscale>(x, us, j[u]) : 0.0;
#pragma unroll
         for (int u = 0; u < kUnroll; ++u)
         {
            if (j[u] >= 0) sum = A::madd(A::widen(v[u]), A::round_x(xj[u]), sum);
         }
      }
   }
#pragma unroll
   for (int d = G / 2; d > 0; d >>= 1) sum += device::shfl_xor(sum, d, G);
   if (live && g == 0)
   {
      const double ax = row_of<Unscale>(static_cast<double>(sum), us, row);
      y[row]          = combine(alpha, ax, beta, &bi);
   }
}

} // namespace

double FillEstimate::row_cv() const
{
   if (rows <= 0 || row_sum <= 0.0) return 0.0;
   const double mean = row_sum / rows;
   const double var  = std::max(0.0, row_sq / rows - mean * mean);
   return std::sqrt(var) / mean;
}

int32_t rows_lanes(double mean_row_length, double row_length_cv, bool x_beyond_l2, bool wide)
{
   const double per_lane = (mean_row_length > 16.0 && row_length_cv <= kRowsIrregular) ? 16.0 : 8.0;
   int32_t      g        = 1;
   while (g < 32 && g * per_lane < mean_row_length) g *= 2;
   const bool long_rows = mean_row_length > 16.0 || (!wide && mean_row_length > kRowsBeyondL2MinLength);
   if (x_beyond_l2 && long_rows && g < 32) g *= 2;
   if (wide && g < 32) g *= 2;
   return g;
}

int32_t rows_build_lanes(double mean_row_length)
{
   int32_t g = 1;
   while (g < 32 && g < mean_row_length) g *= 2;
   return g;
}

bool x_beyond_l2(int64_t ncols)
{
   const int64_t bytes = device_limits().l2_bytes; // read once per device (runtime.cu)
   return bytes > 0 && ncols * static_cast<int64_t>(sizeof(double)) > bytes;
}

namespace {

// Enqueues the fill sample of a into out[0..7) (zeroed by the caller); false: nothing to sample.
bool enqueue_fill_sample(const CsrView& a, unsigned long long* out, Stream s, int32_t max_samples)
{
   const int64_t block_rows = (static_cast<int64_t>(a.nrows) + 3) / 4;
   if (block_rows == 0 || a.nnz == 0 || max_samples <= 0) return false;
   const int64_t samples = std::min<int64_t>(block_rows, max_samples);
   fill_sample_kernel<<<blocks_for(samples, kSampleWarps), kThreads, 0, s>>>(a.row_ptr, a.col, a.nrows, block_rows,
                                                                             samples, out);
   AMGT_DEVICE_CHECK_LAUNCH("fill_sample_kernel");
   return true;
}

FillEstimate fill_from(const unsigned long long* h)
{
   FillEstimate e;
   e.block_rows = static_cast<int64_t>(h[0]);
   e.entries    = static_cast<int64_t>(h[1]);
   e.tiles      = static_cast<int64_t>(h[2]);
   e.max_span   = static_cast<int64_t>(h[3]);
   e.rows       = static_cast<int64_t>(h[4]);
   e.row_sum    = static_cast<double>(h[5]);
   e.row_sq     = static_cast<double>(h[6]);
   return e;
}

constexpr int kFillWords = 7;

} // namespace

std::vector<FillEstimate> estimate_fills(const std::vector<CsrView>& a, Stream s, const Allocator& alloc,
                                         int32_t max_samples)
{
   std::vector<FillEstimate> e(a.size());
   if (a.empty()) return e;
   const size_t               words = a.size() * kFillWords;
   Buffer<unsigned long long> out(words, alloc);
   AMGT_DEVICE_CHECK(device::memset_async(out.get(), 0, words * sizeof(unsigned long long), s));
   bool any = false;
   for (size_t i = 0; i < a.size(); ++i)
   {
      AMGT_REQUIRE(a[i].nrows >= 0 && a[i].nnz >= 0, "estimate_fills: negative dimension");
      any = enqueue_fill_sample(a[i], out.get() + i * kFillWords, s, max_samples) || any;
   }
   if (!any) return e;
   std::vector<unsigned long long> h(words, 0);
   AMGT_DEVICE_CHECK(device::memcpy_async(h.data(), out.get(), words * sizeof(unsigned long long),
                                          device::Copy::to_host, s));
   AMGT_DEVICE_CHECK(device::stream_synchronize(s)); // the one read-back
   for (size_t i = 0; i < a.size(); ++i) e[i] = fill_from(h.data() + i * kFillWords);
   return e;
}

FillEstimate estimate_fill(const CsrView& a, Stream s, const Allocator& alloc, int32_t max_samples)
{
   return estimate_fills({a}, s, alloc, max_samples)[0];
}

int64_t max_span(const CsrView& a, Stream s, const Allocator& alloc)
{
   AMGT_REQUIRE(a.nrows >= 0 && a.nnz >= 0, "max_span: negative dimension");
   if (a.nrows == 0 || a.nnz == 0) return 0;
   AMGT_REQUIRE(a.row_ptr != nullptr && a.col != nullptr, "max_span: missing CSR arrays");
   Buffer<unsigned long long> out(1, alloc);
   AMGT_DEVICE_CHECK(device::memset_async(out.get(), 0, sizeof(unsigned long long), s));
   const DeviceLimits lim = device_limits();
   with_lanes<1>(rows_lanes(static_cast<double>(a.nnz) / a.nrows), [&](auto lanes) {
      constexpr int G    = decltype(lanes)::value;
      const int64_t want = (static_cast<int64_t>(a.nrows) * G + kThreads - 1) / kThreads;
      const auto    grid = static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(want, int64_t{lim.sms} * 16)));
      span_kernel<G><<<grid, kThreads, 0, s>>>(a.row_ptr, a.col, a.nrows, out.get());
   });
   AMGT_DEVICE_CHECK_LAUNCH("span_kernel");
   unsigned long long h = 0;
   AMGT_DEVICE_CHECK(device::memcpy_async(&h, out.get(), sizeof h, device::Copy::to_host, s));
   AMGT_DEVICE_CHECK(device::stream_synchronize(s));
   return static_cast<int64_t>(h);
}

template <class V>
DeviceRows<V> make_rows(const CsrView& a, const double* unscale, bool try_narrow, Stream s,
                        const Allocator& alloc, double row_cv, bool settle_later)
{
   AMGT_REQUIRE(a.nrows >= 0 && a.ncols >= 0 && a.nnz >= 0, "rows: negative dimension");
   AMGT_REQUIRE(a.nrows == 0 || a.row_ptr != nullptr, "rows: row_ptr is null");
   AMGT_REQUIRE(a.nnz == 0 || a.col != nullptr, "rows: col is null");
   AMGT_REQUIRE(unscale == nullptr || a.nrows == a.ncols, "rows: unscale needs a square matrix");
   DeviceRows<V> r;
   r.nrows   = a.nrows;
   r.ncols   = a.ncols;
   r.nnz     = a.nnz;
   r.row_ptr = a.row_ptr;
   r.col     = a.col;
   r.scaled  = unscale != nullptr;
   r.lanes   = rows_lanes(a.nrows > 0 ? static_cast<double>(a.nnz) / a.nrows : 0.0, row_cv, x_beyond_l2(a.ncols),
                          rows_wide(a.nrows, a.ncols));
   const bool values = !(std::is_same_v<V, double> && unscale == nullptr && a.val != nullptr);
   if (!values) r.val = reinterpret_cast<const V*>(a.val);
   const bool narrow = try_narrow && a.nnz > 0;
   if (a.nnz == 0 || (!values && !narrow)) return r; // CSR itself: nothing to build
   if (values)
   {
      r.own_val = Buffer<V>(static_cast<size_t>(a.nnz), alloc);
      r.val     = r.own_val.get();
   }
   if (narrow)
   {
      r.col16 = Buffer<int16_t>(static_cast<size_t>(a.nnz), alloc);
      r.tried = true;
      r.wide  = Buffer<int32_t>(1, alloc); // the build's flag: an entry's offset did not fit
      AMGT_DEVICE_CHECK(device::memset_async(r.wide.get(), 0, sizeof(int32_t), s));
   }
   V*       ov = r.own_val.get();
   int16_t* oc = r.col16.get();
   int32_t* w  = r.wide.get();
   with_lanes<1>(rows_build_lanes(a.nrows > 0 ? static_cast<double>(a.nnz) / a.nrows : 0.0), [&](auto lanes) {
      constexpr int G = decltype(lanes)::value;
      if (values && narrow)
      {
         if (unscale) launch_build<V, G, true, true, true>(a, unscale, ov, oc, w, s);
         else launch_build<V, G, false, true, true>(a, unscale, ov, oc, w, s);
      }
      else if (values)
      {
         if (unscale) launch_build<V, G, true, true, false>(a, unscale, ov, oc, w, s);
         else launch_build<V, G, false, true, false>(a, unscale, ov, oc, w, s);
      }
      else launch_build<V, G, false, false, true>(a, unscale, ov, oc, w, s);
   });
   if (narrow)
   {
      r.wide_back.post(r.wide.get(), s);
      if (!settle_later) settle_rows(r);
   }
   return r;
}

template <class V>
void settle_rows(DeviceRows<V>& r)
{
   if (r.settled()) return;
   r.narrow = r.wide_back.value() == 0; // the build is done: col16 may go
   if (!r.narrow) r.col16 = Buffer<int16_t>();
   r.wide_back = ReadBack();
   r.wide      = Buffer<int32_t>();
}

template <class V>
void csr_values_to(const CsrView& a, const double* unscale, V* out, Stream s)
{
   AMGT_REQUIRE(a.nrows >= 0 && a.nnz >= 0, "csr_values_to: negative dimension");
   AMGT_REQUIRE(unscale == nullptr || a.nrows == a.ncols, "csr_values_to: unscale needs a square matrix");
   if (a.nnz == 0 || a.nrows == 0) return;
   AMGT_REQUIRE(a.row_ptr != nullptr && a.col != nullptr && out != nullptr, "csr_values_to: missing arrays");
   with_lanes<1>(rows_build_lanes(static_cast<double>(a.nnz) / a.nrows), [&](auto lanes) {
      constexpr int G = decltype(lanes)::value;
      if (unscale) launch_build<V, G, true, true, false>(a, unscale, out, nullptr, nullptr, s);
      else launch_build<V, G, false, true, false>(a, unscale, out, nullptr, nullptr, s);
   });
}

template <class V>
void refresh_rows_values(DeviceRows<V>& r, const CsrView& a, const double* unscale, Stream s)
{
   AMGT_REQUIRE(a.nrows == r.nrows && a.ncols == r.ncols && a.nnz == r.nnz && a.row_ptr == r.row_ptr &&
                   a.col == r.col,
                "refresh_rows_values: the copy was made from other arrays");
   AMGT_REQUIRE((unscale != nullptr) == r.scaled, "refresh_rows_values: scaled otherwise than the copy");
   const bool lent = r.own_val.size() == 0 && r.nnz > 0;
   if (lent)
   {
      AMGT_REQUIRE((std::is_same_v<V, double> && unscale == nullptr && a.val != nullptr),
                   "refresh_rows_values: a lent copy takes lent values");
      r.val = reinterpret_cast<const V*>(a.val);
      return;
   }
   csr_values_to<V>(a, unscale, r.own_val.get(), s);
}

template <class V>
bool rows_narrow(const DeviceRows<V>& r, Stream)
{
   AMGT_REQUIRE(r.settled(), "rows_narrow: the copy's build flag is not read yet (settle_rows)");
   return r.narrow;
}

template <class V>
void rows_spmv(const DeviceRows<V>& A, double alpha, const double* x, double beta, double* y,
               Stream s, const double* unscale, const double* b)
{
   if (b == nullptr) b = y;
   AMGT_REQUIRE(A.settled(), "rows_spmv: the copy's build flag is not read yet (settle_rows)");
   if (!spmv_detail::spmv_prologue(A.nrows, A.ncols, alpha, x, beta, b, y, unscale, s)) return;
   const auto* val = as_bits(A.val);
   with_lanes<1>(A.lanes, [&](auto lanes) {
      constexpr int  G      = decltype(lanes)::value;
      const unsigned blocks = blocks_for(static_cast<int64_t>(A.nrows) * G);
      auto           launch = [&](auto narrow, auto unscaled) {
         constexpr bool N = decltype(narrow)::value, U = decltype(unscaled)::value;
         rows_spmv_kernel<V, G, N, U><<<blocks, kThreads, 0, s>>>(
            A.row_ptr, A.col, A.col16.get(), val, A.nrows, alpha, x, beta, b, y, unscale);
      };
      using T = std::true_type;
      using F = std::false_type;
      if (A.narrow) { unscale ? launch(T{}, T{}) : launch(T{}, F{}); }
      else { unscale ? launch(F{}, T{}) : launch(F{}, F{}); }
   });
   AMGT_DEVICE_CHECK_LAUNCH("rows_spmv_kernel");
}

template <class V>
double rows_spmv_bytes(const DeviceRows<V>& A, bool narrow)
{
   const double per_entry = sizeof(V) + (narrow ? 2.0 : 4.0);
   return per_entry * A.nnz + 4.0 * (A.nrows + 1.0) + 8.0 * A.ncols + 8.0 * A.nrows;
}

#define AMGT_ROWS_INSTANTIATE(V)                                                                     \
   template DeviceRows<V> make_rows<V>(const CsrView&, const double*, bool, Stream, const Allocator&, double, bool); \
   template void          settle_rows<V>(DeviceRows<V>&);                                            \
   template bool          rows_narrow<V>(const DeviceRows<V>&, Stream);                              \
   template void refresh_rows_values<V>(DeviceRows<V>&, const CsrView&, const double*, Stream);     \
   template void csr_values_to<V>(const CsrView&, const double*, V*, Stream);                        \
   template void   rows_spmv<V>(const DeviceRows<V>&, double, const double*, double, double*, Stream, \
                              const double*, const double*);                                                      \
   template double rows_spmv_bytes<V>(const DeviceRows<V>&, bool);
AMGT_ROWS_INSTANTIATE(double)
AMGT_ROWS_INSTANTIATE(float)
AMGT_ROWS_INSTANTIATE(half_t)
#undef AMGT_ROWS_INSTANTIATE

} // namespace amgt::device
