/*===- onyx_elements.h - Sub-byte element packing (header only) ---------===*
 *
 * ONNX stores the 4-bit types (uint4 21, int4 22, float4e2m1 23) two per
 * byte, element 2i in the low nibble of byte i, and the 2-bit types (uint2
 * 25, int2 26) four per byte, element 4i+j in bits 2j..2j+1; the last byte
 * is zero-padded. Onyx keeps them unpacked in memory: one element per byte,
 * its bit pattern in the low bits, the upper bits zero (onyx_runtime.h,
 * docs/element-types.md). These helpers convert between the two layouts;
 * the importer (initializers), onyx-run (TensorProto files) and callers use
 * them. Plain C, no runtime symbols needed.
 *===----------------------------------------------------------------------===*/
#ifndef ONYX_ELEMENTS_H
#define ONYX_ELEMENTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bits per element of the sub-byte ONNX types (4 or 2); 0 for every other
 * code (byte-sized or unknown). */
static inline int32_t onyx_subbyte_bits(int32_t elemType) {
  switch (elemType) {
  case 21: /* UINT4 */
  case 22: /* INT4 */
  case 23: /* FLOAT4E2M1 */
    return 4;
  case 25: /* UINT2 */
  case 26: /* INT2 */
    return 2;
  default:
    return 0;
  }
}

/* Bytes that `count` elements of a sub-byte type take packed (ONNX's
 * raw_data / external data layout). */
static inline uint64_t onyx_packed_bytes(int32_t elemType, uint64_t count) {
  uint64_t bits = (uint64_t)onyx_subbyte_bits(elemType);
  return (count * bits + 7) / 8;
}

/* Unpacks `count` elements from ONNX's packed layout (onyx_packed_bytes
 * bytes at `packed`) into one byte each at `out`. */
static inline void onyx_unpack_elements(int32_t elemType,
                                        const uint8_t *packed, uint64_t count,
                                        uint8_t *out) {
  uint32_t bits = (uint32_t)onyx_subbyte_bits(elemType);
  uint32_t perByte = 8 / bits, mask = (1u << bits) - 1;
  for (uint64_t i = 0; i < count; ++i)
    out[i] = (uint8_t)((packed[i / perByte] >> ((i % perByte) * bits)) & mask);
}

/* Packs `count` unpacked elements (only their low bits are used) into
 * onyx_packed_bytes bytes at `packed`, the last byte zero-padded. */
static inline void onyx_pack_elements(int32_t elemType, const uint8_t *codes,
                                      uint64_t count, uint8_t *packed) {
  uint32_t bits = (uint32_t)onyx_subbyte_bits(elemType);
  uint32_t perByte = 8 / bits, mask = (1u << bits) - 1;
  uint64_t bytes = onyx_packed_bytes(elemType, count);
  for (uint64_t i = 0; i < bytes; ++i)
    packed[i] = 0;
  for (uint64_t i = 0; i < count; ++i)
    packed[i / perByte] |= (uint8_t)((codes[i] & mask) << ((i % perByte) * bits));
}

/* The value of an int4/int2 element from its code (sign extension), or the
 * code itself for the unsigned and float4 types. */
static inline int32_t onyx_subbyte_value(int32_t elemType, uint8_t code) {
  int32_t bits = onyx_subbyte_bits(elemType);
  if (elemType == 22 || elemType == 26) {
    int32_t sign = 1 << (bits - 1);
    return (int32_t)((code ^ sign) - sign);
  }
  return code;
}

#ifdef __cplusplus
}
#endif

#endif /* ONYX_ELEMENTS_H */
