"""The splitter and the merger on one chat client, for a build with a chat model configured.

    with TopicAgents(endpoint, timeout=60) as agents:
        build_memory(..., splitter=agents.splitter, merger=agents.merger)

A build runs on a worker thread (or in the window's child process) and calls the agents
synchronously; they share one `AgentLoop`, because the client's pooled connections belong
to the loop that opened them. Closing the session closes the client on that loop.
"""

from __future__ import annotations

from typing import Any, TypedDict

from engine.llm import ChatClient, Endpoint
from engine.messages import msg
from engine.topics.agents import GIVE_UP_AFTER, AgentLoop, FailureGate, MergerAgent, SplitterAgent

# Seed 004 runs its agents without a reasoning budget: splitting and merging are reading
# tasks, and reasoning tokens would multiply the cost of a build over thousands of chunks.
DEFAULT_REASONING = None
DEFAULT_TIMEOUT_S = 60.0  # per call: a 400-message chunk is a long prompt for a small model
LOCAL_CONCURRENCY = 1  # llama.cpp, Ollama, LM Studio generate one reply at a time by default


class _AgentOptions(TypedDict):
    """What the splitter and the merger share (`_Agent.__init__`'s keywords)."""

    model: str | None
    timeout: float | None
    reasoning_effort: str | None
    loop: AgentLoop | None
    max_concurrency: int | None
    gate: FailureGate | None


class TopicAgents:
    def __init__(self, endpoint: Endpoint, *, timeout: float = DEFAULT_TIMEOUT_S,
                 reasoning_effort: str | None = DEFAULT_REASONING, concurrency: int | None = None,
                 give_up_after: int = GIVE_UP_AFTER, **client_options: Any) -> None:
        """`concurrency`: splitter requests in flight (None: 1 for a local server, else the
        build's own setting); `give_up_after`: LLM failures in a row before calls stop."""
        self.endpoint = endpoint
        self.loop = AgentLoop()
        self.client = ChatClient(endpoint, **client_options)
        if concurrency is None and endpoint.is_local:
            concurrency = LOCAL_CONCURRENCY
        if concurrency is not None and concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency
        self.gate = FailureGate(msg("topics.server_at", label=endpoint.spec.label, url=endpoint.url), give_up_after)
        options: _AgentOptions = {"model": endpoint.default_model, "timeout": timeout,
                                  "reasoning_effort": reasoning_effort, "loop": self.loop,
                                  "max_concurrency": concurrency, "gate": self.gate}
        self.splitter = SplitterAgent(self.client, **options)
        self.merger = MergerAgent(self.client, **options)

    def close(self) -> None:
        self.loop.close(self.client)

    def __enter__(self) -> TopicAgents:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
