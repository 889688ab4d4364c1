import triton
import triton.language as tl


x = 1 / 0
