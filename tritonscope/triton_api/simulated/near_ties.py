"""Decisions the host makes at a near-tie: a GPU's arithmetic differs from the host's in the last bits
(other summation orders, fused multiply-adds, its own transcendental functions), so where the two
largest values an `argmax`, `topk` or `max` chooses between are closer than the dtype's rounding, the
GPU may have chosen the other (a token in a decoding loop, an expert in an MoE router). Each such
decision met while the host computes values is noted, and the next read's line in reads.jsonl says
so (`near_ties`): what rests on it is the host's choice, not necessarily the GPU's."""

from __future__ import annotations

# relative gap under which two values may swap order between the host and a GPU, per dtype
TOLERANCE = {"torch.bfloat16": 1e-2, "torch.float16": 2e-3, "torch.float32": 1e-5, "torch.float64": 1e-12}
_CHOOSERS = {"argmax": False, "argmin": True, "topk": None, "max": False, "min": True}
_met: list[dict] = []


def check(func, args, kwargs) -> None:
    """After FUNC (a chooser) ran on the host: note it if its choice rests on a near-tie."""
    name = func.overloadpacket.__name__
    if name not in _CHOOSERS or not args or not getattr(args[0], "is_floating_point", lambda: False)():
        return
    values = args[0]
    tolerance = TOLERANCE.get(str(values.dtype))
    if tolerance is None or values.numel() < 2:
        return
    if name == "topk":
        k = int(args[1]) if len(args) > 1 else int(kwargs.get("k", 1))
        dim = int(args[2]) if len(args) > 2 else int(kwargs.get("dim", -1))
        smallest = not bool(args[3] if len(args) > 3 else kwargs.get("largest", True))
    else:
        k = 1
        dim = args[1] if len(args) > 1 else kwargs.get("dim")
        smallest = bool(_CHOOSERS[name])
        if name in ("max", "min") and dim is None:
            return  # a value, not a choice of position
    gap = _smallest_gap(values, k, dim, smallest)
    if gap is not None and gap <= tolerance:
        _met.append({"op": f"aten.{name}", "relative_gap": float(f"{gap:.3g}")})


def _smallest_gap(values, k: int, dim, smallest: bool) -> float | None:
    import torch

    flat = values.detach().float().reshape(-1) if dim is None else values.detach().float().movedim(int(dim), -1)
    if flat.shape[-1] <= k:
        return None
    ordered = torch.topk(flat, k + 1, dim=-1, largest=not smallest).values
    chosen, next_one = ordered[..., k - 1], ordered[..., k]
    gap = (chosen - next_one).abs() / chosen.abs().clamp_min(1e-30)
    finite = gap[torch.isfinite(gap)]
    return float(finite.min()) if finite.numel() else None


def taken() -> list[dict]:
    """The near-ties met since the last read, and forgotten."""
    met, _met[:] = list(_met), []
    return met
