// Row-wise hash SpGEMM on CSR (csr_spgemm_device.h): the kernels and their driver. The rules
// they follow (bins, table sizes, teams, the global bin's batches, the design) are the host
// functions of csr_spgemm.h, shared with the unit-tested host emulation.
//
// Hash tables: int32 keys (column, -1 free) claimed with atomicCAS, linear probing from
// hash_slot; double values added with atomicAdd (native on shared and global memory from
// sm_60). A table has at least twice the slots of the row's ub >= its distinct columns, so a
// probe sequence always ends. Keys are read volatile: a slot read as free may have been
// claimed since (the CAS settles it), and a key once written never changes.
#include "spgemm/csr_spgemm_device.h"
#include "spgemm/spgemm_short_rows.h"
#include "device/warp.cuh"

#include "common/error.h"
#include "device/launch.h"

#include "device/prim.cuh"

#include <algorithm>
#include <limits>
#include <new>
#include <string>
#include <vector>

namespace amgt::device {
namespace {

namespace cs = amgt::csr_spgemm;

struct Operands
{
   const int32_t* a_ptr;
   const int32_t* a_col;
   const double*  a_val; // nullptr: all ones
   const int32_t* b_ptr;
   const int32_t* b_col;
   const double*  b_val; // nullptr: all ones
};

// ---- pass 1: bounds, bins, histogram --------------------------------------------------------
// ub(i) = sum over A(i,k) of nnz(B(k,:)): a short serial loop (7-27 entries on AMG levels)
// reading A's columns and two row pointers of B each.
__device__ __forceinline__ int64_t row_bound(const Operands& op, int64_t i)
{
   int64_t s = 0;
   for (int32_t p = op.a_ptr[i]; p < op.a_ptr[i + 1]; ++p)
   {
      const int32_t k = op.a_col[p];
      s += op.b_ptr[k + 1] - op.b_ptr[k];
   }
   return s;
}

// Adds u of every thread of the block into *sum (zeroed by thread 0 before a barrier): a warp
// reduction and one shared atomic per warp. Every thread calls it; the caller's next barrier
// makes the sum complete.
__device__ __forceinline__ void block_add(unsigned long long u, unsigned long long* sum)
{
#pragma unroll
   for (int o = 16; o > 0; o >>= 1) u += device::shfl_xor(u, o);
   if ((threadIdx.x & 31) == 0 && u > 0) atomicAdd(sum, u);
}

// One thread per row of A (row_bound). meta[b] counts the rows of bin b, meta[kBins] sums
// ub; both aggregated per block first, so the global atomics are a few per block.
__global__ __launch_bounds__(kThreads) void bound_rows(Operands op, int32_t nrows, int shared_bins,
                                                       int64_t* ub, int8_t* bin,
                                                       unsigned long long* meta)
{
   __shared__ unsigned int       hist[cs::kBins];
   __shared__ unsigned long long block_sum;
   const int t = static_cast<int>(threadIdx.x);
   if (t < cs::kBins) hist[t] = 0;
   if (t == 0) block_sum = 0;
   __syncthreads();
   const int64_t      i = static_cast<int64_t>(blockIdx.x) * blockDim.x + t;
   unsigned long long u = 0;
   if (i < nrows)
   {
      const int64_t s = row_bound(op, i);
      ub[i]       = s;
      const int b = cs::bin_of(s, shared_bins);
      bin[i]      = static_cast<int8_t>(b);
      if (b >= 0) atomicAdd(&hist[b], 1u);
      u = static_cast<unsigned long long>(s);
   }
   block_add(u, &block_sum);
   __syncthreads();
   if (t < cs::kBins && hist[t] > 0) atomicAdd(&meta[t], static_cast<unsigned long long>(hist[t]));
   if (t == 0 && block_sum > 0) atomicAdd(&meta[cs::kBins], block_sum);
}

// two_pass_tight: each row's bin by its exact count (counts[i], int64) instead of its ub; the
// histogram per bin as bound_rows makes it (meta[kBins] unused).
__global__ __launch_bounds__(kThreads) void bin_by_count(const int64_t* counts, int32_t nrows, int shared_bins,
                                                         int8_t* bin, unsigned long long* meta)
{
   __shared__ unsigned int hist[cs::kBins];
   const int t = static_cast<int>(threadIdx.x);
   if (t < cs::kBins) hist[t] = 0;
   __syncthreads();
   const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + t;
   if (i < nrows)
   {
      const int b = cs::bin_of(counts[i], shared_bins);
      bin[i]      = static_cast<int8_t>(b);
      if (b >= 0) atomicAdd(&hist[b], 1u);
   }
   __syncthreads();
   if (t < cs::kBins && hist[t] > 0) atomicAdd(&meta[t], static_cast<unsigned long long>(hist[t]));
}

// ---- pass 2: the rows of each bin -------------------------------------------------------
// cursor[b] starts at bin b's offset in `listed`; a block reserves one range per bin with one
// atomic and places its rows inside it. The order within a bin is not fixed (nor needed:
// every row's result is independent of where it is listed).
__global__ __launch_bounds__(kThreads) void list_rows(const int8_t* bin, int32_t nrows,
                                                      int32_t* cursor, int32_t* listed)
{
   __shared__ int local[cs::kBins];
   __shared__ int base[cs::kBins];
   const int t = static_cast<int>(threadIdx.x);
   if (t < cs::kBins) local[t] = 0;
   __syncthreads();
   const int64_t i    = static_cast<int64_t>(blockIdx.x) * blockDim.x + t;
   int           b    = -1;
   int           lpos = 0;
   if (i < nrows)
   {
      b = bin[i];
      if (b >= 0) lpos = atomicAdd(&local[b], 1);
   }
   __syncthreads();
   if (t < cs::kBins && local[t] > 0) base[t] = atomicAdd(&cursor[t], local[t]);
   __syncthreads();
   if (b >= 0) listed[base[b] + lpos] = static_cast<int32_t>(i);
}

__global__ __launch_bounds__(kThreads) void gather_bounds(const int32_t* rows, int64_t n,
                                                          const int64_t* ub, int64_t* out)
{
   const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
   if (i < n) out[i] = ub[rows[i]];
}

// ---- the row kernels -----------------------------------------------------------------------
enum class Phase
{
   count,    // design B, symbolic: keys only, counts[row] = distinct columns
   to_temp,  // design A: (col, val) pairs at temp_off[row], counts[row]
   to_final, // design B, numeric: (col, val) pairs at row_ptr[row] in C's arrays
};

struct RowArgs
{
   Operands       op;
   const int32_t* rows    = nullptr; // the rows to build (a bin's segment, a batch)
   int32_t        nrows   = 0;
   const int64_t* ub      = nullptr; // per row of A
   const int64_t* temp_off = nullptr; // to_temp: exclusive scan of ub
   const int32_t* row_ptr = nullptr; // to_final: C's row pointer
   int32_t*       out_col = nullptr;
   double*        out_val = nullptr;
   int64_t*       counts  = nullptr; // count, to_temp: per row of A
};

__device__ __forceinline__ int load_key(const int* p)
{
   return *static_cast<const volatile int*>(p);
}

__device__ __forceinline__ double load_value(const double* p)
{
   return *static_cast<const volatile double*>(p);
}

// The slot holding `key`, claimed if the key is new. Index: uint32_t for shared tables,
// uint64_t for the global bin's (up to 2^32 slots).
template <class Index>
__device__ __forceinline__ Index claim_slot(int* keys, int32_t key, Index s, Index mask)
{
   while (true)
   {
      const int k = load_key(keys + s);
      if (k == key) return s;
      if (k == -1)
      {
         const int old = atomicCAS(keys + s, -1, key);
         if (old == -1 || old == key) return s;
      }
      s = (s + 1) & mask;
   }
}

// A row's group of G lanes (a warp or a whole block, G a multiple of 32) works in segments of
// one warp each. A segment's lanes run the same loops with the same trip counts, so its
// shuffles and ballots involve the whole warp. (Groups below a warp use build_row_small.)
template <int G>
struct Segment
{
   static_assert(G % device::kWarpSize == 0, "groups below a warp use build_row_small and emit_row_small");
   static constexpr int S     = device::kWarpSize;
   static constexpr int count = G / S; // segments per group
   int                  id;            // segment of the group
   int                  lane;          // lane within the segment
   __device__ __forceinline__ explicit Segment(int group_lane) : id(group_lane / S), lane(group_lane % S) {}
};

// Builds row `row` of C in the table, by the G lanes of a group of a warp or more (lane in
// [0, G); smaller groups: build_row_small). The row's
// entries of A are read in rounds of G, one per lane (entry r*G + lane*segments + segment, so
// every segment gets a share of a short row): its column, value and B row's bounds, all
// loads independent of each other. Within a segment, teams of team_lanes(...) lanes then take
// the segment's entries in turn through shuffles, the lanes of a team striding the B row: the
// only dependent loads left per product are B's column and value.
template <int G, bool kValues, class Index>
__device__ __forceinline__ void build_row(const Operands& op, int32_t row, int64_t ub, int lane,
                                          int* keys, double* vals, int log2, Index mask)
{
   using Seg = Segment<G>;
   const Seg     seg(lane);
   const int32_t a0     = op.a_ptr[row];
   const int32_t alen   = op.a_ptr[row + 1] - a0;
   const int     team   = cs::team_lanes(ub, alen, G); // <= 32: a power of two
   const int     shift  = __ffs(team) - 1;
   const int     tpseg  = Seg::S >> shift;  // teams per segment
   const int     tid    = seg.lane >> shift; // team within the segment
   const int     tl     = seg.lane & (team - 1);
   for (int32_t round = 0; round < alen; round += G)
   {
      // this segment's entries of the round: index round + i*count + id for i < cnt
      const int32_t left = alen - round - seg.id;
      const int32_t per  = (left + Seg::count - 1) / Seg::count;
      const int     cnt  = left <= 0 ? 0 : static_cast<int>(per < Seg::S ? per : Seg::S);
      int32_t       b0 = 0, b1 = 0;
      double        av = 1.0;
      if (seg.lane < cnt)
      {
         const int32_t p = a0 + round + seg.lane * Seg::count + seg.id;
         const int32_t k = op.a_col[p];
         if (kValues && op.a_val) av = op.a_val[p];
         b0 = op.b_ptr[k];
         b1 = op.b_ptr[k + 1];
      }
      for (int e0 = 0; e0 < cnt; e0 += tpseg)
      {
         const int     e  = e0 + tid;
         const int     src = e < cnt ? e : 0;
         const int32_t q0 = device::shfl(b0, src);
         const int32_t q1 = device::shfl(b1, src);
         const double  a  = kValues ? device::shfl(av, src) : 1.0;
         if (e >= cnt) continue;
         for (int32_t q = q0 + tl; q < q1; q += team)
         {
            const int32_t j = op.b_col[q];
            const Index   s = claim_slot<Index>(keys, j, static_cast<Index>(cs::hash_slot(j, log2)) & mask, mask);
            if constexpr (kValues)
            {
               // the product rounded on its own, then one atomic addition (no FMA across them)
               const double term = a * (op.b_val ? op.b_val[q] : 1.0);
               atomicAdd(vals + s, term);
            }
         }
      }
   }
}

// Where row `row`'s pairs go: its place in design A's temporary, in C (design B's numeric
// pass), nowhere when counting.
template <Phase P>
__device__ __forceinline__ int64_t row_base(const RowArgs& args, int32_t row)
{
   if constexpr (P == Phase::to_temp) return args.temp_off[row];
   if constexpr (P == Phase::to_final) return args.row_ptr[row];
   return 0;
}

// After the table is built: the occupied slots take the row's next places in slot order
// within each sweep of the group (ballots; order free), and, except when counting, write their
// pairs there. Groups of one segment count in a register; block-wide groups add each warp's
// count to the shared `counter` with one atomic. Returns the row's count (to every lane of a
// one-segment group; block-wide groups read `counter` after a barrier).
template <int G, Phase P, class Index>
__device__ __forceinline__ int emit_row(const RowArgs& args, int64_t base, int lane, const int* keys,
                                        const double* vals, Index slots, int* counter)
{
   using Seg = Segment<G>;
   const Seg seg(lane);
   int running = 0;
   for (Index s0 = 0; s0 < slots; s0 += static_cast<Index>(G))
   {
      const Index s   = s0 + static_cast<Index>(lane);
      const int   k   = s < slots ? load_key(keys + s) : -1;
      const bool  occ = k >= 0;
      // the warp's occupancy bits
      const device::LaneMask bits  = device::ballot(occ);
      const int              below = __popc(bits & ((device::LaneMask{1} << seg.lane) - 1));
      const int              total = __popc(bits);
      int                    first = running;
      if constexpr (Seg::count > 1)
      {
         int got = 0;
         if (seg.lane == 0 && total > 0) got = atomicAdd(counter, total);
         first = device::shfl(got, 0);
      }
      if constexpr (P != Phase::count)
      {
         if (occ)
         {
            args.out_col[base + first + below] = k;
            args.out_val[base + first + below] = load_value(vals + s);
         }
      }
      running += total;
   }
   return running;
}

// Small groups (4-16 lanes: the shared bins 0-2, rows of <= 64 products, a fine level's A*P
// and A*A) keep the first version of the two steps: each team reads its own entry of A and
// each occupied slot takes its place with a shared atomic. Measured on the H100 (kernel bench,
// laplace7 n=160), the round-and-shuffle version below made those bins slower (L0 A*P 4.35 ->
// 4.77 ms one_pass, 3.71 -> 5.18 two_pass; A*A two_pass 5.64 -> 6.35) and the bins of a warp or
// more faster (L0 P^T*(AP) 4.45 -> 3.89, L1 A*P 3.51 -> 3.20, laplace27 A*A 33.2 -> 21.2).
// Teams of team_lanes(...) lanes take A's entries in turn, the lanes of a team stride the B row.
template <int G, bool kValues, class Index>
__device__ __forceinline__ void build_row_small(const Operands& op, int32_t row, int64_t ub, int lane,
                                                int* keys, double* vals, int log2, Index mask)
{
   const int32_t a0     = op.a_ptr[row];
   const int32_t a1     = op.a_ptr[row + 1];
   const int     team   = cs::team_lanes(ub, a1 - a0, G);
   const int     shift  = __ffs(team) - 1; // team is a power of two
   const int     nteams = G >> shift;
   const int     tl     = lane & (team - 1);
   for (int32_t p = a0 + (lane >> shift); p < a1; p += nteams)
   {
      const int32_t k  = op.a_col[p];
      const double  a  = kValues && op.a_val ? op.a_val[p] : 1.0;
      const int32_t q1 = op.b_ptr[k + 1];
      for (int32_t q = op.b_ptr[k] + tl; q < q1; q += team)
      {
         const int32_t j = op.b_col[q];
         const Index   s = claim_slot<Index>(keys, j, static_cast<Index>(cs::hash_slot(j, log2)) & mask, mask);
         if constexpr (kValues)
         {
            // the product rounded on its own, then one atomic addition (no FMA across them)
            const double term = a * (op.b_val ? op.b_val[q] : 1.0);
            atomicAdd(vals + s, term);
         }
      }
   }
}

// Each occupied slot takes the next place of the row (a shared counter: order free) and,
// except when counting, writes its pair there.
template <Phase P, class Index>
__device__ __forceinline__ void emit_row_small(const RowArgs& args, int64_t base, Index lane, Index lanes,
                                               const int* keys, const double* vals, Index slots, int* counter)
{
   for (Index s = lane; s < slots; s += lanes)
   {
      const int k = load_key(keys + s);
      if (k < 0) continue;
      const int pos = atomicAdd(counter, 1);
      if constexpr (P != Phase::count)
      {
         args.out_col[base + pos] = k;
         args.out_val[base + pos] = load_value(vals + s);
      }
   }
}

template <int G>
__device__ __forceinline__ void group_sync()
{
   if constexpr (G <= 32) device::sync_warp(); // every lane of the warp gets here (groups of a warp
                                        // run the same code; inactive groups only skip work)
   else __syncthreads();
}

// Shared bin `Bin`: block / group rows per block, each with its own table in dynamic shared
// memory: values (double, 8-aligned at the start), then keys, then one counter per row.
template <int Bin, Phase P>
__global__ __launch_bounds__(cs::bin_shape(Bin).block) void shared_rows(RowArgs args)
{
   constexpr cs::BinShape kShape  = cs::bin_shape(Bin);
   constexpr int          G       = kShape.group;
   constexpr int          kRows   = kShape.block / G;
   constexpr int          kSlots  = 1 << kShape.log2_table;
   constexpr bool         kValues = P != Phase::count;
   extern __shared__ __align__(8) unsigned char smem[];
   double* vals    = reinterpret_cast<double*>(smem);
   int*    keys    = reinterpret_cast<int*>(smem + (kValues ? sizeof(double) * kRows * kSlots : 0));
   int*    counter = keys + kRows * kSlots;

   const int     g       = static_cast<int>(threadIdx.x) / G;
   const int     lane    = static_cast<int>(threadIdx.x) % G;
   int*          my_keys = keys + g * kSlots;
   double*       my_vals = vals + g * kSlots; // unused (and aliasing keys) when counting
   const int64_t r       = static_cast<int64_t>(blockIdx.x) * kRows + g;
   const bool    active  = r < args.nrows;

   for (int s = lane; s < kSlots; s += G)
   {
      my_keys[s] = -1;
      if constexpr (kValues) my_vals[s] = 0.0;
   }
   constexpr bool kSmall = G < device::kWarpSize; // bins 0-2: the first version (build_row_small)
   if ((kSmall || G > device::kWarpSize) && lane == 0) counter[g] = 0;
   group_sync<G>();
   const int32_t row = active ? args.rows[r] : 0;
   if (active)
   {
      if constexpr (kSmall)
      {
         build_row_small<G, kValues, uint32_t>(args.op, row, args.ub[row], lane, my_keys, my_vals,
                                               kShape.log2_table, static_cast<uint32_t>(kSlots - 1));
      }
      else
      {
         build_row<G, kValues, uint32_t>(args.op, row, args.ub[row], lane, my_keys, my_vals,
                                         kShape.log2_table, static_cast<uint32_t>(kSlots - 1));
      }
   }
   group_sync<G>();
   int count = 0;
   if constexpr (kSmall)
   {
      if (active)
      {
         emit_row_small<P, uint32_t>(args, row_base<P>(args, row), static_cast<uint32_t>(lane),
                                     static_cast<uint32_t>(G), my_keys, my_vals, static_cast<uint32_t>(kSlots),
                                     counter + g);
      }
      group_sync<G>();
      count = load_key(counter + g);
   }
   else if (active)
   {
      count = emit_row<G, P, uint32_t>(args, row_base<P>(args, row), lane, my_keys, my_vals,
                                       static_cast<uint32_t>(kSlots), counter + g);
   }
   if constexpr (P != Phase::to_final)
   {
      if constexpr (G > device::kWarpSize)
      {
         __syncthreads();
         count = load_key(counter + g);
      }
      if (active && lane == 0) args.counts[row] = count;
   }
}

// The global bin: one block per row of the batch, its table at table_off[r] in the batch's
// key (and value) arrays, table_off[r + 1] - table_off[r] slots (a power of two).
template <Phase P>
__global__ __launch_bounds__(cs::kGlobalBlock) void global_rows(RowArgs args, int* key_base,
                                                                 double* val_base,
                                                                 const int64_t* table_off)
{
   constexpr int  G       = cs::kGlobalBlock;
   constexpr bool kValues = P != Phase::count;
   __shared__ int counter;
   const int32_t  r     = static_cast<int32_t>(blockIdx.x);
   const int32_t  row   = args.rows[r];
   const int64_t  off   = table_off[r];
   const uint64_t slots = static_cast<uint64_t>(table_off[r + 1] - off);
   const int      log2  = 63 - __clzll(static_cast<long long>(slots));
   int*           keys  = key_base + off;
   double*        vals  = kValues ? val_base + off : nullptr;
   for (uint64_t s = threadIdx.x; s < slots; s += G)
   {
      keys[s] = -1;
      if constexpr (kValues) vals[s] = 0.0;
   }
   if (threadIdx.x == 0) counter = 0;
   __syncthreads();
   build_row<G, kValues, uint64_t>(args.op, row, args.ub[row], static_cast<int>(threadIdx.x), keys,
                                   vals, log2, slots - 1);
   __syncthreads();
   emit_row<G, P, uint64_t>(args, row_base<P>(args, row), static_cast<int>(threadIdx.x), keys, vals, slots,
                            &counter);
   if constexpr (P != Phase::to_final)
   {
      __syncthreads();
      if (threadIdx.x == 0) args.counts[row] = counter;
   }
}

// ---- after the counts ----------------------------------------------------------------------
__global__ __launch_bounds__(kThreads) void narrow_offsets(const int64_t* off, int64_t n, int32_t* row_ptr)
{
   const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
   if (i < n) row_ptr[i] = static_cast<int32_t>(off[i]); // total checked <= INT32_MAX first
}

// Design A's compaction: a warp per row (AMG rows of C hold ~10-100 entries), grid-stride.
__global__ __launch_bounds__(kThreads) void compact_rows(const int64_t* temp_off, const int32_t* row_ptr,
                                                         int32_t nrows, const int32_t* tcol,
                                                         const double* tval, int32_t* col, double* val)
{
   const int     lane  = static_cast<int>(threadIdx.x) & 31;
   const int64_t warp0 = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
   const int64_t warps = static_cast<int64_t>(gridDim.x) * blockDim.x / 32;
   for (int64_t i = warp0; i < nrows; i += warps)
   {
      const int32_t c0  = row_ptr[i];
      const int32_t n   = row_ptr[i + 1] - c0;
      const int64_t src = temp_off[i];
      for (int32_t t = lane; t < n; t += 32)
      {
         col[c0 + t] = tcol[src + t];
         val[c0 + t] = tval[src + t];
      }
   }
}


// ---- the lean design (small products: csr_spgemm.h, CsrSpgemmDesign::lean) -----------------
// What lean_bound leaves for the host (zeroed before it): rows per bin (by capped bound), the
// sum of the bounds, and nnz(C) once lean_scan has run.
struct LeanMeta
{
   unsigned long long hist[cs::kBins];
   unsigned long long sum_ub;
   unsigned long long nnz;
};

// One thread per row of A: ub, the bin of its capped bound, and its place in that bin's list
// (lists[b * nrows + position]; block-aggregated atomics as in list_rows). Empty rows get count
// 0 and slab offset 0 here (the compaction reads both); counts[nrows] = 0 for a scan of n + 1.
// Rows of the global bin are counted, not listed: the host then runs the general path.
__global__ __launch_bounds__(kThreads) void lean_bound(Operands op, int32_t nrows, int32_t ncols_b, int64_t* ub,
                                                       int32_t* lists, int64_t* counts, int64_t* toff,
                                                       LeanMeta* meta)
{
   __shared__ unsigned int       local[cs::kBins];
   __shared__ unsigned long long base[cs::kBins];
   __shared__ unsigned long long block_sum;
   const int t = static_cast<int>(threadIdx.x);
   if (t < cs::kBins) local[t] = 0;
   if (t == 0) block_sum = 0;
   __syncthreads();
   const int64_t      i    = static_cast<int64_t>(blockIdx.x) * blockDim.x + t;
   int                b    = -1;
   unsigned int       lpos = 0;
   unsigned long long u    = 0;
   if (i == 0) counts[nrows] = 0;
   if (i < nrows)
   {
      const int64_t sum = row_bound(op, i);
      ub[i] = sum;
      b     = cs::bin_of(cs::capped_bound(sum, ncols_b), cs::kSharedBins);
      if (b >= 0) lpos = atomicAdd(&local[b], 1u);
      else
      {
         counts[i] = 0;
         toff[i]   = 0;
      }
      u = static_cast<unsigned long long>(sum);
   }
   block_add(u, &block_sum);
   __syncthreads();
   if (t < cs::kBins && local[t] > 0) base[t] = atomicAdd(&meta->hist[t], static_cast<unsigned long long>(local[t]));
   if (t == 0 && block_sum > 0) atomicAdd(&meta->sum_ub, block_sum);
   __syncthreads();
   if (b >= 0 && b < cs::kSharedBins)
      lists[static_cast<int64_t>(b) * nrows + static_cast<int64_t>(base[b] + lpos)] = static_cast<int32_t>(i);
}

// The blocks of one lean launch: bins First..Last, bin b's blocks from first_block[b] to
// first_block[b + 1]; its rows' pairs go to the slab at slab_base[b] + position * max_ub(b).
struct LeanLaunch
{
   int32_t first_block[cs::kSharedBins + 1];
   int64_t slab_base[cs::kSharedBins];
   int32_t listed[cs::kSharedBins];
};

// One block of bin Bin: kShape.rows rows of the bin's list, each built by a group in its own
// table in shared memory (as shared_rows does, with the lean shape), its pairs written to the
// slab and its count and slab offset to counts/toff.
template <int Bin>
__device__ __forceinline__ void lean_bin_block(const RowArgs& args, const int32_t* list, int32_t listed,
                                               int64_t slab_base, int32_t local_block, unsigned char* smem,
                                               int64_t* toff)
{
   constexpr cs::LeanShape kShape = cs::lean_shape(Bin);
   constexpr int           G      = kShape.group;
   constexpr int           kRows  = kShape.rows;
   constexpr int           kSlots = 1 << kShape.log2_table;
   constexpr int64_t       kRoom  = cs::bin_shape(Bin).max_ub;
   static_assert(G * kRows == cs::kLeanBlock, "a lean block is kLeanBlock lanes");
   double* vals    = reinterpret_cast<double*>(smem);
   int*    keys    = reinterpret_cast<int*>(smem + sizeof(double) * kRows * kSlots);
   int*    counter = keys + kRows * kSlots;

   const int     g       = static_cast<int>(threadIdx.x) / G;
   const int     lane    = static_cast<int>(threadIdx.x) % G;
   int*          my_keys = keys + g * kSlots;
   double*       my_vals = vals + g * kSlots;
   const int64_t r       = static_cast<int64_t>(local_block) * kRows + g;
   const bool    active  = r < listed;
   for (int sl = lane; sl < kSlots; sl += G)
   {
      my_keys[sl] = -1;
      my_vals[sl] = 0.0;
   }
   constexpr bool kSmall = G < device::kWarpSize;
   if ((kSmall || G > device::kWarpSize) && lane == 0) counter[g] = 0;
   group_sync<G>();
   const int32_t row  = active ? list[r] : 0;
   const int64_t base = slab_base + r * kRoom;
   if (active)
   {
      if constexpr (kSmall)
      {
         build_row_small<G, true, uint32_t>(args.op, row, args.ub[row], lane, my_keys, my_vals, kShape.log2_table,
                                            static_cast<uint32_t>(kSlots - 1));
      }
      else
      {
         build_row<G, true, uint32_t>(args.op, row, args.ub[row], lane, my_keys, my_vals, kShape.log2_table,
                                      static_cast<uint32_t>(kSlots - 1));
      }
   }
   group_sync<G>();
   int count = 0;
   if constexpr (kSmall)
   {
      if (active)
      {
         emit_row_small<Phase::to_temp, uint32_t>(args, base, static_cast<uint32_t>(lane), static_cast<uint32_t>(G),
                                                  my_keys, my_vals, static_cast<uint32_t>(kSlots), counter + g);
      }
      group_sync<G>();
      count = load_key(counter + g);
   }
   else
   {
      if (active)
      {
         count = emit_row<G, Phase::to_temp, uint32_t>(args, base, lane, my_keys, my_vals,
                                                       static_cast<uint32_t>(kSlots), counter + g);
      }
      if constexpr (G > device::kWarpSize)
      {
         __syncthreads();
         count = load_key(counter + g);
      }
   }
   if (active && lane == 0)
   {
      args.counts[row] = count;
      toff[row]        = base;
   }
}

template <int B, int Last>
__device__ __forceinline__ void lean_dispatch(int b, const RowArgs& args, const int32_t* lists, int32_t nrows,
                                              const LeanLaunch& L, int32_t local_block, unsigned char* smem,
                                              int64_t* toff)
{
   if constexpr (B <= Last)
   {
      if (b == B)
      {
         lean_bin_block<B>(args, lists + static_cast<int64_t>(B) * nrows, L.listed[B], L.slab_base[B], local_block,
                           smem, toff);
      }
      else lean_dispatch<B + 1, Last>(b, args, lists, nrows, L, local_block, smem, toff);
   }
}

// The lean launch of bins First..Last (uniform per block: every thread finds the same bin).
template <int First, int Last>
__global__ __launch_bounds__(cs::kLeanBlock) void lean_rows(RowArgs args, LeanLaunch L, const int32_t* lists,
                                                            int32_t nrows, int64_t* toff)
{
   extern __shared__ __align__(8) unsigned char smem[];
   const int32_t blk = static_cast<int32_t>(blockIdx.x);
   int           b   = First;
   while (b < Last && blk >= L.first_block[b + 1]) ++b;
   lean_dispatch<First, Last>(b, args, lists, nrows, L, blk - L.first_block[b], smem, toff);
}

// counts (n entries, int64) -> row_ptr (n + 1, int32) and nnz in meta, by one block of
// kLeanScanThreads: each thread sums a contiguous chunk, the block scans the chunk sums, each
// thread writes its chunk's offsets. (n <= kLeanMaxRows: chunks of <= 64.) Offsets above
// 2^31-1 wrap here; the host checks nnz before using them.
constexpr int kLeanScanThreads = 1024;
__global__ __launch_bounds__(kLeanScanThreads) void lean_scan(const int64_t* counts, int32_t n, int32_t* row_ptr,
                                                              LeanMeta* meta)
{
   __shared__ long long warp_sum[kLeanScanThreads / 32];
   const int     t     = static_cast<int>(threadIdx.x);
   const int64_t chunk = (static_cast<int64_t>(n) + kLeanScanThreads - 1) / kLeanScanThreads;
   const int64_t i0    = t * chunk;
   const int64_t i1    = i0 + chunk < n ? i0 + chunk : n;
   long long     mine  = 0;
   for (int64_t i = i0; i < i1; ++i) mine += counts[i];
   // inclusive scan of the threads' sums: within warps, then over the warps' totals
   long long incl = mine;
   const int lane = t & 31, w = t >> 5;
#pragma unroll
   for (int d = 1; d < 32; d <<= 1)
   {
      const long long v = device::shfl_up(incl, d);
      if (lane >= d) incl += v;
   }
   if (lane == 31) warp_sum[w] = incl;
   __syncthreads();
   if (w == 0)
   {
      long long x = warp_sum[lane];
#pragma unroll
      for (int d = 1; d < 32; d <<= 1)
      {
         const long long v = device::shfl_up(x, d);
         if (lane >= d) x += v;
      }
      warp_sum[lane] = x; // inclusive over warps
   }
   __syncthreads();
   long long run = incl - mine + (w > 0 ? warp_sum[w - 1] : 0);
   for (int64_t i = i0; i < i1; ++i)
   {
      row_ptr[i] = static_cast<int32_t>(run);
      run += counts[i];
   }
   if (t == kLeanScanThreads - 1)
   {
      const long long total = warp_sum[kLeanScanThreads / 32 - 1];
      row_ptr[n]            = static_cast<int32_t>(total);
      meta->nnz             = static_cast<unsigned long long>(total);
   }
}

// ---- host side -------------------------------------------------------------------------------
template <int Bin, Phase P>
void launch_shared(const RowArgs& args, Stream s)
{
   constexpr cs::BinShape kShape = cs::bin_shape(Bin);
   constexpr int          kRows  = kShape.block / kShape.group;
   const size_t           smem   = cs::shared_bytes(Bin, P != Phase::count);
   if (smem > 48 * 1024)
   {
      AMGT_DEVICE_CHECK(device::set_max_dynamic_smem(shared_rows<Bin, P>, static_cast<int>(smem)));
   }
   const int64_t blocks = (static_cast<int64_t>(args.nrows) + kRows - 1) / kRows;
   shared_rows<Bin, P><<<static_cast<unsigned>(blocks), kShape.block, smem, s>>>(args);
   AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm shared_rows");
}

template <Phase P>
void launch_bin(int b, const RowArgs& args, Stream s)
{
   static_assert(cs::kSharedBins == 9, "one case per shared bin");
   switch (b)
   {
   case 0: launch_shared<0, P>(args, s); break;
   case 1: launch_shared<1, P>(args, s); break;
   case 2: launch_shared<2, P>(args, s); break;
   case 3: launch_shared<3, P>(args, s); break;
   case 4: launch_shared<4, P>(args, s); break;
   case 5: launch_shared<5, P>(args, s); break;
   case 6: launch_shared<6, P>(args, s); break;
   case 7: launch_shared<7, P>(args, s); break;
   case 8: launch_shared<8, P>(args, s); break;
   default: AMGT_THROW("csr_spgemm: no such shared bin " + std::to_string(b));
   }
}

// What pass 1 and the listing left for the row kernels.
struct Plan
{
   int                          shared_bins = 0;
   std::vector<int64_t>         hist;    // rows per bin
   std::vector<int64_t>         offsets; // bin segments in `listed`
   const int32_t*               listed = nullptr;
   std::vector<cs::GlobalBatch> batches;
   int64_t                      max_batch_slots = 0;
   size_t                       max_batch_rows  = 0;
   bool                         short_rows      = false; // bins < kShortBins: the sort kernels
};

// A short bin's rows through the sort kernels (spgemm_short_rows.h): design B's two passes only.
template <Phase P>
void launch_short(int b, const RowArgs& args, Stream s)
{
   static_assert(P != Phase::to_temp, "the short-row kernels write C in place (design B)");
   ShortRowsArgs a;
   a.a_ptr   = args.op.a_ptr;
   a.a_col   = args.op.a_col;
   a.a_val   = args.op.a_val;
   a.b_ptr   = args.op.b_ptr;
   a.b_col   = args.op.b_col;
   a.b_val   = args.op.b_val;
   a.rows    = args.rows;
   a.nrows   = args.nrows;
   a.counts  = args.counts;
   a.row_ptr = args.row_ptr;
   a.out_col = args.out_col;
   a.out_val = args.out_val;
   if constexpr (P == Phase::count) short_rows_count(b, a, s);
   else short_rows_numeric(b, a, s);
}

// Every binned row through phase P: the shared bins, then the global bin batch by batch
// (tables allocated once for the largest batch; the batches run in stream order on them).
template <Phase P>
void run_rows(const Plan& plan, RowArgs args, Stream s, const Allocator& alloc)
{
   for (int b = 0; b < plan.shared_bins; ++b)
   {
      if (plan.hist[b] == 0) continue;
      args.rows  = plan.listed + plan.offsets[b];
      args.nrows = static_cast<int32_t>(plan.hist[b]);
      if constexpr (P != Phase::to_temp)
      {
         if (plan.short_rows && b < cs::kShortBins)
         {
            launch_short<P>(b, args, s);
            continue;
         }
      }
      launch_bin<P>(b, args, s);
   }
   if (plan.batches.empty()) return;
   Buffer<int>     keys(static_cast<size_t>(plan.max_batch_slots), alloc);
   Buffer<double>  vals(P != Phase::count ? static_cast<size_t>(plan.max_batch_slots) : 0, alloc);
   Buffer<int64_t> table_off(plan.max_batch_rows + 1, alloc);
   for (const cs::GlobalBatch& g : plan.batches)
   {
      // from pageable memory: staged before memcpy_async returns, and ordered before the
      // launch that reads it and the next batch's copy over it
      AMGT_DEVICE_CHECK(device::memcpy_async(table_off.get(), g.offsets.data(), g.offsets.size() * sizeof(int64_t),
                                        device::Copy::to_device, s));
      args.rows  = plan.listed + plan.offsets[cs::kGlobalBin] + static_cast<int64_t>(g.first);
      args.nrows = static_cast<int32_t>(g.count);
      global_rows<P><<<static_cast<unsigned>(g.count), cs::kGlobalBlock, 0, s>>>(args, keys.get(), vals.get(),
                                                                                table_off.get());
      AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm global_rows");
   }
   // keys/vals/table_off are released when this returns: wait for the batches that use them
   synchronize(s);
}

// counts (n + 1 entries, the last 0) -> C's row pointer; returns nnz(C). The scan's output and
// temporary stay in `keep` until the caller's final synchronisation (no wait here for the
// narrowing kernel).
struct ScanKeep
{
   Buffer<int64_t> off;
   Buffer<char>    temp;
};

int64_t counts_to_row_ptr_raw(const int64_t* counts, size_t n, int32_t* row_ptr, Stream s, const Allocator& alloc,
                              ScanKeep& keep);
int64_t counts_to_row_ptr(const Buffer<int64_t>& counts, size_t n, int32_t* row_ptr, Stream s,
                          const Allocator& alloc, ScanKeep& keep)
{
   return counts_to_row_ptr_raw(counts.get(), n, row_ptr, s, alloc, keep);
}

int64_t counts_to_row_ptr_raw(const int64_t* counts, size_t n, int32_t* row_ptr, Stream s, const Allocator& alloc,
                              ScanKeep& keep)
{
   keep.off              = Buffer<int64_t>(n + 1, alloc);
   Buffer<int64_t>& off  = keep.off;
   size_t           bytes = 0;
   const int64_t    items = static_cast<int64_t>(n) + 1;
   AMGT_DEVICE_CHECK(device::prim::DeviceScan::ExclusiveSum(nullptr, bytes, counts, off.get(), items, s));
   keep.temp          = Buffer<char>(bytes, alloc);
   Buffer<char>& temp = keep.temp;
   AMGT_DEVICE_CHECK(device::prim::DeviceScan::ExclusiveSum(temp.get(), bytes, counts, off.get(), items, s));
   int64_t nnz = 0;
   AMGT_DEVICE_CHECK(device::memcpy_async(&nnz, off.get() + n, sizeof(nnz), device::Copy::to_host, s));
   synchronize(s);
   AMGT_REQUIRE(nnz <= std::numeric_limits<int32_t>::max(),
                "csr_spgemm: product has " + std::to_string(nnz) + " nonzeros, more than 2^31-1");
   narrow_offsets<<<blocks_for(items), kThreads, 0, s>>>(off.get(), items, row_ptr);
   AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm narrow_offsets");
   return nnz;
}

unsigned warp_blocks_for(int64_t rows)
{
   const int64_t per_block = kThreads / 32;
   const int64_t blocks    = (rows + per_block - 1) / per_block;
   return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>(blocks, int64_t{1} << 20)));
}

// Lists the rows of each bin (bin[i] per row; plan.hist and plan.offsets already set) into
// `listed`, and cuts the global bin's rows into batches by size_of[i] (ub, or the exact count
// for two_pass_tight's numeric pass): those sizes are read back (rows of more than 4096
// products or entries are rare on AMG levels; no round trip without them).
// `cursor` and `listed` are the caller's, kept until its final synchronisation.
void list_and_batch(Plan& plan, const int8_t* bin, int32_t nrows, const int64_t* size_of, int32_t ncols_b,
                    Buffer<int32_t>& cursor, Buffer<int32_t>& listed, Stream s, const Allocator& alloc)
{
   const int64_t        nlisted = plan.offsets[cs::kBins];
   std::vector<int32_t> h_cursor(plan.offsets.begin(), plan.offsets.end() - 1);
   cursor = Buffer<int32_t>(cs::kBins, alloc);
   listed = Buffer<int32_t>(static_cast<size_t>(nlisted), alloc);
   // from pageable memory: staged before memcpy_async returns
   AMGT_DEVICE_CHECK(device::memcpy_async(cursor.get(), h_cursor.data(), cs::kBins * sizeof(int32_t),
                                          device::Copy::to_device, s));
   list_rows<<<blocks_for(static_cast<int64_t>(nrows)), kThreads, 0, s>>>(bin, nrows, cursor.get(), listed.get());
   AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm list_rows");
   plan.listed = listed.get();
   plan.batches.clear();
   plan.max_batch_slots = 0;
   plan.max_batch_rows  = 0;
   const int64_t nglobal = plan.hist[cs::kGlobalBin];
   if (nglobal > 0)
   {
      Buffer<int64_t> gsize(static_cast<size_t>(nglobal), alloc);
      gather_bounds<<<blocks_for(nglobal), kThreads, 0, s>>>(listed.get() + plan.offsets[cs::kGlobalBin], nglobal,
                                                             size_of, gsize.get());
      AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm gather_bounds");
      std::vector<int64_t> h_size(static_cast<size_t>(nglobal));
      AMGT_DEVICE_CHECK(device::memcpy_async(h_size.data(), gsize.get(), h_size.size() * sizeof(int64_t),
                                             device::Copy::to_host, s));
      synchronize(s);
      plan.batches = cs::plan_global_batches(h_size, ncols_b);
      for (const cs::GlobalBatch& g : plan.batches)
      {
         plan.max_batch_slots = std::max(plan.max_batch_slots, g.offsets.back());
         plan.max_batch_rows  = std::max(plan.max_batch_rows, g.count);
      }
   }
}


// Launches lean_rows<First, Last> over the bins of L in that range that hold rows (nothing when
// none does); its shared memory is the largest of their shapes'.
template <int First, int Last>
void launch_lean(const RowArgs& args, LeanLaunch L, const int32_t* lists, int32_t nrows, int64_t* toff,
                 const std::vector<int64_t>& hist, Stream s)
{
   int32_t blocks = 0;
   size_t  smem   = 0;
   for (int b = First; b <= Last; ++b)
   {
      L.first_block[b] = blocks;
      const int64_t rows = hist[static_cast<size_t>(b)];
      if (rows == 0) continue;
      blocks += static_cast<int32_t>((rows + cs::lean_shape(b).rows - 1) / cs::lean_shape(b).rows);
      smem = std::max(smem, cs::lean_shared_bytes(b));
   }
   L.first_block[Last + 1] = blocks;
   if (blocks == 0) return;
   if (smem > 48 * 1024) AMGT_DEVICE_CHECK(device::set_max_dynamic_smem(lean_rows<First, Last>, static_cast<int>(smem)));
   lean_rows<First, Last><<<static_cast<unsigned>(blocks), cs::kLeanBlock, smem, s>>>(args, L, lists, nrows, toff);
   AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm lean_rows");
}

// The lean design (csr_spgemm.h). Returns false, having left C untouched, when the general path
// must run instead: a row beyond bin 8.
bool lean_product(const Operands& op, const CsrView& A, const CsrView& B, Stream s, const Allocator& alloc,
                  CsrSpgemmStats& st, DeviceCsrProduct& C)
{
   const size_t n = static_cast<size_t>(A.nrows);
   // one allocation for everything the first pass writes: ub, counts (n + 1), slab offsets,
   // the bins' lists, the meta block
   const size_t ub_at    = 0;
   const size_t count_at = ub_at + n * sizeof(int64_t);
   const size_t toff_at  = count_at + (n + 1) * sizeof(int64_t);
   const size_t meta_at  = toff_at + n * sizeof(int64_t);
   const size_t lists_at = meta_at + sizeof(LeanMeta);
   const size_t bytes    = lists_at + static_cast<size_t>(cs::kSharedBins) * n * sizeof(int32_t);
   Buffer<char> arena(bytes, alloc);
   auto*        ub     = reinterpret_cast<int64_t*>(arena.get() + ub_at);
   auto*        counts = reinterpret_cast<int64_t*>(arena.get() + count_at);
   auto*        toff   = reinterpret_cast<int64_t*>(arena.get() + toff_at);
   auto*        meta   = reinterpret_cast<LeanMeta*>(arena.get() + meta_at);
   auto*        lists  = reinterpret_cast<int32_t*>(arena.get() + lists_at);
   fill_bytes(meta, 0, sizeof(LeanMeta), s);
   lean_bound<<<blocks_for(static_cast<int64_t>(n)), kThreads, 0, s>>>(op, A.nrows, B.ncols, ub, lists, counts, toff,
                                                                       meta);
   AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm lean_bound");
   LeanMeta h{};
   AMGT_DEVICE_CHECK(device::memcpy_async(&h, meta, sizeof(h), device::Copy::to_host, s));
   synchronize(s);
   std::vector<int64_t> hist(cs::kBins, 0);
   for (int b = 0; b < cs::kBins; ++b) hist[static_cast<size_t>(b)] = st.bin_rows[b] = static_cast<int64_t>(h.hist[b]);
   st.sum_ub = static_cast<int64_t>(h.sum_ub);
   if (hist[cs::kGlobalBin] > 0) return false;

   // the slab
   const int64_t   slab = cs::lean_slab_entries(hist);
   Buffer<int32_t> tcol(static_cast<size_t>(slab), alloc);
   Buffer<double>  tval(static_cast<size_t>(slab), alloc);
   LeanLaunch L{};
   int64_t    at = 0;
   for (int b = 0; b < cs::kSharedBins; ++b)
   {
      L.slab_base[b] = at;
      L.listed[b]    = static_cast<int32_t>(hist[static_cast<size_t>(b)]);
      at += hist[static_cast<size_t>(b)] * cs::bin_shape(b).max_ub;
   }
   RowArgs args;
   args.op      = op;
   args.ub      = ub;
   args.counts  = counts;
   args.out_col = tcol.get();
   args.out_val = tval.get();
   static_assert(cs::kLeanFused == 7 && cs::kSharedBins == 9, "bins 0-6 in one launch, 7 and 8 alone");
   launch_lean<0, 6>(args, L, lists, A.nrows, toff, hist, s);
   launch_lean<7, 7>(args, L, lists, A.nrows, toff, hist, s);
   launch_lean<8, 8>(args, L, lists, A.nrows, toff, hist, s);

   // C's row pointer and size, then the compaction
   ScanKeep scan_keep; // (general scan only) released on return, after the last synchronisation
   if (static_cast<int64_t>(n) <= cs::kLeanMaxRows)
   {
      lean_scan<<<1, kLeanScanThreads, 0, s>>>(counts, A.nrows, C.row_ptr.get(), meta);
      AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm lean_scan");
      AMGT_DEVICE_CHECK(device::memcpy_async(&h, meta, sizeof(h), device::Copy::to_host, s));
      synchronize(s);
      AMGT_REQUIRE(h.nnz <= static_cast<unsigned long long>(std::numeric_limits<int32_t>::max()),
                   "csr_spgemm: product has " + std::to_string(h.nnz) + " nonzeros, more than 2^31-1");
      C.nnz = static_cast<int64_t>(h.nnz);
   }
   else
   {
      // a lean product asked for on many rows: the general scan (counts holds n + 1 entries)
      C.nnz = counts_to_row_ptr_raw(counts, n, C.row_ptr.get(), s, alloc, scan_keep);
   }
   C.col = Buffer<int32_t>(static_cast<size_t>(C.nnz), alloc);
   C.val = Buffer<double>(static_cast<size_t>(C.nnz), alloc);
   compact_rows<<<warp_blocks_for(static_cast<int64_t>(n)), kThreads, 0, s>>>(toff, C.row_ptr.get(), A.nrows, tcol.get(),
                                                                             tval.get(), C.col.get(), C.val.get());
   AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm compact_rows");
   synchronize(s); // before the temporaries are released
   st.design = CsrSpgemmDesign::lean;
   return true;
}

} // namespace

DeviceCsrProduct csr_spgemm(const CsrView& A, const CsrView& B, Stream s, const Allocator& alloc,
                            CsrSpgemmStats* stats, CsrSpgemmDesign design)
{
   AMGT_REQUIRE(A.ncols == B.nrows, "csr_spgemm: dimension mismatch, A is " + std::to_string(A.nrows) + " x " +
                                        std::to_string(A.ncols) + ", B is " + std::to_string(B.nrows) + " x " +
                                        std::to_string(B.ncols));
   AMGT_REQUIRE(A.nrows >= 0 && B.ncols >= 0 && A.nnz >= 0 && B.nnz >= 0, "csr_spgemm: negative size");
   CsrSpgemmStats   st;
   DeviceCsrProduct C;
   C.nrows            = A.nrows;
   C.ncols            = B.ncols;
   const size_t n     = static_cast<size_t>(A.nrows);
   C.row_ptr          = Buffer<int32_t>(n + 1, alloc);
   st.shared_bins     = cs::usable_shared_bins(static_cast<size_t>(device_limits().smem_optin));
   auto empty_product = [&] {
      fill_bytes(C.row_ptr.get(), 0, (n + 1) * sizeof(int32_t), s);
      synchronize(s);
      st.design = design == CsrSpgemmDesign::automatic ? CsrSpgemmDesign::one_pass : design;
      if (stats) *stats = st;
      return std::move(C);
   };
   if (A.nrows == 0 || A.nnz == 0 || B.nnz == 0) return empty_product();

   const Operands op{A.row_ptr, A.col, A.val, B.row_ptr, B.col, B.val};

   // The lean design when asked for; the general path's automatic choice when it declines.
   if (design == CsrSpgemmDesign::lean)
   {
      if (st.shared_bins == cs::kSharedBins && lean_product(op, A, B, s, alloc, st, C))
      {
         if (stats) *stats = st;
         return C;
      }
      st.lean_fell_back = true;
      design            = CsrSpgemmDesign::automatic;
      for (int64_t& r : st.bin_rows) r = 0;
   }

   // Pass 1.
   Buffer<int64_t>            ub(n, alloc);
   Buffer<int8_t>             bin(n, alloc);
   Buffer<unsigned long long> meta(cs::kBins + 1, alloc);
   fill_bytes(meta.get(), 0, meta.size() * sizeof(unsigned long long), s);
   bound_rows<<<blocks_for(static_cast<int64_t>(n)), kThreads, 0, s>>>(op, A.nrows, st.shared_bins, ub.get(),
                                                                       bin.get(), meta.get());
   AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm bound_rows");
   unsigned long long h_meta[cs::kBins + 1] = {};
   AMGT_DEVICE_CHECK(device::memcpy_async(h_meta, meta.get(), sizeof(h_meta), device::Copy::to_host, s));
   synchronize(s);
   Plan plan;
   plan.shared_bins = st.shared_bins;
   plan.hist.assign(cs::kBins, 0);
   for (int b = 0; b < cs::kBins; ++b) plan.hist[b] = st.bin_rows[b] = static_cast<int64_t>(h_meta[b]);
   st.sum_ub    = static_cast<int64_t>(h_meta[cs::kBins]);
   plan.offsets = cs::bin_offsets(plan.hist);
   const int64_t nlisted = plan.offsets[cs::kBins];
   if (nlisted == 0) return empty_product();

   // Pass 2: the rows per bin, and the global bin's batches.
   Buffer<int32_t> cursor, listed;
   list_and_batch(plan, bin.get(), A.nrows, ub.get(), B.ncols, cursor, listed, s, alloc);
   st.global_batches = static_cast<int64_t>(plan.batches.size());

   // The design.
   // free memory only matters to automatic's choice for heavier rows (a runtime call saved
   // on light products)
   size_t free_bytes = 0, total_bytes = 0;
   if (design == CsrSpgemmDesign::automatic && !cs::light_rows(st.sum_ub, static_cast<int64_t>(n)))
   {
      AMGT_DEVICE_CHECK(mem_get_info(&free_bytes, &total_bytes));
   }
   CsrSpgemmDesign d = cs::choose_design(design, st.sum_ub, static_cast<int64_t>(n), free_bytes);
   Buffer<int32_t> tcol;
   Buffer<double>  tval;
   if (d == CsrSpgemmDesign::one_pass)
   {
      try
      {
         tcol = Buffer<int32_t>(static_cast<size_t>(st.sum_ub), alloc);
         tval = Buffer<double>(static_cast<size_t>(st.sum_ub), alloc);
      }
      catch (const std::bad_alloc&)
      {
         if (design != CsrSpgemmDesign::automatic) throw;
         tcol                = Buffer<int32_t>();
         tval                = Buffer<double>();
         d                   = CsrSpgemmDesign::two_pass;
         st.one_pass_refused = true;
      }
   }
   st.design = d;

   ScanKeep scan_keep; // released on return, after the last synchronisation below
   RowArgs  args;
   args.op = op;
   args.ub = ub.get();
   Buffer<int64_t> counts(n + 1, alloc);
   fill_bytes(counts.get(), 0, counts.size() * sizeof(int64_t), s); // empty rows and counts[n]
   args.counts = counts.get();

   if (d == CsrSpgemmDesign::one_pass)
   {
      Buffer<int64_t> temp_off(n, alloc);
      size_t          bytes = 0;
      AMGT_DEVICE_CHECK(device::prim::DeviceScan::ExclusiveSum(nullptr, bytes, ub.get(), temp_off.get(),
                                                      static_cast<int64_t>(n), s));
      Buffer<char> scan_temp(bytes, alloc);
      AMGT_DEVICE_CHECK(device::prim::DeviceScan::ExclusiveSum(scan_temp.get(), bytes, ub.get(), temp_off.get(),
                                                      static_cast<int64_t>(n), s));
      args.temp_off = temp_off.get();
      args.out_col  = tcol.get();
      args.out_val  = tval.get();
      run_rows<Phase::to_temp>(plan, args, s, alloc);
      C.nnz = counts_to_row_ptr(counts, n, C.row_ptr.get(), s, alloc, scan_keep);
      C.col = Buffer<int32_t>(static_cast<size_t>(C.nnz), alloc);
      C.val = Buffer<double>(static_cast<size_t>(C.nnz), alloc);
      compact_rows<<<warp_blocks_for(static_cast<int64_t>(n)), kThreads, 0, s>>>(
         temp_off.get(), C.row_ptr.get(), A.nrows, tcol.get(), tval.get(), C.col.get(), C.val.get());
      AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm compact_rows");
      synchronize(s); // before the temporaries are released
   }
   else
   {
      plan.short_rows = d == CsrSpgemmDesign::short_rows;
      run_rows<Phase::count>(plan, args, s, alloc);
      C.nnz = counts_to_row_ptr(counts, n, C.row_ptr.get(), s, alloc, scan_keep);
      C.col = Buffer<int32_t>(static_cast<size_t>(C.nnz), alloc);
      C.val = Buffer<double>(static_cast<size_t>(C.nnz), alloc);
      args.row_ptr = C.row_ptr.get();
      args.out_col = C.col.get();
      args.out_val = C.val.get();
      Plan            tight;
      Buffer<int32_t> tight_cursor, tight_listed;
      if (d == CsrSpgemmDesign::two_pass_tight)
      {
         // the rows again, binned by their exact counts (counts_to_row_ptr has synchronised:
         // `bin` and `meta` are free to be written again)
         fill_bytes(meta.get(), 0, meta.size() * sizeof(unsigned long long), s);
         bin_by_count<<<blocks_for(static_cast<int64_t>(n)), kThreads, 0, s>>>(counts.get(), A.nrows, st.shared_bins,
                                                                               bin.get(), meta.get());
         AMGT_DEVICE_CHECK_LAUNCH("csr_spgemm bin_by_count");
         AMGT_DEVICE_CHECK(device::memcpy_async(h_meta, meta.get(), sizeof(h_meta), device::Copy::to_host, s));
         synchronize(s);
         tight.shared_bins = st.shared_bins;
         tight.hist.assign(cs::kBins, 0);
         for (int b = 0; b < cs::kBins; ++b) tight.hist[b] = st.tight_bin_rows[b] = static_cast<int64_t>(h_meta[b]);
         tight.offsets = cs::bin_offsets(tight.hist);
         list_and_batch(tight, bin.get(), A.nrows, counts.get(), B.ncols, tight_cursor, tight_listed, s, alloc);
         st.tight_global_batches = static_cast<int64_t>(tight.batches.size());
      }
      run_rows<Phase::to_final>(d == CsrSpgemmDesign::two_pass_tight ? tight : plan, args, s, alloc);
      synchronize(s);
   }
   if (stats) *stats = st;
   return C;
}

} // namespace amgt::device
