// amgt-kernel-bench: the plugin's SpMV and SpGEMM kernels against cuSPARSE and hypre's own
// device kernels, on fine-level matrices and on the actual operators of a BoomerAMG setup.
// See bench/kernels/README.md for what each number means.
//
//   1. MPI_Init (one rank), AMGT forced off (libHYPRE's hooks hand every call to stock
//      hypre), HYPRE_Initialize with device memory/execution and hypre's own kernels.
//   2. Per input: SpMV with A and SpGEMM A*A; then, with --setup-products 1, a BoomerAMG
//      setup by stock hypre and, per level l, SpMV with A_l (l >= 1), P_l, P_l^T and the
//      Galerkin products A_l*P_l and P_l^T*(A_l*P_l).
//   3. Every result is checked before anything is timed: a wrong result gets a FAIL line and
//      no time. Tables, geometric means and failures are printed at the end.
#include "bench_common.h"
#include "cusparse_ops.h"
#include "hypre_bridge.h"
#include "options.h"
#include "report.h"

#include "mtx_reader.h"
#include "problems.h"
#include "row_block.h"

#include "common/error.h"
#include "mbsr/mbsr.h"
#include "mbsr/mbsr_device.h"
#include "spgemm/spgemm_device.h"
#include "spmv/spmv_device.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace amgt::kbench {
namespace {

namespace dev = amgt::device;

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

// An error that leaves the CUDA context unusable: stop measuring, print what we have.
class FatalError : public BenchError
{
public:
   using BenchError::BenchError;
};

// After a caught exception: if the context took a sticky error, nothing after it is valid.
void guard_context(const std::string& where)
{
   const cudaError_t e = cudaDeviceSynchronize();
   if (e != cudaSuccess)
   {
      if (is_sticky(e))
      {
         throw FatalError(where + ": the CUDA context is unusable (" + cudaGetErrorName(e) + ")");
      }
      cudaGetLastError();
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

template <class V>
double tile_fill(const dev::DeviceMbsr<V>& m)
{
   if (m.num_tiles == 0) return 0.0;
   const int64_t nnz = dev::mbsr_nnz<V>(m, kStream, plugin_allocator());
   return static_cast<double>(nnz) / static_cast<double>(m.num_tiles);
}

// Bytes one call of ours reads and writes at least, by path, from the plan's measured
// statistics only (the plan's internal arrays change as the kernels evolve): each array the
// kernels of plugin/spmv/spmv_device.cu read, once, plus x once and y read + written.
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
};

// Normwise check of ours against the fp64 reference (cuSPARSE or the CPU), by storage
// precision: a sanity check that a kernel is not broken (the unit tests hold the rounding
// contract with derived bounds). Values rounded to V and float/half sums give a normwise
// error of a few u_s times || |A||x| || / ||A x|| (about 2 for the generated problems);
// fp32: u_s = 6e-8; fp16: u_s = 4.9e-4 (and the tensor_core path rounds x to half too).
double spmv_check_tolerance(Precision p)
{
   switch (p)
   {
   case Precision::fp64: return kSpmvTolerance;
   case Precision::fp32: return 1e-5;
   case Precision::fp16: return 1e-2;
   }
   return kSpmvTolerance;
}

std::string sci(double v);

// --precision fp16 SpGEMM: the tensor-core product against the CUDA-core one (the unit tests
// compare both with the CPU reference). Same structure, and the fp64 product's tile count
// when there is one (tiles_c >= 0); finite values; normwise difference below 1e-2 (both add
// the same exact products in fp32 and round once to half: they differ by about u_half).
std::string half_products_differ(const amgt::Mbsr<amgt::half_t>& tc, const amgt::Mbsr<amgt::half_t>& cc,
                                 int64_t tiles_c, double* rel)
{
   *rel = std::numeric_limits<double>::quiet_NaN();
   if (tc.blk_ptr != cc.blk_ptr || tc.blk_col != cc.blk_col || tc.blk_map != cc.blk_map)
      return "tensor_core and cuda_core products differ in structure";
   if (tiles_c >= 0 && cc.num_tiles() != tiles_c)
      return "fp16 product has " + std::to_string(cc.num_tiles()) + " tiles, fp64 " + std::to_string(tiles_c);
   long double num = 0.0L, den = 0.0L;
   for (size_t p = 0; p < cc.blk_val.size(); ++p)
   {
      const double a = amgt::half_to_double(tc.blk_val[p]), b = amgt::half_to_double(cc.blk_val[p]);
      if (!std::isfinite(a) || !std::isfinite(b)) return "non-finite fp16 value (out of half's range)";
      num += static_cast<long double>(a - b) * (a - b);
      den += static_cast<long double>(b) * b;
   }
   *rel = den > 0.0L ? static_cast<double>(std::sqrt(num / den)) : 0.0;
   if (!(*rel < 1e-2)) return "tensor_core vs cuda_core normwise difference " + sci(*rel);
   return {};
}

// ||a - b||_2 / ||b||_2 in long double; NaN if a holds a NaN/Inf.
double rel_err(const std::vector<double>& a, const std::vector<double>& b)
{
   if (a.size() != b.size()) return std::numeric_limits<double>::quiet_NaN();
   long double num = 0.0L, den = 0.0L;
   for (size_t i = 0; i < a.size(); ++i)
   {
      if (!std::isfinite(a[i])) return std::numeric_limits<double>::quiet_NaN();
      const long double d = static_cast<long double>(a[i]) - static_cast<long double>(b[i]);
      num += d * d;
      den += static_cast<long double>(b[i]) * static_cast<long double>(b[i]);
   }
   return static_cast<double>(den > 0.0L ? std::sqrt(num / den) : std::sqrt(num));
}

std::string sci(double v)
{
   char buf[32];
   std::snprintf(buf, sizeof buf, "%.2e", v);
   return buf;
}

// y = alpha * A * x + beta * y0 on the CPU, in long double (the oracle for every SpMV).
std::vector<double> host_spmv(const HostCsr& A, const std::vector<double>& x, double alpha, double beta,
                              const std::vector<double>& y0)
{
   std::vector<double> y(static_cast<size_t>(A.nrows));
   parallel_for(A.nrows, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i)
      {
         long double s = 0.0L;
         for (int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
         {
            s += static_cast<long double>(A.val[p]) * static_cast<long double>(x[A.col[p]]);
         }
         long double r = static_cast<long double>(alpha) * s;
         if (beta != 0.0) r += static_cast<long double>(beta) * static_cast<long double>(y0[i]);
         y[i] = static_cast<double>(r);
      }
   });
   return y;
}

// Same pattern (sorted rows) and values within tol of the reference, relative to the largest
// |value| of the reference row: an entry that cancels to ~0 in exact arithmetic is then not
// failed for rounding noise. Returns an empty string when equal; `max_err` gets the largest
// row-relative difference.
std::string compare_csr(const HostCsr& a, const HostCsr& ref, double tol, double* max_err)
{
   *max_err = 0.0;
   if (a.nrows != ref.nrows || a.ncols != ref.ncols)
   {
      return "shape " + std::to_string(a.nrows) + "x" + std::to_string(a.ncols) + " vs " +
             std::to_string(ref.nrows) + "x" + std::to_string(ref.ncols);
   }
   if (a.nnz() != ref.nnz())
   {
      return "nnz " + std::to_string(a.nnz()) + " vs " + std::to_string(ref.nnz());
   }
   // Rows in kChunks contiguous chunks; each chunk keeps its first bad row and its worst error.
   constexpr int64_t    kChunks = 1024;
   const int64_t        chunk   = std::max<int64_t>(1, (ref.nrows + kChunks - 1) / kChunks);
   constexpr int64_t    kNone   = std::numeric_limits<int64_t>::max();
   std::vector<double>  worst(kChunks, 0.0);
   std::vector<int64_t> first_bad(kChunks, kNone);
   std::vector<int>     kind(kChunks, 0);
   parallel_chunks(kChunks, [&](int64_t c) {
      const int64_t r0 = std::min<int64_t>(ref.nrows, c * chunk), r1 = std::min<int64_t>(ref.nrows, r0 + chunk);
      double        w  = 0.0;
      for (int64_t i = r0; i < r1 && first_bad[c] == kNone; ++i)
      {
         if (a.row_ptr[i + 1] != ref.row_ptr[i + 1])
         {
            first_bad[c] = i;
            kind[c]      = 1;
            break;
         }
         double rowmax = 0.0;
         for (int32_t p = ref.row_ptr[i]; p < ref.row_ptr[i + 1]; ++p) rowmax = std::max(rowmax, std::fabs(ref.val[p]));
         for (int32_t p = ref.row_ptr[i]; p < ref.row_ptr[i + 1]; ++p)
         {
            if (a.col[p] != ref.col[p])
            {
               first_bad[c] = i;
               kind[c]      = 2;
               break;
            }
            const double d = std::fabs(a.val[p] - ref.val[p]);
            const double e = rowmax > 0.0 ? d / rowmax : d;
            if (!(e <= w)) w = std::isfinite(e) ? e : std::numeric_limits<double>::infinity();
         }
      }
      worst[c] = w;
   });
   for (int64_t c = 0; c < kChunks; ++c)
   {
      if (first_bad[c] != kNone)
      {
         const int64_t i = first_bad[c];
         return std::string(kind[c] == 1 ? "row lengths differ" : "column indices differ") + " at row " +
                std::to_string(i) + " (" + std::to_string(a.row_ptr[i + 1] - a.row_ptr[i]) + " vs " +
                std::to_string(ref.row_ptr[i + 1] - ref.row_ptr[i]) + " entries)";
      }
      *max_err = std::max(*max_err, worst[c]);
   }
   if (!(*max_err <= tol)) return "values differ: max row-relative error " + sci(*max_err);
   return {};
}

// ---------------------------------------------------------------------------------------

struct Input
{
   std::string name;
   HostCsr     A;
   int         num_functions = 1;
};

HostCsr from_row_block(const RowBlock& rb, int64_t ncols, const std::string& name)
{
   const int64_t imax = std::numeric_limits<int32_t>::max();
   if (rb.num_rows() > imax || ncols > imax || rb.nnz() > imax)
   {
      throw BenchError(name + ": more than 2^31-1 rows or nonzeros (32-bit CSR)");
   }
   HostCsr h;
   h.nrows = static_cast<int32_t>(rb.num_rows());
   h.ncols = static_cast<int32_t>(ncols);
   h.row_ptr.assign(rb.row_ptr.begin(), rb.row_ptr.end());
   h.col.assign(rb.col.begin(), rb.col.end());
   h.val = rb.val;
   validate(h, name);
   sort_rows(h);
   return h;
}

// block4 (bench only): A = kron(L7, M) on an n^3 grid, L7 the 7-point Laplacian (6 on the
// diagonal, -1 per face neighbour, Dirichlet boundary eliminated), M = 3 I + ones(4) (SPD,
// eigenvalues 7, 3, 3, 3), so A is SPD. Node p owns rows 4p..4p+3: every coupling is a dense
// 4x4 block aligned with the mBSR tiles, i.e. fill 16 (the tensor-core paths' best case;
// a 3-dof elasticity matrix's 3x3 blocks straddle the 4x4 tiles). num_functions 4.
Input block4_input(const ProblemSpec& spec)
{
   const int64_t n = spec.n, nodes = n * n * n, rows = 4 * nodes;
   Input         in;
   in.name = spec.kind + "_n" + std::to_string(n);
   if (rows * 28 > std::numeric_limits<int32_t>::max())
   {
      throw BenchError(in.name + ": too large for 32-bit CSR indices");
   }
   HostCsr& h = in.A;
   h.nrows    = static_cast<int32_t>(rows);
   h.ncols    = static_cast<int32_t>(rows);
   h.row_ptr.assign(1, 0);
   h.col.reserve(static_cast<size_t>(rows) * 28);
   h.val.reserve(static_cast<size_t>(rows) * 28);
   for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < n; ++j)
         for (int64_t i = 0; i < n; ++i)
         {
            // Neighbours in ascending node number, the node itself in the middle.
            int64_t nb[7];
            double  w[7];
            int     cnt = 0;
            auto    add = [&](bool ok, int64_t q, double v) {
               if (ok) { nb[cnt] = q; w[cnt++] = v; }
            };
            const int64_t p = i + n * (j + n * k);
            add(k > 0, p - n * n, -1.0);
            add(j > 0, p - n, -1.0);
            add(i > 0, p - 1, -1.0);
            add(true, p, 6.0);
            add(i + 1 < n, p + 1, -1.0);
            add(j + 1 < n, p + n, -1.0);
            add(k + 1 < n, p + n * n, -1.0);
            for (int r = 0; r < 4; ++r)
            {
               for (int q = 0; q < cnt; ++q)
                  for (int c = 0; c < 4; ++c)
                  {
                     h.col.push_back(static_cast<int32_t>(4 * nb[q] + c));
                     h.val.push_back(w[q] * (r == c ? 4.0 : 1.0));
                  }
               h.row_ptr.push_back(static_cast<int32_t>(h.col.size()));
            }
         }
   validate(h, in.name);
   in.num_functions = 4;
   return in;
}

Input generated_input(const ProblemSpec& spec)
{
   if (spec.kind == "block4") return block4_input(spec);
   const auto kind = problems::parse_kind(spec.kind);
   if (!kind) throw BenchError("unknown problem " + spec.kind);
   problems::Problem p{*kind, spec.n};
   Input             in;
   in.name = spec.kind + "_n" + std::to_string(spec.n);
   const int64_t rows = p.global_rows();
   if (rows * p.max_row_entries() > std::numeric_limits<int32_t>::max())
   {
      throw BenchError(in.name + ": too large for 32-bit CSR indices");
   }
   RowBlock rb;
   problems::generate_rows(p, Range{0, rows}, rb);
   in.A             = from_row_block(rb, rows, in.name);
   in.num_functions = p.block_size();
   return in;
}

Input file_input(const std::string& path, int num_functions)
{
   io::MtxMatrix m = io::read_matrix_market(path);
   for (const std::string& w : m.info.warnings) std::fprintf(stderr, "%s: %s\n", path.c_str(), w.c_str());
   Input       in;
   std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
   for (const std::string ext : {".gz", ".mtx"})
   {
      if (base.size() > ext.size() && base.compare(base.size() - ext.size(), ext.size(), ext) == 0)
      {
         base.erase(base.size() - ext.size());
      }
   }
   in.name          = base;
   in.A             = from_row_block(m.rows, m.info.cols, in.name);
   in.num_functions = num_functions;
   return in;
}

// ---------------------------------------------------------------------------------------

struct Bench
{
   const Options&            opt;
   cusp::Handle&             cusparse;
   JsonLines&                json;
   DevBuf<char>              l2_scratch;
   std::vector<SpmvRecord>   spmv;
   std::vector<SpgemmRecord> spgemm;

   int                       errors = 0; // measurements that could not be made at all

   bool host_reference() const { return !opt.device_only; }

   // Runs one measurement step; an error is reported and counted, the run goes on (unless
   // the CUDA context is gone).
   template <class F>
   void attempt(const std::string& what, F&& f)
   {
      try
      {
         f();
      }
      catch (const FatalError&)
      {
         throw;
      }
      catch (const std::exception& e)
      {
         std::printf("ERROR %s: %s\n", what.c_str(), e.what());
         std::fflush(stdout);
         ++errors;
         guard_context(what);
      }
   }

   void report_problem(const char* section, const std::string& what, const char* impl, const Meas& m)
   {
      if (m.status == Status::fail || m.status == Status::error)
      {
         std::printf("%s %s %s %s: %s\n", to_string(m.status), section, what.c_str(), impl, m.note.c_str());
         std::fflush(stdout);
      }
   }

   // ---- SpMV ----------------------------------------------------------------------------

   // One timed quantity: `sample` runs it once and returns milliseconds (per call for SpMV).
   struct Timed
   {
      Timed(std::string n, std::function<double()> f, Meas* m, Stats* st = nullptr)
          : name(std::move(n)), sample(std::move(f)), meas(m), stats(st)
      {}
      std::string             name;
      std::function<double()> sample;
      Meas*                   meas  = nullptr; // time and status go here,
      Stats*                  stats = nullptr; // or only the time (conversions)
      bool                    failed = false;
      std::vector<double>     ms;
   };

   // opt.warmup rounds, then opt.repeat rounds in which every quantity takes one sample in
   // turn: a transient slowdown of the machine (clocks, a neighbour) then hits all of them
   // alike rather than whichever happened to be running.
   void time_interleaved(std::vector<Timed>& ts, const char* where)
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

   int choose_batch(const std::function<void(int)>& call, int nx)
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

   void measure_spmv(const std::string& matrix, const std::string& group, int level, const std::string& op,
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
         r.ours.note = r.cusp.note = r.hypre.note = "empty matrix";
         spmv.push_back(r);
         json.write(spmv.back());
         return;
      }
      r.nx = r.csr_bytes < kL2Bytes ? kRotatedX : 1;

      // Inputs: nx random x, a random y0; y is reset to y0 before every checked call.
      std::mt19937_64                        rng(opt.seed ^ std::hash<std::string>{}(what));
      std::uniform_real_distribution<double> uni(-1.0, 1.0);
      std::vector<std::vector<double>>       hx(static_cast<size_t>(r.nx));
      for (auto& x : hx)
      {
         x.resize(static_cast<size_t>(r.cols));
         for (double& v : x) v = uni(rng);
      }
      std::vector<double> hy0(static_cast<size_t>(r.rows));
      for (double& v : hy0) v = uni(rng);
      std::vector<DevBuf<double>> dx;
      std::vector<const double*>  xs;
      for (const auto& x : hx)
      {
         dx.emplace_back(x.size());
         dx.back().upload(x);
         xs.push_back(dx.back().get());
      }
      DevBuf<double> dy0(hy0.size()), dy(hy0.size());
      dy0.upload(hy0);
      auto reset_y = [&] {
         KB_CUDA(cudaMemcpyAsync(dy.get(), dy0.get(), hy0.size() * sizeof(double), cudaMemcpyDeviceToDevice, kStream));
      };
      auto poison_y = [&] { // all bits set: a NaN in every element
         KB_CUDA(cudaMemsetAsync(dy.get(), 0xff, hy0.size() * sizeof(double), kStream));
      };

      std::vector<double> host_beta, host_zero; // CPU oracle, beta = kBeta and beta = 0
      if (host_reference())
      {
         host_beta = host_spmv(hA, hx[0], kAlpha, kBeta, hy0);
         host_zero = host_spmv(hA, hx[0], kAlpha, 0.0, hy0);
      }

      // cuSPARSE: its results (beta != 0 and beta == 0) are the reference for ours.
      std::unique_ptr<cusp::Spmv> cs;
      std::vector<double>         cusp_beta, cusp_zero;
      try
      {
         cs = std::make_unique<cusp::Spmv>(cusparse, dA, xs, dy.get());
         reset_y();
         cs->run(0, kAlpha, kBeta);
         cusp_beta = dy.download();
         // y = 0 rather than NaN here: the beta == 0 contract under test is ours, not cuSPARSE's.
         KB_CUDA(cudaMemsetAsync(dy.get(), 0, hy0.size() * sizeof(double), kStream));
         cs->run(0, kAlpha, 0.0);
         cusp_zero = dy.download();
         r.cusp.status = Status::ok;
         if (host_reference())
         {
            r.cusp.rel_err = std::max(rel_err(cusp_beta, host_beta), rel_err(cusp_zero, host_zero));
            if (!(r.cusp.rel_err < kSpmvTolerance))
            {
               r.cusp.status = Status::fail;
               r.cusp.note   = "rel. error " + sci(r.cusp.rel_err) + " vs CPU reference";
            }
         }
      }
      catch (const std::exception& e)
      {
         r.cusp.status = Status::error;
         r.cusp.note   = e.what();
         guard_context("cuSPARSE SpMV");
      }
      r.cusp.bytes = r.csr_bytes;

      const std::vector<double>* ref_beta = nullptr;
      const std::vector<double>* ref_zero = nullptr;
      if (r.cusp.ok())
      {
         ref_beta    = &cusp_beta;
         ref_zero    = &cusp_zero;
         r.reference = "cuSPARSE";
      }
      else if (host_reference())
      {
         ref_beta    = &host_beta;
         ref_zero    = &host_zero;
         r.reference = "CPU";
      }
      else
      {
         r.reference = "none";
      }

      // Checks one implementation's results against the reference (and the CPU oracle).
      auto verdict = [&](Meas& m, const std::vector<double>& y_beta, const std::vector<double>* y_zero,
                         double tol) {
         if (!ref_beta)
         {
            m.status = Status::error;
            m.note   = "no reference result (cuSPARSE failed and --device-only has no CPU reference)";
            return;
         }
         double e = rel_err(y_beta, *ref_beta);
         if (y_zero) e = std::max(e, rel_err(*y_zero, *ref_zero));
         m.rel_err = e;
         if (!(e < tol))
         {
            m.status = Status::fail;
            m.note   = "rel. error " + sci(e) + " vs " + r.reference + (y_zero ? " (beta 0.5 or beta 0 on a NaN-poisoned y)" : "");
            return;
         }
         if (host_reference() && ref_beta != &host_beta)
         {
            double h = rel_err(y_beta, host_beta);
            if (y_zero) h = std::max(h, rel_err(*y_zero, host_zero));
            if (!(h < tol))
            {
               m.status = Status::fail;
               m.note   = "rel. error " + sci(h) + " vs CPU reference";
               return;
            }
         }
         m.status = Status::ok;
      };

      // hypre's own kernel through hypre_CSRMatrixMatvecDevice.
      hyp::CsrView             hA_view;
      std::vector<hyp::VecView> hx_views;
      hyp::VecView             hy_view;
      try
      {
         hA_view = hyp::wrap(dA);
         for (const double* x : xs) hx_views.push_back(hyp::wrap(r.cols, const_cast<double*>(x)));
         hy_view = hyp::wrap(static_cast<int32_t>(r.rows), dy.get());
         reset_y();
         hyp::spmv(hA_view.get(), kAlpha, hx_views[0].get(), kBeta, hy_view.get());
         hyp::check_error("hypre_CSRMatrixMatvecDevice");
         const std::vector<double> y = dy.download();
         verdict(r.hypre, y, nullptr, kSpmvTolerance);
      }
      catch (const std::exception& e)
      {
         r.hypre.status = Status::error;
         r.hypre.note   = e.what();
         guard_context("hypre SpMV");
      }
      r.hypre.bytes = r.csr_bytes;

      // Ours, in the storage precision of --precision: one conversion, then a plan per path.
      const dev::Allocator alloc = plugin_allocator();
      Meas* ours_meas[6] = {&r.ours, &r.forced[0], &r.forced[1], &r.forced[2], &r.forced[3], &r.forced[4]};
      r.precision        = amgt::to_string(opt.precision);
      const double tol   = spmv_check_tolerance(opt.precision);
      OursSpmv<double>          o64;
      OursSpmv<float>           o32;
      OursSpmv<amgt::half_t>    o16;
      std::function<void(int)>  ours_calls[6]; // empty where no plan was made
      auto prepare = [&](auto& o) {
         using V = typename std::decay_t<decltype(o)>::value_type;
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
            Meas& mm = *ours_meas[p];
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
               reset_y();
               dev::spmv<V>(o.m, plan, kAlpha, xs[0], kBeta, dy.get(), kStream);
               const std::vector<double> yb = dy.download();
               poison_y();
               dev::spmv<V>(o.m, plan, kAlpha, xs[0], 0.0, dy.get(), kStream);
               const std::vector<double> yz = dy.download();
               verdict(mm, yb, &yz, tol);
               ours_calls[p] = [&o, p, &xs, &dy](int i) {
                  dev::spmv<V>(o.m, *o.plans[p], kAlpha, xs[static_cast<size_t>(i)], kBeta, dy.get(), kStream);
               };
            }
            catch (const std::exception& e)
            {
               mm.status = Status::error;
               mm.note   = e.what();
               o.plans[p].reset();
               ours_calls[p] = nullptr;
               guard_context("ours SpMV");
            }
         }
      };
      switch (opt.precision)
      {
      case Precision::fp64: prepare(o64); break;
      case Precision::fp32: prepare(o32); break;
      case Precision::fp16: prepare(o16); break;
      }
      // A forced path equal to the automatic choice runs the same kernel: both are kept, the
      // difference between them shows the run-to-run noise.

      // Timing: the same batch size for every implementation of this operand.
      const std::function<void(int)> cusp_call = [&](int i) { cs->run(static_cast<size_t>(i), kAlpha, kBeta); };
      const std::function<void(int)> hyp_call  = [&](int i) {
         hyp::spmv(hA_view.get(), kAlpha, hx_views[static_cast<size_t>(i)].get(), kBeta, hy_view.get());
      };
      try
      {
         if (r.cusp.ok()) r.batch = choose_batch(cusp_call, r.nx);
         else if (r.ours.ok() && ours_calls[0]) r.batch = choose_batch(ours_calls[0], r.nx);
         else r.batch = r.nx;
      }
      catch (const std::exception& e)
      {
         std::fprintf(stderr, "  batch estimate failed (%s); using nx\n", e.what());
         guard_context("SpMV batch estimate");
         r.batch = r.nx;
      }
      EventPair ev;
      int       round = 0;
      auto      sampler = [&](std::function<void(int)> call) {
         return std::function<double()>([&, call] {
            if (opt.flush_l2)
            {
               KB_CUDA(cudaMemsetAsync(l2_scratch.get(), (round++) & 0xff, l2_scratch.size(), kStream));
            }
            ev.start();
            for (int b = 0; b < r.batch; ++b) call(b % r.nx);
            ev.stop();
            return ev.elapsed_ms() / r.batch;
         });
      };
      std::vector<Timed> ts;
      if (r.cusp.ok()) ts.push_back(Timed{"cuSPARSE SpMV", sampler(cusp_call), &r.cusp});
      if (r.hypre.ok()) ts.push_back(Timed{"hypre SpMV", sampler(hyp_call), &r.hypre});
      for (int p = 0; p < 6; ++p)
      {
         if (ours_calls[p] && ours_meas[p]->ok())
         {
            ts.push_back(Timed{"ours SpMV " + ours_meas[p]->path, sampler(ours_calls[p]), ours_meas[p]});
         }
      }
      reset_y();
      time_interleaved(ts, "SpMV timing");

      // Setup cost of ours for this operand: conversion + plan, the sorted conversion with the
      // dense layout (the library until the hashed conversion) against the hashed conversion
      // with the packed layout only (the library now); each sample frees what it built after
      // its time is taken.
      if (r.ours.ok())
      {
         auto conv_sampler = [&](bool hashed) {
            return std::function<double()>([&, hashed] {
               dev::ConvertOptions co;
               co.dense  = !hashed;
               co.packed = hashed;
               co.path   = hashed ? dev::ConversionPath::automatic : dev::ConversionPath::sorted;
               EventPair e;
               double    ms = 0.0;
               auto      run = [&](auto tag) {
                  using V = decltype(tag);
                  e.start();
                  dev::DeviceMbsr<V> m    = dev::csr_to_mbsr<V>(plugin_view(dA), kStream, alloc, co);
                  dev::SpmvPlan<V>   plan = dev::make_spmv_plan<V>(m, kStream, alloc);
                  e.stop();
                  ms = e.elapsed_ms();
               };
               switch (opt.precision)
               {
               case Precision::fp64: run(double{}); break;
               case Precision::fp32: run(float{}); break;
               case Precision::fp16: run(amgt::half_t{}); break;
               }
               return ms;
            });
         };
         r.conv_sorted.status = r.conv_hashed.status = Status::ok;
         std::vector<Timed> tc;
         tc.push_back(Timed{"conversion sorted+plan", conv_sampler(false), &r.conv_sorted});
         tc.push_back(Timed{"conversion hashed+plan", conv_sampler(true), &r.conv_hashed});
         time_interleaved(tc, "conversion timing");
      }

      report_problem("spmv", what, "cuSPARSE", r.cusp);
      report_problem("spmv", what, "hypre", r.hypre);
      report_problem("spmv", what, "ours[automatic]", r.ours);
      for (int p = 0; p < 5; ++p)
      {
         report_problem("spmv", what, (std::string("ours[") + dev::to_string(kForced[p]) + "]").c_str(), r.forced[p]);
      }
      if (r.cusp.ok() && r.ours.ok())
      {
         std::fprintf(stderr, "         cuSPARSE %.1f us, hypre %.1f us, ours %.1f us (%s)\n", r.cusp.t.median_ms * 1e3,
                      r.hypre.ok() ? r.hypre.t.median_ms * 1e3 : 0.0, r.ours.t.median_ms * 1e3, r.ours.path.c_str());
      }
      check_device("after SpMV measurements");
      spmv.push_back(r);
      json.write(spmv.back());
   }

   // ---- SpGEMM --------------------------------------------------------------------------

   struct CsrArrays
   {
      DevBuf<int32_t> row_ptr, col;
      DevBuf<double>  val;
      int64_t         nnz = 0;
   };

   // What the library pays to hand ours' product back to hypre (backend_device.cpp).
   static CsrArrays back_to_csr(const dev::DeviceMbsr<double>& C, const dev::Allocator& alloc)
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

   // C = A * B three ways. Returns the reference product (cuSPARSE's, else hypre's) for a
   // product that feeds on it, or nothing.
   std::optional<DeviceCsr> measure_spgemm(const std::string& matrix, const std::string& group, int level,
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
         r.ours.note = r.cusp.note = r.hypre.note = "empty operand";
         spgemm.push_back(r);
         json.write(spgemm.back());
         return std::nullopt;
      }

      // cuSPARSE, the reference.
      std::optional<DeviceCsr> c_cusp;
      HostCsr                  h_cusp, h_hypre;
      try
      {
         cusp::SpgemmInfo info;
         c_cusp.emplace(cusp::spgemm(cusparse, A, B, &info));
         r.cusp_buffer_bytes = info.buffer1_bytes + info.buffer2_bytes;
         h_cusp              = download(*c_cusp);
         validate(h_cusp, what + " (cuSPARSE)");
         sort_rows(h_cusp);
         r.cusp.status = Status::ok;
      }
      catch (const std::exception& e)
      {
         c_cusp.reset();
         r.cusp.status = Status::error;
         r.cusp.note   = e.what();
         guard_context("cuSPARSE SpGEMM");
      }

      // hypre's own.
      hyp::CsrView hA_view, hB_view;
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
      }

      const HostCsr* ref = nullptr;
      if (r.cusp.ok())
      {
         ref         = &h_cusp;
         r.reference = "cuSPARSE";
         if (r.hypre.ok())
         {
            double      err  = 0.0;
            std::string diff = compare_csr(h_hypre, h_cusp, kSpgemmTolerance, &err);
            r.hypre.rel_err  = err;
            if (!diff.empty())
            {
               r.hypre.status = Status::fail;
               r.hypre.note   = diff + " vs cuSPARSE";
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

      // Ours.
      const dev::Allocator    alloc = plugin_allocator();
      dev::DeviceMbsr<double> mA, mB, mC; // mC: ours' product, kept to time its conversion
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
            r.ours.note   = "no reference result (cuSPARSE and hypre both failed)";
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

      // --precision fp16: the product on fp16 inputs, forced to the tensor and the CUDA cores.
      dev::DeviceMbsr<amgt::half_t> hA16, hB16;
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

      // Timing (only what computed the right result), interleaved. A sample is one whole
      // call; its result is destroyed after the stop event (freeing C is not timed).
      EventPair ev;
      auto      sampler = [&ev](auto run) {
         return std::function<double()>([&ev, run]() mutable {
            ev.start();
            auto result = run();
            ev.stop();
            return ev.elapsed_ms();
         });
      };
      const dev::DeviceMbsr<double>& b  = same ? mA : mB;
      const amgt::CsrView            va = plugin_view(A), vb = plugin_view(B);
      std::vector<Timed>             ts;
      if (r.cusp.ok())
      {
         ts.push_back(Timed{"cuSPARSE SpGEMM", sampler([&] { return cusp::spgemm(cusparse, A, B); }), &r.cusp});
      }
      if (r.hypre.ok())
      {
         void* ha = hA_view.get();
         void* hb = same ? hA_view.get() : hB_view.get();
         ts.push_back(Timed{"hypre SpGEMM", sampler([ha, hb] { return hyp::spgemm(ha, hb); }), &r.hypre});
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
      const dev::DeviceMbsr<amgt::half_t>& b16 = same ? hA16 : hB16;
      for (auto [m, path] : {std::pair<Meas*, dev::SpgemmPath>{&r.half_cc, dev::SpgemmPath::cuda_core},
                             std::pair<Meas*, dev::SpgemmPath>{&r.half_tc, dev::SpgemmPath::tensor_core}})
      {
         if (!r.half_run || !m->ok()) continue;
         ts.push_back(Timed{std::string("ours fp16 SpGEMM ") + dev::to_string(path),
                            sampler([&, path] {
                               return dev::spgemm<amgt::half_t>(hA16, b16, kStream, alloc, nullptr, path);
                            }),
                            m});
      }
      time_interleaved(ts, "SpGEMM timing");
      if (r.ours.ok())
      {
         r.conv_ok = true;
         for (const Timed& t : ts)
            if (t.stats && t.failed) r.conv_ok = false;
      }

      report_problem("spgemm", what, "cuSPARSE", r.cusp);
      report_problem("spgemm", what, "hypre", r.hypre);
      report_problem("spgemm", what, "ours", r.ours);
      if (r.half_run)
      {
         report_problem("spgemm", what, "ours[fp16 cuda_core]", r.half_cc);
         report_problem("spgemm", what, "ours[fp16 tensor_core]", r.half_tc);
      }
      if (r.cusp.ok() && r.ours.ok())
      {
         std::fprintf(stderr, "         cuSPARSE %.3f ms, hypre %.3f ms, ours %.3f ms (%s; +conv %.3f ms)\n",
                      r.cusp.t.median_ms, r.hypre.ok() ? r.hypre.t.median_ms : 0.0, r.ours.t.median_ms,
                      r.ours.path.c_str(), r.conv_ok ? r.ours_with_conversions_ms() : 0.0);
      }
      check_device("after SpGEMM measurements");
      spgemm.push_back(r);
      json.write(spgemm.back());

      if (c_cusp) return c_cusp;
      if (r.hypre.ok()) return upload(h_hypre);
      return std::nullopt;
   }

   // ---- per input -------------------------------------------------------------------------

   void fine_level(const Input& in)
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

   void setup_levels(const Input& in)
   {
      std::fprintf(stderr, "[setup]  %s: BoomerAMG setup (stock hypre, GPU)\n", in.name.c_str());
      hyp::Hierarchy h = hyp::amg_hierarchy(in.A, in.num_functions);
      std::printf("AMG hierarchy of %s (stock hypre setup %.3f s, %zu levels):", in.name.c_str(), h.setup_seconds,
                  h.A.size());
      for (size_t l = 0; l < h.A.size(); ++l)
      {
         std::printf(" L%zu %d rows/%lld nnz%s", l, h.A[l].nrows, static_cast<long long>(h.A[l].nnz()),
                     l + 1 < h.A.size() ? "," : "\n");
      }
      std::fflush(stdout);
      for (size_t l = 0; l + 1 < h.A.size(); ++l)
      {
         const int         level = static_cast<int>(l);
         const std::string where = in.name + "/L" + std::to_string(l);
         attempt("level " + where, [&] {
            const DeviceCsr dA  = upload(h.A[l]);
            const DeviceCsr dP  = upload(h.P[l]);
            const DeviceCsr dPT = cusp::transpose(cusparse, dP);
            if (opt.spmv)
            {
               // A_0 is the fine-level matrix measured above.
               if (l >= 1) attempt("spmv " + where + " A", [&] { measure_spmv(in.name, "setup", level, "A", h.A[l], dA); });
               attempt("spmv " + where + " P", [&] { measure_spmv(in.name, "setup", level, "P", h.P[l], dP); });
               attempt("spmv " + where + " PT", [&] {
                  const HostCsr hPT = download(dPT);
                  measure_spmv(in.name, "setup", level, "PT", hPT, dPT);
               });
            }
            if (opt.spgemm)
            {
               std::optional<DeviceCsr> AP;
               attempt("spgemm " + where + " A*P", [&] { AP = measure_spgemm(in.name, "setup", level, "A*P", dA, dP); });
               if (AP) attempt("spgemm " + where + " PT*AP", [&] { measure_spgemm(in.name, "setup", level, "PT*AP", dPT, *AP); });
            }
         });
      }
   }
};

std::string device_description()
{
   int dev = 0;
   KB_CUDA(cudaGetDevice(&dev));
   cudaDeviceProp p{};
   KB_CUDA(cudaGetDeviceProperties(&p, dev));
   int runtime = 0, driver = 0;
   cudaRuntimeGetVersion(&runtime);
   cudaDriverGetVersion(&driver);
   char buf[512];
   std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %d SMs, %.1f GiB, L2 %.0f MiB), CUDA runtime %d, driver %d", p.name,
                 p.major, p.minor, p.multiProcessorCount, static_cast<double>(p.totalGlobalMem) / (1ull << 30),
                 static_cast<double>(p.l2CacheSize) / (1 << 20), runtime, driver);
   return buf;
}

int run(int argc, char** argv)
{
   Options o;
   try
   {
      o = parse_options(argc, argv);
   }
   catch (const UsageError& e)
   {
      std::fprintf(stderr, "amgt-kernel-bench: %s\n", e.what());
      print_usage(stderr);
      return 2;
   }
   if (o.help)
   {
      print_usage(stdout);
      return 0;
   }
   if (hyp::mpi_size() != 1)
   {
      std::fprintf(stderr, "amgt-kernel-bench: run it on one MPI rank (it measures one GPU)\n");
      return 2;
   }

   KB_CUDA(cudaSetDevice(0));
   set_alloc_mode(o.alloc);
   hyp::initialize(o.alloc == AllocMode::pool);

   std::vector<SpmvRecord>   spmv_done;
   std::vector<SpgemmRecord> spgemm_done;
   int                       status = 0;
   {
      cusp::Handle cusparse;
      int          cusparse_version = 0;
      KB_CUSPARSE(cusparseGetVersion(cusparse.get(), &cusparse_version));
      JsonLines json_off;
      std::unique_ptr<JsonLines> json_file;
      if (!o.json.empty()) json_file = std::make_unique<JsonLines>(o.json);
      JsonLines& json = json_file ? *json_file : json_off;

      RunInfo info;
      info.device   = device_description();
      info.versions = std::string("hypre ") + hyp::version() + ", cuSPARSE " + std::to_string(cusparse_version) +
                      ", AMGT plugin (this tree)";
      info.alloc    = o.alloc == AllocMode::pool
                         ? "pool: cudaMallocAsync/cudaFreeAsync from the default pool, release threshold max; "
                           "shared by ours, cuSPARSE and hypre (hypre_SetUserDeviceMalloc)"
                         : "cuda: cudaMalloc/cudaFree for ours, cuSPARSE and hypre (stock hypre's default)";
      info.settings = o.setup_products ? "PMIS, theta 0.25, max row sum 0.8, max coarse 3, interp 6, trunc 0.1, "
                                         "Pmax 4, relax 18 x1, max levels 7, keep transpose; stock hypre (AMGT off)"
                                       : "not run (--setup-products 0)";
      info.repeat         = o.repeat;
      info.warmup         = o.warmup;
      info.flush_l2       = o.flush_l2;
      info.host_reference = !o.device_only;
      info.precision      = amgt::to_string(o.precision);
      print_header(stdout, info);
      std::fflush(stdout);
      json.write_info(info);

      Bench b{o, cusparse, json, DevBuf<char>(), {}, {}, 0};
      if (o.flush_l2)
      {
         int dev = 0, l2 = 0;
         KB_CUDA(cudaGetDevice(&dev));
         KB_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
         b.l2_scratch = DevBuf<char>(static_cast<size_t>(std::max(l2, 1 << 20)) * 2);
      }

      std::vector<std::function<Input()>> inputs;
      for (const ProblemSpec& p : o.problems) inputs.push_back([p] { return generated_input(p); });
      for (const std::string& f : o.matrices) inputs.push_back([f, &o] { return file_input(f, o.num_functions); });

      try
      {
         for (auto& make : inputs)
         {
            Input in;
            try
            {
               in = make();
            }
            catch (const std::exception& e)
            {
               std::printf("ERROR input: %s\n", e.what());
               status = 3;
               continue;
            }
            std::fprintf(stderr, "== %s: %d x %d, %lld nonzeros\n", in.name.c_str(), in.A.nrows, in.A.ncols,
                         static_cast<long long>(in.A.nnz()));
            b.fine_level(in);
            if (o.setup_products) b.attempt("setup products of " + in.name, [&] { b.setup_levels(in); });
            trim_pool();
         }
      }
      catch (const std::exception& e)
      {
         std::printf("FATAL: %s\n(printing the measurements made so far)\n\n", e.what());
         status = 1;
      }
      spmv_done   = std::move(b.spmv);
      spgemm_done = std::move(b.spgemm);
      if (b.errors > 0 && status == 0) status = 3;
   }

   std::printf("\n");
   if (o.spmv) print_spmv_table(stdout, spmv_done);
   if (o.spmv) print_spmv_paths_table(stdout, spmv_done);
   if (o.spmv) print_conversion_table(stdout, spmv_done);
   if (o.spgemm) print_spgemm_table(stdout, spgemm_done);
   if (o.spgemm) print_spgemm_half_table(stdout, spgemm_done);
   print_geomeans(stdout, spmv_done, spgemm_done);
   const int failures = print_failures(stdout, spmv_done, spgemm_done);
   if (failures > 0 && status == 0) status = 3;
   if (free_errors() > 0)
   {
      std::printf("note: %d device frees reported an error\n", free_errors());
      if (status == 0) status = 3;
   }
   std::fflush(stdout);
   if (status != 1) hyp::finalize(); // after a fatal CUDA error hypre's own cleanup would fail too
   return status;
}

} // namespace
} // namespace amgt::kbench

int main(int argc, char** argv)
{
   // The library reads AMGT once per process, at its first hook: set before anything runs,
   // so every hypre call measured (and the AMG setup) is stock hypre.
   const char* previous = std::getenv("AMGT");
   if (previous && std::string(previous) != "off")
   {
      std::fprintf(stderr, "amgt-kernel-bench: AMGT=%s in the environment; forcing AMGT=off (stock hypre "
                           "is the baseline, ours is called directly)\n", previous);
   }
   setenv("AMGT", "off", 1);

   amgt::kbench::hyp::mpi_init(&argc, &argv);
   int status = 1;
   try
   {
      status = amgt::kbench::run(argc, argv);
   }
   catch (const std::exception& e)
   {
      std::fprintf(stderr, "amgt-kernel-bench: error: %s\n", e.what());
      status = 1;
   }
   amgt::kbench::hyp::mpi_finalize();
   return status;
}
