"""Gluon test kernels: shared memory allocated, stored and loaded; a transpose through it.

`column_reads` stores a tile by rows into a plain (unswizzled) shared layout and reads it back by
columns, so the reads conflict on banks; `column_reads_swizzled` does the same through a swizzled
layout. `relayout` asks for a layout conversion with gl.convert_layout and lets the compiler route it;
`relayout_in_helper` asks for it in a helper.
"""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def _tile_offsets(BLOCK: gl.constexpr, layout: gl.constexpr):
    rows = gl.arange(0, BLOCK, layout=gl.SliceLayout(1, layout))
    cols = gl.arange(0, BLOCK, layout=gl.SliceLayout(0, layout))
    return rows[:, None] * BLOCK + cols[None, :]


@gluon.jit
def column_reads(src_ptr, dst_ptr, BLOCK: gl.constexpr):
    by_rows: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [gl.num_warps(), 1], [1, 0])
    by_cols: gl.constexpr = gl.BlockedLayout([4, 1], [4, 8], [1, gl.num_warps()], [0, 1])
    plain: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    tile = gl.load(src_ptr + _tile_offsets(BLOCK, by_rows))
    smem = gl.allocate_shared_memory(gl.float32, [BLOCK, BLOCK], plain)
    smem.store(tile)
    by_column = smem.load(by_cols)
    gl.store(dst_ptr + _tile_offsets(BLOCK, by_cols), by_column)


@gluon.jit
def column_reads_swizzled(src_ptr, dst_ptr, BLOCK: gl.constexpr):
    by_rows: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [gl.num_warps(), 1], [1, 0])
    by_cols: gl.constexpr = gl.BlockedLayout([4, 1], [4, 8], [1, gl.num_warps()], [0, 1])
    swizzled: gl.constexpr = gl.SwizzledSharedLayout(4, 2, 8, [1, 0])
    tile = gl.load(src_ptr + _tile_offsets(BLOCK, by_rows))
    smem = gl.allocate_shared_memory(gl.float32, [BLOCK, BLOCK], swizzled, tile)
    by_column = smem.load(by_cols)
    gl.store(dst_ptr + _tile_offsets(BLOCK, by_cols), by_column)


@gluon.jit
def relayout(src_ptr, dst_ptr, BLOCK: gl.constexpr):
    by_rows: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [gl.num_warps(), 1], [1, 0])
    by_cols: gl.constexpr = gl.BlockedLayout([4, 1], [4, 8], [1, gl.num_warps()], [0, 1])
    tile = gl.load(src_ptr + _tile_offsets(BLOCK, by_rows))
    moved = gl.convert_layout(tile, by_cols)
    gl.store(dst_ptr + _tile_offsets(BLOCK, by_cols), moved * 2.0)


@gluon.jit
def _to_layout(x, layout: gl.constexpr):
    return gl.convert_layout(x, layout)


@gluon.jit
def relayout_in_helper(src_ptr, dst_ptr, BLOCK: gl.constexpr):
    by_rows: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [gl.num_warps(), 1], [1, 0])
    by_cols: gl.constexpr = gl.BlockedLayout([4, 1], [4, 8], [1, gl.num_warps()], [0, 1])
    tile = gl.load(src_ptr + _tile_offsets(BLOCK, by_rows))
    moved = _to_layout(tile, by_cols)
    gl.store(dst_ptr + _tile_offsets(BLOCK, by_cols), moved * 2.0)
