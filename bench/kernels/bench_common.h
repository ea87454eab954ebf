// Shared pieces of amgt-kernel-bench: error checks, host/device CSR, the device allocator all
// three implementations share, event timing, a host parallel loop.
//
// Everything runs on the legacy default stream (kStream = 0). hypre enqueues on its own
// compute stream, which it creates as a blocking stream (the runtime's default flags); the
// legacy stream is implicitly ordered against blocking streams, so events recorded on stream 0
// bracket hypre's work as well as ours and the vendor library's, and memory freed
// stream-ordered on stream 0 is never reused before hypre's kernels that read it are done.
// (HIP's null stream is ordered against blocking streams in the same way.)
//
// The device runtime is reached through the plugin's device layer (device/backend.h), the
// vendor's sparse library through vendor_sparse.h: nothing here names CUDA or HIP.
#pragma once

#include "device/backend.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace amgt::kbench {

namespace dev = amgt::device;

constexpr dev::Stream kStream = nullptr;

class BenchError : public std::runtime_error
{
public:
   using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_device(dev::Status e, const char* what, const char* file, int line);

// A device-runtime call (through the device layer) that must succeed.
#define KB_DEV(call)                                                                               \
   do {                                                                                            \
      const ::amgt::device::Status kb_e_ = (call);                                                 \
      if (kb_e_ != ::amgt::device::kSuccess) ::amgt::kbench::throw_device(kb_e_, #call, __FILE__, __LINE__); \
   } while (0)

// Synchronises the device and throws if any earlier asynchronous work failed. A sticky error
// (illegal address, ...) leaves the context unusable: the caller should stop.
void check_device(const char* where);
bool is_sticky(dev::Status e);

// ---- host CSR --------------------------------------------------------------------------

struct HostCsr
{
   int32_t              nrows = 0;
   int32_t              ncols = 0;
   std::vector<int32_t> row_ptr{0};
   std::vector<int32_t> col;
   std::vector<double>  val;

   int64_t nnz() const { return static_cast<int64_t>(col.size()); }
};

// Fraction of a's rows whose columns are not in ascending order (0 without rows).
double unsorted_row_fraction(const HostCsr& a);
void sort_rows(HostCsr& a); // in place, stable, parallel over rows
// Throws unless row_ptr/col are well formed for nrows x ncols.
void validate(const HostCsr& a, const std::string& name);

// Minimal bytes of one CSR SpMV with beta != 0: values + columns (12 per nonzero), row
// offsets, x read once, y read and written.
double csr_spmv_bytes(int64_t nrows, int64_t ncols, int64_t nnz);

// ---- device memory ---------------------------------------------------------------------

// pool: dev::malloc_async/free_async (cudaMallocAsync/cudaFreeAsync, or HIP's) on kStream
//       from the device's default memory pool with the release threshold raised (allocation
//       costs ~nothing once the pool has grown);
// cuda: dev::device_malloc/device_free (cudaMalloc/cudaFree, or HIP's: stock hypre's
//       default; the free synchronises the device). The mode keeps its name on AMD.
enum class AllocMode
{
   pool,
   cuda
};
const char* to_string(AllocMode m);

void      set_alloc_mode(AllocMode m); // before the first allocation
AllocMode alloc_mode();
void*     dev_alloc_nothrow(size_t bytes) noexcept; // nullptr for 0 bytes or on failure
void*     dev_alloc(size_t bytes);                  // throws std::bad_alloc-like BenchError
// Frees a pointer from dev_alloc*, or one from dev::device_malloc (hypre may free memory
// it allocated before its allocator was redirected to ours).
void dev_free(void* p) noexcept;
void trim_pool() noexcept; // hands unused pool memory back (between matrices)
int  free_errors();        // frees that reported an error (printed once each)

template <class T>
class DevBuf
{
public:
   DevBuf() = default;
   explicit DevBuf(size_t count) : count_(count)
   {
      if (count_ > 0) ptr_ = static_cast<T*>(dev_alloc(count_ * sizeof(T)));
   }
   DevBuf(const DevBuf&)            = delete;
   DevBuf& operator=(const DevBuf&) = delete;
   DevBuf(DevBuf&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
   DevBuf& operator=(DevBuf&& o) noexcept
   {
      if (this != &o)
      {
         reset();
         ptr_   = std::exchange(o.ptr_, nullptr);
         count_ = std::exchange(o.count_, 0);
      }
      return *this;
   }
   ~DevBuf() { reset(); }
   void reset() noexcept
   {
      if (ptr_) dev_free(ptr_);
      ptr_   = nullptr;
      count_ = 0;
   }
   T*       get() { return ptr_; }
   const T* get() const { return ptr_; }
   size_t   size() const { return count_; }

   void upload(const std::vector<T>& h)
   {
      if (h.size() != count_) throw BenchError("DevBuf::upload: size mismatch");
      if (count_) KB_DEV(dev::memcpy_blocking(ptr_, h.data(), count_ * sizeof(T), dev::Copy::to_device));
   }
   std::vector<T> download() const
   {
      std::vector<T> h(count_);
      if (count_) KB_DEV(dev::memcpy_blocking(h.data(), ptr_, count_ * sizeof(T), dev::Copy::to_host));
      return h;
   }

private:
   T*     ptr_   = nullptr;
   size_t count_ = 0;
};

struct DeviceCsr
{
   int32_t          nrows = 0;
   int32_t          ncols = 0;
   int64_t          nnz   = 0;
   DevBuf<int32_t>  row_ptr; // nrows + 1
   DevBuf<int32_t>  col;     // nnz
   DevBuf<double>   val;     // nnz
};

DeviceCsr upload(const HostCsr& h);
// Copies device CSR arrays (any owner) to the host.
HostCsr download(int32_t nrows, int32_t ncols, int64_t nnz, const int32_t* row_ptr,
                 const int32_t* col, const double* val);
inline HostCsr download(const DeviceCsr& d)
{
   return download(d.nrows, d.ncols, d.nnz, d.row_ptr.get(), d.col.get(), d.val.get());
}

// ---- timing ------------------------------------------------------------------------------

class EventPair
{
public:
   EventPair();
   ~EventPair();
   EventPair(const EventPair&)            = delete;
   EventPair& operator=(const EventPair&) = delete;
   void   start();
   void   stop();
   double elapsed_ms(); // waits for the stop event

private:
   dev::Event a_ = nullptr;
   dev::Event b_ = nullptr;
};

// One timed sample of time_interleaved: run() between ev's two events; what run() returns (a
// product, a conversion) is destroyed after the stop event, outside the timed region.
template <class F>
std::function<double()> event_sampler(EventPair& ev, F run)
{
   return [&ev, run]() mutable {
      ev.start();
      auto result = run();
      ev.stop();
      (void)result;
      return ev.elapsed_ms();
   };
}

struct Stats
{
   double median_ms = 0.0;
   double min_ms    = 0.0;
   double max_ms    = 0.0;
   int    samples   = 0;
};
Stats summarize(std::vector<double> ms);

// ---- host helpers ---------------------------------------------------------------------------

// f(begin, end) over [0, n) split into contiguous chunks on all hardware threads.
void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& f);
// f(chunk) for every chunk in [0, nchunks), chunks handed out to all hardware threads.
void parallel_chunks(int64_t nchunks, const std::function<void(int64_t)>& f);

} // namespace amgt::kbench
