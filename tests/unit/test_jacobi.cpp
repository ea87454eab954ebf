// The CPU reference of the smoother's l1-Jacobi sweep from u = 0 (smooth/jacobi.h): what
// hypre's Relax7 computes with u = 0 (copy f, scale by w, add work ./ l1 to a zero u), on
// hand-checkable values, special values included.
#include "smooth/jacobi.h"

#include "common/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

uint64_t bits(double v)
{
   uint64_t b;
   std::memcpy(&b, &v, sizeof b);
   return b;
}

// hypre's three steps on a zero u, written out as hypre's loops do them
void hypre_steps(double w, const std::vector<double>& f, const std::vector<double>& l1,
                 std::vector<double>& u, std::vector<double>& vtemp)
{
   vtemp = f;                                                  // hypre_ParVectorCopy
   for (double& v : vtemp) v = w * v;                          // hypre_ParVectorScale
   u.assign(f.size(), 0.0);                                    // u is zero
   for (size_t i = 0; i < u.size(); ++i) u[i] += vtemp[i] / l1[i]; // hypre_ParVectorElmdivpy
}

TEST(JacobiFromZero, HandChecked)
{
   const std::vector<double> f{2.0, -6.0, 0.0, 9.0};
   const std::vector<double> l1{4.0, 3.0, 5.0, 0.5};
   std::vector<double>       u(4, 123.0), v(4, 123.0);
   amgt::jacobi_from_zero_ref(4, 0.5, f.data(), l1.data(), u.data(), v.data());
   EXPECT_EQ(v, (std::vector<double>{1.0, -3.0, 0.0, 4.5}));
   EXPECT_EQ(u, (std::vector<double>{0.25, -1.0, 0.0, 9.0}));
}

TEST(JacobiFromZero, EqualsHypresStepsBitForBit)
{
   const double              inf = std::numeric_limits<double>::infinity();
   const std::vector<double> f{1.0 / 3.0, -0.0, 0.0, -7.25e-300, 3.0e300, 1.0, -1.0, 0.1, inf};
   const std::vector<double> l1{3.0, 2.0, -2.0, 1.0e10, 1.0e-10, 0.0, -0.0, 0.7, 2.0};
   for (double w : {1.0, 2.0 / 3.0, 0.9})
   {
      std::vector<double> u(f.size(), -1.0), v(f.size(), -1.0), hu, hv;
      amgt::jacobi_from_zero_ref(static_cast<int64_t>(f.size()), w, f.data(), l1.data(), u.data(), v.data());
      hypre_steps(w, f, l1, hu, hv);
      for (size_t i = 0; i < f.size(); ++i)
      {
         EXPECT_EQ(bits(v[i]), bits(hv[i])) << "vtemp " << i << " w " << w;
         EXPECT_EQ(bits(u[i]), bits(hu[i])) << "u " << i << " w " << w;
      }
   }
   // -0 over a positive l1: hypre's u = 0 + (-0) is +0, not -0
   std::vector<double> u(1), v(1);
   const double        mz = -0.0, one = 1.0;
   amgt::jacobi_from_zero_ref(1, 1.0, &mz, &one, u.data(), v.data());
   EXPECT_FALSE(std::signbit(u[0]));
   EXPECT_TRUE(std::signbit(v[0]));
}

TEST(JacobiFromZero, EmptyAndNullInputs)
{
   EXPECT_NO_THROW(amgt::jacobi_from_zero_ref(0, 1.0, nullptr, nullptr, nullptr, nullptr));
   double a = 1.0, b = 1.0, c = 0.0;
   EXPECT_THROW(amgt::jacobi_from_zero_ref(1, 1.0, &a, &b, &c, nullptr), amgt::Error);
   EXPECT_THROW(amgt::jacobi_from_zero_ref(1, 1.0, nullptr, &b, &c, &a), amgt::Error);
   EXPECT_THROW(amgt::jacobi_from_zero_ref(-1, 1.0, &a, &b, &c, &a), amgt::Error);
}

} // namespace
