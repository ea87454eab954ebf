// The value drifts of amgt-solve --steps (bench/amgt_solve/drift.h) and the problems'
// parameters they set (diagonal_shift, jump_offset): the formulas, an unchanged pattern at
// every step, and step 0 of a sequence against the plain problem.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <utility>

#include "drift.h"
#include "problems.h"
#include "row_block.h"

namespace {

using amgt::Range;
using amgt::RowBlock;
namespace problems = amgt::problems;
namespace drift = amgt::drift;

RowBlock whole(const problems::Problem& p) {
  RowBlock rb;
  problems::generate_rows(p, Range{0, p.global_rows()}, rb);
  return rb;
}

TEST(Drift, Names) {
  EXPECT_EQ(drift::parse_kind("dt"), drift::Kind::Dt);
  EXPECT_EQ(drift::parse_kind("jump"), drift::Kind::Jump);
  EXPECT_EQ(drift::parse_kind("none"), drift::Kind::None);
  EXPECT_FALSE(drift::parse_kind("Dt").has_value());
  EXPECT_FALSE(drift::parse_kind("").has_value());
  EXPECT_STREQ(drift::name(drift::Kind::Dt), "dt");
}

TEST(Drift, TimeStepFormula) {
  EXPECT_DOUBLE_EQ(drift::dt_factor(0), 1.0);
  for (int k = 0; k < 200; ++k) {
    const double f = drift::dt_factor(k);
    EXPECT_DOUBLE_EQ(f, 1.0 + 0.5 * std::sin(static_cast<double>(k)));
    EXPECT_GE(f, 0.5);
    EXPECT_LE(f, 1.5);
    EXPECT_DOUBLE_EQ(drift::diagonal_shift(k, 2.0), 2.0 / f);
  }
  // the steps really change: consecutive factors differ
  EXPECT_NE(drift::dt_factor(1), drift::dt_factor(2));
  EXPECT_EQ(drift::jump_offset(0, 2), 0);
  EXPECT_EQ(drift::jump_offset(5, 3), 15);
  EXPECT_DOUBLE_EQ(drift::parameter(drift::Kind::Jump, 4, 2), 8.0);
  EXPECT_DOUBLE_EQ(drift::parameter(drift::Kind::Dt, 3, 2), drift::dt_factor(3));
  EXPECT_DOUBLE_EQ(drift::parameter(drift::Kind::None, 3, 2), 0.0);
}

TEST(Drift, NoDriftIsThePlainProblem) {
  const problems::Problem base{problems::Kind::Jump7, 8};
  for (drift::Kind kind : {drift::Kind::None, drift::Kind::Jump}) {
    const problems::Problem p = drift::at_step(base, kind, 0, 1.0, 2);
    const RowBlock a = whole(base), b = whole(p);
    EXPECT_EQ(a.row_ptr, b.row_ptr);
    EXPECT_EQ(a.col, b.col);
    EXPECT_EQ(a.val, b.val);  // bit for bit
  }
}

TEST(Drift, DtShiftsTheDiagonalOnly) {
  for (problems::Kind kind : {problems::Kind::Laplace7, problems::Kind::Laplace27, problems::Kind::Systems3,
                              problems::Kind::Aniso7, problems::Kind::Jump7}) {
    const problems::Problem base{kind, 5};
    const RowBlock a = whole(base);
    for (int k : {0, 1, 4}) {
      const problems::Problem p = drift::at_step(base, drift::Kind::Dt, k, 1.5, 2);
      EXPECT_DOUBLE_EQ(p.diagonal_shift, 1.5 / drift::dt_factor(k));
      const RowBlock b = whole(p);
      ASSERT_EQ(a.row_ptr, b.row_ptr);
      ASSERT_EQ(a.col, b.col);
      for (std::int64_t r = 0; r < a.num_rows(); ++r) {
        for (std::int64_t q = a.row_ptr[r]; q < a.row_ptr[r + 1]; ++q) {
          const double expect = a.col[q] == r ? a.val[q] + p.diagonal_shift : a.val[q];
          EXPECT_DOUBLE_EQ(b.val[q], expect) << problems::name(kind) << " row " << r;
        }
      }
    }
  }
}

TEST(Drift, JumpMovesTheCheckerboardPeriodically) {
  const std::int64_t n = 12;
  for (std::int64_t off : {1, 3, 7, 11}) {
    for (std::int64_t k = 0; k < n; ++k) {
      for (std::int64_t j = 0; j < n; ++j) {
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t from = ((i - off) % n + n) % n;
          EXPECT_EQ(problems::jump_coefficient(i, j, k, n, off), problems::jump_coefficient(from, j, k, n, 0));
        }
      }
    }
  }
  // a whole period is the plain problem again; the pattern never changes
  const problems::Problem base{problems::Kind::Jump7, n};
  const RowBlock a = whole(base);
  problems::Problem p = base;
  p.jump_offset = n;
  EXPECT_EQ(whole(p).val, a.val);
  for (int step = 1; step < 5; ++step) {
    const problems::Problem q = drift::at_step(base, drift::Kind::Jump, step, 1.0, 2);
    EXPECT_EQ(q.jump_offset, 2 * step);
    const RowBlock b = whole(q);
    EXPECT_EQ(b.row_ptr, a.row_ptr);
    EXPECT_EQ(b.col, a.col);
    // cubes of n / 4 = 3 cells: the checkerboard repeats every 6 cells in x
    if (q.jump_offset % 6 == 0) {
      EXPECT_EQ(b.val, a.val) << "step " << step;
    } else {
      EXPECT_NE(b.val, a.val) << "step " << step;
    }
    // still symmetric
    std::map<std::pair<std::int64_t, std::int64_t>, double> m;
    for (std::int64_t r = 0; r < b.num_rows(); ++r) {
      for (std::int64_t x = b.row_ptr[r]; x < b.row_ptr[r + 1]; ++x) m[{r, b.col[x]}] = b.val[x];
    }
    for (const auto& [rc, v] : m) EXPECT_EQ(m.at({rc.second, rc.first}), v);
  }
}

}  // namespace
