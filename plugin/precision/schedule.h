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
   automatic, // reserved for the guarded per-level choice; parse_config never returns it yet
};

struct Config
{
   Mode                   mode = Mode::off;
   std::vector<Precision> schedule; // level l uses schedule[l]; levels past the end use back()
   bool                   stats           = false;
   bool                   stats_all_ranks = false;
   // One line per problem found while parsing, for the caller to print once (rank 0).
   std::vector<std::string> messages;
   bool                     auto_requested = false;
};

// Each argument is the variable's value, nullptr when unset. Never throws for bad values:
// it falls back (AMGT -> off, AMGT_LEVELS -> d,s,h, AMGT_STATS -> off) and says so in
// messages.
Config parse_config(const char* amgt, const char* amgt_levels, const char* amgt_stats);

Precision precision_for_level(const Config& config, int level);

// "d,s,h"
std::string schedule_to_string(const std::vector<Precision>& schedule);

} // namespace amgt
