// The preload's reading of the image that holds the plugin (hypre_glue/kernel_images.h): the
// functions of this test program, at their addresses in this process; the order of the device
// images; what a build without CUDA kernels says. Host code (the loading itself is
// tests/gpu/test_kernel_images_device.cpp).
#include "kernel_images.h"

#include "common/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string_view>
#include <vector>

// Functions of this program with C++ names the test looks for (external linkage, not inlined):
// _ZN15kernel_images_t6markerEi and _ZN15kernel_images_t12other_markerEd
namespace kernel_images_t {
__attribute__((noinline)) int marker(int x)
{
   return x * 3 + 1;
}
__attribute__((noinline)) double other_marker(double x)
{
   return x * 0.5 - 2.0;
}
extern "C" __attribute__((noinline)) int kernel_images_c_marker(int x)
{
   return x - 7;
}
} // namespace kernel_images_t

namespace amgt::glue {
namespace {

const ImageFunction* find(const std::vector<ImageFunction>& fns, const std::string& name)
{
   const auto it = std::find_if(fns.begin(), fns.end(), [&](const ImageFunction& f) { return f.name == name; });
   return it == fns.end() ? nullptr : &*it;
}

TEST(KernelImages, FindsThisProgramsFunctionsAtTheirAddresses)
{
   const std::vector<ImageFunction> fns = image_functions(reinterpret_cast<const void*>(&kernel_images_t::marker));
   ASSERT_GT(fns.size(), 100u) << "a test program linked with GoogleTest has hundreds of C++ functions";
   const ImageFunction* m = find(fns, "_ZN15kernel_images_t6markerEi");
   ASSERT_NE(m, nullptr);
   EXPECT_EQ(m->address, reinterpret_cast<uintptr_t>(&kernel_images_t::marker)) << "the load bias applied";
   const ImageFunction* o = find(fns, "_ZN15kernel_images_t12other_markerEd");
   ASSERT_NE(o, nullptr);
   EXPECT_EQ(o->address, reinterpret_cast<uintptr_t>(&kernel_images_t::other_marker));
   // the address found is the function: calling through it gives the function's result
   const auto call = reinterpret_cast<int (*)(int)>(m->address);
   EXPECT_EQ(call(4), 13);
   for (const ImageFunction& f : fns)
   {
      ASSERT_EQ(f.name.compare(0, 2, "_Z"), 0) << f.name << ": only C++ names by default";
   }
   EXPECT_EQ(find(fns, "kernel_images_c_marker"), nullptr) << "a C name is not a C++ one";
   // no address twice (aliases are reported once)
   std::vector<uintptr_t> addresses;
   for (const ImageFunction& f : fns) addresses.push_back(f.address);
   std::sort(addresses.begin(), addresses.end());
   EXPECT_EQ(std::adjacent_find(addresses.begin(), addresses.end()), addresses.end());
}

// The drop-in's case: the image is a shared library (libHYPRE.so there, libstdc++ here, whose
// file is stripped to its dynamic symbol table), found from an address inside it.
TEST(KernelImages, FindsASharedLibrarysFunctionsAtTheirAddresses)
{
   void (*const terminate)() = &std::terminate; // a function of libstdc++.so, by its GOT entry
   const std::vector<ImageFunction> fns = image_functions(reinterpret_cast<const void*>(terminate), "_ZSt9terminate");
   const ImageFunction* t = find(fns, "_ZSt9terminatev");
   ASSERT_NE(t, nullptr) << "std::terminate in libstdc++'s symbols";
   EXPECT_EQ(t->address, reinterpret_cast<uintptr_t>(terminate));
   EXPECT_EQ(find(fns, "_ZN15kernel_images_t6markerEi"), nullptr) << "another image's functions are not its";
}

TEST(KernelImages, APrefixSelectsTheNames)
{
   const std::vector<ImageFunction> c =
      image_functions(reinterpret_cast<const void*>(&kernel_images_t::marker), "kernel_images_c_");
   ASSERT_EQ(c.size(), 1u);
   EXPECT_EQ(c[0].name, "kernel_images_c_marker");
   EXPECT_EQ(c[0].address, reinterpret_cast<uintptr_t>(&kernel_images_t::kernel_images_c_marker));
   EXPECT_TRUE(image_functions(reinterpret_cast<const void*>(&kernel_images_t::marker), "no_such_prefix_").empty());
}

TEST(KernelImages, AnAddressOutsideEveryImageIsAClearError)
{
   int on_the_stack = 0;
   try
   {
      (void)image_functions(&on_the_stack);
      FAIL() << "a stack address is in no image";
   }
   catch (const Error& e)
   {
      EXPECT_NE(e.message().find("no loaded image"), std::string::npos) << e.what();
   }
}

TEST(KernelImages, BoomerAmgsImagesComeFirst)
{
   EXPECT_EQ(image_priority("_Z31hypreGPUKernel_compute_twiaff_wiPiS_"), 0);
   EXPECT_EQ(image_priority("_Z28hypre_BoomerAMGCreateS_rowcountiPi"), 0);
   EXPECT_EQ(image_priority("_ZN4amgt6device6detail11spmv_kernelEv"), 0);
   EXPECT_EQ(image_priority("_Z26hypreGPUKernel_SStructFoo"), 1);
   EXPECT_EQ(image_priority(""), 1);
   // only the name's head (the function's own name) is searched, not its argument types
   const std::string far = "_Z5otheri" + std::string(kPriorityNameHead, 'x') + "BoomerAMG";
   EXPECT_EQ(image_priority(far), 1);
   EXPECT_EQ(image_priority("_Z5otheri" + std::string(10, 'x') + "BoomerAMG"), 0);
}

// The host stub of a kernel of internal linkage carries an `L` before its source name that the
// device's name (what CUPTI and the first-use list say) does not
TEST(KernelImages, TheDeviceNameOfAHostStub)
{
   EXPECT_EQ(device_kernel_name("_ZN3cub17CUB_300001_SM_9006detail4scanL20DeviceScanInitKernelINS0_13ScanTileStateIiLb1EEEEEvT_i"),
             "_ZN3cub17CUB_300001_SM_9006detail4scan20DeviceScanInitKernelINS0_13ScanTileStateIiLb1EEEEEvT_i")
      << "a static template stub; the literals Lb1E stay";
   EXPECT_EQ(device_kernel_name("_ZN4amgt6device51_GLOBAL__N__7baf738a_18_strength_device_cu_f12fa46bL15strength_kernelILi8EEEv1x"),
             "_ZN4amgt6device51_GLOBAL__N__7baf738a_18_strength_device_cu_f12fa46b15strength_kernelILi8EEEv1x")
      << "an anonymous namespace's kernel; the literal Li8E stays";
   EXPECT_EQ(device_kernel_name("_Z20hypreGPUKernel_fillnIdEvRPvPT_mS2_"), "_Z20hypreGPUKernel_fillnIdEvRPvPT_mS2_")
      << "an external kernel's name is the device's";
   // an enumeration literal loses its L on both sides alike, so the two forms still meet
   EXPECT_EQ(device_kernel_name("_Z1fI1cL14curandOrdering101EEvv"), device_kernel_name("_Z1fI1cL14curandOrdering101EEvv"));
   EXPECT_EQ(device_kernel_name("L1x"), "L1x") << "nothing before the L: not a marker";
   EXPECT_EQ(device_kernel_name("_Z1aL"), "_Z1aL");
   EXPECT_EQ(device_kernel_name(""), "");
}

TEST(KernelImages, FirstUseAddressesFollowTheListsOrder)
{
   const std::vector<ImageFunction> fns = {
      {"_Z5firstv", 0x100},
      {"_ZN3cub4scanL6kernelEv", 0x200}, // a static stub in two source files
      {"_Z5otherv", 0x300},
      {"_ZN3cub4scanL6kernelEv", 0x400},
      {"_Z6secondi", 0x500},
   };
   const std::vector<std::string_view> names = {"_Z6secondi", "_Z7missingv", "_ZN3cub4scan6kernelEv", "_Z5firstv"};
   const FirstUse f = first_use_addresses(fns, names);
   EXPECT_EQ(f.found, 3) << "three of the four names have a stub";
   EXPECT_EQ(f.addresses, (std::vector<uintptr_t>{0x500, 0x200, 0x400, 0x100}))
      << "the list's order; every source file's stub of a name; other functions left out";
   EXPECT_TRUE(first_use_addresses(fns, {}).addresses.empty());
   EXPECT_EQ(first_use_addresses({}, names).found, 0);
}

// The compiled list (first_use_kernels.inc, bench/first_use_kernels.py): kernels' device names,
// each once; hypre's setup kernels and the plugin's replacements among them
TEST(KernelImages, TheFirstUseListIsKernelNamesEachOnce)
{
   const std::vector<std::string_view>& list = first_use_kernels();
   ASSERT_GE(list.size(), 50u) << "a first setup and solve launch about a hundred kernels";
   std::vector<std::string_view> sorted(list);
   std::sort(sorted.begin(), sorted.end());
   EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "a name twice";
   bool hypre = false, plugin = false;
   for (std::string_view n : list)
   {
      EXPECT_EQ(n.substr(0, 2), "_Z") << n;
      hypre  = hypre || n.find("hypreGPUKernel") != std::string_view::npos || n.find("hypre_spgemm") != std::string_view::npos;
      plugin = plugin || n.find("_ZN4amgt6device") == 0;
   }
   EXPECT_TRUE(hypre) << "hypre's own kernels";
   EXPECT_TRUE(plugin) << "the plugin's setup kernels";
}

#if !defined(AMGT_WITH_DEVICE_KERNELS)
TEST(KernelImages, ABuildWithoutKernelsLoadsNothingAndSaysSo)
{
   std::atomic<bool> stop{false};
   const KernelLoad  r = load_image_kernels(&stop, first_use_kernels());
   EXPECT_FALSE(r.problem.empty());
   EXPECT_EQ(r.loaded, 0);
   EXPECT_EQ(r.libraries, 0);
}
#endif

} // namespace
} // namespace amgt::glue
