// amg-lifecycle (amg_lifecycle.cpp) as a child process, its `key ...` lines parsed.
#pragma once

#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/subprocess.h"

#ifndef AMGT_LIFECYCLE_EXE
#error "AMGT_LIFECYCLE_EXE must name the amg-lifecycle binary"
#endif

namespace amgt::test {

// One `key iterations N residual R` line; the residual's text is kept ("%.17g": equal
// strings are equal doubles).
struct SolveLine
{
   int         iterations = -1;
   std::string residual_text;
   double      residual() const { return std::strtod(residual_text.c_str(), nullptr); }
};

struct LifecycleRun
{
   ProcResult                       proc;
   std::map<std::string, SolveLine> solves;
   std::vector<std::string>         lines; // every stdout line, in order

   // The first number after `key` on its line, or `fallback`.
   long value(const std::string& key, long fallback = -1) const
   {
      for (const std::string& l : lines)
      {
         std::istringstream in(l);
         std::string        k;
         long               v = 0;
         if (in >> k && k == key && in >> v) return v;
      }
      return fallback;
   }
};

inline LifecycleRun run_lifecycle(const std::string& mode, const std::vector<std::string>& args,
                                  int np = 0, double timeout_s = 300,
                                  const std::vector<std::string>&           wrapper = {},
                                  const std::map<std::string, std::string>& env     = {})
{
   ProcSpec spec;
   if (np > 0) spec.argv = mpirun_prefix(np);
   spec.argv.insert(spec.argv.end(), wrapper.begin(), wrapper.end());
   spec.argv.push_back(AMGT_LIFECYCLE_EXE);
   spec.argv.insert(spec.argv.end(), args.begin(), args.end());
   if (!mode.empty()) spec.set_env["AMGT"] = mode;
   for (const auto& [k, v] : env) spec.set_env[k] = v;
   spec.timeout_s = timeout_s;
   LifecycleRun r;
   r.proc = run_process(spec);
   std::istringstream out(r.proc.out);
   for (std::string line; std::getline(out, line);)
   {
      r.lines.push_back(line);
      std::istringstream in(line);
      std::string        key, w1, w2;
      SolveLine          s;
      if (in >> key >> w1 >> s.iterations >> w2 >> s.residual_text && w1 == "iterations" &&
          w2 == "residual")
      {
         r.solves[key] = s;
      }
   }
   return r;
}

} // namespace amgt::test
