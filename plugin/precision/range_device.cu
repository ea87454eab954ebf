// Value statistics and symmetric scaling of a device CSR (precision/range_device.h).
//
// The plain statistics: for a matrix likely to hold tiny values one row-wise pass (plain_stats,
// G lanes a row), for the others one flat pass over the values (flat_stats) and, only where a
// value below fp16's smallest normal exists, a row-wise pass for the significant-underflow counts against each row's
// maximum, as the CPU reference (precision/policy.cpp) defines them (notes at the kernels); the
// scaled ones with G lanes per row (G from the mean row length, 4..32). The plain passes (and
// sum_partials, the blocks' sums) run as batched kernels (*_batch) for one matrix
// (value_stats) as for a hierarchy's (plain_value_stats): one code path, the same grid per
// matrix either way.
// Maxima and counts are exact and order-independent, so the GPU equals the reference bit
// for bit: per row by shuffles, per block in shared memory, then one integer atomic per block
// and field (the maximum with atomicMax on the bit pattern: for non-negative doubles the order
// of the bit patterns as unsigned integers is the order of the values). Per-row atomics on one
// address serialise in L2 (a 5M-row level took milliseconds that way); one per block does not.
// The sums are reduced per thread, per block and over the blocks in a fixed order: they agree
// with the reference within rounding, not bit for bit (the only consumer compares |sum| with
// abs_sum).
#include "precision/range_device.h"
#include "device/warp.cuh"

#include "common/error.h"
#include "common/half.h"
#include "device/launch.h"

#include "device/backend.h"

#include <algorithm>
#include <type_traits>
#include <cstring>
#include <string>
#include <vector>

namespace amgt::device {
namespace {

struct DevRange
{
   unsigned long long max_bits; // bit pattern of the largest finite |a| (0 = +0.0)
   unsigned long long nonfinite;
   unsigned long long underflow_fp16;
   unsigned long long underflow_fp32;
   unsigned long long inexact_fp16; // finite values fp16 does not hold exactly
};

struct DevStats
{
   DevRange           plain;
   DevRange           scaled;
   unsigned long long bad_diagonal; // rows without a finite nonzero diagonal
   unsigned long long tiny;         // finite nonzero values below fp16's smallest normal (0: none)
   double             sum;          // square only: sum of the finite values
   double             abs_sum;      // and of their magnitudes
};

__device__ inline double value_at(const double* val, int64_t k)
{
   return val ? val[k] : 1.0;
}

// Rows per group of G lanes: G from the mean row length, so that short rows do not leave
// most of a warp idle and long rows are read by a full warp (coalesced).
int group_for(int64_t nnz, int64_t nrows)
{
   const int64_t mean = nrows > 0 ? nnz / nrows : 0;
   return mean <= 6 ? 4 : mean <= 12 ? 8 : mean <= 24 ? 16 : 32;
}

template <int G>
__device__ __forceinline__ double group_max(double v)
{
#pragma unroll
   for (int o = G / 2; o > 0; o >>= 1) v = fmax(v, device::shfl_xor(v, o));
   return v;
}

template <int G, class T>
__device__ __forceinline__ T group_sum(T v)
{
#pragma unroll
   for (int o = G / 2; o > 0; o >>= 1) v += device::shfl_xor(v, o);
   return v;
}

// A thread's share of the block's DevRange, flushed once per block.
struct RangeAcc
{
   double             max_abs   = 0.0;
   unsigned long long nonfinite = 0, u16 = 0, u32 = 0, inexact = 0;
};

// The reference's significant-underflow counts of one row (add_row, policy.cpp): its values
// get(k), k in [begin, end), read by the G lanes of a group (t: lane in the group), that are at
// least kSignificantRelative times row_max (the row's maximum, already the group's) and below
// fp16's / fp32's smallest normal; this lane's share is added to u16 and u32.
template <int G, class Get>
__device__ __forceinline__ void count_underflows(int64_t begin, int64_t end, int t, double row_max, Get get,
                                                 unsigned long long& u16, unsigned long long& u32)
{
   const double significant = kSignificantRelative * row_max;
   for (int64_t k = begin + t; k < end; k += G)
   {
      const double m = fabs(get(k));
      if (!(m > 0.0) || !isfinite(m) || m < significant) continue;
      if (m < kFp16MinNormal) ++u16;
      if (m < kFp32MinNormal) ++u32;
   }
}

// The CPU's add_row (policy.cpp) for row values get(k), k in [begin, end), by the G lanes of
// a group (t: lane in the group); lane 0 of the group accumulates the row into acc.
template <int G, class Get>
__device__ void add_row(RangeAcc& acc, int64_t begin, int64_t end, int t, Get get)
{
   double             row_max   = 0.0;
   unsigned long long nonfinite = 0;
   for (int64_t k = begin + t; k < end; k += G)
   {
      const double v = get(k);
      if (!isfinite(v)) ++nonfinite;
      else
      {
         row_max = fmax(row_max, fabs(v));
         acc.inexact += half_holds_exactly(v) ? 0 : 1; // the lane's own share: no reduction
      }
   }
   row_max = group_max<G>(row_max);
   unsigned long long u16 = 0, u32 = 0;
   count_underflows<G>(begin, end, t, row_max, get, u16, u32);
   nonfinite = group_sum<G>(nonfinite);
   u16       = group_sum<G>(u16);
   u32       = group_sum<G>(u32);
   if (t == 0)
   {
      acc.max_abs = fmax(acc.max_abs, row_max);
      acc.nonfinite += nonfinite;
      acc.u16 += u16;
      acc.u32 += u32;
   }
}

// One flush of the block's accumulators into r: shared-memory atomics, then one global
// atomic per field (only for non-zero fields).
__device__ void flush_range(const RangeAcc& acc, DevRange* r)
{
   __shared__ unsigned long long s[5];
   if (threadIdx.x < 5) s[threadIdx.x] = 0;
   __syncthreads();
   if (acc.max_abs > 0.0) atomicMax(&s[0], static_cast<unsigned long long>(__double_as_longlong(acc.max_abs)));
   if (acc.nonfinite) atomicAdd(&s[1], acc.nonfinite);
   if (acc.u16) atomicAdd(&s[2], acc.u16);
   if (acc.u32) atomicAdd(&s[3], acc.u32);
   if (acc.inexact) atomicAdd(&s[4], acc.inexact);
   __syncthreads();
   if (threadIdx.x == 0)
   {
      if (s[0]) atomicMax(&r->max_bits, s[0]);
      if (s[1]) atomicAdd(&r->nonfinite, s[1]);
      if (s[2]) atomicAdd(&r->underflow_fp16, s[2]);
      if (s[3]) atomicAdd(&r->underflow_fp32, s[3]);
      if (s[4]) atomicAdd(&r->inexact_fp16, s[4]);
   }
}

// Grid-stride over rows, G lanes per row: a warp holds 32/G consecutive rows and the bound
// is padded to a multiple of that, so every lane of a warp makes the same trips (the
// shuffles need the whole warp); rows past nrows do nothing.
template <int G>
__device__ __forceinline__ int64_t rows_padded(int32_t nrows)
{
   constexpr int R = 32 / G;
   return (static_cast<int64_t>(nrows) + R - 1) / R * R;
}
// The grid a kernel body strides over: the launch's own, or (the batched kernels below, one
// launch for several matrices) the share of the blocks that a matrix was given.
struct VGrid
{
   unsigned block;  // this block's index within the matrix's blocks
   unsigned blocks; // the matrix's blocks
};
__device__ __forceinline__ VGrid launch_grid()
{
   return VGrid{blockIdx.x, gridDim.x};
}
template <int G>
__device__ __forceinline__ int64_t first_row(VGrid g = launch_grid())
{
   return (static_cast<int64_t>(g.block) * blockDim.x + threadIdx.x) / G;
}
template <int G>
__device__ __forceinline__ int64_t row_stride(VGrid g = launch_grid())
{
   return static_cast<int64_t>(g.blocks) * blockDim.x / G;
}

// A block's sums (sum, abs_sum: each thread's running pair) into partial[2 * blockIdx.x] and
// partial[2 * blockIdx.x + 1]: a fixed tree over each warp, then the warps in order, so the
// same grid gives the same sums bit for bit. Every thread of the block calls it.
__device__ void write_block_sums(double sum, double abs_sum, double* partial, unsigned block)
{
   __shared__ double ws[kThreads / device::kWarpSize][2];
#pragma unroll
   for (int o = device::kWarpSize / 2; o > 0; o >>= 1)
   {
      sum += device::shfl_xor(sum, o);
      abs_sum += device::shfl_xor(abs_sum, o);
   }
   const int lane = static_cast<int>(threadIdx.x) & (device::kWarpSize - 1);
   const int warp = static_cast<int>(threadIdx.x) / device::kWarpSize;
   if (lane == 0)
   {
      ws[warp][0] = sum;
      ws[warp][1] = abs_sum;
   }
   __syncthreads();
   if (threadIdx.x == 0)
   {
      double s = 0.0, a = 0.0;
      for (int w = 0; w < kThreads / device::kWarpSize; ++w)
      {
         s = s + ws[w][0];
         a = a + ws[w][1];
      }
      partial[2 * block]     = s;
      partial[2 * block + 1] = a;
   }
}

// Values a lane of plain_stats loads before it adds them (one row's entries t, t + G, ...):
// with one load in flight a lane, the pass over the Galerkin operators (rows of 30-200
// entries, 32 lanes a row) read them at about half of 3.0 TB/s where flat_stats' four loads a
// thread read the other matrices at 0.8 (kprof of systems3 n=126's setup on the H100,
// bench/RESULTS.md, record 2026-11-27c).
constexpr int kPlainUnroll = 4;

// The plain statistics of a matrix likely to hold tiny values in one streaming pass. Per value: the
// finite maximum and the non-finite count go into the thread's accumulator (order-independent,
// flushed once per block), the sums
// (square matrices) into the thread's running pair, and a flag notes a finite nonzero value
// below fp16's smallest normal. Only such a value can count as an underflow (kFp32MinNormal <
// kFp16MinNormal), so the second pass of the reference's add_row (the row maximum by the group,
// then the counts against kSignificantRelative times it) runs only in warps where some lane
// raised the flag: operators without tiny values are read once, with no shuffle per row. The
// counts and maxima are exact, as before. The sums: each block writes its pair to partial[]
// (a tree over the block, fixed order), which sum_partials adds in a fixed order; the grid is a
// function of the matrix and the GPU, so a run repeats its sums bit for bit; they differ from
// the reference's row-by-row order only by rounding.
template <int G>
__device__ void plain_stats_body(const int32_t* __restrict__ row_ptr, const double* __restrict__ val, int32_t nrows,
                                 DevStats* out, double* partial, VGrid grid)
{
   RangeAcc      acc;
   double        sum = 0.0, abs_sum = 0.0;
   const int     t      = static_cast<int>(threadIdx.x) % G;
   const int64_t stride = row_stride<G>(grid);
   auto          add    = [&](double v, double& row_max, bool& tiny) {
      if (!isfinite(v))
      {
         ++acc.nonfinite;
         return;
      }
      const double m = fabs(v);
      row_max        = fmax(row_max, m);
      tiny           = tiny || (m > 0.0 && m < kFp16MinNormal);
      acc.inexact += half_holds_exactly(v) ? 0 : 1;
      sum     = sum + v;
      abs_sum = abs_sum + m;
   };
   int64_t i = first_row<G>(grid);
   // the row's pointers are loaded one row ahead, its values kPlainUnroll a lane at once
   int64_t next_begin = i < nrows ? row_ptr[i] : 0, next_end = i < nrows ? row_ptr[i + 1] : 0;
   for (; i < rows_padded<G>(nrows); i += stride)
   {
      const int64_t begin = next_begin, end = next_end;
      if (i + stride < nrows)
      {
         next_begin = row_ptr[i + stride];
         next_end   = row_ptr[i + stride + 1];
      }
      else
      {
         next_begin = next_end = 0; // a padding row next (or none): it reads nothing
      }
      double row_max = 0.0;
      bool   tiny    = false;
      // each lane takes its entries begin + t + jG in increasing j, as a plain loop would: the
      // sums are the same bit for bit
      for (int64_t k0 = begin + t; k0 < end; k0 += kPlainUnroll * G)
      {
         double v[kPlainUnroll];
#pragma unroll
         for (int u = 0; u < kPlainUnroll; ++u) v[u] = k0 + u * G < end ? value_at(val, k0 + u * G) : 0.0;
#pragma unroll
         for (int u = 0; u < kPlainUnroll; ++u)
         {
            if (k0 + u * G < end) add(v[u], row_max, tiny);
         }
      }
      acc.max_abs = fmax(acc.max_abs, row_max);
      if (device::ballot(tiny) == 0u) continue; // uniform in the warp: its lanes make the same trips
      count_underflows<G>(begin, end, t, group_max<G>(row_max), [&](int64_t k) { return value_at(val, k); },
                          acc.u16, acc.u32);
   }
   flush_range(acc, &out->plain);
   if (partial != nullptr) write_block_sums(sum, abs_sum, partial, grid.block);
}

// The plain statistics of the other matrices (P, R, fine levels). Every quantity but the
// underflow counts is a function of the values alone (the finite maximum, the non-finite count,
// the sums), so flat_stats reads the value array as one stream, kFlatUnroll coalesced loads a
// thread in flight, without row pointers: plain_stats' 4 and 8 lanes a row read laplace7
// n=250's transfer operators at 0.3-0.4 of 3.0 TB/s on the H100, its 32 lanes laplace27
// n=200's fine A (27 entries a row) slower than this pass. The Galerkin coarse operators keep
// plain_stats (likely_tiny): they hold values below fp16's smallest normal in every setup
// measured, so underflow_rows would read them a second time (flat_stats + underflow_rows on
// them: about 1.8 ms a laplace7 n=250 setup against plain_stats' 1.24; bench/RESULTS.md,
// record 2026-11-26c). It also counts the finite nonzero values below fp16's
// smallest normal: only such a value can be an underflow (kFp32MinNormal < kFp16MinNormal),
// and only then does underflow_rows (launched always, returning at once on a zero count, so
// the host waits for nothing) compute the reference's row maxima and the counts against
// kSignificantRelative times them. Counts and maxima are exact, as before. The sums: each
// thread adds its values in index order, each block writes a fixed tree of its threads' pairs
// to partial[], and sum_partials adds the blocks in a fixed order; the grid is a function of
// the matrix and the GPU, so a run repeats its sums bit for bit; they differ from the
// reference's row-by-row order only by rounding.
constexpr int kFlatUnroll = 4;

__device__ void flat_stats_body(const double* __restrict__ val, int64_t nnz, DevStats* out, double* partial,
                                VGrid grid)
{
   RangeAcc           acc;
   unsigned long long tiny = 0;
   double             sum = 0.0, abs_sum = 0.0;
   const int64_t      step = static_cast<int64_t>(grid.blocks) * blockDim.x;
   auto               add  = [&](double v) {
      if (!isfinite(v))
      {
         ++acc.nonfinite;
         return;
      }
      const double m = fabs(v);
      acc.max_abs    = fmax(acc.max_abs, m);
      tiny += (m > 0.0 && m < kFp16MinNormal) ? 1 : 0;
      acc.inexact += half_holds_exactly(v) ? 0 : 1;
      sum     = sum + v;
      abs_sum = abs_sum + m;
   };
   int64_t k = static_cast<int64_t>(grid.block) * blockDim.x + threadIdx.x;
   for (; k + (kFlatUnroll - 1) * step < nnz; k += kFlatUnroll * step)
   {
      double v[kFlatUnroll];
#pragma unroll
      for (int u = 0; u < kFlatUnroll; ++u) v[u] = value_at(val, k + u * step);
#pragma unroll
      for (int u = 0; u < kFlatUnroll; ++u) add(v[u]);
   }
   for (; k < nnz; k += step) add(value_at(val, k));
   flush_range(acc, &out->plain);
   {
      __shared__ unsigned long long st;
      if (threadIdx.x == 0) st = 0;
      __syncthreads();
      if (tiny) atomicAdd(&st, tiny);
      __syncthreads();
      if (threadIdx.x == 0 && st) atomicAdd(&out->tiny, st);
   }
   if (partial != nullptr) write_block_sums(sum, abs_sum, partial, grid.block);
}

// The underflow counts of the reference's add_row (G lanes a row), where flat_stats found a
// candidate; nothing to do (and nothing read but one word) otherwise. Only warps with a
// candidate in one of their rows reduce their row maxima (the flag is uniform in the warp, so
// its lanes make the same trips).
template <int G>
__device__ void underflow_rows_body(const int32_t* __restrict__ row_ptr, const double* __restrict__ val, int32_t nrows,
                                   DevStats* out, VGrid grid)
{
   if (*reinterpret_cast<volatile unsigned long long*>(&out->tiny) == 0) return; // uniform in the block
   RangeAcc  acc;
   const int t = static_cast<int>(threadIdx.x) % G;
   for (int64_t i = first_row<G>(grid); i < rows_padded<G>(nrows); i += row_stride<G>(grid))
   {
      const bool    live  = i < nrows;
      const int64_t begin = live ? row_ptr[i] : 0, end = live ? row_ptr[i + 1] : 0;
      double        row_max = 0.0;
      bool          tiny    = false;
      for (int64_t k = begin + t; k < end; k += G)
      {
         const double m = fabs(value_at(val, k));
         if (!isfinite(m)) continue;
         row_max = fmax(row_max, m);
         tiny    = tiny || (m > 0.0 && m < kFp16MinNormal);
      }
      if (device::ballot(tiny) == 0u) continue; // uniform in the warp
      count_underflows<G>(begin, end, t, group_max<G>(row_max), [&](int64_t k) { return value_at(val, k); },
                          acc.u16, acc.u32);
   }
   flush_range(acc, &out->plain);
}

// out->sum and out->abs_sum from the per-block pairs of flat_stats or plain_stats, in a fixed order that depends
// only on the number of blocks: thread t adds the pairs t, t + kSumThreads, ... in index
// order, then a fixed tree over the threads (shared memory, halving strides). The same
// matrix on the same GPU gives the same sums bit for bit, run after run. (One thread adding a
// few thousand values in a chain of dependent loads took 60-100 us a matrix on the H100.)
constexpr int kSumThreads = 256;
__device__ void sum_partials_body(const double* partial, unsigned blocks, DevStats* out)
{
   __shared__ double acc[2][kSumThreads];
   const unsigned t = threadIdx.x;
   double         s = 0.0, a = 0.0;
   for (unsigned b = t; b < blocks; b += kSumThreads)
   {
      s = s + partial[2 * b];
      a = a + partial[2 * b + 1];
   }
   acc[0][t] = s;
   acc[1][t] = a;
   __syncthreads();
   for (unsigned half = kSumThreads / 2; half > 0; half >>= 1)
   {
      if (t < half)
      {
         acc[0][t] = acc[0][t] + acc[0][t + half];
         acc[1][t] = acc[1][t] + acc[1][t + half];
      }
      __syncthreads();
   }
   if (t == 0)
   {
      out->sum     = acc[0][0];
      out->abs_sum = acc[1][0];
   }
}

// The batched forms (plain_value_stats: the setup survey): one launch runs a pass over up to
// kBatch matrices, each on the blocks its own launch would have had (the same grid, so the same
// sums bit for bit); a block finds its matrix by its index. The table travels as the kernel's
// parameter (constant memory: no copy, no allocation).
constexpr int kBatch = 32;
struct BatchItem
{
   const int32_t* row_ptr;
   const double*  val;
   int64_t        nnz;
   int32_t        nrows;
   unsigned       first_block; // of the launch
   unsigned       blocks;      // the matrix's
   DevStats*      out;
   double*        partial; // nullptr: no sums (not square)
};
struct Batch
{
   BatchItem item[kBatch];
   int       n;
};

// The matrix of this block (the items' blocks are consecutive, in order) and its grid.
__device__ __forceinline__ const BatchItem& item_of(const Batch& b, VGrid& grid)
{
   int i = 0;
   while (i + 1 < b.n && blockIdx.x >= b.item[i + 1].first_block) ++i;
   grid = VGrid{blockIdx.x - b.item[i].first_block, b.item[i].blocks};
   return b.item[i];
}

__global__ void __launch_bounds__(kThreads) flat_stats_batch(const Batch b)
{
   VGrid            g;
   const BatchItem& it = item_of(b, g);
   flat_stats_body(it.val, it.nnz, it.out, it.partial, g);
}

template <int G>
__global__ void __launch_bounds__(kThreads) plain_stats_batch(const Batch b)
{
   VGrid            g;
   const BatchItem& it = item_of(b, g);
   plain_stats_body<G>(it.row_ptr, it.val, it.nrows, it.out, it.partial, g);
}

template <int G>
__global__ void __launch_bounds__(kThreads) underflow_rows_batch(const Batch b)
{
   VGrid            g;
   const BatchItem& it = item_of(b, g);
   underflow_rows_body<G>(it.row_ptr, it.val, it.nrows, it.out, g);
}

// one block per item: first_block is the item's index
__global__ void __launch_bounds__(kSumThreads) sum_partials_batch(const Batch b)
{
   const BatchItem& it = b.item[blockIdx.x];
   sum_partials_body(it.partial, it.blocks, it.out);
}

// u_i = sqrt(|sum of the row's diagonal entries|); NaN and a count where there is none
// usable (missing, zero or non-finite), matching policy.cpp's `scalable`. One diagonal entry
// (the usual case) is taken as it is; several are summed in CSR order by lane 0, as the
// reference does.
template <int G>
__global__ void diagonal_scaling(const int32_t* row_ptr, const int32_t* col, const double* val,
                                 int32_t nrows, double* u, unsigned long long* bad)
{
   unsigned long long bad_count = 0;
   const int t = static_cast<int>(threadIdx.x) % G;
   for (int64_t i = first_row<G>(); i < rows_padded<G>(nrows); i += row_stride<G>())
   {
      const bool    live  = i < nrows;
      const int64_t begin = live ? row_ptr[i] : 0, end = live ? row_ptr[i + 1] : 0;
      int           found = 0;
      double        d     = 0.0;
      for (int64_t k = begin + t; k < end; k += G)
      {
         if (col[k] == i)
         {
            ++found;
            d = value_at(val, k);
         }
      }
      found = group_sum<G>(found);
      // exactly one lane holds the entry when found == 1; the others add +0.0, which leaves
      // it unchanged bit for bit (and turns -0.0 into +0.0, as the reference's 0.0 + v does)
      d = group_sum<G>(found == 1 ? d : 0.0);
      if (found > 1 && t == 0)
      {
         d = 0.0;
         for (int64_t k = begin; k < end; ++k)
            if (col[k] == i) d = d + value_at(val, k); // written out: no contraction
      }
      if (live && t == 0)
      {
         if (found && isfinite(d) && d != 0.0) { u[i] = sqrt(fabs(d)); }
         else
         {
            u[i] = __longlong_as_double(0x7ff8000000000000LL); // quiet NaN
            ++bad_count;
         }
      }
   }
   if (bad && bad_count) atomicAdd(bad, bad_count);
}

template <int G>
__global__ void scaled_stats(const int32_t* row_ptr, const int32_t* col, const double* val,
                             int32_t nrows, const double* u, DevStats* out)
{
   RangeAcc acc;
   const int t = static_cast<int>(threadIdx.x) % G;
   for (int64_t i = first_row<G>(); i < rows_padded<G>(nrows); i += row_stride<G>())
   {
      const bool    live  = i < nrows;
      const int64_t begin = live ? row_ptr[i] : 0, end = live ? row_ptr[i + 1] : 0;
      const double  ui    = live ? u[i] : 1.0;
      add_row<G>(acc, begin, end, t, [&](int64_t k) { return value_at(val, k) / (ui * u[col[k]]); });
   }
   flush_range(acc, &out->scaled);
}

template <int G>
__global__ void scale_values(const int32_t* row_ptr, const int32_t* col, const double* val,
                             int32_t nrows, const double* u, double* out)
{
   const int t = static_cast<int>(threadIdx.x) % G;
   for (int64_t i = first_row<G>(); i < rows_padded<G>(nrows); i += row_stride<G>())
   {
      if (i >= nrows) continue;
      const double ui = u[i];
      for (int64_t k = row_ptr[i] + t; k < row_ptr[i + 1]; k += G)
      {
         out[k] = value_at(val, k) / (ui * u[col[k]]);
      }
   }
}

// The grid of a kernel with G lanes a row (at most a few waves: the kernels stride over the
// rows and flush once per block); the batched passes give each matrix this grid too.
unsigned group_blocks(const CsrView& a, int g)
{
   const int64_t threads = static_cast<int64_t>(a.nrows) * g;
   return static_cast<unsigned>(
      std::max<int64_t>(1, std::min<int64_t>((threads + kThreads - 1) / kThreads, int64_t{device_limits().sms} * 16)));
}

// Calls f(std::integral_constant<int, G>, blocks) for the group size of a and group_blocks'
// grid; f launches the kernel named `kernel`, whose launch is checked here.
template <class F>
void with_group(const CsrView& a, const char* kernel, F&& f)
{
   const int g = group_for(a.nnz, a.nrows);
   with_lanes<4>(g, [&, blocks = group_blocks(a, g)](auto lanes) { f(lanes, blocks); });
   AMGT_DEVICE_CHECK_LAUNCH(kernel);
}

// Refuses a non-square a (`op` names the caller); false when a has no rows (nothing to do).
bool square_with_rows(const CsrView& a, const char* op)
{
   AMGT_REQUIRE(a.nrows == a.ncols, std::string(op) + ": the matrix is not square");
   return a.nrows != 0;
}

__global__ void nonfinite_count(const double* v, int64_t n, unsigned long long* out)
{
   unsigned long long c = 0;
   for (int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; k < n;
        k += static_cast<int64_t>(gridDim.x) * blockDim.x)
   {
      c += isfinite(v[k]) ? 0 : 1;
   }
   if (c) atomicAdd(out, c);
}

RangeStats to_range(const DevRange& r)
{
   RangeStats s;
   static_assert(sizeof(double) == sizeof(unsigned long long), "double is 64 bits");
   std::memcpy(&s.max_abs, &r.max_bits, sizeof(double));
   s.nonfinite      = static_cast<int64_t>(r.nonfinite);
   s.underflow_fp16 = static_cast<int64_t>(r.underflow_fp16);
   s.underflow_fp32 = static_cast<int64_t>(r.underflow_fp32);
   s.inexact_fp16   = static_cast<int64_t>(r.inexact_fp16);
   return s;
}

} // namespace

namespace {

// The host form of what the kernels gathered for a (with_scaled: the scaled form was asked for).
ValueStats finish(const CsrView& a, const DevStats& h, bool with_scaled)
{
   const bool square = a.nrows == a.ncols;
   ValueStats out;
   out.plain        = to_range(h.plain);
   out.scaled_known = with_scaled || !square;
   out.scalable     = with_scaled && square && h.bad_diagonal == 0; // (true for 0 x 0, as the reference)
   out.sum      = square ? h.sum : 0.0;
   out.abs_sum  = square ? h.abs_sum : 0.0;
   if (out.scalable) out.scaled = to_range(h.scaled);
   return out;
}

} // namespace

namespace {

// One matrix's share of a batched launch.
struct Share
{
   size_t   index;  // into the caller's matrices
   unsigned blocks; // its grid, as its own launch would have it
};

// Launches kernel(Batch) over the shares, kBatch matrices a launch, each matrix's blocks after
// the previous one's (per_item_block: one block per matrix instead, blocks passed through).
template <class Launch>
void launch_batches(const std::vector<Share>& shares, const std::vector<CsrView>& a, DevStats* d,
                    const std::vector<double*>& partial, bool per_item_block, Launch&& launch)
{
   for (size_t first = 0; first < shares.size(); first += kBatch)
   {
      Batch    b{};
      unsigned blocks = 0;
      b.n             = static_cast<int>(std::min<size_t>(kBatch, shares.size() - first));
      for (int j = 0; j < b.n; ++j)
      {
         const Share&   sh = shares[first + j];
         const CsrView& m  = a[sh.index];
         b.item[j]         = BatchItem{m.row_ptr, m.val, m.nnz, m.nrows, blocks, sh.blocks, d + sh.index,
                                       partial[sh.index]};
         blocks += per_item_block ? 1u : sh.blocks;
      }
      launch(b, blocks);
   }
}

unsigned flat_blocks(const CsrView& a)
{
   return static_cast<unsigned>(std::max<int64_t>(
      1, std::min<int64_t>((a.nnz + int64_t{kThreads} * kFlatUnroll - 1) / (int64_t{kThreads} * kFlatUnroll),
                           int64_t{device_limits().sms} * 8)));
}

// Enqueues the plain statistics of every a[i] into d[i] (zeroed by the caller), as value_stats
// describes, in batched launches (kBatch matrices a launch, each on the grid its own launch
// would have: the same sums bit for bit however many are batched); partials receives the
// square matrices' per-block sums and must live until the stream has run them.
void enqueue_plain(const std::vector<CsrView>& a, const std::vector<bool>& likely_tiny, DevStats* d,
                   Buffer<double>& partials, Stream stream, const Allocator& alloc)
{
   const size_t n = a.size();
   // the passes each matrix takes (flat + underflow rows, or the row-wise plain pass where tiny
   // values are likely), by kind and group width
   std::vector<Share> flat, sums, plain[6], under[6]; // plain/under indexed by log2(G)
   std::vector<unsigned> pass_blocks(n, 0);
   for (size_t i = 0; i < n; ++i)
   {
      const CsrView& m = a[i];
      if (m.nrows == 0 || m.nnz == 0) continue;
      const int g  = group_for(m.nnz, m.nrows);
      const int lg = g == 4 ? 2 : g == 8 ? 3 : g == 16 ? 4 : 5;
      if (likely_tiny[i])
      {
         pass_blocks[i] = group_blocks(m, g);
         plain[lg].push_back({i, pass_blocks[i]});
      }
      else
      {
         pass_blocks[i] = flat_blocks(m);
         flat.push_back({i, pass_blocks[i]});
         under[lg].push_back({i, group_blocks(m, g)});
      }
      if (m.nrows == m.ncols) sums.push_back({i, pass_blocks[i]});
   }
   // the per-block sums of the square matrices, one buffer for all
   size_t total = 0;
   for (const Share& sh : sums) total += 2 * static_cast<size_t>(sh.blocks);
   partials = Buffer<double>(total, alloc);
   std::vector<double*> partial(n, nullptr);
   {
      size_t off = 0;
      for (const Share& sh : sums)
      {
         partial[sh.index] = partials.get() + off;
         off += 2 * static_cast<size_t>(sh.blocks);
      }
   }
   launch_batches(flat, a, d, partial, false, [&](const Batch& b, unsigned blocks) {
      flat_stats_batch<<<blocks, kThreads, 0, stream>>>(b);
      AMGT_DEVICE_CHECK_LAUNCH("flat_stats_batch");
   });
   for (int lg = 2; lg <= 5; ++lg)
   {
      with_lanes<4>(1 << lg, [&](auto g) {
         launch_batches(plain[lg], a, d, partial, false, [&](const Batch& b, unsigned blocks) {
            plain_stats_batch<decltype(g)::value><<<blocks, kThreads, 0, stream>>>(b);
            AMGT_DEVICE_CHECK_LAUNCH("plain_stats_batch");
         });
      });
   }
   launch_batches(sums, a, d, partial, true, [&](const Batch& b, unsigned blocks) {
      sum_partials_batch<<<blocks, kSumThreads, 0, stream>>>(b);
      AMGT_DEVICE_CHECK_LAUNCH("sum_partials_batch");
   });
   for (int lg = 2; lg <= 5; ++lg)
   {
      with_lanes<4>(1 << lg, [&](auto g) {
         launch_batches(under[lg], a, d, partial, false, [&](const Batch& b, unsigned blocks) {
            underflow_rows_batch<decltype(g)::value><<<blocks, kThreads, 0, stream>>>(b);
            AMGT_DEVICE_CHECK_LAUNCH("underflow_rows_batch");
         });
      });
   }
}

} // namespace

ValueStats value_stats(const CsrView& a, Stream stream, const Allocator& alloc, bool with_scaled,
                       bool likely_tiny)
{
   AMGT_REQUIRE(a.nrows >= 0 && a.ncols >= 0 && a.nnz >= 0, "value_stats: negative size");
   Buffer<DevStats> d(1, alloc);
   AMGT_DEVICE_CHECK(device::memset_async(d.get(), 0, sizeof(DevStats), stream));
   const bool     square = a.nrows == a.ncols;
   // per-block sums of the plain pass (square matrices), reduced before the one read-back below
   Buffer<double> partial;
   enqueue_plain({a}, {likely_tiny}, d.get(), partial, stream, alloc);
   const bool     scaled = with_scaled && square && a.nrows > 0;
   Buffer<double> u(scaled ? static_cast<size_t>(a.nrows) : 0, alloc);
   if (scaled)
   {
      with_group(a, "diagonal_scaling", [&](auto g, unsigned blocks) {
         diagonal_scaling<decltype(g)::value><<<blocks, kThreads, 0, stream>>>(
            a.row_ptr, a.col, a.val, a.nrows, u.get(), &d.get()->bad_diagonal);
      });
      // runs even when a diagonal is bad (its NaN scale factors then only spoil statistics
      // that are discarded below): one read-back instead of two
      with_group(a, "scaled_stats", [&](auto g, unsigned blocks) {
         scaled_stats<decltype(g)::value><<<blocks, kThreads, 0, stream>>>(a.row_ptr, a.col, a.val,
                                                                           a.nrows, u.get(), d.get());
      });
   }
   DevStats h{};
   AMGT_DEVICE_CHECK(
      device::memcpy_async(&h, d.get(), sizeof(DevStats), device::Copy::to_host, stream));
   AMGT_DEVICE_CHECK(device::stream_synchronize(stream)); // u and d are freed after this
   return finish(a, h, with_scaled);
}

std::vector<ValueStats> plain_value_stats(const std::vector<CsrView>& a, const std::vector<bool>& likely_tiny,
                                          Stream stream, const Allocator& alloc)
{
   AMGT_REQUIRE(likely_tiny.size() == a.size(), "plain_value_stats: one likely_tiny flag per matrix");
   std::vector<ValueStats> out;
   if (a.empty()) return out;
   for (const CsrView& m : a)
   {
      AMGT_REQUIRE(m.nrows >= 0 && m.ncols >= 0 && m.nnz >= 0, "plain_value_stats: negative size");
   }
   const size_t     n = a.size();
   Buffer<DevStats> d(n, alloc);
   AMGT_DEVICE_CHECK(device::memset_async(d.get(), 0, n * sizeof(DevStats), stream));
   Buffer<double> partials;
   enqueue_plain(a, likely_tiny, d.get(), partials, stream, alloc);
   std::vector<DevStats> h(n);
   AMGT_DEVICE_CHECK(device::memcpy_async(h.data(), d.get(), n * sizeof(DevStats), device::Copy::to_host, stream));
   AMGT_DEVICE_CHECK(device::stream_synchronize(stream)); // the one read-back; partials freed after it
   out.reserve(n);
   for (size_t i = 0; i < n; ++i) out.push_back(finish(a[i], h[i], false));
   return out;
}

void scaling_vector(const CsrView& a, double* u, Stream stream)
{
   if (!square_with_rows(a, "scaling_vector")) return;
   with_group(a, "diagonal_scaling", [&](auto g, unsigned blocks) {
      diagonal_scaling<decltype(g)::value><<<blocks, kThreads, 0, stream>>>(a.row_ptr, a.col, a.val,
                                                                            a.nrows, u, nullptr);
   });
}

void scaled_values(const CsrView& a, const double* u, double* out, Stream stream)
{
   if (!square_with_rows(a, "scaled_values")) return;
   with_group(a, "scale_values", [&](auto g, unsigned blocks) {
      scale_values<decltype(g)::value><<<blocks, kThreads, 0, stream>>>(a.row_ptr, a.col, a.val,
                                                                        a.nrows, u, out);
   });
}

int64_t count_nonfinite(const double* v, int64_t n, Stream stream, const Allocator& alloc)
{
   if (n <= 0) return 0;
   Buffer<unsigned long long> c(1, alloc);
   AMGT_DEVICE_CHECK(device::memset_async(c.get(), 0, sizeof(unsigned long long), stream));
   const unsigned blocks = std::min<unsigned>(blocks_for(n), 1024u);
   nonfinite_count<<<blocks, kThreads, 0, stream>>>(v, n, c.get());
   AMGT_DEVICE_CHECK_LAUNCH("nonfinite_count");
   unsigned long long h = 0;
   AMGT_DEVICE_CHECK(device::memcpy_async(&h, c.get(), sizeof(h), device::Copy::to_host, stream));
   AMGT_DEVICE_CHECK(device::stream_synchronize(stream));
   return static_cast<int64_t>(h);
}

} // namespace amgt::device
