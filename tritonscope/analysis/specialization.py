"""A captured compile's specialization read back as Triton's launcher made it, one parameter at a time,
and the values a recorded launch gave: what `recompiles` compares two variants of one kernel by.

Triton's launcher (3.5 on) turns each argument into a type and a key: a pointer its element type and
whether it is 16-byte aligned (`tt.divisibility` 16 on the parameter), an integer `i32`/`i64`/`u64`
and whether it is divisible by 16, an integer equal to 1 and a None a constant (a constexpr in the
signature with its value), a constexpr its value. A compile record (kernels.jsonl) holds Triton's
own `signature`, `constants` and `attrs`, keyed by the parameter's path "(3,)": read here by name.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass

OPTION_NAMES = ("num_warps", "num_stages", "num_ctas", "maxnreg")


@dataclass(frozen=True)
class Param:
    """One parameter as a compile specialized it."""

    name: str
    type: str  # Triton's: "*bf16", "i32", "fp32", "u1", "constexpr"
    value: str | None = None  # a constant's value as Triton records it: "1", "None", "128"
    hint: str = ""  # "D": divisible by 16 (an integer), 16-byte aligned (a pointer)

    @property
    def text(self) -> str:
        if self.type == "constexpr":
            return f"{self.name}={self.value}"
        return f"{self.name}: {self.type}{' ' + self.hint if self.hint else ''}"


@dataclass(frozen=True)
class Specialization:
    """A compile's parameters in order, its launch options and a digest of its source."""

    params: tuple[Param, ...]
    options: tuple[tuple[str, int], ...] = ()
    source: str = ""

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def without(self, names: frozenset[str]) -> tuple:
        """What identifies the compile apart from NAMES (an autotuner's config fields)."""
        params = tuple(p for p in self.params if p.name not in names)
        return params, tuple(o for o in self.options if o[0] not in names), self.source

    def text(self, only: tuple[str, ...] | None = None) -> str:
        """The parameters that matter to a reader, short: pointers' dtypes, integers' hints, constants."""
        shown = [p.text for p in self.params if only is None or p.name in only]
        options = [f"{k}={v}" for k, v in self.options if only is None or k in only]
        return ", ".join(shown + options)


def specialization(record: dict) -> Specialization:
    """The specialization a compile record holds, by parameter name."""
    signature = dict(record.get("signature") or {})
    names = list(signature)
    constants = {_name(names, k): str(v) for k, v in (record.get("constants") or {}).items()}
    hinted = {_name(names, k) for k, attrs in (record.get("attrs") or {}).items() if _divisible(attrs)}
    params = tuple(Param(n, str(t), constants.get(n), "D" if n in hinted else "") for n, t in signature.items())
    options = tuple((k, int(v)) for k, v in (record.get("options") or {}).items() if k in OPTION_NAMES)
    digest = hashlib.sha256(str(record.get("source") or "").encode()).hexdigest()[:16]
    return Specialization(params, tuple(sorted(options)), digest)


def _name(names: list[str], key: str) -> str:
    index = str(key).strip("()").split(",")[0].strip()
    return names[int(index)] if index.isdigit() and int(index) < len(names) else str(key)


def _divisible(attrs) -> bool:
    return any(isinstance(a, list) and a and a[0] == "tt.divisibility" for a in attrs or ())


def generated_by_torch(record: dict) -> bool:
    """A kernel torch.compile (Inductor) generated, rather than one the program defines."""
    module = str(record.get("module") or "")
    return module.startswith("torch._inductor") or "@triton_heuristics." in str(record.get("source") or "")


def autotuned(record: dict) -> bool:
    return "autotune(" in str(record.get("source") or "") or generated_by_torch(record)


def config_fields(record: dict, candidates: tuple[str, ...] = ()) -> frozenset[str]:
    """The names an autotuner's configs set (constexprs and launch options): the kernel's
    `triton.Config(...)`s, else the candidates a simulated run logged ("BLOCK: 512, num_warps: 4"),
    else for a torch.compile kernel its *BLOCK constexprs. Variants that differ only in these are the
    autotuner's candidates, not a recompile."""
    fields: set[str] = set()
    for text in candidates:
        fields |= {part.split(":")[0].strip() for part in text.split(",") if ":" in part}
    fields |= _declared_config_fields(str(record.get("source") or ""))
    if generated_by_torch(record):
        fields |= {n for n in (record.get("signature") or {}) if n.endswith("BLOCK")} | set(OPTION_NAMES)
    return frozenset(fields) if fields or not autotuned(record) else frozenset(OPTION_NAMES)


def _declared_config_fields(source: str) -> set[str]:
    """The keys and options of every `triton.Config({...}, num_warps=...)` in the kernel's decorators."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    fields: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node) == "Config":
            if node.args and isinstance(node.args[0], ast.Dict):
                fields |= {
                    k.value for k in node.args[0].keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
                }
            fields |= {k.arg for k in node.keywords if k.arg in OPTION_NAMES}
    return fields


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def not_specialized(source: str) -> tuple[frozenset[str], frozenset[str]]:
    """(do_not_specialize, do_not_specialize_on_alignment) as the kernel's @triton.jit names them."""
    found: dict[str, set[str]] = {"do_not_specialize": set(), "do_not_specialize_on_alignment": set()}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset(), frozenset()
    decorating: dict[int, list[str]] = {}  # a decorator's keyword -> the parameters of the function it decorates
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in function.decorator_list:
                decorating |= {id(n): [a.arg for a in function.args.args] for n in ast.walk(decorator)}
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in found and isinstance(node.value, (ast.List, ast.Tuple)):
            params = decorating.get(id(node), [])
            found[node.arg] |= {_param_named(e.value, params) for e in node.value.elts if isinstance(e, ast.Constant)}
    return frozenset(map(str, found["do_not_specialize"])), frozenset(map(str, found["do_not_specialize_on_alignment"]))


def _param_named(listed: object, params: list[str]) -> str:
    """A decorator list's entry as a parameter's name: Triton takes a name or an index (`[2]`)."""
    if isinstance(listed, int) and not isinstance(listed, bool) and 0 <= listed < len(params):
        return params[listed]
    return str(listed)


def launch_values(launch: dict | None) -> dict[str, object]:
    """A recorded launch's arguments by name: integers and other plain values as they were, each
    tensor's dtype, storage offset, sizes and strides (`x_ptr.shape[1]`, `x_ptr.stride[0]`), the grid."""
    if not launch:
        return {}
    names, args = launch.get("params") or [], launch.get("args") or []
    values: dict[str, object] = {f"grid[{i}]": g for i, g in enumerate(launch.get("grid") or [])}
    for name, arg in zip(names, args, strict=False):
        kind = arg.get("kind") if isinstance(arg, dict) else None
        if kind == "tensor":
            values[f"{name}.dtype"] = str(arg.get("dtype", "")).removeprefix("torch.")
            values[f"{name}.storage_offset"] = arg.get("storage_offset", 0)
            for dim, (size, stride) in enumerate(zip(arg.get("shape", []), arg.get("stride", []), strict=False)):
                values[f"{name}.shape[{dim}]"], values[f"{name}.stride[{dim}]"] = size, stride
        elif kind in ("int", "bool", "str", "tl_dtype", "torch_dtype"):
            values[name] = arg.get("value")
        elif kind == "float":
            values[name] = float(arg.get("value", "nan"))
        elif kind == "none":
            values[name] = None
    return values


def next_power_of_2(n: int) -> int:
    """triton.next_power_of_2: the smallest power of two at least n (1 for n <= 1)."""
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def relation(name: str, launches: list[dict]) -> str | None:
    """How the constexpr NAME was made from another argument in every one of LAUNCHES: its
    `triton.next_power_of_2`, or equal to it; None when no argument explains it in all of them. The
    power of two is preferred where both hold (a power of two is its own next power of two)."""
    seen = [launch_values(launch) for launch in launches]
    if not seen or any(not _is_int(v.get(name)) for v in seen):
        return None
    candidates = [k for k in seen[0] if k != name and not k.startswith("grid") and _is_int(seen[0][k])]
    candidates.sort(key=_plainest)  # stable: the parameters' own order within a tier
    varying = len({v[name] for v in seen}) > 1
    for form, test in (("triton.next_power_of_2({})", _is_next_power), ("{}", lambda v, x: v == x)):
        for other in candidates:
            if all(_is_int(v.get(other)) and test(v[name], v[other]) for v in seen):
                if varying or len({v[other] for v in seen}) > 1:
                    return form.format(other)
    return None


def _is_next_power(value: object, of: object) -> bool:
    return isinstance(of, int) and value == next_power_of_2(of)


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _plainest(key: str) -> int:
    """Scalar arguments first, then sizes, then strides (a tensor's, or a scalar named so: a row's
    stride equals its length when the rows are packed, and the length is what a block is made from):
    the likeliest source of a constexpr."""
    return 2 if "stride" in key.lower() or "offset" in key else 1 if "." in key else 0


SIZE_KEY = re.compile(r"^(?P<param>\w+)\.(?P<what>shape|stride)\[(?P<dim>\d+)\]$")
