"""The bundle's entry point: the same `flashback` command as the console script (`app.entry:main`).

PyInstaller freezes this file as the executable's `__main__`; everything else it finds by
following the imports from here (the spec adds what a static scan cannot see).

A frozen app has no separate Python to start, and `sys.executable` is the app itself. So
`flashback -c CODE` runs CODE the way `python -c CODE` would: the import and build child
processes (`engine/importers/parse_child.py`, `engine/api/pipeline.py` start `[sys.executable, "-c",
boot]`) can then run in a bundle too, instead of falling back to a thread.
"""

import sys


def _python_c(code: str, argv: list[str]) -> None:
    sys.argv = ["-c", *argv]
    exec(compile(code, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})


if __name__ == "__main__":
    if getattr(sys, "frozen", False) and len(sys.argv) > 2 and sys.argv[1] == "-c":
        _python_c(sys.argv[2], sys.argv[3:])
        sys.exit(0)
    from app.entry import main

    sys.exit(main())
