#include "bench_common.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <limits>
#include <mutex>
#include <numeric>
#include <thread>
#include <unordered_set>

namespace amgt::kbench {

void throw_device(dev::Status e, const char* what, const char* file, int line)
{
   // A non-sticky error would otherwise be reported again by the next unrelated check.
   if (!is_sticky(e)) (void)dev::last_error();
   throw BenchError(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " +
                    dev::error_name(e) + " (" + dev::error_string(e) + ")");
}

bool is_sticky(dev::Status e)
{
   return dev::is_sticky(e);
}

void check_device(const char* where)
{
   dev::Status e = dev::device_synchronize();
   if (e == dev::kSuccess) e = dev::last_error();
   if (e != dev::kSuccess) throw_device(e, where, __FILE__, __LINE__);
}

// ---- host CSR --------------------------------------------------------------------------

double unsorted_row_fraction(const HostCsr& a)
{
   if (a.nrows <= 0) return 0.0;
   int64_t unsorted = 0;
   for (int32_t i = 0; i < a.nrows; ++i)
   {
      for (int32_t p = a.row_ptr[i] + 1; p < a.row_ptr[i + 1]; ++p)
      {
         if (a.col[p - 1] > a.col[p])
         {
            ++unsorted;
            break;
         }
      }
   }
   return static_cast<double>(unsorted) / a.nrows;
}

void sort_rows(HostCsr& a)
{
   parallel_for(a.nrows, [&a](int64_t begin, int64_t end) {
      std::vector<std::pair<int32_t, double>> row;
      for (int64_t i = begin; i < end; ++i)
      {
         const int32_t lo = a.row_ptr[i], hi = a.row_ptr[i + 1];
         bool          sorted = true;
         for (int32_t p = lo + 1; p < hi && sorted; ++p) sorted = a.col[p - 1] <= a.col[p];
         if (sorted) continue;
         row.clear();
         for (int32_t p = lo; p < hi; ++p) row.emplace_back(a.col[p], a.val[p]);
         std::stable_sort(row.begin(), row.end(),
                          [](const auto& x, const auto& y) { return x.first < y.first; });
         for (int32_t p = lo; p < hi; ++p)
         {
            a.col[p] = row[p - lo].first;
            a.val[p] = row[p - lo].second;
         }
      }
   });
}

void validate(const HostCsr& a, const std::string& name)
{
   auto fail = [&name](const std::string& why) { throw BenchError(name + ": malformed CSR: " + why); };
   if (a.nrows < 0 || a.ncols < 0) fail("negative dimensions");
   if (a.row_ptr.size() != static_cast<size_t>(a.nrows) + 1) fail("row_ptr size");
   if (a.row_ptr[0] != 0 || a.row_ptr[a.nrows] != a.nnz()) fail("row_ptr ends");
   if (a.val.size() != a.col.size()) fail("val size");
   for (int32_t i = 0; i < a.nrows; ++i)
      if (a.row_ptr[i] > a.row_ptr[i + 1]) fail("row_ptr not monotone");
   for (int32_t c : a.col)
      if (c < 0 || c >= a.ncols) fail("column index out of range");
}

double csr_spmv_bytes(int64_t nrows, int64_t ncols, int64_t nnz)
{
   return 12.0 * static_cast<double>(nnz) + 4.0 * static_cast<double>(nrows + 1) +
          8.0 * static_cast<double>(ncols + 2 * nrows);
}

// ---- device memory ---------------------------------------------------------------------

namespace {

struct AllocState
{
   std::mutex               mu;
   AllocMode                mode = AllocMode::pool;
   bool                     configured = false;
   std::unordered_set<void*> pooled; // pointers from dev::malloc_async
   int                      free_errors = 0;
};

AllocState& state()
{
   static AllocState s;
   return s;
}

void configure_pool_locked(AllocState& s)
{
   if (s.configured) return;
   s.configured = true;
   if (s.mode != AllocMode::pool) return;
   int device = 0;
   KB_DEV(dev::current_device(&device));
   dev::MemPool pool = nullptr;
   KB_DEV(dev::default_mem_pool(&pool, device));
   // Keep freed memory in the pool across synchronisations (the default threshold 0 hands
   // it back to the driver at every sync, which makes each product pay for the OS again).
   KB_DEV(dev::mem_pool_set_release_threshold(pool, std::numeric_limits<uint64_t>::max()));
}

} // namespace

const char* to_string(AllocMode m)
{
   return m == AllocMode::pool ? "pool" : "cuda";
}

void set_alloc_mode(AllocMode m)
{
   AllocState&                 s = state();
   std::lock_guard<std::mutex> lock(s.mu);
   s.mode = m;
   s.configured = false;
   configure_pool_locked(s);
}

AllocMode alloc_mode()
{
   return state().mode;
}

void* dev_alloc_nothrow(size_t bytes) noexcept
{
   if (bytes == 0) return nullptr;
   AllocState&                 s = state();
   std::lock_guard<std::mutex> lock(s.mu);
   void*                       p = nullptr;
   try
   {
      configure_pool_locked(s);
   }
   catch (...)
   {
      return nullptr;
   }
   if (s.mode == AllocMode::pool)
   {
      if (dev::malloc_async(&p, bytes, kStream) != dev::kSuccess)
      {
         (void)dev::last_error();
         return nullptr;
      }
      s.pooled.insert(p);
   }
   else if (dev::device_malloc(&p, bytes) != dev::kSuccess)
   {
      (void)dev::last_error();
      return nullptr;
   }
   return p;
}

void* dev_alloc(size_t bytes)
{
   void* p = dev_alloc_nothrow(bytes);
   if (!p && bytes > 0)
   {
      throw BenchError("out of device memory allocating " + std::to_string(bytes) + " bytes");
   }
   return p;
}

void dev_free(void* p) noexcept
{
   if (!p) return;
   AllocState&                 s = state();
   std::lock_guard<std::mutex> lock(s.mu);
   const bool                  pooled = s.pooled.erase(p) > 0;
   const dev::Status           e      = pooled ? dev::free_async(p, kStream) : dev::device_free(p);
   if (e != dev::kSuccess)
   {
      if (s.free_errors++ == 0)
      {
         std::fprintf(stderr, "amgt-kernel-bench: device free failed: %s (%s)\n",
                      dev::error_name(e), dev::error_string(e));
      }
      if (!is_sticky(e)) (void)dev::last_error();
   }
}

void trim_pool() noexcept
{
   if (alloc_mode() != AllocMode::pool) return;
   int          device = 0;
   dev::MemPool pool   = nullptr;
   if (dev::device_synchronize() != dev::kSuccess || dev::current_device(&device) != dev::kSuccess ||
       dev::default_mem_pool(&pool, device) != dev::kSuccess || dev::mem_pool_trim_to(pool, 0) != dev::kSuccess)
   {
      (void)dev::last_error();
   }
}

int free_errors()
{
   return state().free_errors;
}

DeviceCsr upload(const HostCsr& h)
{
   DeviceCsr d;
   d.nrows   = h.nrows;
   d.ncols   = h.ncols;
   d.nnz     = h.nnz();
   d.row_ptr = DevBuf<int32_t>(h.row_ptr.size());
   d.col     = DevBuf<int32_t>(h.col.size());
   d.val     = DevBuf<double>(h.val.size());
   d.row_ptr.upload(h.row_ptr);
   d.col.upload(h.col);
   d.val.upload(h.val);
   return d;
}

HostCsr download(int32_t nrows, int32_t ncols, int64_t nnz, const int32_t* row_ptr,
                 const int32_t* col, const double* val)
{
   HostCsr h;
   h.nrows = nrows;
   h.ncols = ncols;
   h.row_ptr.resize(static_cast<size_t>(nrows) + 1);
   h.col.resize(static_cast<size_t>(nnz));
   h.val.resize(static_cast<size_t>(nnz));
   // A blocking copy on the legacy stream waits for all earlier work, hypre's included.
   KB_DEV(dev::memcpy_blocking(h.row_ptr.data(), row_ptr, h.row_ptr.size() * sizeof(int32_t),
                      dev::Copy::to_host));
   if (nnz > 0)
   {
      KB_DEV(dev::memcpy_blocking(h.col.data(), col, h.col.size() * sizeof(int32_t), dev::Copy::to_host));
      KB_DEV(dev::memcpy_blocking(h.val.data(), val, h.val.size() * sizeof(double), dev::Copy::to_host));
   }
   return h;
}

// ---- timing ------------------------------------------------------------------------------

EventPair::EventPair()
{
   KB_DEV(dev::event_create(&a_));
   const dev::Status e = dev::event_create(&b_);
   if (e != dev::kSuccess)
   {
      (void)dev::event_destroy(a_);
      throw_device(e, "event_create", __FILE__, __LINE__);
   }
}

EventPair::~EventPair()
{
   (void)dev::event_destroy(a_);
   (void)dev::event_destroy(b_);
}

void EventPair::start()
{
   KB_DEV(dev::event_record(a_, kStream));
}

void EventPair::stop()
{
   KB_DEV(dev::event_record(b_, kStream));
}

double EventPair::elapsed_ms()
{
   KB_DEV(dev::event_synchronize(b_));
   float ms = 0.0f;
   KB_DEV(dev::event_elapsed_ms(&ms, a_, b_));
   return static_cast<double>(ms);
}

Stats summarize(std::vector<double> ms)
{
   Stats s;
   s.samples = static_cast<int>(ms.size());
   if (ms.empty()) return s;
   std::sort(ms.begin(), ms.end());
   const size_t n = ms.size();
   s.median_ms    = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
   s.min_ms       = ms.front();
   s.max_ms       = ms.back();
   return s;
}

// ---- host helpers ---------------------------------------------------------------------------

void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& f)
{
   if (n <= 0) return;
   const int64_t hw      = std::max(1u, std::thread::hardware_concurrency());
   const int64_t threads = std::min<int64_t>(hw, std::max<int64_t>(1, n / 4096));
   if (threads <= 1)
   {
      f(0, n);
      return;
   }
   std::vector<std::thread>        pool;
   std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
   const int64_t                   chunk = (n + threads - 1) / threads;
   for (int64_t t = 0; t < threads; ++t)
   {
      const int64_t b = t * chunk, e = std::min(n, b + chunk);
      if (b >= e) break;
      pool.emplace_back([&f, &errors, t, b, e] {
         try
         {
            f(b, e);
         }
         catch (...)
         {
            errors[static_cast<size_t>(t)] = std::current_exception();
         }
      });
   }
   for (auto& th : pool) th.join();
   for (auto& err : errors)
      if (err) std::rethrow_exception(err);
}

void parallel_chunks(int64_t nchunks, const std::function<void(int64_t)>& f)
{
   if (nchunks <= 0) return;
   const int64_t                   threads = std::min<int64_t>(std::max(1u, std::thread::hardware_concurrency()), nchunks);
   std::atomic<int64_t>            next{0};
   std::vector<std::thread>        pool;
   std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
   auto                            work = [&](int64_t t) {
      try
      {
         for (int64_t c = next++; c < nchunks; c = next++) f(c);
      }
      catch (...)
      {
         errors[static_cast<size_t>(t)] = std::current_exception();
      }
   };
   for (int64_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
   work(0);
   for (auto& th : pool) th.join();
   for (auto& err : errors)
      if (err) std::rethrow_exception(err);
}

} // namespace amgt::kbench
