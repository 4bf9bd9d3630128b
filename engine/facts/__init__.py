"""The Archivist (issue 33, seed 004's last stage): facts about the owner and the people in a
history, each with the messages that state it, read once per topic by the chat model.

- `records`: the frozen dataclasses the faces see (FactInfo, Profile, ExtractionReport, …).
- `store`: reading and changing facts over a connection; the owner's profile for prompts.
- `extract`: one schema-constrained call per unread topic, every fact checked against its
  messages (`engine.support.check`) and for secrets before it is kept.
"""
