// C = A * B on the GPU for mBSR operands already in device memory (setup phase of AMG: the
// interpolation product A*P and the Galerkin product P^T*(A*P)).
//
// Contract: the one of spgemm_ref (spgemm/spgemm.h), bit for bit in structure.
//   - C has tile (I, J) iff the OR over K of bitmap_product(A(I,K), B(K,J)) is nonzero, and
//     that OR is its bitmap: entries whose value cancels to 0 stay, the zero fill inside a tile
//     never enters the bitmap. blk_col is strictly ascending within every block row.
//   - Values accumulate in acc_t (double for fp64 levels, float for fp32 and fp16 levels) and
//     are rounded once to V; positions whose bit is clear are exactly zero. Two numeric
//     kernels (SpgemmStats::pairs_kernel says which one ran):
//     * ordered (SpgemmPath::cuda_core, tensor_core; automatic for products with enough dense
//       A tiles): one FMA per product term. Products on CUDA cores run in the reference's
//       order (A tiles by block column, then k inside the tile), so they equal spgemm_ref bit
//       for bit; tile products that go through the tensor cores (fp64: mma m8n8k4 f64; fp16:
//       mma m16n8k16 with half operands and fp32 accumulation; by default A tiles with
//       >= kDenseTileNnz entries) differ only by the order and rounding of the fp32/fp64
//       sums, within the bounds of tests/common/tolerances.h, and equal it bit for bit on
//       small-integer inputs. fp32 never uses tensor cores (only tf32 would take float
//       operands, below the contract's precision). Deterministic: the same inputs give the
//       same bits on every run.
//     * pairs (SpgemmPath::cuda_core_pairs; automatic for products with few dense A tiles):
//       every product term is rounded to acc_t on its own (no FMA) and added with an atomic,
//       in an order that is not fixed, so results may differ in the last bits from run to
//       run and from spgemm_ref; they are within spgemm_pairs_tolerance of
//       tests/common/tolerances.h and equal spgemm_ref bit for bit on small-integer inputs
//       (every partial sum exact). Structure is exact as always.
//   - Throws amgt::Error when A.ncols != B.nrows or C would have more than 2^31-1 tiles.
//
// Synchronisation: one host round trip after the symbolic count (C's tile count sizes its
// arrays), and the stream is drained before returning (the temporaries come from an
// Allocator without stream semantics, so they can only be released once the work that reads
// them is done). All device memory, temporaries included, comes from `alloc`.
#pragma once

#include "device/runtime.h"
#include "mbsr/mbsr_device.h"

#include <cstdint>

namespace amgt::device {

// Rows of C go to one of kSymbolicBins by their analysis bound (the number of intermediate
// tile products, sum over A's tiles in the row of B's block-row lengths): bin b < 7 holds
// bounds < 128 * 2^b, bin 7 the rest. Bins 0..6 use shared-memory hash tables, bin 7 (and any
// bin whose table does not fit the device's shared memory) a sliding dense window.
constexpr int kSymbolicBins = 8;
// Numeric phase, by C's tiles per block row: <= 32, <= 128, longer (windowed accumulator).
constexpr int kNumericBins = 3;

struct SpgemmStats
{
   int64_t intermediate_tiles = 0; // sum over block rows of the analysis bound (upper bound)
   int64_t output_tiles       = 0; // tiles of C
   int64_t tc_tile_products   = 0; // tile pairs multiplied on tensor cores (fp64, fp16 mma)
   int64_t cc_tile_products   = 0; // tile pairs multiplied on CUDA cores
   // tc + cc is the number of tile pairs with a nonzero bitmap product (pairs whose bitmap
   // product is empty are skipped in every phase).
   int64_t symbolic_bin_rows[kSymbolicBins] = {}; // block rows per symbolic bin (after routing)
   int64_t numeric_bin_rows[kNumericBins]   = {}; // nonempty block rows of C per numeric bin
   int32_t shared_symbolic_bins = 0; // bins 0..shared_symbolic_bins-1 ran on shared hash
                                     // tables; the others were routed to bin 7's window
   int64_t dense_a_tiles = 0;        // A tiles with popcount >= kDenseTileNnz
   int64_t a_entries     = 0;        // A's stored entries (sum of its tiles' popcounts)
   bool    pairs_kernel  = false;    // the numeric kernel chosen was the pairs kernel (see
                                     // SpgemmPath); false when an operand has no tiles. A
                                     // product without output tiles launches neither kernel.
};

// Which numeric kernel runs, and which of its tile products go to the tensor cores.
enum class SpgemmPath
{
   // Per product: the pairs kernel when A's tiles hold fewer than 5.5 entries on average
   // (kPairsFillLimitTimes2); else the ordered kernel with A tiles of popcount >=
   // kDenseTileNnz on the tensor cores (fp64 and fp16) and the rest on CUDA cores.
   automatic,
   cuda_core,   // ordered kernel, every product on CUDA cores: bit for bit spgemm_ref
   tensor_core, // ordered kernel, every product with a nonempty bitmap product on the tensor
                // cores (fp64, fp16; fp32 runs cuda_core): for tests and for timing the mma
                // path on sparse tiles
   cuda_core_pairs // pairs kernel for every row: (A tile, B tile) pairs spread over the lanes,
                   // atomics into the accumulator (for low-fill operands; see the contract)
};

// SpgemmPath::automatic takes the pairs kernel when 2 * a_entries < kPairsFillLimitTimes2 *
// A.num_tiles, i.e. A's mean tile fill is below 5.5 (A's entry count comes from the analysis
// kernel, read back with C's size). Why 5.5: with both kernels forced on the same products,
// the pairs kernel won on every operand of fill 4.0-4.4 (AMG fine levels and their A*P, by
// 1.6-2.1x, even where a seventh of A's tiles were tensor-core tiles) and the ordered kernel on
// every operand of fill 6.5-16 (by 1.25-9x); nothing between 4.4 and 6.5 was measured, so the
// limit sits between them (figures: bench/RESULTS.md, the SpGEMM's numeric phase).
constexpr int64_t kPairsFillLimitTimes2 = 11;

const char* to_string(SpgemmPath p);

template <class V>
DeviceMbsr<V> spgemm(const DeviceMbsr<V>& A, const DeviceMbsr<V>& B, Stream s, const Allocator& a,
                     SpgemmStats* stats = nullptr, SpgemmPath path = SpgemmPath::automatic);

} // namespace amgt::device
