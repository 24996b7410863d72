//===- ONNXBase.td - onnx dialect, types and op base class -*- tablegen -*-===//
//
// The hand-written foundation of the `onnx` dialect: the dialect itself, the
// types ONNX graphs need beyond the builtin ones (sequences, optionals and
// the string element type), the attribute/type constraints the generated ops
// in ONNXOps.td use, and the `ONNX_Op` base class. See docs/onnx-dialect.md
// for the conventions.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_DIALECT_ONNX_ONNXBASE_TD
#define ONYX_DIALECT_ONNX_ONNXBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def ONNX_Dialect : Dialect {
  let name = "onnx";
  let cppNamespace = "::onyx::onnx";
  let summary = "ONNX operators, one op per ai.onnx operator schema";
  let description = [{
    The import-level dialect of Onyx. Each ONNX operator `Foo` of the default
    domain is the op `onnx.Foo` (C++ `ONNXFooOp`) with the schema's inputs,
    outputs and attribute names. Absent optional inputs/outputs are values of
    type `none` produced by `onnx.NoValue`; graph attributes are regions
    terminated by `onnx.Yield`.

    Symbolic dimensions of function arguments and results are recorded in
    the `onnx.dim_params` argument/result attribute, a string
    "<axis>:<name>[,<axis>:<name>...]" such as "0:batch,1:seq".
  }];

  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;

  let extraClassDeclaration = [{
    /// Name of the func argument/result attribute that records ONNX symbolic
    /// dims ("dim_param"), e.g. "0:batch,1:seq".
    static constexpr ::llvm::StringLiteral kDimParamsAttrName =
        "onnx.dim_params";
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class ONNX_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<ONNX_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def ONNX_SeqType : ONNX_Type<"Seq", "Seq"> {
  let summary = "ONNX sequence";
  let description = [{
    An ONNX `seq(T)` value: an ordered list of values of type `T` (usually
    tensors whose shapes may differ; `elementType` is then their common,
    possibly less ranked, tensor type). Example: `!onnx.Seq<tensor<?xf32>>`.
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def ONNX_OptType : ONNX_Type<"Opt", "Opt"> {
  let summary = "ONNX optional";
  let description = [{
    An ONNX `optional(T)` value: either empty or holding one value of type
    `T` (a tensor or a sequence). Example: `!onnx.Opt<tensor<2xi64>>`.
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def ONNX_StringType : ONNX_Type<"String", "String"> {
  let summary = "ONNX string element type";
  let description = [{
    The element type of ONNX `tensor(string)`, which MLIR's builtin types do
    not cover: `tensor<2x!onnx.String>`.
  }];
}

//===----------------------------------------------------------------------===//
// Constraints used by the generated ops
//===----------------------------------------------------------------------===//

// An ONNX optional input/output: always an operand/result, of type `none`
// when the node does not have it.
def ONNX_TensorOrNone : AnyTypeOf<[AnyTensor, NoneType],
                                  "tensor or none (absent optional value)">;

// ONNX INT attributes. Same IR as I64Attr (`3 : i64`), but the C++ getter
// returns int64_t (I64Attr's returns uint64_t, a trap for axis = -1).
def ONNX_I64Attr
    : SignlessIntegerAttrBase<I64, "64-bit signless integer attribute"> {
  let returnType = "int64_t";
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

//===----------------------------------------------------------------------===//
// Op base class
//===----------------------------------------------------------------------===//

// No traits by default: in particular not IsolatedFromAbove, since If/Loop/
// Scan bodies use values of the enclosing graph.
class ONNX_Op<string mnemonic, list<Trait> traits = []>
    : Op<ONNX_Dialect, mnemonic, traits>;

#endif // ONYX_DIALECT_ONNX_ONNXBASE_TD
