// amgt-kernel-bench, SpMV: y = alpha * A * x + beta * y on one operand by the vendor library (the
// reference), hypre's own kernel and ours on every path, each checked before it is timed;
// then the setup cost of ours (conversion + plan).
#include "bench.h"
#include "checks.h"
#include "hypre_bridge.h"

#include "mbsr/mbsr_device.h"
#include "rows/rows_device.h"
#include "spmv/spmv_device.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace amgt::kbench {
namespace {

constexpr double kAlpha = 1.0;
// beta != 0 so that y is read and written (hypre's residual and smoothing form); 0.5 keeps
// y bounded over thousands of repeated calls (y -> 2 A x).
constexpr double kBeta = 0.5;
// Rotating x only matters when the whole working set can stay in L2 (50 MB on an H100).
constexpr double kL2Bytes        = 50e6;
constexpr int    kRotatedX       = 4;
constexpr double kSampleTargetMs = 0.5; // an SpMV sample is a batch of calls this long
constexpr int    kMaxBatch       = 1000;

const dev::SpmvPath kForced[5] = {dev::SpmvPath::cuda_core, dev::SpmvPath::cuda_core_balanced,
                                  dev::SpmvPath::tensor_core, dev::SpmvPath::cuda_core_tiles,
                                  dev::SpmvPath::cuda_core_entries};

// Bytes one call of ours reads and writes at least, by path, from the plan's measured
// statistics only (the plan's internal arrays change as the kernels evolve): each array the
// SpMV kernels (plugin/spmv/spmv_kernels.cuh, spmv_tensor_kernels.cuh) read, once, plus x once
// and y read + written.
//   cuda_core, cuda_core_balanced  blk_ptr, row_val (int64 per block row), blk_col + blk_map
//                                  per tile, packed values (8 per stored entry); the
//                                  balanced path's chunk metadata (a few bytes per 64 tiles)
//                                  is left out
//   tensor_core                    blk_ptr, blk_col and the 16 padded values of every tile
//   cuda_core_entries              as cuda_core, plus the 2-byte decode of every stored entry
// Values are sizeof(V) bytes (8 fp64, 4 fp32, 2 fp16); x and y stay fp64 vectors.
template <class V>
double own_spmv_bytes(const dev::DeviceMbsr<V>& m, const dev::SpmvPlan<V>& p)
{
   const double br    = static_cast<double>(m.block_rows) + 1.0;
   const double tiles = static_cast<double>(p.stats.tiles);
   const double nnz   = static_cast<double>(p.stats.nnz);
   const double vec   = 8.0 * (static_cast<double>(m.ncols) + 2.0 * static_cast<double>(m.nrows));
   const double vb    = static_cast<double>(sizeof(V));
   if (p.path == dev::SpmvPath::tensor_core) return 4.0 * br + tiles * (4.0 + 16.0 * vb) + vec;
   if (p.path == dev::SpmvPath::cuda_core_entries) return 12.0 * br + 6.0 * tiles + (vb + 2.0) * nnz + vec;
   return 12.0 * br + 6.0 * tiles + vb * nnz + vec;
}

// Ours' SpMV on one operand in storage precision V: the mBSR copy and a plan per path.
template <class V>
struct OursSpmv
{
   using value_type = V;
   dev::DeviceMbsr<V>              m;
   std::optional<dev::SpmvPlan<V>> plans[6]; // automatic, then kForced
   bool                            converted = false;
   dev::DeviceRows<V>              rows;     // the row-wise layout
};

// Bytes make_rows moves at least: nothing in fp64 without offsets; else the columns (when
// offsets are written) and values read once, offsets and values written once.
double rows_build_bytes(Precision p, const SpmvRecord& r, bool narrow)
{
   const double nnz = static_cast<double>(r.nnz), rows = static_cast<double>(r.rows) + 1.0;
   const bool   values = p != Precision::fp64;
   if (!values && !narrow) return 0.0;
   const double vb = p == Precision::fp16 ? 2.0 : p == Precision::fp32 ? 4.0 : 8.0;
   return 4.0 * rows + (narrow ? 6.0 * nnz : 0.0) + (values ? (8.0 + vb) * nnz + 4.0 * nnz * !narrow : 0.0);
}

// The inputs of one operand: nx random x and a random y0 (host copies for the CPU oracle);
// y is reset to y0 before every checked call.
struct SpmvInputs
{
   std::vector<std::vector<double>> hx;
   std::vector<double>              hy0;
   std::vector<DevBuf<double>>      dx;
   std::vector<const double*>       xs;
   DevBuf<double>                   dy0, dy;

   SpmvInputs(const SpmvRecord& r, uint64_t seed) : hx(static_cast<size_t>(r.nx))
   {
      std::mt19937_64                        rng(seed);
      std::uniform_real_distribution<double> uni(-1.0, 1.0);
      for (auto& x : hx)
      {
         x.resize(static_cast<size_t>(r.cols));
         for (double& v : x) v = uni(rng);
      }
      hy0.resize(static_cast<size_t>(r.rows));
      for (double& v : hy0) v = uni(rng);
      for (const auto& x : hx)
      {
         dx.emplace_back(x.size());
         dx.back().upload(x);
         xs.push_back(dx.back().get());
      }
      dy0 = DevBuf<double>(hy0.size());
      dy  = DevBuf<double>(hy0.size());
      dy0.upload(hy0);
   }

   void reset_y()
   {
      KB_DEV(dev::memcpy_async(dy.get(), dy0.get(), hy0.size() * sizeof(double), dev::Copy::on_device, kStream));
   }
   void poison_y() // all bits set: a NaN in every element
   {
      KB_DEV(dev::memset_async(dy.get(), 0xff, hy0.size() * sizeof(double), kStream));
   }
};

// The results ours and hypre are checked against: the vendor library's (beta = kBeta and beta = 0) when
// it ran, else the CPU oracle's; the CPU oracle's too when there is one.
struct SpmvReference
{
   std::vector<double>        host_beta, host_zero; // CPU oracle (empty with --device-only)
   std::vector<double>        vendor_beta, vendor_zero;
   const std::vector<double>* beta = nullptr;
   const std::vector<double>* zero = nullptr;
   bool                       host = false; // the CPU oracle ran
};

// The vendor library's SpMV on the operand, checked against the CPU oracle: r.vendor. Returns
// the library's object that the timing reuses (null if it could not be made).
std::unique_ptr<vsp::Spmv> run_vendor(const vsp::Handle& vendor, const DeviceCsr& dA, SpmvInputs& in,
                                         SpmvRecord& r, SpmvReference& ref)
{
   std::unique_ptr<vsp::Spmv> vs;
   try
   {
      vs = std::make_unique<vsp::Spmv>(vendor, dA, in.xs, in.dy.get());
      in.reset_y();
      vs->run(0, kAlpha, kBeta);
      ref.vendor_beta = in.dy.download();
      // y = 0 rather than NaN here: the beta == 0 contract under test is ours, not the library's.
      KB_DEV(dev::memset_async(in.dy.get(), 0, in.hy0.size() * sizeof(double), kStream));
      vs->run(0, kAlpha, 0.0);
      ref.vendor_zero = in.dy.download();
      r.vendor.status = Status::ok;
      if (ref.host)
      {
         r.vendor.rel_err = std::max(rel_err(ref.vendor_beta, ref.host_beta), rel_err(ref.vendor_zero, ref.host_zero));
         if (!(r.vendor.rel_err < kSpmvTolerance))
         {
            r.vendor.status = Status::fail;
            r.vendor.note   = "rel. error " + sci(r.vendor.rel_err) + " vs CPU reference";
         }
      }
   }
   catch (const std::exception& e)
   {
      r.vendor.status = Status::error;
      r.vendor.note   = e.what();
      guard_context(std::string(vsp::name()) + " SpMV");
   }
   r.vendor.bytes = r.csr_bytes;
   return vs;
}

void pick_reference(SpmvRecord& r, SpmvReference& ref)
{
   if (r.vendor.ok())
   {
      ref.beta    = &ref.vendor_beta;
      ref.zero    = &ref.vendor_zero;
      r.reference = vsp::name();
   }
   else if (ref.host)
   {
      ref.beta    = &ref.host_beta;
      ref.zero    = &ref.host_zero;
      r.reference = "CPU";
   }
   else
   {
      r.reference = "none";
   }
}

// Checks one implementation's results (y_beta: beta = kBeta; y_zero: beta = 0 on a
// NaN-poisoned y, if checked) against the reference and the CPU oracle.
void verdict(Meas& m, const SpmvRecord& r, const SpmvReference& ref, const std::vector<double>& y_beta,
             const std::vector<double>* y_zero, double tol)
{
   if (!ref.beta)
   {
      m.status = Status::error;
      m.note   = std::string("no reference result (") + vsp::name() + " failed and --device-only has no CPU reference)";
      return;
   }
   double e = rel_err(y_beta, *ref.beta);
   if (y_zero) e = std::max(e, rel_err(*y_zero, *ref.zero));
   m.rel_err = e;
   if (!(e < tol))
   {
      m.status = Status::fail;
      m.note   = "rel. error " + sci(e) + " vs " + r.reference + (y_zero ? " (beta 0.5 or beta 0 on a NaN-poisoned y)" : "");
      return;
   }
   if (ref.host && ref.beta != &ref.host_beta)
   {
      double h = rel_err(y_beta, ref.host_beta);
      if (y_zero) h = std::max(h, rel_err(*y_zero, ref.host_zero));
      if (!(h < tol))
      {
         m.status = Status::fail;
         m.note   = "rel. error " + sci(h) + " vs CPU reference";
         return;
      }
   }
   m.status = Status::ok;
}

// hypre's own kernel (hypre_CSRMatrixMatvecDevice) on views of the same arrays: r.hypre.
struct HypreSpmv
{
   hyp::CsrView              A;
   std::vector<hyp::VecView> x;
   hyp::VecView              y;
};

void run_hypre(const DeviceCsr& dA, SpmvInputs& in, SpmvRecord& r, const SpmvReference& ref, HypreSpmv& h)
{
   try
   {
      h.A = hyp::wrap(dA);
      for (const double* x : in.xs) h.x.push_back(hyp::wrap(r.cols, const_cast<double*>(x)));
      h.y = hyp::wrap(static_cast<int32_t>(r.rows), in.dy.get());
      in.reset_y();
      hyp::spmv(h.A.get(), kAlpha, h.x[0].get(), kBeta, h.y.get());
      hyp::check_error("hypre_CSRMatrixMatvecDevice");
      const std::vector<double> y = in.dy.download();
      verdict(r.hypre, r, ref, y, nullptr, kSpmvTolerance);
   }
   catch (const std::exception& e)
   {
      r.hypre.status = Status::error;
      r.hypre.note   = e.what();
      guard_context("hypre SpMV");
   }
   r.hypre.bytes = r.csr_bytes;
}

// Ours in the storage precision of --precision: one conversion, then a plan per path (the
// automatic one, then every forced path), each checked; calls[p] runs plan p (empty where no
// plan was made). Lives in the caller's frame: calls[p] refer to o64/o32/o16 and the inputs.
struct OursSpmvRuns
{
   OursSpmv<double>         o64;
   OursSpmv<float>          o32;
   OursSpmv<amgt::half_t>   o16;
   // the mBSR plans (OursSpmv::plans), then rows, then rows with half and twice the lanes
   std::function<void(int)> calls[9];
   Meas*                    meas[9] = {};
};

template <class V>
void prepare_ours(const Options& opt, const DeviceCsr& dA, SpmvInputs& in, SpmvRecord& r, const SpmvReference& ref,
                  OursSpmv<V>& o, OursSpmvRuns& runs)
{
   const dev::Allocator alloc = plugin_allocator();
   const double         tol   = spmv_check_tolerance(opt.precision);
   try
   {
      EventPair ev;
      ev.start();
      // both layouts: the CUDA-core paths read the packed one, as in the library; the
      // forced tensor_core path needs the dense one
      dev::ConvertOptions both;
      both.packed = true;
      o.m = dev::csr_to_mbsr<V>(plugin_view(dA), kStream, alloc, both);
      ev.stop();
      r.convert_ms = ev.elapsed_ms();
      o.converted  = true;
      r.tiles      = o.m.num_tiles;
      ev.start();
      o.plans[0].emplace(dev::make_spmv_plan<V>(o.m, kStream, alloc, dev::SpmvPath::automatic));
      ev.stop();
      r.plan_ms = ev.elapsed_ms();
      r.fill    = o.plans[0]->fill;
   }
   catch (const std::exception& e)
   {
      r.ours.status = Status::error;
      r.ours.note   = std::string("conversion/plan: ") + e.what();
      guard_context("ours SpMV setup");
   }
   for (int p = 0; p < 6 && o.converted; ++p)
   {
      Meas& mm = *runs.meas[p];
      try
      {
         if (p > 0) o.plans[p].emplace(dev::make_spmv_plan<V>(o.m, kStream, alloc, kForced[p - 1]));
         // --tile-lanes: the cuda_core_tiles / cuda_core_entries group width instead of
         // the plan's rule (for plans that kept the forced path)
         if ((p == 4 || p == 5) && opt.tile_lanes > 0 && o.plans[p]->path == kForced[p - 1])
            o.plans[p]->group_lanes = opt.tile_lanes;
         if (!o.plans[p]) continue;
         const dev::SpmvPlan<V>& plan = *o.plans[p];
         mm.path  = dev::to_string(plan.path);
         mm.bytes = own_spmv_bytes(o.m, plan);
         in.reset_y();
         dev::spmv<V>(o.m, plan, kAlpha, in.xs[0], kBeta, in.dy.get(), kStream);
         const std::vector<double> yb = in.dy.download();
         in.poison_y();
         dev::spmv<V>(o.m, plan, kAlpha, in.xs[0], 0.0, in.dy.get(), kStream);
         const std::vector<double> yz = in.dy.download();
         verdict(mm, r, ref, yb, &yz, tol);
         runs.calls[p] = [&o, p, &xs = in.xs, &dy = in.dy](int i) {
            dev::spmv<V>(o.m, *o.plans[p], kAlpha, xs[static_cast<size_t>(i)], kBeta, dy.get(), kStream);
         };
      }
      catch (const std::exception& e)
      {
         mm.status = Status::error;
         mm.note   = e.what();
         o.plans[p].reset();
         runs.calls[p] = nullptr;
         guard_context("ours SpMV");
      }
   }
   Meas& mr = *runs.meas[6];
   try
   {
      const LayoutPick         lp = layout_pick(plugin_view(dA), opt.precision, alloc);
      const dev::FillEstimate& fe = lp.sample;
      const LayoutInputs&      li = lp.in;
      r.est_fill                  = fe.fill();
      r.layout                    = to_string(choose_layout(li).layout);
      o.rows        = dev::make_rows<V>(plugin_view(dA), nullptr, li.narrow, kStream, alloc, fe.row_cv());
      const bool narrow  = dev::rows_narrow(o.rows, kStream);
      r.rows_build_bytes = rows_build_bytes(opt.precision, r, o.rows.tried_narrow());
      mr.path            = narrow ? "rows16" : "rows";
      mr.bytes           = dev::rows_spmv_bytes(o.rows, narrow);
      in.reset_y();
      dev::rows_spmv<V>(o.rows, kAlpha, in.xs[0], kBeta, in.dy.get(), kStream);
      const std::vector<double> yb = in.dy.download();
      in.poison_y();
      dev::rows_spmv<V>(o.rows, kAlpha, in.xs[0], 0.0, in.dy.get(), kStream);
      const std::vector<double> yz = in.dy.download();
      verdict(mr, r, ref, yb, &yz, tol);
      runs.calls[6] = [&o, &xs = in.xs, &dy = in.dy](int i) {
         dev::rows_spmv<V>(o.rows, kAlpha, xs[static_cast<size_t>(i)], kBeta, dy.get(), kStream);
      };
      r.rows_lanes       = o.rows.lanes;
      // --rows-lanes-alt replaces the two other lane counts
      const int alts[2] = {opt.rows_alt[0] > 0 ? opt.rows_alt[0] : o.rows.lanes / 2,
                           opt.rows_alt[1] > 0 ? opt.rows_alt[1] : o.rows.lanes * 2};
      for (int a = 0; a < 2; ++a)
      {
         Meas& ma = *runs.meas[7 + a];
         if (alts[a] < 1 || alts[a] > 32) continue;
         const int lanes = alts[a];
         auto      call  = [&o, lanes, &xs = in.xs, &dy = in.dy](int i, double beta) {
            const int32_t rule = o.rows.lanes;
            o.rows.lanes       = lanes;
            dev::rows_spmv<V>(o.rows, kAlpha, xs[static_cast<size_t>(i)], beta, dy.get(), kStream);
            o.rows.lanes = rule;
         };
         ma.path  = "G=" + std::to_string(lanes);
         ma.bytes = mr.bytes;
         in.reset_y();
         call(0, kBeta);
         const std::vector<double> yb2 = in.dy.download();
         in.poison_y();
         call(0, 0.0);
         const std::vector<double> yz2 = in.dy.download();
         verdict(ma, r, ref, yb2, &yz2, tol);
         runs.calls[7 + a] = [call](int i) { call(i, kBeta); };
      }
   }
   catch (const std::exception& e)
   {
      mr.status     = Status::error;
      mr.note       = e.what();
      runs.calls[6] = nullptr;
      guard_context("ours SpMV rows");
   }
}

void run_ours(const Options& opt, const DeviceCsr& dA, SpmvInputs& in, SpmvRecord& r, const SpmvReference& ref,
              OursSpmvRuns& runs)
{
   Meas* const meas[9] = {&r.ours,       &r.forced[0], &r.forced[1],          &r.forced[2],         &r.forced[3],
                          &r.forced[4], &r.rowwise,   &r.rowwise_lanes[0], &r.rowwise_lanes[1]};
   std::copy(meas, meas + 9, runs.meas);
   r.precision = amgt::to_string(opt.precision);
   switch (opt.precision)
   {
   case Precision::fp64: prepare_ours(opt, dA, in, r, ref, runs.o64, runs); break;
   case Precision::fp32: prepare_ours(opt, dA, in, r, ref, runs.o32, runs); break;
   case Precision::fp16: prepare_ours(opt, dA, in, r, ref, runs.o16, runs); break;
   }
   // A forced path equal to the automatic choice runs the same kernel: both are kept, the
   // difference between them shows the run-to-run noise.
}

// Times every implementation that computed the right result, interleaved, with the same batch
// of calls per sample (chosen on the vendor library, else on ours).
void time_spmv(Bench& b, SpmvRecord& r, SpmvInputs& in, vsp::Spmv* vs, HypreSpmv& hv, OursSpmvRuns& ours)
{
   const std::function<void(int)> vendor_call = [&](int i) { vs->run(static_cast<size_t>(i), kAlpha, kBeta); };
   const std::function<void(int)> hyp_call  = [&](int i) {
      hyp::spmv(hv.A.get(), kAlpha, hv.x[static_cast<size_t>(i)].get(), kBeta, hv.y.get());
   };
   try
   {
      if (r.vendor.ok()) r.batch = b.choose_batch(vendor_call, r.nx);
      else if (r.ours.ok() && ours.calls[0]) r.batch = b.choose_batch(ours.calls[0], r.nx);
      else r.batch = r.nx;
   }
   catch (const std::exception& e)
   {
      std::fprintf(stderr, "  batch estimate failed (%s); using nx\n", e.what());
      guard_context("SpMV batch estimate");
      r.batch = r.nx;
   }
   EventPair ev;
   int       round   = 0;
   auto      sampler = [&](std::function<void(int)> call) {
      return std::function<double()>([&, call] {
         if (b.opt.flush_l2)
         {
            KB_DEV(dev::memset_async(b.l2_scratch.get(), (round++) & 0xff, b.l2_scratch.size(), kStream));
         }
         ev.start();
         for (int k = 0; k < r.batch; ++k) call(k % r.nx);
         ev.stop();
         return ev.elapsed_ms() / r.batch;
      });
   };
   std::vector<Timed> ts;
   if (r.vendor.ok()) ts.push_back(Timed{std::string(vsp::name()) + " SpMV", sampler(vendor_call), &r.vendor});
   if (r.hypre.ok()) ts.push_back(Timed{"hypre SpMV", sampler(hyp_call), &r.hypre});
   for (int p = 0; p < 9; ++p)
   {
      if (ours.calls[p] && ours.meas[p]->ok())
      {
         ts.push_back(Timed{"ours SpMV " + ours.meas[p]->path, sampler(ours.calls[p]), ours.meas[p]});
      }
   }
   in.reset_y();
   b.time_interleaved(ts, "SpMV timing");
}

// Setup cost of ours for this operand: conversion + plan, the sorted conversion with the
// dense layout (the library until the hashed conversion) against the hashed conversion with
// the packed layout only (the library now); each sample frees what it built after its time
// is taken.
void time_spmv_setup(Bench& b, SpmvRecord& r, const DeviceCsr& dA, SpmvInputs& in, const SpmvReference& ref)
{
   const dev::Allocator alloc        = plugin_allocator();
   // hashed: the tiles in first-seen order as the library converts (sorted_tiles = false)
   // unless sorted
   auto                 conv_sampler = [&](bool hashed, bool entry_order, bool one_pass, bool sorted = false) {
      return std::function<double()>([&, hashed, entry_order, one_pass, sorted] {
         dev::ConvertOptions co;
         co.dense        = !hashed;
         co.packed       = hashed;
         co.path         = hashed ? dev::ConversionPath::automatic : dev::ConversionPath::sorted;
         co.entry_order  = entry_order;
         co.lend_values  = entry_order;
         co.one_pass     = one_pass;
         co.sorted_tiles = !hashed || sorted;
         EventPair e;
         double    ms  = 0.0;
         auto      run = [&](auto tag) {
            using V = decltype(tag);
            e.start();
            dev::DeviceMbsr<V> m    = dev::csr_to_mbsr<V>(plugin_view(dA), kStream, alloc, co);
            dev::SpmvPlan<V>   plan = dev::make_spmv_plan<V>(m, kStream, alloc);
            e.stop();
            ms = e.elapsed_ms();
         };
         with_precision(b.opt.precision, run);
         return ms;
      });
   };
   // the row-wise layout as the library builds it: the fill sample, then make_rows
   auto rows_sampler = [&]() {
      return std::function<double()>([&] {
         EventPair e;
         double    ms  = 0.0;
         auto      run = [&](auto tag) {
            using V = decltype(tag);
            e.start();
            const dev::FillEstimate fe = dev::estimate_fill(plugin_view(dA), kStream, alloc);
            dev::DeviceRows<V> m =
               dev::make_rows<V>(plugin_view(dA), nullptr, fe.max_span <= kNarrowSpan, kStream, alloc, fe.row_cv());
            e.stop();
            ms = e.elapsed_ms();
         };
         with_precision(b.opt.precision, run);
         return ms;
      });
   };
   r.conv_sorted.status = r.conv_hashed.status = r.conv_entry.status = r.conv_entry2.status =
      r.conv_entry_sorted.status = r.conv_hashed_sorted.status = Status::ok;
   std::vector<Timed> tc;
   tc.push_back(Timed{"conversion sorted+plan", conv_sampler(false, false, true), &r.conv_sorted});
   tc.push_back(Timed{"conversion hashed+plan", conv_sampler(true, false, true), &r.conv_hashed});
   tc.push_back(Timed{"conversion hashed, tiles ranked+plan", conv_sampler(true, false, true, true),
                      &r.conv_hashed_sorted});
   tc.push_back(Timed{"conversion entry order+plan", conv_sampler(true, true, true), &r.conv_entry});
   tc.push_back(Timed{"conversion entry order, two passes+plan", conv_sampler(true, true, false), &r.conv_entry2});
   tc.push_back(Timed{"conversion entry order, tiles ranked+plan", conv_sampler(true, true, true, true),
                      &r.conv_entry_sorted});
   if (r.rowwise.ok())
   {
      r.rowwise_build.status = Status::ok;
      tc.push_back(Timed{"rows build", rows_sampler(), &r.rowwise_build});
   }
   b.time_interleaved(tc, "conversion timing");

   // the SpMV of an entry-order copy, checked like ours, then timed
   std::function<double()> spmv_sampler;
   try
   {
      with_precision(b.opt.precision, [&](auto tag) {
         using V = decltype(tag);
         // the library's copy for the entries kernel: entry order with hypre's values lent in
         // fp64, bitmap order in fp32/fp16 (LayoutChoice::entry_order; backend_device.cpp)
         const dev::ConvertOptions co = dev::spmv_copy_options(std::is_same_v<V, double>, true);
         auto m    = std::make_shared<dev::DeviceMbsr<V>>(dev::csr_to_mbsr<V>(plugin_view(dA), kStream, alloc, co));
         auto plan = std::make_shared<dev::SpmvPlan<V>>(dev::make_spmv_plan<V>(*m, kStream, alloc));
         r.spmv_entry.path  = dev::to_string(plan->path) + std::string(m->entry_order ? " entry order" : "");
         r.spmv_entry.bytes = r.ours.bytes;
         in.reset_y();
         dev::spmv<V>(*m, *plan, kAlpha, in.xs[0], kBeta, in.dy.get(), kStream);
         const std::vector<double> yb = in.dy.download();
         in.poison_y();
         dev::spmv<V>(*m, *plan, kAlpha, in.xs[0], 0.0, in.dy.get(), kStream);
         const std::vector<double> yz = in.dy.download();
         verdict(r.spmv_entry, r, ref, yb, &yz, spmv_check_tolerance(b.opt.precision));
         spmv_sampler = [m, plan, &in] {
            EventPair e;
            e.start();
            dev::spmv<V>(*m, *plan, kAlpha, in.xs[0], kBeta, in.dy.get(), kStream);
            e.stop();
            return e.elapsed_ms();
         };
      });
   }
   catch (const std::exception& e)
   {
      r.spmv_entry.status = Status::error;
      r.spmv_entry.note   = e.what();
      guard_context("ours SpMV on the library's copy");
   }
   if (r.spmv_entry.ok())
   {
      std::vector<Timed> ts;
      ts.push_back(Timed{"ours SpMV on the library's copy", spmv_sampler, &r.spmv_entry});
      b.time_interleaved(ts, "SpMV timing (the library's copy)");
      in.reset_y();
   }
}

// Failures on stdout, a one-line summary on stderr; the record joins the tables and the JSON.
void report_spmv(Bench& b, const SpmvRecord& r, const std::string& what)
{
   b.report_problem("spmv", what, vsp::name(), r.vendor);
   b.report_problem("spmv", what, "hypre", r.hypre);
   b.report_problem("spmv", what, "ours[automatic]", r.ours);
   b.report_problem("spmv", what, "ours[rows]", r.rowwise);
   for (int p = 0; p < 5; ++p)
   {
      b.report_problem("spmv", what, (std::string("ours[") + dev::to_string(kForced[p]) + "]").c_str(), r.forced[p]);
   }
   if (r.vendor.ok() && r.ours.ok())
   {
      std::fprintf(stderr, "         %s %.1f us, hypre %.1f us, ours %.1f us (%s)\n", vsp::name(),
                   r.vendor.t.median_ms * 1e3,
                   r.hypre.ok() ? r.hypre.t.median_ms * 1e3 : 0.0, r.ours.t.median_ms * 1e3, r.ours.path.c_str());
   }
   check_device("after SpMV measurements");
   b.spmv.push_back(r);
   b.json.write(b.spmv.back());
}

} // namespace

int Bench::choose_batch(const std::function<void(int)>& call, int nx)
{
   if (opt.flush_l2) return 1;
   for (int i = 0; i < nx; ++i) call(i);
   EventPair ev;
   ev.start();
   for (int i = 0; i < nx; ++i) call(i);
   ev.stop();
   const double per   = ev.elapsed_ms() / nx;
   int          batch = per > 0.0 ? static_cast<int>(std::ceil(kSampleTargetMs / per)) : kMaxBatch;
   batch              = std::clamp(batch, 1, kMaxBatch);
   return (batch + nx - 1) / nx * nx;
}

void Bench::measure_spmv(const std::string& matrix, const std::string& group, int level, const std::string& op,
                         const HostCsr& hA, const DeviceCsr& dA)
{
   SpmvRecord r;
   r.matrix    = matrix;
   r.group     = group;
   r.level     = level;
   r.op        = op;
   r.rows      = hA.nrows;
   r.cols      = hA.ncols;
   r.nnz       = hA.nnz();
   r.csr_bytes = csr_spmv_bytes(r.rows, r.cols, r.nnz);
   const std::string what = (group == "setup" ? matrix + "/L" + std::to_string(level) : matrix) + " " + op;
   std::fprintf(stderr, "[spmv]   %s: %lld rows, %lld nnz\n", what.c_str(), static_cast<long long>(r.rows),
                static_cast<long long>(r.nnz));
   if (r.nnz == 0 || r.rows == 0 || r.cols == 0)
   {
      r.ours.note = r.vendor.note = r.hypre.note = "empty matrix";
      spmv.push_back(r);
      json.write(spmv.back());
      return;
   }
   r.nx = r.csr_bytes < kL2Bytes ? kRotatedX : 1;

   SpmvInputs    in(r, opt.seed ^ std::hash<std::string>{}(what));
   SpmvReference ref;
   ref.host = host_reference();
   if (ref.host)
   {
      ref.host_beta = host_spmv(hA, in.hx[0], kAlpha, kBeta, in.hy0);
      ref.host_zero = host_spmv(hA, in.hx[0], kAlpha, 0.0, in.hy0);
   }
   const std::unique_ptr<vsp::Spmv> vs = run_vendor(vendor, dA, in, r, ref);
   pick_reference(r, ref);
   HypreSpmv hv;
   if (hyp::available()) run_hypre(dA, in, r, ref, hv); // else r.hypre stays skipped
   OursSpmvRuns ours;
   run_ours(opt, dA, in, r, ref, ours);

   time_spmv(*this, r, in, vs.get(), hv, ours);
   if (r.ours.ok()) time_spmv_setup(*this, r, dA, in, ref);
   report_spmv(*this, r, what);
}

} // namespace amgt::kbench
