// libFuzzer target: the mBSR format (plugin/mbsr) in every storage precision.
//
// The first byte picks the precision (fp64, fp32, fp16) and one of three modes:
//   0 well-formed CSR as hypre hands it over (unsorted columns, repeats, any double value
//     including NaN, Inf, -0.0 and subnormals, val == nullptr for pattern-only): csr_to_mbsr
//     must succeed, validate_mbsr must accept the result, and mbsr_to_csr must give the
//     reference CSR computed here independently (columns sorted, repeats summed in double in
//     input order, rounded once to the storage type); converting that CSR again must give
//     the same mBSR.
//   1 arbitrary CSR arrays (row_ptr and col from the input, any nnz): validate_csr /
//     csr_to_mbsr either throw amgt::Error or succeed as in mode 0; they read nothing outside
//     row_ptr[0..nrows] and col[0..nnz-1] (AddressSanitizer watches the exact allocations).
//   2 arbitrary mBSR arrays: validate_mbsr throws amgt::Error or accepts; whatever it accepts
//     converts to a valid CSR and back to the same structure and values.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "common/error.h"
#include "common/precision.h"
#include "mbsr/mbsr.h"

namespace {

using amgt::CsrMatrix;
using amgt::CsrView;
using amgt::Mbsr;

[[noreturn]] void violated(const char* what, long a = 0, long b = 0)
{
   std::fprintf(stderr, "fuzz invariant violated: %s (%ld, %ld)\n", what, a, b);
   std::abort();
}
#define CHECK(cond, ...) \
   do { if (!(cond)) violated(#cond, ##__VA_ARGS__); } while (0)

// Same value, bit for bit; NaNs compare equal to each other whatever their payload (a NaN
// through half and back may change its payload, which means nothing).
bool same(double a, double b)
{
   if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
   return a == b && std::signbit(a) == std::signbit(b);
}

// The reference: a dense per-row map, built in input order, as the header documents it.
template <class V>
CsrMatrix reference(const CsrView& a)
{
   using T = amgt::StorageTraits<V>;
   CsrMatrix c;
   c.nrows = a.nrows;
   c.ncols = a.ncols;
   c.row_ptr.push_back(0);
   std::vector<double> acc(static_cast<size_t>(a.ncols));
   std::vector<char>   seen(static_cast<size_t>(a.ncols), 0);
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      for (int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
      {
         const int32_t j = a.col[p];
         const double  v = a.val ? a.val[p] : 1.0;
         acc[j]          = seen[j] ? acc[j] + v : v;
         seen[j]         = 1;
      }
      for (int32_t j = 0; j < a.ncols; ++j)
      {
         if (!seen[j]) continue;
         c.col.push_back(j);
         c.val.push_back(T::to_double(T::from_double(acc[j])));
         seen[j] = 0;
      }
      c.row_ptr.push_back(static_cast<int32_t>(c.col.size()));
   }
   return c;
}

template <class V>
void expect_same_mbsr(const Mbsr<V>& x, const Mbsr<V>& y)
{
   using T = amgt::StorageTraits<V>;
   CHECK(x.nrows == y.nrows && x.ncols == y.ncols);
   CHECK(x.blk_ptr == y.blk_ptr);
   CHECK(x.blk_col == y.blk_col);
   CHECK(x.blk_map == y.blk_map);
   CHECK(x.blk_val.size() == y.blk_val.size());
   for (size_t k = 0; k < x.blk_val.size(); ++k)
   {
      const bool set = (x.blk_map[k / 16] >> (k % 16)) & 1u;
      // values under clear bits are zero by the invariant; +0.0 and -0.0 both qualify there
      if (set) { CHECK(same(T::to_double(x.blk_val[k]), T::to_double(y.blk_val[k])), static_cast<long>(k)); }
   }
}

template <class V>
void round_trip(const CsrView& a, bool may_throw)
{
   Mbsr<V> m;
   try
   {
      m = amgt::csr_to_mbsr<V>(a);
   }
   catch (const amgt::Error&)
   {
      if (!may_throw) violated("csr_to_mbsr refused a well-formed CSR");
      return;
   }
   amgt::validate_mbsr(m); // an amgt::Error here escapes: libFuzzer reports it
   const CsrMatrix back = amgt::mbsr_to_csr(m);
   const CsrMatrix ref  = reference<V>(a);
   CHECK(back.nrows == ref.nrows && back.ncols == ref.ncols);
   CHECK(back.row_ptr == ref.row_ptr);
   CHECK(back.col == ref.col);
   for (size_t k = 0; k < ref.val.size(); ++k) CHECK(same(back.val[k], ref.val[k]), static_cast<long>(k));
   const amgt::MbsrStats st = amgt::mbsr_stats(m);
   CHECK(st.nnz == static_cast<int64_t>(back.col.size()), st.nnz);
   CHECK(st.tiles == m.num_tiles());
   expect_same_mbsr(amgt::csr_to_mbsr<V>(back.view()), m);
}

double any_double(FuzzedDataProvider& in)
{
   switch (in.ConsumeIntegralInRange<int>(0, 3))
   {
   case 0: return static_cast<double>(in.ConsumeIntegralInRange<int>(-8, 8)); // exact in fp16
   case 1: {
      const uint64_t bits = in.ConsumeIntegral<uint64_t>(); // anything: NaN, Inf, subnormal
      double         d;
      std::memcpy(&d, &bits, sizeof d);
      return d;
   }
   case 2: return in.ConsumeFloatingPoint<double>();
   default: return std::ldexp(in.ConsumeProbability<double>(), in.ConsumeIntegralInRange<int>(-30, 20));
   }
}

template <class V>
void well_formed(FuzzedDataProvider& in)
{
   const int32_t nrows   = in.ConsumeIntegralInRange<int32_t>(0, 70);
   const int32_t ncols   = in.ConsumeIntegralInRange<int32_t>(nrows == 0 ? 0 : 1, 70);
   const bool    pattern = in.ConsumeBool();
   std::vector<int32_t> row_ptr{0}, col;
   std::vector<double>  val;
   for (int32_t i = 0; i < nrows; ++i)
   {
      const int k = ncols == 0 ? 0 : in.ConsumeIntegralInRange<int>(0, 9);
      for (int e = 0; e < k; ++e)
      {
         col.push_back(in.ConsumeIntegralInRange<int32_t>(0, ncols - 1));
         val.push_back(any_double(in));
      }
      row_ptr.push_back(static_cast<int32_t>(col.size()));
   }
   // exact-size heap copies: ASan flags any read past them
   std::unique_ptr<int32_t[]> rp(new int32_t[row_ptr.size()]);
   std::copy(row_ptr.begin(), row_ptr.end(), rp.get());
   std::unique_ptr<int32_t[]> cp(col.empty() ? nullptr : new int32_t[col.size()]);
   std::copy(col.begin(), col.end(), cp.get());
   std::unique_ptr<double[]> vp(val.empty() || pattern ? nullptr : new double[val.size()]);
   if (vp) std::copy(val.begin(), val.end(), vp.get());
   const CsrView a{nrows, ncols, static_cast<int32_t>(col.size()), rp.get(), cp.get(), vp.get()};
   round_trip<V>(a, /*may_throw=*/false);
}

template <class V>
void raw_csr(FuzzedDataProvider& in)
{
   const int32_t nrows = in.ConsumeIntegralInRange<int32_t>(-2, 40);
   const int32_t ncols = in.ConsumeIntegralInRange<int32_t>(-2, 40);
   const int32_t nnz   = in.ConsumeIntegralInRange<int32_t>(-2, 120);
   const bool    null_row_ptr = in.ConsumeIntegralInRange<int>(0, 15) == 0;
   std::unique_ptr<int32_t[]> rp(nrows >= 0 && !null_row_ptr ? new int32_t[nrows + 1] : nullptr);
   for (int32_t i = 0; rp && i <= nrows; ++i)
      rp[i] = in.ConsumeBool() ? in.ConsumeIntegralInRange<int32_t>(-1, nnz + 1) : in.ConsumeIntegral<int32_t>();
   if (rp && nrows >= 0 && in.ConsumeBool())
   {
      // mostly valid row pointers, so the fuzzer also gets past the first checks
      rp[0] = 0;
      for (int32_t i = 1; i <= nrows; ++i) rp[i] = std::max(rp[i - 1], std::min(rp[i], std::max(nnz, 0)));
      rp[nrows] = std::max(nnz, 0);
   }
   std::unique_ptr<int32_t[]> cp(nnz > 0 ? new int32_t[nnz] : nullptr);
   for (int32_t p = 0; p < nnz; ++p)
      cp[p] = in.ConsumeBool() ? in.ConsumeIntegralInRange<int32_t>(-1, std::max(ncols, 0)) : in.ConsumeIntegral<int32_t>();
   std::unique_ptr<double[]> vp(nnz > 0 && in.ConsumeBool() ? new double[nnz] : nullptr);
   for (int32_t p = 0; vp && p < nnz; ++p) vp[p] = any_double(in);
   const CsrView a{nrows, ncols, nnz, rp.get(), cp.get(), vp.get()};
   bool valid = true;
   try
   {
      amgt::validate_csr(a);
   }
   catch (const amgt::Error&)
   {
      valid = false;
   }
   if (valid && a.nrows > 0 && a.row_ptr == nullptr) violated("null row_ptr accepted");
   if (valid && a.row_ptr) { round_trip<V>(a, /*may_throw=*/false); }
   else if (!valid)
   {
      // the conversion validates first: it must refuse the same input
      try
      {
         (void)amgt::csr_to_mbsr<V>(a);
         violated("csr_to_mbsr accepted what validate_csr refused");
      }
      catch (const amgt::Error&)
      {
      }
   }
}

template <class V>
void raw_mbsr(FuzzedDataProvider& in)
{
   using T = amgt::StorageTraits<V>;
   Mbsr<V> m;
   m.nrows              = in.ConsumeIntegralInRange<int32_t>(-1, 40);
   m.ncols              = in.ConsumeIntegralInRange<int32_t>(-1, 40);
   const int32_t brows  = m.nrows >= 0 ? m.block_rows() : 0;
   const int32_t bcols  = m.ncols >= 0 ? m.block_cols() : 0;
   const int32_t tiles  = in.ConsumeIntegralInRange<int32_t>(0, 40);
   const bool    exact  = in.ConsumeBool(); // right array sizes, so deeper checks are reached
   const size_t  nptr   = exact ? static_cast<size_t>(brows) + 1 : in.ConsumeIntegralInRange<size_t>(0, 12);
   for (size_t i = 0; i < nptr; ++i)
      m.blk_ptr.push_back(exact ? std::min<int32_t>(tiles, static_cast<int32_t>(i) * in.ConsumeIntegralInRange<int32_t>(0, 4))
                                : in.ConsumeIntegralInRange<int32_t>(-2, 45));
   if (exact && nptr > 0)
   {
      m.blk_ptr[0] = 0;
      for (size_t i = 1; i < nptr; ++i) m.blk_ptr[i] = std::max(m.blk_ptr[i], m.blk_ptr[i - 1]);
      m.blk_ptr.back() = tiles;
   }
   const int32_t ncol_entries = exact ? tiles : in.ConsumeIntegralInRange<int32_t>(0, 45);
   for (int32_t t = 0; t < ncol_entries; ++t)
      m.blk_col.push_back(in.ConsumeIntegralInRange<int32_t>(-1, bcols));
   const int32_t nmaps = exact ? static_cast<int32_t>(m.blk_col.size()) : in.ConsumeIntegralInRange<int32_t>(0, 45);
   for (int32_t t = 0; t < nmaps; ++t) m.blk_map.push_back(in.ConsumeIntegral<uint16_t>());
   const size_t nvals = exact ? m.blk_col.size() * 16 : in.ConsumeIntegralInRange<size_t>(0, 720);
   for (size_t k = 0; k < nvals; ++k)
   {
      const bool set = k / 16 < m.blk_map.size() && ((m.blk_map[k / 16] >> (k % 16)) & 1u);
      // mostly respect "zero under a clear bit", sometimes not
      m.blk_val.push_back(T::from_double(set || in.ConsumeIntegralInRange<int>(0, 31) == 0 ? any_double(in) : 0.0));
   }
   try
   {
      amgt::validate_mbsr(m);
   }
   catch (const amgt::Error&)
   {
      return;
   }
   const CsrMatrix c = amgt::mbsr_to_csr(m);
   amgt::validate_csr(c.view()); // throws (a finding) if the accepted mBSR gives a bad CSR
   for (int32_t i = 0; i < c.nrows; ++i)
      for (int32_t p = c.row_ptr[i] + 1; p < c.row_ptr[i + 1]; ++p) CHECK(c.col[p - 1] < c.col[p], i, p);
   expect_same_mbsr(amgt::csr_to_mbsr<V>(c.view()), m);
}

template <class V>
void run(int mode, FuzzedDataProvider& in)
{
   switch (mode)
   {
   case 0: well_formed<V>(in); break;
   case 1: raw_csr<V>(in); break;
   default: raw_mbsr<V>(in); break;
   }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
   FuzzedDataProvider in(data, size);
   const int          sel  = in.ConsumeIntegral<uint8_t>();
   const int          mode = sel % 3;
   switch ((sel / 3) % 3)
   {
   case 0: run<double>(mode, in); break;
   case 1: run<float>(mode, in); break;
   default: run<amgt::half_t>(mode, in); break;
   }
   return 0;
}
