// Row sums of a CSR block on the host, in hypre's order (csr/row_sums.h).
#include "csr/row_sums.h"

#include "common/error.h"

#include <cmath>
#include <vector>

namespace amgt {

void check_row_sums(const RowSums& m, int search_chunk)
{
   AMGT_REQUIRE(m.nrows >= 0 && m.ncols >= 0 && m.nnz >= 0, "row sums: a negative size");
   AMGT_REQUIRE(search_chunk >= 1 && search_chunk <= 64 && (search_chunk & (search_chunk - 1)) == 0,
                "row sums: the warp width is a power of two up to 64");
   AMGT_REQUIRE(m.type == 0 || m.type == 1, "row sums: type is 0 (sum) or 1 (sum of magnitudes)");
   AMGT_REQUIRE(m.set == 0 || m.set == 1, "row sums: set is 0 (add) or 1 (set)");
   AMGT_REQUIRE((m.cf_i == nullptr) == (m.cf_j == nullptr), "row sums: cf_i and cf_j are both given or neither");
   if (m.nrows == 0) return;
   AMGT_REQUIRE(m.out, "row sums: the output is null");
   AMGT_REQUIRE(m.ncols == 0 || m.ia, "row sums: a block with columns without its row pointers");
   AMGT_REQUIRE(m.ncols == 0 || m.nnz == 0 || (m.ja && m.a), "row sums: a block with entries without its arrays");
}

void row_sums_ref(const RowSums& m, int w)
{
   check_row_sums(m, w);
   std::vector<double> lane(static_cast<size_t>(w));
   for (int32_t row = 0; row < m.nrows; ++row)
   {
      const int32_t p = m.ncols > 0 ? m.ia[row] : 0, q = m.ncols > 0 ? m.ia[row + 1] : 0;
      for (int l = 0; l < w; ++l)
      {
         double s = 0.0;
         for (int32_t k = p + l; k < q; k += w)
         {
            if (m.cf_i && m.cf_i[row] != m.cf_j[m.ja[k]]) continue;
            s += m.type == 1 ? std::fabs(m.a[k]) : m.a[k];
         }
         lane[static_cast<size_t>(l)] = s;
      }
      // the tree: lane L adds lane L + d (lane 0's sum of a butterfly or a shfl_down tree)
      for (int d = w / 2; d > 0; d >>= 1)
         for (int l = 0; l < d; ++l) lane[static_cast<size_t>(l)] += lane[static_cast<size_t>(l + d)];
      const double s = lane[0];
      m.out[row]     = m.set ? m.scal * s : std::fma(m.scal, s, m.out[row]);
   }
}

void check_weak_row_sums(const WeakRowSums& m, int search_chunk)
{
   AMGT_REQUIRE(m.nrows >= 0 && m.nnz >= 0, "weak row sums: a negative size");
   AMGT_REQUIRE(search_chunk >= 1 && search_chunk <= 64 && (search_chunk & (search_chunk - 1)) == 0,
                "weak row sums: the warp width is a power of two up to 64");
   if (m.nrows == 0) return;
   AMGT_REQUIRE(m.cf_marker && m.diag_i && m.rs, "weak row sums: the markers, a row pointer or the output is null");
   AMGT_REQUIRE(m.nnz == 0 || (m.diag_a && m.soc_diag_j), "weak row sums: the diagonal block's arrays are null");
   AMGT_REQUIRE(!m.has_offd || (m.offd_i && m.offd_a && m.soc_offd_j),
                "weak row sums: the off-diagonal block's arrays are null");
}

void weak_row_sums_ref(const WeakRowSums& m, int w)
{
   check_weak_row_sums(m, w);
   std::vector<double> lane(static_cast<size_t>(w));
   for (int32_t row = 0; row < m.nrows; ++row)
   {
      if (m.cf_marker[row] >= m.flag) continue;
      const int32_t pd = m.diag_i[row], qd = m.diag_i[row + 1];
      const int32_t po = m.has_offd ? m.offd_i[row] : 0, qo = m.has_offd ? m.offd_i[row + 1] : 0;
      for (int l = 0; l < w; ++l)
      {
         double s = 0.0;
         for (int32_t k = pd + l; k < qd; k += w) s = std::fma(m.diag_a[k], m.soc_diag_j[k] < 0 ? 1.0 : 0.0, s);
         for (int32_t k = po + l; k < qo; k += w) s = std::fma(m.offd_a[k], m.soc_offd_j[k] < 0 ? 1.0 : 0.0, s);
         lane[static_cast<size_t>(l)] = s;
      }
      for (int d = w / 2; d > 0; d >>= 1)
         for (int l = 0; l < d; ++l) lane[static_cast<size_t>(l)] += lane[static_cast<size_t>(l + d)];
      m.rs[row] = lane[0];
   }
}

} // namespace amgt
