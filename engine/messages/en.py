"""English renderings of every engine message code (`engine.messages`).

Keys are codes; values are `str.format` templates over the code's parameters. A code added
here needs its Russian rendering in `ru.py` too (tests/engine/test_messages.py)."""

from __future__ import annotations

CATALOGUE: dict[str, str] = {
    # Text that has no code yet: shown as it is.
    "error.text": "{text}",
    # engine/errors.py
    "import.cannot_read": "Could not import {source}: {problem}",
    "import.cannot_read_at": "Could not import {source} ({where}): {problem}",
    "import.cancelled": "Import cancelled; nothing was changed.",
    # engine/store/lock.py: who writes the store
    "store.operation.import": "import",
    "store.operation.build": "build",
    "store.operation.check": "check",
    "store.operation.schema": "schema upgrade",
    "store.operation.forget": "removal",
    "store.operation.write": "write",
    "store.writer.this_process": "the {operation} in this process",
    "store.writer.window": "the {operation} in another Flashback window",
    "store.writer.command": "`flashback {command}` in another terminal",
    "store.writer.process": "the {operation} in another Flashback process",
    "store.writer.since": "{who} (pid {pid}, since {since})",
    # engine/api: notes a search hands back with its results
    "search.empty_query": "The query is empty: type what to look for, e.g. a name, a place or a question.",
    "search.not_recorded_writer": "this run was not recorded: {writer} is writing the store",
    "search.not_recorded": "this run was not recorded: {reason}",
    "search.calibration_unusable": "the saved score calibration is {problem}: scores use the defaults until "
                                   "`flashback build` (or Build memory) measures it again",
    "memory.index_lost": "The search index in {folder} is missing (was the folder deleted?): build the memory "
                         "again (Memory → Build memory, or `flashback build`); the stored vectors are kept, so "
                         "it is quick.",
    "settings.out_of_range": "{name} must be between {minimum} and {maximum}{unit} (got {value}).",
    "settings.not_a_number": "{name} must be a number (got {value!r}).",
    "settings.not_a_choice": "{name} must be one of {choices} (got {value!r}).",
    # engine/index
    "index.unusable": "The search index {name} needs rebuilding ({reason}).",
    "index.missing": "missing",
    "index.corrupt.sidecar_unreadable": "corrupt: sidecar is not readable JSON ({error})",
    "index.corrupt.sidecar_not_object": "corrupt: sidecar is not a JSON object",
    "index.corrupt.no_format": "corrupt: sidecar has no format version",
    "index.corrupt.sidecar_field": "corrupt: sidecar field {field} is missing or not {kind}",
    "index.either_kind": "{first} or {second}",
    "index.corrupt.sidecar_deleted": "corrupt: sidecar deleted holds something other than integer labels",
    "index.corrupt.size": "corrupt: index file is {size} bytes, the sidecar says {expected}",
    "index.corrupt.checksum": "corrupt: index file does not match its sidecar (checksum differs)",
    "index.corrupt.space": "corrupt: sidecar space is {found}, not {expected}",
    "index.corrupt.ef_search": "corrupt: sidecar has no valid ef_search",
    "index.corrupt.unreadable": "corrupt: hnswlib could not read it ({error})",
    "index.corrupt.count": "corrupt: the file holds {items} items ({live} live), the sidecar says {expected_items} "
                           "({expected_live} live)",
    "index.stale.format": "stale: format version {found}, this Flashback reads {expected}",
    "index.stale.model": "stale: model changed from {saved} to {expected}",
    "index.stale.dimension": "stale: dimension {saved} in the index, {expected} expected",
    "index.stale.store": "stale: store changed",
    "index.stale.count": "stale: count {saved} in the index, {expected} expected",
    # engine/traces
    "traces.failed": "Could not {action}: {detail}",
    "traces.failed_old_store": "Could not {action}: this store predates run history; open it with Flashback once "
                               "to upgrade it.",
    "traces.action.record": "record the rerank run",
    "traces.action.read_history": "read the run history",
    "traces.action.read_run": "read run {run_id}",
    "traces.action.delete": "delete old runs",
    "traces.database_locked": "database is locked",
    # engine/export
    "export.budget_not_positive": "The context budget must be a positive number of tokens, not {budget}.",
    "export.unreadable": "Could not read {what} {id} from the store: {detail}",
    "export.kind.topic": "topic",
    "export.kind.person": "person",
    "export.kind.artifact": "artifact",
    # engine/browse.py
    "browse.topic_missing": "Topic {topic_id} is not in the store (it may have been merged into another; search "
                            "again to see the current topics).",
    # engine/evaluation
    "evaluation.cancelled": "Stopped before every labelled query was searched.",
    "evaluation.qrels.unreadable": "Cannot read {path}: {problem}.",
    "evaluation.qrels.not_utf8": "{path} is not a QRELS file: it is not UTF-8 text.",
    "evaluation.qrels.not_json": "{path} is not a QRELS file: it is not JSON (line {line}).",
    "evaluation.qrels.missing_key": "{path} is not a QRELS file: the key {key} is missing; expected {shape}.",
    "evaluation.qrels.malformed": "{path} is not a QRELS file: {problem}; expected {shape}.",
    "evaluation.qrels.queries_not_list": "\"queries\" is not a list",
    "evaluation.qrels.key_not_list": "\"{key}\" of query {number} is not a list",
    "evaluation.qrels.no_text": "query {number} has no text",
    "evaluation.qrels.nothing_known": "None of the {count:,} messages the file names is in this store: import the "
                                      "chats it was made from first.",
    "evaluation.qrels.nothing_known_in": "None of the {count:,} messages in {file} names is in this store: import "
                                         "the chats it was made from first.",
    # engine/topics
    "topics.topic_missing": "Topic {topic_id} does not exist (it may have been merged into another).",
    "topics.build_cancelled": "Topic building cancelled; topics built so far are kept and the rest will be built "
                              "next time.",
    "topics.build_gave_up": "The language model failed {count} times in a row, so topic building stopped; topics "
                            "built so far are kept. Last error: {last_error}",
    "topics.store_changed": "The store changed while topics were being built (another Flashback writing?); nothing "
                            "of this batch was kept. Build topics again.",
    "topics.agent_failed": "The language model's answer could not be used ({reason})",
    "topics.agent_failed_because": "The language model's answer could not be used ({reason}): {detail}",
    "topics.agent_reason.llm_error": "llm_error",
    "topics.agent_reason.timeout": "timeout",
    "topics.agent_reason.empty_response": "empty_response",
    "topics.agent_reason.parse_error": "parse_error",
    "topics.agent_reason.invalid_shape": "invalid_shape",
    "topics.agent_reason.no_valid_topics": "no_valid_topics",
    "topics.agent_reason.cancelled": "cancelled",
    "topics.agent.should_merge_not_bool": "should_merge is not true or false",
    "topics.agent.no_topics_list": "no topics list",
    "topics.agent.none_usable": "{count} proposals, none usable",
    "topics.llm_server": "the LLM server",
    "topics.server_at": "{label} at {url}",
    "topics.server_given_up": "{server} failed {count} times in a row, so no more requests are sent to it (last "
                              "error: {last_error})",
    "topics.settings.chunks_positive": "chunk_interval_s, max_chunk_messages and max_chunk_chars must be positive",
    "topics.settings.subject_chars": "subject_chars must be 0 (off) or positive",
    "topics.settings.consolidation_threshold": "consolidation_threshold is a cosine: between -1 and 1",
    "topics.settings.at_least_one": "splitter_concurrency, batch_messages and max_merge_candidates must be ≥ 1",
    "topics.ids_not_distinct": "message_ids must be distinct",
}
