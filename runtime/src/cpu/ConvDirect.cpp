//===- ConvDirect.cpp - Direct (implicit-GEMM) 2-d convolutions -----------===//
//
// A convolution as a GEMM whose column matrix is never built (ConvDirect.h):
// y[m, q] = sum over (c, kh, kw) of w[m, c, kh, kw] * in[c, q + off(kh, kw)]
// where `in` is the input laid out so that every tap of every output
// position is one fixed offset away:
//
// - `in` holds, per input channel, one hp x wp plane per phase of the
//   strides that some tap reads: plane (ph, pw) row r, column col is input
//   (r * strideH + ph - padTop, col * strideW + pw - padLeft), zero in the
//   padding. Output (oh, ow) is the flat position q = oh * wp + ow, and tap
//   (kh, kw) reads phase ((kh * dilH) % strideH, (kw * dilW) % strideW) at
//   q + (kh * dilH / strideH) * wp + kw * dilW / strideW: a fixed offset.
//   So every stride reads contiguous positions (a 3x3 stride-2 kernel reads
//   4 planes of a quarter of the input each; a 1x1 stride-2 kernel one).
// - At stride 1 without padding `in` is the input itself; otherwise it is
//   a copy made per image (about the input's size).
// - Positions with ow >= outW (the plane's last columns past the outputs)
//   are computed and dropped.
//
// The kernel keeps 8 output channels x 48 consecutive positions (24 zmm
// accumulators) in registers and walks the reduction (c, kh, kw) in order:
// per tap 3 masked vector loads of `in`, 8 weights broadcast straight from
// w's rows (no packing: w is read as it is, which matters when the
// positions are few and the weights many, e.g. ResNet's last stage) and 24
// FMAs. The epilogue (accumulate, bias, residual, ReLU/Clip) is applied in
// registers; where positions map onto y one to one (wp == outW) the tile is
// stored directly, else through a small staging tile, row by row.
//
// Blocking: the positions are cut into chunks whose slice of `in` is at
// most 256 KiB (it stays in L2 while every block of 8 output channels walks
// it), and into at least 16 work units overall; an image of at most 4
// tiles is one chunk (a late layer, where the weights are what is large:
// they are then read once). A pointwise convolution over 128 or more
// channels instead copies each 48-position tile's input into one
// contiguous [c][48] block and walks it with every channel block (its c
// rows a plane apart were c prefetch streams). The units, (chunk, channel
// block) in chunk-major order, are split across the pool in contiguous
// ranges. Each output element is summed by one thread in (c, kh, kw)
// order: the same bits for every thread count.
//
//===----------------------------------------------------------------------===//

#include "cpu/ConvDirect.h"
#include "cpu/Threads.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace onyx::cpu {
namespace {

constexpr int kMB = 8;                    // output channels per tile
constexpr int kNV = 3;                    // 16-float vectors per tile
constexpr int64_t kTile = 16 * kNV;       // positions per tile
constexpr int kWideMB = 6;                // output channels per wide tile
constexpr int64_t kWideTile = 64;         // positions per wide tile
constexpr int64_t kChunkFloats = 1 << 16; // `in` floats per chunk
constexpr int64_t kOneChunkTiles = 4;     // images of at most this many tiles
constexpr int64_t kPackChannels = 128;    // pointwise inputs packed per tile
constexpr int64_t kPrefetch = 256;        // weight floats fetched ahead
constexpr int64_t kMinUnits = 16;         // work units to balance, at least
constexpr int64_t kBlockMajorFloats = 1 << 17; // `in` that L2 holds: 512 KiB
constexpr int64_t kMinPieceWork = 1 << 17;     // FMAs per thread, at least
constexpr int64_t kMinCopyWork = 1 << 15;      // floats per copying thread

/// What the kernels read and write, fixed for one image.
struct Problem {
  const float *in;       // the laid-out input (see the file comment)
  int64_t plane;         // floats between its channels
  int64_t wp;            // floats between its rows = positions per out row
  int64_t c, taps;       // channels, taps per channel
  const int64_t *tapOff; // per tap: offset from the position
  const float *w;        // [m][c * taps]
  int64_t m, k;          // output channels, reduction length (c * taps)
  int64_t ldw;           // floats between w's rows (k for a convolution)
  int64_t outW, outSize; // y's row length and channel size
  float *y;              // y of this image
  const float *res;      // the residual of this image, or null
  const ConvEpilogue *e;
};

/// One step of the reduction: the tap's 16 * NV inputs at src times the MB
/// weights at column k of the rows wr, into acc.
template <int MB, int NV, bool Full>
__attribute__((target("avx512f"), always_inline)) inline void
accumulateTap(const float *src, const __mmask16 (&mask)[NV],
              const float *const (&wr)[MB], int64_t k, __m512 (&acc)[MB][NV]) {
  __m512 x[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v)
    x[v] = Full ? _mm512_loadu_ps(src + 16 * v)
                : _mm512_maskz_loadu_ps(mask[v], src + 16 * v);
  if ((k & 15) == 0) {
    // The MB weight rows are short streams (a row is k floats) that the
    // hardware prefetchers learn too late when they come from memory
    // (late layers: many weights, few positions): fetch each row's line
    // kPrefetch floats ahead, once per line.
#pragma GCC unroll 8
    for (int i = 0; i < MB; ++i)
      _mm_prefetch(reinterpret_cast<const char *>(wr[i] + k + kPrefetch),
                   _MM_HINT_T0);
  }
#pragma GCC unroll 8
  for (int i = 0; i < MB; ++i) {
    __m512 b = _mm512_set1_ps(wr[i][k]);
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[i][v] = _mm512_fmadd_ps(b, x[v], acc[i][v]);
  }
}

/// The MB x (16 * NV) accumulators of positions [q0, q0 + cols) and output
/// channels [m0, m0 + MB) (rows past m repeat the last one's weights; their
/// results are never stored). Full: cols is 16 * NV, and every load is a
/// plain one (masked loads are about 3x slower on AMD Zen 5, Conv2d.h).
template <int MB, int NV, bool Full>
__attribute__((target("avx512f"))) inline void
accumulateTile(const Problem &p, const float *in, int64_t plane, int64_t cols,
               int64_t m0, __m512 (&acc)[MB][NV]) {
  __mmask16 mask[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v)
    mask[v] = tailMask(cols - 16 * v);
  const float *wr[MB];
#pragma GCC unroll 8
  for (int i = 0; i < MB; ++i)
    wr[i] = p.w + std::min<int64_t>(m0 + i, p.m - 1) * p.ldw;
#pragma GCC unroll 8
  for (int i = 0; i < MB; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[i][v] = _mm512_setzero_ps();
  // A partial tile's loads are plain (masked loads are slow) except in the
  // last row or channel: past its columns they read the next row or
  // channel of the same buffer, into lanes that are never stored.
  if (p.taps == 1 && p.tapOff[0] == 0) {
    // A pointwise product (a GEMM): one flat loop over the reduction.
    int64_t k = 0;
    for (; k + 1 < p.k; ++k, in += plane)
      accumulateTap<MB, NV, true>(in, mask, wr, k, acc);
    accumulateTap<MB, NV, Full>(in, mask, wr, k, acc);
    return;
  }
  // The next channel's rows of the tile (its taps reach `span` floats
  // past the position), fetched while this channel's taps run: channels
  // are a plane apart, a stride the prefetchers do not follow in time.
  const int64_t span = p.tapOff[p.taps - 1] + 16 * NV;
  int64_t k = 0;
  for (int64_t c = 0; c < p.c; ++c, in += plane) {
    if (c + 1 < p.c)
      for (int64_t f = 0; f < span; f += 16)
        _mm_prefetch(reinterpret_cast<const char *>(in + plane + f),
                     _MM_HINT_T0);
    if (c + 1 < p.c)
      for (int64_t t = 0; t < p.taps; ++t, ++k)
        accumulateTap<MB, NV, true>(in + p.tapOff[t], mask, wr, k, acc);
    else
      for (int64_t t = 0; t < p.taps; ++t, ++k)
        accumulateTap<MB, NV, Full>(in + p.tapOff[t], mask, wr, k, acc);
  }
}

/// One tile: its accumulators, then the epilogue into y. Its input is `in`
/// (the tile's first position), channels `plane` floats apart.
template <int MB, int NV, bool Full = false>
__attribute__((target("avx512f"))) void
runTile(const Problem &p, const float *in, int64_t plane, int64_t q0,
        int64_t cols, int64_t m0) {
  __m512 acc[MB][NV];
  accumulateTile<MB, NV, Full>(p, in, plane, cols, m0, acc);
  int64_t mValid = std::min<int64_t>(MB, p.m - m0);
  const ConvEpilogue &e = *p.e;
  if (p.wp == p.outW) {
    // Positions are y's: store in place.
#pragma GCC unroll 8
    for (int i = 0; i < MB; ++i) {
      if (i >= mValid)
        break;
      int64_t at = (m0 + i) * p.outSize + q0;
      __m512 b = _mm512_set1_ps(e.bias ? e.bias[m0 + i] : 0.0f);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        storeWithEpilogue(acc[i][v], tailMask(cols - 16 * v), b,
                          p.res ? p.res + at + 16 * v : nullptr, e,
                          p.y + at + 16 * v);
    }
    return;
  }
  // Positions on the padded grid: stage the tile, then store the runs of
  // positions that are outputs (ow < outW).
  alignas(64) float stage[MB][16 * NV];
#pragma GCC unroll 8
  for (int i = 0; i < MB; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      _mm512_store_ps(&stage[i][16 * v], acc[i][v]);
  for (int64_t q = q0; q < q0 + cols;) {
    int64_t oh = q / p.wp, ow = q % p.wp;
    if (ow >= p.outW) {
      q += p.wp - ow; // the padded grid's last columns
      continue;
    }
    int64_t run = std::min(p.outW - ow, q0 + cols - q);
    int64_t j0 = q - q0, yAt = oh * p.outW + ow;
    for (int64_t i = 0; i < mValid; ++i) {
      __m512 b = _mm512_set1_ps(e.bias ? e.bias[m0 + i] : 0.0f);
      int64_t at = (m0 + i) * p.outSize + yAt;
      for (int64_t j = 0; j < run; j += 16)
        storeWithEpilogue(loadLanes(tailMask(run - j), &stage[i][j0 + j]),
                          tailMask(run - j), b,
                          p.res ? p.res + at + j : nullptr, e, p.y + at + j);
    }
    q += run;
  }
}

/// A pointwise tile's input, its c rows of `cols` positions, copied into
/// [c][kTile] (zeros past cols): the kernel then reads one contiguous
/// stream instead of c rows a channel apart.
__attribute__((target("avx512f"))) void
packTile(const float *in, int64_t plane, int64_t c, int64_t cols, float *dst) {
  __mmask16 m0 = tailMask(cols), m1 = tailMask(cols - 16),
            m2 = tailMask(cols - 32);
  for (int64_t i = 0; i < c; ++i, in += plane, dst += kTile) {
    _mm512_storeu_ps(dst, loadLanes(m0, in));
    _mm512_storeu_ps(dst + 16, loadLanes(m1, in + 16));
    _mm512_storeu_ps(dst + 32, loadLanes(m2, in + 32));
  }
}

/// The outputs of one image (flat positions [0, last)) from a laid-out
/// Problem: the blocking and the split across the pool. `reach`: how far
/// past a position its taps read.
void computeImage(const Problem &p, int64_t last, int64_t reach) {
  if (last > kTile && last <= kWideTile) {
    // An image of 49-64 positions (a 7x7 map, or a 3x3's padded 9-wide grid
    // of one) as one tile of 64 positions and 6 output channels (24
    // accumulators, as 8 x 48 has): the weights are walked once instead of
    // twice (48 positions, then the rest in a mostly empty tile).
    const int64_t blocks = (p.m + kWideMB - 1) / kWideMB;
    const int64_t unitWork = kWideTile * kWideMB * p.k;
    parallelFor(
        blocks, std::max<int64_t>(1, kMinPieceWork / unitWork),
        [&](int64_t begin, int64_t end) {
          for (int64_t b = begin; b < end; ++b) {
            if (last == kWideTile)
              runTile<kWideMB, 4, true>(p, p.in, p.plane, 0, last, b * kWideMB);
            else
              runTile<kWideMB, 4>(p, p.in, p.plane, 0, last, b * kWideMB);
          }
        });
    return;
  }
  const int64_t tiles = (last + kTile - 1) / kTile;
  const int64_t blocks = (p.m + kMB - 1) / kMB;
  // Tiles per chunk: as many as keep the chunk's slice of `in` (its
  // positions and the taps' reach beyond them) within kChunkFloats, but at
  // most so many that there are kMinUnits work units to share.
  int64_t chunkTiles =
      (kChunkFloats / std::max<int64_t>(p.c, 1) - reach) / kTile;
  int64_t minChunks = (kMinUnits + blocks - 1) / blocks;
  chunkTiles = std::min(chunkTiles, (tiles + minChunks - 1) / minChunks);
  chunkTiles = std::clamp<int64_t>(chunkTiles, 1, tiles);
  // A small image (a late layer: few positions, many channels and weights)
  // is one chunk, so that the weights are read once.
  if (tiles <= kOneChunkTiles)
    chunkTiles = tiles;
  // A pointwise convolution over many channels and positions packs each
  // tile's input once and walks it with every channel block (tile-major).
  const bool pack =
      p.taps == 1 && p.c >= kPackChannels && tiles > kOneChunkTiles;
  if (pack)
    chunkTiles = 1;
  const int64_t chunks = (tiles + chunkTiles - 1) / chunkTiles;
  const int64_t unitWork = chunkTiles * kTile * kMB * p.k;
  const int64_t units = chunks * blocks;
  // The pool's threads take contiguous ranges of units. Chunk-major keeps a
  // chunk's slice of `in` in cache while every block walks it, but its
  // chunks can be unequal (a 14x14 map's 5 tiles: 4 + 1, which left one of
  // two threads a fifth of the work): when all of `in` fits in L2 anyway,
  // block-major ranges, of equal blocks, balance the threads instead.
  const bool blockMajor =
      !pack && p.c * p.plane <= kBlockMajorFloats && chunks > 1;

  parallelFor(units, std::max<int64_t>(1, kMinPieceWork / unitWork),
              [&](int64_t begin, int64_t end) {
                thread_local std::vector<float> packed;
                if (pack && packed.size() < size_t(p.c * kTile))
                  packed.resize(size_t(p.c * kTile));
                int64_t packedTile = -1;
                for (int64_t u = begin; u < end; ++u) {
                  int64_t chunk = blockMajor ? u % chunks : u / blocks;
                  int64_t m0 = (blockMajor ? u / chunks : u % blocks) * kMB;
                  int64_t t1 = std::min(tiles, (chunk + 1) * chunkTiles);
                  for (int64_t t = chunk * chunkTiles; t < t1; ++t) {
                    int64_t q0 = t * kTile;
                    int64_t cols = std::min(kTile, last - q0);
                    const float *in = p.in + q0;
                    int64_t inPlane = p.plane;
                    if (pack) {
                      if (packedTile != t)
                        packTile(in, inPlane, p.c, cols, packed.data());
                      packedTile = t;
                      in = packed.data();
                      inPlane = kTile;
                    }
                    if (cols == kTile)
                      runTile<kMB, 3, true>(p, in, inPlane, q0, cols, m0);
                    else if (cols > 32)
                      runTile<kMB, 3>(p, in, inPlane, q0, cols, m0);
                    else if (cols > 16)
                      runTile<kMB, 2>(p, in, inPlane, q0, cols, m0);
                    else
                      runTile<kMB, 1>(p, in, inPlane, q0, cols, m0);
                  }
                }
              });
}

} // namespace

/// The kernel is used: the host has AVX-512F and ONYXRT_CPU_DIRECT_CONV is
/// not 0 (a benchmark and test hook: the im2col and OpenBLAS paths then run
/// these convolutions and GEMMs).
bool directEnabled() {
  static const bool enabled = [] {
    const char *v = std::getenv("ONYXRT_CPU_DIRECT_CONV");
    return __builtin_cpu_supports("avx512f") &&
           !(v && std::strcmp(v, "0") == 0);
  }();
  return enabled;
}

bool directApplies(const Conv2d &s) {
  // Every 2-d convolution of one group: strides through the phase planes.
  if (!directEnabled() || s.c < 1 || s.m < 1 || s.outH < 1 || s.outW < 1 ||
      s.kH < 1 || s.kW < 1 || s.dilH < 1 || s.dilW < 1)
    return false;
  return s.strideH >= 1 && s.strideW >= 1;
}

void convDirect(const Conv2d &s, const float *x, const float *w,
                const ConvEpilogue &e, float *y) {
  const int64_t taps = s.kH * s.kW, k = s.c * taps;
  // The layout of `in`: per channel, one hp x wp plane per phase of the
  // strides that some tap reads (tap (kh, kw) reads phase
  // ((kh * dilH) % strideH, (kw * dilW) % strideW) at row oh + (kh * dilH) /
  // strideH, column ow + (kw * dilW) / strideW).
  const int64_t sh = s.strideH, sw = s.strideW;
  const int64_t hp = s.outH + (s.kH - 1) * s.dilH / sh;
  const int64_t wp = s.outW + (s.kW - 1) * s.dilW / sw;
  std::vector<int64_t> phaseOf(size_t(sh * sw), -1); // phase -> plane
  std::vector<int64_t> phaseRow, phaseCol;           // plane -> phase
  for (int64_t kh = 0; kh < s.kH; ++kh)
    for (int64_t kw = 0; kw < s.kW; ++kw) {
      int64_t ph = kh * s.dilH % sh, pw = kw * s.dilW % sw;
      if (phaseOf[size_t(ph * sw + pw)] < 0) {
        phaseOf[size_t(ph * sw + pw)] = int64_t(phaseRow.size());
        phaseRow.push_back(ph);
        phaseCol.push_back(pw);
      }
    }
  const int64_t phases = int64_t(phaseRow.size());
  const int64_t inSize = s.inH * s.inW, outSize = s.outH * s.outW;
  // The input is `in` itself when it is read at stride 1 without padding.
  bool copy = !(sh == 1 && sw == 1 && s.padTop == 0 && s.padLeft == 0 &&
                wp == s.inW && hp <= s.inH);
  int64_t plane = copy ? phases * hp * wp : inSize;
  std::vector<int64_t> tapOff(static_cast<size_t>(taps));
  for (int64_t kh = 0; kh < s.kH; ++kh)
    for (int64_t kw = 0; kw < s.kW; ++kw) {
      int64_t ph = kh * s.dilH % sh, pw = kw * s.dilW % sw;
      tapOff[size_t(kh * s.kW + kw)] = phaseOf[size_t(ph * sw + pw)] * hp * wp +
                                       (kh * s.dilH / sh) * wp +
                                       kw * s.dilW / sw;
    }
  thread_local std::vector<float> laidOut;
  if (copy)
    laidOut.resize(size_t(s.c * plane));

  // Flat positions [0, last): the last output is (outH - 1, outW - 1).
  const int64_t last = (s.outH - 1) * wp + s.outW;
  const int64_t reach =
      ((s.kH - 1) * s.dilH / sh) * wp + (s.kW - 1) * s.dilW / sw;
  for (int64_t n = 0; n < s.n; ++n) {
    const float *xn = x + n * s.c * inSize;
    Problem p;
    p.in = xn;
    if (copy) {
      // in[c][phase (ph, pw)][r][col] = x[c][r * strideH + ph - padTop]
      // [col * strideW + pw - padLeft], zero outside the input; a row per
      // item.
      float *dst = laidOut.data();
      parallelFor(
          s.c * phases * hp, std::max<int64_t>(1, kMinCopyWork / wp),
          [&](int64_t begin, int64_t end) {
            for (int64_t item = begin; item < end; ++item) {
              int64_t c = item / (phases * hp);
              int64_t f = item / hp % phases, r = item % hp;
              float *row = dst + item * wp;
              int64_t ih = r * sh + phaseRow[size_t(f)] - s.padTop;
              if (ih < 0 || ih >= s.inH) {
                std::fill(row, row + wp, 0.0f);
                continue;
              }
              const float *src = xn + c * inSize + ih * s.inW;
              // Columns col with 0 <= col * sw + pw - padLeft < inW.
              int64_t off = phaseCol[size_t(f)] - s.padLeft;
              int64_t lo = std::min(wp, off >= 0 ? 0 : (-off + sw - 1) / sw);
              int64_t hi = std::clamp<int64_t>(
                  s.inW - off > 0 ? (s.inW - off + sw - 1) / sw : 0, lo, wp);
              std::fill(row, row + lo, 0.0f);
              if (sw == 1)
                std::memcpy(row + lo, src + lo + off,
                            size_t(hi - lo) * sizeof(float));
              else
                for (int64_t col = lo; col < hi; ++col)
                  row[col] = src[col * sw + off];
              std::fill(row + hi, row + wp, 0.0f);
            }
          });
      p.in = dst;
    }
    p.plane = plane;
    p.wp = wp;
    p.c = s.c;
    p.taps = taps;
    p.tapOff = tapOff.data();
    p.w = w;
    p.m = s.m;
    p.k = k;
    p.ldw = k;
    p.outW = s.outW;
    p.outSize = outSize;
    p.y = y + n * s.m * outSize;
    p.res = e.residual ? e.residual + n * s.m * outSize : nullptr;
    p.e = &e;
    computeImage(p, last, reach);
  }
}

} // namespace onyx::cpu

namespace onyx::cpu {

bool gemmDirectApplies(int64_t m, int64_t n, int64_t k) {
  return directEnabled() && m >= 1 && n >= 1 && k >= 1;
}

void gemmDirect(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                const float *b, int64_t ldb, bool accumulate, float *c,
                int64_t ldc) {
  // C's m rows are the output channels, its n columns one row of positions,
  // B's k rows the input channels (a 1x1 convolution over one row).
  static const int64_t zeroOffset = 0;
  ConvEpilogue e;
  e.accumulate = accumulate;
  Problem p;
  p.in = b;
  p.plane = ldb;
  p.wp = n;
  p.c = k;
  p.taps = 1;
  p.tapOff = &zeroOffset;
  p.w = a;
  p.m = m;
  p.k = k;
  p.ldw = lda;
  p.outW = n;
  p.outSize = ldc;
  p.y = c;
  p.res = nullptr;
  p.e = &e;
  computeImage(p, n, 0);
}

} // namespace onyx::cpu
