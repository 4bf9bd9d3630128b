"""The window around the search view: menus, import/build with progress, browsing, run
history, the key dialog, the topic viewer, and the one place errors become dialogs.

Import and build run in the engine's child process (`engine.api.pipeline`); this
package only relays it (`import_controller`) and shows its progress."""
