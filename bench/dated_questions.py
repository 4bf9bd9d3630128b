"""Date phrases as a soft boost (issue 27): `python -m bench.dated_questions [--embedder builtin|local]`.

One fresh store holds the bundled demo export and the LoCoMo dev slice, built with the
app's defaults. Each question of bench/data/dated_questions.json (written by hand, English
and Russian, each with the `now` it is asked at and the messages that answer it) goes
through stage 1 with the default settings; its date phrase is parsed offline against its
`now` (`engine.ask.dates.find_date_range`) and the candidates are boosted
(`boost_in_range`). Per question: did the parser find the expected phrase, does the range
hold every evidence message (a wrong parse otherwise), is an evidence topic among the first
five topics without the boost and with it. "Lost" = in the top five without the boost and
not with it; lost by a wrong parse must be 0.

The weight is `DEFAULT_WEIGHT`, fixed on a principle (engine/ask/dates.py); half and twice
it are shown beside it to say how sensitive the figures are, not to pick one, and weight 1
(every topic in the range ahead of every other: what a date filter would do) to show what a
wrong parse would cost if the range cut instead of boosting.

A second check, where parses go wrong: LoCoMo's own 760 questions asked at a `now` after
every conversation (2024-02-01). Their dates are mostly named outright ("in August 2023");
their relative ones ("last year", "last week") mean the conversation's time, so the
parser resolves them against the wrong day: what the boost costs there is what a wrong
parse costs. Ends with one JSON line of every figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import resources
from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_convert import convert
from engine.api import Flashback
from engine.ask.dates import DEFAULT_WEIGHT, DateRange, boost_in_range, find_date_range, topic_spans
from engine.embeddings.base import EmbeddingConfig
from engine.evaluation.qrels import load_qrels, message_topics, resolve_messages
from engine.memory.model_options import build_options_for
from engine.retrieval.search import RetrievalSettings
from engine.store.database import connect, db_path

DATA = Path(__file__).resolve().parent / "data" / "dated_questions.json"
LOCOMO_NOW = datetime(2024, 2, 1, 12, 0, tzinfo=UTC)  # after every LoCoMo dev conversation
K = 5


@dataclass
class Judged:
    """One question: what the parser made of it and whether an evidence topic is in the top five."""

    question: str
    phrase: str | None
    label: str | None
    covers: bool  # the range holds every evidence message
    phrase_right: bool
    hits: dict[str, bool]  # configuration → hit
    parse_ms: float
    spread: float | None  # score@1 - score@5 of stage 1's topics: what the weight is set against


@dataclass
class Tally:
    questions: int = 0
    parsed: int = 0
    phrase_right: int = 0
    covers: int = 0
    hits: dict[str, int] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=dict)  # in the top five without the boost, not with it
    gained: dict[str, int] = field(default_factory=dict)
    lost_by_wrong_parse: dict[str, int] = field(default_factory=dict)
    spreads: list[float] = field(default_factory=list)

    def add(self, judged: Judged) -> None:
        self.questions += 1
        if judged.spread is not None:
            self.spreads.append(judged.spread)
        self.parsed += judged.phrase is not None
        self.phrase_right += judged.phrase_right
        self.covers += judged.covers
        base = judged.hits["without"]
        for config, hit in judged.hits.items():
            for counts, happened in ((self.hits, hit), (self.lost, base and not hit), (self.gained, hit and not base),
                                     (self.lost_by_wrong_parse, base and not hit and not judged.covers)):
                counts[config] = counts.get(config, 0) + happened

    def figures(self) -> dict:
        n = max(1, self.questions)
        return {"questions": self.questions, "parsed": self.parsed, "phrase_right": self.phrase_right,
                "range_holds_evidence": self.covers,
                "recall@5": {c: round(h / n, 3) for c, h in self.hits.items()},
                "lost": self.lost, "gained": self.gained, "lost_by_wrong_parse": self.lost_by_wrong_parse,
                "top5_spread_median": round(statistics.median(self.spreads), 3) if self.spreads else None}


def _store(work: Path, provider: str) -> tuple[Flashback, dict]:
    service = Flashback(work / "store", EmbeddingConfig(provider=provider))
    started = time.perf_counter()
    service.imports.import_path(resources.demo_export())
    export, qrels = work / "locomo.jsonl", work / "locomo_qrels.json"
    convert(DEFAULT_LOCOMO, export, qrels)
    service.imports.import_path(export)
    build = service.memory.build(build_options_for(service.memory.embedder()))
    return service, {"qrels": qrels, "topics": build.topics_created, "model": build.model_id,
                     "import_build_s": round(time.perf_counter() - started, 1)}


def _weights() -> dict[str, float]:
    return {"without": 0.0, f"boost {DEFAULT_WEIGHT / 2:g}": DEFAULT_WEIGHT / 2,
            f"boost {DEFAULT_WEIGHT:g} (default)": DEFAULT_WEIGHT, f"boost {DEFAULT_WEIGHT * 2:g}": DEFAULT_WEIGHT * 2,
            "in range first (a cut)": 1.0}


def _top_topics(candidates, k: int = K) -> list[int]:
    return [c.id for c in candidates if c.kind == "topic"][:k]


def _judge(connection, service, question: str, now: datetime, evidence: list[tuple[str, str]],
           expected_phrase: str | None = None) -> Judged:
    messages = resolve_messages(connection, evidence)
    if any(m is None for m in messages.values()):
        raise SystemExit(f"evidence not in the store: {[p for p, m in messages.items() if m is None]}")
    ids = list(messages.values())
    relevant = {t for t in message_topics(connection, ids).values() if t is not None}
    times = [row[0] for row in connection.execute(
        f"SELECT sent_at FROM message WHERE id IN ({','.join('?' * len(ids))})", ids)]
    stage1 = service.search.candidates(question, RetrievalSettings())
    started = time.perf_counter()
    date_range: DateRange | None = find_date_range(question, now)
    parse_ms = (time.perf_counter() - started) * 1000
    topics = [c for c in stage1.candidates if c.kind == "topic"]
    spans = topic_spans(connection, [c.id for c in topics])
    hits = {}
    for config, weight in _weights().items():
        candidates = stage1.candidates
        if weight and date_range is not None:
            candidates = boost_in_range(candidates, date_range, weight, spans)
        hits[config] = bool(relevant & set(_top_topics(candidates)))
    return Judged(question, date_range.phrase if date_range else None, date_range.label() if date_range else None,
                  date_range is not None and all(date_range.contains(t) for t in times),
                  bool(date_range and expected_phrase and date_range.phrase.lower() == expected_phrase.lower()),
                  hits, parse_ms, topics[0].score - topics[K - 1].score if len(topics) >= K else None)


DEFAULT = f"boost {DEFAULT_WEIGHT:g} (default)"


def run(provider: str, verbose: bool) -> dict:
    work = Path(tempfile.mkdtemp(prefix="flashback-dated-"))
    service, store = _store(work, provider)
    questions = json.loads(DATA.read_text(encoding="utf-8"))["questions"]
    connection = connect(db_path(service.data_dir))
    groups = {"all": Tally(), "demo": Tally(), "locomo": Tally(), "en": Tally(), "ru": Tally()}
    parse_ms = []
    try:
        for q in questions:
            evidence = [(e["chat"], e["message"]) for e in q["evidence"]]
            judged = _judge(connection, service, q["question"], datetime.fromisoformat(q["now"]), evidence, q["phrase"])
            for name in ("all", q["corpus"], q["lang"]):
                groups[name].add(judged)
            parse_ms.append(judged.parse_ms)
            changed = judged.hits["without"] != judged.hits[DEFAULT]
            if verbose or changed or not (judged.covers and judged.phrase_right):
                print(f"  {q['id']:10} {judged.hits['without']!s:5} → {judged.hits[DEFAULT]!s:5} "
                      f"[{judged.phrase}: {judged.label}{'' if judged.covers else ', MISSES the evidence'}] "
                      f"{q['question']}")
        locomo_all = Tally()
        for query in load_qrels(store["qrels"]):
            locomo_all.add(_judge(connection, service, query.query, LOCOMO_NOW, list(query.relevant)))
    finally:
        connection.close()
    return {"embedder": provider, "model": store["model"], "topics": store["topics"],
            "import_build_s": store["import_build_s"], "weight": DEFAULT_WEIGHT,
            "parse_ms_p50": round(statistics.median(parse_ms), 2), "parse_ms_max": round(max(parse_ms), 2),
            "dated": {name: tally.figures() for name, tally in groups.items()},
            "locomo_own_questions": locomo_all.figures()}


def _print(figures: dict) -> None:
    dated = figures["dated"]
    print(f"\n{figures['embedder']} ({figures['model']}), {figures['topics']} topics, "
          f"import + build {figures['import_build_s']} s; parse p50 {figures['parse_ms_p50']} ms; "
          f"median score@1 - score@5 on LoCoMo's own questions {figures['locomo_own_questions']['top5_spread_median']}")
    configs = list(_weights())
    print(f"{'set':28} {'n':>4} {'parsed':>7} {'holds':>6} " + " ".join(f"{c:>22}" for c in configs))
    rows = [(f"dated: {name}", dated[name]) for name in dated] + [("LoCoMo own, now 2024-02-01",
                                                                  figures["locomo_own_questions"])]
    for label, f in rows:
        cells = " ".join(f"{f['recall@5'][c]:>8.3f} (-{f['lost'][c]} +{f['gained'][c]}, "
                         f"wp {f['lost_by_wrong_parse'][c]})" for c in configs)
        print(f"{label:28} {f['questions']:>4} {f['parsed']:>7} {f['range_holds_evidence']:>6} {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="builtin", choices=("builtin", "local"))
    parser.add_argument("--verbose", action="store_true", help="a line per question, not only the changed ones")
    args = parser.parse_args()
    figures = run(args.embedder, args.verbose)
    _print(figures)
    print(json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
