// The queue that runs the plugin's setup work beside hypre's setup (hypre_glue/prepare_queue.h):
// order, drain, the thread it runs on, and a queue destroyed with work pending.
#include "prepare_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

namespace {

using amgt::glue::PrepareQueue;

TEST(PrepareQueue, RunsJobsInOrderOnOneThreadOfItsOwn)
{
   PrepareQueue                 q;
   std::vector<int>             order;   // written by the queue's thread only, read after drain
   std::set<std::thread::id>    threads; // the same
   for (int i = 0; i < 50; ++i)
   {
      q.submit([&, i] {
         order.push_back(i);
         threads.insert(std::this_thread::get_id());
      });
   }
   q.drain();
   ASSERT_EQ(order.size(), 50u);
   for (int i = 0; i < 50; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
   ASSERT_EQ(threads.size(), 1u) << "every job on the queue's one thread";
   EXPECT_NE(*threads.begin(), std::this_thread::get_id()) << "not on the caller's";
   EXPECT_EQ(q.drain(), 0.0) << "nothing pending: no wait";
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
   EXPECT_FALSE(finished.load());
   const double waited = q.drain();
   EXPECT_TRUE(finished.load()) << "drain returned before the job ended";
   EXPECT_GT(waited, 0.02);
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

TEST(PrepareQueue, NeverUsedWaitsForNothing)
{
   PrepareQueue q;
   EXPECT_EQ(q.drain(), 0.0);
} // and its destructor has no thread to join

} // namespace
