"""The settings file's text, exactly as Qt's QSettings IniFormat reads and writes it, without Qt.

The window keeps its layout (geometry, columns, notices) in the same file through QSettings,
so the engine reads and writes it the way Qt does: `[section]` headers, `key=value` lines,
`true`/`false` for booleans, numbers in their shortest form, strings quoted when they hold
a comma, `;` or `=` or start or end with a space, `\\"`, `\\\\` and control characters escaped,
a leading `@` doubled. Writing replaces only the lines of the keys given; every other line
(Qt's `@ByteArray(…)` geometry, comments) stays as it was, and the file is replaced whole,
so Qt or another process never reads half of it. Loading Qt into the CLI or an assistant's
server would cost ~250 MB and a second or two per start.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "0": "\0"}
_WRITTEN = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
            "\0": "\\0", '"': '\\"', "\\": "\\\\"}
_HEX = "0123456789abcdefABCDEF"
_BLANK = " \t\r\n\v\f"  # what Qt trims: ASCII only (Python's strip() also takes U+0085, U+2028, …)


def _lines(text: str) -> list[str]:
    """Lines as Qt splits them: at \n and \r only (str.splitlines also splits at U+0085, U+2028, …)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def unescape(raw: str) -> str | None:
    """A value as the string Qt wrote; None for what no setting holds (a string list, a
    @ByteArray or @Variant). Qt 5 wrote non-ASCII as `\\xHHHH` UTF-16 units; Qt 6 as UTF-8."""
    raw = raw.strip(_BLANK)
    if raw.startswith("@"):
        if raw.startswith("@@"):
            raw = raw[1:]
        elif raw.startswith("@String(") and raw.endswith(")"):
            return raw[len("@String("):-1]
        else:
            return None
    units: list[str] = []
    quoted, index = False, 0
    while index < len(raw):
        char = raw[index]
        index += 1
        if char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            return None  # a string list
        elif char == "\\" and index < len(raw):
            code = raw[index]
            index += 1
            if code == "x":  # \xHHHH: one UTF-16 code unit
                digits = ""
                while index < len(raw) and len(digits) < 4 and raw[index] in _HEX:
                    digits, index = digits + raw[index], index + 1
                units.append(chr(int(digits, 16)) if digits else "x")
            else:
                units.append(_ESCAPES.get(code, code))
        else:
            units.append(char)
    text = "".join(units)  # two \x units of a surrogate pair make one character
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace") if any(
        "\ud800" <= unit <= "\udfff" for unit in units) else text


def escape(value: str) -> str:
    """`value` as Qt's IniFormat writes a string (the inverse of `unescape`)."""
    out: list[str] = []
    after_hex = False  # Qt escapes a hex digit right after an escape, so it is not read as part of it
    for char in value:
        if after_hex and char in _HEX:
            out.append(f"\\x{ord(char):x}")
            continue
        after_hex = False
        if char in _WRITTEN:
            out.append(_WRITTEN[char])
            after_hex = char == "\0"
        elif ord(char) < 0x20:
            out.append(f"\\x{ord(char):x}")
            after_hex = True
        else:
            out.append(char)
    text = "".join(out)
    if any(mark in value for mark in ";,=") or value[:1] == " " or value[-1:] == " ":
        text = f'"{text}"'
    return "@" + text if value.startswith("@") else text


def format_value(value: bool | int | float | str) -> str:
    """A saved value as QSettings writes it in an INI file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _shortest(value)
    return escape(value)


def _shortest(number: float) -> str:
    """The shortest text that reads back as `number` (Qt may pick "2e+05" where this writes
    "200000": either reads back the same)."""
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


def read_sections(path: Path) -> dict[str, dict[str, str]]:
    """Every section's keys and raw (still escaped) values; {} when the file is missing or unreadable."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    sections: dict[str, dict[str, str]] = {}
    section = "General"
    for line in _lines(text):
        line = line.strip(_BLANK)
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip(_BLANK)
        elif "=" in line and not line.startswith(";"):
            key, _, raw = line.partition("=")
            sections.setdefault(section, {})[key.strip(_BLANK)] = raw
    return sections


def write_keys(path: Path, section: str, values: dict[str, str]) -> None:
    """Set `values` (already formatted) in `[section]` of the file at `path` (made if missing):
    keys already there are replaced where they stand, new ones follow the section's last key."""
    try:
        lines = _lines(path.read_text(encoding="utf-8"))
        if lines and lines[-1] == "":
            lines.pop()  # the final newline
    except FileNotFoundError:
        lines = []
    out: list[str] = []
    pending = dict(values)
    in_section = found = False
    last_key_at = -1  # where the section's new keys go: after its last line that is not blank

    def flush() -> None:
        nonlocal pending
        at = last_key_at + 1
        out[at:at] = [f"{key}={value}" for key, value in pending.items()]
        pending = {}

    for line in lines:
        stripped = line.strip(_BLANK)
        if stripped.startswith("[") and stripped.endswith("]"):
            if in_section:
                flush()
            in_section = stripped[1:-1].strip(_BLANK) == section
            found = found or in_section
            out.append(line)
            last_key_at = len(out) - 1
            continue
        if in_section and "=" in stripped and not stripped.startswith(";"):
            key = stripped.partition("=")[0].strip(_BLANK)
            if key in pending:
                line = f"{key}={pending.pop(key)}"
        out.append(line)
        if in_section and stripped:
            last_key_at = len(out) - 1
    if in_section:
        flush()
    if not found:
        if out and out[-1].strip(_BLANK):
            out.append("")
        out.append(f"[{section}]")
        out.extend(f"{key}={value}" for key, value in values.items())
    replace_file(path, "\n".join(out) + "\n")


def replace_file(path: Path, text: str) -> None:
    """Write the whole file at once, keeping its permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
