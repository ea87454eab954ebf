#include "bench.h"

#include "hypre_bridge.h"

#include <cstdio>
#include <limits>

namespace amgt::kbench {

void guard_context(const std::string& where)
{
   const dev::Status e = dev::device_synchronize();
   if (e != dev::kSuccess)
   {
      if (is_sticky(e))
      {
         throw FatalError(where + ": the " + dev::kRuntimeName + " context is unusable (" + dev::error_name(e) + ")");
      }
      (void)dev::last_error();
   }
}

dev::Allocator plugin_allocator()
{
   dev::Allocator a;
   a.alloc   = [](size_t bytes, void*) { return dev_alloc_nothrow(bytes); };
   a.release = [](void* p, void*) { dev_free(p); };
   return a;
}

amgt::CsrView plugin_view(const DeviceCsr& a)
{
   if (a.nnz > std::numeric_limits<int32_t>::max()) throw BenchError("more than 2^31-1 nonzeros");
   return amgt::CsrView{a.nrows, a.ncols, static_cast<int32_t>(a.nnz), a.row_ptr.get(), a.col.get(),
                        a.val.get()};
}

LayoutPick layout_pick(const amgt::CsrView& a, Precision p, const dev::Allocator& alloc)
{
   LayoutPick lp;
   lp.sample        = dev::estimate_fill(a, kStream, alloc);
   lp.in.precision  = p;
   lp.in.fill       = lp.sample.fill();
   lp.in.row_length = a.nrows > 0 ? static_cast<double>(a.nnz) / static_cast<double>(a.nrows) : 0.0;
   lp.in.narrow     = lp.sample.max_span <= kNarrowSpan;
   if (layout_needs_exact_span(lp.in)) lp.in.narrow = dev::max_span(a, kStream, alloc) <= kNarrowSpan;
   return lp;
}

void Bench::report_problem(const char* section, const std::string& what, const char* impl, const Meas& m)
{
   if (m.status == Status::fail || m.status == Status::error)
   {
      std::printf("%s %s %s %s: %s\n", to_string(m.status), section, what.c_str(), impl, m.note.c_str());
      std::fflush(stdout);
   }
}

void Bench::time_interleaved(std::vector<Timed>& ts, const char* where)
{
   auto one = [&](Timed& t, bool keep) {
      if (t.failed) return;
      try
      {
         const double v = t.sample();
         if (keep) t.ms.push_back(v);
      }
      catch (const FatalError&)
      {
         throw;
      }
      catch (const std::exception& e)
      {
         t.failed = true;
         if (t.meas)
         {
            t.meas->status = Status::error;
            t.meas->note   = std::string("while timing: ") + e.what();
         }
         std::fprintf(stderr, "  timing %s failed: %s\n", t.name.c_str(), e.what());
         guard_context(where);
      }
   };
   for (int w = 0; w < opt.warmup; ++w)
      for (Timed& t : ts) one(t, false);
   for (int s = 0; s < opt.repeat; ++s)
      for (Timed& t : ts) one(t, true);
   check_device(where);
   for (Timed& t : ts)
   {
      if (t.failed) continue;
      const Stats st = summarize(t.ms);
      if (t.meas) t.meas->t = st;
      if (t.stats) *t.stats = st;
   }
}

void Bench::fine_level(const Input& in)
{
   attempt("fine level of " + in.name, [&] {
      const DeviceCsr dA = upload(in.A);
      if (opt.spmv) attempt("spmv " + in.name + " A", [&] { measure_spmv(in.name, "fine", -1, "A", in.A, dA); });
      if (opt.spgemm && in.A.nrows == in.A.ncols)
      {
         attempt("spgemm " + in.name + " A*A", [&] { measure_spgemm(in.name, "fine", -1, "A*A", dA, dA); });
      }
   });
}

void Bench::setup_levels(const Input& in)
{
   std::fprintf(stderr, "[setup]  %s: BoomerAMG setup (stock hypre, GPU)\n", in.name.c_str());
   hyp::Hierarchy h = hyp::amg_hierarchy(in.A, in.num_functions, opt.sorted_hierarchy);
   std::printf("AMG hierarchy of %s (stock hypre setup %.3f s, %zu levels, %s):", in.name.c_str(), h.setup_seconds,
               h.A.size(), opt.sorted_hierarchy ? "rows sorted" : "rows in hypre's order");
   for (size_t l = 0; l < h.A.size(); ++l)
   {
      std::printf(" L%zu %d rows/%lld nnz%s", l, h.A[l].nrows, static_cast<long long>(h.A[l].nnz()),
                  l + 1 < h.A.size() ? "," : "\n");
   }
   if (!opt.sorted_hierarchy)
   {
      std::printf("  rows with unsorted columns as hypre left them:");
      for (size_t l = 0; l < h.A.size(); ++l)
      {
         std::printf(" A%zu %.3f", l, unsorted_row_fraction(h.A[l]));
         if (l + 1 < h.A.size()) std::printf(" P%zu %.3f", l, unsorted_row_fraction(h.P[l]));
      }
      std::printf("\n");
   }
   std::fflush(stdout);
   for (size_t l = 0; l + 1 < h.A.size(); ++l)
   {
      const int         level = static_cast<int>(l);
      const std::string where = in.name + "/L" + std::to_string(l);
      attempt("level " + where, [&] {
         const DeviceCsr dA  = upload(h.A[l]);
         const DeviceCsr dP  = upload(h.P[l]);
         const DeviceCsr dPT = vsp::transpose(vendor, dP);
         if (opt.spmv)
         {
            // A_0 is the fine-level matrix measured above (sorted); in hypre's order it is
            // measured again as the setup left it
            if (l >= 1 || !opt.sorted_hierarchy) attempt("spmv " + where + " A", [&] { measure_spmv(in.name, "setup", level, "A", h.A[l], dA); });
            attempt("spmv " + where + " P", [&] { measure_spmv(in.name, "setup", level, "P", h.P[l], dP); });
            attempt("spmv " + where + " PT", [&] {
               const HostCsr hPT = download(dPT);
               measure_spmv(in.name, "setup", level, "PT", hPT, dPT);
            });
         }
         if (opt.spgemm)
         {
            // cuSPARSE's SpGEMM takes sorted columns: in hypre's order the products read sorted copies
            std::optional<DeviceCsr> sA, sP;
            if (!opt.sorted_hierarchy)
            {
               HostCsr a = h.A[l], p = h.P[l];
               sort_rows(a);
               sort_rows(p);
               sA.emplace(upload(a));
               sP.emplace(upload(p));
            }
            const DeviceCsr&         gA = sA ? *sA : dA;
            const DeviceCsr&         gP = sP ? *sP : dP;
            std::optional<DeviceCsr> AP;
            attempt("spgemm " + where + " A*P", [&] { AP = measure_spgemm(in.name, "setup", level, "A*P", gA, gP); });
            if (AP) attempt("spgemm " + where + " PT*AP", [&] { measure_spgemm(in.name, "setup", level, "PT*AP", dPT, *AP); });
         }
         if (opt.galerkin)
         {
            // the re-setup's products on this level, C = the hierarchy's A_{l+1} (its arrays
            // as the bench holds them: sorted, or hypre's order with --hierarchy-order hypre)
            attempt("galerkin " + where, [&] {
               measure_galerkin(in.name, "setup", level, h.A[l], h.P[l], h.A[l + 1], true, dA, dP, dPT);
            });
         }
      });
   }
}

} // namespace amgt::kbench
