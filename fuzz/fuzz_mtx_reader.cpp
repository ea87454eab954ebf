// libFuzzer target: the Matrix Market parser on text in memory (parse_matrix_market).
//
// Any input must end in a matrix that satisfies fuzz_check.h or in an MtxError; any other
// exception, a crash, a sanitizer report, a leak or an allocation beyond libFuzzer's limit
// is a finding. A successful read is repeated with the rows split over 3 "ranks" (the
// driver's select_rows), and the 3 blocks must concatenate to the whole matrix.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"

namespace {

using amgt::Range;
using amgt::RowBlock;

// The driver's contiguous partition (bench/amgt_solve/row_block.h).
Range part(std::int64_t rows, int p, int parts)
{
   return amgt::block_partition(rows, p, parts);
}

void check_split(std::string_view text, const amgt::io::MtxMatrix& whole)
{
   const int parts = 3;
   RowBlock  joined;
   joined.row_ptr = {0};
   for (int p = 0; p < parts; ++p)
   {
      amgt::io::MtxReadOptions o;
      o.select_rows = [p](std::int64_t rows) { return part(rows, p, parts); };
      const amgt::io::MtxMatrix m = amgt::io::parse_matrix_market(text, o);
      const Range               r = part(whole.info.rows, p, parts);
      AMGT_FUZZ_CHECK(m.rows.first_row == r.begin, m.rows.first_row, r.begin);
      AMGT_FUZZ_CHECK(m.rows.num_rows() == r.size(), m.rows.num_rows(), r.size());
      AMGT_FUZZ_CHECK(m.info.empty_rows == whole.info.empty_rows);
      amgt::fuzz::check_block(m.rows, whole.info.cols);
      const std::int64_t base = joined.row_ptr.back();
      for (std::int64_t i = 1; i < static_cast<std::int64_t>(m.rows.row_ptr.size()); ++i)
         joined.row_ptr.push_back(base + m.rows.row_ptr[i]);
      joined.col.insert(joined.col.end(), m.rows.col.begin(), m.rows.col.end());
      joined.val.insert(joined.val.end(), m.rows.val.begin(), m.rows.val.end());
   }
   AMGT_FUZZ_CHECK(joined.row_ptr == whole.rows.row_ptr);
   AMGT_FUZZ_CHECK(joined.col == whole.rows.col);
   for (size_t k = 0; k < joined.val.size(); ++k)
   {
      AMGT_FUZZ_CHECK(joined.val[k] == whole.rows.val[k], static_cast<long long>(k));
   }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
   const std::string_view text(reinterpret_cast<const char*>(data), size);
   try
   {
      const amgt::io::MtxMatrix m = amgt::io::parse_matrix_market(text);
      amgt::fuzz::check_matrix(m);
      check_split(text, m);
   }
   catch (const amgt::io::MtxError& e)
   {
      amgt::fuzz::check_error(e);
   }
   return 0;
}
