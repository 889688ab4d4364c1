"""One module per command: parse the flags, call app/, emit the result through a renderer.
Imported in the order `tritonscope --help` lists them."""

from . import samples, listing, dump, compare, explain, check, diff, passes, report, bench, layout, grid, cache, trace  # noqa: F401, I001
from . import reproduce  # noqa: F401
