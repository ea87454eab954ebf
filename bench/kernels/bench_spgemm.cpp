// amgt-kernel-bench, SpGEMM: C = A * B by the vendor library (cuSPARSE or rocSPARSE: the
// reference), hypre's own kernel and
// ours (fp64 on mBSR, and with --precision fp16 the fp16 product on tensor and CUDA cores),
// each checked before it is timed; ours also with the conversions it needs (csr_to_mbsr of
// the operands, C back to CSR); and ours row-wise (CSR in, CSR out, both designs).
#include "bench.h"
#include "checks.h"
#include "galerkin_work.h"
#include "hypre_bridge.h"

#include "mbsr/mbsr_device.h"
#include "rows/rows_device.h"
#include "spgemm/csr_spgemm_device.h"
#include "spgemm/spgemm_device.h"
#include "spmv/spmv_device.h"

#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace amgt::kbench {
namespace {

template <class V>
double tile_fill(const dev::DeviceMbsr<V>& m)
{
   if (m.num_tiles == 0) return 0.0;
   const int64_t nnz = dev::mbsr_nnz<V>(m, kStream, plugin_allocator());
   return static_cast<double>(nnz) / static_cast<double>(m.num_tiles);
}

struct CsrArrays
{
   DevBuf<int32_t> row_ptr, col;
   DevBuf<double>  val;
   int64_t         nnz = 0;
};

// C in the layout its SpMV reads (SpgemmRecord::layout_c), as the end of the library's setup
// builds it for an operator of precision V: layout_pick and the layout rule, then the row-wise
// layout or the mBSR copy (in the order the rule picks, LayoutChoice::entry_order, as the
// planner's plan_layout does) and its SpMV plan (what backend_device.cpp prepares for the
// solve; no value statistics). Returned whole, so that a timed sample frees it after its stop
// event.
template <class V>
struct SolveLayout
{
   std::optional<dev::DeviceRows<V>> rows;
   std::optional<dev::DeviceMbsr<V>> mbsr;
   std::optional<dev::SpmvPlan<V>>   plan;
};

template <class V>
SolveLayout<V> solve_layout(const amgt::CsrView& c, Precision p, const dev::Allocator& alloc,
                            std::string* which = nullptr)
{
   SolveLayout<V>   out;
   const LayoutPick   lp     = layout_pick(c, p, alloc);
   const LayoutChoice choice = choose_layout(lp.in);
   if (choice.layout == Layout::rows)
   {
      out.rows.emplace(dev::make_rows<V>(c, nullptr, lp.in.narrow, kStream, alloc, lp.sample.row_cv()));
      const bool narrow = dev::rows_narrow(*out.rows, kStream);
      if (which) *which = narrow ? "rows16" : "rows";
   }
   else
   {
      // as the planner (LayoutChoice::entry_order) and the backend
      const dev::ConvertOptions o = dev::spmv_copy_options(choice.entry_order, std::is_same<V, double>::value);
      out.mbsr.emplace(dev::csr_to_mbsr<V>(c, kStream, alloc, o));
      out.plan.emplace(dev::make_spmv_plan<V>(*out.mbsr, kStream, alloc));
      if (which) *which = "mbsr";
   }
   return out;
}

// What the library pays to hand ours' product back to hypre (backend_device.cpp).
CsrArrays back_to_csr(const dev::DeviceMbsr<double>& C, const dev::Allocator& alloc)
{
   CsrArrays out;
   out.nnz = dev::mbsr_nnz<double>(C, kStream, alloc);
   if (out.nnz > std::numeric_limits<int32_t>::max()) throw BenchError("product has more than 2^31-1 nonzeros");
   out.row_ptr = DevBuf<int32_t>(static_cast<size_t>(C.nrows) + 1);
   out.col     = DevBuf<int32_t>(static_cast<size_t>(out.nnz));
   out.val     = DevBuf<double>(static_cast<size_t>(out.nnz));
   dev::mbsr_to_csr<double>(C, out.row_ptr.get(), out.col.get(), out.val.get(), kStream, alloc);
   return out;
}

// The vendor library's product, the reference: its device CSR (kept for a product that feeds on it) and
// a sorted host copy.
std::optional<DeviceCsr> run_vendor(const vsp::Handle& vendor, const DeviceCsr& A, const DeviceCsr& B,
                                      const std::string& what, SpgemmRecord& r, HostCsr& h_vendor)
{
   std::optional<DeviceCsr> c_vendor;
   try
   {
      vsp::SpgemmInfo info;
      c_vendor.emplace(vsp::spgemm(vendor, A, B, &info));
      r.vendor_buffer_bytes = info.buffer1_bytes + info.buffer2_bytes;
      h_vendor              = download(*c_vendor);
      validate(h_vendor, what + " (" + vsp::name() + ")");
      sort_rows(h_vendor);
      r.vendor.status = Status::ok;
   }
   catch (const std::exception& e)
   {
      c_vendor.reset();
      r.vendor.status = Status::error;
      r.vendor.note   = e.what();
      guard_context(std::string(vsp::name()) + " SpGEMM");
   }

   return c_vendor;
}

// hypre's own product (hypreDevice_CSRSpGemm), on views kept for the timing; a sorted host copy.
void run_hypre(const DeviceCsr& A, const DeviceCsr& B, bool same, const std::string& what, SpgemmRecord& r,
               HostCsr& h_hypre, hyp::CsrView& hA_view, hyp::CsrView& hB_view)
{
   try
   {
      hA_view = hyp::wrap(A);
      hB_view = same ? hyp::CsrView() : hyp::wrap(B);
      void*        hb = same ? hA_view.get() : hB_view.get();
      hyp::Product p  = hyp::spgemm(hA_view.get(), hb);
      hyp::check_error("hypreDevice_CSRSpGemm");
      h_hypre = download(p.nrows(), p.ncols(), p.nnz(), p.row_ptr(), p.col(), p.val());
      validate(h_hypre, what + " (hypre)");
      sort_rows(h_hypre);
      r.hypre.status = Status::ok;
   }
   catch (const std::exception& e)
   {
      r.hypre.status = Status::error;
      r.hypre.note   = e.what();
      guard_context("hypre SpGEMM");
      return;
   }
   // hypre's binned mode, checked against its default mode's product
   try
   {
      void*        hb = same ? hA_view.get() : hB_view.get();
      hyp::Product p  = hyp::spgemm(hA_view.get(), hb, true);
      hyp::check_error("hypreDevice_CSRSpGemm (binned)");
      HostCsr h = download(p.nrows(), p.ncols(), p.nnz(), p.row_ptr(), p.col(), p.val());
      validate(h, what + " (hypre binned)");
      sort_rows(h);
      double      err  = 0.0;
      std::string diff = compare_csr(h, h_hypre, kSpgemmTolerance, &err);
      r.hypre_binned.rel_err = err;
      r.hypre_binned.status  = diff.empty() ? Status::ok : Status::fail;
      if (!diff.empty()) r.hypre_binned.note = diff + " vs hypre";
   }
   catch (const std::exception& e)
   {
      r.hypre_binned.status = Status::error;
      r.hypre_binned.note   = e.what();
      guard_context("hypre SpGEMM (binned)");
   }
}

// The reference: the vendor library's product (hypre's is checked against it), else hypre's.
const HostCsr* pick_reference(SpgemmRecord& r, const HostCsr& h_vendor, const HostCsr& h_hypre)
{
   const HostCsr* ref = nullptr;
   if (r.vendor.ok())
   {
      ref         = &h_vendor;
      r.reference = vsp::name();
      if (r.hypre.ok())
      {
         double      err  = 0.0;
         std::string diff = compare_csr(h_hypre, h_vendor, kSpgemmTolerance, &err);
         r.hypre.rel_err  = err;
         if (!diff.empty())
         {
            r.hypre.status = Status::fail;
            r.hypre.note   = diff + " vs " + vsp::name();
         }
      }
   }
   else if (r.hypre.ok())
   {
      ref         = &h_hypre;
      r.reference = "hypre";
   }
   else
   {
      r.reference = "none";
   }
   if (ref) r.nnz_c = ref->nnz();

   return ref;
}

// Ours in fp64: the operands converted (once for A*A), the product, C back to CSR, checked
// against the reference. mC is kept to time its conversion back.
struct OursSpgemm
{
   dev::DeviceMbsr<double> mA, mB, mC;
};

void run_ours(const Options& opt, const DeviceCsr& A, const DeviceCsr& B, bool same, const std::string& what,
              const HostCsr* ref, const dev::Allocator& alloc, SpgemmRecord& r, OursSpgemm& o)
{
   dev::DeviceMbsr<double>& mA = o.mA;
   dev::DeviceMbsr<double>& mB = o.mB;
   dev::DeviceMbsr<double>& mC = o.mC;
   try
   {
      mA       = dev::csr_to_mbsr<double>(plugin_view(A), kStream, alloc);
      r.fill_a = tile_fill(mA);
      if (!same)
      {
         mB = dev::csr_to_mbsr<double>(plugin_view(B), kStream, alloc);
      }
      const dev::DeviceMbsr<double>& b = same ? mA : mB;
      r.fill_b                         = same ? r.fill_a : tile_fill(b);
      dev::SpgemmStats        st;
      dev::DeviceMbsr<double> C = dev::spgemm<double>(mA, b, kStream, alloc, &st, opt.spgemm_path);
      // "<path>:<kernel>": what --spgemm-path asked for and the numeric kernel it ran.
      r.ours.path = std::string(dev::to_string(opt.spgemm_path)) + (st.pairs_kernel ? ":pairs" : ":ordered");
      r.tiles_c                 = C.num_tiles;
      r.intermediate_tiles      = st.intermediate_tiles;
      r.tc_products             = st.tc_tile_products;
      r.cc_products             = st.cc_tile_products;
      CsrArrays     back        = back_to_csr(C, alloc);
      const HostCsr h_ours = download(C.nrows, C.ncols, back.nnz, back.row_ptr.get(), back.col.get(), back.val.get());
      r.fill_c = C.num_tiles > 0 ? static_cast<double>(back.nnz) / static_cast<double>(C.num_tiles) : 0.0;
      mC       = std::move(C);
      if (!ref)
      {
         r.ours.status = Status::error;
         r.ours.note   = std::string("no reference result (") + vsp::name() + " and hypre both failed)";
      }
      else
      {
         validate(h_ours, what + " (ours)");
         double      err  = 0.0;
         std::string diff = compare_csr(h_ours, *ref, kSpgemmTolerance, &err);
         r.ours.rel_err   = err;
         if (diff.empty())
         {
            r.ours.status = Status::ok;
         }
         else
         {
            r.ours.status = Status::fail;
            r.ours.note   = diff + " vs " + r.reference;
         }
      }
   }
   catch (const std::exception& e)
   {
      r.ours.status = Status::error;
      r.ours.note   = e.what();
      guard_context("ours SpGEMM");
   }
}

// The row-wise CSR SpGEMM, each design forced (r.rows[d]), checked against the reference as
// ours is. Nothing to convert: it reads the CSR operands and writes C in CSR.
constexpr amgt::CsrSpgemmDesign kRowDesigns[kRowDesignCount] = {
   amgt::CsrSpgemmDesign::one_pass, amgt::CsrSpgemmDesign::two_pass, amgt::CsrSpgemmDesign::two_pass_tight,
   amgt::CsrSpgemmDesign::lean, amgt::CsrSpgemmDesign::short_rows};

void run_rows(const DeviceCsr& A, const DeviceCsr& B, const std::string& what, const HostCsr* ref,
              const dev::Allocator& alloc, SpgemmRecord& r)
{
   for (int d = 0; d < kRowDesignCount; ++d)
   {
      Meas& m = r.rows[d];
      m.path  = amgt::to_string(kRowDesigns[d]);
      // lean forced on many rows would size its slab for them (bins' max_ub per row): shown
      // up to 4x the rows automatic gives it
      if (kRowDesigns[d] == amgt::CsrSpgemmDesign::lean && A.nrows > 4 * amgt::csr_spgemm::kLeanMaxRows) continue;
      try
      {
         dev::CsrSpgemmStats   st;
         dev::DeviceCsrProduct C = dev::csr_spgemm(plugin_view(A), plugin_view(B), kStream, alloc, &st, kRowDesigns[d]);
         r.rows_sum_ub           = st.sum_ub;
         HostCsr h = download(C.nrows, C.ncols, C.nnz, C.row_ptr.get(), C.col.get(), C.val.get());
         validate(h, what + " (ours rows " + m.path + ")");
         sort_rows(h); // its rows come unsorted (hypre's contract allows it)
         if (!ref)
         {
            m.status = Status::error;
            m.note   = "no reference result (cuSPARSE and hypre both failed)";
            continue;
         }
         double      err  = 0.0;
         std::string diff = compare_csr(h, *ref, kSpgemmTolerance, &err);
         m.rel_err        = err;
         m.status         = diff.empty() ? Status::ok : Status::fail;
         if (!diff.empty()) m.note = diff + " vs " + r.reference;
      }
      catch (const std::exception& e)
      {
         m.status = Status::error;
         m.note   = e.what();
         guard_context("ours rows SpGEMM");
      }
   }
}

// --precision fp16: the product on fp16 inputs, forced to the tensor and the CUDA cores,
// compared with each other (r.half_tc, r.half_cc).
struct HalfOperands
{
   dev::DeviceMbsr<amgt::half_t> hA16, hB16;
};

void run_half(const Options& opt, const DeviceCsr& A, const DeviceCsr& B, bool same, const dev::Allocator& alloc,
              SpgemmRecord& r, HalfOperands& h)
{
   dev::DeviceMbsr<amgt::half_t>& hA16 = h.hA16;
   dev::DeviceMbsr<amgt::half_t>& hB16 = h.hB16;
   if (opt.precision == Precision::fp16)
   {
      r.half_run = true;
      try
      {
         hA16 = dev::csr_to_mbsr<amgt::half_t>(plugin_view(A), kStream, alloc);
         if (!same) hB16 = dev::csr_to_mbsr<amgt::half_t>(plugin_view(B), kStream, alloc);
         const dev::DeviceMbsr<amgt::half_t>& b16 = same ? hA16 : hB16;
         dev::SpgemmStats                     st_tc;
         const auto tc = dev::to_host(dev::spgemm<amgt::half_t>(hA16, b16, kStream, alloc, &st_tc,
                                                                dev::SpgemmPath::tensor_core),
                                      kStream);
         const auto cc = dev::to_host(
             dev::spgemm<amgt::half_t>(hA16, b16, kStream, alloc, nullptr, dev::SpgemmPath::cuda_core),
             kStream);
         r.half_tc_products = st_tc.tc_tile_products;
         double            rel = 0.0;
         const std::string why = half_products_differ(tc, cc, r.ours.ok() ? r.tiles_c : -1, &rel);
         for (Meas* m : {&r.half_cc, &r.half_tc})
         {
            m->status  = why.empty() ? Status::ok : Status::fail;
            m->note    = why;
            m->rel_err = rel;
         }
         r.half_cc.path = dev::to_string(dev::SpgemmPath::cuda_core);
         r.half_tc.path = dev::to_string(dev::SpgemmPath::tensor_core);
      }
      catch (const std::exception& e)
      {
         r.half_cc.status = r.half_tc.status = Status::error;
         r.half_cc.note = r.half_tc.note = e.what();
         guard_context("ours fp16 SpGEMM");
      }
   }
}

// Timing (only what computed the right result), interleaved. A sample is one whole call; its
// result is destroyed after the stop event (freeing C is not timed).
void time_spgemm(Bench& bench, const DeviceCsr& A, const DeviceCsr& B, bool same, const dev::Allocator& alloc,
                 const hyp::CsrView& hA_view, const hyp::CsrView& hB_view, OursSpgemm& o, HalfOperands& h,
                 const DeviceCsr* C, SpgemmRecord& r)
{
   const Options&                       opt      = bench.opt;
   vsp::Handle&                        vendor = bench.vendor;
   const dev::DeviceMbsr<double>&       mA = o.mA;
   const dev::DeviceMbsr<double>&       mB = o.mB;
   const dev::DeviceMbsr<double>&       mC = o.mC;
   const dev::DeviceMbsr<amgt::half_t>& hA16 = h.hA16;
   const dev::DeviceMbsr<amgt::half_t>& hB16 = h.hB16;
   EventPair ev;
   auto      sampler = [&ev](auto run) { return event_sampler(ev, run); };
   const dev::DeviceMbsr<double>& b  = same ? mA : mB;
   const amgt::CsrView            va = plugin_view(A), vb = plugin_view(B);
   std::vector<Timed>             ts;
   if (r.vendor.ok())
   {
      ts.push_back(Timed{std::string(vsp::name()) + " SpGEMM", sampler([&] { return vsp::spgemm(vendor, A, B); }), &r.vendor});
   }
   if (r.hypre.ok())
   {
      void* ha = hA_view.get();
      void* hb = same ? hA_view.get() : hB_view.get();
      ts.push_back(Timed{"hypre SpGEMM", sampler([ha, hb] { return hyp::spgemm(ha, hb); }), &r.hypre});
      if (r.hypre_binned.ok())
      {
         ts.push_back(Timed{"hypre SpGEMM (binned)", sampler([ha, hb] { return hyp::spgemm(ha, hb, true); }),
                            &r.hypre_binned});
      }
   }
   if (r.ours.ok())
   {
      ts.push_back(Timed{"ours SpGEMM",
                         sampler([&] { return dev::spgemm<double>(mA, b, kStream, alloc, nullptr, opt.spgemm_path); }),
                         &r.ours});
      ts.push_back(Timed{"csr_to_mbsr(A)", sampler([&] { return dev::csr_to_mbsr<double>(va, kStream, alloc); }),
                         nullptr, &r.conv_a});
      // A*A: the library converts A once (the mBSR copy is cached on the matrix).
      if (!same)
      {
         ts.push_back(Timed{"csr_to_mbsr(B)", sampler([&] { return dev::csr_to_mbsr<double>(vb, kStream, alloc); }),
                            nullptr, &r.conv_b});
      }
      ts.push_back(Timed{"C to CSR", sampler([&] { return back_to_csr(mC, alloc); }), nullptr, &r.back});
   }
   for (int d = 0; d < kRowDesignCount; ++d)
   {
      if (!r.rows[d].ok()) continue;
      ts.push_back(Timed{std::string("ours rows SpGEMM ") + amgt::to_string(kRowDesigns[d]),
                         sampler([&, d] { return dev::csr_spgemm(va, vb, kStream, alloc, nullptr, kRowDesigns[d]); }),
                         &r.rows[d]});
   }
   const dev::DeviceMbsr<amgt::half_t>& b16 = same ? hA16 : hB16;
   for (auto [m, forced] : {std::pair<Meas*, dev::SpgemmPath>{&r.half_cc, dev::SpgemmPath::cuda_core},
                            std::pair<Meas*, dev::SpgemmPath>{&r.half_tc, dev::SpgemmPath::tensor_core}})
   {
      if (!r.half_run || !m->ok()) continue;
      const dev::SpgemmPath path = forced; // a structured binding cannot be captured before C++20
      ts.push_back(Timed{std::string("ours fp16 SpGEMM ") + dev::to_string(path),
                         sampler([&, path] {
                            return dev::spgemm<amgt::half_t>(hA16, b16, kStream, alloc, nullptr, path);
                         }),
                         m});
   }
   // a square C: put in the solve's layout (once untimed, to learn the layout and catch a failure)
   const amgt::CsrView cv = C ? plugin_view(*C) : amgt::CsrView{};
   auto add_layout = [&](auto tag) {
      using V = decltype(tag);
      try
      {
         std::string which;
         (void)solve_layout<V>(cv, opt.precision, alloc, &which);
         check_device("C to the solve layout");
         r.layout_c.status = Status::ok;
         r.layout_c.path   = which;
         ts.push_back(Timed{"C to the solve layout",
                            sampler([&] { return solve_layout<V>(cv, opt.precision, alloc); }), &r.layout_c});
      }
      catch (const std::exception& e)
      {
         r.layout_c.status = Status::error;
         r.layout_c.note   = e.what();
         guard_context("C to the solve layout");
      }
   };
   if (C && C->nrows == C->ncols && C->nnz > 0) with_precision(opt.precision, add_layout);
   bench.time_interleaved(ts, "SpGEMM timing");
   if (r.ours.ok())
   {
      r.conv_ok = true;
      for (const Timed& t : ts)
         if (t.stats && t.failed) r.conv_ok = false;
   }
}

// Failures on stdout, a one-line summary on stderr; the record joins the tables and the JSON.
void report_spgemm(Bench& b, const SpgemmRecord& r, const std::string& what)
{
   b.report_problem("spgemm", what, vsp::name(), r.vendor);
   b.report_problem("spgemm", what, "hypre", r.hypre);
   b.report_problem("spgemm", what, "hypre[binned]", r.hypre_binned);
   b.report_problem("spgemm", what, "ours", r.ours);
   b.report_problem("spgemm", what, "ours[rows one_pass]", r.rows[0]);
   b.report_problem("spgemm", what, "ours[rows two_pass]", r.rows[1]);
   b.report_problem("spgemm", what, "ours[rows two_pass_tight]", r.rows[2]);
   b.report_problem("spgemm", what, "ours[rows lean]", r.rows[3]);
   b.report_problem("spgemm", what, "ours[rows short_rows]", r.rows[4]);
   b.report_problem("spgemm", what, "C to the solve layout", r.layout_c);
   if (r.half_run)
   {
      b.report_problem("spgemm", what, "ours[fp16 cuda_core]", r.half_cc);
      b.report_problem("spgemm", what, "ours[fp16 tensor_core]", r.half_tc);
   }
   if (r.vendor.ok() && r.ours.ok())
   {
      std::fprintf(stderr, "         %s %.3f ms, hypre %.3f ms, ours %.3f ms (%s; +conv %.3f ms)\n",
                   vsp::name(), r.vendor.t.median_ms, r.hypre.ok() ? r.hypre.t.median_ms : 0.0, r.ours.t.median_ms,
                   r.ours.path.c_str(), r.conv_ok ? r.ours_with_conversions_ms() : 0.0);
   }
   check_device("after SpGEMM measurements");
   b.spgemm.push_back(r);
   b.json.write(b.spgemm.back());
}

} // namespace

std::optional<DeviceCsr> Bench::measure_spgemm(const std::string& matrix, const std::string& group, int level,
                                               const std::string& product, const DeviceCsr& A, const DeviceCsr& B)
{
   SpgemmRecord r;
   r.matrix  = matrix;
   r.group   = group;
   r.level   = level;
   r.product = product;
   r.m       = A.nrows;
   r.k       = A.ncols;
   r.n       = B.ncols;
   r.nnz_a   = A.nnz;
   r.nnz_b   = B.nnz;
   const bool        same = &A == &B;
   r.b_is_a               = same;
   const std::string what = (group == "setup" ? matrix + "/L" + std::to_string(level) : matrix) + " " + product;
   std::fprintf(stderr, "[spgemm] %s: %lld x %lld times %lld x %lld\n", what.c_str(),
                static_cast<long long>(r.m), static_cast<long long>(r.k), static_cast<long long>(B.nrows),
                static_cast<long long>(r.n));
   if (A.ncols != B.nrows) throw BenchError(what + ": dimension mismatch");
   if (A.nnz == 0 || B.nnz == 0)
   {
      r.ours.note = r.vendor.note = r.hypre.note = "empty operand";
      spgemm.push_back(r);
      json.write(spgemm.back());
      return std::nullopt;
   }

   {
      // the terms from the patterns (host copies; product_terms checks them too)
      const std::vector<int32_t> a_ptr = A.row_ptr.download(), a_col = A.col.download();
      const std::vector<int32_t> b_ptr = B.row_ptr.download(), b_col = B.col.download();
      r.terms = amgt::work::product_terms({A.nrows, A.ncols, a_ptr.data(), a_col.data()},
                                          {B.nrows, B.ncols, b_ptr.data(), b_col.data()});
   }

   HostCsr                  h_vendor, h_hypre;
   std::optional<DeviceCsr> c_vendor = run_vendor(vendor, A, B, what, r, h_vendor);
   hyp::CsrView             hA_view, hB_view;
   if (hyp::available()) run_hypre(A, B, same, what, r, h_hypre, hA_view, hB_view); // else skipped
   const HostCsr* ref = pick_reference(r, h_vendor, h_hypre);

   const dev::Allocator alloc = plugin_allocator();
   OursSpgemm           ours;
   run_ours(opt, A, B, same, what, ref, alloc, r, ours);
   run_rows(A, B, what, ref, alloc, r);
   HalfOperands half;
   run_half(opt, A, B, same, alloc, r, half);

   // C as the next level's operator: the vendor's product, else hypre's
   std::optional<DeviceCsr> c_hypre;
   if (!c_vendor && r.hypre.ok()) c_hypre.emplace(upload(h_hypre));
   const DeviceCsr* C = c_vendor ? &*c_vendor : c_hypre ? &*c_hypre : nullptr;
   time_spgemm(*this, A, B, same, alloc, hA_view, hB_view, ours, half, C, r);
   report_spgemm(*this, r, what);

   if (c_vendor) return c_vendor;
   if (c_hypre) return c_hypre;
   return std::nullopt;
}

} // namespace amgt::kbench
