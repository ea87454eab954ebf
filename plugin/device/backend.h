// The vendor backend of the thin device layer: the one header outside plugin/device/hip/
// that names the CUDA or HIP runtime. Everything else in the project (kernels' host code,
// the glue, tests, benchmarks) calls the names below, so a build picks its vendor here:
//
//   AMGT_DEVICE_HIP defined (the HIP build, scripts/hip_compile_check.sh) -> HIP runtime
//   otherwise, under nvcc or with AMGT_HAVE_DEVICE_RUNTIME                -> CUDA runtime
//   neither                                                              -> no runtime (CPU
//                                                                          build: only the
//                                                                          types exist)
//
// The wrappers are inline one-liners over the vendor call with the same arguments, so the
// CUDA build's code is what it was when the kernels called the runtime directly. They return
// the vendor's status (Status), to be checked with AMGT_DEVICE_CHECK (device/runtime.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

#if defined(__HIP_PLATFORM_AMD__) && !defined(AMGT_DEVICE_HIP)
#define AMGT_DEVICE_HIP 1
#endif

#if defined(AMGT_DEVICE_HIP)
// Host-only sources (.cpp compiled as C++, not HIP) get no platform macro from hipcc; the
// runtime headers need one.
#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_NVIDIA__)
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime.h>
#define AMGT_DEVICE_RUNTIME 1
#elif defined(__CUDACC__) || defined(AMGT_HAVE_DEVICE_RUNTIME)
#include <cuda_runtime.h>
#define AMGT_DEVICE_RUNTIME 1
#endif

namespace amgt::device {

#if defined(AMGT_DEVICE_HIP)
using Stream         = hipStream_t;
using Event          = hipEvent_t;
using Status         = hipError_t;
using FuncAttributes = hipFuncAttributes;
using DeviceProp     = hipDeviceProp_t;
using MemPool        = hipMemPool_t;
using Graph          = hipGraph_t;
using GraphExec      = hipGraphExec_t;
constexpr Status kSuccess = hipSuccess;
// For messages and reports: "HIP runtime 50221153", "hipEvents".
constexpr const char* kRuntimeName     = "HIP";
constexpr const char* kApiPrefix       = "hip";
constexpr const char* kMultiprocessors = "CUs"; // compute units
#elif defined(AMGT_DEVICE_RUNTIME)
using Stream         = cudaStream_t;
using Event          = cudaEvent_t;
using Status         = cudaError_t;
using FuncAttributes = cudaFuncAttributes;
using DeviceProp     = cudaDeviceProp;
using MemPool        = cudaMemPool_t;
using Graph          = cudaGraph_t;
using GraphExec      = cudaGraphExec_t;
constexpr Status kSuccess = cudaSuccess;
constexpr const char* kRuntimeName     = "CUDA";
constexpr const char* kApiPrefix       = "cuda";
constexpr const char* kMultiprocessors = "SMs";
#else
using Stream = void*;
#endif

#if defined(AMGT_DEVICE_RUNTIME)

// Which way an asynchronous copy goes (both ends are given explicitly, as the kernels
// always did: no unified-addressing inference).
enum class Copy
{
   to_host,
   to_device,
   on_device
};

#if defined(AMGT_DEVICE_HIP)

inline hipMemcpyKind copy_kind(Copy k)
{
   return k == Copy::to_host ? hipMemcpyDeviceToHost
          : k == Copy::to_device ? hipMemcpyHostToDevice
                                 : hipMemcpyDeviceToDevice;
}
inline Status      memcpy_async(void* dst, const void* src, size_t bytes, Copy k, Stream s) { return hipMemcpyAsync(dst, src, bytes, copy_kind(k), s); }
inline Status      memset_async(void* p, int byte, size_t bytes, Stream s) { return hipMemsetAsync(p, byte, bytes, s); }
inline Status      stream_synchronize(Stream s) { return hipStreamSynchronize(s); }
inline Status      last_error() { return hipGetLastError(); } // and clears it
template <class T>
inline Status      device_malloc(T** p, size_t bytes) { return hipMalloc(reinterpret_cast<void**>(p), bytes); }
inline Status      device_free(void* p) { return hipFree(p); }
inline Status      event_create(Event* e) { return hipEventCreate(e); }
inline Status      event_create_untimed(Event* e) { return hipEventCreateWithFlags(e, hipEventDisableTiming); }
inline Status      stream_wait_event(Stream s, Event e) { return hipStreamWaitEvent(s, e, 0); }
inline Status      event_destroy(Event e) { return hipEventDestroy(e); }
inline Status      event_record(Event e, Stream s) { return hipEventRecord(e, s); }
inline Status      event_synchronize(Event e) { return hipEventSynchronize(e); }
inline Status      host_alloc_pinned(void** p, size_t bytes) { return hipHostMalloc(p, bytes, hipHostMallocDefault); }
inline Status      event_elapsed_ms(float* ms, Event a, Event b) { return hipEventElapsedTime(ms, a, b); }
inline Status      current_device(int* d) { return hipGetDevice(d); }
inline Status      sm_count(int* n, int dev) { return hipDeviceGetAttribute(n, hipDeviceAttributeMultiprocessorCount, dev); }
inline Status      smem_optin(int* n, int dev) { return hipDeviceGetAttribute(n, hipDeviceAttributeSharedMemPerBlockOptin, dev); }
inline Status      l2_bytes(int* n, int dev) { return hipDeviceGetAttribute(n, hipDeviceAttributeL2CacheSize, dev); }
inline bool        is_out_of_memory(Status e) { return e == hipErrorOutOfMemory; }
inline const char* error_name(Status e) { return hipGetErrorName(e); }
inline const char* error_string(Status e) { return hipGetErrorString(e); }
// hipFunc* take the kernel as const void*.
template <class F>
inline Status func_attributes(FuncAttributes* a, F* kernel)
{
   return hipFuncGetAttributes(a, reinterpret_cast<const void*>(kernel));
}
template <class F>
inline Status set_max_dynamic_smem(F* kernel, int bytes)
{
   return hipFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                              hipFuncAttributeMaxDynamicSharedMemorySize, bytes);
}
template <class F>
inline Status occupancy_blocks_per_sm(int* blocks, F* kernel, int threads, size_t smem)
{
   return hipOccupancyMaxActiveBlocksPerMultiprocessor(blocks, reinterpret_cast<const void*>(kernel),
                                                       threads, smem);
}

// Host-side calls of the tests and benchmarks (blocking copies, streams, graphs, the
// stream-ordered pool, device queries). HIP 5.2 has every one of them; its stream-ordered
// allocator (hipMallocAsync, hipMemPool*) is marked beta there.
inline Status device_synchronize() { return hipDeviceSynchronize(); }
inline Status memcpy_blocking(void* dst, const void* src, size_t bytes, Copy k) { return hipMemcpy(dst, src, bytes, copy_kind(k)); }
inline Status device_count(int* n) { return hipGetDeviceCount(n); }
inline Status pci_bus_id(char* buf, int len, int d) { return hipDeviceGetPCIBusId(buf, len, d); }
// Whether device d's primary context is active: the application (or a library before ours)
// has already chosen or used that device. false when the runtime cannot tell.
inline bool device_context_active(int d)
{
   unsigned int flags  = 0;
   int          active = 0;
   return hipDevicePrimaryCtxGetState(d, &flags, &active) == hipSuccess && active != 0;
}
inline Status set_device(int d) { return hipSetDevice(d); }
inline Status stream_create_non_blocking(Stream* s) { return hipStreamCreateWithFlags(s, hipStreamNonBlocking); }
inline Status stream_destroy(Stream s) { return hipStreamDestroy(s); }
inline Status stream_begin_capture(Stream s) { return hipStreamBeginCapture(s, hipStreamCaptureModeGlobal); }
inline Status stream_end_capture(Stream s, Graph* g) { return hipStreamEndCapture(s, g); }
// HIP 5.2's hipGraphInstantiate takes an error node and a log buffer (CUDA 11's form); the
// flags form (CUDA 12's cudaGraphInstantiate) is hipGraphInstantiateWithFlags.
inline Status graph_instantiate(GraphExec* e, Graph g) { return hipGraphInstantiateWithFlags(e, g, 0); }
inline Status graph_launch(GraphExec e, Stream s) { return hipGraphLaunch(e, s); }
inline Status graph_exec_destroy(GraphExec e) { return hipGraphExecDestroy(e); }
inline Status graph_destroy(Graph g) { return hipGraphDestroy(g); }
inline Status mem_get_info(size_t* free_bytes, size_t* total_bytes) { return hipMemGetInfo(free_bytes, total_bytes); }
inline Status malloc_async(void** p, size_t bytes, Stream s) { return hipMallocAsync(p, bytes, s); }
inline Status free_async(void* p, Stream s) { return hipFreeAsync(p, s); }
inline Status default_mem_pool(MemPool* pool, int dev) { return hipDeviceGetDefaultMemPool(pool, dev); }
inline Status mem_pool_set_release_threshold(MemPool pool, uint64_t bytes) { return hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &bytes); }
inline Status mem_pool_trim_to(MemPool pool, size_t keep) { return hipMemPoolTrimTo(pool, keep); }
inline Status device_properties(DeviceProp* p, int dev) { return hipGetDeviceProperties(p, dev); }
inline Status runtime_version(int* v) { return hipRuntimeGetVersion(v); }
inline Status driver_version(int* v) { return hipDriverGetVersion(v); }
inline Status l2_cache_bytes(int* n, int dev) { return hipDeviceGetAttribute(n, hipDeviceAttributeL2CacheSize, dev); }
// The architecture as the vendor names it (gfx90a, ...).
inline void arch_name(const DeviceProp& p, char* buf, size_t n) { std::snprintf(buf, n, "%s", p.gcnArchName); }
// An error after which the device context is unusable (every later call fails too). HIP 5.2
// has no counterparts of CUDA's hardware-stack, illegal-instruction, misaligned-address,
// address-space and PC errors; a kernel fault there is reported as one of these.
inline bool is_sticky(Status e)
{
   switch (e)
   {
   case hipErrorIllegalAddress:
   case hipErrorLaunchFailure:
   case hipErrorAssert:
   case hipErrorECCNotCorrectable:
   case hipErrorLaunchTimeOut:
      return true;
   default:
      return false;
   }
}

#else // CUDA

inline cudaMemcpyKind copy_kind(Copy k)
{
   return k == Copy::to_host ? cudaMemcpyDeviceToHost
          : k == Copy::to_device ? cudaMemcpyHostToDevice
                                 : cudaMemcpyDeviceToDevice;
}
inline Status      memcpy_async(void* dst, const void* src, size_t bytes, Copy k, Stream s) { return cudaMemcpyAsync(dst, src, bytes, copy_kind(k), s); }
inline Status      memset_async(void* p, int byte, size_t bytes, Stream s) { return cudaMemsetAsync(p, byte, bytes, s); }
inline Status      stream_synchronize(Stream s) { return cudaStreamSynchronize(s); }
inline Status      last_error() { return cudaGetLastError(); } // and clears it
template <class T>
inline Status      device_malloc(T** p, size_t bytes) { return cudaMalloc(reinterpret_cast<void**>(p), bytes); }
inline Status      device_free(void* p) { return cudaFree(p); }
inline Status      event_create(Event* e) { return cudaEventCreate(e); }
inline Status      event_create_untimed(Event* e) { return cudaEventCreateWithFlags(e, cudaEventDisableTiming); }
inline Status      stream_wait_event(Stream s, Event e) { return cudaStreamWaitEvent(s, e, 0); }
inline Status      event_destroy(Event e) { return cudaEventDestroy(e); }
inline Status      event_record(Event e, Stream s) { return cudaEventRecord(e, s); }
inline Status      event_synchronize(Event e) { return cudaEventSynchronize(e); }
inline Status      host_alloc_pinned(void** p, size_t bytes) { return cudaMallocHost(p, bytes); }
inline Status      event_elapsed_ms(float* ms, Event a, Event b) { return cudaEventElapsedTime(ms, a, b); }
inline Status      current_device(int* d) { return cudaGetDevice(d); }
inline Status      sm_count(int* n, int dev) { return cudaDeviceGetAttribute(n, cudaDevAttrMultiProcessorCount, dev); }
inline Status      smem_optin(int* n, int dev) { return cudaDeviceGetAttribute(n, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev); }
inline Status      l2_bytes(int* n, int dev) { return cudaDeviceGetAttribute(n, cudaDevAttrL2CacheSize, dev); }
inline bool        is_out_of_memory(Status e) { return e == cudaErrorMemoryAllocation; }
inline const char* error_name(Status e) { return cudaGetErrorName(e); }
inline const char* error_string(Status e) { return cudaGetErrorString(e); }
// cudaFunc* are templates on the kernel's type in the runtime header (no casts needed); the
// nvcc-only overloads are reached only from CUDA sources, where the kernels are.
template <class F>
inline Status func_attributes(FuncAttributes* a, F* kernel)
{
   return cudaFuncGetAttributes(a, kernel);
}
template <class F>
inline Status set_max_dynamic_smem(F* kernel, int bytes)
{
   return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}
template <class F>
inline Status occupancy_blocks_per_sm(int* blocks, F* kernel, int threads, size_t smem)
{
   return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, threads, smem);
}

// Host-side calls of the tests and benchmarks (see the HIP branch above).
inline Status device_synchronize() { return cudaDeviceSynchronize(); }
// memcpy_blocking: the runtime's blocking copy (cudaMemcpy, with its synchronisation rules).
inline Status memcpy_blocking(void* dst, const void* src, size_t bytes, Copy k) { return cudaMemcpy(dst, src, bytes, copy_kind(k)); }
inline Status device_count(int* n) { return cudaGetDeviceCount(n); }
inline Status pci_bus_id(char* buf, int len, int d) { return cudaDeviceGetPCIBusId(buf, len, d); }
// Whether device d's primary context is active: the application (or a library before ours)
// has already chosen or used that device (cudaSetDevice creates it since CUDA 12). The runtime
// has no query of its own; the driver's cuDevicePrimaryCtxGetState is reached through the
// runtime's entry-point lookup, so nothing links libcuda. false when either cannot tell.
inline bool device_context_active(int d)
{
   using GetState = int (*)(int, unsigned int*, int*); // CUresult (CUdevice, unsigned*, int*)
   void*                           fn     = nullptr;
   cudaDriverEntryPointQueryResult found  = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
   const Status status = cudaGetDriverEntryPointByVersion("cuDevicePrimaryCtxGetState", &fn, 12000, cudaEnableDefault, &found);
#else // the versioned lookup is CUDA 12.5's; before it, the unversioned one (12.0's ABI of the call)
   const Status status = cudaGetDriverEntryPoint("cuDevicePrimaryCtxGetState", &fn, cudaEnableDefault, &found);
#endif
   if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || !fn)
   {
      (void)cudaGetLastError();
      return false;
   }
   unsigned int flags  = 0;
   int          active = 0;
   return reinterpret_cast<GetState>(fn)(d, &flags, &active) == 0 && active != 0;
}
inline Status set_device(int d) { return cudaSetDevice(d); }
inline Status stream_create_non_blocking(Stream* s) { return cudaStreamCreateWithFlags(s, cudaStreamNonBlocking); }
inline Status stream_destroy(Stream s) { return cudaStreamDestroy(s); }
inline Status stream_begin_capture(Stream s) { return cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal); }
inline Status stream_end_capture(Stream s, Graph* g) { return cudaStreamEndCapture(s, g); }
inline Status graph_instantiate(GraphExec* e, Graph g) { return cudaGraphInstantiate(e, g, 0); }
inline Status graph_launch(GraphExec e, Stream s) { return cudaGraphLaunch(e, s); }
inline Status graph_exec_destroy(GraphExec e) { return cudaGraphExecDestroy(e); }
inline Status graph_destroy(Graph g) { return cudaGraphDestroy(g); }
inline Status mem_get_info(size_t* free_bytes, size_t* total_bytes) { return cudaMemGetInfo(free_bytes, total_bytes); }
inline Status malloc_async(void** p, size_t bytes, Stream s) { return cudaMallocAsync(p, bytes, s); }
inline Status free_async(void* p, Stream s) { return cudaFreeAsync(p, s); }
inline Status default_mem_pool(MemPool* pool, int dev) { return cudaDeviceGetDefaultMemPool(pool, dev); }
inline Status mem_pool_set_release_threshold(MemPool pool, uint64_t bytes) { return cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &bytes); }
inline Status mem_pool_trim_to(MemPool pool, size_t keep) { return cudaMemPoolTrimTo(pool, keep); }
inline Status device_properties(DeviceProp* p, int dev) { return cudaGetDeviceProperties(p, dev); }
inline Status runtime_version(int* v) { return cudaRuntimeGetVersion(v); }
inline Status driver_version(int* v) { return cudaDriverGetVersion(v); }
inline Status l2_cache_bytes(int* n, int dev) { return cudaDeviceGetAttribute(n, cudaDevAttrL2CacheSize, dev); }
inline void arch_name(const DeviceProp& p, char* buf, size_t n) { std::snprintf(buf, n, "sm_%d%d", p.major, p.minor); }
inline bool is_sticky(Status e)
{
   switch (e)
   {
   case cudaErrorIllegalAddress:
   case cudaErrorLaunchFailure:
   case cudaErrorHardwareStackError:
   case cudaErrorIllegalInstruction:
   case cudaErrorMisalignedAddress:
   case cudaErrorInvalidAddressSpace:
   case cudaErrorInvalidPc:
   case cudaErrorAssert:
   case cudaErrorECCUncorrectable:
   case cudaErrorLaunchTimeout:
      return true;
   default:
      return false;
   }
}

#endif // vendor

#endif // AMGT_DEVICE_RUNTIME

} // namespace amgt::device
