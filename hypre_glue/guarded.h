// What the mutex-guarded ledgers of the glue (block_cache, memory_cap) share: a read of one
// counter under the lock, and the removal of a pointer's recorded size from a map and a total.
#pragma once

#include <cstddef>
#include <mutex>

namespace amgt::glue {

// A copy of value, read while holding mutex.
template <class T>
T read_locked(std::mutex& mutex, const T& value)
{
   std::lock_guard<std::mutex> lock(mutex);
   return value;
}

// Erases key from sizes (key -> bytes) and takes its bytes off total; false when key is not
// there (nothing changes). *bytes, if asked for, receives what was erased.
template <class Map>
bool erase_sized(Map& sizes, const typename Map::key_type& key, size_t& total, size_t* bytes = nullptr)
{
   auto it = sizes.find(key);
   if (it == sizes.end()) return false;
   if (bytes) *bytes = it->second;
   total -= it->second;
   sizes.erase(it);
   return true;
}

} // namespace amgt::glue
