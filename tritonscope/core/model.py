"""The core types that flow through the pipeline: plain, frozen, JSON-serializable data.

load -> KernelSpec, specialize -> Variant, compile -> Compilation (with Resources).
Nothing here imports Triton, so renderers can use these types without the compiler.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from typing import Any, Literal

from ..parsers.mlir_diagnostics import Remark
from .inputs import command_words
from .source import CachedKernel, CaptureFolder, Source
from .source import parse as parse_source
from .stages import Language, Stage
from .targets import TARGETS, Target, resolve_target
from .values import TypeName, int_type, jsonable

SCHEMA_VERSION = 2  # 2: every document carries `kind`; values are typed (strings, None, dtypes)
_NONE = object()  # no value given (None is one)
OPTION_NAMES = ("num_warps", "num_stages", "num_ctas", "maxnreg")  # the compile options a variant may set
VLLM_TILES = ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M")  # the constexprs vLLM's MoE kernel takes


class ParamKind(str, Enum):
    POINTER = "pointer"
    INT = "int"
    FLOAT = "float"
    CONSTEXPR = "constexpr"


@dataclass(frozen=True)
class Param:
    """One kernel parameter as declared, with its kind and the type tritonscope would use."""

    name: str
    kind: ParamKind
    type: str | None  # a Triton type string (`*fp32`, `i32`); None for constexprs
    type_from: str  # where kind and type came from: annotation, default, body, branch (an if's only), assumed
    default: Any = None
    has_default: bool = False


@dataclass(frozen=True)
class AutotuneConfig:
    index: int
    constexprs: dict[str, Any]
    num_warps: int | None = None
    num_stages: int | None = None
    num_ctas: int | None = None
    maxnreg: int | None = None

    @property
    def values(self) -> dict[str, Any]:
        """Its constexprs, then the options it sets (as a triton.Config's kwargs and options)."""
        options = {opt: getattr(self, opt) for opt in OPTION_NAMES if getattr(self, opt) is not None}
        return {**self.constexprs, **options}

    def describe(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.values.items())

    def overridden(self, constexprs: dict[str, Any], options: dict[str, Any]) -> list[str]:
        """What a variant compiled in place of this config's values (a -c, -w or -s given beside --config)."""
        given = {**constexprs, **options}
        return [f"{k}={given[k]} (the config's {v})" for k, v in self.values.items() if k in given and given[k] != v]


@dataclass(frozen=True)
class KernelSpec:
    """A `@triton.jit` or `@gluon.jit` function found in a kernel file."""

    name: str
    file: str
    line: int  # the line of `def`
    first_line: int  # the first line of its source, decorators included
    source: str  # the decorated source text, from first_line on
    params: tuple[Param, ...]
    autotune_configs: tuple[AutotuneConfig, ...] = ()
    heuristics: tuple[str, ...] = ()  # constexprs computed by @triton.heuristics
    is_helper: bool = False  # called by another @triton.jit function of the file, or returns a value
    called_by: tuple[str, ...] = ()  # the @triton.jit functions of the file that call it
    returns_value: bool = False  # a helper's `return x`: Triton cannot launch it on its own
    language: Language = Language.TRITON  # @triton.jit or @gluon.jit: decides the stages before TTGIR
    # The parameters its decorator keeps from the launcher's specialization of values (1, divisible by 16)
    # and from its alignment hint (pointers 16-byte aligned, integers divisible by 16).
    do_not_specialize: tuple[str, ...] = ()
    do_not_specialize_on_alignment: tuple[str, ...] = ()
    # Where the user finds `file` now, where that is elsewhere: a captured torch.compile kernel was
    # written in the capture's hidden staging folder, which its locations (and line maps) name.
    published: str | None = None

    @property
    def shown_file(self) -> str:
        return self.published or self.file

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def as_the_file_gives(self, defaults: Mapping[str, Any]) -> KernelSpec:
        """Its parameters as a compile with nothing given takes them from the file's defaults
        (`tritonscope_defaults`): a pointer's type (`'*fp16'`), a value, `type_from` "file"; a
        constexpr's value and an annotated type stay the kernel's own."""

        def given(p: Param) -> Param:
            value = defaults.get(p.name, _NONE)
            if value is _NONE or p.kind is ParamKind.CONSTEXPR or p.type_from == "annotation":
                return p
            if isinstance(value, str):  # a type: '*fp16', 'i64'
                return replace(p, type=value, type_from="file")
            typed = _scalar_type(value)  # the value's type, as the launcher types it: 4096 is an i32
            kind, type_ = typed if typed is not None else (p.kind, p.type)
            return replace(p, kind=kind, type=type_, default=value, has_default=True, type_from="file")

        return replace(self, params=tuple(given(p) for p in self.params))

    @property
    def wrappers(self) -> str:
        kinds = []
        if self.autotune_configs:
            kinds.append("autotune")
        if self.heuristics:
            kinds.append("heuristics")
        return "+".join(kinds)


@dataclass(frozen=True)
class FromRun:
    """`--from-run`: take the specialization from a launch in the file's own run."""

    launch: int = 1  # which launch of the kernel, from 1 (--launch N)
    command: tuple[str, ...] = ()  # the program to run (after --); empty: `python FILE`
    on_read: str = "host"  # --values: a value read is computed on the host, stops the run, or gets this number


@dataclass(frozen=True)
class VariantRequest:
    """The variant flags of a command, parsed once into typed values (core/values.py).

    Plain, hashable data, so it can travel to a worker process. `constexprs` and `args` are
    (name, value) pairs: a value is a number, bool, None, string or TypeName. `file` is the text
    shown (messages, command lines, JSON): what the user typed, or a module reference's file;
    `source` is what it names, parsed once where the request is made (core/source.py), from
    `file` when not given. Its `--target auto` is resolved once there too (`resolved`), with the
    notice that says what it chose; nothing after it resolves a target again.
    """

    file: str
    kernel: str | None = None
    constexprs: tuple[tuple[str, Any], ...] = ()
    args: tuple[tuple[str, Any], ...] = ()
    dtype: TypeName | None = None  # the element type of pointers not given with -a
    target: str = "auto"  # a target's name; `auto` until the request is resolved (`resolved`)
    num_warps: int | None = None
    num_stages: int | None = None
    num_ctas: int | None = None
    maxnreg: int | None = None
    config: int | None = None
    specialize: bool = True
    triton: str | None = None  # the Triton release to compile with (app/walk/releases.py); None: the running one
    from_run: FromRun | None = None  # resolved into a captured kernel before anything loads (app/walk/from_run.py)
    run_grid: tuple[int, ...] | None = None  # the grid the --from-run launch gave: the launch estimated
    source: Source = None  # type: ignore[assignment]  # set from `file` by __post_init__ when not given
    target_notice: str | None = None  # what `auto` chose, where the user should be told (no GPU visible)
    # (decorator list, parameter) pairs specialized as if the kernel's @triton.jit(do_not_specialize=...,
    # do_not_specialize_on_alignment=...) did not name them: explain's what-if of editing the decorator.
    dropped_from_decorator: tuple[tuple[str, str], ...] = ()
    # Pointer arguments known not to be 16-byte aligned (the API's tensor views, `x[1:]`): the
    # launcher gives them no alignment hint, as it gives none at such a call.
    unaligned: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.source is None:
            object.__setattr__(self, "source", parse_source(self.file))

    @property
    def options(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in OPTION_NAMES if getattr(self, name) is not None}

    def resolved(self) -> VariantRequest:
        """This request with `--target auto` resolved, once, where the request is made: the visible
        GPU's target, else the default, with the notice that says so. A kernel compiled already
        (DIR/:NAME, a capture folder) keeps `auto`: its target is the one it was compiled for."""
        if self.target != "auto" or isinstance(self.source, (CachedKernel, CaptureFolder)):
            return self
        target, notice = resolve_target(self.target)
        return replace(self, target=target.name, target_notice=notice)

    def for_target(self, name: str) -> VariantRequest:
        """This request for another target (a `--vary target=` value, the explorer's target key)."""
        return replace(self, target=name, target_notice=None).resolved()

    @property
    def target_info(self) -> Target | None:
        """The target the request compiles for; None for a kernel compiled already that keeps its own."""
        if self.target != "auto":
            return TARGETS[self.target]
        if isinstance(self.source, (CachedKernel, CaptureFolder)):
            return None
        raise ValueError(f"{self.file}: --target auto is resolved where a request is made (VariantRequest.resolved)")

    def with_value(self, name: str, value: Any, constexpr: bool) -> VariantRequest:
        """This request with one more constexpr (or argument) value; a later value wins."""
        field_name = "constexprs" if constexpr else "args"
        pairs = tuple(p for p in getattr(self, field_name) if p[0] != name) + ((name, value),)
        changed: dict[str, Any] = {field_name: pairs}  # one field, named at run time
        return replace(self, **changed)


@dataclass(frozen=True)
class Budget:
    """A limit on one figure of a compiled kernel (`tritonscope check --budget 'registers<=128'`)."""

    figure: str  # a name of app/check.py's FIGURES: registers, spills, occupancy ...
    op: str  # <=, >=, <, >, ==
    limit: float
    text: str  # as the user wrote it

    def bound(self, unit: str = "") -> str:
        """The limit as a budget line says it: `<= 128`, `= 0` (as the user writes it, not `==`)."""
        return f"{'=' if self.op == '==' else self.op} {self.limit:g}{unit}"

    def holds(self, value: float) -> bool:
        return {
            "<=": value <= self.limit,
            ">=": value >= self.limit,
            "<": value < self.limit,
            ">": value > self.limit,
            "==": value == self.limit,
        }[self.op]


@dataclass(frozen=True)
class CheckEntry:
    """One kernel variant `check` compiles, with its budgets and the baseline it is held to."""

    name: str
    request: VariantRequest
    budgets: tuple[Budget, ...] = ()
    baseline: str | None = None  # a saved `dump --json` report


@dataclass(frozen=True)
class Variant:
    """One fully specified compilation of a kernel: what `triton.compile` is given."""

    kernel: str
    file: str  # what the user typed: a path or sample:NAME
    target: str  # a name from targets.TARGETS, e.g. sm90
    constexprs: dict[str, Any]  # typed values; a dtype is a TypeName (fp16), a string a str
    signature: dict[str, str]  # every parameter: a Triton type, or "constexpr"
    hints: dict[str, str]  # Triton's specialization codes: D = divisible by 16, S = 32-bit range
    arguments: dict[str, Any]  # how each argument was given: a TypeName (`*fp16`) or a value (4096, None)
    options: dict[str, int]  # num_warps, num_stages, num_ctas, maxnreg: only those that were set
    config: int | None = None  # the autotune config used, if any
    specialize: bool = True
    cached: bool = False  # read from a Triton cache or a capture, not compiled by tritonscope
    inferred: dict[str, str] = field(default_factory=dict)  # argument types guessed, not given
    assumed: tuple[str, ...] = ()  # scalar arguments given no value anywhere: specialized from their type alone
    triton: str | None = None  # the release asked for with --triton / --vary triton=

    @property
    def target_info(self) -> Target:
        """The target compiled for: its vendor (stages, machine code, words) and its limits."""
        return TARGETS[self.target]

    def command_line(self) -> str:
        """The tritonscope command that compiles exactly this variant: the kernel and the target
        first, then what was set, each flag as core/inputs.py prints it."""
        if self.cached:
            return shlex.join(["tritonscope", "dump", self.file])
        values = {
            "kernel": self.kernel,
            "target": self.target,
            "config": self.config,
            "constexprs": self.constexprs,
            "args": self.arguments,
            **{name: self.options.get(name) for name in OPTION_NAMES},
            "no_specialize": not self.specialize,
            "triton": self.triton,
        }
        return shlex.join(["tritonscope", "dump", self.file, *command_words(values)])


@dataclass(frozen=True)
class Occupancy:
    """How many blocks of this kernel fit on one multiprocessor (NVIDIA SM, AMD CU) at once."""

    blocks_per_sm: int
    warps_per_sm: int  # warps (NVIDIA) or wavefronts (AMD) resident per SM/CU
    max_warps_per_sm: int
    limited_by: str  # registers, shared memory, warps, blocks
    per: str | None = None  # "SIMD": the figures are one SIMD's (a CU's SIMDs unknown: gfx1250), blocks at least 1

    @property
    def percent(self) -> float:
        return 100.0 * self.warps_per_sm / self.max_warps_per_sm


@dataclass(frozen=True)
class InstructionMix:
    """What the machine code does; see instruction_mix.py. Widths are bits per thread."""

    total: int
    global_loads: dict[int, int]  # width -> count
    global_stores: dict[int, int]
    async_copies: int  # global -> shared copies (LDGSTS, TMA)
    shared_loads: int
    shared_stores: int
    matrix: int  # HMMA, HGMMA, IMMA ... / MFMA
    barriers: int
    local_loads: int  # LDL / scratch: spills read back
    local_stores: int
    atomics: int = 0  # read-modify-writes of global memory (ATOM, RED / global_atomic_*)


RESERVED_SHARED_BYTES = 1024  # the driver keeps this much shared memory per block (sm80 on)


@dataclass(frozen=True)
class Resources:
    registers: int  # per thread: NVIDIA registers, AMD VGPRs (AGPRs included)
    spills: int  # NVIDIA: local bytes / 4, as the driver counts them; AMD: spilled VGPRs + SGPRs
    shared_bytes: int  # per block: shared memory (NVIDIA) / LDS (AMD)
    local_bytes: int  # per thread: local memory (NVIDIA) / scratch (AMD)
    stack_bytes: int  # per thread, NVIDIA only (0 on AMD)
    occupancy: Occupancy
    sgprs: int | None = None  # AMD only
    spill_store_bytes: int = 0  # per thread, as ptxas counts them (NVIDIA)
    spill_load_bytes: int = 0
    warnings: tuple[str, ...] = ()
    instructions: InstructionMix | None = None
    reserved_in_shared: bool = False  # shared_bytes holds the driver's reserved KiB (an sm90-on cubin's)

    @property
    def launch_shared_bytes(self) -> int:
        """What Triton's launcher holds to a target's per-block limit (its OutOfResources): the shared
        memory less the driver's reserved KiB, which an sm90-on cubin carries as static shared memory."""
        return self.shared_bytes - (RESERVED_SHARED_BYTES if self.reserved_in_shared else 0)


@dataclass(frozen=True)
class Artifacts:
    """What one compile left behind, before analysis: Triton's texts by its own keys (ttir, ttgir,
    llir, ptx, amdgcn), the disassembly and resource listing (sass, resource_usage), the binary."""

    texts: dict[str, str]
    binary: bytes
    metadata: dict[str, Any]  # Triton's own metadata, as plain data
    seconds: float = 0.0
    notices: tuple[str, ...] = ()
    cache_hit: bool = False  # Triton's cache already had the kernel: read back, not compiled
    remarks: tuple[Remark, ...] = ()  # MLIR's remarks and warnings on the compile (parsers/mlir_diagnostics.py)
    stage_seconds: tuple[tuple[str, float], ...] = ()  # ("front end", s), ("ttir", s) ...; () if not known


@dataclass(frozen=True)
class Compilation:
    kernel: KernelSpec
    variant: Variant
    stages: dict[Stage, str]
    binary: bytes
    binary_ext: Literal["cubin", "hsaco"]
    metadata: dict[str, Any]  # Triton's own metadata for the compiled kernel
    resources: Resources
    compile_seconds: float
    triton_version: str
    notices: tuple[str, ...] = field(default=())
    # Per stage: {line of the stage (1-based): ((python file, line), ...)}; see linemap.py.
    line_map: dict[Stage, dict[int, tuple[tuple[str, int], ...]]] = field(default_factory=dict)
    cache_hit: bool = False  # triton.compile found the kernel in Triton's cache: compile_seconds is a read
    launches: tuple[dict[str, Any], ...] = ()  # a captured kernel's recorded launches (core/launches.py)
    remarks: tuple[Remark, ...] = ()  # MLIR's remarks and warnings, as Artifacts.remarks
    # Triton's own timers: ("front end", s), ("ttir", s) ... ("cubin", s); () when not known (a cache hit)
    stage_seconds: tuple[tuple[str, float], ...] = ()
    partitions: tuple[Any, ...] = ()  # analysis.warp_specialize.Partition: warp-specialized regions, if any

    @property
    def options(self) -> dict[str, Any]:
        """The options the compiler actually used, defaults included; and a backend's own that the
        variant set (an AMD config's waves_per_eu)."""
        return {
            key: self.metadata.get(key, self.variant.options.get(key)) for key in (*OPTION_NAMES, *self.variant.options)
        }


def to_jsonable(value: Any) -> Any:
    """Turns core types (dataclasses, enums, bytes) into plain JSON data."""
    if hasattr(value, "__dataclass_fields__"):
        return to_jsonable(asdict(value))
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {to_jsonable(k) if isinstance(k, Enum) else str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return None
    if isinstance(value, (str, int, float, bool)) or value is None:
        return jsonable(value)
    return str(value)


def _scalar_type(value: Any) -> tuple[ParamKind, str] | None:
    """A scalar value's kind and Triton type as Triton's launcher gives them (app/walk/specialize.py
    adds the hints); None for what is no scalar."""
    if isinstance(value, bool):
        return ParamKind.INT, "u1"
    if isinstance(value, float):
        return ParamKind.FLOAT, "fp32"
    if isinstance(value, int):
        return ParamKind.INT, int_type(value)
    return None
