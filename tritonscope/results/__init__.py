"""What each command returns: frozen results that renderers turn into text, JSON, HTML or files.

One module per command family. Each result type names its JSON document's `kind` and the
`exit_status` the command ends with (core/status.py). Results sit between analysis/ and
app/ + render/: app/ builds them, render/ draws them, and nothing here imports either.
"""
