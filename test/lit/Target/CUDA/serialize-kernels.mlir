// REQUIRES: ptxas
// RUN: onyx-opt %s --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true}),onyx-cuda-serialize-kernels)' \
// RUN:   | FileCheck %s
// RUN: onyx-opt %s --pass-pipeline='builtin.module(gpu.module(convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true}),onyx-cuda-serialize-kernels{emit-binary=false})' \
// RUN:   | FileCheck %s --check-prefix=PTX
//
// A kernel module in the NVVM dialect becomes a gpu.binary holding the cubin
// that ptxas made for sm_90 (an ELF image) and, second, the PTX it came
// from, which the runtime hands to the driver's JIT when the cubin does not
// load. The kernel's parameters are the bare pointer and the i64 dim.
// emit-binary=false keeps only the PTX.

// CHECK:       gpu.binary @k0  [
// CHECK-SAME:    #gpu.object<#nvvm.target<O = 3, chip = "sm_90">, {{.*}}bin = "\7FELF
// CHECK-SAME:    #gpu.object<#nvvm.target<O = 3, chip = "sm_90">, assembly = "
// CHECK-SAME:    .target sm_90
// CHECK-SAME:    .visible .entry k0(
// CHECK-SAME:    .param .u64 .ptr .align 1 k0_param_0
// CHECK-SAME:    .param .u64 k0_param_1
// CHECK-NOT:   gpu.module

// PTX:         gpu.binary @k0  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, assembly = "
// PTX-SAME:      .target sm_90
// PTX-NOT:       bin = "

module attributes {gpu.container_module} {
  gpu.module @k0 [#nvvm.target<O = 3, chip = "sm_90">] {
    gpu.func @k0(%base: memref<f32>, %n: i64) kernel {
      %size = arith.index_cast %n : i64 to index
      %buf = memref.reinterpret_cast %base to offset: [0], sizes: [%size], strides: [1]
          : memref<f32> to memref<?xf32>
      %i = gpu.thread_id x
      %v = memref.load %buf[%i] : memref<?xf32>
      %e = math.exp %v : f32
      memref.store %e, %buf[%i] : memref<?xf32>
      gpu.return
    }
  }
}
