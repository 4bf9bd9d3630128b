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
    # issue 31 findings
    "search.flash_turn_share": "{server} did not answer turn {turn} within {seconds:g} s, that turn's share of the "
                               "{total:g} s timeout (model {model}). Allow more time or choose a faster model.",
    "search.flash_turn_limit": "{server} did not answer turn {turn} within the {seconds:g} s per-turn limit (model "
                               "{model}). Allow more time or choose a faster model.",
    "search.flash_total_timeout": "{server} did not answer within the {total:g} s timeout (model {model}; turn {turn} "
                                  "had {seconds:g} s of it left). Allow more time or choose a faster model.",
    "cli.interrupted_build": "Interrupted: the build stopped. What it had built so far is kept; the next "
                             "`flashback build` continues from there.",
    "cli.interrupted_import": "Interrupted: the export being imported left nothing in the store (exports "
                              "imported before it are kept); import it again.",
    "cli.interrupted": "Interrupted.",
    "cli.no_store": "There is no Flashback data in {folder}: check --data-dir, or import an export first "
                    "(`flashback import FILE`).",
    "rerank.fallback.unreachable": "the model's server could not be reached",
    "ask.unreachable": "No written answer, only the sources found: {error}",
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
    "export.kind.message": "message not built into memory yet",
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
    "evaluation.tune.too_few_queries": "fewer than two scorable queries: nothing to cross-validate with",
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
    "topics.agent_reason.llm_error": "the model's server answered with an error",
    "topics.agent_reason.timeout": "the time ran out",
    "topics.agent_reason.empty_response": "the model sent no answer",
    "topics.agent_reason.parse_error": "the answer could not be read",
    "topics.agent_reason.invalid_shape": "the answer had the wrong shape",
    "topics.agent_reason.no_valid_topics": "no usable topic",
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
    # engine/rerank
    "rerank.reason.vector": "vector rank {rank}, score {score:.2f}",
    "rerank.reason.unbuilt": "not built into memory yet, so {reranker} did not read it; kept by the threshold: "
                             "{reason}",
    "rerank.threshold.reason": "score {score:.2f} ≥ {threshold:.2f}",
    "rerank.threshold.reason_gap": "score {score:.2f} ≥ {threshold:.2f}, {drop:.2f} below the previous (gap limit "
                                   "{gap:.2f})",
    "rerank.fallback.llm_error": "the call to the model's server failed",
    "rerank.fallback.timeout": "the time ran out",
    "rerank.fallback.turn_timeout": "a turn took too long",
    "rerank.fallback.empty_response": "the model sent no answer",
    "rerank.fallback.protocol_violation": "the model broke the protocol",
    "rerank.fallback.parse_error": "the answer could not be read",
    "rerank.fallback.all_hallucinated": "every id in the answer was made up",
    "rerank.fallback.max_tool_calls": "the limit of tool calls was reached",
    "rerank.fallback.model_empty": "the model found nothing relevant",
    "rerank.flash.fallback_requested": "fallback ({reason}): requested by the model, vector rank {rank}, score "
                                       "{score:.2f}",
    "rerank.flash.fallback_vector": "fallback ({reason}): vector rank {rank}, score {score:.2f}",
    "rerank.flash.selected": "selected by the model",
    "rerank.flash.no_candidates": "no candidates: nothing to ask the model",
    "rerank.flash.model_found_nothing": "the model found nothing relevant",
    "rerank.flash.cut_kept": "the reply was cut off at max_tokens {max_tokens}; its complete entries were kept",
    "rerank.flash.cut_unusable": "{problem} (the reply was cut off at max_tokens {max_tokens})",
    "rerank.flash.all_hallucinated": "every id in the answer is outside the candidates: {ids}",
    "rerank.flash.out_of_time": "the total time ({total:g} s) ran out before turn {turn}",
    "rerank.flash.tool_not_offered": "the model called a tool that was not offered",
    "rerank.flash.too_many_calls": "the model asked for more than {count} tool calls",
    "rerank.flash.turn_limit": "the turn limit was reached",
    "rerank.flash.forced_rejected": "the server rejected the forced call ({rejected}), and the model answered turn 1 "
                                    "without calling {tool}",
    "rerank.flash.forced_ignored": "the server ignored the forced call: the model answered turn 1 without calling "
                                   "{tool}",
    "rerank.flash.forced_ignored_as": "the server ignored the forced call (sent as {sent_as}): the model answered "
                                      "turn 1 without calling {tool}",
    "rerank.flash.schema_rejected": "the server rejected response_format json_schema ({refused})",
    "rerank.flash.read_empty": "the model sent no text for the read request",
    "rerank.flash.read_not_json": "the read request is not JSON",
    "rerank.flash.read_not_json_cut": "the read request is not JSON (cut off at max_tokens)",
    "rerank.flash.read_nothing": "the model asked to read no topic",
    "rerank.flash.answer.no_json": "no JSON object or array in the answer",
    "rerank.flash.answer.empty": "the model sent no text",
    "rerank.flash.answer.no_keys": "the JSON has none of the expected keys (got {keys})",
    "rerank.flash.answer.no_ids": "no entry of the answer has a readable id",
    "rerank.flash.protocol.tools": "tools",
    "rerank.flash.protocol.constrained": "constrained",
    "rerank.flash.protocol.set": "{protocol} (set in the settings)",
    "rerank.flash.protocol.learned": "{protocol} (learned: {evidence})",
    "rerank.flash.protocol.earlier_runs": "earlier runs",
    "rerank.flash.protocol.preset_tools": "{protocol} ({preset} forces tool calls)",
    "rerank.flash.protocol.preset_constrained": "{protocol} ({preset} enforces JSON schemas, not a forced tool call)",
    "rerank.flash.protocol.switched": "{protocol} (switched: {evidence})",
    "rerank.flash.settings.not_one_of": "{name} must be one of {choices}, not {value}",
    "rerank.flash.settings.calls_and_total": "max_tool_calls must be ≥ 0 and total_timeout > 0",
    "rerank.flash.settings.turn_timeout": "turn_timeout must be > 0 (or None for total_timeout / (max_tool_calls + 1))",
    "rerank.flash.settings.turn1_share": "turn1_share is a share of the total time: above 0, at most 1",
    "rerank.flash.settings.shown_counts": "max_candidates, people_shown and artifacts_shown must be ≥ 0",
    "rerank.flash.settings.positive": "{names} must be > 0 (or None for the endpoint's default)",
    "rerank.rewrite.no_client": "no chat model configured",
    "rerank.rewrite.no_recent": "no recent messages",
    "rerank.rewrite.failed": "failed ({kind}): {error}",
    "rerank.rewrite.empty": "empty answer",
    "rerank.rewrite.only_markup": "answer is only markup, not a query",
    "rerank.rewrite.lead_in": "answer is a lead-in, not a query",
    "rerank.rewrite.too_long": "answer too long to be a query",
    "rerank.rewrite.prose": "answer is prose, not a query",
    "rerank.rewrite.cut_off": "cut off at the reply bound",
    "rerank.rewrite.unchanged": "unchanged",
    # ui-visible (issue 22): what the window shows of the store's faults and who writes it, and
    # the chat presets' names in messages (engine/store/faults.py, lock.py; engine/llm/presets.py)
    "store.operation.labels": "labelling",
    "store.full": "The disk holding {folder} is full: free some space and {again} (nothing half-written was kept).",
    "store.damaged": "The store in {folder} is damaged ({detail}): run `flashback check` to see what can be repaired, "
                     "or import your exports into a new data folder.",
    "store.busy": "Another program keeps the store in {folder} busy (database is locked): close it, or wait for it to "
                  "finish, and try again.",
    "store.disk_error": "The disk holding {folder} could not be read or written (disk I/O error): check the disk and "
                        "its free space, then {again} (nothing half-written was kept).",
    "store.again.import": "run the import again",
    "store.again.build": "run the build again",
    "store.again.check": "run the check again",
    "store.again.search": "run the search again",
    "store.again.other": "try again",
    "store.read_only": "The data folder {folder} is read-only: searching works, but importing and building need a "
                       "folder you can write to (check its permissions or the disk).",
    "store.read_only_detail": "The data folder {folder} is read-only ({detail}): searching works, but importing and "
                              "building need a folder you can write to (check its permissions or the disk).",
    "store.writer_busy": "The store is being written by {writer}: try again when it has finished.",
    "store.damage.malformed": "database disk image is malformed",
    "store.damage.not_a_database": "file is not a database",
    "store.os.read_only_fs": "Read-only file system",
    "store.os.access_denied": "Permission denied",
    "store.os.not_permitted": "Operation not permitted",
    "llm.preset.openrouter": "OpenRouter",
    "llm.preset.openai": "OpenAI",
    "llm.preset.ollama": "Ollama",
    "llm.preset.llamacpp": "llama.cpp server",
    "llm.preset.lmstudio": "LM Studio",
    "llm.preset.custom": "the LLM server",
    # engine/rerank/cross_encoder
    "rerank.cross_encoder.reason": "cross-encoder score {score:.2f}",
    "rerank.cross_encoder.fallback_vector": "fallback ({reason}): vector rank {rank}, score {score:.2f}",
    "rerank.cross_encoder.fallback.endpoint_error": "the rerank server answered with an error",
    "rerank.cross_encoder.fallback.timeout": "the time ran out",
    "rerank.cross_encoder.fallback.parse_error": "the answer could not be read",
    "rerank.cross_encoder.fallback.missing_scores": "scores are missing from the answer",
    "rerank.cross_encoder.no_candidates": "no topic candidates: nothing to send to the cross-encoder",
    "rerank.cross_encoder.none_above": "no passage reached the cross-encoder threshold {threshold:.2f} (best "
                                       "{best:.2f})",
    "rerank.cross_encoder.skipped": "cross-encoder not needed: {why}; stage 1's first {count} kept",
    "rerank.cross_encoder.skip.small": "stage 1 found {count:plural:topic|topics} (≤ {limit})",
    "rerank.cross_encoder.skip.apart": "its top {window} scores lie {spread:.2f} apart (flat below {flat:.2f})",
    "rerank.cross_encoder.skip.both": "{first} and {second}",
    "rerank.cross_encoder.chain.narrowed": "the cross-encoder left Flash {after} of {before:plural:topic|topics}",
    "rerank.cross_encoder.chain.unnarrowed": "Flash read all {count:plural:topic|topics}: {why}",
    "rerank.cross_encoder.settings.invalid": "the cross-encoder setting {name} is out of range (got {value})",
    "rerank.cross_encoder.needs_url": "The custom rerank server needs an address, e.g. "
                                      "http://127.0.0.1:8080/v1/rerank.",
    "rerank.cross_encoder.error.timeout": "{label} did not answer within {seconds:g} s",
    "rerank.cross_encoder.error.unreachable": "{label} at {url} does not answer ({detail}); is the server running?",
    "rerank.cross_encoder.error.auth": "{label} refused the API key ({status}): check the key saved for {provider}",
    "rerank.cross_encoder.error.not_found": "{label}: no rerank endpoint at {url} (404); is it serving a reranker "
                                            "model (llama-server --reranking)?",
    "rerank.cross_encoder.error.status": "{label} answered {status}: {detail}",
    "rerank.cross_encoder.error.not_json": "{label} answered with something that is not JSON",
    "rerank.cross_encoder.error.shape": "{label}'s answer holds no list of scores (results, data or a list)",
    "rerank.cross_encoder.error.bad_entry": "{label}'s answer holds an entry without a valid index (0 to {sent} − 1) "
                                            "and score, or one given twice: {entry}",
    "rerank.cross_encoder.error.missing": "{label} returned scores for {got} of {sent} passages (missing: {missing})",
    "rerank.cross_encoder.preset.llamacpp": "llama.cpp server",
    "rerank.cross_encoder.preset.tei": "Text Embeddings Inference",
    "rerank.cross_encoder.preset.infinity": "Infinity",
    "rerank.cross_encoder.preset.vllm": "vLLM",
    "rerank.cross_encoder.preset.jina": "Jina AI",
    "rerank.cross_encoder.preset.cohere": "Cohere",
    "rerank.cross_encoder.preset.voyage": "Voyage AI",
    "rerank.cross_encoder.preset.custom": "the rerank server",
    # issue 23: filters, people, CLI
    "search.dates_inverted": "The date range is empty: {first} comes after {last}; choose a first day on or before "
                             "the last one.",
    "owner.name_unknown": "Nobody called {name!r} wrote in an imported WhatsApp or JSONL chat (or they are you "
                          "already): give the name exactly as the export writes it.",
    # engine/api/search.py: a date phrase in the query
    "search.date_boost": "“{phrase}”: topics from {days} come first ({count} of them), nothing else is hidden",
    # issue 26: a search never waits for a build; the first search on a big store
    "search.unbuilt_not_read": "not shown: {count:plural:message|messages} found by their words but not built into "
                               "memory yet ({reranker} reads built memory only)",
    "search.unbuilt": "{count:plural:message|messages} not built into memory yet were searched by their words only "
                      "({found} found); `flashback build` (or Build memory) adds them",
    "index.compacted": "it held {deleted} deleted items, more than twice its live ones: rebuilt smaller",
    "index.corrupt.vectors": "corrupt: its file of full vectors does not match the sidecar ({problem})",
    "index.vectors.unreadable": "unreadable: {error}",
    "index.vectors.format": "not a vector file of this version, or truncated",
    "index.vectors.size": "{size} bytes, the sidecar says {expected}",
    "index.vectors.checksum": "checksum differs",
    "index.vectors.missing": "missing",
    # issue 23: chat identity and forget
    "import.matched.content": "the same chat as {chats} already stored (recognised by its first messages), so only "
                              "new messages were added",
    "import.matched.key": "added to {count:plural:chat|chats} already stored: {chats}",
    "import.summary.recognised": "Recognised by their messages as chats already stored: {chats}",
    "import.summary.existing": "Added to chats already stored: {chats}",
    "forget.chat_missing": "There is no chat {chat} in the store; `flashback chats` lists them.",
    "forget.source_missing": "There is no import {source} in the store; `flashback forget --sources` lists them.",
    "forget.no_target": "Say what to forget: --chat ID_OR_NAME (`flashback chats` lists them) or --source ID "
                        "(`flashback forget --sources` lists the imports).",
    "forget.no_sources": "Nothing has been imported yet.",
    "forget.preview.chat": "Forgetting the chat “{name}” removes {messages:plural:message|messages}, "
                           "{topics:plural:topic|topics}, {people:plural:person|people} found only there, "
                           "{attachments:plural:attachment|attachments} and {runs:plural:recorded search|recorded "
                           "searches} that showed it, for good.",
    "forget.preview.source": "Forgetting the import {name} removes {messages:plural:message|messages} in "
                             "{chats:plural:chat|chats}, {topics:plural:topic|topics}, {people:plural:person|people} "
                             "found only there, {attachments:plural:attachment|attachments} and "
                             "{runs:plural:recorded search|recorded searches} that showed them, for good.",
    "forget.prompt": "Remove them for good? [y/N] ",
    "forget.declined": "Nothing was removed.",
    "forget.needs_yes": "Forgetting removes messages for good and there is no terminal here to confirm it: add --yes "
                        "to go ahead.",
    "forget.done": "Forgot {name}: {messages:plural:message|messages}, {topics:plural:topic|topics}, "
                   "{people:plural:person|people} and {runs:plural:recorded search|recorded searches} removed; the "
                   "store went from {before} to {after}.",
    "forget.done_uncompacted": "Forgot {name}: {messages:plural:message|messages}, {topics:plural:topic|topics}, "
                               "{people:plural:person|people} and {runs:plural:recorded search|recorded searches} "
                               "removed and overwritten, but the disk had no room to compact the store.",
    "forget.done_reader": "Forgot {name}: {messages:plural:message|messages}, {topics:plural:topic|topics}, "
                          "{people:plural:person|people} and {runs:plural:recorded search|recorded searches} removed; "
                          "another Flashback process is reading, so their text will be purged from the store's files "
                          "when it finishes (the next Flashback command or window does it).",
    "forget.done_not_smaller": "Forgot {name}: {messages:plural:message|messages}, {topics:plural:topic|topics}, "
                               "{people:plural:person|people} and {runs:plural:recorded search|recorded searches} "
                               "removed and overwritten; the store is {size}, no smaller, as so little was removed.",
    "memory.check.purge": "no forgotten text left to purge",
    "memory.check.purge_finished": "purged the text of a forgotten chat from the store's files (its forget was "
                                   "interrupted)",
    "memory.check.purge_reader": "the text of a forgotten chat is still in the store's files: another Flashback "
                                 "process is reading; it will be purged when that process finishes",
    "memory.check.purge_failed": "the text of a forgotten chat is still in the store's files ({reason}); run "
                                 "`flashback check` again",
    "forget.menu": "Forget this chat…",
    "forget.title": "Forget a chat",
    "forget.confirm": "Forget",
    "forget.failed": "Could not forget the chat",
    "demo.own_folder": "The demo opens in its own data folder, {folder}; your store is not touched (`flashback --demo "
                       "--data-dir DIR` puts it elsewhere).",
    # engine/errors.py: a cancelled build
    "build.cancelled": "Build cancelled: the topics and vectors made so far are kept; build again to finish.",
    # engine/llm: the chat client's errors (the server named by llm.preset.*) and its waits
    "llm.closed_before_sending": "The connection to {server} was closed; the request was not sent.",
    "llm.closed_while_running": "The connection to {server} was closed while a request was running.",
    "llm.needs_key": "{server} needs an API key.",
    "llm.no_model": "No model is set for {server}.",
    "llm.timeout": "{server} did not answer within {seconds:g} s (model {model}). Try again, allow more time, or "
                   "choose a faster model.",
    "llm.timeout_attempts": "{server} did not answer within {seconds:g} s (model {model}, "
                            "{attempts:plural:attempt|attempts}). Try again, allow more time, or choose a faster "
                            "model.",
    "llm.unusable_reply": "{server} sent a reply without a usable answer ({problem}). Try again or choose another "
                          "model.",
    "llm.bad_scheme": "The base URL for {server} ({url}) must start with http:// or https://.",
    "llm.unreadable_request": "{server} could not read the request ({status}: {detail}). Check the model name "
                              "({model}) and that the server is OpenAI-compatible.",
    "llm.embedded_error": "{server} reported an error while answering{suffix}: {detail} (code {error_code}). Try again "
                          "or choose another model.",
    "llm.unreachable": "Could not reach {server} at {url}{suffix} ({reason}). Check that the server is running and "
                       "the base URL is right.",
    "llm.rate_limited": "{server} is limiting the request rate (429){suffix}: {detail}. {advice} or choose another "
                        "model.",
    "llm.advice.try_again_in": "Try again in {wait}",
    "llm.advice.wait_a_minute": "Wait a minute",
    "llm.server_error": "{server} had a server error ({status}){suffix}: {detail}. Try again later or choose another "
                        "model.",
    "llm.key_rejected": "{server} did not accept the API key (401: {detail}).",
    "llm.key_rejected_none_set": "{server} did not accept a request without an API key (401: {detail}).",
    "llm.no_credits": "{server} says the account has no credits left (402: {detail}). Add credits or choose a free "
                      "model.",
    "llm.forbidden": "{server} refused the request (403: {detail}). The key may not have access to model {model}, or "
                     "the input was flagged.",
    "llm.not_found": "{server} answered 404 for model {model} at {url}/chat/completions: {detail}. Check the model "
                     "name and that the base URL ends in /v1.",
    "llm.rejected": "{server} rejected the request ({status}: {detail}). Check the model name ({model}) and the "
                    "endpoint settings.",
    "llm.not_json": "{server} sent a reply that is not JSON (status {status}, starting {snippet}). Check that the "
                    "base URL points at an OpenAI-compatible API.",
    "llm.not_an_object": "{server} sent JSON that is not an object; check that the base URL points at an "
                         "OpenAI-compatible API.",
    "llm.gave_up.attempts": " after {attempts:plural:attempt|attempts}",
    "llm.gave_up.retry_after": " (it asked to wait {wait} before trying again, longer than the {limit} Flashback "
                               "waits)",
    "llm.gave_up.no_time": " (the wait before retrying, {wait:.1f} s, is longer than the {limit:.1f} s left for this "
                           "call)",
    "llm.seconds": "{value:g} s",
    "llm.minutes": "{value:.0f} min",
    "llm.completion.no_choices": "the reply has no choices",
    "llm.completion.no_message": "the first choice has no message",
    "llm.completion.calls_not_a_list": "tool_calls is not a list",
    "llm.completion.call_not_an_object": "tool call {index} is not an object",
    "llm.completion.call_without_name": "tool call {index} has no function name",
    # engine/embeddings: the embedders' errors (the service named as it is: a provider or an address)
    "embeddings.unknown_provider": "Unknown embedding provider {provider}.",
    "embeddings.no_address": "The address of your embedding server is not set (for example http://localhost:8080/v1).",
    "embeddings.no_model": "No embedding model is chosen.",
    "embeddings.key_missing": "The embedding service ({service}) needs an API key.",
    "embeddings.key_rejected": "The embedding service ({service}) rejected the API key, or the key has no access to "
                               "the embedding model.",
    "embeddings.rate_limited": "The embedding service ({service}) is limiting how fast Flashback may send "
                               "requests{wait}. Try again in a few minutes.",
    "embeddings.asked_to_wait": " (it asked to wait {seconds:.0f} s)",
    "embeddings.failed": "The embedding service ({service}) failed{status}{detail}. Try again later, or check the "
                         "model name and address.",
    "embeddings.http_status": " (HTTP {status})",
    "embeddings.detail": ": {detail}",
    "embeddings.cannot_connect": "could not connect to {url} ({error}); is the server running?",
    "embeddings.timeout": "The embedding service ({service}) did not answer{within}. Check your connection (or that "
                          "the local server is running) and try again.",
    "embeddings.within": " within {seconds:g} s",
    "embeddings.unusable_answer": "The embedding service ({service}) sent an answer Flashback cannot use: {problem}. "
                                  "Check that its model is an embedding model.",
    "embeddings.answer.not_json": "the answer is not valid JSON",
    "embeddings.answer.no_data": "the answer has no list of vectors ('data')",
    "embeddings.answer.count": "{sent} texts were sent but {got} vectors came back",
    "embeddings.answer.positions": "the vectors' positions ('index') do not match the texts",
    "embeddings.answer.not_numbers": "a vector is missing or is not a list of numbers",
    "embeddings.answer.ragged": "the vectors are empty or of different lengths",
    "embeddings.answer.dimension": "vectors have {got} numbers, expected {expected}",
    "embeddings.answer.invalid_numbers": "a vector is all zeros or holds invalid numbers",
    "embeddings.builtin_state_damaged": "The saved word statistics of the built-in embedder are damaged or from "
                                        "another version; rebuild the search index to compute them again.",
    "embeddings.local.not_on_windows": "The local model is not available on Windows yet: choose the built-in "
                                       "embedder.",
    "embeddings.local.missing": "The local model is not installed: run `{command}` and try again, or choose the "
                                "built-in embedder.",
    "embeddings.local.unloadable": "The local model could not be loaded ({error}); reinstall it with `{command}`.",
    # engine/ask: the flow's notes, the plan's, the claims' and the QA file's
    "ask.cancelled": "Ask cancelled.",
    "ask.no_model": "No chat model is set, so there is no written answer, only what the sources say.",
    "ask.no_answer": "no answer ({reason}): {error}; the sources found are below",
    "ask.refine_failed": "the refine round's answer failed: the first answer stands",
    "ask.refine_not_better": "the refine round's answer was no better supported: the first answer stands",
    "ask.search_failed": "the search failed: {error}",
    "ask.sources_unreadable": "the sources could not be read: {error}",
    "ask.mostly_unsupported": ("Caution: {unsupported} of {claims} statements below are not supported by the "
                               "messages they cite; check the sources before relying on this answer."),
    "ask.step_failed_nothing_read": ("No answer: the {step} step failed ({reason}), so no source was read. "
                                     "This does not mean your chats lack it; try again."),
    "ask.caveat": "Not supported by the cited messages: {claims}.",
    "ask.call.no_time": "no time was left for this step",
    "ask.call.no_call": "the model sent no call of {name}",
    "ask.call.no_text": "the model sent no text",
    "ask.call.not_json": "the reply is not JSON",
    "ask.call.not_json_cut": "the reply is not JSON (cut off at max_tokens)",
    "ask.call.not_an_object": "the reply is JSON but not an object",
    "ask.plan.no_subquery": "the plan had no sub-query: the question was searched",
    "ask.plan.over_limit": "{count} sub-queries over the limit were left out",
    "ask.plan.unknown_chats": "chats the store does not have were ignored: {chats}",
    "ask.plan.nothing_added": "the plan added nothing to the question",
    "ask.plan.dates_ignored": "the plan's dates ({phrase}) were ignored: the question names no time",
    "ask.plan.dates_unreadable": "the plan's dates ({phrase}) could not be read as a range",
    "ask.claim.no_source": "cites no source",
    "ask.claim.other_language": "written in another language than its sources: the offline check cannot compare them",
    "ask.claim.words_missing": "the cited messages do not say: {words}",
    "ask.claim.asks_again": "it asks the question again instead of answering it",
    "ask.claim.restates_question": "it only repeats the question, and the cited messages hold little of it",
    "ask.claim.model_says_unstated": "the model found it not stated by the cited messages",
    "ask.qa.not_a_qa_file": "{path} is not a QA file: {problem}.",
    "ask.qa.expected_shape": "expected LoCoMo's list of samples or {shape}",
    "ask.qa.no_question": "{path} holds no question with a gold answer and evidence.",
    "ask.qa.nothing_known": "None of the evidence messages of the QA file is in this store: import the conversations "
                            "it asks about first.",
    "ask.qa.nothing_known_in": "None of the evidence messages of {source} is in this store: import the conversations "
                               "it asks about first.",
    # issue 31: words for the names a person reads (engine.messages reason_message, step_message,
    # reranker_message): why an Ask step fell back, the steps, the rerankers
    "ask.fallback.no_model": "no chat model",
    "ask.fallback.search_error": "the search failed",
    "ask.fallback.compose_error": "the messages found could not be read",
    "ask.fallback.rerank_error": "the reranker failed",
    "ask.fallback.no_sources": "the search found no sources",
    "ask.fallback.off": "turned off",
    "ask.fallback.answer": "no answer ({reason})",
    "fallback.other": "another reason",
    "ask.step.plan": "Plan",
    "ask.step.search": "Search",
    "ask.step.rerank": "Selection",
    "ask.step.compose": "Sources",
    "ask.step.answer": "Answer",
    "ask.step.verify": "Check",
    "ask.step.refine": "Second round",
    "ask.step.other": "Another step",
    "reranker.none": "vectors only",
    "reranker.threshold": "threshold",
    "reranker.flash": "Flash",
    "reranker.cross-encoder": "cross-encoder",
    "reranker.ask": "Ask",
    "reranker.other": "another reranker",
    # issue 31: where each face says a setting is (engine.messages SETTING_OF): the window names
    # its own panel and dialog, the CLI its options, the MCP server the window's settings
    "hint.window.llm_key": "Set the key in Settings → API key….",
    "hint.window.llm_model": "Choose one in the search settings panel, under Flash (LLM) → Model.",
    "hint.window.llm_url": "Fix it in the search settings panel, under Flash (LLM) → URL.",
    "hint.window.llm_setup": "Choose one in the search settings panel, under Flash (LLM); a server that needs a key "
                             "takes it from Settings → API key….",
    "hint.window.embedder": "Check the embedder in the search settings panel, under Embeddings.",
    "hint.window.embedder_url": "The window offers the built-in and the local embedder (search settings panel, "
                                "Embeddings); a server's address is given with `flashback build --embedding-base-url`.",
    "hint.window.embedder_model": "Choose the embedder in the search settings panel, under Embeddings.",
    "hint.window.embedding_key": "Set the key in Settings → API key….",
    "hint.cli.llm_key": "Save it with `flashback key set --provider NAME`, or set its environment variable "
                        "(`flashback key show --provider NAME` names it).",
    "hint.cli.llm_model": "Name one with --model.",
    "hint.cli.llm_url": "Give the right address with --base-url.",
    "hint.cli.llm_setup": "Choose one with --endpoint and --model: openrouter and openai need a key (`flashback key "
                          "set --provider NAME`), ollama, llamacpp and lmstudio do not.",
    "hint.cli.embedder": "Check --embedder, --embedding-model and --embedding-base-url.",
    "hint.cli.embedder_url": "Give it with --embedding-base-url.",
    "hint.cli.embedder_model": "Name one with --embedding-model.",
    "hint.cli.embedding_key": "Save it with `flashback key set --provider NAME`, or set its environment variable.",
    "hint.cli.embedding_timeout": "Or allow more time with --embedding-timeout SECONDS (default 60).",
    "hint.mcp.llm_key": "Save it in the Flashback window (Settings → API key…) or with `flashback key set`.",
    "hint.mcp.llm_model": "Choose one in the Flashback window: search settings panel, Flash (LLM) → Model.",
    "hint.mcp.llm_url": "Fix it in the Flashback window: search settings panel, Flash (LLM) → URL.",
    "hint.mcp.llm_setup": "Choose one in the Flashback window: search settings panel, Flash (LLM).",
    "hint.mcp.embedder": "Check the embedder in the Flashback window: search settings panel, Embeddings.",
    "hint.mcp.embedder_url": "Check the embedder in the Flashback window: search settings panel, Embeddings.",
    "hint.mcp.embedder_model": "Check the embedder in the Flashback window: search settings panel, Embeddings.",
    "hint.mcp.embedding_key": "Save it in the Flashback window (Settings → API key…) or with `flashback key set`.",
    # issue 31: the run history's figures, one summary for `flashback runs` and the window
    "runs.summary.count": "{runs:plural:run|runs}",
    "runs.summary.count_by": "{runs:plural:run|runs} ({by})",
    "runs.summary.named_count": "{name} {count:,}",
    "runs.summary.fallbacks": "fallbacks {count:,} ({rate:.0%}): {reasons}",
    "runs.summary.reason_count": "{reason} ×{count:,}",
    "runs.summary.no_fallbacks": "no fallbacks",
    "runs.summary.latency": "latency median {p50}, 95th percentile {p95}",
    "runs.summary.tool_calls": "tool calls per run {mean:.1f}",
    "runs.summary.tokens": "tokens {prompt:,} in, {completion:,} out",
    "runs.summary.cost": "cost {cost}",
    "runs.list": "{first}, {then}",
    "runs.row.fallback": "fallback: {reason}",
    "runs.row.tool_calls": "{count:plural:tool call|tool calls}",
    "runs.none": "No runs yet: `flashback search QUERY` records one.",
    "runs.no_such_run": "there is no run {run_id}; `flashback runs` lists them.",
    "unit.ms": "{value:,.0f} ms",
    "unit.s": "{value:.1f} s",
    "unit.min_s": "{minutes} min {seconds} s",
    "unit.unknown": "–",
    # issue 31: a run's settings in the run history, by name (engine.api SearchSettings' groups)
    "runs.setting.group.retrieval": "Search",
    "runs.setting.group.reranker": "Reranker",
    "runs.setting.group.model": "Model",
    "runs.setting.group.flash": "Flash",
    "runs.setting.group.cross_encoder": "Cross-encoder",
    "runs.setting.group.ask": "Question",
    "runs.setting.candidates": "candidates",
    "runs.setting.safety_threshold": "minimum score",
    "runs.setting.hybrid": "hybrid (vectors + keywords)",
    "runs.setting.fusion": "fusion",
    "runs.setting.lexical_weight": "keyword weight",
    "runs.setting.mmr": "diversify (MMR)",
    "runs.setting.mmr_lambda": "MMR balance",
    "runs.setting.people": "people",
    "runs.setting.artifacts": "files",
    "runs.setting.date_from": "from",
    "runs.setting.date_to": "to",
    "runs.setting.chat_ids": "chats",
    "runs.setting.name": "reranker",
    "runs.setting.threshold": "score threshold",
    "runs.setting.gap": "score gap",
    "runs.setting.top_k": "final top-K",
    "runs.setting.model": "model",
    "runs.setting.preset": "server",
    "runs.setting.max_tool_calls": "max tool calls",
    "runs.setting.total_timeout": "time limit",
    "runs.setting.turn_timeout": "time per turn",
    "runs.setting.turn1_share": "first turn's share",
    "runs.setting.reasoning_effort": "reasoning",
    "runs.setting.max_topics": "max topics",
    "runs.setting.max_people": "max people",
    "runs.setting.max_artifacts": "max files",
    "runs.setting.protocol": "protocol",
    "runs.setting.contextualize_query": "rewrite the query first",
    "runs.setting.excerpts": "excerpts",
    "runs.setting.top_n": "passages sent",
    "runs.setting.passage_tokens": "tokens per passage",
    "runs.setting.batch": "batch",
    "runs.setting.skip_small": "skip a small stage 1",
    "runs.setting.skip_flat": "skip flat scores",
    "runs.setting.timeout": "time limit",
    "runs.setting.chain_keep": "Flash reads",
    "runs.setting.total_budget_s": "time budget (s)",
    "runs.setting.verify": "claim check",
    "runs.setting.refine": "second round",
    "runs.setting.answer_format": "answer format",
    "runs.setting.use_plan_model": "plan with the model",
    "runs.setting.budget_tokens": "context budget (tokens)",
    "runs.setting.source_messages": "messages per source",
    "runs.setting.max_subqueries": "max sub-queries",
    "runs.kind.topic": "topic",
    "runs.kind.person": "person",
    "runs.kind.artifact": "file",
    "runs.kind.message": "message",
    "runs.kind.other": "item",
    "runs.value.verify.offline": "offline, with the embedder",
    "runs.value.verify.llm": "by the model",
    "runs.value.verify.off": "off",
    "runs.value.fusion.score": "by score",
    "runs.value.fusion.rrf": "RRF",
    "runs.value.protocol.auto": "automatic",
    "runs.value.protocol.tools": "tool calls",
    "runs.value.protocol.constrained": "JSON schema",
    "runs.settings.on": "on",
    "runs.settings.off": "off",
    "runs.settings.none": "—",
    # issue 31: what `flashback ask` prints around the answer
    "cli.ask.quotes": "The sentences that answer (no chat model, so quoted, not written):",
    "cli.ask.sources": "Sources:",
    "cli.ask.nothing_matched": "Nothing in your chats matched the question.",
    "cli.ask.plan": "plan ({source}): {subqueries}",
    "cli.ask.plan_source.model": "by the model",
    "cli.ask.plan_source.fallback": "the question as asked",
    "cli.ask.plan_source.user": "as you edited it",
    "cli.ask.dates": "dates “{phrase}”",
    "cli.ask.took": "took {duration}",
    "cli.ask.fallback": "fallback: {reason}",
    "cli.ask.tokens": "tokens {prompt:,} + {completion:,}",
    # issue 31: the CLI's own lines (app/cli*.py): progress, imports, stats, errors
    "cli.error": "error: {text}",
    "cli.note": "flashback: {text}",
    "cli.usage_error": "{prog}: error: {text}",
    "cli.build.searching_built": "flashback: {holder} is writing the store; searching what is built so far",
    "cli.build.index_lost": "flashback: the search index folder is missing; rebuilding it (nothing is re-embedded)",
    "cli.build.other_embedder": "The memory was built with another embedder: pass the --embedder options it was built "
                                "with, or run `flashback build {flags}` to rebuild it for this one.",
    "cli.build.first": "flashback: building the memory first (new messages since the last build)",
    "cli.build.summary": "{topics:plural:new topic|new topics} from {messages:plural:message|messages}, {merged:,} "
                         "merged; {embedded:plural:text|texts} embedded, {cached:,} from cache; searchable: "
                         "{searchable}; model {model}",
    "cli.build.nothing_searchable": "nothing yet",
    "cli.build.kind.topic": "{count:plural:topic|topics}",
    "cli.build.kind.person": "{count:plural:person|people}",
    "cli.build.kind.artifact": "{count:plural:file|files}",
    "cli.build.kind.other": "{count:,} {kind}",
    "cli.build.local_first": "Nothing is built with the local model yet: run `flashback build {flags}` first (it "
                             "embeds every topic on this computer, with progress).",
    "cli.build.api_first": "Nothing is built for this embedder yet: run `flashback build {flags}` first (it sends "
                           "every topic to the embedding API, which may cost money).",
    "cli.argparse.unrecognized": "unrecognized arguments: {args}",
    "cli.argparse.required": "the following arguments are required: {args}",
    "cli.argparse.invalid_choice": "argument {arg}: invalid choice: {value} (choose from {choices})",
    "cli.argparse.expected_one": "argument {arg}: expected one argument",
    "cli.argparse.not_allowed_with": "argument {arg}: not allowed with argument {other}",
    "cli.argparse.argument": "argument {arg}: {text}",
    "cli.tune.no_labels": "There are no labels yet: mark results relevant in the window's search view, or give a "
                          "QRELS file (`flashback tune qrels.json`).",
    "cli.tune.folds": "--folds must be 2 or more: each query is scored by settings tuned on the others.",
    "cli.tune.tuned": "tuned for {objective} over {queries:plural:query|queries}, {folds}-fold cross-validated: "
                      "threshold {threshold:.2f}, gap {gap:.2f}, top-K {top_k}",
    "cli.tune.lexical": "{line}, lexical weight {weight}",
    "cli.tune.unmatched": "{count:plural:judged message|judged messages} not in this store (left out)",
    "cli.tune.not_saved": "not saved: `flashback tune --save` (same options) writes them where the window and "
                          "`flashback search` read them",
    "cli.tune.too_few": "too few queries to tell the gain from noise",
    "cli.tune.gain": "{gain:+.2f} {objective} over the current settings on queries it was not tuned on",
    "cli.tune.same": "{what}: the same on every query as the current settings",
    "cli.tune.within_noise": "{what}, within noise (±{margin:.2f}, two standard errors): not clearly better than "
                             "the current settings",
    "cli.tune.beyond_noise": "{what}, beyond noise (±{margin:.2f}, two standard errors)",
    "cli.tune.worse": "{what}, worse, beyond noise (±{margin:.2f}, two standard errors)",
    "cli.tune.save_failed": "Could not save the tuned settings ({file}: {problem}); the figures above still hold.",
    "cli.tune.settings_file": "the settings file",
    "cli.tune.saved": "saved threshold {threshold:.2f}, gap {gap:.2f}, top-K {top_k} to {where}: `flashback search` "
                      "and the window use them from now on (a window open now keeps its own until restarted; a flag "
                      "still overrides them)",
    "cli.tune.lexical_not_saved": "{line}; the lexical weight {weight} is not saved (neither has a setting for it: "
                                  "tune with --no-lexical to tune without it)",
    "cli.eval_answers.no_model": "flashback: no chat model is set (no key for the endpoint): answers cannot be judged; "
                                 "pass --endpoint with a key, or a local server",
    "cli.eval_answers.stopped": "flashback: stopped",
    "cli.eval_answers.header": "{questions:plural:question|questions}, model {model}, judge {judge}",
    "cli.eval_answers.none": "none",
    "cli.eval_answers.self_judged": "  (the judge is the answering model grading itself; answer_f1 needs no judge: "
                                    "--judge-endpoint sets another)",
    "cli.eval_facts.no_model": "flashback: no chat model is set (no key for the endpoint): nothing can be extracted; "
                               "pass --endpoint with a key, or a local server (--endpoint llamacpp --base-url …)",
    "cli.eval_facts.header": "{conversations}: model {model}, matched by {matcher}; {read} of "
                             "{topics:plural:topic|topics} read, {gold:plural:gold fact|gold facts} in them",
    "cli.eval_facts.calls": "  {calls:plural:call|calls}, {failed} failed; {median} s median, {longest} s the longest",
    "cli.forget.source": "{messages:plural:message|messages}",
    "cli.crash.no_folder": "flashback stopped on an unexpected error ({what}) before it knew where to write the "
                           "details.",
    "cli.crash.not_written": "flashback stopped on an unexpected error ({what}); the details could not be written to "
                             "{log} ({reason}).",
    "cli.crash.logged": "flashback stopped on an unexpected error ({what}); the details are in {log} (please attach "
                        "it when you report this).",
    "cli.self_test.failed": "flashback self-test FAILED: {problem}",
    "cli.self_test.passed": "flashback self-test passed: {messages:plural:message|messages}, "
                            "{topics:plural:topic|topics}; {found}; {seconds:.1f} s",
    "cli.self_test.found": "{language} {query!r} → topic {topic} in {chat!r} (score {score:.2f})",
    "cli.self_test.no_demo": "the bundled demo export is missing from this installation (package data not shipped)",
    "cli.self_test.no_translation": "the {language} translation is missing from this installation",
    "cli.self_test.demo_count": "the demo should hold {expected} messages, the store has {found}",
    "cli.self_test.build": "the build made {topics} topics and {vectors} vectors",
    "cli.self_test.nothing_found": "the {language} search {query!r} found nothing",
    "cli.self_test.wrong_chat": "the {language} search {query!r} ranked a topic of {found!r} first, not one of "
                                "{expected!r}",
    # for `flashback search`'s lines (app/cli_memory.py run_search, being rewritten: not used yet)
    "cli.search.counts": "retrieved {retrieved}, removed by threshold {by_threshold}, by gap {by_gap}, kept {kept}; "
                         "{duration}",
    "cli.search.rewritten": "searched also as: {query}  (rewritten from --recent in {seconds:.1f} s)",
    "cli.search.as_typed": "searched as typed: the rewrite was not used ({reason})",
    "cli.search.flash": "tool calls {tool_calls}; {fallback}; tokens {prompt:,}+{completion:,}",
    "cli.search.protocol": "protocol {protocol}",
    "cli.search.cost": "cost {cost}",
    "cli.waiting": "flashback: waiting for {holder} to finish…",
    "build.stage.topics": "Finding topics in the conversations",
    "build.stage.fit": "Fitting the embedder to your vocabulary",
    "build.stage.embeddings": "Embedding topics",
    "build.stage.consolidation": "Merging similar neighbouring topics",
    "build.stage.lexical": "Indexing the topics' words",
    "build.stage.people": "Embedding people",
    "build.stage.artifacts": "Embedding files",
    "build.stage.index": "Updating the search index",
    "build.stage.index topic": "Updating the topics' search index",
    "build.stage.index person": "Updating the people's search index",
    "build.stage.index artifact": "Updating the files' search index",
    "build.stage.compact": "Dropping the cached vectors no longer needed",
    "build.stage.other": "Working",
    "cli.progress.stage": "{stage}: {counts}",
    "cli.progress.counts": "{done:,} / {total:,}",
    "cli.progress.done": "done",
    # `flashback check` (app/cli_check.py): what it repaired, what it could not, what it found sound
    "cli.check.repaired": "repaired: {what}",
    "cli.check.problem": "problem: {what}",
    "cli.check.all_sound": "all sound: {checked}",
    "cli.check.sound_now": "the store is sound now",
    "cli.import.progress": "{source}: {share:6.1%}  {messages:plural:message|messages}",
    "cli.import.progress_of": "{place} · {source}: {share:6.1%}  {messages:plural:message|messages}",
    "cli.import.unchanged": "{name}: already imported, nothing new",
    "cli.import.source": "{name} ({format}): {added:,} new of {seen:plural:message|messages} in "
                         "{chats:plural:chat|chats}, {attachments:plural:attachment|attachments}",
    "cli.import.skipped": "{path}: not a chat export, skipped",
    "cli.import.cut": "{count:plural:message|messages} cut to the length limit",
    "cli.import.conflicting": "{count:plural:message|messages} with an id already seen but another text (the first "
                              "text was kept)",
    "cli.import.empty_path": "the path is empty: give an export file, a folder or a .zip",
    "cli.stats.store": "Store: {folder}",
    "cli.stats.messages": "messages",
    "cli.stats.chats": "chats",
    "cli.stats.topics": "topics",
    "cli.stats.people": "people",
    "cli.stats.artifacts": "files",
    "cli.stats.sources": "imports",
    "cli.arg.not_whole": "{text!r} is not a whole number",
    "cli.arg.too_small": "{value} is too small: give {low} or more",
    "cli.arg.not_number": "{text!r} is not a number",
    "cli.arg.not_fraction": "{text} is not a number from 0 to 1",
    "cli.arg.not_positive": "{text} must be a number above 0",
    "cli.arg.no_time": "0 leaves no time: give a share above 0, at most 1",
    "cli.export.wrote": "wrote {items:plural:item|items} (~{tokens:,} tokens) to {path}",
    "cli.llm.needs_url": "The custom endpoint needs an address: pass --base-url, e.g. http://127.0.0.1:8080/v1.",
    "cli.llm.needs_model": "Name the model to use on {server}: pass --model.",
    "cli.chats.none": "No chats yet: `flashback import PATH` adds an export.",
    "cli.chats.total": "{count:plural:chat|chats}; search one with --chat ID or --chat NAME",
    "cli.chats.messages": "{count:plural:message|messages}",
    "cli.chats.ambiguous": "--chat {value!r} fits {count} chats ({listed}): give its id or more of its name.",
    "cli.chats.no_id": "--chat {value!r}: there is no chat with that id or name; `flashback chats` lists them.",
    "cli.chats.no_name": "--chat {value!r}: there is no chat of that name; `flashback chats` lists them.",
    "cli.owner.unknown": "No import says who you are yet: `flashback owner --name NAME` names you in WhatsApp and "
                         "JSONL chats (Telegram and ChatGPT exports say it themselves).",
    "cli.owner.you_are": "You are {name}: {messages:plural:message|messages} in {chats:plural:chat|chats}",
    "cli.owner.also": "{line}; also {others}",
    "cli.owner.next_build": "people's profiles follow at the next build (`flashback build`)",
    "cli.keys.from.keyring": "the OS keyring",
    "cli.keys.from.session": "this session",
    "cli.keys.from.env": "the environment",
    "cli.keys.shown": "{provider}: {masked} (from {source})",
    "cli.keys.not_set": "{provider}: not set: save one with `flashback key set --provider {provider}` or set {env}",
    "cli.keys.not_set_no_keyring": "{provider}: not set: this system has no keyring, so set {env} in the environment",
    "cli.keys.no_keyring_nothing": "{provider}: no keyring on this system; nothing stored",
    "cli.keys.removed": "{provider}: removed from the keyring",
    "cli.keys.nothing_stored": "{provider}: nothing stored in the keyring",
    "cli.keys.still_in_env": "{line}; a key is still set in the environment ({env})",
    "cli.keys.env_or": "{first} or {second}",
    "cli.keys.prompt": "API key for {provider} (input hidden): ",
    "cli.keys.no_keyring_set": "flashback: this system has no keyring to keep the key in; set {env} in the "
                               "environment instead.",
    "cli.keys.none_entered": "flashback: no key was entered (type it at the prompt, or pipe it in: echo KEY | "
                             "flashback key set --provider {provider}); nothing changed.",
    "cli.keys.saved": "{provider}: saved {masked} in the OS keyring",
    "cli.cross_encoder.not_asked": "cross-encoder {label}: not asked",
    "cli.cross_encoder.scored": "cross-encoder {label}: scored {scored} in {batches:plural:batch|batches}; {fallback}; "
                                "{duration}",
    "cli.fallback.none": "no fallback",
    "cli.fallback.reason": "fallback: {reason}",
    "cli.fallback.because": "fallback: {reason} ({cause})",
    "cli.fallback.kept": "fallback: {kept}",
    "cli.chained": "chained: {note}",
    "cli.chained_fallback": "chained: {note}; fallback: {reason}",
    # issue 31: the MCP server's own sentences (app/mcp_words.py say(), app/mcp_memory.py)
    "mcp.no_messages": "The memory is empty: import a chat export and build it first (`flashback import PATH`, then "
                       "`flashback build`).",
    "mcp.not_built": "The memory is not built yet: run `flashback build` (or open the window), then ask again.",
    "mcp.other_embedder": "The memory was built with another embedder than the one it would search with: run "
                          "`flashback build` with the embedder options it was built with.",
    "mcp.index_lost": "The search index folder is missing: run `flashback build` to rebuild it (nothing is "
                      "re-embedded), then ask again.",
    "mcp.new_messages": "Messages imported since the last build are not searchable yet; `flashback build` adds them.",
    "mcp.missing_key": "No API key for {provider}: save one with `flashback key set --provider {provider}`, or set "
                       "FLASHBACK_API_KEY in this server's environment (the client's configuration).",
    "mcp.no_model": "Name the model to use on the {provider} endpoint in the Flashback window first: search "
                    "settings panel, Flash (LLM) → Model.",
    "mcp.no_rerank_url": "Enter the rerank server's URL in the Flashback window first: search settings "
                         "panel, Cross-encoder.",
    "mcp.bad_day": "{name} must be a day like 2024-05-31, not {value!r}.",
    "mcp.since_after_until": "since ({since}) is after until ({until}): nothing can match.",
    "mcp.chat_none": "No chat has the id or name {value!r}; list_chats lists them.",
    "mcp.chat_many": "{value!r} fits {count} chats ({listed}): give its id or more of its name.",
    "mcp.bad_argument": "The argument {name} is not valid: {problem}.",
    "mcp.missing_argument": "The argument {name} is required.",
    "mcp.unknown_argument": "{tool} has no argument {name!r}; it takes {known}.",
    "mcp.unexpected": "Flashback could not do that because of an unexpected error; the details are in {log}.",
    "mcp.empty_store_chats": "No chats yet: `flashback import PATH` adds an export.",
    "mcp.topic_not_found": "There is no topic {id}; search_memory gives the ids of topics.",
    "mcp.offset_past_end": "offset {offset} is past the topic's {total} messages.",
    # issue 35: the MCP server's bounds (app/mcp_server.py, app/mcp_memory.py, app/mcp_http.py)
    "mcp.unknown_argument_none": "The tool {tool} takes no arguments, so not {name!r}.",
    "mcp.argument_range": "The argument {name} must be a whole number from {minimum} to {maximum}.",
    "mcp.argument_too_long": "The argument {name} must be at most {limit:plural:character|characters} long.",
    "mcp.query_cut": "The query was longer than {words:plural:word|words} or {chars:plural:character|characters} "
                     "and was cut: only its beginning was searched and recorded.",
    "mcp.question_cut": "The question was longer than {words:plural:word|words} or {chars:plural:character|characters} "
                        "and was cut: only its beginning was answered and recorded.",
    "mcp.body_too_large": "The request is larger than {limit} MB; send a shorter one.",
    "mcp.http_origin": "This server answers only its own origin.",
    "mcp.http_host": "This server answers only at 127.0.0.1.",
    "mcp.http_token": "Send the token flashback mcp printed: Authorization: Bearer TOKEN.",
    "mcp.session_gone": "This MCP session has ended; start a new one.",
    "mcp.building": "The memory is being built by {who}; ask again when it finishes.",
    "mcp.body_too_slow": "The request did not arrive within {seconds:plural:second|seconds}; send it again.",
    # engine/store: opening a store
    "store.cannot_create_folder": "Cannot create the data folder {folder}: {reason}",
    "store.not_a_store": "The database {path} is damaged or not a Flashback store: {detail}",
    "store.newer_schema": "The data in {folder} was written by a newer Flashback (schema {version}); update Flashback "
                          "to open it.",
    # engine/memory: a search's stand-in index, `flashback check`'s lines, damaged vectors, calibration
    "memory.index.topic": "the topic index",
    "memory.index.person": "the person index",
    "memory.index.artifact": "the artifact index",
    "memory.stand_in.rebuilding": "{index} is being rebuilt by {writer}; searched the index as it was, plus exact "
                                  "scores for what it lacks",
    "memory.stand_in.writing": "{index} is out of date ({reason}) and {writer} is writing the store; searched the "
                               "index as it was, plus exact scores for what it lacks",
    "memory.stand_in.stale": "{index} is out of date ({reason}): `flashback build` (or Build memory) remakes it; "
                             "searched the index as it was, plus exact scores for what it lacks",
    "memory.vectors_damaged": "Some stored vectors are damaged: run `flashback check` (or build again) to re-embed "
                              "them.",
    "memory.repair.vectors": "re-embedded damaged vectors ({listed})",
    "memory.repair.topic": "{count:plural:topic|topics}",
    "memory.repair.person": "{count:plural:person|people}",
    "memory.repair.artifact": "{count:plural:file|files}",
    "memory.repair.other": "{count:,} {kind}",
    "memory.list": "{first}, {then}",
    "memory.calibration.missing": "missing",
    "memory.calibration.unreadable": "unreadable",
    "memory.calibration.invalid": "invalid: anchors {unrelated} and {related}",
    "memory.check.reindexed": "rebuilt the store's damaged SQL indexes (REINDEX)",
    "memory.check.store_file": "store file (quick_check)",
    "memory.check.index_folder_remade": "remade the missing index folder ({count:,} texts embedded anew)",
    "memory.check.store_damaged": "the store file is damaged ({count:plural:problem|problems}: {shown}); Flashback "
                                  "cannot mend it: import your exports into a new data folder (`flashback --data-dir "
                                  "NEW import …`); this one is left as it is",
    "memory.check.vectors": "stored vectors",
    "memory.check.index.topic": "topic index",
    "memory.check.index.person": "person index",
    "memory.check.index.artifact": "artifact index",
    "memory.check.index_rebuilt": "rebuilt {index} ({reason})",
    "memory.check.calibration": "calibration",
    "memory.check.calibration_removed": "removed the unusable calibration ({problem}); scores use the defaults until "
                                        "the store has enough topics to measure",
    "memory.check.calibration_measured": "measured the calibration again (it was {problem})",
    # engine/importers: what is wrong with an export (import.problem.*) and where (import.where.*)
    "import.where.line": "line {line}",
    "import.where.chat": "chat '{chat}'",
    "import.where.chat_start": "chat '{chat}', at its first message",
    "import.where.chat_message": "chat '{chat}', message {message}",
    "import.where.conversation": "conversation {number}",
    "import.where.conversation_titled": "conversation {number} ('{title}')",
    "import.where.conversation_message": "conversation {number} ('{title}'), message {message}",
    "import.problem.line_not_utf8": "the line is not valid UTF-8 text",
    "import.problem.line_not_json": "the line is not valid JSON",
    "import.problem.line_not_object": "each line must be a JSON object",
    "import.problem.fields_missing": "the message has no {fields}",
    "import.problem.not_iso_date": "the date '{date}' is not an ISO 8601 date",
    "import.problem.bad_role": "role must be one of {roles}, not '{role}'",
    "import.problem.attachments_not_list": "attachments must be a list of objects with kind and name",
    "import.problem.attachment_not_object": "each attachment must be an object with kind and name",
    "import.problem.telegram_no_chats": "this Telegram export contains no chats with messages",
    "import.problem.discord_no_messages": "this file has no DiscordChatExporter message list (export the channel "
                                          "as JSON)",
    "import.problem.messenger_no_messages": "this file is not a Messenger or Instagram thread (it has no message list)",
    "import.problem.slack_whole_export": "this is one list from a Slack export: import the whole zip or folder",
    "import.problem.slack_day_not_list": "a Slack day file is not a list of messages",
    "import.problem.message_not_object": "a message is not a JSON object",
    "import.problem.telegram_cut_off": "the file ends too early (it looks cut off; export it again)",
    "import.problem.json_damaged_here": "the file is damaged: it is not valid JSON here",
    "import.problem.not_utf8": "the file is not valid UTF-8 text",
    "import.problem.not_a_date": "a message's date is not a date ({value})",
    "import.problem.unreadable": "the file could not be read ({reason})",
    "import.problem.chatgpt_cut_off": "the file ends too early; it looks cut off (an incomplete download or copy?)",
    "import.problem.json_damaged": "the file is damaged: it is not valid JSON ({detail})",
    "import.problem.damaged_unreadable": "the file is damaged and could not be read",
    "import.problem.damaged_not_utf8": "the file is damaged: it holds bytes that are not valid UTF-8 text",
    "import.problem.empty_file": "the file is empty",
    "import.problem.not_chatgpt": "this is not a ChatGPT conversations.json: it should start with a list of "
                                  "conversations",
    "import.problem.not_a_conversation": "an entry in the list is not a conversation",
    "import.problem.messages_unexpected": "the conversation's messages are not stored as expected",
    "import.problem.entry_unexpected": "a message entry is not laid out as expected",
    "import.problem.cycle": "the conversation's message links go round in a circle, so its order cannot be worked "
                            "out",
    "import.problem.unexpected_structure": "the file has a structure Flashback did not expect ({error})",
    "import.problem.whatsapp_no_start": "the file does not start with a WhatsApp message (a date, a time and a "
                                        "sender)",
    "import.problem.whatsapp_nothing": "no WhatsApp messages found",
    # issue 34: Signal (signal-export), iMessage (imessage-exporter) and LINE text exports
    "import.problem.signal_no_start": "the file does not start with a signal-export message "
                                      "('[date time] Sender: text')",
    "import.problem.signal_nothing": "no Signal messages found",
    "import.problem.imessage_no_start": "the file does not start with an imessage-exporter message (a date and "
                                        "time line, then the sender)",
    "import.where.message": "message {number}",
    "import.problem.imessage_html_no_time": "a message in the HTML has no readable time (imessage-exporter writes "
                                            "'May 17, 2022  5:29:42 PM')",
    "import.problem.imessage_nothing": "no iMessage messages found",
    "import.problem.line_chat_no_start": "this line is neither a LINE message (time, tab, sender, tab, text) nor a "
                                         "date",
    "import.problem.line_chat_no_date": "a LINE message comes before any date line",
    "import.problem.line_chat_nothing": "no LINE messages found",
    "import.problem.not_a_real_date": "\"{stamp}\" is not a real date and time (read as {order})",
    "import.date_order.ymd": "year/month/day",
    "import.date_order.dmy": "day/month/year",
    "import.date_order.mdy": "month/day/year",
    "import.problem.line_unreadable": "this line is not readable text (it is not UTF-8 encoded)",
    "import.problem.no_such_path": "the file or folder does not exist",
    "import.problem.folder_without_export": "the folder holds no .json, .jsonl or .txt export file",
    "import.problem.zip_damaged": "the zip archive is damaged or encrypted ({error})",
    "import.problem.zip_without_export": "the zip holds no .json, .jsonl or .txt export file",
    "import.problem.zip_bomb": "it would unpack from {packed} to {size} ({ratio:,}x): a chat export never packs that "
                               "tightly, so this looks like a zip bomb; unpack it yourself if you trust it",
    "import.problem.zip_no_room": "it unpacks to {size} but the temporary folder {folder} has {free} free; free some "
                                  "space or unpack it elsewhere first",
    "import.size.kb": "{value:,.0f} KB",
    "import.size.mb": "{value:,.1f} MB",
    "import.size.gb": "{value:,.1f} GB",
    "import.problem.unknown_format": "unknown format '{name}'; use one of auto, {formats}",
    "import.problem.not_an_export": ("this is not a chat export Flashback can read (Telegram Desktop JSON, ChatGPT "
                                     "conversations.json, WhatsApp or LINE .txt, DiscordChatExporter JSON, Messenger "
                                     "or Instagram JSON, a Slack workspace export, signal-export, imessage-exporter, "
                                     "or Flashback JSONL)"),
    "import.problem.signal_desktop_export": ("this is Signal Desktop's own export (main.jsonl), which Flashback "
                                             "does not read yet; signal-export (github.com/carderne/signal-export) "
                                             "writes the same chats in a layout it reads"),
    "import.problem.reader_stopped": "the reading process stopped unexpectedly (exit code {exit_code})",
    # issue 34: importers that never lose or poison a store
    "import.problem.date_out_of_range": "a message's date ({date}) falls outside the years 1900-2200 once its time "
                                        "zone is applied: the file is damaged there, so none of it was imported",
    "import.problem.not_a_file": "this is a device, a pipe or a socket, not an export file: point Flashback at the "
                                 "export file, its folder or its .zip",
    "import.problem.file_empty": "the file is empty (0 bytes): export the chat again",
    "import.problem.zip_unreadable": "the zip archive is damaged: its table of contents cannot be read (an interrupted "
                                     "download or copy?); download or copy it again",
    "import.problem.zip_too_big": "its exports would unpack to {size} in all, more than the {limit} Flashback unpacks "
                                  "from one zip; unpack it yourself and import the folder",
    "import.skipped.duplicates": "{count:plural:message|messages} already stored",
    "import.skipped.system": "{count:plural:system line|system lines} (joins, calls, renames) kept out of topics",
    "import.skipped.not_exports": "{count:plural:file|files} skipped, not chat exports: {names}",
    "import.skipped.hidden": "{count:plural:hidden entry|hidden entries} (system prompts, tool calls, custom "
                             "instructions ChatGPT does not show) left out",
    "import.skipped.unsupported": "{count:plural:entry|entries} the app could not export (\"unsupported\") left out",
    "import.skipped.aside": "{count:plural:file|files} holding no chat (READMEs, licences, an export's own "
                            "lists) left aside",
    "import.progress.file_of": "file {number} of {count}",
    "check.dates_repaired": "gave {count:plural:message|messages} with a date outside the years 1900-2200 the time of "
                            "the message before it in its chat ({chats})",
    "check.dates": "message dates",
    # issue 23: read-only, fallbacks, first steps
    "store.read_only_file": "The store file {file} is read-only: searching works, but importing and building need "
                            "write permission on it (check its permissions).",
    "store.read_only_old": "The store in {folder} was made by an older Flashback and must be upgraded before it can be "
                           "read, which needs a folder you can write to (check its permissions or the disk).",
    "store.status.read_only": "Read-only: the data folder {folder} cannot be written, so searches are not recorded "
                              "and importing and building are off.",
    "store.status.read_only_file": "Read-only: the store file {file} cannot be written, so searches are not recorded "
                                   "and importing and building are off.",
    "search.not_recorded_read_only": "searches are not recorded: the data folder {folder} is read-only",
    "search.not_recorded_read_only_file": "searches are not recorded: the store file {file} is read-only",
    "memory.no_messages": "The store holds no messages yet: import a chat export first (`flashback import PATH`).",
    "rerank.flash.fallback_threshold": "fallback ({reason}): score {score:.2f} ≥ threshold {threshold:.2f}",
    "rerank.flash.fallback_kept.threshold": "kept what the threshold filter keeps with your settings (threshold "
                                            "{threshold:.2f}, gap {gap:.2f}, top {top_k}): "
                                            "{count:plural:topic|topics}",
    "rerank.flash.fallback_kept.requested": "kept the first {count:plural:topic|topics} the model asked to read",
    "rerank.flash.fallback_kept.vector": "kept stage 1's best {count:plural:topic|topics} by vector score",
    "rerank.flash.fallback_kept.none_passed": "nothing passed the threshold {threshold:.2f}, so {kept}",
    # settings schema help (engine/api/settings.py): --help and the window's tooltips
    "settings.help.mode": "how results are chosen: vector (every candidate), threshold (cut by score), "
                          "cross-encoder (a rerank server scores them) or flash (an LLM chooses)",
    "settings.help.candidates": "stage-1 candidates",
    "settings.help.safety_threshold": "stage-1 minimum calibrated score, 0 to 1",
    "settings.help.threshold": "similarity threshold, 0 to 1",
    "settings.help.gap": "score-gap cut, 0 to 1",
    "settings.help.top_k": "final top-K",
    "settings.help.hybrid": "fuse BM25 with the vector ranking",
    "settings.help.preset": "Flash's LLM endpoint (openrouter, openai, ollama, llamacpp, lmstudio or custom)",
    "settings.help.base_url": "the LLM endpoint's address; empty: the preset's",
    "settings.help.model": "the LLM Flash asks",
    "settings.help.timeout": "total seconds for the whole Flash rerank (default 60; 180 for a local server)",
    "settings.help.max_tool_calls": "get_topics_content calls Flash may make",
    "settings.help.max_topics": "topics Flash may keep",
    "settings.help.max_people": "people Flash may keep",
    "settings.help.max_artifacts": "files Flash may keep",
    "settings.help.reasoning_effort": "reasoning effort of the Flash model",
    "settings.help.rewrite_query": "with recent messages, first rewrite a vague question into a self-contained one",
    "settings.help.budget_tokens": "context budget of an export, in tokens",
    "settings.help.evidence_budget": "characters of kept topics, taken whole, that --objective recall@budget counts",
    "settings.help.turn1_share": "share of --timeout turn 1 (reading every candidate) may take",
    "settings.help.rerank_preset": "the rerank server (llamacpp, tei, infinity, vllm, jina, cohere, voyage or custom)",
    "settings.help.rerank_url": "the rerank server's address; empty: the preset's",
    "settings.help.rerank_model": "the reranker model; empty: the preset's",
    "settings.help.ce_threshold": "cross-encoder score to keep a topic, 0 to 1",
    "settings.help.ce_top_k": "topics the cross-encoder keeps",
    "settings.help.ce_top_n": "stage-1 topics sent to the cross-encoder",
    "settings.help.ce_passage_tokens": "each topic's passage cut to about this many tokens",
    "settings.help.ce_batch": "passages per rerank request",
    "settings.help.ce_skip_small": "skip the cross-encoder when stage 1 finds ≤ {limit} topics (with --ce-skip-flat: "
                                   "only if their scores are also clearly apart)",
    "settings.help.ce_skip_flat": "skip the cross-encoder when stage 1's top scores are clearly apart; run it when "
                                  "they are flat",
    "settings.help.ce_timeout": "total seconds for the cross-encoder's requests",
    "settings.help.chain_cross_encoder": "the cross-encoder narrows the topics Flash reads",
    "settings.help.ce_chain_keep": "topics Flash reads after the cross-encoder (--chain-cross-encoder)",
    "settings.help.topics_llm": "when memory is built, the LLM also splits conversations into topics",
    "settings.help.embedder": "the model that turns topics into vectors: builtin (words) or local "
                              "(multilingual-e5-small); a change embeds every topic again",
    "settings.help.language": "the window's language: system, en or ru (from its next start)",
    # ui/people (issue 33): the People view — people.* its list and cards, facts.view.* a card's facts
    "mcp.profile_empty": "Nothing is known of the owner yet: facts are read from the chats when memory is built "
                         "with a chat model set in Flashback.",
    "mcp.facts_none": "No fact matches: facts exist only once memory was built with a chat model; search_memory "
                      "finds what the chats say.",
    "people.not_found": "Nobody here is called \"{name}\": list_chats and the People view show who is.",
    "people.view.title": "People",
    "people.view.empty": "No people yet: import a chat export and they appear here.",
    "people.view.loading": "Reading…",
    "people.view.choose": "Choose a person on the left to see what is known of them.",
    "people.list.you": "{name} (you)",
    "people.list.tooltip": "{messages:plural:message|messages}, last on {last}",
    "people.card.you": "You",
    "people.card.aliases": "Also called: {names}",
    "people.card.circle.family": "Family",
    "people.card.circle.friends": "Friends",
    "people.card.circle.work": "Work",
    "people.card.circle.other": "Other",
    "people.card.activity": "{messages:plural:message|messages} from {first} to {last}",
    "people.card.chats": "Chats: {chats}",
    "people.card.per_month": "Messages per month",
    "people.card.chart_tooltip": "{month}: {messages:plural:message|messages}",
    "people.card.topics": "Topics ({count})",
    "people.card.topics_more": "The newest {shown} of {count}; double-click one to read it.",
    "people.card.topics_hint": "Double-click a topic to read it.",
    "people.card.no_topics": "None yet: build memory to cut the messages into topics.",
    "people.card.facts": "What is known",
    "people.card.no_facts": "Nothing is known of {name} beyond their messages yet. With a chat model set in "
                            "Settings, building memory reads each topic once and adds here what is said about "
                            "them, each fact with the messages that say it, for you to edit, pin, mark wrong or "
                            "delete.",
    "people.card.no_facts_owner": "Nothing is known of you beyond your messages yet. With a chat model set in "
                                  "Settings, building memory reads each topic once and adds here what you say about "
                                  "yourself, each fact with the messages that say it, for you to edit, pin, mark "
                                  "wrong or delete.",
    "people.card.edit": "Edit",
    "people.card.edit_tooltip": "Change their other names, circle and bio",
    "people.card.edit_aliases": "Also called (comma-separated)",
    "people.card.edit_circle": "Circle",
    "people.card.circle.unknown": "Not known",
    "people.card.edit_bio": "Bio",
    "people.card.edit_bio_hint": "Your words stay; leave it empty to have it made from what is known of them.",
    "people.card.save": "Save",
    "people.card.cancel": "Cancel",
    "people.card.saved": "Saved: your words outrank the model's.",
    "people.card.save_failed": "Could not save: {error}",
    "people.same.title": "Same person?",
    "people.same.text": "“{other}” ({source}: {chats}; {messages:plural:message|messages}, "
                        "{facts:plural:fact|facts}) may be {kept} too.",
    "people.same.text_heard": "“{other}”, known only from what was said ({facts:plural:fact|facts}), may be "
                              "{kept}.",
    "people.same.merge": "Merge",
    "people.same.merge_tooltip": "Their messages, other names and facts become {kept}'s",
    "people.same.not_same": "Not the same",
    "people.same.merged": "Merged: {other}'s messages and facts are now {kept}'s.",
    "people.same.refused": "Noted: they are not suggested again.",
    "people.same.failed": "Could not merge: {error}",
    "people.merge.refused": "These two cannot be merged: a person with themselves never, and you are made one "
                            "person with `flashback owner --name`.",
    "build.stage.facts": "Reading facts from topics",
    "facts.window.offer_title": "Read facts from your topics?",
    "facts.window.offer": "{topics:plural:topic is|topics are} not read yet: about {tokens_in:,} tokens in and "
                          "{tokens_out:,} out with {model}, {cost}. What is read is kept if you stop.",
    "facts.window.cost_free": "free on your own server",
    "facts.window.cost": "about ${cost}",
    "facts.window.read": "Read facts",
    "facts.window.skip": "Skip",
    "facts.window.skipped": "Facts not read: {topics:plural:topic waits|topics wait} for the next build.",
    "facts.window.running": "Reading facts…",
    "facts.window.done": "Facts read",
    "facts.window.stopped.cancelled": "Stopped: what was read is kept; the rest is read at the next build.",
    "facts.window.stopped.budget": "Stopped at the token budget: the rest is read at the next build.",
    "facts.window.stopped.llm_error": "Stopped: the chat model kept failing; those topics are read at the next "
                                      "build.",
    "facts.window.stopped.no_model": "No chat model: nothing was read.",
    "facts.window.failed": "Reading facts failed: {error}",
    "facts.view.sources": "Sources ({count})",
    "facts.view.hide_sources": "Hide sources",
    "facts.view.no_sources": "added by you",
    "facts.view.source_gone": "Its messages are no longer in the store.",
    "facts.view.open_topic": "Open the conversation",
    "facts.view.edit": "Edit",
    "facts.view.pin": "Pin",
    "facts.view.unpin": "Unpin",
    "facts.view.wrong": "Wrong",
    "facts.view.delete": "Delete",
    "facts.view.pinned": "pinned",
    "facts.view.yours": "your wording",
    "facts.view.importance": "importance {value}/5",
    "facts.view.until": "holds until {date}",
    "facts.view.edit_title": "Edit the fact",
    "facts.view.edit_label": "What is true:",
    "facts.view.done.edit": "Saved: your wording outranks the model's.",
    "facts.view.done.pin": "Pinned: always in the profile Flash and Ask are given.",
    "facts.view.done.unpin": "Unpinned.",
    "facts.view.done.wrong": "Marked wrong: it leaves the profile and is never read from these messages again.",
    "facts.view.done.delete": "Deleted: it is never read from these messages again.",
    "facts.view.failed": "Could not change the fact: {error}",
    # engine/facts (issue 33): the Archivist's facts
    "facts.missing": "No fact has id {fact_id}: `flashback facts` lists them with their ids.",
    "facts.cli.no_person": "Nobody called {name!r} is in this store: `flashback chats` and the People view list who "
                           "is.",
    "facts.cli.you": "you",
    "facts.cli.pinned": " · pinned",
    "facts.cli.line": "#{id} {who}: {text} ({category}, {type}, importance {importance}; messages {messages}){pinned}",
    "facts.cli.forget_needs_id": "Which fact? `flashback facts forget ID`, with the number `flashback facts` shows.",
    "facts.cli.forgotten": "Forgot fact #{id} ({text}) and its history.",
    "facts.cli.none": "Nothing is known yet: {unread:plural:topic waits|topics wait} to be read by a chat model "
                      "(`flashback build --facts`).",
    "facts.cli.none_unbuilt": "Nothing is known yet, and memory is not built: `flashback build --facts` cuts "
                              "the chats into topics, then reads them with a chat model.",
    "facts.cli.no_model": "No chat model to read facts with, so none were read or made up: with one (--endpoint, "
                          "--model, and its key), {topics:plural:topic|topics} would give what you and the people in "
                          "them said about yourselves: jobs, family, places, plans, each with its messages.",
    "facts.cli.cost_unknown": "an unknown price",
    "facts.cli.estimate": "Reading facts from {topics:plural:topic|topics}: about {tokens_in:,} tokens in, "
                          "{tokens_out:,} out, {cost}.",
    "facts.cli.summary": "Facts: {topics:plural:topic|topics} read; {added} added, {updated} updated, {removed} "
                         "removed, {refused} refused (unsupported or secret); {people:plural:new person|new people}.",
    "facts.cli.stopped.cancelled": "Stopped: what was read is kept, the rest is read at the next `flashback build "
                                   "--facts`.",
    "facts.cli.stopped.budget": "Stopped at the token budget (--facts-budget): the rest is read at the next "
                                "`flashback build --facts`.",
    "facts.cli.stopped.llm_error": "Stopped: the chat model kept failing; the topics it failed on are read at the "
                                   "next `flashback build --facts`.",
    "facts.cli.stopped.no_model": "No chat model: nothing was read.",
}
