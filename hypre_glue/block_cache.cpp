#include "block_cache.h"

#include "guarded.h"

#include <limits>

namespace amgt::glue {

void BlockCache::reset(Source source, size_t max_cached)
{
   std::lock_guard<std::mutex> lock(mutex_);
   trim_locked();
   source_     = source;
   max_cached_ = max_cached;
}

size_t BlockCache::size_class(size_t bytes)
{
   constexpr size_t kMin = 256, kSmall = size_t{1} << 20;
   if (bytes <= kMin) return kMin;
   size_t p = kMin;
   while (p < bytes && p < kSmall) p <<= 1;
   if (p >= bytes) return p; // a power of two up to 1 MiB
   // above 1 MiB: the power of two at or below bytes, in steps of an eighth of it
   size_t base = kSmall;
   while (base <= (bytes >> 1)) base <<= 1;
   const size_t step = base >> 3;
   const size_t n    = (bytes - base + step - 1) / step;
   if (n > (std::numeric_limits<size_t>::max() - base) / step) return bytes; // no room to round
   return base + n * step;
}

void* BlockCache::alloc(size_t bytes)
{
   if (bytes == 0) return nullptr;
   const size_t cls = size_class(bytes);
   std::unique_lock<std::mutex> lock(mutex_);
   if (auto it = free_blocks_.find(cls); it != free_blocks_.end())
   {
      void* p = it->second;
      free_blocks_.erase(it);
      cached_ -= cls;
      live_ += cls;
      live_blocks_.emplace(p, cls);
      ++reused_;
      return p;
   }
   if (!source_.alloc) return nullptr;
   void* p = source_.alloc(cls, source_.ctx);
   if (!p && cached_ > 0)
   {
      trim_locked(); // the memory we hold may be what the source is missing
      p = source_.alloc(cls, source_.ctx);
   }
   if (!p) return nullptr;
   // a fresh block of the source: whatever was known of this address belonged to a block
   // that left the cache's hands and has been freed since
   erase_sized(live_blocks_, p, live_);
   live_ += cls;
   live_blocks_.emplace(p, cls);
   ++fresh_;
   return p;
}

void BlockCache::disown(void* ptr)
{
   if (!ptr) return;
   std::lock_guard<std::mutex> lock(mutex_);
   erase_sized(live_blocks_, ptr, live_);
}

void BlockCache::release(void* ptr)
{
   if (!ptr) return;
   std::lock_guard<std::mutex> lock(mutex_);
   size_t cls = 0;
   if (!erase_sized(live_blocks_, ptr, live_, &cls))
   {
      if (source_.release) source_.release(ptr, source_.ctx);
      return;
   }
   if (cls <= max_cached_ && cached_ <= max_cached_ - cls)
   {
      free_blocks_.emplace(cls, ptr);
      cached_ += cls;
   }
   else if (source_.release) { source_.release(ptr, source_.ctx); }
}

void BlockCache::trim()
{
   std::lock_guard<std::mutex> lock(mutex_);
   trim_locked();
}

void BlockCache::trim_locked()
{
   for (auto& [cls, p] : free_blocks_)
   {
      (void)cls;
      if (source_.release) source_.release(p, source_.ctx);
   }
   free_blocks_.clear();
   cached_ = 0;
}

size_t BlockCache::cached_bytes() const { return read_locked(mutex_, cached_); }

size_t BlockCache::live_bytes() const { return read_locked(mutex_, live_); }

long BlockCache::reused() const { return read_locked(mutex_, reused_); }

long BlockCache::from_source() const { return read_locked(mutex_, fresh_); }

} // namespace amgt::glue
