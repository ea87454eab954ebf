// Extended+i interpolation's weights of the F-F block on the GPU (interp/twiaff_device.h).
//
// hypre's kernel gives a row a warp and walks its entries one after another: for each, the
// warp scans row j for the entry (j, i) and lane 0 does the arithmetic, so a row of 20 entries
// costs 20 dependent rounds of loads and shuffles (0.04-0.07 of the bytes' roofline, SM-issue
// bound: bench/RESULTS.md, "Setup: hypre's own kernels"). Here a group of G lanes takes a row
// and each lane one entry: its search of row j (short rows, cached) and its quotient run in
// parallel; the sum theta_i is then formed in hypre's order, every lane of the group adding the
// G entries' terms in turn (shuffled), so each lane holds the same theta and scales its entries.
#include "interp/twiaff_device.h"

#include "common/error.h"
#include "device/launch.h"
#include "device/warp.cuh"

namespace amgt::device {
namespace {

// hypre's warp (HYPRE_WARP_SIZE): the chunk of its search
constexpr int kHypreWarp = kWavefrontSize;

// hypre's search (twiaff.h): the last match within the first chunk of kHypreWarp entries of
// row j that holds one; -1 without
template <class J, class T>
__device__ __forceinline__ int32_t find_in_row(const int32_t* ip, const J* jj, int32_t j, T target)
{
   const int32_t kb = ip[j], ke = ip[j + 1];
   int32_t       match = -1;
   for (int32_t c = kb; c < ke && match < 0; c += kHypreWarp)
   {
      const int32_t ce = c + kHypreWarp < ke ? c + kHypreWarp : ke;
      for (int32_t q = c; q < ce; ++q)
      {
         if (static_cast<int64_t>(jj[q]) == static_cast<int64_t>(target)) match = q;
      }
   }
   return match;
}

// One entry (i, j) of either block: its weight into *a, and its term of theta_i for the
// group's sum (twiaff.cpp's weigh, split in two: the term is added in entry order later);
// on_zero is what hypre adds when rsj == 0 (the old value, or zero in the off-diagonal block)
struct Term
{
   int    kind = 0; // 0 none, 1 fma(a, b, theta), 2 theta + a
   double a = 0.0, b = 0.0;
};
__device__ __forceinline__ Term weigh(double old, double vji, double rsj, double on_zero, double* a)
{
   if (rsj != 0.0)
   {
      *a = old / rsj;
      return {1, vji, *a};
   }
   *a = 0.0;
   return {2, on_zero, 0.0};
}

// The group's entries [base, base + G) of one block in turn: kind 1 adds fma(a, b, theta),
// kind 2 adds a, kind 0 nothing (the diagonal entry, or past the row's end).
template <int G>
__device__ __forceinline__ double add_terms(double theta, const Term& t, int n, LaneMask group)
{
   for (int s = 0; s < n; ++s)
   {
      const int    ks = shfl(t.kind, s, G, group);
      const double as = shfl(t.a, s, G, group);
      const double bs = shfl(t.b, s, G, group);
      if (ks == 1) theta = fma(as, bs, theta);
      else if (ks == 2) theta = theta + as;
   }
   return theta;
}

template <int G, class BigJ>
__global__ void __launch_bounds__(kThreads) twiaff_kernel(TwiaffRows m)
{
   const BigJ* ext_j = static_cast<const BigJ*>(m.ext_j); // hypre's BigInt
   const int64_t t    = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
   const int64_t r    = t / G;
   const int     lane = static_cast<int>(threadIdx.x & (G - 1));
   const LaneMask group = group_lanes<G>();
   // a group past the last row takes part in nothing (empty ranges), so that no shuffle of a
   // group waits for lanes that left
   const bool    active = r < m.nrows;
   const int32_t row    = active ? static_cast<int32_t>(r) : 0;
   const int32_t db = active ? m.diag_i[row] : 0, de = active ? m.diag_i[row + 1] : 0;
   const bool    offd = active && m.offd_nnz > 0;
   const int32_t ob = offd ? m.offd_i[row] : 0, oe = offd ? m.offd_i[row + 1] : 0;
   double        theta = 0.0;
   for (int32_t base = db; base < de; base += G)
   {
      const int32_t k = base + lane;
      Term          term;
      if (k < de)
      {
         const int32_t j = m.diag_j[k];
         if (j == row) m.diag_a[k] = 1.0;
         else
         {
            const int32_t q   = find_in_row(m.diag_i, m.diag_j, j, row);
            const double  vji = q >= 0 ? m.diag_old[q] : 0.0;
            term = weigh(m.diag_old[k], vji, m.rsFC[j] + vji, m.diag_old[k], &m.diag_a[k]);
         }
      }
      theta = add_terms<G>(theta, term, de - base < G ? de - base : G, group);
   }
   for (int32_t base = ob; base < oe; base += G)
   {
      const int32_t k = base + lane;
      Term          term;
      if (k < oe)
      {
         const int32_t j   = m.offd_j[k];
         const int32_t q   = find_in_row(m.ext_i, ext_j, j, m.first_index + row);
         const double  vji = q >= 0 ? m.ext_a[q] : 0.0;
         // rsj == 0: hypre adds back the entry it has just set to zero
         term = weigh(m.offd_a[k], vji, m.rsFC_offd[j] + vji, 0.0, &m.offd_a[k]);
      }
      theta = add_terms<G>(theta, term, oe - base < G ? oe - base : G, group);
   }
   if (!active) return; // after the group's last shuffle
   theta = theta + m.rsW[row];
   theta = theta != 0.0 ? -1.0 / theta : -1.0;
   for (int32_t k = db + lane; k < de; k += G) m.diag_a[k] *= theta;
   for (int32_t k = ob + lane; k < oe; k += G) m.offd_a[k] *= theta;
}

template <class BigJ>
void launch(const TwiaffRows& m, int32_t lanes, Stream s)
{
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
   // a lane per entry of a mean row (A_FF keeps a row's F-neighbours: about 6 of a 7-point
   // row, up to 26 of a 27-point one), at least 4 and at most a warp
   const int32_t lanes = lanes_per_entry(m.diag_nnz + m.offd_nnz, m.nrows);
   if (m.ext_j_64) launch<int64_t>(m, lanes, s);
   else launch<int32_t>(m, lanes, s);
}

} // namespace amgt::device
