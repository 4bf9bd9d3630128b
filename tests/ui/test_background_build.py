"""Issue 26: a window opened on a store with messages no build has reached (an import by
`flashback import`) builds them in the background with the built-in embedder, once; searches
meanwhile answer from what is built plus those messages' words. A store with nothing to build
has its topic index loaded as the window opens, before the first query waits for it."""

from __future__ import annotations

from app.gui import DEMO_EXPORT
from app.keys import KeyStore
from engine.api import Flashback
from tests.ui.test_main_window import _isolated, wait_idle  # noqa: F401  (the fixture isolates QSettings)
from ui.main_window import MainWindow


def _open(qtbot, service: Flashback) -> MainWindow:
    window = MainWindow(service, KeyStore(), demo_export=DEMO_EXPORT)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_an_unbuilt_import_is_built_in_the_background_as_the_window_opens(qtbot, tmp_path):
    service = Flashback(tmp_path / "data")
    service.imports.import_path(DEMO_EXPORT)  # imported, never built
    assert service.memory.status().needs_build
    window = _open(qtbot, service)
    qtbot.waitUntil(lambda: window.imports.busy, timeout=30_000)  # started without being asked
    found = service.search.candidates("Lisbon hotel")  # meanwhile: what is built, and the rest by their words
    assert found.candidates and ("unbuilt" in found.rebuilt or any(c.kind == "topic" for c in found.candidates))
    wait_idle(qtbot, window, timeout=120_000)
    assert window.progress_panel.title.text() == "Done"
    assert not service.memory.status().needs_build and service.store.stats().topics > 50


def test_a_built_store_has_its_index_loaded_as_the_window_opens(qtbot, tmp_path):
    service = Flashback(tmp_path / "data")
    service.imports.import_path(DEMO_EXPORT)
    service.memory.build()
    window = _open(qtbot, service)
    # The retriever the window searches with (it may have been remade as the window chose its
    # embedder): its topic index is loaded in the background while the window opens.
    qtbot.waitUntil(lambda: service._context.retriever().indexes.loaded("topic") is not None, timeout=30_000)
    assert not window.imports.busy  # nothing to build: nothing started
