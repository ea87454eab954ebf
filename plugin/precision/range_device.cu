// Value statistics and symmetric scaling of a device CSR (precision/range_device.h).
//
// One thread per row, in CSR order within the row, exactly as the CPU reference
// (precision/policy.cpp): the row maximum, then the significant-underflow counts against it;
// the diagonal summed in CSR order. Results are combined with integer atomics, which are
// exact and order-independent: counts with atomicAdd, the maximum with atomicMax on the bit
// pattern (for non-negative doubles, the order of the bit patterns as unsigned integers is
// the order of the values). One thread per row is slow on a row of thousands of entries,
// but this runs once per matrix in the setup, and keeps the order of the reference.
#include "precision/range_device.h"

#include "common/error.h"
#include "device/launch.h"

#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

namespace amgt::device {
namespace {

struct DevRange
{
   unsigned long long max_bits; // bit pattern of the largest finite |a| (0 = +0.0)
   unsigned long long nonfinite;
   unsigned long long underflow_fp16;
   unsigned long long underflow_fp32;
};

struct DevStats
{
   DevRange           plain;
   DevRange           scaled;
   unsigned long long bad_diagonal; // rows without a finite nonzero diagonal
   double             sum;          // square only: sum of the finite values
   double             abs_sum;      // and of their magnitudes
};

__device__ inline double value_at(const double* val, int64_t k)
{
   return val ? val[k] : 1.0;
}

// The CPU's add_row (policy.cpp) for row values get(k), k in [begin, end).
template <class Get>
__device__ void add_row(DevRange* r, int64_t begin, int64_t end, Get get)
{
   double             row_max   = 0.0;
   unsigned long long nonfinite = 0;
   for (int64_t k = begin; k < end; ++k)
   {
      const double v = get(k);
      if (!isfinite(v))
      {
         ++nonfinite;
         continue;
      }
      row_max = fmax(row_max, fabs(v));
   }
   const double       significant = kSignificantRelative * row_max;
   unsigned long long u16 = 0, u32 = 0;
   for (int64_t k = begin; k < end; ++k)
   {
      const double m = fabs(get(k));
      if (!(m > 0.0) || !isfinite(m) || m < significant) continue;
      if (m < kFp16MinNormal) ++u16;
      if (m < kFp32MinNormal) ++u32;
   }
   if (nonfinite) atomicAdd(&r->nonfinite, nonfinite);
   if (u16) atomicAdd(&r->underflow_fp16, u16);
   if (u32) atomicAdd(&r->underflow_fp32, u32);
   if (row_max > 0.0)
   {
      atomicMax(&r->max_bits, static_cast<unsigned long long>(__double_as_longlong(row_max)));
   }
}

// row_sum/row_abs (square matrices; else nullptr): the row's finite values summed in CSR
// order, as policy.cpp does; the rows are then reduced by cub (deterministic, in another
// order than the CPU's: the totals agree within rounding, not bit for bit).
__global__ void plain_stats(const int32_t* row_ptr, const double* val, int32_t nrows,
                            DevStats* out, double* row_sum, double* row_abs)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i >= nrows) return;
   add_row(&out->plain, row_ptr[i], row_ptr[i + 1], [&](int64_t k) { return value_at(val, k); });
   if (row_sum)
   {
      double s = 0.0, a = 0.0;
      for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      {
         const double v = value_at(val, k);
         if (!isfinite(v)) continue;
         s = s + v;
         a = a + fabs(v);
      }
      row_sum[i] = s;
      row_abs[i] = a;
   }
}

// u_i = sqrt(|sum of the row's diagonal entries|); NaN and a count where there is none
// usable (missing, zero or non-finite), matching policy.cpp's `scalable`.
__global__ void diagonal_scaling(const int32_t* row_ptr, const int32_t* col, const double* val,
                                 int32_t nrows, double* u, unsigned long long* bad)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i >= nrows) return;
   double d     = 0.0;
   bool   found = false;
   for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
   {
      if (col[k] == i)
      {
         d     = d + value_at(val, k); // written out: no contraction with anything
         found = true;
      }
   }
   if (found && isfinite(d) && d != 0.0) { u[i] = sqrt(fabs(d)); }
   else
   {
      u[i] = __longlong_as_double(0x7ff8000000000000LL); // quiet NaN
      if (bad) atomicAdd(bad, 1ull);
   }
}

__global__ void scaled_stats(const int32_t* row_ptr, const int32_t* col, const double* val,
                             int32_t nrows, const double* u, DevStats* out)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i >= nrows) return;
   const double ui = u[i];
   add_row(&out->scaled, row_ptr[i], row_ptr[i + 1],
           [&](int64_t k) { return value_at(val, k) / (ui * u[col[k]]); });
}

__global__ void scale_values(const int32_t* row_ptr, const int32_t* col, const double* val,
                             int32_t nrows, const double* u, double* out)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i >= nrows) return;
   const double ui = u[i];
   for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
   {
      out[k] = value_at(val, k) / (ui * u[col[k]]);
   }
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
   return s;
}

} // namespace

ValueStats value_stats(const CsrView& a, Stream stream, const Allocator& alloc)
{
   AMGT_REQUIRE(a.nrows >= 0 && a.ncols >= 0 && a.nnz >= 0, "value_stats: negative size");
   Buffer<DevStats> d(1, alloc);
   AMGT_DEVICE_CHECK(cudaMemsetAsync(d.get(), 0, sizeof(DevStats), stream));
   const bool     square = a.nrows == a.ncols;
   const size_t   rows   = square ? static_cast<size_t>(a.nrows) : 0;
   Buffer<double> row_sum(rows, alloc), row_abs(rows, alloc);
   if (a.nrows > 0)
   {
      plain_stats<<<blocks_for(a.nrows), kThreads, 0, stream>>>(
         a.row_ptr, a.val, a.nrows, d.get(), square ? row_sum.get() : nullptr,
         square ? row_abs.get() : nullptr);
      AMGT_DEVICE_CHECK_LAUNCH("plain_stats");
   }
   if (square && a.nrows > 0)
   {
      size_t bytes = 0;
      AMGT_DEVICE_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, row_sum.get(), &d.get()->sum,
                                               a.nrows, stream));
      Buffer<char> temp(std::max<size_t>(bytes, 1), alloc);
      AMGT_DEVICE_CHECK(cub::DeviceReduce::Sum(temp.get(), bytes, row_sum.get(), &d.get()->sum,
                                               a.nrows, stream));
      AMGT_DEVICE_CHECK(cub::DeviceReduce::Sum(temp.get(), bytes, row_abs.get(),
                                               &d.get()->abs_sum, a.nrows, stream));
      // the reductions finish before temp goes back to the allocator (setup only)
      AMGT_DEVICE_CHECK(cudaStreamSynchronize(stream));
   }
   Buffer<double> u(square ? static_cast<size_t>(a.nrows) : 0, alloc);
   if (square && a.nrows > 0)
   {
      diagonal_scaling<<<blocks_for(a.nrows), kThreads, 0, stream>>>(
         a.row_ptr, a.col, a.val, a.nrows, u.get(), &d.get()->bad_diagonal);
      AMGT_DEVICE_CHECK_LAUNCH("diagonal_scaling");
      // runs even when a diagonal is bad (its NaN scale factors then only spoil statistics
      // that are discarded below): one read-back instead of two
      scaled_stats<<<blocks_for(a.nrows), kThreads, 0, stream>>>(a.row_ptr, a.col, a.val,
                                                                 a.nrows, u.get(), d.get());
      AMGT_DEVICE_CHECK_LAUNCH("scaled_stats");
   }
   DevStats h{};
   AMGT_DEVICE_CHECK(
      cudaMemcpyAsync(&h, d.get(), sizeof(DevStats), cudaMemcpyDeviceToHost, stream));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(stream)); // u and d are freed after this
   ValueStats out;
   out.plain    = to_range(h.plain);
   out.scalable = square && h.bad_diagonal == 0;
   out.sum      = square ? h.sum : 0.0;
   out.abs_sum  = square ? h.abs_sum : 0.0;
   if (out.scalable) out.scaled = to_range(h.scaled);
   return out;
}

void scaling_vector(const CsrView& a, double* u, Stream stream)
{
   AMGT_REQUIRE(a.nrows == a.ncols, "scaling_vector: the matrix is not square");
   if (a.nrows == 0) return;
   diagonal_scaling<<<blocks_for(a.nrows), kThreads, 0, stream>>>(a.row_ptr, a.col, a.val,
                                                                  a.nrows, u, nullptr);
   AMGT_DEVICE_CHECK_LAUNCH("diagonal_scaling");
}

void scaled_values(const CsrView& a, const double* u, double* out, Stream stream)
{
   AMGT_REQUIRE(a.nrows == a.ncols, "scaled_values: the matrix is not square");
   if (a.nrows == 0) return;
   scale_values<<<blocks_for(a.nrows), kThreads, 0, stream>>>(a.row_ptr, a.col, a.val, a.nrows,
                                                              u, out);
   AMGT_DEVICE_CHECK_LAUNCH("scale_values");
}

int64_t count_nonfinite(const double* v, int64_t n, Stream stream, const Allocator& alloc)
{
   if (n <= 0) return 0;
   Buffer<unsigned long long> c(1, alloc);
   AMGT_DEVICE_CHECK(cudaMemsetAsync(c.get(), 0, sizeof(unsigned long long), stream));
   const unsigned blocks = std::min<unsigned>(blocks_for(n), 1024u);
   nonfinite_count<<<blocks, kThreads, 0, stream>>>(v, n, c.get());
   AMGT_DEVICE_CHECK_LAUNCH("nonfinite_count");
   unsigned long long h = 0;
   AMGT_DEVICE_CHECK(cudaMemcpyAsync(&h, c.get(), sizeof(h), cudaMemcpyDeviceToHost, stream));
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(stream));
   return static_cast<int64_t>(h);
}

} // namespace amgt::device
