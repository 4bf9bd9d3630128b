"""The window around the search view: menus, import/build with progress, browsing, run
history, the key dialog, the topic viewer, and the one place errors become dialogs.

`pipeline` and `cancel` are Qt-free (the import/build child process runs them)."""
