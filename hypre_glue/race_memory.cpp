#include "race_memory.h"

#include <cstdlib>

namespace amgt::glue {

bool RaceMemory::near(int64_t a, int64_t b)
{
   const int64_t d = a > b ? a - b : b - a;
   const int64_t m = a > b ? a : b;
   return static_cast<double>(d) <= kSizeBand * static_cast<double>(m);
}

bool RaceMemory::same_class(const RaceKey& a, const RaceKey& b)
{
   return a.level == b.level && a.role == b.role && a.precision == b.precision && a.scaled == b.scaled;
}

std::optional<bool> RaceMemory::find(const RaceKey& k) const
{
   if (k.level < 0) return std::nullopt;
   std::lock_guard<std::mutex> lock(mutex_);
   for (const Entry& e : entries_)
   {
      if (same_class(e.key, k) && near(e.key.nrows, k.nrows) && near(e.key.nnz, k.nnz))
      {
         return e.plugin_won;
      }
   }
   return std::nullopt;
}

void RaceMemory::record(const RaceKey& k, bool plugin_won)
{
   if (k.level < 0) return;
   std::lock_guard<std::mutex> lock(mutex_);
   for (Entry& e : entries_)
   {
      if (same_class(e.key, k))
      {
         e = Entry{k, plugin_won};
         return;
      }
   }
   entries_.push_back(Entry{k, plugin_won});
}

void RaceMemory::clear()
{
   std::lock_guard<std::mutex> lock(mutex_);
   entries_.clear();
}

size_t RaceMemory::size() const
{
   std::lock_guard<std::mutex> lock(mutex_);
   return entries_.size();
}

RaceMemory& process_race_memory()
{
   static RaceMemory* m = new RaceMemory(); // never freed: no destruction-order question at exit
   return *m;
}

} // namespace amgt::glue
