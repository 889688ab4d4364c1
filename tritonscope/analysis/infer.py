"""Infers which untyped kernel parameters are pointers and which are floats, from the kernel body.

Triton learns argument types from the values passed at launch; tritonscope has no
values, so it reads the code instead:
- a pointer is a parameter that is the base of the address given to tl.load,
  tl.store, tl.atomic_*, tl.make_block_ptr or tl.make_tensor_descriptor (or Gluon's
  cp.async_copy_global_to_shared), directly or through local variables
  (`ptrs = x_ptr + offsets`), or is passed as a pointer to another @triton.jit function of
  the same file, by a call or as a gl.warp_specialize partition's argument;
- a float is a parameter combined with a float literal (`scale * 1.44`), used in the
  arithmetic a math function takes (`tl.sqrt(eps)`, `tl.rsqrt(var + eps)`), or combined with
  loaded data (`x * alpha + y`), unless an address, a mask or a bound reads it (an int).
The base of `a + b` is taken from the left operand when it has one, because Triton
code is written `base_ptr + offsets`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

_POINTER_FUNCTIONS = {"load", "store", "make_block_ptr", "make_tensor_descriptor"}
# Calls whose pointer is not their first argument: Gluon's cp.async copy (smem, pointer, mask).
_POINTER_ARGUMENT = {"async_copy_global_to_shared": 1}
_POINTER_KEYWORDS = {"pointer", "base", "ptr"}
_MATH_FUNCTIONS = {"exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "sin", "cos", "erf", "fdiv", "div_rn"}


@dataclass
class Inferred:
    pointers: set[str] = field(default_factory=set)
    floats: set[str] = field(default_factory=set)
    # pointers loaded or stored through only inside an `if` (flash-attention's rotary: `if
    # IS_SEQLEN_OFFSETS_TENSOR: tl.load(SEQLEN_OFFSETS + ...)`, an int where the branch is dead)
    in_branches: set[str] = field(default_factory=set)
    # pointers to indices: what is loaded through them is an offset of another address or a loop's or
    # a range's bound (vLLM's sorted_token_ids, SGLang's kv_indptr): integers, not floats
    indices: set[str] = field(default_factory=set)


def infer_kinds(functions: dict[str, ast.FunctionDef]) -> dict[str, Inferred]:
    """For each @triton.jit function of a file (by name), its pointer and float parameters."""
    results = {name: Inferred() for name in functions}
    # Pointer-ness flows from callee to caller, so repeat until nothing changes.
    changed = True
    while changed:
        changed = False
        for name, fn in functions.items():
            pointers = _FunctionReader(fn, functions, results).pointer_params()
            if pointers != results[name].pointers:
                results[name].pointers = pointers
                changed = True
    for name, fn in functions.items():
        outside = _FunctionReader(fn, functions, results, outside_branches=True).pointer_params()
        results[name].in_branches = results[name].pointers - outside
        reader = _FunctionReader(fn, functions, results)
        results[name].indices = reader.index_params(results[name].pointers)
        pointers, indices = results[name].pointers, results[name].indices
        floats = _float_params(fn) | reader.scale_params(pointers, indices)
        results[name].floats = floats - pointers - reader.integer_params(pointers, indices)
    return results


def _paired(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """The names an assignment binds, each with its value: `bos, eos = a, b` pairs them; `a, b = f()`
    gives each the whole call."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, (ast.Tuple, ast.List)):
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else []
        whole = len(values) != len(target.elts)
        return [pair for i, t in enumerate(target.elts) for pair in _paired(t, value if whole else values[i])]
    return []


class _FunctionReader:
    def __init__(
        self,
        fn: ast.FunctionDef,
        functions: dict[str, ast.FunctionDef],
        known: dict[str, Inferred],
        outside_branches: bool = False,
    ):
        self.fn = fn
        self.outside_branches = outside_branches  # the pointer uses outside every `if` only
        self.functions = functions
        self.known = known
        self.params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
        self.assignments: dict[str, list[ast.expr]] = {}
        self.added: dict[str, list[ast.expr]] = {}  # `p += k`, `p -= k`: what is added to p (an offset)
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for name, value in _paired(target, node.value):
                        self.assignments.setdefault(name, []).append(value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
                if node.value is not None:
                    self.assignments.setdefault(node.target.id, []).append(node.value)
                if isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
                    self.added.setdefault(node.target.id, []).append(node.value)

    def pointer_params(self) -> set[str]:
        roots: set[str] = set()
        for expr in self._pointer_expressions():
            roots |= self._bases(expr, set())
        return roots & set(self.params)

    def index_params(self, pointers: set[str]) -> set[str]:
        """The pointers whose loaded values are offsets of an address, or bounds of a loop or a range."""
        loaded: dict[str, set[str]] = {}  # a local -> the pointers its value is loaded through
        for name, values in self.assignments.items():
            for value in values:
                for call in _loads(value):
                    loaded.setdefault(name, set()).update(self._bases(call.args[0], set()) & pointers)
        used: set[str] = set()
        for expr in self._pointer_expressions():
            used |= self._offsets(expr, set())
        for node in ast.walk(self.fn):
            func = node.func if isinstance(node, ast.Call) else None
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in _BOUNDS:
                used |= {n for arg in node.args for n in self._names(arg, set())}  # type: ignore[attr-defined]
        return {pointer for name in used for pointer in loaded.get(name, ())}

    def scale_params(self, pointers: set[str], indices: set[str]) -> set[str]:
        """The parameters that scale or shift loaded data (`out = x * alpha + y`, x loaded through a
        pointer to data, not to indices): a float, as a launch passes a scale (an int `alpha` put an
        I2F in the code and, with fp16 data, fp16 math: h24b)."""
        data = pointers - indices
        tainted, params = self._tainted(data), set(self.params) - pointers

        def is_data(expr: ast.expr) -> bool:  # a local computed from loaded data, or a load itself
            return bool(self._names(expr, set()) & tainted) or any(
                self._bases(call.args[0], set()) & data for call in _loads(expr)
            )

        scales: set[str] = set()
        for node in ast.walk(self.fn):
            # not a divisor: data over a count (`tl.sum(x) / n`, a mean) divides by an int as often as not
            if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
                for operand, other in ((node.left, node.right), (node.right, node.left)):
                    name = self._scale(operand, params)
                    if name and is_data(other):
                        scales.add(name)
        return scales

    def _scale(self, expr: ast.expr, params: set[str], depth: int = 0) -> str | None:
        """The parameter an operand is, through casts to a float and locals assigned once (`e =
        eps.to(tl.float32)`, then `x * e`), else None."""
        expr = _uncast(expr)
        if not isinstance(expr, ast.Name):
            return None
        if expr.id in params:
            return expr.id
        values = self.assignments.get(expr.id, [])
        return self._scale(values[0], params, depth + 1) if len(values) == 1 and depth < 4 else None

    def integer_params(self, pointers: set[str], indices: set[str]) -> set[str]:
        """The parameters an address, a mask or a loop's or a range's bound reads: integers, whatever a
        float literal beside them elsewhere says (liger's poly_norm: `cols < n_cols`, then `3.0 / n_cols`,
        made n_cols fp32). A comparison with loaded data (`x > threshold`) is no mask."""
        tainted = self._tainted(pointers - indices)
        used: set[str] = set()
        for expr in self._pointer_expressions():
            used |= self._offsets(expr, set())
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Compare) and len(node.comparators) == 1:
                sides = (node.left, node.comparators[0])
                for side, other in (sides, sides[::-1]):
                    against = self._names(other, set())
                    if against - {"tl"} and not against & tainted:  # against offsets, not data or a literal
                        used |= self._names(side, set())
            func = node.func if isinstance(node, ast.Call) else None
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in _BOUNDS or called == "arange":
                used |= {n for arg in node.args for n in self._names(arg, set())}  # type: ignore[attr-defined]
        return used & set(self.params)

    def _tainted(self, data: set[str]) -> set[str]:
        """The locals computed from what is loaded through the pointers `data`."""
        tainted = {
            name
            for name, values in self.assignments.items()
            if any(self._bases(call.args[0], set()) & data for value in values for call in _loads(value))
        }
        grown = True
        while grown:  # what is computed from loaded data is data too
            more = {n for n, values in self.assignments.items() if any(self._names(v, set()) & tainted for v in values)}
            grown = bool(more - tainted)
            tainted |= more
        return tainted

    def _offsets(self, expr: ast.expr, seen: set[str]) -> set[str]:
        """The names an address adds to its base (`a_ptr + rows * K`: rows and K), through the locals'
        assignments, as `_bases` follows the base; a value stored (`smem.store(tile)`) adds none."""
        if isinstance(expr, ast.Name):
            if expr.id in seen:
                return set()
            seen.add(expr.id)
            # `state_ptr += idx * stride` (mamba): idx is an offset, of a parameter too
            added = {name for value in self.added.get(expr.id, []) for name in self._names(value, set())}
            if expr.id in self.params:
                return added
            plain = [v for v in self.assignments.get(expr.id, []) if v not in self.added.get(expr.id, [])]
            return added | {name for value in plain for name in self._offsets(value, seen)}
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
            if self._bases(expr.left, set()):
                return self._offsets(expr.left, seen) | self._names(expr.right, set())
            return self._names(expr.left, set()) | self._offsets(expr.right, seen)
        if isinstance(expr, ast.Subscript):
            return self._offsets(expr.value, seen)
        return set()

    def _names(self, expr: ast.expr, seen: set[str]) -> set[str]:
        """Every local and parameter an expression reads, through the locals' assignments."""
        found: set[str] = set()
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and node.id not in seen:
                seen.add(node.id)
                found.add(node.id)
                for value in self.assignments.get(node.id, []):
                    found |= self._names(value, seen)
        return found

    def _pointer_expressions(self):
        for node in _outside_branches(self.fn) if self.outside_branches else ast.walk(self.fn):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and (func.attr in _POINTER_FUNCTIONS or func.attr.startswith("atomic_")):
                if node.args:
                    yield node.args[0]
                yield from (kw.value for kw in node.keywords if kw.arg in _POINTER_KEYWORDS)
            elif isinstance(func, ast.Attribute) and len(node.args) > _POINTER_ARGUMENT.get(func.attr, 99):
                yield node.args[_POINTER_ARGUMENT[func.attr]]
            elif isinstance(func, ast.Attribute) and func.attr == "warp_specialize" and node.args:
                yield from self._partition_pointers(node.args[0])
            elif isinstance(func, ast.Name) and func.id in self.functions:
                yield from self._pointer_arguments(node, self.functions[func.id], self.known[func.id].pointers)

    def _partition_pointers(self, partitions: ast.expr):
        """The arguments given to gl.warp_specialize's partitions, [(fn, (args...)), ...], that the
        partition function takes as pointers."""
        for item in getattr(partitions, "elts", []):
            if not isinstance(item, ast.Tuple) or len(item.elts) != 2:
                continue
            fn, args = item.elts
            if isinstance(fn, ast.Name) and fn.id in self.functions and isinstance(args, ast.Tuple):
                call = ast.Call(func=fn, args=list(args.elts), keywords=[])
                yield from self._pointer_arguments(call, self.functions[fn.id], self.known[fn.id].pointers)

    @staticmethod
    def _pointer_arguments(call: ast.Call, callee: ast.FunctionDef, callee_pointers: set[str]):
        names = [a.arg for a in callee.args.posonlyargs + callee.args.args]
        for name, arg in zip(names, call.args, strict=False):  # a call may pass fewer (defaults)
            if name in callee_pointers:
                yield arg
        for kw in call.keywords:
            if kw.arg in callee_pointers:
                yield kw.value

    def _bases(self, expr: ast.expr, seen: set[str]) -> set[str]:
        """The names that an address expression is based on."""
        if isinstance(expr, ast.Name):
            if expr.id in seen:
                return set()
            seen.add(expr.id)
            if expr.id in self.params:
                # A parameter reassigned in the body (`X += row * stride`) is still its own base.
                return {expr.id}
            bases: set[str] = set()
            for value in self.assignments.get(expr.id, []):
                bases |= self._bases(value, seen)
            return bases
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
            left = self._bases(expr.left, seen)
            if left or isinstance(expr.op, ast.Sub):
                return left
            return self._bases(expr.right, seen)
        if isinstance(expr, ast.Subscript):
            return self._bases(expr.value, seen)
        if isinstance(expr, ast.IfExp):
            return self._bases(expr.body, seen) | self._bases(expr.orelse, seen)
        return set()


_BOUNDS = {"range", "static_range", "cdiv"}  # a loop's or a range's bound


def _uncast(expr: ast.expr) -> ast.expr:
    """`alpha.to(tl.float32)` is alpha, as a scale (liger's swiglu casts its `gate_multiplier` so, where a
    launch passes a float); a cast to an integer type is no scale's."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "to"):
        return expr
    dtype = expr.args[0] if expr.args else next((k.value for k in expr.keywords if k.arg == "dtype"), None)
    named = dtype.attr if isinstance(dtype, ast.Attribute) else getattr(dtype, "id", "")
    return expr if "int" in named else expr.func.value


def _loads(expr: ast.expr) -> list[ast.Call]:
    """The tl.load calls an expression makes (`tl.load(p + i) - tl.load(p)`, `tl.load(p).to(...)`)."""
    return [
        node
        for node in ast.walk(expr)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "load"
        and node.args
    ]


def _outside_branches(node: ast.AST):
    """ast.walk, but into no `if` statement's branches (its test is walked)."""
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _outside_branches(child.test) if isinstance(child, ast.If) else _outside_branches(child)


def _float_params(fn: ast.FunctionDef) -> set[str]:
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    floats: set[str] = set()

    def is_float_literal(node: ast.expr) -> bool:
        if isinstance(node, ast.UnaryOp):
            node = node.operand
        return isinstance(node, ast.Constant) and isinstance(node.value, float)

    for node in ast.walk(fn):
        if isinstance(node, ast.BinOp):
            pairs = [(node.left, node.right), (node.right, node.left)]
        elif isinstance(node, ast.Compare) and len(node.comparators) == 1:
            pairs = [(node.left, node.comparators[0]), (node.comparators[0], node.left)]
        else:
            pairs = []
        for name, other in pairs:
            if isinstance(name, ast.Name) and name.id in params and is_float_literal(other):
                floats.add(name.id)
        if isinstance(node, ast.Call):
            func = node.func
            func_name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if func_name in _MATH_FUNCTIONS:
                for arg in node.args:
                    floats |= _arithmetic_names(arg) & params
    return floats


def _arithmetic_names(expr: ast.expr) -> set[str]:
    """The names added, subtracted, multiplied or divided in an expression, `x + eps` giving x and eps:
    what a math function (`tl.rsqrt(var + eps)`) takes as floating point."""
    if isinstance(expr, ast.Name):
        return {expr.id}
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return _arithmetic_names(expr.left) | _arithmetic_names(expr.right)
    if isinstance(expr, ast.UnaryOp):
        return _arithmetic_names(expr.operand)
    return set()
