// HIP compile check only: cub::DeviceRadixSort::SortPairs on rocPRIM (see
// ../hip_cub_common.h).
#pragma once

#include "../hip_cub_common.h"

namespace cub {

struct DeviceRadixSort
{
   template <class K, class V, class N>
   static hipError_t SortPairs(void* temp, size_t& bytes, const K* keys_in, K* keys_out,
                               const V* vals_in, V* vals_out, N n, int begin_bit = 0,
                               int end_bit = static_cast<int>(sizeof(K) * 8), hipStream_t stream = 0)
   {
      const hipError_t e = rocprim::radix_sort_pairs(
          temp, bytes, keys_in, keys_out, vals_in, vals_out, n,
          static_cast<unsigned>(begin_bit), static_cast<unsigned>(end_bit), stream);
      hip_detail::at_least_one(temp, bytes);
      return e;
   }
};

} // namespace cub
