"""<script>window.__pwned_doc = 1</script><b>bold docstring</b><img src=x onerror="window.__pwned_img=1">"""

import triton
import triton.language as tl


@triton.jit
def markup_kernel(x_ptr, n, TAG: tl.constexpr, BLOCK: tl.constexpr):
    # <script>window.__pwned_comment = 1</script> <b>bold comment</b> </div></div><h1>escaped?</h1>
    offs = tl.arange(0, BLOCK)
    tl.static_print("<script>window.__pwned_print = 1</script><b>printed</b>")
    tl.device_print("<b>device</b><script>window.__pwned_device = 1</script>", offs)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)


tritonscope_defaults = {"n": 16, "BLOCK": 16, "TAG": "<script>window.__pwned_tag=1</script><b>tag</b>"}
