"""What went wrong while a kernel file was imported, in the user's terms: a module not installed, a
relative import of a lone file, an exit, a GPU asked for where none is, or the file's own error, each
named by its file and line."""

from __future__ import annotations

import re
import traceback
from pathlib import Path

from ...core.errors import KernelFileError
from ...core.limits import stuck_at
from .simulated_import import line_in_file

NEEDS_GPU = re.compile(r"CUDA|cuda|active drivers|\bdriver\b|no GPU|device|HIP|ROCm", re.IGNORECASE)


def import_failure(exc: BaseException, path: Path) -> KernelFileError:
    """What went wrong while the file was imported, named by its file and line."""
    line = line_in_file(exc, path)
    where = f"{path}:{line}" if line else str(path)
    if isinstance(exc, ImportError):
        # A missing module is a missing module, whatever its name says (`cuda_utils` is not a GPU).
        chain = " -> ".join(import_chain(exc)) or str(path)
        if isinstance(exc, ModuleNotFoundError) and exc.name:
            return KernelFileError(
                f"{where}: the file needs the module '{exc.name}', which is not installed here; import chain: {chain}",
                hint=f"install what provides '{exc.name.split('.')[0]}' here, or give the kernel in a file "
                "that does not import it",
            )
        if "no known parent package" in str(exc):
            return KernelFileError(
                f"{where}: the file imports relative to its package ({exc}), and no folder above it holds an "
                "__init__.py, so it was imported as a lone file",
                hint="give it as a module from the folder that holds its package (cd there; tritonscope list "
                "pkg.module), or add an __init__.py to the package's top folder",
            )
        return KernelFileError(f"{where}: the file's imports failed: {exc}; import chain: {chain}")
    if isinstance(exc, Exited):
        return KernelFileError(f"{where}: the file called {exc.call} while being imported")
    if NEEDS_GPU.search(f"{type(exc).__name__}: {exc}"):
        return KernelFileError(
            f"{where}: the file needs a GPU while being imported, and none is visible here "
            f"({type(exc).__name__}: {exc})",
            hint="with torch installed, tritonscope imports such a file against a simulated GPU; or move GPU "
            'work under `if __name__ == "__main__":` or into a function',
        )
    return KernelFileError(f"{where}: the file raised {type(exc).__name__} while being imported: {exc}")


def import_chain(exc: BaseException) -> list[str]:
    """`file:line` of each import statement on the way to the failure (Python's import machinery
    and tritonscope's own frames left out), outermost first."""
    frames = traceback.extract_tb(exc.__traceback__)
    return [f"{f.filename}:{f.lineno}" for f in frames if stuck_at([(f.filename, f.lineno)])]


class Exited(BaseException):
    """The file called os._exit() or os.abort() while being imported: reported, not obeyed."""

    def __init__(self, call: str):
        super().__init__(call)
        self.call = call
