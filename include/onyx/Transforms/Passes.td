//===- Passes.td - Onyx passes -----------------------------*- tablegen -*-===//
//
// Every pass of the Onyx pipeline, in pipeline order. Pipelines.cpp strings
// them together; each has a lit test under test/lit.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_TRANSFORMS_PASSES_TD
#define ONYX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ONNXDimAnalysis : Pass<"onnx-dim-analysis", "mlir::ModuleOp"> {
  let summary = "Annotate each dynamic dim with its DimAnalysis equality group";
  let description = [{
    Runs DimAnalysis (include/onyx/Analysis/DimAnalysis.h) on every function
    and inserts `onnx.DimGroup(%v) {axis, group_id}` right after the
    definition of each dynamic dim (block arguments: at the top of their
    block). Dims with the same `group_id` are proven equal at run time.
    Changes nothing else; for tests and inspection (`onyx-annotate` folds
    the groups into the types). `trace=true` prints each iteration's facts,
    the final groups and the offset relations to stderr (what
    `-debug-only=dim-analysis` prints in builds with LLVM assertions).
  }];
  let options = [
    Option<"trace", "trace", "bool", "false",
           "Print the iterations, groups and offset relations to stderr">
  ];
  let statistics = [
    Statistic<"numDynamicDims", "dynamic-dims", "Dynamic dims analyzed">,
    Statistic<"numGroups", "groups", "Equality groups of dynamic dims">,
    Statistic<"numMerges", "merges", "Unions of dim sets">,
    Statistic<"numIterations", "iterations", "Sweeps to the fixed point">
  ];
  let dependentDialects = [
    "onyx::onnx::ONNXDialect", "mlir::arith::ArithDialect", "onyx::OnyxDialect"
  ];
}

def ONNXDecompose : Pass<"onnx-decompose", "mlir::ModuleOp"> {
  let summary = "Rewrite composite ONNX operators into core onnx ops";
  let description = [{
    RMSNormalization, Attention (3-D/4-D, past key/value, grouped heads,
    masks, is_causal, softcap, nonpad_kv_seqlen, every
    qk_matmul_output_mode) and RotaryEmbedding become the core `onnx.*`
    ops of their ONNX function definitions (MatMul, Softmax, Where,
    ReduceMean, ...), so the conversion and fusion see only core ops.
    Pad-18 with axes and run-time pads gets full-rank pads. Inputs the
    rewrite cannot express (e.g. Attention-25 sliding windows) are an
    error naming the node.
  }];
  let dependentDialects = ["onyx::onnx::ONNXDialect",
                           "mlir::tensor::TensorDialect"];
}

def ONNXMergeSiblingMatMuls : Pass<"onnx-merge-sibling-matmuls",
                                   "mlir::ModuleOp"> {
  let summary = "One MatMul (and bias Add) for MatMuls of one input with "
                "constant weights, and a Split";
  let description = [{
    `Add(MatMul(X, W_i), b_i)` for several i with constant 2-D W_i (and
    1-D b_i), each result only reshaped (into heads), becomes
    `Split(Add(MatMul(X, [W_0 | W_1 ...]), [b_0 | b_1 ...]))` on the last
    axis: a transformer block's query, key and value projections as one
    GEMM, the form GPT-2's c_attn has. Inline weights
    are concatenated at compile time; external ones (`onyx.weight`) become
    one gathered `onyx.weight` (`concat_rows`, `concat_ranges`) that the
    session builds when it loads the file.
  }];
  let dependentDialects = ["onyx::onnx::ONNXDialect", "onyx::OnyxDialect"];
}

def ONNXConvertPrecision : Pass<"onnx-convert-precision", "mlir::ModuleOp"> {
  let summary = "Run an fp32 model's compute-heavy ops in f16 or bf16";
  let description = [{
    `onyx-compile --precision=fp16|bf16`. MatMul, Gemm, Conv, ConvTranspose
    and Einsum run in `type`, and so does a Gather from a constant table
    (an embedding lookup); elementwise arithmetic, bounded activations,
    data movement and local pooling extend those half islands (half when
    every f32 operand is a half value or a constant); LayerNormalization
    with f32 statistics (stash_type 1) reads and writes `type` when its
    input is half, unless `f32-layer-norm`; reductions, Softmax,
    Exp/Log/Pow, the other normalizations and every op the table in
    lib/Transforms/ConvertPrecision.cpp does not name stay f32, with
    `onnx.Cast`s at the boundaries (one per value and direction; half ->
    f32 -> half pairs removed). f32 constants feeding a half op are
    converted at compile time; one with a finite value the half type
    cannot hold keeps its consumer in f32. External weights are cast at
    run time. Graph inputs and outputs keep their types.
  }];
  let options = [
    Option<"type", "type", "std::string", "\"f16\"",
           "The half type: f16 or bf16">,
    Option<"f32LayerNorm", "f32-layer-norm", "bool", "false",
           "LayerNormalization reads and writes f32 (the residual stream "
           "around it stays f32) and Gathers from constants follow only">
  ];
  let dependentDialects = ["onyx::onnx::ONNXDialect"];
}

//===----------------------------------------------------------------------===//
// ONNX -> tensor-level destination-passing ops
//===----------------------------------------------------------------------===//

def ConvertONNXToTensor : Pass<"convert-onnx-to-tensor", "mlir::ModuleOp"> {
  let summary = "Lower onnx ops to linalg/tensor/arith and onyx ops on tensors";
  let description = [{
    Elementwise, broadcast, reduction and data-movement ops become `linalg`
    ops on tensors whose destinations are built from the shared shape
    helpers (lib/Shape). Dims that are neither provably equal nor provably 1
    are resolved at run time and checked with `onyx.assert`, so a broadcast
    mismatch is a clean error. An op this pass cannot lower is reported with
    its node name and op type.
  }];
  let options = [
    Option<"useDimAnalysis", "use-dim-analysis", "bool", "true",
           "Skip run-time broadcast checks for dims DimAnalysis proves equal">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::math::MathDialect", "mlir::tensor::TensorDialect",
    "mlir::func::FuncDialect", "mlir::scf::SCFDialect", "onyx::OnyxDialect",
    // Constant strings are llvm.mlir.globals (Strings.cpp).
    "mlir::LLVM::LLVMDialect"
  ];
}

def FoldShapeComputations
    : Pass<"onyx-fold-shape-computations", "mlir::ModuleOp"> {
  let summary = "Forward tensor.extract through the ops that computed a shape";
  let description = [{
    Exporters compute shapes with tensor ops (Shape, Gather, Div, Mul,
    Concat, Unsqueeze) whose lowered forms are small linalg.generics,
    insert_slices and reshapes; a consumer then reads the values with
    `tensor.extract`, a payload read (a readback on the GPU, a domain split
    for the memory planner). This pass forwards extracts at constant
    positions of small static tensors through elementwise generics (the
    body is evaluated on extracts of the inputs), linalg.copy, insert_slice,
    extract_slice and reshapes, down to tensor.dim / constants /
    from_elements, where upstream folds finish. Exact: a value that truly
    depends on data stays a payload read.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::tensor::TensorDialect",
    "mlir::linalg::LinalgDialect"
  ];
}

def ElementwiseInPlace : Pass<"onyx-elementwise-in-place", "mlir::ModuleOp"> {
  let summary = "Let an elementwise result overwrite an input that dies there";
  let description = [{
    For an all-parallel linalg.generic whose destination is a tensor.empty
    with the identity map and whose body ignores the destination's value,
    an input of the result's type read through the identity map and used
    nowhere else (not a function argument) becomes the destination, so that
    One-Shot Bufferize writes the result in place: a chain of elementwise
    ops then needs one buffer instead of two at every step. The same for
    onyx.layer_norm: a destination made of a tensor.empty takes the place
    of its x or residual of the same type that dies there.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def SplitEmptyTensors : Pass<"onyx-split-empty-tensors", "mlir::ModuleOp"> {
  let summary = "Give every user of a tensor.empty its own, right before it";
  let description = [{
    Runs right before One-Shot Bufferize. CSE makes equal-shaped
    `tensor.empty`s one value (every layer's attention or LayerNorm output
    of a transformer), which bufferizes as one buffer written in place by
    every layer and so lives from the first layer to the last in the
    memory plan. Every use after the first in the empty's block gets its
    own clone created right before the user, so each buffer lives only
    from its user to its last reader (uses inside nested regions keep the
    original).
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

//===----------------------------------------------------------------------===//
// After bufferization: bind the graph function to the runtime
//===----------------------------------------------------------------------===//

def BindEntryContext : Pass<"onyx-bind-entry-context", "mlir::ModuleOp"> {
  let summary = "Turn the bufferized graph function into the runtime entry";
  let description = [{
    Rewrites the bufferized graph function `@main_graph(memref...) ->
    memref...` into `@onyx_main(%ctx: !onyx.context) -> i32`:
    arguments become `onyx.get_input`, the allocation of every returned
    buffer becomes `onyx.alloc_output` (a copy is inserted when the returned
    buffer was not allocated by the function itself), other allocations
    become `onyx.alloc_temp`, and the function returns 0. The graph's
    signature (names, element types, dims, symbolic dims) is recorded in the
    module attribute `onyx.model_metadata` in the runtime's text format.
  }];
  let options = [
    Option<"funcName", "func-name", "std::string", "\"main_graph\"",
           "Name of the graph function">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "onyx::OnyxDialect"
  ];
}

def PoolAllocations : Pass<"onyx-pool-allocations", "mlir::ModuleOp"> {
  let summary = "Pack the entry's temporaries into session pools by liveness";
  let description = [{
    RFC Fix 2. Each `onyx.alloc_temp` of the entry function becomes a
    `memref.view` into `onyx.get_pool(%ctx, %size) {domain_id = N}`.
    Domains group allocations whose sizes are computable at one anchor (a
    size that needs a memory read splits them). Static sizes get offsets by
    best fit over lifetimes; run-time sizes are grouped when their lifetimes
    are disjoint, sharing one offset with a slab that is the run-time
    maximum (`arith.maxui`) of their aligned footprints, or no maximum when
    the sizes are provably equal. `scheme=iree` shares run-time sizes only
    within one size class, for comparison. Graph outputs never enter a pool.

    With `placement=runtime` (the default) a lifetime-scheme domain that has
    run-time sizes is laid out by the runtime at each call's actual sizes
    (`onyx.place_temps`): which of two run-time sizes is larger can depend on
    the shape, so no compile-time grouping is best at every shape. The
    compile-time plan travels with the op and is used whenever it is smaller.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "256",
           "Alignment of every temporary in bytes">,
    Option<"scheme", "scheme", "std::string", "\"lifetime\"",
           "lifetime (Onyx) or iree (share only equal run-time sizes)">,
    Option<"placement", "placement", "std::string", "\"runtime\"",
           "where a domain with run-time sizes is laid out: runtime "
           "(onyx.place_temps: best fit at the call's actual sizes, never "
           "above the compile-time plan) or compile (offsets and slabs as "
           "arith ops); scheme=iree and static-only domains always use "
           "compile">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "onyx::OnyxDialect"
  ];
}

def HostVisibility : Pass<"onyx-host-visibility", "mlir::ModuleOp"> {
  let summary = "Decide how each payload scalar that host code needs becomes host-visible";
  let description = [{
    RFC Fix 3, backend half. For every `memref.load` of the entry function
    (outside kernels) whose value reaches an allocation or view size, a loop
    bound or condition, a branch or a check: proven host-visible buffers
    (constants, stack buffers, external weights) are left alone; on the CPU
    the load becomes `onyx.readback_scalar`, the first of each run of
    readbacks at the same point carrying the synchronization; on cuda the
    loads are left to onyx-cuda-outline-dispatches, which reads back what
    host logic needs, runs host loops over device data as one-thread
    kernels and rejects what it cannot make visible.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"cpu\"",
           "cpu (readbacks) or cuda (left to the CUDA outliner)">
  ];
  let dependentDialects = ["onyx::OnyxDialect", "mlir::memref::MemRefDialect"];
}

def LowerRuntimeChecks : Pass<"onyx-lower-runtime-checks", "mlir::ModuleOp"> {
  let summary = "Turn onyx.assert and allocation failures into early returns";
  let description = [{
    In the entry function, each `onyx.assert` becomes a conditional branch to
    a block that reports the formatted message through `onyxrt_fail` and
    returns 1; each `onyx.alloc_output`/`onyx.alloc_temp` is followed by a
    null check that returns 1 (the runtime has recorded the message). No
    dependent op runs after a failure. Checks nested in loops are rejected.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::cf::ControlFlowDialect",
    "mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect"
  ];
}

//===----------------------------------------------------------------------===//
// CPU codegen
//===----------------------------------------------------------------------===//

def LowerContractionsToBLAS
    : Pass<"onyx-lower-contractions-to-blas", "mlir::ModuleOp"> {
  let summary = "Run matmul-shaped linalg.generic ops through the system BLAS";
  let description = [{
    CPU target. A contraction `linalg.generic` on memrefs with loops
    (batch..., m, n, k), f32/f64 multiply-accumulate body and identity
    layouts becomes, per batch index, one `onyxrt_cpu_sgemm` /
    `onyxrt_cpu_dgemm` call (cblas_sgemm/dgemm split across the CPU thread
    pool by the runtime) on the 2-D slices (transposes from the indexing
    maps, leading dimensions from the strides; batch dims broadcast by a
    constant-0 map stay at offset 0). Empty products skip the call. Other
    contractions stay loops.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

def ConvertOnyxToLLVM : Pass<"onyx-convert-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower the host program (func/cf/arith/math/memref/onyx) to LLVM";
  let description = [{
    One full conversion to the LLVM dialect with the upstream patterns plus
    the onyx runtime-call patterns: `get_input`, `alloc_output` and
    `alloc_temp` become calls to `onyxrt_*` that produce memref descriptors;
    `!onyx.context` becomes `!llvm.ptr`.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def GenerateInterface : Pass<"onyx-generate-interface", "mlir::ModuleOp"> {
  let summary = "Emit the artifact's exported C entry points and metadata";
  let description = [{
    Adds, in the LLVM dialect, the metadata string, the model descriptor and
    the exported functions `onyx_state_create`, `onyx_state_destroy`,
    `inference_compute(state, inputs)` and `onyx_model_metadata`, which call
    into the runtime library with the descriptor of this model.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

// The CUDA target's passes (lib/Target/CUDA) are declared in
// onyx/Target/CUDA/Passes.td.

def FuseElementwise : Pass<"onyx-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Fuse producer/consumer chains of linalg generics on tensors";
  let description = [{
    Dispatch regions before bufferization: an all-parallel producer generic
    is inlined into its consumer (elementwise, broadcasting or reduction)
    with upstream's elementwise fusion when the consumer is its only user,
    or when it is cheap and every user can take a copy; producers read
    through a broadcasting map must be cheap. Contractions, convolutions and
    the epilogues the CUDA library calls absorb (bias Add, Relu, residual
    Add + Relu) stay whole. Transposes, broadcasts and copies feeding a
    fusable consumer are generalized first; `tensor.extract` at the loop
    indices of a same-shaped tensor becomes an input operand. A
    `linalg.fill` shared by several ops is cloned per user, so that each
    bufferizes in place instead of as a copy of one filled buffer.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect"
  ];
}

#endif // ONYX_TRANSFORMS_PASSES_TD
