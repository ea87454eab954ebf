// Loading the device kernels of the library that holds the plugin (libHYPRE of the drop-in:
// hypre's own kernels and the plugin's) into the current device context ahead of their first
// launch, on the preload's thread (backend_device_preload.cpp).
//
// Under CUDA's lazy loading (the default since CUDA 12.2) a kernel is loaded at its first
// launch: a process's first BoomerAMG setup loads a few hundred of hypre's kernels (strength,
// PMIS, interpolation, its products and the CUB/Thrust passes of each source file) inside the
// setup. The runtime keeps one library per source file's device image; a kernel's host stub
// carries the kernel's mangled name, so the library's symbol table leads to one kernel of each
// image, the driver to its library, and the library to every kernel in it.
#pragma once

#include "device/kernel_loader.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace amgt::glue {

// A function of the ELF image (shared object or executable) that holds `inside`: its name and
// its address in this process. From the file's full symbol table (.symtab, which has the
// local functions of each source file too), or its dynamic one where the file is stripped;
// only names that begin with `prefix` (C++ names: "_Z"). Throws amgt::Error where the image
// cannot be found or read, or is not a 64-bit ELF file of this machine's byte order.
struct ImageFunction
{
   std::string name;
   uintptr_t   address = 0;
};
std::vector<ImageFunction> image_functions(const void* inside, const char* prefix = "_Z");

// The addresses of the image's C++ functions (as image_functions finds them), those of
// image_priority 0 first, each group in the symbol table's order, without copying a name;
// `functions` (if given) is set to their count. Throws as image_functions.
std::vector<uintptr_t> functions_by_priority(const void* inside, long* functions = nullptr);

// What load_image_kernels did: the device layer's counts (stubs, images, kernels loaded,
// stopped, problem) and the image's side.
struct KernelLoad : device::KernelImageLoad
{
   long   functions = 0; // functions of the image looked up (image_functions)
   double seconds   = 0.0;
};

// GPU builds on CUDA 12.5 or newer: loads every kernel of every device image of the library
// that holds this code into the calling thread's current context, the images of hypre's
// BoomerAMG path first (their host stubs' names say so: image_priority), checking `stop`
// between kernels.
// Never throws; CPU and HIP builds load nothing and say so in `problem`.
KernelLoad load_image_kernels(const std::atomic<bool>* stop) noexcept;

// The order in which the functions are looked at (and each device image loaded when the first
// of its kernels is met): lower first. 0 for a name of BoomerAMG's setup and solve
// (coarsening, strength, interpolation, products, relaxation, CSR/ParCSR and vector
// operations, the plugin's), 1 for the rest.
// Only the name's first kPriorityNameHead characters are searched (a mangled name's own part).
constexpr size_t kPriorityNameHead = 64;
int              image_priority(std::string_view name);

} // namespace amgt::glue
