#include "memory_cap.h"

#include <cctype>
#include <cstdint>
#include <limits>

namespace amgt::glue {

std::optional<size_t> parse_byte_size(const char* text)
{
   if (!text) return std::nullopt;
   std::string s(text);
   size_t      b = 0, e = s.size();
   while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
   while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
   s = s.substr(b, e - b);
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

bool MemoryCap::admit(size_t bytes)
{
   if (!enabled_) return true;
   std::lock_guard<std::mutex> lock(mutex_);
   if (bytes > limit_ || held_ > limit_ - bytes)
   {
      ++refused_;
      return false;
   }
   held_ += bytes;
   return true;
}

void MemoryCap::record(const void* ptr, size_t bytes)
{
   if (!enabled_) return;
   std::lock_guard<std::mutex> lock(mutex_);
   sizes_[ptr] = bytes;
}

void MemoryCap::cancel(size_t bytes)
{
   if (!enabled_) return;
   std::lock_guard<std::mutex> lock(mutex_);
   held_ -= bytes < held_ ? bytes : held_;
}

void MemoryCap::forget(const void* ptr)
{
   if (!enabled_) return;
   std::lock_guard<std::mutex> lock(mutex_);
   auto it = sizes_.find(ptr);
   if (it == sizes_.end()) return;
   held_ -= it->second;
   sizes_.erase(it);
}

size_t MemoryCap::held() const
{
   std::lock_guard<std::mutex> lock(mutex_);
   return held_;
}

size_t MemoryCap::refused() const
{
   std::lock_guard<std::mutex> lock(mutex_);
   return refused_;
}

} // namespace amgt::glue
