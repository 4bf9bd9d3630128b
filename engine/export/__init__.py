"""Context assembly and export: selected topics, people and attachments packed into a
token budget, as Markdown to paste into any chat or as JSON."""

from __future__ import annotations

from engine.export.errors import ContextError
from engine.export.pack import DEFAULT_BUDGET_TOKENS, ContextItem, ContextPack, assemble_context
from engine.export.render import to_json, to_markdown
from engine.text.tokens import estimate_tokens

__all__ = ["DEFAULT_BUDGET_TOKENS", "ContextError", "ContextItem", "ContextPack", "assemble_context",
           "estimate_tokens", "to_json", "to_markdown"]
