"""One module per command: parse the flags, call app/, emit the result through a renderer.
Imported in the order `tritonscope --help` lists them."""

from . import samples, listing, dump, compare, explain, check, diff, passes, report, bench, profile  # noqa: F401, I001
from . import layout, grid, cache, trace, envs, reproduce  # noqa: F401, I001
