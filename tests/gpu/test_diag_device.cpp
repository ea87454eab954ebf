// The diagonal passes on the GPU (csr/diag_device.h) against the CPU reference (csr/diag.h):
// equal bit for bit, in the five extraction types and the move, on random rows of 0-120 entries
// (every group width) with the diagonal first, elsewhere, missing, zero or repeated; empty
// blocks; bad input refused.
#include "gpu_test_util.h"

#include "common/error.h"
#include "csr/diag.h"
#include "csr/diag_device.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace {

using namespace amgt;
using namespace amgt::test::gpu;

struct Block
{
   std::vector<int32_t> ia{0}, ja;
   std::vector<double>  a;
};

// where: 0 diagonal first in every row that has one, 1 anywhere; rows miss it 1 in 8 times,
// hold it twice 1 in 16, hold 0 as its value 1 in 16; values of both signs
Block make_block(int32_t nrows, int32_t max_len, int where, std::mt19937& gen)
{
   Block b;
   for (int32_t r = 0; r < nrows; ++r)
   {
      const int32_t len = static_cast<int32_t>(gen() % static_cast<unsigned>(max_len + 1));
      std::vector<int32_t> cols;
      for (int32_t k = 0; k < len; ++k)
      {
         int32_t c = static_cast<int32_t>(gen() % static_cast<unsigned>(nrows));
         if (c == r) c = (c + 1) % nrows;
         cols.push_back(c);
      }
      if (len > 0 && gen() % 8 != 0)
      {
         const size_t at = where == 0 ? 0 : gen() % cols.size();
         cols[at]        = r;
         if (cols.size() > 1 && gen() % 16 == 0) cols[(at + 1 + gen() % (cols.size() - 1)) % cols.size()] = r;
      }
      for (int32_t c : cols)
      {
         b.ja.push_back(c);
         const bool zero = c == r && gen() % 16 == 0;
         b.a.push_back(zero ? 0.0 : (static_cast<double>(gen() % 20001) - 10000.0) / 37.0);
      }
      b.ia.push_back(static_cast<int32_t>(b.ja.size()));
   }
   return b;
}

// bit for bit, but any NaN equals any NaN (1/sqrt of a negative diagonal, type 3: the host's and
// the device's NaN need not share a sign or payload)
bool same_bits(const std::vector<double>& x, const std::vector<double>& y)
{
   if (x.size() != y.size()) return false;
   for (size_t k = 0; k < x.size(); ++k)
   {
      if (std::isnan(x[k]) && std::isnan(y[k])) continue;
      if (std::memcmp(&x[k], &y[k], sizeof(double)) != 0) return false;
   }
   return true;
}

class CsrDiagDevice : public GpuStreamTest
{
protected:
   void check(const Block& b, int32_t op)
   {
      const int32_t nrows = static_cast<int32_t>(b.ia.size()) - 1;
      Block         want  = b;
      std::vector<double> want_d(static_cast<size_t>(nrows), -3.5);
      CsrDiag h{};
      h.nrows = nrows;
      h.nnz   = static_cast<int64_t>(b.ja.size());
      h.ia    = want.ia.data();
      h.ja    = want.ja.data();
      h.a     = want.a.data();
      h.op    = op;
      h.d     = op == kCsrDiagMoveFirst ? nullptr : want_d.data();
      csr_diag_ref(h);

      DeviceArray<int32_t> ia(b.ia), ja(b.ja.empty() ? std::vector<int32_t>{0} : b.ja);
      DeviceArray<double>  a(b.a.empty() ? std::vector<double>{0.0} : b.a);
      DeviceArray<double>  d(std::vector<double>(static_cast<size_t>(nrows) + 1, -3.5));
      CsrDiag m = h;
      m.ia      = ia.get();
      m.ja      = ja.get();
      m.a       = a.get();
      m.d       = op == kCsrDiagMoveFirst ? nullptr : d.get();
      device::csr_diag(m, stream_);
      ASSERT_NO_THROW(device::synchronize(stream_));
      std::vector<double> got_d = d.to_host();
      EXPECT_EQ(got_d.back(), -3.5) << "nothing written past the rows";
      got_d.pop_back();
      if (op == kCsrDiagMoveFirst)
      {
         EXPECT_EQ(got_d, std::vector<double>(static_cast<size_t>(nrows), -3.5)) << "the move writes no d";
         std::vector<int32_t> got_ja = ja.to_host();
         std::vector<double>  got_a  = a.to_host();
         got_ja.resize(b.ja.size());
         got_a.resize(b.a.size());
         EXPECT_EQ(got_ja, want.ja);
         EXPECT_TRUE(same_bits(got_a, want.a));
      }
      else
      {
         EXPECT_TRUE(same_bits(got_d, want_d)) << "op " << op;
         std::vector<int32_t> got_ja = ja.to_host();
         got_ja.resize(b.ja.size());
         EXPECT_EQ(got_ja, b.ja) << "the extraction writes no column";
      }
   }
};

TEST_F(CsrDiagDevice, EqualsTheReferenceExactly)
{
   for (unsigned seed = 1; seed <= 16; ++seed)
   {
      std::mt19937  gen(seed);
      const int32_t nrows   = 40 + static_cast<int32_t>(seed * 613 % 9000);
      const int32_t max_len = 1 + static_cast<int32_t>(seed * 13 % 120); // means of 1-60: every group width
      for (int where = 0; where < 2; ++where)
      {
         const Block b = make_block(nrows, max_len, where, gen);
         for (int32_t op = 0; op <= kCsrDiagMoveFirst; ++op)
         {
            SCOPED_TRACE("seed " + std::to_string(seed) + " where " + std::to_string(where) + " op " + std::to_string(op));
            check(b, op);
            if (HasFailure()) return;
         }
      }
   }
}

TEST_F(CsrDiagDevice, RowsWithoutEntriesAndABlockWithout)
{
   Block b;
   b.ia = {0, 0, 0, 0};
   for (int32_t op = 0; op <= kCsrDiagMoveFirst; ++op) check(b, op);
   std::mt19937 gen(7);
   Block        c = make_block(300, 3, 1, gen); // many empty rows and rows of 1-3
   for (int32_t op = 0; op <= kCsrDiagMoveFirst; ++op) check(c, op);
}

TEST_F(CsrDiagDevice, BadInputRefusedBeforeAnyLaunch)
{
   CsrDiag m{};
   m.nrows = 10;
   EXPECT_THROW(device::csr_diag(m, stream_), Error);
   m       = CsrDiag{};
   m.op    = 9;
   EXPECT_THROW(device::csr_diag(m, stream_), Error);
   EXPECT_NO_THROW(device::csr_diag(CsrDiag{}, stream_));
   EXPECT_NO_THROW(device::synchronize(stream_));
}

} // namespace
