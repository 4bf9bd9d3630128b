"""The builders the window's SearchSettings and the MCP server's SavedSettings share
(engine/api/settings.py): the engine's CrossEncoderSettings and RerankEndpoint from saved values."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from engine.api import (
    RERANK_PRESETS,
    CrossEncoderSettings,
    RerankEndpoint,
    cross_encoder_settings_from,
    rerank_endpoint_from,
    rerank_key_name_for,
    rerank_needs_key_for,
)


@dataclass(frozen=True)
class Saved:
    """Saved ce_* values as both faces keep them (whole-second timeout)."""

    ce_threshold: float = 0.35
    ce_top_k: int = 7
    ce_top_n: int = 60
    ce_passage_tokens: int = 512
    ce_batch: int = 8
    ce_skip_small: bool = False
    ce_skip_flat: bool = True
    ce_timeout: int = 45


def test_cross_encoder_settings_from_copies_every_value():
    built = cross_encoder_settings_from(Saved())
    assert built == CrossEncoderSettings(threshold=0.35, top_k=7, top_n=60, passage_tokens=512, batch=8,
                                         skip_small=False, skip_flat=True, timeout=45.0)
    assert isinstance(built.timeout, float)
    assert built.chain_keep == CrossEncoderSettings().chain_keep  # left out: the engine's default


def test_cross_encoder_settings_from_takes_chain_keep():
    assert cross_encoder_settings_from(Saved(), chain_keep=3).chain_keep == 3


def test_rerank_endpoint_from_strips_url_and_model_but_not_the_key():
    endpoint = rerank_endpoint_from("jina", "  https://example.test/v1 \n", " key ", "\tjina-reranker-m0 ")
    assert endpoint == RerankEndpoint("jina", "https://example.test/v1", " key ", "jina-reranker-m0")
    assert endpoint.url == "https://example.test/v1/rerank"


def test_rerank_endpoint_from_empty_fields_fall_back_to_the_preset():
    endpoint = rerank_endpoint_from("cohere", "", None, "")
    assert endpoint == RerankEndpoint("cohere", "", None, "")
    assert endpoint.url == RERANK_PRESETS["cohere"].base_url.rstrip("/") + RERANK_PRESETS["cohere"].path


@pytest.mark.parametrize(("preset", "key_name", "needs_key"), [
    ("llamacpp", "rerank", False), ("tei", "rerank", False), ("custom", "rerank", False),
    ("jina", "jina", True), ("cohere", "cohere", True), ("voyage", "voyage", True)])
def test_rerank_key_lookups(preset, key_name, needs_key):
    assert rerank_key_name_for(preset) == key_name
    assert rerank_needs_key_for(preset) is needs_key


def test_rerank_key_lookups_cover_every_preset():
    for name, spec in RERANK_PRESETS.items():
        assert (rerank_key_name_for(name), rerank_needs_key_for(name)) == (spec.key_name, spec.needs_key)


def test_unknown_preset_is_a_key_error():
    with pytest.raises(KeyError):
        rerank_key_name_for("nope")
    with pytest.raises(KeyError):
        rerank_needs_key_for("nope")
