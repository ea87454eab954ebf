#include "precision/schedule.h"

#include <cctype>

namespace amgt {
namespace {

const std::vector<Precision>& default_schedule()
{
   static const std::vector<Precision> s{Precision::fp64, Precision::fp32, Precision::fp16};
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

void parse_choice(const char* var, const char* value, KernelChoice& out,
                  std::vector<std::string>& messages)
{
   const std::string v = normalized(value);
   if (v.empty() || v == "auto") { out = KernelChoice::automatic; }
   else if (v == "plugin" || v == "amgt") { out = KernelChoice::plugin; }
   else if (v == "stock" || v == "hypre") { out = KernelChoice::stock; }
   else
   {
      out = KernelChoice::automatic;
      messages.push_back(std::string(var) + "=\"" + value +
                         "\" is not a valid value (accepted: auto, plugin, stock); using auto");
   }
}

} // namespace

const char* to_string(KernelChoice c)
{
   switch (c)
   {
   case KernelChoice::automatic: return "auto";
   case KernelChoice::plugin: return "plugin";
   case KernelChoice::stock: return "stock";
   }
   return "?";
}

Config parse_config(const char* amgt, const char* amgt_levels, const char* amgt_stats,
                    const char* amgt_spgemm, const char* amgt_spmv)
{
   Config c;

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
      c.schedule = default_schedule();
   }
   else
   {
      bad_mode = true;
      c.mode   = Mode::off;
      c.messages.push_back("AMGT=\"" + std::string(amgt) +
                           "\" is not a valid value (accepted: off, fp64, mixed, auto); the plugin "
                           "stays off and hypre runs stock");
   }

   const std::string levels = normalized(amgt_levels);
   if (!levels.empty())
   {
      if (c.mode == Mode::mixed || c.mode == Mode::automatic)
      {
         std::vector<Precision> parsed;
         if (parse_levels(levels, parsed)) { c.schedule = parsed; }
         else
         {
            c.messages.push_back("AMGT_LEVELS=\"" + std::string(amgt_levels) +
                                 "\" is not valid: expected a comma-separated list of d, s, h "
                                 "(or fp64, fp32, fp16), e.g. \"d,s,h\"; using the default "
                                 "schedule d,s,h");
         }
      }
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

   parse_choice("AMGT_SPGEMM", amgt_spgemm, c.spgemm, c.messages);
   parse_choice("AMGT_SPMV", amgt_spmv, c.spmv, c.messages);

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
      c.messages.push_back("AMGT_STATS=\"" + std::string(amgt_stats) +
                           "\" is not a valid value (accepted: 0, off, 1, on, all); statistics "
                           "stay off");
   }
   return c;
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

} // namespace amgt
