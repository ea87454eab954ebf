#include "device/runtime.h"

#include "common/error.h"

#include <mutex>
#include <new>
#include <string>
#include <vector>

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

namespace {
// The page-locked words of ReadBack: one slab per process, handed out under a lock.
struct ReadBackSlab
{
   std::mutex            mutex;
   std::vector<int32_t*> free_words;
   bool                  tried = false; // the slab was asked for (made or refused)

   int32_t* take()
   {
      std::lock_guard<std::mutex> lock(mutex);
      if (!tried)
      {
         tried   = true;
         void* p = nullptr;
         if (device::host_alloc_pinned(&p, kReadBackSlots * sizeof(int32_t)) != device::kSuccess || !p)
         {
            (void)device::last_error(); // none: every ReadBack waits at once
            return nullptr;
         }
         free_words.reserve(kReadBackSlots);
         for (int i = kReadBackSlots - 1; i >= 0; --i) free_words.push_back(static_cast<int32_t*>(p) + i);
      }
      if (free_words.empty()) return nullptr;
      int32_t* w = free_words.back();
      free_words.pop_back();
      return w;
   }
   void give(int32_t* w) noexcept
   {
      std::lock_guard<std::mutex> lock(mutex);
      free_words.push_back(w); // capacity reserved: no allocation
   }
};
ReadBackSlab& read_back_slab()
{
   static ReadBackSlab* slab = new ReadBackSlab(); // never destroyed: ReadBacks may outlive statics
   return *slab;
}
} // namespace

ReadBack::~ReadBack()
{
   settle();
   if (event_) (void)device::event_destroy(static_cast<device::Event>(event_));
}

void ReadBack::swap(ReadBack& o) noexcept
{
   std::swap(slot_, o.slot_);
   std::swap(event_, o.event_);
   std::swap(held_, o.held_);
   std::swap(posted_, o.posted_);
   std::swap(known_, o.known_);
   std::swap(waited_, o.waited_);
}

void ReadBack::settle() noexcept
{
   if (!slot_) return;
   if (device::event_synchronize(static_cast<device::Event>(event_)) != device::kSuccess)
   {
      (void)device::last_error(); // a destructor reports nothing; value() reported it
   }
   read_back_slab().give(slot_);
   slot_ = nullptr;
}

void ReadBack::post(const int32_t* device_value, Stream s)
{
   settle();
   posted_ = known_ = waited_ = false;
   if (!event_)
   {
      device::Event e = nullptr;
      AMGT_DEVICE_CHECK(device::event_create_untimed(&e));
      event_ = e;
   }
   int32_t* w = read_back_slab().take();
   if (!w)
   {
      AMGT_DEVICE_CHECK(device::memcpy_async(&held_, device_value, sizeof held_, device::Copy::to_host, s));
      AMGT_DEVICE_CHECK(device::stream_synchronize(s));
      posted_ = known_ = waited_ = true;
      return;
   }
   const device::Status copied = device::memcpy_async(w, device_value, sizeof(int32_t), device::Copy::to_host, s);
   const device::Status recorded =
      copied == device::kSuccess ? device::event_record(static_cast<device::Event>(event_), s) : copied;
   if (recorded != device::kSuccess)
   {
      (void)device::stream_synchronize(s); // the copy may be queued: the word is free only after it
      read_back_slab().give(w);
      check(static_cast<int>(recorded), "ReadBack::post", __FILE__, __LINE__);
   }
   slot_   = w;
   posted_ = true;
}

int32_t ReadBack::value()
{
   AMGT_REQUIRE(posted_, "ReadBack::value: nothing was posted");
   if (!known_)
   {
      AMGT_DEVICE_CHECK(device::event_synchronize(static_cast<device::Event>(event_)));
      held_  = *slot_;
      known_ = true;
      read_back_slab().give(slot_);
      slot_ = nullptr;
   }
   return held_;
}

void throw_device_out_of_memory(size_t)
{
   throw std::bad_alloc();
}

} // namespace amgt::device
