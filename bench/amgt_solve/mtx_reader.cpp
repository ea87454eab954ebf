// Matrix Market reader: see mtx_reader.h for what is accepted and rejected.
#include "mtx_reader.h"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

namespace amgt::io {

const char* to_string(MtxErrorKind kind) {
  switch (kind) {
    case MtxErrorKind::Io: return "io";
    case MtxErrorKind::Gzip: return "gzip";
    case MtxErrorKind::Banner: return "banner";
    case MtxErrorKind::Unsupported: return "unsupported";
    case MtxErrorKind::SizeLine: return "size-line";
    case MtxErrorKind::Entry: return "entry";
    case MtxErrorKind::Count: return "count";
    case MtxErrorKind::Shape: return "shape";
    case MtxErrorKind::Limit: return "limit";
  }
  return "unknown";
}

const char* to_string(MtxField field) {
  switch (field) {
    case MtxField::Real: return "real";
    case MtxField::Integer: return "integer";
    case MtxField::Pattern: return "pattern";
  }
  return "unknown";
}

const char* to_string(MtxSymmetry symmetry) {
  switch (symmetry) {
    case MtxSymmetry::General: return "general";
    case MtxSymmetry::Symmetric: return "symmetric";
    case MtxSymmetry::SkewSymmetric: return "skew-symmetric";
  }
  return "unknown";
}

namespace {

std::string compose(const std::string& source, std::int64_t line, const std::string& message) {
  std::string s = source.empty() ? "" : source + ": ";
  if (line > 0) s += "line " + std::to_string(line) + ": ";
  return s + message;
}

}  // namespace

MtxError::MtxError(MtxErrorKind kind, std::int64_t line, const std::string& message,
                   const std::string& source)
    : std::runtime_error(compose(source, line, message)),
      kind_(kind),
      line_(line),
      message_(message),
      source_(source) {}

namespace {

[[noreturn]] void fail(MtxErrorKind kind, std::int64_t line, const std::string& message) {
  throw MtxError(kind, line, message);
}

[[noreturn]] void fail_in(const std::string& path, MtxErrorKind kind, const std::string& message) {
  throw MtxError(kind, 0, message, path);
}

// ---------------------------------------------------------------------------------------
// Loading

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

// Called with the bytes loaded so far until it returns true (decided), and once more with
// at_end set if it never did; it throws MtxError to stop loading early.
using HeadCheck = std::function<bool(std::string_view head, bool at_end)>;

std::string read_plain(std::FILE* f, const std::string& path, std::uint64_t max_bytes,
                       const HeadCheck& check) {
  std::string data;
  bool decided = !check;
  char buf[1 << 16];
  for (;;) {
    const std::size_t got = std::fread(buf, 1, sizeof buf, f);
    if (got > 0) {
      if (data.size() + got > max_bytes) {
        fail_in(path, MtxErrorKind::Limit,
                "larger than the limit of " + std::to_string(max_bytes) + " bytes");
      }
      data.append(buf, got);
      if (!decided) decided = check(data, false);
    }
    if (got < sizeof buf) break;
  }
  if (std::ferror(f)) {
    fail_in(path, MtxErrorKind::Io, std::string("read error (") + std::strerror(errno) + ")");
  }
  if (!decided) check(data, true);
  return data;
}

std::string read_gzip(const std::string& path, std::uint64_t max_bytes, const HeadCheck& check) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (gz == nullptr) {
    fail_in(path, MtxErrorKind::Io, std::string("cannot open (") + std::strerror(errno) + ")");
  }
  gzbuffer(gz, 1 << 17);
  std::string data;
  bool decided = !check;
  std::vector<char> buf(1 << 20);
  int zerr = Z_OK;
  for (;;) {
    const int got = gzread(gz, buf.data(), static_cast<unsigned>(buf.size()));
    if (got < 0) {
      const char* msg = gzerror(gz, &zerr);
      std::string text = msg ? msg : "unknown zlib error";
      if (text.rfind(path + ": ", 0) == 0) text.erase(0, path.size() + 2);  // zlib adds the path
      gzclose_r(gz);
      fail_in(path, MtxErrorKind::Gzip, "corrupt gzip data (" + text + ")");
    }
    if (got == 0) break;
    if (data.size() + static_cast<std::size_t>(got) > max_bytes) {
      gzclose_r(gz);
      fail_in(path, MtxErrorKind::Limit,
              "decompresses to more than the limit of " + std::to_string(max_bytes) + " bytes");
    }
    data.append(buf.data(), static_cast<std::size_t>(got));
    if (!decided) {
      try {
        decided = check(data, false);
      } catch (...) {
        gzclose_r(gz);
        throw;
      }
    }
  }
  // Z_BUF_ERROR after the last read: the file ended in the middle of a gzip stream.
  gzerror(gz, &zerr);
  const int close_err = gzclose_r(gz);
  if (zerr == Z_BUF_ERROR || close_err == Z_BUF_ERROR) {
    fail_in(path, MtxErrorKind::Gzip, "truncated gzip data (the compressed stream ends early)");
  }
  if (zerr != Z_OK || close_err != Z_OK) {
    fail_in(path, MtxErrorKind::Gzip, "corrupt gzip data");
  }
  if (!decided) check(data, true);
  return data;
}

// ---------------------------------------------------------------------------------------
// Parsing helpers

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Walks the text line by line; lines do not include the '\n'.
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t nl = text_.find('\n', pos_);
    const std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
    line = text_.substr(pos_, end - pos_);
    pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
    ++line_no_;
    return true;
  }
  std::int64_t line_no() const { return line_no_; }
  std::size_t remaining() const { return text_.size() - pos_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::int64_t line_no_ = 0;
};

// Splits on blanks; stores at most `max` tokens and returns the total count.
int split(std::string_view line, std::string_view* tokens, int max) {
  int count = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i >= line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !is_blank(line[j])) ++j;
    if (count < max) tokens[count] = line.substr(i, j - i);
    ++count;
    i = j;
  }
  return count;
}

bool blank_line(std::string_view line) {
  return std::all_of(line.begin(), line.end(), is_blank);
}

bool comment_line(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && is_blank(line[i])) ++i;
  return i < line.size() && line[i] == '%';
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Shortens a token for an error message and makes unprintable bytes visible.
std::string quote(std::string_view token) {
  std::string out = "'";
  const std::size_t n = std::min<std::size_t>(token.size(), 40);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  if (token.size() > n) out += "...";
  return out + "'";
}

// Non-negative decimal integer, optional leading '+'. Returns false when not one.
bool parse_count(std::string_view token, std::uint64_t& value, bool& overflow) {
  overflow = false;
  if (!token.empty() && token[0] == '+') token.remove_prefix(1);
  if (token.empty()) return false;
  for (char c : token) {
    if (c < '0' || c > '9') return false;
  }
  const auto res = std::from_chars(token.data(), token.data() + token.size(), value);
  if (res.ec == std::errc::result_out_of_range) {
    overflow = true;
    return false;
  }
  return res.ec == std::errc() && res.ptr == token.data() + token.size();
}

std::int64_t parse_index(std::string_view token, const char* what, std::int64_t limit,
                         std::int64_t line) {
  std::uint64_t v = 0;
  bool overflow = false;
  if (!parse_count(token, v, overflow)) {
    if (overflow) {
      fail(MtxErrorKind::Entry, line,
           std::string(what) + " index " + quote(token) + " out of range 1.." +
               std::to_string(limit));
    }
    fail(MtxErrorKind::Entry, line,
         std::string("cannot parse ") + what + " index " + quote(token) +
             " (expected a positive integer)");
  }
  if (v < 1 || v > static_cast<std::uint64_t>(limit)) {
    fail(MtxErrorKind::Entry, line,
         std::string(what) + " index " + std::to_string(v) + " out of range 1.." +
             std::to_string(limit));
  }
  return static_cast<std::int64_t>(v) - 1;
}

double parse_real(std::string_view token, std::int64_t line) {
  char buf[128];
  if (token.size() >= sizeof buf) {
    fail(MtxErrorKind::Entry, line, "cannot parse value " + quote(token) + " (too long)");
  }
  std::memcpy(buf, token.data(), token.size());
  buf[token.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(buf, &end);
  if (end != buf + token.size() || token.empty()) {
    fail(MtxErrorKind::Entry, line, "cannot parse value " + quote(token));
  }
  if (std::isnan(v) || std::isinf(v)) {
    const bool overflowed = errno == ERANGE;
    fail(MtxErrorKind::Entry, line,
         "value " + quote(token) +
             (overflowed ? " is outside the range of a double"
                         : " is not finite (NaN and Inf are not allowed)"));
  }
  return v;  // an underflow (ERANGE with a tiny result) is accepted as that tiny value
}

double parse_integer_value(std::string_view token, std::int64_t line) {
  std::string_view digits = token;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  std::uint64_t v = 0;
  bool overflow = false;
  if (!parse_count(digits, v, overflow) || (!digits.empty() && digits[0] == '+')) {
    fail(MtxErrorKind::Entry, line,
         "value " + quote(token) +
             (overflow ? " is too large for an integer" : " is not an integer (field is 'integer')"));
  }
  const double d = static_cast<double>(v);
  return negative ? -d : d;
}

struct Header {
  MtxField field = MtxField::Real;
  MtxSymmetry symmetry = MtxSymmetry::General;
};

Header parse_banner(std::string_view line) {
  // Tolerate a UTF-8 byte order mark.
  if (line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  std::string_view tok[6];
  const int n = split(line, tok, 6);
  if (n == 0 || lower(tok[0]) != "%%matrixmarket") {
    fail(MtxErrorKind::Banner, 1,
         "missing '%%MatrixMarket' banner (not a Matrix Market file?); got " +
             quote(n > 0 ? tok[0] : line));
  }
  if (n != 5) {
    fail(MtxErrorKind::Banner, 1,
         "malformed banner: expected '%%MatrixMarket matrix coordinate <field> <symmetry>' "
         "(5 words), got " +
             std::to_string(n) + " words");
  }
  const std::string object = lower(tok[1]);
  const std::string format = lower(tok[2]);
  const std::string field = lower(tok[3]);
  const std::string symmetry = lower(tok[4]);
  if (object != "matrix") {
    fail(MtxErrorKind::Unsupported, 1,
         "object " + quote(tok[1]) + " is not supported (only 'matrix')");
  }
  if (format == "array") {
    fail(MtxErrorKind::Unsupported, 1,
         "dense 'array' format is not supported (only sparse 'coordinate')");
  }
  if (format != "coordinate") {
    fail(MtxErrorKind::Banner, 1,
         "unknown format " + quote(tok[2]) + " (expected 'coordinate')");
  }
  Header h;
  if (field == "real" || field == "double") {
    h.field = MtxField::Real;
  } else if (field == "integer") {
    h.field = MtxField::Integer;
  } else if (field == "pattern") {
    h.field = MtxField::Pattern;
  } else if (field == "complex") {
    fail(MtxErrorKind::Unsupported, 1,
         "'complex' matrices are not supported (hypre is built for real values)");
  } else {
    fail(MtxErrorKind::Banner, 1,
         "unknown field " + quote(tok[3]) + " (expected real, integer or pattern)");
  }
  if (symmetry == "general") {
    h.symmetry = MtxSymmetry::General;
  } else if (symmetry == "symmetric") {
    h.symmetry = MtxSymmetry::Symmetric;
  } else if (symmetry == "skew-symmetric") {
    h.symmetry = MtxSymmetry::SkewSymmetric;
  } else if (symmetry == "hermitian") {
    fail(MtxErrorKind::Unsupported, 1, "'hermitian' matrices are not supported");
  } else {
    fail(MtxErrorKind::Banner, 1,
         "unknown symmetry " + quote(tok[4]) +
             " (expected general, symmetric or skew-symmetric)");
  }
  if (h.field == MtxField::Pattern && h.symmetry == MtxSymmetry::SkewSymmetric) {
    fail(MtxErrorKind::Banner, 1, "'pattern' cannot be 'skew-symmetric'");
  }
  return h;
}

struct Triplet {
  std::int64_t row;  // local (relative to the kept range)
  std::int64_t col;
  double val;
};

// Reads `entries` entry lines (skipping blank and comment lines), validating each, and
// passes every entry as given in the file (0-based, before any mirroring) to `use`.
template <typename Use>
void read_entries(LineCursor& cursor, const Header& header, std::int64_t rows, std::int64_t cols,
                  std::int64_t entries, Use&& use) {
  const int want = header.field == MtxField::Pattern ? 2 : 3;
  std::string_view line;
  std::int64_t read = 0;
  while (read < entries) {
    if (!cursor.next(line)) {
      fail(MtxErrorKind::Count, 0,
           "file ends after " + std::to_string(read) + " of " + std::to_string(entries) +
               " declared entries (truncated?)");
    }
    if (blank_line(line) || comment_line(line)) continue;
    const std::int64_t ln = cursor.line_no();
    std::string_view t[4];
    const int nt = split(line, t, 4);
    if (nt < want) {
      fail(MtxErrorKind::Entry, ln,
           std::string("expected '") + (want == 2 ? "row col" : "row col value") + "', got " +
               std::to_string(nt) + " word" + (nt == 1 ? "" : "s"));
    }
    if (nt > want) {
      fail(MtxErrorKind::Entry, ln,
           "unexpected extra word " + quote(t[want]) + " after the " +
               (want == 2 ? "indices of a 'pattern' entry" : "value") +
               (want == 3 ? " (complex data in a real file?)" : ""));
    }
    const std::int64_t i = parse_index(t[0], "row", rows, ln);
    const std::int64_t j = parse_index(t[1], "column", cols, ln);
    double v = 1.0;
    if (header.field == MtxField::Real) {
      v = parse_real(t[2], ln);
    } else if (header.field == MtxField::Integer) {
      v = parse_integer_value(t[2], ln);
    }
    if (header.symmetry == MtxSymmetry::SkewSymmetric && i == j && v != 0.0) {
      fail(MtxErrorKind::Entry, ln,
           "skew-symmetric matrix with a nonzero diagonal entry (" + std::to_string(i + 1) +
               ", " + std::to_string(j + 1) + ")");
    }
    ++read;
    use(i, j, v);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------

namespace {

std::string load_checked(const std::string& path, std::uint64_t max_bytes, const HeadCheck& check) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    fail_in(path, MtxErrorKind::Io, std::string("cannot open (") + std::strerror(errno) + ")");
  }
  if (S_ISDIR(st.st_mode)) {
    fail_in(path, MtxErrorKind::Io, "is a directory, not a matrix file");
  }
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    fail_in(path, MtxErrorKind::Io, std::string("cannot open (") + std::strerror(errno) + ")");
  }
  unsigned char magic[2] = {0, 0};
  const std::size_t got = std::fread(magic, 1, 2, f.get());
  const bool gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (!gzip && ends_with(path, ".gz")) {
    fail_in(path, MtxErrorKind::Gzip, "named .gz but not gzip data (bad magic bytes)");
  }
  if (gzip) {
    f.reset();
    return read_gzip(path, max_bytes, check);
  }
  std::rewind(f.get());
  return read_plain(f.get(), path, max_bytes, check);
}

// A banner line longer than this is not one (the longest valid banner has ~60 bytes).
constexpr std::size_t kMaxBannerLine = 1024;

// Decides from the first line whether the input can be Matrix Market at all, so that a
// wrong file (a binary, /dev/zero, a huge file of another format, a gzip of one) is refused
// after its first bytes instead of being loaded whole, up to max_bytes, first.
bool check_banner_early(std::string_view head, bool at_end) {
  const std::size_t nl = head.find('\n');
  const std::size_t first_line = nl == std::string_view::npos ? head.size() : nl;
  if (first_line > kMaxBannerLine) {
    fail(MtxErrorKind::Banner, 1,
         "missing '%%MatrixMarket' banner: the first line is longer than " +
             std::to_string(kMaxBannerLine) + " bytes (not a Matrix Market file?); it starts " +
             quote(head.substr(0, 16)));
  }
  if (nl == std::string_view::npos) {
    if (!at_end) return false;  // need more bytes
    if (head.empty()) return true;  // parse_matrix_market says "empty input"
  }
  parse_banner(head.substr(0, std::min(nl, head.size())));  // throws if it is no banner
  return true;
}

}  // namespace

std::string load_file(const std::string& path, std::uint64_t max_bytes) {
  return load_checked(path, max_bytes, {});
}

MtxMatrix read_matrix_market(const std::string& path, const MtxReadOptions& options) {
  std::string text;
  try {
    text = load_checked(path, options.max_bytes, check_banner_early);
  } catch (const MtxError& e) {
    if (!e.source().empty()) throw;
    throw MtxError(e.kind(), e.line(), e.message(), path);  // from the banner check
  }
  try {
    return parse_matrix_market(text, options);
  } catch (const MtxError& e) {
    throw MtxError(e.kind(), e.line(), e.message(), path);
  }
}

MtxMatrix parse_matrix_market(std::string_view text, const MtxReadOptions& options) {
  if (text.size() > options.max_bytes) {
    fail(MtxErrorKind::Limit, 0,
         "input is larger than the limit of " + std::to_string(options.max_bytes) + " bytes");
  }
  // Matrix Market is text: a NUL byte means binary data (or a corrupt file). Reported here,
  // with its line, rather than as whatever token it happens to break.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const std::int64_t ln =
        1 + static_cast<std::int64_t>(std::count(text.begin(), text.begin() + nul, '\n'));
    fail(ln == 1 ? MtxErrorKind::Banner : MtxErrorKind::Entry, ln,
         "NUL byte at offset " + std::to_string(nul) + ": binary data, not Matrix Market text");
  }
  LineCursor cursor(text);
  std::string_view line;
  if (!cursor.next(line)) {
    fail(MtxErrorKind::Banner, 0, "empty input (no '%%MatrixMarket' banner)");
  }
  const Header header = parse_banner(line);

  // Comments and blank lines, then the size line.
  bool have_size = false;
  while (cursor.next(line)) {
    if (comment_line(line) || blank_line(line)) continue;
    have_size = true;
    break;
  }
  if (!have_size) {
    fail(MtxErrorKind::SizeLine, 0, "missing size line 'rows cols entries' after the banner");
  }
  const std::int64_t size_line = cursor.line_no();
  std::string_view tok[4];
  const int ntok = split(line, tok, 4);
  if (ntok != 3) {
    fail(MtxErrorKind::SizeLine, size_line,
         "expected the size line 'rows cols entries' (3 integers), got " +
             std::to_string(ntok) + " words");
  }
  std::uint64_t dims[3];
  const char* names[3] = {"rows", "cols", "entries"};
  for (int k = 0; k < 3; ++k) {
    bool overflow = false;
    if (!parse_count(tok[k], dims[k], overflow)) {
      if (overflow) {
        fail(MtxErrorKind::Limit, size_line,
             std::string(names[k]) + " " + quote(tok[k]) + " is too large");
      }
      fail(MtxErrorKind::SizeLine, size_line,
           std::string("cannot parse ") + names[k] + " " + quote(tok[k]) +
               " (expected a non-negative integer)");
    }
  }
  const std::uint64_t max_dim = static_cast<std::uint64_t>(options.max_dimension);
  if (dims[0] > max_dim || dims[1] > max_dim) {
    fail(MtxErrorKind::Limit, size_line,
         "matrix is " + std::to_string(dims[0]) + " x " + std::to_string(dims[1]) +
             ": dimensions above " + std::to_string(max_dim) + " are not supported");
  }
  if (dims[0] == 0 || dims[1] == 0) {
    fail(MtxErrorKind::Shape, size_line,
         "matrix is " + std::to_string(dims[0]) + " x " + std::to_string(dims[1]) +
             " (empty)");
  }
  const bool mirrored = header.symmetry != MtxSymmetry::General;
  if (dims[0] != dims[1] && (options.require_square || mirrored)) {
    fail(MtxErrorKind::Shape, size_line,
         "matrix is " + std::to_string(dims[0]) + " x " + std::to_string(dims[1]) +
             (mirrored ? ": a symmetric storage needs a square matrix"
                       : ": AMG needs a square matrix"));
  }
  if (dims[2] > (std::uint64_t{1} << 62)) {
    fail(MtxErrorKind::Limit, size_line, "entries " + quote(tok[2]) + " is too large");
  }
  const std::int64_t rows = static_cast<std::int64_t>(dims[0]);
  const std::int64_t cols = static_cast<std::int64_t>(dims[1]);
  const std::int64_t entries = static_cast<std::int64_t>(dims[2]);
  // Each entry line takes at least "i j\n" (4 bytes) or "i j v\n" (6 bytes); the last may
  // lack its newline. A count the rest of the input cannot hold is wrong: before anything
  // is allocated, find where the file disagrees with it, for a precise message.
  const std::uint64_t min_line = header.field == MtxField::Pattern ? 4 : 6;
  const std::uint64_t capacity = (cursor.remaining() + 1) / min_line;
  if (dims[2] > capacity) {
    LineCursor probe = cursor;
    read_entries(probe, header, rows, cols, entries, [](std::int64_t, std::int64_t, double) {});
    fail(MtxErrorKind::Count, size_line,  // not reached: read_entries throws first
         "declares " + std::to_string(dims[2]) + " entries but the remaining " +
             std::to_string(cursor.remaining()) + " bytes can hold at most " +
             std::to_string(capacity));
  }
  // Every stored entry fills at most one row (two when mirrored). Refuse matrices that
  // must leave most rows empty: useless for AMG, and it bounds the row arrays by the input.
  const std::int64_t fillable = entries * (mirrored ? 2 : 1);
  if (rows - fillable > rows / 2) {
    fail(MtxErrorKind::Shape, size_line,
         "declares " + std::to_string(rows) + " rows but only " + std::to_string(entries) +
             " entries: at least " + std::to_string(rows - fillable) +
             " rows would be empty");
  }

  Range keep{0, rows};
  if (options.select_rows) {
    keep = options.select_rows(rows);
    keep.begin = std::clamp<std::int64_t>(keep.begin, 0, rows);
    keep.end = std::clamp<std::int64_t>(keep.end, keep.begin, rows);
  }
  const bool keep_all = keep.begin == 0 && keep.end == rows;

  MtxMatrix out;
  MtxInfo& info = out.info;
  info.rows = rows;
  info.cols = cols;
  info.field = header.field;
  info.symmetry = header.symmetry;
  info.declared_entries = entries;

  std::vector<unsigned char> occupied(static_cast<std::size_t>(rows), 0);
  // Columns as rows, by a byte per column while there are no more columns than rows (the
  // row bound above then bounds this too); a wider matrix (require_square off) collects
  // the columns it sees instead, which the entry count bounds.
  const bool col_bytes = cols <= rows;
  std::vector<unsigned char> col_occupied(col_bytes ? static_cast<std::size_t>(cols) : 0, 0);
  std::vector<std::int64_t> cols_seen;
  std::vector<Triplet> kept;
  if (keep_all) kept.reserve(static_cast<std::size_t>(fillable));
  auto add = [&](std::int64_t r, std::int64_t c, double v) {
    occupied[static_cast<std::size_t>(r)] = 1;
    if (col_bytes) {
      col_occupied[static_cast<std::size_t>(c)] = 1;
    } else {
      cols_seen.push_back(c);
    }
    ++info.expanded_entries;
    if (r >= keep.begin && r < keep.end) kept.push_back(Triplet{r - keep.begin, c, v});
  };

  read_entries(cursor, header, rows, cols, entries,
               [&](std::int64_t i, std::int64_t j, double v) {
                 switch (header.symmetry) {
                   case MtxSymmetry::General:
                     add(i, j, v);
                     break;
                   case MtxSymmetry::Symmetric:
                     if (i < j) ++info.upper_entries;
                     add(i, j, v);
                     if (i != j) add(j, i, v);
                     break;
                   case MtxSymmetry::SkewSymmetric:
                     if (i == j) break;  // zero (checked): nothing to store
                     if (i < j) ++info.upper_entries;
                     add(i, j, v);
                     add(j, i, -v);
                     break;
                 }
               });
  // Only blank lines and comments may follow the last entry.
  while (cursor.next(line)) {
    if (blank_line(line) || comment_line(line)) continue;
    fail(MtxErrorKind::Count, cursor.line_no(),
         "data after the " + std::to_string(entries) +
             " declared entries (wrong entry count in the size line?)");
  }

  for (unsigned char o : occupied) info.empty_rows += o ? 0 : 1;
  std::vector<unsigned char>().swap(occupied);
  if (col_bytes) {
    for (unsigned char o : col_occupied) info.empty_cols += o ? 0 : 1;
  } else {
    std::sort(cols_seen.begin(), cols_seen.end());
    info.empty_cols =
        cols - (std::unique(cols_seen.begin(), cols_seen.end()) - cols_seen.begin());
  }
  std::vector<unsigned char>().swap(col_occupied);
  std::vector<std::int64_t>().swap(cols_seen);

  // CSR of the kept rows: counting sort by row, sort each row by column, sum duplicates.
  RowBlock& block = out.rows;
  block.global_rows = rows;
  block.first_row = keep.begin;
  const std::int64_t nrows = keep.size();
  std::vector<std::int64_t> start(static_cast<std::size_t>(nrows) + 1, 0);
  for (const Triplet& e : kept) ++start[static_cast<std::size_t>(e.row) + 1];
  for (std::int64_t r = 0; r < nrows; ++r) start[r + 1] += start[r];
  std::vector<std::pair<std::int64_t, double>> sorted(kept.size());
  {
    std::vector<std::int64_t> next(start.begin(), start.end() - 1);
    for (const Triplet& e : kept) {
      sorted[static_cast<std::size_t>(next[static_cast<std::size_t>(e.row)]++)] = {e.col, e.val};
    }
  }
  std::vector<Triplet>().swap(kept);
  block.row_ptr.assign(static_cast<std::size_t>(nrows) + 1, 0);
  block.col.reserve(sorted.size());
  block.val.reserve(sorted.size());
  for (std::int64_t r = 0; r < nrows; ++r) {
    auto first = sorted.begin() + start[r];
    auto last = sorted.begin() + start[r + 1];
    std::sort(first, last,
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = first; it != last; ++it) {
      if (it != first && it->first == (it - 1)->first) {
        block.val.back() += it->second;
        ++info.duplicates_summed;
        // Each value is finite (checked when read), but a sum of them may not be.
        if (!std::isfinite(block.val.back())) {
          fail(MtxErrorKind::Entry, 0,
               "duplicate entries at (" + std::to_string(keep.begin + r + 1) + ", " +
                   std::to_string(it->first + 1) +
                   ") sum to a value outside the range of a double");
        }
      } else {
        block.col.push_back(it->first);
        block.val.push_back(it->second);
      }
    }
    block.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<std::int64_t>(block.col.size());
  }

  if (info.empty_rows > 0) {
    info.warnings.push_back(std::to_string(info.empty_rows) + " of " + std::to_string(rows) +
                            " rows are empty (AMG may fail on them)");
  }
  if (info.empty_cols > 0) {
    info.warnings.push_back(std::to_string(info.empty_cols) + " of " + std::to_string(cols) +
                            " columns are empty (the matrix is singular)");
  }
  if (info.duplicates_summed > 0) {
    info.warnings.push_back("summed " + std::to_string(info.duplicates_summed) +
                            " duplicate entries");
  }
  if (info.upper_entries > 0) {
    info.warnings.push_back(std::to_string(info.upper_entries) +
                            " entries of the " + to_string(header.symmetry) +
                            " storage lie above the diagonal; mirrored like lower ones");
  }
  return out;
}

}  // namespace amgt::io
