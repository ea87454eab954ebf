// The run-time selection (every AMGT* environment variable the library reads) as pure
// functions of their values: the glue reads the environment once and passes the strings in,
// which keeps every rule testable without touching the process environment.
#pragma once

#include "common/precision.h"

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
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
// the glue's backends and in docs/configuration.md); plugin / stock force one side.
enum class KernelChoice
{
   automatic,
   plugin,
   stock,
   race, // AMGT_SPMV only: both kernels timed on each matrix in the setup, the faster serves it
   rows, // AMGT_SPGEMM only: every device product on the row-wise CSR SpGEMM
         // (spgemm/csr_spgemm_device.h, fp64, hypre's arrays in and out); host products as
         // plugin. auto uses that kernel only where its rule says it wins (rows_kernel_wins)
   lean, // AMGT_SPGEMM only (a measurement knob): device products of at most
         // csr_spgemm::kLeanMaxRows rows on the row-wise SpGEMM's lean design, the others as
         // auto (bench/RESULTS.md, record 2026-11-26e: slower end to end than auto)
};

const char* to_string(KernelChoice c);

// Which layout the plugin's SpMV reads (AMGT_LAYOUT): automatic, by the bytes a product
// moves (rows/rows.h, choose_layout), or one of them for every matrix.
enum class LayoutRequest
{
   automatic,
   mbsr,
   rows,
};

const char* to_string(LayoutRequest l);

// AMGT_RESETUP: what a new BoomerAMG setup of a matrix with the structure the hierarchy was
// built from does (hypre_glue/resetup.h): off, a full setup every time (hypre's behaviour);
// galerkin, the hierarchy's structure kept and only the values recomputed, every time; auto,
// as galerkin while the solves after a re-setup take at most kResetupCycleFactor times the
// V-cycles of those after the last full setup, a full setup otherwise.
enum class ResetupMode
{
   off,
   galerkin,
   automatic,
};

const char* to_string(ResetupMode m);

// AMGT_RESETUP=auto's bound: a re-setup whose solves took more than this many times the
// V-cycles of the solves after the last full setup makes the next setup a full one.
constexpr double kResetupCycleFactor = 1.15;

struct Config
{
   Mode                   mode = Mode::off;
   // level l uses schedule[l] (automatic: at least schedule[l]); levels past the end use back()
   std::vector<Precision> schedule;
   bool                   stats           = false;
   bool                   stats_all_ranks = false;
   // One line per problem found while parsing, for the caller to print once (rank 0).
   std::vector<std::string> messages;
   KernelChoice             spgemm         = KernelChoice::automatic;
   KernelChoice             spmv           = KernelChoice::automatic;
   LayoutRequest            layout         = LayoutRequest::automatic;
   ResetupMode              resetup        = ResetupMode::off;
   // AMGT_TRACE: the file the call trace is written to at HYPRE_Finalize; empty: no trace
   std::string trace_path;
   // AMGT_STATS_FILE: the statistics table goes to this file instead of stderr (".rankN"
   // appended with several ranks); set alone it turns the table on, as AMGT_STATS=1 does
   std::string stats_path;
   // AMGT_DEVICE_MEMORY_LIMIT: cap on the device memory the plugin holds at once; nullopt:
   // no cap. Parsed in every build (so that CPU builds report a bad value too); only the
   // GPU backend applies it.
   std::optional<size_t> device_memory_limit;
   // AMGT_DEVICE_CACHE: bytes of released device blocks the plugin keeps; nullopt: the GPU
   // backend's default, which depends on hypre's allocator (0 with hypre's device pool, 1G
   // without), known only there.
   std::optional<size_t> device_cache;
   // AMGT_SETUP_OVERLAP (default off): on the GPU, a level's matrices are prepared for the
   // plugin (value checks, layout, conversion) by a second host thread on a second stream while
   // hypre's setup builds the next level; off: all of them at the end of the setup, in turn.
   // Off by default: on the H100 the overlap made setups 1-4% slower (geomean of four cases,
   // bench/RESULTS.md, record 2026-11-25g), its kernels delaying hypre's.
   bool setup_overlap = false;
   // AMGT_SETUP_SURVEY (default on): on the GPU, the end of a setup measures what the
   // preparation of every matrix of the hierarchy needs (auto's value statistics, the layout's
   // fill samples) all at once, with one read-back each instead of one or two per matrix; off:
   // matrix by matrix, as they are prepared (the same results, more round trips).
   bool setup_survey = true;
   // AMGT_SETUP_KERNELS (default large): on the GPU, hypre's own setup kernels that the plugin
   // implements run on the plugin's instead (hypre_glue/amgt_hypre.c, patches/0007-0009): the
   // strength counts (plugin/coarsen/strength.h), PMIS's sweeps (plugin/coarsen/pmis.h),
   // extended+i's F-F weights (plugin/interp/twiaff.h), the row sums of a CSR block and
   // the weak row sums (plugin/csr/row_sums.h), the truncation's copy
   // (plugin/interp/truncation.h) and the diagonal passes (plugin/csr/diag.h), equal to
   // hypre's bit for bit. `large` (setup_kernels_large, the default): the plugin's only for
   // blocks of at least the SpMV's latency floor (AMGT_SMALL_MATRIX_ENTRIES,
   // hypre_glue/amgt_glue.h), hypre's below, where both are latency-bound and a small system's
   // first setup would otherwise load the plugin's setup kernels' device images; on (1, all):
   // every size; off: hypre's kernels (the same hierarchy, slower).
   bool setup_kernels       = true;
   bool setup_kernels_large = true;
   // AMGT_PRELOAD (default on): on the GPU, HYPRE_Initialize starts a second thread that loads
   // the library's kernels (hypre's and the plugin's: hypre_glue/kernel_images.h) and runs the
   // plugin's kernels once on small synthetic matrices, so that CUDA's lazy loading of them
   // happens while the application assembles its matrix, not inside its first setup.
   // `plugin`: the synthetic runs only (hypre's kernels load at their first launch). The
   // preload stops when the application's first assembled matrix holds fewer than
   // kPreloadAssemblyEntries entries on this process (preload_through_assembly):
   // `always`: it goes on whatever the matrix's size.
   bool preload        = true;
   bool preload_images = true;
   bool preload_always = false;
   // AMGT_COST_MODEL (default on): on the GPU, AMGT_SPMV=auto/race leave to hypre each level
   // whose operator would not repay the plugin's one-time work within the matvecs expected of
   // it (hypre_glue/cost_model.h), with its P and R; off: the size floor alone (2^18 entries).
   bool cost_model = true;
   // AMGT_STRICT: an invalid value or an unknown AMGT_* variable stops the process (exit
   // status 2, glue.cpp) instead of falling back.
   bool strict = false;
   // How many of `messages` report an invalid value or an unknown variable (the others are
   // notes: a valid value that has no effect). With strict, any makes the glue stop.
   int invalid = 0;
};

// The AMGT* variables of a process environment, name and value, in any order: the glue
// passes every variable whose name is AMGT or begins with AMGT_ in any letter case.
using Environment = std::vector<std::pair<std::string, std::string>>;

// Parses every variable the library reads. Never throws for bad values: each falls back
// (AMGT -> off, AMGT_LEVELS -> d,s,h (auto: s,s,h), AMGT_STATS -> off, AMGT_SPGEMM/AMGT_SPMV -> auto,
// AMGT_DEVICE_* -> their defaults) and says so in messages, naming the variable and the
// accepted values; a variable the library does not read (a typo such as AMGT_LEVEL) gets
// one message too. Variables of the build and test scripts (AMGT_GPU, AMGT_BUILD_DIR, ...)
// are not the library's but are expected in its environment: they pass silently. With
// AMGT_STRICT=1 the messages of invalid values leave out the fallback: there is none.
Config parse_environment(const Environment& env);

// The same for the first five variables, each nullptr when unset (the unit tests' form).
Config parse_config(const char* amgt, const char* amgt_levels, const char* amgt_stats,
                    const char* amgt_spgemm = nullptr, const char* amgt_spmv = nullptr);

// Every variable the library reads, AMGT first.
const std::vector<std::string>& library_variables();

// "1048576", "64K", "64M", "2G" (powers of 1024; case-insensitive; surrounding blanks
// allowed). nullopt for anything else (empty, negative, a fraction, overflow, junk).
std::optional<size_t> parse_byte_size(const char* text);

// The schedule's precision of a level: what mixed uses, and auto's floor.
Precision precision_for_level(const Config& config, int level);

// "off", "fp64", "mixed", "auto"
const char* to_string(Mode m);

// "d,s,h"
std::string schedule_to_string(const std::vector<Precision>& schedule);

} // namespace amgt
