// A contiguous block of matrix rows in CSR form with global column indices, and the
// contiguous block partition used to distribute rows (or whole grid nodes) over MPI ranks.
#pragma once

#include <cstdint>
#include <vector>

namespace amgt {

// Rows [first_row, first_row + num_rows()) of a global_rows x global_rows matrix.
// Columns are 0-based global indices, sorted within each row, without duplicates.
struct RowBlock {
  std::int64_t global_rows = 0;
  std::int64_t first_row = 0;
  std::vector<std::int64_t> row_ptr{0};  // size num_rows() + 1
  std::vector<std::int64_t> col;
  std::vector<double> val;

  std::int64_t num_rows() const { return static_cast<std::int64_t>(row_ptr.size()) - 1; }
  std::int64_t nnz() const { return static_cast<std::int64_t>(col.size()); }
  void clear(std::int64_t first) {
    first_row = first;
    row_ptr.assign(1, 0);
    col.clear();
    val.clear();
  }
};

// Half-open range [begin, end).
struct Range {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const { return end - begin; }
};

// Splits `units` items into `parts` contiguous blocks whose sizes differ by at most one
// (the first units % parts blocks get one more) and returns block `part`.
inline Range block_partition(std::int64_t units, int part, int parts) {
  const std::int64_t base = units / parts;
  const std::int64_t extra = units % parts;
  const std::int64_t p = part;
  const std::int64_t begin = p * base + (p < extra ? p : extra);
  return Range{begin, begin + base + (p < extra ? 1 : 0)};
}

}  // namespace amgt
