// Row-wise CSR SpGEMM (C = A * B on hypre's own CSR arrays, fp64), the host half: the
// contract, the CPU oracle, and every piece of the device algorithm's planning as plain
// functions, so that the rules the GPU driver follows (bins, table sizes, the choice between
// its two designs, memory bounds) are unit-tested on a machine without a GPU. The kernels and
// their driver are in csr_spgemm_device.cu (entry point: csr_spgemm_device.h).
//
// Why a second SpGEMM next to the mBSR one (spgemm_device.h): AMG setup products hold
// 1.3-2.5 entries per 4x4 tile, so a tile pair carries about one scalar product and the tile
// SpGEMM measured 0.33x hypre's own kernel. This one never leaves CSR: no conversion of the
// operands, none of C, one hash table per row of C.
//
// Contract (the SpGEMM hook's, docs: HYPRE_HOOKS.md):
//   - Inputs: CSR with 32-bit indices; columns within a row in any order; no duplicates
//     (duplicates would be summed, as by the oracle); val == nullptr means all ones.
//   - Structure: row i of C holds exactly the columns j for which some stored A(i,k) meets a
//     stored B(k,j) -- the symbolic pattern: an entry whose value cancels to 0.0 is kept.
//     Columns within a row come in no particular order (hypre accepts any; sorting would
//     cost a pass and buys nothing). The set of columns per row is deterministic.
//   - Values: each product term a*b is rounded to double on its own and added with an
//     atomic, in an order the hardware picks: results may differ in the last bits from run
//     to run and from the oracle (by at most the bound of tests/common/tolerances.h,
//     rel_spgemm_pairs with u_s = u_a = 2^-53); on small-integer inputs every partial sum is
//     exact and the result equals the oracle exactly.
//   - Errors: amgt::Error when A.ncols != B.nrows or nnz(C) > 2^31-1; std::bad_alloc when
//     the allocator refuses memory. The glue turns either into a fallback to hypre.
#pragma once

#include "common/config.h"
#include "common/hash.h"
#include "mbsr/mbsr.h" // CsrView, CsrMatrix

#include <cstddef>
#include <cstdint>
#include <vector>

namespace amgt {

// The CPU oracle of this product is csr_spgemm_ref (spgemm/spgemm.h): scalar Gustavson with a
// dense accumulator, columns ascending, each entry summed in double in A's storage order and
// then B's (mul then add, no FMA), NULL values as ones. It predates this component and is
// independent of it; the tests compare the device result with it row by row after sorting.

// How the device product lays out its work (all give the same structure; values differ only
// in the order of the atomic additions).
enum class CsrSpgemmDesign
{
   // choose_design's rule between one_pass and two_pass (the default)
   automatic,
   // Design A: one numeric pass into a temporary of sum(ub) entries at offset scan(ub), then
   // the row counts' scan and a compaction into C's arrays. One hash build per row.
   one_pass,
   // Design B: a symbolic pass (keys only) counts each row, the scan sizes C exactly, a
   // numeric pass writes C's arrays in place. Two hash builds per row, no temporary. Both
   // passes give a row the table and group of its ub's bin.
   two_pass,
   // Design B with the numeric pass rebinned by each row's exact count c (bin_of(c): a table of
   // >= 2c slots and that bin's group) instead of its ub: where many products fall on few
   // columns (P^T*(AP): ~110 products into ~30 columns a row) the values' tables shrink 4x and
   // groups of a few lanes hold a row, so more rows share an SM (hypre's numeric kernel sizes
   // its tables by the exact count too). One more binning pass and host round trip. Never
   // chosen by automatic: not yet measured.
   two_pass_tight,
   // Latency design for products of few rows (opt-in: never chosen by automatic; measured in
   // bench/RESULTS.md, record 2026-11-26e): one pass that bins each row by its capped bound
   // (capped_bound) and lists it at once, one launch for the shared bins 0-6 (blocks of
   // kLeanBlock threads, one shape per bin: lean_shape), one per bin 7-8 if present, the
   // (col, val) pairs to a slab at base(bin) + position * max_ub(bin) (no scan of the bounds),
   // a one-block scan of the counts (<= kLeanMaxRows rows) and the compaction: 5-7 launches,
   // two host round trips, three allocations. A product with a row beyond bin 8 runs the
   // automatic design instead (stats: lean_fell_back). On the small products of AMG setups the
   // kernel bench measured it 1.13-1.89x hypre's default mode (geomean per setup), yet end to end at 1M rows the
   // setups it ran in were slower than with hypre's products (its sums also vary in the last
   // bits from run to run, which changed hierarchies and iteration counts between identical
   // runs): automatic and AMGT_SPGEMM=auto leave it out.
   lean,
   // Experimental, opt-in (never chosen by automatic; not yet measured): design B whose rows of
   // at most 128 terms (bins 0..kShortBins-1) are built without a hash table by the kernels of
   // spgemm_short_rows.h -- a group of 4-32 lanes per row gathers the row's terms into
   // registers, sorts them by column (bitonic), merges equal columns; both passes, so the
   // symbolic pass counts sorted keys and the numeric pass writes each such row's columns
   // ascending. Longer rows run design B's hash kernels. Two passes rather than one pass and a
   // compaction: a short row's second gather re-reads its A row and B rows (~12 B a term, mostly
   // from L2), where the temporary would write and read back 12 B a term from DRAM and add a
   // compaction launch; two_pass already won on such light rows (kTwoPassMaxMeanUb).
   short_rows,
};

const char* to_string(CsrSpgemmDesign d);

namespace csr_spgemm {

// ---- bins ------------------------------------------------------------------------------------
// A row's upper bound ub(i) = sum over A(i,k) of nnz(B(k,:)) bounds its nonzeros in C (and the
// number of product terms). Rows go to the first bin whose max_ub holds their ub; rows with ub
// 0 are empty and go nowhere. Each shared bin's kernel gives a row a hash table of
// 2^log2_table slots in shared memory, at least twice max_ub, so the table is at most half full
// and linear probing always finds a free slot. Groups narrower than a warp share it between
// short rows (AMG's A*P rows: 7-27 entries of A times 1-6 of P). Rows longer than the last
// usable shared bin go to the global bin: a table per row in global memory.
struct BinShape
{
   int64_t max_ub;     // rows with ub <= max_ub (and above the previous bin's)
   int     group;      // lanes per row: 4, 8, 16, 32, or the whole block
   int     block;      // threads per block (block / group rows per block)
   int     log2_table; // slots per row's table
};

constexpr int kSharedBins  = 9;
constexpr int kGlobalBin   = kSharedBins; // the fallback bin's index
constexpr int kBins        = kSharedBins + 1;
constexpr int kGlobalBlock = 512; // threads per row of the global bin

AMGT_HD constexpr BinShape bin_shape(int b)
{
   // Sized so that a block's tables take <= 24 KB up to bin 6 (several blocks per SM), and a
   // block row of 2048/4096 products a 48/96 KB table (one row per block; bin 8 needs the
   // opt-in shared memory of sm_70+).
   return b == 0   ? BinShape{16, 4, 256, 5}
          : b == 1 ? BinShape{32, 8, 256, 6}
          : b == 2 ? BinShape{64, 16, 256, 7}
          : b == 3 ? BinShape{128, 32, 256, 8}
          : b == 4 ? BinShape{256, 32, 128, 9}
          : b == 5 ? BinShape{512, 128, 128, 10}
          : b == 6 ? BinShape{1024, 256, 256, 11}
          : b == 7 ? BinShape{2048, 512, 512, 12}
                   : BinShape{4096, 1024, 1024, 13};
}

// Dynamic shared memory of one block of bin b: per row, the table's keys (int32), its values
// (double; with_values false for the symbolic pass) and a counter.
// `rows` tables of 2^log2_table slots (keys, values when with_values) and a counter each.
constexpr size_t table_bytes(int rows, int log2_table, bool with_values)
{
   const size_t slots = size_t{1} << log2_table;
   return static_cast<size_t>(rows) * (slots * (4 + (with_values ? 8 : 0)) + 4);
}
constexpr size_t shared_bytes(int b, bool with_values)
{
   const BinShape s = bin_shape(b);
   return table_bytes(s.block / s.group, s.log2_table, with_values);
}

// How many leading shared bins a device whose blocks may use smem_optin bytes of dynamic
// shared memory can run (with values: the numeric pass needs the most). Rows of the bins past
// it go to the global bin.
int usable_shared_bins(size_t smem_optin);

// The bin of a row with upper bound ub when the first `shared_bins` bins are usable: -1 for an
// empty row, kGlobalBin past them.
AMGT_HD inline int bin_of(int64_t ub, int shared_bins)
{
   if (ub <= 0) return -1;
   for (int b = 0; b < shared_bins; ++b)
   {
      if (ub <= bin_shape(b).max_ub) return b;
   }
   return kGlobalBin;
}

// Lanes that share one entry of A (they stride B's row; the group's other teams take other
// entries of A): about the mean length of the B rows the row meets, ub / a_len, rounded up to
// a power of two, at most the group and at most a warp. A*P rows (B rows of 1-6) get teams of
// 2-8 lanes, P^T*(AP) rows (AP rows of 30-60) whole warps.
AMGT_HD inline int team_lanes(int64_t ub, int32_t a_len, int group)
{
   const int     cap  = group < 32 ? group : 32;
   const int64_t mean = a_len > 0 ? (ub + a_len - 1) / a_len : 1;
   int           t    = 1;
   while (t < cap && t < mean) t <<= 1;
   return t;
}

// The tables' hash (common/hash.h), shared with the mBSR kernels' tables.
AMGT_HD inline uint32_t hash_slot(int32_t key, int log2) { return fibonacci_slot(key, log2); }

// ---- the global bin ------------------------------------------------------------------------
// Slots of a global-bin row's table: a power of two >= 2 * min(ub, ncols_b) (a row has at
// most ncols_b distinct columns), at least 32. Correct for any ub: at most 2^32 slots.
int64_t global_table_slots(int64_t ub, int32_t ncols_b);

// Global-bin rows, in the order the driver lists them, cut into batches whose tables together
// take at most max_slots (a row larger than that is a batch of its own); each batch's tables
// are allocated once and reused by the next batch. offsets: per row of the batch the first
// slot of its table (relative to the batch), and the total at the end.
struct GlobalBatch
{
   size_t               first = 0; // index into the listed rows
   size_t               count = 0;
   std::vector<int64_t> offsets;   // count + 1 entries
};
constexpr int64_t kGlobalBatchSlots = int64_t{1} << 24; // 192 MB of keys and values
std::vector<GlobalBatch> plan_global_batches(const std::vector<int64_t>& ub, int32_t ncols_b,
                                             int64_t max_slots = kGlobalBatchSlots);

// ---- the short-row design (CsrSpgemmDesign::short_rows) -------------------------------------
// Rows of the first kShortBins bins (ub <= 128) run the sort kernels with the bin's group of
// bin_shape(b).group lanes and kShortTermsPerLane terms in each lane's registers: 4G terms, which
// is the bin's max_ub, so a row's terms always fit its group.
constexpr int kShortBins         = 4;
constexpr int kShortTermsPerLane = 4;
constexpr bool short_bins_fit()
{
   for (int b = 0; b < kShortBins; ++b)
      if (bin_shape(b).max_ub > int64_t{kShortTermsPerLane} * bin_shape(b).group || bin_shape(b).group > 32) return false;
   return true;
}
static_assert(short_bins_fit(), "a short bin's rows fit its group's registers");

// ---- the lean design (small products) --------------------------------------------------------
// A row holds at most min(ub, ncols_b) distinct columns: the lean design bins rows by that
// capped bound (a table of >= 2x it is at most half full), so products into few columns
// (coarse P^T*(AP)) never need the global bin.
AMGT_HD inline int64_t capped_bound(int64_t ub, int32_t ncols_b)
{
   return ub < static_cast<int64_t>(ncols_b) ? ub : static_cast<int64_t>(ncols_b);
}

// The lean design's one-block scan serves up to kLeanMaxRows rows (more: the general scan); its
// per-bin row lists take 4 bytes per row and bin.
constexpr int64_t kLeanMaxRows = int64_t{1} << 16;
constexpr int     kLeanBlock   = 256; // threads per block of every lean launch
constexpr int     kLeanFused   = 7;   // bins 0..kLeanFused-1 share one launch

// Bin b's shape in the lean launches: bins 0-3 keep bin_shape's groups (4-32 lanes), bins 4-5
// take 64 and 128 lanes, bins 6-8 the whole block; tables of bin_shape's size. Bins 0-6 then
// take 24 KB of tables per block (one launch, one shared size), bins 7-8 48 and 96 KB.
struct LeanShape
{
   int group;      // lanes per row
   int rows;       // rows per block
   int log2_table; // slots per row's table
};
AMGT_HD constexpr LeanShape lean_shape(int b)
{
   const int group = b <= 3 ? bin_shape(b).group : b == 4 ? 64 : b == 5 ? 128 : kLeanBlock;
   return LeanShape{group, kLeanBlock / group, bin_shape(b).log2_table};
}
// Dynamic shared memory of a lean block of bin b: values (double), keys (int32), one counter
// per row.
constexpr size_t lean_shared_bytes(int b)
{
   return table_bytes(lean_shape(b).rows, lean_shape(b).log2_table, true);
}
// Entries of the lean slab: bin b's rows take bin_shape(b).max_ub places each (a row's count
// is at most its capped bound, which its bin holds). hist: rows per shared bin.
int64_t lean_slab_entries(const std::vector<int64_t>& hist);

// ---- the design ----------------------------------------------------------------------------
// Bytes of design A's temporary: sum(ub) columns and values (saturates at SIZE_MAX).
size_t one_pass_temp_bytes(int64_t sum_ub);

// automatic: two_pass for light rows (a mean ub per row of at most kTwoPassMaxMeanUb: measured
// on the H100, two_pass was faster on all three such products -- laplace7 n=160 L0 A*P 3.71
// vs 4.35 ms, its A*A 5.64 vs 7.62, systems3 n=64 L0 A*P 1.42 vs 1.53 -- where hashing a row
// twice costs less than writing and compacting the temporary); otherwise one_pass when its
// temporary takes at most kScratchFreeFraction (common/config.h) of the device memory free at
// the time (device::mem_get_info), else two_pass; the others as requested. On AMG products
// sum(ub) is 2-5x nnz(C) (a laplace27 A*P at 1M rows: ~1.3 GB), affordable on an 80 GB device
// but not at any size. (An allocation that still fails makes automatic run two_pass.)
constexpr int64_t kTwoPassMaxMeanUb = 64;
// Light rows: a mean ub of at most kTwoPassMaxMeanUb (automatic's two_pass whatever the
// memory, so the free memory need not be asked for).
inline bool light_rows(int64_t sum_ub, int64_t nrows) { return nrows > 0 && sum_ub <= kTwoPassMaxMeanUb * nrows; }
CsrSpgemmDesign   choose_design(CsrSpgemmDesign requested, int64_t sum_ub, int64_t nrows, size_t free_bytes);

// ---- which kernel a device product runs on under AMGT_SPGEMM=auto ---------------------------
// Rules on what the planner knows before any kernel runs: C's rows m = rows of A, the mean row
// lengths of A and B, and their product est_ub (the mean terms, ub, per row of C when A's
// columns meet B's rows evenly; negative when an operand is empty). Measured on the H100
// (bench/RESULTS.md, record 2026-11-25e: amgt-kernel-bench --only spgemm, the products of the
// setups of laplace7 n=160, laplace27 n=100, systems3 n=64 and n=126; row-wise kernel,
// hypre's own in its default (unbinned) mode and in its binned mode):
// - many rows with short products: hypre's binned mode won on every product of >= 2^19 rows
//   and est_ub <= 108 (laplace7 L0 A*P 2.5-2.7 ms against 5.7 unbinned and 3.5-3.6
//   row-wise; systems3 n=126 L0 A*P 7.0 vs 9.9) and lost on heavier rows at those sizes
//   (est_ub 219-700: A*A of laplace27 and systems3; systems3 n=126 L0 P^T*(AP), 254) and
//   below 2^18 rows with short rows (per-bin launches and synchronisations: 0.4-0.6 ms where
//   the unbinned kernel takes 0.15-0.3);
// - long rows of C (est_ub >= 1446: systems3's coarse P^T*(AP)), where hypre's unbinned
//   kernel overflows its 256-slot shared tables into global memory (2.3-8.1 ms): the
//   row-wise kernel won below 2^14 rows (453-4779 rows: 0.26-0.73 ms against binned
//   0.68-1.39), hypre's binned mode above (34k rows, est_ub 3114: 2.67 against 3.79 row-wise;
//   283k rows: 7.69 against 8.03 unbinned and 8.92 row-wise). At est_ub 950-1100 (7-point
//   and 27-point coarse P^T*(AP)) the unbinned kernel was fastest.
// - everything else: hypre's default mode (what stock hypre runs).
// record 2026-11-26e: the lean design (above) on every product of at most 2^16 rows won the
// kernel bench (1.2-1.9x hypre's default mode) and lost end to end (1M-row setups 0.94-0.98x
// of the same setups with hypre's products): the rule stays as it was.
double estimated_row_terms(int64_t m, int64_t nnz_a, int64_t k, int64_t nnz_b);
constexpr int64_t kBinnedMinRows      = int64_t{1} << 19; // short rows
constexpr double  kBinnedMaxEstUb     = 128.0;
constexpr double  kLongRowsMinEstUb   = 1300.0;            // long rows
constexpr int64_t kRowsAutoMinRows    = 64;
constexpr int64_t kRowsAutoMaxRows    = int64_t{1} << 14;  // long rows: binned from here
bool rows_kernel_wins(int64_t m, int64_t nnz_a, int64_t k, int64_t nnz_b);
bool hypre_binned_wins(int64_t m, int64_t nnz_a, int64_t k, int64_t nnz_b);

// ---- host versions of the passes (tests) -----------------------------------------------------
// ub(i) of every row of A (the device's first pass).
std::vector<int64_t> row_upper_bounds(const CsrView& A, const CsrView& B);

// Rows per bin (index kGlobalBin for the global bin; empty rows are not counted).
std::vector<int64_t> bin_histogram(const std::vector<int64_t>& ub, int shared_bins);

// Exclusive offsets of the bins' segments in the row list (kBins + 1 entries).
std::vector<int64_t> bin_offsets(const std::vector<int64_t>& histogram);

// What the host emulation saw (the device driver reports the same in CsrSpgemmStats).
struct EmulationReport
{
   CsrSpgemmDesign      design = CsrSpgemmDesign::one_pass;
   int64_t              sum_ub = 0;
   std::vector<int64_t> bin_rows;        // per bin
   int64_t              global_batches = 0;
   std::vector<int64_t> tight_bin_rows;           // two_pass_tight's numeric pass: rows per bin of
   int64_t              tight_global_batches = 0; // their exact counts, and its global batches
   int64_t              max_probes     = 0; // longest probe sequence of any insertion
   bool                 lean_fell_back = false; // lean asked for (or chosen), a row beyond bin 8: automatic ran
};

// The device algorithm run sequentially on the host with the same planning functions, hash
// and probing: bins, tables of bin_shape / global_table_slots slots, the one-pass temporary at
// scan(ub) and its compaction, or the two passes. Throws amgt::Error where the device code
// would read or write out of bounds (a full table, a row count above its ub), so the tests
// catch a planning rule that breaks an invariant the kernels rely on. Values are summed in
// A's then B's order (exactly csr_spgemm_ref's); columns come in table order. The lean design
// bins rows by capped_bound, gives each a table of its bin's size and the
// bin's max_ub places in the slab, and falls back as the device does (to automatic).
CsrMatrix emulate(const CsrView& A, const CsrView& B, CsrSpgemmDesign design,
                  int shared_bins = kSharedBins, int64_t batch_slots = kGlobalBatchSlots,
                  EmulationReport* report = nullptr);

} // namespace csr_spgemm
} // namespace amgt
