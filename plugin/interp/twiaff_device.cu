// Extended+i interpolation's weights of the F-F block on the GPU (interp/twiaff_device.h).
//
// hypre's kernel gives a row a warp and walks its entries one after another: for each, the
// warp scans row j for the entry (j, i) and lane 0 does the arithmetic, so a row of 20 entries
// costs 20 dependent rounds of loads and shuffles (0.04-0.07 of the bytes' roofline, SM-issue
// bound: bench/RESULTS.md, "Setup: hypre's own kernels"). Here a group of G lanes takes a row,
// G entries at a time, a lane an entry: their searches of rows j (short rows, cached) and their
// quotients run in parallel; the sum theta_i is then formed in hypre's order, every lane of the
// group adding the G entries' terms in turn (shuffled), so each lane holds the same theta and
// scales its entries.
//
// With a lane per entry the kernel is bound by the SM, by the lanes' searches (Nsight Compute,
// laplace7: 0.18 of the roofline, SM 61% busy, DRAM 11%): every lane reads row j's columns from
// its own cache lines, so each load of one column a lane costs the L1 one request a lane. The
// 32-bit columns (the diagonal block's always, ext's with a 32-bit BigInt) are therefore read
// four at a time: an entry and a pair up to the first 16-byte boundary, int4 loads from there,
// a pair and an entry at the end, every load within the chunk searched and aligned to its
// width; a chunk of n >= 4 columns costs n / 4 + 1.25 loads (the mean over the four alignments
// of its start) where it cost n: 4 -> 2.25, 26 -> 7.75. The compares keep hypre's rule
// unchanged (within a chunk in storage order, the last match kept; the chunks in turn from the
// row's start until one holds a match). The 64-bit ext columns (multi-rank runs only) keep the
// scalar search. Everything the kernel only reads (row pointers, columns, diag_old -- a copy of
// the values, never diag_a: setup_kernels.h --, rsFC, ext's arrays, rsW) goes through the
// read-only path (__ldg).
//
// Where the mean row holds at most 8 entries (laplace7's A_FF, about 6) a thread takes a row
// instead (twiaff_thread_kernel below): the group's shuffles and set-up a row, and its lanes
// past a short row's end, were most of what the group kernel issued.
//
// The terms are shuffled as two doubles, theta <- fma(a, b, theta) for each: (vji, a_ij) as
// hypre's fma, (old value or 0, 1) for hypre's theta + old (fma(x, 1, theta) rounds x + theta
// once, which is that sum), and (-0, 1) for the diagonal entry, which hypre does not add
// (theta + -0 is theta for every theta, signed zeros included): four shuffles and one fma a
// term, where a kind and two branches cost a fifth shuffle and two compares.
//
// What bounds the group kernel now is the L1's requests for the searches (laplace27's finest
// level: L1/TEX 79% of its peak, issue slots 48%). Sharing a row j's scan among the group's
// lanes or a pair of them cuts those requests, but every lane then issues every shared search:
// issue-bound and 1.5-2.1x slower. Bisection of sorted rows, a lane's entries batched, loads a
// turn ahead and one search for each transposed pair were no faster either (bench/RESULTS.md,
// "Setup: hypre's own kernels", records 2026-11-30 to 2026-11-30d).
#include "interp/twiaff_device.h"

#include "common/error.h"
#include "device/launch.h"
#include "device/warp.cuh"

#include <cstdint>
#include <type_traits>

namespace amgt::device {
namespace {

// hypre's warp (HYPRE_WARP_SIZE): the chunk of its search
constexpr int kHypreWarp = kWavefrontSize;

// The last q in [b, e) with jj[q] == t, -1 without, 32-bit columns: an entry up to an 8-byte
// boundary, a pair up to a 16-byte one, int4 loads from there, then a pair and an entry; each
// load is aligned to its width and lies within [b, e), and within each the compares run in
// storage order, so the last match is kept as a scan one by one keeps it.
__device__ __forceinline__ int32_t last_match(const int32_t* jj, int32_t b, int32_t e, int32_t t)
{
   int32_t q = b, match = -1;
   if ((reinterpret_cast<uintptr_t>(jj + q) & 4) != 0 && q < e)
   {
      if (__ldg(jj + q) == t) match = q;
      ++q;
   }
   // q is 8-byte aligned here unless [b, e) is done
   if ((reinterpret_cast<uintptr_t>(jj + q) & 8) != 0 && e - q >= 2)
   {
      const int2 v = __ldg(reinterpret_cast<const int2*>(jj + q));
      if (v.x == t) match = q;
      if (v.y == t) match = q + 1;
      q += 2;
   }
   // q is 16-byte aligned here unless fewer than 2 entries are left
   for (; e - q >= 4; q += 4)
   {
      const int4 v = __ldg(reinterpret_cast<const int4*>(jj + q));
      if (v.x == t) match = q;
      if (v.y == t) match = q + 1;
      if (v.z == t) match = q + 2;
      if (v.w == t) match = q + 3;
   }
   if (e - q >= 2)
   {
      const int2 v = __ldg(reinterpret_cast<const int2*>(jj + q));
      if (v.x == t) match = q;
      if (v.y == t) match = q + 1;
      q += 2;
   }
   if (q < e && __ldg(jj + q) == t) match = q;
   return match;
}

// The same, 64-bit columns (ext's with a 64-bit BigInt): one by one.
__device__ __forceinline__ int32_t last_match(const int64_t* jj, int32_t b, int32_t e, int64_t t)
{
   int32_t match = -1;
   for (int32_t q = b; q < e; ++q)
   {
      if (__ldg(jj + q) == t) match = q;
   }
   return match;
}

// hypre's search (twiaff.h): the last match within the first chunk of kHypreWarp entries of
// row j that holds one (the chunks from the row's start); -1 without
template <class J, class T>
__device__ __forceinline__ int32_t find_in_row(const int32_t* ip, const J* jj, int32_t j, T target)
{
   static_assert(std::is_same_v<J, int32_t> || std::is_same_v<J, int64_t>, "32- or 64-bit columns");
   static_assert(std::is_integral_v<T> && sizeof(T) <= sizeof(int64_t), "an integer target");
   if constexpr (sizeof(T) > sizeof(J))
   {
      // a 32-bit column equals no target outside its range (hypre compares the values)
      if (target < INT32_MIN || target > INT32_MAX) return -1;
   }
   const J       t  = static_cast<J>(target);
   const int32_t kb = __ldg(ip + j), ke = __ldg(ip + j + 1);
   for (int32_t c = kb; c < ke; c += kHypreWarp)
   {
      const int32_t q = last_match(jj, c, ke - c > kHypreWarp ? c + kHypreWarp : ke, t);
      if (q >= 0) return q;
   }
   return -1;
}

// One entry (i, j)'s term of theta_i, added as theta <- fma(a, b, theta) in entry order by
// add_terms; the default is the diagonal entry's (and that of a lane past the row's end, which
// add_terms never reads): theta + -0 == theta, signed zeros included
struct Term
{
   double a = -0.0, b = 1.0;
};

// One entry (i, j) of either block (twiaff.cpp's weigh, split in two): its weight into w, and
// its term; on_zero is what hypre adds when rsj == 0 (the old value, or zero in the
// off-diagonal block), as fma(on_zero, 1, theta) == theta + on_zero
__device__ __forceinline__ Term weigh(double old, double vji, double rsj, double on_zero, double& w)
{
   if (rsj != 0.0)
   {
      w = old / rsj;
      return {vji, w};
   }
   w = 0.0;
   return {on_zero, 1.0};
}

// The group's entries [base, base + G) of one block in turn (the first n), each adding
// fma(a, b, theta).
template <int G>
__device__ __forceinline__ double add_terms(double theta, const Term& t, int n, LaneMask group)
{
   for (int s = 0; s < n; ++s) theta = fma(shfl(t.a, s, G, group), shfl(t.b, s, G, group), theta);
   return theta;
}

// A row's entries in the two blocks, [db, de) and [ob, oe): empty without a row (active false)
// and, for the off-diagonal block, without its entries.
struct RowRange
{
   int32_t db, de, ob, oe;
};

__device__ __forceinline__ RowRange row_range(const TwiaffRows& m, const bool active, const int32_t row)
{
   const int32_t db = active ? __ldg(m.diag_i + row) : 0, de = active ? __ldg(m.diag_i + row + 1) : 0;
   const bool    offd = active && m.offd_nnz > 0;
   const int32_t ob = offd ? __ldg(m.offd_i + row) : 0, oe = offd ? __ldg(m.offd_i + row + 1) : 0;
   return {db, de, ob, oe};
}

// Entry k = (row, j) of the diagonal block, j != row: its weight into w, and its term.
__device__ __forceinline__ Term diag_term(const TwiaffRows& m, const int32_t row, const int32_t j, const int32_t k,
                                          double& w)
{
   const int32_t q   = find_in_row(m.diag_i, m.diag_j, j, row);
   const double  vji = q >= 0 ? __ldg(m.diag_old + q) : 0.0;
   const double  old = __ldg(m.diag_old + k);
   return weigh(old, vji, __ldg(m.rsFC + j) + vji, old, w);
}

// Entry k of the off-diagonal block: its weight into w, and its term (rsj == 0: hypre adds back
// the entry it has just set to zero).
template <class BigJ>
__device__ __forceinline__ Term offd_term(const TwiaffRows& m, const BigJ* ext_j, const int32_t row, const int32_t k,
                                          double& w)
{
   const int32_t j   = __ldg(m.offd_j + k);
   const int32_t q   = find_in_row(m.ext_i, ext_j, j, m.first_index + row);
   const double  vji = q >= 0 ? __ldg(m.ext_a + q) : 0.0;
   return weigh(m.offd_a[k], vji, __ldg(m.rsFC_offd + j) + vji, 0.0, w);
}

// The row's scale from its sum theta: -1 / (theta + rsW_i), -1 where that is 0.
__device__ __forceinline__ double row_scale(const TwiaffRows& m, const int32_t row, double theta)
{
   theta = theta + __ldg(m.rsW + row);
   return theta != 0.0 ? -1.0 / theta : -1.0;
}

// One row by a group of G lanes (`lane` of `group`), G entries at a time; a group without a row
// (active false) takes part in nothing (empty ranges), so that no shuffle of a group waits for
// lanes that left.
template <int G, class BigJ>
__device__ __forceinline__ void twiaff_row(const TwiaffRows& m, const bool active, const int32_t row,
                                           const int lane, const LaneMask group)
{
   const BigJ*    ext_j = static_cast<const BigJ*>(m.ext_j); // hypre's BigInt
   const RowRange rr    = row_range(m, active, row);
   const int32_t  db = rr.db, de = rr.de, ob = rr.ob, oe = rr.oe;
   double         theta = 0.0;
   for (int32_t base = db; base < de; base += G)
   {
      const int32_t k = base + lane;
      Term          term;
      if (k < de)
      {
         const int32_t j = __ldg(m.diag_j + k);
         double        w = 1.0; // the diagonal entry (i, i)
         if (j != row) term = diag_term(m, row, j, k, w);
         m.diag_a[k] = w;
      }
      theta = add_terms<G>(theta, term, de - base < G ? de - base : G, group);
   }
   for (int32_t base = ob; base < oe; base += G)
   {
      const int32_t k = base + lane;
      Term          term;
      if (k < oe)
      {
         double w;
         term        = offd_term(m, ext_j, row, k, w);
         m.offd_a[k] = w;
      }
      theta = add_terms<G>(theta, term, oe - base < G ? oe - base : G, group);
   }
   if (!active) return; // after the group's last shuffle
   theta = row_scale(m, row, theta);
   for (int32_t k = db + lane; k < de; k += G) m.diag_a[k] *= theta;
   for (int32_t k = ob + lane; k < oe; k += G) m.offd_a[k] *= theta;
}

template <int G, class BigJ>
__global__ void __launch_bounds__(kThreads) twiaff_kernel(TwiaffRows m)
{
   const int64_t r      = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / G;
   const bool    active = r < m.nrows;
   twiaff_row<G, BigJ>(m, active, active ? static_cast<int32_t>(r) : 0,
                       static_cast<int>(threadIdx.x & (G - 1)), group_lanes<G>());
}

// A thread a row, for blocks whose mean row holds at most kThreadMean entries: the thread walks
// its row's entries in storage order, each search of row j and each term in turn, theta as
// hypre's one lane sums it (the diagonal entry's term, -0, changes no theta, so it is not added),
// then scales the row. A group of G lanes a row issued its shuffles (four a term and lane) and
// its set-up for every row, and a lane per entry left a group's lanes past its row idle. Rows
// of more than kThreadRowLen entries in either block are taken by the warp one after another as
// the group kernel does with G = 32, so that no thread walks a long row alone.
constexpr int kThreadMean   = 8;
constexpr int kThreadRowLen = 32;
// longer mean rows: a group's lanes take this many of a mean row's entries each (twiaff below)
constexpr int kEntriesPerLane = 8;

template <class BigJ>
__global__ void __launch_bounds__(kThreads) twiaff_thread_kernel(TwiaffRows m)
{
   const BigJ* ext_j = static_cast<const BigJ*>(m.ext_j);
   // a thread past the last row still meets the warp's rounds
   const auto [lane, active, row] = thread_row(m.nrows);
   const RowRange rr              = row_range(m, active, row);
   const int32_t  db = rr.db, de = rr.de, ob = rr.ob, oe = rr.oe;
   const bool     mine = active && de - db <= kThreadRowLen && oe - ob <= kThreadRowLen;
   if (mine)
   {
      double theta = 0.0;
      for (int32_t k = db; k < de; ++k)
      {
         const int32_t j = __ldg(m.diag_j + k);
         double        w = 1.0; // the diagonal entry (i, i)
         if (j != row)
         {
            const Term term = diag_term(m, row, j, k, w);
            theta           = fma(term.a, term.b, theta);
         }
         m.diag_a[k] = w;
      }
      for (int32_t k = ob; k < oe; ++k)
      {
         double     w;
         const Term term = offd_term(m, ext_j, row, k, w);
         theta           = fma(term.a, term.b, theta);
         m.offd_a[k]     = w;
      }
      theta = row_scale(m, row, theta);
      for (int32_t k = db; k < de; ++k) m.diag_a[k] *= theta;
      for (int32_t k = ob; k < oe; ++k) m.offd_a[k] *= theta;
   }
   for (LaneMask pending = ballot(active && !mine); pending != 0; pending &= pending - 1)
   {
      const int src = __ffs(pending) - 1;
      twiaff_row<kWarpSize, BigJ>(m, true, shfl(row, src), lane, kAllLanes);
   }
}

template <class BigJ>
void launch(const TwiaffRows& m, int32_t lanes, Stream s)
{
   if (lanes == 1)
   {
      twiaff_thread_kernel<BigJ><<<blocks_for(m.nrows), kThreads, 0, s>>>(m);
      AMGT_DEVICE_CHECK_LAUNCH("twiaff_thread_kernel");
      return;
   }
   with_lanes<4>(lanes, [&](auto g) {
      constexpr int G = decltype(g)::value;
      twiaff_kernel<G, BigJ><<<blocks_for(static_cast<int64_t>(m.nrows) * G), kThreads, 0, s>>>(m);
   });
   AMGT_DEVICE_CHECK_LAUNCH("twiaff_kernel");
}

} // namespace

int twiaff_search_chunk() { return kHypreWarp; }

void twiaff(const TwiaffRows& m, Stream s)
{
   check_twiaff_rows(m, kHypreWarp);
   if (m.nrows == 0) return;
   // A_FF keeps a row's F-neighbours: about 6 of a 7-point row (a thread a row), up to 26 of a
   // 27-point one. Longer mean rows take the narrowest group of 4 to 32 lanes whose lanes take
   // at most kEntriesPerLane of a mean row's entries each: a group's shuffles (a term's two in
   // every lane) are issued once for all its lanes, and the rows a warp holds at once, whose rows
   // j its searches read, stay few enough for the L1 (a thread a row on laplace27 moved 6.5x
   // the DRAM bytes of 32 lanes a row). Measured with 2, 4 and 8 entries a lane: 8 took the
   // least time over laplace7's and laplace27's setups (bench/RESULTS.md, record 2026-11-29k).
   const int64_t mean  = mean_row(static_cast<int64_t>(m.diag_nnz) + m.offd_nnz, m.nrows);
   int32_t       lanes = 1;
   if (mean > kThreadMean)
   {
      lanes = 4;
      while (lanes < 32 && lanes * kEntriesPerLane < mean) lanes *= 2;
   }
   if (m.ext_j_64) launch<int64_t>(m, lanes, s);
   else launch<int32_t>(m, lanes, s);
}

} // namespace amgt::device
