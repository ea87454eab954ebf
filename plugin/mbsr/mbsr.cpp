#include "mbsr/mbsr.h"

#include "common/error.h"
#include "mbsr/mbsr_builder.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

namespace amgt {

CsrView CsrMatrix::view() const
{
   AMGT_REQUIRE(
       row_ptr.size() == static_cast<size_t>(nrows) + 1,
       "CsrMatrix: row_ptr has " + std::to_string(row_ptr.size()) +
           " entries, expected nrows+1 = " + std::to_string(static_cast<int64_t>(nrows) + 1));
   AMGT_REQUIRE(val.empty() || val.size() == col.size(),
                "CsrMatrix: val has " + std::to_string(val.size()) + " entries but col has " +
                    std::to_string(col.size()));
   AMGT_REQUIRE(col.size() <= static_cast<size_t>(std::numeric_limits<int32_t>::max()),
                "CsrMatrix: more than 2^31-1 entries");
   return CsrView{nrows,
                  ncols,
                  static_cast<int32_t>(col.size()),
                  row_ptr.data(),
                  col.empty() ? nullptr : col.data(),
                  val.empty() ? nullptr : val.data()};
}

void validate_csr(const CsrView& a)
{
   AMGT_REQUIRE(a.nrows >= 0, "CSR: negative number of rows (" + std::to_string(a.nrows) + ")");
   AMGT_REQUIRE(a.ncols >= 0, "CSR: negative number of columns (" + std::to_string(a.ncols) + ")");
   AMGT_REQUIRE(a.nnz >= 0, "CSR: negative number of nonzeros (" + std::to_string(a.nnz) + ")");
   if (a.row_ptr == nullptr)
   {
      // hypre leaves row_ptr unallocated for some empty matrices.
      AMGT_REQUIRE(a.nrows == 0 && a.nnz == 0, "CSR: row_ptr is null");
      return;
   }
   AMGT_REQUIRE(a.nnz == 0 || a.col != nullptr, "CSR: col is null but nnz > 0");
   AMGT_REQUIRE(a.row_ptr[0] == 0,
                "CSR: row_ptr[0] is " + std::to_string(a.row_ptr[0]) + ", expected 0");
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      AMGT_REQUIRE(a.row_ptr[i] <= a.row_ptr[i + 1], "CSR: row_ptr decreases at row " +
                                                         std::to_string(i) + " (" +
                                                         std::to_string(a.row_ptr[i]) + " > " +
                                                         std::to_string(a.row_ptr[i + 1]) + ")");
   }
   AMGT_REQUIRE(a.row_ptr[a.nrows] == a.nnz, "CSR: row_ptr[nrows] is " +
                                                 std::to_string(a.row_ptr[a.nrows]) +
                                                 " but nnz is " + std::to_string(a.nnz));
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      for (int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
      {
         AMGT_REQUIRE(a.col[p] >= 0 && a.col[p] < a.ncols,
                      "CSR: column index " + std::to_string(a.col[p]) + " in row " +
                          std::to_string(i) + " is outside [0, " + std::to_string(a.ncols) + ")");
      }
   }
}

template <class V>
Mbsr<V> csr_to_mbsr(const CsrView& a)
{
   using T = StorageTraits<V>;
   validate_csr(a);

   Mbsr<V>               m     = mbsr_without_tiles<V>(a.nrows, a.ncols);
   const int32_t         brows = m.block_rows();
   BlockRowTiles<double> row(m.block_cols()); // duplicates are summed in double, rounded to V once

   for (int32_t bi = 0; bi < brows; ++bi)
   {
      const int32_t r0 = bi * kTileDim;
      const int32_t r1 = std::min(r0 + kTileDim, a.nrows);

      for (int32_t i = r0; i < r1; ++i)
      {
         for (int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
         {
            const int32_t bj = a.col[p] / kTileDim;
            if (row.slot[bj] < 0)
            {
               row.slot[bj] = 0;
               row.cols.push_back(bj);
            }
         }
      }
      std::sort(row.cols.begin(), row.cols.end());
      for (size_t s = 0; s < row.cols.size(); ++s) row.slot[row.cols[s]] = static_cast<int32_t>(s);

      row.map.assign(row.cols.size(), 0);
      row.vals.assign(row.cols.size() * 16, 0.0);
      for (int32_t i = r0; i < r1; ++i)
      {
         for (int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
         {
            const int32_t  c   = a.col[p];
            const size_t   s   = static_cast<size_t>(row.slot[c / kTileDim]);
            const int      bit = bit_index(i - r0, c % kTileDim);
            const double   v   = a.val ? a.val[p] : 1.0;
            const uint16_t b   = static_cast<uint16_t>(1u << bit);
            // The first entry is assigned, not added to 0.0, so a lone -0.0 or NaN survives.
            row.vals[s * 16 + bit] = (row.map[s] & b) ? row.vals[s * 16 + bit] + v : v;
            row.map[s] |= b;
         }
      }
      row.emit(m, bi, [](double v) { return T::from_double(v); });
   }
   return m;
}

template <class V>
CsrMatrix mbsr_to_csr(const Mbsr<V>& m)
{
   using T             = StorageTraits<V>;
   const int64_t total = m.nnz();
   AMGT_REQUIRE(total <= std::numeric_limits<int32_t>::max(),
                "mBSR -> CSR: " + std::to_string(total) + " entries do not fit 32-bit indices");

   CsrMatrix c;
   c.nrows = m.nrows;
   c.ncols = m.ncols;
   c.row_ptr.reserve(static_cast<size_t>(m.nrows) + 1);
   c.col.reserve(static_cast<size_t>(total));
   c.val.reserve(static_cast<size_t>(total));
   c.row_ptr.push_back(0);
   for (int32_t bi = 0; bi < m.block_rows(); ++bi)
   {
      for (int r = 0; r < kTileDim && bi * kTileDim + r < m.nrows; ++r)
      {
         // Tiles ascend by block column and c ascends inside a tile: columns come out sorted.
         for (int32_t t = m.blk_ptr[bi]; t < m.blk_ptr[bi + 1]; ++t)
         {
            for (int cc = 0; cc < kTileDim; ++cc)
            {
               if (!bit_at(m.blk_map[t], r, cc)) continue;
               c.col.push_back(m.blk_col[t] * kTileDim + cc);
               c.val.push_back(
                   T::to_double(m.blk_val[static_cast<size_t>(t) * 16 + bit_index(r, cc)]));
            }
         }
         c.row_ptr.push_back(static_cast<int32_t>(c.col.size()));
      }
   }
   return c;
}

template <class V>
MbsrStats mbsr_stats(const Mbsr<V>& m)
{
   MbsrStats s;
   s.tiles = m.num_tiles();
   for (uint16_t map : m.blk_map)
   {
      const int n = tile_popcount(map);
      s.nnz += n;
      if (n >= kDenseTileNnz) ++s.dense_tiles;
   }
   s.fill = s.tiles > 0 ? static_cast<double>(s.nnz) / static_cast<double>(s.tiles) : 0.0;
   for (size_t bi = 0; bi + 1 < m.blk_ptr.size(); ++bi)
   {
      s.max_tiles_per_block_row =
          std::max(s.max_tiles_per_block_row, m.blk_ptr[bi + 1] - m.blk_ptr[bi]);
   }
   return s;
}

template <class V>
void validate_mbsr(const Mbsr<V>& m)
{
   using T = StorageTraits<V>;
   AMGT_REQUIRE(m.nrows >= 0 && m.ncols >= 0, "mBSR: negative dimensions");
   const int32_t brows = m.block_rows();
   const int32_t bcols = m.block_cols();
   AMGT_REQUIRE(m.blk_ptr.size() == static_cast<size_t>(brows) + 1,
                "mBSR: blk_ptr has " + std::to_string(m.blk_ptr.size()) +
                    " entries, expected block_rows+1 = " + std::to_string(brows + 1));
   AMGT_REQUIRE(m.blk_ptr[0] == 0, "mBSR: blk_ptr[0] is not 0");
   AMGT_REQUIRE(static_cast<size_t>(m.blk_ptr[brows]) == m.blk_col.size(),
                "mBSR: blk_ptr[block_rows] does not match the number of tiles");
   AMGT_REQUIRE(m.blk_map.size() == m.blk_col.size(), "mBSR: blk_map and blk_col sizes differ");
   AMGT_REQUIRE(m.blk_val.size() == m.blk_col.size() * 16,
                "mBSR: blk_val does not hold 16 values per tile");

   // Checked for all block rows before any tile is read, so no index below can run past
   // the tile arrays.
   for (int32_t bi = 0; bi < brows; ++bi)
   {
      AMGT_REQUIRE(m.blk_ptr[bi] <= m.blk_ptr[bi + 1],
                   "mBSR: blk_ptr decreases at block row " + std::to_string(bi));
   }
   for (int32_t bi = 0; bi < brows; ++bi)
   {
      // Bits of tile rows at or past nrows must be clear in this block row.
      const int valid_rows = std::min(kTileDim, m.nrows - bi * kTileDim);
      for (int32_t t = m.blk_ptr[bi]; t < m.blk_ptr[bi + 1]; ++t)
      {
         const std::string where =
             " (block row " + std::to_string(bi) + ", tile " + std::to_string(t) + ")";
         const int32_t bj = m.blk_col[t];
         AMGT_REQUIRE(bj >= 0 && bj < bcols, "mBSR: block column out of range" + where);
         AMGT_REQUIRE(t == m.blk_ptr[bi] || m.blk_col[t - 1] < bj,
                      "mBSR: block columns not strictly ascending" + where);
         const uint16_t map = m.blk_map[t];
         AMGT_REQUIRE(map != 0, "mBSR: stored tile with an empty bitmap" + where);
         const int valid_cols = std::min(kTileDim, m.ncols - bj * kTileDim);
         for (int r = 0; r < kTileDim; ++r)
         {
            for (int c = 0; c < kTileDim; ++c)
            {
               const bool set = bit_at(map, r, c);
               AMGT_REQUIRE(!set || (r < valid_rows && c < valid_cols),
                            "mBSR: bit set past the matrix edge" + where);
               AMGT_REQUIRE(
                   set || T::to_double(m.blk_val[static_cast<size_t>(t) * 16 + bit_index(r, c)]) ==
                              0.0,
                   "mBSR: nonzero value under a clear bit" + where);
            }
         }
      }
   }
}

template <class V>
PackedLayout<V> packed_layout(const Mbsr<V>& m)
{
   PackedLayout<V> p;
   const int32_t   brows = m.block_rows();
   p.row.assign(static_cast<size_t>(brows) + 1, 0);
   bool meta_fits = true;
   for (int32_t b = 0; b < brows; ++b)
      meta_fits = meta_fits && m.blk_ptr[b + 1] - m.blk_ptr[b] <= 4096;
   for (int32_t b = 0; b < brows; ++b)
   {
      p.row[b] = static_cast<int64_t>(p.val.size());
      for (int32_t t = m.blk_ptr[b]; t < m.blk_ptr[b + 1]; ++t)
      {
         for (int bit = 0; bit < kTileDim * kTileDim; ++bit)
         {
            if (!((m.blk_map[t] >> bit) & 1u)) continue;
            p.val.push_back(m.blk_val[static_cast<size_t>(t) * 16 + bit]);
            if (meta_fits) p.meta.push_back(static_cast<uint16_t>(((t - m.blk_ptr[b]) << 4) | bit));
         }
      }
   }
   p.row[brows] = static_cast<int64_t>(p.val.size());
   return p;
}

template <class V>
Mbsr<V> reorder_tiles_first_seen(const Mbsr<V>& m, const CsrView& a, int32_t sorted_max_entries)
{
   AMGT_REQUIRE(a.nrows == m.nrows && a.ncols == m.ncols, "reorder_tiles_first_seen: a is not m's CSR");
   Mbsr<V>       r      = m;
   const bool    values = !m.blk_val.empty();
   const int32_t brows  = m.block_rows();
   std::vector<int32_t> order; // the block row's tiles (offsets into m), first seen first
   std::vector<char>    seen;
   for (int32_t b = 0; b < brows; ++b)
   {
      const int32_t r0 = 4 * b, r1 = std::min(4 * b + 4, a.nrows);
      const int32_t E  = a.row_ptr[r1] - a.row_ptr[r0];
      const int32_t t0 = m.blk_ptr[b], t1 = m.blk_ptr[b + 1];
      if (E <= sorted_max_entries) continue; // as m
      order.clear();
      seen.assign(static_cast<size_t>(t1 - t0), 0);
      for (int32_t e = a.row_ptr[r0]; e < a.row_ptr[r1]; ++e)
      {
         const int32_t key = a.col[e] / kTileDim;
         const auto    it  = std::lower_bound(m.blk_col.begin() + t0, m.blk_col.begin() + t1, key);
         AMGT_REQUIRE(it != m.blk_col.begin() + t1 && *it == key, "reorder_tiles_first_seen: a is not m's CSR");
         const auto k = static_cast<int32_t>(it - m.blk_col.begin());
         if (seen[static_cast<size_t>(k - t0)]) continue;
         seen[static_cast<size_t>(k - t0)] = 1;
         order.push_back(k);
      }
      AMGT_REQUIRE(static_cast<int32_t>(order.size()) == t1 - t0, "reorder_tiles_first_seen: a is not m's CSR");
      for (int32_t q = 0; q < t1 - t0; ++q)
      {
         const size_t to = static_cast<size_t>(t0 + q), from = static_cast<size_t>(order[static_cast<size_t>(q)]);
         r.blk_col[to] = m.blk_col[from];
         r.blk_map[to] = m.blk_map[from];
         if (values) std::copy_n(m.blk_val.begin() + static_cast<std::ptrdiff_t>(16 * from), 16,
                                 r.blk_val.begin() + static_cast<std::ptrdiff_t>(16 * to));
      }
   }
   return r;
}

#define AMGT_INSTANTIATE_MBSR(V)                                                                   \
   template Mbsr<V>   csr_to_mbsr<V>(const CsrView&);                                              \
   template CsrMatrix mbsr_to_csr<V>(const Mbsr<V>&);                                              \
   template MbsrStats mbsr_stats<V>(const Mbsr<V>&);                                               \
   template void      validate_mbsr<V>(const Mbsr<V>&);                                            \
   template PackedLayout<V> packed_layout<V>(const Mbsr<V>&);                                   \
   template Mbsr<V> reorder_tiles_first_seen<V>(const Mbsr<V>&, const CsrView&, int32_t);

AMGT_INSTANTIATE_MBSR(double)
AMGT_INSTANTIATE_MBSR(float)
AMGT_INSTANTIATE_MBSR(half_t)

#undef AMGT_INSTANTIATE_MBSR

} // namespace amgt
