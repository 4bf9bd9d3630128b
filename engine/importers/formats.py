"""The import formats by name: what `--format` offers, without loading any importer (issue 26:
the CLI builds its parser for every command, and a search should not import the importers)."""

FORMATS = ("telegram", "chatgpt", "whatsapp", "jsonl", "discord", "messenger", "slack", "signal", "imessage",
           "line")
