#include "resetup/galerkin_device.h"

#include "common/error.h"
#include "device/launch.h"
#include "device/prim.cuh"
#include "device/warp.cuh"
#include "resetup/galerkin.h"
#include "spgemm/csr_spgemm_device.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace amgt::device {
namespace {

constexpr int kWarpsPerBlock = kThreads / 32;

// *out = max(*out, v over the warp's lanes): one atomicMax a warp (every lane calls it).
__device__ __forceinline__ void warp_max_into(int v, int* out)
{
   const int m = reduce_max(v);
   if ((threadIdx.x & 31) == 0) { atomicMax(out, m); }
}

// The lanes of a row in the group kernels: G lanes a row (a power of two, 4-32), 32 / G rows a
// warp. A group leaves together when its row is past the last, and every shuffle and warp
// barrier names only the group's lanes (their loops' trip counts are the group's own).
template <int G>
struct RowGroup
{
   int      w;     // the warp within the block
   int      lane;  // within the group
   int      group; // within the warp
   LaneMask mask;
   int64_t  row;

   __device__ RowGroup()
      : w(static_cast<int>(threadIdx.x) / 32), lane(static_cast<int>(threadIdx.x) & (G - 1)),
        group((static_cast<int>(threadIdx.x) & 31) / G),
        mask(G == 32 ? kAllLanes : (((1u << G) - 1u) << (((static_cast<int>(threadIdx.x) & 31) / G) * G))),
        row((blockIdx.x * static_cast<int64_t>(kWarpsPerBlock) + static_cast<int>(threadIdx.x) / 32) * (32 / G) +
            (static_cast<int>(threadIdx.x) & 31) / G)
   {
   }
   // v summed over the group's lanes up to this one
   __device__ int32_t inclusive_scan(int32_t v) const
   {
      for (int o = 1; o < G; o <<= 1)
      {
         const int32_t u = shfl_up(v, o, G, mask);
         if (lane >= o) { v += u; }
      }
      return v;
   }
   // The lane whose entry owns term t of a chunk dealt out one a lane (incl: the inclusive scan of
   // the lanes' term counts): the number of lanes with incl <= t, by a binary search of shuffles.
   __device__ int owner(int32_t t, int32_t incl) const
   {
      int o = 0;
      for (int step = G / 2; step >= 1; step >>= 1)
      {
         const int32_t v = shfl(incl, o + step - 1, G, mask);
         if (v <= t) { o += step; }
      }
      return o;
   }
};

// The entry kx of X a lane takes in a chunk of its row (which ends at xe) and the row of B it
// reaches: its value (1 without values), that row's start and length; zeros past the row's end.
struct XEntry
{
   double  x      = 0.0;
   int32_t bstart = 0;
   int32_t blen   = 0;
};
__device__ __forceinline__ XEntry x_entry(int32_t kx, int32_t xe, const int32_t* x_col, const double* x_val,
                                          const int32_t* b_ptr)
{
   XEntry e;
   if (kx < xe)
   {
      const int32_t k = x_col[kx];
      e.x             = x_val ? x_val[kx] : 1.0;
      e.bstart        = b_ptr[k];
      e.blen          = b_ptr[k + 1] - e.bstart;
   }
   return e;
}

// X's row for the pulls kernels: its values and the starts of the B rows its entries reach, staged
// in the group's shared memory where the row has at most cap entries (read from global memory
// otherwise). Built by the whole group (a warp barrier of its lanes).
struct StagedRow
{
   int32_t        xb;
   bool           staged;
   const int32_t* x_col;
   const double*  x_val;
   const int32_t* b_ptr;
   const double*  xv;
   const int32_t* xs;

   template <int G>
   __device__ StagedRow(const RowGroup<G>& g, const int32_t* x_ptr, const int32_t* col, const double* val,
                        const int32_t* bp, double* xv_shared, int32_t* xs_shared, int32_t cap)
      : xb(x_ptr[g.row]), staged(x_ptr[g.row + 1] - x_ptr[g.row] <= cap), x_col(col), x_val(val), b_ptr(bp),
        xv(xv_shared), xs(xs_shared)
   {
      if (staged)
      {
         for (int32_t j = g.lane; j < x_ptr[g.row + 1] - xb; j += G)
         {
            xv_shared[j] = val ? val[xb + j] : 1.0;
            xs_shared[j] = bp[col[xb + j]];
         }
         sync_warp(g.mask);
      }
   }
   // entry j of the row (its offset): its value and the start of its row of B
   __device__ double  x(int32_t j) const { return staged ? xv[j] : (x_val ? x_val[xb + j] : 1.0); }
   __device__ int32_t b_start(int32_t j) const { return staged ? xs[j] : b_ptr[x_col[xb + j]]; }
};

__global__ void __launch_bounds__(kThreads)
   fingerprint_kernel(const int32_t* __restrict__ row_ptr, const int32_t* __restrict__ col, int64_t nrows,
                      int64_t nnz, unsigned long long* __restrict__ out)
{
   uint64_t      h      = 0;
   const int64_t items  = nrows + 1 + nnz;
   const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
   for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < items; t += stride)
   {
      if (t < nnz) { h += resetup::fingerprint_term(static_cast<uint64_t>(t), static_cast<uint32_t>(col[t])); }
      else
      {
         const int64_t k = t - nnz;
         h += resetup::fingerprint_term(static_cast<uint64_t>(nnz) + 1 + static_cast<uint64_t>(k),
                                        static_cast<uint32_t>(row_ptr[k]));
      }
   }
   for (int o = 16; o > 0; o >>= 1) { h += shfl_xor(h, o); }
   if ((threadIdx.x & 31) == 0 && h != 0) { atomicAdd(out, static_cast<unsigned long long>(h)); }
}

// Each entry's rank among its row's columns (warp per row): sorted_col[b + rank] = col[e],
// pos[b + rank] = e. A repeated column sets *flag.
__global__ void __launch_bounds__(kThreads)
   rank_rows_kernel(const int32_t* __restrict__ row_ptr, const int32_t* __restrict__ col, int32_t nrows,
                    int32_t* __restrict__ sorted_col, int32_t* __restrict__ pos, int32_t* __restrict__ flag)
{
   const int64_t row  = blockIdx.x * static_cast<int64_t>(kWarpsPerBlock) + threadIdx.x / 32;
   const int     lane = static_cast<int>(threadIdx.x) & 31;
   if (row >= nrows) { return; }
   const int32_t b = row_ptr[row], e = row_ptr[row + 1];
   for (int32_t k = b + lane; k < e; k += 32)
   {
      const int32_t c    = col[k];
      int32_t       rank = 0;
      for (int32_t f = b; f < e; ++f)
      {
         const int32_t g = col[f];
         rank += (g < c) ? 1 : 0;
         if (g == c && f != k) { *flag = 1; }
      }
      sorted_col[b + rank] = c;
      if (pos) { pos[b + rank] = k; }
   }
}

// The numeric-only product (galerkin_device.h), G lanes per output row (G = 4..32, a power of
// two: rows_per_group below), 32 / G rows a warp. Shared memory per warp is split among its
// groups: a row of up to kFixedRowCap * G / 32 entries keeps its sorted columns and accumulator
// there, a longer one adds into the output with global atomics. Every shuffle and warp barrier
// names only the group's lanes (their loops' trip counts are the group's own).
template <int G>
__global__ void __launch_bounds__(kThreads)
   numeric_kernel(const int32_t* __restrict__ a_ptr, const int32_t* __restrict__ a_col,
                  const double* __restrict__ a_val, const int32_t* __restrict__ b_ptr,
                  const int32_t* __restrict__ b_col, const double* __restrict__ b_val,
                  const int32_t* __restrict__ c_ptr, const int32_t* __restrict__ c_sorted,
                  const int32_t* __restrict__ c_pos, int32_t nrows, double* __restrict__ out,
                  int32_t* __restrict__ flag)
{
   constexpr int     kGroups = 32 / G;
   constexpr int32_t kCap    = kFixedRowCap / kGroups;
   __shared__ double  acc_s[kWarpsPerBlock][kFixedRowCap];
   __shared__ int32_t col_s[kWarpsPerBlock][kFixedRowCap];
   const RowGroup<G> g;
   const int         w = g.w, lane = g.lane, group = g.group;
   const LaneMask    mask = g.mask;
   const int64_t     row  = g.row;
   if (row >= nrows) { return; } // a whole group leaves together: its shuffles name only it
   double*        acc_g = acc_s[w] + group * kCap;
   int32_t*       col_g = col_s[w] + group * kCap;
   const int32_t  cb = c_ptr[row], ce = c_ptr[row + 1], len = ce - cb;
   const bool     in_shared = len <= kCap;
   const int32_t* cols      = in_shared ? col_g : c_sorted + cb;
   for (int32_t p = lane; p < len; p += G)
   {
      if (in_shared)
      {
         acc_g[p] = 0.0;
         col_g[p] = c_sorted[cb + p];
      }
      else { out[c_pos ? c_pos[cb + p] : cb + p] = 0.0; }
   }
   sync_warp(mask);

   const int32_t ab = a_ptr[row], ae = a_ptr[row + 1];
   for (int32_t chunk = ab; chunk < ae; chunk += G)
   {
      const XEntry  e      = x_entry(chunk + lane, ae, a_col, a_val, b_ptr);
      const double  a      = e.x;
      const int32_t bstart = e.bstart, blen = e.blen;
      const int32_t incl   = g.inclusive_scan(blen); // the B rows' lengths across the group
      const int32_t total  = shfl(incl, G - 1, G, mask);
      for (int32_t base = 0; base < total; base += G)
      {
         const int32_t t       = base + lane;
         const int     o       = g.owner(t, incl);
         const int32_t o_incl  = shfl(incl, o, G, mask);
         const int32_t o_len   = shfl(blen, o, G, mask);
         const int32_t o_start = shfl(bstart, o, G, mask);
         const double  o_a     = shfl(a, o, G, mask);
         if (t < total)
         {
            const int32_t kb = o_start + (t - (o_incl - o_len));
            const int32_t j  = b_col[kb];
            const double  v  = o_a * (b_val ? b_val[kb] : 1.0);
            int32_t       lo = 0, hi = len; // first place with cols[place] >= j
            while (lo < hi)
            {
               const int32_t mid = (lo + hi) >> 1;
               if (cols[mid] < j) { lo = mid + 1; }
               else { hi = mid; }
            }
            if (lo == len || cols[lo] != j) { *flag = 1; }
            else if (in_shared) { atomicAdd(&acc_g[lo], v); }
            else { atomicAdd(&out[c_pos ? c_pos[cb + lo] : cb + lo], v); }
         }
      }
   }
   if (in_shared)
   {
      sync_warp(mask);
      for (int32_t p = lane; p < len; p += G) { out[c_pos ? c_pos[cb + p] : cb + p] = acc_g[p]; }
   }
}

// Row i's number of terms of X*B (counts[i], int64) and the longest row of C (*longest).
__global__ void __launch_bounds__(kThreads)
   places_count_kernel(const int32_t* __restrict__ x_ptr, const int32_t* __restrict__ x_col,
                       const int32_t* __restrict__ b_ptr, const int32_t* __restrict__ c_ptr, int32_t nrows,
                       int64_t* __restrict__ counts, int* __restrict__ longest)
{
   const int64_t i   = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   int           len = 0;
   if (i < nrows)
   {
      int64_t n = 0;
      for (int32_t k = x_ptr[i]; k < x_ptr[i + 1]; ++k) { n += b_ptr[x_col[k] + 1] - b_ptr[x_col[k]]; }
      counts[i] = n;
      len       = c_ptr[i + 1] - c_ptr[i];
   }
   warp_max_into(len, longest);
}

// The places (resetup::term_places): G lanes a row, a lane an entry of X; each term's column
// found by binary search in the row's sorted columns, its place the entry's index in the
// output's own order. A term outside the pattern sets *flag.
template <int G>
__global__ void __launch_bounds__(kThreads)
   places_fill_kernel(const int32_t* __restrict__ x_ptr, const int32_t* __restrict__ x_col,
                      const int32_t* __restrict__ b_ptr, const int32_t* __restrict__ b_col,
                      const int32_t* __restrict__ c_ptr, const int32_t* __restrict__ c_sorted,
                      const int32_t* __restrict__ c_pos, const int64_t* __restrict__ term_ptr, int32_t nrows,
                      int32_t width, uint8_t* __restrict__ place, int32_t* __restrict__ flag)
{
   const RowGroup<G> g;
   const int         lane = g.lane;
   const LaneMask    mask = g.mask;
   const int64_t     row  = g.row;
   if (row >= nrows) { return; }
   const int32_t cb = c_ptr[row], ce = c_ptr[row + 1];
   const int32_t xb = x_ptr[row], xe = x_ptr[row + 1];
   int64_t       t0 = term_ptr[row];
   for (int32_t chunk = xb; chunk < xe; chunk += G)
   {
      const XEntry  e      = x_entry(chunk + lane, xe, x_col, nullptr, b_ptr);
      const int32_t bstart = e.bstart, blen = e.blen;
      const int32_t incl   = g.inclusive_scan(blen); // the B rows' lengths across the group
      const int64_t first = t0 + (incl - blen);
      for (int32_t j = 0; j < blen; ++j)
      {
         const int32_t c  = b_col[bstart + j];
         int32_t       lo = cb, hi = ce;
         while (lo < hi)
         {
            const int32_t mid = (lo + hi) >> 1;
            if (c_sorted[mid] < c) { lo = mid + 1; }
            else { hi = mid; }
         }
         uint32_t p = 0;
         if (lo == ce || c_sorted[lo] != c) { *flag = 1; }
         else { p = static_cast<uint32_t>((c_pos ? c_pos[lo] : lo) - cb); }
         if (width == 1) { place[first + j] = static_cast<uint8_t>(p); }
         else
         {
            place[2 * (first + j)]     = static_cast<uint8_t>(p & 0xffu);
            place[2 * (first + j) + 1] = static_cast<uint8_t>(p >> 8);
         }
      }
      t0 += shfl(incl, G - 1, G, mask);
   }
}

// The numeric product by places (numeric_by_places in galerkin_device.h). PlaceT: uint8_t or
// uint16_t (width 1 or 2; the places are little-endian bytes, as the device reads them). Dealt
// false (PlacesWalk::lanes): a lane takes an entry of a chunk of G of X's row and walks its row
// of B. Dealt true (PlacesWalk::dealt): the chunk's terms go out one a lane, term t to lane t mod
// G, which finds its entry by the group's scan (RowGroup::owner) and reads its place and B's
// value (consecutive lanes, consecutive bytes and values).
template <int G, typename PlaceT, bool Dealt>
__global__ void __launch_bounds__(kThreads)
   places_numeric_kernel(const int32_t* __restrict__ x_ptr, const int32_t* __restrict__ x_col,
                         const double* __restrict__ x_val, const int32_t* __restrict__ b_ptr,
                         const double* __restrict__ b_val, const int32_t* __restrict__ c_ptr,
                         const int64_t* __restrict__ term_ptr, const PlaceT* __restrict__ place, int32_t nrows,
                         double* __restrict__ out)
{
   constexpr int     kGroups = 32 / G;
   constexpr int32_t kCap    = kFixedRowCap / kGroups;
   __shared__ double acc_s[kWarpsPerBlock][kFixedRowCap];
   const RowGroup<G> g;
   const int         w = g.w, lane = g.lane, group = g.group;
   const LaneMask    mask = g.mask;
   const int64_t     row  = g.row;
   if (row >= nrows) { return; }
   const int32_t cb = c_ptr[row], len = c_ptr[row + 1] - cb;
   const bool    in_shared = len <= kCap;
   double*       acc       = in_shared ? acc_s[w] + group * kCap : out + cb;
   for (int32_t p = lane; p < len; p += G) { acc[p] = 0.0; }
   sync_warp(mask);
   const int32_t xb = x_ptr[row], xe = x_ptr[row + 1];
   const PlaceT* pl = place + term_ptr[row]; // the chunk's first term
   for (int32_t chunk = xb; chunk < xe; chunk += G)
   {
      const XEntry  e     = x_entry(chunk + lane, xe, x_col, x_val, b_ptr);
      const int32_t incl  = g.inclusive_scan(e.blen); // the B rows' lengths across the group
      const int32_t total = shfl(incl, G - 1, G, mask);
      const int32_t first = incl - e.blen; // the lane's first term in the chunk
      if constexpr (Dealt)
      {
         for (int32_t base = 0; base < total; base += G)
         {
            const int32_t t       = base + lane;
            const int     o       = g.owner(t, incl);
            const int32_t o_first = shfl(first, o, G, mask);
            const int32_t o_start = shfl(e.bstart, o, G, mask);
            const double  o_x     = shfl(e.x, o, G, mask);
            if (t < total) { atomicAdd(&acc[pl[t]], o_x * (b_val ? b_val[o_start + (t - o_first)] : 1.0)); }
         }
      }
      else
      {
         const double* bv = b_val ? b_val + e.bstart : nullptr;
#pragma unroll 4
         for (int32_t j = 0; j < e.blen; ++j) { atomicAdd(&acc[pl[first + j]], e.x * (bv ? bv[j] : 1.0)); }
      }
      pl += total;
   }
   if (in_shared)
   {
      sync_warp(mask);
      for (int32_t p = lane; p < len; p += G) { out[cb + p] = acc[p]; }
   }
}

// The longest row of a CSR (*longest, an atomicMax a warp).
__global__ void __launch_bounds__(kThreads)
   longest_row_kernel(const int32_t* __restrict__ row_ptr, int32_t nrows, int* __restrict__ longest)
{
   const int64_t i   = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   int           len = i < nrows ? row_ptr[i + 1] - row_ptr[i] : 0;
   warp_max_into(len, longest);
}

// Reads the place of a term (width 1 or 2, little-endian).
__device__ __forceinline__ int32_t place_at(const uint8_t* place, int32_t width, int64_t term)
{
   return width == 2 ? place[2 * term] | (static_cast<int32_t>(place[2 * term + 1]) << 8) : place[term];
}

// A thread a row of C: the terms of each of its entries (n, int32, the output's own order) and the
// largest count (*most; 256 for an entry without terms: the reference's refusals).
__global__ void __launch_bounds__(kThreads)
   pulls_count_kernel(const int32_t* __restrict__ c_ptr, const int64_t* __restrict__ term_ptr,
                      const uint8_t* __restrict__ place, int32_t width, int32_t nrows, int32_t* __restrict__ n,
                      int* __restrict__ most)
{
   const int64_t i    = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   int           high = 0;
   if (i < nrows)
   {
      const int32_t cb = c_ptr[i], ce = c_ptr[i + 1];
      for (int32_t e = cb; e < ce; ++e) { n[e] = 0; }
      for (int64_t t = term_ptr[i]; t < term_ptr[i + 1]; ++t) { ++n[cb + place_at(place, width, t)]; }
      for (int32_t e = cb; e < ce; ++e)
      {
         high = n[e] > high ? n[e] : high;
         high = n[e] == 0 ? 256 : high; // an entry without terms: no pulls, as a count past 255
      }
   }
   warp_max_into(high, most);
}

// A thread a row of C: each term's code written at its entry's next slot (start, the scanned
// counts, advanced here), the terms in CSR order: each entry's list in numeric_on_pattern's order.
__global__ void __launch_bounds__(kThreads)
   pulls_fill_kernel(const int32_t* __restrict__ x_ptr, const int32_t* __restrict__ x_col,
                     const int32_t* __restrict__ b_ptr, const int32_t* __restrict__ c_ptr,
                     const int64_t* __restrict__ term_ptr, const uint8_t* __restrict__ place, int32_t place_width,
                     int32_t nrows, int32_t bits_b, int32_t width, int64_t* __restrict__ start,
                     uint8_t* __restrict__ code)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i >= nrows) { return; }
   const int32_t cb = c_ptr[i], xb = x_ptr[i];
   int64_t       t  = term_ptr[i];
   for (int32_t kx = xb; kx < x_ptr[i + 1]; ++kx)
   {
      const int32_t k = x_col[kx];
      for (int32_t j = 0; j < b_ptr[k + 1] - b_ptr[k]; ++j, ++t)
      {
         const uint32_t c  = ((static_cast<uint32_t>(kx - xb) << bits_b) | static_cast<uint32_t>(j)) << 1;
         const int64_t  at = start[cb + place_at(place, place_width, t)]++;
         if (width == 1) { code[at] = static_cast<uint8_t>(c); }
         else
         {
            code[2 * at]     = static_cast<uint8_t>(c & 0xffu);
            code[2 * at + 1] = static_cast<uint8_t>(c >> 8);
         }
      }
   }
}

// Each entry's last term flagged (bit 0 of its code): end[e] is the entry's end after the fill.
__global__ void __launch_bounds__(kThreads)
   pulls_flag_kernel(const int64_t* __restrict__ end, int64_t nnz, int32_t width, uint8_t* __restrict__ code)
{
   const int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (e < nnz) { code[(end[e] - 1) * width] |= 1u; } // the low byte of a little-endian code
}

// The numeric product by pulls (numeric_by_pulls in galerkin_device.h), the terms shared evenly:
// G lanes a row of C, X's row staged (StagedRow) in the group's share of shared memory,
// kFixedRowCap * G / 32 entries, each lane kSegmentTerms consecutive terms of the row's list a chunk (their codes,
// then their operands, loaded before any sum: independent loads in flight). A lane sums its
// terms in order and writes the entries whose last term it holds; what an entry gathered in the
// lanes before (the open run of each lane, the flags telling where a run ends) arrives by one
// segmented scan across the group, and what is still open at a chunk's end is carried to the
// next.
constexpr int kSegmentTerms = 4;

template <int G, typename CodeT>
__global__ void __launch_bounds__(kThreads)
   segments_numeric_kernel(const int32_t* __restrict__ x_ptr, const int32_t* __restrict__ x_col,
                           const double* __restrict__ x_val, const int32_t* __restrict__ b_ptr,
                           const double* __restrict__ b_val, const int32_t* __restrict__ c_ptr,
                           const int64_t* __restrict__ term_ptr, const CodeT* __restrict__ code, int32_t bits_b,
                           int32_t nrows, double* __restrict__ out)
{
   constexpr int     kGroups = 32 / G;
   constexpr int32_t kCap    = kFixedRowCap / kGroups;
   constexpr int     K       = kSegmentTerms;
   __shared__ double  xv_s[kWarpsPerBlock][kFixedRowCap];
   __shared__ int32_t xb_s[kWarpsPerBlock][kFixedRowCap];
   const RowGroup<G> g;
   const int         w = g.w, lane = g.lane, group = g.group;
   const LaneMask    mask = g.mask;
   const int64_t     row  = g.row;
   if (row >= nrows) { return; }
   const StagedRow x_row(g, x_ptr, x_col, x_val, b_ptr, xv_s[w] + group * kCap, xb_s[w] + group * kCap, kCap);
   const uint32_t mask_b = (1u << bits_b) - 1u;
   const int32_t  cb     = c_ptr[row];
   const int64_t  t1     = term_ptr[row + 1];
   int32_t        done   = 0;   // the row's entries written in earlier chunks
   double         carry  = 0.0; // the open entry's sum from earlier chunks
   for (int64_t first = term_ptr[row]; first < t1; first += G * K)
   {
      const int64_t mine = first + static_cast<int64_t>(lane) * K;
      uint32_t      cq[K];
#pragma unroll
      for (int k = 0; k < K; ++k) { cq[k] = mine + k < t1 ? static_cast<uint32_t>(code[mine + k]) : 0u; }
      double v[K];
#pragma unroll
      for (int k = 0; k < K; ++k)
      {
         v[k] = 0.0;
         if (mine + k < t1)
         {
            const uint32_t c = cq[k] >> 1;
            const int32_t  j = static_cast<int32_t>(c >> bits_b);
            v[k] = x_row.x(j) * (b_val ? b_val[x_row.b_start(j) + static_cast<int32_t>(c & mask_b)] : 1.0);
         }
      }
      int32_t ends = 0;
      double  tail = 0.0; // the lane's open run: its terms after its last end
#pragma unroll
      for (int k = 0; k < K; ++k)
      {
         tail += v[k];
         if (cq[k] & 1u)
         {
            ++ends;
            tail = 0.0;
         }
      }
      // entries ended in earlier lanes of the chunk, and the segmented scan of the open runs:
      // run = the sum of the open runs back to the nearest lane holding an end (that lane's tail
      // included), closed = whether such a lane was met
      int32_t before = ends;
      double  run    = tail;
      int     closed = ends > 0 ? 1 : 0;
      for (int o = 1; o < G; o <<= 1)
      {
         const int32_t e  = shfl_up(before, o, G, mask);
         const double  r  = shfl_up(run, o, G, mask);
         const int     cl = shfl_up(closed, o, G, mask);
         if (lane >= o)
         {
            before += e;
            if (!closed) { run += r; }
            closed |= cl;
         }
      }
      const int32_t total   = shfl(before, G - 1, G, mask);
      const double  last    = shfl(run, G - 1, G, mask);
      const int     last_cl = shfl(closed, G - 1, G, mask);
      double        prev    = shfl_up(run, 1, G, mask);
      const int     prev_cl = shfl_up(closed, 1, G, mask);
      // what arrives at this lane's first term: the lanes before back to an end, or the carry
      double  acc   = lane == 0 ? carry : (prev_cl ? prev : prev + carry);
      int32_t entry = done + before - ends;
#pragma unroll
      for (int k = 0; k < K; ++k)
      {
         acc += v[k];
         if (cq[k] & 1u)
         {
            out[cb + entry] = acc;
            ++entry;
            acc = 0.0;
         }
      }
      carry = last_cl ? last : last + carry;
      done += total;
   }
}

// Lanes a row of a group kernel: one per item of the rows' mean (items over rows: 4-32), more
// where the mean row of what the group keeps in shared memory (kept entries over kept rows)
// would not fit a narrower group's share, kFixedRowCap * G / 32 entries, twice over.
int32_t group_lanes(int64_t items, int64_t rows, int64_t kept, int64_t kept_rows)
{
   int32_t      g    = rows > 0 && items > 0 ? lanes_per_entry(items, rows) : 4;
   const double mean = kept_rows > 0 ? static_cast<double>(kept) / kept_rows : 0.0;
   while (g < 32 && kFixedRowCap * g / 32 < 2.0 * mean) { g *= 2; }
   return g;
}

// The segmented kernel: a lane per kSegmentTerms terms, X's row staged.
int32_t segments_lanes(const CsrView& X, const DeviceFixedPattern& C, int64_t terms)
{
   return group_lanes((terms + kSegmentTerms - 1) / kSegmentTerms, C.nrows, X.nnz, X.nrows);
}

int longest_row(const int32_t* row_ptr, int32_t nrows, Stream s, const Allocator& alloc)
{
   if (nrows == 0) { return 0; }
   Buffer<int> longest(1, alloc);
   fill_bytes(longest.get(), 0, sizeof(int), s);
   longest_row_kernel<<<blocks_for(nrows), kThreads, 0, s>>>(row_ptr, nrows, longest.get());
   AMGT_DEVICE_CHECK_LAUNCH("longest_row_kernel");
   int h = 0;
   AMGT_DEVICE_CHECK(memcpy_async(&h, longest.get(), sizeof(h), Copy::to_host, s));
   synchronize(s);
   return h;
}

// The places kernels: a lane an entry of X, C's row accumulated in shared memory.
int32_t places_lanes(const CsrView& X, const DeviceFixedPattern& C)
{
   return group_lanes(X.nnz, X.nrows, C.nnz, C.nrows);
}

__global__ void __launch_bounds__(kThreads)
   abs_diagonal_kernel(const int32_t* __restrict__ row_ptr, const int32_t* __restrict__ col,
                       const double* __restrict__ val, int32_t nrows, double* __restrict__ d)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   if (i < nrows) { d[i] = resetup::abs_diagonal_at(row_ptr, col, val, static_cast<int32_t>(i)); }
}

// The largest ratio (resetup::diagonal_ratio), as the bits of a non-negative double (their
// order as unsigned integers is the doubles' order): one atomicMax a warp.
__global__ void __launch_bounds__(kThreads)
   diagonal_ratio_kernel(const int32_t* __restrict__ row_ptr, const int32_t* __restrict__ col,
                         const double* __restrict__ val, int32_t nrows, const double* __restrict__ old,
                         unsigned long long* __restrict__ worst)
{
   const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const double  r = i < nrows ? resetup::diagonal_ratio(resetup::abs_diagonal_at(row_ptr, col, val,
                                                                                  static_cast<int32_t>(i)),
                                                        old[i])
                               : 1.0;
   unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(r));
   for (int o = 16; o > 0; o >>= 1)
   {
      const unsigned long long other = shfl_xor(bits, o);
      bits                           = other > bits ? other : bits;
   }
   if ((threadIdx.x & 31) == 0) { atomicMax(worst, bits); }
}

Buffer<int32_t> copy_ints(const int32_t* src, int64_t n, Stream s, const Allocator& alloc)
{
   Buffer<int32_t> b(static_cast<size_t>(n), alloc);
   if (n > 0)
   {
      AMGT_DEVICE_CHECK(memcpy_async(b.get(), src, sizeof(int32_t) * n, Copy::on_device, s));
   }
   return b;
}

int32_t read_flag(const int32_t* flag, Stream s)
{
   int32_t h = 0;
   AMGT_DEVICE_CHECK(memcpy_async(&h, flag, sizeof(h), Copy::to_host, s));
   synchronize(s);
   return h;
}

} // namespace

void abs_diagonal(const CsrView& a, double* d, Stream s)
{
   if (a.nrows == 0) { return; }
   abs_diagonal_kernel<<<blocks_for(a.nrows), kThreads, 0, s>>>(a.row_ptr, a.col, a.val, a.nrows, d);
   AMGT_DEVICE_CHECK_LAUNCH("abs_diagonal_kernel");
}

double max_diagonal_ratio(const CsrView& a, const double* old_abs_diagonal, Stream s, const Allocator& alloc)
{
   if (a.nrows == 0) { return 1.0; }
   Buffer<unsigned long long> worst(1, alloc);
   fill_bytes(worst.get(), 0, sizeof(unsigned long long), s); // the bits of 0.0: below every ratio
   diagonal_ratio_kernel<<<blocks_for(a.nrows), kThreads, 0, s>>>(a.row_ptr, a.col, a.val, a.nrows,
                                                                  old_abs_diagonal, worst.get());
   AMGT_DEVICE_CHECK_LAUNCH("diagonal_ratio_kernel");
   unsigned long long h = 0;
   AMGT_DEVICE_CHECK(memcpy_async(&h, worst.get(), sizeof(h), Copy::to_host, s));
   synchronize(s);
   double r = 0.0;
   std::memcpy(&r, &h, sizeof(r));
   return r;
}

uint64_t structure_fingerprint(const CsrView& a, Stream s, const Allocator& alloc)
{
   Buffer<unsigned long long> sum(1, alloc);
   fill_bytes(sum.get(), 0, sizeof(unsigned long long), s);
   const int64_t items  = static_cast<int64_t>(a.nrows) + 1 + a.nnz;
   const int64_t blocks = std::min<int64_t>(blocks_for(items), static_cast<int64_t>(device_limits().sms) * 8);
   fingerprint_kernel<<<static_cast<unsigned>(std::max<int64_t>(blocks, 1)), kThreads, 0, s>>>(
      a.row_ptr, a.col, a.nrows, a.nnz, sum.get());
   AMGT_DEVICE_CHECK_LAUNCH("fingerprint_kernel");
   unsigned long long h = 0;
   AMGT_DEVICE_CHECK(memcpy_async(&h, sum.get(), sizeof(h), Copy::to_host, s));
   synchronize(s);
   return resetup::fingerprint_shape(a.nrows, a.ncols, a.nnz) + static_cast<uint64_t>(h);
}

DeviceFixedPattern pattern_of(int32_t nrows, int32_t ncols, const int32_t* row_ptr, const int32_t* col,
                              Stream s, const Allocator& alloc)
{
   DeviceFixedPattern p;
   p.nrows   = nrows;
   p.ncols   = ncols;
   p.row_ptr = copy_ints(row_ptr, static_cast<int64_t>(nrows) + 1, s, alloc);
   int32_t nnz = 0;
   AMGT_DEVICE_CHECK(memcpy_async(&nnz, row_ptr + nrows, sizeof(nnz), Copy::to_host, s));
   synchronize(s);
   p.nnz        = nnz;
   p.sorted_col = Buffer<int32_t>(static_cast<size_t>(nnz), alloc);
   p.pos        = Buffer<int32_t>(static_cast<size_t>(nnz), alloc);
   Buffer<int32_t> flag(1, alloc);
   fill_bytes(flag.get(), 0, sizeof(int32_t), s);
   if (nrows > 0)
   {
      rank_rows_kernel<<<blocks_for(nrows, kWarpsPerBlock), kThreads, 0, s>>>(p.row_ptr.get(), col, nrows,
                                                                               p.sorted_col.get(), p.pos.get(),
                                                                               flag.get());
      AMGT_DEVICE_CHECK_LAUNCH("rank_rows_kernel");
   }
   AMGT_REQUIRE(read_flag(flag.get(), s) == 0, "fixed pattern: a column repeats within a row");
   return p;
}

DeviceFixedPattern product_pattern(const CsrView& A, const CsrView& B, Stream s, const Allocator& alloc)
{
   // The plugin's hash product gives the structure (its values are not kept); the rows are
   // then sorted once: the plan's intermediate is stored in ascending column order.
   DeviceCsrProduct   prod = csr_spgemm(A, B, s, alloc);
   DeviceFixedPattern p    = pattern_of(prod.nrows, prod.ncols, prod.row_ptr.get(), prod.col.get(), s, alloc);
   p.pos                   = Buffer<int32_t>();
   return p;
}

void numeric_on_pattern(const CsrView& A, const CsrView& B, const DeviceFixedPattern& C, double* out,
                        int32_t* flag, Stream s)
{
   AMGT_REQUIRE(A.nrows == C.nrows && B.ncols == C.ncols && A.ncols == B.nrows,
                "numeric product on a fixed pattern: shapes differ from the pattern's");
   if (C.nrows == 0) { return; }
   with_lanes<4>(fixed_pattern_lanes(C.nrows, C.nnz), [&](auto g) {
      constexpr int G = decltype(g)::value;
      numeric_kernel<G><<<blocks_for(C.nrows, kWarpsPerBlock * (32 / G)), kThreads, 0, s>>>(
         A.row_ptr, A.col, A.val, B.row_ptr, B.col, B.val, C.row_ptr.get(), C.sorted_col.get(),
         C.pos.size() ? C.pos.get() : nullptr, C.nrows, out, flag);
   });
   AMGT_DEVICE_CHECK_LAUNCH("numeric_kernel");
}

DeviceTermPlaces term_places(const CsrView& X, const CsrView& B, const DeviceFixedPattern& C, int32_t* flag,
                             Stream s, const Allocator& alloc)
{
   AMGT_REQUIRE(X.nrows == C.nrows && B.ncols == C.ncols && X.ncols == B.nrows,
                "term places: shapes differ from the pattern's");
   DeviceTermPlaces t;
   if (C.nrows == 0) { return t; }
   const int64_t   n = C.nrows;
   Buffer<int64_t> counts(static_cast<size_t>(n) + 1, alloc);
   Buffer<int>     longest(1, alloc);
   fill_bytes(counts.get() + n, 0, sizeof(int64_t), s);
   fill_bytes(longest.get(), 0, sizeof(int), s);
   places_count_kernel<<<blocks_for(n), kThreads, 0, s>>>(X.row_ptr, X.col, B.row_ptr, C.row_ptr.get(), C.nrows,
                                                          counts.get(), longest.get());
   AMGT_DEVICE_CHECK_LAUNCH("places_count_kernel");
   int len = 0;
   AMGT_DEVICE_CHECK(memcpy_async(&len, longest.get(), sizeof(len), Copy::to_host, s));
   Buffer<int64_t> term_ptr(static_cast<size_t>(n) + 1, alloc);
   const int64_t   terms = exclusive_sum(counts.get(), term_ptr.get(), n + 1, s, alloc); // waits: len too
   const int32_t width = resetup::place_width(len);
   if (width == 0 || terms * width > kMaxPlaceBytesPerEntry * (static_cast<int64_t>(X.nnz) + B.nnz + C.nnz))
   {
      return t;
   }
   Buffer<uint8_t> place(static_cast<size_t>(terms * width), alloc);
   Buffer<int32_t> bad(1, alloc);
   fill_bytes(bad.get(), 0, sizeof(int32_t), s);
   with_lanes<4>(places_lanes(X, C), [&](auto g) {
      constexpr int G = decltype(g)::value;
      places_fill_kernel<G><<<blocks_for(n, kWarpsPerBlock * (32 / G)), kThreads, 0, s>>>(
         X.row_ptr, X.col, B.row_ptr, B.col, C.row_ptr.get(), C.sorted_col.get(), C.pos.size() ? C.pos.get() : nullptr,
         term_ptr.get(), C.nrows, width, place.get(), bad.get());
   });
   AMGT_DEVICE_CHECK_LAUNCH("places_fill_kernel");
   if (read_flag(bad.get(), s) != 0)
   {
      AMGT_DEVICE_CHECK(memcpy_async(flag, bad.get(), sizeof(int32_t), Copy::on_device, s));
      return t;
   }
   t.width    = width;
   t.terms    = terms;
   t.term_ptr = std::move(term_ptr);
   t.place    = std::move(place);
   return t;
}

DeviceTermPulls term_pulls(const CsrView& X, const CsrView& B, const DeviceFixedPattern& C, DeviceTermPlaces& t,
                           Stream s, const Allocator& alloc)
{
   DeviceTermPulls u;
   if (t.width == 0 || C.nrows == 0) { return u; }
   const int32_t bits_b = resetup::offset_bits(longest_row(B.row_ptr, B.nrows, s, alloc));
   const int32_t bits   = resetup::offset_bits(longest_row(X.row_ptr, X.nrows, s, alloc)) + bits_b + 1;
   if (bits > 16) { return u; }
   const int32_t   width = bits <= 8 ? 1 : 2;
   const int64_t   nnz   = C.nnz;
   Buffer<int32_t> n(static_cast<size_t>(nnz) + 1, alloc);
   Buffer<int>     most(1, alloc);
   fill_bytes(n.get() + nnz, 0, sizeof(int32_t), s);
   fill_bytes(most.get(), 0, sizeof(int), s);
   pulls_count_kernel<<<blocks_for(C.nrows), kThreads, 0, s>>>(C.row_ptr.get(), t.term_ptr.get(), t.place.get(),
                                                                t.width, C.nrows, n.get(), most.get());
   AMGT_DEVICE_CHECK_LAUNCH("pulls_count_kernel");
   int high = 0;
   AMGT_DEVICE_CHECK(memcpy_async(&high, most.get(), sizeof(high), Copy::to_host, s));
   synchronize(s);
   if (high > 255) { return u; }
   Buffer<int64_t> start(static_cast<size_t>(nnz) + 1, alloc);
   (void) exclusive_sum(n.get(), start.get(), nnz + 1, s, alloc); // each entry's first term
   Buffer<uint8_t> code(static_cast<size_t>(t.terms * width), alloc);
   pulls_fill_kernel<<<blocks_for(C.nrows), kThreads, 0, s>>>(X.row_ptr, X.col, B.row_ptr, C.row_ptr.get(),
                                                               t.term_ptr.get(), t.place.get(), t.width, C.nrows,
                                                               bits_b, width, start.get(), code.get());
   AMGT_DEVICE_CHECK_LAUNCH("pulls_fill_kernel");
   if (nnz > 0)
   {
      pulls_flag_kernel<<<blocks_for(nnz), kThreads, 0, s>>>(start.get(), nnz, width, code.get());
      AMGT_DEVICE_CHECK_LAUNCH("pulls_flag_kernel");
   }
   synchronize(s); // before n and start are released
   u.width    = width;
   u.bits_b   = bits_b;
   u.terms    = t.terms;
   u.term_ptr = std::move(t.term_ptr); // the places are spent
   t          = DeviceTermPlaces();
   u.code     = std::move(code);
   return u;
}

void numeric_by_pulls(const CsrView& X, const CsrView& B, const DeviceFixedPattern& C, const DeviceTermPulls& t,
                      double* out, Stream s)
{
   AMGT_REQUIRE(X.nrows == C.nrows && B.ncols == C.ncols && X.ncols == B.nrows,
                "numeric product by pulls: shapes differ from the pattern's");
   AMGT_REQUIRE(t.width == 1 || t.width == 2, "numeric product by pulls: the plan has no pulls");
   if (C.nrows == 0) { return; }
   with_lanes<4>(segments_lanes(X, C, t.terms), [&](auto g) {
      constexpr int  G      = decltype(g)::value;
      const unsigned blocks = blocks_for(C.nrows, kWarpsPerBlock * (32 / G));
      if (t.width == 1)
      {
         segments_numeric_kernel<G, uint8_t><<<blocks, kThreads, 0, s>>>(
            X.row_ptr, X.col, X.val, B.row_ptr, B.val, C.row_ptr.get(), t.term_ptr.get(), t.code.get(), t.bits_b,
            C.nrows, out);
      }
      else
      {
         segments_numeric_kernel<G, uint16_t><<<blocks, kThreads, 0, s>>>(
            X.row_ptr, X.col, X.val, B.row_ptr, B.val, C.row_ptr.get(), t.term_ptr.get(),
            reinterpret_cast<const uint16_t*>(t.code.get()), t.bits_b, C.nrows, out);
      }
   });
   AMGT_DEVICE_CHECK_LAUNCH("segments_numeric_kernel");
}

PlacesWalk places_walk(const DeviceTermPlaces& t, int32_t nrows, PlacesWalk walk)
{
   if (walk != PlacesWalk::automatic) { return walk; }
   return nrows > 0 && static_cast<double>(t.terms) / nrows > kPlacesLanesTerms ? PlacesWalk::dealt
                                                                               : PlacesWalk::lanes;
}

void numeric_by_places(const CsrView& X, const CsrView& B, const DeviceFixedPattern& C, const DeviceTermPlaces& t,
                       double* out, Stream s, PlacesWalk walk)
{
   AMGT_REQUIRE(X.nrows == C.nrows && B.ncols == C.ncols && X.ncols == B.nrows,
                "numeric product by places: shapes differ from the pattern's");
   AMGT_REQUIRE(t.width == 1 || t.width == 2, "numeric product by places: the plan has no places");
   if (C.nrows == 0) { return; }
   const bool dealt = places_walk(t, C.nrows, walk) == PlacesWalk::dealt;
   with_lanes<4>(places_lanes(X, C), [&](auto g) {
      constexpr int G      = decltype(g)::value;
      const unsigned blocks = blocks_for(C.nrows, kWarpsPerBlock * (32 / G));
      auto launch = [&](auto dealt_tag, const auto* places) {
         using PlaceT = std::remove_cv_t<std::remove_pointer_t<decltype(places)>>;
         places_numeric_kernel<G, PlaceT, decltype(dealt_tag)::value><<<blocks, kThreads, 0, s>>>(
            X.row_ptr, X.col, X.val, B.row_ptr, B.val, C.row_ptr.get(), t.term_ptr.get(), places, C.nrows, out);
      };
      const uint16_t* wide = reinterpret_cast<const uint16_t*>(t.place.get());
      if (dealt && t.width == 1) { launch(std::true_type{}, t.place.get()); }
      else if (dealt) { launch(std::true_type{}, wide); }
      else if (t.width == 1) { launch(std::false_type{}, t.place.get()); }
      else { launch(std::false_type{}, wide); }
   });
   AMGT_DEVICE_CHECK_LAUNCH("places_numeric_kernel");
}

DeviceGalerkinPlan make_galerkin_plan(const CsrView& R, const CsrView& A, const CsrView& P,
                                      const int32_t* c_row_ptr, const int32_t* c_col, int32_t c_nrows,
                                      Stream s, const Allocator& alloc, PlanForm form)
{
   resetup::check_galerkin_shapes(R, A, P, c_nrows);
   DeviceGalerkinPlan plan;
   plan.ap     = product_pattern(A, P, s, alloc);
   plan.ap_val = Buffer<double>(static_cast<size_t>(plan.ap.nnz), alloc);
   plan.c      = pattern_of(c_nrows, c_nrows, c_row_ptr, c_col, s, alloc);
   plan.flag   = Buffer<int32_t>(1, alloc);
   fill_bytes(plan.flag.get(), 0, sizeof(int32_t), s);
   const CsrView ap{plan.ap.nrows, plan.ap.ncols, static_cast<int32_t>(plan.ap.nnz), plan.ap.row_ptr.get(),
                    plan.ap.sorted_col.get(), nullptr};
   if (form == PlanForm::search) { return plan; }
   // the places are optional: where the device refuses their memory, that product searches (the
   // patterns above, which every form needs, are not)
   auto places = [&](const CsrView& x, const CsrView& b, const DeviceFixedPattern& c) {
      try
      {
         return term_places(x, b, c, plan.flag.get(), s, alloc);
      }
      catch (const std::bad_alloc&)
      {
         plan.places_refused = true;
         return DeviceTermPlaces{};
      }
   };
   plan.ap_places = places(A, P, plan.ap);
   plan.c_places  = places(R, ap, plan.c);
   if (form == PlanForm::pulls)
   {
      // pulls where they fit (they take their places' term pointers; places stay where not)
      plan.ap_pulls = term_pulls(A, P, plan.ap, plan.ap_places, s, alloc);
      plan.c_pulls  = term_pulls(R, ap, plan.c, plan.c_places, s, alloc);
   }
   return plan;
}

void galerkin_products(DeviceGalerkinPlan& plan, const CsrView& R, const CsrView& A, const CsrView& P,
                       double* c_val, Stream s)
{
   if (plan.ap_pulls.width != 0) { numeric_by_pulls(A, P, plan.ap, plan.ap_pulls, plan.ap_val.get(), s); }
   else if (plan.ap_places.width != 0) { numeric_by_places(A, P, plan.ap, plan.ap_places, plan.ap_val.get(), s); }
   else { numeric_on_pattern(A, P, plan.ap, plan.ap_val.get(), plan.flag.get(), s); }
   const CsrView ap{plan.ap.nrows, plan.ap.ncols, static_cast<int32_t>(plan.ap.nnz), plan.ap.row_ptr.get(),
                    plan.ap.sorted_col.get(), plan.ap_val.get()};
   if (plan.c_pulls.width != 0) { numeric_by_pulls(R, ap, plan.c, plan.c_pulls, c_val, s); }
   else if (plan.c_places.width != 0) { numeric_by_places(R, ap, plan.c, plan.c_places, c_val, s); }
   else { numeric_on_pattern(R, ap, plan.c, c_val, plan.flag.get(), s); }
}

bool galerkin_numeric(DeviceGalerkinPlan& plan, const CsrView& R, const CsrView& A, const CsrView& P,
                      double* c_val, Stream s)
{
   galerkin_products(plan, R, A, P, c_val, s);
   if (!plan.checked)
   {
      plan.checked = true;
      return read_flag(plan.flag.get(), s) == 0;
   }
   return true;
}

} // namespace amgt::device
