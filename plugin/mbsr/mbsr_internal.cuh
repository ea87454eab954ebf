// Internal to the GPU conversions (mbsr_*.cu): the input-error flags, the device-side results
// and argument block of the hashed conversion, its tiers, and the entry points that the driver
// (mbsr_device.cu) and the hashed conversion call across files.
#pragma once

#include "mbsr/mbsr_device.h"

#include "common/error.h"

#include <cstddef>
#include <cstdint>

namespace amgt::device::mbsr_detail {

// What a conversion found wrong in its input (bits of `bad`, read back once with the tile count).
constexpr int kBadColumn = 1, kBadRowPtr = 2, kDuplicate = 4, kTooLong = 8;

// Device-side results of the classification and pass 1, read back once with the tile count.
struct HashMeta
{
   int                flags; // kBad*, kDuplicate, kTooLong
   int32_t            max_tiles;
   unsigned long long dense_tiles; // tiers 1-3 in pass 1 (or the one pass), tier 0 in pass 2: complete
                                   // at the last read-back
   int32_t            tier_rows[kConversionTiers]; // block rows in each tier's list
};

// Tier k serves block rows of E entries with lo < E <= hi: G threads per block row (a warp or
// the whole block), kRows block rows per block, a hash table of 2^log2t >= 2 hi slots.
struct HashTier
{
   int     group, log2t, rows;
   int32_t lo, hi;
};
constexpr HashTier kTiers[kConversionTiers] = {
   {32, 6, 8, 0, kSortedTilesMaxEntries}, {64, 8, 1, 32, 128}, {128, 10, 1, 128, 512}, {256, 13, 1, 512, 4096}};
static_assert(kTiers[kConversionTiers - 1].hi == kHashedMaxEntries, "the last tier takes the longest hashed rows");

template <class V>
struct HashArgs
{
   const int32_t* row_ptr;
   const int32_t* col;
   const double*  val; // nullptr: every value is 1.0
   int32_t        nrows, ncols, block_rows;
   int64_t        nnz;
   const int32_t* lists;  // tier k's block rows at lists + k * block_rows
   int32_t*       counts; // pass 1: tiles per block row
   HashMeta*      meta;
   // pass 2
   const int32_t* blk_ptr;
   int32_t*       blk_col;
   uint16_t*      blk_map;
   V*             blk_val;     // nullptr: no dense layout
   V*             packed_val;  // nullptr: no packed layout
   uint16_t*      packed_meta; // nullptr: no decode
   bool           entry_order; // packed entries (and decodes) at their CSR positions
   bool           sort_tiles;  // pass 2 of tiers 1-3: rank the tiles by block column (else in
                               // first-seen order; without the dense layout)
   // One pass (no dense layout): pass 2 runs without pass 1, writes block row b's tiles at
   // blk_col/blk_map + row_ptr[4b] (scratch of nnz entries: a block row has at most E tiles)
   // and does pass 1's bookkeeping itself (counts, flags, dense tiles, the longest block row);
   // compact_tiles then moves the tiles to their places once blk_ptr is known.
   bool           one_pass;
};

// Sets kBadRowPtr in *bad unless row_ptr starts at 0, ends at nnz and never decreases
// (mbsr_sorted.cu).
void launch_check_row_ptr(const int32_t* row_ptr, int32_t nrows, int64_t nnz, int* bad, Stream stream);

// Refuses a conversion whose read-back flags hold kBadRowPtr or kBadColumn.
inline void require_valid_input(int flags)
{
   AMGT_REQUIRE(!(flags & kBadRowPtr), "csr_to_mbsr: row_ptr is not a CSR row pointer (0 .. nnz, nondecreasing)");
   AMGT_REQUIRE(!(flags & kBadColumn), "csr_to_mbsr: column index out of range");
}

// The checks every conversion starts with; an mBSR of a's dimensions with nothing allocated.
template <class V>
DeviceMbsr<V> mbsr_shell(const CsrView& a)
{
   AMGT_REQUIRE(a.nrows >= 0 && a.ncols >= 0 && a.nnz >= 0, "csr_to_mbsr: negative dimensions");
   AMGT_REQUIRE(a.nnz == 0 || (a.row_ptr && a.col), "csr_to_mbsr: missing CSR arrays");
   DeviceMbsr<V> m;
   m.nrows      = a.nrows;
   m.ncols      = a.ncols;
   m.block_rows = (a.nrows + 3) / 4;
   m.block_cols = (a.ncols + 3) / 4;
   return m;
}

// The radix-sort conversion (mbsr_sorted.cu): always succeeds on valid input, builds the dense
// layout only.
template <class V>
DeviceMbsr<V> csr_to_mbsr_sorted(const CsrView& a, Stream stream, const Allocator& alloc);

// The hashed conversion (mbsr_hashed.cu); returns false (nothing built, the stream idle) when
// the matrix needs the sorted one, with the reason in info. m comes with its dimensions and
// blk_ptr allocated.
template <class V>
bool csr_to_mbsr_hashed(const CsrView& a, Stream stream, const Allocator& alloc,
                        const ConvertOptions& opt, DeviceMbsr<V>& m, ConversionInfo& info);

// Tier 0 of pass 1 or 2 (mbsr_hashed_tier0.cu), in registers; walks the block rows itself.
template <bool kPass2, class V>
void launch_tier0(const HashArgs<V>& args, const DeviceLimits& lim, Stream s);

} // namespace amgt::device::mbsr_detail
