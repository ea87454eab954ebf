// mBSR: a sparse matrix cut into 4x4 tiles, only tiles with at least one stored entry kept.
//
//   blk_ptr  block_rows()+1 offsets into the tile arrays, per block row
//   blk_col  block column of each tile, strictly ascending within a block row
//   blk_map  per tile, bit r*4+c set iff the tile stores entry (r, c)
//   blk_val  16 values per tile, row-major (r*4+c); exactly zero where the bit is clear
//
// The bitmap is structural: an entry stored with value 0.0 still sets its bit, so the
// pattern of a product equals the symbolic pattern of a scalar SpGEMM. When nrows or ncols
// is not a multiple of 4 the last block row/column is partial: bits of rows/columns >= n are
// never set and their values are zero, so a kernel that honours the bitmap never touches
// x or y past n.
#pragma once

#include "common/half.h"
#include "common/precision.h"
#include "mbsr/bitmap.h"

#include <cstdint>
#include <vector>

namespace amgt {

// Non-owning CSR as hypre hands it over. Columns within a row may be unsorted and may repeat
// (repeats are summed). val == nullptr means every stored value is 1.0.
struct CsrView
{
   int32_t        nrows;
   int32_t        ncols;
   int32_t        nnz;
   const int32_t* row_ptr; // nrows+1 entries, row_ptr[0] == 0, row_ptr[nrows] == nnz
   const int32_t* col;
   const double*  val;
};

struct CsrMatrix
{
   int32_t              nrows = 0;
   int32_t              ncols = 0;
   std::vector<int32_t> row_ptr;
   std::vector<int32_t> col;
   std::vector<double>  val; // empty: every stored value is 1.0

   CsrView view() const;
};

// Throws amgt::Error unless the view is well formed (sizes, row_ptr, column range). It reads
// row_ptr[0..nrows] and col[0..nnz-1] and nothing else.
void validate_csr(const CsrView& a);

constexpr int kDenseTileNnz = 10; // tiles this full go to the tensor-core path

template <class V>
struct Mbsr
{
   int32_t               nrows = 0;
   int32_t               ncols = 0;
   std::vector<int32_t>  blk_ptr;
   std::vector<int32_t>  blk_col;
   std::vector<uint16_t> blk_map;
   std::vector<V>        blk_val;

   // Written without n + 3, which would overflow for n near INT32_MAX.
   int32_t block_rows() const { return nrows / kTileDim + (nrows % kTileDim != 0); }
   int32_t block_cols() const { return ncols / kTileDim + (ncols % kTileDim != 0); }
   int64_t num_tiles() const { return static_cast<int64_t>(blk_col.size()); }
   int64_t nnz() const
   {
      int64_t n = 0;
      for (uint16_t m : blk_map) n += tile_popcount(m);
      return n;
   }
};

struct MbsrStats
{
   int64_t tiles                   = 0;
   int64_t nnz                     = 0;
   int64_t dense_tiles             = 0;   // popcount >= kDenseTileNnz
   double  fill                    = 0.0; // nnz / tiles, 0 without tiles
   int32_t max_tiles_per_block_row = 0;
};

// Duplicate (row, col) entries are summed in double in input order, then rounded once to V.
template <class V>
Mbsr<V> csr_to_mbsr(const CsrView& a);

// Sorted columns, one entry per set bit (stored zeros included), values widened to double.
template <class V>
CsrMatrix mbsr_to_csr(const Mbsr<V>& m);

template <class V>
MbsrStats mbsr_stats(const Mbsr<V>& m);

// The packed value layout (mbsr_device.h; docs/architecture.md, "mBSR"): only the stored entries,
// tile after tile and, inside a tile, in bitmap order; row[b] = offset of block row b's first
// entry (block_rows + 1 entries); meta[k] = (index of entry k's tile inside its block row)
// << 4 | r*4+c, empty when a block row holds more than 4096 tiles. The reference for what
// the GPU conversion builds.
template <class V>
struct PackedLayout
{
   std::vector<V>        val;
   std::vector<int64_t>  row;
   std::vector<uint16_t> meta;
};

template <class V>
PackedLayout<V> packed_layout(const Mbsr<V>& m);

// m (= csr_to_mbsr(a)) with each block row's tiles in the order their block columns are first
// seen in a's entries of that block row (its rows in order, each row in its stored order)
// instead of ascending; block rows of at most sorted_max_entries entries keep the ascending
// order. blk_val moves with its tiles (packed_layout of the result: the packed entries in that
// tile order). The CPU reference of the GPU conversion's first-seen order
// (ConvertOptions::sorted_tiles = false, mbsr_device.h). The result breaks only the invariant
// of ascending block columns (validate_mbsr refuses it).
template <class V>
Mbsr<V> reorder_tiles_first_seen(const Mbsr<V>& m, const CsrView& a, int32_t sorted_max_entries);

// Throws amgt::Error unless every invariant listed at the top of this file holds. For tests
// and for checking what a GPU kernel produced; the conversions above never need it.
template <class V>
void validate_mbsr(const Mbsr<V>& m);

extern template Mbsr<double> csr_to_mbsr<double>(const CsrView&);
extern template Mbsr<float>  csr_to_mbsr<float>(const CsrView&);
extern template Mbsr<half_t> csr_to_mbsr<half_t>(const CsrView&);
extern template CsrMatrix    mbsr_to_csr<double>(const Mbsr<double>&);
extern template CsrMatrix    mbsr_to_csr<float>(const Mbsr<float>&);
extern template CsrMatrix    mbsr_to_csr<half_t>(const Mbsr<half_t>&);
extern template MbsrStats    mbsr_stats<double>(const Mbsr<double>&);
extern template MbsrStats    mbsr_stats<float>(const Mbsr<float>&);
extern template MbsrStats    mbsr_stats<half_t>(const Mbsr<half_t>&);
extern template void         validate_mbsr<double>(const Mbsr<double>&);
extern template void         validate_mbsr<float>(const Mbsr<float>&);
extern template void         validate_mbsr<half_t>(const Mbsr<half_t>&);
extern template PackedLayout<double> packed_layout<double>(const Mbsr<double>&);
extern template PackedLayout<float>  packed_layout<float>(const Mbsr<float>&);
extern template PackedLayout<half_t> packed_layout<half_t>(const Mbsr<half_t>&);
extern template Mbsr<double> reorder_tiles_first_seen<double>(const Mbsr<double>&, const CsrView&, int32_t);
extern template Mbsr<float>  reorder_tiles_first_seen<float>(const Mbsr<float>&, const CsrView&, int32_t);
extern template Mbsr<half_t> reorder_tiles_first_seen<half_t>(const Mbsr<half_t>&, const CsrView&, int32_t);

} // namespace amgt
