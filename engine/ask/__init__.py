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
    Source,
    StepRecord,
)

__all__ = ["NO_MODEL_NOTE", "RERANKER_NAME", "Answer", "AskCancelled", "AskDeps", "AskOutcome", "AskSettings",
           "Claim", "Plan", "Source", "StepRecord", "ask", "store_profile"]
