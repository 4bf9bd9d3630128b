"""Where each rerank server lives and how its `/rerank` request and answer are shaped.

Every server here scores (query, passage) pairs with a cross-encoder and speaks nearly the
same request; the differences are the path, the name of the passages field, the name of
the "return at most" field, where the scores list sits, what the score is called, and
whether the score is a probability or a raw logit. Sources, checked against each
provider's documentation (docs/rerankers.md has the commands to run the local ones):

- llama.cpp `llama-server --reranking` (tools/server/README.md): POST /v1/rerank (aliases
  /rerank, /reranking, /v1/reranking) {"model"?, "query", "documents", "top_n"?} →
  {"results": [{"index", "relevance_score"}]}. With bge-reranker GGUFs the score is the
  model's raw logit (7.7, -11.0; issue ggml-org/llama.cpp#8555), with Qwen3-Reranker an
  already-softmaxed probability: "auto" (below) tells them apart per query.
- Hugging Face Text Embeddings Inference: POST /rerank {"query", "texts", "raw_scores",
  "return_text", "truncate"} → [{"index", "score"}] (sigmoid-normalised unless raw_scores).
- Infinity (`infinity_emb v2`, port 7997; `--url-prefix /v1` moves it): POST /rerank
  {"query", "documents", "model", "top_n", "return_documents"} → {"results": [{"index",
  "relevance_score"}]}.
- vLLM (`vllm serve <reranker>`): POST /v1/rerank (also /rerank, /v2/rerank), Jina and
  Cohere compatible: {"model", "query", "documents", "top_n"} → {"results": [...]}.
- Jina AI: POST https://api.jina.ai/v1/rerank {"model", "query", "documents", "top_n",
  "return_documents"} → {"results": [{"index", "relevance_score"}], "usage": {"total_tokens"}}.
- Cohere: POST https://api.cohere.com/v2/rerank {"model", "query", "documents", "top_n"} →
  {"results": [{"index", "relevance_score"}], "meta": {"billed_units": {"search_units"}}}.
- Voyage AI: POST https://api.voyageai.com/v1/rerank {"model", "query", "documents",
  "top_k", "return_documents", "truncation"} → {"data": [{"index", "relevance_score"}],
  "usage": {"total_tokens"}}.

Every server above takes `Authorization: Bearer <key>` (the local ones only when started
with an API key). Answers are read leniently whatever the preset (a list, "results" or
"data"; "relevance_score" or "score"), so a `custom` server of any of these kinds works.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.llm.presets import is_local_url
from engine.messages import Message, msg
from engine.rerank.cross_encoder.errors import CrossEncoderSettingsError

# "probability": scores are in [0, 1] as sent; "auto": when any score of a query falls
# outside [0, 1] they are raw logits, and every score of that query goes through a sigmoid.
ScoreKind = Literal["probability", "auto"]
KEY_FOR_LOCAL = "rerank"  # keyring entry of a local or custom server started with an API key


@dataclass(frozen=True, slots=True)
class RerankPreset:
    name: str
    label: str  # how messages name the server: "Text Embeddings Inference answered 503"
    base_url: str
    path: str
    documents_field: str = "documents"
    top_field: str | None = "top_n"  # None: the server has no such field (TEI)
    sends_model: bool = True  # TEI serves one model and has no model field
    default_model: str = ""
    needs_key: bool = False
    key_name: str = KEY_FOR_LOCAL  # keyring entry (app/keys.py) the key is read from
    scores: ScoreKind = "probability"
    local: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict)  # fields every request carries


LLAMA_CPP = RerankPreset("llamacpp", "llama.cpp server", "http://localhost:8080", "/v1/rerank", scores="auto")
TEI = RerankPreset("tei", "Text Embeddings Inference", "http://localhost:8080", "/rerank", documents_field="texts",
                   top_field=None, sends_model=False,
                   extra={"truncate": True, "raw_scores": False, "return_text": False})
INFINITY = RerankPreset("infinity", "Infinity", "http://localhost:7997", "/rerank",
                        extra={"return_documents": False})
VLLM = RerankPreset("vllm", "vLLM", "http://localhost:8000", "/v1/rerank", scores="auto")
JINA = RerankPreset("jina", "Jina AI", "https://api.jina.ai", "/v1/rerank",
                    default_model="jina-reranker-v2-base-multilingual", needs_key=True, key_name="jina", local=False,
                    extra={"return_documents": False})
COHERE = RerankPreset("cohere", "Cohere", "https://api.cohere.com", "/v2/rerank", default_model="rerank-v3.5",
                      needs_key=True, key_name="cohere", local=False)
VOYAGE = RerankPreset("voyage", "Voyage AI", "https://api.voyageai.com", "/v1/rerank", top_field="top_k",
                      default_model="rerank-2.5", needs_key=True, key_name="voyage", local=False,
                      extra={"return_documents": False, "truncation": True})
# Any other server: the Jina/Cohere request (the common one), its answer read in any shape.
CUSTOM = RerankPreset("custom", "the rerank server", "", "/v1/rerank", scores="auto")

RERANK_PRESETS: dict[str, RerankPreset] = {p.name: p for p in (LLAMA_CPP, TEI, INFINITY, VLLM, JINA, COHERE, VOYAGE,
                                                                 CUSTOM)}
_ENDPOINT_TAILS = ("/rerank", "/reranking")


def get_rerank_preset(name: str) -> RerankPreset:
    try:
        return RERANK_PRESETS[name]
    except KeyError:
        raise ValueError(f"Unknown rerank preset {name!r}; choose one of: {', '.join(RERANK_PRESETS)}") from None


@dataclass(frozen=True)
class RerankEndpoint:
    """Where rerank requests go. `base_url` overrides the preset's address: a server root
    ("http://127.0.0.1:8080"), a root with the API version ("…/v1") or the whole endpoint
    ("…/v1/rerank"); the preset's path is added only where it is missing. The key stays out
    of `repr` (an endpoint may be logged); None means no Authorization header."""

    preset: str = "custom"
    base_url: str = ""
    api_key: str | None = field(default=None, repr=False)
    model: str = ""

    @property
    def spec(self) -> RerankPreset:
        return get_rerank_preset(self.preset)

    @property
    def url(self) -> str:
        base = (self.base_url or self.spec.base_url).rstrip("/")
        if base.endswith(_ENDPOINT_TAILS):
            return base
        path = self.spec.path
        for version in ("/v1", "/v2"):
            if path.startswith(version + "/") and base.endswith(version):
                return base + path[len(version):]
        return base + path

    @property
    def model_name(self) -> str:
        return self.model or self.spec.default_model

    @property
    def is_local(self) -> bool:
        """A local preset on its own address, or any address on this machine or network."""
        if self.base_url:
            return is_local_url(self.base_url)
        return self.spec.local

    @property
    def label(self) -> Message:
        """The server's name in the person's language (messages take it as a parameter)."""
        return msg(f"rerank.cross_encoder.preset.{self.preset}")

    def check(self) -> None:
        """Raise `CrossEncoderSettingsError` when requests could not be sent at all."""
        if not (self.base_url or self.spec.base_url):
            raise CrossEncoderSettingsError(msg("rerank.cross_encoder.needs_url"))

    def request_body(self, query: str, passages: list[str]) -> dict[str, Any]:
        """One batch's request in this server's shape; asks for every passage's score back."""
        spec = self.spec
        body: dict[str, Any] = {"query": query, spec.documents_field: passages}
        if spec.sends_model and self.model_name:
            body["model"] = self.model_name
        if spec.top_field:
            body[spec.top_field] = len(passages)
        body.update(spec.extra)
        return body

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
