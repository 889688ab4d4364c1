"""The only code that imports Triton. Differences between Triton releases live here, as small
named shims ("since 3.x: ..."); the rest of tritonscope sees plain data and these functions."""
