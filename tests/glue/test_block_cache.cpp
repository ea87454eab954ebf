// The cache of released device blocks (hypre_glue/block_cache.h), on a counting host source.
#include "block_cache.h"
#include "memory_cap.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <vector>

namespace {

using amgt::glue::BlockCache;

// A source that counts what it hands out and can be told to refuse.
struct CountingSource
{
   std::set<void*> live;
   long            allocs = 0, releases = 0;
   size_t          limit  = SIZE_MAX; // refuse while the bytes handed out would pass it
   size_t          bytes  = 0;
   std::vector<size_t> sizes;

   static void* alloc(size_t n, void* ctx)
   {
      auto* s = static_cast<CountingSource*>(ctx);
      if (n > s->limit || s->bytes > s->limit - n) return nullptr;
      void* p = std::malloc(n + sizeof(size_t));
      *static_cast<size_t*>(p) = n;
      s->live.insert(p);
      s->bytes += n;
      s->sizes.push_back(n);
      ++s->allocs;
      return p;
   }
   static void release(void* p, void* ctx)
   {
      auto* s = static_cast<CountingSource*>(ctx);
      ASSERT_EQ(s->live.count(p), 1u) << "released a block it never handed out";
      s->live.erase(p);
      s->bytes -= *static_cast<size_t*>(p);
      ++s->releases;
      std::free(p);
   }
   BlockCache::Source source() { return {alloc, release, this}; }
};

TEST(BlockCache, SizeClasses)
{
   EXPECT_EQ(BlockCache::size_class(1), 256u);
   EXPECT_EQ(BlockCache::size_class(256), 256u);
   EXPECT_EQ(BlockCache::size_class(257), 512u);
   EXPECT_EQ(BlockCache::size_class(1u << 20), 1u << 20);
   EXPECT_EQ(BlockCache::size_class((1u << 20) + 1), (1u << 20) + (1u << 17)); // an eighth above
   EXPECT_EQ(BlockCache::size_class(3u << 20), 3u << 20);
   EXPECT_EQ(BlockCache::size_class((3u << 20) + 5), (3u << 20) + (1u << 18));
   for (size_t n : {size_t{1000}, size_t{123456}, size_t{5000000}, size_t{987654321}})
   {
      const size_t c = BlockCache::size_class(n);
      EXPECT_GE(c, n);
      EXPECT_LE(c, n + n / 8 + 256) << n; // at most an eighth (or the 256-byte floor) more
      EXPECT_EQ(BlockCache::size_class(c), c) << "a class is its own class";
   }
}

TEST(BlockCache, ReusesReleasedBlocksOfTheSameClass)
{
   CountingSource src;
   {
      BlockCache cache(src.source(), size_t{1} << 30);
      void*      a = cache.alloc(1000);
      void*      b = cache.alloc(5000000);
      ASSERT_NE(a, nullptr);
      ASSERT_NE(b, nullptr);
      EXPECT_EQ(src.allocs, 2);
      cache.release(a);
      cache.release(b);
      EXPECT_EQ(src.releases, 0); // kept
      EXPECT_EQ(cache.live_bytes(), 0u);
      EXPECT_EQ(cache.cached_bytes(), BlockCache::size_class(1000) + BlockCache::size_class(5000000));
      // the same sizes again (a second setup): no new allocation
      void* a2 = cache.alloc(1000);
      void* b2 = cache.alloc(4900000); // same class as 5000000
      EXPECT_EQ(a2, a);
      EXPECT_EQ(b2, b);
      EXPECT_EQ(src.allocs, 2);
      EXPECT_EQ(cache.reused(), 2);
      // another class: from the source
      void* c = cache.alloc(100);
      EXPECT_EQ(src.allocs, 3);
      cache.release(a2);
      cache.release(b2);
      cache.release(c);
      cache.trim();
      EXPECT_EQ(src.releases, 3);
      EXPECT_EQ(cache.cached_bytes(), 0u);
   }
   EXPECT_TRUE(src.live.empty());
}

TEST(BlockCache, KeepsAtMostItsBound)
{
   CountingSource src;
   BlockCache     cache(src.source(), 4096);
   void*          a = cache.alloc(3000); // class 4096
   void*          b = cache.alloc(3000);
   cache.release(a); // cached: 4096 of 4096
   cache.release(b); // would pass the bound: back to the source at once
   EXPECT_EQ(src.releases, 1);
   EXPECT_EQ(cache.cached_bytes(), 4096u);
   BlockCache off(src.source(), 0); // a bound of 0: no caching at all
   void*      c = off.alloc(10);
   off.release(c);
   EXPECT_EQ(src.releases, 2);
   cache.trim();
   EXPECT_TRUE(src.live.empty());
}

TEST(BlockCache, RefusalGivesTheCacheBackAndRetries)
{
   CountingSource src;
   src.limit = 4u << 20; // the source has 4 MiB
   BlockCache cache(src.source(), size_t{1} << 30);
   void*      a = cache.alloc(2u << 20);
   ASSERT_NE(a, nullptr);
   cache.release(a); // 2 MiB cached
   // 1.5 MiB fits next to the cached 2 MiB; 2.5 MiB more only once the cache gave its blocks back
   void* b = cache.alloc(1536u << 10);
   ASSERT_NE(b, nullptr);
   EXPECT_EQ(src.releases, 0);
   cache.release(b);
   void* c = cache.alloc(2560u << 10);
   ASSERT_NE(c, nullptr);
   EXPECT_EQ(src.releases, 2); // both cached blocks went back before the retry
   // more than the source has at all: nullptr, nothing leaked
   EXPECT_EQ(cache.alloc(8u << 20), nullptr);
   cache.release(c);
   cache.trim();
   EXPECT_TRUE(src.live.empty());
   EXPECT_EQ(cache.alloc(0), nullptr);
   cache.release(nullptr); // nothing
}

// A block handed over (disown) is neither cached nor given back; when its owner frees it and
// the source hands out the same address again, the cache takes it as a new block of the new
// size (a stale size would let a later, larger request reuse a smaller block).
TEST(BlockCache, DisownedBlocksAndReusedAddresses)
{
   CountingSource src;
   BlockCache     cache(src.source(), size_t{1} << 30);
   void*          a = cache.alloc(300); // class 512
   ASSERT_NE(a, nullptr);
   cache.disown(a);
   EXPECT_EQ(cache.live_bytes(), 0u);
   cache.release(a); // unknown now: straight back to the source (here: "hypre frees it")
   EXPECT_EQ(src.releases, 1);
   EXPECT_EQ(cache.cached_bytes(), 0u);

   // the stale-address case without disown: the block leaves through release() of its new
   // owner, the source reuses the address for a larger block
   void* b = cache.alloc(300);
   ASSERT_NE(b, nullptr);
   CountingSource::release(b, &src); // freed behind the cache's back
   void* c = cache.alloc(5000);      // the source may return the same address
   ASSERT_NE(c, nullptr);
   EXPECT_EQ(cache.live_bytes(), BlockCache::size_class(5000) + (c == b ? 0 : BlockCache::size_class(300)));
   cache.release(c);
   EXPECT_EQ(cache.cached_bytes(), BlockCache::size_class(5000));
   void* d = cache.alloc(5000); // reused with its true class
   EXPECT_EQ(d, c);
   cache.release(d);
   cache.trim();
}

// The memory cap sits under the cache (as in the device backend): cached blocks count as
// held, and a refusal by the cap empties the cache before the plugin gives up.
TEST(BlockCache, UnderTheMemoryCap)
{
   struct Capped
   {
      CountingSource         src;
      amgt::glue::MemoryCap  cap{size_t{1} << 20};
   } capped;
   BlockCache::Source s;
   s.ctx   = &capped;
   s.alloc = [](size_t n, void* c) -> void* {
      auto& k = *static_cast<Capped*>(c);
      if (!k.cap.admit(n)) return nullptr;
      void* p = CountingSource::alloc(n, &k.src);
      if (p) k.cap.record(p, n);
      else k.cap.cancel(n);
      return p;
   };
   s.release = [](void* p, void* c) {
      auto& k = *static_cast<Capped*>(c);
      k.cap.forget(p);
      CountingSource::release(p, &k.src);
   };
   BlockCache cache(s, size_t{1} << 30);
   void*      a = cache.alloc(600u << 10); // class 1 MiB: the whole cap
   ASSERT_NE(a, nullptr);
   cache.release(a);
   EXPECT_EQ(capped.cap.held(), size_t{1} << 20); // cached memory is still held
   void* b = cache.alloc(300u << 10);              // class 512 KiB: refused, cache emptied, admitted
   ASSERT_NE(b, nullptr);
   EXPECT_EQ(capped.cap.held(), size_t{512} << 10);
   cache.release(b);
   cache.trim();
   EXPECT_EQ(capped.cap.held(), 0u);
   EXPECT_TRUE(capped.src.live.empty());
}

} // namespace
