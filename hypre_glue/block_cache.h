// A cache of the device blocks the plugin gives back, for its next allocations of the same
// size class. Every full setup converts and plans the hierarchy's matrices again (new epoch, new
// arrays) and releases the previous ones: with hypre's default allocator each of those
// allocations and releases is a cudaMalloc/cudaFree (cudaFree waits for the device), a dozen
// per matrix. The cache keeps the blocks of the last setup for the next one instead.
//
// Blocks still come from hypre's allocator (its pools and Umpire stay in charge); the cache
// only delays giving them back: at most `max_cached` bytes are kept, the rest goes back at
// once; trim() gives everything back (HYPRE_Finalize, a failed allocation, the memory cap).
// Pure C++ (no CUDA): the device backend puts it between the plugin and hypre's allocator.
//
// Ordering: a cached block is handed out again to the plugin, whose device work all runs on
// one stream (hypre's compute stream), so a kernel that still reads a released block runs
// before any kernel of its next owner. Blocks given back to hypre follow hypre's own rules
// (cudaFree synchronises).
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>

namespace amgt::glue {

class BlockCache
{
public:
   struct Source
   {
      void* (*alloc)(size_t bytes, void* ctx) = nullptr; // nullptr on failure
      void (*release)(void* ptr, void* ctx)   = nullptr;
      void* ctx                               = nullptr;
   };

   BlockCache() = default;
   BlockCache(Source source, size_t max_cached) : source_(source), max_cached_(max_cached) {}
   BlockCache(const BlockCache&)            = delete;
   BlockCache& operator=(const BlockCache&) = delete;
   ~BlockCache() { trim(); }

   // Replaces the source and the bound; only while nothing is live or cached.
   void reset(Source source, size_t max_cached);

   // The size actually allocated for a request: powers of two up to 1 MiB (256 bytes at
   // least), then multiples of an eighth of the power of two below (<= 12.5% more).
   static size_t size_class(size_t bytes);

   // A block of at least `bytes`: a cached one of the same class, else a new one from the
   // source (after giving back every cached block if the source refused). nullptr if the
   // source refuses even then. bytes == 0: nullptr.
   void* alloc(size_t bytes);
   // Takes back a block from alloc (nullptr: nothing): cached, or given back to the source
   // when the cache would pass its bound. A pointer it never handed out goes to the source.
   void release(void* ptr);
   // Forgets a block from alloc whose ownership left the plugin (a product's arrays handed
   // to hypre, which frees them itself): neither cached nor given back later.
   void disown(void* ptr);
   // Gives every cached block back to the source.
   void trim();

   size_t cached_bytes() const;
   size_t live_bytes() const;
   long   reused() const;   // allocations served from the cache
   long   from_source() const;

private:
   void trim_locked();

   mutable std::mutex                 mutex_;
   Source                             source_{};
   size_t                             max_cached_ = 0;
   size_t                             cached_     = 0;
   size_t                             live_       = 0;
   long                               reused_     = 0;
   long                               fresh_      = 0;
   std::unordered_map<void*, size_t>  live_blocks_; // pointer -> class size
   std::multimap<size_t, void*>       free_blocks_; // class size -> pointer
};

} // namespace amgt::glue
