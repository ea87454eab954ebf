// The run-time selection (environment variables AMGT, AMGT_LEVELS, AMGT_STATS) as pure
// functions of their values: the glue reads the environment once and passes the strings in,
// which keeps every rule testable without touching the process environment.
#pragma once

#include "common/precision.h"

#include <string>
#include <vector>

namespace amgt {

enum class Mode
{
   off,       // stock hypre
   fp64,      // plugin kernels, every level in fp64
   mixed,     // plugin kernels, precision per level from the schedule
   automatic, // plugin kernels, the schedule is a floor; each matrix's values decide
              // whether it needs more (precision/policy.h)
};

// Which implementation runs a product (AMGT_SPGEMM, AMGT_SPMV). automatic: the plugin where
// it is measured to be faster than hypre's own kernel, stock hypre elsewhere (the rule is in
// the glue's backends and in README.md); plugin / stock force one side.
enum class KernelChoice
{
   automatic,
   plugin,
   stock,
};

const char* to_string(KernelChoice c);

struct Config
{
   Mode                   mode = Mode::off;
   // level l uses schedule[l] (automatic: at least schedule[l]); levels past the end use back()
   std::vector<Precision> schedule;
   bool                   stats           = false;
   bool                   stats_all_ranks = false;
   // One line per problem found while parsing, for the caller to print once (rank 0).
   std::vector<std::string> messages;
   KernelChoice             spgemm = KernelChoice::automatic;
   KernelChoice             spmv   = KernelChoice::automatic;
};

// Each argument is the variable's value, nullptr when unset. Never throws for bad values:
// it falls back (AMGT -> off, AMGT_LEVELS -> d,s,h, AMGT_STATS -> off) and says so in
// messages.
Config parse_config(const char* amgt, const char* amgt_levels, const char* amgt_stats,
                    const char* amgt_spgemm = nullptr, const char* amgt_spmv = nullptr);

// The schedule's precision of a level: what mixed uses, and auto's floor.
Precision precision_for_level(const Config& config, int level);

// "off", "fp64", "mixed", "auto"
const char* to_string(Mode m);

// "d,s,h"
std::string schedule_to_string(const std::vector<Precision>& schedule);

} // namespace amgt
