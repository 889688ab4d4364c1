"""One renderer module per output format. Renderers take finished Compilations: they never compile."""
