// Loading the kernels of the process's device images into the current context ahead of their
// first launch (the vendor's side of hypre_glue/kernel_images.h, the only place that names the
// driver's library and kernel handles).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace amgt::device {

struct KernelImageLoad
{
   long        stubs     = 0; // addresses that are kernels' host stubs
   long        libraries = 0; // device images (one a CUDA source with kernels) they led to
   long        kernels   = 0; // kernels in those images
   long        loaded    = 0; // loaded into the current context
   long        failed    = 0; // kernels the driver would not load (they load at first launch)
   bool        stopped   = false; // `stop` was set before the last image was done
   std::string problem;           // empty, or why nothing was loaded
};

// For each address in order (host functions of the program or its libraries): where it is a
// kernel's host stub, the kernel's device image, and, the first time an image is met, every
// kernel of it loaded into the calling thread's current context. `stop` is read between
// kernels and every 256 addresses. CUDA 12.5 or newer (the driver's cuKernelGetLibrary and
// cuLibraryEnumerateKernels); HIP builds and older drivers load nothing and say so in
// `problem`. Never throws; leaves no error pending on the thread.
KernelImageLoad load_kernel_images(const std::vector<uintptr_t>& addresses, const std::atomic<bool>* stop) noexcept;

} // namespace amgt::device
