/*===- onyx_strings.h - String services for generated code -------------===*
 *
 * A string tensor (ONYX_STRING) holds one `const char *` per element: a
 * NUL-terminated UTF-8 string, NULL reading as "" (docs/runtime.md, "String
 * tensors"). The compiler lowers the string operators (Equal, StringConcat,
 * StringSplit, StringNormalizer, RegexFullMatch, Cast to and from string) to
 * per-element calls of these services (names in onyx_abi.h). Strings they
 * return live in the calling thread's string arena until the current
 * onyxrt_run call ends; string graph outputs are copied into the output
 * tensors before that. A service that cannot produce a value (a Cast of
 * "abc" to float) records a message and returns 0/NaN/""; onyxrt_run then
 * fails with that message. A caller of the runtime never needs this header.
 *===----------------------------------------------------------------------===*/
#ifndef ONYX_STRINGS_H
#define ONYX_STRINGS_H

#include <stdint.h>

#include "onyx/onyx_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Byte-wise equality: 1 or 0. */
ONYX_API int32_t onyxrt_str_equal(const char *a, const char *b);
/* a followed by b. */
ONYX_API const char *onyxrt_str_concat(const char *a, const char *b);
/* 1 when the whole of `s` matches `pattern` (ECMAScript syntax, the subset
 * RE2 shares with it; the compiler rejects the rest), else 0. */
ONYX_API int32_t onyxrt_str_regex_full_match(const char *s,
                                             const char *pattern);
/* StringSplit, as Python's str.split(delimiter, maxsplit): `delimiter` ""
 * splits at runs of whitespace and drops leading/trailing whitespace;
 * `maxsplit` < 0 is unlimited. The number of parts, and part `k` ("" past
 * the last part). */
ONYX_API int64_t onyxrt_str_split_count(const char *s, const char *delimiter,
                                        int64_t maxsplit);
ONYX_API const char *onyxrt_str_split_part(const char *s, const char *delimiter,
                                           int64_t maxsplit, int64_t k);
/* StringNormalizer: `mode` 1 lower-cases, 2 upper-cases (Unicode simple
 * case mapping of the C.UTF-8 locale; bytes that are not valid UTF-8 are
 * kept). */
ONYX_API const char *onyxrt_str_change_case(const char *s, int32_t mode);
/* 1 when `s` is one of the `count` NUL-terminated strings stored back to
 * back at `words`; compared after Unicode lower-casing when
 * `caseSensitive` is 0. */
ONYX_API int32_t onyxrt_str_is_stopword(const char *s, const char *words,
                                        int64_t count, int32_t caseSensitive);
/* Cast to string: floats as numpy's str() of the value (the shortest
 * string that reads back to it: "0.9767611", "1e-05", "nan", "-inf"),
 * integers in decimal. */
ONYX_API const char *onyxrt_str_from_f32(float v);
ONYX_API const char *onyxrt_str_from_f64(double v);
ONYX_API const char *onyxrt_str_from_i64(int64_t v);
ONYX_API const char *onyxrt_str_from_u64(uint64_t v);
/* Cast from string: decimal or scientific notation, "NaN", "INF", "+INF",
 * "-INF" (any case, also "inf"/"infinity"), surrounding whitespace allowed;
 * integers in decimal within the range of `bits` (8, 16, 32, 64). Anything
 * else records a failure for the current call. */
ONYX_API float onyxrt_str_to_f32(const char *s);
ONYX_API double onyxrt_str_to_f64(const char *s);
ONYX_API int64_t onyxrt_str_to_i64(const char *s, int32_t bits);
ONYX_API uint64_t onyxrt_str_to_u64(const char *s, int32_t bits);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ONYX_STRINGS_H */
