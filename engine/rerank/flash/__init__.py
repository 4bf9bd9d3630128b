"""The agentic Flash reranker (seed 000, NOTES.md): the LLM reads candidate summaries, loads
the topics it wants with `get_topics_content`, and answers with its choice and reasons.

    client = ChatClient(Endpoint.from_preset("openrouter", api_key=key))
    source = store_topic_source(lambda: connect(db_path(data_dir)))
    result = await FlashReranker(client, source, FlashSettings()).arerank(query, candidates)
"""

from engine.rerank.flash.contextualize import QueryRewrite, fuse_candidates, rewrite_query
from engine.rerank.flash.errors import AnswerError, FlashRerankError, FlashSettingsError
from engine.rerank.flash.parser import ParsedAnswer, extract_json, parse_answer
from engine.rerank.flash.prompt import estimate_tokens
from engine.rerank.flash.protocol import ProtocolChoice, choose_protocol
from engine.rerank.flash.reranker import FALLBACK_REASONS, MODEL_EMPTY, FlashReranker
from engine.rerank.flash.settings import FlashSettings
from engine.rerank.flash.source import TopicContent, TopicSource, store_topic_source

__all__ = [
    "FALLBACK_REASONS", "MODEL_EMPTY", "AnswerError", "FlashRerankError", "FlashReranker", "FlashSettings",
    "FlashSettingsError", "ParsedAnswer", "ProtocolChoice", "QueryRewrite", "TopicContent", "TopicSource",
    "choose_protocol", "estimate_tokens", "extract_json", "fuse_candidates", "parse_answer", "rewrite_query",
    "store_topic_source",
]
