// amgt-kernel-bench, Galerkin products on a plan: what a re-setup (AMGT_RESETUP) runs per level,
// C = R*(A*P) with R = P^T recomputed by numeric-only products on patterns fixed once
// (plugin/resetup/galerkin_device.h), against hypre's two full products of the same level.
//
//   1. The CPU reference (resetup::make_galerkin_plan + resetup::galerkin_numeric on host
//      copies), then the device plan (device::make_galerkin_plan) and its first product
//      (device::galerkin_numeric, which reads the plan's flag back once). C's values are checked
//      against the CPU reference and, on a level of the AMG hierarchy, against the hierarchy's
//      A_{l+1} (hypre's own product, the same entries); AP's values against the reference's AP.
//   2. Timed, interleaved: the plan, galerkin_numeric, each of its two products alone
//      (numeric_on_pattern A*P onto the plan's AP pattern, R*(AP) onto C's pattern), and
//      hypre's A*P and P^T*(A*P).
#include "bench.h"
#include "checks.h"
#include "hypre_bridge.h"

#include "resetup/galerkin.h"
#include "resetup/galerkin_device.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace amgt::kbench {
namespace {

amgt::CsrView host_view(const HostCsr& a)
{
   if (a.nnz() > std::numeric_limits<int32_t>::max()) throw BenchError("more than 2^31-1 nonzeros");
   return amgt::CsrView{a.nrows, a.ncols, static_cast<int32_t>(a.nnz()), a.row_ptr.data(), a.col.data(),
                        a.val.empty() ? nullptr : a.val.data()};
}

// ||x - ref|| / ||ref|| (||x|| when ref is 0); +inf for a NaN anywhere or sizes that differ.
double normwise_error(const std::vector<double>& x, const std::vector<double>& ref)
{
   if (x.size() != ref.size()) return std::numeric_limits<double>::infinity();
   long double d = 0.0L, r = 0.0L;
   for (size_t k = 0; k < x.size(); ++k)
   {
      if (!std::isfinite(x[k])) return std::numeric_limits<double>::infinity();
      const long double e = static_cast<long double>(x[k]) - ref[k];
      d += e * e;
      r += static_cast<long double>(ref[k]) * ref[k];
   }
   return static_cast<double>(r > 0.0L ? std::sqrt(d / r) : std::sqrt(d));
}

int32_t read_flag(const dev::DeviceGalerkinPlan& plan)
{
   int32_t h = 0;
   KB_DEV(dev::memcpy_blocking(&h, plan.flag.get(), sizeof h, dev::Copy::to_host));
   return h;
}

} // namespace

void Bench::measure_galerkin(const std::string& matrix, const std::string& group, int level, const HostCsr& hA,
                             const HostCsr& hP, const HostCsr& hC, bool c_has_values, const DeviceCsr& dA,
                             const DeviceCsr& dP, const DeviceCsr& dPT)
{
   GalerkinRecord r;
   r.matrix = matrix;
   r.group  = group;
   r.level  = level;
   r.rows   = hA.nrows;
   r.coarse = hC.nrows;
   r.nnz_a  = hA.nnz();
   r.nnz_p  = hP.nnz();
   r.nnz_c  = hC.nnz();
   const std::string what =
      (group == "setup" ? matrix + "/L" + std::to_string(level) : matrix + "/syn") + " R*A*P";
   std::fprintf(stderr, "[galerkin] %s: %d rows, %d coarse\n", what.c_str(), hA.nrows, hC.nrows);
   auto finish = [&] {
      report_problem("galerkin", what, "ours[galerkin_numeric]", r.total);
      report_problem("galerkin", what, "ours[AP]", r.ap);
      report_problem("galerkin", what, "ours[RAP]", r.rap);
      report_problem("galerkin", what, "hypre[A*P]", r.hypre_ap);
      report_problem("galerkin", what, "hypre[PT*AP]", r.hypre_rap);
      check_device("after Galerkin measurements");
      galerkin.push_back(r);
      json.write(galerkin.back());
   };

   const dev::Allocator alloc = plugin_allocator();
   const amgt::CsrView  vA = plugin_view(dA), vP = plugin_view(dP), vR = plugin_view(dPT);

   // 1. The CPU reference on host copies (R: the device transpose brought back)
   const HostCsr              hR = download(dPT);
   resetup::GalerkinPlan      ref_plan;
   std::vector<double>        c_ref(static_cast<size_t>(r.nnz_c));
   bool                       ref_ok = false;
   try
   {
      ref_plan = resetup::make_galerkin_plan(host_view(hR), host_view(hA), host_view(hP), hC.row_ptr.data(),
                                             hC.col.data(), hC.nrows);
      ref_ok   = resetup::galerkin_numeric(ref_plan, host_view(hR), host_view(hA), host_view(hP), c_ref.data());
      r.nnz_ap = static_cast<int64_t>(ref_plan.ap.sorted_col.size());
      if (!ref_ok)
      {
         r.total.status = Status::error;
         r.total.note   = "CPU reference: a term of R*A*P falls outside C's pattern";
      }
   }
   catch (const std::exception& e)
   {
      r.total.status = Status::error;
      r.total.note   = std::string("CPU reference: ") + e.what();
   }
   if (!ref_ok)
   {
      finish();
      return;
   }

   // 2. The device plan over C's own arrays, and its first product (reads the flag back)
   DevBuf<int32_t> c_ptr(hC.row_ptr.size()), c_col(hC.col.size());
   c_ptr.upload(hC.row_ptr);
   c_col.upload(hC.col);
   DevBuf<double>          c_val(static_cast<size_t>(r.nnz_c));
   dev::DeviceGalerkinPlan plan, plan_pulls;
   try
   {
      plan = dev::make_galerkin_plan(vR, vA, vP, c_ptr.get(), c_col.get(), hC.nrows, kStream, alloc);
      if (plan.ap.nnz != r.nnz_ap)
      {
         throw BenchError("the plan's AP has " + std::to_string(plan.ap.nnz) + " entries, the CPU reference's " +
                          std::to_string(r.nnz_ap));
      }
      r.plan.status = Status::ok;
      r.ap_places   = plan.ap_places.width;
      r.c_places    = plan.c_places.width;
      r.ap_pulls    = plan.ap_pulls.width;
      r.c_pulls     = plan.c_pulls.width;
      r.place_bytes = plan.ap_places.terms * plan.ap_places.width + plan.c_places.terms * plan.c_places.width +
                      plan.ap_pulls.terms * plan.ap_pulls.width + plan.c_pulls.terms * plan.c_pulls.width;
      if (r.nnz_c > 0) dev::fill_bytes(c_val.get(), 0xff, sizeof(double) * c_val.size(), kStream); // NaN
      if (!dev::galerkin_numeric(plan, vR, vA, vP, c_val.get(), kStream))
      {
         throw BenchError("a term fell outside the plan's patterns");
      }
      check_device("galerkin_numeric");
      const std::vector<double> c = c_val.download();
      r.err_cpu                   = normwise_error(c, c_ref);
      r.total.rel_err             = r.err_cpu;
      std::string why;
      if (!(r.err_cpu <= kSpgemmTolerance)) why = "C vs the CPU reference: normwise error " + std::to_string(r.err_cpu);
      if (c_has_values)
      {
         r.err_hypre = normwise_error(c, hC.val);
         if (!(r.err_hypre <= kSpgemmTolerance))
         {
            why += std::string(why.empty() ? "" : "; ") + "C vs hypre's A_{l+1}: normwise error " +
                   std::to_string(r.err_hypre);
         }
      }
      // AP: the device's intermediate against the reference's (both sorted, the same pattern)
      std::vector<double> ap(static_cast<size_t>(plan.ap.nnz));
      if (!ap.empty())
      {
         KB_DEV(dev::memcpy_blocking(ap.data(), plan.ap_val.get(), sizeof(double) * ap.size(), dev::Copy::to_host));
      }
      r.ap.rel_err = normwise_error(ap, ref_plan.ap_val);
      r.ap.status  = r.ap.rel_err <= kSpgemmTolerance ? Status::ok : Status::fail;
      if (!r.ap.ok()) r.ap.note = "AP vs the CPU reference: normwise error " + std::to_string(r.ap.rel_err);
      r.total.status = why.empty() ? Status::ok : Status::fail;
      r.total.note   = why;
      r.rap.status   = r.total.status;
      r.search.status = r.total.status;
      // the plan by pulls (PlanForm::pulls: places where the pulls refuse), run and checked like
      // the other where it has pulls
      plan_pulls = dev::make_galerkin_plan(vR, vA, vP, c_ptr.get(), c_col.get(), hC.nrows, kStream, alloc,
                                           dev::PlanForm::pulls);
      if (plan_pulls.ap_pulls.width != 0 || plan_pulls.c_pulls.width != 0)
      {
         dev::galerkin_products(plan_pulls, vR, vA, vP, c_val.get(), kStream);
         check_device("galerkin_products by pulls");
         const double e = normwise_error(c_val.download(), c_ref);
         r.pulls.status = e <= kSpgemmTolerance ? Status::ok : Status::fail;
         r.pulls.rel_err = e;
         if (!r.pulls.ok()) r.pulls.note = "by pulls: C vs the CPU reference: normwise error " + std::to_string(e);
      }
      r.rap.rel_err  = r.total.rel_err;
      if (!why.empty()) r.rap.note = why;
   }
   catch (const FatalError&)
   {
      throw;
   }
   catch (const std::exception& e)
   {
      for (Meas* m : {&r.plan, &r.total, &r.ap, &r.rap})
      {
         m->status = Status::error;
         m->note   = e.what();
      }
      guard_context("Galerkin plan");
      finish();
      return;
   }

   // hypre's two products of the same level (full products, as its setup runs them)
   hyp::CsrView hA_view, hP_view, hPT_view;
   hyp::Product hyp_ap; // hypre's A*P, the operand of its timed P^T*(A*P)
   if (hyp::available())
   {
      try
      {
         hA_view  = hyp::wrap(dA);
         hP_view  = hyp::wrap(dP);
         hPT_view = hyp::wrap(dPT);
         hyp_ap   = hyp::spgemm(hA_view.get(), hP_view.get());
         hyp::check_error("hypreDevice_CSRSpGemm A*P");
         r.hypre_ap.status = Status::ok;
         (void)hyp::spgemm(hPT_view.get(), hyp_ap.get());
         hyp::check_error("hypreDevice_CSRSpGemm PT*AP");
         r.hypre_rap.status = Status::ok;
      }
      catch (const std::exception& e)
      {
         Meas& m = r.hypre_ap.ok() ? r.hypre_rap : r.hypre_ap;
         m.status = Status::error;
         m.note   = e.what();
         guard_context("hypre Galerkin products");
      }
   }

   // 3. Timing, interleaved; a sample's result is destroyed after its stop event
   EventPair ev;
   auto      sampler = [&ev](auto run) { return event_sampler(ev, run); };
   const amgt::CsrView vAP{plan.ap.nrows, plan.ap.ncols, static_cast<int32_t>(plan.ap.nnz), plan.ap.row_ptr.get(),
                           plan.ap.sorted_col.get(), plan.ap_val.get()};
   std::vector<Timed>  ts;
   ts.push_back(Timed{"Galerkin plan", sampler([&] {
                         return dev::make_galerkin_plan(vR, vA, vP, c_ptr.get(), c_col.get(), hC.nrows, kStream,
                                                        alloc);
                      }),
                      &r.plan});
   if (r.total.ok())
   {
      ts.push_back(Timed{"galerkin_numeric",
                         sampler([&] { return dev::galerkin_numeric(plan, vR, vA, vP, c_val.get(), kStream); }),
                         &r.total});
      // each product as galerkin_numeric runs it (by places or search, as the plan chose) ...
      ts.push_back(Timed{"A*P on the plan", sampler([&] {
                            if (plan.ap_pulls.width != 0)
                               dev::numeric_by_pulls(vA, vP, plan.ap, plan.ap_pulls, plan.ap_val.get(), kStream);
                            else if (plan.ap_places.width != 0)
                               dev::numeric_by_places(vA, vP, plan.ap, plan.ap_places, plan.ap_val.get(), kStream);
                            else
                               dev::numeric_on_pattern(vA, vP, plan.ap, plan.ap_val.get(), plan.flag.get(), kStream);
                            return 0;
                         }),
                         &r.ap});
      ts.push_back(Timed{"R*AP on the plan", sampler([&] {
                            if (plan.c_pulls.width != 0)
                               dev::numeric_by_pulls(vR, vAP, plan.c, plan.c_pulls, c_val.get(), kStream);
                            else if (plan.c_places.width != 0)
                               dev::numeric_by_places(vR, vAP, plan.c, plan.c_places, c_val.get(), kStream);
                            else
                               dev::numeric_on_pattern(vR, vAP, plan.c, c_val.get(), plan.flag.get(), kStream);
                            return 0;
                         }),
                         &r.rap});
      // each product the plan has places for, in both walks (the plan's rule picks one)
      for (const dev::PlacesWalk walk : {dev::PlacesWalk::lanes, dev::PlacesWalk::dealt})
      {
         const bool lanes = walk == dev::PlacesWalk::lanes;
         if (plan.ap_places.width != 0)
         {
            Meas& m  = lanes ? r.ap_lanes : r.ap_dealt;
            m.status = Status::ok;
            ts.push_back(Timed{lanes ? "A*P by places, lanes" : "A*P by places, dealt", sampler([&, walk] {
                                  dev::numeric_by_places(vA, vP, plan.ap, plan.ap_places, plan.ap_val.get(),
                                                         kStream, walk);
                                  return 0;
                               }),
                               &m});
         }
         if (plan.c_places.width != 0)
         {
            Meas& m  = lanes ? r.rap_lanes : r.rap_dealt;
            m.status = Status::ok;
            ts.push_back(Timed{lanes ? "R*AP by places, lanes" : "R*AP by places, dealt", sampler([&, walk, vAP] {
                                  dev::numeric_by_places(vR, vAP, plan.c, plan.c_places, c_val.get(), kStream,
                                                         walk);
                                  return 0;
                               }),
                               &m});
         }
      }
      if (r.pulls.ok())
      {
         ts.push_back(Timed{"both products by pulls", sampler([&] {
                               dev::galerkin_products(plan_pulls, vR, vA, vP, c_val.get(), kStream);
                               return 0;
                            }),
                            &r.pulls});
      }
      // ... and both by the searching kernel, the form without places
      ts.push_back(Timed{"numeric_on_pattern A*P + R*AP", sampler([&] {
                            dev::numeric_on_pattern(vA, vP, plan.ap, plan.ap_val.get(), plan.flag.get(), kStream);
                            dev::numeric_on_pattern(vR, vAP, plan.c, c_val.get(), plan.flag.get(), kStream);
                            return 0;
                         }),
                         &r.search});
   }
   if (r.hypre_ap.ok() && r.hypre_rap.ok())
   {
      void* ha = hA_view.get();
      void* hp = hP_view.get();
      void* hr = hPT_view.get();
      void* ap = hyp_ap.get();
      ts.push_back(Timed{"hypre A*P", sampler([ha, hp] { return hyp::spgemm(ha, hp); }), &r.hypre_ap});
      ts.push_back(Timed{"hypre PT*AP", sampler([hr, ap] { return hyp::spgemm(hr, ap); }), &r.hypre_rap});
   }
   time_interleaved(ts, "Galerkin timing");
   if (r.total.ok() && read_flag(plan) != 0)
   {
      r.total.status = r.ap.status = r.rap.status = Status::error;
      r.total.note = r.ap.note = r.rap.note = "a term fell outside the plan's patterns while timing";
   }
   if (r.total.ok())
   {
      std::fprintf(stderr,
                   "         plan %.3f ms, AP %.3f ms, RAP %.3f ms, total %.3f ms (%.2f of %.1f TB/s; forms %s,"
                   " %.0f MB), by pulls %.3f ms, searching %.3f ms, hypre %.3f ms\n",
                   r.plan.ok() ? r.plan.t.median_ms : 0.0, r.ap.ok() ? r.ap.t.median_ms : 0.0,
                   r.rap.ok() ? r.rap.t.median_ms : 0.0, r.total.t.median_ms,
                   r.total.t.median_ms > 0.0 ? r.total_bytes() / (r.total.t.median_ms * 1e-3) / kPracticalBandwidth : 0.0,
                   kPracticalBandwidth / 1e12, r.forms().c_str(), static_cast<double>(r.place_bytes) / 1e6,
                   r.pulls.ok() ? r.pulls.t.median_ms : 0.0, r.search.ok() ? r.search.t.median_ms : 0.0, r.hypre_ms());
      auto ms = [](const Meas& m) { return m.ok() ? m.t.median_ms : 0.0; };
      std::fprintf(stderr, "         by places: AP lanes %.3f ms, dealt %.3f ms; RAP lanes %.3f ms, dealt %.3f ms\n",
                   ms(r.ap_lanes), ms(r.ap_dealt), ms(r.rap_lanes), ms(r.rap_dealt));
   }
   finish();
}

void Bench::synthetic_galerkin(const Input& in)
{
   if (in.A.nrows != in.A.ncols) return;
   const HostCsr   P   = synthetic_interpolation(in.A);
   const DeviceCsr dA  = upload(in.A);
   const DeviceCsr dP  = upload(P);
   const DeviceCsr dPT = vsp::transpose(vendor, dP);
   const HostCsr   R   = download(dPT);
   // C's pattern: R*(A*P), each row's diagonal first and the others ascending (the order hypre's
   // products leave a coarse operator in starts with the diagonal; the plan reads C through
   // its sorted copy and positions either way)
   const resetup::FixedPattern ap = resetup::product_pattern(host_view(in.A), host_view(P));
   const amgt::CsrView         vap{ap.nrows, ap.ncols, static_cast<int32_t>(ap.sorted_col.size()), ap.row_ptr.data(),
                                   ap.sorted_col.data(), nullptr};
   const resetup::FixedPattern c = resetup::product_pattern(host_view(R), vap);
   HostCsr                     C;
   C.nrows   = c.nrows;
   C.ncols   = c.ncols;
   C.row_ptr = c.row_ptr;
   C.col     = c.sorted_col;
   for (int32_t i = 0; i < C.nrows; ++i)
   {
      const auto b = C.col.begin() + C.row_ptr[i], e = C.col.begin() + C.row_ptr[i + 1];
      const auto d = std::find(b, e, i);
      if (d != e) std::rotate(b, d, d + 1);
   }
   measure_galerkin(in.name, "synthetic", 0, in.A, P, C, false, dA, dP, dPT);
}

} // namespace amgt::kbench
