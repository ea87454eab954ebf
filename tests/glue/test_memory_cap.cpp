// AMGT_DEVICE_MEMORY_LIMIT: parsing and the accounting of the cap (hypre_glue/memory_cap.h).
#include "memory_cap.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace {

using amgt::glue::MemoryCap;
using amgt::glue::parse_byte_size;

TEST(ParseByteSize, AcceptsPlainNumbersAndBinarySuffixes)
{
   EXPECT_EQ(parse_byte_size("0"), size_t{0});
   EXPECT_EQ(parse_byte_size("1048576"), size_t{1048576});
   EXPECT_EQ(parse_byte_size("64K"), size_t{64} << 10);
   EXPECT_EQ(parse_byte_size("64m"), size_t{64} << 20);
   EXPECT_EQ(parse_byte_size(" 2G "), size_t{2} << 30);
}

TEST(ParseByteSize, RejectsEverythingElse)
{
   for (const char* bad : {"", " ", "M", "-1", "1.5M", "12T", "1 M", "0x10", "abc", "99999999999999999999",
                           "17179869184G"})
   {
      EXPECT_FALSE(parse_byte_size(bad).has_value()) << '"' << bad << '"';
   }
   EXPECT_FALSE(parse_byte_size(nullptr).has_value());
}

TEST(MemoryCap, OffAdmitsEverythingAndTracksNothing)
{
   MemoryCap cap;
   EXPECT_FALSE(cap.enabled());
   EXPECT_TRUE(cap.admit(SIZE_MAX));
   int x = 0;
   cap.record(&x, 100);
   EXPECT_EQ(cap.held(), 0u);
}

TEST(MemoryCap, RefusesPastTheLimitAndGivesBackOnRelease)
{
   MemoryCap cap(1000);
   int       a = 0, b = 0, c = 0;
   ASSERT_TRUE(cap.admit(600));
   cap.record(&a, 600);
   EXPECT_FALSE(cap.admit(401)) << "600 + 401 > 1000";
   EXPECT_EQ(cap.refused(), 1u);
   ASSERT_TRUE(cap.admit(400));
   cap.record(&b, 400);
   EXPECT_EQ(cap.held(), 1000u);
   EXPECT_FALSE(cap.admit(1));
   cap.forget(&a);
   EXPECT_EQ(cap.held(), 400u);
   ASSERT_TRUE(cap.admit(600));
   cap.cancel(600); // the allocation behind it failed
   EXPECT_EQ(cap.held(), 400u);
   cap.forget(&c); // never recorded: nothing changes
   EXPECT_EQ(cap.held(), 400u);
   EXPECT_FALSE(cap.admit(SIZE_MAX)) << "no overflow in the comparison";
   cap.forget(&b);
   EXPECT_EQ(cap.held(), 0u);
}

TEST(MemoryCap, ZeroLimitRefusesAnyAllocation)
{
   MemoryCap cap;
   cap.enable(0);
   EXPECT_TRUE(cap.enabled());
   EXPECT_FALSE(cap.admit(1));
   EXPECT_TRUE(cap.admit(0));
}

TEST(MemoryCap, ConcurrentUseKeepsTheBooks)
{
   // at most 4 x 64 bytes are held at once, far below the cap: every request is admitted
   MemoryCap                cap(1 << 20);
   std::vector<std::thread> threads;
   std::vector<char>        slots(4 * 1000);
   std::atomic<int>         admitted{0};
   for (int t = 0; t < 4; ++t)
   {
      threads.emplace_back([&, t] {
         for (int i = 0; i < 1000; ++i)
         {
            char* p = &slots[static_cast<size_t>(t) * 1000 + i];
            if (cap.admit(64))
            {
               admitted.fetch_add(1, std::memory_order_relaxed);
               cap.record(p, 64);
               cap.forget(p);
            }
         }
      });
   }
   for (auto& th : threads) th.join();
   EXPECT_EQ(admitted.load(), 4000);
   EXPECT_EQ(cap.held(), 0u);
}

} // namespace
