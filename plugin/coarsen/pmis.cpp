// The per-sweep kernels of hypre's PMIS coarsening on the host (coarsen/pmis.h).
#include "coarsen/pmis.h"

#include "common/error.h"

namespace amgt {

void check_pmis_graph(const PmisGraph& g)
{
   AMGT_REQUIRE(g.graph_size >= 0 && g.nrows >= 0 && g.s_diag_nnz >= 0 && g.s_offd_nnz >= 0,
                "pmis: a negative size");
   if (g.graph_size == 0) return;
   AMGT_REQUIRE(g.graph && g.s_diag_i && g.s_offd_i, "pmis: the graph or a row pointer is null");
   AMGT_REQUIRE(g.s_diag_nnz == 0 || g.s_diag_j, "pmis: the diagonal block's columns are null");
   AMGT_REQUIRE(g.s_offd_nnz == 0 || g.s_offd_j, "pmis: the off-diagonal block's columns are null");
}

void indep_set_main_ref(const PmisGraph& g, const double* measure_diag, const double* measure_offd,
                        int32_t* is_diag, int32_t* is_offd, int32_t temp_mark)
{
   check_pmis_graph(g);
   if (g.graph_size == 0) return;
   AMGT_REQUIRE(measure_diag && is_diag && (g.s_offd_nnz == 0 || (measure_offd && is_offd)),
                "pmis: a measure or marker array is null");
   for (int32_t w = 0; w < g.graph_size; ++w)
   {
      const int32_t row  = g.graph[w];
      const double  mrow = measure_diag[row];
      bool          keep = true;
      for (int32_t k = g.s_diag_i[row]; g.s_diag_nnz > 0 && k < g.s_diag_i[row + 1]; ++k)
      {
         const int32_t j = g.s_diag_j[k];
         const double  t = measure_diag[j];
         if (!(t > 1.0)) continue;
         if (mrow > t) is_diag[j] = 0;
         else if (t > mrow) keep = false;
      }
      for (int32_t k = g.s_offd_i[row]; g.s_offd_nnz > 0 && k < g.s_offd_i[row + 1]; ++k)
      {
         const int32_t j = g.s_offd_j[k];
         const double  t = measure_offd[j];
         if (!(t > 1.0)) continue;
         if (mrow > t) is_offd[j] = temp_mark;
         else if (t > mrow) keep = false;
      }
      if (!keep) is_diag[row] = 0;
   }
}

void pmis_update_cf_ref(const PmisGraph& g, double* measure_diag, int32_t* cf_diag, const int32_t* cf_offd)
{
   check_pmis_graph(g);
   if (g.graph_size == 0) return;
   AMGT_REQUIRE(measure_diag && cf_diag && (g.s_offd_nnz == 0 || cf_offd), "pmis: a measure or marker array is null");
   // what each row reads of cf_diag before any row of this pass writes (the device's rows run
   // at once; a write only turns 0 into -1, which a read `> 0` cannot tell apart)
   for (int32_t w = 0; w < g.graph_size; ++w)
   {
      const int32_t row    = g.graph[w];
      const int32_t marker = cf_diag[row];
      if (marker > 0)
      {
         measure_diag[row] = 0.0;
         continue;
      }
      // hypre's lanes start from the row's marker (0 for an undecided row), take -1 at a C
      // point and meet in a minimum; the off-diagonal block is read only while it is 0
      bool c_diag = false, c_offd = false;
      for (int32_t k = g.s_diag_i[row]; !c_diag && g.s_diag_nnz > 0 && k < g.s_diag_i[row + 1]; ++k)
         c_diag = cf_diag[g.s_diag_j[k]] > 0;
      int32_t m = c_diag ? (marker < -1 ? marker : -1) : marker;
      if (m == 0)
      {
         for (int32_t k = g.s_offd_i[row]; !c_offd && g.s_offd_nnz > 0 && k < g.s_offd_i[row + 1]; ++k)
            c_offd = cf_offd[g.s_offd_j[k]] > 0;
         m = c_offd ? -1 : 0;
      }
      if (m == -1)
      {
         cf_diag[row]      = -1; // F_PT
         measure_diag[row] = 0.0;
      }
   }
}

} // namespace amgt
