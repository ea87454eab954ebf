// The Matrix Market reader on the bad-input corpus (bad_input_corpus.h): every malformed
// file is refused with the right kind of error and a message that names the problem, and
// the valid but odd inputs load with the documented result. No hypre, no MPI: this is the
// reader alone (target amgt_mtx_reader).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "bad_input_corpus.h"
#include "mtx_reader.h"

namespace {

namespace fs = std::filesystem;
using amgt::io::MtxError;
using amgt::io::MtxErrorKind;
using amgt::io::MtxMatrix;
using amgt::test::BadInput;

class ReaderCorpus : public ::testing::TestWithParam<BadInput>
{
protected:
   static void SetUpTestSuite() { dir_ = amgt::test::scratch_dir("reader-corpus"); }
   static void TearDownTestSuite()
   {
      std::error_code ec;
      fs::remove_all(dir_, ec);
   }
   static fs::path dir_;
};
fs::path ReaderCorpus::dir_;

TEST_P(ReaderCorpus, RefusedWithKindAndMessage)
{
   const BadInput& c    = GetParam();
   const fs::path  path = amgt::test::materialize(c, dir_);
   try
   {
      MtxMatrix m = amgt::io::read_matrix_market(path.string());
      FAIL() << c.name << ": accepted (" << m.info.rows << " rows, " << m.rows.nnz() << " entries)";
   }
   catch (const MtxError& e)
   {
      EXPECT_EQ(e.kind(), c.kind) << c.name << ": got '" << amgt::io::to_string(e.kind())
                                  << "': " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
          << c.name << ": message does not say '" << c.message << "': " << e.what();
      EXPECT_EQ(e.source(), path.string()) << "the message must name the file: " << e.what();
   }
}

INSTANTIATE_TEST_SUITE_P(Corpus, ReaderCorpus, ::testing::ValuesIn(amgt::test::bad_inputs()),
                         [](const auto& info) { return info.param.name; });

// ---- valid but odd: accepted, with the documented result ----------------------------------

MtxMatrix parse(const std::string& text)
{
   return amgt::io::parse_matrix_market(text);
}

TEST(ReaderOddButValid, CrLfLineEndingsAndByteOrderMark)
{
   MtxMatrix m = parse("\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\r\n"
                       "% comment\r\n\r\n2 2 2\r\n1 1 4\r\n2 2 5\r\n");
   ASSERT_EQ(m.rows.nnz(), 2);
   EXPECT_EQ(m.rows.val[1], 5.0);
}

TEST(ReaderOddButValid, CommentsAndBlankLinesBetweenEntries)
{
   MtxMatrix m = parse(amgt::test::kBanner + "3 3 3\n1 1 1\n\n% note\n  \t\n2 2 2\n3 3 3\n\n% end\n");
   EXPECT_EQ(m.rows.nnz(), 3);
}

TEST(ReaderOddButValid, EmptyRowsAndColumnsAreCountedAndReported)
{
   // row 2 has no entry; column 3 has none (row 3 only couples to column 2)
   MtxMatrix m = parse(amgt::test::kBanner + "4 4 4\n1 1 2\n3 2 -1\n4 4 2\n1 4 1\n");
   EXPECT_EQ(m.info.empty_rows, 1);
   EXPECT_EQ(m.info.empty_cols, 1);
   bool rows_note = false, cols_note = false;
   for (const std::string& w : m.info.warnings)
   {
      rows_note = rows_note || w.find("1 of 4 rows are empty") != std::string::npos;
      cols_note = cols_note || w.find("1 of 4 columns are empty") != std::string::npos;
   }
   EXPECT_TRUE(rows_note && cols_note);
}

TEST(ReaderOddButValid, ValuesOutsideHalfRangeAreKeptExactly)
{
   // fp16 holds [6.1e-5, 65504]; the file is read in double, whatever the solver does later
   MtxMatrix m = parse(amgt::test::kBanner + "3 3 3\n1 1 1e6\n2 2 1e-8\n3 3 4.9e-324\n");
   EXPECT_EQ(m.rows.val[0], 1e6);
   EXPECT_EQ(m.rows.val[1], 1e-8);
   EXPECT_EQ(m.rows.val[2], 4.9e-324); // the smallest subnormal double: an underflow is kept
}

TEST(ReaderOddButValid, DuplicatesAreSummed)
{
   MtxMatrix m = parse(amgt::test::kBanner + "2 2 4\n1 1 1\n1 1 2\n2 2 1\n2 1 -1\n");
   EXPECT_EQ(m.info.duplicates_summed, 1);
   EXPECT_EQ(m.rows.val[0], 3.0);
}

TEST(ReaderOddButValid, PatternLoadsAsOnes)
{
   MtxMatrix m = parse("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n1 1\n2 2\n3 3\n2 1\n");
   ASSERT_EQ(m.rows.nnz(), 5);
   for (double v : m.rows.val) EXPECT_EQ(v, 1.0);
}

TEST(ReaderOddButValid, TrailingBytesAfterTheGzipStreamAreIgnored)
{
   // zlib (and gzip -d, with a warning) stop at the end of the last gzip member
   const fs::path dir  = amgt::test::scratch_dir("reader-gz");
   const fs::path file = dir / "trailing.mtx.gz";
   {
      std::ofstream f(file, std::ios::binary);
      f << amgt::test::gzip_bytes(amgt::test::laplace1d(5)) << "trailing junk\n";
   }
   MtxMatrix m = amgt::io::read_matrix_market(file.string());
   EXPECT_EQ(m.rows.nnz(), 13);
   fs::remove_all(dir);
}

TEST(ReaderOddButValid, DevZeroIsRefusedAfterItsFirstBytes)
{
   // An endless stream: refused from the first line, not loaded up to max_bytes (64 GiB).
   if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero on this system";
   try
   {
      amgt::io::read_matrix_market("/dev/zero");
      FAIL() << "accepted /dev/zero";
   }
   catch (const MtxError& e)
   {
      EXPECT_EQ(e.kind(), MtxErrorKind::Banner) << e.what();
   }
}

} // namespace
