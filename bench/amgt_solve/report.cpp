// Summary text and JSON record of a run.
#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "drift.h"

namespace amgt {

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::vector<double> Report::total_all() const {
  std::vector<double> t(std::min(setup_all.size(), solves_total_all.size()));
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = setup_all[i] + solves_total_all[i];
  return t;
}
std::vector<double> Report::stock_total_all() const {
  std::vector<double> t(std::min(stock_setup_all.size(), stock_solves_total_all.size()));
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = stock_setup_all[i] + stock_solves_total_all[i];
  return t;
}
double Report::setup_median() const { return median(setup_all); }
double Report::solve_median() const { return median(solve_all); }
double Report::solves_total_median() const { return median(solves_total_all); }
double Report::total_median() const { return median(total_all()); }

double Report::operator_complexity() const {
  if (level_nnz.empty() || level_nnz[0] == 0) return std::nan("");
  double sum = 0.0;
  for (std::int64_t v : level_nnz) sum += static_cast<double>(v);
  return sum / static_cast<double>(level_nnz[0]);
}

std::vector<StepResult> Report::step_table() const {
  if (step_runs.empty()) return {};
  std::vector<StepResult> t = step_runs.back();
  for (std::size_t k = 0; k < t.size(); ++k) {
    std::vector<double> u, a, b;
    for (const auto& run : step_runs) {
      if (k >= run.size()) continue;
      u.push_back(run[k].update_s);
      a.push_back(run[k].setup_s);
      b.push_back(run[k].solve_s);
    }
    t[k].update_s = median(u);
    t[k].setup_s = median(a);
    t[k].solve_s = median(b);
  }
  return t;
}

namespace {

// --steps: the summary of the per-step table (steps.h's StepResult, medians over runs).
struct StepSums {
  double setup_total = 0.0;
  double solve_total = 0.0;
  double update_total = 0.0;
  int setup_calls = 0;
  double first_setup = std::nan("");
  double resetup_median = std::nan("");  // steps >= 1 that set up; NaN when none did
  double solve_median = std::nan("");
  double iterations_median = std::nan("");
  double iterations_mean = std::nan("");
  int iterations_max = 0;
};

StepSums step_sums(const std::vector<StepResult>& t) {
  StepSums s;
  std::vector<double> resetups, solves, iters;
  for (std::size_t k = 0; k < t.size(); ++k) {
    s.setup_total += t[k].setup_s;
    s.solve_total += t[k].solve_s;
    s.update_total += t[k].update_s;
    if (t[k].setup_called) ++s.setup_calls;
    if (k >= 1 && t[k].setup_called) resetups.push_back(t[k].setup_s);
    solves.push_back(t[k].solve_s);
    iters.push_back(static_cast<double>(t[k].iterations));
    s.iterations_max = std::max(s.iterations_max, t[k].iterations);
  }
  if (!t.empty()) s.first_setup = t.front().setup_s;
  s.resetup_median = median(resetups);
  s.solve_median = median(solves);
  s.iterations_median = median(iters);
  if (!iters.empty()) {
    double sum = 0.0;
    for (double v : iters) sum += v;
    s.iterations_mean = sum / static_cast<double>(iters.size());
  }
  return s;
}

}  // namespace

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

bool valid_utf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    if (c < 0x80) {
      extra = 0;
    } else if (c >= 0xc2 && c <= 0xdf) {
      extra = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      extra = 2;
    } else if (c >= 0xf0 && c <= 0xf4) {
      extra = 3;
    } else {
      return false;
    }
    for (int k = 1; k <= extra; ++k) {
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    }
    i += static_cast<std::size_t>(extra) + 1;
  }
  return true;
}

// Minimal JSON object writer: keys in insertion order, one line.
class JsonWriter {
 public:
  JsonWriter() : out_("{") {}
  std::string finish() { return out_ + "}"; }

  void str(const char* key, const std::string& v) { k(key); quote(v); }
  void opt_str(const char* key, const std::optional<std::string>& v) {
    k(key);
    if (v) quote(*v); else out_ += "null";
  }
  void integer(const char* key, long long v) { k(key); out_ += std::to_string(v); }
  void opt_integer(const char* key, const std::optional<std::int64_t>& v) {
    k(key);
    out_ += v ? std::to_string(*v) : "null";
  }
  void boolean(const char* key, bool v) { k(key); out_ += v ? "true" : "false"; }
  // v: JSON text written by this class (an array of finished objects)
  void raw(const char* key, const std::string& v) { k(key); out_ += v; }
  void number(const char* key, double v, const char* format = nullptr) {
    k(key);
    num(v, format);
  }
  void opt_number(const char* key, const std::optional<double>& v, const char* format = "%.17g") {
    k(key);
    if (v) num(*v, format); else out_ += "null";
  }
  void numbers(const char* key, const std::vector<double>& v, const char* format = nullptr) {
    k(key);
    out_ += "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out_ += ",";
      num(v[i], format);
    }
    out_ += "]";
  }
  template <typename T>
  void integers(const char* key, const std::vector<T>& v) {
    k(key);
    out_ += "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out_ += ",";
      out_ += std::to_string(static_cast<long long>(v[i]));
    }
    out_ += "]";
  }

 private:
  void k(const char* key) {
    if (out_.size() > 1) out_ += ",";
    quote(key);
    out_ += ":";
  }
  // Shortest of %.15g / %.16g / %.17g that reads back as the same double, unless a fixed
  // format is asked for (times).
  void num(double v, const char* format) {
    if (!std::isfinite(v)) {
      out_ += "null";
      return;
    }
    if (format != nullptr) {
      out_ += fmt(format, v);
      return;
    }
    for (const char* f : {"%.15g", "%.16g", "%.17g"}) {
      const std::string s = fmt(f, v);
      if (std::strtod(s.c_str(), nullptr) == v || f[3] == '7') {
        out_ += s;
        return;
      }
    }
  }
  void quote(const std::string& s) {
    const bool utf8 = valid_utf8(s);
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20 || c == 0x7f || (c >= 0x80 && !utf8)) {
            // Control bytes; the bytes of a string that is not valid UTF-8 (a path need
            // not be) are written as the code points U+0080..U+00FF so the line stays JSON.
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }
  std::string out_;
};

std::string list(const std::vector<double>& v) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : " ") + fmt("%.6f", x);
  return s;
}

std::string pool_description(const Report& r) {
  const int pool = r.options.pool;
  if (r.device != "gpu") return std::to_string(pool) + " (no effect on a CPU build)";
  if (!r.device_pool_built) return std::to_string(pool) + " (none: hypre built without its device pool)";
  if (pool == 0) return "off: HYPRE_SetGPUMemoryPoolSize(8, 1, 0, 0), exact sizes, nothing cached (--pool 0)";
  return "hypre's device pool, as built (--pool 1)";
}

}  // namespace

namespace {

// --galerkin-work: one line per level with a P.
void print_galerkin_work(std::FILE* out, const Report& r) {
  if (!r.galerkin_note.empty()) {
    std::fprintf(out, "  galerkin work %s\n", r.galerkin_note.c_str());
    return;
  }
  std::fprintf(out,
               "  galerkin work C = P^T A P per level: terms (multiply-adds) and entries touched (read or\n"
               "                written, nothing cached) as two products (A*P, then P^T*(AP)) and as one\n"
               "                triple product; fused / two > 1: the triple product does more\n");
  std::fprintf(out, "                %5s %10s %12s %12s %12s %12s | %13s %13s | %13s %13s | %6s %6s\n", "level",
               "nc", "terms A*P", "nnz AP", "terms PtAP", "nnz C", "two: terms", "touched",
               "fused: terms", "touched", "terms", "touch");
  for (std::size_t l = 0; l < r.galerkin.size(); ++l) {
    const work::GalerkinWork& w = r.galerkin[l];
    const double two = static_cast<double>(w.terms_ap + w.terms_ptap);
    const double two_touched = static_cast<double>(w.touched_two_products());
    std::fprintf(out, "                %5zu %10lld %12lld %12lld %12lld %12lld | %13lld %13lld | %13lld %13lld | %6.2f %6.2f\n",
                 l, static_cast<long long>(w.nc), static_cast<long long>(w.terms_ap),
                 static_cast<long long>(w.nnz_ap), static_cast<long long>(w.terms_ptap),
                 static_cast<long long>(w.nnz_c), static_cast<long long>(w.terms_ap + w.terms_ptap),
                 static_cast<long long>(w.touched_two_products()), static_cast<long long>(w.terms_fused),
                 static_cast<long long>(w.touched_fused()),
                 two > 0.0 ? static_cast<double>(w.terms_fused) / two : 0.0,
                 two_touched > 0.0 ? static_cast<double>(w.touched_fused()) / two_touched : 0.0);
  }
}

}  // namespace

namespace {

// --steps: the sequence, one line per step, and its sums.
void print_steps(std::FILE* out, const Report& r) {
  const cli::Options& o = r.options;
  const std::vector<StepResult> t = r.step_table();
  const StepSums sums = step_sums(t);
  std::string what = std::string("drift ") + drift::name(o.drift);
  if (o.drift == drift::Kind::Dt) what += " (c/dt_0 " + fmt("%g", o.dt_shift) + ", dt_k/dt_0 = 1 + 0.5 sin k)";
  if (o.drift == drift::Kind::Jump) what += " (" + std::to_string(o.jump_speed) + " cells per step in +x)";
  std::fprintf(out, "  steps         %d, %s, %s; times: medians of %zu run%s\n", o.steps, what.c_str(),
               o.frozen ? "frozen: setup at step 0 only" : "setup every step", r.step_runs.size(),
               r.step_runs.size() == 1 ? "" : "s");
  std::fprintf(out, "  %5s %10s %10s %10s %10s %6s %12s\n", "step", "param", "update s", "setup s", "solve s",
               "iters", "rel res");
  for (std::size_t k = 0; k < t.size(); ++k) {
    const double param = drift::parameter(o.drift, static_cast<int>(k), o.jump_speed);
    std::fprintf(out, "  %5zu %10.4g %10.6f %10s %10.6f %6d %12.3e\n", k, param, t[k].update_s,
                 t[k].setup_called ? fmt("%.6f", t[k].setup_s).c_str() : "-", t[k].solve_s, t[k].iterations,
                 t[k].rel_residual);
  }
  std::fprintf(out, "  steps sum     setup %.6f (%d setup%s), solve %.6f, total %.6f; first setup %.6f, "
               "median re-setup %s, median solve %.6f; iterations per step median %g, max %d\n",
               sums.setup_total, sums.setup_calls, sums.setup_calls == 1 ? "" : "s", sums.solve_total,
               sums.setup_total + sums.solve_total, sums.first_setup,
               std::isnan(sums.resetup_median) ? "-" : fmt("%.6f", sums.resetup_median).c_str(),
               sums.solve_median, sums.iterations_median, sums.iterations_max);
}

}  // namespace

void print_summary(std::FILE* out, const Report& r) {
  const cli::Options& o = r.options;
  const cli::AmgSettings& a = o.amg;
  std::fprintf(out, "amgt-solve (hypre %s, %s build)\n", r.hypre_version.c_str(),
               r.device.c_str());
  if (r.matrix) {
    std::fprintf(out, "  problem       %s (matrix %s)\n", r.problem.c_str(), r.matrix->c_str());
  } else {
    std::fprintf(out, "  problem       %s, n = %lld\n", r.problem.c_str(),
                 static_cast<long long>(r.n.value_or(0)));
  }
  std::fprintf(out, "  system        %lld rows, %lld nonzeros", static_cast<long long>(r.rows),
               static_cast<long long>(r.nnz));
  if (r.empty_rows > 0) std::fprintf(out, ", %lld empty rows", static_cast<long long>(r.empty_rows));
  std::fprintf(out, "; b = 1, x0 = 0\n");
  std::fprintf(out, "  ranks         %d (%s)\n", r.np, r.device.c_str());
  if (!r.rank_devices.empty()) {
    std::fprintf(out, "  devices      ");
    for (std::size_t i = 0; i < r.rank_devices.size(); ++i) {
      std::fprintf(out, "%s rank %zu: %s", i ? "," : "", i, r.rank_devices[i].c_str());
    }
    std::fprintf(out, "\n");
  }
  std::fprintf(out, "  AMGT          %s, AMGT_LEVELS %s\n", r.mode.c_str(),
               r.levels_schedule ? r.levels_schedule->c_str() : "(unset)");
  std::fprintf(out, "  vendor        spgemm %d, spmv %d%s%s\n", o.vendor_spgemm, o.vendor_spmv,
               o.spgemm_binned ? "; hypre's SpGEMM binned" : "",
               r.device == "gpu" ? "" : " (no effect on a CPU build)");
  std::fprintf(out, "  device pool   %s\n", pool_description(r).c_str());
  std::fprintf(out, "  products      %s\n", r.products.c_str());
  if (o.solver == cli::SolverKind::Pcg) {
    std::fprintf(out,
                 "  solver        pcg (two-norm, relative residual) + 1 BoomerAMG V-cycle; "
                 "tol %g, max iter %d\n",
                 o.tol, o.max_iter);
  } else {
    std::fprintf(out, "  solver        BoomerAMG; tol %g, max iter %d\n", o.tol, o.max_iter);
  }
  std::fprintf(out,
               "  BoomerAMG     coarsen %d, theta %g, max row sum %g, max coarse %d, interp %d "
               "(trunc %g, pmax %d),\n"
               "                relax %d x %d, max levels %d, agg levels %d, %s-cycle, "
               "num functions %d\n",
               a.coarsen_type, a.strong_threshold, a.max_row_sum, a.max_coarse_size,
               a.interp_type, a.trunc_factor, a.pmax, a.relax_type, a.num_sweeps, a.max_levels,
               a.agg_levels, a.cycle_type == 2 ? "W" : "V", o.effective_num_functions());
  std::fprintf(out, "  hierarchy     %d levels", r.levels);
  if (!r.level_rows.empty()) {
    std::fprintf(out, ", operator complexity %.3f; rows/nnz:", r.operator_complexity());
    for (std::size_t l = 0; l < r.level_rows.size(); ++l) {
      std::fprintf(out, " %lld/%lld", static_cast<long long>(r.level_rows[l]),
                   static_cast<long long>(r.level_nnz[l]));
    }
  }
  std::fprintf(out, "\n");
  if (r.galerkin_asked) print_galerkin_work(out, r);
  std::fprintf(out, "  result        %d iterations, relative residual %.6e, %s\n", r.iterations,
               r.rel_residual, r.converged ? "converged" : "NOT converged");
  if (r.true_rel_residual) {
    std::fprintf(out, "  true residual ||b - A x|| / ||b|| = %.6e\n", *r.true_rel_residual);
  }
  if (r.hypre_error) {
    std::fprintf(out, "  hypre error   setup %d, solve %d\n", r.hypre_setup_error,
                 r.hypre_solve_error);
  }
  const int solves = o.solves >= 1 ? o.solves : 1;
  if (o.steps > 0) {
    std::fprintf(out, "  time [s]      setups %.6f (sum over the %d steps), solve %.6f per step, solves %.6f, "
                 "total %.6f  (medians of %zu run%s%s; max over ranks)\n",
                 r.setup_median(), o.steps, r.solve_median(), r.solves_total_median(), r.total_median(),
                 r.setup_all.size(), r.setup_all.size() == 1 ? "" : "s",
                 r.warmup ? " after 1 warm-up" : ", no warm-up");
  } else if (solves == 1) {
    std::fprintf(out, "  time [s]      setup %.6f, solve %.6f, total %.6f  (median of %zu run%s%s; "
                 "max over ranks)\n",
                 r.setup_median(), r.solve_median(), r.total_median(), r.setup_all.size(),
                 r.setup_all.size() == 1 ? "" : "s", r.warmup ? " after 1 warm-up" : ", no warm-up");
  } else {
    std::fprintf(out, "  time [s]      setup %.6f, solve %.6f per solve, solves %.6f (%d per setup), "
                 "total %.6f  (medians of %zu run%s%s; max over ranks)\n",
                 r.setup_median(), r.solve_median(), r.solves_total_median(), solves, r.total_median(),
                 r.setup_all.size(), r.setup_all.size() == 1 ? "" : "s",
                 r.warmup ? " after 1 warm-up" : ", no warm-up");
  }
  if (r.cold_setup_s && r.cold_solve_s) {
    std::fprintf(out, "  cold [s]      setup %.6f, solve %.6f (first of the process; %s)\n",
                 *r.cold_setup_s, *r.cold_solve_s,
                 r.warmup ? "the warm-up run" : "the timed run");
  }
  if (r.beside_stock) {
    const double ss = median(r.stock_setup_all), sv = median(r.stock_solve_all);
    const double stt = median(r.stock_total_all());
    std::fprintf(out, "  beside stock  setup %.6f, solve %.6f, total %.6f  (stock hypre in this process, the "
                 "plugin suspended: median of %zu runs interleaved with the mode's: %s)\n",
                 ss, sv, stt, r.stock_setup_all.size(), r.beside_order.c_str());
    std::fprintf(out, "  vs stock      setup %.3fx, solve %.3fx, total %.3fx  (stock's time / the mode's)\n",
                 ss / r.setup_median(), sv / r.solve_median(), stt / r.total_median());
    std::fprintf(out, "  stock setups  %s\n", list(r.stock_setup_all).c_str());
  }
  std::fprintf(out, "  setup all     %s\n", list(r.setup_all).c_str());
  std::fprintf(out, "  solve all     %s\n", list(r.solve_all).c_str());
  if (o.steps > 0) print_steps(out, r);
}

std::string to_json(const Report& r) {
  const cli::Options& o = r.options;
  const cli::AmgSettings& a = o.amg;
  JsonWriter j;
  j.str("mode", r.mode);
  j.opt_str("levels_schedule", r.levels_schedule);
  j.str("problem", r.problem);
  j.opt_str("matrix", r.matrix);
  j.opt_integer("n", r.n);
  j.str("solver", cli::name(o.solver));
  j.integer("np", r.np);
  j.str("device", r.device);
  {
    std::string joined;
    for (std::size_t i = 0; i < r.rank_devices.size(); ++i) joined += (i ? "; " : "") + r.rank_devices[i];
    j.str("rank_devices", joined);
  }
  j.integer("vendor_spgemm", o.vendor_spgemm);
  j.integer("vendor_spmv", o.vendor_spmv);
  j.integer("spgemm_binned", o.spgemm_binned);
  j.integer("pool", o.pool);
  j.boolean("device_pool", r.device_pool);
  j.integer("rows", r.rows);
  j.integer("nnz", r.nnz);
  j.integer("empty_rows", r.empty_rows);
  j.integer("levels", r.levels);
  j.integer("iterations", r.iterations);
  j.number("rel_residual", r.rel_residual, "%.17g");
  j.opt_number("true_rel_residual", r.true_rel_residual);
  j.boolean("converged", r.converged);
  j.number("setup_s", r.setup_median(), "%.9g");
  j.number("solve_s", r.solve_median(), "%.9g");
  j.number("total_s", r.total_median(), "%.9g");
  j.number("solves_total_s", r.solves_total_median(), "%.9g");
  j.opt_number("cold_setup_s", r.cold_setup_s, "%.9g");
  j.opt_number("cold_solve_s", r.cold_solve_s, "%.9g");
  j.opt_number("cold_total_s", r.cold_total_s, "%.9g");
  j.opt_number("input_s", r.input_s, "%.9g");
  j.opt_number("init_s", r.init_s, "%.9g");
  j.opt_number("assemble_s", r.assemble_s, "%.9g");
  j.opt_number("probe_cpu_s", r.probe_cpu_s, "%.9g");
  j.opt_number("probe_api_s", r.probe_api_s, "%.9g");
  j.numbers("setup_all", r.setup_all, "%.9g");
  j.numbers("solve_all", r.solve_all, "%.9g");
  j.numbers("solves_total_all", r.solves_total_all, "%.9g");
  j.numbers("total_all", r.total_all(), "%.9g");
  j.integers("iterations_all", r.iterations_all);
  j.boolean("random_reset", r.random_reset);
  if (r.beside_stock) {
    const std::vector<double> st = r.stock_total_all();
    j.boolean("beside_stock", true);
    j.str("beside_order", r.beside_order);
    j.number("stock_setup_s", median(r.stock_setup_all), "%.9g");
    j.number("stock_solve_s", median(r.stock_solve_all), "%.9g");
    j.number("stock_total_s", median(st), "%.9g");
    j.numbers("stock_setup_all", r.stock_setup_all, "%.9g");
    j.numbers("stock_solve_all", r.stock_solve_all, "%.9g");
    j.numbers("stock_solves_total_all", r.stock_solves_total_all, "%.9g");
    j.numbers("stock_total_all", st, "%.9g");
    j.integers("stock_iterations_all", r.stock_iterations_all);
  }
  j.integer("repeat", o.repeat);
  j.integer("solves", o.solves);
  j.boolean("warmup", r.warmup);
  if (o.steps > 0) {
    const std::vector<StepResult> t = r.step_table();
    const StepSums sums = step_sums(t);
    std::vector<double> param, update, setup, solve, rel;
    std::vector<int> iters, called;
    for (std::size_t k = 0; k < t.size(); ++k) {
      param.push_back(drift::parameter(o.drift, static_cast<int>(k), o.jump_speed));
      update.push_back(t[k].update_s);
      setup.push_back(t[k].setup_s);
      solve.push_back(t[k].solve_s);
      rel.push_back(t[k].rel_residual);
      iters.push_back(t[k].iterations);
      called.push_back(t[k].setup_called ? 1 : 0);
    }
    j.integer("steps", o.steps);
    j.str("drift", drift::name(o.drift));
    j.number("dt_shift", o.dt_shift);
    j.integer("jump_speed", o.jump_speed);
    j.integer("frozen", o.frozen);
    j.integer("step_runs", static_cast<long long>(r.step_runs.size()));
    j.numbers("step_param", param);
    j.numbers("step_update_s", update, "%.9g");
    j.numbers("step_setup_s", setup, "%.9g");
    j.numbers("step_solve_s", solve, "%.9g");
    j.integers("step_iterations", iters);
    j.numbers("step_rel_residual", rel, "%.17g");
    j.integers("step_setup_called", called);
    j.integer("setup_calls", sums.setup_calls);
    j.number("steps_setup_total_s", sums.setup_total, "%.9g");
    j.number("steps_solve_total_s", sums.solve_total, "%.9g");
    j.number("steps_total_s", sums.setup_total + sums.solve_total, "%.9g");
    j.number("steps_update_total_s", sums.update_total, "%.9g");
    j.number("first_setup_s", sums.first_setup, "%.9g");
    j.number("resetup_median_s", sums.resetup_median, "%.9g");
    j.number("step_solve_median_s", sums.solve_median, "%.9g");
    j.number("iterations_per_step_median", sums.iterations_median);
    j.number("iterations_per_step_mean", sums.iterations_mean);
    j.integer("iterations_per_step_max", sums.iterations_max);
  }
  j.integers("level_rows", r.level_rows);
  j.integers("level_nnz", r.level_nnz);
  j.number("operator_complexity", r.operator_complexity());
  if (r.galerkin_asked) {
    std::string levels = "[";
    for (std::size_t l = 0; l < r.galerkin.size(); ++l) {
      const work::GalerkinWork& w = r.galerkin[l];
      JsonWriter g;
      g.integer("level", static_cast<long long>(l));
      g.integer("rows_fine", w.n);  // not "n": a flat reader would take it for the grid's n
      g.integer("rows_coarse", w.nc);
      g.integer("nnz_a", w.nnz_a);
      g.integer("nnz_p", w.nnz_p);
      g.integer("terms_ap", w.terms_ap);
      g.integer("nnz_ap", w.nnz_ap);
      g.integer("terms_ptap", w.terms_ptap);
      g.integer("nnz_c", w.nnz_c);
      g.integer("terms_fused", w.terms_fused);
      g.integer("a_reads_fused", w.a_reads_fused);
      g.integer("touched_two_products", w.touched_two_products());
      g.integer("touched_fused", w.touched_fused());
      levels += (l ? "," : "") + g.finish();
    }
    j.raw("galerkin_work", levels + "]");
    j.str("galerkin_note", r.galerkin_note);
  }
  j.number("tol", o.tol);
  j.integer("max_iter", o.max_iter);
  j.integer("num_functions", o.effective_num_functions());
  j.integer("coarsen_type", a.coarsen_type);
  j.number("strong_threshold", a.strong_threshold);
  j.number("max_row_sum", a.max_row_sum);
  j.integer("max_coarse_size", a.max_coarse_size);
  j.integer("interp_type", a.interp_type);
  j.number("trunc_factor", a.trunc_factor);
  j.integer("pmax", a.pmax);
  j.integer("relax_type", a.relax_type);
  j.integer("num_sweeps", a.num_sweeps);
  j.integer("max_levels", a.max_levels);
  j.integer("agg_levels", a.agg_levels);
  j.str("cycle", a.cycle_type == 2 ? "W" : "V");
  j.boolean("module_rap2", r.module_rap2);
  j.boolean("keep_transpose", r.keep_transpose);
  j.integer("hypre_error", r.hypre_error);
  j.integer("hypre_setup_error", r.hypre_setup_error);
  j.integer("hypre_solve_error", r.hypre_solve_error);
  j.str("hypre_version", r.hypre_version);
  return j.finish();
}

}  // namespace amgt
