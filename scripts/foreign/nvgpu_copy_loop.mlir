// An unpipelined copy loop, the input of MLIR's shared-memory copy pipeliner: each iteration
// copies four floats into its own part of a workgroup buffer, commits the copy as a group, waits
// for all groups (no numGroups) and reads them. Hand-written for corpus/nvgpu
// (scripts/foreign_nvgpu.sh).
func.func @copy_loop(%global: memref<1024xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %shared = memref.alloc() : memref<1024xf32, #gpu.address_space<workgroup>>
  %sum = scf.for %i = %c0 to %c256 step %c4 iter_args(%acc = %zero) -> f32 {
    %copy = nvgpu.device_async_copy %global[%i], %shared[%i], 4 : memref<1024xf32> to memref<1024xf32, #gpu.address_space<workgroup>>
    %group = nvgpu.device_async_create_group %copy
    nvgpu.device_async_wait %group
    %x = memref.load %shared[%i] : memref<1024xf32, #gpu.address_space<workgroup>>
    %acc_next = arith.addf %acc, %x : f32
    scf.yield %acc_next : f32
  }
  memref.store %sum, %out[%c0] : memref<4xf32>
  return
}
