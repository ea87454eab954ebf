// amgt-solve as a child process (one per mode: the library reads AMGT once per process),
// with its final JSON line parsed into flat scalars.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "common/subprocess.h"

#ifndef AMGT_SOLVE_EXE
#error "AMGT_SOLVE_EXE must name the amgt-solve binary"
#endif

namespace amgt::test {

// Scalars and flat arrays of numbers of a one-line JSON object (an array as its text,
// "[13,13,14]"); objects and other arrays are skipped. Numbers keep their text, so "%.17g"
// residuals can be compared as strings (equal strings: equal doubles).
inline std::map<std::string, std::string> json_scalars(const std::string& line)
{
   std::map<std::string, std::string> out;
   static const std::regex kv(R"re("([A-Za-z0-9_]+)"\s*:\s*("([^"]*)"|[-+0-9.eE]+|\[[-+0-9.eE,\s]*\]|true|false|null))re");
   for (auto it = std::sregex_iterator(line.begin(), line.end(), kv); it != std::sregex_iterator(); ++it)
   {
      const std::smatch& m = *it;
      out[m[1]]            = m[3].matched ? m[3].str() : m[2].str();
   }
   return out;
}

// The numbers of a JSON array's text ("[13,13,14]"); empty for anything else.
inline std::vector<double> json_numbers(const std::string& text)
{
   std::vector<double> out;
   if (text.size() < 2 || text.front() != '[' || text.back() != ']') return out;
   size_t at = 1;
   while (at < text.size() - 1)
   {
      const size_t comma = text.find(',', at);
      const size_t end   = comma == std::string::npos ? text.size() - 1 : comma;
      out.push_back(std::strtod(text.substr(at, end - at).c_str(), nullptr));
      at = end + 1;
   }
   return out;
}

// The plugin's own kernels for every matvec and product: under AMGT_SPMV/AMGT_SPGEMM=auto a GPU
// build leaves matrices under 2^18 entries and the products the plugin would not win to hypre,
// so a small problem's "plugin" run would be stock's.
inline const std::map<std::string, std::string> kPluginKernels = {{"AMGT_SPMV", "plugin"},
                                                                 {"AMGT_SPGEMM", "plugin"}};

// GPU builds: how far two runs' iteration counts may differ where stock differs from itself
// (hypre's device setup is not reproducible from run to run): 3% of them, at least one.
inline double gpu_iteration_slack(double iterations)
{
   return std::max(1.0, std::ceil(0.03 * iterations));
}

struct SolveRun
{
   ProcResult                         proc;
   std::map<std::string, std::string> json;

   bool        has(const std::string& key) const { return json.count(key) != 0; }
   std::string str(const std::string& key) const
   {
      auto it = json.find(key);
      return it == json.end() ? std::string() : it->second;
   }
   // NaN when absent or null (the driver writes non-finite numbers as null).
   double num(const std::string& key) const
   {
      auto it = json.find(key);
      if (it == json.end() || it->second == "null") return NAN;
      return std::strtod(it->second.c_str(), nullptr);
   }
   // The numbers of a flat array; empty when absent (json_scalars skips an array holding
   // anything but numbers, a null among them).
   std::vector<double> numbers(const std::string& key) const { return json_numbers(str(key)); }
   bool converged() const { return str("converged") == "true"; }
};

// mode "" leaves AMGT unset. np > 0 runs under mpirun. --json is always added.
inline SolveRun run_solve(const std::string& mode, const std::vector<std::string>& args, int np = 0,
                          const std::map<std::string, std::string>& env = {}, double timeout_s = 300)
{
   ProcSpec spec;
   if (np > 0) spec.argv = mpirun_prefix(np);
   spec.argv.push_back(AMGT_SOLVE_EXE);
   spec.argv.insert(spec.argv.end(), args.begin(), args.end());
   spec.argv.push_back("--json");
   if (!mode.empty()) spec.set_env["AMGT"] = mode;
   for (const auto& [k, v] : env) spec.set_env[k] = v;
   spec.timeout_s = timeout_s;
   SolveRun r;
   r.proc                 = run_process(spec);
   // the JSON object is the last line of stdout (or the only one)
   const std::string& out = r.proc.out;
   const size_t       nl  = out.rfind("\n{");
   if (nl != std::string::npos) { r.json = json_scalars(out.substr(nl + 1)); }
   else if (out.rfind('{', 0) == 0) { r.json = json_scalars(out); }
   return r;
}

// Ended by itself (no signal, no timeout).
inline bool orderly(const ProcResult& p)
{
   return p.started && p.exited && !p.signaled && !p.timed_out;
}

} // namespace amgt::test
