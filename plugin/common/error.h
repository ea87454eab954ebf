// The plugin's one exception type. It carries where it was thrown so that the single line
// the glue prints on fallback points at the failing check.
#pragma once

#include <stdexcept>
#include <string>

namespace amgt {

class Error : public std::runtime_error
{
public:
   Error(const std::string& msg, const char* file, int line)
       : std::runtime_error(std::string(file ? file : "?") + ":" + std::to_string(line) + ": " +
                            msg)
       , message_(msg)
       , file_(file ? file : "?")
       , line_(line)
   {}

   const std::string& message() const noexcept { return message_; }
   const char*        file() const noexcept { return file_; }
   int                line() const noexcept { return line_; }

private:
   std::string message_;
   const char* file_; // __FILE__: a string literal, lives for the whole program
   int         line_;
};

} // namespace amgt

#define AMGT_THROW(msg) throw ::amgt::Error((msg), __FILE__, __LINE__)

#define AMGT_REQUIRE(cond, msg)                                                                    \
   do {                                                                                            \
      if (!(cond)) { AMGT_THROW(msg); }                                                            \
   } while (0)
