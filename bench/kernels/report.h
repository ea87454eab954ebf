// Results of amgt-kernel-bench: records, the tables, the geometric means, JSON lines.
//
// Speedups are t_other / t_ours: above 1, ours is faster. A measurement whose result failed
// its correctness check carries status FAIL and no time; it is left out of every mean.
#pragma once

#include "bench_common.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace amgt::kbench {

// Bandwidth figures are fractions of this: what an H100 moves device-to-device in practice
// (3.35 TB/s peak; docs/architecture.md).
constexpr double kPracticalBandwidth = 3.0e12; // bytes/s
constexpr double kSpmvTolerance      = 1e-12;  // normwise relative error, fp64
constexpr double kSpgemmTolerance    = 1e-12;

enum class Status
{
   skipped,
   ok,
   fail,  // ran, wrong result
   error  // threw (message in note)
};
const char* to_string(Status s);

struct Meas
{
   Status      status  = Status::skipped;
   std::string note;                                            // why not ok
   Stats       t;                                               // meaningful when ok
   double      rel_err = std::numeric_limits<double>::quiet_NaN(); // vs the reference
   double      bytes   = 0.0;                                   // bytes model for bandwidth
   std::string path;                                            // ours: kernel path

   bool ok() const { return status == Status::ok; }
};

struct SpmvRecord
{
   std::string matrix;          // input name, e.g. laplace7_n160
   std::string group;           // fine | setup
   int         level = -1;      // AMG level (setup), -1 for fine-level inputs
   std::string op;              // A, P, PT
   int64_t     rows = 0, cols = 0, nnz = 0, tiles = 0;
   double      fill = 0.0;      // nonzeros per stored 4x4 tile
   int         nx = 1;          // x vectors rotated
   int         batch = 1;       // calls per timed sample
   double      csr_bytes = 0.0; // minimal CSR traffic of one call (beta != 0)
   double      convert_ms = 0.0, plan_ms = 0.0; // ours, one-off: csr_to_mbsr, make_spmv_plan
   // Setup cost of ours for this operand, median over the rounds: csr_to_mbsr + make_spmv_plan
   // (automatic path) with the sorted conversion and the dense layout (the library before the
   // hashed conversion) and with the hashed conversion and the packed layout only (the library
   // now); status skipped when not measured.
   Meas        conv_sorted, conv_hashed;
   // the entry-order conversion + plan (packed entries in CSR order, fp64 values lent, tiles in
   // first-seen order: what the library converts in fp64 when its rule picks mBSR for the
   // entries kernel); spmv_entry: the SpMV of the library's copy for the entries kernel (that
   // one in fp64, the bitmap-order copy with ranked tiles in fp32/fp16)
   Meas        conv_entry, spmv_entry;
   // the same entry-order conversion in two passes (ConvertOptions::one_pass = false: count,
   // scan, write) where conv_entry takes one (tiles to a scratch, then compacted)
   Meas        conv_entry2;
   // the entry-order conversion (one pass) with its tiles ranked by block column
   // (ConvertOptions::sorted_tiles, as before the library left them unranked)
   Meas        conv_entry_sorted;
   // the hashed (bitmap-order) conversion with its tiles ranked by block column (the library's
   // fp32/fp16 copies); conv_hashed leaves them in first-seen order
   // (ConvertOptions::sorted_tiles = false)
   Meas        conv_hashed_sorted;
   std::string reference;       // what ours was compared with
   Meas        vendor, hypre, ours; // ours: automatic path
   Meas        forced[5];         // cuda_core, cuda_core_balanced, tensor_core, cuda_core_tiles,
                                  // cuda_core_entries
   std::string precision = "fp64"; // ours' storage precision (--precision)
   // The row-wise layout (plugin/rows): its SpMV (path rows or rows16), its build (fill sample
   // + make_rows, median) and its bytes; the fill the sample estimated and the layout the
   // library's rule (choose_layout) picks from it.
   Meas        rowwise, rowwise_build;
   // the row-wise SpMV with half and twice the lanes per row of the rule (rows_lanes)
   Meas        rowwise_lanes[2];
   int         rows_lanes = 0;
   double      rows_build_bytes = 0.0;
   double      est_fill = 0.0;
   std::string layout;
};

constexpr int kRowDesignCount = 5; // the row-wise SpGEMM designs the bench forces

struct SpgemmRecord
{
   std::string matrix;
   std::string group;
   int         level = -1;
   std::string product;         // A*A, A*P, PT*AP
   int64_t     m = 0, k = 0, n = 0;
   int64_t     nnz_a = 0, nnz_b = 0, nnz_c = 0, tiles_c = 0;
   // Multiply-adds of the product (sum over A's entries a_ij of |B(j,:)|: one hash insert each
   // in hypre's and the row-wise kernels); 0 when not counted
   int64_t     terms = 0;
   double      fill_a = 0.0, fill_b = 0.0, fill_c = 0.0;
   std::string reference;       // result every other is compared with
   Meas        hypre_binned;        // hypre's own kernel in its binned mode (off by default)
   Meas        vendor, hypre, ours; // ours: spgemm on mBSR inputs only; ours.path =
                                  // "<--spgemm-path>:<pairs|ordered>" (the numeric kernel)
   bool        b_is_a  = false; // A*A: one input, converted once
   bool        conv_ok = false;
   Stats       conv_a, conv_b, back; // csr_to_mbsr(A), csr_to_mbsr(B), C back to CSR
   int64_t     intermediate_tiles = 0, tc_products = 0, cc_products = 0;
   size_t      vendor_buffer_bytes = 0;
   // --precision fp16: ours' product on fp16 mBSR inputs, every tile pair forced to the
   // tensor cores (mma m16n8k16, fp32 accumulation) or to the CUDA cores. Checked against
   // each other (same structure as ours fp64, normwise value difference < 1e-2).
   bool        half_run = false;
   Meas        half_cc, half_tc;
   int64_t     half_tc_products = 0;
   // The row-wise CSR SpGEMM (plugin/spgemm/csr_spgemm_device.h) on the CSR inputs, CSR out,
   // no conversion: rows[0] design one_pass, rows[1] two_pass, rows[2] two_pass_tight, rows[3] lean, rows[4]
   // short_rows (the opt-in sort kernels for rows of <= 128 terms) (each forced, lean on products of at most
   // 4 * kLeanMaxRows rows; path = its name);
   // rows_sum_ub = the sum of its rows' upper bounds (design A's temporary, in entries).
   Meas        rows[kRowDesignCount];
   int64_t     rows_sum_ub = 0;
   // A square C (a Galerkin product's coarse operator): what the end of the library's setup
   // does to put C in the layout its SpMV reads, in the bench's --precision (the fill sample,
   // the layout rule, the exact span where the rule needs it, then make_rows, or the entry-order
   // mBSR conversion and its SpMV plan); path = the layout built. The most that writing C in
   // that layout inside the product could save.
   Meas        layout_c;

   double ours_with_conversions_ms() const
   {
      return ours.t.median_ms + conv_a.median_ms + conv_b.median_ms + back.median_ms;
   }
};

// One level's Galerkin product C = R*(A*P) (R = P^T) recomputed by the re-setup's numeric-only
// products on a plan (plugin/resetup/galerkin_device.h): the plan built once, then
// device::galerkin_numeric and each of its two products alone, against hypre's two products.
// group "setup": a level of the stock BoomerAMG hierarchy (C = its A_{l+1}); "synthetic": the
// fine matrix with an interpolation built on the host (synthetic_interpolation, inputs.h) when
// there is no hierarchy (no hypre, or --setup-products 0).
struct GalerkinRecord
{
   std::string matrix;
   std::string group;
   int         level = -1;
   int64_t     rows = 0, coarse = 0; // n (A's rows), nc (C's rows)
   int64_t     nnz_a = 0, nnz_p = 0, nnz_ap = 0, nnz_c = 0;
   // total: device::galerkin_numeric (status: the checks); ap: A*P onto the plan's AP pattern,
   // rap: R*AP onto C's pattern, each as galerkin_numeric runs it (device::galerkin_products: by
   // pulls, places or search as the plan has them); plan:
   // device::make_galerkin_plan (median like the others, timed apart from the products)
   Meas        plan, ap, rap, total;
   // both products in the plan's other forms: by pulls (PlanForm::pulls) and by the searching
   // kernel (numeric_on_pattern); the bytes a code of each product's pulls and a place of its
   // places in the plan (0 both: it searches), and the size of the plan's pulls and places
   Meas        pulls, search;
   // each product the plan has places for in both walks (device::PlacesWalk: lanes, dealt)
   Meas        ap_lanes, ap_dealt, rap_lanes, rap_dealt;
   int         ap_pulls = 0, c_pulls = 0, ap_places = 0, c_places = 0;
   int64_t     place_bytes = 0;
   // hypre's own products of the same level (hypreDevice_CSRSpGemm): A*P, then P^T*(A*P) on
   // hypre's A*P; skipped without hypre
   Meas        hypre_ap, hypre_rap;
   // normwise relative errors of ours' C values: vs the CPU reference (resetup::galerkin_numeric),
   // vs the hierarchy's A_{l+1} (NaN when there is none)
   double      err_cpu   = std::numeric_limits<double>::quiet_NaN();
   double      err_hypre = std::numeric_limits<double>::quiet_NaN();

   // The fewest bytes each product moves (README.md, "Galerkin products on a plan").
   double ap_bytes() const
   {
      return 4.0 * (rows + 1) + 12.0 * nnz_a + 4.0 * (rows + 1) + 12.0 * nnz_p + 4.0 * (rows + 1) +
             4.0 * nnz_ap + 8.0 * nnz_ap;
   }
   double rap_bytes() const
   {
      return 4.0 * (coarse + 1) + 12.0 * nnz_p + 4.0 * (rows + 1) + 12.0 * nnz_ap + 4.0 * (coarse + 1) +
             8.0 * nnz_c + 8.0 * nnz_c;
   }
   double total_bytes() const { return ap_bytes() + rap_bytes(); }
   // each product's form in the plan, "AP/RAP": uN pulls of N-byte codes, pN places of N bytes,
   // s search
   std::string forms() const
   {
      auto one = [](int pulls, int places) {
         return pulls ? "u" + std::to_string(pulls) : places ? "p" + std::to_string(places) : std::string("s");
      };
      return one(ap_pulls, ap_places) + "/" + one(c_pulls, c_places);
   }
   // both products in one walk (the sum of their medians), ms; 0 unless both have places and ran
   static double walk_ms(const Meas& ap, const Meas& rap)
   {
      return ap.ok() && rap.ok() ? ap.t.median_ms + rap.t.median_ms : 0.0;
   }
   double lanes_ms() const { return walk_ms(ap_lanes, rap_lanes); }
   double dealt_ms() const { return walk_ms(ap_dealt, rap_dealt); }
   // hypre's A*P + P^T*(A*P), ms; 0 unless both ran
   double hypre_ms() const
   {
      return hypre_ap.ok() && hypre_rap.ok() ? hypre_ap.t.median_ms + hypre_rap.t.median_ms : 0.0;
   }
};

struct RunInfo
{
   std::string device;
   std::string versions;
   std::string alloc;
   std::string settings;
   std::string precision = "fp64"; // ours' storage precision; printed only when not fp64
   int         repeat = 0, warmup = 0;
   bool        flush_l2 = false;
   bool        host_reference = true;
   bool        hypre          = true; // false: built without hypre (its kernels not measured)
};

void print_header(std::FILE* out, const RunInfo& info);
void print_spmv_table(std::FILE* out, const std::vector<SpmvRecord>& recs);
void print_spgemm_table(std::FILE* out, const std::vector<SpgemmRecord>& recs);
// --precision fp32/fp16: ours' cuda_core vs tensor_core paths and the vendor library's fp64 per operand,
// with the bandwidth of what each path reads; prints nothing for fp64 records.
void print_spmv_paths_table(std::FILE* out, const std::vector<SpmvRecord>& recs);
// Conversion + plan per SpMV operand: sorted/dense against hashed/packed.
void print_conversion_table(std::FILE* out, const std::vector<SpmvRecord>& recs);
void print_layout_table(std::FILE* out, const std::vector<SpmvRecord>& recs);
// --precision fp16: ours' fp16 SpGEMM, tensor cores vs CUDA cores; nothing without it.
void print_spgemm_half_table(std::FILE* out, const std::vector<SpgemmRecord>& recs);
// Square products: the product AMGT_SPGEMM=auto picks, and C put in the solve's layout after it.
void print_spgemm_layout_table(std::FILE* out, const std::vector<SpgemmRecord>& recs);
// Per product: its terms and fewest bytes, and each kernel's terms per second and fraction of
// the bandwidth roofline (what bounds the products).
void print_spgemm_work_table(std::FILE* out, const std::vector<SpgemmRecord>& recs);
void print_geomeans(std::FILE* out, const std::vector<SpmvRecord>& spmv,
                    const std::vector<SpgemmRecord>& spgemm);
// "Galerkin products on a plan (re-setup)": per level, the plan, each numeric-only product and
// their sum, with bytes, bandwidth fractions and hypre's two products.
void print_galerkin_table(std::FILE* out, const std::vector<GalerkinRecord>& recs);
// FAIL/ERROR lines of all measurements (also printed as they happen); returns their number.
int print_failures(std::FILE* out, const std::vector<SpmvRecord>& spmv,
                   const std::vector<SpgemmRecord>& spgemm,
                   const std::vector<GalerkinRecord>& galerkin = {});

// One JSON object per line and measurement.
class JsonLines
{
public:
   JsonLines() = default;
   explicit JsonLines(const std::string& path);
   ~JsonLines();
   JsonLines(const JsonLines&)            = delete;
   JsonLines& operator=(const JsonLines&) = delete;
   void write(const SpmvRecord& r);
   void write(const SpgemmRecord& r);
   void write(const GalerkinRecord& r);
   void write_info(const RunInfo& info);

private:
   std::FILE* f_ = nullptr;
};

} // namespace amgt::kbench
