"""A kernel FILE and a --target, each parsed once where the request is made (core/source.py,
core/targets.py), and what a request carries to the processes that compile it."""

from __future__ import annotations

import pickle
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from tritonscope.app.walk.prepare import prepare
from tritonscope.core import targets
from tritonscope.core.errors import KernelFileError, UsageError
from tritonscope.core.model import Variant, VariantRequest
from tritonscope.core.samples import sample_path
from tritonscope.core.source import (
    CachedKernel,
    CaptureFolder,
    KernelFile,
    ModuleReference,
    SampleKernel,
    cached_kernel,
    in_folder,
    own_paths,
    parse,
)
from tritonscope.core.stages import Stage
from tritonscope.isolate.cluster import relocate


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A folder holding a kernel file, a capture-like folder and a package, as the working folder."""
    shutil.copy(sample_path("vector_add"), tmp_path / "add.py")
    (tmp_path / "run1").mkdir()
    (tmp_path / "kpkg").mkdir()
    (tmp_path / "kpkg" / "__init__.py").write_text("")
    (tmp_path / "kpkg" / "scale.py").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_each_kind_of_source_is_told_apart(workspace):
    assert parse("sample:matmul") == SampleKernel("sample:matmul", "matmul")
    assert parse("add.py") == KernelFile("add.py", str(workspace / "add.py"))
    assert parse("run1/:add_kernel") == CachedKernel("run1/:add_kernel", "run1/", "add_kernel")
    assert parse("run1:add_kernel") == CachedKernel("run1:add_kernel", "run1", "add_kernel")
    assert parse(":add_kernel") == CachedKernel(":add_kernel", "", "add_kernel")  # the working folder's
    assert parse("run1/") == CaptureFolder("run1/") and parse("run1/").folder == Path("run1")
    scale = str(workspace / "kpkg" / "scale.py")
    assert parse("kpkg.scale:scale_kernel") == ModuleReference(
        "kpkg.scale:scale_kernel", "kpkg.scale", "scale_kernel", scale
    )
    assert parse("kpkg.scale") == ModuleReference("kpkg.scale", "kpkg.scale", None, scale)
    # Not what they look like: a missing folder's `:NAME`, a .py name, a file that exists under a dotted name.
    assert parse("missing/:k") == KernelFile("missing/:k", str(workspace / "missing" / ":k"))
    assert parse("kernels.py") == KernelFile("kernels.py", str(workspace / "kernels.py"))
    (workspace / "kpkg.scale").write_text("")
    assert isinstance(parse("kpkg.scale"), KernelFile)
    assert [str(parse(given)) for given in ("sample:matmul", "add.py", "run1/:k")] == [
        "sample:matmul",
        "add.py",
        "run1/:k",
    ]


def test_a_path_from_home_is_read_where_no_shell_expanded_it(workspace, monkeypatch):
    """`~/.triton/cache` as an agent, the API or a quoted argument gives it: no shell expanded the `~`,
    and the folder was refused as missing (h22a)."""
    monkeypatch.setenv("HOME", str(workspace))
    assert parse("~/run1/:add_kernel") == CachedKernel(
        f"{workspace}/run1/:add_kernel", f"{workspace}/run1/", "add_kernel"
    )
    assert parse("~/run1") == CaptureFolder(f"{workspace}/run1")
    assert parse("~/add.py") == KernelFile(f"{workspace}/add.py", str(workspace / "add.py"))


def test_a_module_on_no_path_is_said_at_once(workspace):
    with pytest.raises(KernelFileError, match="no module nowhere.scale on Python's path"):
        parse("nowhere.scale:k")


def test_what_only_a_loader_can_tell_fails_where_it_is_loaded(workspace):
    """A missing file or sample parses (a request may be made for it, as a test's is); loading says so."""
    from tritonscope.app.walk.load import load_file

    for given, said in (("absent.py", "no such file: absent.py"), ("sample:absent", "no sample named 'absent'")):
        with pytest.raises(KernelFileError, match=said):
            load_file(VariantRequest(file=given).source)
    with pytest.raises(KernelFileError, match="run1/:k is a compiled kernel from a cache"):
        load_file(parse("run1/:k"))
    with pytest.raises(KernelFileError, match="run1/ is a directory"):
        load_file(parse("run1/"))


def test_a_request_keeps_the_file_resolved_where_it_was_made(workspace, monkeypatch):
    """A worker (or a node) that starts elsewhere compiles the file the user named, not one of its folder."""
    request = VariantRequest(file="add.py", target="sm90", args=(("n_elements", 4096),))
    elsewhere = workspace / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    travelled = pickle.loads(pickle.dumps(request))  # as it reaches a worker: not parsed again there
    assert travelled == request and travelled.source == KernelFile("add.py", str(workspace / "add.py"))
    assert replace(travelled, num_warps=2).source == request.source  # a sweep's variants keep it too
    prepared = prepare(travelled)
    assert prepared.kernel.spec.file == str(workspace / "add.py") and prepared.kernel.spec.name == "add_kernel"
    assert prepared.variant.file == "add.py"  # what the user typed: messages, command lines and JSON show it
    node = relocate(request, str(workspace), "/node/copy")  # cluster.py: the node's copy of the folder
    assert node.source == KernelFile("add.py", "/node/copy/add.py")


def test_a_module_reference_compiles_the_module_file_as_typed(workspace):
    (workspace / "kpkg" / "scale.py").write_text(sample_path("vector_add").read_text())
    request = VariantRequest(file="kpkg.scale:add_kernel", target="sm90", args=(("n_elements", 4096),))
    assert isinstance(request.source, ModuleReference)
    assert prepare(request).kernel.spec.file == str(workspace / "kpkg" / "scale.py")


def test_a_reference_argument_and_a_project_file_entry():
    assert cached_kernel("missing/:k") == CachedKernel("missing/:k", "missing/", "k")  # reproduce reads, and says
    assert cached_kernel("missing/:k").folder_path.name == "missing"
    assert in_folder("sample:matmul", Path("/proj")) == "sample:matmul"
    assert in_folder("kernels/add.py", Path("/proj")) == "/proj/kernels/add.py"
    assert [str(p) for p in own_paths(["sample:matmul", "k.py"])] == ["k.py"]


def test_an_unknown_target_lists_the_gpu_names_taken_and_the_nearest_of_them():
    """`-t h1000` listed the targets' names, not h100 or a100, which are taken, and guessed nothing (h24b)."""
    names = targets.gpu_names()
    assert {"h100", "a100", "b200", "t4", "mi300"} <= set(names) and not {"hbm3e", "cdna3"} & set(names)
    assert all(targets.parse_name(name) in targets.TARGETS for name in names)
    with pytest.raises(UsageError) as refused:
        targets.parse_name("h1000")
    assert "or a GPU's name (a100, " in refused.value.message and refused.value.hint == "did you mean h100?"


def test_a_target_is_parsed_at_the_edge_and_read_back_by_name():
    assert targets.parse_name(" SM_90 ") == "sm90" and targets.parse_name("AUTO") == "auto"
    with pytest.raises(UsageError, match="unknown target 'sm42'. Valid targets: sm75"):
        targets.parse_name("sm42")
    assert targets.named("gfx942") is targets.TARGETS["gfx942"] and targets.named("gfx9000") is None
    variant = Variant("k", "k.py", "gfx942", {}, {}, {}, {}, {})
    assert variant.target_info.vendor.machine_code is Stage.AMDGCN and variant.target_info.warp_size == 64
    resolved, notice = targets.resolve_target("auto")
    assert resolved is targets.auto() and (notice is None) == (targets.local_target() is not None)
