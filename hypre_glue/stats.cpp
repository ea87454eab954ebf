#include "stats.h"

#include "preload_rule.h"

#include <algorithm>
#include <cstdio>

namespace amgt::glue {
namespace {

// The plugin did something on the level: converted, multiplied, declined (a fallback),
// prepared or chose a precision for one of its matrices. A level without any of these gets
// no row (it would be a row of zeros under a level number the plugin never saw work on).
bool touched(const LevelCounters& c)
{
   bool chosen = c.product_known;
   for (const ChoiceRecord& r : c.spmv_choice) chosen = chosen || r.known;
   return c.conversions > 0 || c.spgemm_calls > 0 || c.spmv_calls > 0 || c.fallbacks > 0 ||
          c.prepare_s[0] + c.prepare_s[1] + c.prepare_s[2] > 0.0 || chosen;
}
// A bound on the trace (24 bytes an entry): a long-running simulation must not grow without
// limit; the file says when calls were left out.
constexpr size_t kMaxTrace = size_t{1} << 22;
} // namespace

void ReasonCounts::fold_into(std::map<std::string, long>& out) const
{
   for (const Slot& s : slots_)
   {
      const char* key = s.key.load(std::memory_order_acquire);
      const long  n   = key ? s.count.load(std::memory_order_relaxed) : 0;
      // a slot claimed but not yet counted, or not counted since a clear: no reason
      if (n > 0) out[key] += n;
   }
}

long ReasonCounts::count_of(const std::string& reason) const
{
   long n = 0;
   for (const Slot& s : slots_)
   {
      const char* key = s.key.load(std::memory_order_acquire);
      if (key && reason == key) n += s.count.load(std::memory_order_relaxed);
   }
   return n;
}

void ReasonCounts::clear() noexcept
{
   for (Slot& s : slots_) s.count.store(0, std::memory_order_relaxed);
}

void Stats::level_matrix(int level, const LevelShape& shape)
{
   std::lock_guard<std::mutex> lock(mutex_);
   // A tag without a conversion (hypre's coarsest level, which the plugin never multiplies)
   // brings no shape: no row for it.
   if (!shape.known) { return; }
   LevelCounters& c = levels_[level];
   // A level's operator on a rank is a diag and an offd block, tagged and converted in
   // either order: the table shows the larger (the diag block, except on a rank that owns
   // almost nothing).
   if (shape.known && (!c.shape.known || shape.nnz >= c.shape.nnz)) { c.shape = shape; }
}

void Stats::conversion(int level)
{
   std::lock_guard<std::mutex> lock(mutex_);
   levels_[level].conversions++;
}

// One product call of either kind ('g' SpGEMM, 'v' SpMV) on a level: its count, time, path
// and trace entry; called with the lock held.
LevelCounters& Stats::count_call(char kind, int level, double seconds, const char* path, Precision precision)
{
   LevelCounters& c = levels_[level];
   (kind == 'g' ? c.spgemm_calls : c.spmv_calls)++;
   (kind == 'g' ? c.spgemm_s : c.spmv_s) += seconds;
   c.path = path;
   if (tracing_ && trace_.size() < kMaxTrace) { trace_.push_back({kind, level, seconds, path, precision}); }
   return c;
}

void Stats::spgemm(int level, double seconds, const char* path, Precision precision)
{
   std::lock_guard<std::mutex> lock(mutex_);
   LevelCounters& c = count_call('g', level, seconds, path, precision);
   // the lowest precision any product of the level used (Precision: larger = lower)
   if (!c.product_known || precision > c.product_precision) c.product_precision = precision;
   c.product_known = true;
}

void Stats::spmv(int level, double seconds, const char* path, Precision precision)
{
   std::lock_guard<std::mutex> lock(mutex_);
   count_call('v', level, seconds, path, precision);
}

void Stats::spmv_lent(int level, double seconds)
{
   std::lock_guard<std::mutex> lock(mutex_);
   LevelCounters&              c = levels_[level];
   c.spmv_calls++;
   c.spmv_s += seconds;
   lent_calls_++;
   if (tracing_ && trace_.size() < kMaxTrace) { trace_.push_back({'v', level, seconds, "rows-lent", Precision::fp64}); }
}

void Stats::sweep(bool from_zero)
{
   sweeps_[from_zero ? 1 : 0].fetch_add(1, std::memory_order_relaxed);
}

void Stats::setup_kernel(const char* what)
{
   std::lock_guard<std::mutex> lock(mutex_);
   setup_kernels_[what ? what : "unnamed"]++;
}

void Stats::setup_kernel_small(bool small_application)
{
   setup_kernels_small_.fetch_add(1, std::memory_order_relaxed);
   if (small_application) setup_kernels_small_app_.fetch_add(1, std::memory_order_relaxed);
}

void Stats::spmv_choice(int level, int role, const PrecisionChoice& choice)
{
   std::lock_guard<std::mutex> lock(mutex_);
   // Several matrices share a level and role (on a rank, A is a diag and an offd block;
   // repeated setups): the table keeps the highest precision any of them needed, with its
   // reason (Precision: smaller = higher).
   ChoiceRecord& r = levels_[level].spmv_choice[role >= 0 && role < 4 ? role : 0];
   if (!r.known || choice.precision < r.choice.precision)
   {
      r.known  = true;
      r.choice = choice;
   }
}

void Stats::fallback(int level, const char* reason)
{
   // without the lock where the level and the reason have their slots; the rest under it (a
   // null reason too: its string throws there, after the level was counted, as it always did)
   const bool level_fast = lock_free_level(level);
   if (level_fast) fallback_levels_[level + 1].fetch_add(1, std::memory_order_relaxed);
   const bool reason_fast = reason && fallback_reasons_.add(reason);
   if (level_fast && reason_fast) return;
   std::lock_guard<std::mutex> lock(mutex_);
   if (!level_fast) levels_[level].fallbacks++;
   if (!reason_fast) reasons_[reason]++;
}

void Stats::offd_spmv(int level, bool plugin, const char* reason)
{
   if (!plugin)
   {
      if (!reason) reason = "declined";
      if (offd_stock_.add(reason)) return;
      std::lock_guard<std::mutex> lock(mutex_);
      ++offd_reasons_[reason];
      return;
   }
   std::lock_guard<std::mutex> lock(mutex_);
   ++offd_plugin_;
   ++offd_plugin_levels_[level];
}

void Stats::prepare(int level, double choice_s, double convert_s, double race_s)
{
   std::lock_guard<std::mutex> lock(mutex_);
   double* p = levels_[level].prepare_s;
   p[0] += choice_s;
   p[1] += convert_s;
   p[2] += race_s;
   add_setup_work(choice_s + convert_s + race_s);
}

void Stats::add_setup_work(double seconds)
{
   if (setup_work_s_.empty()) setup_work_s_.push_back(0.0); // work before any setup began
   setup_work_s_.back() += seconds;
}

void Stats::setup_begin()
{
   std::lock_guard<std::mutex> lock(mutex_);
   setup_work_s_.push_back(0.0);
   entry_slots_.emplace_back();
}

void Stats::entry_time(double seconds)
{
   std::lock_guard<std::mutex> lock(mutex_);
   EntrySlot&                  slot = entry_slots_.back();
   ++slot.calls;
   slot.seconds += seconds;
}

void Stats::setup_kind(int reason, const char* why)
{
   std::lock_guard<std::mutex> lock(mutex_);
   setup_kinds_ += reason == 0 ? 'R' : 'F';
   if (reason != 0) { ++full_reasons_[why]; }
}

void Stats::resetup_products(int levels, int hypre_levels, double seconds)
{
   std::lock_guard<std::mutex> lock(mutex_);
   resetup_levels_ += levels;
   resetup_hypre_levels_ += hypre_levels;
   resetup_s_ += seconds;
}

void Stats::carried(int copies)
{
   std::lock_guard<std::mutex> lock(mutex_);
   carried_ += copies;
}

void Stats::refresh()
{
   std::lock_guard<std::mutex> lock(mutex_);
   ++refreshed_;
}

void Stats::survey(int matrices, int readbacks, double seconds)
{
   std::lock_guard<std::mutex> lock(mutex_);
   survey_matrices_ += matrices;
   survey_readbacks_ += readbacks;
   survey_s_ += seconds;
   add_setup_work(seconds);
}

void Stats::prepared_beside()
{
   std::lock_guard<std::mutex> lock(mutex_);
   ++beside_;
}

void Stats::preloaded(double seconds, int steps, const std::string& problem)
{
   std::lock_guard<std::mutex> lock(mutex_);
   preload_s_       = seconds;
   preload_steps_   = steps;
   preload_problem_ = problem;
}

void Stats::preloaded_images(const std::string& line)
{
   std::lock_guard<std::mutex> lock(mutex_);
   preload_images_ = line;
}

void Stats::waited_for_prepare(double seconds)
{
   std::lock_guard<std::mutex> lock(mutex_);
   beside_wait_s_ += seconds;
}

void Stats::model_decision(bool taken, bool repaid)
{
   std::lock_guard<std::mutex> lock(mutex_);
   if (repaid)
   {
      ++model_repaid_;
      --model_declined_; // counted as declined when it was
   }
   if (taken) { ++model_taken_; }
   else { ++model_declined_; }
}

void Stats::note(const std::string& line)
{
   std::lock_guard<std::mutex> lock(mutex_);
   constexpr size_t kMaxNotes = 200; // a long run with many setups must not grow without bound
   if (notes_.size() < kMaxNotes) { notes_.push_back(line); }
}

void Stats::reset()
{
   std::lock_guard<std::mutex> lock(mutex_);
   levels_.clear();
   reasons_.clear();
   fallback_reasons_.clear();
   for (std::atomic<long>& n : fallback_levels_) n.store(0, std::memory_order_relaxed);
   lent_calls_ = 0;
   model_taken_ = model_declined_ = model_repaid_ = 0;
   offd_plugin_ = 0;
   offd_stock_.clear();
   offd_reasons_.clear();
   offd_plugin_levels_.clear();
   sweeps_[0]  = 0;
   sweeps_[1]  = 0;
   setup_kernels_.clear();
   setup_kernels_small_ = 0;
   setup_kernels_small_app_ = 0;
   beside_        = 0;
   survey_matrices_ = 0;
   survey_readbacks_ = 0;
   survey_s_        = 0.0;
   setup_work_s_.clear();
   entry_slots_.assign(1, EntrySlot{});
   beside_wait_s_ = 0.0;
   preload_s_      = -1.0;
   preload_steps_  = 0;
   preload_problem_.clear();
   preload_images_.clear();
   notes_.clear();
   setup_kinds_.clear();
   full_reasons_.clear();
   resetup_levels_       = 0;
   resetup_hypre_levels_ = 0;
   resetup_s_            = 0.0;
   carried_              = 0;
   refreshed_            = 0;
   trace_.clear();
}

bool Stats::write_trace(const std::string& path, const Config& /*config*/) const
{
   std::lock_guard<std::mutex> lock(mutex_);
   std::FILE*                  f = std::fopen(path.c_str(), "w");
   if (!f) { return false; }
   std::fprintf(f, "call,kind,level,precision,seconds,path\n");
   for (size_t i = 0; i < trace_.size(); ++i)
   {
      const TraceEntry& e = trace_[i];
      std::fprintf(f, "%zu,%s,%d,%s,%.9g,%s\n", i, e.kind == 'g' ? "spgemm" : "spmv", e.level,
                   to_string(e.precision), e.seconds, e.path);
   }
   if (trace_.size() >= kMaxTrace) { std::fprintf(f, "# trace full: later calls not recorded\n"); }
   return std::fclose(f) == 0;
}

LevelCounters Stats::level(int level) const
{
   std::lock_guard<std::mutex> lock(mutex_);
   auto          it = levels_.find(level);
   LevelCounters c  = it == levels_.end() ? LevelCounters{} : it->second;
   if (lock_free_level(level))
   {
      c.fallbacks += fallback_levels_[level + 1].load(std::memory_order_relaxed);
   }
   return c;
}

long Stats::total_fallbacks(const std::string& reason) const
{
   std::lock_guard<std::mutex> lock(mutex_);
   auto it = reasons_.find(reason);
   return (it == reasons_.end() ? 0 : it->second) + fallback_reasons_.count_of(reason);
}

std::map<std::string, long> Stats::fallback_reasons() const
{
   std::map<std::string, long> out = reasons_;
   fallback_reasons_.fold_into(out);
   return out;
}

std::map<int, LevelCounters> Stats::levels_with_fallbacks() const
{
   std::map<int, LevelCounters> out = levels_;
   for (int k = 0; k < kFallbackLevels; ++k)
   {
      const long n = fallback_levels_[k].load(std::memory_order_relaxed);
      if (n > 0) out[k - 1].fallbacks += n;
   }
   return out;
}

EntrySlot Stats::entry_slot(size_t k) const
{
   std::lock_guard<std::mutex> lock(mutex_);
   return k < entry_slots_.size() ? entry_slots_[k] : EntrySlot{};
}

std::string Stats::format_entry_time() const
{
   long calls = 0;
   for (const EntrySlot& slot : entry_slots_) calls += slot.calls;
   if (calls == 0) return "";
   auto part = [](const char* what, const EntrySlot& slot) {
      char text[128];
      std::snprintf(text, sizeof(text), "%s: %ld call%s, %.3f ms", what, slot.calls, slot.calls == 1 ? "" : "s",
                    slot.seconds * 1e3);
      return std::string(text);
   };
   // slot 0 (before any setup: the preload's start, the application's own products and
   // matvecs) apart from the first setup (CUDA's lazy loading, first allocations), and that
   // apart from the later ones
   std::string out = "AMGT: plugin entry points (host): " + part("before setup 1", entry_slots_[0]);
   if (entry_slots_.size() > 1) out += "; " + part("setup 1 and its solves", entry_slots_[1]);
   if (entry_slots_.size() > 2)
   {
      EntrySlot later;
      for (size_t k = 2; k < entry_slots_.size(); ++k)
      {
         later.calls += entry_slots_[k].calls;
         later.seconds += entry_slots_[k].seconds;
      }
      const size_t m = entry_slots_.size() - 2;
      char         text[160];
      std::snprintf(text, sizeof(text), "; later setups and their solves: mean %.3f ms over %zu (%ld call%s in all)",
                    later.seconds / static_cast<double>(m) * 1e3, m, later.calls, later.calls == 1 ? "" : "s");
      out += text;
   }
   return out + "\n";
}

std::string Stats::format(const Config& config, int rank, int nranks) const
{
   std::lock_guard<std::mutex> lock(mutex_);
   std::string out;
   char        line[512];
   // Nothing to tabulate with the plugin off: one line (once, from rank 0) says why there is
   // no table, instead of a header over no rows.
   if (config.mode == Mode::off)
   {
      return rank == 0 ? "AMGT statistics: none, the plugin was off (AMGT unset, off or not "
                         "valid): stock hypre ran everything\n"
                       : "";
   }
   // the counters kept without the lock, read once: the table is made of one reading
   const std::map<int, LevelCounters> levels  = levels_with_fallbacks();
   const std::map<std::string, long>  reasons = fallback_reasons();
   std::map<std::string, long>        offd_reasons = offd_reasons_;
   offd_stock_.fold_into(offd_reasons);
   long offd_stock = 0;
   for (const auto& entry : offd_reasons) offd_stock += entry.second;
   const long sweeps[2] = {sweeps_[0].load(std::memory_order_relaxed), sweeps_[1].load(std::memory_order_relaxed)};
   const long setup_kernels_small     = setup_kernels_small_.load(std::memory_order_relaxed);
   const long setup_kernels_small_app = setup_kernels_small_app_.load(std::memory_order_relaxed);
   const bool any_level = std::any_of(levels.begin(), levels.end(),
                                      [](const auto& entry) { return touched(entry.second); });
   if (!any_level && reasons.empty() && notes_.empty() && sweeps[0] + sweeps[1] == 0 && setup_kinds_.empty() &&
       setup_kernels_.empty() && setup_kernels_small == 0)
   {
      std::snprintf(line, sizeof(line),
                    "AMGT statistics (rank %d of %d): mode %s, no plugin call on this rank\n", rank,
                    nranks, to_string(config.mode));
      // what hypre's hooks spent in the plugin, which declined or skipped everything
      return line + format_entry_time();
   }
   const bool automatic = config.mode == Mode::automatic;
   std::snprintf(line, sizeof(line), "AMGT statistics (rank %d of %d): mode %s%s%s\n", rank, nranks,
                 to_string(config.mode),
                 // under auto the schedule is the floor; the word stays "schedule" because
                 // scripts/bench_runner.py parses this header
                 config.mode == Mode::mixed || automatic ? ", schedule " : "",
                 config.mode == Mode::mixed || automatic
                    ? schedule_to_string(config.schedule).c_str()
                    : "");
   out += line;
   std::snprintf(line, sizeof(line), "%6s %10s %12s %10s %6s %5s %5s %8s %11s %8s %11s %9s  %s\n",
                 "level", "rows", "nnz", "tiles", "fill", "prec", "conv", "spgemm", "spgemm_ms",
                 "spmv", "spmv_ms", "fallbacks", "path");
   out += line;
   // Under auto, why each level runs in what it runs in: one line per level after the table
   // ("AMGT: why level L: A:fp16/scaled P:fp16/in-range R:fp16/in-range x:fp32"): per role
   // the precision of the matrix's SpMV and the reason (precision/policy.h: floor, in-range,
   // scaled, overflow, underflow, non-finite, near-singular, level-near-singular), and x: the
   // lowest precision of the level's products. Lines, not a column, so that the table rows
   // keep the layout that scripts/bench_runner.py and the tests parse (a line ending in path).
   std::string why_lines;
   for (const auto& [level, c] : levels)
   {
      if (!touched(c)) continue;
      char rows[32] = "-", nnz[32] = "-", tiles[32] = "-", fill[32] = "-";
      if (c.shape.known)
      {
         std::snprintf(rows, sizeof(rows), "%lld", static_cast<long long>(c.shape.rows));
         std::snprintf(nnz, sizeof(nnz), "%lld", static_cast<long long>(c.shape.nnz));
         std::snprintf(tiles, sizeof(tiles), "%lld", static_cast<long long>(c.shape.tiles));
         std::snprintf(fill, sizeof(fill), "%.2f", c.shape.fill);
      }
      char name[16];
      if (level < 0) { std::snprintf(name, sizeof(name), "%s", "other"); }
      else { std::snprintf(name, sizeof(name), "%d", level); }
      // prec: what the level's operator runs in (under auto: its choice, once made)
      Precision   prec = precision_for_level(config, level);
      if (automatic)
      {
         if (c.spmv_choice[AMGT_ROLE_A].known) prec = c.spmv_choice[AMGT_ROLE_A].choice.precision;
         std::string why;
         static const char* const role_names[4] = {"untagged", "A", "P", "R"};
         for (int role : {AMGT_ROLE_A, AMGT_ROLE_P, AMGT_ROLE_R, AMGT_ROLE_NONE})
         {
            const ChoiceRecord& r = c.spmv_choice[role];
            if (!r.known) continue;
            if (!why.empty()) why += ' ';
            why += std::string(role_names[role]) + ":" + to_string(r.choice.precision) + "/" +
                   r.choice.reason;
         }
         if (c.product_known)
         {
            if (!why.empty()) why += ' ';
            why += std::string("x:") + to_string(c.product_precision);
         }
         if (!why.empty()) why_lines += std::string("AMGT: why level ") + name + ": " + why + "\n";
      }
      std::snprintf(line, sizeof(line),
                    "%6s %10s %12s %10s %6s %5s %5ld %8ld %11.3f %8ld %11.3f %9ld  %s\n", name, rows,
                    nnz, tiles, fill, to_string(prec), c.conversions, c.spgemm_calls,
                    c.spgemm_s * 1e3, c.spmv_calls, c.spmv_s * 1e3, c.fallbacks,
                    c.path.empty() ? "-" : c.path.c_str());
      out += line;
   }
   out += why_lines;
   // GPU: the plugin's own setup work over all setups of the process, a line (the table's
   // columns are parsed by scripts): per level the sum, and the parts over all levels
   double      parts[3] = {0.0, 0.0, 0.0};
   std::string prepare_levels;
   for (const auto& [level, c] : levels)
   {
      const double sum = c.prepare_s[0] + c.prepare_s[1] + c.prepare_s[2];
      if (sum <= 0.0) continue;
      for (int k = 0; k < 3; ++k) parts[k] += c.prepare_s[k];
      std::snprintf(line, sizeof(line), " L%d %.3f", level, sum * 1e3);
      prepare_levels += line;
   }
   if (parts[0] + parts[1] + parts[2] + survey_s_ > 0.0)
   {
      std::snprintf(line, sizeof(line),
                    "AMGT: plugin setup work %.3f ms (survey %.3f, precision choice %.3f, conversion + SpMV "
                    "plan %.3f, race %.3f), by level:",
                    (survey_s_ + parts[0] + parts[1] + parts[2]) * 1e3, survey_s_ * 1e3, parts[0] * 1e3,
                    parts[1] * 1e3, parts[2] * 1e3);
      out += line + prepare_levels + "\n";
      // per setup: the first of the process apart from the later ones (their median: the warm
      // figure to set beside a warm setup's time)
      std::vector<double> later;
      for (size_t k = 1; k < setup_work_s_.size(); ++k) later.push_back(setup_work_s_[k]);
      if (!later.empty())
      {
         std::sort(later.begin(), later.end());
         const size_t m      = later.size();
         const double median = m % 2 ? later[m / 2] : 0.5 * (later[m / 2 - 1] + later[m / 2]);
         std::snprintf(line, sizeof(line),
                       "AMGT: plugin setup work per setup: the first %.3f ms, the %zu later median %.3f ms "
                       "(%.3f to %.3f)\n",
                       setup_work_s_[0] * 1e3, m, median * 1e3, later.front() * 1e3, later.back() * 1e3);
         out += line;
      }
   }
   out += format_entry_time();
   if (survey_matrices_ > 0)
   {
      std::snprintf(line, sizeof(line),
                    "AMGT: setup survey (AMGT_SETUP_SURVEY): value statistics and fill samples of %ld matrices "
                    "taken with %ld read-backs\n",
                    survey_matrices_, survey_readbacks_);
      out += line;
   }
   if (!setup_kinds_.empty())
   {
      long resetups = 0;
      for (char k : setup_kinds_) { resetups += k == 'R' ? 1 : 0; }
      std::snprintf(line, sizeof(line), "AMGT: setups (AMGT_RESETUP=%s): %ld full", to_string(config.resetup),
                    static_cast<long>(setup_kinds_.size()) - resetups);
      out += line;
      const char* sep = " (";
      for (const auto& [why, count] : full_reasons_)
      {
         std::snprintf(line, sizeof(line), "%s%s: %ld", sep, why.c_str(), count);
         out += line;
         sep = ", ";
      }
      if (!full_reasons_.empty()) out += ")";
      std::snprintf(line, sizeof(line), ", %ld re-setups", resetups);
      out += line;
      if (resetup_levels_ + resetup_hypre_levels_ > 0)
      {
         std::snprintf(line, sizeof(line), " (%ld coarse operators on their plans, %ld by hypre's product)",
                       resetup_levels_, resetup_hypre_levels_);
         out += line;
         if (resetup_s_ > 0.0)
         {
            std::snprintf(line, sizeof(line), "; Galerkin products %.3f ms in all", resetup_s_ * 1e3);
            out += line;
         }
      }

      out += "; in order: " + (setup_kinds_.size() <= 200 ? setup_kinds_ : setup_kinds_.substr(0, 200) + "...");
      out += "\n";
   }
   if (carried_ > 0 || refreshed_ > 0)
   {
      std::snprintf(line, sizeof(line),
                    "AMGT: re-setups: device copies kept %ld, of them %ld with values refreshed in place (no "
                    "conversion)\n",
                    carried_, refreshed_);
      out += line;
   }
   if (!preload_images_.empty()) out += "AMGT: " + preload_images_ + "\n";
   if (preload_s_ >= 0.0)
   {
      std::snprintf(line, sizeof(line),
                    "AMGT: the plugin's kernels were loaded on a second thread from HYPRE_Initialize on "
                    "(AMGT_PRELOAD): %d steps, %.1f ms",
                    preload_steps_, preload_s_ * 1e3);
      out += line;
      if (!preload_problem_.empty()) out += "; " + preload_problem_ + " (those kernels load at first use)";
      out += "\n";
   }
   if (beside_ > 0)
   {
      std::snprintf(line, sizeof(line),
                    "AMGT: %ld matrices prepared beside hypre's setup (second thread and stream, "
                    "AMGT_SETUP_OVERLAP); hypre's thread waited %.3f ms for them\n",
                    beside_, beside_wait_s_ * 1e3);
      out += line;
   }
   if (model_taken_ + model_declined_ > 0)
   {
      std::snprintf(line, sizeof(line),
                    "AMGT: cost model: %ld matrices taken by the plugin (%ld of them after hypre served "
                    "enough of their matvecs), %ld left to hypre (no survey, no copy)\n",
                    model_taken_, model_repaid_, model_declined_);
      out += line;
   }
   if (lent_calls_ > 0)
   {
      std::snprintf(line, sizeof(line),
                    "AMGT: %ld fp64 matvecs outside the V-cycle (Krylov, residuals, later cycles) ran on "
                    "hypre's own arrays (row-wise kernel, no copy)\n",
                    lent_calls_);
      out += line;
   }
   if (offd_plugin_ + offd_stock > 0)
   {
      std::snprintf(line, sizeof(line),
                    "AMGT: off-diagonal blocks (columns of other ranks): %ld matvecs on the plugin, %ld on "
                    "hypre",
                    offd_plugin_, offd_stock);
      out += line;
      const char* sep = " (plugin by level:";
      for (const auto& [lvl, count] : offd_plugin_levels_)
      {
         std::snprintf(line, sizeof(line), "%s L%d=%ld", sep, lvl, count);
         out += line;
         sep = "";
      }
      if (!offd_plugin_levels_.empty()) out += ")";
      sep = " (hypre by reason:";
      for (const auto& [reason, count] : offd_reasons)
      {
         std::snprintf(line, sizeof(line), "%s %s=%ld", sep, reason.c_str(), count);
         out += line;
         sep = "";
      }
      if (!offd_reasons.empty()) out += ")";
      out += "\n";
   }
   if (sweeps[0] + sweeps[1] > 0)
   {
      std::snprintf(line, sizeof(line),
                    "AMGT: l1-Jacobi sweeps taken from hypre's Relax7: %ld from u = 0 in one pass (no "
                    "copy), %ld as one out-of-place product (no copy where the plugin computes it)\n",
                    sweeps[1], sweeps[0]);
      out += line;
   }
   if (!setup_kernels_.empty())
   {
      out += "AMGT: hypre's setup kernels run by the plugin (AMGT_SETUP_KERNELS):";
      for (const auto& [what, n] : setup_kernels_) out += " " + what + " " + std::to_string(n);
      out += "\n";
   }
   if (setup_kernels_small > 0)
   {
      out += "AMGT: hypre's setup kernels left to hypre below the size floor (AMGT_SETUP_KERNELS=large): " +
             std::to_string(setup_kernels_small) + " calls";
      if (setup_kernels_small_app > 0)
      {
         out += " (" + std::to_string(setup_kernels_small_app) +
                " of them of blocks above it, in the hierarchy of an application's matrix of fewer than " +
                std::to_string(kSetupKernelsApplicationEntries) + " entries on this process)";
      }
      out += "\n";
   }
   if (!reasons.empty())
   {
      out += "AMGT fallbacks to stock hypre by reason:";
      for (const auto& [reason, count] : reasons)
      {
         std::snprintf(line, sizeof(line), " %s=%ld", reason.c_str(), count);
         out += line;
      }
      out += "\n";
   }
   for (const std::string& n : notes_) { out += "AMGT: " + n + "\n"; }
   return out;
}

} // namespace amgt::glue
