// y = alpha * A * x + beta * y on the GPU, A in mBSR (DeviceMbsr<V>), x and y fp64 device
// vectors. Semantics and rounding exactly as spmv_ref (spmv/spmv.h, common/precision.h); the
// design of each path is described with its kernels (the files are listed at the top of
// spmv_device.cu).
//
// Two steps, as hypre uses them: make_spmv_plan once per matrix in the setup phase (it
// measures the matrix, chooses a path and builds what that path reads: it allocates and
// synchronises), then spmv in every solve iteration (no allocation, no copy between host and
// device, no synchronisation: it only enqueues kernels on the stream, so it can also be
// captured into a CUDA graph).
#pragma once

#include "common/precision.h"
#include "device/runtime.h"
#include "mbsr/mbsr_device.h"

#include <cstdint>

namespace amgt::device {

enum class SpmvPath
{
   automatic,          // make_spmv_plan chooses one of the paths below
   cuda_core,          // a group of lanes per block row, packed values, bitmap-driven
   cuda_core_balanced, // long block rows cut into 64-tile chunks, one warp each, then combined
   tensor_core,        // fp64 mma.m8n8k4, fp16 mma.m16n8k16 (fp32 accumulation) on the dense
                       // tiles; fp32: runs cuda_core
   cuda_core_tiles,    // a group of lanes per block row, one tile per lane, packed values
   cuda_core_entries   // a group of lanes per block row, one stored entry per lane, packed
                       // values with a 2-byte decode of each entry's tile and position
};

// cuda_core_entries: most tiles a block row may hold (the decode keeps 12 bits for the tile);
// a plan forced to that path for a matrix with longer block rows takes the automatic choice.
constexpr int32_t kSpmvEntryMaxTiles = 4096;

const char* to_string(SpmvPath p);

// Balanced path: block rows of more than this many tiles ("long rows") are cut into chunks
// of this many tiles, one warp each (the paper's budget of 64 tiles per warp).
constexpr int kSpmvBalancedTiles = 64;

// Whether the automatic choice may pick tensor_core (fp64 or fp16, fill >= kDenseTileNnz, at
// least half the tiles dense). Off: on an H100 the packed CUDA-core paths were faster even on
// all-full tiles, in fp64 and in fp16 (bench/RESULTS.md). tensor_core stays available by
// request (forced = tensor_core).
constexpr bool kSpmvAutoTensorCore = false;

// What the plan measured (one pass over the bitmaps and blk_ptr).
struct SpmvStats
{
   int64_t tiles                   = 0;
   int64_t nnz                     = 0;   // sum of tile popcounts
   int64_t dense_tiles             = 0;   // popcount >= kDenseTileNnz
   int32_t max_tiles_per_block_row = 0;
   double  mean_tiles_per_block_row = 0.0; // tiles / block_rows, 0 without block rows
};

// Built once per matrix, reused by every spmv call with that matrix. Move-only (it owns
// device arrays). It describes A as it was when the plan was built: a plan must not outlive
// a change of A's values or structure (build a new one after A changes).
template <class V>
struct SpmvPlan
{
   using Acc = typename SpmvTraits<V>::acc_t; // double (common/precision.h)

   SpmvPath  path = SpmvPath::cuda_core; // the path chosen (never automatic)
   double    fill = 0.0;                 // nnz / tiles, measured (0 without tiles)
   SpmvStats stats;

   // Shape of the matrix the plan was made for; spmv refuses a different one.
   int32_t nrows = 0, ncols = 0, block_rows = 0;
   int64_t num_tiles = 0;

   // The CUDA-core paths read the packed layout (mbsr_device.h): the matrix's own when
   // csr_to_mbsr built it (then packed_val, row_val and entry_meta stay empty here), else the
   // plan packs A's dense values into these: the stored entries only, tile by tile in tile
   // order and, inside a tile, in bitmap order (bit r*4+c ascending, i.e. row-major).
   Buffer<V> packed_val;
   // Lanes per block row (4, 8, 16 or 32; cuda_core and cuda_core_tiles) and the offset into packed_val of each block row's
   // first entry (block_rows + 1 entries; the last is nnz).
   int32_t         group_lanes = 4;
   Buffer<int64_t> row_val;
   // cuda_core_balanced: chunk c is tiles [chunk_tile[c], chunk_tile[c] + 64) of block row
   // chunk_row[c] (fewer at the row's end), its first packed entry chunk_val[c]; long row j
   // is block row long_row[j], its chunks start at long_chunk[j].
   // cuda_core_entries: per packed entry, (tile index inside its block row) << 4 | r*4+c.
   Buffer<uint16_t> entry_meta;
   int64_t         num_chunks    = 0;
   int32_t         num_long_rows = 0;
   Buffer<int32_t> chunk_row, chunk_tile, long_row, long_chunk;
   Buffer<int64_t> chunk_val;
   // Scratch that spmv writes through a const plan (4 sums per chunk, each written before it
   // is read in the same call): one plan therefore serves one stream at a time.
   mutable Buffer<Acc> partial;
};

// Measures A (A.summary when the conversion counted it, else a pass that synchronises the
// stream), chooses the path (forced != automatic: that path; tensor_core for fp32 becomes
// cuda_core, see spmv_plan.cu) and builds what the path reads and A lacks, with the
// allocator. A matrix from csr_to_mbsr with the packed layout needs nothing more on the
// usual paths: no pass, no synchronisation. tensor_core needs A's dense layout (throws
// otherwise). The automatic rule is in choose_spmv_path.
template <class V>
SpmvPlan<V> make_spmv_plan(const DeviceMbsr<V>& A, Stream s, const Allocator& a,
                           SpmvPath forced = SpmvPath::automatic);

// The automatic rule alone (host only, from the statistics), for tests and for logging.
SpmvPath choose_spmv_path(Precision p, const SpmvStats& st);

// Lanes per block row of the cuda_core path for a mean number of tiles per block row.
int32_t spmv_group_lanes(double mean_tiles_per_block_row);
// Lanes per block row of the cuda_core_tiles path.
int32_t spmv_tile_lanes(double mean_tiles_per_block_row);

// Lanes per block row of the cuda_core_entries path, from the mean stored entries per block row
// and the number of block rows (the rule's reasons are in spmv_plan.cu).
int32_t spmv_entry_lanes(double mean_entries_per_block_row, int64_t block_rows);

// Automatic choice between the CUDA-core paths (choose_spmv_path): in block rows of at most
// kSpmvTileMaxMeanTiles tiles on average, cuda_core_tiles for a fill in [kSpmvTileMinFill,
// kDenseTileNnz) and cuda_core for denser tiles; else cuda_core_entries (block rows of at
// most kSpmvEntryMaxTiles tiles), else cuda_core.
constexpr double kSpmvTileMinFill      = 3.5;
constexpr double kSpmvTileMaxMeanTiles = 8.0;

// y = alpha * A * x + beta * y. x: A.ncols device doubles, y: A.nrows device doubles, never
// aliasing. beta == 0 overwrites y; alpha == 0 gives y = beta * y without reading A or x.
// b (optional, device, A.nrows doubles, may be y, never x): y = alpha * A * x + beta * b with
// the same rounding, y then only written (hypre's out-of-place product, which saves the copy
// b -> y); nullptr means b = y.
// Enqueues kernels on s and returns: no allocation, no copy, no synchronisation.
// unscale (optional, device, nrows doubles, A square): y = alpha * diag(u) * A * diag(u) * x
// + beta * y with the rounding of spmv_ref (spmv/spmv.h); nullptr runs kernels that never
// touch it. Throws amgt::Error if the plan was made for a matrix of another shape, or if
// unscale is given for a non-square A.
// Rounding of the fp16 tensor_core path: as spmv_ref except that x_j (times u_j) is rounded
// to half after a power-of-two scaling (details in spmv_tensor_kernels.cuh); it matches spmv_ref bit
// for bit on small-integer inputs only.
template <class V>
void spmv(const DeviceMbsr<V>& A, const SpmvPlan<V>& plan, double alpha, const double* x,
          double beta, double* y, Stream s, const double* unscale = nullptr, const double* b = nullptr);

extern template SpmvPlan<double> make_spmv_plan<double>(const DeviceMbsr<double>&, Stream,
                                                        const Allocator&, SpmvPath);
extern template SpmvPlan<float>  make_spmv_plan<float>(const DeviceMbsr<float>&, Stream,
                                                       const Allocator&, SpmvPath);
extern template SpmvPlan<half_t> make_spmv_plan<half_t>(const DeviceMbsr<half_t>&, Stream,
                                                        const Allocator&, SpmvPath);
extern template void spmv<double>(const DeviceMbsr<double>&, const SpmvPlan<double>&, double,
                                  const double*, double, double*, Stream, const double*, const double*);
extern template void spmv<float>(const DeviceMbsr<float>&, const SpmvPlan<float>&, double,
                                 const double*, double, double*, Stream, const double*, const double*);
extern template void spmv<half_t>(const DeviceMbsr<half_t>&, const SpmvPlan<half_t>&, double,
                                  const double*, double, double*, Stream, const double*, const double*);

} // namespace amgt::device
