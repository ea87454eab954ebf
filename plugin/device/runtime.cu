#include "device/runtime.h"

#include "common/error.h"

#include <mutex>
#include <new>
#include <string>

namespace amgt::device {

namespace {
void* runtime_alloc(size_t bytes, void*)
{
   void* p = nullptr;
   if (device::device_malloc(&p, bytes) != device::kSuccess)
   {
      (void)device::last_error(); // clear: an allocation failure is reported by the nullptr
      return nullptr;
   }
   return p;
}
void runtime_release(void* p, void*) { (void)device::device_free(p); } // nothing to report to
} // namespace

Allocator runtime_allocator()
{
   Allocator a;
   a.alloc   = runtime_alloc;
   a.release = runtime_release;
   return a;
}

DeviceLimits device_limits()
{
   // A device's attributes do not change while the process runs: read once per device (the
   // conversions, the statistics and every lent matvec of a solve ask); after that a call is
   // current_device and an acquire load (call_once's done path), no lock. A read that throws
   // leaves the device unread, to be tried again.
   constexpr int         kDevices = 64;
   static std::once_flag once[kDevices];
   static DeviceLimits   known[kDevices];
   int                   dev = 0;
   AMGT_DEVICE_CHECK(current_device(&dev));
   auto read = [dev](DeviceLimits& l) {
      AMGT_DEVICE_CHECK(sm_count(&l.sms, dev));
      AMGT_DEVICE_CHECK(smem_optin(&l.smem_optin, dev));
      AMGT_DEVICE_CHECK(l2_bytes(&l.l2_bytes, dev));
   };
   if (dev < 0 || dev >= kDevices)
   {
      DeviceLimits l;
      read(l);
      return l;
   }
   std::call_once(once[dev], [&] { read(known[dev]); });
   return known[dev];
}

void check(int status, const char* what, const char* file, int line)
{
   if (status == static_cast<int>(device::kSuccess)) { return; }
   const Status err = static_cast<Status>(status);
   (void)last_error(); // clear the sticky error: it must not leak into an unrelated later launch
   if (is_out_of_memory(err)) { throw std::bad_alloc(); }
   throw Error(std::string(what) + " failed: " + error_name(err) + " (" + error_string(err) + ")",
               file, line);
}

void synchronize(Stream s)
{
   AMGT_DEVICE_CHECK(device::stream_synchronize(s));
}

void fill_bytes(void* p, int byte, size_t bytes, Stream s)
{
   if (bytes > 0) AMGT_DEVICE_CHECK(device::memset_async(p, byte, bytes, s));
}

EventTimer::EventTimer()
{
   device::Event a = nullptr, b = nullptr;
   AMGT_DEVICE_CHECK(device::event_create(&a));
   const device::Status e = device::event_create(&b);
   if (e != device::kSuccess)
   {
      (void)device::event_destroy(a);
      AMGT_DEVICE_CHECK(e);
   }
   start_ = a;
   stop_  = b;
}

EventTimer::~EventTimer()
{
   (void)device::event_destroy(static_cast<device::Event>(start_)); // a destructor reports nothing
   (void)device::event_destroy(static_cast<device::Event>(stop_));
}

void EventTimer::start(Stream s)
{
   AMGT_DEVICE_CHECK(device::event_record(static_cast<device::Event>(start_), s));
}

double EventTimer::stop(Stream s)
{
   AMGT_DEVICE_CHECK(device::event_record(static_cast<device::Event>(stop_), s));
   AMGT_DEVICE_CHECK(device::event_synchronize(static_cast<device::Event>(stop_)));
   float ms = 0.0f;
   AMGT_DEVICE_CHECK(device::event_elapsed_ms(&ms, static_cast<device::Event>(start_),
                                          static_cast<device::Event>(stop_)));
   return 1e-3 * ms;
}

int current_device_id()
{
   int dev = 0;
   AMGT_DEVICE_CHECK(current_device(&dev));
   return dev;
}

void use_device(int device)
{
   AMGT_DEVICE_CHECK(set_device(device));
}

Stream side_stream()
{
   // one per process; a failure is thrown to every caller (the static is not set)
   static Stream s = [] {
      Stream created = nullptr;
      AMGT_DEVICE_CHECK(stream_create_non_blocking(&created));
      return created;
   }();
   return s;
}

Marker::Marker()
{
   device::Event e = nullptr;
   AMGT_DEVICE_CHECK(device::event_create_untimed(&e));
   event_ = e;
}

Marker::~Marker()
{
   (void)device::event_destroy(static_cast<device::Event>(event_)); // a destructor reports nothing
}

void Marker::record(Stream s)
{
   AMGT_DEVICE_CHECK(device::event_record(static_cast<device::Event>(event_), s));
}

void Marker::wait(Stream waiter) const
{
   AMGT_DEVICE_CHECK(device::stream_wait_event(waiter, static_cast<device::Event>(event_)));
}

bool order_after(Stream waiter, Stream producer) noexcept
{
   if (waiter == producer) return true;
   // one event per thread, reused: a wait takes the event's state at the time of the call
   thread_local device::Event e = nullptr;
   if (!e && device::event_create_untimed(&e) != device::kSuccess)
   {
      (void)device::last_error();
      e = nullptr;
      return false;
   }
   if (device::event_record(e, producer) != device::kSuccess ||
       device::stream_wait_event(waiter, e) != device::kSuccess)
   {
      (void)device::last_error();
      return false;
   }
   return true;
}

void throw_device_out_of_memory(size_t)
{
   throw std::bad_alloc();
}

} // namespace amgt::device
