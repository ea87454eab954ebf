#include "prepare_queue.h"

#include <chrono>
#include <utility>

namespace amgt::glue {

PrepareQueue::~PrepareQueue()
{
   {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
   }
   wake_.notify_all();
   if (thread_.joinable()) thread_.join();
}

void PrepareQueue::submit(Job job)
{
   std::unique_lock<std::mutex> lock(mutex_);
   jobs_.push_back(std::move(job));
   if (!thread_.joinable())
   {
      try
      {
         thread_ = std::thread([this] { run(); });
      }
      catch (...)
      {
         jobs_.pop_back(); // not queued: the caller does the work itself
         throw;
      }
   }
   lock.unlock();
   wake_.notify_one();
}

double PrepareQueue::drain()
{
   std::unique_lock<std::mutex> lock(mutex_);
   if (jobs_.empty() && !busy_) return 0.0;
   const auto t0 = std::chrono::steady_clock::now();
   done_.wait(lock, [this] { return jobs_.empty() && !busy_; });
   return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void PrepareQueue::run()
{
   std::unique_lock<std::mutex> lock(mutex_);
   for (;;)
   {
      wake_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return; // stop, nothing left
      Job job = std::move(jobs_.front());
      jobs_.pop_front();
      busy_ = true;
      lock.unlock();
      job(); // does not throw (the queue's contract)
      lock.lock();
      busy_ = false;
      if (jobs_.empty()) done_.notify_all();
   }
}

} // namespace amgt::glue
