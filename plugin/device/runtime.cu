#include "device/runtime.h"

#include "common/error.h"

#include <new>
#include <string>

namespace amgt::device {

namespace {
void* runtime_alloc(size_t bytes, void*)
{
   void* p = nullptr;
   if (cudaMalloc(&p, bytes) != cudaSuccess)
   {
      cudaGetLastError(); // clear: an allocation failure is reported by the nullptr
      return nullptr;
   }
   return p;
}
void runtime_release(void* p, void*) { cudaFree(p); }
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
   int dev = 0;
   AMGT_DEVICE_CHECK(cudaGetDevice(&dev));
   DeviceLimits l;
   AMGT_DEVICE_CHECK(cudaDeviceGetAttribute(&l.sms, cudaDevAttrMultiProcessorCount, dev));
   AMGT_DEVICE_CHECK(cudaDeviceGetAttribute(&l.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
   return l;
}

void check(int status, const char* what, const char* file, int line)
{
   if (status == static_cast<int>(cudaSuccess)) { return; }
   cudaError_t err = static_cast<cudaError_t>(status);
   cudaGetLastError();
   if (err == cudaErrorMemoryAllocation) { throw std::bad_alloc(); }
   throw Error(std::string(what) + " failed: " + cudaGetErrorName(err) + " (" +
                  cudaGetErrorString(err) + ")",
               file, line);
}

void synchronize(Stream s)
{
   AMGT_DEVICE_CHECK(cudaStreamSynchronize(s));
}

void fill_bytes(void* p, int byte, size_t bytes, Stream s)
{
   if (bytes > 0) AMGT_DEVICE_CHECK(cudaMemsetAsync(p, byte, bytes, s));
}

EventTimer::EventTimer()
{
   cudaEvent_t a = nullptr, b = nullptr;
   AMGT_DEVICE_CHECK(cudaEventCreate(&a));
   const cudaError_t e = cudaEventCreate(&b);
   if (e != cudaSuccess)
   {
      cudaEventDestroy(a);
      AMGT_DEVICE_CHECK(e);
   }
   start_ = a;
   stop_  = b;
}

EventTimer::~EventTimer()
{
   cudaEventDestroy(static_cast<cudaEvent_t>(start_));
   cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
}

void EventTimer::start(Stream s)
{
   AMGT_DEVICE_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(start_), s));
}

double EventTimer::stop(Stream s)
{
   AMGT_DEVICE_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(stop_), s));
   AMGT_DEVICE_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)));
   float ms = 0.0f;
   AMGT_DEVICE_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_),
                                          static_cast<cudaEvent_t>(stop_)));
   return 1e-3 * ms;
}

void throw_device_out_of_memory(size_t)
{
   throw std::bad_alloc();
}

} // namespace amgt::device
