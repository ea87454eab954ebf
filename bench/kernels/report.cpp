#include "report.h"

#include "vendor_sparse.h"

#include "spgemm/csr_spgemm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <utility>

namespace amgt::kbench {

const char* to_string(Status s)
{
   switch (s)
   {
   case Status::skipped: return "skipped";
   case Status::ok: return "ok";
   case Status::fail: return "FAIL";
   case Status::error: return "ERROR";
   }
   return "?";
}

namespace {

// Column labels of the vendor library: "x" + "cuSP" + suffix (xcuSP, xcuSP+, xcuSPc, ...) and
// "BW" + "csp"; rocSPARSE's (xrSP, BWrsp, ...) in the HIP build.
std::string xv(const char* suffix = "")
{
   return std::string("x") + vsp::short_name() + suffix;
}
std::string bwv()
{
   return std::string("BW") + vsp::bw_name();
}
// The JSON key of a speedup over the vendor library: speedup_vs_cusparse (speedup_vs_rocsparse).
std::string speedup_vs_vendor()
{
   return std::string("speedup_vs_") + vsp::json_id();
}


const char* const kForcedNames[5] = {"cuda_core", "cuda_core_balanced", "tensor_core", "cuda_core_tiles",
                                     "cuda_core_entries"};

std::string fmt(const char* f, double v)
{
   char buf[64];
   std::snprintf(buf, sizeof buf, f, v);
   return buf;
}

std::string count(int64_t v)
{
   return std::to_string(v);
}

// A time cell: the median (times scale), or why there is none.
std::string time_cell(const Meas& m, double scale, const char* f)
{
   switch (m.status)
   {
   case Status::ok: return fmt(f, m.t.median_ms * scale);
   case Status::fail: return "FAIL";
   case Status::error: return "ERROR";
   case Status::skipped: return "-";
   }
   return "?";
}

std::string ratio_cell(double other_ms, double ours_ms)
{
   if (!(other_ms > 0.0) || !(ours_ms > 0.0)) return "-";
   return fmt("%.2f", other_ms / ours_ms);
}

std::string ratio_cell(const Meas& other, const Meas& ours)
{
   if (!other.ok() || !ours.ok()) return "-";
   return ratio_cell(other.t.median_ms, ours.t.median_ms);
}

std::string bw_cell(double bytes, const Meas& m)
{
   if (!m.ok() || !(m.t.median_ms > 0.0) || !(bytes > 0.0)) return "-";
   return fmt("%.2f", bytes / (m.t.median_ms * 1e-3) / kPracticalBandwidth);
}

// AMGT_SPGEMM=auto's pick for a product (csr_spgemm.h's rules): the row-wise kernel (in the
// design automatic runs when memory suffices), hypre's binned mode or its default mode.
enum class AutoPick { rows, hypre_binned, hypre };

AutoPick auto_pick(const SpgemmRecord& r)
{
   if (amgt::csr_spgemm::rows_kernel_wins(r.m, r.nnz_a, r.k, r.nnz_b)) return AutoPick::rows;
   if (amgt::csr_spgemm::hypre_binned_wins(r.m, r.nnz_a, r.k, r.nnz_b)) return AutoPick::hypre_binned;
   return AutoPick::hypre;
}

const char* name(AutoPick p)
{
   return p == AutoPick::rows ? "rows" : p == AutoPick::hypre_binned ? "hypreB" : "hypre";
}

// The pick's measurement (nullptr if it did not run).
const Meas* auto_pick_meas(const SpgemmRecord& r)
{
   const Meas* m = &r.hypre;
   switch (auto_pick(r))
   {
   case AutoPick::hypre: break;
   case AutoPick::hypre_binned: m = &r.hypre_binned; break;
   case AutoPick::rows:
      m = &r.rows[amgt::csr_spgemm::choose_design(amgt::CsrSpgemmDesign::automatic, r.rows_sum_ub, r.m,
                                                  std::numeric_limits<size_t>::max()) ==
                          amgt::CsrSpgemmDesign::one_pass
                      ? 0
                      : 1];
      break;
   }
   return m->ok() ? m : nullptr;
}

std::string label(const std::string& matrix, const std::string& group, int level)
{
   return group == "setup" ? matrix + "/L" + std::to_string(level) : matrix;
}

// The fastest correct run of ours among the automatic and the forced paths.
const Meas* best_ours(const SpmvRecord& r)
{
   const Meas* best = r.ours.ok() ? &r.ours : nullptr;
   for (const Meas& f : r.forced)
   {
      if (f.ok() && (!best || f.t.median_ms < best->t.median_ms)) best = &f;
   }
   return best;
}

struct Geo
{
   double sum_log = 0.0;
   int    n       = 0;
   void   add(double other_ms, double ours_ms)
   {
      if (other_ms > 0.0 && ours_ms > 0.0)
      {
         sum_log += std::log(other_ms / ours_ms);
         ++n;
      }
   }
   std::string cell() const
   {
      if (n == 0) return "-";
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f (n=%d)", std::exp(sum_log / n), n);
      return buf;
   }
};

std::string json_escape(const std::string& s)
{
   std::string o;
   o.reserve(s.size() + 2);
   for (unsigned char c : s)
   {
      switch (c)
      {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
         if (c < 0x20)
         {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            o += buf;
         }
         else
         {
            o += static_cast<char>(c);
         }
      }
   }
   return o;
}

// Minimal JSON object builder (one line).
class Obj
{
public:
   Obj& str(const char* k, const std::string& v)
   {
      key(k);
      s_ << '"' << json_escape(v) << '"';
      return *this;
   }
   Obj& num(const char* k, double v)
   {
      key(k);
      if (std::isfinite(v))
      {
         char buf[64];
         std::snprintf(buf, sizeof buf, "%.9g", v);
         s_ << buf;
      }
      else
      {
         s_ << "null";
      }
      return *this;
   }
   Obj& integer(const char* k, int64_t v)
   {
      key(k);
      s_ << v;
      return *this;
   }
   Obj& boolean(const char* k, bool v)
   {
      key(k);
      s_ << (v ? "true" : "false");
      return *this;
   }
   Obj& meas(const Meas& m)
   {
      str("status", to_string(m.status));
      if (!m.note.empty()) str("note", m.note);
      if (!m.path.empty()) str("path", m.path);
      num("rel_err", m.rel_err);
      if (m.ok())
      {
         integer("samples", m.t.samples);
         num("median_ms", m.t.median_ms);
         num("min_ms", m.t.min_ms);
         num("max_ms", m.t.max_ms);
      }
      return *this;
   }
   std::string done() const { return "{" + s_.str() + "}"; }

private:
   void key(const char* k)
   {
      if (!first_) s_ << ',';
      first_ = false;
      s_ << '"' << k << "\":";
   }
   std::ostringstream s_;
   bool               first_ = true;
};

} // namespace

void print_header(std::FILE* out, const RunInfo& info)
{
   std::fprintf(out, "amgt-kernel-bench\n");
   std::fprintf(out, "  device    : %s\n", info.device.c_str());
   std::fprintf(out, "  versions  : %s\n", info.versions.c_str());
   std::fprintf(out, "  allocator : %s\n", info.alloc.c_str());
   std::fprintf(out, "  timing    : %sEvents on the legacy stream; median of %d samples after %d warm-up rounds, "
                     "implementations sampled in turn%s\n",
                dev::kApiPrefix, info.repeat, info.warmup, info.flush_l2 ? ", L2 overwritten before each SpMV sample" : "");
   std::fprintf(out, "  checks    : ours vs %s (SpMV rel. 2-norm error < %.0e; SpGEMM same pattern, "
                     "values within %.0e)%s\n",
                vsp::name(), kSpmvTolerance, kSpgemmTolerance,
                info.host_reference ? "; SpMV of every implementation also vs a CPU reference" : "");
   std::fprintf(out, "  AMG setup : %s\n", info.settings.c_str());
   if (!info.hypre)
   {
      std::fprintf(out, "  hypre     : not in this build: hypre's kernels are not in the tables (their columns "
                        "show -), no AMG setup products\n");
   }
   if (info.precision != "fp64")
   {
      std::fprintf(out, "  precision : ours stores values in %s (x, y fp64; SpMV checked with a normwise "
                        "tolerance of that precision); %s and hypre run fp64 CSR\n",
                   info.precision.c_str(), vsp::name());
   }
   std::fprintf(out, "  speedup   : t_other / t_ours (> 1: ours faster); BW: bytes / time as a fraction of "
                     "%.1f TB/s\n\n",
                kPracticalBandwidth / 1e12);
}

void print_spmv_table(std::FILE* out, const std::vector<SpmvRecord>& recs)
{
   // "fp64" unless --precision: the default output stays as it was.
   const std::string prec =
       recs.empty() || recs.front().precision == "fp64" ? "fp64" : "ours " + recs.front().precision;
   std::fprintf(out,
      "== SpMV  y = A*x + beta*y  (%s, alpha 1, beta 0.5; time per call in us, median over samples of "
      "'batch' calls rotating 'nx' x vectors)\n"
      "   ours = automatic path (reported); cc/ccb/tc/cct/cce = ours forced to cuda_core / cuda_core_balanced / "
      "tensor_core / cuda_core_tiles / cuda_core_entries\n"
      "   BW columns: CSR minimal bytes (12 nnz + 4 (n+1) + 8 (ncols + 2 n)) / time; 'own': ours with its "
      "own format's bytes\n", prec.c_str());
   std::fprintf(out, "%-26s %-2s %9s %10s %5s %-18s %2s %4s | %9s %9s %9s | %9s %9s %9s %9s %9s | %6s %6s | "
                     "%5s %5s %5s %5s | %8s\n",
                "matrix", "op", "rows", "nnz", "fill", "auto path", "nx", "bat", vsp::name(), "hypre",
                "ours", "cc", "ccb", "tc", "cct", "cce", xv().c_str(), "xhypre", bwv().c_str(), "BWhyp", "BWour", "own", "conv+pl");
   for (const SpmvRecord& r : recs)
   {
      std::fprintf(out, "%-26s %-2s %9s %10s %5.2f %-18s %2d %4d | %9s %9s %9s | %9s %9s %9s %9s %9s | %6s %6s | "
                        "%5s %5s %5s %5s | %8s\n",
                   label(r.matrix, r.group, r.level).c_str(), r.op.c_str(), count(r.rows).c_str(),
                   count(r.nnz).c_str(), r.fill, r.ours.path.empty() ? "-" : r.ours.path.c_str(), r.nx,
                   r.batch, time_cell(r.vendor, 1e3, "%.1f").c_str(), time_cell(r.hypre, 1e3, "%.1f").c_str(),
                   time_cell(r.ours, 1e3, "%.1f").c_str(), time_cell(r.forced[0], 1e3, "%.1f").c_str(),
                   time_cell(r.forced[1], 1e3, "%.1f").c_str(), time_cell(r.forced[2], 1e3, "%.1f").c_str(),
                   time_cell(r.forced[3], 1e3, "%.1f").c_str(), time_cell(r.forced[4], 1e3, "%.1f").c_str(),
                   ratio_cell(r.vendor, r.ours).c_str(), ratio_cell(r.hypre, r.ours).c_str(),
                   bw_cell(r.csr_bytes, r.vendor).c_str(), bw_cell(r.csr_bytes, r.hypre).c_str(),
                   bw_cell(r.csr_bytes, r.ours).c_str(), bw_cell(r.ours.bytes, r.ours).c_str(),
                   (r.convert_ms + r.plan_ms > 0.0) ? fmt("%.3f", r.convert_ms + r.plan_ms).c_str() : "-");
   }
   std::fprintf(out, "\n");
}

// Fewest bytes the hashed conversion (packed layout) can move: the CSR read once (row
// pointers, columns, fp64 values) and the layout written once (blk_ptr, packed_row, blk_col,
// blk_map, packed values in the storage precision, the 2-byte entry decode). Its passes read the
// columns twice and the plan reads the layout's summary; neither is counted.
double conversion_bytes(const SpmvRecord& r)
{
   const double vbytes = r.precision == "fp16" ? 2.0 : r.precision == "fp32" ? 4.0 : 8.0;
   const double brows  = static_cast<double>((r.rows + 3) / 4) + 1.0;
   const double nnz = static_cast<double>(r.nnz), tiles = static_cast<double>(r.tiles);
   return 4.0 * (static_cast<double>(r.rows) + 1.0) + 12.0 * nnz + 12.0 * brows + 6.0 * tiles +
          (vbytes + 2.0) * nnz;
}

// Fewest bytes of the entry-order conversion: row pointers and columns read once, the values
// read and written once in fp32/fp16 (fp64 lends them: nothing), the tiles (blk_ptr,
// packed_row, blk_col, blk_map) and the 2-byte decode written once.
double entry_conversion_bytes(const SpmvRecord& r)
{
   const double vbytes = r.precision == "fp16" ? 2.0 : r.precision == "fp32" ? 4.0 : 8.0;
   const double brows  = static_cast<double>((r.rows + 3) / 4) + 1.0;
   const double nnz = static_cast<double>(r.nnz), tiles = static_cast<double>(r.tiles);
   const double values = r.precision == "fp64" ? 0.0 : (8.0 + vbytes) * nnz;
   return 4.0 * (static_cast<double>(r.rows) + 1.0) + 4.0 * nnz + 12.0 * brows + 6.0 * tiles + 2.0 * nnz + values;
}

void print_conversion_table(std::FILE* out, const std::vector<SpmvRecord>& recs)
{
   std::fprintf(out,
      "== Conversion + SpMV plan per operand (ms, median): csr_to_mbsr + make_spmv_plan(automatic)\n"
      "   sorted = radix-sort conversion, dense layout (the plan packs it); hashed = hashed conversion,\n"
      "   packed layout only, bitmap order, tiles in first-seen order (not what the library converts);\n"
      "   xsorted = t_sorted / t_hashed; MB = fewest bytes of the hashed conversion (CSR read once,\n"
      "   layout written once), BWhash = MB / t_hashed as a fraction of 3.0 TB/s; hashedR = the same\n"
      "   with the tiles ranked by block column (the library's fp32/fp16 copies), xhr = t_hashedR /\n"
      "   t_hashed; entry = the entry-order\n"
      "   conversion (packed entries in CSR order, fp64 values lent, one pass, first-seen tiles: the\n"
      "   library's fp64 copies), MBe its fewest bytes, BWe = MBe / t_entry; entryR = ranked, xer =\n"
      "   t_entryR / t_entry; entry2p = entry in two passes (count, scan, write), x1p = t_entry2p /\n"
      "   t_entry; SpMV = the automatic path on the dense+packed copy (tiles ranked, bitmap order, us),\n"
      "   SpMVl = the library's copy for the entries kernel (fp64: entry order, first-seen tiles;\n"
      "   fp32/fp16: bitmap order, tiles ranked, without the dense layout; us)\n");
   std::fprintf(out,
                "%-26s %-2s %9s %10s %5s | %9s %9s | %7s | %8s %6s | %8s %5s | %8s %8s %5s | %8s %5s | %8s %5s | "
                "%8s %8s\n",
                "matrix", "op", "rows", "nnz", "fill", "sorted", "hashed", "xsorted", "MB", "BWhash", "hashedR", "xhr",
                "entry", "MBe", "BWe", "entryR", "xer", "entry2p", "x1p", "SpMV", "SpMVl");
   Geo all, hranked, eranked;
   for (const SpmvRecord& r : recs)
   {
      if (!r.conv_sorted.ok() && !r.conv_hashed.ok()) continue;
      const double bytes = conversion_bytes(r);
      const std::string bw =
         r.conv_hashed.ok() && r.conv_hashed.t.median_ms > 0.0
            ? fmt("%.2f", bytes / (r.conv_hashed.t.median_ms * 1e-3) / kPracticalBandwidth)
            : std::string("-");
      const double      ebytes = entry_conversion_bytes(r);
      const std::string bwe =
         r.conv_entry.ok() && r.conv_entry.t.median_ms > 0.0
            ? fmt("%.2f", ebytes / (r.conv_entry.t.median_ms * 1e-3) / kPracticalBandwidth)
            : std::string("-");
      std::fprintf(out,
                   "%-26s %-2s %9s %10s %5.2f | %9s %9s | %7s | %8.1f %6s | %8s %5s | %8s %8.1f %5s | %8s %5s | "
                   "%8s %5s | %8s %8s\n",
                   label(r.matrix, r.group, r.level).c_str(), r.op.c_str(), count(r.rows).c_str(),
                   count(r.nnz).c_str(), r.fill, time_cell(r.conv_sorted, 1.0, "%.3f").c_str(),
                   time_cell(r.conv_hashed, 1.0, "%.3f").c_str(), ratio_cell(r.conv_sorted, r.conv_hashed).c_str(),
                   bytes / 1e6, bw.c_str(), time_cell(r.conv_hashed_sorted, 1.0, "%.3f").c_str(),
                   ratio_cell(r.conv_hashed_sorted, r.conv_hashed).c_str(),
                   time_cell(r.conv_entry, 1.0, "%.3f").c_str(), ebytes / 1e6, bwe.c_str(),
                   time_cell(r.conv_entry_sorted, 1.0, "%.3f").c_str(),
                   ratio_cell(r.conv_entry_sorted, r.conv_entry).c_str(),
                   time_cell(r.conv_entry2, 1.0, "%.3f").c_str(), ratio_cell(r.conv_entry2, r.conv_entry).c_str(),
                   time_cell(r.ours, 1e3, "%.1f").c_str(), time_cell(r.spmv_entry, 1e3, "%.1f").c_str());
      if (r.conv_sorted.ok() && r.conv_hashed.ok()) all.add(r.conv_sorted.t.median_ms, r.conv_hashed.t.median_ms);
      if (r.conv_hashed_sorted.ok() && r.conv_hashed.ok())
         hranked.add(r.conv_hashed_sorted.t.median_ms, r.conv_hashed.t.median_ms);
      if (r.conv_entry_sorted.ok() && r.conv_entry.ok())
         eranked.add(r.conv_entry_sorted.t.median_ms, r.conv_entry.t.median_ms);
   }
   std::fprintf(out, "geometric mean xsorted: %s, xhr: %s, xer: %s\n\n", all.cell().c_str(), hranked.cell().c_str(),
                eranked.cell().c_str());
}

void print_layout_table(std::FILE* out, const std::vector<SpmvRecord>& recs)
{
   std::fprintf(out,
      "== SpMV per layout (us, median) and what one call moves: mbsr = ours on the tiles (automatic path),\n"
      "   rows = ours on the row-wise layout (rows16: 16-bit column offsets); MB = the layout's bytes per call\n"
      "   (matrix, x once, y read and written), BW = MB / time as a fraction of 3.0 TB/s; fill~ = the sampled\n"
      "   estimate, rule = the layout the library picks from it (choose_layout); build = fill sample + make_rows\n"
      "   (ms) and its bytes' fraction of 3.0 TB/s ('free': fp64 without offsets reads hypre's arrays); G = lanes\n"
      "   per row of the rule (rows_lanes), G/2 and 2G = the row-wise SpMV with half and twice as many (us;\n"
      "   with --rows-lanes-alt A,B: with A and B lanes)\n");
   std::fprintf(out, "%-26s %-2s %9s %10s %5s %5s %-4s | %9s %9s | %8s %5s | %-6s %8s %8s %5s | %2s %8s %8s | %7s %6s\n",
                "matrix", "op", "rows", "nnz", "fill", "fill~", "rule", vsp::name(), "hypre", "mbsr", "BW", "rows", "us",
                "MB", "BW", "G", "G/2", "2G", "build", "BWb");
   for (const SpmvRecord& r : recs)
   {
      if (r.rowwise.status == Status::skipped && r.rowwise.note.empty()) continue;
      const std::string build =
         r.rowwise_build.ok() ? fmt("%.3f", r.rowwise_build.t.median_ms) : std::string("-");
      const std::string bwb = r.rows_build_bytes <= 0.0 ? std::string("free")
                              : r.rowwise_build.ok() && r.rowwise_build.t.median_ms > 0.0
                                 ? fmt("%.2f", r.rows_build_bytes / (r.rowwise_build.t.median_ms * 1e-3) / kPracticalBandwidth)
                                 : std::string("-");
      std::fprintf(out, "%-26s %-2s %9s %10s %5.2f %5.2f %-4s | %9s %9s | %8s %5s | %-6s %8s %8.1f %5s | %2d %8s %8s | %7s %6s\n",
                   label(r.matrix, r.group, r.level).c_str(), r.op.c_str(), count(r.rows).c_str(),
                   count(r.nnz).c_str(), r.fill, r.est_fill, r.layout.empty() ? "-" : r.layout.c_str(),
                   time_cell(r.vendor, 1e3, "%.1f").c_str(), time_cell(r.hypre, 1e3, "%.1f").c_str(),
                   time_cell(r.ours, 1e3, "%.1f").c_str(), bw_cell(r.ours.bytes, r.ours).c_str(),
                   r.rowwise.path.empty() ? "-" : r.rowwise.path.c_str(), time_cell(r.rowwise, 1e3, "%.1f").c_str(),
                   r.rowwise.bytes / 1e6, bw_cell(r.rowwise.bytes, r.rowwise).c_str(), r.rows_lanes,
                   time_cell(r.rowwise_lanes[0], 1e3, "%.1f").c_str(), time_cell(r.rowwise_lanes[1], 1e3, "%.1f").c_str(),
                   build.c_str(), bwb.c_str());
   }
   std::fprintf(out, "\n");
}

void print_spgemm_table(std::FILE* out, const std::vector<SpgemmRecord>& recs)
{
   std::fprintf(out,
      "== SpGEMM  C = A*B  (fp64; ms, median over samples; %s includes its buffer and output "
      "allocations, hypre and ours their internal ones)\n"
      "   ours = amgt::device::spgemm on mBSR inputs; convA/convB = csr_to_mbsr; back = C to CSR "
      "(mbsr_nnz + allocation + mbsr_to_csr); +conv = all of them\n"
      "   ours kernel = --spgemm-path:numeric kernel that ran (pairs = atomics over flattened tile pairs, "
      "ordered = per A tile, tensor cores for dense tiles)\n"
      "   rowsA/rowsB/rowsC/rowsL = ours row-wise (amgt::device::csr_spgemm: CSR in, CSR out, no conversion), design "
      "one_pass / two_pass / two_pass_tight / lean (lean: up to 2^18 rows) / short_rows (opt-in: sorted rows of <= 128 terms, "
      "no hash table); xhypA/B/C/L/S = hypre / rows (> 1: rows faster)\n"
      "   hypreB = hypre's own kernel in its binned mode (hypre_SetSpGemmBinned(1); hypre's default is unbinned)\n"
      "   auto = the kernel AMGT_SPGEMM=auto picks for the product (csr_spgemm.h's rules: rows = row-wise, "
      "hypreB = hypre's binned mode, hypre = its default mode)\n",
      vsp::name());
   std::fprintf(out, "%-26s %-6s %9s %9s %10s %10s %11s %5s %5s %5s | %9s %9s %9s %9s | %8s %8s %8s %9s | "
                     "%6s %6s %6s %6s | %9s %9s %9s %9s %9s %6s %6s %6s %6s %6s %-6s | %-8s | %s\n",
                "matrix", "prod", "m", "n", "nnzA", "nnzB", "nnzC", "fillA", "fillB", "fillC", vsp::name(),
                "hypre", "hypreB", "ours", "convA", "convB", "back", "ours+conv", xv().c_str(), "xhypre", xv("+").c_str(), "xhyp+",
                "rowsA", "rowsB", "rowsC", "rowsL", "rowsS", "xhypA", "xhypB", "xhypC", "xhypL", "xhypS", "auto", "ref",
                "ours kernel");
   for (const SpgemmRecord& r : recs)
   {
      const double with = r.ours.ok() && r.conv_ok ? r.ours_with_conversions_ms() : 0.0;
      std::fprintf(out, "%-26s %-6s %9s %9s %10s %10s %11s %5.2f %5.2f %5.2f | %9s %9s %9s %9s | %8s %8s %8s %9s | "
                        "%6s %6s %6s %6s | %9s %9s %9s %9s %9s %6s %6s %6s %6s %6s %-6s | %-8s | %s\n",
                   label(r.matrix, r.group, r.level).c_str(), r.product.c_str(), count(r.m).c_str(),
                   count(r.n).c_str(), count(r.nnz_a).c_str(), count(r.nnz_b).c_str(),
                   r.nnz_c > 0 ? count(r.nnz_c).c_str() : "-", r.fill_a, r.fill_b, r.fill_c,
                   time_cell(r.vendor, 1.0, "%.3f").c_str(), time_cell(r.hypre, 1.0, "%.3f").c_str(),
                   time_cell(r.hypre_binned, 1.0, "%.3f").c_str(), time_cell(r.ours, 1.0, "%.3f").c_str(),
                   r.conv_ok ? fmt("%.3f", r.conv_a.median_ms).c_str() : "-",
                   r.conv_ok && !r.b_is_a ? fmt("%.3f", r.conv_b.median_ms).c_str() : "-",
                   r.conv_ok ? fmt("%.3f", r.back.median_ms).c_str() : "-",
                   with > 0.0 ? fmt("%.3f", with).c_str() : "-", ratio_cell(r.vendor, r.ours).c_str(),
                   ratio_cell(r.hypre, r.ours).c_str(),
                   r.vendor.ok() ? ratio_cell(r.vendor.t.median_ms, with).c_str() : "-",
                   r.hypre.ok() ? ratio_cell(r.hypre.t.median_ms, with).c_str() : "-",
                   time_cell(r.rows[0], 1.0, "%.3f").c_str(), time_cell(r.rows[1], 1.0, "%.3f").c_str(),
                   time_cell(r.rows[2], 1.0, "%.3f").c_str(), time_cell(r.rows[3], 1.0, "%.3f").c_str(),
                   time_cell(r.rows[4], 1.0, "%.3f").c_str(),
                   ratio_cell(r.hypre, r.rows[0]).c_str(), ratio_cell(r.hypre, r.rows[1]).c_str(),
                   ratio_cell(r.hypre, r.rows[2]).c_str(), ratio_cell(r.hypre, r.rows[3]).c_str(),
                   ratio_cell(r.hypre, r.rows[4]).c_str(),
                   name(auto_pick(r)),
                   r.reference.c_str(), r.ours.path.empty() ? "-" : r.ours.path.c_str());
   }
   std::fprintf(out, "\n");
}

void print_spmv_paths_table(std::FILE* out, const std::vector<SpmvRecord>& recs)
{
   if (recs.empty() || recs.front().precision == "fp64") return;
   const std::string prec = recs.front().precision;
   std::fprintf(out,
      "== SpMV paths, ours in %s: cc = cuda_core, tc = tensor_core (forced; fp32 has no tensor-core "
      "path and runs cuda_core), %s fp64 CSR\n"
      "   times in us; tc/cc = t_cc / t_tc (> 1: tensor cores faster); %s = t_%s / t_path; "
      "BW = bytes the path reads and writes / time,\n"
      "   fraction of %.1f TB/s (%s: 12 nnz + 4 (n+1) + 8 (ncols + 2 n); cc: 12 (block_rows+1) + 6 "
      "tiles + sizeof(V) nnz + vectors; tc: 4 (block_rows+1) + (4 + 16 sizeof(V)) tiles + vectors)\n",
      prec.c_str(), vsp::name(), xv().c_str(), vsp::name(), kPracticalBandwidth / 1e12, vsp::name());
   std::fprintf(out, "%-26s %-2s %9s %10s %5s | %9s %9s %9s | %6s %6s %6s | %6s %6s %6s\n", "matrix", "op",
                "rows", "nnz", "fill", vsp::name(), "cc", "tc", "tc/cc", xv("c").c_str(), xv("t").c_str(), bwv().c_str(),
                "BWcc", "BWtc");
   for (const SpmvRecord& r : recs)
   {
      const Meas& cc = r.forced[0];
      const Meas& tc = r.forced[2];
      std::fprintf(out, "%-26s %-2s %9s %10s %5.2f | %9s %9s %9s | %6s %6s %6s | %6s %6s %6s\n",
                   label(r.matrix, r.group, r.level).c_str(), r.op.c_str(), count(r.rows).c_str(),
                   count(r.nnz).c_str(), r.fill, time_cell(r.vendor, 1e3, "%.1f").c_str(),
                   time_cell(cc, 1e3, "%.1f").c_str(), time_cell(tc, 1e3, "%.1f").c_str(),
                   ratio_cell(cc, tc).c_str(), ratio_cell(r.vendor, cc).c_str(),
                   ratio_cell(r.vendor, tc).c_str(), bw_cell(r.csr_bytes, r.vendor).c_str(),
                   bw_cell(cc.bytes, cc).c_str(), bw_cell(tc.bytes, tc).c_str());
   }
   std::fprintf(out, "\n");
}

void print_spgemm_half_table(std::FILE* out, const std::vector<SpgemmRecord>& recs)
{
   bool any = false;
   for (const SpgemmRecord& r : recs) any = any || r.half_run;
   if (!any) return;
   std::fprintf(out,
      "== SpGEMM fp16: ours on fp16 mBSR inputs, every tile pair forced to the tensor cores (tc: mma "
      "m16n8k16, fp32 accumulation) or to the CUDA cores (cc);\n"
      "   ms, median; ours64 = the fp64 product of the table above; tc/cc = t_cc / t_tc (> 1: tensor "
      "cores faster); tcpairs = tile pairs through the mma\n");
   std::fprintf(out, "%-26s %-6s %9s %5s | %9s %9s %9s %9s | %6s %6s %6s | %11s\n", "matrix", "prod", "m",
                "fillA", vsp::name(), "ours64", "cc", "tc", "tc/cc", xv("c").c_str(), xv("t").c_str(), "tcpairs");
   for (const SpgemmRecord& r : recs)
   {
      if (!r.half_run) continue;
      std::fprintf(out, "%-26s %-6s %9s %5.2f | %9s %9s %9s %9s | %6s %6s %6s | %11s\n",
                   label(r.matrix, r.group, r.level).c_str(), r.product.c_str(), count(r.m).c_str(),
                   r.fill_a, time_cell(r.vendor, 1.0, "%.3f").c_str(),
                   time_cell(r.ours, 1.0, "%.3f").c_str(), time_cell(r.half_cc, 1.0, "%.3f").c_str(),
                   time_cell(r.half_tc, 1.0, "%.3f").c_str(), ratio_cell(r.half_cc, r.half_tc).c_str(),
                   ratio_cell(r.vendor, r.half_cc).c_str(), ratio_cell(r.vendor, r.half_tc).c_str(),
                   count(r.half_tc_products).c_str());
   }
   std::fprintf(out, "\n");
}

void print_spgemm_layout_table(std::FILE* out, const std::vector<SpgemmRecord>& recs)
{
   bool any = false;
   for (const SpgemmRecord& r : recs) any = any || r.layout_c.status != Status::skipped;
   if (!any) return;
   std::fprintf(out,
      "== Square products (a Galerkin product's C is the next level's operator): the product AMGT_SPGEMM=auto\n"
      "   picks, then C put in the layout its SpMV reads, as the end of the library's setup does it (fill sample,\n"
      "   layout rule, make_rows or the entry-order mBSR conversion + SpMV plan; in the bench's --precision; no\n"
      "   value statistics). ms, median; +layout = (pick + layout) / pick: the most a product that wrote C in\n"
      "   that layout in the same pass could save against today's two steps\n");
   std::fprintf(out, "%-26s %-6s %9s %11s | %-6s %9s | %-6s %9s | %7s\n", "matrix", "prod", "m", "nnzC", "pick",
                "ms", "layout", "ms", "+layout");
   Geo g; // (pick + layout) against pick
   for (const SpgemmRecord& r : recs)
   {
      if (r.layout_c.status == Status::skipped) continue;
      const Meas* pick = auto_pick_meas(r);
      const bool  both = pick && r.layout_c.ok();
      if (both) g.add(pick->t.median_ms + r.layout_c.t.median_ms, pick->t.median_ms);
      std::fprintf(out, "%-26s %-6s %9s %11s | %-6s %9s | %-6s %9s | %7s\n",
                   label(r.matrix, r.group, r.level).c_str(), r.product.c_str(), count(r.m).c_str(),
                   r.nnz_c > 0 ? count(r.nnz_c).c_str() : "-", name(auto_pick(r)),
                   pick ? fmt("%.3f", pick->t.median_ms).c_str() : "-",
                   r.layout_c.path.empty() ? "-" : r.layout_c.path.c_str(), time_cell(r.layout_c, 1.0, "%.3f").c_str(),
                   both ? ratio_cell(pick->t.median_ms + r.layout_c.t.median_ms, pick->t.median_ms).c_str() : "-");
   }
   std::fprintf(out, "geomean of +layout: %s\n\n", g.cell().c_str());
}

// Fewest bytes of C = A*B in CSR (fp64 values, 32-bit indices): A and B read once, C written
// once, row pointers included.
static double spgemm_min_bytes(const SpgemmRecord& r)
{
   const double ptr = 4.0, entry = 4.0 + 8.0;
   return ptr * (r.m + 1) + entry * r.nnz_a + ptr * (r.k + 1) + entry * r.nnz_b + ptr * (r.m + 1) + entry * r.nnz_c;
}

void print_spgemm_work_table(std::FILE* out, const std::vector<SpgemmRecord>& recs)
{
   bool any = false;
   for (const SpgemmRecord& r : recs) any = any || r.terms > 0;
   if (!any) return;
   std::fprintf(out,
      "== SpGEMM work: what bounds the products. terms = multiply-adds (sum over A's entries a_ij of |B(j,:)|; one\n"
      "   hash insert each in hypre's kernels and the row-wise ones), terms/nnzC = how many terms fall on one entry of C,\n"
      "   MB = fewest bytes (A and B read once, C written once, fp64 CSR). Per kernel: G terms/s and, in brackets,\n"
      "   MB / time as a fraction of %.1f TB/s. rows = the faster of the row-wise one_pass and two_pass, short = the\n"
      "   row-wise short_rows design (opt-in: rows of <= 128 terms sorted in registers, no hash table), tiles = ours\n"
      "   on mBSR inputs (kernel only, no conversions)\n",
      kPracticalBandwidth / 1e12);
   std::fprintf(out, "%-26s %-6s %9s %12s %11s %7s %9s | %-14s %-14s %-14s %-14s %-14s %-14s\n", "matrix", "prod",
                "m", "terms", "nnzC", "t/nnzC", "MB", "hypre", "hypreB", "rows", "short", "tiles", vsp::name());
   Geo g_hypre, g_binned, g_rows, g_short; // terms/s of each kernel against the faster of hypre's two modes
   for (const SpgemmRecord& r : recs)
   {
      if (r.terms <= 0) continue;
      const double bytes = spgemm_min_bytes(r);
      auto         cell  = [&](const Meas* m) -> std::string {
         if (!m || !m->ok() || m->t.median_ms <= 0.0) return "-";
         const double s = m->t.median_ms * 1e-3;
         return fmt("%.1f", r.terms / s / 1e9) + " (" + fmt("%.2f", bytes / s / kPracticalBandwidth) + ")";
      };
      const Meas* rows = nullptr;
      for (int d = 0; d < 2; ++d)
         if (r.rows[d].ok() && (!rows || r.rows[d].t.median_ms < rows->t.median_ms)) rows = &r.rows[d];
      std::fprintf(out, "%-26s %-6s %9s %12s %11s %7s %9.1f | %-14s %-14s %-14s %-14s %-14s %-14s\n",
                   label(r.matrix, r.group, r.level).c_str(), r.product.c_str(), count(r.m).c_str(),
                   count(r.terms).c_str(), r.nnz_c > 0 ? count(r.nnz_c).c_str() : "-",
                   r.nnz_c > 0 ? fmt("%.2f", static_cast<double>(r.terms) / r.nnz_c).c_str() : "-", bytes / 1e6,
                   cell(&r.hypre).c_str(), cell(&r.hypre_binned).c_str(), cell(rows).c_str(), cell(&r.rows[4]).c_str(),
                   cell(&r.ours).c_str(), cell(&r.vendor).c_str());
      const Meas* best_hypre = r.hypre.ok() ? &r.hypre : nullptr;
      if (r.hypre_binned.ok() && (!best_hypre || r.hypre_binned.t.median_ms < best_hypre->t.median_ms))
         best_hypre = &r.hypre_binned;
      if (best_hypre)
      {
         if (r.hypre.ok()) g_hypre.add(best_hypre->t.median_ms, r.hypre.t.median_ms);
         if (r.hypre_binned.ok()) g_binned.add(best_hypre->t.median_ms, r.hypre_binned.t.median_ms);
         if (rows) g_rows.add(best_hypre->t.median_ms, rows->t.median_ms);
         if (r.rows[4].ok()) g_short.add(best_hypre->t.median_ms, r.rows[4].t.median_ms);
      }
   }
   std::fprintf(out,
                "geomean against the faster of hypre's two modes (> 1: faster): hypre %s, hypreB %s, rows %s, short %s\n\n",
                g_hypre.cell().c_str(), g_binned.cell().c_str(), g_rows.cell().c_str(), g_short.cell().c_str());
}

void print_geomeans(std::FILE* out, const std::vector<SpmvRecord>& spmv,
                    const std::vector<SpgemmRecord>& spgemm)
{
   enum
   {
      kFine,
      kSetup,
      kAll
   };
   auto slot = [](const std::string& group) { return group == "fine" ? kFine : kSetup; };
   Geo mv_vendor[3], mv_hyp[3], mv_best_vendor[3], mv_best_hyp[3];
   for (const SpmvRecord& r : spmv)
   {
      const int g = slot(r.group);
      for (int s : {g, static_cast<int>(kAll)})
      {
         if (r.ours.ok() && r.vendor.ok()) mv_vendor[s].add(r.vendor.t.median_ms, r.ours.t.median_ms);
         if (r.ours.ok() && r.hypre.ok()) mv_hyp[s].add(r.hypre.t.median_ms, r.ours.t.median_ms);
         if (const Meas* b = best_ours(r))
         {
            if (r.vendor.ok()) mv_best_vendor[s].add(r.vendor.t.median_ms, b->t.median_ms);
            if (r.hypre.ok()) mv_best_hyp[s].add(r.hypre.t.median_ms, b->t.median_ms);
         }
      }
   }
   Geo mm_vendor[3], mm_hyp[3], mm_vendor_conv[3], mm_hyp_conv[3];
   Geo rows_vendor[kRowDesignCount][3], rows_hyp[kRowDesignCount][3]; // [design][slot]
   Geo auto_hyp[3];                       // AMGT_SPGEMM=auto's pick (rows, hypre binned or hypre)
   Geo auto_oracle[3];                    // the same against the fastest of hypre, hypreB, rows
   Geo binned_hyp[3];                     // hypre binned against hypre's default mode
   Geo best_rows_best_hyp[3];             // the faster row-wise design against hypre's faster mode
   for (const SpgemmRecord& r : spgemm)
   {
      const int g = slot(r.group);
      for (int s : {g, static_cast<int>(kAll)})
      {
         for (int d = 0; d < kRowDesignCount; ++d)
         {
            if (!r.rows[d].ok()) continue;
            if (r.vendor.ok()) rows_vendor[d][s].add(r.vendor.t.median_ms, r.rows[d].t.median_ms);
            if (r.hypre.ok()) rows_hyp[d][s].add(r.hypre.t.median_ms, r.rows[d].t.median_ms);
         }
         if (r.hypre.ok() && r.hypre_binned.ok())
         {
            binned_hyp[s].add(r.hypre.t.median_ms, r.hypre_binned.t.median_ms);
         }
         if (r.hypre.ok())
         {
            // the faster of hypre's two modes, the fastest row-wise design (0: none ran)
            double hyp_best  = r.hypre.t.median_ms;
            double rows_best = 0.0;
            if (r.hypre_binned.ok()) hyp_best = std::min(hyp_best, r.hypre_binned.t.median_ms);
            for (int d = 0; d < kRowDesignCount; ++d)
               if (r.rows[d].ok() && (rows_best == 0.0 || r.rows[d].t.median_ms < rows_best)) rows_best = r.rows[d].t.median_ms;
            if (rows_best > 0.0) best_rows_best_hyp[s].add(hyp_best, rows_best);
            // the rules' pick, in the design automatic then runs (memory assumed to suffice),
            // against hypre's default mode and against the fastest that ran (an oracle)
            if (const Meas* m = auto_pick_meas(r))
            {
               auto_hyp[s].add(r.hypre.t.median_ms, m->t.median_ms);
               auto_oracle[s].add(rows_best > 0.0 ? std::min(hyp_best, rows_best) : hyp_best, m->t.median_ms);
            }
         }
         if (!r.ours.ok()) continue;
         if (r.vendor.ok()) mm_vendor[s].add(r.vendor.t.median_ms, r.ours.t.median_ms);
         if (r.hypre.ok()) mm_hyp[s].add(r.hypre.t.median_ms, r.ours.t.median_ms);
         if (r.conv_ok)
         {
            if (r.vendor.ok()) mm_vendor_conv[s].add(r.vendor.t.median_ms, r.ours_with_conversions_ms());
            if (r.hypre.ok()) mm_hyp_conv[s].add(r.hypre.t.median_ms, r.ours_with_conversions_ms());
         }
      }
   }
   std::fprintf(out, "== Geometric-mean speedup, t_other / t_ours (> 1: ours faster); n = measurements\n");
   std::fprintf(out, "%-44s %-16s %-16s %-16s\n", "", "fine levels", "AMG setup", "all");
   auto line = [out](const std::string& what, const Geo* g) {
      std::fprintf(out, "%-44s %-16s %-16s %-16s\n", what.c_str(), g[kFine].cell().c_str(), g[kSetup].cell().c_str(),
                   g[kAll].cell().c_str());
   };
   const std::string v = vsp::name();
   line("SpMV   ours (automatic path) vs " + v, mv_vendor);
   line("SpMV   ours (automatic path) vs hypre own", mv_hyp);
   line("SpMV   ours (fastest path)   vs " + v, mv_best_vendor);
   line("SpMV   ours (fastest path)   vs hypre own", mv_best_hyp);
   line("SpGEMM ours kernel           vs " + v, mm_vendor);
   line("SpGEMM ours kernel           vs hypre own", mm_hyp);
   line("SpGEMM ours + conversions    vs " + v, mm_vendor_conv);
   line("SpGEMM ours + conversions    vs hypre own", mm_hyp_conv);
   line("SpGEMM ours rows one_pass    vs " + v, rows_vendor[0]);
   line("SpGEMM ours rows one_pass    vs hypre own", rows_hyp[0]);
   line("SpGEMM ours rows two_pass    vs " + v, rows_vendor[1]);
   line("SpGEMM ours rows two_pass    vs hypre own", rows_hyp[1]);
   line("SpGEMM ours rows tight       vs " + v, rows_vendor[2]);
   line("SpGEMM ours rows tight       vs hypre own", rows_hyp[2]);
   line("SpGEMM ours rows lean        vs " + v, rows_vendor[3]);
   line("SpGEMM ours rows lean        vs hypre own", rows_hyp[3]);
   line("SpGEMM ours rows short_rows  vs " + v, rows_vendor[4]);
   line("SpGEMM ours rows short_rows  vs hypre own", rows_hyp[4]);
   line("SpGEMM auto's pick           vs hypre own", auto_hyp);
   line("SpGEMM auto's pick           vs fastest that ran", auto_oracle);
   line("SpGEMM hypre binned mode     vs hypre own", binned_hyp);
   line("SpGEMM ours rows, best design vs hypre, best mode", best_rows_best_hyp);
   std::fprintf(out, "\n");
}

void print_galerkin_table(std::FILE* out, const std::vector<GalerkinRecord>& recs)
{
   if (recs.empty()) return;
   std::fprintf(out,
      "== Galerkin products on a plan (re-setup): C = R*(A*P), R = P^T, recomputed by numeric-only products on\n"
      "   patterns fixed once (plugin/resetup/galerkin_device.h). plan = device::make_galerkin_plan (AP's pattern by\n"
      "   a full product, C's sorted pattern, the terms' pulls or places); AP = A*P onto the plan's AP pattern, RAP =\n"
      "   R*AP onto C's pattern (by pulls, places or search, as the plan chose), total = device::galerkin_numeric;\n"
      "   ms, median. MB =\n"
      "   the fewest bytes each product moves (inputs and patterns read once, values written once: README.md),\n"
      "   GB/s = MB / time, frac = that as a fraction of %.1f TB/s; form = each product's form in the plan,\n"
      "   AP/RAP: uN pulls of N-byte codes, pN places of N bytes, s search; plc MB = the plan's pulls and places;\n"
      "   lane, deal = both products by the plan's places in one walk (PlacesWalk lanes: a lane an entry of the\n"
      "   left operand; dealt: the terms dealt one a lane; the sum of each product's median), pull = both by\n"
      "   pulls (PlanForm::pulls: the terms listed by output entry, summed by a segmented scan; places where\n"
      "   they do not fit), srch = both by the searching kernel\n"
      "   (numeric_on_pattern), each with its frac; hypre = hypreDevice_CSRSpGemm A*P then\n"
      "   P^T*(A*P) (full products), x hyp = hypre / total. Checked first: errC = normwise relative error of C's\n"
      "   values vs the CPU reference (resetup::galerkin_numeric), errH = vs the hierarchy's A_{l+1}\n",
      kPracticalBandwidth / 1e12);
   const char* hf = "%-24s %9s %10s %9s %10s %9s | %8s %8s %8s %8s | %8s %7s %5s | %8s %7s %5s | %7s %5s | %5s %7s %8s "
                    "%5s %8s %5s %8s %5s %8s %5s | %8s %6s | %7s %7s\n";
   std::fprintf(out, hf, "matrix", "rows", "nnzA", "nnzP", "nnzAP", "nnzC", "plan ms", "AP ms", "RAP ms", "total ms",
                "AP MB", "AP GB/s", "frac", "RAP MB", "RAPGB/s", "frac", "totGB/s", "frac", "form", "plc MB",
                "lane ms", "frac", "deal ms", "frac", "pull ms", "frac", "srch ms", "frac", "hypre ms", "x hyp", "errC",
                "errH");
   auto walk_cells = [](double ms, double bytes, std::string& t, std::string& f) {
      t = ms > 0.0 ? fmt("%.3f", ms) : "-";
      f = ms > 0.0 ? fmt("%.2f", bytes / (ms * 1e-3) / kPracticalBandwidth) : "-";
   };
   Geo         g_hypre;
   double      sum_log_frac = 0.0;
   int         n_frac = 0, n_half = 0;
   auto gbs = [](double bytes, const Meas& m) -> std::string {
      if (!m.ok() || !(m.t.median_ms > 0.0)) return "-";
      return fmt("%.0f", bytes / (m.t.median_ms * 1e-3) / 1e9);
   };
   auto err = [](double e) -> std::string { return std::isfinite(e) ? fmt("%.0e", e) : "-"; };
   for (const GalerkinRecord& r : recs)
   {
      const std::string lab = r.group == "setup" ? label(r.matrix, r.group, r.level) : r.matrix + "/syn";
      const double      hyp = r.hypre_ms();
      std::string       lane_t, lane_f, deal_t, deal_f;
      walk_cells(r.lanes_ms(), r.total_bytes(), lane_t, lane_f);
      walk_cells(r.dealt_ms(), r.total_bytes(), deal_t, deal_f);
      std::fprintf(out, hf, lab.c_str(), count(r.rows).c_str(), count(r.nnz_a).c_str(), count(r.nnz_p).c_str(),
                   count(r.nnz_ap).c_str(), count(r.nnz_c).c_str(), time_cell(r.plan, 1.0, "%.3f").c_str(),
                   time_cell(r.ap, 1.0, "%.3f").c_str(), time_cell(r.rap, 1.0, "%.3f").c_str(),
                   time_cell(r.total, 1.0, "%.3f").c_str(), fmt("%.1f", r.ap_bytes() / 1e6).c_str(),
                   gbs(r.ap_bytes(), r.ap).c_str(), bw_cell(r.ap_bytes(), r.ap).c_str(),
                   fmt("%.1f", r.rap_bytes() / 1e6).c_str(), gbs(r.rap_bytes(), r.rap).c_str(),
                   bw_cell(r.rap_bytes(), r.rap).c_str(), gbs(r.total_bytes(), r.total).c_str(),
                   bw_cell(r.total_bytes(), r.total).c_str(), r.forms().c_str(),
                   fmt("%.0f", static_cast<double>(r.place_bytes) / 1e6).c_str(), lane_t.c_str(), lane_f.c_str(),
                   deal_t.c_str(), deal_f.c_str(), time_cell(r.pulls, 1.0, "%.3f").c_str(),
                   bw_cell(r.total_bytes(), r.pulls).c_str(), time_cell(r.search, 1.0, "%.3f").c_str(),
                   bw_cell(r.total_bytes(), r.search).c_str(), hyp > 0.0 ? fmt("%.3f", hyp).c_str() : "-",
                   r.total.ok() ? ratio_cell(hyp, r.total.t.median_ms).c_str() : "-", err(r.err_cpu).c_str(),
                   err(r.err_hypre).c_str());
      if (r.total.ok() && r.total.t.median_ms > 0.0)
      {
         const double frac = r.total_bytes() / (r.total.t.median_ms * 1e-3) / kPracticalBandwidth;
         sum_log_frac += std::log(frac);
         ++n_frac;
         if (frac >= 0.5) ++n_half;
         g_hypre.add(hyp, r.total.t.median_ms);
      }
   }
   std::fprintf(out, "total at >= 0.5 of %.1f TB/s: %d of %d levels; geomean of total's frac: %s; geomean x hyp: %s\n\n",
                kPracticalBandwidth / 1e12, n_half, n_frac,
                n_frac > 0 ? fmt("%.3f", std::exp(sum_log_frac / n_frac)).c_str() : "-", g_hypre.cell().c_str());
}

int print_failures(std::FILE* out, const std::vector<SpmvRecord>& spmv,
                   const std::vector<SpgemmRecord>& spgemm, const std::vector<GalerkinRecord>& galerkin)
{
   int  n    = 0;
   auto emit = [&](const char* section, const std::string& what, const char* impl, const Meas& m) {
      if (m.status != Status::fail && m.status != Status::error) return;
      if (n++ == 0) std::fprintf(out, "== Failures (no time is reported for these)\n");
      std::fprintf(out, "%s %s %s %s: %s\n", to_string(m.status), section, what.c_str(), impl, m.note.c_str());
   };
   for (const SpmvRecord& r : spmv)
   {
      const std::string what = label(r.matrix, r.group, r.level) + " " + r.op;
      emit("spmv", what, vsp::name(), r.vendor);
      emit("spmv", what, "hypre", r.hypre);
      emit("spmv", what, "ours[automatic]", r.ours);
      emit("spmv", what, "ours[rows]", r.rowwise);
      for (int p = 0; p < 5; ++p) emit("spmv", what, (std::string("ours[") + kForcedNames[p] + "]").c_str(), r.forced[p]);
   }
   for (const SpgemmRecord& r : spgemm)
   {
      const std::string what = label(r.matrix, r.group, r.level) + " " + r.product;
      emit("spgemm", what, vsp::name(), r.vendor);
      emit("spgemm", what, "hypre", r.hypre);
      emit("spgemm", what, "hypre[binned]", r.hypre_binned);
      emit("spgemm", what, "ours", r.ours);
      emit("spgemm", what, "ours[rows one_pass]", r.rows[0]);
      emit("spgemm", what, "ours[rows two_pass]", r.rows[1]);
      emit("spgemm", what, "ours[rows two_pass_tight]", r.rows[2]);
      emit("spgemm", what, "ours[rows lean]", r.rows[3]);
      emit("spgemm", what, "ours[rows short_rows]", r.rows[4]);
      emit("spgemm", what, "ours[fp16 cuda_core]", r.half_cc);
      emit("spgemm", what, "ours[fp16 tensor_core]", r.half_tc);
   }
   for (const GalerkinRecord& r : galerkin)
   {
      const std::string what = (r.group == "setup" ? label(r.matrix, r.group, r.level) : r.matrix + "/syn") + " R*A*P";
      emit("galerkin", what, "ours[plan]", r.plan);
      emit("galerkin", what, "ours[galerkin_numeric]", r.total);
      emit("galerkin", what, "ours[AP]", r.ap);
      emit("galerkin", what, "ours[RAP]", r.rap);
      emit("galerkin", what, "ours[AP lanes]", r.ap_lanes);
      emit("galerkin", what, "ours[AP dealt]", r.ap_dealt);
      emit("galerkin", what, "ours[RAP lanes]", r.rap_lanes);
      emit("galerkin", what, "ours[RAP dealt]", r.rap_dealt);
      emit("galerkin", what, "ours[pulls]", r.pulls);
      emit("galerkin", what, "ours[search]", r.search);
      emit("galerkin", what, "hypre[A*P]", r.hypre_ap);
      emit("galerkin", what, "hypre[PT*AP]", r.hypre_rap);
   }
   if (n > 0) std::fprintf(out, "\n");
   return n;
}

// ---- JSON ------------------------------------------------------------------------------------

JsonLines::JsonLines(const std::string& path)
{
   f_ = std::fopen(path.c_str(), "w");
   if (!f_) throw BenchError("cannot open --json file '" + path + "' for writing");
}

JsonLines::~JsonLines()
{
   if (f_) std::fclose(f_);
}

void JsonLines::write_info(const RunInfo& info)
{
   if (!f_) return;
   Obj o;
   o.str("section", "info").str("device", info.device).str("versions", info.versions);
   o.str("allocator", info.alloc).str("amg_settings", info.settings);
   if (info.precision != "fp64") o.str("precision", info.precision);
   o.integer("repeat", info.repeat).integer("warmup", info.warmup).boolean("flush_l2", info.flush_l2);
   o.boolean("host_reference", info.host_reference).num("bandwidth_ref_bytes_per_s", kPracticalBandwidth);
   std::fprintf(f_, "%s\n", o.done().c_str());
   std::fflush(f_);
}

void JsonLines::write(const SpmvRecord& r)
{
   if (!f_) return;
   auto one = [&](const char* impl, const Meas& m, double bytes_own, bool is_ours) {
      if (m.status == Status::skipped && m.note.empty()) return;
      Obj o;
      o.str("section", "spmv").str("matrix", r.matrix).str("group", r.group).integer("level", r.level);
      o.str("op", r.op).str("impl", impl);
      o.integer("rows", r.rows).integer("cols", r.cols).integer("nnz", r.nnz).integer("tiles", r.tiles);
      o.num("fill", r.fill).integer("nx", r.nx).integer("batch", r.batch).str("reference", r.reference);
      if (is_ours && r.precision != "fp64") o.str("precision", r.precision);
      o.meas(m);
      o.num("csr_bytes", r.csr_bytes).num("own_bytes", bytes_own);
      if (m.ok() && m.t.median_ms > 0.0)
      {
         o.num("bw_frac_csr", r.csr_bytes / (m.t.median_ms * 1e-3) / kPracticalBandwidth);
         o.num("bw_frac_own", bytes_own / (m.t.median_ms * 1e-3) / kPracticalBandwidth);
      }
      if (is_ours)
      {
         o.num("convert_ms", r.convert_ms).num("plan_ms", r.plan_ms);
         if (r.conv_sorted.ok()) o.num("conv_sorted_ms", r.conv_sorted.t.median_ms);
         if (r.conv_entry.ok()) o.num("conv_entry_ms", r.conv_entry.t.median_ms);
         if (r.conv_entry2.ok()) o.num("conv_entry_two_pass_ms", r.conv_entry2.t.median_ms);
         if (r.conv_entry_sorted.ok()) o.num("conv_entry_ranked_ms", r.conv_entry_sorted.t.median_ms);
         if (r.conv_hashed_sorted.ok()) o.num("conv_hashed_ranked_ms", r.conv_hashed_sorted.t.median_ms);
         if (r.spmv_entry.ok()) o.num("spmv_library_copy_us", r.spmv_entry.t.median_ms * 1e3);
         if (r.conv_hashed.ok())
         {
            o.num("conv_hashed_ms", r.conv_hashed.t.median_ms);
            o.num("conv_bytes", conversion_bytes(r));
         }
         if (!r.layout.empty()) o.num("est_fill", r.est_fill).str("layout_rule", r.layout);
         if (r.rowwise_build.ok()) o.num("rows_build_ms", r.rowwise_build.t.median_ms).num("rows_build_bytes", r.rows_build_bytes);
         if (m.ok() && r.vendor.ok()) o.num(speedup_vs_vendor().c_str(), r.vendor.t.median_ms / m.t.median_ms);
         if (m.ok() && r.hypre.ok()) o.num("speedup_vs_hypre", r.hypre.t.median_ms / m.t.median_ms);
      }
      std::fprintf(f_, "%s\n", o.done().c_str());
   };
   one(vsp::json_id(), r.vendor, r.csr_bytes, false);
   one("hypre", r.hypre, r.csr_bytes, false);
   one("ours", r.ours, r.ours.bytes, true);
   one("ours:rows", r.rowwise, r.rowwise.bytes, true);
   for (int p = 0; p < 5; ++p)
   {
      one((std::string("ours:") + kForcedNames[p]).c_str(), r.forced[p], r.forced[p].bytes, true);
   }
   std::fflush(f_);
}

void JsonLines::write(const GalerkinRecord& r)
{
   if (!f_) return;
   auto one = [&](const char* impl, const Meas& m, double bytes) {
      if (m.status == Status::skipped && m.note.empty()) return;
      Obj o;
      o.str("section", "galerkin").str("matrix", r.matrix).str("group", r.group).integer("level", r.level);
      o.str("impl", impl);
      o.integer("rows", r.rows).integer("coarse_rows", r.coarse).integer("nnz_a", r.nnz_a).integer("nnz_p", r.nnz_p);
      o.integer("nnz_ap", r.nnz_ap).integer("nnz_c", r.nnz_c);
      o.meas(m);
      if (bytes > 0.0)
      {
         o.num("min_bytes", bytes);
         if (m.ok() && m.t.median_ms > 0.0)
         {
            o.num("gb_per_s", bytes / (m.t.median_ms * 1e-3) / 1e9);
            o.num("bw_frac", bytes / (m.t.median_ms * 1e-3) / kPracticalBandwidth);
         }
      }
      if (std::string(impl) == "ours")
      {
         o.num("rel_err_cpu", r.err_cpu).num("rel_err_hypre", r.err_hypre);
         if (r.plan.ok()) o.num("plan_ms", r.plan.t.median_ms);
         if (r.ap.ok()) o.num("ap_ms", r.ap.t.median_ms);
         if (r.rap.ok()) o.num("rap_ms", r.rap.t.median_ms);
         o.num("ap_bytes", r.ap_bytes()).num("rap_bytes", r.rap_bytes());
         o.integer("ap_pull_width", r.ap_pulls).integer("rap_pull_width", r.c_pulls);
         o.integer("ap_place_width", r.ap_places).integer("rap_place_width", r.c_places);
         if (r.ap_lanes.ok()) o.num("ap_lanes_ms", r.ap_lanes.t.median_ms);
         if (r.ap_dealt.ok()) o.num("ap_dealt_ms", r.ap_dealt.t.median_ms);
         if (r.rap_lanes.ok()) o.num("rap_lanes_ms", r.rap_lanes.t.median_ms);
         if (r.rap_dealt.ok()) o.num("rap_dealt_ms", r.rap_dealt.t.median_ms);
         if (r.pulls.ok()) o.num("pulls_ms", r.pulls.t.median_ms);
         o.integer("place_bytes", r.place_bytes);
         if (r.search.ok()) o.num("search_ms", r.search.t.median_ms);
         if (m.ok() && r.hypre_ms() > 0.0)
         {
            o.num("hypre_ms", r.hypre_ms()).num("speedup_vs_hypre", r.hypre_ms() / m.t.median_ms);
         }
      }
      std::fprintf(f_, "%s\n", o.done().c_str());
   };
   one("ours", r.total, r.total_bytes());
   one("ours:ap", r.ap, r.ap_bytes());
   one("ours:rap", r.rap, r.rap_bytes());
   one("ours:plan", r.plan, 0.0);
   one("ours:ap_lanes", r.ap_lanes, r.ap_bytes());
   one("ours:ap_dealt", r.ap_dealt, r.ap_bytes());
   one("ours:rap_lanes", r.rap_lanes, r.rap_bytes());
   one("ours:rap_dealt", r.rap_dealt, r.rap_bytes());
   one("ours:pulls", r.pulls, r.total_bytes());
   one("ours:search", r.search, r.total_bytes());
   one("hypre:ap", r.hypre_ap, 0.0);
   one("hypre:rap", r.hypre_rap, 0.0);
   std::fflush(f_);
}

void JsonLines::write(const SpgemmRecord& r)
{
   if (!f_) return;
   auto one = [&](const char* impl, const Meas& m, bool is_ours) {
      if (m.status == Status::skipped && m.note.empty()) return;
      Obj o;
      o.str("section", "spgemm").str("matrix", r.matrix).str("group", r.group).integer("level", r.level);
      o.str("product", r.product).str("impl", impl);
      o.integer("m", r.m).integer("k", r.k).integer("n", r.n);
      o.integer("nnz_a", r.nnz_a).integer("nnz_b", r.nnz_b).integer("nnz_c", r.nnz_c);
      o.num("fill_a", r.fill_a).num("fill_b", r.fill_b).num("fill_c", r.fill_c).integer("tiles_c", r.tiles_c);
      o.str("reference", r.reference);
      o.meas(m);
      if (r.terms > 0)
      {
         o.integer("terms", r.terms).num("min_bytes", spgemm_min_bytes(r));
         if (m.ok() && m.t.median_ms > 0.0) o.num("gterms_per_s", r.terms / (m.t.median_ms * 1e-3) / 1e9);
      }
      if (is_ours)
      {
         if (r.conv_ok)
         {
            o.num("conv_a_ms", r.conv_a.median_ms);
            if (!r.b_is_a) o.num("conv_b_ms", r.conv_b.median_ms);
            o.num("back_ms", r.back.median_ms);
            if (m.ok()) o.num("with_conversions_ms", r.ours_with_conversions_ms());
         }
         o.integer("intermediate_tiles", r.intermediate_tiles);
         o.integer("tc_tile_products", r.tc_products).integer("cc_tile_products", r.cc_products);
         if (m.ok() && r.vendor.ok()) o.num(speedup_vs_vendor().c_str(), r.vendor.t.median_ms / m.t.median_ms);
         if (m.ok() && r.hypre.ok()) o.num("speedup_vs_hypre", r.hypre.t.median_ms / m.t.median_ms);
      }
      else if (std::string(impl) == vsp::json_id())
      {
         o.integer("buffer_bytes", static_cast<int64_t>(r.vendor_buffer_bytes));
      }
      std::fprintf(f_, "%s\n", o.done().c_str());
   };
   one(vsp::json_id(), r.vendor, false);
   one("hypre", r.hypre, false);
   one("hypre_binned", r.hypre_binned, false);
   one("ours", r.ours, true);
   if (r.layout_c.status != Status::skipped)
   {
      Obj o;
      o.str("section", "spgemm").str("matrix", r.matrix).str("group", r.group).integer("level", r.level);
      o.str("product", r.product).str("impl", "layout_c").str("layout", r.layout_c.path);
      o.integer("m", r.m).integer("nnz_c", r.nnz_c);
      o.meas(r.layout_c);
      if (const Meas* pick = auto_pick_meas(r)) o.str("pick", name(auto_pick(r))).num("pick_ms", pick->t.median_ms);
      std::fprintf(f_, "%s\n", o.done().c_str());
   }
   static const char* const kRowNames[kRowDesignCount] = {"one_pass", "two_pass", "two_pass_tight", "lean",
                                                          "short_rows"};
   for (int d = 0; d < kRowDesignCount; ++d)
   {
      const Meas& m = r.rows[d];
      if (m.status == Status::skipped && m.note.empty()) continue;
      Obj o;
      o.str("section", "spgemm").str("matrix", r.matrix).str("group", r.group).integer("level", r.level);
      o.str("product", r.product).str("impl", std::string("ours:rows_") + kRowNames[d]);
      o.integer("m", r.m).integer("k", r.k).integer("n", r.n);
      o.integer("nnz_a", r.nnz_a).integer("nnz_b", r.nnz_b).integer("nnz_c", r.nnz_c);
      o.str("reference", r.reference);
      o.meas(m);
      o.integer("sum_ub", r.rows_sum_ub).integer("terms", r.terms);
      if (m.ok() && r.vendor.ok()) o.num(speedup_vs_vendor().c_str(), r.vendor.t.median_ms / m.t.median_ms);
      if (m.ok() && r.hypre.ok()) o.num("speedup_vs_hypre", r.hypre.t.median_ms / m.t.median_ms);
      std::fprintf(f_, "%s\n", o.done().c_str());
   }
   if (r.half_run)
   {
      for (const auto& [impl, m] : {std::pair<const char*, const Meas*>{"ours_fp16:cuda_core", &r.half_cc},
                                    std::pair<const char*, const Meas*>{"ours_fp16:tensor_core", &r.half_tc}})
      {
         if (m->status == Status::skipped && m->note.empty()) continue;
         Obj o;
         o.str("section", "spgemm").str("matrix", r.matrix).str("group", r.group).integer("level", r.level);
         o.str("product", r.product).str("impl", impl).str("precision", "fp16");
         o.integer("m", r.m).integer("k", r.k).integer("n", r.n).integer("tiles_c", r.tiles_c);
         o.meas(*m);
         if (std::string(impl) == "ours_fp16:tensor_core") o.integer("tc_tile_products", r.half_tc_products);
         if (m->ok() && r.vendor.ok()) o.num(speedup_vs_vendor().c_str(), r.vendor.t.median_ms / m->t.median_ms);
         std::fprintf(f_, "%s\n", o.done().c_str());
      }
   }
   std::fflush(f_);
}

} // namespace amgt::kbench
