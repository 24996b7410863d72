//===- Passes.td - The CPU target's own passes -------------*- tablegen -*-===//
//
// Passes of lib/Target/CPU declared here (the older ones,
// onyx-lower-contractions-to-blas among them, are in
// onyx/Transforms/Passes.td). Each has a lit test under test/lit/Target/CPU.
//
//===----------------------------------------------------------------------===//

#ifndef ONYX_TARGET_CPU_PASSES_TD
#define ONYX_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CPULowerConvolutions
    : Pass<"onyx-cpu-lower-convolutions", "mlir::ModuleOp"> {
  let summary = "Convolutions and max pooling on buffers become runtime calls";
  let description = [{
    The grouped convolution generic of the ONNX Conv lowering
    (`Y[n, g, m, o...] += X[n, g, c, o * s + t * d] * W[g, m, c, t...]` on
    dense f32 buffers with identity layouts, 1-3 spatial dims) becomes a
    call of the runtime's `onyxrt_cpu_conv_f32` (im2col + OpenBLAS sgemm,
    direct loops for depthwise convolutions), the dims in a stack array
    laid out as for onyxrt_cuda_conv. The Conv lowering's zero padding of
    the input (when nothing else reads the padded copy: the call reads the
    unpadded input with its begin pads), its bias broadcast, a Relu or Clip
    after it, a residual Add and ResNet's block tail
    `relu(conv + bias + residual)` are folded into the call when nothing
    else reads the intermediate buffers; a zero fill of the output right
    before is absorbed. The MaxPool lowering's window generic
    (`Y[n, c, o...] = maximumf(Y, X[n, c, o * s + t * d])`) becomes a call
    of `onyxrt_cpu_maxpool_f32`, the fill of Y before it the initial value.
    Other ops are left as they are.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect"
  ];
}

def CPUWidenHalfReductions
    : Pass<"onyx-cpu-widen-half-reductions", "mlir::ModuleOp"> {
  let summary = "float16 sums and dot products accumulate in f32";
  let description = [{
    A linalg op on buffers with a float16 output, reduction loops and a
    body `yield(out + x)` (MatMul, Gemm, Conv, ReduceSum, ... as the ONNX
    lowerings leave them) becomes a loop nest: the parallel loops outside,
    the reduction loops inside carrying an f32 accumulator that starts at
    the output's value, the body's float arithmetic in f32 (operands
    widened exactly), one rounding when the result is stored. What ONNX
    Runtime, PyTorch and the ONNX reference compute. Named ops are
    generalized first; other ops are left as they are.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect", "mlir::arith::ArithDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"
  ];
}

def CPURegisterAccumulators
    : Pass<"onyx-cpu-register-accumulators", "mlir::ModuleOp"> {
  let summary = "Reduction loops keep their accumulator in a register";
  let description = [{
    After convert-linalg-to-loops, a reduction's innermost loop loads and
    stores its accumulator `out[i]` (indices invariant in the loop) in every
    iteration. LLVM cannot prove that the loop's other buffers do not alias
    it (temporaries are views of one pool), so it neither keeps the value in
    a register nor vectorizes the loop (nor the exp of Softmax's sum). This
    pass rewrites such a loop (an scf.for whose body is loads, stores and
    pure arithmetic, with one load and one later store of the same buffer at
    the same loop-invariant indices, the buffer used nowhere else in the
    loop) into one load before the loop, an iter_args accumulator, and one
    store after it. Only for loops of linalg ops: their outputs never alias
    their inputs (bufferization and the memory plan keep simultaneously live
    buffers apart). The arithmetic and its order do not change.
  }];
  let dependentDialects = [
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"
  ];
}

def CPUReassociateSums : Pass<"onyx-cpu-reassociate-sums", "mlir::ModuleOp"> {
  let summary = "Float sums of reduction loops may be vectorized out of order";
  let description = [{
    After onyx-cpu-register-accumulators: an scf.for whose f32 or f64
    iter_args accumulator is updated by one `arith.addf` (acc + x, the
    accumulator used only there) gets `fastmath<reassoc>` on that add, so
    LLVM's loop vectorizer keeps vector partial sums instead of an in-order
    `llvm.vector.reduce.fadd` chain per vector. Loops with float extensions
    or truncations (f16 sums widened to f32) are left in order. A row's sum
    still runs on one thread in a fixed order: results do not depend on the
    thread count, and differ from the scalar order by rounding.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def CPUSplitMinMaxReductions
    : Pass<"onyx-cpu-split-min-max-reductions", "mlir::ModuleOp"> {
  let summary = "Max/min reduction loops as 8 independent chains";
  let description = [{
    After onyx-cpu-register-accumulators: an innermost scf.for (index
    induction variable, no nested regions) whose every iter_args
    accumulator is updated by one `arith.maximumf`, `minimumf`, `maxsi`,
    `minsi`, `maxui` or `minui` (the accumulator used only there, the
    result only by the yield) becomes a main loop of step 8 x step running
    8 copies of the body in iteration order, each with its own accumulator
    (all starting from the initial value), the 8 results combined by the
    same operation, then the original loop as the remainder. LLVM does not
    vectorize `llvm.maximum` reductions, so the loop was one dependent
    chain (Softmax's row max). Exact: these operations are associative,
    commutative and idempotent (maxnumf/minnumf are not taken).
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::scf::SCFDialect"
  ];
}

def CPUHoistInvariantLoads
    : Pass<"onyx-cpu-hoist-invariant-loads", "mlir::ModuleOp"> {
  let summary = "Loads invariant in a parallel loop's innermost dim, once "
                "per row";
  let description = [{
    After convert-linalg-to-parallel-loops: an scf.parallel whose body is
    straight-line (memref loads and stores and ops without memory effects
    or regions; every store indexed by the innermost induction variable)
    and loads, before its first store, a buffer defined outside the loop at
    indices that do not depend on the innermost induction variable
    (Softmax's `max[i]` and `sum[i]`, LayerNorm's mean, any operand
    broadcast along the last dim) becomes an scf.parallel over the outer
    dims that loads them once, around an scf.parallel over the innermost
    dim with the rest of the body (a 1-D loop: the loads go before it),
    guarded by the innermost dim being non-empty. LLVM cannot hoist such
    loads across the loop's stores itself (temporaries are views of one
    pool), and then does not vectorize the loop. Legal because
    scf.parallel iterations are race-free (a store to a hoisted load's
    location by another iteration would be a race; the loads precede the
    stores of their own iteration), which holds for linalg's loops:
    bufferization shares a buffer between an op's operands only for
    identity-map (same-iteration) accesses and the memory plan never
    overlaps live buffers. The IR's arithmetic is unchanged.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect"
  ];
}

def CPUProfileOps : Pass<"onyx-cpu-profile-ops", "mlir::ModuleOp"> {
  let summary = "Per-op timing hooks (onyx-compile --profile)";
  let description = [{
    Every op of the entry (the function taking `!onyx.context`) that does a
    node's work -- a linalg op on buffers, a memref.copy, a call of the
    runtime's CPU kernels (`onyxrt_cpu_*`) or of BLAS (`cblas_*`) -- is
    bracketed by `onyxrt_profile_begin(ctx)` and `onyxrt_profile_end(ctx,
    token, node, op kind, shapes)`: the node name from the op's location,
    the op kind (op name or callee), and a stack table of its buffers'
    shapes (count, then rank and dims of each; dynamic dims by memref.dim;
    a call's buffers found behind its pointer operands). The runtime
    records a Chrome-trace event per op while the session profiles
    (docs/runtime.md, "Profiling"). Ops nested in a profiled op are not
    bracketed again; other functions are left as they are.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect", "mlir::memref::MemRefDialect"
  ];
}

def CPUParallelizeLoops
    : Pass<"onyx-cpu-parallelize-loops", "mlir::ModuleOp"> {
  let summary = "Outermost parallel loops run on libomp's threads";
  let description = [{
    After convert-linalg-to-parallel-loops: each outermost scf.parallel
    (no reductions) whose body holds only arith, math, vector, affine index
    arithmetic, memref loads, stores and views and scf control flow becomes
    `scf.if %go { omp.parallel num_threads(%n) { omp.wsloop {
    omp.loop_nest ... } } } else { <the serial loop> }`. `%n` is
    `onyxrt_cpu_get_threads()`, called once at the function's entry; `%go`
    holds when `%n > 1`, the distributed dims have more than one
    iteration, and the work (the outer trip counts times the body's op
    count, nested loops counted trip-count times, at run time for dynamic
    shapes) exceeds `threshold`; a loop with one distributed iteration at
    compile time stays serial. Only parallel dims are
    distributed: reductions run whole on one thread in their serial order.
    A body without loops keeps its innermost dim as a serial scf.for in
    each thread (the vectorizer's loop); the other distributed dims are
    collapsed. Nested scf.parallel loops become scf.for. Loops with runtime
    calls, checks, allocations or other ops stay serial.
  }];
  let options = [
    Option<"threshold", "threshold", "int64_t", /*default=*/"131072",
           "Least estimated op count (trip counts x body ops) run in "
           "parallel">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::func::FuncDialect",
    "mlir::omp::OpenMPDialect", "mlir::scf::SCFDialect"
  ];
}

#endif // ONYX_TARGET_CPU_PASSES_TD
