//===- Strings.cpp - String tensors and the string operators --------------===//
//
// A string tensor is a tensor of `index`, one `const char *` per element
// (a pointer-sized integer: `!llvm.ptr` is not a valid memref element type;
// no ONNX value is ever an index tensor) (NUL-terminated UTF-8, NULL reading as
// ""; docs/runtime.md, "String tensors"). Moving strings (Identity, Reshape,
// Gather, ...) is what the other lowerings already do with any element type;
// computing with them is a linalg.generic whose body calls one of the runtime's
// string services (runtime/include/onyx/onyx_strings.h, names in onyx_abi.h)
// per element:
//
//   Equal               onyxrt_str_equal(a, b) != 0, broadcast
//   StringConcat        onyxrt_str_concat(a, b), broadcast
//   RegexFullMatch      onyxrt_str_regex_full_match(x, pattern)
//   StringSplit         counts = onyxrt_str_split_count (the Z output), their
//                       maximum the last extent of Y, Y[..., k] =
//                       onyxrt_str_split_part(x, delimiter, maxsplit, k)
//   StringNormalizer    stop words dropped by an scf.for that compacts the
//                       kept elements (onyxrt_str_is_stopword), each one
//                       onyxrt_str_change_case'd; [""] when none is kept
//   Cast to string      onyxrt_str_from_{f32,f64,i64,u64}
//   Cast from string    onyxrt_str_to_{f32,f64,i64,u64}
//
// Constant strings (pattern, delimiter, stop words) are private
// `llvm.mlir.global`s read with `llvm.mlir.addressof` + `llvm.ptrtoint`.
//
//===----------------------------------------------------------------------===//
#include "Strings.h"

#include "onyx/onyx_abi.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

namespace onyx::conversion {

namespace {

bool isStringElement(Type t) { return isa<IndexType>(t); }

bool isStringTensor(Value v) {
  auto shaped = dyn_cast<ShapedType>(v.getType());
  return shaped && isStringElement(shaped.getElementType());
}

Type convertStringType(Type type) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor || !isa<onnx::StringType>(tensor.getElementType()))
    return type;
  return tensor.clone(IndexType::get(type.getContext()));
}

/// The element type of a string tensor: a pointer-sized integer (a
/// `const char *`; `!llvm.ptr` is not a valid memref element type).
Type ptrType(MLIRContext *ctx) { return IndexType::get(ctx); }

/// The private declaration of runtime service `name` in the module of `op`.
func::FuncOp declareService(Operation *op, StringRef name, TypeRange args,
                            TypeRange results) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto fn = module.lookupSymbol<func::FuncOp>(name))
    return fn;
  // Insert before the top-level op holding `op` (the function being
  // converted), never after it: the pass walks the module's functions.
  Operation *top = op;
  while (top->getParentOp() != module.getOperation())
    top = top->getParentOp();
  OpBuilder b(top);
  auto fn = func::FuncOp::create(b, module.getLoc(), name,
                                 b.getFunctionType(args, results));
  fn.setPrivate();
  return fn;
}

Value callService(OpBuilder &b, Location loc, Operation *op, StringRef name,
                  ValueRange args, Type result) {
  func::FuncOp fn = declareService(op, name, TypeRange(args), {result});
  return func::CallOp::create(b, loc, fn, args).getResult(0);
}

/// A pointer to constant `bytes` (a terminating NUL is added), from a
/// private global shared by equal contents.
Value constantString(OpBuilder &b, Location loc, Operation *op,
                     StringRef bytes) {
  auto module = op->getParentOfType<ModuleOp>();
  std::string data = bytes.str();
  data.push_back('\0');
  std::string name =
      "__onyx_str_" + llvm::utohexstr(llvm::xxh3_64bits(data), true);
  if (!module.lookupSymbol<LLVM::GlobalOp>(name)) {
    Operation *top = op;
    while (top->getParentOp() != module.getOperation())
      top = top->getParentOp();
    OpBuilder gb(top);
    auto arrayType =
        LLVM::LLVMArrayType::get(gb.getIntegerType(8), data.size());
    LLVM::GlobalOp::create(gb, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Private, name,
                           gb.getStringAttr(data));
  }
  Value address = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
  Value bits = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), address);
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), bits);
}

Value isNonZero(OpBuilder &b, Location loc, Value i32) {
  Value zero = arith::ConstantIntOp::create(b, loc, i32.getType(), 0);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, i32, zero);
}

/// The signless form of an integer element (bodies compute on signless
/// integers; ui8 etc. are cast in and out, as Elementwise.cpp does).
Value toSignlessValue(OpBuilder &b, Location loc, Value v) {
  auto t = dyn_cast<IntegerType>(v.getType());
  if (!t || t.isSignless())
    return v;
  return UnrealizedConversionCastOp::create(
             b, loc, TypeRange{b.getIntegerType(t.getWidth())}, ValueRange{v})
      .getResult(0);
}

Value fromSignlessValue(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, TypeRange{to},
                                            ValueRange{v})
      .getResult(0);
}

using ScalarFn =
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange scalars)>;

/// `operands` broadcast to one result of `element`, each element computed
/// by `fn` from the operands' elements.
FailureOr<Value> mapStrings(Operation *op, OpBuilder &b, ValueRange operands,
                            Type element, ScalarFn fn) {
  Location loc = op->getLoc();
  for (Value v : operands)
    if (failed(requireRanked(op, v, "an operand")))
      return failure();
  auto shape = shape::broadcastShapes(b, loc, operands, op);
  if (failed(shape))
    return failure();
  int64_t rank = int64_t(shape->dims.size());
  SmallVector<OperandAccess> accesses;
  for (auto [v, bc] : llvm::zip(operands, shape->operands))
    accesses.push_back(broadcastAccess(v, bc, rank));
  Value init = emptyTensor(b, loc, shape->dims, element);
  SmallVector<int64_t> loops = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return buildGeneric(b, loc, accesses, init, loops, iterators,
                      [&](OpBuilder &nb, Location nl, ValueRange in, Value) {
                        return fn(nb, nl, in);
                      });
}

//===----------------------------------------------------------------------===//
// Equal, StringConcat, RegexFullMatch
//===----------------------------------------------------------------------===//

LowerFnPtr previousConstant = nullptr;
LowerFnPtr previousEqual = nullptr;
LowerFnPtr previousCast = nullptr;
LowerFnPtr previousCastLike = nullptr;

FailureOr<SmallVector<Value>> lowerEqual(Operation *op, OpBuilder &b) {
  bool a = isStringTensor(op->getOperand(0)),
       c = isStringTensor(op->getOperand(1));
  if (!a && !c)
    return previousEqual(op, b);
  if (!a || !c)
    return op->emitError("Equal compares a string tensor with a non-string "
                         "tensor");
  FailureOr<Value> r =
      mapStrings(op, b, op->getOperands(), b.getI1Type(),
                 [&](OpBuilder &nb, Location l, ValueRange v) {
                   return isNonZero(nb, l,
                                    callService(nb, l, op, ONYXRT_FN_STR_EQUAL,
                                                v, nb.getI32Type()));
                 });
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

FailureOr<SmallVector<Value>> lowerStringConcat(Operation *op, OpBuilder &b) {
  for (Value v : op->getOperands())
    if (!isStringTensor(v))
      return op->emitError("StringConcat takes string tensors");
  FailureOr<Value> r =
      mapStrings(op, b, op->getOperands(), ptrType(b.getContext()),
                 [&](OpBuilder &nb, Location l, ValueRange v) {
                   return callService(nb, l, op, ONYXRT_FN_STR_CONCAT, v,
                                      ptrType(nb.getContext()));
                 });
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

/// The part of RE2's syntax that std::regex's ECMAScript grammar reads the
/// same way: RE2-only constructs (flags and named groups `(?...)` other
/// than `(?:`, `\A`, `\z`, `\C`, `\p{..}`, `\Q..\E`) and ECMAScript-only
/// ones RE2 rejects (back references, lookarounds) are errors.
LogicalResult checkPattern(Operation *op, StringRef pattern) {
  auto reject = [&](StringRef what) {
    return op->emitError() << "RegexFullMatch: pattern '" << pattern
                           << "' uses " << what
                           << ", which is not supported (the RE2 subset "
                              "std::regex's ECMAScript grammar shares)";
  };
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      char n = pattern[++i];
      if (n >= '1' && n <= '9')
        return reject("a back reference");
      if (StringRef("AzCpPQEK").contains(n))
        return reject(std::string("\\") + n);
      continue;
    }
    if (c == '(' && i + 1 < pattern.size() && pattern[i + 1] == '?' &&
        !(i + 2 < pattern.size() && pattern[i + 2] == ':'))
      return reject("a '(?' group (flags, named groups or lookarounds)");
  }
  return success();
}

FailureOr<SmallVector<Value>> lowerRegexFullMatch(Operation *op, OpBuilder &b) {
  Value x = op->getOperand(0);
  if (!isStringTensor(x))
    return op->emitError("RegexFullMatch takes a string tensor");
  auto pattern = op->getAttrOfType<StringAttr>("pattern");
  if (!pattern)
    return op->emitError("RegexFullMatch: the pattern attribute is required");
  if (failed(checkPattern(op, pattern.getValue())))
    return failure();
  FailureOr<Value> r = mapStrings(
      op, b, ValueRange{x}, b.getI1Type(),
      [&](OpBuilder &nb, Location l, ValueRange v) {
        Value p = constantString(nb, l, op, pattern.getValue());
        return isNonZero(nb, l,
                         callService(nb, l, op, ONYXRT_FN_STR_REGEX_FULL_MATCH,
                                     {v[0], p}, nb.getI32Type()));
      });
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

/// A string constant: one private global per distinct string, the tensor
/// built from their addresses.
FailureOr<SmallVector<Value>> lowerConstant(Operation *op, OpBuilder &b) {
  auto strings =
      dyn_cast_or_null<DenseStringElementsAttr>(op->getAttr("value"));
  if (!strings)
    return previousConstant(op, b);
  auto type = cast<RankedTensorType>(strings.getType());
  constexpr int64_t kMaxElements = 1 << 16;
  if (type.getNumElements() > kMaxElements)
    return op->emitError() << "a string constant of " << type.getNumElements()
                           << " elements is not supported (at most "
                           << kMaxElements << ")";
  Location loc = op->getLoc();
  SmallVector<Value> elements;
  for (StringRef s : strings.getRawStringData()) {
    if (s.contains('\0'))
      return op->emitError("a string constant contains a NUL byte, which "
                           "Onyx's strings cannot hold");
    elements.push_back(constantString(b, loc, op, s));
  }
  auto resultType =
      RankedTensorType::get(type.getShape(), ptrType(b.getContext()));
  if (elements.empty())
    return SmallVector<Value>{tensor::EmptyOp::create(
        b, loc, resultType.getShape(), resultType.getElementType())};
  return SmallVector<Value>{
      tensor::FromElementsOp::create(b, loc, resultType, elements)};
}

//===----------------------------------------------------------------------===//
// StringSplit
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> lowerStringSplit(Operation *op, OpBuilder &b) {
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  if (!isStringTensor(x))
    return op->emitError("StringSplit takes a string tensor");
  auto type = requireRanked(op, x, "the input");
  if (failed(type))
    return failure();
  std::string delimiter;
  if (auto d = op->getAttrOfType<StringAttr>("delimiter"))
    delimiter = d.getValue().str();
  int64_t maxsplit = -1;
  if (auto m = op->getAttrOfType<IntegerAttr>("maxsplit")) {
    maxsplit = m.getInt();
    if (maxsplit < 0)
      return op->emitError()
             << "StringSplit: maxsplit " << maxsplit << " is negative";
  }
  int64_t rank = type->getRank();
  SmallVector<OpFoldResult> dims;
  for (int64_t i = 0; i < rank; ++i)
    dims.push_back(
        type->isDynamicDim(i)
            ? OpFoldResult(tensor::DimOp::create(b, loc, x, i).getResult())
            : OpFoldResult(b.getIndexAttr(type->getDimSize(i))));
  SmallVector<int64_t> loops = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  Value maxSplit =
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), maxsplit);
  // Z: the number of parts of each element.
  Value counts = buildGeneric(
      b, loc, {identityAccess(x)}, emptyTensor(b, loc, dims, b.getI64Type()),
      loops,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange v, Value) {
        Value d = constantString(nb, l, op, delimiter);
        return callService(nb, l, op, ONYXRT_FN_STR_SPLIT_COUNT,
                           {v[0], d, maxSplit}, nb.getI64Type());
      });
  // Their maximum (0 for an empty input) is Y's last extent.
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  Value maxInit = filledTensor(b, loc, {}, zero);
  Value maxCount = buildGeneric(
      b, loc, {identityAccess(counts)}, maxInit, {},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::reduction),
      [&](OpBuilder &nb, Location l, ValueRange v, Value out) {
        return arith::MaxSIOp::create(nb, l, v[0], out).getResult();
      });
  Value width = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      tensor::ExtractOp::create(b, loc, maxCount, ValueRange{}));
  SmallVector<OpFoldResult> partDims = dims;
  partDims.push_back(width);
  SmallVector<int64_t> partLoops = loops;
  partLoops.push_back(rank);
  Value parts = buildGeneric(
      b, loc, {identityAccess(x)},
      emptyTensor(b, loc, partDims, ptrType(b.getContext())), partLoops,
      SmallVector<utils::IteratorType>(rank + 1, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange v, Value) {
        Value k = arith::IndexCastOp::create(
            nb, l, nb.getI64Type(),
            linalg::IndexOp::create(nb, l, uint64_t(rank)));
        Value d = constantString(nb, l, op, delimiter);
        return callService(nb, l, op, ONYXRT_FN_STR_SPLIT_PART,
                           {v[0], d, maxSplit, k}, ptrType(nb.getContext()));
      });
  return SmallVector<Value>{parts, counts};
}

//===----------------------------------------------------------------------===//
// StringNormalizer
//===----------------------------------------------------------------------===//

/// Locales whose case mapping is Unicode's default one (what the runtime
/// implements); a locale with its own rules (Turkish dotted i, ...) is an
/// error.
bool isSupportedLocale(StringRef locale) {
  if (locale.empty() || locale == "C" || locale == "POSIX")
    return true;
  StringRef base = locale.split('.').first;
  StringRef encoding = locale.split('.').second;
  if (!encoding.empty() && !encoding.equals_insensitive("UTF-8") &&
      !encoding.equals_insensitive("utf8"))
    return false;
  return base == "C" || base.starts_with("en_") || base == "en";
}

FailureOr<SmallVector<Value>> lowerStringNormalizer(Operation *op,
                                                    OpBuilder &b) {
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  if (!isStringTensor(x))
    return op->emitError("StringNormalizer takes a string tensor");
  auto type = requireRanked(op, x, "the input");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (rank != 1 && rank != 2)
    return op->emitError() << "StringNormalizer: the input must be [C] or "
                              "[1, C], not rank "
                           << rank;
  if (rank == 2 && !type->isDynamicDim(0) && type->getDimSize(0) != 1)
    return op->emitError() << "StringNormalizer: a 2-D input must be [1, C], "
                              "not ["
                           << type->getDimSize(0) << ", C]";
  StringRef action = "NONE";
  if (auto a = op->getAttrOfType<StringAttr>("case_change_action"))
    action = a.getValue();
  int32_t mode = action == "LOWER" ? 1 : action == "UPPER" ? 2 : 0;
  if (!mode && action != "NONE")
    return op->emitError() << "StringNormalizer: case_change_action '" << action
                           << "' is not NONE, LOWER or UPPER";
  bool caseSensitive = false;
  if (auto c = op->getAttrOfType<IntegerAttr>("is_case_sensitive"))
    caseSensitive = c.getInt() != 0;
  if (auto l = op->getAttrOfType<StringAttr>("locale"))
    if (!isSupportedLocale(l.getValue()))
      return op->emitError()
             << "StringNormalizer: locale '" << l.getValue()
             << "' is not supported (the C, POSIX and en_* locales, whose "
                "case mapping is Unicode's default one)";
  std::string words;
  int64_t numWords = 0;
  if (auto list = op->getAttrOfType<ArrayAttr>("stopwords")) {
    for (Attribute a : list) {
      auto s = dyn_cast<StringAttr>(a);
      if (!s)
        return op->emitError("StringNormalizer: stopwords must be strings");
      if (s.getValue().contains('\0'))
        return op->emitError("StringNormalizer: a stop word contains a NUL "
                             "byte");
      words += s.getValue().str();
      words.push_back('\0');
      ++numWords;
    }
  }
  Type ptr = ptrType(b.getContext());
  auto changeCase = [&](OpBuilder &nb, Location l, Value s) -> Value {
    if (!mode)
      return s;
    Value m = arith::ConstantIntOp::create(nb, l, nb.getI32Type(), mode);
    return callService(nb, l, op, ONYXRT_FN_STR_CHANGE_CASE, {s, m}, ptr);
  };

  // [1, C]: a run-time check when the leading extent is dynamic.
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
  if (rank == 2 && type->isDynamicDim(0)) {
    Value d0 = tensor::DimOp::create(b, loc, x, 0);
    Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, d0, c1);
    AssertOp::create(b, loc, ok,
                     b.getStringAttr("StringNormalizer: the input is [{0}, "
                                     "C], must be [1, C]"),
                     ValueRange{d0});
  }
  if (numWords == 0) {
    FailureOr<Value> r =
        mapStrings(op, b, ValueRange{x}, ptr,
                   [&](OpBuilder &nb, Location l, ValueRange v) {
                     return changeCase(nb, l, v[0]);
                   });
    if (failed(r))
      return failure();
    return SmallVector<Value>{*r};
  }
  // Compaction: one pass over the C elements keeps those that are not stop
  // words; the result has max(kept, 1) elements, [""] when none is kept.
  int64_t inner = rank - 1;
  Value extent = tensor::DimOp::create(b, loc, x, inner);
  Value wordsPtr =
      constantString(b, loc, op, StringRef(words.data(), words.size() - 1));
  Value count = arith::ConstantIntOp::create(b, loc, b.getI64Type(), numWords);
  Value sensitive =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), caseSensitive);
  auto element = [&](OpBuilder &nb, Location l, Value i) {
    SmallVector<Value> idx;
    if (rank == 2)
      idx.push_back(c0);
    idx.push_back(i);
    return tensor::ExtractOp::create(nb, l, x, idx).getResult();
  };
  auto isKept = [&](OpBuilder &nb, Location l, Value s) {
    Value stop = callService(nb, l, op, ONYXRT_FN_STR_IS_STOPWORD,
                             {s, wordsPtr, count, sensitive}, nb.getI32Type());
    Value zero32 = arith::ConstantIntOp::create(nb, l, nb.getI32Type(), 0);
    return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, stop, zero32)
        .getResult();
  };
  // First pass: how many are kept.
  auto countLoop = scf::ForOp::create(
      b, loc, c0, extent, c1, ValueRange{c0},
      [&](OpBuilder &nb, Location l, Value i, ValueRange iter) {
        Value keep = isKept(nb, l, element(nb, l, i));
        Value next = arith::AddIOp::create(
            nb, l, iter[0],
            arith::SelectOp::create(nb, l, keep, c1, c0).getResult());
        scf::YieldOp::create(nb, l, ValueRange{next});
      });
  Value kept = countLoop.getResult(0);
  Value width = arith::MaxUIOp::create(b, loc, kept, c1);
  SmallVector<OpFoldResult> dims;
  if (rank == 2)
    dims.push_back(b.getIndexAttr(1));
  dims.push_back(width);
  Value init = filledTensor(b, loc, dims, constantString(b, loc, op, ""));
  // Second pass: store the kept elements, case-changed, in order.
  auto fillLoop = scf::ForOp::create(
      b, loc, c0, extent, c1, ValueRange{init, c0},
      [&](OpBuilder &nb, Location l, Value i, ValueRange iter) {
        Value s = element(nb, l, i);
        Value keep = isKept(nb, l, s);
        auto ifOp = scf::IfOp::create(
            nb, l, keep,
            [&](OpBuilder &tb, Location tl) {
              SmallVector<Value> idx;
              if (rank == 2)
                idx.push_back(c0);
              idx.push_back(iter[1]);
              Value stored = tensor::InsertOp::create(
                  tb, tl, changeCase(tb, tl, s), iter[0], idx);
              Value next = arith::AddIOp::create(tb, tl, iter[1], c1);
              scf::YieldOp::create(tb, tl, ValueRange{stored, next});
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(eb, el, ValueRange{iter[0], iter[1]});
            });
        scf::YieldOp::create(nb, l, ifOp.getResults());
      });
  return SmallVector<Value>{fillLoop.getResult(0)};
}

//===----------------------------------------------------------------------===//
// Cast and CastLike
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>> castString(Operation *op, OpBuilder &b,
                                         Value input, bool toString, Type to) {
  bool fromString = isStringTensor(input);
  if (fromString && toString)
    return SmallVector<Value>{input};
  auto type = requireRanked(op, input, "the input");
  if (failed(type))
    return failure();
  Type ptr = ptrType(b.getContext());
  if (toString) {
    Type from = type->getElementType();
    auto intType = dyn_cast<IntegerType>(from);
    if (!from.isF32() && !from.isF64() && !(intType && intType.getWidth() >= 8))
      return op->emitError() << "Cast from " << from
                             << " to STRING is not supported (float, double "
                                "and 8- to 64-bit integers are)";
    FailureOr<Value> r = mapStrings(
        op, b, ValueRange{input}, ptr,
        [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
          if (from.isF32())
            return callService(nb, l, op, ONYXRT_FN_STR_FROM_F32, v, ptr);
          if (from.isF64())
            return callService(nb, l, op, ONYXRT_FN_STR_FROM_F64, v, ptr);
          Value i = toSignlessValue(nb, l, v[0]);
          bool isUnsigned = intType.isUnsigned();
          if (intType.getWidth() < 64)
            i = isUnsigned ? arith::ExtUIOp::create(nb, l, nb.getI64Type(), i)
                                 .getResult()
                           : arith::ExtSIOp::create(nb, l, nb.getI64Type(), i)
                                 .getResult();
          return callService(nb, l, op,
                             isUnsigned ? ONYXRT_FN_STR_FROM_U64
                                        : ONYXRT_FN_STR_FROM_I64,
                             {i}, ptr);
        });
    if (failed(r))
      return failure();
    return SmallVector<Value>{*r};
  }
  auto intType = dyn_cast<IntegerType>(to);
  if (!to.isF32() && !to.isF64() && !(intType && intType.getWidth() >= 8))
    return op->emitError() << "Cast from STRING to " << to
                           << " is not supported (float, double and 8- to "
                              "64-bit integers are)";
  FailureOr<Value> r = mapStrings(
      op, b, ValueRange{input}, to,
      [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        if (to.isF32())
          return callService(nb, l, op, ONYXRT_FN_STR_TO_F32, v,
                             nb.getF32Type());
        if (to.isF64())
          return callService(nb, l, op, ONYXRT_FN_STR_TO_F64, v,
                             nb.getF64Type());
        unsigned width = intType.getWidth();
        Value bits = arith::ConstantIntOp::create(nb, l, nb.getI32Type(),
                                                  int64_t(width));
        Value i = callService(nb, l, op,
                              intType.isUnsigned() ? ONYXRT_FN_STR_TO_U64
                                                   : ONYXRT_FN_STR_TO_I64,
                              {v[0], bits}, nb.getI64Type());
        if (width < 64)
          i = arith::TruncIOp::create(nb, l, nb.getIntegerType(width), i);
        return fromSignlessValue(nb, l, i, to);
      });
  if (failed(r))
    return failure();
  return SmallVector<Value>{*r};
}

FailureOr<SmallVector<Value>> lowerCast(Operation *op, OpBuilder &b) {
  auto castOp = cast<onnx::ONNXCastOp>(op);
  bool toString = castOp.getTo() == 8;
  if (!toString && !isStringTensor(castOp.getInput()))
    return previousCast(op, b);
  Type to;
  if (!toString) {
    FailureOr<Type> t = elementTypeForCode(op, castOp.getTo());
    if (failed(t))
      return failure();
    to = *t;
  }
  return castString(op, b, castOp.getInput(), toString, to);
}

FailureOr<SmallVector<Value>> lowerCastLike(Operation *op, OpBuilder &b) {
  auto castLike = cast<onnx::ONNXCastLikeOp>(op);
  bool toString = isStringTensor(castLike.getTargetType());
  if (!toString && !isStringTensor(castLike.getInput()))
    return previousCastLike(op, b);
  Type to;
  if (!toString) {
    auto like = requireRanked(op, castLike.getTargetType(), "the target_type");
    if (failed(like))
      return failure();
    to = like->getElementType();
  }
  return castString(op, b, castLike.getInput(), toString, to);
}

} // namespace

void convertStringTypes(func::FuncOp func) {
  auto fnType = func.getFunctionType();
  SmallVector<Type> inputs, results;
  bool changed = false;
  for (Type t : fnType.getInputs()) {
    inputs.push_back(convertStringType(t));
    changed |= inputs.back() != t;
  }
  for (Type t : fnType.getResults()) {
    results.push_back(convertStringType(t));
    changed |= results.back() != t;
  }
  if (changed)
    func.setFunctionType(FunctionType::get(func.getContext(), inputs, results));
  func.walk([](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(convertStringType(arg.getType()));
    for (Value result : op->getResults())
      result.setType(convertStringType(result.getType()));
  });
}

void addStringLowerings(LoweringTable &t) {
  previousConstant = t.lookup("onnx.Constant");
  previousEqual = t.lookup("onnx.Equal");
  previousCast = t.lookup("onnx.Cast");
  previousCastLike = t.lookup("onnx.CastLike");
  assert(previousConstant && previousEqual && previousCast &&
         previousCastLike &&
         "addStringLowerings runs after the elementwise lowerings");
  t["onnx.Constant"] = lowerConstant;
  t["onnx.Equal"] = lowerEqual;
  t["onnx.Cast"] = lowerCast;
  t["onnx.CastLike"] = lowerCastLike;
  t["onnx.StringConcat"] = lowerStringConcat;
  t["onnx.StringSplit"] = lowerStringSplit;
  t["onnx.StringNormalizer"] = lowerStringNormalizer;
  t["onnx.RegexFullMatch"] = lowerRegexFullMatch;
}

} // namespace onyx::conversion
