// Loading the device kernels of the library that holds the plugin ahead of their first launch
// (kernel_images.h).
#include "kernel_images.h"

#include "common/error.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string_view>
#include <unordered_set>

#if defined(__linux__)
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace amgt::glue {

#if defined(__linux__)

namespace {

// The image's file, mapped read-only for the time of one parse.
class MappedFile
{
public:
   explicit MappedFile(const std::string& path)
   {
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) AMGT_THROW("kernel images: cannot open " + path);
      struct stat st{};
      if (::fstat(fd, &st) != 0 || st.st_size <= 0)
      {
         ::close(fd);
         AMGT_THROW("kernel images: cannot read " + path);
      }
      size_ = static_cast<size_t>(st.st_size);
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      ::close(fd);
      if (p == MAP_FAILED) AMGT_THROW("kernel images: cannot map " + path);
      data_ = static_cast<const unsigned char*>(p);
   }
   ~MappedFile() { ::munmap(const_cast<unsigned char*>(data_), size_); }
   MappedFile(const MappedFile&)            = delete;
   MappedFile& operator=(const MappedFile&) = delete;

   // a pointer to `count` objects of T at `offset`, or an error when they are not all in the file
   template <class T>
   const T* at(uint64_t offset, uint64_t count, const char* what) const
   {
      if (offset > size_ || count > (size_ - offset) / sizeof(T))
      {
         AMGT_THROW(std::string("kernel images: the file's ") + what + " lies outside it");
      }
      return reinterpret_cast<const T*>(data_ + offset);
   }
   size_t size() const { return size_; }

private:
   const unsigned char* data_ = nullptr;
   size_t               size_ = 0;
};

bool native_elf64(const Elf64_Ehdr& h)
{
   if (std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_ident[EI_CLASS] != ELFCLASS64) return false;
   const uint16_t probe = 1;
   const bool     little = *reinterpret_cast<const unsigned char*>(&probe) == 1;
   return h.e_ident[EI_DATA] == (little ? ELFDATA2LSB : ELFDATA2MSB);
}

// Calls each(name, address) for every function of the ELF image that holds `inside` whose name
// begins with `prefix`, each address once, in the symbol table's order; the names point into
// the file's mapping and last only for the call.
template <class Each>
void for_each_function(const void* inside, const char* prefix, Each&& each)
{
   Dl_info   info{};
   link_map* map = nullptr;
   if (::dladdr1(inside, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 || map == nullptr)
   {
      AMGT_THROW("kernel images: no loaded image holds the address");
   }
   // the main program's link map has no name: its file is /proc/self/exe
   const std::string path = (map->l_name && map->l_name[0]) ? map->l_name : "/proc/self/exe";
   const uintptr_t   bias = static_cast<uintptr_t>(map->l_addr); // 0 for a fixed-address executable
   const MappedFile  file(path);
   const Elf64_Ehdr& eh = *file.at<Elf64_Ehdr>(0, 1, "header");
   if (!native_elf64(eh)) AMGT_THROW("kernel images: " + path + " is not a 64-bit ELF file of this machine");
   if (eh.e_shentsize != sizeof(Elf64_Shdr)) AMGT_THROW("kernel images: " + path + ": unexpected section headers");
   const Elf64_Shdr* sh = file.at<Elf64_Shdr>(eh.e_shoff, eh.e_shnum, "section headers");
   const Elf64_Shdr* symtab = nullptr;
   for (int pass = 0; pass < 2 && !symtab; ++pass) // the full table; the dynamic one if stripped
   {
      for (uint16_t i = 0; i < eh.e_shnum; ++i)
      {
         if (sh[i].sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM)) symtab = &sh[i];
      }
   }
   if (!symtab) return; // no symbols: nothing to find
   if (symtab->sh_link >= eh.e_shnum || symtab->sh_entsize != sizeof(Elf64_Sym))
   {
      AMGT_THROW("kernel images: " + path + ": malformed symbol table");
   }
   const Elf64_Shdr& strsec = sh[symtab->sh_link];
   const char*       names  = file.at<char>(strsec.sh_offset, strsec.sh_size, "string table");
   const uint64_t    nsym   = symtab->sh_size / sizeof(Elf64_Sym);
   const Elf64_Sym*  syms   = file.at<Elf64_Sym>(symtab->sh_offset, nsym, "symbol table");
   const size_t      plen   = std::strlen(prefix);
   std::unordered_set<uintptr_t> seen; // aliases (a constructor's C1 and C2) share an address
   for (uint64_t i = 0; i < nsym; ++i)
   {
      const Elf64_Sym& s = syms[i];
      if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_shndx == SHN_UNDEF || s.st_value == 0) continue;
      if (s.st_name >= strsec.sh_size) continue;
      const char*  name = names + s.st_name;
      const size_t room = strsec.sh_size - s.st_name;
      const size_t len  = strnlen(name, room);
      if (len == room || len < plen || std::strncmp(name, prefix, plen) != 0) continue;
      const uintptr_t address = bias + static_cast<uintptr_t>(s.st_value);
      if (!seen.insert(address).second) continue;
      each(std::string_view(name, len), address);
   }
}

} // namespace

std::vector<ImageFunction> image_functions(const void* inside, const char* prefix)
{
   std::vector<ImageFunction> out;
   for_each_function(inside, prefix,
                     [&](std::string_view name, uintptr_t address) { out.push_back(ImageFunction{std::string(name), address}); });
   return out;
}

std::vector<uintptr_t> functions_by_priority(const void* inside, long* functions)
{
   // no copy of the names: a process's first pass over libHYPRE's 7,400 C++ functions took
   // 14.2 ms with the copies and 12.0 without on the development machine (medians of five
   // processes; bench/RESULTS.md, *First setup of a process*, record 2026-11-29d)
   std::vector<uintptr_t> first, rest;
   long                   n = 0;
   for_each_function(inside, "_Z", [&](std::string_view name, uintptr_t address) {
      ++n;
      (image_priority(name) == 0 ? first : rest).push_back(address);
   });
   if (functions) *functions = n;
   first.insert(first.end(), rest.begin(), rest.end());
   return first;
}

#else

std::vector<ImageFunction> image_functions(const void*, const char*)
{
   AMGT_THROW("kernel images: only ELF images on Linux are read");
}

std::vector<uintptr_t> functions_by_priority(const void*, long*)
{
   AMGT_THROW("kernel images: only ELF images on Linux are read");
}

#endif

int image_priority(std::string_view name)
{
   // A mangled name begins with the function's own name (and its namespaces): only that head
   // is searched, not the parameter and template argument types after it (whole names, 150
   // characters at the median, took 8 ms of the 11 ms the ordering of libHYPRE's 7000 functions
   // took on the development machine).
   const std::string_view head = name.substr(0, std::min(name.size(), kPriorityNameHead));
   // words of the kernels BoomerAMG's setup and solve launch (hypre's par_ls and parcsr/seq
   // matrix and vector sources, and the plugin's namespace)
   static const char* const words[] = {"BoomerAMG", "PMIS", "Coarsen", "Strength", "CreateS", "Interp",
                                       "twiaff",    "Trunc", "Relax",   "spgemm",   "SpGemm",  "SPGEMM",
                                       "Matvec",    "CSR",   "ParCSR",  "Vector",   "amgt"};
   for (const char* w : words)
   {
      if (head.find(w) != std::string_view::npos) return 0;
   }
   return 1;
}

#if defined(AMGT_WITH_DEVICE_KERNELS) && defined(__linux__)

KernelLoad load_image_kernels(const std::atomic<bool>* stop) noexcept
{
   KernelLoad r;
   const auto t0 = std::chrono::steady_clock::now();
   try
   {
      // this function is in the image (libHYPRE of the drop-in, or a program linked with the
      // plugin); a function that is a kernel's host stub leads to its kernel, the kernel to its
      // device image, the image to all its kernels (device::load_kernel_images). BoomerAMG's
      // functions first (by name), each image loaded as soon as one of its kernels is met: the
      // images a first setup needs come first, whenever the setup begins.
      const std::vector<uintptr_t> addresses =
         functions_by_priority(reinterpret_cast<const void*>(&load_image_kernels), &r.functions);
      static_cast<device::KernelImageLoad&>(r) = device::load_kernel_images(addresses, stop);
   }
   catch (const std::exception& e)
   {
      r.problem = e.what();
   }
   catch (...)
   {
      r.problem = "unknown error";
   }
   r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
   return r;
}

#else

KernelLoad load_image_kernels(const std::atomic<bool>*) noexcept
{
   KernelLoad r;
   r.problem = "no device kernels in this build, or not an ELF image";
   return r;
}

#endif

} // namespace amgt::glue
