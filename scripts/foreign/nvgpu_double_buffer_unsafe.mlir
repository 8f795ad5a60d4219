// A hand-pipelined loop over %n tiles of four floats with two workgroup slots (memref.subview of
// one 2x4 allocation): iteration i copies tile i+1 into slot (i+1) mod 2, commits it as a group,
// waits, and reads tile i from slot i mod 2. The prologue copies tile 0; the epilogue drains the
// last group. numGroups = 2 is too large: the groups of tiles i and i+1 may both stay in flight, so the read of slot i mod 2 may see tile i incomplete.
// Hand-written for corpus/nvgpu (scripts/foreign_nvgpu.sh).
func.func @double_buffer(%global: memref<1024xf32>, %out: memref<4xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %shared = memref.alloc() : memref<2x4xf32, #gpu.address_space<workgroup>>
  %slot0 = memref.subview %shared[0, 0] [1, 4] [1, 1] : memref<2x4xf32, #gpu.address_space<workgroup>> to memref<4xf32, strided<[1]>, #gpu.address_space<workgroup>>
  %first = nvgpu.device_async_copy %global[%c0], %slot0[%c0], 4 : memref<1024xf32> to memref<4xf32, strided<[1]>, #gpu.address_space<workgroup>>
  %first_group = nvgpu.device_async_create_group %first
  %sum, %last = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %pending = %first_group) -> (f32, !nvgpu.device.async.token) {
    %next = arith.addi %i, %c1 : index
    %next_slot = arith.remui %next, %c2 : index
    %next_offset = arith.muli %next, %c4 : index
    %next_view = memref.subview %shared[%next_slot, 0] [1, 4] [1, 1] : memref<2x4xf32, #gpu.address_space<workgroup>> to memref<4xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
    %copy = nvgpu.device_async_copy %global[%next_offset], %next_view[%c0], 4 : memref<1024xf32> to memref<4xf32, strided<[1], offset: ?>, #gpu.address_space<workgroup>>
    %group = nvgpu.device_async_create_group %copy
    nvgpu.device_async_wait %pending {numGroups = 2 : i32}
    %slot = arith.remui %i, %c2 : index
    %x = memref.load %shared[%slot, %c0] : memref<2x4xf32, #gpu.address_space<workgroup>>
    %acc_next = arith.addf %acc, %x : f32
    scf.yield %acc_next, %group : f32, !nvgpu.device.async.token
  }
  nvgpu.device_async_wait %last {numGroups = 0 : i32}
  memref.store %sum, %out[%c0] : memref<4xf32>
  return %sum : f32
}
