// A fresh scratch folder for a test's files (under $TMPDIR, else the system's temp folder):
// the tests write their inputs there, never into the source tree.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <unistd.h>

namespace amgt::test {

inline std::filesystem::path scratch_dir(const std::string& tag)
{
   const char*           base = std::getenv("TMPDIR");
   std::filesystem::path root = base && *base ? std::filesystem::path(base) : std::filesystem::temp_directory_path();
   std::string           tmpl = (root / ("amgt-" + tag + "-XXXXXX")).string();
   if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
   return tmpl;
}

} // namespace amgt::test
