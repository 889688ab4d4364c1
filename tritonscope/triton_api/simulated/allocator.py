"""The caching allocator's answers on the simulated GPU: fake tensors take no device memory, so the
whole of the target's memory is free and every figure is 0; and host memory "pinned" on any thread
is plain host memory (page-locked memory needs a GPU driver)."""

from __future__ import annotations

import collections

_SUMMARY = "|  simulated GPU: fake tensors take no device memory; every allocator figure is 0  |\n"


def memory_answers(device: dict) -> dict:
    """The caching allocator's figures: fake tensors take no device memory, so the whole of the
    target's memory is free, and none is allocated or reserved."""
    total = device["total_memory"]
    # every statistic a program (or torch.cuda.memory_summary) reads is 0: none is missing
    answers: dict = {
        "mem_get_info": lambda *a, **k: (total, total),
        "memory_stats": lambda *a, **k: collections.defaultdict(int),
        "memory_summary": lambda *a, **k: _SUMMARY,
    }
    for name in ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"):
        answers[name] = lambda *a, **k: 0
    for name in ("mem_get_info", "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"):
        answers[name] = _said_once(name, answers[name])
    for name in (
        "empty_cache",
        "reset_peak_memory_stats",
        "reset_max_memory_allocated",
        "set_per_process_memory_fraction",
    ):
        answers[name] = lambda *a, **k: None
    return answers


def _said_once(name: str, answer):
    """ANSWER, the first read of any figure by the program's own call said on stderr to be a stand-in
    (where.say_stand_in_once): a printed peak memory of 0 (or the whole memory free) is not measured."""

    def said(*args, **kwargs):
        import sys

        from .where import installed, say_stand_in_once

        if not installed(sys._getframe(1).f_code.co_filename):  # the program's own call
            say_stand_in_once(
                "allocator",
                f"torch.cuda.{name}() on the simulated GPU: fake tensors take no device memory, so every "
                "allocator figure is 0 (and all the memory free), a stand-in",
            )
        return answer(*args, **kwargs)

    return said


def pinning_on_every_thread(torch):
    """`tensor.pin_memory()` on a thread of the program's own, where its mode (thread-local) is not
    active: DataLoader's pin-memory thread (`pin_memory=True, num_workers>0`). Plain host memory, as the
    mode makes it on the program's thread."""
    import warnings

    library = torch.library.Library("aten", "IMPL")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's own kernel is overridden on purpose
        library.impl("_pin_memory", lambda tensor, device=None: tensor.clone(), "CPU")
    return library  # kept alive by the caller: its registrations last as long as it does
