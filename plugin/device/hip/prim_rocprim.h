// The HIP backend of device/prim.cuh: the few device-wide primitives the plugin calls
// (exclusive/inclusive sum, sum reduction, radix sort of pairs) with CUB's signatures and
// its two-phase convention (a null temporary storage asks for its size), implemented on
// rocPRIM (Debian's librocprim-dev; hipCUB is not packaged there). Only what the plugin's
// sources call; nothing here has run on AMD hardware.
#pragma once

#include <hip/hip_runtime.h>
#include <rocprim/rocprim.hpp>

#include <cstddef>
#include <iterator>
#include <type_traits>

namespace amgt::device::prim {

namespace detail {

// CUB never reports a size of 0 bytes; callers allocate what the query says and pass the
// pointer back, and a null pointer would be taken for a second size query.
inline void at_least_one(void* temp, size_t& bytes)
{
   if (temp == nullptr && bytes == 0) bytes = 1;
}

template <class It>
using value_t = typename std::iterator_traits<It>::value_type;

// CUB's Sum: the result and initial value have the output's type (the input's when the
// output iterator has no value type).
template <class In, class Out>
using sum_t = std::conditional_t<std::is_void<value_t<Out>>::value, value_t<In>, value_t<Out>>;

} // namespace detail

struct DeviceScan
{
   template <class In, class Out, class N>
   static hipError_t ExclusiveSum(void* temp, size_t& bytes, In in, Out out, N n,
                                  hipStream_t stream = 0)
   {
      using T            = detail::value_t<In>;
      const hipError_t e = rocprim::exclusive_scan(temp, bytes, in, out, T(0),
                                                   static_cast<size_t>(n), rocprim::plus<T>(), stream);
      detail::at_least_one(temp, bytes);
      return e;
   }

   template <class In, class Out, class N>
   static hipError_t InclusiveSum(void* temp, size_t& bytes, In in, Out out, N n,
                                  hipStream_t stream = 0)
   {
      using T            = detail::value_t<In>;
      const hipError_t e = rocprim::inclusive_scan(temp, bytes, in, out, static_cast<size_t>(n),
                                                   rocprim::plus<T>(), stream);
      detail::at_least_one(temp, bytes);
      return e;
   }
};

struct DeviceReduce
{
   template <class In, class Out, class N>
   static hipError_t Sum(void* temp, size_t& bytes, In in, Out out, N n, hipStream_t stream = 0)
   {
      using T            = detail::sum_t<In, Out>;
      const hipError_t e = rocprim::reduce(temp, bytes, in, out, T(0), static_cast<size_t>(n),
                                           rocprim::plus<T>(), stream);
      detail::at_least_one(temp, bytes);
      return e;
   }
};

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
      detail::at_least_one(temp, bytes);
      return e;
   }
};

} // namespace amgt::device::prim
