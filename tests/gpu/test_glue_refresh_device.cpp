// AMGT_RESETUP through the glue's C API on device arrays, as a re-setup drives it: a matrix's
// values change in place (hypre's IJ assembly invalidates its state), a new setup carries the
// state (amgt_glue_matrix_carry, values changed) and prepares it again. The SpMV of the carried
// copy must equal, bit for bit, the SpMV of a copy made afresh from the new values (whatever
// layout and precision AMGT=auto chose for the level), and differ from the old values'; most
// copies are refreshed in place (AMGT_STATS counts them). A copy carried with its values
// unchanged (P, R) is not converted again and serves the same products.
// A GPU test that finds no GPU fails: it never passes by skipping.
#include "amgt_glue.h"
#include "common/amg_products.h"
#include "common/random_matrix.h"
#include "device/runtime.h"
#include "glue/glue_test_util.h"

#include "gpu_test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

namespace {

using namespace amgt;
using namespace amgt::test;
using namespace amgt::test::gpu;
namespace dev = amgt::device;

const bool g_environment_set = [] {
   setenv("AMGT", "auto", 1);
   setenv("AMGT_RESETUP", "galerkin", 1);
   setenv("AMGT_STATS", "1", 1);
   setenv("AMGT_PRELOAD", "0", 1);
   unsetenv("AMGT_LEVELS");
   unsetenv("AMGT_LAYOUT");
   return true;
}();

void* device_or_host_alloc(size_t bytes, int on_device)
{
   if (!on_device) return std::malloc(bytes);
   void* p = nullptr;
   return dev::device_malloc(&p, bytes) == dev::kSuccess ? p : nullptr;
}

void device_or_host_release(void* p, int on_device)
{
   if (!on_device) std::free(p);
   else (void)dev::device_free(p);
}

class GlueRefreshDevice : public GpuTest
{
protected:
   void SetUp() override
   {
      GpuTest::SetUp();
      amgt_allocator a{device_or_host_alloc, device_or_host_release, nullptr, nullptr, 0};
      amgt_glue_set_allocator(&a);
   }
};

// One number out of the AMGT_STATS table ("device copies kept N, of them M with values refreshed").
long stats_count(const std::string& table, int group)
{
   std::smatch m;
   static const std::regex re("device copies kept ([0-9]+), of them ([0-9]+) with values refreshed");
   return std::regex_search(table, m, re) ? std::stol(m[group].str()) : 0;
}

amgt_csr device_view(const DeviceCsr& d)
{
   return amgt_csr{d.view.nrows, d.view.ncols, d.view.nnz, d.view.row_ptr, d.view.col, d.view.val, 1, nullptr};
}

// y = A x through the glue inside a V-cycle (lower-precision copies serve only there); returns
// false when the glue left the product to hypre.
bool glue_spmv(void** slot, const amgt_csr& a, const std::vector<double>& x, std::vector<double>& y)
{
   DeviceArray<double> dx(x), dy(static_cast<size_t>(a.nrows));
   amgt_glue_cycle_begin(0);
   const int done = amgt_glue_spmv(slot, &a, 1.0, dx.get(), 0.0, dy.get());
   amgt_glue_cycle_end();
   EXPECT_EQ(dev::device_synchronize(), dev::kSuccess);
   y = dy.to_host();
   return done == 1;
}

void prepare(void** slot, const amgt_csr& a, int level)
{
   amgt_glue_matrix_tag(slot, level, AMGT_ROLE_A);
   amgt_glue_matrix_prepare(slot, &a);
}

TEST_F(GlueRefreshDevice, ACarriedCopyServesTheNewValuesLikeAFreshOne)
{
   long refreshed_before = stats_count(stats_table(), 2);
   int  cases            = 0;
   for (const CsrMatrix& old_a : {stencil_3d(40, 40, 40, 7, Fill::random, 3), stencil_3d(24, 24, 24, 27, Fill::random, 4)})
   {
      CsrMatrix new_a = old_a;
      for (size_t k = 0; k < new_a.val.size(); ++k) new_a.val[k] *= 1.0 + 0.25 * static_cast<double>(k % 7);
      const std::vector<double> x = random_vector(old_a.ncols, Fill::random, 17);
      for (int level : {0, 1, 2})
      {
         SCOPED_TRACE("level " + std::to_string(level) + ", " + std::to_string(old_a.col.size() / old_a.nrows) +
                      " a row");
         DeviceCsr      d(old_a);
         const amgt_csr v = device_view(d);
         void*          kept = nullptr;
         void*          fresh = nullptr;
         amgt_glue_setup_begin();
         prepare(&kept, v, level);
         std::vector<double> y_old, y_kept, y_fresh;
         ASSERT_TRUE(glue_spmv(&kept, v, x, y_old));

         ASSERT_EQ(dev::memcpy_blocking(d.val.get(), new_a.val.data(), new_a.val.size() * sizeof(double),
                                        dev::Copy::to_device),
                   dev::kSuccess);
         ASSERT_EQ(dev::device_synchronize(), dev::kSuccess);
         amgt_glue_matrix_invalidate(kept); // what hypre's IJ assembly does
         amgt_glue_setup_begin();
         amgt_glue_matrix_carry(&kept, &v, 1);
         prepare(&kept, v, level);
         ASSERT_TRUE(glue_spmv(&kept, v, x, y_kept));
         prepare(&fresh, v, level);
         ASSERT_TRUE(glue_spmv(&fresh, v, x, y_fresh));
         ASSERT_EQ(y_kept.size(), y_fresh.size());
         EXPECT_EQ(0, std::memcmp(y_kept.data(), y_fresh.data(), y_kept.size() * sizeof(double)));
         EXPECT_NE(0, std::memcmp(y_kept.data(), y_old.data(), y_kept.size() * sizeof(double)));
         amgt_glue_matrix_release(kept);
         amgt_glue_matrix_release(fresh);
         ++cases;
      }
   }
   const std::string table = stats_table();
   const long        refreshed = stats_count(table, 2) - refreshed_before;
   // the row-wise and entry-order copies (most of AMGT=auto's) are refreshed in place
   EXPECT_GE(refreshed, cases / 2) << table;
   EXPECT_LE(refreshed, cases) << table;
}

TEST_F(GlueRefreshDevice, ACopyCarriedWithItsValuesIsNotConvertedAgain)
{
   const CsrMatrix a = stencil_3d(40, 40, 40, 7, Fill::random, 5);
   const std::vector<double> x = random_vector(a.ncols, Fill::random, 19);
   DeviceCsr       d(a);
   const amgt_csr  v    = device_view(d);
   void*           kept = nullptr;
   amgt_glue_setup_begin();
   prepare(&kept, v, 1);
   std::vector<double> y0, y1;
   ASSERT_TRUE(glue_spmv(&kept, v, x, y0));
   const std::string before = stats_table();
   const long        kept_before = stats_count(before, 1), refreshed_before = stats_count(before, 2);
   amgt_glue_setup_begin();
   amgt_glue_matrix_carry(&kept, &v, 0);
   prepare(&kept, v, 1);
   ASSERT_TRUE(glue_spmv(&kept, v, x, y1));
   EXPECT_EQ(0, std::memcmp(y0.data(), y1.data(), y0.size() * sizeof(double)));
   const std::string after = stats_table();
   EXPECT_EQ(stats_count(after, 1), kept_before + 1) << after;
   EXPECT_EQ(stats_count(after, 2), refreshed_before) << after;
   // arrays it was not made from: nothing carried
   DeviceCsr      other(a);
   const amgt_csr w = device_view(other);
   amgt_glue_setup_begin();
   amgt_glue_matrix_carry(&kept, &w, 0);
   EXPECT_EQ(stats_count(stats_table(), 1), kept_before + 1);
   amgt_glue_matrix_release(kept);
}

} // namespace
