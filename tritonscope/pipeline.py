"""The one pipeline every command walks: load, specialize, compile. Rendering is the caller's."""

from __future__ import annotations

from dataclasses import replace

from .errors import UsageError
from .model import AMD_STAGES, NVIDIA_STAGES, Compilation, Stage
from .specialize import VariantRequest
from .targets import Target, resolve


def compile_request(request: VariantRequest) -> Compilation:
    from . import cache
    from .compile import compile_variant, from_cache
    from .load import load_file
    from .specialize import specialize

    if cache.is_reference(request.file):
        if request != VariantRequest(file=request.file):
            raise UsageError(f"{request.file} is already compiled: variant flags (-c, -a, --target...) do not apply")
        return from_cache(cache.find(request.file), request.file)
    target, notice = resolve(request.target)
    loaded = load_file(request.file)
    kernel = loaded.pick(request.kernel)
    variant = specialize(kernel, request, loaded.defaults, target)
    compilation = compile_variant(kernel, variant)
    if notice:
        compilation = replace(compilation, notices=(notice, *compilation.notices))
    return compilation


def stages_for(target: Target) -> tuple[Stage, ...]:
    return NVIDIA_STAGES if target.is_nvidia else AMD_STAGES


def select_stages(text: str | None, target: Target) -> list[Stage]:
    """The stages named in a comma-separated --stage value, in pipeline order; all when None."""
    available = stages_for(target)
    if text is None:
        return list(available)
    wanted = [word.strip().lower() for word in text.split(",") if word.strip()]
    names = ", ".join(s.value for s in available)
    for word in wanted:
        if word not in {s.value for s in Stage}:
            raise UsageError(f"unknown stage '{word}'. Stages for {target.name}: {names}")
        if Stage(word) not in available:
            raise UsageError(f"stage '{word}' is not produced for {target.name}. Stages for {target.name}: {names}")
    if not wanted:
        raise UsageError(f"--stage is empty. Stages for {target.name}: {names}")
    return [s for s in available if s.value in wanted]
