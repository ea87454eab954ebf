// HIP compile check only (plugin/device/hip_compat.h): the few cub::Device* calls of the
// plugin, with CUB's signatures and its two-phase convention (a null temporary storage asks
// for its size), implemented on rocPRIM. Not CUB: only what the plugin's sources call.
#pragma once

#include <hip/hip_runtime.h>
#include <rocprim/rocprim.hpp>

#include <cstddef>
#include <iterator>
#include <type_traits>

namespace cub::hip_detail {

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

} // namespace cub::hip_detail
