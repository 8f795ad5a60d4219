// One asynchronous copy of four floats into workgroup memory, committed as a group and waited
// for with numGroups = 0 before the read. Hand-written for corpus/nvgpu (scripts/foreign_nvgpu.sh).
func.func @single_copy(%global: memref<64xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %shared = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
  %copy = nvgpu.device_async_copy %global[%c0], %shared[%c0], 4 : memref<64xf32> to memref<4xf32, #gpu.address_space<workgroup>>
  %group = nvgpu.device_async_create_group %copy
  nvgpu.device_async_wait %group {numGroups = 0 : i32}
  %x = memref.load %shared[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
  memref.store %x, %out[%c0] : memref<4xf32>
  return
}
