// The bad-input corpus: malformed Matrix Market files and the problem each must be refused
// for, generated in memory (nothing binary is committed) and written into a scratch folder
// by the tests. test_mtx_reader_corpus checks the reader's verdict (error kind and message);
// test_bad_inputs runs amgt-solve on the same files and checks what a user sees.
//
// Valid but odd inputs (empty rows or columns, values outside fp16's range, ...) are not
// here: they are accepted, and their behaviour is asserted case by case in the tests.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "mtx_reader.h"
#include "scratch.h"

namespace amgt::test {

namespace fs = std::filesystem;
using io::MtxErrorKind;

inline const std::string kBanner = "%%MatrixMarket matrix coordinate real general\n";

// gzip (not zlib) framing, as gzip(1) writes it.
inline std::string gzip_bytes(const std::string& plain)
{
   z_stream z{};
   if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("deflateInit2 failed");
   std::string out(deflateBound(&z, plain.size()) + 64, '\0');
   z.next_in   = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
   z.avail_in  = static_cast<uInt>(plain.size());
   z.next_out  = reinterpret_cast<Bytef*>(out.data());
   z.avail_out = static_cast<uInt>(out.size());
   const int rc = deflate(&z, Z_FINISH);
   deflateEnd(&z);
   if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
   out.resize(z.total_out);
   return out;
}

// n x n 1D Laplacian (2, -1), entries in row order; `scale` multiplies every value. Valid
// input, the base of several cases.
inline std::string laplace1d(int n, double scale = 1.0, const std::string& banner = kBanner)
{
   std::string body;
   long        count = 0;
   char        line[96];
   for (int i = 1; i <= n; ++i)
   {
      for (int j = i - 1; j <= i + 1; ++j)
      {
         if (j < 1 || j > n) continue;
         std::snprintf(line, sizeof line, "%d %d %.17g\n", i, j, (i == j ? 2.0 : -1.0) * scale);
         body += line;
         ++count;
      }
   }
   return banner + std::to_string(n) + " " + std::to_string(n) + " " + std::to_string(count) +
          "\n" + body;
}

// Deterministic bytes that are not text (a fixed LCG: the corpus is the same on every run).
inline std::string garbage_bytes(size_t n, uint32_t seed)
{
   std::string s(n, '\0');
   for (size_t i = 0; i < n; ++i)
   {
      seed = seed * 1664525u + 1013904223u;
      s[i] = static_cast<char>(seed >> 24);
   }
   s[0] = '\x7f'; // never '%' nor the gzip magic
   return s;
}

struct BadInput
{
   std::string  name;    // test name (identifier characters only)
   std::string  file;    // file name in the scratch folder ("" : `path` names it as is)
   std::string  bytes;   // content
   MtxErrorKind kind;    // what the reader must report
   std::string  message; // a piece of the message that names the problem
   std::string  path;    // for cases that are not a written file (missing file, directory)
};

inline void PrintTo(const BadInput& c, std::ostream* os)
{
   *os << c.name;
}

inline BadInput bad(std::string name, std::string file, std::string bytes, MtxErrorKind kind,
                    std::string message, std::string path = {})
{
   return BadInput{std::move(name), std::move(file), std::move(bytes), kind, std::move(message),
                   std::move(path)};
}

inline std::vector<BadInput> bad_inputs()
{
   const std::string B  = kBanner;
   const std::string ok = laplace1d(8);
   const std::string gz = gzip_bytes(laplace1d(200));
   std::string       crc_broken = gz;
   crc_broken[crc_broken.size() - 6] ^= 0x5a; // inside the CRC32 of the gzip trailer
   const std::string nul_entry = B + "2 2 2\n1 1 4\n2 2" + std::string(1, '\0') + "4\n";

   using K = MtxErrorKind;
   std::vector<BadInput> v = {
       // --- truncation and entry counts
       bad("empty_file", "empty.mtx", "", K::Banner, "empty input"),
       bad("banner_only", "banner_only.mtx", B, K::SizeLine, "missing size line"),
       bad("truncated_entries", "truncated.mtx", B + "4 4 6\n1 1 2\n2 2 2\n3 3 2\n", K::Count,
        "file ends after 3 of 6 declared entries"),
       bad("truncated_mid_line", "truncated_line.mtx", B + "4 4 4\n1 1 2\n2 2 2\n3 3 2\n4 4", K::Entry,
        "expected 'row col value', got 2 words"),
       bad("too_many_entries", "too_many.mtx", B + "4 4 2\n1 1 2\n2 2 2\n3 3 2\n4 4 2\n", K::Count,
        "data after the 2 declared entries"),
       bad("impossible_entry_count", "impossible_count.mtx", B + "10 10 1000000000000\n1 1 1\n",
        K::Count, "file ends after 1 of 1000000000000"),
       bad("size_line_two_words", "size2.mtx", B + "4 4\n1 1 1\n", K::SizeLine,
        "expected the size line 'rows cols entries' (3 integers), got 2 words"),
       bad("size_line_not_numbers", "size_nan.mtx", B + "four 4 4\n", K::SizeLine,
        "cannot parse rows 'four'"),
       bad("size_line_negative", "size_neg.mtx", B + "-4 4 1\n1 1 1\n", K::SizeLine, "cannot parse rows '-4'"),
       // --- banner
       bad("no_banner", "no_banner.mtx", "4 4 1\n1 1 1\n", K::Banner, "missing '%%MatrixMarket' banner"),
       bad("misspelled_banner", "misspelled.mtx", "%%MatrixMarkt matrix coordinate real general\n1 1 1\n1 1 1\n",
        K::Banner, "missing '%%MatrixMarket' banner"),
       bad("banner_four_words", "banner4.mtx", "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n",
        K::Banner, "(5 words), got 4 words"),
       bad("unknown_format", "format.mtx", "%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n",
        K::Banner, "unknown format 'sparse'"),
       bad("unknown_field", "field.mtx", "%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n",
        K::Banner, "unknown field 'quaternion'"),
       bad("unknown_symmetry", "symmetry.mtx", "%%MatrixMarket matrix coordinate real diagonal\n1 1 1\n1 1 1\n",
        K::Banner, "unknown symmetry 'diagonal'"),
       bad("long_first_line", "long_line.mtx", std::string(4000, 'A') + "\n", K::Banner,
        "the first line is longer than 1024 bytes"),
       bad("binary_garbage", "garbage.mtx", garbage_bytes(3000, 7), K::Banner,
        "missing '%%MatrixMarket' banner"),
       // --- valid Matrix Market that the driver does not take
       bad("array_format", "array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n",
        K::Unsupported, "'array' format is not supported"),
       bad("complex_field", "complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
        K::Unsupported, "'complex' matrices are not supported"),
       bad("hermitian", "hermitian.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
        K::Unsupported, "'hermitian' matrices are not supported"),
       bad("vector_object", "vector.mtx", "%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n",
        K::Unsupported, "object 'vector' is not supported"),
       bad("pattern_skew", "pattern_skew.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n2 2 1\n2 1\n",
        K::Banner, "'pattern' cannot be 'skew-symmetric'"),
       // --- indices (1-based)
       bad("row_index_zero", "row0.mtx", B + "4 4 4\n1 1 2\n0 2 2\n3 3 2\n4 4 2\n", K::Entry,
        "row index 0 out of range 1..4"),
       bad("col_index_zero", "col0.mtx", B + "4 4 4\n1 1 2\n2 0 2\n3 3 2\n4 4 2\n", K::Entry,
        "column index 0 out of range 1..4"),
       bad("row_index_past_n", "row5.mtx", B + "4 4 4\n1 1 2\n5 2 2\n3 3 2\n4 4 2\n", K::Entry,
        "row index 5 out of range 1..4"),
       bad("col_index_past_n", "col5.mtx", B + "4 4 4\n1 1 2\n2 5 2\n3 3 2\n4 4 2\n", K::Entry,
        "column index 5 out of range 1..4"),
       bad("negative_index", "neg_index.mtx", B + "4 4 4\n1 1 2\n-2 2 2\n3 3 2\n4 4 2\n", K::Entry,
        "cannot parse row index '-2'"),
       bad("index_overflow", "index_overflow.mtx", B + "4 4 4\n1 1 2\n2 99999999999999999999999 2\n3 3 2\n4 4 2\n",
        K::Entry, "column index '99999999999999999999999' out of range 1..4"),
       bad("fractional_index", "frac_index.mtx", B + "4 4 4\n1 1 2\n2.5 2 2\n3 3 2\n4 4 2\n", K::Entry,
        "cannot parse row index '2.5'"),
       // --- values
       bad("nan_value", "nan.mtx", B + "4 4 4\n1 1 2\n2 2 nan\n3 3 2\n4 4 2\n", K::Entry,
        "value 'nan' is not finite"),
       bad("inf_value", "inf.mtx", B + "4 4 4\n1 1 2\n2 2 2\n3 3 Inf\n4 4 2\n", K::Entry,
        "value 'Inf' is not finite"),
       bad("minus_inf_value", "minus_inf.mtx", B + "4 4 4\n1 1 -infinity\n2 2 2\n3 3 2\n4 4 2\n",
        K::Entry, "value '-infinity' is not finite"),
       bad("value_overflows_double", "overflow.mtx", B + "4 4 4\n1 1 2\n2 2 1e400\n3 3 2\n4 4 2\n",
        K::Entry, "value '1e400' is outside the range of a double"),
       bad("value_not_a_number", "word_value.mtx", B + "4 4 4\n1 1 2\n2 2 two\n3 3 2\n4 4 2\n",
        K::Entry, "cannot parse value 'two'"),
       bad("complex_data_in_real_file", "complex_data.mtx", B + "2 2 2\n1 1 2 0\n2 2 2 0\n", K::Entry,
        "unexpected extra word '0'"),
       bad("real_in_integer_file", "int_real.mtx",
        "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 1.5\n2 2 1\n", K::Entry,
        "value '1.5' is not an integer"),
       bad("skew_nonzero_diagonal", "skew_diag.mtx",
        "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n1 1 1\n2 1 1\n", K::Entry,
        "skew-symmetric matrix with a nonzero diagonal entry (1, 1)"),
       bad("value_too_long", "long_value.mtx", B + "2 2 2\n1 1 " + std::string(300, '1') + "\n2 2 1\n",
        K::Entry, "(too long)"),
       bad("nul_byte", "nul.mtx", nul_entry, K::Entry, "NUL byte at offset"),
       // found by fuzz_mtx_reader: each value finite, their sum not (it reached hypre as Inf)
       bad("duplicates_sum_to_inf", "dup_inf.mtx", B + "2 2 3\n1 1 1e308\n1 1 1e308\n2 2 1\n", K::Entry,
           "duplicate entries at (1, 1) sum to a value outside the range of a double"),
       bad("symmetric_pair_sums_to_inf", "sym_inf.mtx",
           "%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n1 1 4\n2 2 4\n2 1 -1e308\n1 2 -1e308\n",
           K::Entry, "duplicate entries at (1, 2) sum to a value outside the range of a double"),
       // --- shapes and sizes
       bad("zero_by_zero", "zero.mtx", B + "0 0 0\n", K::Shape, "matrix is 0 x 0 (empty)"),
       bad("zero_rows", "zero_rows.mtx", B + "0 5 0\n", K::Shape, "matrix is 0 x 5 (empty)"),
       bad("non_square", "non_square.mtx", B + "4 5 4\n1 1 2\n2 2 2\n3 3 2\n4 5 2\n", K::Shape,
        "matrix is 4 x 5: AMG needs a square matrix"),
       bad("non_square_symmetric", "non_square_sym.mtx",
        "%%MatrixMarket matrix coordinate real symmetric\n4 5 1\n1 1 1\n", K::Shape,
        "a symmetric storage needs a square matrix"),
       bad("mostly_empty_rows", "mostly_empty.mtx", B + "10 10 3\n1 1 1\n2 2 1\n3 3 1\n", K::Shape,
        "at least 7 rows would be empty"),
       // 2e9 x 2e9 with one entry: refused from the size line, before any row array exists
       // (16 GB of row pointers otherwise); test_bad_inputs also bounds the peak memory.
       bad("huge_declared_size", "huge.mtx", B + "2000000000 2000000000 1\n1 1 1\n", K::Shape,
        "declares 2000000000 rows but only 1 entries"),
       bad("huge_size_and_count", "huge_count.mtx", B + "2000000000 2000000000 2000000000\n1 1 1\n",
        K::Count, "file ends after 1 of 2000000000 declared entries"),
       bad("huge_symmetric", "huge_sym.mtx",
        "%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 1000000000\n1 1 1\n",
        K::Count, "file ends after 1 of 1000000000"),
       bad("dimension_above_int32", "dim3e9.mtx", B + "3000000000 3000000000 1\n1 1 1\n", K::Limit,
        "dimensions above 2147483647 are not supported"),
       bad("dimension_overflows_int64", "dim_overflow.mtx", B + "99999999999999999999999 4 1\n1 1 1\n",
        K::Limit, "rows '99999999999999999999999' is too large"),
       // --- gzip
       bad("not_gzip_named_gz", "plain.mtx.gz", ok, K::Gzip, "named .gz but not gzip data"),
       bad("truncated_gzip", "truncated.mtx.gz", gz.substr(0, gz.size() / 2), K::Gzip,
        "truncated gzip data"),
       bad("gzip_header_only", "header_only.mtx.gz", gz.substr(0, 10), K::Gzip, "truncated gzip data"),
       bad("gzip_bad_crc", "bad_crc.mtx.gz", crc_broken, K::Gzip, "corrupt gzip data"),
       bad("gzip_of_garbage", "garbage.mtx.gz", gzip_bytes(garbage_bytes(5000, 11)), K::Banner,
        "missing '%%MatrixMarket' banner"),
       bad("gzip_of_array", "array.mtx.gz",
        gzip_bytes("%%MatrixMarket matrix array real general\n2 2\n" + std::string(200000, '0')),
        K::Unsupported, "'array' format is not supported"),
       bad("two_gzip_members", "two_members.mtx.gz", gz + gz, K::Count, "data after the 598 declared entries"),
       // --- not a file
       bad("missing_file", "", "", K::Io, "cannot open (No such file or directory)",
        "/nonexistent/amgt/no_such_matrix.mtx"),
       bad("directory", "", "", K::Io, "is a directory, not a matrix file", "/"),
   };
   return v;
}

// Writes the case into `dir` and returns the path to give the reader.
inline fs::path materialize(const BadInput& c, const fs::path& dir)
{
   if (c.file.empty()) return c.path;
   const fs::path p = dir / c.file;
   std::ofstream  f(p, std::ios::binary | std::ios::trunc);
   f.write(c.bytes.data(), static_cast<std::streamsize>(c.bytes.size()));
   if (!f) throw std::runtime_error("cannot write " + p.string());
   return p;
}

} // namespace amgt::test
