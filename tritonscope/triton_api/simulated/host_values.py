"""Values of the simulated GPU's tensors, computed on the host only when the program reads one.

A device tensor is a fake tensor: it has a shape and no value. While the program runs, each operator
on device tensors is appended to a log (the operator, its arguments, its results), and each result
gets a token in its `__dict__` (so that `swap_tensors`, which `.cuda()` uses, carries it along). A
program that never reads a value pays for the log and nothing else. When the program reads one
(`.item()`, printing a tensor, a branch on one, a result whose shape depends on the values), the
log is run in order on the host, each device tensor standing for the host tensor its token then
holds, and each token keeps its value for the next read; an operator whose results are all dead (no
tensor of the program holds them, nothing later in the log reads them) and that writes nothing is
skipped. A graph torch.compile compiled is one entry of the log: its FX graph, run eagerly
(compiled_values.py). Host tensors an operator took (the weights moved with `.cuda()`) are kept once,
by reference; a small one is copied, so that a batch buffer the program refills is not read later.
"""

from __future__ import annotations

import sys

from . import host_ops
from .tokens import HostArg, Token, Unknown

KEY = "_tritonscope_value"
COMPACT_AT = 50_000  # entries: then the log drops the entries whose results are all dead
CHECK_EVERY = 8  # entries computed between two looks at the host memory held


class Entry:
    """One operator (or one compiled graph) in the log: RUN(args, kwargs) on the host gives the values
    of OUTS (tokens, None for a result that is not a new device tensor) and writes WRITES in place."""

    __slots__ = ("run", "args", "kwargs", "outs", "writes")

    def __init__(self, run, args, kwargs, outs, writes) -> None:
        self.run, self.args, self.kwargs, self.outs, self.writes = run, args, kwargs, outs, writes


class Log:
    """The operators on device tensors not yet computed on the host, in program order."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.suspended = 0  # inside a compiled graph's call: its inner operators are not the program's
        self.recorded = 0
        self.computed = 0
        self.seconds = 0.0  # spent computing values on the host
        self.compacted_at = COMPACT_AT
        self.capturing: list[list[Entry]] = []  # the entries of each CUDA graph being captured now

    def token_of(self, tensor) -> Token:
        token = tensor.__dict__.get(KEY)
        if token is None:  # made where nothing was recorded: undefined memory, as an allocation on a GPU
            token = Token()
            token.value = host_ops.blank_like(tensor)
            tensor.__dict__[KEY] = token
        return token

    def record(self, run, args, kwargs, result, fake_class, written=()) -> None:
        """RUN(ARGS, KWARGS) gave RESULT and wrote the device tensors WRITTEN in place; device tensors
        become tokens, host ones HostArgs."""
        from torch.utils import _pytree as pytree

        if self.suspended:
            return
        inputs = {id(leaf) for leaf in pytree.tree_leaves((args, kwargs)) if isinstance(leaf, fake_class)}
        writes = tuple(self.token_of(t) for t in written if isinstance(t, fake_class))
        args, kwargs = pytree.tree_map(lambda leaf: self._held(leaf, fake_class), (args, kwargs))
        outs: list[Token | None] = []
        for leaf in pytree.tree_leaves(result):
            if isinstance(leaf, fake_class) and id(leaf) not in inputs:
                token = Token(leaf.stride())
                leaf.__dict__[KEY] = token
                outs.append(token)
            else:
                outs.append(None)  # a scalar, or an argument returned (an in-place or out= operator)
        if not writes and not any(outs):
            return  # no device tensor made or written (`prim.device`, a size): nothing for a value
        entry = Entry(run, args, kwargs, outs, writes)
        self.entries.append(entry)
        for graph in self.capturing:
            graph.append(entry)
        self.recorded += 1
        if len(self.entries) >= self.compacted_at:
            self.compact()
            self.compacted_at = max(COMPACT_AT, 2 * len(self.entries))

    def _held(self, leaf, fake_class):
        import torch

        if isinstance(leaf, fake_class):
            return self.token_of(leaf)
        if isinstance(leaf, torch.Tensor):
            return HostArg(leaf)
        return leaf

    def compact(self) -> None:
        """Drop the entries that write nothing and whose results nothing alive holds: a token held by
        its tensor has more references than the log's own (counted backwards, so that an entry whose
        only reader was dropped is dropped too)."""

        refs: dict[int, int] = {}  # every reference the log holds to a token (its own outs too)
        uses: dict[int, int] = {}  # readers (arguments, writes) among the entries not dropped
        for entry in self.entries:
            _count(entry, refs, uses, 1)
        kept = []
        for entry in reversed(self.entries):  # no local name may hold a token here: _dead counts them
            if not entry.writes and any(entry.outs) and _dead(entry.outs, refs, uses):
                _count(entry, {}, uses, -1)
                continue
            kept.append(entry)
        kept.reverse()
        self.entries = kept

    def value(self, tensor):
        """TENSOR's value on the host (a host tensor of its shape, strides and dtype)."""
        token = self.token_of(tensor)
        if self.entries:  # an operator not yet computed may write it (in place) even if it has a value
            self.compute()
        if token.unknown is not None:
            raise Unknown(token.unknown)
        if token.value is None:
            raise Unknown("its value was never computed (an operator the log did not see made it)")
        if isinstance(token.value, host_ops.Blank):
            token.value = token.value.make()
        return token.value

    def compute(self) -> None:
        """Every entry of the log, in order, on the host; the dead ones skipped. Nothing done here is
        logged again (the operators run on host tensors, and no mode is active)."""
        import time

        from torch._subclasses.fake_tensor import unset_fake_temporarily

        from . import budget

        start = time.perf_counter()
        self.compact()
        entries, self.entries = self.entries, []
        self.suspended += 1
        done = 0
        try:
            with unset_fake_temporarily():
                for entry in entries:
                    host_ops.replay(entry)
                    done += 1
                    if done % CHECK_EVERY == 0:
                        budget.check()
        finally:
            self.suspended -= 1
            self.computed += done
            self.entries = entries[done:] + self.entries
            self.seconds += time.perf_counter() - start

    def replayed(self, entries: list[Entry]) -> None:
        """A CUDA graph's replay: the operators its capture logged, logged again, reading the inputs
        as they are now (the static buffers the program refilled) and giving their results again."""
        self.entries.extend(entries)
        self.recorded += len(entries)

    def seed(self, seed: int) -> None:
        """The program seeded CUDA's generator: random draws after this point in the log start there."""
        self.entries.append(Entry(host_ops.Seed(seed), (), {}, [], ()))
        self.recorded += 1


def _tokens(tree) -> list:
    from torch.utils import _pytree as pytree

    return [leaf for leaf in pytree.tree_leaves(tree) if isinstance(leaf, Token)]


def _count(entry: Entry, refs: dict[int, int], uses: dict[int, int], step: int) -> None:
    """ENTRY's references to tokens added to REFS (its results too) and its reads to USES, by STEP."""
    for token in _tokens(entry.outs):
        refs[id(token)] = refs.get(id(token), 0) + step
    for token in _tokens((entry.args, entry.kwargs, entry.writes)):
        refs[id(token)] = refs.get(id(token), 0) + step
        uses[id(token)] = uses.get(id(token), 0) + step


def _dead(outs: list, refs: dict[int, int], uses: dict[int, int]) -> bool:
    """No entry left reads any of OUTS and nothing outside the log holds them (their tensors are
    gone): each token's references less the log's and this loop's own (_TEMPORARY)."""
    for token in outs:
        if token is None:
            continue
        if uses.get(id(token), 0) or _references(token) - _TEMPORARY > refs.get(id(token), 0):
            return False
    return True


def _references(token) -> int:
    return sys.getrefcount(token)


def _temporary() -> int:
    """The references _dead's loop adds to a token while it asks, measured the same way: a token
    held by one list only, less that list's."""
    for token in [Token()]:
        return _references(token) - 1
    return 0


_TEMPORARY = _temporary()


LOG = Log()
_written: dict = {}  # operator -> the positions and names of the arguments it writes


def _written_arguments(func, args, kwargs) -> list:
    """The arguments FUNC writes in place (its schema's `Tensor(a!)`), tensor lists flattened."""
    places = _written.get(func)
    if places is None:
        schema = getattr(func, "_schema", None)
        arguments = schema.arguments if schema is not None else []
        places = _written[func] = tuple(
            (index, a.name) for index, a in enumerate(arguments) if a.alias_info is not None and a.alias_info.is_write
        )
    found = []
    for index, name in places:
        value = args[index] if index < len(args) else kwargs.get(name)
        found += list(value) if isinstance(value, (list, tuple)) else [value]
    return found


def record_operator(func, args, kwargs, result, fake_class) -> None:
    """The program's mode ran FUNC on device tensors (torch_cuda.py): one entry of the log."""
    from .host_ops import Eager

    LOG.record(Eager(func), args, kwargs, result, fake_class, _written_arguments(func, args, kwargs))


class Unknowable:
    """A Triton kernel of the program's own, launched on device tensors: the host does not run it, so
    what it may have written has no value on the host (a read of it stops, and says so)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, args, kwargs):
        raise Unknown(f"{self.name} wrote it, which the host does not run")


def launched(name: str, args) -> None:
    """The simulated driver launched kernel NAME with ARGS (one not logged as a JIT function's launch,
    or cuBLAS's call): every device tensor among them (and the base of each tensor descriptor) may
    have been written."""
    from torch._subclasses.fake_tensor import FakeTensor

    if LOG.suspended:
        return  # a kernel of a compiled graph: the graph's host run gives its outputs
    tensors = [getattr(a, "base", a) for a in args]
    tensors = [t for t in tensors if isinstance(t, FakeTensor)]
    if tensors:
        LOG.record(
            Unknowable(name if " " in name else f"the Triton kernel {name}"),
            tuple(tensors),
            {},
            None,
            FakeTensor,
            tensors,
        )


class CublasCall:
    """Triton's cuBLAS binding on the host, by its definition in Triton's triton_nvidia.cc:
    `matmul(A, B, C)` writes C = A @ Bᵀ (A is M×K, B is N×K), `gemm(A, B, C, D, alpha, beta)` writes
    D = alpha·A @ Bᵀ + beta·C. Accumulated in float32 (cuBLAS's compute type for every dtype the
    binding takes, fp8 included; float32 inputs run as TF32 on the GPU, so the last bits differ)
    and rounded once to the output's dtype."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, args, kwargs):
        a, b, *rest = args
        product = a.float() @ b.float().T
        if self.name == "gemm":
            c, d, alpha, beta = rest
            d.copy_((alpha * product + beta * c.float()).to(d.dtype))
        else:
            (c,) = rest
            c.copy_(product.to(c.dtype))


def cublas_called(name: str, args) -> None:
    """The program called Triton's cuBLAS binding: matmul and gemm are logged to be computed on the
    host; another call (the block-scaled ones of later releases) may have written its last tensor."""
    from torch._subclasses.fake_tensor import FakeTensor

    tensors = [a for a in args if isinstance(a, FakeTensor)]
    if name in ("matmul", "gemm") and len(args) == (3 if name == "matmul" else 6):
        if tensors and not LOG.suspended:
            LOG.record(CublasCall(name), tuple(args), {}, None, FakeTensor, tensors[-1:])
    else:
        launched(f"cuBLAS's {name} (Triton's binding, not run here)", tensors[-1:])
