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
  }];
  let arguments = (ins StrAttr:$location, I64Attr:$offset, I64Attr:$length,
                       I64Attr:$checksum);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Onyx_WeightBufferOp : Onyx_Op<"weight_buffer", [Pure]> {
  let summary = "the read-only buffer of an external weight";
  let arguments = (ins StrAttr:$location, I64Attr:$offset, I64Attr:$length,
                       I64Attr:$checksum);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Onyx_GetWeightOp : Onyx_Op<"get_weight", [Pure]> {
  let summary = "the session's mapped copy of external weight `index`";
  let arguments = (ins Onyx_ContextType:$context, I64Attr:$index);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "$context `[` $index `]` attr-dict `:` type($result)";
}

#endif // ONYX_DIALECT_ONYX_ONYXOPS_TD
