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

void throw_device_out_of_memory(size_t)
{
   throw std::bad_alloc();
}

} // namespace amgt::device
