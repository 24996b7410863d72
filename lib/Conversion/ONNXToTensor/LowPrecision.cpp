//===- LowPrecision.cpp - float8 / float4 element conversions -------------===//
//
// See LowPrecision.h. The formats (sign bit, e exponent bits, m mantissa
// bits, bias):
//
//   kind        e  m  bias  largest finite  NaN                 infinity
//   e4m3fn      4  3   7    0x7e (448)      S.1111.111          none
//   e4m3fnuz    4  3   8    0x7f (240)      0x80                none
//   e5m2        5  2  15    0x7b (57344)    S.11111.{01,10,11}  S.11111.00
//   e5m2fnuz    5  2  16    0x7f (57344)    0x80                none
//   e2m1 (f4)   2  1   1    0x7  (6)        none                none
//   e8m0        8  0  127   0xfe (2^127)    0xff                none (no sign,
//                                                               no zero)
//
// Encoding works on the source's bits (f32 or f64, so a double is rounded
// once): re-biasing the exponent field and shifting the exponent and
// mantissa right together with round-to-nearest-even rounds normal results
// (a carry out of the mantissa increments the exponent, as it should);
// results below the smallest normal shift the significand with its
// implicit bit by the extra distance. Codes above the largest finite one
// overflowed.
//
//===----------------------------------------------------------------------===//

#include "LowPrecision.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;

namespace onyx::conversion {
namespace {

enum class NaNKind { IEEE, FN, FNUZ, None };

struct Format {
  unsigned width, man;
  int64_t bias;
  NaNKind nan;
  uint64_t maxCode;
  unsigned exp() const { return width - 1 - man; }
};

std::optional<Format> formatOf(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Format{8, 3, 7, NaNKind::FN, 0x7e};
  if (isa<Float8E4M3FNUZType>(type))
    return Format{8, 3, 8, NaNKind::FNUZ, 0x7f};
  if (isa<Float8E5M2Type>(type))
    return Format{8, 2, 15, NaNKind::IEEE, 0x7b};
  if (isa<Float8E5M2FNUZType>(type))
    return Format{8, 2, 16, NaNKind::FNUZ, 0x7f};
  if (isa<Float4E2M1FNType>(type))
    return Format{4, 1, 1, NaNKind::None, 0x7};
  return std::nullopt;
}

/// Integer arithmetic of one width, folding nothing (canonicalize does).
struct Bits {
  OpBuilder &b;
  Location l;
  Type t;

  Value c(int64_t v) {
    return arith::ConstantOp::create(
        b, l,
        IntegerAttr::get(t, APInt(t.getIntOrFloatBitWidth(), uint64_t(v),
                                  /*isSigned=*/true, /*implicitTrunc=*/true)));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, l, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, l, x, y); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, l, x, y); }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, l, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, l, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, l, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, l, p, x, y);
  }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value sel(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, l, c, x, y);
  }
  /// x >> s rounded to nearest, ties to even (s >= 1, x small enough that
  /// x + 2^(s-1) does not overflow).
  Value shrRoundEven(Value x, Value s) {
    Value one = c(1);
    Value lsb = andI(shr(x, s), one);
    Value halfMinusOne = sub(shl(one, sub(s, one)), one);
    return shr(add(add(x, halfMinusOne), lsb), s);
  }
};

Value decodeE8M0(OpBuilder &b, Location l, Value v) {
  Type i32 = b.getI32Type();
  Bits m{b, l, i32};
  Value code = arith::ExtUIOp::create(
      b, l, i32, arith::BitcastOp::create(b, l, b.getI8Type(), v));
  // 2^(e-127): e << 23 is the f32 with that exponent; e = 0 is the f32
  // subnormal 2^-127; e = 0xff is NaN.
  Value bits = m.sel(m.eq(code, m.c(0)), m.c(0x00400000), m.shl(code, m.c(23)));
  bits = m.sel(m.eq(code, m.c(0xff)), m.c(0x7fc00000), bits);
  return arith::BitcastOp::create(b, l, b.getF32Type(), bits);
}

Value encodeE8M0(OpBuilder &b, Location l, Value x, bool saturate,
                 E8M0Rounding rounding) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  // The reference converts to float32 first (np.asarray(x, np.float32)).
  if (x.getType() != f32) {
    if (x.getType().getIntOrFloatBitWidth() > 32)
      x = arith::TruncFOp::create(b, l, f32, x);
    else
      x = arith::ExtFOp::create(b, l, f32, x);
  }
  Bits m{b, l, i32};
  Value bits = arith::BitcastOp::create(b, l, i32, x);
  Value exponent = m.andI(m.shr(bits, m.c(23)), m.c(0xff));
  Value special = m.eq(exponent, m.c(0xff)); // NaN and infinities
  Value zero = m.c(0);
  Value roundUp;
  switch (rounding) {
  case E8M0Rounding::Up:
    roundUp = m.cmp(arith::CmpIPredicate::ne, m.andI(bits, m.c(0x7fffff)),
                    zero);
    break;
  case E8M0Rounding::Nearest: {
    // As the reference: guard bit 22, round bit 21, sticky bits 0-20, and
    // the exponent's "lsb" being exponent > 0.
    auto bit = [&](int64_t mask) {
      return m.cmp(arith::CmpIPredicate::ne, m.andI(bits, m.c(mask)), zero);
    };
    Value g = bit(0x400000), r = bit(0x200000), s = bit(0x1fffff);
    Value lsb = m.cmp(arith::CmpIPredicate::ugt, exponent, zero);
    roundUp = arith::AndIOp::create(
        b, l, g,
        arith::OrIOp::create(b, l, arith::OrIOp::create(b, l, r, s), lsb));
    break;
  }
  case E8M0Rounding::Down:
    roundUp = arith::ConstantOp::create(b, l, b.getBoolAttr(false));
    break;
  }
  if (saturate)
    roundUp = arith::AndIOp::create(
        b, l, roundUp,
        m.cmp(arith::CmpIPredicate::ne, exponent, m.c(0xfe)));
  Value code = m.add(exponent, arith::ExtUIOp::create(b, l, i32, roundUp));
  code = m.sel(special, m.c(0xff), code);
  Value narrow = arith::TruncIOp::create(b, l, b.getI8Type(), code);
  return arith::BitcastOp::create(b, l, Float8E8M0FNUType::get(b.getContext()),
                                  narrow);
}

} // namespace

bool isStorageFloat(Type type) {
  return isa<Float8E8M0FNUType>(type) || formatOf(type).has_value();
}

std::optional<E8M0Rounding> parseE8M0Rounding(StringRef mode) {
  if (mode == "up")
    return E8M0Rounding::Up;
  if (mode == "down")
    return E8M0Rounding::Down;
  if (mode == "nearest")
    return E8M0Rounding::Nearest;
  return std::nullopt;
}

Value decodeStorageFloat(OpBuilder &b, Location l, Value v) {
  if (isa<Float8E8M0FNUType>(v.getType()))
    return decodeE8M0(b, l, v);
  Format f = *formatOf(v.getType());
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Bits m{b, l, i32};
  Value code = arith::ExtUIOp::create(
      b, l, i32, arith::BitcastOp::create(b, l, b.getIntegerType(f.width), v));
  Value sign = m.shl(m.shr(code, m.c(f.width - 1)), m.c(31));
  Value mag = m.andI(code, m.c((int64_t(1) << (f.width - 1)) - 1));
  Value e = m.shr(mag, m.c(f.man));
  Value mant = m.andI(mag, m.c((int64_t(1) << f.man) - 1));
  // Normal: the f32 with the re-biased exponent and the mantissa on top.
  Value normal = m.orI(m.shl(m.add(e, m.c(127 - f.bias)), m.c(23)),
                       m.shl(mant, m.c(23 - f.man)));
  // Subnormal (e = 0, zero included): mant * 2^(1 - bias - m), exact in f32.
  Value scaled = arith::MulFOp::create(
      b, l, arith::UIToFPOp::create(b, l, f32, mant),
      arith::ConstantOp::create(
          b, l, b.getF32FloatAttr(std::ldexp(1.0f, int(1 - f.bias - f.man)))));
  Value subnormal = arith::BitcastOp::create(b, l, i32, scaled);
  Value bits = m.orI(m.sel(m.eq(e, m.c(0)), subnormal, normal), sign);
  int64_t quietNaN = 0x7fc00000;
  switch (f.nan) {
  case NaNKind::IEEE: {
    Value top = m.eq(e, m.c((int64_t(1) << f.exp()) - 1));
    Value special = m.sel(m.eq(mant, m.c(0)), m.c(0x7f800000), m.c(quietNaN));
    bits = m.sel(top, m.orI(special, sign), bits);
    break;
  }
  case NaNKind::FN:
    bits = m.sel(m.eq(mag, m.c((int64_t(1) << (f.width - 1)) - 1)),
                 m.orI(m.c(quietNaN), sign), bits);
    break;
  case NaNKind::FNUZ:
    bits = m.sel(m.eq(code, m.c(int64_t(1) << (f.width - 1))), m.c(quietNaN),
                 bits);
    break;
  case NaNKind::None:
    break;
  }
  return arith::BitcastOp::create(b, l, f32, bits);
}

Value encodeStorageFloat(OpBuilder &b, Location l, Value x, Type to,
                         bool saturate, E8M0Rounding rounding) {
  if (isa<Float8E8M0FNUType>(to))
    return encodeE8M0(b, l, x, saturate, rounding);
  Format f = *formatOf(to);
  if (f.nan == NaNKind::None)
    saturate = true; // float4e2m1 has neither NaN nor infinities
  // f16 and bf16 widen to f32 exactly; f32 and f64 are rounded from their
  // own bits.
  if (x.getType().getIntOrFloatBitWidth() < 32)
    x = arith::ExtFOp::create(b, l, b.getF32Type(), x);
  bool wide = x.getType().isF64();
  unsigned width = wide ? 64 : 32, srcMan = wide ? 52 : 23;
  int64_t srcBias = wide ? 1023 : 127;
  Type it = b.getIntegerType(width);
  Bits m{b, l, it};
  Value bits = arith::BitcastOp::create(b, l, it, x);
  Value sign = m.shr(bits, m.c(width - 1));
  Value absBits = m.andI(bits, m.c(int64_t(~(uint64_t(1) << (width - 1)))));
  Value expField = m.shr(absBits, m.c(srcMan));
  // The exponent the result would have, biased for the target.
  Value targetExp = m.add(expField, m.c(f.bias - srcBias));
  int64_t shift = srcMan - f.man;
  // Normal results: re-bias, then shift exponent and mantissa together.
  Value rebased = m.sub(absBits, m.c((srcBias - f.bias) << srcMan));
  Value normal = m.shrRoundEven(rebased, m.c(shift));
  // Subnormal results: the significand with its implicit bit, shifted by
  // 1 - targetExp more (at most srcMan + 2: everything rounds to 0 there).
  Value significand = m.orI(m.andI(absBits, m.c((int64_t(1) << srcMan) - 1)),
                            m.c(int64_t(1) << srcMan));
  Value extra = m.sub(m.c(shift + 1), targetExp);
  Value limit = m.c(srcMan + 2);
  extra = m.sel(m.cmp(arith::CmpIPredicate::sgt, extra, limit), limit, extra);
  // (Normal results do not use it; keep the shift defined anyway.)
  extra = m.sel(m.cmp(arith::CmpIPredicate::slt, extra, m.c(1)), m.c(1), extra);
  Value subnormal = m.shrRoundEven(significand, extra);
  Value isNormal = m.cmp(arith::CmpIPredicate::sge, targetExp, m.c(1));
  Value code = m.sel(isNormal, normal,
                     m.sel(m.eq(expField, m.c(0)), m.c(0), subnormal));
  // Overflow (infinities included: their code is above any maximum).
  Value isNaN = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
  Value overflow = m.cmp(arith::CmpIPredicate::ugt, code, m.c(f.maxCode));
  Value signBit = m.shl(sign, m.c(f.width - 1));
  Value magnitude = m.sel(overflow, m.c(f.maxCode), code);
  Value result = m.orI(magnitude, signBit);
  int64_t signMask = int64_t(1) << (f.width - 1);
  switch (f.nan) {
  case NaNKind::FN: {
    // S.1111.111; no infinity, so overflow without saturation is NaN too.
    Value nan = m.orI(m.c(signMask - 1), signBit);
    if (!saturate)
      result = m.sel(overflow, nan, result);
    result = m.sel(isNaN, nan, result);
    break;
  }
  case NaNKind::IEEE: {
    Value inf = m.orI(m.c(f.maxCode + 1), signBit);
    if (!saturate)
      result = m.sel(overflow, inf, result);
    result = m.sel(isNaN, m.orI(m.c(f.maxCode + 3), signBit), result);
    break;
  }
  case NaNKind::FNUZ: {
    // One NaN (the negative zero's code) and no negative zero.
    Value nan = m.c(signMask);
    result = m.sel(m.eq(magnitude, m.c(0)), m.c(0), result);
    if (!saturate)
      result = m.sel(overflow, nan, result);
    result = m.sel(isNaN, nan, result);
    break;
  }
  case NaNKind::None:
    // As ml_dtypes (the reference): NaN becomes the code 0x8 (-0).
    result = m.sel(isNaN, m.c(signMask), result);
    break;
  }
  Value narrow =
      arith::TruncIOp::create(b, l, b.getIntegerType(f.width), result);
  return arith::BitcastOp::create(b, l, to, narrow);
}

} // namespace onyx::conversion
