// Loading the kernels of the process's device images into the current context
// (device/kernel_loader.h).
#include "device/kernel_loader.h"

#include "device/backend.h"

#include <set>

#if !defined(AMGT_DEVICE_HIP) && defined(CUDART_VERSION) && CUDART_VERSION >= 12050
#include <cuda.h>
#define AMGT_KERNEL_LOADER 1
#endif

namespace amgt::device {

#if defined(AMGT_KERNEL_LOADER)

namespace {

using KernelGetLibrary   = CUresult (*)(CUlibrary*, CUkernel);
using LibraryKernelCount = CUresult (*)(unsigned int*, CUlibrary);
using LibraryKernels     = CUresult (*)(CUkernel*, unsigned int, CUlibrary);
using KernelGetFunction  = CUresult (*)(CUfunction*, CUkernel);

// A driver entry point through the runtime (no link against the driver library)
template <class F>
F driver_entry(const char* name)
{
   void*                           p = nullptr;
   cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
   if (cudaGetDriverEntryPointByVersion(name, &p, 12050, cudaEnableDefault, &q) != cudaSuccess ||
       q != cudaDriverEntryPointSuccess)
   {
      (void)cudaGetLastError();
      return nullptr;
   }
   return reinterpret_cast<F>(p);
}

void load(KernelImageLoad& r, const std::vector<uintptr_t>& addresses, const std::atomic<bool>* stop)
{
   const auto get_library = driver_entry<KernelGetLibrary>("cuKernelGetLibrary");
   const auto count_of    = driver_entry<LibraryKernelCount>("cuLibraryGetKernelCount");
   const auto kernels_of  = driver_entry<LibraryKernels>("cuLibraryEnumerateKernels");
   const auto load_one    = driver_entry<KernelGetFunction>("cuKernelGetFunction");
   if (!get_library || !count_of || !kernels_of || !load_one)
   {
      r.problem = "the driver has no cuKernelGetLibrary/cuLibraryEnumerateKernels (older than CUDA 12.5)";
      return;
   }
   const auto stopped = [&] {
      if (!stop || !stop->load(std::memory_order_relaxed)) return false;
      r.stopped = true;
      return true;
   };
   std::set<CUlibrary>   images;
   std::vector<CUkernel> kernels;
   for (size_t i = 0; i < addresses.size(); ++i)
   {
      if ((i & 255) == 0 && stopped()) return;
      cudaKernel_t k = nullptr;
      if (cudaGetKernel(&k, reinterpret_cast<const void*>(addresses[i])) != cudaSuccess || k == nullptr)
      {
         (void)cudaGetLastError(); // not a kernel: this thread's error only
         continue;
      }
      ++r.stubs;
      CUlibrary lib = nullptr;
      if (get_library(&lib, reinterpret_cast<CUkernel>(k)) != CUDA_SUCCESS || lib == nullptr) continue;
      if (!images.insert(lib).second) continue; // its kernels are loaded already
      ++r.libraries;
      unsigned int n = 0;
      if (count_of(&n, lib) != CUDA_SUCCESS || n == 0) continue;
      kernels.assign(n, nullptr);
      if (kernels_of(kernels.data(), n, lib) != CUDA_SUCCESS) continue;
      r.kernels += n;
      for (CUkernel kernel : kernels)
      {
         if (stopped()) return;
         CUfunction fn = nullptr;
         if (load_one(&fn, kernel) == CUDA_SUCCESS) ++r.loaded;
         else ++r.failed;
      }
   }
}

} // namespace

KernelImageLoad load_kernel_images(const std::vector<uintptr_t>& addresses, const std::atomic<bool>* stop) noexcept
{
   KernelImageLoad r;
   try
   {
      load(r, addresses, stop);
   }
   catch (...) // std::bad_alloc of the sets: what was loaded stays loaded
   {
      r.problem = "out of host memory";
   }
   (void)cudaGetLastError();
   return r;
}

#else

KernelImageLoad load_kernel_images(const std::vector<uintptr_t>&, const std::atomic<bool>*) noexcept
{
   KernelImageLoad r;
#if defined(AMGT_DEVICE_HIP)
   r.problem = "HIP builds load their kernels at first launch";
#else
   r.problem = "needs CUDA 12.5 or newer";
#endif
   return r;
}

#endif

} // namespace amgt::device
