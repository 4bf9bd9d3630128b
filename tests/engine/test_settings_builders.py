"""What every face builds from the saved values, written once on the engine's record
(engine/api/saved_settings.py, UserSettings): the engine's CrossEncoderSettings and
RerankEndpoint, and what a rerank preset asks of the key store."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import pytest

from engine.api import RERANK_PRESETS, CrossEncoderSettings, RerankEndpoint, UserSettings

# Saved values (whole-second timeout); the rest at the schema's defaults.
Saved = partial(UserSettings, ce_threshold=0.35, ce_top_k=7, ce_top_n=60, ce_passage_tokens=512, ce_batch=8,
                ce_skip_small=False, ce_skip_flat=True, ce_timeout=45)


def test_cross_encoder_settings_copy_every_value():
    built = Saved().cross_encoder_settings()
    assert built == CrossEncoderSettings(threshold=0.35, top_k=7, top_n=60, passage_tokens=512, batch=8,
                                         skip_small=False, skip_flat=True, timeout=45.0)
    assert isinstance(built.timeout, float)
    assert built.chain_keep == CrossEncoderSettings().chain_keep  # left at the schema's default: the engine's


def test_cross_encoder_settings_take_chain_keep():
    assert Saved(ce_chain_keep=3).cross_encoder_settings().chain_keep == 3


def test_rerank_endpoint_strips_url_and_model_but_not_the_key():
    saved = Saved(rerank_preset="jina", rerank_url="  https://example.test/v1 \n", rerank_model="\tjina-reranker-m0 ")
    endpoint = saved.rerank_endpoint(" key ")
    assert endpoint == RerankEndpoint("jina", "https://example.test/v1", " key ", "jina-reranker-m0")
    assert endpoint.url == "https://example.test/v1/rerank"


def test_rerank_endpoint_empty_fields_fall_back_to_the_preset():
    endpoint = Saved(rerank_preset="cohere").rerank_endpoint(None)
    assert endpoint == RerankEndpoint("cohere", "", None, "")
    assert endpoint.url == RERANK_PRESETS["cohere"].base_url.rstrip("/") + RERANK_PRESETS["cohere"].path


@pytest.mark.parametrize(("preset", "key_name", "needs_key"), [
    ("llamacpp", "rerank", False), ("tei", "rerank", False), ("custom", "rerank", False),
    ("jina", "jina", True), ("cohere", "cohere", True), ("voyage", "voyage", True)])
def test_rerank_key_lookups(preset, key_name, needs_key):
    saved = Saved(rerank_preset=preset)
    assert saved.rerank_key_name() == key_name
    assert saved.rerank_needs_key() is needs_key


def test_rerank_key_lookups_cover_every_preset():
    for name, spec in RERANK_PRESETS.items():
        saved = replace(Saved(), rerank_preset=name)
        assert (saved.rerank_key_name(), saved.rerank_needs_key()) == (spec.key_name, spec.needs_key)


def test_unknown_preset_is_a_key_error():
    with pytest.raises(KeyError):
        Saved(rerank_preset="nope").rerank_key_name()
    with pytest.raises(KeyError):
        Saved(rerank_preset="nope").rerank_needs_key()
