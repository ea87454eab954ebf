// Matrix Market reader (coordinate format; .mtx or gzip-compressed .mtx.gz).
//
// Pure functions: a path (or a byte buffer) in, a CSR block out. Nothing is printed and
// nothing exits; every problem with the input is reported as an amgt::io::MtxError carrying
// a kind, the 1-based line number where it applies, and a message fit for a user.
//
// Accepted: "%%MatrixMarket matrix coordinate <field> <symmetry>" with field real (alias
// double), integer or pattern (values 1.0), and symmetry general, symmetric (off-diagonal
// entries mirrored) or skew-symmetric (mirrored with a minus sign; diagonal must be zero).
// Rejected with a clear message: array (dense) format, complex, hermitian, non-square (by
// default), 0 x 0, indices outside 1..n, NaN/Inf or unparsable values (and duplicates whose
// sum overflows), a count of entries that does not match the file, data after the last
// entry, dimensions above max_dimension, a declared entry count that the file's size cannot
// hold, matrices whose declared entry count leaves most rows necessarily empty (this also
// bounds every allocation by the size of the input), and NUL bytes (binary data). A file
// whose first line cannot be a banner is refused after its first bytes, without loading the
// rest. Duplicate entries are summed. Empty rows and empty columns are allowed and reported
// (info.empty_rows, info.empty_cols and a warning each).
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "row_block.h"

namespace amgt::io {

enum class MtxErrorKind {
  Io,           // cannot open or read the file
  Gzip,         // .gz without gzip magic, corrupt or truncated gzip stream
  Banner,       // missing or malformed %%MatrixMarket line
  Unsupported,  // valid Matrix Market we do not take: array, complex, hermitian, vector
  SizeLine,     // missing or malformed "rows cols entries" line
  Entry,        // malformed entry line, index out of range, bad or non-finite value
  Count,        // fewer entries than declared, data after the last one, impossible count
  Shape,        // 0 x 0, non-square, (almost) all rows empty
  Limit         // above a configured limit (dimension, decompressed size)
};

const char* to_string(MtxErrorKind kind);

// what() reads "<source>: line <line>: <message>", leaving out the parts that are empty/0.
class MtxError : public std::runtime_error {
 public:
  MtxError(MtxErrorKind kind, std::int64_t line, const std::string& message,
           const std::string& source = {});
  MtxErrorKind kind() const noexcept { return kind_; }
  // 1-based line of the input the error refers to; 0 when it is about the whole input.
  std::int64_t line() const noexcept { return line_; }
  const std::string& message() const noexcept { return message_; }
  const std::string& source() const noexcept { return source_; }  // the path, if any

 private:
  MtxErrorKind kind_;
  std::int64_t line_;
  std::string message_;
  std::string source_;
};

enum class MtxField { Real, Integer, Pattern };
enum class MtxSymmetry { General, Symmetric, SkewSymmetric };
const char* to_string(MtxField field);
const char* to_string(MtxSymmetry symmetry);

struct MtxReadOptions {
  // Called once with the matrix's row count after the size line was validated; returns
  // the rows to keep (0-based, half-open, clamped to [0, rows)). Every entry is still
  // validated. Default: all rows.
  std::function<Range(std::int64_t rows)> select_rows;
  bool require_square = true;
  std::int64_t max_dimension = 2147483647;   // rows and cols (2^31 - 1)
  std::uint64_t max_bytes = 1ull << 36;      // input size after decompression (64 GiB)
};

struct MtxInfo {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  MtxField field = MtxField::Real;
  MtxSymmetry symmetry = MtxSymmetry::General;
  std::int64_t declared_entries = 0;   // third number of the size line
  std::int64_t expanded_entries = 0;   // after mirroring symmetric storage, before merging
  std::int64_t upper_entries = 0;      // symmetric/skew entries given above the diagonal
  std::int64_t empty_rows = 0;         // over the whole matrix
  std::int64_t empty_cols = 0;         // over the whole matrix (structurally singular if > 0)
  std::int64_t duplicates_summed = 0;  // within the kept rows
  std::vector<std::string> warnings;   // human-readable notes (empty rows, duplicates...)
};

struct MtxMatrix {
  MtxInfo info;
  RowBlock rows;  // the kept rows; global_rows == info.rows
};

// Reads a file: plain text, or gzip when it starts with the gzip magic bytes. A name
// ending in ".gz" must hold gzip data.
MtxMatrix read_matrix_market(const std::string& path, const MtxReadOptions& options = {});

// Parses Matrix Market text already in memory (what read_matrix_market does after loading).
MtxMatrix parse_matrix_market(std::string_view text, const MtxReadOptions& options = {});

// Loads a file's bytes, decompressing gzip data; throws MtxError (Io, Gzip, Limit).
std::string load_file(const std::string& path, std::uint64_t max_bytes);

}  // namespace amgt::io
