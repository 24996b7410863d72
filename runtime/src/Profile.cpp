//===- Profile.cpp - Chrome-trace profiles of a session
//--------------------===//
#include "Profile.h"

#include <cstdio>
#include <utility>

namespace onyx {
namespace rt {

Profiler::Profiler(std::string path)
    : filePath(std::move(path)), origin(std::chrono::steady_clock::now()) {}

double Profiler::nowUs() const {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now() - origin)
      .count();
}

void Profiler::add(ProfileEvent event) {
  if (event.durationUs < 0)
    event.durationUs = 0;
  events.push_back(std::move(event));
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(char(c));
    } else if (c < 0x20 || c == 0x7f) {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
      out += buffer;
    } else {
      out.push_back(char(c));
    }
  }
  return out + "\"";
}

std::string jsonInts(const std::vector<int64_t> &values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

std::string jsonShapes(const int64_t *table) {
  std::string out = "[";
  if (table) {
    // Bounded: a table the compiler wrote has at most a few dozen entries.
    int64_t count = table[0] < 0 ? 0 : (table[0] > 64 ? 64 : table[0]);
    const int64_t *p = table + 1;
    for (int64_t i = 0; i < count; ++i) {
      int64_t rank = *p++;
      if (rank < 0 || rank > 64)
        break;
      out += i ? ", [" : "[";
      for (int64_t d = 0; d < rank; ++d)
        out += (d ? ", " : "") + std::to_string(p[d]);
      out += "]";
      p += rank;
    }
  }
  return out + "]";
}

std::string libraryShapes(const std::string &function,
                          const std::vector<int64_t> &dims) {
  std::vector<std::vector<int64_t>> shapes;
  if (function == "cublasLt_matmul" && dims.size() == 4) {
    int64_t batch = dims[0], m = dims[1], n = dims[2], k = dims[3];
    shapes = {{batch, m, k}, {batch, k, n}, {batch, m, n}};
  } else if (function == "cudnn_convolution_forward" && dims.size() > 4 &&
             (dims.size() - 4) % 6 == 0) {
    size_t rank = (dims.size() - 4) / 6;
    int64_t n = dims[0], c = dims[1], m = dims[2], g = dims[3];
    std::vector<int64_t> x = {n, c}, w = {m, g > 0 ? c / g : c}, y = {n, m};
    for (size_t d = 0; d < rank; ++d) {
      x.push_back(dims[4 + d]);
      w.push_back(dims[4 + rank + d]);
      y.push_back(dims[4 + 2 * rank + d]);
    }
    shapes = {x, w, y};
  }
  std::string out = "[";
  for (size_t i = 0; i < shapes.size(); ++i)
    out += (i ? ", " : "") + jsonInts(shapes[i]);
  return out + "]";
}

std::string Profiler::json() const {
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  char number[64];
  for (size_t i = 0; i < events.size(); ++i) {
    const ProfileEvent &e = events[i];
    out += "{\"name\": " + jsonString(e.name) +
           ", \"cat\": " + jsonString(e.category) +
           ", \"ph\": \"X\", \"pid\": 1, \"tid\": " +
           (e.category == "call" ? "0" : "1");
    std::snprintf(number, sizeof(number), ", \"ts\": %.3f, \"dur\": %.3f",
                  e.startUs, e.durationUs);
    out += number;
    out += ", \"args\": {";
    for (size_t a = 0; a < e.args.size(); ++a)
      out += (a ? ", " : "") + jsonString(e.args[a].first) + ": " +
             e.args[a].second;
    out += "}}";
    out += i + 1 < events.size() ? ",\n" : "\n";
  }
  return out + "]}\n";
}

bool Profiler::write(std::string &error) const {
  std::string text = json();
  std::string tmp = filePath + ".tmp";
  FILE *f = std::fopen(tmp.c_str(), "w");
  if (!f) {
    error = "cannot write the profile '" + filePath + "'";
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok &= std::fclose(f) == 0;
  if (!ok || std::rename(tmp.c_str(), filePath.c_str()) != 0) {
    std::remove(tmp.c_str());
    error = "cannot write the profile '" + filePath + "'";
    return false;
  }
  return true;
}

} // namespace rt
} // namespace onyx
