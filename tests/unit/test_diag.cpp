// The CPU reference of the diagonal passes (csr/diag.h): hypre's five extraction types on a
// small block with a zero diagonal, a missing one, a repeated one and an empty row; the move of
// each row's diagonal to its front; bad input refused.
#include "csr/diag.h"

#include "common/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using amgt::CsrDiag;

// rows: 0 diagonal first (4), 1 diagonal last (-9), 2 zero diagonal, 3 no diagonal, 4 empty,
// 5 the diagonal twice, after another entry (2, then 7)
struct Block
{
   std::vector<int32_t> ia{0, 3, 6, 8, 10, 10, 13};
   std::vector<int32_t> ja{0, 2, 5, 0, 3, 1, 2, 4, 0, 1, 1, 5, 5};
   std::vector<double>  a{4.0, 1.0, 2.0, 3.0, 5.0, -9.0, 0.0, 6.0, 1.0, 1.0, 8.0, 2.0, 7.0};
   std::vector<double>  d = std::vector<double>(6, -1.0);

   CsrDiag view(int32_t op)
   {
      CsrDiag m{};
      m.nrows = 6;
      m.nnz   = static_cast<int64_t>(ja.size());
      m.ia    = ia.data();
      m.ja    = ja.data();
      m.a     = a.data();
      m.op    = op;
      m.d     = op == amgt::kCsrDiagMoveFirst ? nullptr : d.data();
      return m;
   }
};

TEST(CsrDiag, ExtractsHypresFiveTypes)
{
   const double expected[5][6] = {
       {4.0, -9.0, 0.0, 0.0, 0.0, 2.0},
       {4.0, 9.0, 0.0, 0.0, 0.0, 2.0},
       {0.25, -1.0 / 9.0, 0.0, 0.0, 0.0, 0.5},
       {0.5, 0.0, 0.0, 0.0, 0.0, 1.0 / std::sqrt(2.0)}, // 1/sqrt(-9) is NaN: checked apart
       {0.5, 1.0 / 3.0, 0.0, 0.0, 0.0, 1.0 / std::sqrt(2.0)},
   };
   for (int32_t op = 0; op < 5; ++op)
   {
      SCOPED_TRACE(op);
      Block b;
      amgt::csr_diag_ref(b.view(op));
      for (int row = 0; row < 6; ++row)
      {
         if (op == 3 && row == 1)
         {
            EXPECT_TRUE(std::isnan(b.d[1])) << "hypre's 1/sqrt of a negative diagonal";
            continue;
         }
         EXPECT_EQ(b.d[static_cast<size_t>(row)], expected[op][row]) << "row " << row;
      }
      // nothing else written
      EXPECT_EQ(b.ja, Block{}.ja);
      EXPECT_EQ(b.a, Block{}.a);
   }
}

TEST(CsrDiag, MovesEachRowsDiagonalFirst)
{
   Block b;
   amgt::csr_diag_ref(b.view(amgt::kCsrDiagMoveFirst));
   const std::vector<int32_t> ja{0, 2, 5, 1, 3, 0, 2, 4, 0, 1, 5, 1, 5};
   const std::vector<double>  a{4.0, 1.0, 2.0, -9.0, 5.0, 3.0, 0.0, 6.0, 1.0, 1.0, 2.0, 8.0, 7.0};
   EXPECT_EQ(b.ja, ja) << "rows 1 and 5 swap their (first) diagonal with their first entry; the others stay";
   EXPECT_EQ(b.a, a);
   EXPECT_EQ(b.d, std::vector<double>(6, -1.0)) << "no output array";
   // a second pass changes nothing
   amgt::csr_diag_ref(b.view(amgt::kCsrDiagMoveFirst));
   EXPECT_EQ(b.ja, ja);
}

TEST(CsrDiag, EmptyBlocks)
{
   CsrDiag m{};
   m.op = 0;
   EXPECT_NO_THROW(amgt::csr_diag_ref(m)) << "no rows";
   std::vector<int32_t> ia{0, 0, 0};
   std::vector<double>  d{5.0, 5.0};
   m.nrows = 2;
   m.ia    = ia.data();
   m.d     = d.data();
   amgt::csr_diag_ref(m);
   EXPECT_EQ(d, std::vector<double>(2, 0.0)) << "rows without entries have no diagonal";
}

TEST(CsrDiag, BadInputIsRefused)
{
   Block b;
   CsrDiag m = b.view(0);
   m.op      = 6;
   EXPECT_THROW(amgt::check_csr_diag(m), amgt::Error);
   m    = b.view(0);
   m.d  = nullptr;
   EXPECT_THROW(amgt::check_csr_diag(m), amgt::Error);
   m    = b.view(amgt::kCsrDiagMoveFirst);
   m.ja = nullptr;
   EXPECT_THROW(amgt::check_csr_diag(m), amgt::Error);
   m       = b.view(1);
   m.nrows = -1;
   EXPECT_THROW(amgt::check_csr_diag(m), amgt::Error);
   m    = b.view(1);
   m.ia = nullptr;
   EXPECT_THROW(amgt::check_csr_diag(m), amgt::Error);
}

} // namespace
