"""Flashback's entry point and wiring: settings, keys, the CLI, and the GUI start-up."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("flashback")  # from the installed distribution: one number, in pyproject.toml
except PackageNotFoundError:  # a bare checkout on sys.path, never installed
    __version__ = "0+unknown"
