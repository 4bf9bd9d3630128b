"""`engine/` is the headless core: it must never import Qt, `ui` or `app`."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "qasync", "ui", "app")


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_engine_sources_import_no_qt_ui_or_app():
    offenders = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        for name in _imported_modules(path):
            if name.split(".")[0] in FORBIDDEN:
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_importing_the_engine_loads_no_qt():
    code = (
        "import sys, engine.api, engine.api.facade, engine.api.pipeline, engine.importers.runner;"
        "import engine.importers.writer;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'ui', 'app')];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# Engine packages from the bottom up: a package may import only from layers below its own
# (docs/architecture.md, "Layers"). Top-level modules (errors.py, scrub.py, …) count as packages.
LAYERS = (
    {"lazy"},  # lazy package exports (PEP 562, issue 26): the standard library only, any package may use it
    {"messages"},  # message codes and their catalogues: everything below the faces says things through them
    {"errors", "scrub", "http_retry", "text", "progress", "changes"},
    {"store", "llm", "index", "embeddings", "child_process", "support"},  # child_process: the one child-process harness; support: the verifier (issue 32)
    {"importers", "topics"},
    {"memory", "browse", "facts"},  # facts: the Archivist (issue 33) over store, llm, support and topics
    {"retrieval"},
    {"rerank"},
    {"export", "traces", "evaluation"},
    {"ask"},  # the answer flow (issue 27): plan, search, compose, answer, verify over the layers below
    {"api"},  # the one surface the faces (window, CLI, MCP) import
)


def _engine_package(path: Path) -> str:
    parts = path.relative_to(ROOT / "engine").parts
    return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")


def _package_imports() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) package pairs → the files that make them; imports inside
    functions and under TYPE_CHECKING count too (a cycle is a cycle however late it runs)."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        source = _engine_package(path)
        for name in _imported_modules(path):
            if name.startswith("engine.") and name.split(".")[1] != source:
                edges.setdefault((source, name.split(".")[1]), []).append(str(path.relative_to(ROOT)))
    return edges


def test_engine_packages_import_only_from_layers_below():
    layer_of = {package: number for number, layer in enumerate(LAYERS) for package in layer}
    edges = _package_imports()
    unknown = sorted({p for pair in edges for p in pair} - set(layer_of))
    assert unknown == [], f"add these engine packages to LAYERS: {unknown}"
    upward = [f"{a} → {b} ({', '.join(sorted(set(files)))})" for (a, b), files in sorted(edges.items())
              if layer_of[b] >= layer_of[a]]
    assert upward == [], "imports that go up or sideways (a cycle in the making):\n" + "\n".join(upward)



def test_transactions_are_begun_only_by_the_one_helper():
    """Issue 13: hand-written BEGIN/ROLLBACK had spread to six files; one crept back in
    (memory/health.py) before this check existed. Only engine/store/transaction.py begins one."""
    helper = ROOT / "engine" / "store" / "transaction.py"
    offenders = []
    for path in sorted(p for root in ("engine", "app", "ui") for p in (ROOT / root).rglob("*.py")):
        if path == helper:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value.lstrip().upper().startswith(("BEGIN", "ROLLBACK", "COMMIT")):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value.strip()[:40]}")
    assert offenders == []


def _engine_imports_of_faces() -> list[str]:
    """Imports of the engine from ui/ and app/ (any depth, inside functions too) that are not
    `engine.api` itself: the faces reach the engine through its one surface (issue 22)."""
    offenders = []
    for face in ("ui", "app"):
        for path in sorted((ROOT / face).rglob("*.py")):
            for name in _imported_modules(path):
                if (name == "engine" or name.startswith("engine.")) and name != "engine.api":
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    return offenders


def test_the_faces_import_only_engine_api():
    assert _engine_imports_of_faces() == []


def test_ui_does_not_import_app():
    offenders = [f"{path.relative_to(ROOT)} imports {name}" for path in sorted((ROOT / "ui").rglob("*.py"))
                 for name in _imported_modules(path) if name == "app" or name.startswith("app.")]
    assert offenders == []
