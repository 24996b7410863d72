//===- Tensor.cpp - Element types, tensors and tensor lists ---------------===//
//
// Tensors own a zero-filled, 64-byte aligned buffer. Every size computation
// is overflow checked; invalid arguments give NULL, never an abort.
//
//===----------------------------------------------------------------------===//
#include "Internal.h"
#include "onyx/onyx_elements.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

using namespace onyx::rt;

extern "C" {

ONYX_API size_t onyx_element_size(int32_t elemType) {
  switch (elemType) {
  case ONYX_U8:
  case ONYX_I8:
  case ONYX_BOOL:
  case ONYX_F8E4M3FN:
  case ONYX_F8E4M3FNUZ:
  case ONYX_F8E5M2:
  case ONYX_F8E5M2FNUZ:
  case ONYX_F8E8M0:
  // Sub-byte types are stored unpacked, one element per byte.
  case ONYX_U4:
  case ONYX_I4:
  case ONYX_F4E2M1:
  case ONYX_U2:
  case ONYX_I2:
    return 1;
  case ONYX_U16:
  case ONYX_I16:
  case ONYX_F16:
  case ONYX_BF16:
    return 2;
  case ONYX_F32:
  case ONYX_I32:
  case ONYX_U32:
    return 4;
  case ONYX_I64:
  case ONYX_F64:
  case ONYX_U64:
    return 8;
  case ONYX_STRING: // One `const char *` per element (docs/runtime.md).
    return sizeof(const char *);
  default:
    return 0;
  }
}

ONYX_API const char *onyx_element_name(int32_t elemType) {
  switch (elemType) {
  case ONYX_F32:
    return "f32";
  case ONYX_U8:
    return "u8";
  case ONYX_I8:
    return "i8";
  case ONYX_U16:
    return "u16";
  case ONYX_I16:
    return "i16";
  case ONYX_I32:
    return "i32";
  case ONYX_I64:
    return "i64";
  case ONYX_STRING:
    return "string";
  case ONYX_BOOL:
    return "bool";
  case ONYX_F16:
    return "f16";
  case ONYX_F64:
    return "f64";
  case ONYX_U32:
    return "u32";
  case ONYX_U64:
    return "u64";
  case ONYX_BF16:
    return "bf16";
  case ONYX_F8E4M3FN:
    return "f8e4m3fn";
  case ONYX_F8E4M3FNUZ:
    return "f8e4m3fnuz";
  case ONYX_F8E5M2:
    return "f8e5m2";
  case ONYX_F8E5M2FNUZ:
    return "f8e5m2fnuz";
  case ONYX_U4:
    return "u4";
  case ONYX_I4:
    return "i4";
  case ONYX_F4E2M1:
    return "f4e2m1";
  case ONYX_F8E8M0:
    return "f8e8m0";
  case ONYX_U2:
    return "u2";
  case ONYX_I2:
    return "i2";
  default:
    return "unknown";
  }
}

ONYX_API const char *onyx_runtime_version(void) { return ONYX_RUNTIME_VERSION; }

ONYX_API int32_t onyx_element_bits(int32_t elemType) {
  if (int32_t bits = onyx_subbyte_bits(elemType))
    return bits;
  return int32_t(8 * onyx_element_size(elemType));
}

} // extern "C"

namespace onyx {
namespace rt {

bool alignedSize(size_t bytes, size_t &result) {
  if (bytes > std::numeric_limits<size_t>::max() - (kAlignment - 1))
    return false;
  result = std::max(kAlignment, (bytes + kAlignment - 1) & ~(kAlignment - 1));
  return true;
}

void *allocAligned(size_t bytes) {
  size_t size;
  if (!alignedSize(bytes, size))
    return nullptr;
  return std::aligned_alloc(kAlignment, size);
}

void freeAligned(void *ptr) { std::free(ptr); }

bool checkSubByteElements(const OnyxTensor *tensor, std::string &error) {
  int32_t bits = onyx_element_bits(tensor->elemType);
  if (bits >= 8 || bits <= 0 || tensor->onDevice || !tensor->data)
    return true;
  const auto *bytes = static_cast<const unsigned char *>(tensor->data);
  unsigned limit = 1u << bits;
  for (int64_t i = 0; i < tensor->numElements; ++i) {
    if (bytes[i] < limit)
      continue;
    static const char *hex = "0123456789abcdef";
    error = std::string("element ") + std::to_string(i) + " is the byte 0x" +
            hex[bytes[i] >> 4] + hex[bytes[i] & 15] + ", not a " +
            onyx_element_name(tensor->elemType) + " (" + std::to_string(bits) +
            "-bit elements hold their bit pattern in the low bits of a byte, "
            "the upper bits zero)";
    return false;
  }
  return true;
}

bool hasNonCanonicalBools(const OnyxTensor *value) {
  if (!value || value->elemType != ONYX_BOOL)
    return false;
  if (value->kind == ONYX_VALUE_SEQUENCE) {
    for (const OnyxTensor *element : value->elements)
      if (hasNonCanonicalBools(element))
        return true;
    return false;
  }
  if (value->kind != ONYX_VALUE_TENSOR || value->onDevice || !value->data)
    return false;
  // An or-reduction over the bytes (vectorized), not an early exit.
  const auto *bytes = static_cast<const unsigned char *>(value->data);
  unsigned char high = 0;
  for (size_t i = 0; i < value->byteSize; ++i)
    high |= bytes[i] & 0xfe;
  return high != 0;
}

OnyxTensor *copyWithCanonicalBools(const OnyxTensor *value,
                                   std::string &error) {
  if (value->kind == ONYX_VALUE_SEQUENCE) {
    OnyxTensor *copy =
        createTensor(value->elemType, 0, nullptr, /*zero=*/true, error);
    if (!copy)
      return nullptr;
    copy->numElements = 0;
    copy->byteSize = 0;
    copy->kind = ONYX_VALUE_SEQUENCE;
    try {
      for (const OnyxTensor *element : value->elements) {
        OnyxTensor *e = copyWithCanonicalBools(element, error);
        if (!e) {
          destroyTensor(copy);
          return nullptr;
        }
        copy->elements.push_back(e);
      }
    } catch (...) {
      destroyTensor(copy);
      error = "out of memory";
      return nullptr;
    }
    return copy;
  }
  OnyxTensor *copy = createTensor(value->elemType, value->rank, value->shape,
                                  /*zero=*/false, error);
  if (!copy)
    return nullptr;
  const auto *from = static_cast<const unsigned char *>(value->data);
  auto *to = static_cast<unsigned char *>(copy->data);
  for (size_t i = 0; i < value->byteSize; ++i)
    to[i] = from[i] != 0;
  return copy;
}

OnyxTensor *createTensor(int32_t elemType, int64_t rank, const int64_t *shape,
                         bool zero, std::string &error) {
  size_t elemSize = onyx_element_size(elemType);
  if (elemSize == 0) {
    error = "unsupported element type " + std::to_string(elemType);
    return nullptr;
  }
  if (rank < 0 || rank > std::numeric_limits<int32_t>::max()) {
    error = "invalid rank " + std::to_string(rank);
    return nullptr;
  }
  if (rank > 0 && !shape) {
    error = "shape is NULL for rank " + std::to_string(rank);
    return nullptr;
  }
  // A zero dim makes the tensor empty whatever the other dims are, so check
  // for one first: [huge, huge, 0] is a valid empty tensor.
  bool empty = false;
  for (int64_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) {
      error = "dim " + std::to_string(i) + " is negative (" +
              std::to_string(shape[i]) + ")";
      return nullptr;
    }
    empty |= shape[i] == 0;
  }
  int64_t numElements = empty ? 0 : 1;
  for (int64_t i = 0; i < rank && !empty; ++i) {
    if (numElements > std::numeric_limits<int64_t>::max() / shape[i]) {
      error = "number of elements overflows";
      return nullptr;
    }
    numElements *= shape[i];
  }
  if (static_cast<uint64_t>(numElements) >
      std::numeric_limits<size_t>::max() / elemSize) {
    error = "byte size overflows";
    return nullptr;
  }
  size_t byteSize = static_cast<size_t>(numElements) * elemSize;
  size_t allocSize;
  if (!alignedSize(byteSize, allocSize)) {
    error = "byte size overflows";
    return nullptr;
  }

  OnyxTensor *tensor = new (std::nothrow) OnyxTensor();
  if (!tensor) {
    error = "out of memory";
    return nullptr;
  }
  tensor->shape = new (std::nothrow) int64_t[std::max<int64_t>(rank, 1)];
  tensor->data = allocAligned(byteSize);
  if (!tensor->shape || !tensor->data) {
    destroyTensor(tensor);
    error = "out of memory allocating " + std::to_string(byteSize) +
            " bytes for a tensor";
    return nullptr;
  }
  tensor->elemType = elemType;
  tensor->rank = static_cast<int32_t>(rank);
  tensor->shape[0] = 0;
  for (int64_t i = 0; i < rank; ++i)
    tensor->shape[i] = shape[i];
  tensor->numElements = numElements;
  tensor->byteSize = byteSize;
  if (zero)
    std::memset(tensor->data, 0, allocSize);
  return tensor;
}

void destroyTensor(OnyxTensor *tensor) {
  if (!tensor)
    return;
  for (OnyxTensor *element : tensor->elements)
    destroyTensor(element);
  if (tensor->ownsData)
    freeAligned(tensor->data);
  delete tensor->strings;
  delete[] tensor->shape;
  delete tensor;
}

} // namespace rt
} // namespace onyx

extern "C" {

ONYX_API OnyxTensor *onyx_tensor_create(int32_t elemType, int32_t rank,
                                        const int64_t *shape) {
  try {
    std::string error;
    return createTensor(elemType, rank, shape, /*zero=*/true, error);
  } catch (...) {
    return nullptr;
  }
}

ONYX_API OnyxTensor *onyx_tensor_create_copy(int32_t elemType, int32_t rank,
                                             const int64_t *shape,
                                             const void *data) {
  OnyxTensor *tensor = onyx_tensor_create(elemType, rank, shape);
  if (!tensor)
    return nullptr;
  if (tensor->byteSize == 0)
    return tensor;
  if (!data) {
    destroyTensor(tensor);
    return nullptr;
  }
  if (elemType == ONYX_STRING) {
    // `data` is `const char *const *`: the tensor keeps copies.
    try {
      const auto *strings = static_cast<const char *const *>(data);
      for (int64_t i = 0; i < tensor->numElements; ++i)
        setTensorString(tensor, i, strings[i] ? strings[i] : "");
    } catch (...) {
      destroyTensor(tensor);
      return nullptr;
    }
    return tensor;
  }
  std::memcpy(tensor->data, data, tensor->byteSize);
  return tensor;
}

ONYX_API void onyx_tensor_destroy(OnyxTensor *tensor) { destroyTensor(tensor); }

ONYX_API OnyxTensor *onyx_tensor_wrap_device(int32_t elemType, int32_t rank,
                                             const int64_t *shape,
                                             void *deviceData) {
  try {
    std::string error;
    // Shape checks and the byte size as for a host tensor, without data.
    OnyxTensor *tensor =
        createTensor(elemType, rank, shape, /*zero=*/false, error);
    if (!tensor)
      return nullptr;
    if (!deviceData && tensor->byteSize != 0) {
      destroyTensor(tensor);
      return nullptr;
    }
    freeAligned(tensor->data);
    tensor->data = deviceData;
    tensor->onDevice = true;
    tensor->ownsData = false;
    return tensor;
  } catch (...) {
    return nullptr;
  }
}

ONYX_API int onyx_tensor_is_device(const OnyxTensor *tensor) {
  return tensor && tensor->onDevice ? 1 : 0;
}

ONYX_API int32_t onyx_tensor_element_type(const OnyxTensor *tensor) {
  return tensor ? tensor->elemType : ONYX_UNDEFINED;
}

ONYX_API int32_t onyx_tensor_rank(const OnyxTensor *tensor) {
  return tensor ? tensor->rank : -1;
}

ONYX_API const int64_t *onyx_tensor_shape(const OnyxTensor *tensor) {
  return tensor ? tensor->shape : nullptr;
}

ONYX_API int64_t onyx_tensor_num_elements(const OnyxTensor *tensor) {
  return tensor ? tensor->numElements : -1;
}

ONYX_API size_t onyx_tensor_byte_size(const OnyxTensor *tensor) {
  return tensor ? tensor->byteSize : 0;
}

ONYX_API void *onyx_tensor_data(OnyxTensor *tensor) {
  return tensor ? tensor->data : nullptr;
}

//===----------------------------------------------------------------------===//
// Tensor lists
//===----------------------------------------------------------------------===//

ONYX_API OnyxTensorList *onyx_tensor_list_create(void) {
  return new (std::nothrow) OnyxTensorList();
}

ONYX_API int onyx_tensor_list_append(OnyxTensorList *list, OnyxTensor *tensor) {
  if (!list || !tensor)
    return -1;
  // Appending a tensor twice would destroy it twice.
  if (std::find(list->tensors.begin(), list->tensors.end(), tensor) !=
      list->tensors.end())
    return -1;
  try {
    list->tensors.push_back(tensor);
  } catch (...) {
    return -1;
  }
  return 0;
}

ONYX_API size_t onyx_tensor_list_size(const OnyxTensorList *list) {
  return list ? list->tensors.size() : 0;
}

ONYX_API OnyxTensor *onyx_tensor_list_get(OnyxTensorList *list, size_t index) {
  if (!list || index >= list->tensors.size())
    return nullptr;
  return list->tensors[index];
}

ONYX_API void onyx_tensor_list_destroy(OnyxTensorList *list) {
  if (!list)
    return;
  for (OnyxTensor *tensor : list->tensors)
    destroyTensor(tensor);
  delete list;
}

} // extern "C"
