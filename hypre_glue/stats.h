// Per-level counters behind AMGT_STATS=1, printed at HYPRE_Finalize.
#pragma once

#include "matrix_state.h"

#include "precision/policy.h"
#include "precision/schedule.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace amgt::glue {

// AMGT=auto: the last choice made for a matrix of the level, by role.
struct ChoiceRecord
{
   bool            known = false;
   PrecisionChoice choice;
};

// AMGT_STATS: hypre's calls of the plugin's C entry points in one setup slot (Stats::entry_time)
// and the host time spent inside them
struct EntrySlot
{
   long   calls   = 0;
   double seconds = 0.0;
};

struct LevelCounters
{
   LevelShape shape;
   long       conversions  = 0;
   long       spgemm_calls = 0;
   double     spgemm_s     = 0.0;
   long       spmv_calls   = 0;
   double     spmv_s       = 0.0;
   long       fallbacks    = 0;
   // GPU: the plugin's own setup work for the level's matrices (conversions, SpMV plans,
   // races), timed with AMGT_STATS only
   double     prepare_s[3] = {0.0, 0.0, 0.0}; // precision choice, conversion + plan, race
   std::string path; // kernel path last used on this level ("cpu-ref", ...)
   // AMGT=auto: SpMV choices of the level's A, P, R (index AMGT_ROLE_*; 0 = untagged) and
   // the lowest precision a product of the level ran in.
   ChoiceRecord spmv_choice[4];
   bool         product_known     = false;
   Precision    product_precision = Precision::fp64;
};

// Counts by reason, for reasons given as pointers to text that lives as long as the process
// (string literals: every caller of Stats::fallback and Stats::offd_spmv, and hypre's side
// through amgt_glue_count_fallback). A count finds its pointer's slot without a lock, a string
// or a comparison of text, so that a call the plugin declines costs the host little; the text
// is read only when the counts are (fold_into, count_of), where two pointers to the same text
// (a literal repeated in several places) make one reason.
class ReasonCounts
{
public:
   // false when every slot holds another pointer (more distinct pointers than kSlots): the
   // caller counts that reason some other way
   bool add(const char* reason) noexcept
   {
      const size_t start = (reinterpret_cast<uintptr_t>(reason) >> 3) % kSlots;
      for (size_t i = 0; i < kSlots; ++i)
      {
         Slot&       s   = slots_[(start + i) % kSlots];
         const char* key = s.key.load(std::memory_order_acquire);
         // claim an empty slot; where another thread claimed it first, key is what it wrote
         if (!key && s.key.compare_exchange_strong(key, reason, std::memory_order_acq_rel)) key = reason;
         if (key == reason)
         {
            s.count.fetch_add(1, std::memory_order_relaxed);
            return true;
         }
      }
      return false;
   }
   // adds every reason counted since the last clear to out, by its text
   void fold_into(std::map<std::string, long>& out) const;
   long count_of(const std::string& reason) const;
   // counts back to zero; the slots keep their pointers (a reason not counted since is not read)
   void clear() noexcept;

private:
   static constexpr size_t kSlots = 64; // the code holds about 30 reason literals
   struct Slot
   {
      std::atomic<const char*> key{nullptr};
      std::atomic<long>        count{0};
   };
   std::array<Slot, kSlots> slots_;
};

class Stats
{
public:
   void level_matrix(int level, const LevelShape& shape);
   void conversion(int level);
   void spgemm(int level, double seconds, const char* path, Precision precision);
   void spmv(int level, double seconds, const char* path, Precision precision);
   // An fp64 matvec of a lower-precision matrix on hypre's own arrays (planner.h, lent):
   // counted with the level's SpMVs; the level's path stays that of its V-cycle copy.
   void spmv_lent(int level, double seconds);
   // One l1-Jacobi sweep of the smoother the glue took over (hypre_AMGTRelaxJacobi): from
   // u = 0 in one pass (from_zero), or as one out-of-place product f - A*u (which reads f in
   // place wherever the plugin computes the product; hypre's own matvec copies it).
   void sweep(bool from_zero);
   // One of hypre's own setup kernels run by the plugin instead (AMGT_SETUP_KERNELS): `what`
   // names it (e.g. "extended+i F-F weights").
   void setup_kernel(const char* what);
   // A call of one of those kernels left to hypre below AMGT_SETUP_KERNELS=large's size floor.
   void setup_kernel_small(bool small_application = false);
   // AMGT=auto: the SpMV precision chosen for a matrix (role AMGT_ROLE_*) of a level.
   void spmv_choice(int level, int role, const PrecisionChoice& choice);
   // A call left to hypre for `reason`: text that lives as long as the process (a string
   // literal; ReasonCounts), counted by its text. Without the lock for levels -1 to
   // kFallbackLevels - 2 and the first ReasonCounts::kSlots distinct pointers.
   void fallback(int level, const char* reason);
   // One matvec of an off-diagonal block (a ParCSR matrix's offd part, whose columns are other
   // ranks' unknowns): on the plugin, or left to hypre for `reason` (nullptr: the plugin's path
   // declined it, counted as "declined"). Counted apart so that a
   // multi-rank run shows where the neighbours' couplings ran (besides the level's counts).
   void offd_spmv(int level, bool plugin, const char* reason);
   // seconds of the plugin's setup work for one matrix of the level: the precision choice
   // (AMGT=auto's value checks), the conversion and SpMV plan, the race
   void prepare(int level, double choice_s, double convert_s, double race_s);
   // GPU: the setup survey (amgt_glue_matrices_survey) measured `matrices` matrices with
   // `readbacks` read-backs in this many seconds (timed only under AMGT_STATS)
   void survey(int matrices, int readbacks, double seconds);
   // A BoomerAMG setup begins (amgt_glue_setup_begin): the setup work that follows (prepare,
   // survey) is also counted for this setup alone, so that the table can show the first setup
   // of a process (CUDA's lazy loading, first allocations) apart from the later ones.
   void setup_begin();
   // One call of the plugin's C entry points (glue.cpp: the amgt_glue_* functions hypre's hooks
   // call, timed under AMGT_STATS only; an entry reached from inside another counts once) took
   // this long on the host. Counted in the current setup slot: the one the latest setup_begin
   // opened (that setup and the solves after it), or slot 0 before the first setup, so that the
   // table can show what the hooks add to a setup and its solves even where the plugin declines
   // everything.
   void entry_time(double seconds);
   // AMGT_RESETUP: a setup was a re-setup (reason 0) or a full one for `reason`
   // (amgt_glue.h AMGT_SETUP_*, named by setup_reason_name); and a re-setup's Galerkin products:
   // `levels` coarse operators recomputed on their plans in `seconds` (timed only under
   // AMGT_STATS), `hypre_levels` by hypre's own product (a plan did not fit).
   void setup_kind(int reason, const char* why);
   void resetup_products(int levels, int hypre_levels, double seconds);
   // AMGT_RESETUP: at a re-setup, `copies` device copies kept as they were (P, R: values
   // unchanged) or marked for new values; and one copy whose values were
   // refreshed in place (no conversion)
   void carried(int copies);
   void refresh();
   // GPU: one matrix prepared beside hypre's setup (device_prepare_beside), and the seconds
   // hypre's thread waited for such work (at the end of a setup, or for a matrix it needed)
   void prepared_beside();
   void waited_for_prepare(double seconds);
   // GPU: the preload of the plugin's kernels (device_preload_start) took this long on its
   // thread, in `steps` steps; problem: what failed (empty: nothing)
   void preloaded(double seconds, int steps, const std::string& problem);
   // GPU: the library's kernels loaded by the preload (kernel_images.h), said in one line
   void preloaded_images(const std::string& line);
   // The cost model (planner.h model_declines) decided a matrix: taken by the plugin or left
   // to hypre; repaid: taken by the re-check of a declined one (its served matvecs)
   void model_decision(bool taken, bool repaid);
   // One line of explanation printed under the table (a dispatch decision and its timings).
   void note(const std::string& line);
   // Per-call trace (AMGT_TRACE): every plugin SpGEMM/SpMV in call order, written as CSV.
   void enable_trace() { tracing_ = true; }
   bool tracing() const { return tracing_; }
   bool write_trace(const std::string& path, const Config& config) const;
   void reset();
   std::string format(const Config& config, int rank, int nranks) const;

   // read access for tests
   LevelCounters level(int level) const;
   long          total_fallbacks(const std::string& reason) const;
   // slot 0: before the first setup; k: setup k and its solves; an empty slot past the last
   EntrySlot     entry_slot(size_t k) const;

private:
   LevelCounters& count_call(char kind, int level, double seconds, const char* path, Precision precision);
   // this setup's share of the setup work (setup_work_s_); the caller holds mutex_
   void add_setup_work(double seconds);
   // the line of entry_slots_ in the table, or "" without any timed call; the caller holds mutex_
   std::string format_entry_time() const;
   // the fallbacks by reason text, and levels_ with every level's fallbacks (a level with only
   // fallbacks gets its entry); the caller holds mutex_
   std::map<std::string, long>  fallback_reasons() const;
   std::map<int, LevelCounters> levels_with_fallbacks() const;

   mutable std::mutex          mutex_;
   std::map<int, LevelCounters> levels_;
   // fallback: by reason and by level without the lock (ReasonCounts; levels -1 to
   // kFallbackLevels - 2), the rest under it in reasons_ and levels_[level].fallbacks; all read
   // through fallback_reasons and levels_with_fallbacks
   static constexpr int kFallbackLevels = 64;
   // whether a level's fallbacks are counted in fallback_levels_ (its slot: level + 1)
   static constexpr bool lock_free_level(int level) { return level >= -1 && level < kFallbackLevels - 1; }
   ReasonCounts                                   fallback_reasons_;
   std::array<std::atomic<long>, kFallbackLevels> fallback_levels_{};
   std::map<std::string, long> reasons_;
   long                        lent_calls_ = 0;
   long                        model_taken_ = 0, model_declined_ = 0, model_repaid_ = 0;
   long                        offd_plugin_ = 0; // off-diagonal blocks' matvecs on the plugin
   // those left to hypre, by reason (without the lock; offd_reasons_ beyond ReasonCounts' slots)
   ReasonCounts                offd_stock_;
   std::map<std::string, long> offd_reasons_;
   std::map<int, long>         offd_plugin_levels_;                // of offd_plugin_, by level
   std::atomic<long>           sweeps_[2]{}; // out-of-place, from zero
   std::map<std::string, long> setup_kernels_;       // by what
   std::atomic<long>           setup_kernels_small_{0}; // left to hypre by the size floor
   // of those, for the application's matrix (setup_kernel_decision)
   std::atomic<long>           setup_kernels_small_app_{0};
   long                        survey_matrices_ = 0, survey_readbacks_ = 0; // setup surveys
   double                      survey_s_        = 0.0;
   std::vector<double>         setup_work_s_; // per setup (setup_begin), survey + prepare
   // per setup slot (entry_time): [0] before the first setup, [k] setup k and its solves
   std::vector<EntrySlot>      entry_slots_ = std::vector<EntrySlot>(1);
   long                        beside_     = 0;      // matrices prepared beside hypre's setup
   double                      beside_wait_s_ = 0.0; // hypre's thread waited for them
   double                      preload_s_     = -1.0; // < 0: no preload ran
   int                         preload_steps_  = 0;
   std::string                 preload_problem_;
   std::string                 preload_images_;
   std::vector<std::string>    notes_;
   std::string                 setup_kinds_;   // one letter a setup: R re-setup, F full
   std::map<std::string, long> full_reasons_;  // of the full setups (AMGT_RESETUP on)
   long                        resetup_levels_ = 0, resetup_hypre_levels_ = 0;
   double                      resetup_s_      = 0.0;
   long                        carried_ = 0, refreshed_ = 0; // device copies at re-setups

   struct TraceEntry
   {
      char        kind; // 'g' SpGEMM, 'v' SpMV
      int         level;
      double      seconds;
      const char* path; // a string literal of the backends
      Precision   precision;
   };
   bool                    tracing_ = false;
   std::vector<TraceEntry> trace_;
};

// The process's counters, which the C entry points fill (glue.cpp); read by tests.
const Stats& process_stats();

} // namespace amgt::glue
