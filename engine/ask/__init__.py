"""Ask your memory (issue 27, seed 002): a question answered from the store, with citations.

    deps = AskDeps(stage1=service.stage1, reranker=reranker, connect=connect_to_store,
                   embedder=service.embedder(), client=chat_client, chats={"Мама": 1}, languages=["ru", "en"])
    outcome = await ask("when is Mom's appointment?", deps, AskSettings(), now=datetime.now().astimezone())
    outcome.answer.text        # "… [1][2]", every [n] a real source
    outcome.sources[0]         # Source(number=1, chat=…, message_ids=[…], authors=[…], …)
    outcome.as_dict()          # plan, sources, claims, verification, steps, timings, tokens, cost

One module per step: plan, search, compose, answer, verify (steps.py runs search, rerank,
compose and verify on the store; flow.py orders them within the time budget); dates.py
reads date phrases offline; record.py keeps the run in the run history.
"""

from typing import TYPE_CHECKING

from engine.lazy import lazy_exports

if TYPE_CHECKING:
    from engine.ask.flow import NO_MODEL_NOTE, ask
    from engine.ask.profile import store_profile
    from engine.ask.record import RERANKER_NAME
    from engine.ask.types import (
        Answer,
        AskCancelled,
        AskDeps,
        AskOutcome,
        AskSettings,
        Claim,
        Plan,
        Quote,
        Source,
        StepRecord,
    )

__all__ = ["NO_MODEL_NOTE", "RERANKER_NAME", "Answer", "AskCancelled", "AskDeps", "AskOutcome", "AskSettings",
           "Claim", "Plan", "Quote", "Source", "StepRecord", "ask", "store_profile"]

# Loaded on first use (PEP 562): every search imports engine.ask.dates for its date phrases,
# which must not bring the whole Ask flow (LLM client, planner, verifier) into a plain search
# (issue 26: a cold `flashback search`).
_WHERE = {"NO_MODEL_NOTE": ".flow", "ask": ".flow", "store_profile": ".profile", "RERANKER_NAME": ".record",
          **{name: ".types" for name in ("Answer", "AskCancelled", "AskDeps", "AskOutcome", "AskSettings", "Claim",
                                         "Plan", "Quote", "Source", "StepRecord")}}

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
