"""An atomic whose old value is used (a ticket): its wait is on the atomic, not on a load."""

import triton
import triton.language as tl


@triton.jit
def ticket_kernel(counter_ptr, out_ptr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    ticket = tl.atomic_add(counter_ptr + offsets % 4, 1)
    tl.store(out_ptr + offsets, ticket * 2)


tritonscope_defaults = {"counter_ptr": "*i32", "out_ptr": "*i32", "BLOCK": 256}
