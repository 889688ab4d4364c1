"""One module per command: parse the flags, call app/, return the result (or an Output naming its
view's options and its files) for the wrapper to draw and write. Imported in the order
`tritonscope --help` lists them."""

from . import samples, listing, dump, compare, explain, check, diff, passes, report, bench, profile  # noqa: F401, I001
from . import layout, grid, cache, trace, envs, reproduce, agent  # noqa: F401, I001
from . import fit, explore, recompiles  # noqa: F401, I001
