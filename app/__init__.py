"""Flashback's entry point and wiring: settings, keys, the CLI, and the GUI start-up."""
