"""Flashback's entry point and wiring: settings, keys, the CLI, and the GUI start-up."""


def __getattr__(name: str) -> str:
    """`__version__`, read from the installed distribution on first use (importlib.metadata
    costs a cold CLI command ~35 ms, and only --version, the window's About and the crash
    log ask for it)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("flashback")  # from the installed distribution: one number, in pyproject.toml
    except PackageNotFoundError:  # a bare checkout on sys.path, never installed
        found = "0+unknown"
    globals()["__version__"] = found
    return found
