"""A kernel whose text tries to inject script into an HTML report."""

import triton
import triton.language as tl


@triton.jit
def inject_kernel(x_ptr):  # </script><script>window.pwned = 1; alert(1)</script>
    # <img src=x onerror="window.pwned = 2"> & "quotes" 'too'
    tl.store(x_ptr, 1.0)
