// HIP compile check only: cub::DeviceScan::ExclusiveSum / InclusiveSum on rocPRIM
// (see ../hip_cub_common.h).
#pragma once

#include "../hip_cub_common.h"

namespace cub {

struct DeviceScan
{
   template <class In, class Out, class N>
   static hipError_t ExclusiveSum(void* temp, size_t& bytes, In in, Out out, N n,
                                  hipStream_t stream = 0)
   {
      using T            = hip_detail::value_t<In>;
      const hipError_t e = rocprim::exclusive_scan(temp, bytes, in, out, T(0),
                                                   static_cast<size_t>(n), rocprim::plus<T>(), stream);
      hip_detail::at_least_one(temp, bytes);
      return e;
   }

   template <class In, class Out, class N>
   static hipError_t InclusiveSum(void* temp, size_t& bytes, In in, Out out, N n,
                                  hipStream_t stream = 0)
   {
      using T            = hip_detail::value_t<In>;
      const hipError_t e = rocprim::inclusive_scan(temp, bytes, in, out, static_cast<size_t>(n),
                                                   rocprim::plus<T>(), stream);
      hip_detail::at_least_one(temp, bytes);
      return e;
   }
};

} // namespace cub
