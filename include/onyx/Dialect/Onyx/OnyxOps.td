//===- OnyxOps.td - The onyx dialect -----------------------*- tablegen -*-===//
//
// Runtime-facing ops: graph inputs/outputs bound to the per-call context,
// temporaries, run-time checks. Ops here are target independent; each
// backend lowers them to calls into its runtime.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_DIALECT_ONYX_ONYXOPS_TD
#define ONYX_DIALECT_ONYX_ONYXOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.td"

def Onyx_Dialect : Dialect {
  let name = "onyx";
  let cppNamespace = "::onyx";
  let summary = "Onyx runtime-facing ops";
  let useDefaultTypePrinterParser = 1;
}

class Onyx_Type<string name, string typeMnemonic> : TypeDef<Onyx_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Onyx_ContextType : Onyx_Type<"Context", "context"> {
  let summary = "the per-call runtime context";
  let description = [{
    An opaque handle to the runtime's per-call state: bound inputs, output
    slots, temporaries and the error record. The entry function receives it
    as its only argument.
  }];
}

def Onyx_SequenceType : Onyx_Type<"Sequence", "sequence"> {
  let summary = "a run-time ONNX sequence of tensors (docs/sequences.md)";
  let description = [{
    An opaque handle to an immutable, call-owned sequence of tensors of one
    element type (`elementType`, a scalar type such as `f32`). Length, ranks
    and shapes of the elements are run-time properties. Sequence ops never
    modify a sequence: they return new handles that share the (immutable)
    element buffers. Not a tensor, so bufferization and scf carry it as is.
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def Onyx_OptionalType : Onyx_Type<"Optional", "optional"> {
  let summary = "a run-time ONNX optional (docs/sequences.md)";
  let description = [{
    An opaque handle that is either empty or holds a value. `payloadType` is
    a scalar element type (an optional tensor, whose value is stored as a
    one-element sequence) or an `!onyx.sequence` (an optional sequence).
  }];
  let parameters = (ins "::mlir::Type":$payloadType);
  let assemblyFormat = "`<` $payloadType `>`";
}

class Onyx_Op<string mnemonic, list<Trait> traits = []>
    : Op<Onyx_Dialect, mnemonic, traits>;

def Onyx_AssertOp : Onyx_Op<"assert"> {
  let summary = "run-time check that fails the inference call";
  let description = [{
    When `condition` is false, the inference call stops and returns an error
    whose text is `message` with `{0}`..`{3}` replaced by the values of
    `args`. Unlike `cf.assert`, a failure never aborts the process. This op
    is target independent and needs no context: the backend binds it to the
    call's context when it lowers the entry function.
  }];
  let arguments = (ins I1:$condition, StrAttr:$message,
                       Variadic<AnySignlessIntegerOrIndex>:$args);
  let assemblyFormat = [{
    $condition `,` $message (`(` $args^ `:` type($args) `)`)? attr-dict
  }];
  let hasVerifier = 1;
  let hasCanonicalizeMethod = 1;
}

def Onyx_GetInputOp : Onyx_Op<"get_input", [Pure]> {
  let summary = "the buffer of graph input `index`";
  let arguments = (ins Onyx_ContextType:$context, I64Attr:$index);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$context `[` $index `]` attr-dict `:` type($result)";
}

def Onyx_AllocOutputOp : Onyx_Op<"alloc_output",
    [MemoryEffects<[MemAlloc]>]> {
  let summary = "allocate graph output `index`, owned by the caller";
  let description = [{
    Graph outputs are allocated by the runtime on behalf of the caller and
    are never part of a memory pool. `dynamicSizes` gives the dynamic
    extents in order.
  }];
  let arguments = (ins Onyx_ContextType:$context, I64Attr:$index,
                       Variadic<Index>:$dynamicSizes);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = [{
    $context `[` $index `]` (`(` $dynamicSizes^ `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Onyx_AllocTempOp : Onyx_Op<"alloc_temp", [MemoryEffects<[MemAlloc]>]> {
  let summary = "allocate a temporary owned by the current call";
  let description = [{
    A temporary released by the runtime when the call ends at the latest.
  }];
  let arguments = (ins Onyx_ContextType:$context, Variadic<Index>:$dynamicSizes);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = [{
    $context (`(` $dynamicSizes^ `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Onyx_GetPoolOp : Onyx_Op<"get_pool", [MemoryEffects<[MemAlloc]>]> {
  let summary = "the session pool of one dominance domain, at least `size` bytes";
  let description = [{
    Returns the session-owned pool of domain `domain_id`, grown to at least
    `size` bytes (256-byte aligned base). Pools persist across calls and are
    released with the session. Temporaries of the domain are `memref.view`s
    into it at offsets chosen by `onyx-pool-allocations`.
  }];
  let arguments = (ins Onyx_ContextType:$context, Index:$size,
                       I64Attr:$domain_id);
  let results = (outs MemRefRankOf<[I8], [1]>:$result);
  let assemblyFormat = [{
    $context `,` $size attr-dict `:` type($result)
  }];
}

def Onyx_PlaceTempsOp : Onyx_Op<"place_temps", [MemoryEffects<[MemAlloc]>]> {
  let summary = "place a domain's temporaries at run time, at their actual sizes";
  let description = [{
    The run-time half of `onyx-pool-allocations{placement=runtime}`. Every
    aligned byte size of the domain's temporaries is known at the domain's
    anchor, so the runtime places them there: best fit by lifetime (largest
    first, into the smallest gap left by lifetime-overlapping placed ones)
    at this call's sizes, compared with the compile-time plan evaluated at
    the same sizes (`groups`: the compile-time group of each temporary, -1
    for one in the static region at `static_offsets`, which is
    `static_bytes` long); the smaller layout wins, so the result never asks
    for more than the compile-time plan. Returns the domain's pool, grown to
    the layout's size, and one byte offset per temporary. The layout is
    cached per domain and reused while the sizes repeat. The runtime also
    records each temporary for the memory statistics (as `onyx.record_temp`).
  }];
  let arguments = (ins Onyx_ContextType:$context, Variadic<Index>:$bytes,
                       I64Attr:$domain_id, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$groups,
                       DenseI64ArrayAttr:$static_offsets, I64Attr:$static_bytes);
  let results = (outs MemRefRankOf<[I8], [1]>:$pool, Variadic<Index>:$offsets);
  let assemblyFormat = [{
    $context `(` $bytes `)` attr-dict `:` type($pool) `,` type($offsets)
  }];
  let hasVerifier = 1;
}

def Onyx_HostSyncOp : Onyx_Op<"host_sync", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "one host synchronization for the readbacks that follow";
  let description = [{
    Placed by `onyx-host-visibility` before a host loop that only reads model
    buffers (a loop of checks over computed indices): the loop's readbacks
    then need no synchronization of their own. Lowered like the `sync` of
    `onyx.readback_scalar`: `onyxrt_host_sync` and a failure exit.
  }];
  let arguments = (ins Onyx_ContextType:$context);
  let assemblyFormat = "$context attr-dict";
}

def Onyx_ReadbackScalarOp : Onyx_Op<"readback_scalar",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "make one payload scalar visible to host code and read it";
  let description = [{
    RFC Fix 3: a `memref.load` whose value host code needs (an allocation
    size, a loop bound or condition, a branch, a check) and whose buffer was
    produced by the model, after `onyx-host-visibility` decided how the
    value becomes host-visible. With `sync`, the runtime first synchronizes
    with everything the model has launched (`onyxrt_host_sync`: on the CPU
    a counted no-op, on a device a stream synchronization) and a failure
    makes the call return its error before any dependent op runs; without
    it the op shares the synchronization of an earlier readback at the same
    point. The memory effects keep it in place: it must not be hoisted or
    merged with another read.
  }];
  let arguments = (ins Onyx_ContextType:$context, AnyMemRef:$memref,
                       Variadic<Index>:$indices, BoolAttr:$sync);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $context `,` $memref `[` $indices `]` attr-dict `:` type($memref) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Onyx_RecordTempOp : Onyx_Op<"record_temp"> {
  let summary = "report one planned temporary to the runtime's memory stats";
  let description = [{
    Tells the runtime the lifetime (`start`, `end`: positions in the entry
    function) and the aligned byte size of one temporary at this call's
    shapes, so that `max_live_bytes` and `unpacked_bytes` can be measured
    for the actual input. Emitted by `onyx-pool-allocations`.
  }];
  let arguments = (ins Onyx_ContextType:$context, Index:$bytes,
                       I64Attr:$start, I64Attr:$end, I64Attr:$domain_id);
  let assemblyFormat = [{
    $context `,` $bytes attr-dict
  }];
}

def Onyx_WeightOp : Onyx_Op<"weight", [Pure,
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferize", "bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "getAliasingValues", "isWritable"]>]> {
  let summary = "a tensor loaded from the model's external weights file";
  let description = [{
    An initializer kept out of the artifact (`onyx-compile
    --external-weights`): `length` bytes at `offset` in the file `location`
    (relative to the artifact), with an FNV-1a 64-bit `checksum` of those
    bytes when the file was present at compile time (0: size check only).
    The session maps the file once, at creation. Bufferizes to a read-only
    `onyx.weight_buffer`.

    With `concat_rows` and `concat_ranges` (onnx-merge-sibling-matmuls:
    several MatMuls' weights as one), the tensor is gathered by the session
    when it loads the file from several ranges of it, row by row: the range
    (`offset`, `length`, `checksum`) and then each [offset, length, checksum]
    triple of `concat_ranges` hold `concat_rows` rows each, and row r of the
    tensor is row r of every range in that order.
  }];
  let arguments = (ins StrAttr:$location, I64Attr:$offset, I64Attr:$length,
                       I64Attr:$checksum, OptionalAttr<I64Attr>:$concat_rows,
                       OptionalAttr<DenseI64ArrayAttr>:$concat_ranges);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Onyx_WeightBufferOp : Onyx_Op<"weight_buffer", [Pure]> {
  let summary = "the read-only buffer of an external weight";
  let description = [{
    `onyx.weight` after bufferization (the same attributes).
  }];
  let arguments = (ins StrAttr:$location, I64Attr:$offset, I64Attr:$length,
                       I64Attr:$checksum, OptionalAttr<I64Attr>:$concat_rows,
                       OptionalAttr<DenseI64ArrayAttr>:$concat_ranges);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Onyx_GetWeightOp : Onyx_Op<"get_weight", [Pure]> {
  let summary = "the session's mapped copy of external weight `index`";
  let arguments = (ins Onyx_ContextType:$context, I64Attr:$index);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "$context `[` $index `]` attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Sequences and optionals (docs/sequences.md). Target independent; the CPU
// backend lowers them to onyxrt_seq_* calls (runtime/src/Sequence.cpp).
// Fallible ops (positions, absent optionals) report through the runtime
// with the node's name and make the call return its error.
//===----------------------------------------------------------------------===//

def Onyx_SeqEmptyOp : Onyx_Op<"seq_empty", [Pure]> {
  let summary = "an empty sequence";
  let results = (outs Onyx_SequenceType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Onyx_SeqLengthOp : Onyx_Op<"seq_length", [Pure]> {
  let summary = "the number of elements of a sequence";
  let arguments = (ins Onyx_SequenceType:$sequence);
  let results = (outs Index:$result);
  let assemblyFormat = "$sequence attr-dict `:` type($sequence)";
}

def Onyx_SeqInsertOp : Onyx_Op<"seq_insert", [
    AllTypesMatch<["sequence", "result"]>,
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferize", "bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "getAliasingValues"]>]> {
  let summary = "a new sequence with a copy of `element` inserted";
  let description = [{
    ONNX SequenceInsert: the result is `sequence` with a copy of `element`
    inserted before `position` (ONNX range [-n, n], negative from the back;
    absent: at the back). `sequence` stays valid and unchanged. The element
    is a tensor before bufferization and an identity-layout buffer after.
  }];
  let arguments = (ins Onyx_SequenceType:$sequence,
                       AnyTypeOf<[AnyRankedTensor, AnyMemRef]>:$element,
                       Optional<I64>:$position);
  let results = (outs Onyx_SequenceType:$result);
  let assemblyFormat = [{
    $sequence `,` $element (`[` $position^ `]`)? attr-dict `:`
    type($sequence) `,` type($element)
  }];
  let hasVerifier = 1;
}

def Onyx_SeqAtOp : Onyx_Op<"seq_at", [
    DeclareOpInterfaceMethods<BufferizableOpInterface,
        ["bufferize", "bufferizesToMemoryRead", "bufferizesToMemoryWrite",
         "getAliasingValues", "isWritable"]>]> {
  let summary = "the element at `position` (ONNX range [-n, n - 1])";
  let description = [{
    ONNX SequenceAt. The element must have the result's rank (checked at
    run time, as is the position). Bufferizes to a read-only view of the
    element's storage: writers get a copy.
  }];
  let arguments = (ins Onyx_SequenceType:$sequence, I64:$position);
  let results = (outs AnyTypeOf<[AnyRankedTensor, AnyMemRef]>:$result);
  let assemblyFormat = [{
    $sequence `[` $position `]` attr-dict `:` type($sequence) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Onyx_SeqEraseOp : Onyx_Op<"seq_erase",
    [AllTypesMatch<["sequence", "result"]>]> {
  let summary = "a new sequence without the element at `position`";
  let description = [{
    ONNX SequenceErase: `position` in [-n, n - 1]; absent: the last element.
  }];
  let arguments = (ins Onyx_SequenceType:$sequence, Optional<I64>:$position);
  let results = (outs Onyx_SequenceType:$result);
  let assemblyFormat = [{
    $sequence (`[` $position^ `]`)? attr-dict `:` type($sequence)
  }];
}

def Onyx_OptionalNoneOp : Onyx_Op<"optional_none", [Pure]> {
  let summary = "an empty optional";
  let results = (outs Onyx_OptionalType:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Onyx_OptionalWrapOp : Onyx_Op<"optional_wrap", [Pure]> {
  let summary = "an optional holding `value`";
  let description = [{
    For an optional sequence, `value` is the sequence; for an optional
    tensor, a one-element sequence holding the tensor.
  }];
  let arguments = (ins Onyx_SequenceType:$value);
  let results = (outs Onyx_OptionalType:$result);
  let assemblyFormat = "$value attr-dict `:` type($value) `->` type($result)";
}

def Onyx_OptionalUnwrapOp : Onyx_Op<"optional_unwrap"> {
  let summary = "the value of a non-empty optional (run-time error if empty)";
  let arguments = (ins Onyx_OptionalType:$optional);
  let results = (outs Onyx_SequenceType:$result);
  let assemblyFormat = [{
    $optional attr-dict `:` type($optional) `->` type($result)
  }];
}

def Onyx_OptionalHasOp : Onyx_Op<"optional_has", [Pure]> {
  let summary = "whether an optional holds a value";
  let arguments = (ins Onyx_OptionalType:$optional);
  let results = (outs I1:$result);
  let assemblyFormat = "$optional attr-dict `:` type($optional)";
}

def Onyx_GetInputValueOp : Onyx_Op<"get_input_value", [Pure]> {
  let summary = "graph input `index` of sequence or optional type";
  let description = [{
    The runtime's sequence view of the caller's input (elements borrow the
    caller's tensors; an absent optional is the empty handle).
  }];
  let arguments = (ins Onyx_ContextType:$context, I64Attr:$index);
  let results = (outs AnyTypeOf<[Onyx_SequenceType, Onyx_OptionalType]>:$result);
  let assemblyFormat = "$context `[` $index `]` attr-dict `:` type($result)";
}

def Onyx_SetOutputValueOp : Onyx_Op<"set_output_value"> {
  let summary = "makes a sequence or optional graph output `index`";
  let description = [{
    Copies the elements into the caller's output value (a sequence, a
    tensor or an empty optional, as the metadata declares).
  }];
  let arguments = (ins Onyx_ContextType:$context, I64Attr:$index,
                       AnyTypeOf<[Onyx_SequenceType, Onyx_OptionalType]>:$value);
  let assemblyFormat = [{
    $context `[` $index `]` `,` $value attr-dict `:` type($value)
  }];
}

#endif // ONYX_DIALECT_ONYX_ONYXOPS_TD
