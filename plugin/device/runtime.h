// The thin device layer's host side: memory from the embedding library's allocator, device
// limits, error checks, timing. The vendor's runtime is reached only through
// device/backend.h (CUDA or HIP, chosen at compile time); this header and its users name
// neither.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "device/backend.h" // Stream (void* in a build without a device runtime)

namespace amgt::device {

// Device memory comes from the embedding library's allocator (hypre's pools, Umpire or
// async allocators stay in charge); alloc returns nullptr on failure.
struct Allocator
{
   void* (*alloc)(size_t bytes, void* ctx)   = nullptr;
   void  (*release)(void* ptr, void* ctx)    = nullptr;
   void* ctx                                 = nullptr;
};

// The runtime's own allocation (device_malloc/device_free), for tests and benchmarks
// outside hypre.
Allocator runtime_allocator();

// What launch configurations need of the current device.
struct DeviceLimits
{
   int sms        = 1;         // multiprocessors
   int smem_optin = 48 * 1024; // most dynamic shared memory a block may ask for (opt-in)
   int l2_bytes   = 0;         // L2 cache (0: unknown)
};
// Of the current device; read from the runtime once per device, then remembered.
DeviceLimits device_limits();

// Throws amgt::Error naming the call and the device runtime's error (std::bad_alloc for
// out-of-memory); clears the sticky last error so
// it cannot leak into an unrelated later launch.
void check(int status, const char* what, const char* file, int line);

#define AMGT_DEVICE_CHECK(call) ::amgt::device::check(static_cast<int>(call), #call, __FILE__, __LINE__)
#define AMGT_DEVICE_CHECK_LAUNCH(name) \
   ::amgt::device::check(static_cast<int>(::amgt::device::last_error()), name, __FILE__, __LINE__)

// Waits for everything enqueued on s (throws amgt::Error on a device error).
void synchronize(Stream s);

// Sets `bytes` bytes at p to `byte`, enqueued on s.
void fill_bytes(void* p, int byte, size_t bytes, Stream s);

// Device time between start(s) and stop(s), from two events recorded on s.
class EventTimer
{
public:
   EventTimer(); // throws amgt::Error if the events cannot be created
   ~EventTimer();
   EventTimer(const EventTimer&)            = delete;
   EventTimer& operator=(const EventTimer&) = delete;
   void   start(Stream s);
   double stop(Stream s); // seconds; waits for the second event

private:
   void* start_ = nullptr;
   void* stop_  = nullptr;
};

// Work of a second host thread beside the embedding library's (hypre_glue/prepare_queue.h).
// The current device of the calling thread, and making it another thread's.
int  current_device_id();    // throws amgt::Error
void use_device(int device); // throws amgt::Error
// A stream of the plugin's own, non-blocking: the legacy default stream's implicit
// synchronisation (blocking copies of the embedding library) does not wait for it, nor it for
// them. Created once per process on first use, never destroyed.
Stream side_stream(); // throws amgt::Error
// An event without timing: record() on one stream, then wait() makes another stream wait for
// what the first had enqueued at the record (no host wait).
class Marker
{
public:
   Marker(); // throws amgt::Error
   ~Marker();
   Marker(const Marker&)            = delete;
   Marker& operator=(const Marker&) = delete;
   void record(Stream s);
   void wait(Stream waiter) const;

private:
   void* event_ = nullptr;
};
// Makes `waiter` wait for everything enqueued on `producer` so far; false when the runtime
// refused (nothing thrown: an allocator callback calls it).
bool order_after(Stream waiter, Stream producer) noexcept;

// One 32-bit value of the device read back without a host wait where it is enqueued: post()
// copies it into page-locked host memory on s and records an event behind the copy; value()
// waits for that event (at once where the stream has passed it, as after any later
// synchronisation of the embedding library) and returns the value. The page-locked words
// come from one slab per process (kReadBackSlots of them, made at the first post, never
// freed); where none is free or page-locked memory cannot be had, post() copies and waits at
// once, as a plain read-back does (waited() tells). Move-only; destroying a posted one waits
// for its copy, so the device word may be released after it.
constexpr int kReadBackSlots = 1024;
class ReadBack
{
public:
   ReadBack() = default;
   ~ReadBack();
   ReadBack(const ReadBack&)            = delete;
   ReadBack& operator=(const ReadBack&) = delete;
   ReadBack(ReadBack&& o) noexcept { swap(o); }
   ReadBack& operator=(ReadBack&& o) noexcept
   {
      ReadBack tmp(std::move(o));
      swap(tmp);
      return *this;
   }
   // Enqueues the copy of *device_value on s (throws amgt::Error; posted() again replaces the
   // value read before, after waiting for its copy).
   void post(const int32_t* device_value, Stream s);
   bool posted() const { return posted_; }
   // The value posted (waits for its copy; throws amgt::Error on a device error or when
   // nothing was posted).
   int32_t value();
   // Whether the last post() had to wait at once (no page-locked word free).
   bool waited() const { return waited_; }

private:
   void swap(ReadBack& o) noexcept;
   void settle() noexcept; // waits for a pending copy, gives its word back

   int32_t* slot_   = nullptr; // page-locked word of the slab, while posted
   void*    event_  = nullptr;
   int32_t  held_   = 0; // the value, once known
   bool     posted_ = false;
   bool     known_  = false; // held_ is the value (waited at once, or value() ran)
   bool     waited_ = false;
};

// Owning, move-only device array of T from an Allocator; freed on destruction.
template <class T>
class Buffer
{
public:
   Buffer() = default;
   Buffer(size_t count, const Allocator& a) : alloc_(a), count_(count)
   {
      if (count_ == 0) { return; }
      ptr_ = static_cast<T*>(alloc_.alloc(count_ * sizeof(T), alloc_.ctx));
      if (!ptr_) { throw_out_of_memory(count_ * sizeof(T)); }
   }
   Buffer(const Buffer&)            = delete;
   Buffer& operator=(const Buffer&) = delete;
   Buffer(Buffer&& o) noexcept { swap(o); }
   Buffer& operator=(Buffer&& o) noexcept
   {
      Buffer tmp(std::move(o));
      swap(tmp);
      return *this;
   }
   ~Buffer()
   {
      if (ptr_) { alloc_.release(ptr_, alloc_.ctx); }
   }
   T*       get() { return ptr_; }
   const T* get() const { return ptr_; }
   size_t   size() const { return count_; }
   // Gives up ownership (the embedding library frees the array itself).
   T* release()
   {
      T* p  = ptr_;
      ptr_  = nullptr;
      count_ = 0;
      return p;
   }

private:
   void swap(Buffer& o) noexcept
   {
      std::swap(alloc_, o.alloc_);
      std::swap(ptr_, o.ptr_);
      std::swap(count_, o.count_);
   }
   [[noreturn]] static void throw_out_of_memory(size_t bytes);

   Allocator alloc_{};
   T*        ptr_   = nullptr;
   size_t    count_ = 0;
};

[[noreturn]] void throw_device_out_of_memory(size_t bytes);

template <class T>
void Buffer<T>::throw_out_of_memory(size_t bytes)
{
   throw_device_out_of_memory(bytes);
}

} // namespace amgt::device
