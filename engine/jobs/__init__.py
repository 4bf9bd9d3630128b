"""Long engine work in a child process: the one process boundary for heavy work.

`import_build` runs imports and builds in a child Python that speaks JSON lines (progress,
the result, cancel on stdin), so the window's process keeps its GIL and memory; the
importers' `parse_child` (a grandchild, marshal frames) parses big files beside the
writer. Where long work runs: docs/architecture.md, "Where long work runs".
"""
