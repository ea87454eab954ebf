// Shared by the reader fuzz targets: what a successful read must look like, and what an
// error must look like. A violated invariant calls abort(), which libFuzzer reports as a
// crash with the input that caused it.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mtx_reader.h"
#include "row_block.h"

namespace amgt::fuzz {

[[noreturn]] inline void violated(const char* what, long long a = 0, long long b = 0)
{
   std::fprintf(stderr, "fuzz invariant violated: %s (%lld, %lld)\n", what, a, b);
   std::abort();
}

#define AMGT_FUZZ_CHECK(cond, ...) \
   do { if (!(cond)) ::amgt::fuzz::violated(#cond, ##__VA_ARGS__); } while (0)

// Every row of `block` well formed: sorted unique columns in range, finite values.
inline void check_block(const RowBlock& block, std::int64_t cols)
{
   AMGT_FUZZ_CHECK(!block.row_ptr.empty() && block.row_ptr[0] == 0);
   AMGT_FUZZ_CHECK(block.col.size() == block.val.size());
   AMGT_FUZZ_CHECK(block.row_ptr.back() == static_cast<std::int64_t>(block.col.size()));
   for (std::int64_t r = 0; r < block.num_rows(); ++r)
   {
      AMGT_FUZZ_CHECK(block.row_ptr[r] <= block.row_ptr[r + 1], r);
      for (std::int64_t p = block.row_ptr[r]; p < block.row_ptr[r + 1]; ++p)
      {
         AMGT_FUZZ_CHECK(block.col[p] >= 0 && block.col[p] < cols, block.col[p], cols);
         AMGT_FUZZ_CHECK(p == block.row_ptr[r] || block.col[p - 1] < block.col[p], r, p);
         // the reader refuses NaN/Inf in the file; what it returns must be finite too
         AMGT_FUZZ_CHECK(std::isfinite(block.val[p]), r, block.col[p]);
      }
   }
}

// A whole matrix as read without row selection.
inline void check_matrix(const io::MtxMatrix& m)
{
   const io::MtxInfo& info = m.info;
   AMGT_FUZZ_CHECK(info.rows > 0 && info.cols > 0, info.rows, info.cols);
   AMGT_FUZZ_CHECK(info.rows == info.cols, info.rows, info.cols); // require_square by default
   AMGT_FUZZ_CHECK(m.rows.global_rows == info.rows);
   AMGT_FUZZ_CHECK(m.rows.first_row == 0 && m.rows.num_rows() == info.rows);
   check_block(m.rows, info.cols);
   AMGT_FUZZ_CHECK(m.rows.nnz() + info.duplicates_summed == info.expanded_entries, m.rows.nnz(),
                   info.expanded_entries);
   std::int64_t empty_rows = 0;
   std::vector<char> col_seen(static_cast<size_t>(info.cols), 0);
   for (std::int64_t r = 0; r < m.rows.num_rows(); ++r)
   {
      empty_rows += m.rows.row_ptr[r] == m.rows.row_ptr[r + 1];
      for (std::int64_t p = m.rows.row_ptr[r]; p < m.rows.row_ptr[r + 1]; ++p) col_seen[m.rows.col[p]] = 1;
   }
   std::int64_t empty_cols = 0;
   for (char c : col_seen) empty_cols += !c;
   AMGT_FUZZ_CHECK(empty_rows == info.empty_rows, empty_rows, info.empty_rows);
   AMGT_FUZZ_CHECK(empty_cols == info.empty_cols, empty_cols, info.empty_cols);
   // (no bound on empty rows: the reader refuses a declared entry count that must leave most
   // rows empty, but entries on the same rows may still leave most of them empty; that is
   // reported as a warning, and the allocations stay bounded by the declared count)
}

inline void check_error(const io::MtxError& e)
{
   AMGT_FUZZ_CHECK(!e.message().empty());
   AMGT_FUZZ_CHECK(std::string(e.what()).find(e.message()) != std::string::npos);
   AMGT_FUZZ_CHECK(e.line() >= 0, e.line());
   AMGT_FUZZ_CHECK(std::string(io::to_string(e.kind())) != "unknown");
}

} // namespace amgt::fuzz
