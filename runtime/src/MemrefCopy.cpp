//===- MemrefCopy.cpp - Strided buffer copies for generated code ----------===//
//
// MLIR lowers a `memref.copy` between buffers that are not both contiguous
// to a call to `memrefCopy(elementSize, src, dst)` with unranked memref
// descriptors. Upstream provides it in its C runner utilities, which
// artifacts do not link; the runtime provides it instead.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"

#include <cstring>
#include <vector>

namespace {

/// `{int64_t rank; void *descriptor;}`, the unranked memref ABI.
struct UnrankedDescriptor {
  int64_t rank;
  void *descriptor;
};

/// A view of a ranked descriptor `{T *allocated; T *aligned; int64_t offset;
/// int64_t sizes[rank]; int64_t strides[rank];}`.
struct Strided {
  char *data;
  const int64_t *sizes;
  const int64_t *strides;
};

Strided view(const UnrankedDescriptor *d, int64_t elementSize) {
  auto *words = static_cast<char *>(d->descriptor);
  char *aligned;
  std::memcpy(&aligned, words + sizeof(void *), sizeof(void *));
  int64_t offset;
  std::memcpy(&offset, words + 2 * sizeof(void *), sizeof(int64_t));
  auto *dims = reinterpret_cast<const int64_t *>(words + 2 * sizeof(void *) +
                                                 sizeof(int64_t));
  return {aligned + offset * elementSize, dims, dims + d->rank};
}

} // namespace

extern "C" ONYX_API void memrefCopy(int64_t elementSize,
                                    UnrankedDescriptor *src,
                                    UnrankedDescriptor *dst) {
  int64_t rank = src->rank;
  Strided s = view(src, elementSize), d = view(dst, elementSize);
  for (int64_t i = 0; i < rank; ++i)
    if (s.sizes[i] == 0)
      return;
  if (rank == 0) {
    std::memcpy(d.data, s.data, size_t(elementSize));
    return;
  }
  // Odometer over all indices but the innermost, which is a strided run.
  std::vector<int64_t> index(size_t(rank), 0);
  int64_t inner = rank - 1;
  bool contiguousInner = s.strides[inner] == 1 && d.strides[inner] == 1;
  while (true) {
    int64_t so = 0, dof = 0;
    for (int64_t i = 0; i < inner; ++i) {
      so += index[i] * s.strides[i];
      dof += index[i] * d.strides[i];
    }
    if (contiguousInner) {
      std::memcpy(d.data + dof * elementSize, s.data + so * elementSize,
                  size_t(s.sizes[inner] * elementSize));
    } else {
      for (int64_t j = 0; j < s.sizes[inner]; ++j)
        std::memcpy(d.data + (dof + j * d.strides[inner]) * elementSize,
                    s.data + (so + j * s.strides[inner]) * elementSize,
                    size_t(elementSize));
    }
    int64_t i = inner - 1;
    while (i >= 0 && ++index[i] == s.sizes[i]) {
      index[i] = 0;
      --i;
    }
    if (i < 0)
      return;
  }
}
