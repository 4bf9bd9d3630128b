"""engine.api's public surface is typed (issue 31): every public method of the `Flashback`
facade's sub-services and every field of an exported dataclass is annotated, and none says
`Any`, a bare `dict`, or a dict/Mapping of `Any` or `object` values (an untyped bag a face
would read by string key). A dict with typed keys and values (`dict[int, bool]`) is a typed
mapping and passes. What must stay untyped is listed in ALLOWED, each with its reason."""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from collections.abc import Mapping
from functools import cached_property

import engine.api
from engine.api import Flashback

# (owner, member) → why it stays: the JSON as written for a script or a stored record, or a
# signature outside this change (annotated in a later pass). Each entry must still be needed:
# the test fails on a stale one.
ALLOWED: dict[tuple[str, str], str] = {
    # The reranker's own report, usage and trace: JSON as the traces store it and `search --json`
    # prints it. Faces read SearchResult.report (engine/api/reports.py), never these.
    ("RerankResult", "report"): "the reranker's JSON, stored as written",
    ("RerankResult", "usage"): "the reranker's JSON, stored as written",
    ("RerankResult", "trace"): "the reranker's JSON, stored as written",
    # A recorded run as the store holds it, of any vintage (older runs lack newer keys; Ask's runs
    # hold an answer, not a rerank report): `flashback runs --show` prints it as stored.
    ("RunRecord", "settings"): "a stored run's JSON, any vintage",
    ("RunRecord", "candidates"): "a stored run's JSON, any vintage",
    ("RunRecord", "selected"): "a stored run's JSON, any vintage",
    ("RunRecord", "tool_calls"): "a stored run's JSON, any vintage",
    ("RunRecord", "report"): "a stored run's JSON, any vintage",
    ("RunRecord", "trace"): "a stored run's JSON, any vintage",
    # `flashback build --json` prints the agents' figures as the build collected them.
    ("BuildReport", "agents"): "the build's JSON figures of the topic agents (split, fallbacks by reason)",
    # A reranker's settings dataclass, whichever reranker ran (threshold, Flash, cross-encoder, chain).
    ("Reranker", "settings"): "the settings dataclass of whichever reranker ran",
    # A message's parameters are numbers, text or nested messages, rendered by the catalogue.
    ("Message", "params"): "a message code's parameters, any JSON value or a nested message",
    # A setting's default is of the setting's own type (int, float, bool, str): one schema for all.
    ("Setting", "default"): "the default of whichever setting, of its own type",
    # Not converted yet: Ask's records keep the usage and step details as the Ask flow writes them
    # (the Ask trace's JSON; typing them is the next step of deliverable 2).
    ("AskOutcome", "usage"): "left: Ask's usage as the flow writes it",
    ("StepRecord", "detail"): "left: an Ask step's detail as the flow writes it",
    ("StepRecord", "usage"): "left: an Ask step's usage as the flow writes it",
}


def _bad(hint: object) -> str | None:
    """Why `hint` is not a typed annotation, or None when it is."""
    if isinstance(hint, str):
        return _bad_text(hint)
    if hint is typing.Any:
        return "Any"
    if hint is dict or hint is Mapping or hint is typing.Dict:  # noqa: UP006 - the bare forms are what is refused
        return "a bare dict"
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (dict, Mapping, typing.Mapping) and len(args) == 2 and args[1] in (typing.Any, object):  # noqa: UP006
        return f"a dict of {args[1]}"
    for arg in args:
        if arg is Ellipsis or isinstance(arg, int):
            continue
        why = _bad(arg)
        if why is not None:
            return why
    return None


def _bad_text(annotation: str) -> str | None:
    """`_bad` for an annotation naming a type only imported under TYPE_CHECKING (not resolvable)."""
    if re.search(r"\bAny\b", annotation):
        return "Any"
    if re.search(r"\b(dict|Mapping)\b(?!\[)", annotation):
        return "a bare dict"
    if re.search(r"\b(dict|Mapping)\[[^\[\]]*,\s*(Any|object)\]", annotation):
        return "a dict of Any or object"
    return None


def _hints(function: object, namespace: dict[str, object]) -> dict[str, object]:
    """Each annotation resolved where it can be; as its text where it names a TYPE_CHECKING import."""
    try:
        return typing.get_type_hints(function, localns=namespace)
    except NameError:
        raw = dict(getattr(function, "__annotations__", {}))
        scope = {**vars(typing), **getattr(function, "__globals__", {}), **namespace}
        hints: dict[str, object] = {}
        for label, annotation in raw.items():
            try:
                hints[label] = eval(annotation, scope) if isinstance(annotation, str) else annotation  # noqa: S307 - annotations of our own code
            except NameError:
                hints[label] = annotation
        return hints


def _namespace() -> dict[str, object]:
    names: dict[str, object] = {name: getattr(engine.api, name) for name in engine.api.__all__}
    from engine.export.pack import ContextPack
    from engine.rerank.flash.contextualize import QueryRewrite

    names.update(ContextPack=ContextPack, QueryRewrite=QueryRewrite)
    return names


def _services() -> list[type]:
    """The classes of the facade's sub-services (`Flashback.search` → SearchService, …)."""
    import importlib

    modules = [importlib.import_module(f"engine.api.{name}")
               for name in ("ask", "evaluation", "facts", "memory", "people", "search", "store", "views")]
    known = {name: value for module in modules for name, value in vars(module).items() if isinstance(value, type)}
    services = []
    for name, member in inspect.getmembers(Flashback):
        if isinstance(member, cached_property) and not name.startswith("_"):
            returned = typing.get_type_hints(member.func, localns=known).get("return")
            assert isinstance(returned, type), name
            services.append(returned)
    assert len(services) >= 10, services  # every sub-service is walked
    return services


def _method_problems(owner: type) -> list[tuple[str, str, str]]:
    problems = []
    namespace = _namespace()
    for name, function in inspect.getmembers(owner, inspect.isfunction):
        if name.startswith("_"):
            continue
        signature = inspect.signature(function)
        for parameter in list(signature.parameters.values())[1:]:
            if parameter.annotation is inspect.Parameter.empty and parameter.kind not in (
                    inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL):
                problems.append((owner.__name__, name, f"parameter {parameter.name} is not annotated"))
        if signature.return_annotation is inspect.Signature.empty:
            problems.append((owner.__name__, name, "the return is not annotated"))
        for label, hint in _hints(function, namespace).items():
            why = _bad(hint)
            if why is not None:
                problems.append((owner.__name__, name, f"{label} is {why}"))
    return problems


def _field_problems(record: type) -> list[tuple[str, str, str]]:
    hints = typing.get_type_hints(record, localns=_namespace())
    return [(record.__name__, f.name, f"field is {why}") for f in dataclasses.fields(record)
            if (why := _bad(hints.get(f.name))) is not None]


def _problems() -> list[tuple[str, str, str]]:
    problems = []
    for service in _services():
        problems += _method_problems(service)
    for name in engine.api.__all__:
        exported = getattr(engine.api, name)
        if isinstance(exported, type) and dataclasses.is_dataclass(exported):
            problems += _field_problems(exported)
        if isinstance(exported, type) and name in ("Reranker",):
            hints = typing.get_type_hints(exported, localns=_namespace())
            problems += [(name, attr, f"attribute is {why}") for attr, hint in hints.items()
                         if (why := _bad(hint)) is not None]
    return problems


def test_the_public_surface_says_what_it_takes_and_returns():
    problems = [p for p in _problems() if (p[0], p[1]) not in ALLOWED]
    assert not problems, "\n".join(f"{owner}.{member}: {why}" for owner, member, why in problems)


def test_every_allowance_is_still_needed():
    used = {(owner, member) for owner, member, _why in _problems()}
    assert not set(ALLOWED) - used, f"no longer needed: {sorted(set(ALLOWED) - used)}"


def test_the_check_refuses_what_it_should():
    assert _bad(dict) and _bad(typing.Any) and _bad(dict[str, typing.Any]) and _bad(Mapping[str, object])
    assert _bad(list[dict[str, typing.Any]]) and _bad(dict[str, typing.Any] | None)
    assert _bad(dict[int, bool]) is None and _bad(tuple[int, ...]) is None and _bad(str | None) is None


def test_the_faces_records_are_exported_and_internals_are_not():
    exported = set(engine.api.__all__)
    assert {"RerankReport", "ThresholdReport", "KeepAllReport", "FlashReport", "CrossEncoderReport", "Usage",
            "EvaluationFigures", "MetricSet", "RunMetrics", "LockHolder"} <= exported
    assert not {"StoreContext", "KINDS", "cross_encoder_fallback_message", "CROSS_ENCODER_FALLBACKS"} & exported
