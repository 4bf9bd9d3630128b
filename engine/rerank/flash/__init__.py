"""The agentic Flash reranker (seed 000, NOTES.md): the LLM reads candidate summaries, loads
the topics it wants with `get_topics_content`, and answers with its choice and reasons.

    client = ChatClient(Endpoint.from_preset("openrouter", api_key=key))
    source = store_topic_source(lambda: connect(db_path(data_dir)))
    result = await FlashReranker(client, source, FlashSettings()).arerank(query, candidates)
"""

from typing import TYPE_CHECKING

from engine.lazy import lazy_exports

if TYPE_CHECKING:
    from engine.rerank.flash.contextualize import QueryRewrite, fuse_candidates, rewrite_query
    from engine.rerank.flash.errors import AnswerError, FlashRerankError, FlashSettingsError
    from engine.rerank.flash.parser import ParsedAnswer, extract_json, parse_answer
    from engine.rerank.flash.prompt import estimate_tokens
    from engine.rerank.flash.protocol import ProtocolChoice, choose_protocol
    from engine.rerank.flash.reranker import FALLBACK_REASONS, MODEL_EMPTY, FlashReranker
    from engine.rerank.flash.settings import FlashSettings
    from engine.rerank.flash.source import TopicContent, TopicSource, store_topic_source

# Loaded on first use (PEP 562): its settings are read by every face's option and settings code,
# which must not bring the LLM client, prompts and topic readers into a plain search (issue 26: a
# cold `flashback search`).
_WHERE: dict[str, str] = {name: f"{__name__}.{module}" for module, names in (
    ("contextualize", ("QueryRewrite", "fuse_candidates", "rewrite_query")),
    ("errors", ("AnswerError", "FlashRerankError", "FlashSettingsError")),
    ("parser", ("ParsedAnswer", "extract_json", "parse_answer")),
    ("prompt", ("estimate_tokens",)),
    ("protocol", ("ProtocolChoice", "choose_protocol")),
    ("reranker", ("FALLBACK_REASONS", "FlashReranker", "MODEL_EMPTY")),
    ("settings", ("FlashSettings",)),
    ("source", ("TopicContent", "TopicSource", "store_topic_source")),
) for name in names}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)


__all__ = [
    "FALLBACK_REASONS", "MODEL_EMPTY", "AnswerError", "FlashRerankError", "FlashReranker", "FlashSettings",
    "FlashSettingsError", "ParsedAnswer", "ProtocolChoice", "QueryRewrite", "TopicContent", "TopicSource",
    "choose_protocol", "estimate_tokens", "extract_json", "fuse_candidates", "parse_answer", "rewrite_query",
    "store_topic_source",
]
