"""Flashback's headless core: store, importers, retrieval. Never imports Qt, `ui` or `app`."""
