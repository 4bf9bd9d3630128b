"""Long engine work in a child process: the one process boundary for heavy work.

`import_build` runs imports and builds in a child Python (progress, the result or the error
as the class it was raised as, cancel), so the window's process keeps its GIL and memory; the
importers' `parse_child` (a grandchild) parses big files beside the writer. Both run under
`engine.child_process`. Where long work runs: docs/architecture.md, "Where long work runs".
"""
