//===- Strings.cpp - String tensors and the string services ---------------===//
//
// String tensors (ONYX_STRING) hold one `const char *` per element, NULL
// reading as "" (docs/runtime.md, "String tensors"). A tensor owns the
// strings it stored itself (OnyxTensor::strings); the generated code only
// moves pointers and calls the services of onyx_strings.h, whose results
// live in a per-thread arena for the duration of one onyxrt_run call. When
// the call succeeds, finishStringOutputs gives every string output its own
// copies before the arena is dropped.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include "onyx/onyx_strings.h"

#include <locale.h>
#include <wctype.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <regex>
#include <string>

namespace onyx {
namespace rt {
namespace {

/// The strings the services returned during the current call, and the
/// first failure one of them recorded.
struct ThreadStrings {
  std::deque<std::string> arena;
  std::string error;
  std::map<std::string, std::regex> regexes;
};

ThreadStrings &threadStrings() {
  thread_local ThreadStrings state;
  return state;
}

const char *keep(std::string text) {
  auto &arena = threadStrings().arena;
  arena.push_back(std::move(text));
  return arena.back().c_str();
}

void recordFailure(const std::string &message) {
  std::string &error = threadStrings().error;
  if (error.empty())
    error = message;
}

const char *orEmpty(const char *s) { return s ? s : ""; }

/// The string quoted for a message (at most 64 bytes of it).
std::string quote(const char *s) {
  std::string text(orEmpty(s));
  if (text.size() > 64)
    text = text.substr(0, 64) + "...";
  return "'" + text + "'";
}

//--- Case mapping -------------------------------------------------------===//

locale_t utf8Locale() {
  static locale_t locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
  return locale;
}

/// Decodes one UTF-8 sequence at s[i]; -1 (and length 1) for a byte that
/// does not start a valid sequence.
int32_t decodeUtf8(const std::string &s, size_t i, size_t &length) {
  unsigned char c = s[i];
  int n = c < 0x80         ? 1
          : (c >> 5) == 6  ? 2
          : (c >> 4) == 14 ? 3
          : (c >> 3) == 30 ? 4
                           : 0;
  length = 1;
  if (n == 0 || i + n > s.size())
    return -1;
  if (n == 1)
    return c;
  int32_t cp = c & (0x7f >> n);
  for (int k = 1; k < n; ++k) {
    unsigned char d = s[i + k];
    if ((d >> 6) != 2)
      return -1;
    cp = (cp << 6) | (d & 0x3f);
  }
  static const int32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return -1;
  length = n;
  return cp;
}

void encodeUtf8(int32_t cp, std::string &out) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xc0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += char(0xe0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  } else {
    out += char(0xf0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3f));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  }
}

std::string changeCase(const std::string &s, bool upper) {
  locale_t locale = utf8Locale();
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t length;
    int32_t cp = decodeUtf8(s, i, length);
    if (cp < 0) {
      out += s[i];
    } else if (cp < 0x80 || !locale) {
      // ASCII (and every code point when C.UTF-8 is missing).
      int32_t c = cp;
      if (cp < 0x80)
        c = upper ? (c >= 'a' && c <= 'z' ? c - 32 : c)
                  : (c >= 'A' && c <= 'Z' ? c + 32 : c);
      if (cp < 0x80)
        out += char(c);
      else
        out.append(s, i, length);
    } else {
      wint_t mapped = upper ? towupper_l(wint_t(cp), locale)
                            : towlower_l(wint_t(cp), locale);
      encodeUtf8(int32_t(mapped), out);
    }
    i += length;
  }
  return out;
}

//--- Splitting ----------------------------------------------------------===//

bool isSpace(unsigned char c) {
  // Python's str.split() whitespace within ASCII.
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/// Python's str.split(delimiter or None, maxsplit).
std::vector<std::string> split(const std::string &s, const std::string &delim,
                               int64_t maxsplit) {
  std::vector<std::string> parts;
  if (delim.empty()) {
    size_t i = 0, n = s.size();
    while (true) {
      while (i < n && isSpace(s[i]))
        ++i;
      if (i == n)
        break;
      if (maxsplit >= 0 && int64_t(parts.size()) == maxsplit) {
        parts.push_back(s.substr(i)); // The rest, trailing spaces kept.
        break;
      }
      size_t j = i;
      while (j < n && !isSpace(s[j]))
        ++j;
      parts.push_back(s.substr(i, j - i));
      i = j;
    }
    return parts;
  }
  size_t start = 0;
  while (maxsplit < 0 || int64_t(parts.size()) < maxsplit) {
    size_t at = s.find(delim, start);
    if (at == std::string::npos)
      break;
    parts.push_back(s.substr(start, at - start));
    start = at + delim.size();
  }
  parts.push_back(s.substr(start));
  return parts;
}

//--- Numbers ------------------------------------------------------------===//

/// numpy's str() of a float: the shortest digits that read back to `v`,
/// positional for 1e-4 <= |v| < 1e16 (".0" when integral), else
/// scientific with a signed exponent of at least two digits.
template <typename T> std::string formatFloat(T v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v < 0 ? "-inf" : "inf";
  std::string sign = std::signbit(v) ? "-" : "";
  T a = std::fabs(v);
  if (a == 0)
    return sign + "0.0";
  char buf[64];
  auto res =
      std::to_chars(buf, buf + sizeof(buf), a, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  int exponent = std::atoi(sci.c_str() + e + 1);
  std::string digits;
  for (char c : mantissa)
    if (c != '.')
      digits += c;
  if (a >= T(1e-4) && a < T(1e16)) {
    std::string out;
    if (exponent < 0) {
      out = "0." + std::string(size_t(-exponent - 1), '0') + digits;
    } else if (size_t(exponent) + 1 >= digits.size()) {
      out = digits + std::string(size_t(exponent) + 1 - digits.size(), '0') +
            ".0";
    } else {
      out = digits.substr(0, size_t(exponent) + 1) + "." +
            digits.substr(size_t(exponent) + 1);
    }
    return sign + out;
  }
  std::string out = digits.substr(0, 1);
  if (digits.size() > 1)
    out += "." + digits.substr(1);
  std::string exp = std::to_string(std::abs(exponent));
  if (exp.size() < 2)
    exp = "0" + exp;
  return sign + out + (exponent < 0 ? "e-" : "e+") + exp;
}

/// The string without surrounding ASCII whitespace.
std::string trimmed(const char *s) {
  std::string text(orEmpty(s));
  size_t b = 0, e = text.size();
  while (b < e && isSpace(text[b]))
    ++b;
  while (e > b && isSpace(text[e - 1]))
    --e;
  return text.substr(b, e - b);
}

template <typename T> T parseFloat(const char *s, const char *typeName) {
  std::string text = trimmed(s);
  if (!text.empty()) {
    const char *begin = text.c_str();
    char *end = nullptr;
    errno = 0;
    T v;
    if constexpr (std::is_same_v<T, float>)
      v = std::strtof(begin, &end);
    else
      v = std::strtod(begin, &end);
    // Out of range reads as +-inf or a denormal/0, as numpy's astype does.
    if (end == begin + text.size())
      return v;
  }
  recordFailure("Cast: string " + quote(s) + " is not a " + typeName);
  return std::numeric_limits<T>::quiet_NaN();
}

} // namespace

void setTensorString(OnyxTensor *tensor, int64_t index, std::string text) {
  if (!tensor->strings)
    tensor->strings = new std::deque<std::string>();
  tensor->strings->push_back(std::move(text));
  static_cast<const char **>(tensor->data)[index] =
      tensor->strings->back().c_str();
}

StringCallScope::StringCallScope() {
  ThreadStrings &state = threadStrings();
  state.arena.clear();
  state.error.clear();
}

StringCallScope::~StringCallScope() {
  ThreadStrings &state = threadStrings();
  std::deque<std::string>().swap(state.arena);
  state.error.clear();
}

bool finishStringOutputs(const std::vector<OnyxTensor *> &outputs,
                         std::string &error) {
  ThreadStrings &state = threadStrings();
  if (!state.error.empty()) {
    error = state.error;
    return false;
  }
  for (OnyxTensor *tensor : outputs) {
    if (!tensor || tensor->elemType != ONYX_STRING || tensor->onDevice)
      continue;
    auto **data = static_cast<const char **>(tensor->data);
    for (int64_t i = 0; i < tensor->numElements; ++i)
      setTensorString(tensor, i, orEmpty(data[i]));
  }
  return true;
}

} // namespace rt
} // namespace onyx

using namespace onyx::rt;

extern "C" {

ONYX_API int onyx_tensor_set_string(OnyxTensor *tensor, int64_t index,
                                    const char *data, size_t length) {
  if (!tensor || tensor->kind != ONYX_VALUE_TENSOR ||
      tensor->elemType != ONYX_STRING || tensor->onDevice || index < 0 ||
      index >= tensor->numElements || (!data && length))
    return -1;
  if (length && std::memchr(data, 0, length))
    return -1; // Strings are NUL-terminated: no NUL inside.
  try {
    setTensorString(tensor, index, std::string(data ? data : "", length));
  } catch (...) {
    return -1;
  }
  return 0;
}

ONYX_API const char *onyx_tensor_get_string(const OnyxTensor *tensor,
                                            int64_t index) {
  if (!tensor || tensor->kind != ONYX_VALUE_TENSOR ||
      tensor->elemType != ONYX_STRING || tensor->onDevice || index < 0 ||
      index >= tensor->numElements)
    return nullptr;
  return orEmpty(static_cast<const char *const *>(tensor->data)[index]);
}

ONYX_API int32_t onyxrt_str_equal(const char *a, const char *b) {
  return std::strcmp(orEmpty(a), orEmpty(b)) == 0;
}

ONYX_API const char *onyxrt_str_concat(const char *a, const char *b) {
  return keep(std::string(orEmpty(a)) + orEmpty(b));
}

ONYX_API int32_t onyxrt_str_regex_full_match(const char *s,
                                             const char *pattern) {
  try {
    auto &regexes = threadStrings().regexes;
    auto it = regexes.find(orEmpty(pattern));
    if (it == regexes.end()) {
      if (regexes.size() > 64)
        regexes.clear();
      it =
          regexes.emplace(orEmpty(pattern), std::regex(orEmpty(pattern))).first;
    }
    return std::regex_match(orEmpty(s), it->second);
  } catch (const std::exception &e) {
    recordFailure("RegexFullMatch: pattern " + quote(pattern) + ": " +
                  e.what());
    return 0;
  }
}

ONYX_API int64_t onyxrt_str_split_count(const char *s, const char *delimiter,
                                        int64_t maxsplit) {
  return int64_t(split(orEmpty(s), orEmpty(delimiter), maxsplit).size());
}

ONYX_API const char *onyxrt_str_split_part(const char *s, const char *delimiter,
                                           int64_t maxsplit, int64_t k) {
  std::vector<std::string> parts =
      split(orEmpty(s), orEmpty(delimiter), maxsplit);
  if (k < 0 || k >= int64_t(parts.size()))
    return "";
  return keep(std::move(parts[size_t(k)]));
}

ONYX_API const char *onyxrt_str_change_case(const char *s, int32_t mode) {
  if (mode != 1 && mode != 2)
    return orEmpty(s);
  return keep(changeCase(orEmpty(s), mode == 2));
}

ONYX_API int32_t onyxrt_str_is_stopword(const char *s, const char *words,
                                        int64_t count, int32_t caseSensitive) {
  std::string text = orEmpty(s);
  if (!caseSensitive)
    text = changeCase(text, /*upper=*/false);
  const char *word = words;
  for (int64_t i = 0; i < count && word; ++i) {
    std::string candidate = word;
    if (!caseSensitive)
      candidate = changeCase(candidate, /*upper=*/false);
    if (candidate == text)
      return 1;
    word += std::strlen(word) + 1;
  }
  return 0;
}

ONYX_API const char *onyxrt_str_from_f32(float v) {
  return keep(formatFloat(v));
}
ONYX_API const char *onyxrt_str_from_f64(double v) {
  return keep(formatFloat(v));
}
ONYX_API const char *onyxrt_str_from_i64(int64_t v) {
  return keep(std::to_string(v));
}
ONYX_API const char *onyxrt_str_from_u64(uint64_t v) {
  return keep(std::to_string(v));
}

ONYX_API float onyxrt_str_to_f32(const char *s) {
  return parseFloat<float>(s, "float");
}
ONYX_API double onyxrt_str_to_f64(const char *s) {
  return parseFloat<double>(s, "double");
}

ONYX_API int64_t onyxrt_str_to_i64(const char *s, int32_t bits) {
  std::string text = trimmed(s);
  int64_t v = 0;
  auto res = std::from_chars(text.data() + (text[0] == '+' && text.size() > 1),
                             text.data() + text.size(), v);
  int64_t hi = bits >= 64 ? std::numeric_limits<int64_t>::max()
                          : (int64_t(1) << (bits - 1)) - 1;
  if (text.empty() || res.ec != std::errc() ||
      res.ptr != text.data() + text.size() || v > hi || v < -hi - 1) {
    recordFailure("Cast: string " + quote(s) + " is not an int" +
                  std::to_string(bits));
    return 0;
  }
  return v;
}

ONYX_API uint64_t onyxrt_str_to_u64(const char *s, int32_t bits) {
  std::string text = trimmed(s);
  uint64_t v = 0;
  auto res = std::from_chars(text.data() + (text[0] == '+' && text.size() > 1),
                             text.data() + text.size(), v);
  uint64_t hi = bits >= 64 ? std::numeric_limits<uint64_t>::max()
                           : (uint64_t(1) << bits) - 1;
  if (text.empty() || res.ec != std::errc() ||
      res.ptr != text.data() + text.size() || v > hi) {
    recordFailure("Cast: string " + quote(s) + " is not a uint" +
                  std::to_string(bits));
    return 0;
  }
  return v;
}

} // extern "C"
