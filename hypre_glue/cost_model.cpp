// The cost model's table lookups (cost_model.h).
#include "cost_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace amgt::glue::cost {
namespace {

struct Point
{
   int     precision;
   int     length; // the sweep's nominal entries a row
   int64_t entries;
   int64_t rows;
   double  hypre_us, plugin_us, once_us;
};

const Point kTable[] = {
#include "spmv_cost_table.inc"
};

// One precision's points of one nominal row length, by entries (the .inc is sorted so).
struct Series
{
   int                      length = 0;
   std::vector<const Point*> points;
};

std::vector<Series> series_of(Precision p)
{
   std::vector<Series> out;
   for (const Point& q : kTable)
   {
      if (q.precision != static_cast<int>(p)) continue;
      if (out.empty() || out.back().length != q.length) out.push_back(Series{q.length, {}});
      out.back().points.push_back(&q);
   }
   return out;
}

const std::vector<Series>& table(Precision p)
{
   static const std::vector<Series> t[3] = {series_of(Precision::fp64), series_of(Precision::fp32),
                                             series_of(Precision::fp16)};
   return t[std::min(std::max(static_cast<int>(p), 0), 2)];
}

Prediction at(const Point& q, double scale = 1.0)
{
   return Prediction{q.hypre_us * scale, q.plugin_us * scale, q.once_us * scale};
}

Prediction mix(const Prediction& a, const Prediction& b, double t)
{
   return Prediction{a.hypre_us + (b.hypre_us - a.hypre_us) * t, a.plugin_us + (b.plugin_us - a.plugin_us) * t,
                     a.once_us + (b.once_us - a.once_us) * t};
}

// Within one row length: linear in log2(entries) between the points around nnz.
Prediction along(const Series& s, int64_t nnz)
{
   const auto& p = s.points;
   if (p.empty()) return Prediction{};
   if (nnz <= p.front()->entries) return at(*p.front());
   if (nnz >= p.back()->entries) return at(*p.back(), static_cast<double>(nnz) / p.back()->entries);
   size_t i = 1;
   while (p[i]->entries < nnz) ++i;
   const double x0 = std::log2(static_cast<double>(p[i - 1]->entries));
   const double x1 = std::log2(static_cast<double>(p[i]->entries));
   const double t  = (std::log2(static_cast<double>(nnz)) - x0) / (x1 - x0);
   return mix(at(*p[i - 1]), at(*p[i]), t);
}

} // namespace

Prediction predict(Precision p, int64_t nnz, int64_t nrows)
{
   const std::vector<Series>& t = table(p);
   if (t.empty() || nnz <= 0 || nrows <= 0) return Prediction{};
   const double len = static_cast<double>(nnz) / static_cast<double>(nrows);
   Prediction   r;
   if (len <= t.front().length) r = along(t.front(), nnz);
   else if (len >= t.back().length) r = along(t.back(), nnz);
   else
   {
      size_t i = 1;
      while (t[i].length < len) ++i;
      const double u = (len - t[i - 1].length) / static_cast<double>(t[i].length - t[i - 1].length);
      r              = mix(along(t[i - 1], nnz), along(t[i], nnz), u);
   }
   r.once_us += kSurveyUs;
   return r;
}

Decision decide(Precision p, int64_t nnz, int64_t nrows, double expected_matvecs)
{
   const Prediction e = predict(p, nnz, nrows);
   Decision         d;
   d.gain_us    = e.gain_us();
   d.once_us    = e.once_us;
   d.matvecs    = expected_matvecs;
   d.break_even = d.gain_us > 0.0 ? d.once_us / d.gain_us : std::numeric_limits<double>::infinity();
   d.floor      = nnz < kLatencyFloorEntries;
   d.take       = !d.floor && d.gain_us > 0.0 && d.gain_us * expected_matvecs > d.once_us;
   d.lent       = lent_pays(nnz, nrows);
   return d;
}

bool repaid(const Decision& d, long served)
{
   return !d.floor && d.gain_us > 0.0 && d.gain_us * static_cast<double>(served) >= d.once_us;
}

bool lent_pays(int64_t nnz, int64_t nrows)
{
   if (nnz < kLatencyFloorEntries) return false;
   const Prediction e = predict(Precision::fp64, nnz, nrows);
   return e.plugin_us * 1.15 < e.hypre_us;
}

} // namespace amgt::glue::cost
