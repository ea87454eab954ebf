#include "spgemm/spgemm.h"

#include "common/error.h"
#include "mbsr/mbsr_builder.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

namespace amgt {

template <class V>
Mbsr<V> spgemm_ref(const Mbsr<V>& A, const Mbsr<V>& B)
{
   using T   = StorageTraits<V>;
   using Acc = typename T::acc_t;
   AMGT_REQUIRE(A.ncols == B.nrows, "spgemm: dimension mismatch, A is " + std::to_string(A.nrows) +
                                        " x " + std::to_string(A.ncols) + ", B is " +
                                        std::to_string(B.nrows) + " x " + std::to_string(B.ncols));

   AMGT_REQUIRE(A.blk_ptr.size() == static_cast<size_t>(A.block_rows()) + 1 &&
                    B.blk_ptr.size() == static_cast<size_t>(B.block_rows()) + 1,
                "spgemm: operand blk_ptr does not match its number of block rows");

   Mbsr<V>            C     = mbsr_without_tiles<V>(A.nrows, B.ncols);
   const int32_t      brows = C.block_rows();
   BlockRowTiles<Acc> row(C.block_cols()); // Gustavson on tiles: C's block row I, by block column

   for (int32_t bi = 0; bi < brows; ++bi)
   {
      for (int32_t ta = A.blk_ptr[bi]; ta < A.blk_ptr[bi + 1]; ++ta)
      {
         const uint16_t amap = A.blk_map[ta];
         const V*       aval = &A.blk_val[static_cast<size_t>(ta) * 16];
         const int32_t  bk   = A.blk_col[ta];
         for (int32_t tb = B.blk_ptr[bk]; tb < B.blk_ptr[bk + 1]; ++tb)
         {
            const uint16_t bmap = B.blk_map[tb];
            const uint16_t cmap = bitmap_product(amap, bmap);
            if (cmap == 0) continue;
            const int32_t bj = B.blk_col[tb];
            if (row.slot[bj] < 0)
            {
               row.slot[bj] = static_cast<int32_t>(row.cols.size());
               row.cols.push_back(bj);
               row.map.push_back(0);
               row.vals.resize(row.vals.size() + 16, Acc(0));
            }
            const size_t s = static_cast<size_t>(row.slot[bj]);
            row.map[s] |= cmap;
            const V* bval = &B.blk_val[static_cast<size_t>(tb) * 16];
            Acc*     cacc = &row.vals[s * 16];
            for (int r = 0; r < kTileDim; ++r)
            {
               for (int k = 0; k < kTileDim; ++k)
               {
                  if (!bit_at(amap, r, k)) continue;
                  const Acc a = T::to_acc(aval[bit_index(r, k)]);
                  for (int c = 0; c < kTileDim; ++c)
                  {
                     if (!bit_at(bmap, k, c)) continue;
                     cacc[bit_index(r, c)] =
                         T::madd(a, T::to_acc(bval[bit_index(k, c)]), cacc[bit_index(r, c)]);
                  }
               }
            }
         }
      }

      // Tiles were created in discovery order; emitted by ascending block column. Positions
      // outside the bitmap never received a term: they stay exactly zero.
      row.emit(C, bi, [](Acc v) { return T::from_acc(v); });
      AMGT_REQUIRE(C.blk_col.size() <= static_cast<size_t>(std::numeric_limits<int32_t>::max()),
                   "spgemm: product has more than 2^31-1 tiles");
   }
   return C;
}

CsrMatrix csr_spgemm_ref(const CsrView& A, const CsrView& B)
{
   validate_csr(A);
   validate_csr(B);
   AMGT_REQUIRE(A.ncols == B.nrows, "csr_spgemm: dimension mismatch, A is " +
                                        std::to_string(A.nrows) + " x " + std::to_string(A.ncols) +
                                        ", B is " + std::to_string(B.nrows) + " x " +
                                        std::to_string(B.ncols));
   CsrMatrix C;
   C.nrows = A.nrows;
   C.ncols = B.ncols;
   C.row_ptr.push_back(0);

   std::vector<int32_t> pos(static_cast<size_t>(B.ncols), -1); // column -> index in row
   std::vector<int32_t> cols;
   std::vector<double>  sums;
   for (int32_t i = 0; i < A.nrows; ++i)
   {
      cols.clear();
      sums.clear();
      for (int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p)
      {
         const int32_t k = A.col[p];
         const double  a = A.val ? A.val[p] : 1.0;
         for (int32_t q = B.row_ptr[k]; q < B.row_ptr[k + 1]; ++q)
         {
            const int32_t j = B.col[q];
            const double  b = B.val ? B.val[q] : 1.0;
            if (pos[j] < 0)
            {
               pos[j] = static_cast<int32_t>(cols.size());
               cols.push_back(j);
               sums.push_back(0.0);
            }
            sums[static_cast<size_t>(pos[j])] += a * b;
         }
      }
      std::vector<int32_t> sorted = cols;
      std::sort(sorted.begin(), sorted.end());
      for (int32_t j : sorted)
      {
         C.col.push_back(j);
         C.val.push_back(sums[static_cast<size_t>(pos[j])]);
         pos[j] = -1;
      }
      AMGT_REQUIRE(C.col.size() <= static_cast<size_t>(std::numeric_limits<int32_t>::max()),
                   "csr_spgemm: product has more than 2^31-1 nonzeros");
      C.row_ptr.push_back(static_cast<int32_t>(C.col.size()));
   }
   return C;
}

template Mbsr<double> spgemm_ref<double>(const Mbsr<double>&, const Mbsr<double>&);
template Mbsr<float>  spgemm_ref<float>(const Mbsr<float>&, const Mbsr<float>&);
template Mbsr<half_t> spgemm_ref<half_t>(const Mbsr<half_t>&, const Mbsr<half_t>&);

} // namespace amgt
