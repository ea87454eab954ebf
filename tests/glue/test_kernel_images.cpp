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

// What the preload walks (functions_by_priority): the same functions as image_functions, each
// address once, those of priority 0 first, each group in the symbol table's order
TEST(KernelImages, ThePriorityOrderIsTheNamesOrder)
{
   const void* inside = reinterpret_cast<const void*>(&kernel_images_t::marker);
   const std::vector<ImageFunction> fns = image_functions(inside);
   std::vector<uintptr_t> expected, rest;
   for (const ImageFunction& f : fns) (image_priority(f.name) == 0 ? expected : rest).push_back(f.address);
   expected.insert(expected.end(), rest.begin(), rest.end());
   long            count = -1;
   const auto      got   = functions_by_priority(inside, &count);
   EXPECT_EQ(count, static_cast<long>(fns.size()));
   ASSERT_EQ(got.size(), expected.size());
   EXPECT_EQ(got, expected);
   // this program's C++ functions of both priorities (GoogleTest's are of neither word list)
   EXPECT_FALSE(rest.empty());
   EXPECT_NE(std::find(got.begin(), got.end(), reinterpret_cast<uintptr_t>(&kernel_images_t::marker)), got.end());
   try
   {
      int on_the_stack = 0;
      (void)functions_by_priority(&on_the_stack);
      FAIL() << "a stack address is in no image";
   }
   catch (const Error& e)
   {
      EXPECT_NE(e.message().find("no loaded image"), std::string::npos) << e.what();
   }
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

#if !defined(AMGT_WITH_DEVICE_KERNELS)
TEST(KernelImages, ABuildWithoutKernelsLoadsNothingAndSaysSo)
{
   std::atomic<bool> stop{false};
   const KernelLoad  r = load_image_kernels(&stop);
   EXPECT_FALSE(r.problem.empty());
   EXPECT_EQ(r.loaded, 0);
   EXPECT_EQ(r.libraries, 0);
}
#endif

} // namespace
} // namespace amgt::glue
