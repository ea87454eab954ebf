// libFuzzer target: the file path of the reader (read_matrix_market): magic-byte detection,
// zlib decompression (corrupt, truncated, concatenated or trailing-garbage gzip data), the
// early banner check on the first bytes, then the parser.
//
// The input is written to a scratch file, named .mtx.gz when its last byte is odd and .mtx
// otherwise (the name decides whether non-gzip data is refused), and read back. Seeds are
// gzip files made by scripts/fuzz.sh.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_check.h"

namespace {

std::string scratch_name(bool gz)
{
   const char* dir = std::getenv("TMPDIR");
   std::string base = (dir && *dir) ? dir : (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
   return base + "/amgt-fuzz-" + std::to_string(getpid()) + (gz ? ".mtx.gz" : ".mtx");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
   const bool        gz   = size > 0 && (data[size - 1] & 1); // text ending in \n: .mtx
   const std::string path = scratch_name(gz);
   {
      std::FILE* f = std::fopen(path.c_str(), "wb");
      if (!f) std::abort();
      if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
      std::fclose(f);
   }
   try
   {
      amgt::io::MtxReadOptions o;
      o.max_bytes = 64u << 20; // a gzip bomb stops at 64 MiB (the limit check is exercised)
      const amgt::io::MtxMatrix m = amgt::io::read_matrix_market(path, o);
      amgt::fuzz::check_matrix(m);
   }
   catch (const amgt::io::MtxError& e)
   {
      amgt::fuzz::check_error(e);
      AMGT_FUZZ_CHECK(e.source() == path); // every message names the file
   }
   std::remove(path.c_str());
   return 0;
}
