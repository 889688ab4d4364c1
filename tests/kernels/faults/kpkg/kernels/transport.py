"""The library module that imports the missing dependency."""

import zmq_not_installed_anywhere  # noqa: F401


def send():
    pass
