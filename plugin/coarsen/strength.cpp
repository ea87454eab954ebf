// The counting pass of BoomerAMG's strength of connection on the host (coarsen/strength.h):
// hypre's warp emulated lane by lane, so that the sums meet in hypre's order.
#include "coarsen/strength.h"

#include "common/error.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace amgt {

namespace {

// hypre's macros (NaN-sensitive in this order) and CUDA's min/max of its reductions (fmin/fmax)
double hypre_max(double a, double b) { return a < b ? b : a; }
double hypre_min(double a, double b) { return a < b ? a : b; }

// hypre's warp_allreduce_sum: lane L adds lane L ^ d, d = W/2 .. 1
double butterfly_sum(std::vector<double> v)
{
   const size_t w = v.size();
   std::vector<double> next(w);
   for (size_t d = w / 2; d > 0; d >>= 1)
   {
      for (size_t l = 0; l < w; ++l) next[l] = v[l] + v[l ^ d];
      v.swap(next);
   }
   return v[0];
}

} // namespace

void check_strength_rows(const StrengthRows& m, int search_chunk)
{
   AMGT_REQUIRE(m.nrows >= 0, "strength: negative row count");
   AMGT_REQUIRE(m.diag_nnz >= 0 && m.offd_nnz >= 0, "strength: a negative entry count");
   AMGT_REQUIRE(search_chunk >= 1 && search_chunk <= 64 && (search_chunk & (search_chunk - 1)) == 0,
                "strength: the warp width is a power of two up to 64");
   if (m.nrows == 0) return;
   AMGT_REQUIRE(m.diag_i && m.offd_i && m.js_diag && m.js_offd, "strength: a row pointer or a count array is null");
   AMGT_REQUIRE(m.diag_nnz == 0 || (m.diag_j && m.diag_a && m.s_diag_j), "strength: an array of the diagonal block is null");
   AMGT_REQUIRE(m.offd_nnz == 0 || (m.offd_j && m.offd_a && m.s_offd_j),
                "strength: an array of the off-diagonal block is null");
   AMGT_REQUIRE(m.num_functions >= 1, "strength: num_functions < 1");
   AMGT_REQUIRE(m.num_functions == 1 || (m.dof_func && (m.offd_nnz == 0 || m.dof_func_offd)),
                "strength: several functions without dof_func");
}

void strength_rowcount_ref(const StrengthRows& m, int w)
{
   check_strength_rows(m, w);
   std::vector<double>  sum(static_cast<size_t>(w)), dg(static_cast<size_t>(w));
   std::vector<int64_t> diag_pos(static_cast<size_t>(w));
   for (int32_t row = 0; row < m.nrows; ++row)
   {
      const bool    one  = m.num_functions == 1;
      const int32_t fn   = one ? 0 : m.dof_func[row];
      const int32_t pd = m.diag_i[row], qd = m.diag_nnz > 0 ? m.diag_i[row + 1] : pd;
      const int32_t po = m.offd_nnz > 0 ? m.offd_i[row] : 0, qo = m.offd_nnz > 0 ? m.offd_i[row + 1] : 0;
      double        row_max = 0.0, row_min = 0.0; // after each lane's own and the reductions
      bool          first = true;
      for (int l = 0; l < w; ++l)
      {
         double  s = 0.0, d = 0.0, mx = 0.0, mn = 0.0;
         int64_t dp = -1;
         for (int32_t k = pd + l; k < qd; k += w)
         {
            const int32_t col = m.diag_j[k];
            if (!(one || row == col || fn == m.dof_func[col])) continue;
            const double v = m.diag_a[k];
            s += v;
            if (row == col)
            {
               d  = v;
               dp = k;
            }
            else
            {
               mx = hypre_max(mx, v);
               mn = hypre_min(mn, v);
            }
         }
         for (int32_t k = po + l; k < qo; k += w)
         {
            if (!(one || fn == m.dof_func_offd[m.offd_j[k]])) continue;
            const double v = m.offd_a[k];
            s += v;
            mx = hypre_max(mx, v);
            mn = hypre_min(mn, v);
         }
         sum[static_cast<size_t>(l)]      = s;
         dg[static_cast<size_t>(l)]       = d;
         diag_pos[static_cast<size_t>(l)] = dp;
         // fmax/fmin: exact and order-free (a NaN lane drops out, as in CUDA's max/min)
         row_max = first ? mx : std::fmax(row_max, mx);
         row_min = first ? mn : std::fmin(row_min, mn);
         first   = false;
      }
      const double diag      = butterfly_sum(dg);
      const double row_sum   = butterfly_sum(sum);
      const int    sdiag     = diag > 0.0 ? 1 : -1;
      const double row_scale = diag > 0.0 ? row_min : row_max;
      const bool   all_weak  = m.max_row_sum < 1.0 && std::fabs(row_sum) > std::fabs(diag) * m.max_row_sum;
      const double thresh    = sdiag * m.strength_threshold * row_scale;
      int32_t      nd = 0, no = 0;
      for (int l = 0; l < w; ++l)
      {
         for (int32_t k = pd + l; k < qd; k += w)
         {
            const int32_t col  = m.diag_j[k];
            const bool    cond = !all_weak && diag_pos[static_cast<size_t>(l)] != k &&
                              (one || fn == m.dof_func[col]) && sdiag * m.diag_a[k] < thresh;
            m.s_diag_j[k] = cond ? col : -1;
            nd += cond;
         }
         if (diag_pos[static_cast<size_t>(l)] >= 0) m.s_diag_j[diag_pos[static_cast<size_t>(l)]] = -2;
         for (int32_t k = po + l; k < qo; k += w)
         {
            const bool cond = !all_weak && (one || fn == m.dof_func_offd[m.offd_j[k]]) && sdiag * m.offd_a[k] < thresh;
            m.s_offd_j[k] = cond ? m.offd_j[k] : -1;
            no += cond;
         }
      }
      m.js_diag[row] = nd;
      m.js_offd[row] = no;
   }
}

} // namespace amgt
