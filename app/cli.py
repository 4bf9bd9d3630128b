"""The `flashback` command: import, stats, and (with no sub-command) the desktop app."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import NoReturn

from app import (
    cli_ask,
    cli_chats,
    cli_check,
    cli_eval_answers,
    cli_eval_facts,
    cli_facts,
    cli_forget,
    cli_keys,
    cli_memory,
    cli_owner,
    cli_runs,
    cli_tune,
    crash,
    mcp_server,
)
from app.cli_options import fill_saved, say
from app.cli_output import waiting_note, words
from app.privacy import private_umask, tighten
from app.saved_settings import saved_values
from app.settings import READING_COMMANDS, data_dir_given, holds_store, resolve_data_dir
from engine.api import FORMATS, EngineError, ImportProgress, Message


class _VersionAction(argparse.Action):
    """argparse's "version" action, the version read only when asked for: reading it takes
    importlib.metadata, 30 ms of every command's start (issue 26's cold search)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from app import __version__
        sys.stdout.write(f"{parser.prog} {__version__}\n")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """argparse with its error line in the CLI's language (the sub-commands' parsers are of the same
    class); argparse's own usage and help stay as argparse writes them. A bad value for an option
    (`--since 2024-13-01`, `--reranker flahs`) is a mistake one sentence explains: it is said alone,
    without the 30 lines of usage that hid it (issue 31); a missing or unknown argument still gets
    the usage line."""

    def error(self, message: str) -> NoReturn:
        if message.startswith("argument "):
            self.mistake(_argparse_words(message))
        self.print_usage(sys.stderr)
        self.exit(2, words("cli.usage_error", prog=self.prog, text=_argparse_words(message)) + "\n")

    def mistake(self, sentence: str) -> NoReturn:
        self.exit(2, words("cli.usage_error", prog=self.prog, text=sentence) + "\n")


# argparse's own error sentences (Python 3.11's wording), each as the catalogue's code; an
# argument's own error (an ArgumentTypeError) is ours already and only gains "argument X:".
_ARGPARSE_ERRORS = (
    (re.compile(r"unrecognized arguments: (?P<args>.*)"), "cli.argparse.unrecognized"),
    (re.compile(r"the following arguments are required: (?P<args>.*)"), "cli.argparse.required"),
    (re.compile(r"argument (?P<arg>\S+): invalid choice: (?P<value>.*?) \(choose from (?P<choices>.*)\)"),
     "cli.argparse.invalid_choice"),
    (re.compile(r"argument (?P<arg>\S+): expected one argument"), "cli.argparse.expected_one"),
    (re.compile(r"argument (?P<arg>\S+): not allowed with argument (?P<other>\S+)"), "cli.argparse.not_allowed_with"),
    (re.compile(r"argument (?P<arg>\S+): (?P<text>.*)", re.DOTALL), "cli.argparse.argument"),
)


def _argparse_words(message: str) -> str:
    for pattern, code in _ARGPARSE_ERRORS:
        found = pattern.fullmatch(message)
        if found:
            return words(code, **found.groupdict())
    return message


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="flashback", description="Searchable long-term memory for your chats.")
    parser.add_argument("--data-dir", help="where the store lives (default: $FLASHBACK_DATA_DIR or the OS data folder)")
    parser.add_argument("--demo", action="store_true",
                        help="open the app with the bundled demo imported, in a data folder of its own beside yours "
                             "(DATA-demo) unless --data-dir names one")
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="show the version and exit")
    parser.add_argument("--self-test", action="store_true",
                        help="import the bundled demo into a temporary folder (or --data-dir), build, search in "
                             "English and Russian, print one line; exit 1 on any failure (no window needed)")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("gui", help="open the desktop app (the default)")
    importer = commands.add_parser("import", help="import chat exports (files, folders or .zip)")
    importer.add_argument("paths", nargs="+", type=_export_path, metavar="PATH")
    importer.add_argument("--format", default="auto", choices=("auto", *FORMATS))
    importer.add_argument("--json", action="store_true", help="print one JSON object")
    stats = commands.add_parser("stats", help="count what the store holds")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    cli_chats.add_command(commands)
    cli_forget.add_command(commands)
    cli_owner.add_command(commands)
    cli_facts.add_command(commands)
    cli_memory.add_commands(commands)
    cli_ask.add_command(commands)
    cli_eval_answers.add_command(commands)
    cli_eval_facts.add_command(commands)
    cli_keys.add_command(commands)
    cli_runs.add_command(commands)
    cli_tune.add_command(commands)
    cli_check.add_command(commands)
    mcp_server.add_command(commands)
    return parser


def _export_path(text: str) -> Path:
    """A PATH to import; an empty one (`import ""`) would be the current folder to Path()."""
    if not text.strip():
        raise argparse.ArgumentTypeError(words("cli.import.empty_path"))
    return Path(text)


def _check_dates(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """--since after --until: a usage error in one sentence (exit 2), before anything is opened."""
    since, until = getattr(args, "since", None), getattr(args, "until", None)
    if since and until and since > until:  # YYYY-MM-DD: text order is date order
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        command = commands.choices.get(args.command, parser)  # its name, not the top level's
        sentence = say(Message("search.dates_inverted", {"first": f"--since {since}", "last": f"--until {until}"}))
        if isinstance(command, _Parser):
            command.mistake(sentence)
        command.error(sentence)


def _stderr_progress(progress: ImportProgress) -> None:
    share = progress.bytes_done / progress.bytes_total if progress.bytes_total else 1.0
    if progress.files > 1:  # a folder or zip of several exports: which one of how many (issue 34)
        place = words("import.progress.file_of", number=progress.file_number, count=progress.files)
        line = words("cli.import.progress_of", place=place, source=progress.source, share=share,
                     messages=progress.messages)
    else:
        line = words("cli.import.progress", source=progress.source, share=share, messages=progress.messages)
    sys.stderr.write("\r" + line)
    sys.stderr.flush()


def _run_import(args: argparse.Namespace, data_dir: Path) -> int:
    reports, failures = [], []
    show_progress = not args.json and sys.stderr.isatty()
    on_wait = waiting_note()
    service = None
    for path in args.paths:
        try:
            # Made at the first path, inside the try: a store that cannot be opened is then one
            # more error in the report (and the --json output is still printed).
            service = service or _service(data_dir)
            report = service.imports.import_path(path, args.format, _stderr_progress if show_progress else None,
                                         on_wait=on_wait)
        except EngineError as exc:
            failures.append({"path": str(path), "error": str(exc)})
            sys.stderr.write(("\n" if show_progress else "") + words("cli.error", text=say(exc.message)) + "\n")
            continue
        if show_progress:
            sys.stderr.write("\n")
        reports.append(report)
        if not args.json:
            for source in report.sources:
                if source.status == "unchanged":
                    sys.stdout.write(words("cli.import.unchanged", name=source.name) + "\n")
                else:
                    sys.stdout.write(words("cli.import.source", name=source.name, format=source.format,
                                           added=source.messages_added, seen=source.messages_seen,
                                           chats=source.chats, attachments=source.artifacts_added)
                                     + _caveats(source) + "\n")
            for skipped in report.skipped:
                sys.stdout.write(words("cli.import.skipped", path=skipped) + "\n")
            if report.aside:  # READMEs, licences, an export's own lists: one line, not one each
                sys.stdout.write(words("import.skipped.aside", count=len(report.aside)) + "\n")
    if args.json:
        payload = {
            "imports": [
                {"path": r.path, "seconds": round(r.seconds, 3), "skipped": r.skipped, "aside": r.aside,
                 "sources": [asdict(s) for s in r.sources]} for r in reports
            ],
            "errors": failures,
            "stats": service.store.stats().as_dict() if service is not None else None,
        }
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    return 1 if failures else 0


def _caveats(source) -> str:
    """What the counts alone would hide: messages cut to the length cap, and ids seen twice
    with different texts (the first text is kept)."""
    notes = []
    if source.messages_cut:
        notes.append(words("cli.import.cut", count=source.messages_cut))
    if source.messages_conflicting:
        notes.append(words("cli.import.conflicting", count=source.messages_conflicting))
    matched = source.matched_message()  # issue 23: which stored chat a renamed or newer export went into
    if matched is not None:
        notes.append(say(matched))
    notes += [say(note) for note in source.skipped_messages()]  # issue 34: what was not added, and why
    return "; " + "; ".join(notes) if notes else ""


def _service(data_dir: Path):
    """The one object every command goes through (imported here: `--version` and `--help`
    stay light)."""
    from engine.api import Flashback

    return Flashback(data_dir, origin="command")


def _run_stats(args: argparse.Namespace, data_dir: Path) -> int:
    stats = _service(data_dir).store.stats()
    if args.json:
        sys.stdout.write(json.dumps({"data_dir": str(data_dir), **stats.as_dict()}) + "\n")
    else:
        sys.stdout.write(words("cli.stats.store", folder=str(data_dir)) + "\n")
        for name, value in stats.as_dict().items():
            sys.stdout.write(f"  {words('cli.stats.' + name):<10} {value:>12,}\n")
    return 0


_SURROGATES = re.compile("[\ud800-\udfff]")
_RAW_ARGS = ("data_dir", "paths", "qrels", "output")  # file names: their bytes must reach the OS unchanged


def _clean(text: str) -> str:
    """Command-line text as valid Unicode: bytes that were not UTF-8 arrive as lone surrogates
    (surrogateescape) and would break SQLite and JSON later; they become U+FFFD here."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate surrogateescape did not make
        return _SURROGATES.sub("\ufffd", text)


def _clean_args(args: argparse.Namespace) -> None:
    for name, value in vars(args).items():
        if name in _RAW_ARGS:
            continue
        if isinstance(value, str):
            setattr(args, name, _clean(value))
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            setattr(args, name, [_clean(item) for item in value])


def _dispatch(args: argparse.Namespace, data_dir: Path) -> int:
    if args.command == "key":  # the keyring only: the data folder is not touched
        return cli_keys.run_key(args)
    if args.command == "eval-facts":  # a store of its own: the data folder is not touched
        return cli_eval_facts.run_eval_facts(args)
    note = tighten(data_dir)
    if note:
        sys.stderr.write(words("cli.note", text=say(note)) + "\n")
    if args.command == "import":
        return _run_import(args, data_dir)
    if args.command == "stats":
        return _run_stats(args, data_dir)
    if args.command == "chats":
        return cli_chats.run_chats(args, data_dir)
    if args.command == "forget":
        return cli_forget.run_forget(args, _service(data_dir))
    if args.command == "owner":
        return cli_owner.run_owner(args, data_dir)
    if args.command == "facts":
        return cli_facts.run_facts(args, data_dir)
    if args.command == "runs":
        return cli_runs.run_runs(args, _service(data_dir))
    if args.command == "check":
        return cli_check.run_check(args, data_dir)
    if args.command == "tune":
        return cli_tune.run_tune(args, data_dir)
    if args.command == "ask":
        return cli_ask.run_ask(args, data_dir)
    if args.command == "eval-answers":
        return cli_eval_answers.run_eval_answers(args, data_dir)
    if args.command == "mcp":
        return mcp_server.run_mcp(args, data_dir, settings_in_data_dir=data_dir_given(args.data_dir))
    if args.command in ("build", "search", "eval", "export"):
        return getattr(cli_memory, f"run_{args.command}")(args, data_dir)
    from app.gui import check_display, run_gui  # Qt is only loaded when a window is wanted

    own_demo_folder = args.demo and not args.data_dir  # main() chose it (issue 23)
    check_display()  # no display: that one sentence, before anything else is said
    if own_demo_folder:
        from engine.api import msg

        sys.stderr.write(say(msg("demo.own_folder", folder=str(data_dir))) + "\n")
    return run_gui(data_dir, demo=args.demo, settings_in_data_dir=data_dir_given(args.data_dir) or own_demo_folder)


def demo_data_dir(data_dir: Path) -> Path:
    """Where `flashback --demo` opens unless --data-dir names a folder: one of its own beside the
    person's store (~/.local/share/flashback-demo beside ~/.local/share/flashback), so the
    fictional chats never join their own (issue 23). $FLASHBACK_DATA_DIR is the person's usual
    store, not a request to put the demo there."""
    return data_dir.with_name(data_dir.name + "-demo")


def _interrupted(command: str | None) -> Message:
    """What Ctrl+C left behind, which differs by command: an import is one transaction per
    export (the unfinished one is rolled back), a build commits in batches (kept)."""
    if command == "build":
        return Message("cli.interrupted_build")
    if command == "import":
        return Message("cli.interrupted_import")
    return Message("cli.interrupted")


def _silence_stdout() -> None:
    """The reader went away (`flashback search … | head -3`): point stdout at devnull so the
    interpreter's last flush cannot fail again on the way out (the Python docs' recipe)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    private_umask()  # before anything is written: see app.privacy
    parser = build_parser()
    args = parser.parse_args(argv)
    _clean_args(args)
    _check_dates(parser, args)
    if args.self_test:
        from app.self_test import run_self_test

        return run_self_test(Path(args.data_dir).expanduser() if args.data_dir else None)
    data_dir = resolve_data_dir(args.data_dir)
    if args.demo and not args.data_dir and args.command in (None, "gui"):
        data_dir = demo_data_dir(data_dir)  # before anything reads or tightens the person's own folder
    if args.command in READING_COMMANDS and not holds_store(data_dir):  # before anything makes the folder
        parser.exit(2, words("cli.error", text=say(Message("cli.no_store", {"folder": str(data_dir)}))) + "\n")
    # Options left to the window's saved value (search, eval, export, ask, tune): read it now
    fill_saved(args, lambda: saved_values(data_dir, data_dir_given(args.data_dir)))
    try:
        code = _dispatch(args, data_dir)
        sys.stdout.flush()  # inside the handlers: a closed pipe surfaces here, not at exit
        return code
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except EngineError as exc:
        sys.stderr.write(words("cli.error", text=say(exc.message)) + "\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("\n" + say(_interrupted(args.command)) + "\n")
        return 130
    except Exception as exc:  # noqa: BLE001 - the one place an unplanned error meets the user
        sys.stderr.write(crash.report(exc, data_dir, args.command) + "\n")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
