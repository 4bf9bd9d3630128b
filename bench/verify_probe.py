"""The verifier probe of issue 32: `python -m bench.verify_probe [--embedder builtin|local] [--model URL]`.

For each answerable LoCoMo dev question (categories 1-4) two claims, each citing the
question's real evidence messages:
- true: the question's statement with the right answer ("Where did Audrey get Pixie from: a shelter");
- false: the same statement with another question's answer from the same conversation, one the
  evidence does not hold (its text is not in the evidence and not all its words are).
Each is checked as Ask checks a claim: source 1 holds the evidence (its messages, their authors
and dates), sources 2-6 hold other messages of the conversation (the context the old verifier's
similarity is measured against). Reported: true-accept (share of true claims supported) and
false-accept (share of false claims supported), for
- `before`: the verifier before issue 32 (engine.ask.verify.check_offline's old rule, kept here
  as `legacy_support` so the figure stays reproducible after the rule changed),
- `after`: engine.support.check (what Ask uses now),
- `model`: with --model, the model verifier (`verify="llm"`) on an OpenAI-compatible server.
--russian adds the hand-translated Russian claims over the English chat of conv-30
(bench/data/locomo_conv30_ru.json) with the chosen embedder. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bench.locomo import DEFAULT_LOCOMO
from engine.support import Evidence, check
from engine.support.words import content_words

CATEGORIES = (1, 2, 3, 4)
_DIA = re.compile(r"D(\d+):(\d+)")
RUSSIAN = Path(__file__).with_name("data") / "locomo_conv30_ru.json"
RUSSIAN_SECOND = RUSSIAN.with_name("locomo_conv30_ru_second.json")


@dataclass(frozen=True)
class Turn:
    speaker: str
    text: str
    sent: datetime


@dataclass(frozen=True)
class Pair:
    question: str
    true_claim: str
    false_claim: str
    evidence: tuple[Turn, ...]
    context: tuple[Turn, ...]
    category: int
    conversation: str


def session_dates(conversation: dict) -> dict[int, datetime]:
    dates = {}
    for key, value in conversation.items():
        match = re.fullmatch(r"session_(\d+)_date_time", key)
        if match:
            dates[int(match.group(1))] = datetime.strptime(value.replace(" ", " ").strip(), "%I:%M %p on %d %B, %Y")
    return dates


def turns_of(conversation: dict) -> dict[str, Turn]:
    dates = session_dates(conversation)
    turns = {}
    for key, value in conversation.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if not match or not isinstance(value, list) or int(match.group(1)) not in dates:
            continue
        for turn in value:
            text = turn["text"] + (f" [shares a photo: {turn['blip_caption']}]" if turn.get("blip_caption") else "")
            turns[turn["dia_id"]] = Turn(turn["speaker"], text, dates[int(match.group(1))])
    return turns


def evidence_ids(raw: list[str]) -> list[str]:
    return [f"D{a}:{int(b)}" for item in raw for a, b in _DIA.findall(item)]


def absent(answer: str, evidence: str) -> bool:
    """The answer's text is not in the evidence, and not all of its words are."""
    words = {stem for stem, _ in content_words(answer)}
    held = {stem for stem, _ in content_words(evidence)}
    return answer.lower() not in evidence.lower() and bool(words) and not words <= held


def pairs(samples: list[dict], seed: int = 7) -> list[Pair]:
    rng = random.Random(seed)
    made = []
    for sample in samples:
        turns = turns_of(sample["conversation"])
        questions = [q for q in sample["qa"] if q.get("category") in CATEGORIES and "answer" in q]
        answers = [str(q["answer"]) for q in questions]
        keys = sorted(turns)
        for q in questions:
            evidence = tuple(turns[i] for i in evidence_ids(q.get("evidence", [])) if i in turns)
            if not evidence:
                continue
            evidence_text = "\n".join(t.text for t in evidence)
            right = str(q["answer"])
            others = [a for a in answers if a != right and absent(a, evidence_text)]
            if not others:
                continue
            wrong = rng.choice(others)
            statement = q["question"].rstrip(" ?")
            context = tuple(turns[k] for k in rng.sample(keys, min(20, len(keys))))
            made.append(Pair(q["question"], f"{statement}: {right}", f"{statement}: {wrong}", evidence, context,
                             q["category"], sample["sample_id"]))
    return made


def as_evidence(turns: tuple[Turn, ...]) -> list[Evidence]:
    return [Evidence(t.text, t.sent, t.speaker) for t in turns]


def accept_after(pair: Pair, claim: str, embedder) -> bool:
    return check(claim, as_evidence(pair.evidence), pair.question, embedder).supported


def accept_before(pair: Pair, claim: str, embedder) -> bool:
    from bench.verify_legacy import legacy_support

    return legacy_support(claim, pair.evidence, pair.context, embedder)


def measure(all_pairs: list[Pair], accept, embedder) -> dict:
    started = time.perf_counter()
    true_ok = sum(accept(p, p.true_claim, embedder) for p in all_pairs)
    false_ok = sum(accept(p, p.false_claim, embedder) for p in all_pairs)
    count = len(all_pairs)
    by_category = {}
    for category in CATEGORIES:
        chosen = [p for p in all_pairs if p.category == category]
        if chosen:
            by_category[str(category)] = {
                "pairs": len(chosen),
                "true_accept": round(sum(accept(p, p.true_claim, embedder) for p in chosen) / len(chosen), 3),
                "false_accept": round(sum(accept(p, p.false_claim, embedder) for p in chosen) / len(chosen), 3)}
    return {"pairs": count, "true_accept": round(true_ok / count, 3), "false_accept": round(false_ok / count, 3),
            "by_category": by_category, "seconds": round(time.perf_counter() - started, 1)}


class CachedWords:
    """The embedder with each text embedded once (the probe asks for the same words again and
    again); keeps the wrapped class's name so `meaning_bar_for` picks its bar."""

    def __init__(self, inner) -> None:
        self.inner, self.cache = inner, {}
        self.multilingual = getattr(inner, "multilingual", False)

    def embed(self, texts, kind="document"):
        import numpy as np

        todo = [t for t in dict.fromkeys(texts) if (t, kind) not in self.cache]
        if todo:
            for text, vector in zip(todo, self.inner.embed(todo, kind), strict=True):
                self.cache[(text, kind)] = vector
        return np.stack([self.cache[(t, kind)] for t in texts])


def make_embedder(name: str):
    if name == "none":
        return None
    if name == "local":
        from engine.embeddings.local import LocalEmbedder

        inner = LocalEmbedder()
    else:
        from engine.embeddings.builtin import BuiltinEmbedder

        inner = BuiltinEmbedder()
    wrapped = type(type(inner).__name__, (CachedWords,), {})(inner)
    return wrapped


def calibrate_cross(all_pairs: list[Pair], embedder) -> dict:
    """True/false accept of the Russian claims at each cross-script bar."""
    rows = {}
    for bar in (0.84, 0.86, 0.87, 0.88, 0.89, 0.9, 0.92, 1.01):
        ok = [(check(p.true_claim, as_evidence(p.evidence), p.question, embedder, cross_bar=bar).supported,
               check(p.false_claim, as_evidence(p.evidence), p.question, embedder, cross_bar=bar).supported)
              for p in all_pairs]
        rows[str(bar)] = {"true_accept": round(sum(t for t, _ in ok) / len(ok), 3),
                          "false_accept": round(sum(f for _, f in ok) / len(ok), 3)}
        print("cross bar", bar, rows[str(bar)])
    return rows


def calibrate_phrase(all_pairs: list[Pair], embedder) -> dict:
    """True/false accept of the Russian claims at each cross-script phrase bar (1.01: no phrase step)."""
    rows = {}
    for bar in (0.83, 0.84, 0.85, 0.86, 0.87, 0.88, 1.01):
        ok = [(check(p.true_claim, as_evidence(p.evidence), p.question, embedder, phrase_cross_bar=bar).supported,
               check(p.false_claim, as_evidence(p.evidence), p.question, embedder, phrase_cross_bar=bar).supported)
              for p in all_pairs]
        rows[str(bar)] = {"true_accept": round(sum(t for t, _ in ok) / len(ok), 3),
                          "false_accept": round(sum(f for _, f in ok) / len(ok), 3)}
        print("phrase bar", bar, rows[str(bar)])
    return rows


def calibrate(all_pairs: list[Pair], embedder) -> dict:
    """True/false accept at each meaning bar: pick the bar where false-accept stays low."""
    rows = {}
    for bar in (0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.92, 0.94, 0.96, 1.01):
        true_ok = sum(check(p.true_claim, as_evidence(p.evidence), p.question, embedder, bar).supported
                      for p in all_pairs)
        false_ok = sum(check(p.false_claim, as_evidence(p.evidence), p.question, embedder, bar).supported
                       for p in all_pairs)
        rows[str(bar)] = {"true_accept": round(true_ok / len(all_pairs), 3),
                          "false_accept": round(false_ok / len(all_pairs), 3)}
        print("bar", bar, rows[str(bar)])
    return rows


def russian_pairs(samples: list[dict], seed: int = 11, half: str = "first") -> list[Pair]:
    """conv-30's hand-translated questions and answers as claims over its English chat.

    `half`: "first" (locomo_conv30_ru.json, where the cross-script bars were chosen),
    "second" (locomo_conv30_ru_second.json, the other 40 questions, kept apart to check the
    bars on questions they were not chosen on) or "both"."""
    if half == "both":
        return russian_pairs(samples, seed, "first") + russian_pairs(samples, seed, "second")
    rng = random.Random(seed)
    if half == "second":
        asked = json.loads(RUSSIAN_SECOND.read_text(encoding="utf-8"))
        answers = {q["id"]: q["answer"] for q in asked["questions"]}
    else:
        asked = json.loads(RUSSIAN.read_text(encoding="utf-8"))
        answers = json.loads(RUSSIAN.with_name("locomo_conv30_ru_answers.json").read_text(encoding="utf-8"))["answers"]
    sample = next(s for s in samples if s["sample_id"] == asked["conversation"])
    turns = turns_of(sample["conversation"])
    by_id = {f"{sample['sample_id']}-q{n}": q for n, q in enumerate(sample["qa"], 1)}
    rows = []
    for q in asked["questions"]:
        gold = by_id[q["id"]]
        if q["id"] in answers:
            rows.append(({**q, "evidence": gold["evidence"], "category": gold["category"]}, answers[q["id"]],
                         str(gold.get("answer"))))
    made = []
    for q, right, _ in rows:
        evidence = tuple(turns[i] for i in evidence_ids(q["evidence"]) if i in turns)
        if not evidence:
            continue
        evidence_text = "\n".join(t.text for t in evidence)
        others = [ru for other, ru, en in rows if ru != right and en and absent(en, evidence_text)]
        statement = q["ru"].rstrip(" ?")
        made.append(Pair(q["ru"], f"{statement}: {right}", f"{statement}: {rng.choice(others)}", evidence, (),
                         q["category"], asked["conversation"]))
    return made


def source_of(pair: Pair):
    from engine.ask.types import Source

    lines = [f"[{t.speaker} ({t.sent:%Y-%m-%d %H:%M})]: {t.text}" for t in pair.evidence]
    stamp = pair.evidence[0].sent.timestamp()
    return Source(1, None, pair.conversation, [], stamp, stamp, list(dict.fromkeys(t.speaker for t in pair.evidence)),
                  f"[1] {pair.conversation}\n" + "\n".join(lines), 100, [t.text for t in pair.evidence],
                  [t.speaker for t in pair.evidence], [t.sent.timestamp() for t in pair.evidence])


def scripted_verdicts(request):
    """The scripted verifier: a claim is supported when its answer (after the colon) is in its cited text."""
    from tests.engine.ask.conftest import respond

    prompt = request.body["messages"][1]["content"]
    cited = prompt.partition("Messages:\n")[2].split("\n\nClaim 1 (")[0].lower()
    verdicts = []
    for number, claim in enumerate(re.findall(r"^Claim \d+ \(cites [^)]*\): (.*)$", prompt, re.M), 1):
        answer = claim.rsplit(": ", 1)[-1].strip().lower()
        verdicts.append({"claim": number, "supported": bool(answer) and answer in cited})
    return respond(request.body, {"verdicts": verdicts})


async def model_accepts(all_pairs: list[Pair], endpoint, embedder, on_progress=None) -> dict:
    """verify="llm" as Ask runs it: the offline check, then one model call per pair (its true and
    false claim together); a claim the model skips keeps the offline verdict."""
    from engine.ask.types import Claim
    from engine.ask.verify import check_offline, check_with_model
    from engine.llm import ChatClient

    true_ok = false_ok = judged = failed = 0
    started = time.perf_counter()
    async with ChatClient(endpoint) as client:
        for index, pair in enumerate(all_pairs):
            claims = [Claim(pair.true_claim, [1]), Claim(pair.false_claim, [1])]
            sources = [source_of(pair)]
            check_offline(claims, sources, embedder, pair.question)
            call = await check_with_model(client, claims, sources, max_tokens=256, timeout=120.0,
                                          model=endpoint.default_model or None, question=pair.question)
            failed += not call.ok
            judged += sum(c.method == "llm" for c in claims)
            true_ok += claims[0].supported is True
            false_ok += claims[1].supported is True
            if on_progress:
                on_progress(index + 1, len(all_pairs))
    count = len(all_pairs)
    return {"pairs": count, "true_accept": round(true_ok / count, 3), "false_accept": round(false_ok / count, 3),
            "judged_by_model": round(judged / (2 * count), 3), "failed_calls": failed,
            "seconds": round(time.perf_counter() - started, 1)}


def run_model(args, all_pairs: list[Pair], embedder) -> dict:
    import asyncio
    import contextlib

    from engine.llm import Endpoint

    @contextlib.contextmanager
    def server():
        if args.scripted:
            from tests.fake_openai import FakeOpenAI

            with FakeOpenAI() as fake:
                fake.handle("/v1/chat/completions", scripted_verdicts)
                yield Endpoint(base_url=fake.base_url, model="scripted", preset="llamacpp")
            return
        from bench import llama_server

        with llama_server.llama_server() as running:
            yield Endpoint.from_preset("llamacpp", model="local", base_url=running.base_url)

    chosen = all_pairs[:args.model_pairs] if args.model_pairs else all_pairs
    with server() as endpoint:
        return asyncio.run(model_accepts(chosen, endpoint, embedder,
                                         lambda done, total: print(f"  model {done}/{total}", flush=True)
                                         if done % 10 == 0 else None))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--embedder", default="builtin", choices=("none", "builtin", "local"))
    parser.add_argument("--skip-before", action="store_true")
    parser.add_argument("--calibrate", action="store_true", help="true/false accept at each meaning bar")
    parser.add_argument("--russian", action="store_true", help="also conv-30's Russian claims over its English chat")
    parser.add_argument("--scripted", action="store_true", help="the model verifier on the scripted server")
    parser.add_argument("--llama", action="store_true", help="the model verifier on llama-server + SmolLM2")
    parser.add_argument("--model-pairs", type=int, default=0, help="pairs sent to the model verifier (0: all)")
    parser.add_argument("--examples", type=int, default=0, help="print N accepted false claims and rejected true ones")
    args = parser.parse_args()
    samples = json.loads(args.locomo.read_text(encoding="utf-8"))
    all_pairs = pairs(samples)
    embedder = make_embedder(args.embedder)
    figures: dict = {"embedder": args.embedder, "conversations": len(samples)}
    if args.calibrate and not args.russian:
        figures["calibration"] = calibrate(all_pairs, embedder)
    if not args.skip_before:
        figures["before"] = measure(all_pairs, accept_before, embedder)
        print("before", json.dumps(figures["before"]))
    figures["after"] = measure(all_pairs, accept_after, embedder)
    print("after ", json.dumps(figures["after"]))
    if args.russian:
        ru = russian_pairs(samples)
        if args.calibrate:
            figures["cross_calibration"] = calibrate_cross(ru, embedder)
            figures["phrase_calibration"] = calibrate_phrase(ru, embedder)
        figures["russian"] = measure(ru, accept_after, embedder)
        if not args.skip_before:
            figures["russian_before"] = measure(ru, accept_before, embedder)
        print("russian", json.dumps(figures["russian"]))
        second = russian_pairs(samples, half="second")
        figures["russian_second"] = measure(second, accept_after, embedder)
        print("russian (second half, bars not chosen on it)", json.dumps(figures["russian_second"]))
        both = figures["russian"]["pairs"] + figures["russian_second"]["pairs"]
        figures["russian_all"] = {key: round((figures["russian"][key] * figures["russian"]["pairs"]
                                               + figures["russian_second"][key] * figures["russian_second"]["pairs"])
                                              / both, 3) for key in ("true_accept", "false_accept")} | {"pairs": both}
    if args.scripted or args.llama:
        figures["model"] = run_model(args, all_pairs, embedder) | {"server": "scripted" if args.scripted else "llama"}
        print("model ", json.dumps(figures["model"]))
    if args.examples:
        shown = 0
        for p in all_pairs:
            for claim, truth in ((p.true_claim, True), (p.false_claim, False)):
                verdict = check(claim, as_evidence(p.evidence), p.question, embedder)
                if verdict.supported != truth and shown < args.examples:
                    shown += 1
                    print(f"{'MISSED' if truth else 'ACCEPTED'} c{p.category}: {claim}\n   missing={verdict.missing} "
                          f"found={verdict.found}\n   evidence: {' | '.join(t.text for t in p.evidence)[:300]}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
