// The CPU reference of the truncation's copy pass (interp/truncation.h): each row's first
// entries moved to the compacted arrays, both blocks, empty rows and an empty block; a new row
// longer than its old one and bad input refused.
#include "interp/truncation.h"

#include "common/error.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using amgt::TruncCopy;

struct Blocks
{
   std::vector<int32_t> di{0, 3, 3, 7}, dj{5, 1, 9, 3, 0, 2, 4};
   std::vector<double>  da{0.5, 0.25, 9.0, 7.0, 1.0, 2.0, 3.0};
   std::vector<int32_t> oi{0, 1, 1, 1}, oj{4};
   std::vector<double>  oa{-1.0};
   // kept: 2 of row 0, 0 of row 1, 3 of row 2; the off-diagonal block's one entry
   std::vector<int32_t> di_new{0, 2, 2, 5}, oi_new{0, 1, 1, 1};
   std::vector<int32_t> dj_new = std::vector<int32_t>(5, -7), oj_new = std::vector<int32_t>(1, -7);
   std::vector<double>  da_new = std::vector<double>(5, -7.0), oa_new = std::vector<double>(1, -7.0);

   TruncCopy view()
   {
      TruncCopy m{};
      m.nrows      = 3;
      m.nnz_new    = 6;
      m.diag_i     = di.data();
      m.diag_j     = dj.data();
      m.diag_a     = da.data();
      m.offd_i     = oi.data();
      m.offd_j     = oj.data();
      m.offd_a     = oa.data();
      m.diag_i_new = di_new.data();
      m.diag_j_new = dj_new.data();
      m.diag_a_new = da_new.data();
      m.offd_i_new = oi_new.data();
      m.offd_j_new = oj_new.data();
      m.offd_a_new = oa_new.data();
      return m;
   }
};

TEST(Truncation, CopiesEachRowsFirstEntries)
{
   Blocks b;
   amgt::trunc_copy_ref(b.view());
   EXPECT_EQ(b.dj_new, (std::vector<int32_t>{5, 1, 3, 0, 2}));
   EXPECT_EQ(b.da_new, (std::vector<double>{0.5, 0.25, 7.0, 1.0, 2.0}));
   EXPECT_EQ(b.oj_new, (std::vector<int32_t>{4}));
   EXPECT_EQ(b.oa_new, (std::vector<double>{-1.0}));
}

TEST(Truncation, EmptyOffDiagonalBlock)
{
   Blocks b;
   b.oi     = {0, 0, 0, 0};
   b.oi_new = {0, 0, 0, 0};
   b.oj.clear();
   b.oa.clear();
   TruncCopy m = b.view();
   m.offd_j    = nullptr;
   m.offd_a    = nullptr;
   m.offd_j_new = nullptr;
   m.offd_a_new = nullptr;
   amgt::trunc_copy_ref(m);
   EXPECT_EQ(b.dj_new, (std::vector<int32_t>{5, 1, 3, 0, 2}));
}

TEST(Truncation, BadInputIsRefused)
{
   Blocks b;
   b.di_new    = {0, 4, 4, 7}; // row 0 would keep 4 of its 3
   b.dj_new.resize(7);
   b.da_new.resize(7);
   EXPECT_THROW(amgt::trunc_copy_ref(b.view()), amgt::Error);
   Blocks    c;
   TruncCopy m = c.view();
   m.offd_i_new = nullptr;
   EXPECT_THROW(amgt::trunc_copy_ref(m), amgt::Error);
   m       = c.view();
   m.nrows = -2;
   EXPECT_THROW(amgt::trunc_copy_ref(m), amgt::Error);
   EXPECT_NO_THROW(amgt::trunc_copy_ref(TruncCopy{}));
}

} // namespace
