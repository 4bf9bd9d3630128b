"""Packages that export their names lazily through engine/lazy.py (PEP 562, issue 26: a cold
`flashback search` imports only what it uses): importing one loads none of its submodules nor
what they bring, and every exported name still resolves, once, to the submodule's object."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAZY_PACKAGES = ("engine.embeddings", "engine.llm", "engine.rerank.flash", "engine.rerank.cross_encoder",
                 "engine.topics", "engine.ask", "engine.api")
HEAVY = ("numpy", "httpx", "sqlalchemy", "hnswlib")


def _run(code: str) -> dict:
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_importing_the_package_loads_none_of_its_submodules(package):
    loaded = _run(f"""
        import json, sys
        import {package}
        print(json.dumps(sorted(sys.modules)))
    """)
    parents = {".".join(package.split(".")[:n]) for n in range(1, package.count(".") + 2)}
    engine_modules = {m for m in loaded if m == "engine" or m.startswith("engine.")}
    assert engine_modules - parents == {"engine.lazy"}
    assert [m for m in loaded if m.split(".")[0] in HEAVY] == []


def test_every_exported_name_resolves_and_unknown_names_fail_as_before():
    found = _run(f"""
        import importlib, json
        report = {{}}
        for package in {LAZY_PACKAGES!r}:
            module = importlib.import_module(package)
            names = list(module.__all__)
            values = {{name: getattr(module, name) for name in names}}
            try:
                module.no_such_name
                error = None
            except AttributeError as exc:
                error = str(exc)
            report[package] = {{
                "all": sorted(names), "dir": dir(module),
                "cached": all(vars(module)[name] is value for name, value in values.items()),
                "from_submodule": all(getattr(value, "__module__", None) != package for value in values.values()),
                "error": error,
            }}
        print(json.dumps(report))
    """)
    for package, seen in found.items():
        assert seen["all"] and seen["dir"] == seen["all"], package
        assert seen["cached"] and seen["from_submodule"], package
        assert seen["error"] == f"module {package!r} has no attribute 'no_such_name'", package


def test_the_packages_use_the_one_helper():
    """No package writes its own `def __getattr__` for exports again (issue 26's duplication)."""
    for package in LAZY_PACKAGES:
        path = ROOT / Path(*package.split(".")) / "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not any(isinstance(node, ast.FunctionDef) and node.name == "__getattr__" for node in tree.body), path
        assert "lazy_exports(__name__" in path.read_text(encoding="utf-8"), path
