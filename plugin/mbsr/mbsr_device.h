// mBSR on the device: the same four arrays as Mbsr<V> (mbsr.h), in device memory, and the
// conversions CSR <-> mBSR done on the GPU (no host round trip).
#pragma once

#include "common/half.h"
#include "device/runtime.h"
#include "mbsr/mbsr.h"

#include <cstdint>

namespace amgt::device {

// Facts a conversion learns on its way (the hashed conversion, below, while it counts the
// tiles): the SpMV plan takes them from here instead of measuring the matrix again.
struct MbsrSummary
{
   bool    known                   = false;
   int64_t nnz                     = 0; // sum of the tile popcounts
   int64_t dense_tiles             = 0; // popcount >= kDenseTileNnz
   int32_t max_tiles_per_block_row = 0;
};

// V is the storage type: double, float or half_t (binary16 bits; the kernels read them as
// __half). Host and device therefore share one value layout and tests compare bit for bit.
//
// Two value layouts; a matrix holds at least one of them (both when asked for both):
//  - dense: blk_val, 16 values per tile, zeros where the bitmap is clear (SpGEMM, the
//    tensor-core SpMV paths, mbsr_to_csr, to_host);
//  - packed (not in the AmgT paper's format; docs/architecture.md, "mBSR"): only the stored
//    entries, tile after tile in block-row order and, inside a tile, in bitmap order (bit
//    r*4+c ascending).
//    packed_row[b] is the offset of block row b's first entry (block_rows + 1 entries, the
//    last is nnz); packed_meta, when present, decodes each entry as (index of its tile inside
//    the block row) << 4 | r*4+c (block rows of at most kPackedMetaMaxTiles tiles). The
//    CUDA-core SpMV paths read this layout: 8 + 6/fill bytes per entry in fp64 against the
//    dense layout's (16*8 + 6)/fill.
//    Entry order (ConvertOptions::entry_order): the packed entries keep the CSR's order inside
//    each block row (row by row, each row as hypre stores it) instead of bitmap order, with the
//    same decode per entry. Only the cuda_core_entries SpMV reads them (it finds every entry's
//    tile and row from its decode, whatever the order), and make_spmv_plan takes that path
//    for such a matrix. The conversion then moves no values in fp64 (packed_values() is the
//    CSR's own array when the caller lends it) and writes each decode where its CSR entry is.
template <class V>
struct DeviceMbsr
{
   int32_t          nrows = 0, ncols = 0;
   int32_t          block_rows = 0, block_cols = 0;
   int64_t          num_tiles = 0;
   Buffer<int32_t>  blk_ptr; // block_rows + 1
   Buffer<int32_t>  blk_col; // num_tiles, sorted within a block row (unless !tiles_sorted)
   Buffer<uint16_t> blk_map; // num_tiles
   Buffer<V>        blk_val; // 16 * num_tiles, row-major per tile; empty without the dense layout
   Buffer<V>        packed_val;  // nnz; empty without the packed layout
   Buffer<int64_t>  packed_row;  // block_rows + 1; empty without the packed layout
   Buffer<uint16_t> packed_meta; // nnz; may be empty even with the packed layout
   MbsrSummary      summary;
   bool             entry_order = false;   // packed entries in CSR order (with packed_meta)
   // false: a block row's tiles in first-seen order (ConvertOptions::sorted_tiles); only a
   // copy without the dense layout (what the SpMV's CUDA-core kernels read) is so
   bool             tiles_sorted = true;
   const V*         packed_lent = nullptr; // entry order, fp64: the CSR's values, not owned

   bool has_dense() const { return num_tiles == 0 || blk_val.size() == static_cast<size_t>(num_tiles) * 16; }
   bool has_packed() const { return packed_row.size() == static_cast<size_t>(block_rows) + 1; }
   // The packed values the kernels read (the lent CSR values or packed_val).
   const V* packed_values() const { return packed_lent ? packed_lent : packed_val.get(); }
};

// packed_meta keeps a tile's index inside its block row in 12 bits.
constexpr int32_t kPackedMetaMaxTiles = 4096;

// How csr_to_mbsr works (ConversionPath) and what it builds (ConvertOptions).
enum class ConversionPath
{
   automatic, // hashed when it can (no duplicate entries, block rows of <= kHashedMaxEntries
              // entries), else sorted
   sorted     // always the radix-sort conversion
};

// Block rows with more entries than this go to the sorted conversion (the hashed one keeps a
// block row's tiles in one thread block's shared memory).
constexpr int32_t kHashedMaxEntries = 4096;

struct ConvertOptions
{
   bool           dense  = true;  // build blk_val
   bool           packed = false; // build packed_val, packed_row (and packed_meta if it fits)
   ConversionPath path   = ConversionPath::automatic;
   // With packed: entries in CSR order (see DeviceMbsr) when the hashed conversion runs (the
   // sorted one ignores it: bitmap order, as ever). With V = double, unscaled values and
   // lend_values, the matrix reads a.val in place: a must outlive it, unchanged.
   bool entry_order = false;
   bool lend_values = false;
   // false (honoured with the packed layout and without the dense one): each block row's tiles
   // in the order their block columns are first seen in the block row's CSR entries (row by row,
   // each row in its stored order) instead of by block column; block rows of at most
   // kSortedTilesMaxEntries entries keep them sorted (tier 0 ranks in registers). The same order
   // on every run (reorder_tiles_first_seen, mbsr.h, is its CPU reference). The SpMV's CUDA-core
   // kernels take a block row's tiles in any order (the packed offsets are popcount sums over
   // the tiles before; an entry's decode names its tile): on an entry-order copy the entries
   // kernel's sums are unchanged bit for bit; on a bitmap-order copy the packed entries follow
   // the tiles, so the additions come in another (fixed) order. The ranking by block column was
   // the largest part of the hash-table tiers' work on block rows of tens to hundreds of tiles:
   // without it the conversions of the large coarse operators took 1.1-1.8x less time. The
   // library leaves the tiles unranked only in its entry-order copies: a bitmap-order copy's
   // SpMV gathers x for neighbouring block columns in neighbouring lanes when the tiles are
   // ranked, and lost 1-13% without (laplace7 n=250's level 1 in fp32: 633 against 562 us;
   // bench/RESULTS.md, record 2026-11-27b). The sorted conversion ignores it.
   bool sorted_tiles = true;
   // Without the dense layout the hashed conversion groups the entries once (one pass over the
   // block rows, the tiles written to a scratch of 6 bytes an entry and then compacted) instead
   // of twice (count, scan, write). false, or a scratch the allocator cannot give: two passes.
   bool one_pass = true;
};

// The options of a copy that only the SpMV reads (no dense layout): entry order as asked, its
// tiles then left unranked (first-seen order); in bitmap order ranked (see sorted_tiles).
inline ConvertOptions spmv_copy_options(bool entry_order, bool lend_values)
{
   ConvertOptions o;
   o.dense        = false;
   o.packed       = true;
   o.entry_order  = entry_order;
   o.lend_values  = lend_values;
   o.sorted_tiles = !entry_order;
   return o;
}

// Tiers of the hashed conversion by entries per block row (mbsr_hashed.cu): <= 32, <= 128,
// <= 512, <= kHashedMaxEntries, each with a hash table in shared memory.
constexpr int kConversionTiers = 4;
// Tier 0's block rows (<= 32 entries, ranked in registers) keep their tiles sorted by block
// column even where ConvertOptions::sorted_tiles is false.
constexpr int32_t kSortedTilesMaxEntries = 32;

// What a conversion did, for tests and statistics.
struct ConversionInfo
{
   bool        hashed   = false;
   bool        one_pass = false;                 // hashed in one pass (ConvertOptions::one_pass)
   const char* reason   = "";                      // why the sorted conversion ran ("" when hashed)
   int64_t     tier_rows[kConversionTiers] = {}; // hashed: non-empty block rows per tier
};

// A CSR matrix in device memory (columns unsorted within a row; val == nullptr: all ones).
// Duplicate entries are summed in input order, as in the CPU reference (by the sorted
// conversion, to which a matrix with duplicates always goes). Structure and values equal the
// CPU reference's bit for bit on either path (and in one pass or two). Synchronises the stream:
// twice when hashed (the tile count, the end), a few times when sorted; returns after its work
// is done.
// The sorted path always builds the dense layout (it sums duplicates there): it may come
// back with blk_val even when options.dense is false, and without the packed layout
// (the SpMV plan packs dense values itself).
template <class V>
DeviceMbsr<V> csr_to_mbsr(const CsrView& a, Stream stream, const Allocator& alloc,
                          const ConvertOptions& options = {}, ConversionInfo* info = nullptr);

// AMGT_RESETUP: new values for an entry-order copy without the dense layout (packed values in
// the CSR's order) made from a CSR with a's structure, in place: a's values (unscale: of
// D^-1/2 A D^-1/2, as in the conversion of scaled_values' output) rounded entry by entry into
// packed_val by the row-wise layout's value pass (rows_device.h csr_values_to; enqueued on the
// stream), or, for a copy that lends the CSR's values (fp64, unscaled), lent from a. Equal bit
// for bit to a new conversion of the same values with the same options. Throws amgt::Error for
// any other copy.
template <class V>
void refresh_packed_values(DeviceMbsr<V>& m, const CsrView& a, const double* unscale, Stream stream);

// Number of stored entries (sum of popcounts); reads back one scalar (synchronises), unless
// the summary knows it.
template <class V>
int64_t mbsr_nnz(const DeviceMbsr<V>& m, Stream stream, const Allocator& alloc);

// Sorted CSR into caller-provided device arrays (row_ptr: nrows+1, col/val: mbsr_nnz). Needs
// the dense layout.
template <class V>
void mbsr_to_csr(const DeviceMbsr<V>& m, int32_t* row_ptr, int32_t* col, double* val,
                 Stream stream, const Allocator& alloc);

// Device -> host copy (tests, statistics); synchronises the stream. Needs the dense layout.
template <class V>
Mbsr<V> to_host(const DeviceMbsr<V>& m, Stream stream);

} // namespace amgt::device
