// AMGT_DEVICE_MEMORY_LIMIT: a cap on the device memory the plugin holds at once, for fault
// injection (a test can make the plugin run out of device memory in the middle of a setup
// without starving hypre itself) and for users who want to bound the plugin's footprint.
// Pure C++ (no CUDA): the device backend wraps hypre's allocator with it.
#pragma once

#include "precision/schedule.h"

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace amgt::glue {

// parse_byte_size lives with the configuration (precision/schedule.h), which parses
// AMGT_DEVICE_MEMORY_LIMIT and AMGT_DEVICE_CACHE in every build, CPU builds included.
using amgt::parse_byte_size;

class MemoryCap
{
public:
   // No cap: admit() always succeeds and nothing is tracked.
   MemoryCap() = default;
   explicit MemoryCap(size_t limit) : enabled_(true), limit_(limit) {}
   // Turns the cap on; call before the first admit (not thread-safe against admit).
   void enable(size_t limit)
   {
      enabled_ = true;
      limit_   = limit;
   }

   bool   enabled() const { return enabled_; }
   size_t limit() const { return limit_; }

   // Reserves `bytes` if the total held stays within the limit; false (nothing reserved)
   // otherwise. A successful reservation must be followed by record() of the pointer it
   // produced, or by cancel() if the allocation itself failed.
   bool admit(size_t bytes);
   void record(const void* ptr, size_t bytes);
   void cancel(size_t bytes);
   // Releases what record() noted for ptr (unknown pointers: nothing).
   void forget(const void* ptr);

   size_t held() const;
   size_t refused() const; // allocations refused so far

private:
   bool                                     enabled_ = false;
   size_t                                   limit_   = 0;
   mutable std::mutex                       mutex_;
   size_t                                   held_    = 0;
   size_t                                   refused_ = 0;
   std::unordered_map<const void*, size_t> sizes_;
};

} // namespace amgt::glue
