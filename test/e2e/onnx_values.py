#!/usr/bin/python3
"""The node-suite runner's own decoding of ONNX values into numpy.

Debian's onnx 1.12 parses every TensorProto of the current ONNX suite (the
protobuf fields are the same), but its numpy_helper knows no element type
after BFLOAT16. This module decodes TensorProto / SequenceProto /
OptionalProto itself, from the fields (raw_data, int32_data, ...), into the
representation onyx-run writes for that element type (docs/testing.md,
"Element types"):

  element type                     numpy array
  float, double, float16           float32, float64, float16
  ints, uints, bool                the numpy type of the same name
  complex64, complex128            complex64, complex128
  bfloat16                         uint16, the raw bits
  float8e4m3fn(uz), float8e5m2(fnuz),
  float8e8m0                       uint8, the raw bits
  float4e2m1                       uint8, one 4-bit code per element (unpacked)
  int4, int2                       int8, the values (sign-extended)
  uint4, uint2                     uint8, the values
  string                           numpy unicode (str_) array

`values_for_compare` turns such an array into what the runner compares:
float32 values for the narrow float types (NaN for their NaN codes), the
array itself otherwise. The encodings follow onnx/onnx.proto (TensorProto:
int32_data holds one element per int32 for 8- and 16-bit types, one packed
byte of two 4-bit or four 2-bit elements per int32 for the sub-byte types;
packing is low bits first) and ONNX's docs/technical/float8.md, float4.md.
"""

import math

import numpy as np
import onnx

# TensorProto.DataType codes. onnx 1.12 lacks the names after BFLOAT16.
UNDEFINED, FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL = range(10)
FLOAT16, DOUBLE, UINT32, UINT64, COMPLEX64, COMPLEX128, BFLOAT16 = range(10, 17)
FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ = range(17, 21)
UINT4, INT4, FLOAT4E2M1, FLOAT8E8M0, UINT2, INT2 = range(21, 27)

TYPE_NAMES = {
    FLOAT: "float", UINT8: "uint8", INT8: "int8", UINT16: "uint16", INT16: "int16",
    INT32: "int32", INT64: "int64", STRING: "string", BOOL: "bool", FLOAT16: "float16",
    DOUBLE: "double", UINT32: "uint32", UINT64: "uint64", COMPLEX64: "complex64",
    COMPLEX128: "complex128", BFLOAT16: "bfloat16", FLOAT8E4M3FN: "float8e4m3fn",
    FLOAT8E4M3FNUZ: "float8e4m3fnuz", FLOAT8E5M2: "float8e5m2",
    FLOAT8E5M2FNUZ: "float8e5m2fnuz", UINT4: "uint4", INT4: "int4",
    FLOAT4E2M1: "float4e2m1", FLOAT8E8M0: "float8e8m0", UINT2: "uint2", INT2: "int2",
}

# Element types numpy has: (numpy dtype, the TensorProto field used without raw_data).
_NATIVE = {
    FLOAT: (np.float32, "float_data"),
    UINT8: (np.uint8, "int32_data"),
    INT8: (np.int8, "int32_data"),
    UINT16: (np.uint16, "int32_data"),
    INT16: (np.int16, "int32_data"),
    INT32: (np.int32, "int32_data"),
    INT64: (np.int64, "int64_data"),
    BOOL: (np.bool_, "int32_data"),
    FLOAT16: (np.float16, "int32_data"),  # int32_data holds the bit patterns
    DOUBLE: (np.float64, "double_data"),
    UINT32: (np.uint32, "uint64_data"),
    UINT64: (np.uint64, "uint64_data"),
    COMPLEX64: (np.complex64, "float_data"),     # (re, im) pairs
    COMPLEX128: (np.complex128, "double_data"),
}

# The numpy type of each typed TensorProto field.
_FIELD_DTYPE = {"float_data": np.float32, "double_data": np.float64, "int32_data": np.int64,
                "int64_data": np.int64, "uint64_data": np.uint64}

_FLOAT8 = (FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, FLOAT8E8M0)
_PACKED = {UINT4: 4, INT4: 4, FLOAT4E2M1: 4, UINT2: 2, INT2: 2}  # bits per element

# What onyx-run writes (and decode_tensor returns) per element type.
STORAGE_DTYPE = {t: np.dtype(d) for t, (d, _) in _NATIVE.items()}
STORAGE_DTYPE.update({BFLOAT16: np.dtype(np.uint16), UINT4: np.dtype(np.uint8),
                      INT4: np.dtype(np.int8), FLOAT4E2M1: np.dtype(np.uint8),
                      UINT2: np.dtype(np.uint8), INT2: np.dtype(np.int8)})
STORAGE_DTYPE.update({t: np.dtype(np.uint8) for t in _FLOAT8})

# The narrow float types, stored as codes and compared as decoded values.
NARROW_FLOATS = (BFLOAT16, FLOAT4E2M1) + _FLOAT8


class DecodeError(ValueError):
    """A value the runner cannot decode (unknown element type, bad sizes)."""


def type_name(elem_type):
    return TYPE_NAMES.get(elem_type, "element type %s" % elem_type)


# ---------------------------------------------------------------------------
# TensorProto -> numpy
# ---------------------------------------------------------------------------

def _unpack(packed, bits, count, signed):
    """COUNT elements of BITS bits each from the bytes PACKED (uint8),
    first element in the lowest bits of the first byte."""
    per = 8 // bits
    need = (count + per - 1) // per
    if packed.size != need:
        raise DecodeError("%d bytes of packed %d-bit data, %d elements need %d"
                          % (packed.size, bits, count, need))
    mask = (1 << bits) - 1
    out = np.empty(packed.size * per, np.uint8)
    for i in range(per):
        out[i::per] = (packed >> (i * bits)) & mask
    out = out[:count]
    if signed:
        v = out.astype(np.int16)
        v = np.where(v >= (1 << (bits - 1)), v - (1 << bits), v)
        return v.astype(np.int8)
    return out


def decode_tensor(t):
    """A TensorProto as a numpy array in onyx-run's representation (above)."""
    if t.HasField("segment"):
        raise DecodeError("segmented tensors are not supported")
    if t.data_location == onnx.TensorProto.EXTERNAL or len(t.external_data):
        raise DecodeError("external tensor data is not supported")
    dt = t.data_type
    dims = tuple(int(d) for d in t.dims)
    count = math.prod(dims)
    has_raw = t.HasField("raw_data")

    if dt == STRING:
        vals = [s.decode("utf-8") for s in t.string_data]
        if len(vals) != count:
            raise DecodeError("%d strings, dims %s need %d" % (len(vals), list(dims), count))
        return np.array(vals, dtype=np.str_).reshape(dims)

    if dt in _NATIVE:
        np_dtype, field = _NATIVE[dt]
        if has_raw:
            a = np.frombuffer(t.raw_data, dtype=np.dtype(np_dtype).newbyteorder("<"))
            a = a.astype(np_dtype, copy=False)
        elif dt == FLOAT16:
            a = np.asarray(t.int32_data, dtype=np.int64).astype(np.uint16).view(np.float16)
        elif dt in (COMPLEX64, COMPLEX128):
            parts = np.asarray(getattr(t, field), dtype=np.float32 if dt == COMPLEX64 else np.float64)
            if parts.size % 2:
                raise DecodeError("an odd number of complex components")
            a = parts.view(np_dtype)
        else:
            a = np.asarray(getattr(t, field), dtype=_FIELD_DTYPE[field]).astype(np_dtype)
    elif dt == BFLOAT16 or dt in _FLOAT8:
        storage = np.uint16 if dt == BFLOAT16 else np.uint8
        if has_raw:
            a = np.frombuffer(t.raw_data, dtype=np.dtype(storage).newbyteorder("<")).astype(storage)
        else:
            a = np.asarray(t.int32_data, dtype=np.int64).astype(storage)
    elif dt in _PACKED:
        if has_raw:
            packed = np.frombuffer(t.raw_data, dtype=np.uint8)
        else:
            packed = np.asarray(t.int32_data, dtype=np.int64).astype(np.uint8)
        a = _unpack(packed, _PACKED[dt], count, dt in (INT4, INT2))
    else:
        raise DecodeError("cannot decode %s" % type_name(dt))

    if a.size != count:
        raise DecodeError("%d %s values, dims %s need %d" % (a.size, type_name(dt), list(dims), count))
    return a.reshape(dims)


def decode_sequence(s):
    """A SequenceProto as a list (of arrays, lists or optionals)."""
    et = s.elem_type
    if et == onnx.SequenceProto.TENSOR or (et == 0 and len(s.tensor_values)):
        return [decode_tensor(v) for v in s.tensor_values]
    if et == onnx.SequenceProto.SEQUENCE:
        return [decode_sequence(v) for v in s.sequence_values]
    if et == 5 and hasattr(s, "optional_values"):  # OPTIONAL
        return [decode_optional(v) for v in s.optional_values]
    if et == 0 and not (len(s.sparse_tensor_values) or len(s.map_values)):
        return []
    raise DecodeError("cannot decode a sequence of element kind %d" % et)


def decode_optional(o):
    """An OptionalProto as ("optional", None | array | list)."""
    et = o.elem_type
    if et == onnx.OptionalProto.UNDEFINED:
        return ("optional", None)
    if et == onnx.OptionalProto.TENSOR:
        return ("optional", decode_tensor(o.tensor_value) if o.HasField("tensor_value") else None)
    if et == onnx.OptionalProto.SEQUENCE:
        return ("optional", decode_sequence(o.sequence_value) if o.HasField("sequence_value") else None)
    if et == onnx.OptionalProto.OPTIONAL:
        return ("optional", decode_optional(o.optional_value) if o.HasField("optional_value") else None)
    raise DecodeError("cannot decode an optional of element kind %d" % et)


def decode_file(path, type_proto=None):
    """The value in a .pb file: a SequenceProto or OptionalProto when
    TYPE_PROTO (the graph value's TypeProto) says so, else a TensorProto."""
    with open(path, "rb") as f:
        data = f.read()
    kind = type_proto.WhichOneof("value") if type_proto is not None else None
    if kind == "sequence_type":
        s = onnx.SequenceProto()
        s.ParseFromString(data)
        return decode_sequence(s)
    if kind == "optional_type":
        o = onnx.OptionalProto()
        o.ParseFromString(data)
        return decode_optional(o)
    t = onnx.TensorProto()
    t.ParseFromString(data)
    return decode_tensor(t)


def leaf_elem_type(type_proto):
    """The tensor element type inside a TypeProto (through sequence and
    optional types); None when it has none."""
    while type_proto is not None:
        kind = type_proto.WhichOneof("value")
        if kind == "tensor_type":
            return type_proto.tensor_type.elem_type or None
        if kind == "sequence_type":
            type_proto = type_proto.sequence_type.elem_type
        elif kind == "optional_type":
            type_proto = type_proto.optional_type.elem_type
        else:
            return None
    return None


# ---------------------------------------------------------------------------
# Narrow float types -> float32
# ---------------------------------------------------------------------------

def _minifloat_table(exp_bits, man_bits, bias, nan_codes=(), inf_codes=()):
    """float32 value of each code of a sign/exponent/mantissa format."""
    n = 1 << (1 + exp_bits + man_bits)
    vals = np.empty(n, np.float64)
    for c in range(n):
        sign = -1.0 if (c >> (exp_bits + man_bits)) & 1 else 1.0
        e = (c >> man_bits) & ((1 << exp_bits) - 1)
        m = c & ((1 << man_bits) - 1)
        if e == 0:
            v = m * 2.0 ** (1 - bias - man_bits)
        else:
            v = (1.0 + m / float(1 << man_bits)) * 2.0 ** (e - bias)
        vals[c] = sign * v
    for c in nan_codes:
        vals[c] = np.nan
    for c in inf_codes:
        vals[c] = np.inf if c < n // 2 else -np.inf
    return vals.astype(np.float32)


_TABLES = {
    # S.EEEE.MMM, bias 7, NaN S.1111.111, no infinities.
    FLOAT8E4M3FN: _minifloat_table(4, 3, 7, nan_codes=(0x7F, 0xFF)),
    # bias 8, the only NaN is 0x80 (no negative zero), no infinities.
    FLOAT8E4M3FNUZ: _minifloat_table(4, 3, 8, nan_codes=(0x80,)),
    # IEEE-like, bias 15: S.11111.00 infinities, S.11111.{01,10,11} NaN.
    FLOAT8E5M2: _minifloat_table(5, 2, 15, nan_codes=(0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF),
                                 inf_codes=(0x7C, 0xFC)),
    # bias 16, the only NaN is 0x80, no infinities.
    FLOAT8E5M2FNUZ: _minifloat_table(5, 2, 16, nan_codes=(0x80,)),
    # S.EE.M, bias 1, no NaN or infinities: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
    FLOAT4E2M1: _minifloat_table(2, 1, 1),
    # Exponent only (OCP MX scale): 2^(e-127), 0xFF is NaN, no zero, no sign.
    FLOAT8E8M0: np.array([2.0 ** (e - 127) for e in range(255)] + [np.nan], np.float32),
}


def narrow_to_float32(codes, elem_type):
    """Codes of a narrow float type (uint16 bfloat16 bits, uint8 otherwise)
    as float32 values."""
    if elem_type == BFLOAT16:
        codes = np.asarray(codes)
        if codes.dtype != np.uint16:
            codes = codes.view(np.uint16)  # e.g. the 2-byte void type
        bits = np.array(codes, dtype=np.uint32)  # (keeps 0-d arrays 0-d)
        bits <<= np.uint32(16)
        return bits.view(np.float32)
    return _TABLES[elem_type][np.asarray(codes, dtype=np.uint8)]

