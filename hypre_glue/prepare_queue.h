// One background thread that runs the plugin's setup work for a matrix while hypre's setup
// goes on (planner.h's device_prepare on the device executor's second stream).
//
// BoomerAMG's setup at 1M rows is bound by its host code (about 600 stream synchronisations a
// setup, the GPU busy 60%): the plugin's conversions, value checks and their read-backs,
// done at the end of the setup, added their full time to it even where they made the
// products faster. A level's operator and transfer operators are final once the next level
// exists; from then on this thread prepares them beside hypre's next level, and the end of
// the setup waits only for what is left (drain). Measured on the H100 it did not pay: the
// work was hidden completely, but hypre's kernels queued behind the plugin's on the GPU lost
// more (AMGT_SETUP_OVERLAP, off by default; bench/RESULTS.md, record 2026-11-25g).
//
// The queue knows nothing of matrices: a job is a function that does not throw (the glue
// wraps device_prepare: an error is counted and leaves the matrix to be converted on first
// use, or to stock hypre). Jobs run one at a time, in the order submitted.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace amgt::glue {

class PrepareQueue
{
public:
   using Job = std::function<void()>;

   PrepareQueue() = default;
   PrepareQueue(const PrepareQueue&)            = delete;
   PrepareQueue& operator=(const PrepareQueue&) = delete;
   // Runs what is queued, then stops the thread.
   ~PrepareQueue();

   // Queues a job; the thread starts with the first one. Throws what std::thread or the
   // queue's allocation throws (the caller then does the work itself).
   void submit(Job job);
   // Waits until every job submitted so far has run. Returns the seconds waited (0 when
   // nothing was pending: one lock). Safe from any thread but the queue's own.
   double drain();

private:
   void run();

   std::mutex              mutex_;
   std::condition_variable wake_;  // the thread: a job or stop
   std::condition_variable done_;  // drain: the queue emptied
   std::deque<Job>         jobs_;
   bool                    busy_ = false; // a job is running
   bool                    stop_ = false;
   std::thread             thread_;
};

} // namespace amgt::glue
