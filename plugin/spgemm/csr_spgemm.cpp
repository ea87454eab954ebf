// Planning of the row-wise CSR SpGEMM and its host emulation (csr_spgemm.h).
#include "spgemm/csr_spgemm.h"

#include "common/error.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace amgt {

const char* to_string(CsrSpgemmDesign d)
{
   static const char* const names[] = {"automatic", "one_pass", "two_pass", "two_pass_tight", "lean", "short_rows"};
   return by_enum(d, names, "?");
}

namespace csr_spgemm {

int usable_shared_bins(size_t smem_optin)
{
   int n = 0;
   while (n < kSharedBins && shared_bytes(n, true) <= smem_optin) ++n;
   return n;
}

int64_t global_table_slots(int64_t ub, int32_t ncols_b)
{
   const int64_t distinct = std::min<int64_t>(std::max<int64_t>(ub, 0), std::max<int32_t>(ncols_b, 0));
   int64_t       slots    = 32;
   while (slots < 2 * distinct) slots <<= 1; // distinct < 2^31: at most 2^32
   return slots;
}

std::vector<GlobalBatch> plan_global_batches(const std::vector<int64_t>& ub, int32_t ncols_b,
                                             int64_t max_slots)
{
   std::vector<GlobalBatch> batches;
   size_t                   i = 0;
   while (i < ub.size())
   {
      GlobalBatch b;
      b.first = i;
      b.offsets.push_back(0);
      while (i < ub.size())
      {
         const int64_t slots = global_table_slots(ub[i], ncols_b);
         // a row that alone exceeds the bound still gets its batch
         if (b.count > 0 && b.offsets.back() + slots > max_slots) break;
         b.offsets.push_back(b.offsets.back() + slots);
         ++b.count;
         ++i;
      }
      batches.push_back(std::move(b));
   }
   return batches;
}

size_t one_pass_temp_bytes(int64_t sum_ub)
{
   constexpr size_t per_entry = sizeof(int32_t) + sizeof(double);
   if (sum_ub <= 0) return 0;
   const auto n = static_cast<uint64_t>(sum_ub);
   if (n > std::numeric_limits<size_t>::max() / per_entry) return std::numeric_limits<size_t>::max();
   return static_cast<size_t>(n) * per_entry;
}

CsrSpgemmDesign choose_design(CsrSpgemmDesign requested, int64_t sum_ub, int64_t nrows, size_t free_bytes)
{
   if (requested != CsrSpgemmDesign::automatic) return requested;
   if (light_rows(sum_ub, nrows)) return CsrSpgemmDesign::two_pass;
   const double temp = static_cast<double>(one_pass_temp_bytes(sum_ub));
   return temp <= kScratchFreeFraction * static_cast<double>(free_bytes) ? CsrSpgemmDesign::one_pass
                                                                          : CsrSpgemmDesign::two_pass;
}

int64_t lean_slab_entries(const std::vector<int64_t>& hist)
{
   int64_t n = 0;
   for (int b = 0; b < kSharedBins && b < static_cast<int>(hist.size()); ++b) n += hist[static_cast<size_t>(b)] * bin_shape(b).max_ub;
   return n;
}

double estimated_row_terms(int64_t m, int64_t nnz_a, int64_t k, int64_t nnz_b)
{
   if (m <= 0 || k <= 0 || nnz_a <= 0 || nnz_b <= 0) return -1.0;
   return (static_cast<double>(nnz_a) / static_cast<double>(m)) *
          (static_cast<double>(nnz_b) / static_cast<double>(k));
}

bool rows_kernel_wins(int64_t m, int64_t nnz_a, int64_t k, int64_t nnz_b)
{
   if (m < kRowsAutoMinRows || m >= kRowsAutoMaxRows) return false;
   return estimated_row_terms(m, nnz_a, k, nnz_b) >= kLongRowsMinEstUb;
}

bool hypre_binned_wins(int64_t m, int64_t nnz_a, int64_t k, int64_t nnz_b)
{
   const double est_ub = estimated_row_terms(m, nnz_a, k, nnz_b);
   if (est_ub < 0.0) return false;
   if (m >= kBinnedMinRows && est_ub <= kBinnedMaxEstUb) return true;
   return m >= kRowsAutoMaxRows && est_ub >= kLongRowsMinEstUb;
}

std::vector<int64_t> row_upper_bounds(const CsrView& A, const CsrView& B)
{
   std::vector<int64_t> ub(static_cast<size_t>(std::max(A.nrows, 0)), 0);
   for (int32_t i = 0; i < A.nrows; ++i)
   {
      int64_t u = 0;
      for (int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      {
         const int32_t k = A.col[p];
         u += B.row_ptr[k + 1] - B.row_ptr[k];
      }
      ub[static_cast<size_t>(i)] = u;
   }
   return ub;
}

std::vector<int64_t> bin_histogram(const std::vector<int64_t>& ub, int shared_bins)
{
   std::vector<int64_t> h(kBins, 0);
   for (int64_t u : ub)
   {
      const int b = bin_of(u, shared_bins);
      if (b >= 0) ++h[static_cast<size_t>(b)];
   }
   return h;
}

std::vector<int64_t> bin_offsets(const std::vector<int64_t>& histogram)
{
   std::vector<int64_t> off(histogram.size() + 1, 0);
   for (size_t b = 0; b < histogram.size(); ++b) off[b + 1] = off[b] + histogram[b];
   return off;
}

namespace {

// One row's hash table as the kernels hold it: keys -1 when free, linear probing from
// hash_slot. Throws where a kernel would spin forever (a full table).
struct Table
{
   std::vector<int32_t> keys;
   std::vector<double>  vals;
   int                  log2  = 0;
   int64_t              probes = 0; // longest probe sequence so far

   void reset(int64_t slots)
   {
      log2 = 0;
      while ((int64_t{1} << log2) < slots) ++log2;
      AMGT_REQUIRE((int64_t{1} << log2) == slots, "emulate: table size is not a power of two");
      keys.assign(static_cast<size_t>(slots), -1);
      vals.assign(static_cast<size_t>(slots), 0.0);
   }
   void insert(int32_t key, double v)
   {
      const uint64_t mask = keys.size() - 1;
      uint64_t       s    = hash_slot(key, log2) & mask;
      for (uint64_t n = 0;; ++n)
      {
         AMGT_REQUIRE(n < keys.size(), "emulate: hash table full (a bin's table is too small)");
         if (keys[s] == key || keys[s] == -1)
         {
            keys[s] = key;
            vals[s] += v;
            probes = std::max<int64_t>(probes, static_cast<int64_t>(n) + 1);
            return;
         }
         s = (s + 1) & mask;
      }
   }
};

void build_row(const CsrView& A, const CsrView& B, int32_t i, Table& t)
{
   for (int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
   {
      const int32_t k = A.col[p];
      const double  a = A.val ? A.val[p] : 1.0;
      for (int32_t q = B.row_ptr[k]; q < B.row_ptr[k + 1]; ++q)
      {
         t.insert(B.col[q], a * (B.val ? B.val[q] : 1.0));
      }
   }
}

// C's row pointer from the rows' counts (checked against 2^31-1) and its arrays sized.
void size_by_counts(CsrMatrix& C, const std::vector<int64_t>& count)
{
   const size_t n     = count.size();
   int64_t      total = 0;
   C.row_ptr.assign(n + 1, 0);
   for (size_t i = 0; i < n; ++i)
   {
      C.row_ptr[i] = static_cast<int32_t>(total);
      total += count[i];
      AMGT_REQUIRE(total <= std::numeric_limits<int32_t>::max(), "csr_spgemm: product has more than 2^31-1 nonzeros");
   }
   C.row_ptr[n] = static_cast<int32_t>(total);
   C.col.resize(static_cast<size_t>(total));
   C.val.resize(static_cast<size_t>(total));
}

// The compaction: row i's count[i] pairs from the temporary at off[i] into C (sized).
void compact_into(CsrMatrix& C, const std::vector<int64_t>& count, const std::vector<int64_t>& off,
                  const std::vector<int32_t>& tcol, const std::vector<double>& tval)
{
   for (size_t i = 0; i < count.size(); ++i)
   {
      std::copy_n(tcol.begin() + off[i], count[i], C.col.begin() + C.row_ptr[i]);
      std::copy_n(tval.begin() + off[i], count[i], C.val.begin() + C.row_ptr[i]);
   }
}

} // namespace

CsrMatrix emulate(const CsrView& A, const CsrView& B, CsrSpgemmDesign design, int shared_bins,
                  int64_t batch_slots, EmulationReport* report)
{
   validate_csr(A);
   validate_csr(B);
   AMGT_REQUIRE(A.ncols == B.nrows, "csr_spgemm: dimension mismatch");
   AMGT_REQUIRE(shared_bins >= 0 && shared_bins <= kSharedBins, "emulate: bad shared_bins");
   const size_t n = static_cast<size_t>(A.nrows);

   const std::vector<int64_t> ub             = row_upper_bounds(A, B);
   bool                       lean_fell_back = false;
   if (design == CsrSpgemmDesign::lean)
   {
      std::vector<int64_t>       hist(kBins, 0);
      std::vector<int>           bin(n, -1);
      int64_t                    sum_ub = 0;
      for (size_t i = 0; i < n; ++i)
      {
         bin[i] = bin_of(capped_bound(ub[i], B.ncols), shared_bins);
         if (bin[i] >= 0) ++hist[static_cast<size_t>(bin[i])];
         sum_ub += ub[i];
      }
      if (shared_bins == kSharedBins && hist[kGlobalBin] == 0)
      {
         // the slab: bin by bin, rows in listing order (any order on the device), max_ub places each
         std::vector<int64_t> base(kSharedBins, 0), pos(kSharedBins, 0), off(n, 0);
         for (int b = 1; b < kSharedBins; ++b) base[b] = base[b - 1] + hist[b - 1] * bin_shape(b - 1).max_ub;
         AMGT_REQUIRE(base[kSharedBins - 1] + hist[kSharedBins - 1] * bin_shape(kSharedBins - 1).max_ub ==
                         lean_slab_entries(hist), "emulate: lean slab size");
         std::vector<int32_t> tcol(static_cast<size_t>(lean_slab_entries(hist)));
         std::vector<double>  tval(tcol.size());
         std::vector<int64_t> count(n, 0);
         Table                t;
         for (size_t i = 0; i < n; ++i)
         {
            const int b = bin[i];
            if (b < 0) continue;
            off[i] = base[b] + pos[b]++ * bin_shape(b).max_ub;
            t.reset(int64_t{1} << bin_shape(b).log2_table);
            build_row(A, B, static_cast<int32_t>(i), t);
            int64_t c = 0;
            for (size_t s = 0; s < t.keys.size(); ++s)
            {
               if (t.keys[s] < 0) continue;
               AMGT_REQUIRE(c < bin_shape(b).max_ub, "emulate: a row holds more entries than its room");
               tcol[static_cast<size_t>(off[i] + c)] = t.keys[s];
               tval[static_cast<size_t>(off[i] + c)] = t.vals[s];
               ++c;
            }
            count[i] = c;
         }
         CsrMatrix C;
         C.nrows = A.nrows;
         C.ncols = B.ncols;
         size_by_counts(C, count);
         compact_into(C, count, off, tcol, tval);
         if (report)
         {
            *report            = EmulationReport{};
            report->design     = CsrSpgemmDesign::lean;
            report->sum_ub     = sum_ub;
            report->bin_rows   = hist;
            report->max_probes = t.probes;
         }
         return C;
      }
      // a row beyond bin 8 (or bins the device cannot run): the general path's automatic
      // choice, as on the device
      design        = CsrSpgemmDesign::automatic;
      lean_fell_back = true;
   }

   // Pass 1: bounds, bins, the rows listed per bin (a stable order here; any on the device).
   const std::vector<int64_t> hist = bin_histogram(ub, shared_bins);
   const std::vector<int64_t> boff = bin_offsets(hist);
   std::vector<int32_t>       listed(static_cast<size_t>(boff.back()));
   {
      std::vector<int64_t> cursor(boff.begin(), boff.end() - 1);
      for (size_t i = 0; i < n; ++i)
      {
         const int b = bin_of(ub[i], shared_bins);
         if (b >= 0) listed[static_cast<size_t>(cursor[static_cast<size_t>(b)]++)] = static_cast<int32_t>(i);
      }
   }
   int64_t sum_ub = 0;
   for (int64_t u : ub) sum_ub += u;
   // the device passes its free memory; the emulation has all it needs
   const CsrSpgemmDesign d =
      choose_design(design == CsrSpgemmDesign::lean ? CsrSpgemmDesign::automatic : design, sum_ub,
                    static_cast<int64_t>(n), std::numeric_limits<size_t>::max());

   // The global bin's tables come from batches, as on the device.
   std::vector<int64_t> global_ub;
   for (int64_t r = boff[kGlobalBin]; r < boff[kGlobalBin + 1]; ++r)
      global_ub.push_back(ub[static_cast<size_t>(listed[static_cast<size_t>(r)])]);
   const std::vector<GlobalBatch> batches = plan_global_batches(global_ub, B.ncols, batch_slots);
   std::vector<int64_t>           slots_of(n, 0);
   for (int b = 0; b < kSharedBins; ++b)
      for (int64_t r = boff[b]; r < boff[b + 1]; ++r)
         slots_of[static_cast<size_t>(listed[static_cast<size_t>(r)])] = int64_t{1} << bin_shape(b).log2_table;
   for (const GlobalBatch& g : batches)
   {
      AMGT_REQUIRE(g.offsets.size() == g.count + 1, "emulate: batch offsets");
      for (size_t r = 0; r < g.count; ++r)
      {
         const int32_t row = listed[static_cast<size_t>(boff[kGlobalBin]) + g.first + r];
         slots_of[static_cast<size_t>(row)] = g.offsets[r + 1] - g.offsets[r];
      }
   }

   // two_pass_tight's numeric pass: each row's table by the bin of its exact count (shared
   // bins, then the global bin's batches over the counts), as the device rebins them.
   int64_t              tight_global_batches = 0;
   std::vector<int64_t> tight_hist;
   auto                 tight_tables = [&](const std::vector<int64_t>& counted) {
      std::vector<int64_t> global_c;
      std::vector<int32_t> global_rows;
      tight_hist = bin_histogram(counted, shared_bins);
      for (int32_t i : listed)
      {
         const int b = bin_of(counted[static_cast<size_t>(i)], shared_bins);
         AMGT_REQUIRE(b >= 0, "emulate: a row with products counted no entry");
         if (b < kGlobalBin) slots_of[static_cast<size_t>(i)] = int64_t{1} << bin_shape(b).log2_table;
         else
         {
            global_c.push_back(counted[static_cast<size_t>(i)]);
            global_rows.push_back(i);
         }
      }
      const std::vector<GlobalBatch> tb = plan_global_batches(global_c, B.ncols, batch_slots);
      for (const GlobalBatch& g : tb)
         for (size_t r = 0; r < g.count; ++r)
            slots_of[static_cast<size_t>(global_rows[g.first + r])] = g.offsets[r + 1] - g.offsets[r];
      tight_global_batches = static_cast<int64_t>(tb.size());
   };

   Table     t;
   CsrMatrix C;
   C.nrows = A.nrows;
   C.ncols = B.ncols;
   C.row_ptr.assign(n + 1, 0);
   std::vector<int64_t> count(n, 0);
   auto                 emit = [&](int32_t i, int32_t* col, double* val, int64_t room) {
      int64_t c = 0;
      for (size_t s = 0; s < t.keys.size(); ++s)
      {
         if (t.keys[s] < 0) continue;
         AMGT_REQUIRE(c < room, "emulate: a row holds more entries than its room");
         if (col)
         {
            col[c] = t.keys[s];
            val[c] = t.vals[s];
         }
         ++c;
      }
      count[static_cast<size_t>(i)] = c;
   };
   auto scan_counts = [&] { size_by_counts(C, count); };

   if (d == CsrSpgemmDesign::one_pass)
   {
      std::vector<int64_t> off(n + 1, 0);
      for (size_t i = 0; i < n; ++i) off[i + 1] = off[i] + ub[i];
      std::vector<int32_t> tcol(static_cast<size_t>(sum_ub));
      std::vector<double>  tval(static_cast<size_t>(sum_ub));
      for (int32_t i : listed)
      {
         t.reset(slots_of[static_cast<size_t>(i)]);
         build_row(A, B, i, t);
         emit(i, tcol.data() + off[static_cast<size_t>(i)], tval.data() + off[static_cast<size_t>(i)],
              ub[static_cast<size_t>(i)]);
      }
      scan_counts();
      compact_into(C, count, off, tcol, tval);
   }
   else
   {
      for (int32_t i : listed)
      {
         t.reset(slots_of[static_cast<size_t>(i)]);
         build_row(A, B, i, t);
         emit(i, nullptr, nullptr, ub[static_cast<size_t>(i)]);
      }
      scan_counts();
      const std::vector<int64_t> counted = count;
      if (d == CsrSpgemmDesign::two_pass_tight) tight_tables(counted);
      for (int32_t i : listed)
      {
         t.reset(slots_of[static_cast<size_t>(i)]);
         build_row(A, B, i, t);
         const size_t p = static_cast<size_t>(C.row_ptr[static_cast<size_t>(i)]);
         emit(i, C.col.data() + p, C.val.data() + p, counted[static_cast<size_t>(i)]);
         AMGT_REQUIRE(count[static_cast<size_t>(i)] == counted[static_cast<size_t>(i)],
                      "emulate: the numeric pass found another count than the symbolic one");
         const int b = bin_of(ub[static_cast<size_t>(i)], shared_bins);
         if (d == CsrSpgemmDesign::short_rows && b >= 0 && b < kShortBins)
         {
            // the sort kernels write a short row's columns ascending (values: the same sums)
            const size_t          len = static_cast<size_t>(counted[static_cast<size_t>(i)]);
            std::vector<size_t>   order(len);
            std::vector<int32_t>  col(C.col.begin() + p, C.col.begin() + p + len);
            std::vector<double>   val(C.val.begin() + p, C.val.begin() + p + len);
            for (size_t e = 0; e < len; ++e) order[e] = e;
            std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return col[x] < col[y]; });
            for (size_t e = 0; e < len; ++e)
            {
               C.col[p + e] = col[order[e]];
               C.val[p + e] = val[order[e]];
            }
         }
      }
   }

   if (report)
   {
      report->design         = d;
      report->sum_ub         = sum_ub;
      report->bin_rows       = hist;
      report->global_batches = static_cast<int64_t>(batches.size());
      report->tight_bin_rows       = tight_hist;
      report->tight_global_batches = tight_global_batches;
      report->max_probes     = t.probes;
      report->lean_fell_back = lean_fell_back;
   }
   return C;
}

} // namespace csr_spgemm
} // namespace amgt
