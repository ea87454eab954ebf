// The queue that runs the plugin's setup work beside hypre's setup (hypre_glue/prepare_queue.h):
// order, drain, the thread it runs on, and a queue destroyed with work pending.
#include "prepare_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

using amgt::glue::PrepareQueue;

TEST(PrepareQueue, RunsJobsInOrderOnItsOwnThread)
{
   PrepareQueue     q;
   std::vector<int> order; // written by the queue's thread only, read after drain
   std::thread::id  caller = std::this_thread::get_id();
   std::atomic<int> off_caller{0};
   for (int i = 0; i < 50; ++i)
   {
      q.submit([&, i] {
         order.push_back(i);
         if (std::this_thread::get_id() != caller && q.on_queue_thread()) off_caller.fetch_add(1);
      });
   }
   q.drain();
   ASSERT_EQ(order.size(), 50u);
   for (int i = 0; i < 50; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
   EXPECT_EQ(off_caller.load(), 50);
   EXPECT_FALSE(q.on_queue_thread());
   EXPECT_TRUE(q.idle());
   EXPECT_EQ(q.jobs_run(), 50);
}

TEST(PrepareQueue, DrainWaitsForTheRunningJobAndReportsTheWait)
{
   PrepareQueue      q;
   std::atomic<bool> started{false}, finished{false};
   q.submit([&] {
      started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(60));
      finished = true;
   });
   while (!started) std::this_thread::yield();
   EXPECT_FALSE(q.idle());
   const double waited = q.drain();
   EXPECT_TRUE(finished.load()) << "drain returned before the job ended";
   EXPECT_GT(waited, 0.02);
   EXPECT_TRUE(q.idle());
   EXPECT_EQ(q.drain(), 0.0) << "nothing pending: no wait";
}

TEST(PrepareQueue, WorkSubmittedWhileRunningIsDrainedToo)
{
   PrepareQueue     q;
   std::atomic<int> done{0};
   for (int round = 0; round < 20; ++round)
   {
      q.submit([&] {
         std::this_thread::sleep_for(std::chrono::microseconds(200));
         done.fetch_add(1);
      });
      if (round % 5 == 4)
      {
         q.drain();
         EXPECT_EQ(done.load(), round + 1);
      }
   }
   q.drain();
   EXPECT_EQ(done.load(), 20);
}

TEST(PrepareQueue, DestroyedWithPendingWorkRunsItFirst)
{
   std::atomic<int> done{0};
   {
      PrepareQueue q;
      for (int i = 0; i < 10; ++i)
      {
         q.submit([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            done.fetch_add(1);
         });
      }
   } // ~PrepareQueue: runs what is queued, then joins
   EXPECT_EQ(done.load(), 10);
}

TEST(PrepareQueue, NeverUsedStartsNoThread)
{
   PrepareQueue q;
   EXPECT_TRUE(q.idle());
   EXPECT_EQ(q.drain(), 0.0);
   EXPECT_EQ(q.jobs_run(), 0);
   EXPECT_FALSE(q.on_queue_thread()) << "no thread: no id matches";
}

} // namespace
