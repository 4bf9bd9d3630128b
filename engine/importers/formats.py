"""The import formats by name: what `--format` offers, without loading any importer (issue 26:
the CLI builds its parser for every command, and a search should not import the importers)."""

FORMATS = ("telegram", "chatgpt", "whatsapp", "jsonl", "discord", "messenger", "slack", "signal", "imessage",
           "line")

# About how many bytes of an export hold one message, by format: the import guesses a file's
# messages from its size, to choose a parse child and the bulk path (`engine.importers.runner`).
# A text format holds five times more messages per byte than Telegram's JSON, so the byte
# thresholds measured on Telegram would keep a 200,000-message WhatsApp chat off both (issue 34).
# Rounded down from the synthetic exports of bench/import_speed.py, import_formats.py and
# import_text_formats.py (Signal and iMessage: their Markdown/TXT and JSON/HTML forms between).
BYTES_PER_MESSAGE = {"telegram": 400, "chatgpt": 800, "whatsapp": 70, "jsonl": 200, "discord": 700,
                     "messenger": 300, "slack": 250, "signal": 120, "imessage": 120, "line": 60}


def expected_messages(size: int, format_name: str) -> int:
    """About how many messages an export of `size` bytes in `format_name` holds."""
    return size // BYTES_PER_MESSAGE.get(format_name, 400)
