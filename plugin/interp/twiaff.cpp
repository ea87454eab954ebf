// Extended+i interpolation's weights of the F-F block on the host (interp/twiaff.h).
#include "interp/twiaff.h"

#include "common/error.h"

#include <algorithm>
#include <cmath>

namespace amgt {

namespace {

// hypre's search of row j for column `target`: chunks of `chunk` entries from the row's
// start, the last match within the first chunk that holds one; -1 without a match.
template <class J, class T>
int32_t find_in_row(const int32_t* ip, const J* jj, int32_t j, T target, int chunk)
{
   const int32_t kb = ip[j], ke = ip[j + 1];
   int32_t       match = -1;
   for (int32_t c = kb; c < ke && match < 0; c += chunk)
   {
      const int32_t ce = std::min(ke, c + chunk);
      for (int32_t q = c; q < ce; ++q)
      {
         if (static_cast<int64_t>(jj[q]) == static_cast<int64_t>(target)) match = q;
      }
   }
   return match;
}

// One entry (i, j) of either block: its weight into *a and its term of theta_i, hypre's way;
// on_zero is what hypre adds when rsj == 0 (the old value, or zero in the off-diagonal block)
double weigh(double old, double vji, double rsj, double on_zero, double* a, double theta)
{
   if (rsj != 0.0)
   {
      *a = old / rsj;
      return std::fma(vji, *a, theta);
   }
   *a = 0.0;
   return theta + on_zero;
}

template <class BigJ>
void rows_ref(const TwiaffRows& m, int chunk)
{
   const BigJ* ext_j = static_cast<const BigJ*>(m.ext_j);
   for (int32_t row = 0; row < m.nrows; ++row)
   {
      double        theta = 0.0;
      const int32_t db = m.diag_i[row], de = m.diag_i[row + 1];
      for (int32_t k = db; k < de; ++k)
      {
         const int32_t j = m.diag_j[k];
         if (j == row)
         {
            m.diag_a[k] = 1.0;
            continue;
         }
         const int32_t q   = find_in_row(m.diag_i, m.diag_j, j, row, chunk);
         const double  vji = q >= 0 ? m.diag_old[q] : 0.0;
         theta = weigh(m.diag_old[k], vji, m.rsFC[j] + vji, m.diag_old[k], &m.diag_a[k], theta);
      }
      const int32_t ob = m.offd_nnz > 0 ? m.offd_i[row] : 0, oe = m.offd_nnz > 0 ? m.offd_i[row + 1] : 0;
      for (int32_t k = ob; k < oe; ++k)
      {
         const int32_t j   = m.offd_j[k];
         const int32_t q   = find_in_row(m.ext_i, ext_j, j, m.first_index + row, chunk);
         const double  vji = q >= 0 ? m.ext_a[q] : 0.0;
         // rsj == 0: hypre adds back the entry it has just set to zero
         theta = weigh(m.offd_a[k], vji, m.rsFC_offd[j] + vji, 0.0, &m.offd_a[k], theta);
      }
      theta = theta + m.rsW[row];
      theta = theta != 0.0 ? -1.0 / theta : -1.0;
      for (int32_t k = db; k < de; ++k) m.diag_a[k] *= theta;
      for (int32_t k = ob; k < oe; ++k) m.offd_a[k] *= theta;
   }
}

} // namespace

void check_twiaff_rows(const TwiaffRows& m, int search_chunk)
{
   AMGT_REQUIRE(m.nrows >= 0, "twiaff: negative row count");
   AMGT_REQUIRE(m.diag_nnz >= 0 && m.offd_nnz >= 0, "twiaff: a negative entry count");
   AMGT_REQUIRE(search_chunk >= 1 && search_chunk <= 64 && (search_chunk & (search_chunk - 1)) == 0,
                "twiaff: the search chunk is a power of two up to 64");
   if (m.nrows == 0) return;
   AMGT_REQUIRE(m.diag_i && m.offd_i && m.rsW, "twiaff: a row pointer or rsW is null");
   AMGT_REQUIRE(m.diag_j && m.diag_a && m.diag_old && m.rsFC, "twiaff: an array of the diagonal block is null");
   AMGT_REQUIRE(m.offd_nnz == 0 || (m.offd_j && m.offd_a && m.ext_i && m.ext_j && m.ext_a && m.rsFC_offd),
                "twiaff: an off-diagonal block without its arrays, its ext rows or rsFC_offd");
}

void twiaff_ref(const TwiaffRows& m, int search_chunk)
{
   check_twiaff_rows(m, search_chunk);
   if (m.nrows == 0) return;
   if (m.ext_j_64) rows_ref<int64_t>(m, search_chunk);
   else rows_ref<int32_t>(m, search_chunk);
}

} // namespace amgt
