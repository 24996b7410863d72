//===- Passes.td - The CUDA target's passes ----------------*- tablegen -*-===//
//
// The passes of lib/Target/CUDA, in the order buildCUDACodegenPipeline
// (lib/Pipelines/Pipelines.cpp) runs them; docs/cuda-backend.md describes
// each. Each has a lit test under test/lit/Target/CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_TARGET_CUDA_PASSES_TD
#define ONYX_TARGET_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def CUDAFormLayerNorm : Pass<"onyx-cuda-form-layer-norm", "mlir::ModuleOp"> {
  let summary = "onnx.LayerNormalization becomes one onyx.layer_norm";
  let description = [{
    Runs on the onnx dialect before the ONNX lowering (the CUDA pipeline;
    `onyx-compile --cuda-layer-norm=false` leaves it out). A LayerNormalization
    with an f32 / f16 / bf16 input, f32 statistics, Scale and B of exactly
    the input's trailing dims (static) and no use of Mean / InvStdDev
    becomes one `onyx.layer_norm` (one kernel instead of the lowering's
    three), which also absorbs a widening Cast before it and the narrowing
    Casts after it (`--precision=fp16|bf16`; a second output when the f32
    result has other users), and the residual `Add` before it when
    DimAnalysis proves that it does not broadcast (writing the sum when the
    graph uses it elsewhere). Anything else stays as it is
    (lib/Target/CUDA/FormLayerNorm.cpp).
  }];
  let dependentDialects = ["onyx::OnyxDialect", "mlir::tensor::TensorDialect"];
}

def CUDAResidualAccumulate
    : Pass<"onyx-cuda-residual-accumulate", "mlir::ModuleOp"> {
  let summary = "A LayerNorm's residual Add done by the projection's GEMM";
  let description = [{
    Runs on tensors after elementwise fusion (the CUDA pipeline, with
    onyx-cuda-form-layer-norm). An onyx.layer_norm whose residual Add adds
    the stream `s` to a projection (a GEMM with a zero-filled destination,
    then at most an in-place bias Add) gets the GEMM to accumulate onto `s`
    instead, when `s` is read after the GEMM by the LayerNorm alone: the
    LayerNorm reads the sum without a residual, bufferization writes the
    sum over `s` in place (one cuBLASLt call, beta = 1 and the bias
    epilogue), and the buffer the projection used to need while `s` was
    live goes (lib/Target/CUDA/ResidualAccumulate.cpp).
  }];
  let dependentDialects = ["onyx::OnyxDialect", "mlir::tensor::TensorDialect",
                           "mlir::linalg::LinalgDialect"];
}

def CUDAFuseAttention : Pass<"onyx-fuse-attention", "mlir::ModuleOp"> {
  let summary = "Attention subgraphs on tensors become one onyx.attention";
  let description = [{
    Runs on tensors after the ONNX lowering, before elementwise fusion (the
    CUDA pipeline only; the CPU target has no kernel for the op yet). The
    subgraph exporters write, `MatMul(Q, K^T)` -> scale (`Mul` / `Div` by a
    constant) -> additive mask (`Add` of any f32 tensor broadcast over
    batch, heads and queries: BERT's padding mask, GPT-2's and Llama's causal
    masks as the graph builds them) -> `Softmax` (the lowering's
    max / sum-of-exp / divide) -> `MatMul(., V)`, with the transposes and
    broadcast copies the lowering puts around the contractions, becomes one
    `onyx.attention` reading the untransposed Q, K, V and the mask; the
    scores are never materialized. Anything that does not match exactly
    stays as it is (lib/Target/CUDA/FuseAttention.cpp).
  }];
  let dependentDialects = ["onyx::OnyxDialect"];
}

def CUDAFoldHeadSplit : Pass<"onyx-cuda-fold-head-split", "mlir::ModuleOp"> {
  let summary = "onyx.attention reads the parts of a split QKV projection in place";
  let description = [{
    Runs on tensors right after onyx-fuse-attention. An attention operand
    that is a part of a fused QKV projection (the Split's extract_slice and
    copy, reshaped to [B, S, H, D]) becomes a reshape of the whole
    projection to [B, S, W / D, D] with `head_offsets` naming its first
    head, so the copy goes away (three per GPT-2 layer). Anything else
    stays as it is (lib/Target/CUDA/FoldHeadSplit.cpp).
  }];
  let dependentDialects = ["onyx::OnyxDialect", "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def CUDACausalMask : Pass<"onyx-cuda-causal-mask", "mlir::ModuleOp"> {
  let summary = "onyx.attention records that its Where mask is the causal one";
  let description = [{
    Runs on tensors after onyx-cuda-fold-head-split. An onyx.attention
    whose i1 mask (fill where false) is an elementwise comparison of the
    query index with the key index (`i >= j`, `i > j`, or the same written
    `j <= i`, `j < i`), each index an iota (`Range`) or the loop index
    itself, gets `causal_shift` (0 or -1: the mask holds `j <= i + shift`),
    so the kernel computes the mask instead of reading it and skips the key
    tiles past the diagonal. The mask operand stays (its strides say where
    it broadcasts). Anything else keeps its mask as it is
    (lib/Target/CUDA/CausalMask.cpp).
  }];
  let dependentDialects = ["onyx::OnyxDialect"];
}

def CUDAChannelsLast : Pass<"onyx-cuda-channels-last", "mlir::ModuleOp"> {
  let summary = "f16/bf16 (and, with f32, f32) convolutions and their neighbours in NHWC";
  let description = [{
    Runs on tensors after the ONNX lowering, before elementwise fusion (the
    CUDA pipeline, unless `onyx-compile --cuda-channels-last=false`). Every
    f16 / bf16 2-d convolution generic of the Conv lowering with one group
    reads and writes NHWC (cuDNN's tensor-core layout; the weights stay KCRS
    and the runtime converts them once to KRSC), and the layout is
    propagated through every linalg.generic that touches the rank-4 tensors
    around it (bias, Relu, residual Add, padding, MaxPool, casts, pooling
    reductions: maps and body reads permuted, loops interchanged), so that
    only the values that reach anything else (the graph input, a Flatten)
    are transposed, once. f32 convolutions are left alone unless `f32` is
    set (`onyx-compile --precision=tf32`, whose TF32 tensor-core
    convolutions want NHWC too, or an explicit `--cuda-channels-last`)
    (lib/Target/CUDA/ChannelsLast.cpp).
  }];
  let options = [
    Option<"f32", "f32", "bool", "false",
           "f32 convolutions too (TF32 tensor-core math wants NHWC)">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def CUDALowerAttention : Pass<"onyx-cuda-lower-attention", "mlir::ModuleOp"> {
  let summary = "onyx.attention on buffers becomes an onyxrt_cuda_attention call";
  let description = [{
    Runs with the library calls, before the kernels are formed: each
    `onyx.attention` of the bound entry becomes a call of the runtime's
    flash-attention kernel (`onyxrt_cuda_attention`) with the extents and
    element strides of every operand as arguments (a mask dim of extent 1
    gets stride 0), status checked by onyx-cuda-lower-launches.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::gpu::GPUDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect", "onyx::OnyxDialect"
  ];
}

def CUDALowerLayerNorm : Pass<"onyx-cuda-lower-layer-norm", "mlir::ModuleOp"> {
  let summary = "onyx.layer_norm on buffers becomes an onyxrt_cuda_layer_norm call";
  let description = [{
    Runs with the library calls, before the kernels are formed: each
    `onyx.layer_norm` of the bound entry becomes a call of the runtime's
    LayerNorm kernel (`onyxrt_cuda_layer_norm`) with the row count, the row
    length and the element types of input, residual, sum, outputs and
    parameters as arguments (absent operands null), status checked by
    onyx-cuda-lower-launches.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect",
    "onyx::OnyxDialect"
  ];
}

def CUDALowerLibraryCalls
    : Pass<"onyx-cuda-lower-library-calls", "mlir::ModuleOp"> {
  let summary = "GEMMs and convolutions on buffers become cuBLASLt/cuDNN calls";
  let description = [{
    Runs before the kernels are formed. Every top-level linalg op of
    the bound entry that computes `out += in0 * in1` on dense f32 buffers
    and is a (batched) GEMM after collapsing its batch, M, N and K loops
    becomes a call of `onyxrt_cuda_gemm` (cuBLASLt); the grouped convolution
    generic of the Conv lowering becomes `onyxrt_cuda_conv` (cuDNN). Dynamic
    dims are call arguments. A zero linalg.fill of the output right before
    is absorbed (the call overwrites). Host constants are passed as their
    session copy on the device (`gpu.memcpy {onyx.session_constant}`). The
    calls carry `onyx.cuda_status`; onyx-cuda-lower-launches checks them.
    Ops that do not match are left for the outlining pass.
  }];
  let options = [
    Option<"tf32", "tf32", "bool", "false",
           "Allow TF32 tensor-core arithmetic for f32 GEMMs and convolutions">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::gpu::GPUDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect", "onyx::OnyxDialect"
  ];
}

def CUDALowerConvolutions
    : Pass<"onyx-cuda-lower-convolutions", "mlir::ModuleOp"> {
  let summary = "Convolutions become cuDNN calls before the pooling";
  let description = [{
    The convolution half of onyx-cuda-lower-library-calls, run on buffers
    before onyx-pool-allocations (as onyx-cpu-lower-convolutions on the
    CPU): the grouped convolution generic of the Conv lowering, with the
    bias broadcast, Relu and residual Add + Relu around it, becomes one
    `onyxrt_cuda_conv` call, and the zero padding of its input (a generic
    that writes a padded copy) folds into the call's pads when it is
    symmetric. Run before the pooling, the buffers the call absorbs
    (padded copies, the convolution's output under a folded Relu) are
    never planned, and the unpadded input stays live until the call. The
    session copies of constant weights and biases (`onyx.alloc_temp`
    with `onyx.session_constant`) are not pooled.
  }];
  let options = [
    Option<"tf32", "tf32", "bool", "false",
           "Allow TF32 tensor-core arithmetic for f32 convolutions">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::gpu::GPUDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect", "onyx::OnyxDialect"
  ];
}

def CUDAHostStackBuffers
    : Pass<"onyx-cuda-host-stack-buffers", "mlir::ModuleOp"> {
  let summary = "Small buffers only host code touches become host stack buffers";
  let description = [{
    In a CUDA session temporaries and pools are device memory. Small static
    buffers (at most 512 elements) that only loads and stores of the entry's
    own block touch, or that are the shape operand of a memref.reshape,
    become `memref.alloca`s: the host writes and reads them without a kernel
    or a readback.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def CUDASnapshotDeviceScalars
    : Pass<"onyx-cuda-snapshot-device-scalars", "mlir::ModuleOp"> {
  let summary = "Payload scalars only device code reads are copied at their point";
  let description = [{
    A `memref.load` of a device temporary or pool view whose value only
    device code uses (kernels, or host loops that
    onyx-cuda-form-serial-kernels runs as kernels) is read there later than
    the load stood, when its buffer may hold something else. It is first
    copied, on the device and in stream order, into a temporary of its own
    (`onyx.alloc_temp` + `memref.copy`), which the device code reads. Graph
    inputs are never written: their loads stay.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "onyx::OnyxDialect"
  ];
}

def CUDAFormSerialKernels
    : Pass<"onyx-cuda-form-serial-kernels", "mlir::ModuleOp"> {
  let summary = "Host loop nests over device data become serial kernels";
  let description = [{
    A host loop nest (or a lone store) of the entry that reads or writes
    device data element by element - the CPU form of CumSum, TopK,
    NonZero, Unique, Compress, NonMaxSuppression, the scatters - becomes a
    kernel launched with one thread, its linalg ops and copies lowered to
    loops inside; its scalar results come back through a small device
    buffer and one readback (`gpu.memcpy {onyx.readback}`). An outer loop
    whose iterations write disjoint slices runs one iteration per thread
    (lb + thread * step, step * threads). The model metadata gains
    `device cuda` and `serial <node>` per node with such a kernel.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90\"",
           "NVVM target chip of the kernels">,
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block of a row-parallel serial kernel">
  ];
  let dependentDialects = [
    "mlir::gpu::GPUDialect", "mlir::NVVM::NVVMDialect",
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::ub::UBDialect", "onyx::OnyxDialect"
  ];
}

def CUDAInsertReadbacks
    : Pass<"onyx-cuda-insert-readbacks", "mlir::ModuleOp"> {
  let summary = "What host code reads of device data is read back, grouped per point";
  let description = [{
    RFC Fix 3 on the CUDA target, per use. A host op that reads device data
    it cannot leave to a kernel (a size from a shape input) reads a host
    copy made by a `gpu.memcpy {onyx.readback}`: of the whole buffer when
    it is static and small (shared by the other reads at the same point),
    else of the one element. Readbacks are issued right after the last op
    that may write device memory, so that those of one point are adjacent
    (onyx-cuda-lower-launches gives them one synchronization). Loads only
    kernels use are left to the kernels. A sequence element inserted from
    host memory is inserted from its session copy. A host op that still
    reads or writes device data, or reads a buffer that is host memory on
    one path and device memory on another, is an error naming the node.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::memref::MemRefDialect", "onyx::OnyxDialect"
  ];
}

def CUDAOutlineDispatches
    : Pass<"onyx-cuda-outline-dispatches", "mlir::ModuleOp"> {
  let summary = "Outline the entry's linalg ops into GPU kernels";
  let description = [{
    The IREE seed's dispatch outlining, one dispatch per linalg op of the
    entry outside kernels (top level or inside host control flow such as a
    Loop body; copies and named ops generalized first, a constant fill
    before a warp reduction absorbed into it as `onyx.reduction_init`).
    Each dispatch becomes a `gpu.module` holding one `gpu.func` kernel whose
    arguments are the buffer bindings (a bare base pointer per distinct
    buffer) followed by i64 scalars: the dynamic offset, sizes and strides
    of each binding (deduplicated, so a dim shared by several buffers is
    passed once) and the scalars the body captures. Inside, each binding is
    rebuilt with `memref.reinterpret_cast` and the op is cloned onto the
    rebuilt buffers, for onyx-cuda-lower-reductions and
    onyx-cuda-lower-dispatch-loops. The host launches it with
    `gpu.launch_func`, the grid computed from the dynamic dims (32 threads
    per output element for a warp reduction). Constants and external
    weights are read through their session copy on the device; host reads
    of device data that only kernels use are recomputed there. The model
    metadata gains the line `device cuda`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90\"",
           "NVVM target chip of the kernels">,
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block of every kernel">
  ];
  let dependentDialects = [
    "mlir::gpu::GPUDialect", "mlir::NVVM::NVVMDialect",
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::ub::UBDialect", "onyx::OnyxDialect"
  ];
}

def CUDALowerReductions
    : Pass<"onyx-cuda-lower-reductions", "mlir::ModuleOp"> {
  let summary = "Long f32 reductions in dispatch kernels: one warp per output element";
  let description = [{
    The op of a dispatch kernel whose body is `yield C(out, v)` with C an
    f32 add, mul, max or min, over a reduction of at least 32 points (or a
    dynamic one), becomes one warp per output element: each lane folds
    every 32nd point of the linearized reduction space into a register
    (f32 sums in f64), a `gpu.shuffle xor` butterfly combines the lanes and
    lane 0 combines the result into the output element, or into the
    absorbed fill value (`onyx.reduction_init`). A reduction over the
    innermost loop alone whose inputs are contiguous along it folds W
    points per lane step (8 f16/bf16, 4 f32) read with 16-byte vector loads
    where the run-time alignment allows.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect"
  ];
}

def CUDALowerDispatchLoops
    : Pass<"onyx-cuda-lower-dispatch-loops", "mlir::ModuleOp"> {
  let summary = "The op of each remaining dispatch kernel becomes a grid-stride loop";
  let description = [{
    The linalg op onyx-cuda-outline-dispatches put in a kernel becomes a
    grid-stride loop over its linearized parallel iteration space; each
    thread walks the reduction dims (if any) of its output elements
    serially. An all-parallel op whose outputs are contiguous along the
    innermost loop handles W points per thread (8 f16/bf16, 4 f32) with
    16-byte vector loads and stores where the run-time alignment allows,
    the scalar loop otherwise. Last, in every kernel, the bf16 <-> f32
    conversions written out with integer ops become arith.truncf / extf
    (one cvt instruction each on the GPU).
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect", "mlir::vector::VectorDialect"
  ];
}

def CUDADeduplicateKernels
    : Pass<"onyx-cuda-deduplicate-kernels", "mlir::ModuleOp"> {
  let summary = "Identical kernels are one executable";
  let description = [{
    Kernels with identical bodies and targets are one `gpu.module`, which
    the launches of the others use; the kernels left are renumbered
    `<func>_dispatch_<N>` in order.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def CUDASerializeKernels
    : Pass<"onyx-cuda-serialize-kernels", "mlir::ModuleOp"> {
  let summary = "Compile each NVVM gpu.module to a cubin plus its PTX";
  let description = [{
    Serializes every `gpu.module` (already in the NVVM dialect) through its
    `#nvvm.target` to PTX and, with `ptxas` from the CUDA toolkit, to a
    cubin, and replaces it with a `gpu.binary` holding both objects: the
    cubin (`bin`) first, the PTX (`assembly`) as the fallback the driver
    can JIT for another GPU. The toolkit is `toolkit`, else `$CUDA_HOME`,
    `$CUDA_PATH` or /usr/local/cuda.
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", "\"\"",
           "CUDA toolkit root (holds bin/ptxas and nvvm/libdevice)">,
    Option<"emitBinary", "emit-binary", "bool", "true",
           "Run ptxas (false: keep only the PTX)">
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def CUDALowerLaunches : Pass<"onyx-cuda-lower-launches", "mlir::ModuleOp"> {
  let summary = "Host side of the CUDA target: launches become runtime calls";
  let description = [{
    In the entry function, each `gpu.launch_func` becomes a call to
    `onyxrt_cuda_launch(ctx, kernel, label, grid, block, n, args)` with the
    kernel arguments packed as 8-byte slots, each `gpu.memcpy` a constant
    upload (`onyxrt_cuda_upload`, or the session's copy for
    `onyx.session_constant`) or a readback (`onyxrt_cuda_readback` into
    pinned staging, the last of a run at one point followed by the run's one
    synchronization, `onyxrt_cuda_readback_wait`); a non-zero status returns 1
    from the entry (the runtime has recorded the message naming the CUDA
    call and the node). Each `gpu.binary` becomes private constant globals
    (the cubin, the NUL-terminated PTX) and one `OnyxCudaKernel` descriptor
    per kernel. With `profile` (onyx-compile --profile), each launch is
    preceded by `onyxrt_cuda_profile_shapes(ctx, table)`: the run-time
    shapes of the buffers behind its arguments (the table format of
    `onyxrt_profile_end`), which a profiling session puts in the launch's
    trace event.
  }];
  let options = [
    Option<"profile", "profile", "bool", /*default=*/"false",
           "Pass each launch's buffer shapes to the runtime's profiler">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::cf::ControlFlowDialect",
    "mlir::func::FuncDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect"
  ];
}

#endif // ONYX_TARGET_CUDA_PASSES_TD
