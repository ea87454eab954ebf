// AMGT=auto's device statistics and scaling (precision/range_device.h) against their CPU
// references (precision/policy.h). Maxima and counts are exact, and the scaling evaluates
// the same correctly rounded IEEE expressions (sqrt, product, quotient) on both sides, so
// everything must agree bit for bit; sum and abs_sum are reduced in another order on the
// GPU and agree within a relative 1e-12.
#include "precision/policy.h"
#include "precision/range_device.h"

#include "common/error.h"
#include "common/random_matrix.h"

#include "gpu_test_util.h"

#include "device/backend.h"
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <memory>
#include <vector>

namespace {

using namespace amgt;
using namespace amgt::test::gpu;

// bit-for-bit equality of doubles (NaN == NaN with the same payload)
bool same_bits(double a, double b)
{
   return std::memcmp(&a, &b, sizeof(double)) == 0;
}

void expect_same(const RangeStats& gpu, const RangeStats& cpu, const std::string& what)
{
   EXPECT_TRUE(same_bits(gpu.max_abs, cpu.max_abs)) << what << ": " << gpu.max_abs << " vs " << cpu.max_abs;
   EXPECT_EQ(gpu.nonfinite, cpu.nonfinite) << what;
   EXPECT_EQ(gpu.underflow_fp16, cpu.underflow_fp16) << what;
   EXPECT_EQ(gpu.underflow_fp32, cpu.underflow_fp32) << what;
   EXPECT_EQ(gpu.inexact_fp16, cpu.inexact_fp16) << what;
}

void expect_close_sum(double gpu, double cpu, double scale, const std::string& what)
{
   EXPECT_LE(std::fabs(gpu - cpu), 1e-12 * std::max(scale, 1e-300)) << what << ": " << gpu << " vs " << cpu;
}

// Statistics, scaling vector and scaled values: GPU against CPU.
void check_matrix(const CsrMatrix& a, const std::string& name)
{
   SCOPED_TRACE(name);
   device::Allocator mem = device::runtime_allocator();
   DeviceCsr         d(a, Empty::one);
   const ValueStats  cpu = value_stats(a.view());
   const ValueStats  gpu = device::value_stats(d.view, nullptr, mem);
   expect_same(gpu.plain, cpu.plain, "plain");
   {
      // the other order of passes (one row-wise pass: likely_tiny), the same statistics
      const ValueStats rw = device::value_stats(d.view, nullptr, mem, true, /*likely_tiny=*/true);
      expect_same(rw.plain, cpu.plain, "plain, row-wise pass");
      expect_close_sum(rw.sum, cpu.sum, cpu.abs_sum, "sum, row-wise pass");
      expect_close_sum(rw.abs_sum, cpu.abs_sum, cpu.abs_sum, "abs_sum, row-wise pass");
      EXPECT_EQ(rw.scalable, cpu.scalable);
   }
   EXPECT_EQ(gpu.scalable, cpu.scalable);
   expect_close_sum(gpu.sum, cpu.sum, cpu.abs_sum, "sum");
   expect_close_sum(gpu.abs_sum, cpu.abs_sum, cpu.abs_sum, "abs_sum");
   EXPECT_TRUE(gpu.scaled_known);
   {
      // without the scaled form: the same plain statistics and sums, nothing scaled claimed
      const ValueStats part = device::value_stats(d.view, nullptr, mem, /*with_scaled=*/false);
      expect_same(part.plain, cpu.plain, "plain without the scaled form");
      expect_close_sum(part.sum, cpu.sum, cpu.abs_sum, "sum without the scaled form");
      expect_close_sum(part.abs_sum, cpu.abs_sum, cpu.abs_sum, "abs_sum without the scaled form");
      EXPECT_FALSE(part.scalable);
      EXPECT_EQ(part.scaled_known, a.nrows != a.ncols); // a rectangular matrix has none to compute
   }
   if (!cpu.scalable || !gpu.scalable) return;
   expect_same(gpu.scaled, cpu.scaled, "scaled");

   const std::vector<double> u_cpu = scaling_vector(a.view());
   DeviceArray<double>       u(static_cast<size_t>(a.nrows), Empty::one);
   device::scaling_vector(d.view, u.get(), nullptr);
   DeviceArray<double> w(a.col.size(), Empty::one);
   device::scaled_values(d.view, u.get(), w.get(), nullptr);
   ASSERT_EQ(device::device_synchronize(), device::kSuccess);
   const std::vector<double> u_gpu = u.to_host();
   for (size_t i = 0; i < u_cpu.size(); ++i)
      ASSERT_TRUE(same_bits(u_gpu[i], u_cpu[i])) << "unscale row " << i;
   const std::vector<double> w_cpu = scaled_values(a.view(), u_cpu);
   const std::vector<double> w_gpu = w.to_host();
   for (size_t k = 0; k < w_cpu.size(); ++k)
      ASSERT_TRUE(same_bits(w_gpu[k], w_cpu[k])) << "scaled value " << k;
}

// Square random CSR with a diagonal in every row (first, as hypre stores it) and values over
// many binades: magnitudes 2^e for e uniform in [emin, emax], random mantissa and sign.
CsrMatrix wide_range(int n, double density, int emin, int emax, unsigned seed)
{
   std::mt19937                           rng(seed);
   std::uniform_real_distribution<double> u(0.0, 1.0), mant(1.0, 2.0);
   std::uniform_int_distribution<int>     e(emin, emax);
   CsrMatrix                              a;
   a.nrows = a.ncols = n;
   a.row_ptr.push_back(0);
   for (int i = 0; i < n; ++i)
   {
      a.col.push_back(i);
      a.val.push_back(std::ldexp(mant(rng), e(rng)));
      for (int j = 0; j < n; ++j)
      {
         if (j == i || u(rng) >= density) continue;
         a.col.push_back(j);
         a.val.push_back((rng() & 1u ? -1.0 : 1.0) * std::ldexp(mant(rng), e(rng)));
      }
      // unsorted columns after the diagonal
      std::shuffle(a.col.begin() + a.row_ptr.back() + 1, a.col.end(), rng);
      a.row_ptr.push_back(static_cast<int>(a.col.size()));
   }
   return a;
}

class DevicePrecision : public GpuTest
{
};

TEST_F(DevicePrecision, RandomMatricesMatchTheReference)
{
   // larger than a block of threads, n % 4 != 0, rectangular (not scalable), and ~10% empty
   // rows (random_csr of tests/common)
   check_matrix(test::random_csr(1000, 1000, 0.01, test::Fill::random, 1u), "random_1000");
   check_matrix(test::random_csr(333, 257, 0.05, test::Fill::random, 2u), "random_333x257");
   check_matrix(test::random_csr(37, 37, 0.3, test::Fill::small_int, 3u), "small_int_37");
   {
      // small integers are fp16 numbers, random values are not (lossless_storage's count)
      const CsrMatrix ints = test::random_csr(400, 400, 0.05, test::Fill::small_int, 4u);
      const CsrMatrix reals = test::random_csr(400, 400, 0.05, test::Fill::random, 5u);
      EXPECT_EQ(value_stats(ints.view()).plain.inexact_fp16, 0);
      EXPECT_GT(value_stats(reals.view()).plain.inexact_fp16, 0);
      check_matrix(ints, "small_int_400");
      check_matrix(reals, "random_400");
   }
   for (unsigned seed : {4u, 5u, 6u})
   {
      // from fp16-subnormal to fp16-overflow magnitudes, and from fp32-underflow to 1e15
      check_matrix(wide_range(517, 0.02, -30, 20, seed), "wide_fp16_" + std::to_string(seed));
      check_matrix(wide_range(301, 0.03, -140, 50, seed), "wide_fp32_" + std::to_string(seed));
   }
}

// n rows of per_row entries of magnitude 1..10 (a diagonal first), except every 997th row:
// there the values shrink so that some entries underflow fp16 (or fp32) while being
// significant against the row's maximum, and others are tiny but insignificant. Most warps
// then hold no tiny value at all and plain_stats reads them once; the few that do take the
// second pass, next to rows without one.
CsrMatrix sparse_tiny(int n, int per_row, unsigned seed)
{
   std::mt19937                           rng(seed);
   std::uniform_real_distribution<double> mag(1.0, 10.0);
   std::uniform_int_distribution<int>     col(0, n - 1);
   CsrMatrix                              a;
   a.nrows = a.ncols = n;
   a.row_ptr.push_back(0);
   for (int i = 0; i < n; ++i)
   {
      const bool special = i % 997 == 5;
      const int  kind    = (i / 997) % 3; // 0: fp16 range, 1: fp32 range, 2: insignificant
      for (int k = 0; k < per_row; ++k)
      {
         a.col.push_back(k == 0 ? i : col(rng));
         double v = (rng() & 1u ? -1.0 : 1.0) * mag(rng);
         // kind 0: diagonal 1e-5..1e-4, the rest 1e-6..1e-5: below fp16's smallest normal and
         // above 2^-11 of the row maximum (counted); kind 1: the same 38-39 binades lower, below
         // fp32's smallest normal (counted twice); kind 2: one 1e-12 beside values of 1..10
         // (tiny but insignificant: the second pass runs and counts nothing)
         if (special && kind == 0) v *= k == 0 ? 1e-5 : 1e-6;
         if (special && kind == 1) v *= k == 0 ? 1e-38 : 1e-39;
         if (special && kind == 2 && k == 1) v = 1e-12;
         a.val.push_back(v);
      }
      a.row_ptr.push_back(static_cast<int>(a.col.size()));
   }
   return a;
}

// The one-pass plain statistics against the reference where few warps hold tiny values, for
// every group width (4, 8, 16 and 32 lanes per row).
TEST_F(DevicePrecision, FewTinyValuesAmongManyRows)
{
   // 300 a row: several of plain_stats' unrolled trips (kPlainUnroll x 32 lanes) a row
   for (int per_row : {3, 9, 20, 40, 70, 300})
   {
      const CsrMatrix a   = sparse_tiny(30011, per_row, static_cast<unsigned>(per_row));
      const ValueStats cpu = value_stats(a.view());
      EXPECT_GT(cpu.plain.underflow_fp16, 0) << per_row;
      EXPECT_GT(cpu.plain.underflow_fp32, 0) << per_row;
      check_matrix(a, "sparse_tiny_" + std::to_string(per_row));
   }
}

// Rows short and long (the flat pass and the row-wise pass of value_stats) without any value
// below fp16's smallest normal (the flat pass's row-wise counts then return at once) and with
// one such value in a single row.
TEST_F(DevicePrecision, ShortAndLongRowsWithAndWithoutTinyValues)
{
   for (const double density : {0.002, 0.005, 0.01, 0.03, 0.08})
   {
      CsrMatrix a = wide_range(1500, density, -8, 8, static_cast<unsigned>(1000 * density));
      check_matrix(a, "no_tiny_" + std::to_string(density));
      const ValueStats cpu = value_stats(a.view());
      EXPECT_EQ(cpu.plain.underflow_fp16, 0);
      // one value of row 700, small against fp16's range but not against its row's maximum
      // there: a significant fp16 underflow only if it is within kSignificantRelative of it
      a.val[a.row_ptr[700] + (a.row_ptr[701] - a.row_ptr[700]) / 2] = 3e-6;
      check_matrix(a, "one_tiny_" + std::to_string(density));
   }
}

// The setup survey's batch (plain_value_stats): one read-back for many matrices, each entry
// the plain statistics of the CPU reference (sums within rounding), square or not, with and
// without the row-wise pass, empty matrices included; nothing scaled claimed.
TEST_F(DevicePrecision, BatchOfPlainStatisticsMatchesTheReference)
{
   std::vector<CsrMatrix> ms;
   for (const test::NamedMatrix& m : test::edge_matrices()) ms.push_back(m.a);
   ms.push_back(test::random_csr(1000, 1000, 0.01, test::Fill::random, 21u));
   ms.push_back(test::random_csr(333, 257, 0.05, test::Fill::random, 22u));
   ms.push_back(test::random_csr(400, 400, 0.05, test::Fill::small_int, 23u));
   ms.push_back(sparse_tiny(30011, 20, 24u));
   ms.push_back(wide_range(517, 0.02, -30, 20, 25u));
   ms.push_back(wide_range(1500, 0.03, -8, 8, 26u)); // 45 a row: 32 lanes
   // more matrices than one launch takes (kBatch = 32): the table is split over launches
   const size_t distinct = ms.size();
   for (size_t i = 0; i < distinct; ++i) ms.push_back(ms[distinct - 1 - i]);
   ASSERT_GT(ms.size(), 32u);
   std::vector<std::unique_ptr<DeviceCsr>> held;
   std::vector<CsrView> views;
   for (const CsrMatrix& m : ms)
   {
      held.push_back(std::make_unique<DeviceCsr>(m, Empty::one));
      views.push_back(held.back()->view);
   }
   for (int tiny_pattern = 0; tiny_pattern < 3; ++tiny_pattern)
   {
      std::vector<bool> tiny(views.size());
      for (size_t i = 0; i < tiny.size(); ++i) tiny[i] = tiny_pattern == 2 ? (i % 2 == 0) : tiny_pattern == 1;
      const std::vector<ValueStats> all =
         device::plain_value_stats(views, tiny, nullptr, device::runtime_allocator());
      ASSERT_EQ(all.size(), ms.size());
      for (size_t i = 0; i < ms.size(); ++i)
      {
         const std::string what = "matrix " + std::to_string(i) + ", pattern " + std::to_string(tiny_pattern);
         const ValueStats  cpu  = value_stats(ms[i].view());
         expect_same(all[i].plain, cpu.plain, what);
         expect_close_sum(all[i].sum, cpu.sum, cpu.abs_sum, what + " sum");
         expect_close_sum(all[i].abs_sum, cpu.abs_sum, cpu.abs_sum, what + " abs_sum");
         EXPECT_FALSE(all[i].scalable) << what;
         EXPECT_EQ(all[i].scaled_known, ms[i].nrows != ms[i].ncols) << what;
         // the same grid as the matrix's own launches: the same sums bit for bit
         const ValueStats one = device::value_stats(views[i], nullptr, device::runtime_allocator(), false, tiny[i]);
         EXPECT_TRUE(same_bits(all[i].sum, one.sum)) << what;
         EXPECT_TRUE(same_bits(all[i].abs_sum, one.abs_sum)) << what;
         expect_same(all[i].plain, one.plain, what + " against its own launch");
      }
   }
   EXPECT_TRUE(device::plain_value_stats({}, {}, nullptr, device::runtime_allocator()).empty());
   EXPECT_THROW(device::plain_value_stats(views, {}, nullptr, device::runtime_allocator()), Error)
      << "one flag per matrix";
}

TEST_F(DevicePrecision, EdgeMatricesMatchTheReference)
{
   for (const test::NamedMatrix& m : test::edge_matrices()) check_matrix(m.a, m.name);
}

TEST_F(DevicePrecision, NonFiniteHugeAndTinyValues)
{
   const double inf = std::numeric_limits<double>::infinity();
   CsrMatrix    a   = wide_range(203, 0.05, -20, 10, 9u);
   a.val[3]         = std::nan("");
   a.val[17]        = inf;
   a.val[40]        = -inf;
   a.val[55]        = 1e300;
   a.val[81]        = 4.9e-324; // the smallest subnormal double
   check_matrix(a, "non_finite_mix");

   // a non-finite diagonal: not scalable on either side
   CsrMatrix b = wide_range(66, 0.1, -3, 3, 10u);
   b.val[b.row_ptr[5]] = std::nan(""); // the diagonal of row 5 is first
   check_matrix(b, "nan_diagonal");
   CsrMatrix c = wide_range(66, 0.1, -3, 3, 11u);
   c.val[c.row_ptr[7]] = 0.0;
   check_matrix(c, "zero_diagonal");

   // scaled values that overflow double (tiny diagonal, huge off-diagonal)
   CsrMatrix e = wide_range(50, 0.2, -2, 2, 12u);
   e.val[e.row_ptr[3]] = 1e-300;
   e.val[e.row_ptr[4]] = 1e-300;
   e.val[e.row_ptr[3] + 1] = 1e300;
   check_matrix(e, "scaled_overflow");

   // pattern-only (val == nullptr): all ones
   CsrMatrix p = wide_range(45, 0.2, 0, 0, 13u);
   p.val.clear();
   check_matrix(p, "pattern_only");
}

TEST_F(DevicePrecision, DuplicateDiagonalIsSummedInOrder)
{
   CsrMatrix m;
   m.nrows = m.ncols = 5;
   m.row_ptr         = {0, 3, 4, 5, 7, 9};
   m.col             = {0, 1, 0, 1, 2, 3, 3, 4, 4};
   m.val             = {0.1, 2, 0.2, 9, 1e-3, 1.0 / 3, 2.0 / 3, 5e8, -7e8};
   check_matrix(m, "duplicates");
}

TEST_F(DevicePrecision, CountNonFinite)
{
   device::Allocator   mem = device::runtime_allocator();
   std::vector<double> v(100003, 1.5);
   for (size_t i = 0; i < v.size(); i += 997) v[i] = (i % 2) ? std::nan("") : -1.0 / 0.0;
   int64_t expect = 0;
   for (double x : v) expect += std::isfinite(x) ? 0 : 1;
   ASSERT_GT(expect, 0);
   DeviceArray<double> d(v, Empty::one);
   EXPECT_EQ(device::count_nonfinite(d.get(), static_cast<int64_t>(v.size()), nullptr, mem), expect);
   EXPECT_EQ(device::count_nonfinite(d.get(), 0, nullptr, mem), 0);
   EXPECT_EQ(count_nonfinite(v.data(), static_cast<int64_t>(v.size())), expect);
}

TEST_F(DevicePrecision, ChoiceIsTheSameFromEitherStatistics)
{
   device::Allocator mem = device::runtime_allocator();
   for (unsigned seed = 20; seed < 26; ++seed)
   {
      CsrMatrix        a = wide_range(129, 0.05, seed % 2 ? -16 : 0, seed % 3 ? 18 : 8, seed);
      DeviceCsr        d(a, Empty::one);
      const ValueStats cpu = value_stats(a.view());
      const ValueStats gpu = device::value_stats(d.view, nullptr, mem);
      for (Precision floor : {Precision::fp64, Precision::fp32, Precision::fp16})
      {
         const PrecisionChoice c = choose_precision(cpu, floor), g = choose_precision(gpu, floor);
         EXPECT_EQ(c.precision, g.precision) << seed;
         EXPECT_EQ(c.scaled, g.scaled) << seed;
         EXPECT_STREQ(c.reason, g.reason) << seed;
      }
   }
}

} // namespace
