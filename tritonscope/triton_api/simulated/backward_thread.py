"""`torch.tensor(v, device="cuda")` inside a backward pass on the simulated GPU, as in its forward.

The program's FakeTensorMode builds such a constant on the host and moves it to the device afterwards
(torch's `only_lift_cpu_tensors`, set when the mode is entered: torch_cuda.py), since copying real
values to the device would run CUDA's own copy kernel, which a simulated GPU does not have. The flag
is thread-local, and torch's autograd engine runs a CUDA backward on a worker thread of its own,
where it is off: Liger's cross-entropy backward (`torch.tensor(1.0, device=grad_output.device)`)
failed there with "DispatchStub: missing kernel for cuda". A custom Function's backward (Liger's,
torch.compile's compiled backward) runs through BackwardCFunction's apply: it sets the flag on the
thread first.
"""

from __future__ import annotations


def install() -> None:
    import torch
    from torch.autograd import function

    only_lift, set_only_lift = torch._C._only_lift_cpu_tensors, torch._C._set_only_lift_cpu_tensors

    def on_this_thread(apply):
        def applied(self, *args):
            if not only_lift():
                set_only_lift(True)
            return apply(self, *args)

        applied.__wrapped__ = apply  # type: ignore[attr-defined]
        return applied

    for name in ("apply", "apply_boxed"):
        if hasattr(function.BackwardCFunction, name):
            setattr(function.BackwardCFunction, name, on_this_thread(getattr(function.BackwardCFunction, name)))
