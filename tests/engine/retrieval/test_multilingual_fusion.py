"""A multilingual embedder's scores: BM25 abstains on topics in another script, and similarity
is calibrated relative to the query's background, so a cross-lingual hit passes the safety
threshold (issue 15). Plain arithmetic: no model needed."""

from __future__ import annotations

import numpy as np
import pytest

from engine.embeddings.base import Embedder
from engine.embeddings.builtin import BuiltinEmbedder
from engine.memory.calibration import Calibration, default_calibration, query_background
from engine.retrieval.fusion import (
    LEXICAL_WEIGHT_BUILTIN,
    LEXICAL_WEIGHT_LOCAL,
    LEXICAL_WEIGHT_OTHER,
    calibrated_fusion,
    lexical_weight_for,
    script_overlap,
    script_shares,
)


class _Declared(Embedder):
    """An embedder that is not the built-in one, declaring only whether it is multilingual."""

    model_id = "api:declared"
    dim = 8

    def __init__(self, multilingual: bool) -> None:
        self.multilingual = multilingual

    def embed(self, texts, kind="document", on_progress=None, cancel=None):
        raise NotImplementedError


class _Multilingual(BuiltinEmbedder):
    multilingual = True
    relative_anchors = (1.0, 3.0)


def test_script_shares_and_overlap():
    assert script_shares("Hello, мир!") == pytest.approx({"LATIN": 5 / 8, "CYRILLIC": 3 / 8})
    assert script_shares("2025 — 14:00") == {}
    english = script_shares("Which vitamin did the doctor prescribe?")
    assert script_overlap(english, "Врач назначила витамин D") == pytest.approx(1 / 21)  # only "D" is Latin
    assert script_overlap(english, "The washing machine is leaking") == 1.0
    assert script_overlap(english, "Leak / Течь") == pytest.approx(0.5)
    assert script_overlap({}, "любой текст") == 1.0 and script_overlap(english, "12:30") == 1.0


def test_a_topic_bm25_cannot_read_is_scored_by_its_similarity_alone():
    similarity = {1: 0.60, 2: 0.50}  # 1: the Russian answer; 2: an English topic sharing a word
    lexical = [(2, 0.40)]
    plain = dict(calibrated_fusion(similarity, lexical, 0.5))
    assert plain[1] == pytest.approx(0.30) and plain[2] == pytest.approx(0.45)  # the answer loses half its score
    reached = calibrated_fusion(similarity, lexical, 0.5, reach={1: 0.0, 2: 1.0})
    assert reached[0] == (1, pytest.approx(0.60)) and dict(reached)[2] == pytest.approx(0.45)
    half = dict(calibrated_fusion(similarity, lexical, 0.5, reach={1: 0.5}))
    assert half[1] == pytest.approx(0.45)  # a mixed chat: BM25 keeps half its say


def test_lexical_weight_by_embedder():
    assert lexical_weight_for(BuiltinEmbedder(64)) == LEXICAL_WEIGHT_BUILTIN == 0.9
    assert lexical_weight_for(_Multilingual(64)) == LEXICAL_WEIGHT_BUILTIN  # a built-in subclass stays lexical
    assert lexical_weight_for(_Declared(multilingual=True)) == LEXICAL_WEIGHT_LOCAL == 0.7
    assert lexical_weight_for(_Declared(multilingual=False)) == LEXICAL_WEIGHT_OTHER


def test_relative_calibration_scores_how_far_a_topic_stands_out_for_this_query():
    calibration = default_calibration(_Multilingual(64))
    assert calibration.relative and (calibration.unrelated, calibration.related) == (1.0, 3.0)
    rng = np.random.default_rng(0)
    sample = rng.normal(size=(200, 16)).astype(np.float32)
    sample /= np.linalg.norm(sample, axis=1, keepdims=True)
    query = sample[0]
    mean, deviation = query_background(sample, query)
    # The same z gives the same score whatever the band the raw cosines sit in:
    # a question in another language shifts every cosine down together.
    for shift in (0.0, -0.05):
        background = (mean + shift, deviation)
        assert calibration.score(mean + shift + 1.0 * deviation, background) == pytest.approx(0.30)
        assert calibration.score(mean + shift + 3.0 * deviation, background) == pytest.approx(0.70)
    assert calibration.score(0.9) == 0.0  # no background: nothing to stand out from
    np.testing.assert_allclose(calibration.score(np.array([mean, mean + 2 * deviation]), (mean, deviation)),
                               [0.10, 0.50], atol=1e-6)
    assert query_background(sample[:1], query) is None


def test_an_absolute_calibration_is_unchanged():
    calibration = Calibration("m", unrelated=0.1, related=0.5)
    assert calibration.score(0.1) == pytest.approx(0.30) and calibration.score(0.5, (0.0, 1.0)) == pytest.approx(0.70)
