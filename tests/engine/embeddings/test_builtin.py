"""The built-in hashed n-gram embedder: stable, normalised, script-aware, with frozen IDF state."""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.embeddings import BuiltinEmbedder, EmbeddingError
from engine.embeddings.builtin import IDF_BUCKETS, VERSION
from engine.embeddings.hashing import NGRAM_SIZES, features, normalise, word_features
from engine.errors import CancelToken, ImportCancelled

ROOT = Path(__file__).resolve().parents[3]


def cosine(embedder, a, b):
    return float(embedder.embed([a])[0] @ embedder.embed([b])[0])


def test_rows_are_float32_unit_vectors_in_input_order():
    embedder = BuiltinEmbedder(256)
    texts = ["Meeting about the budget", "Встреча по бюджету", "", "!!!", "x"]
    vectors = embedder.embed(texts)
    assert vectors.shape == (5, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[1], embedder.embed([texts[1]])[0])
    assert embedder.embed([]).shape == (0, 256)


def test_empty_and_punctuation_only_texts_give_the_same_valid_vector():
    vectors = BuiltinEmbedder(64).embed(["", "   ", "?!", "hello"])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert np.array_equal(vectors[0], vectors[1]) and np.array_equal(vectors[0], vectors[2])
    assert not np.array_equal(vectors[0], vectors[3])


def test_same_text_same_vector_in_another_process_with_another_hash_seed():
    # Python's str hash is salted per process; stored vectors must not depend on it
    code = ("import sys; from engine.embeddings import BuiltinEmbedder;"
            "sys.stdout.write(BuiltinEmbedder(128).embed(['Привет, café world'])[0].tobytes().hex())")
    outputs = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert outputs == {BuiltinEmbedder(128).embed(["Привет, café world"])[0].tobytes().hex()}


def test_vectors_are_pinned_so_a_hashing_change_must_bump_the_version():
    # If this fails, the vector a text gets has changed: stored vectors would silently stop
    # matching new queries. Bump builtin.VERSION (model_id changes, stores re-embed), then re-pin.
    vector = BuiltinEmbedder(1024).embed(["Hello, world! Привет, мир"])[0]
    nonzero = np.flatnonzero(vector)
    signature = hashlib.sha256(nonzero.astype("<i4").tobytes() + np.sign(vector[nonzero]).astype("<i1").tobytes())
    assert VERSION == 1
    assert len(nonzero) == 45
    assert signature.hexdigest()[:16] == PINNED_SIGNATURE


PINNED_SIGNATURE = "dcec2471e4e92ce1"


@pytest.mark.parametrize(("query", "related", "unrelated"), [
    ("trip to the mountains in July", "We planned a mountain trip for July", "The quarterly invoice is overdue"),
    ("поездка в горы летом", "Мы планируем поездку в горы этим летом", "Счёт за квартал просрочен"),
])
def test_related_texts_are_closer_than_unrelated_ones(query, related, unrelated):
    embedder = BuiltinEmbedder()
    assert cosine(embedder, query, related) > cosine(embedder, query, unrelated) + 0.1


def test_inflected_russian_words_still_match():
    embedder = BuiltinEmbedder()
    assert cosine(embedder, "бабушкин день рождения", "на дне рождения бабушки") > 0.3


def test_yo_case_and_accents_fold_but_short_i_stays():
    embedder = BuiltinEmbedder()
    assert np.array_equal(*embedder.embed(["Ёлка и ЁЖ", "елка и еж"]))
    assert np.array_equal(*embedder.embed(["Café NAÏVE", "cafe naive"]))
    assert not np.array_equal(*embedder.embed(["йод", "иод"]))
    assert normalise("Йогурт, ёж!") == " йогурт еж "


def test_model_id_encodes_version_dim_and_fitted_idf():
    plain = BuiltinEmbedder(512)
    assert plain.model_id == f"builtin:hashgram-v{VERSION}-d512"
    corpus = ["one text about cats", "another about dogs", "a third about cats and dogs"]
    fitted = plain.fit(corpus)
    assert fitted.model_id.startswith(plain.model_id + "-idf") and fitted.dim == 512
    assert plain.fit(corpus).model_id == fitted.model_id  # same corpus, same table
    assert plain.fit(corpus + ["more"]).model_id != fitted.model_id  # refit = another model


def test_state_round_trip_restores_identical_vectors():
    fitted = BuiltinEmbedder(256).fit(["alpha beta", "beta gamma", "gamma delta"] * 5)
    restored = BuiltinEmbedder.from_state(fitted.state, dim=256)
    assert restored.model_id == fitted.model_id
    assert np.array_equal(restored.embed(["beta delta"]), fitted.embed(["beta delta"]))
    assert BuiltinEmbedder().state is None and BuiltinEmbedder.from_state(None).idf is None


_HEADER = BuiltinEmbedder().fit(["a b c"]).state.partition(b"\n")[0]


@pytest.mark.parametrize("state", [
    b"garbage", b'{"format": "other"}\n', b'{"format": "x"}\nnot zlib',
    _HEADER + b"\n" + b"\x00" * 10,                                     # right header, truncated table
    _HEADER.replace(b'"version": 1', b'"version": 99') + b"\n" + BuiltinEmbedder().fit(["a"]).state.partition(b"\n")[2],
])
def test_damaged_state_is_refused_with_an_engine_error(state):
    with pytest.raises(EmbeddingError, match="rebuild the search index"):
        BuiltinEmbedder.from_state(state)


def test_idf_makes_rare_words_count_more_than_common_ones():
    corpus = [f"hello there, note number {i}" for i in range(40)] + ["zebra crossing"]
    plain, fitted = BuiltinEmbedder(), BuiltinEmbedder().fit(corpus)
    query, common, rare = "hello there zebra", "hello there friend", "a zebra"
    assert cosine(plain, query, common) > cosine(plain, query, rare)
    assert cosine(fitted, query, rare) > cosine(fitted, query, common)
    assert fitted.idf.documents == 41 and fitted.idf.document_frequency.shape == (IDF_BUCKETS,)


def test_progress_and_cancel():
    embedder = BuiltinEmbedder(32)
    calls = []
    embedder.embed(["x"] * 600, on_progress=lambda done, total: calls.append((done, total)))
    assert calls == [(256, 600), (512, 600), (600, 600)]
    token = CancelToken()
    token.cancel()
    with pytest.raises(ImportCancelled):
        embedder.embed(["x"] * 10, cancel=token)
    with pytest.raises(ImportCancelled):
        embedder.fit(["x"] * 300, cancel=token)


def test_aembed_matches_embed():
    embedder = BuiltinEmbedder(64)
    assert np.array_equal(asyncio.run(embedder.aembed(["a text"], kind="query")), embedder.embed(["a text"]))


def _reference_ngrams(padded: str) -> list[str]:
    """Plain-Python char_wb n-grams: spaces only at an n-gram's edges."""
    return [padded[i:i + n] for n in NGRAM_SIZES for i in range(len(padded) - n + 1)
            if " " not in padded[i + 1:i + n - 1]]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab ёЁжЖé.,1 \n"), max_size=40) | st.text(max_size=30))
def test_vectorised_hashing_counts_the_same_ngrams_as_a_plain_reference(text):
    padded = normalise(text)
    keys, counts = features(padded)
    reference = _reference_ngrams(padded)
    assert len(keys) == len(set(reference))  # 64-bit hashes: distinct n-grams stay distinct
    assert int(counts.sum()) == len(reference)
    words = padded.split()
    word_keys, word_counts = word_features(padded)
    assert len(word_keys) == len(set(words)) and int(word_counts.sum()) == len(words)


def test_an_ngram_hashes_the_same_wherever_it_stands():
    keys_one, _ = features(normalise("abc"))
    keys_two, counts_two = features(normalise("abc abc xyz"))
    assert set(keys_one) <= set(keys_two)
    assert counts_two[np.isin(keys_two, keys_one)].tolist() == [2] * len(keys_one)
