"""The splitter and the merger on one chat client, for a build with a chat model configured.

    with TopicAgents(endpoint, timeout=60) as agents:
        build_memory(..., splitter=agents.splitter, merger=agents.merger)

A build runs on a worker thread (or in the window's child process) and calls the agents
synchronously; they share one `AgentLoop`, because the client's pooled connections belong
to the loop that opened them. Closing the session closes the client on that loop.
"""

from __future__ import annotations

from typing import Any

from engine.llm import ChatClient, Endpoint
from engine.topics.agents import AgentLoop, MergerAgent, SplitterAgent

# Seed 004 runs its agents without a reasoning budget: splitting and merging are reading
# tasks, and reasoning tokens would multiply the cost of a build over thousands of chunks.
DEFAULT_REASONING = None
DEFAULT_TIMEOUT_S = 60.0  # per call: a 400-message chunk is a long prompt for a small model


class TopicAgents:
    def __init__(self, endpoint: Endpoint, *, timeout: float = DEFAULT_TIMEOUT_S,
                 reasoning_effort: str | None = DEFAULT_REASONING, **client_options: Any) -> None:
        self.endpoint = endpoint
        self.loop = AgentLoop()
        self.client = ChatClient(endpoint, **client_options)
        options = {"model": endpoint.default_model, "timeout": timeout, "reasoning_effort": reasoning_effort,
                   "loop": self.loop}
        self.splitter = SplitterAgent(self.client, **options)
        self.merger = MergerAgent(self.client, **options)

    def close(self) -> None:
        self.loop.close(self.client)

    def __enter__(self) -> TopicAgents:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
