"""A one-element constant a compiled function makes with `torch.tensor(v, device="cuda")`, lifted on
the device as a GPU lifts it, so that Inductor names the kernels using it as a GPU run does.

With a GPU, torch builds the constant on the device and lifts it there: the graph torch.compile
traces reads it (`get_attr`) and lifts it (`aten.lift_fresh`) as a CUDA tensor. The simulated GPU's
fake modes avoid device initialisation (torch_cuda.py: no operator may run for real on a CUDA
constant), so torch builds and lifts the constant on the host, then moves it (`prims.device_put`,
from `aten._to_copy`). Inductor folds either into one `aten.full` on the device
(constant_fold_uniform_value), but its kernel is named after the node the `full` replaced: the
move here (`..._to_copy...`), the lift on a GPU (`..._lift_fresh...`). Just before that folding the
move is taken out and the lift given the device tensor the move made: the GPU's graph, with the
value still on the host, where the folding computes it (inductor.py). A lift that the folding left
(it folds only what it can write as one `full`) gets its move back, so that no host tensor reaches
the device's code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_UNSIGNED = ("uint8", "uint16", "uint32", "uint64")  # integers the folding leaves as they are


@dataclass
class _Move:
    """A move taken out of the graph: the lift it followed, and how to put it back."""

    lift: Any
    host_value: Any
    target: Any
    args: tuple
    kwargs: dict
    meta: dict


def install(joint_graph) -> None:
    """Wrap joint_graph's constant folding (looked up by its name when the joint passes run)."""
    original = joint_graph.constant_fold_uniform_value

    def constant_fold_uniform_value(gm, *args, **kwargs):
        moves = lift_on_the_device(gm.graph)
        try:
            return original(gm, *args, **kwargs)
        finally:
            _put_back(gm.graph, moves)

    joint_graph.constant_fold_uniform_value = constant_fold_uniform_value


def lift_on_the_device(graph) -> list[_Move]:
    """Each host lift of a one-element constant followed only by its move to the device becomes the
    lift on the device; the moves taken out, to put back where the folding leaves the lift."""
    import torch

    moves_to_device = (torch.ops.prims.device_put.default, torch.ops.aten._to_copy.default)
    moves = []
    for lift in list(graph.find_nodes(op="call_function", target=torch.ops.aten.lift_fresh_copy.default)):
        source, on_host = lift.args[0], lift.meta.get("val")
        if getattr(source, "op", None) != "get_attr" or len(lift.users) != 1:
            continue
        (move,) = lift.users
        moved = move.meta.get("val")
        if move.target not in moves_to_device or not _same_scalar_on_device(on_host, moved):
            continue
        moves.append(_Move(lift, on_host, move.target, move.args, dict(move.kwargs), dict(move.meta)))
        lift.meta["val"] = moved
        move.replace_all_uses_with(lift)
        graph.erase_node(move)
    return moves


def _same_scalar_on_device(on_host, moved) -> bool:
    import torch

    tensors = isinstance(on_host, torch.Tensor) and isinstance(moved, torch.Tensor)
    if not tensors or on_host.device.type != "cpu" or moved.device.type == "cpu":
        return False
    return on_host.numel() == 1 and moved.dtype == on_host.dtype and str(moved.dtype)[6:] not in _UNSIGNED


def _put_back(graph, moves: list[_Move]) -> None:
    for move in moves:
        lift = move.lift
        if lift._erased or not lift.users:
            continue
        with graph.inserting_after(lift):
            restored = graph.call_function(move.target, (lift, *move.args[1:]), move.kwargs)
        restored.meta.update(move.meta)
        lift.replace_all_uses_with(restored, delete_user_cb=lambda user, restored=restored: user is not restored)
        lift.meta["val"] = move.host_value
