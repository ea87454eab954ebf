// HIP compile check only: cub::DeviceReduce::Sum on rocPRIM (see ../hip_cub_common.h).
#pragma once

#include "../hip_cub_common.h"

namespace cub {

struct DeviceReduce
{
   template <class In, class Out, class N>
   static hipError_t Sum(void* temp, size_t& bytes, In in, Out out, N n, hipStream_t stream = 0)
   {
      using T            = hip_detail::sum_t<In, Out>;
      const hipError_t e = rocprim::reduce(temp, bytes, in, out, T(0), static_cast<size_t>(n),
                                           rocprim::plus<T>(), stream);
      hip_detail::at_least_one(temp, bytes);
      return e;
   }
};

} // namespace cub
