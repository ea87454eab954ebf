#include "precision/schedule.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>

namespace amgt {
namespace {

const std::vector<Precision>& default_schedule()
{
   static const std::vector<Precision> s{Precision::fp64, Precision::fp32, Precision::fp16};
   return s;
}

// AMGT=auto's floor: the finest level in fp32 too. Its matvecs outside the V-cycle (the
// Krylov method's, the residual checks) and those of a standalone solve's later cycles stay
// fp64 (planner.cpp), so only the V-cycle's own SpMVs read fp32 values, widened exactly and
// multiplied in double (the SpMV contract of common/precision.h): the preconditioner stays a
// fixed linear operator and the answer keeps fp64 accuracy.
const std::vector<Precision>& auto_default_schedule()
{
   static const std::vector<Precision> s{Precision::fp32, Precision::fp32, Precision::fp16};
   return s;
}

std::string trim(const std::string& s)
{
   size_t b = 0;
   size_t e = s.size();
   while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
   while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
   return s.substr(b, e - b);
}

std::string lower(std::string s)
{
   for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
   return s;
}

// Normalized value of an environment variable: trimmed, lower case, "" when unset.
std::string normalized(const char* value)
{
   return value ? lower(trim(value)) : std::string();
}

bool parse_level(const std::string& token, Precision& p)
{
   if (token == "d" || token == "fp64") { p = Precision::fp64; }
   else if (token == "s" || token == "fp32") { p = Precision::fp32; }
   else if (token == "h" || token == "fp16") { p = Precision::fp16; }
   else { return false; }
   return true;
}

// Comma-separated entries, each trimmed; an empty entry ("d,,s", "d,") is an error.
bool parse_levels(const std::string& text, std::vector<Precision>& out)
{
   out.clear();
   size_t begin = 0;
   while (true)
   {
      const size_t end = text.find(',', begin);
      Precision    p;
      if (!parse_level(
              trim(text.substr(begin, end == std::string::npos ? std::string::npos : end - begin)),
              p))
      {
         out.clear();
         return false;
      }
      out.push_back(p);
      if (end == std::string::npos) break;
      begin = end + 1;
   }
   return !out.empty();
}

// One invalid value: what is wrong (naming the variable and the accepted values) and what
// the library does instead. With AMGT_STRICT the process stops, so there is no fallback to
// tell.
void report_invalid(Config& c, const std::string& what, const std::string& fallback)
{
   c.messages.push_back(c.strict || fallback.empty() ? what : what + "; " + fallback);
   ++c.invalid;
}

// extra: the one value beyond auto, plugin and stock that this variable accepts (race for
// AMGT_SPMV, rows for AMGT_SPGEMM).
// extra (and extra2): the variable's own values beside auto, plugin and stock.
void parse_choice(Config& c, const char* var, const char* value, KernelChoice& out, KernelChoice extra,
                  KernelChoice extra2)
{
   const std::string v = normalized(value);
   if (v.empty() || v == "auto") { out = KernelChoice::automatic; }
   else if (v == "plugin" || v == "amgt") { out = KernelChoice::plugin; }
   else if (v == "stock" || v == "hypre") { out = KernelChoice::stock; }
   else if (v == to_string(extra)) { out = extra; }
   else if (v == to_string(extra2)) { out = extra2; }
   else
   {
      out = KernelChoice::automatic;
      report_invalid(c,
                     std::string(var) + "=\"" + value + "\" is not a valid value (accepted: auto, plugin, stock, " +
                        to_string(extra) + (extra2 != extra ? std::string(", ") + to_string(extra2) : std::string()) +
                        ")",
                     "using auto");
   }
}

void parse_layout(Config& c, const char* value)
{
   const std::string v = normalized(value);
   if (v.empty() || v == "auto") { c.layout = LayoutRequest::automatic; }
   else if (v == "mbsr") { c.layout = LayoutRequest::mbsr; }
   else if (v == "rows") { c.layout = LayoutRequest::rows; }
   else
   {
      c.layout = LayoutRequest::automatic;
      report_invalid(c,
                     "AMGT_LAYOUT=\"" + std::string(value) +
                        "\" is not a valid value (accepted: auto, mbsr, rows)",
                     "using auto");
   }
}

void parse_resetup(Config& c, const char* value)
{
   const std::string v = normalized(value);
   if (v.empty() || v == "off" || v == "0") { c.resetup = ResetupMode::off; }
   else if (v == "galerkin") { c.resetup = ResetupMode::galerkin; }
   else if (v == "auto") { c.resetup = ResetupMode::automatic; }
   else
   {
      c.resetup = ResetupMode::off;
      report_invalid(c,
                     "AMGT_RESETUP=\"" + std::string(value) +
                        "\" is not a valid value (accepted: off, galerkin, auto)",
                     "every setup is a full one (off)");
   }
}

void parse_setup_kernels(Config& c, const char* value)
{
   const std::string v = normalized(value);
   c.setup_kernels       = true;
   c.setup_kernels_large = true;
   if (v.empty() || v == "large") return;
   if (v == "1" || v == "on" || v == "all") { c.setup_kernels_large = false; }
   else if (v == "0" || v == "off") { c.setup_kernels = false; }
   else
   {
      report_invalid(c,
                     "AMGT_SETUP_KERNELS=\"" + std::string(value) +
                        "\" is not a valid value (accepted: large, 1, on, all, 0, off)",
                     "the plugin's setup kernels from 2^18 entries a block (large)");
   }
}

void parse_preload(Config& c, const char* value)
{
   const std::string v = normalized(value);
   c.preload           = true;
   c.preload_images    = true;
   c.preload_always    = false;
   if (v.empty() || v == "1" || v == "on" || v == "all") return;
   if (v == "plugin") { c.preload_images = false; }
   else if (v == "always") { c.preload_always = true; }
   else if (v == "0" || v == "off") { c.preload = c.preload_images = false; }
   else
   {
      report_invalid(c,
                     "AMGT_PRELOAD=\"" + std::string(value) +
                        "\" is not a valid value (accepted: 0, off, 1, on, all, always, plugin)",
                     "the kernels are preloaded (on)");
   }
}

void parse_bytes(Config& c, const char* var, const char* value, std::optional<size_t>& out,
                 const char* fallback)
{
   out.reset();
   if (normalized(value).empty()) { return; }
   out = parse_byte_size(value);
   if (!out)
   {
      report_invalid(c,
                     std::string(var) + "=\"" + value +
                        "\" is not a byte size (accepted: a whole number of bytes, optionally "
                        "followed by K, M or G for powers of 1024, e.g. 1048576, 64M, 2G)",
                     fallback);
   }
}

// Variables of the build, test and benchmark scripts (scripts/, cmake/, tests/): the
// library does not read them, but they are set in the environment it runs in (run.sh runs
// the driver under AMGT_BUILD_DIR=..., CI exports AMGT_GPU), so they are not typos.
const std::vector<std::string>& tool_variables()
{
   static const std::vector<std::string> v{
      "AMGT_BUILD_DIR", "AMGT_CACHE_DIR",  "AMGT_CMAKE_ARGS",       "AMGT_CUDA_ARCH",
      "AMGT_DATA_DIR",  "AMGT_DATASETS",   "AMGT_FUZZ_DIR",         "AMGT_GPU",
      "AMGT_GTEST_SOURCE_DIR",             "AMGT_HIP_ARCH",         "AMGT_HIP_BUILD_DIR",
      "AMGT_HYPRE_TARBALL",                "AMGT_JOBS",             "AMGT_MANIFEST",
      "AMGT_NEED_PLOTS", "AMGT_ROOT",      "AMGT_SANITIZE",         "AMGT_SUITESPARSE_URL",
      "AMGT_SWEEP_LENGTHS",                "AMGT_SWEEP_SIZES",      "AMGT_TARGETS",
      "AMGT_TEST_JOBS"};
   return v;
}

bool contains(const std::vector<std::string>& names, const std::string& name)
{
   for (const std::string& n : names)
   {
      if (n == name) { return true; }
   }
   return false;
}

size_t edit_distance(const std::string& a, const std::string& b)
{
   std::vector<size_t> row(b.size() + 1);
   for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
   for (size_t i = 1; i <= a.size(); ++i)
   {
      size_t diagonal = row[0];
      row[0]          = i;
      for (size_t j = 1; j <= b.size(); ++j)
      {
         const size_t above = row[j];
         row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
         diagonal = above;
      }
   }
   return row[b.size()];
}

std::string upper(std::string s)
{
   for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
   return s;
}

// "AMGT_LEVEL is not a variable the library reads (did you mean AMGT_LEVELS?)"
std::string unknown_variable(const std::string& name)
{
   const std::string u    = upper(name);
   std::string       best;
   size_t            best_distance = 3; // suggest only near misses
   for (const std::string& known : library_variables())
   {
      const size_t d = u == known ? 0 : edit_distance(u, known);
      if (d < best_distance)
      {
         best          = known;
         best_distance = d;
      }
   }
   std::string m = name + " is set but is not a variable the library reads";
   if (!best.empty()) { m += " (did you mean " + best + "?)"; }
   else
   {
      m += " (it reads:";
      for (const std::string& known : library_variables()) m += " " + known;
      m += ")";
   }
   return m;
}

} // namespace

const char* to_string(LayoutRequest l)
{
   switch (l)
   {
   case LayoutRequest::automatic: return "auto";
   case LayoutRequest::mbsr: return "mbsr";
   case LayoutRequest::rows: return "rows";
   }
   return "?";
}

const char* to_string(ResetupMode m)
{
   switch (m)
   {
   case ResetupMode::off: return "off";
   case ResetupMode::galerkin: return "galerkin";
   case ResetupMode::automatic: return "auto";
   }
   return "?";
}

const char* to_string(KernelChoice c)
{
   switch (c)
   {
   case KernelChoice::automatic: return "auto";
   case KernelChoice::plugin: return "plugin";
   case KernelChoice::stock: return "stock";
   case KernelChoice::race: return "race";
   case KernelChoice::rows: return "rows";
   case KernelChoice::lean: return "lean";
   }
   return "?";
}

namespace {

// An on/off variable (0, off, 1, on; unset: `value` keeps its default); an invalid value keeps
// the default too, and says which (`fallback`).
void parse_switch(Config& c, const char* name, const char* raw, bool& value, const char* fallback)
{
   const std::string v = normalized(raw);
   if (v.empty()) return;
   if (v == "0" || v == "off") value = false;
   else if (v == "1" || v == "on") value = true;
   else
   {
      report_invalid(c, std::string(name) + "=\"" + raw + "\" is not a valid value (accepted: 0, off, 1, on)",
                     fallback);
   }
}

} // namespace

const std::vector<std::string>& library_variables()
{
   static const std::vector<std::string> v{
      "AMGT",        "AMGT_LEVELS", "AMGT_STATS",  "AMGT_SPGEMM",
      "AMGT_SPMV",   "AMGT_TRACE",  "AMGT_STATS_FILE", "AMGT_DEVICE_MEMORY_LIMIT",
      "AMGT_DEVICE_CACHE",          "AMGT_STRICT", "AMGT_LAYOUT", "AMGT_SETUP_OVERLAP",
      "AMGT_PRELOAD", "AMGT_SETUP_SURVEY", "AMGT_RESETUP", "AMGT_COST_MODEL", "AMGT_SETUP_KERNELS"};
   return v;
}

Config parse_environment(const Environment& env)
{
   auto value_of = [&env](const char* name) -> const char* {
      for (const auto& [n, v] : env)
      {
         if (n == name) { return v.c_str(); }
      }
      return nullptr;
   };
   const char* amgt        = value_of("AMGT");
   const char* amgt_levels = value_of("AMGT_LEVELS");
   const char* amgt_stats  = value_of("AMGT_STATS");
   Config      c;

   // First: it decides how the other problems are worded.
   const char*       strict_value = value_of("AMGT_STRICT");
   const std::string strict       = normalized(strict_value);
   if (strict.empty() || strict == "0" || strict == "off") { c.strict = false; }
   else if (strict == "1" || strict == "on") { c.strict = true; }
   else
   {
      // Whoever sets AMGT_STRICT at all wants misconfiguration to stop the job; falling
      // back to lenient would hide the very mistakes they asked to see.
      c.strict = true;
      c.messages.push_back("AMGT_STRICT=\"" + std::string(strict_value) +
                           "\" is not a valid value (accepted: 0, off, 1, on); taken as on");
      ++c.invalid;
   }

   const std::string mode     = normalized(amgt);
   bool              bad_mode = false;
   if (mode.empty() || mode == "off") { c.mode = Mode::off; }
   else if (mode == "fp64")
   {
      c.mode     = Mode::fp64;
      c.schedule = {Precision::fp64};
   }
   else if (mode == "mixed" || mode == "auto")
   {
      // auto reads the same schedule as mixed, as a floor: the lowest precision a level may
      // use; the values of each matrix decide whether it needs more (precision/policy.h).
      c.mode     = mode == "auto" ? Mode::automatic : Mode::mixed;
      c.schedule = c.mode == Mode::automatic ? auto_default_schedule() : default_schedule();
   }
   else
   {
      bad_mode = true;
      c.mode   = Mode::off;
      report_invalid(c,
                     "AMGT=\"" + std::string(amgt) +
                        "\" is not a valid value (accepted: off, fp64, mixed, auto)",
                     "the plugin stays off and hypre runs stock");
   }

   const std::string levels = normalized(amgt_levels);
   if (!levels.empty())
   {
      // Validated whatever the mode, so that a bad schedule is reported before the day
      // AMGT=mixed is switched on.
      std::vector<Precision> parsed;
      const bool             levels_ok = parse_levels(levels, parsed);
      const bool             applies   = c.mode == Mode::mixed || c.mode == Mode::automatic;
      if (!levels_ok)
      {
         report_invalid(c,
                        "AMGT_LEVELS=\"" + std::string(amgt_levels) +
                           "\" is not valid: expected a comma-separated list of d, s, h (or "
                           "fp64, fp32, fp16), e.g. \"d,s,h\"",
                        !applies ? ""
                        : c.mode == Mode::automatic ? "using auto's default floor s,s,h"
                                                    : "using the default schedule d,s,h");
      }
      else if (applies) { c.schedule = parsed; }
      else if (c.mode == Mode::fp64)
      {
         c.messages.push_back("AMGT_LEVELS is ignored with AMGT=fp64: every level runs in fp64");
      }
      else if (!bad_mode)
      {
         // A bad AMGT value already produced the message that explains why nothing applies.
         c.messages.push_back(
            "AMGT_LEVELS has no effect without AMGT=mixed or AMGT=auto (AMGT is off)");
      }
   }

   parse_choice(c, "AMGT_SPGEMM", value_of("AMGT_SPGEMM"), c.spgemm, KernelChoice::rows, KernelChoice::lean);
   parse_choice(c, "AMGT_SPMV", value_of("AMGT_SPMV"), c.spmv, KernelChoice::race, KernelChoice::race); // one own value
   parse_layout(c, value_of("AMGT_LAYOUT"));
   parse_resetup(c, value_of("AMGT_RESETUP"));

   const std::string stats = normalized(amgt_stats);
   if (stats.empty() || stats == "0" || stats == "off") { c.stats = false; }
   else if (stats == "1" || stats == "on") { c.stats = true; }
   else if (stats == "all")
   {
      c.stats           = true;
      c.stats_all_ranks = true;
   }
   else
   {
      report_invalid(c,
                     "AMGT_STATS=\"" + std::string(amgt_stats) +
                        "\" is not a valid value (accepted: 0, off, 1, on, all)",
                     "statistics stay off");
   }

   parse_switch(c, "AMGT_SETUP_OVERLAP", value_of("AMGT_SETUP_OVERLAP"), c.setup_overlap,
                "the setup work runs at the end of the setup (off)");
   parse_switch(c, "AMGT_SETUP_SURVEY", value_of("AMGT_SETUP_SURVEY"), c.setup_survey,
                "the matrices are surveyed at once (on)");
   parse_setup_kernels(c, value_of("AMGT_SETUP_KERNELS"));
   parse_preload(c, value_of("AMGT_PRELOAD"));
   parse_switch(c, "AMGT_COST_MODEL", value_of("AMGT_COST_MODEL"), c.cost_model,
                "the cost model decides which matrices the plugin takes (on)");

   // Any file name; the trace is written at HYPRE_Finalize, which reports a failure then.
   if (const char* trace = value_of("AMGT_TRACE"); trace && *trace) { c.trace_path = trace; }
   // AMGT_STATS_FILE alone asks for the table, as AMGT_STATS=1 does
   if (const char* file = value_of("AMGT_STATS_FILE"); file && *file)
   {
      c.stats_path = file;
      if (!amgt_stats || !*amgt_stats) { c.stats = true; }
   }

   parse_bytes(c, "AMGT_DEVICE_MEMORY_LIMIT", value_of("AMGT_DEVICE_MEMORY_LIMIT"),
               c.device_memory_limit, "the plugin's device memory is not capped");
   parse_bytes(c, "AMGT_DEVICE_CACHE", value_of("AMGT_DEVICE_CACHE"), c.device_cache,
               "the plugin keeps its default (no released device blocks with hypre's device "
               "pool, up to 1G of them without)");

   for (const auto& entry : env)
   {
      const std::string& name = entry.first;
      if (contains(library_variables(), name) || contains(tool_variables(), name)) { continue; }
      report_invalid(c, unknown_variable(name), "ignored");
   }
   return c;
}

Config parse_config(const char* amgt, const char* amgt_levels, const char* amgt_stats,
                    const char* amgt_spgemm, const char* amgt_spmv)
{
   Environment env;
   const std::pair<const char*, const char*> vars[] = {{"AMGT", amgt},
                                                       {"AMGT_LEVELS", amgt_levels},
                                                       {"AMGT_STATS", amgt_stats},
                                                       {"AMGT_SPGEMM", amgt_spgemm},
                                                       {"AMGT_SPMV", amgt_spmv}};
   for (const auto& [name, value] : vars)
   {
      if (value) { env.emplace_back(name, value); }
   }
   return parse_environment(env);
}

const char* to_string(Mode m)
{
   switch (m)
   {
   case Mode::off: return "off";
   case Mode::fp64: return "fp64";
   case Mode::mixed: return "mixed";
   case Mode::automatic: return "auto";
   }
   return "?";
}

Precision precision_for_level(const Config& config, int level)
{
   if (config.mode == Mode::off || config.mode == Mode::fp64 || level < 0 ||
       config.schedule.empty())
   {
      return Precision::fp64;
   }
   const size_t l = static_cast<size_t>(level);
   return l < config.schedule.size() ? config.schedule[l] : config.schedule.back();
}

std::string schedule_to_string(const std::vector<Precision>& schedule)
{
   std::string s;
   for (size_t i = 0; i < schedule.size(); ++i)
   {
      if (i > 0) s += ',';
      s += to_letter(schedule[i]);
   }
   return s;
}

std::optional<size_t> parse_byte_size(const char* text)
{
   if (!text) return std::nullopt;
   std::string s = trim(text);
   if (s.empty()) return std::nullopt;
   unsigned shift = 0;
   switch (std::toupper(static_cast<unsigned char>(s.back())))
   {
   case 'K': shift = 10; break;
   case 'M': shift = 20; break;
   case 'G': shift = 30; break;
   default: break;
   }
   if (shift) s.pop_back();
   if (s.empty()) return std::nullopt;
   uint64_t v = 0;
   for (char c : s)
   {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      const uint64_t d = static_cast<uint64_t>(c - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return std::nullopt;
      v = v * 10 + d;
   }
   if (shift && v > (std::numeric_limits<uint64_t>::max() >> shift)) return std::nullopt;
   v <<= shift;
   if (v > std::numeric_limits<size_t>::max()) return std::nullopt;
   return static_cast<size_t>(v);
}

} // namespace amgt
