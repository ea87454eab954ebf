#include "memory_cap.h"

#include "guarded.h"

namespace amgt::glue {

bool MemoryCap::admit(size_t bytes)
{
   if (!enabled_) return true;
   std::lock_guard<std::mutex> lock(mutex_);
   if (bytes > limit_ || held_ > limit_ - bytes)
   {
      ++refused_;
      return false;
   }
   held_ += bytes;
   return true;
}

void MemoryCap::record(const void* ptr, size_t bytes)
{
   if (!enabled_) return;
   std::lock_guard<std::mutex> lock(mutex_);
   sizes_[ptr] = bytes;
}

void MemoryCap::cancel(size_t bytes)
{
   if (!enabled_) return;
   std::lock_guard<std::mutex> lock(mutex_);
   held_ -= bytes < held_ ? bytes : held_;
}

void MemoryCap::forget(const void* ptr)
{
   if (!enabled_) return;
   std::lock_guard<std::mutex> lock(mutex_);
   erase_sized(sizes_, ptr, held_);
}

size_t MemoryCap::held() const { return read_locked(mutex_, held_); }

size_t MemoryCap::refused() const { return read_locked(mutex_, refused_); }

} // namespace amgt::glue
