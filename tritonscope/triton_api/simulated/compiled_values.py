"""A graph torch.compile compiled, in the log of host_values.py: the FX graph Inductor was given
(forward, backward or inference; AOTAutograd's ATen graph), kept as it was before Inductor's own
passes, and run eagerly on the host when a value it made is read. The Triton kernels Inductor makes
of it are compiled for the target and launched (recorded) as before, never run; while the compiled
code runs, its inner operators (Inductor's allocations, its calls of library kernels) are not the
program's and are not logged: the graph's outputs get their values from the graph's host run."""

from __future__ import annotations

from .after_import import after_import
from .pending_results import PENDING

GRAPH = "_tritonscope_graph"


class GraphRun:
    """Runs a copy of the FX graph on host tensors, each operator as host_ops runs one, each result
    laid out as its device value was when the graph was traced; NOTING: the results shaped by
    values are noted in PENDING, for the compiled code's own calls of those operators."""

    __slots__ = ("graph", "noting")

    def __init__(self, graph, noting: bool = False) -> None:
        self.graph, self.noting = graph, noting

    def __call__(self, args, kwargs):
        return list(_OnTheHost(self.graph, self.noting).run(*args))


def _interpreter():
    import torch.fx

    from . import host_ops

    class OnTheHost(torch.fx.Interpreter):
        def __init__(self, graph, noting: bool) -> None:
            super().__init__(graph)
            self.noting = noting

        def run_node(self, node):
            result = super().run_node(node)
            if self.noting and _shaped_name(node):
                PENDING.append((node.target.overloadpacket.__name__, result))
            return _as_on_the_device(node, result, self.env)

        def call_function(self, target, args, kwargs):
            if isinstance(target, torch._ops.OpOverload):
                return host_ops.Eager(target)(args, kwargs)
            args, kwargs = torch.utils._pytree.tree_map(host_ops._on_the_host, (args, kwargs))
            return target(*args, **kwargs)

    return OnTheHost


def _OnTheHost(graph, noting: bool):  # noqa: N802 - made once, when a graph first runs on the host
    if not _made:
        _made.append(_interpreter())
    return _made[0](graph, noting)


_made: list = []


def _as_on_the_device(node, result, env):
    """A node's host result with the strides its device value had when the graph was traced."""
    from . import host_ops

    value = node.meta.get("val") if node.op == "call_function" else None
    if value is None:
        return result
    inputs = {host_ops._storage(v) for v in env.values() if hasattr(v, "untyped_storage")}

    def one(made, traced):
        if not (hasattr(made, "stride") and hasattr(traced, "stride")):
            return made
        strides = tuple(traced.stride())
        try:
            if all(type(s) is int for s in strides):
                return host_ops.laid_out(made, strides, inputs)
            # symbolic (a graph compiled for dynamic shapes): its dimensions' order, from the hints
            return host_ops.laid_out_in_order(made, [int(s) for s in strides], inputs)
        except (TypeError, RuntimeError, ValueError):
            return made

    if isinstance(result, (tuple, list)) and isinstance(value, (tuple, list)) and len(result) == len(value):
        return type(result)(one(m, t) for m, t in zip(result, value, strict=True))
    return one(result, value)


def _copy(gm):
    """GM's graph copied (its nodes; the module's constants are shared), before Inductor's passes
    rewrite it in place."""
    import torch.fx

    graph = torch.fx.Graph()
    values: dict = {}
    output = graph.graph_copy(gm.graph, values, return_output_node=True)
    graph.output(output[0] if isinstance(output, tuple) else output)
    return torch.fx.GraphModule(gm, graph)


def _mutated_inputs(graph) -> list[int]:
    """Positions of the placeholders the graph writes in place (`copy_` into an input, an in-place op)."""
    placeholders = [n for n in graph.graph.nodes if n.op == "placeholder"]
    written = set()
    for node in graph.graph.nodes:
        schema = getattr(node.target, "_schema", None)
        if node.op != "call_function" or schema is None:
            continue
        for argument, value in zip(schema.arguments, node.args, strict=False):
            if argument.alias_info is not None and argument.alias_info.is_write and value in placeholders:
                written.add(placeholders.index(value))
    return sorted(written)


def _keep_graphs(compile_fx) -> None:
    original = compile_fx._compile_fx_inner

    def _compile_fx_inner(gm, example_inputs, *args, **kwargs):
        kept = _copy(gm)
        compiled = original(gm, example_inputs, *args, **kwargs)
        try:
            setattr(compiled, GRAPH, (kept, _mutated_inputs(kept)))
        except AttributeError:  # an output code that takes no attribute: its values stay unknown
            pass
        return compiled

    compile_fx._compile_fx_inner = _compile_fx_inner


def _log_calls(output_code) -> None:
    from torch._subclasses.fake_tensor import FakeTensor

    from .host_values import LOG

    cls = output_code.CompiledFxGraph
    original = cls.__call__

    def __call__(self, inputs):
        kept = getattr(self, GRAPH, None)
        if kept is None or LOG.suspended:
            return original(self, inputs)
        graph, mutated = kept
        args = list(inputs)  # the compiled code empties the list it is given
        if _shaped_by_values(graph):
            return _run_on_the_host_first(original, self, inputs, graph, args)
        LOG.suspended += 1
        try:
            outputs = original(self, inputs)
        finally:
            LOG.suspended -= 1
        written = [args[i] for i in mutated if i < len(args)]
        LOG.record(GraphRun(graph), tuple(args), {}, list(outputs), FakeTensor, written)
        return outputs

    cls.__call__ = __call__


# Operators whose result's shape (or a scalar) depends on the values: a graph holding one is run on the
# host before its compiled code, which is then given the host's results for them, in order.
SHAPED = {"nonzero", "masked_select", "unique", "_unique2", "unique_dim", "unique_consecutive", "bincount"}
SHAPED |= {"index", "repeat_interleave", "_local_scalar_dense", "argwhere"}


def _shaped_by_values(graph) -> bool:
    names = getattr(graph, "_tritonscope_shaped", None)
    if names is None:
        names = graph._tritonscope_shaped = [_shaped_name(n) for n in graph.graph.nodes if _shaped_name(n)]
    return bool(names)


def _shaped_name(node) -> str | None:
    """The operator's name where NODE's result is shaped by values (indexing only with a boolean mask)."""
    packet = getattr(node.target, "overloadpacket", None) if node.op == "call_function" else None
    name = getattr(packet, "__name__", None)
    if name not in SHAPED:
        return None
    if name == "index":
        import torch

        indices = node.args[1] if len(node.args) > 1 else []
        masks = [i for i in indices if getattr(getattr(i, "meta", {}).get("val"), "dtype", None) == torch.bool]
        return name if masks else None
    return name


def _run_on_the_host_first(original, compiled, inputs, graph, args):
    """A graph with results shaped by values: its inputs are read (one read of the program's), the
    graph runs on the host, and the compiled code runs with those results (the sizes Inductor's
    unbacked symbols take, as on the GPU); its outputs hold the host run's values."""
    from torch._subclasses.fake_tensor import FakeTensor

    from . import stop
    from .host_values import KEY, LOG, Token

    fakes = [a for a in args if isinstance(a, FakeTensor)]
    names = ", ".join(sorted(set(graph._tritonscope_shaped)))
    asked = f"aten.{names} in a compiled graph (a result whose shape depends on the values)"
    values = iter(stop._answered(stop.program_caller(), asked, fakes) if fakes else [])
    host_args = [next(values) if isinstance(a, FakeTensor) else a for a in args]
    LOG.suspended += 1
    try:
        PENDING[:] = []
        results = GraphRun(graph, noting=True)(host_args, {})
        outputs = original(compiled, inputs)
    finally:
        LOG.suspended -= 1
        PENDING[:] = []
    for output, result in zip(outputs, results, strict=False):
        if isinstance(output, FakeTensor) and not any(output is a for a in args):
            token = output.__dict__[KEY] = Token()
            token.value = result
    return outputs


def install() -> None:
    after_import("torch._inductor.compile_fx", _keep_graphs)
    after_import("torch._inductor.output_code", _log_calls)
