// How the CPU references (csr_to_mbsr in mbsr.cpp, spgemm_ref in spgemm.cpp) build an mBSR
// block row by block row: an empty matrix of the right shape, the block-column slots of the
// block row being built and the emission of its tiles in ascending block column.
#pragma once

#include "mbsr/mbsr.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace amgt {

// nrows x ncols without tiles: blk_ptr is all zeros, block rows are appended to it.
template <class V>
Mbsr<V> mbsr_without_tiles(int32_t nrows, int32_t ncols)
{
   Mbsr<V> m;
   m.nrows = nrows;
   m.ncols = ncols;
   m.blk_ptr.assign(static_cast<size_t>(m.block_rows()) + 1, 0);
   return m;
}

// The tiles of one block row, Acc per value. slot[J]: position of block column J among them
// (in map, and 16 values each in vals), -1 when the block row has no tile there yet; cols
// lists the block columns that hold a slot, in any order. Slots are reset through cols when
// the block row is emitted, so a whole build is O(entries + tiles log tiles) and not
// O(block rows * block cols).
template <class Acc>
struct BlockRowTiles
{
   std::vector<int32_t>  slot;
   std::vector<int32_t>  cols;
   std::vector<uint16_t> map;
   std::vector<Acc>      vals;

   explicit BlockRowTiles(int32_t block_cols) : slot(static_cast<size_t>(block_cols), -1) {}

   // Appends the tiles to m as block row bi, by ascending block column (to_v rounds a value
   // to V), and empties this for the next block row.
   template <class V, class ToV>
   void emit(Mbsr<V>& m, int32_t bi, ToV to_v)
   {
      std::sort(cols.begin(), cols.end());
      for (int32_t bj : cols)
      {
         const size_t s = static_cast<size_t>(slot[bj]);
         m.blk_col.push_back(bj);
         m.blk_map.push_back(map[s]);
         for (int e = 0; e < 16; ++e) m.blk_val.push_back(to_v(vals[s * 16 + e]));
         slot[bj] = -1;
      }
      m.blk_ptr[bi + 1] = static_cast<int32_t>(m.blk_col.size());
      cols.clear();
      map.clear();
      vals.clear();
   }
};

} // namespace amgt
