"""The matmul tuned for Hopper: TMA tensor descriptors, a persistent grouped grid, a split epilogue."""

import triton
import triton.language as tl


@triton.jit
def _tile_position(tile, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    # Grouped order, as in sample matmul_grouped: GROUP_SIZE_M tile rows are walked column by
    # column, so the programs running at once share their A rows and B columns in L2.
    tiles_per_group = GROUP_SIZE_M * num_pid_n
    first_m = (tile // tiles_per_group) * GROUP_SIZE_M
    rows = min(num_pid_m - first_m, GROUP_SIZE_M)
    pid_m = first_m + (tile % tiles_per_group) % rows
    pid_n = (tile % tiles_per_group) // rows
    return pid_m, pid_n


@triton.jit
def matmul_tma_kernel(
    # TMA tensor descriptors (host TensorDescriptor objects): the copy engine loads each tile into
    # shared memory by itself, with no per-thread addresses, masks or registers on the way.
    a_desc, b_desc, c_desc,
    M, N, K,
    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
    NUM_SMS: tl.constexpr,  # one program per multiprocessor: the grid is persistent
    SPLIT_EPILOGUE: tl.constexpr,  # store C as two half-width tiles: half the staging memory
    FLATTEN: tl.constexpr,  # one software pipeline across tiles: the next tile's loads overlap this store
    WARP_SPECIALIZE: tl.constexpr,  # producer warps issue the loads, consumer warps the wgmma
):
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    # Each program walks the tiles NUM_SMS apart: launched once per SM, no tail of short programs.
    for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=FLATTEN, warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _tile_position(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        offs_m = pid_m * BLOCK_SIZE_M
        offs_n = pid_n * BLOCK_SIZE_N
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(k_tiles):
            # Out-of-bounds parts of a tile (past M, N or K) arrive as zeros: no masks.
            a = a_desc.load([offs_m, k * BLOCK_SIZE_K])
            b = b_desc.load([k * BLOCK_SIZE_K, offs_n])
            accumulator = tl.dot(a, b, accumulator)
        c = accumulator.to(tl.float16)
        if SPLIT_EPILOGUE:
            # (M, N) -> two (M, N/2) halves; the descriptor's block is the half tile.
            halves = tl.permute(tl.reshape(c, (BLOCK_SIZE_M, 2, BLOCK_SIZE_N // 2)), (0, 2, 1))
            left, right = tl.split(halves)
            c_desc.store([offs_m, offs_n], left)
            c_desc.store([offs_m, offs_n + BLOCK_SIZE_N // 2], right)
        else:
            # Rows and columns past M and N are clipped by the copy engine.
            c_desc.store([offs_m, offs_n], c)


# fp16 row-major 4096 x 4096 matrices on an H100 (132 SMs). A descriptor's type names its
# element type and block shape, as Triton's launcher types a host TensorDescriptor.
tritonscope_defaults = {
    "a_desc": "tensordesc<fp16[128, 64]>", "b_desc": "tensordesc<fp16[64, 256]>",
    "c_desc": "tensordesc<fp16[128, 128]>",
    "M": 4096, "N": 4096, "K": 4096,
    "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
    "NUM_SMS": 132, "SPLIT_EPILOGUE": True, "FLATTEN": True, "WARP_SPECIALIZE": False,
    "num_warps": 8, "num_stages": 3,
}


def grid(meta):
    """Persistent: one program per SM, or fewer when there are fewer tiles."""
    tiles = triton.cdiv(meta["M"], meta["BLOCK_SIZE_M"]) * triton.cdiv(meta["N"], meta["BLOCK_SIZE_N"])
    return (min(meta["NUM_SMS"], tiles),)


def make_inputs(size=4096, device="cuda"):
    """Square fp16 matrices A (size x size) and B (size x size)."""
    import torch

    a = torch.randn(size, size, device=device, dtype=torch.float16)
    b = torch.randn(size, size, device=device, dtype=torch.float16)
    return a, b


def launch(a, b, BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, SPLIT_EPILOGUE=True,
           FLATTEN=True, WARP_SPECIALIZE=False, num_warps=8, num_stages=3):
    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor

    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    c_block_n = BLOCK_SIZE_N // 2 if SPLIT_EPILOGUE else BLOCK_SIZE_N
    a_desc = TensorDescriptor.from_tensor(a, [BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = TensorDescriptor.from_tensor(b, [BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = TensorDescriptor.from_tensor(c, [BLOCK_SIZE_M, c_block_n])
    # One program per SM; under Triton's CPU interpreter any count computes the same result.
    num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count if a.is_cuda else 3
    tiles = triton.cdiv(M, BLOCK_SIZE_M) * triton.cdiv(N, BLOCK_SIZE_N)
    matmul_tma_kernel[(min(num_sms, tiles),)](
        a_desc, b_desc, c_desc, M, N, K,
        BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, BLOCK_SIZE_K=BLOCK_SIZE_K, GROUP_SIZE_M=GROUP_SIZE_M,
        NUM_SMS=num_sms, SPLIT_EPILOGUE=SPLIT_EPILOGUE, FLATTEN=FLATTEN, WARP_SPECIALIZE=WARP_SPECIALIZE,
        num_warps=num_warps, num_stages=num_stages,
    )
    return c


def reference(a, b):
    return (a.float() @ b.float()).half()


def torch_op(a, b):
    return a @ b


def work(a, b):
    (m, k), n = a.shape, b.shape[1]
    return {"flops": 2 * m * n * k, "bytes": (m * k + k * n + m * n) * a.element_size()}
