//===- Pipelines.cpp - The Onyx compilation pipeline ----------------------===//
//
// The one place where the stages of docs/architecture.md are strung
// together. Each builder adds one stage; onyx-compile's --emit= stops after
// a stage and prints the IR.
//
//===----------------------------------------------------------------------===//

#include "onyx/Pipelines/Pipelines.h"

#include "onyx/Dialect/ONNX/ONNXDialect.h"
#include "onyx/Dialect/Onyx/OnyxDialect.h"
#include "onyx/Target/CPU/Passes.h"
#include "onyx/Target/CUDA/CUDATarget.h"
#include "onyx/Target/CUDA/Passes.h"
#include "onyx/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

namespace onyx {

void registerOnyxDialects(DialectRegistry &registry) {
  registry.insert<onnx::ONNXDialect, OnyxDialect, func::FuncDialect,
                  arith::ArithDialect, math::MathDialect, tensor::TensorDialect,
                  linalg::LinalgDialect, memref::MemRefDialect,
                  bufferization::BufferizationDialect, scf::SCFDialect,
                  cf::ControlFlowDialect, affine::AffineDialect,
                  index::IndexDialect, ub::UBDialect, LLVM::LLVMDialect,
                  omp::OpenMPDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  registerCUDATargetDialects(registry);
}

void buildONNXCleanupPipeline(OpPassManager &pm, StringRef halfType,
                              bool f32LayerNorm, bool mergeMatMuls) {
  // Composite operators (Attention, RMSNormalization, RotaryEmbedding)
  // become the core ops of their ONNX function definitions.
  pm.addPass(createONNXDecompose());
  // A block's query, key and value projections (MatMuls of one input with
  // constant weights) become one wider MatMul and a Split; before the
  // precision conversion, which then converts the merged weights.
  if (mergeMatMuls)
    pm.addPass(createONNXMergeSiblingMatMuls());
  pm.addPass(createCanonicalizerPass());
  // --precision=fp16|bf16: after the decomposition, so that a composite's
  // statistics (RMSNormalization's ReduceMean) are ops of their own, which
  // stay f32.
  if (!halfType.empty()) {
    ONNXConvertPrecisionOptions precision;
    precision.type = halfType.str();
    precision.f32LayerNorm = f32LayerNorm;
    pm.addPass(createONNXConvertPrecision(precision));
  }
}

void buildONNXToTensorPipeline(OpPassManager &pm, bool fuseAttention,
                               bool channelsLast, bool channelsLastF32,
                               bool layerNorm) {
  // CUDA: a LayerNormalization becomes one onyx.layer_norm (one runtime
  // kernel instead of the lowering's three), with the casts around it.
  if (layerNorm)
    pm.addPass(createCUDAFormLayerNorm());
  pm.addPass(createConvertONNXToTensor());
  // Shape values computed with tensor ops become index arithmetic, so that
  // they are not payload reads (no readback, no pool-domain split).
  pm.addPass(createFoldShapeComputations());
  pm.addPass(createCanonicalizerPass());
  // Equal extents become one SSA value before bufferization.
  pm.addPass(createCSEPass());
  // CUDA: QK^T / scale / mask / softmax / PV blocks become one
  // onyx.attention (a flash-attention kernel; the scores never stored).
  if (fuseAttention) {
    pm.addPass(createCUDAFuseAttention());
    // The Q, K and V parts of one projection read in place (no copies).
    pm.addPass(createCUDAFoldHeadSplit());
    // A causal Where mask built from Ranges is computed by the kernel.
    pm.addPass(createCUDACausalMask());
  }
  // CUDA: half-precision (and with channelsLastF32, f32: TF32)
  // convolutions run in NHWC (cuDNN's tensor-core layout), the layout
  // propagated through their neighbours; before fusion, so that each
  // generic it rewrites is one ONNX op's.
  if (channelsLast) {
    CUDAChannelsLastOptions layout;
    layout.f32 = channelsLastF32;
    pm.addPass(createCUDAChannelsLast(layout));
    pm.addPass(createCanonicalizerPass());
  }
  // Dispatch regions: producer/consumer chains of generics become one
  // generic (one kernel, no intermediate buffer). After CSE, which it partly
  // undoes for linalg.fill (one fill per user bufferizes without copies).
  pm.addPass(createFuseElementwise());
  // Elementwise results overwrite inputs that die there (in place after
  // bufferization): one buffer per step of an elementwise chain.
  pm.addPass(createElementwiseInPlace());
  // CUDA: a LayerNorm's residual Add becomes the projection GEMM's
  // accumulation onto the dying stream (no buffer for the projection).
  if (layerNorm) {
    pm.addPass(createCUDAResidualAccumulate());
    pm.addPass(createCanonicalizerPass());
  }
}

void buildBufferizationPipeline(OpPassManager &pm, StringRef poolScheme,
                                StringRef target, bool tf32) {
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  // Loop-carried values whose shapes change between iterations (onnx.Loop,
  // onnx.Scan) are yielded as new buffers.
  options.allowReturnAllocsFromLoops = true;
  options.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Each destination its own tensor.empty (CSE made equal ones one value),
  // so that no buffer is shared by every layer for the whole call.
  pm.addPass(createSplitEmptyTensors());
  pm.addPass(bufferization::createOneShotBufferizePass(options));
  pm.addPass(createCanonicalizerPass());
  // Graph outputs become onyx.alloc_output, inputs onyx.get_input.
  pm.addPass(createBindEntryContext());
  pm.addPass(createCSEPass());
  // CPU: convolutions and max pools become runtime calls (im2col + BLAS,
  // direct kernels) that absorb their padding, bias and activation
  // generics; before the pooling, so that the absorbed buffers are never
  // planned (the canonicalizer drops their dead allocations) and the
  // unpadded input a call reads stays live until the call.
  if (target == "cpu") {
    pm.addPass(createCPULowerConvolutions());
    pm.addPass(createCanonicalizerPass());
  }
  // CUDA: convolutions become cuDNN calls with their epilogues and
  // symmetric input padding, for the same reasons (GEMMs stay for
  // onyx-cuda-lower-library-calls).
  if (target == "cuda") {
    CUDALowerConvolutionsOptions convolutions;
    convolutions.tf32 = tf32;
    pm.addPass(createCUDALowerConvolutions(convolutions));
    pm.addPass(createCanonicalizerPass());
  }
  // RFC Fix 2: temporaries become views into per-domain session pools.
  if (poolScheme != "none") {
    PoolAllocationsOptions poolOptions;
    poolOptions.scheme = poolScheme.str();
    pm.addPass(createPoolAllocations(poolOptions));
  }
  pm.addPass(createCanonicalizerPass());
}

/// onyx-compile --cpu-parallel-threshold=N: the least work (estimated ops)
/// of a generated loop nest run on several threads; -1: every loop serial
/// (docs/performance-cpu.md, "Parallel generated loops").
static llvm::cl::opt<int64_t> cpuParallelThreshold(
    "cpu-parallel-threshold",
    llvm::cl::desc("CPU target: least estimated op count of a generated loop "
                   "nest run on several threads (-1: all serial)"),
    llvm::cl::init(131072));

void buildCPUCodegenPipeline(OpPassManager &pm, bool profileOps) {
  // RFC Fix 3: payload scalars that host code needs become counted,
  // checked readbacks (all memory is host memory here).
  HostVisibilityOptions visibility;
  visibility.target = "cpu";
  pm.addPass(createHostVisibility(visibility));
  // Convolutions became runtime calls before the pooling
  // (buildBufferizationPipeline); GEMM-class work goes to the system BLAS,
  // the rest becomes loops.
  pm.addPass(createLowerContractionsToBLAS());
  // float16 sums and dot products accumulate in f32, rounded once.
  pm.addPass(createCPUWidenHalfReductions());
  // --profile: every op's work between the runtime's timing hooks, after
  // the passes that fold ops into library calls (they must see the ops
  // side by side).
  if (profileOps)
    pm.addPass(createCPUProfileOps());
  // Parallel dims become scf.parallel, reduction dims scf.for.
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  // Reduction loops carry their accumulator in a register (vectorizable).
  pm.addPass(createCPURegisterAccumulators());
  // Their float sums may be vectorized as partial sums (not in order).
  pm.addPass(createCPUReassociateSums());
  // Their max/min reductions run as 8 independent chains (not vectorized).
  pm.addPass(createCPUSplitMinMaxReductions());
  // Elementwise loops load operands broadcast along their innermost dim
  // (Softmax's max and sum) once per row, so that the innermost loop
  // vectorizes.
  pm.addPass(createCPUHoistInvariantLoads());
  // The outermost parallel loops with enough work run on libomp's threads
  // (onyxrt_cpu_get_threads() of them); the others stay serial loops.
  if (cpuParallelThreshold >= 0) {
    CPUParallelizeLoopsOptions parallel;
    parallel.threshold = cpuParallelThreshold;
    pm.addPass(createCPUParallelizeLoops(parallel));
  }
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // With structured control flow gone, every check is in the entry's CFG
  // and can branch to a failure exit, wherever the check came from.
  pm.addPass(createLowerRuntimeChecks());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // exp, log, pow, sqrt, sin, cos... become LLVM intrinsics (the same libm
  // calls, or sqrtss, once scalar), which the loop vectorizer maps to
  // glibc's libmvec (lib/Target/CPU/EmitArtifact.cpp); the rest (tanh,
  // erf, atan...) stay libm calls.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertOnyxToLLVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createGenerateInterface());
  pm.addPass(createCanonicalizerPass());
}

void buildCUDACodegenPipeline(OpPassManager &pm, StringRef chip, bool tf32,
                              bool profile) {
  // Store forwarding only: the CUDA passes below decide what the host reads.
  HostVisibilityOptions visibility;
  visibility.target = "cuda";
  pm.addPass(createHostVisibility(visibility));
  // GEMMs and convolutions become cuBLASLt / cuDNN calls.
  CUDALowerLibraryCallsOptions library;
  library.tf32 = tf32;
  // onyx.attention and onyx.layer_norm: the runtime's kernels.
  pm.addPass(createCUDALowerAttention());
  pm.addPass(createCUDALowerLayerNorm());
  pm.addPass(createCUDALowerLibraryCalls(library));
  // RFC Fix 3 on the CUDA target: where data lives and what the host may
  // read. Small host-only buffers stay on the host; payload scalars only
  // device code reads are copied on the device at their point; host loop
  // nests over device data run as serial kernels (their scalar results read
  // back); what host logic still reads of device data is read back, the
  // readbacks of one point adjacent (one synchronization).
  pm.addPass(createCUDAHostStackBuffers());
  pm.addPass(createCUDASnapshotDeviceScalars());
  CUDAFormSerialKernelsOptions serial;
  serial.chip = chip.str();
  pm.addPass(createCUDAFormSerialKernels(serial));
  pm.addPass(createCUDAInsertReadbacks());
  // Stage 5 for the CUDA target: every other linalg op one kernel, whose op
  // is then lowered: warp reductions, the rest grid-stride loops.
  CUDAOutlineDispatchesOptions outline;
  outline.chip = chip.str();
  pm.addPass(createCUDAOutlineDispatches(outline));
  pm.addPass(createCUDALowerReductions());
  pm.addPass(createCUDALowerDispatchLoops());
  pm.addPass(createCUDADeduplicateKernels());
  pm.addPass(createCanonicalizerPass());
  // Kernels: NVVM, then cubin + PTX.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCUDASerializeKernels());
  // Host: the CPU target's host lowering plus launches as runtime calls.
  // Structured control flow goes first, so that checks and launches inside
  // host loops (a Loop body, an RNN's steps) can branch to a failure exit.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createLowerRuntimeChecks());
  CUDALowerLaunchesOptions launches;
  launches.profile = profile;
  pm.addPass(createCUDALowerLaunches(launches));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertOnyxToLLVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createGenerateInterface());
  pm.addPass(createCanonicalizerPass());
}

void registerOnyxPassesAndPipelines() {
  registerOnyxPasses();
  registerOnyxCPUPasses();
  registerOnyxCUDAPasses();
  PassPipelineRegistration<>(
      "onyx-cpu-pipeline", "The whole ONNX -> LLVM dialect pipeline (CPU)",
      [](OpPassManager &pm) {
        buildONNXCleanupPipeline(pm);
        buildONNXToTensorPipeline(pm);
        buildBufferizationPipeline(pm, "lifetime", "cpu");
        buildCPUCodegenPipeline(pm);
      });
  PassPipelineRegistration<>("onyx-cuda-pipeline",
                             "The whole ONNX -> LLVM dialect pipeline (CUDA "
                             "kernels embedded as cubin + PTX)",
                             [](OpPassManager &pm) {
                               buildONNXCleanupPipeline(pm);
                               buildONNXToTensorPipeline(pm, true, true);
                               buildBufferizationPipeline(pm, "lifetime",
                                                          "cuda");
                               buildCUDACodegenPipeline(pm);
                             });
  // The CUDA codegen alone, on the IR of `onyx-compile --emit=buffers`
  // (scripts/gpu/compare_cuda_artifacts.py runs it on saved inputs).
  PassPipelineRegistration<>(
      "onyx-cuda-codegen-pipeline",
      "The CUDA code generation stage alone (input: --emit=buffers IR)",
      [](OpPassManager &pm) { buildCUDACodegenPipeline(pm); });
}

} // namespace onyx
