// What AMGT_SPMV=race learnt from its races (backend_device.cpp), kept for the life of the
// process: when a later setup (a new BoomerAMG setup of the same problem, or of the next
// time step's matrix) brings a matrix of the same level and role, in the same storage, with
// nearly the same size, the earlier outcome is reused instead of converting the matrix and
// timing both kernels again. A matrix remembered for stock hypre is then never converted,
// which removes the plugin's whole setup cost for it. Pure C++ (unit-tested on the CPU).
#pragma once

#include "common/precision.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

namespace amgt::glue {

struct RaceKey
{
   int       level = -1;
   int       role  = 0;
   Precision precision = Precision::fp64;
   bool      scaled    = false;
   int64_t   nrows     = 0;
   int64_t   nnz       = 0;
};

class RaceMemory
{
public:
   // Sizes within this relative distance of a record count as the same matrix class (hypre's
   // GPU setup varies coarse grids by ~0.5% from run to run; a 10% band covers that and a
   // slowly changing operator, and still separates the levels, which shrink ~4-10x each).
   static constexpr double kSizeBand = 0.10;

   // The remembered outcome for a matrix like `k` (true: the plugin won), if any. Only
   // tagged matrices (level >= 0) are remembered.
   std::optional<bool> find(const RaceKey& k) const;
   // The outcome of a race; replaces the record of the same level, role, precision and
   // scaling.
   void record(const RaceKey& k, bool plugin_won);
   void clear();
   size_t size() const;

private:
   struct Entry
   {
      RaceKey key;
      bool    plugin_won;
   };
   static bool same_class(const RaceKey& a, const RaceKey& b);
   static bool near(int64_t a, int64_t b);

   mutable std::mutex mutex_;
   std::vector<Entry> entries_;
};

// The process's memory: read by the planner (planner.cpp), written by the device executor's
// races (backend_device.cpp); lives as long as the process (read in every setup).
RaceMemory& process_race_memory();

} // namespace amgt::glue
