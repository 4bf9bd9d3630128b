"""Русские тексты для каждого кода сообщений движка (`engine.messages`); ключи — те же, что в `en.py`."""

from __future__ import annotations

CATALOGUE: dict[str, str] = {
    "error.text": "{text}",
    "import.cannot_read": "Не удалось импортировать {source}: {problem}",
    "import.cannot_read_at": "Не удалось импортировать {source} ({where}): {problem}",
    "import.cancelled": "Импорт отменён; ничего не изменено.",
    "store.operation.import": "импорт",
    "store.operation.build": "построение памяти",
    "store.operation.check": "проверка",
    "store.operation.schema": "обновление схемы",
    "store.operation.forget": "удаление",
    "store.operation.write": "запись",
    "store.writer.this_process": "{operation} в этом процессе",
    "store.writer.window": "{operation} в другом окне Flashback",
    "store.writer.command": "`flashback {command}` в другом терминале",
    "store.writer.process": "{operation} в другом процессе Flashback",
    "store.writer.since": "{who} (pid {pid}, с {since})",
    "search.empty_query": "Запрос пуст: напишите, что искать, например имя, место или вопрос.",
    "search.not_recorded_writer": "этот запуск не записан в историю: хранилище сейчас занято ({writer})",
    "search.not_recorded": "этот запуск не записан в историю: {reason}",
    "search.calibration_unusable": "сохранённая калибровка оценок {problem}: оценки считаются по умолчанию, пока "
                                   "`flashback build` (или «Построить память») не измерит её заново",
    # issue 31 findings
    "search.flash_turn_share": "{server} не ответил на ходе {turn} за {seconds:g} с — столько этому ходу "
                               "отведено из тайм-аута {total:g} с (модель {model}). Дайте больше времени или "
                               "выберите модель побыстрее.",
    "search.flash_turn_limit": "{server} не ответил на ходе {turn} за {seconds:g} с — предел одного хода (модель "
                               "{model}). Дайте больше времени или выберите модель побыстрее.",
    "search.flash_total_timeout": "{server} не ответил за тайм-аут {total:g} с (модель {model}; ходу {turn} "
                                  "оставалось {seconds:g} с). Дайте больше времени или выберите модель побыстрее.",
    "cli.interrupted_build": "Прервано: построение остановлено. Всё, что уже построено, сохранено; следующий "
                             "`flashback build` продолжит с того же места.",
    "cli.interrupted_import": "Прервано: незаконченный импорт ничего не оставил в хранилище (экспорты, "
                              "импортированные до него, сохранены); импортируйте его ещё раз.",
    "cli.interrupted": "Прервано.",
    "cli.no_store": "В папке {folder} нет данных Flashback: проверьте --data-dir или сначала импортируйте "
                    "экспорт (`flashback import ФАЙЛ`).",
    "rerank.fallback.unreachable": "сервер модели недоступен",
    "ask.unreachable": "Письменного ответа нет, только найденные источники: {error}",
    "memory.index_lost": "Поисковый индекс в {folder} пропал (папку удалили?): постройте память заново "
                         "(Память → Построить память или `flashback build`); сохранённые векторы целы, так что "
                         "это быстро.",
    "settings.out_of_range": "{name}: допустимо от {minimum} до {maximum}{unit} (получено {value}).",
    "settings.not_a_number": "{name}: нужно число (получено {value!r}).",
    "settings.not_a_choice": "{name}: допустимые значения — {choices} (получено {value!r}).",
    # engine/index
    "index.unusable": "Поисковый индекс {name} нужно перестроить ({reason}).",
    "index.missing": "его нет",
    "index.corrupt.sidecar_unreadable": "повреждён: сопроводительный файл не читается как JSON ({error})",
    "index.corrupt.sidecar_not_object": "повреждён: сопроводительный файл — не объект JSON",
    "index.corrupt.no_format": "повреждён: в сопроводительном файле нет версии формата",
    "index.corrupt.sidecar_field": "повреждён: в сопроводительном файле поля {field} нет или оно не {kind}",
    "index.either_kind": "{first} или {second}",
    "index.corrupt.sidecar_deleted": "повреждён: в сопроводительном файле среди удалённых есть не целые метки",
    "index.corrupt.size": "повреждён: файл индекса занимает {size:plural:байт|байта|байт}, а по сопроводительному "
                          "файлу — {expected}",
    "index.corrupt.checksum": "повреждён: файл индекса не совпадает со своим сопроводительным файлом "
                              "(другая контрольная сумма)",
    "index.corrupt.space": "повреждён: в сопроводительном файле пространство {found}, а не {expected}",
    "index.corrupt.ef_search": "повреждён: в сопроводительном файле нет допустимого ef_search",
    "index.corrupt.unreadable": "повреждён: hnswlib не смог его прочитать ({error})",
    "index.corrupt.count": "повреждён: в файле элементов {items} (действующих {live}), а по сопроводительному "
                           "файлу — {expected_items} (действующих {expected_live})",
    "index.stale.format": "устарел: версия формата {found}, а эта версия Flashback читает {expected}",
    "index.stale.model": "устарел: модель сменилась с {saved} на {expected}",
    "index.stale.dimension": "устарел: размерность в индексе {saved}, ожидалась {expected}",
    "index.stale.store": "устарел: хранилище изменилось",
    "index.stale.count": "устарел: элементов в индексе {saved}, ожидалось {expected}",
    # engine/traces
    "traces.failed": "Не удалось {action}: {detail}",
    "traces.failed_old_store": "Не удалось {action}: это хранилище создано до появления истории запусков; "
                               "откройте его один раз в Flashback, чтобы обновить.",
    "traces.action.record": "записать запуск в историю",
    "traces.action.read_history": "прочитать историю запусков",
    "traces.action.read_run": "прочитать запуск {run_id}",
    "traces.action.delete": "удалить старые запуски",
    "traces.database_locked": "хранилище занято: в него пишет другой процесс",
    # engine/export
    "export.budget_not_positive": "Бюджет контекста должен быть положительным числом токенов, а не {budget}.",
    "export.unreadable": "Не удалось прочитать из хранилища {what} {id}: {detail}",
    "export.kind.topic": "тему",
    "export.kind.person": "человека",
    "export.kind.artifact": "вложение",
    "export.kind.message": "сообщение, ещё не построенное в памяти",
    # engine/browse.py
    "browse.topic_missing": "Темы {topic_id} нет в хранилище (возможно, её объединили с другой; повторите поиск, "
                            "чтобы увидеть нынешние темы).",
    # engine/evaluation
    "evaluation.cancelled": "Остановлено раньше, чем был выполнен поиск по всем размеченным запросам.",
    "evaluation.qrels.unreadable": "Не удалось прочитать {path}: {problem}.",
    "evaluation.qrels.not_utf8": "{path} — не файл QRELS: это не текст в кодировке UTF-8.",
    "evaluation.qrels.not_json": "{path} — не файл QRELS: это не JSON (строка {line}).",
    "evaluation.qrels.missing_key": "{path} — не файл QRELS: нет ключа {key}; ожидается {shape}.",
    "evaluation.qrels.malformed": "{path} — не файл QRELS: {problem}; ожидается {shape}.",
    "evaluation.qrels.queries_not_list": "«queries» — не список",
    "evaluation.qrels.key_not_list": "«{key}» в запросе {number} — не список",
    "evaluation.qrels.no_text": "у запроса {number} нет текста",
    "evaluation.qrels.nothing_known": "Ни одного из сообщений, названных в файле ({count:plural:сообщение|сообщения|"
                                      "сообщений}), нет в этом хранилище: сначала импортируйте чаты, по которым он "
                                      "составлен.",
    "evaluation.qrels.nothing_known_in": "Ни одного из сообщений, названных в {file} ({count:plural:сообщение|"
                                         "сообщения|сообщений}), нет в этом хранилище: сначала импортируйте чаты, по "
                                         "которым он составлен.",
    "evaluation.tune.too_few_queries": "меньше двух запросов, которые можно оценить: перекрёстной проверке не на чем "
                                       "работать",
    # engine/topics
    "topics.topic_missing": "Темы {topic_id} нет (возможно, её объединили с другой).",
    "topics.build_cancelled": "Построение тем отменено; уже построенные темы сохранены, остальные будут построены в "
                              "следующий раз.",
    "topics.build_gave_up": "Языковая модель дала сбой {count:plural:раз|раза|раз} подряд, поэтому построение тем "
                            "остановлено; уже построенные темы сохранены. Последняя ошибка: {last_error}",
    "topics.store_changed": "Хранилище изменилось, пока строились темы (в него пишет другой Flashback?); из этой "
                            "порции ничего не сохранено. Постройте темы ещё раз.",
    "topics.agent_failed": "Ответ языковой модели не удалось использовать ({reason})",
    "topics.agent_failed_because": "Ответ языковой модели не удалось использовать ({reason}): {detail}",
    "topics.agent_reason.llm_error": "ошибка сервера модели",
    "topics.agent_reason.timeout": "время ожидания истекло",
    "topics.agent_reason.empty_response": "пустой ответ",
    "topics.agent_reason.parse_error": "ответ не разобран",
    "topics.agent_reason.invalid_shape": "ответ не той формы",
    "topics.agent_reason.no_valid_topics": "ни одной пригодной темы",
    "topics.agent_reason.cancelled": "отменено",
    "topics.agent.should_merge_not_bool": "should_merge — не true и не false",
    "topics.agent.no_topics_list": "нет списка тем",
    "topics.agent.none_usable": "предложено тем: {count}, ни одна не подошла",
    "topics.llm_server": "сервер языковой модели",
    "topics.server_at": "{label} по адресу {url}",
    "topics.server_given_up": "{server} дал сбой {count:plural:раз|раза|раз} подряд, поэтому запросы к нему больше "
                              "не отправляются (последняя ошибка: {last_error})",
    "topics.settings.chunks_positive": "chunk_interval_s, max_chunk_messages и max_chunk_chars должны быть "
                                       "положительными",
    "topics.settings.subject_chars": "subject_chars должно быть 0 (выключено) или положительным",
    "topics.settings.consolidation_threshold": "consolidation_threshold — это косинус: от -1 до 1",
    "topics.settings.at_least_one": "splitter_concurrency, batch_messages и max_merge_candidates должны быть ≥ 1",
    "topics.ids_not_distinct": "message_ids не должны повторяться",
    # engine/rerank
    "rerank.reason.vector": "ранг по векторам {rank}, оценка {score:.2f}",
    "rerank.reason.unbuilt": "ещё не в памяти, поэтому {reranker} его не читал; оставлено по порогу: {reason}",
    "rerank.threshold.reason": "оценка {score:.2f} ≥ {threshold:.2f}",
    "rerank.threshold.reason_gap": "оценка {score:.2f} ≥ {threshold:.2f}, на {drop:.2f} ниже предыдущей (предел "
                                   "разрыва {gap:.2f})",
    "rerank.fallback.llm_error": "ошибка при обращении к серверу модели",
    "rerank.fallback.timeout": "вышло общее время",
    "rerank.fallback.turn_timeout": "ход занял слишком много времени",
    "rerank.fallback.empty_response": "модель ничего не ответила",
    "rerank.fallback.protocol_violation": "модель нарушила протокол",
    "rerank.fallback.parse_error": "ответ не удалось разобрать",
    "rerank.fallback.all_hallucinated": "все номера в ответе выдуманы",
    "rerank.fallback.max_tool_calls": "исчерпан предел вызовов инструментов",
    "rerank.fallback.model_empty": "модель не нашла ничего подходящего",
    "rerank.flash.fallback_requested": "откат ({reason}): модель просила эту тему, ранг по векторам {rank}, оценка "
                                       "{score:.2f}",
    "rerank.flash.fallback_vector": "откат ({reason}): ранг по векторам {rank}, оценка {score:.2f}",
    "rerank.flash.selected": "выбрано моделью",
    "rerank.flash.no_candidates": "нет кандидатов: модели не из чего выбирать",
    "rerank.flash.model_found_nothing": "модель не нашла ничего подходящего",
    "rerank.flash.cut_kept": "ответ обрезан на пределе max_tokens {max_tokens}; его законченные записи сохранены",
    "rerank.flash.cut_unusable": "{problem} (ответ обрезан на пределе max_tokens {max_tokens})",
    "rerank.flash.all_hallucinated": "все номера в ответе — не из списка кандидатов: {ids}",
    "rerank.flash.out_of_time": "общее время ({total:g} с) вышло до хода {turn}",
    "rerank.flash.tool_not_offered": "модель вызвала инструмент, которого ей не предлагали",
    "rerank.flash.too_many_calls": "модель запросила больше {count:plural:вызова|вызовов|вызовов} инструментов",
    "rerank.flash.turn_limit": "достигнут предел ходов",
    "rerank.flash.forced_rejected": "сервер отклонил принудительный вызов ({rejected}), и модель ответила на первом "
                                    "ходу, не вызвав {tool}",
    "rerank.flash.forced_ignored": "сервер не выполнил принудительный вызов: модель ответила на первом ходу, не "
                                   "вызвав {tool}",
    "rerank.flash.forced_ignored_as": "сервер не выполнил принудительный вызов (отправлен как {sent_as}): модель "
                                      "ответила на первом ходу, не вызвав {tool}",
    "rerank.flash.schema_rejected": "сервер отклонил response_format json_schema ({refused})",
    "rerank.flash.read_empty": "модель не прислала текста с запросом на чтение",
    "rerank.flash.read_not_json": "запрос на чтение — не JSON",
    "rerank.flash.read_not_json_cut": "запрос на чтение — не JSON (обрезан на пределе max_tokens)",
    "rerank.flash.read_nothing": "модель не попросила прочитать ни одной темы",
    "rerank.flash.answer.no_json": "в ответе нет ни объекта, ни массива JSON",
    "rerank.flash.answer.empty": "модель не прислала текста",
    "rerank.flash.answer.no_keys": "в JSON нет ни одного из ожидаемых ключей (есть {keys})",
    "rerank.flash.answer.no_ids": "ни в одной записи ответа нет читаемого номера",
    "rerank.flash.protocol.tools": "вызов инструментов",
    "rerank.flash.protocol.constrained": "ходы по схеме JSON",
    "rerank.flash.protocol.set": "{protocol} (задано в настройках)",
    "rerank.flash.protocol.learned": "{protocol} (выяснено: {evidence})",
    "rerank.flash.protocol.earlier_runs": "по прошлым запускам",
    "rerank.flash.protocol.preset_tools": "{protocol} ({preset} выполняет принудительные вызовы инструментов)",
    "rerank.flash.protocol.preset_constrained": "{protocol} ({preset} соблюдает схемы JSON, но не принудительный "
                                                "вызов инструмента)",
    "rerank.flash.protocol.switched": "{protocol} (переключено: {evidence})",
    "rerank.flash.settings.not_one_of": "{name} должен быть одним из {choices}, а не {value}",
    "rerank.flash.settings.calls_and_total": "max_tool_calls должно быть ≥ 0, а total_timeout > 0",
    "rerank.flash.settings.turn_timeout": "turn_timeout должно быть > 0 (или None: тогда total_timeout / "
                                          "(max_tool_calls + 1))",
    "rerank.flash.settings.turn1_share": "turn1_share — доля общего времени: больше 0 и не больше 1",
    "rerank.flash.settings.shown_counts": "max_candidates, people_shown и artifacts_shown должны быть ≥ 0",
    "rerank.flash.settings.positive": "{names}: нужно значение > 0 (или None — значение по умолчанию для сервера)",
    "rerank.rewrite.no_client": "чат-модель не настроена",
    "rerank.rewrite.no_recent": "нет недавних сообщений",
    "rerank.rewrite.failed": "вызов не удался ({kind}): {error}",
    "rerank.rewrite.empty": "пустой ответ",
    "rerank.rewrite.only_markup": "в ответе только разметка, а не запрос",
    "rerank.rewrite.lead_in": "ответ — вступление, а не запрос",
    "rerank.rewrite.too_long": "ответ слишком длинный для запроса",
    "rerank.rewrite.prose": "ответ — рассуждение, а не запрос",
    "rerank.rewrite.cut_off": "ответ обрезан на пределе длины",
    "rerank.rewrite.unchanged": "запрос не изменился",
    # ui-visible (issue 22): what the window shows of the store's faults and who writes it, and
    # the chat presets' names in messages (engine/store/faults.py, lock.py; engine/llm/presets.py).
    "store.operation.labels": "сохранение разметки",
    "store.full": "Диск, на котором лежит {folder}, заполнен: освободите место и {again} (наполовину записанное не "
                  "сохранено).",
    "store.damaged": "Хранилище в {folder} повреждено ({detail}): запустите `flashback check`, чтобы узнать, что "
                     "можно восстановить, или импортируйте выгрузки в новую папку данных.",
    "store.busy": "Другая программа держит хранилище в {folder} занятым: закройте её или дождитесь, пока она "
                  "закончит, и попробуйте снова.",
    "store.disk_error": "Диск, на котором лежит {folder}, не удалось прочитать или записать (ошибка ввода-вывода): "
                        "проверьте диск и свободное место на нём, затем {again} (наполовину записанное не сохранено).",
    "store.again.import": "повторите импорт",
    "store.again.build": "постройте память снова",
    "store.again.check": "повторите проверку",
    "store.again.search": "повторите поиск",
    "store.again.other": "попробуйте снова",
    "store.read_only": "Папка данных {folder} доступна только для чтения: искать можно, но для импорта и построения "
                       "памяти нужна папка, в которую можно писать (проверьте права доступа или диск).",
    "store.read_only_detail": "Папка данных {folder} доступна только для чтения ({detail}): искать можно, но для "
                              "импорта и построения памяти нужна папка, в которую можно писать (проверьте права "
                              "доступа или диск).",
    "store.writer_busy": "В хранилище сейчас пишет {writer}: попробуйте снова, когда запись закончится.",
    "store.damage.malformed": "образ базы данных испорчен",
    "store.damage.not_a_database": "файл — не база данных",
    "store.os.read_only_fs": "файловая система только для чтения",
    "store.os.access_denied": "нет доступа",
    "store.os.not_permitted": "операция не разрешена",
    "llm.preset.openrouter": "OpenRouter",
    "llm.preset.openai": "OpenAI",
    "llm.preset.ollama": "Ollama",
    "llm.preset.llamacpp": "сервер llama.cpp",
    "llm.preset.lmstudio": "LM Studio",
    "llm.preset.custom": "сервер LLM",
    # engine/rerank/cross_encoder
    "rerank.cross_encoder.reason": "оценка кросс-энкодера {score:.2f}",
    "rerank.cross_encoder.fallback_vector": "откат ({reason}): ранг по векторам {rank}, оценка {score:.2f}",
    "rerank.cross_encoder.fallback.endpoint_error": "сервер ранжирования ответил ошибкой",
    "rerank.cross_encoder.fallback.timeout": "вышло время",
    "rerank.cross_encoder.fallback.parse_error": "ответ не удалось разобрать",
    "rerank.cross_encoder.fallback.missing_scores": "в ответе не хватает оценок",
    "rerank.cross_encoder.no_candidates": "нет тем-кандидатов: кросс-энкодеру нечего отправить",
    "rerank.cross_encoder.none_above": "ни один отрывок не достиг порога кросс-энкодера {threshold:.2f} (лучший "
                                       "{best:.2f})",
    "rerank.cross_encoder.skipped": "кросс-энкодер не нужен: {why}; оставлены первые {count} по этапу 1",
    "rerank.cross_encoder.skip.small": "этап 1 нашёл {count:plural:тему|темы|тем} (≤ {limit})",
    "rerank.cross_encoder.skip.apart": "его {window} лучших оценок расходятся на {spread:.2f} (ровными считаются "
                                       "ниже {flat:.2f})",
    "rerank.cross_encoder.skip.both": "{first}, и {second}",
    "rerank.cross_encoder.chain.narrowed": "кросс-энкодер оставил для Flash {after} из {before:plural:темы|тем|тем}",
    "rerank.cross_encoder.chain.unnarrowed": "Flash прочитал все темы ({count}): {why}",
    "rerank.cross_encoder.settings.invalid": "параметр кросс-энкодера {name} вне допустимого диапазона (получено "
                                             "{value})",
    "rerank.cross_encoder.needs_url": "Для своего сервера ранжирования нужен адрес, например "
                                      "http://127.0.0.1:8080/v1/rerank.",
    "rerank.cross_encoder.error.timeout": "{label} не ответил за {seconds:g} с",
    "rerank.cross_encoder.error.unreachable": "{label} по адресу {url} не отвечает ({detail}); сервер запущен?",
    "rerank.cross_encoder.error.auth": "{label} не принял API-ключ ({status}): проверьте ключ, сохранённый для "
                                       "{provider}",
    "rerank.cross_encoder.error.not_found": "{label}: по адресу {url} нет точки ранжирования (404); запущена ли "
                                            "модель-реранкер (llama-server --reranking)?",
    "rerank.cross_encoder.error.status": "{label}: ответ {status}: {detail}",
    "rerank.cross_encoder.error.not_json": "{label}: ответ не в формате JSON",
    "rerank.cross_encoder.error.shape": "{label}: в ответе нет списка оценок (results, data или список)",
    "rerank.cross_encoder.error.bad_entry": "{label}: в ответе запись без верного номера (от 0 до {sent} − 1) и "
                                            "оценки или повтор: {entry}",
    "rerank.cross_encoder.error.missing": "{label}: оценки пришли для {got} из {sent} отрывков (нет: {missing})",
    "rerank.cross_encoder.preset.llamacpp": "сервер llama.cpp",
    "rerank.cross_encoder.preset.tei": "Text Embeddings Inference",
    "rerank.cross_encoder.preset.infinity": "Infinity",
    "rerank.cross_encoder.preset.vllm": "vLLM",
    "rerank.cross_encoder.preset.jina": "Jina AI",
    "rerank.cross_encoder.preset.cohere": "Cohere",
    "rerank.cross_encoder.preset.voyage": "Voyage AI",
    "rerank.cross_encoder.preset.custom": "сервер ранжирования",
    # issue 23: filters, people, CLI
    "search.dates_inverted": "Диапазон дат пуст: {first} позже, чем {last}; выберите первый день не позже "
                             "последнего.",
    "owner.name_unknown": "Никто с именем {name!r} не писал в импортированных чатах WhatsApp или JSONL (или это уже "
                          "вы): укажите имя точно так, как оно записано в экспорте.",
    # engine/api/search.py: a date phrase in the query
    "search.date_boost": "«{phrase}»: сначала темы за {days} (их {count}), остальные не скрыты",
    # issue 26: поиск не ждёт построения памяти; первый поиск в большом хранилище
    "search.unbuilt_not_read": "не показаны найденные по словам, но ещё не построенные сообщения ({count}): "
                               "{reranker} читает только построенную память",
    "search.unbuilt": "{count:plural:сообщение ещё не в памяти, по нему|сообщения ещё не в памяти, по ним|сообщений "
                      "ещё не в памяти, по ним} искали только по словам (найдено {found}); их добавит `flashback "
                      "build` (или «Построить память»)",
    "index.compacted": ("в нём было {deleted} удалённых элементов — более чем вдвое больше, чем живых: "
                        "пересобран компактнее"),
    "index.corrupt.vectors": "повреждён: его файл полных векторов не совпадает с сопроводительным ({problem})",
    "index.vectors.unreadable": "не читается: {error}",
    "index.vectors.format": "это не файл векторов этой версии, или он обрезан",
    "index.vectors.size": "в нём {size} байт, а по сопроводительному файлу — {expected}",
    "index.vectors.checksum": "не совпадает контрольная сумма",
    "index.vectors.missing": "его нет",
    # issue 23: chat identity and forget
    "import.matched.content": "тот же чат, что и уже сохранённый {chats} (узнан по первым сообщениям), поэтому "
                              "добавлены только новые сообщения",
    "import.matched.key": "добавлено в {count:plural:сохранённый чат|сохранённых чата|сохранённых чатов}: {chats}",
    "import.summary.recognised": "Узнаны по сообщениям как уже сохранённые чаты: {chats}",
    "import.summary.existing": "Добавлено в уже сохранённые чаты: {chats}",
    "forget.chat_missing": "Чата {chat} в хранилище нет; `flashback chats` покажет список.",
    "forget.source_missing": "Импорта {source} в хранилище нет; `flashback forget --sources` покажет список.",
    "forget.no_target": "Укажите, что забыть: --chat ID_ИЛИ_ИМЯ (`flashback chats` покажет чаты) или --source ID "
                        "(`flashback forget --sources` покажет импорты).",
    "forget.no_sources": "Пока ничего не импортировано.",
    "forget.preview.chat": "Если забыть чат «{name}», навсегда удалятся {messages:plural:сообщение|сообщения|"
                           "сообщений}, {topics:plural:тема|темы|тем}, {people:plural:человек|человека|человек}, "
                           "встречающихся только там, {attachments:plural:вложение|вложения|вложений} и "
                           "{runs:plural:сохранённый поиск|сохранённых поиска|сохранённых поисков}, где он попадался.",
    "forget.preview.source": "Если забыть импорт {name}, навсегда удалятся {messages:plural:сообщение|сообщения|"
                             "сообщений} в {chats:plural:чате|чатах|чатах}, {topics:plural:тема|темы|тем}, "
                             "{people:plural:человек|человека|человек}, встречающихся только там, "
                             "{attachments:plural:вложение|вложения|вложений} и {runs:plural:сохранённый поиск|"
                             "сохранённых поиска|сохранённых поисков}, где они попадались.",
    "forget.prompt": "Удалить навсегда? [y/N] ",
    "forget.declined": "Ничего не удалено.",
    "forget.needs_yes": "Забытое удаляется навсегда, а подтвердить это здесь негде (нет терминала): добавьте --yes.",
    "forget.done": "Забыто: {name}; удалено {messages:plural:сообщение|сообщения|сообщений}, "
                   "{topics:plural:тема|темы|тем}, {people:plural:человек|человека|человек} и "
                   "{runs:plural:сохранённый поиск|сохранённых поиска|сохранённых поисков}; хранилище "
                   "было {before}, стало {after}.",
    "forget.done_uncompacted": "Забыто: {name}; удалено и затёрто {messages:plural:сообщение|сообщения|сообщений}, "
                               "{topics:plural:тема|темы|тем}, {people:plural:человек|человека|человек} и "
                               "{runs:plural:сохранённый поиск|сохранённых поиска|сохранённых поисков}, но сжать "
                               "хранилище не хватило места на диске.",
    "forget.done_reader": "Забыто: {name}; удалено {messages:plural:сообщение|сообщения|сообщений}, "
                          "{topics:plural:тема|темы|тем}, {people:plural:человек|человека|человек} и "
                          "{runs:plural:сохранённый поиск|сохранённых поиска|сохранённых поисков}. Хранилище сейчас "
                          "читает другой процесс Flashback: текст будет стёрт из файлов хранилища, когда он закончит "
                          "(это сделает следующая команда или окно Flashback).",
    "forget.done_not_smaller": "Забыто: {name}; удалено и затёрто {messages:plural:сообщение|сообщения|сообщений}, "
                               "{topics:plural:тема|темы|тем}, {people:plural:человек|человека|человек} и "
                               "{runs:plural:сохранённый поиск|сохранённых поиска|сохранённых поисков}; хранилище "
                               "занимает {size} и меньше не стало: удалено слишком мало.",
    "memory.check.purge": "не осталось текста забытых чатов, который нужно стереть",
    "memory.check.purge_finished": "текст забытого чата стёрт из файлов хранилища (удаление было прервано)",
    "memory.check.purge_reader": "текст забытого чата ещё остаётся в файлах хранилища: его читает другой процесс "
                                 "Flashback; текст будет стёрт, когда тот закончит",
    "memory.check.purge_failed": "текст забытого чата ещё остаётся в файлах хранилища ({reason}); запустите "
                                 "`flashback check` ещё раз",
    "forget.menu": "Забыть этот чат…",
    "forget.title": "Забыть чат",
    "forget.confirm": "Забыть",
    "forget.failed": "Не удалось забыть чат",
    "demo.own_folder": "Демо открывается в своей папке данных, {folder}; ваше хранилище не затронуто "
                       "(`flashback --demo --data-dir ПАПКА` положит его в другое место).",
    # engine/errors.py: a cancelled build
    "build.cancelled": "Построение отменено: уже сделанные темы и векторы сохранены; постройте ещё раз, чтобы "
                       "закончить.",
    # engine/llm: the chat client's errors (the server named by llm.preset.*) and its waits
    "llm.closed_before_sending": "{server}: соединение закрыто; запрос не отправлен.",
    "llm.closed_while_running": "{server}: соединение закрыто, пока выполнялся запрос.",
    "llm.needs_key": "{server}: нужен API-ключ.",
    "llm.no_model": "{server}: не выбрана модель.",
    "llm.timeout": "{server} не ответил за {seconds:g} с (модель {model}). Попробуйте ещё раз, дайте больше времени "
                   "или выберите модель побыстрее.",
    "llm.timeout_attempts": "{server} не ответил за {seconds:g} с (модель {model}, "
                            "{attempts:plural:попытка|попытки|попыток}). Попробуйте ещё раз, дайте больше времени "
                            "или выберите модель побыстрее.",
    "llm.unusable_reply": "{server} прислал ответ, которым нельзя воспользоваться ({problem}). Попробуйте ещё раз "
                          "или выберите другую модель.",
    "llm.bad_scheme": "{server}: базовый адрес ({url}) должен начинаться с http:// или https://.",
    "llm.unreadable_request": "{server} не смог прочитать запрос ({status}: {detail}). Проверьте имя модели "
                              "({model}) и то, что сервер совместим с OpenAI.",
    "llm.embedded_error": "{server} сообщил об ошибке во время ответа{suffix}: {detail} (код {error_code}). Попробуйте "
                          "ещё раз или выберите другую модель.",
    "llm.unreachable": "{server} по адресу {url} недоступен{suffix} ({reason}). Проверьте, что сервер запущен и "
                       "базовый адрес верен.",
    "llm.rate_limited": "{server} ограничивает частоту запросов (429){suffix}: {detail}. {advice} или выберите "
                        "другую модель.",
    "llm.advice.try_again_in": "Попробуйте снова через {wait}",
    "llm.advice.wait_a_minute": "Подождите минуту",
    "llm.server_error": "{server}: ошибка сервера ({status}){suffix}: {detail}. Попробуйте позже или выберите "
                        "другую модель.",
    "llm.key_rejected": "{server} не принял API-ключ (401: {detail}).",
    "llm.key_rejected_none_set": "{server} не принял запрос без API-ключа (401: {detail}).",
    "llm.no_credits": "{server}: на счёте не осталось средств (402: {detail}). Пополните счёт или выберите "
                      "бесплатную модель.",
    "llm.forbidden": "{server} отклонил запрос (403: {detail}). Возможно, у ключа нет доступа к модели {model} или "
                     "входные данные были помечены как недопустимые.",
    "llm.not_found": "{server} ответил 404 для модели {model} по адресу {url}/chat/completions: {detail}. Проверьте "
                     "имя модели и то, что базовый адрес оканчивается на /v1.",
    "llm.rejected": "{server} отклонил запрос ({status}: {detail}). Проверьте имя модели ({model}) и настройки "
                    "сервера.",
    "llm.not_json": "{server} прислал ответ не в формате JSON (статус {status}, начало: {snippet}). Проверьте, что "
                    "базовый адрес указывает на API, совместимый с OpenAI.",
    "llm.not_an_object": "{server} прислал JSON, который не является объектом; проверьте, что базовый адрес "
                         "указывает на API, совместимый с OpenAI.",
    "llm.gave_up.attempts": " после {attempts:plural:попытки|попыток|попыток}",
    "llm.gave_up.retry_after": " (он просил подождать {wait}, прежде чем пробовать снова, дольше, чем ждёт "
                               "Flashback: {limit})",
    "llm.gave_up.no_time": " (ожидание перед повтором, {wait:.1f} с, дольше, чем осталось на этот вызов: "
                           "{limit:.1f} с)",
    "llm.seconds": "{value:g} с",
    "llm.minutes": "{value:.0f} мин",
    "llm.completion.no_choices": "в ответе нет вариантов (choices)",
    "llm.completion.no_message": "в первом варианте ответа нет сообщения",
    "llm.completion.calls_not_a_list": "tool_calls — не список",
    "llm.completion.call_not_an_object": "вызов инструмента {index} — не объект",
    "llm.completion.call_without_name": "у вызова инструмента {index} нет имени функции",
    # engine/embeddings: the embedders' errors (the service named as it is: a provider or an address)
    "embeddings.unknown_provider": "Неизвестный поставщик эмбеддингов {provider}.",
    "embeddings.no_address": "Не указан адрес вашего сервера эмбеддингов (например, http://localhost:8080/v1).",
    "embeddings.no_model": "Не выбрана модель эмбеддингов.",
    "embeddings.key_missing": "Сервису эмбеддингов ({service}) нужен API-ключ.",
    "embeddings.key_rejected": "Сервис эмбеддингов ({service}) не принял API-ключ, или у ключа нет доступа к модели "
                               "эмбеддингов.",
    "embeddings.rate_limited": "Сервис эмбеддингов ({service}) ограничивает частоту запросов Flashback{wait}. "
                               "Попробуйте снова через несколько минут.",
    "embeddings.asked_to_wait": " (он просил подождать {seconds:.0f} с)",
    "embeddings.failed": "Сбой сервиса эмбеддингов ({service}){status}{detail}. Попробуйте позже или проверьте имя "
                         "модели и адрес.",
    "embeddings.http_status": " (HTTP {status})",
    "embeddings.detail": ": {detail}",
    "embeddings.cannot_connect": "не удалось подключиться к {url} ({error}); сервер запущен?",
    "embeddings.timeout": "Сервис эмбеддингов ({service}) не ответил{within}. Проверьте подключение (или что "
                          "локальный сервер запущен) и попробуйте снова.",
    "embeddings.within": " за {seconds:g} с",
    "embeddings.unusable_answer": "Сервис эмбеддингов ({service}) прислал ответ, которым Flashback не может "
                                  "воспользоваться: {problem}. Проверьте, что выбрана модель эмбеддингов.",
    "embeddings.answer.not_json": "ответ — не корректный JSON",
    "embeddings.answer.no_data": "в ответе нет списка векторов ('data')",
    "embeddings.answer.count": "отправлено текстов: {sent}, а векторов вернулось: {got}",
    "embeddings.answer.positions": "позиции векторов ('index') не совпадают с текстами",
    "embeddings.answer.not_numbers": "вектора нет или это не список чисел",
    "embeddings.answer.ragged": "векторы пусты или разной длины",
    "embeddings.answer.dimension": "в векторах {got} чисел, а ожидалось {expected}",
    "embeddings.answer.invalid_numbers": "вектор состоит из нулей или содержит недопустимые числа",
    "embeddings.builtin_state_damaged": "Сохранённая статистика слов встроенного эмбеддера повреждена или от другой "
                                        "версии; перестройте поисковый индекс, чтобы вычислить её заново.",
    "embeddings.local.not_on_windows": "Локальная модель пока недоступна в Windows: выберите встроенный эмбеддер.",
    "embeddings.local.missing": "Локальная модель не установлена: выполните `{command}` и попробуйте снова или "
                                "выберите встроенный эмбеддер.",
    "embeddings.local.unloadable": "Не удалось загрузить локальную модель ({error}); переустановите её командой "
                                   "`{command}`.",
    # engine/ask: the flow's notes, the plan's, the claims' and the QA file's
    "ask.cancelled": "Вопрос отменён.",
    "ask.no_model": "Модель чата не выбрана, поэтому письменного ответа нет, только то, что говорят источники.",
    "ask.no_answer": "ответа нет ({reason}): {error}; найденные источники ниже",
    "ask.refine_failed": "уточняющий раунд не дал ответа: остаётся первый ответ",
    "ask.refine_not_better": "ответ уточняющего раунда подтверждён не лучше: остаётся первый ответ",
    "ask.search_failed": "поиск не удался: {error}",
    "ask.sources_unreadable": "не удалось прочитать источники: {error}",
    "ask.mostly_unsupported": ("Осторожно: {unsupported} из {claims} утверждений ниже не подтверждаются "
                               "сообщениями, на которые ссылаются; проверьте источники, прежде чем "
                               "полагаться на этот ответ."),
    "ask.step_failed_nothing_read": ("Ответа нет: шаг «{step}» не удался ({reason}), поэтому ни один "
                                     "источник не прочитан. Это не значит, что в ваших чатах этого нет; "
                                     "попробуйте ещё раз."),
    "ask.caveat": "Не подтверждается цитируемыми сообщениями: {claims}.",
    "ask.call.no_time": "на этот шаг не осталось времени",
    "ask.call.no_call": "модель не вызвала {name}",
    "ask.call.no_text": "модель не прислала текста",
    "ask.call.not_json": "ответ не в формате JSON",
    "ask.call.not_json_cut": "ответ не в формате JSON (обрезан на max_tokens)",
    "ask.call.not_an_object": "ответ в формате JSON, но не объект",
    "ask.plan.no_subquery": "в плане не было подзапросов: искали сам вопрос",
    "ask.plan.over_limit": "сверх предела отброшено подзапросов: {count}",
    "ask.plan.unknown_chats": "чатов, которых нет в хранилище, не учли: {chats}",
    "ask.plan.nothing_added": "план ничего не добавил к вопросу",
    "ask.plan.dates_ignored": "даты из плана ({phrase}) не учтены: в вопросе не названо время",
    "ask.plan.dates_unreadable": "даты из плана ({phrase}) не удалось прочитать как диапазон",
    "ask.claim.no_source": "не ссылается ни на один источник",
    "ask.claim.other_language": "написано на другом языке, чем источники: офлайн-проверка не может их сравнить",
    "ask.claim.words_missing": "в цитируемых сообщениях этого нет: {words}",
    "ask.claim.asks_again": "он снова задаёт вопрос вместо ответа",
    "ask.claim.restates_question": "он лишь повторяет вопрос, и в цитируемых сообщениях его почти нет",
    "ask.claim.model_says_unstated": "по мнению модели, в цитируемых сообщениях этого не сказано",
    "ask.qa.not_a_qa_file": "{path} — не файл вопросов и ответов: {problem}.",
    "ask.qa.expected_shape": "ожидался список примеров LoCoMo или {shape}",
    "ask.qa.no_question": "В {path} нет ни одного вопроса с эталонным ответом и подтверждением.",
    "ask.qa.nothing_known": "Ни одного сообщения-подтверждения из файла вопросов нет в этом хранилище: сначала "
                            "импортируйте переписки, о которых он спрашивает.",
    "ask.qa.nothing_known_in": "Ни одного сообщения-подтверждения из {source} нет в этом хранилище: сначала "
                               "импортируйте переписки, о которых он спрашивает.",
    # issue 31: words for the names a person reads (engine.messages reason_message, step_message,
    # reranker_message): why an Ask step fell back, the steps, the rerankers
    "ask.fallback.no_model": "нет модели чата",
    "ask.fallback.search_error": "поиск не удался",
    "ask.fallback.compose_error": "найденные сообщения не удалось прочитать",
    "ask.fallback.rerank_error": "сбой отбора",
    "ask.fallback.no_sources": "поиск не нашёл источников",
    "ask.fallback.off": "выключено",
    "ask.fallback.answer": "ответа нет ({reason})",
    "fallback.other": "другая причина",
    "ask.step.plan": "План",
    "ask.step.search": "Поиск",
    "ask.step.rerank": "Отбор",
    "ask.step.compose": "Источники",
    "ask.step.answer": "Ответ",
    "ask.step.verify": "Проверка",
    "ask.step.refine": "Второй круг",
    "ask.step.other": "Другой шаг",
    "reranker.none": "только векторы",
    "reranker.threshold": "порог",
    "reranker.flash": "Flash",
    "reranker.cross-encoder": "кросс-энкодер",
    "reranker.ask": "вопрос",
    "reranker.other": "другой способ",
    # issue 31: where each face says a setting is (engine.messages SETTING_OF): the window names
    # its own panel and dialog, the CLI its options, the MCP server the window's settings
    "hint.window.llm_key": "Укажите ключ в меню Настройки → API-ключ….",
    "hint.window.llm_model": "Выберите её на панели настроек поиска: Flash (LLM) → Модель.",
    "hint.window.llm_url": "Исправьте его на панели настроек поиска: Flash (LLM) → URL.",
    "hint.window.llm_setup": "Выберите её на панели настроек поиска, в группе Flash (LLM); ключ для сервера, "
                             "которому он нужен, задаётся в меню Настройки → API-ключ….",
    "hint.window.embedder": "Проверьте эмбеддер на панели настроек поиска, в группе Эмбеддинги.",
    "hint.window.embedder_url": "В окне есть встроенный и локальный эмбеддеры (панель настроек поиска, "
                                "Эмбеддинги); адрес сервера задаётся командой `flashback build "
                                "--embedding-base-url`.",
    "hint.window.embedder_model": "Выберите эмбеддер на панели настроек поиска, в группе Эмбеддинги.",
    "hint.window.embedding_key": "Укажите ключ в меню Настройки → API-ключ….",
    "hint.cli.llm_key": "Сохраните его командой `flashback key set --provider ИМЯ` или задайте его переменную "
                        "окружения (её называет `flashback key show --provider ИМЯ`).",
    "hint.cli.llm_model": "Укажите её параметром --model.",
    "hint.cli.llm_url": "Укажите верный адрес параметром --base-url.",
    "hint.cli.llm_setup": "Выберите её параметрами --endpoint и --model: для openrouter и openai нужен ключ "
                          "(`flashback key set --provider ИМЯ`), для ollama, llamacpp и lmstudio — нет.",
    "hint.cli.embedder": "Проверьте параметры --embedder, --embedding-model и --embedding-base-url.",
    "hint.cli.embedder_url": "Укажите его параметром --embedding-base-url.",
    "hint.cli.embedder_model": "Укажите её параметром --embedding-model.",
    "hint.cli.embedding_key": "Сохраните его командой `flashback key set --provider ИМЯ` или задайте его "
                              "переменную окружения.",
    "hint.cli.embedding_timeout": "Или дайте больше времени: --embedding-timeout СЕКУНДЫ (по умолчанию 60).",
    "hint.mcp.llm_key": "Сохраните его в окне Flashback (Настройки → API-ключ…) или командой `flashback key set`.",
    "hint.mcp.llm_model": "Выберите её в окне Flashback: панель настроек поиска, Flash (LLM) → Модель.",
    "hint.mcp.llm_url": "Исправьте его в окне Flashback: панель настроек поиска, Flash (LLM) → URL.",
    "hint.mcp.llm_setup": "Выберите её в окне Flashback: панель настроек поиска, Flash (LLM).",
    "hint.mcp.embedder": "Проверьте эмбеддер в окне Flashback: панель настроек поиска, Эмбеддинги.",
    "hint.mcp.embedder_url": "Проверьте эмбеддер в окне Flashback: панель настроек поиска, Эмбеддинги.",
    "hint.mcp.embedder_model": "Проверьте эмбеддер в окне Flashback: панель настроек поиска, Эмбеддинги.",
    "hint.mcp.embedding_key": "Сохраните его в окне Flashback (Настройки → API-ключ…) или командой "
                              "`flashback key set`.",
    # issue 31: the run history's figures, one summary for `flashback runs` and the window
    "runs.summary.count": "{runs:plural:запуск|запуска|запусков}",
    "runs.summary.count_by": "{runs:plural:запуск|запуска|запусков} ({by})",
    "runs.summary.named_count": "{name}: {count:,}",
    "runs.summary.fallbacks": "откатов {count:,} ({rate:.0%}): {reasons}",
    "runs.summary.reason_count": "{reason} ×{count:,}",
    "runs.summary.no_fallbacks": "откатов не было",
    "runs.summary.latency": "задержка: медиана {p50}, 95-й процентиль {p95}",
    "runs.summary.tool_calls": "вызовов инструментов на запуск {mean:.1f}",
    "runs.summary.tokens": "токенов {prompt:,} на входе, {completion:,} на выходе",
    "runs.summary.cost": "стоимость {cost}",
    "runs.list": "{first}, {then}",
    "runs.row.fallback": "откат: {reason}",
    "runs.row.tool_calls": "{count:plural:вызов инструмента|вызова инструментов|вызовов инструментов}",
    "runs.none": "Запусков пока нет: `flashback search ЗАПРОС` записывает запуск.",
    "runs.no_such_run": "запуска {run_id} нет; их перечисляет `flashback runs`.",
    "unit.ms": "{value:,.0f} мс",
    "unit.s": "{value:.1f} с",
    "unit.min_s": "{minutes} мин {seconds} с",
    "unit.unknown": "–",
    # issue 31: a run's settings in the run history, by name (engine.api SearchSettings' groups)
    "runs.setting.group.retrieval": "Поиск",
    "runs.setting.group.reranker": "Отбор",
    "runs.setting.group.model": "Модель",
    "runs.setting.group.flash": "Flash",
    "runs.setting.group.cross_encoder": "Кросс-энкодер",
    "runs.setting.group.ask": "Вопрос",
    "runs.setting.candidates": "кандидатов",
    "runs.setting.safety_threshold": "минимальная оценка",
    "runs.setting.hybrid": "гибридный (векторы + слова)",
    "runs.setting.fusion": "слияние",
    "runs.setting.lexical_weight": "вес слов",
    "runs.setting.mmr": "разнообразие (MMR)",
    "runs.setting.mmr_lambda": "баланс MMR",
    "runs.setting.people": "людей",
    "runs.setting.artifacts": "файлов",
    "runs.setting.date_from": "с",
    "runs.setting.date_to": "по",
    "runs.setting.chat_ids": "чаты",
    "runs.setting.name": "способ отбора",
    "runs.setting.threshold": "порог оценки",
    "runs.setting.gap": "разрыв оценок",
    "runs.setting.top_k": "итоговые top-K",
    "runs.setting.model": "модель",
    "runs.setting.preset": "сервер",
    "runs.setting.max_tool_calls": "макс. вызовов инструментов",
    "runs.setting.total_timeout": "предел времени",
    "runs.setting.turn_timeout": "время на ход",
    "runs.setting.turn1_share": "доля первого хода",
    "runs.setting.reasoning_effort": "рассуждение",
    "runs.setting.max_topics": "макс. тем",
    "runs.setting.max_people": "макс. людей",
    "runs.setting.max_artifacts": "макс. файлов",
    "runs.setting.protocol": "протокол",
    "runs.setting.contextualize_query": "сначала переписать запрос",
    "runs.setting.excerpts": "выдержки",
    "runs.setting.top_n": "отрывков отправлено",
    "runs.setting.passage_tokens": "токенов на отрывок",
    "runs.setting.batch": "пакет",
    "runs.setting.skip_small": "пропускать при малом этапе 1",
    "runs.setting.skip_flat": "пропускать при ровных оценках",
    "runs.setting.timeout": "предел времени",
    "runs.setting.chain_keep": "Flash читает",
    "runs.setting.total_budget_s": "бюджет времени (с)",
    "runs.setting.verify": "проверка утверждений",
    "runs.setting.refine": "второй круг",
    "runs.setting.answer_format": "формат ответа",
    "runs.setting.use_plan_model": "план составляет модель",
    "runs.setting.budget_tokens": "бюджет контекста (токенов)",
    "runs.setting.source_messages": "сообщений на источник",
    "runs.setting.max_subqueries": "макс. подзапросов",
    "runs.kind.topic": "тема",
    "runs.kind.person": "человек",
    "runs.kind.artifact": "файл",
    "runs.kind.message": "сообщение",
    "runs.kind.other": "элемент",
    "runs.value.verify.offline": "офлайн, эмбеддером",
    "runs.value.verify.llm": "моделью",
    "runs.value.verify.off": "выкл.",
    "runs.value.fusion.score": "по оценкам",
    "runs.value.fusion.rrf": "RRF",
    "runs.value.protocol.auto": "автоматически",
    "runs.value.protocol.tools": "вызовы инструментов",
    "runs.value.protocol.constrained": "схема JSON",
    "runs.settings.on": "вкл.",
    "runs.settings.off": "выкл.",
    "runs.settings.none": "—",
    # issue 31: what `flashback ask` prints around the answer
    "cli.ask.quotes": "Фразы, которые отвечают (модели чата нет, поэтому цитаты, а не ответ):",
    "cli.ask.sources": "Источники:",
    "cli.ask.nothing_matched": "В ваших чатах не нашлось ничего по этому вопросу.",
    "cli.ask.plan": "план ({source}): {subqueries}",
    "cli.ask.plan_source.model": "составлен моделью",
    "cli.ask.plan_source.fallback": "вопрос как задан",
    "cli.ask.plan_source.user": "как вы его изменили",
    "cli.ask.dates": "даты «{phrase}»",
    "cli.ask.took": "заняло {duration}",
    "cli.ask.fallback": "откат: {reason}",
    "cli.ask.tokens": "токенов {prompt:,} + {completion:,}",
    # issue 31: the CLI's own lines (app/cli*.py): progress, imports, stats, errors
    "cli.error": "ошибка: {text}",
    "cli.note": "flashback: {text}",
    "cli.usage_error": "{prog}: ошибка: {text}",
    "cli.build.searching_built": "flashback: {holder} пишет в хранилище; ищу в том, что уже построено",
    "cli.build.index_lost": "flashback: папка поискового индекса пропала; восстанавливаю её (ничего не "
                            "пересчитывается заново)",
    "cli.build.other_embedder": "Память построена другим эмбеддером: укажите параметры --embedder, с которыми она "
                                "строилась, или выполните `flashback build {flags}`, чтобы перестроить её для этого.",
    "cli.build.first": "flashback: сначала строю память (новые сообщения с последней сборки)",
    "cli.build.summary": "{topics:plural:новая тема|новые темы|новых тем} из "
                         "{messages:plural:сообщения|сообщений|сообщений}, объединено {merged:,}; векторизовано "
                         "{embedded:plural:текст|текста|текстов}, из кэша {cached:,}; ищется: {searchable}; модель "
                         "{model}",
    "cli.build.nothing_searchable": "пока ничего",
    "cli.build.kind.topic": "{count:plural:тема|темы|тем}",
    "cli.build.kind.person": "{count:plural:человек|человека|человек}",
    "cli.build.kind.artifact": "{count:plural:файл|файла|файлов}",
    "cli.build.kind.other": "{count:,} {kind}",
    "cli.build.local_first": "С локальной моделью пока ничего не построено: сначала выполните `flashback build "
                             "{flags}` (она векторизует каждую тему на этом компьютере, с ходом работы).",
    "cli.build.api_first": "Для этого эмбеддера пока ничего не построено: сначала выполните `flashback build {flags}` "
                           "(каждая тема уйдёт в API эмбеддингов, это может стоить денег).",
    "cli.argparse.unrecognized": "неизвестные аргументы: {args}",
    "cli.argparse.required": "нужны аргументы: {args}",
    "cli.argparse.invalid_choice": "аргумент {arg}: недопустимое значение {value} (допустимы: {choices})",
    "cli.argparse.expected_one": "аргументу {arg} нужно одно значение",
    "cli.argparse.not_allowed_with": "аргумент {arg} нельзя указывать вместе с {other}",
    "cli.argparse.argument": "аргумент {arg}: {text}",
    "cli.tune.no_labels": "Разметки пока нет: отметьте подходящие результаты в окне поиска или укажите файл QRELS "
                          "(`flashback tune qrels.json`).",
    "cli.tune.folds": "--folds должно быть 2 или больше: каждый запрос оценивается настройками, подобранными на "
                      "остальных.",
    "cli.tune.tuned": "подобрано по {objective} на {queries:plural:запросе|запросах|запросах}, перекрёстная проверка "
                      "на {folds} частях: порог {threshold:.2f}, разрыв {gap:.2f}, top-K {top_k}",
    "cli.tune.lexical": "{line}, вес слов {weight}",
    "cli.tune.unmatched": "{count:plural:размеченного сообщения|размеченных сообщений|размеченных сообщений} нет в "
                          "этом хранилище (не учтены)",
    "cli.tune.not_saved": "не сохранено: `flashback tune --save` (с теми же параметрами) запишет их туда, откуда их "
                          "читают окно и `flashback search`",
    "cli.tune.too_few": "слишком мало запросов, чтобы отличить выигрыш от шума",
    "cli.tune.gain": "{gain:+.2f} {objective} к текущим настройкам на запросах, по которым не подбирали",
    "cli.tune.same": "{what}: на каждом запросе так же, как с текущими настройками",
    "cli.tune.within_noise": "{what}, в пределах шума (±{margin:.2f}, две стандартные ошибки): не явно лучше "
                             "текущих настроек",
    "cli.tune.beyond_noise": "{what}, больше шума (±{margin:.2f}, две стандартные ошибки)",
    "cli.tune.worse": "{what}, хуже, больше шума (±{margin:.2f}, две стандартные ошибки)",
    "cli.tune.save_failed": "Не удалось сохранить подобранные настройки ({file}: {problem}); цифры выше остаются в "
                            "силе.",
    "cli.tune.settings_file": "файл настроек",
    "cli.tune.saved": "сохранено: порог {threshold:.2f}, разрыв {gap:.2f}, top-K {top_k} в {where}: `flashback "
                      "search` и окно теперь берут их (уже открытое окно — после перезапуска; параметр командной "
                      "строки по-прежнему важнее)",
    "cli.tune.lexical_not_saved": "{line}; вес слов {weight} не сохранён (ни у окна, ни у поиска нет такой "
                                  "настройки: подбирайте с --no-lexical, чтобы обойтись без него)",
    "cli.eval_answers.no_model": "flashback: модель чата не выбрана (нет ключа для сервера): ответы не оценить; "
                                 "укажите --endpoint с ключом или локальный сервер",
    "cli.eval_answers.stopped": "flashback: остановлено",
    "cli.eval_answers.header": "{questions:plural:вопрос|вопроса|вопросов}, модель {model}, судья {judge}",
    "cli.eval_answers.none": "нет",
    "cli.eval_answers.self_judged": "  (судья — та же модель, что отвечала; answer_f1 судья не нужен: другого задаёт "
                                    "--judge-endpoint)",
    "cli.eval_facts.no_model": "flashback: модель чата не выбрана (нет ключа для сервера): извлекать факты нечем; "
                               "укажите --endpoint с ключом или локальный сервер (--endpoint llamacpp --base-url …)",
    "cli.eval_facts.header": "{conversations}: модель {model}, сопоставление: {matcher}; прочитано {read} из "
                             "{topics:plural:темы|тем|тем}, эталонных фактов в них: {gold}",
    "cli.eval_facts.calls": "  {calls:plural:вызов|вызова|вызовов}, неудачных: {failed}; медиана {median} с, "
                            "самый долгий {longest} с",
    "cli.forget.source": "{messages:plural:сообщение|сообщения|сообщений}",
    "cli.crash.no_folder": "flashback остановился из-за непредвиденной ошибки ({what}), ещё не зная, куда записать "
                           "подробности.",
    "cli.crash.not_written": "flashback остановился из-за непредвиденной ошибки ({what}); подробности не удалось "
                             "записать в {log} ({reason}).",
    "cli.crash.logged": "flashback остановился из-за непредвиденной ошибки ({what}); подробности в {log} (приложите "
                        "этот файл, когда сообщаете о ней).",
    "cli.self_test.failed": "flashback self-test: ОШИБКА: {problem}",
    "cli.self_test.passed": "flashback self-test пройден: {messages:plural:сообщение|сообщения|сообщений}, "
                            "{topics:plural:тема|темы|тем}; {found}; {seconds:.1f} с",
    "cli.self_test.found": "{language} {query!r} → тема {topic} в {chat!r} (оценка {score:.2f})",
    "cli.self_test.no_demo": "в этой установке нет встроенного демо-экспорта (данные пакета не поставлены)",
    "cli.self_test.no_translation": "в этой установке нет перевода {language}",
    "cli.self_test.demo_count": "в демо должно быть {expected} сообщений, а в хранилище {found}",
    "cli.self_test.build": "сборка создала тем: {topics}, векторов: {vectors}",
    "cli.self_test.nothing_found": "поиск ({language}) {query!r} ничего не нашёл",
    "cli.self_test.wrong_chat": "поиск ({language}) {query!r} первой поставил тему из {found!r}, а не из {expected!r}",
    # for `flashback search`'s lines (app/cli_memory.py run_search, being rewritten: not used yet)
    "cli.search.counts": "найдено {retrieved}, отсечено порогом {by_threshold}, разрывом {by_gap}, оставлено {kept}; "
                         "{duration}",
    "cli.search.rewritten": "искали также как: {query}  (переписано по --recent за {seconds:.1f} с)",
    "cli.search.as_typed": "искали как набрано: переписанный запрос не использован ({reason})",
    "cli.search.flash": "вызовов инструментов {tool_calls}; {fallback}; токенов {prompt:,}+{completion:,}",
    "cli.search.protocol": "протокол {protocol}",
    "cli.search.cost": "стоимость {cost}",
    "cli.waiting": "flashback: жду, пока закончится {holder}…",
    "build.stage.topics": "Поиск тем в переписке",
    "build.stage.fit": "Настройка эмбеддера под ваш словарь",
    "build.stage.embeddings": "Векторизация тем",
    "build.stage.consolidation": "Объединение похожих соседних тем",
    "build.stage.lexical": "Индексирование слов тем",
    "build.stage.people": "Векторизация людей",
    "build.stage.artifacts": "Векторизация файлов",
    "build.stage.index": "Обновление поискового индекса",
    "build.stage.index topic": "Обновление поискового индекса тем",
    "build.stage.index person": "Обновление поискового индекса людей",
    "build.stage.index artifact": "Обновление поискового индекса файлов",
    "build.stage.compact": "Удаление ненужных кэшированных векторов",
    "build.stage.other": "Работа",
    "cli.progress.stage": "{stage}: {counts}",
    "cli.progress.counts": "{done:,} / {total:,}",
    "cli.progress.done": "готово",
    # `flashback check` (app/cli_check.py): what it repaired, what it could not, what it found sound
    "cli.check.repaired": "исправлено: {what}",
    "cli.check.problem": "проблема: {what}",
    "cli.check.all_sound": "всё в порядке: {checked}",
    "cli.check.sound_now": "теперь хранилище в порядке",
    "cli.import.progress": "{source}: {share:6.1%}  {messages:plural:сообщение|сообщения|сообщений}",
    "cli.import.progress_of": "{place} · {source}: {share:6.1%}  {messages:plural:сообщение|сообщения|сообщений}",
    "cli.import.unchanged": "{name}: уже импортирован, нового нет",
    "cli.import.source": "{name} ({format}): новых {added:,} из {seen:plural:сообщения|сообщений|сообщений} в "
                         "{chats:plural:чате|чатах|чатах}, {attachments:plural:вложение|вложения|вложений}",
    "cli.import.skipped": "{path}: не экспорт чата, пропущен",
    "cli.import.cut": "{count:plural:сообщение обрезано|сообщения обрезаны|сообщений обрезано} до предельной длины",
    "cli.import.conflicting": "{count:plural:сообщение|сообщения|сообщений} с уже встречавшимся id, но другим "
                              "текстом (оставлен первый текст)",
    "cli.import.empty_path": "путь пуст: укажите файл экспорта, папку или .zip",
    "cli.stats.store": "Хранилище: {folder}",
    "cli.stats.messages": "сообщений",
    "cli.stats.chats": "чатов",
    "cli.stats.topics": "тем",
    "cli.stats.people": "людей",
    "cli.stats.artifacts": "файлов",
    "cli.stats.sources": "импортов",
    "cli.arg.not_whole": "{text!r} — не целое число",
    "cli.arg.too_small": "{value} — слишком мало: укажите {low} или больше",
    "cli.arg.not_number": "{text!r} — не число",
    "cli.arg.not_fraction": "{text} — не число от 0 до 1",
    "cli.arg.not_positive": "{text} должно быть числом больше 0",
    "cli.arg.no_time": "при 0 времени не остаётся: укажите долю больше 0, но не больше 1",
    "cli.export.wrote": "записано: {items:plural:элемент|элемента|элементов} (~{tokens:,} токенов) в {path}",
    "cli.llm.needs_url": "Для своего сервера нужен адрес: укажите --base-url, например http://127.0.0.1:8080/v1.",
    "cli.llm.needs_model": "Укажите модель для {server}: параметр --model.",
    "cli.chats.none": "Чатов пока нет: `flashback import PATH` добавит экспорт.",
    "cli.chats.total": "{count:plural:чат|чата|чатов}; искать в одном: --chat ID или --chat НАЗВАНИЕ",
    "cli.chats.messages": "{count:plural:сообщение|сообщения|сообщений}",
    "cli.chats.ambiguous": "Под --chat {value!r} подходят чаты ({count}: {listed}): укажите id или название полнее.",
    "cli.chats.no_id": "--chat {value!r}: чата с таким id или названием нет; их перечисляет `flashback chats`.",
    "cli.chats.no_name": "--chat {value!r}: чата с таким названием нет; их перечисляет `flashback chats`.",
    "cli.owner.unknown": "Ни один импорт пока не говорит, кто вы: `flashback owner --name ИМЯ` называет вас в чатах "
                         "WhatsApp и JSONL (экспорты Telegram и ChatGPT говорят это сами).",
    "cli.owner.you_are": "Вы — {name}: {messages:plural:сообщение|сообщения|сообщений} в "
                         "{chats:plural:чате|чатах|чатах}",
    "cli.owner.also": "{line}; а также {others}",
    "cli.owner.next_build": "профили людей обновятся при следующей сборке (`flashback build`)",
    "cli.keys.from.keyring": "связка ключей ОС",
    "cli.keys.from.session": "этот сеанс",
    "cli.keys.from.env": "окружение",
    "cli.keys.shown": "{provider}: {masked} (источник: {source})",
    "cli.keys.not_set": "{provider}: не задан: сохраните его командой `flashback key set --provider {provider}` или "
                        "задайте {env}",
    "cli.keys.not_set_no_keyring": "{provider}: не задан: в этой системе нет связки ключей, поэтому задайте {env} в "
                                   "окружении",
    "cli.keys.no_keyring_nothing": "{provider}: в этой системе нет связки ключей; ничего не хранится",
    "cli.keys.removed": "{provider}: удалён из связки ключей",
    "cli.keys.nothing_stored": "{provider}: в связке ключей ничего не хранится",
    "cli.keys.still_in_env": "{line}; ключ всё ещё задан в окружении ({env})",
    "cli.keys.env_or": "{first} или {second}",
    "cli.keys.prompt": "API-ключ для {provider} (ввод скрыт): ",
    "cli.keys.no_keyring_set": "flashback: в этой системе нет связки ключей, где хранить ключ; задайте {env} в "
                               "окружении.",
    "cli.keys.none_entered": "flashback: ключ не введён (наберите его в ответ на запрос или передайте через канал: "
                             "echo KEY | flashback key set --provider {provider}); ничего не изменилось.",
    "cli.keys.saved": "{provider}: {masked} сохранён в связке ключей ОС",
    "cli.cross_encoder.not_asked": "кросс-энкодер {label}: не понадобился",
    "cli.cross_encoder.scored": "кросс-энкодер {label}: оценено {scored} за "
                                "{batches:plural:пакет|пакета|пакетов}; {fallback}; {duration}",
    "cli.fallback.none": "без отката",
    "cli.fallback.reason": "откат: {reason}",
    "cli.fallback.because": "откат: {reason} ({cause})",
    "cli.fallback.kept": "откат: {kept}",
    "cli.chained": "цепочка: {note}",
    "cli.chained_fallback": "цепочка: {note}; откат: {reason}",
    # issue 31: the MCP server's own sentences (app/mcp_words.py say(), app/mcp_memory.py)
    "mcp.no_messages": "Память пуста: сначала импортируйте экспорт чата и постройте её (`flashback import PATH`, "
                       "затем `flashback build`).",
    "mcp.not_built": "Память ещё не построена: выполните `flashback build` (или откройте окно) и спросите снова.",
    "mcp.other_embedder": "Память построена другим эмбеддером, чем тот, которым шёл бы поиск: выполните `flashback "
                          "build` с параметрами эмбеддера, которыми она строилась.",
    "mcp.index_lost": "Папка поискового индекса пропала: выполните `flashback build`, чтобы восстановить её (ничего "
                      "не пересчитывается заново), и спросите снова.",
    "mcp.new_messages": "Сообщения, импортированные после последней сборки, пока не ищутся; `flashback build` добавит "
                        "их.",
    "mcp.missing_key": "Нет API-ключа для {provider}: сохраните его командой `flashback key set --provider "
                       "{provider}` или задайте FLASHBACK_API_KEY в окружении этого сервера (в настройках клиента).",
    "mcp.no_model": "Сначала укажите модель для {provider} в окне Flashback: панель настроек поиска, "
                    "Flash (LLM) → Модель.",
    "mcp.no_rerank_url": "Сначала укажите адрес сервера ранжирования в окне Flashback: панель настроек "
                         "поиска, Кросс-энкодер.",
    "mcp.bad_day": "{name} должен быть днём вида 2024-05-31, а не {value!r}.",
    "mcp.since_after_until": "since ({since}) позже, чем until ({until}): ничего не найдётся.",
    "mcp.chat_none": "Нет чата с id или названием {value!r}; их перечисляет list_chats.",
    "mcp.chat_many": "Под {value!r} подходят чаты ({count}: {listed}): укажите id или название полнее.",
    "mcp.bad_argument": "Аргумент {name} не подходит: {problem}.",
    "mcp.missing_argument": "Нужен аргумент {name}.",
    "mcp.unknown_argument": "У {tool} нет аргумента {name!r}; он принимает {known}.",
    "mcp.unexpected": "Flashback не смог это сделать из-за непредвиденной ошибки; подробности в {log}.",
    "mcp.empty_store_chats": "Чатов пока нет: `flashback import PATH` добавит экспорт.",
    "mcp.topic_not_found": "Темы {id} нет; id тем даёт search_memory.",
    "mcp.offset_past_end": "offset {offset} дальше, чем {total} сообщений темы.",
    # issue 35: the MCP server's bounds (app/mcp_server.py, app/mcp_memory.py, app/mcp_http.py)
    "mcp.unknown_argument_none": "Инструмент {tool} не принимает аргументов, так что {name!r} лишний.",
    "mcp.argument_range": "Аргумент {name} должен быть целым числом от {minimum} до {maximum}.",
    "mcp.argument_too_long": "Аргумент {name} должен быть не длиннее {limit:plural:символа|символов|символов}.",
    "mcp.query_cut": "Запрос длиннее {words:plural:слова|слов|слов} или {chars:plural:символа|символов|символов} "
                     "и обрезан: искалось и записано только его начало.",
    "mcp.question_cut": "Вопрос длиннее {words:plural:слова|слов|слов} или {chars:plural:символа|символов|символов} "
                        "и обрезан: ответ дан только на его начало, и записано только оно.",
    "mcp.body_too_large": "Запрос больше {limit} МБ; отправьте запрос покороче.",
    "mcp.http_origin": "Этот сервер отвечает только на запросы со своего собственного адреса (Origin).",
    "mcp.http_host": "Этот сервер отвечает только по адресу 127.0.0.1.",
    "mcp.http_token": "Пришлите токен, который напечатал flashback mcp: Authorization: Bearer TOKEN.",
    "mcp.session_gone": "Эта сессия MCP закончилась; начните новую.",
    "mcp.building": "Сейчас идёт {who}: память строится; спросите снова, когда сборка завершится.",
    "mcp.body_too_slow": "Запрос не пришёл целиком за {seconds:plural:секунду|секунды|секунд}; отправьте его снова.",
    # engine/store: opening a store
    "store.cannot_create_folder": "Не удалось создать папку данных {folder}: {reason}",
    "store.not_a_store": "База данных {path} повреждена или не является хранилищем Flashback: {detail}",
    "store.newer_schema": "Данные в {folder} записаны более новой версией Flashback (схема {version}); обновите "
                          "Flashback, чтобы открыть их.",
    # engine/memory: a search's stand-in index, `flashback check`'s lines, damaged vectors, calibration
    "memory.index.topic": "индекс тем",
    "memory.index.person": "индекс людей",
    "memory.index.artifact": "индекс файлов",
    "memory.stand_in.rebuilding": "{index} перестраивается — {writer}; поиск шёл по индексу в прежнем виде и точным "
                                  "оценкам того, чего в нём нет",
    "memory.stand_in.writing": "{index} устарел ({reason}), а в хранилище пишет {writer}; поиск шёл по индексу в "
                               "прежнем виде и точным оценкам того, чего в нём нет",
    "memory.stand_in.stale": "{index} устарел ({reason}): его переделает `flashback build` (или «Построить "
                             "память»); поиск шёл по индексу в прежнем виде и точным оценкам того, чего в нём нет",
    "memory.vectors_damaged": "Часть сохранённых векторов повреждена: выполните `flashback check` (или постройте "
                              "память ещё раз), чтобы вычислить их заново.",
    "memory.repair.vectors": "повреждённые векторы вычислены заново ({listed})",
    "memory.repair.topic": "{count:plural:тема|темы|тем}",
    "memory.repair.person": "{count:plural:человек|человека|человек}",
    "memory.repair.artifact": "{count:plural:файл|файла|файлов}",
    "memory.repair.other": "{count:,} {kind}",
    "memory.list": "{first}, {then}",
    "memory.calibration.missing": "отсутствует",
    "memory.calibration.unreadable": "не читается",
    "memory.calibration.invalid": "неверна: опорные значения {unrelated} и {related}",
    "memory.check.reindexed": "перестроены повреждённые внутренние индексы базы хранилища",
    "memory.check.store_file": "файл хранилища (быстрая проверка целостности)",
    "memory.check.index_folder_remade": "папка индексов создана заново (заново встроено текстов: {count:,})",
    "memory.check.store_damaged": "файл хранилища повреждён ({count:plural:проблема|проблемы|проблем}: {shown}); "
                                  "Flashback не может его исправить: импортируйте свои экспорты в новую папку данных "
                                  "(`flashback --data-dir НОВАЯ import …`); эта папка остаётся как есть",
    "memory.check.vectors": "сохранённые векторы",
    "memory.check.index.topic": "индекс тем",
    "memory.check.index.person": "индекс людей",
    "memory.check.index.artifact": "индекс файлов",
    "memory.check.index_rebuilt": "перестроен {index} ({reason})",
    "memory.check.calibration": "калибровка",
    "memory.check.calibration_removed": "непригодная калибровка удалена ({problem}); пока в хранилище не наберётся "
                                        "достаточно тем для измерения, оценки используют значения по умолчанию",
    "memory.check.calibration_measured": "калибровка измерена заново (была: {problem})",
    # engine/importers: what is wrong with an export (import.problem.*) and where (import.where.*)
    "import.where.line": "строка {line}",
    "import.where.chat": "чат «{chat}»",
    "import.where.chat_start": "чат «{chat}», у первого сообщения",
    "import.where.chat_message": "чат «{chat}», сообщение {message}",
    "import.where.conversation": "разговор {number}",
    "import.where.conversation_titled": "разговор {number} («{title}»)",
    "import.where.conversation_message": "разговор {number} («{title}»), сообщение {message}",
    "import.problem.line_not_utf8": "строка — не корректный текст UTF-8",
    "import.problem.line_not_json": "строка — не корректный JSON",
    "import.problem.line_not_object": "каждая строка должна быть объектом JSON",
    "import.problem.fields_missing": "у сообщения нет полей: {fields}",
    "import.problem.not_iso_date": "дата '{date}' записана не в формате ISO 8601",
    "import.problem.bad_role": "role должен быть одним из {roles}, а не '{role}'",
    "import.problem.attachments_not_list": "attachments должен быть списком объектов с kind и name",
    "import.problem.attachment_not_object": "каждое вложение должно быть объектом с kind и name",
    "import.problem.telegram_no_chats": "в этом экспорте Telegram нет чатов с сообщениями",
    "import.problem.discord_no_messages": "в файле нет списка сообщений DiscordChatExporter (экспортируйте канал "
                                          "в формате JSON)",
    "import.problem.messenger_no_messages": "это не переписка Messenger или Instagram (в файле нет списка сообщений)",
    "import.problem.slack_whole_export": "это лишь один список из экспорта Slack: импортируйте весь zip-архив "
                                         "или папку",
    "import.problem.slack_day_not_list": "файл дня из экспорта Slack — не список сообщений",
    "import.problem.message_not_object": "сообщение — не объект JSON",
    "import.problem.telegram_cut_off": "файл обрывается раньше времени (похоже, он обрезан; экспортируйте его ещё "
                                       "раз)",
    "import.problem.json_damaged_here": "файл повреждён: здесь не корректный JSON",
    "import.problem.not_utf8": "файл — не корректный текст UTF-8",
    "import.problem.not_a_date": "дата сообщения — не дата ({value})",
    "import.problem.unreadable": "файл не удалось прочитать ({reason})",
    "import.problem.chatgpt_cut_off": "файл обрывается раньше времени; похоже, он обрезан (незавершённая загрузка или "
                                      "копирование?)",
    "import.problem.json_damaged": "файл повреждён: это не корректный JSON ({detail})",
    "import.problem.damaged_unreadable": "файл повреждён, и его не удалось прочитать",
    "import.problem.damaged_not_utf8": "файл повреждён: в нём есть байты, которые не являются текстом UTF-8",
    "import.problem.empty_file": "файл пуст",
    "import.problem.not_chatgpt": "это не conversations.json из ChatGPT: он должен начинаться со списка разговоров",
    "import.problem.not_a_conversation": "элемент списка — не разговор",
    "import.problem.messages_unexpected": "сообщения разговора хранятся не так, как ожидалось",
    "import.problem.entry_unexpected": "запись сообщения устроена не так, как ожидалось",
    "import.problem.cycle": "ссылки между сообщениями разговора замыкаются в круг, поэтому их порядок не установить",
    "import.problem.unexpected_structure": "у файла структура, которой Flashback не ожидал ({error})",
    "import.problem.whatsapp_no_start": "файл не начинается с сообщения WhatsApp (дата, время и отправитель)",
    "import.problem.whatsapp_nothing": "сообщений WhatsApp не найдено",
    # issue 34: Signal (signal-export), iMessage (imessage-exporter) и текстовые выгрузки LINE
    "import.problem.signal_no_start": "файл не начинается с сообщения signal-export "
                                      "(«[дата время] Отправитель: текст»)",
    "import.problem.signal_nothing": "сообщений Signal не найдено",
    "import.problem.imessage_no_start": "файл не начинается с сообщения imessage-exporter (строка с датой и "
                                        "временем, затем отправитель)",
    "import.where.message": "сообщение {number}",
    "import.problem.imessage_html_no_time": "у сообщения в HTML нет читаемого времени (imessage-exporter пишет "
                                            "«May 17, 2022  5:29:42 PM»)",
    "import.problem.imessage_nothing": "сообщений iMessage не найдено",
    "import.problem.line_chat_no_start": "эта строка — ни сообщение LINE (время, табуляция, отправитель, "
                                         "табуляция, текст), ни дата",
    "import.problem.line_chat_no_date": "сообщение LINE стоит раньше первой строки с датой",
    "import.problem.line_chat_nothing": "сообщений LINE не найдено",
    "import.problem.not_a_real_date": "«{stamp}» — не настоящие дата и время (прочитано как {order})",
    "import.date_order.ymd": "год/месяц/день",
    "import.date_order.dmy": "день/месяц/год",
    "import.date_order.mdy": "месяц/день/год",
    "import.problem.line_unreadable": "эта строка — не читаемый текст (не в кодировке UTF-8)",
    "import.problem.no_such_path": "такого файла или папки нет",
    "import.problem.folder_without_export": "в папке нет файла экспорта .json, .jsonl или .txt",
    "import.problem.zip_damaged": "zip-архив повреждён или зашифрован ({error})",
    "import.problem.zip_without_export": "в zip-архиве нет файла экспорта .json, .jsonl или .txt",
    "import.problem.zip_bomb": "он распаковался бы из {packed} в {size} (в {ratio:,} раз): экспорт чата никогда так "
                               "не сжимается, поэтому это похоже на zip-бомбу; распакуйте его сами, если доверяете ему",
    "import.problem.zip_no_room": "он распаковывается в {size}, а во временной папке {folder} свободно {free}; "
                                  "освободите место или сначала распакуйте его в другом месте",
    "import.size.kb": "{value:,.0f} КБ",
    "import.size.mb": "{value:,.1f} МБ",
    "import.size.gb": "{value:,.1f} ГБ",
    "import.problem.unknown_format": "неизвестный формат '{name}'; используйте один из: auto, {formats}",
    "import.problem.not_an_export": ("это не экспорт чата, который Flashback умеет читать (JSON из Telegram Desktop, "
                                     "conversations.json из ChatGPT, .txt из WhatsApp или LINE, JSON из "
                                     "DiscordChatExporter, JSON из Messenger или Instagram, экспорт рабочего "
                                     "пространства Slack, signal-export, imessage-exporter или JSONL Flashback)"),
    "import.problem.signal_desktop_export": ("это собственный экспорт Signal Desktop (main.jsonl), его Flashback "
                                             "пока не читает; signal-export (github.com/carderne/signal-export) "
                                             "выгружает те же чаты в виде, который Flashback читает"),
    "import.problem.reader_stopped": "процесс чтения неожиданно остановился (код выхода {exit_code})",
    # issue 34: importers that never lose or poison a store
    "import.problem.date_out_of_range": "дата сообщения ({date}) с учётом часового пояса выходит за 1900–2200 годы: "
                                        "файл в этом месте повреждён, поэтому из него ничего не импортировано",
    "import.problem.not_a_file": "это устройство, канал или сокет, а не файл экспорта: укажите сам файл экспорта, его "
                                 "папку или его .zip",
    "import.problem.file_empty": "файл пуст (0 байт): экспортируйте чат ещё раз",
    "import.problem.zip_unreadable": "zip-архив повреждён: его оглавление не читается (загрузка или копирование "
                                     "прервались?); скачайте или скопируйте его ещё раз",
    "import.problem.zip_too_big": "его экспорты распаковались бы всего в {size}, больше {limit}, которые Flashback "
                                  "распаковывает из одного zip; распакуйте его сами и импортируйте папку",
    "import.skipped.duplicates": "{count:plural:сообщение уже хранится|сообщения уже хранятся|сообщений уже хранятся}",
    "import.skipped.system": "{count:plural:служебная строка не попадает|служебные строки не попадают|служебных строк "
                             "не попадают} в темы (вступления, звонки, переименования)",
    "import.skipped.not_exports": "{count:plural:файл пропущен|файла пропущены|файлов пропущено}, это не "
                                  "экспорты чатов: {names}",
    "import.skipped.hidden": ("пропущены скрытые записи ChatGPT (системные подсказки, вызовы инструментов, "
                              "пользовательские инструкции, которых он не показывает): "
                              "{count:plural:запись|записи|записей}"),
    "import.skipped.unsupported": ("пропущены записи, которые приложение не смогло выгрузить («unsupported»): "
                                   "{count:plural:запись|записи|записей}"),
    "import.skipped.aside": ("файлы без чатов (README, лицензии, служебные списки экспорта) оставлены в стороне: "
                             "{count:plural:файл|файла|файлов}"),
    "import.progress.file_of": "файл {number} из {count}",
    "check.dates_repaired": "{count:plural:сообщению|сообщениям|сообщениям} с датой вне 1900–2200 годов дано время "
                            "предыдущего сообщения в его чате ({chats})",
    "check.dates": "даты сообщений",
    # issue 23: read-only, fallbacks, first steps
    "store.read_only_file": "Файл хранилища {file} доступен только для чтения: искать можно, но для импорта и "
                            "построения нужно право записи в него (проверьте права доступа).",
    "store.read_only_old": "Хранилище в {folder} создано более старой версией Flashback, и его нужно обновить, прежде "
                           "чем читать, а для этого нужна папка, доступная для записи (проверьте права доступа или "
                           "диск).",
    "store.status.read_only": "Только чтение: в папку данных {folder} нельзя писать, поэтому поиски не записываются "
                              "в историю, а импорт и построение недоступны.",
    "store.status.read_only_file": "Только чтение: в файл хранилища {file} нельзя писать, поэтому поиски не "
                                   "записываются в историю, а импорт и построение недоступны.",
    "search.not_recorded_read_only": "поиски не записываются в историю: папка данных {folder} доступна только для "
                                     "чтения",
    "search.not_recorded_read_only_file": "поиски не записываются в историю: файл хранилища {file} доступен только "
                                          "для чтения",
    "memory.no_messages": "В хранилище ещё нет сообщений: сначала импортируйте экспорт чата "
                          "(`flashback import ПУТЬ`).",
    "rerank.flash.fallback_threshold": "откат ({reason}): оценка {score:.2f} ≥ порога {threshold:.2f}",
    "rerank.flash.fallback_kept.threshold": "оставлено то, что оставляет фильтр по порогу с вашими настройками "
                                            "(порог {threshold:.2f}, разрыв {gap:.2f}, не больше {top_k}): "
                                            "{count:plural:тема|темы|тем}",
    "rerank.flash.fallback_kept.requested": "оставлены первые темы, которые модель просила прочитать: "
                                            "{count:plural:тема|темы|тем}",
    "rerank.flash.fallback_kept.vector": "оставлены лучшие темы первого этапа по векторной оценке: "
                                         "{count:plural:тема|темы|тем}",
    "rerank.flash.fallback_kept.none_passed": "порог {threshold:.2f} не прошла ни одна тема, поэтому {kept}",
    # settings schema help (engine/api/settings.py): --help and the window's tooltips
    "settings.help.mode": "как отбираются результаты: vector (все кандидаты), threshold (отсечение по оценке), "
                          "cross-encoder (их оценивает сервер переранжирования) или flash (выбирает LLM)",
    "settings.help.candidates": "кандидатов на первом этапе",
    "settings.help.safety_threshold": "минимальная калиброванная оценка первого этапа, от 0 до 1",
    "settings.help.threshold": "порог сходства, от 0 до 1",
    "settings.help.gap": "отсечение по разрыву оценок, от 0 до 1",
    "settings.help.top_k": "сколько тем оставить в итоге",
    "settings.help.hybrid": "объединять BM25 с векторным ранжированием",
    "settings.help.preset": "сервер LLM для Flash (openrouter, openai, ollama, llamacpp, lmstudio или custom)",
    "settings.help.base_url": "адрес сервера LLM; пусто — адрес из пресета",
    "settings.help.model": "модель LLM, к которой обращается Flash",
    "settings.help.timeout": "сколько секунд всего даётся Flash на переранжирование (по умолчанию 60; "
                             "180 для локального сервера)",
    "settings.help.max_tool_calls": "сколько раз Flash может вызвать get_topics_content",
    "settings.help.max_topics": "сколько тем может оставить Flash",
    "settings.help.max_people": "сколько людей может оставить Flash",
    "settings.help.max_artifacts": "сколько файлов может оставить Flash",
    "settings.help.reasoning_effort": "насколько долго модель Flash рассуждает",
    "settings.help.rewrite_query": "при недавних сообщениях сначала переписать расплывчатый вопрос так, "
                                   "чтобы он был понятен сам по себе",
    "settings.help.budget_tokens": "объём контекста при экспорте, в токенах",
    "settings.help.evidence_budget": "сколько символов оставленных тем (целиком) учитывает --objective recall@budget",
    "settings.help.turn1_share": "какую долю --timeout может занять первый ход (чтение всех кандидатов)",
    "settings.help.rerank_preset": "сервер переранжирования (llamacpp, tei, infinity, vllm, jina, cohere, voyage "
                                   "или custom)",
    "settings.help.rerank_url": "адрес сервера переранжирования; пусто — адрес из пресета",
    "settings.help.rerank_model": "модель переранжирования; пусто — модель из пресета",
    "settings.help.ce_threshold": "оценка кросс-энкодера, с которой тема остаётся, от 0 до 1",
    "settings.help.ce_top_k": "сколько тем оставляет кросс-энкодер",
    "settings.help.ce_top_n": "сколько тем первого этапа отправляется кросс-энкодеру",
    "settings.help.ce_passage_tokens": "текст каждой темы обрезается примерно до стольких токенов",
    "settings.help.ce_batch": "сколько фрагментов в одном запросе",
    "settings.help.ce_skip_small": "не обращаться к кросс-энкодеру, если первый этап нашёл не больше {limit} тем "
                                   "(с --ce-skip-flat — только если их оценки ещё и заметно различаются)",
    "settings.help.ce_skip_flat": "не обращаться к кросс-энкодеру, если лучшие оценки первого этапа заметно "
                                  "различаются; обращаться, когда они почти равны",
    "settings.help.ce_timeout": "сколько секунд всего даётся на запросы к кросс-энкодеру",
    "settings.help.chain_cross_encoder": "кросс-энкодер сужает круг тем, которые читает Flash",
    "settings.help.ce_chain_keep": "сколько тем читает Flash после кросс-энкодера (--chain-cross-encoder)",
    "settings.help.topics_llm": "при построении памяти LLM ещё и делит разговоры на темы",
    "settings.help.embedder": "модель, которая превращает темы в векторы: builtin (по словам) или local "
                              "(multilingual-e5-small); после смены все темы векторизуются заново",
    "settings.help.language": "язык окна: system, en или ru (со следующего запуска)",
    # ui/people (issue 33): вид «Люди» — people.* его список и карточки, facts.view.* факты на карточке
    "mcp.profile_empty": "О владельце пока ничего не известно: факты читаются из чатов при построении памяти, "
                         "если во Flashback задана языковая модель.",
    "mcp.facts_none": "Подходящих фактов нет: факты появляются только после построения памяти с языковой моделью; "
                      "что сказано в чатах, находит search_memory.",
    "people.not_found": "Человека с именем «{name}» здесь нет: кто есть, видно в списке чатов и в разделе «Люди».",
    "people.view.title": "Люди",
    "people.view.empty": "Людей пока нет: импортируйте экспорт чата, и они появятся здесь.",
    "people.view.loading": "Читаю…",
    "people.view.choose": "Выберите человека слева, чтобы увидеть, что о нём известно.",
    "people.list.you": "{name} (вы)",
    "people.list.tooltip": "{messages:plural:сообщение|сообщения|сообщений}, последнее {last}",
    "people.card.you": "Вы",
    "people.card.aliases": "Также: {names}",
    "people.card.circle.family": "Семья",
    "people.card.circle.friends": "Друзья",
    "people.card.circle.work": "Работа",
    "people.card.circle.other": "Другие",
    "people.card.activity": "{messages:plural:сообщение|сообщения|сообщений} с {first} по {last}",
    "people.card.chats": "Чаты: {chats}",
    "people.card.per_month": "Сообщений в месяц",
    "people.card.chart_tooltip": "{month}: {messages:plural:сообщение|сообщения|сообщений}",
    "people.card.topics": "Темы ({count})",
    "people.card.topics_more": "Последние {shown} из {count}; дважды щёлкните тему, чтобы её прочитать.",
    "people.card.topics_hint": "Дважды щёлкните тему, чтобы её прочитать.",
    "people.card.no_topics": "Пока нет: постройте память, чтобы разбить сообщения на темы.",
    "people.card.facts": "Что известно",
    "people.card.no_facts": "О человеке «{name}» пока ничего не известно, кроме сообщений. Если в настройках "
                            "задана языковая модель, при построении памяти она один раз прочтёт каждую тему и "
                            "добавит сюда то, что о нём сказано, — каждый факт вместе с сообщениями, где это "
                            "сказано. Факты можно будет исправить, закрепить, отметить как неверные или удалить.",
    "people.card.no_facts_owner": "О вас пока ничего не известно, кроме ваших сообщений. Если в настройках задана "
                                  "языковая модель, при построении памяти она один раз прочтёт каждую тему и "
                                  "добавит сюда то, что вы говорите о себе, — каждый факт вместе с сообщениями, где "
                                  "это сказано. Факты можно будет исправить, закрепить, отметить как неверные или "
                                  "удалить.",
    "people.card.edit": "Изменить",
    "people.card.edit_tooltip": "Изменить другие имена, круг и описание",
    "people.card.edit_aliases": "Другие имена (через запятую)",
    "people.card.edit_circle": "Круг",
    "people.card.circle.unknown": "Неизвестно",
    "people.card.edit_bio": "Описание",
    "people.card.edit_bio_hint": "Ваш текст сохранится; оставьте поле пустым, и описание составится из того, что о "
                                 "человеке известно.",
    "people.card.save": "Сохранить",
    "people.card.cancel": "Отмена",
    "people.card.saved": "Сохранено: ваши слова важнее слов модели.",
    "people.card.save_failed": "Не удалось сохранить: {error}",
    "people.same.title": "Тот же человек?",
    "people.same.text": "«{other}» ({source}: {chats}; {messages:plural:сообщение|сообщения|сообщений}, "
                        "{facts:plural:факт|факта|фактов}) — возможно, тоже {kept}.",
    "people.same.text_heard": "«{other}», о ком известно только с чужих слов ({facts:plural:факт|факта|фактов}), — "
                              "возможно, {kept}.",
    "people.same.merge": "Объединить",
    "people.same.merge_tooltip": "Сообщения, другие имена и факты перейдут к {kept}",
    "people.same.not_same": "Это разные люди",
    "people.same.merged": "Объединено: сообщения и факты «{other}» теперь у {kept}.",
    "people.same.refused": "Понятно: больше не предложим.",
    "people.same.failed": "Не удалось объединить: {error}",
    "people.merge.refused": "Этих двоих объединить нельзя: человека с самим собой — никогда, а вас в одного человека "
                            "объединяет `flashback owner --name`.",
    "build.stage.facts": "Чтение фактов из тем",
    "facts.window.offer_title": "Прочитать факты из тем?",
    "facts.window.offer": "Ещё не прочитано тем: {topics}. Это около {tokens_in:,} токенов на входе и {tokens_out:,} "
                          "на выходе у модели {model}, {cost}. Если остановить, прочитанное сохранится.",
    "facts.window.cost_free": "бесплатно на вашем сервере",
    "facts.window.cost": "примерно ${cost}",
    "facts.window.read": "Прочитать факты",
    "facts.window.skip": "Не сейчас",
    "facts.window.skipped": "Факты не прочитаны: {topics:plural:тема ждёт|темы ждут|тем ждут} следующего построения.",
    "facts.window.running": "Читаю факты…",
    "facts.window.done": "Факты прочитаны",
    "facts.window.stopped.cancelled": "Остановлено: прочитанное сохранено, остальное прочитается при следующем "
                                      "построении.",
    "facts.window.stopped.budget": "Остановлено на бюджете токенов: остальное прочитается при следующем построении.",
    "facts.window.stopped.llm_error": "Остановлено: чат-модель раз за разом ошибалась; эти темы прочитаются при "
                                      "следующем построении.",
    "facts.window.stopped.no_model": "Чат-модели нет: ничего не прочитано.",
    "facts.window.failed": "Не удалось прочитать факты: {error}",
    "facts.view.sources": "Источники ({count})",
    "facts.view.hide_sources": "Скрыть источники",
    "facts.view.no_sources": "добавлено вами",
    "facts.view.source_gone": "Этих сообщений в хранилище уже нет.",
    "facts.view.open_topic": "Открыть переписку",
    "facts.view.edit": "Изменить",
    "facts.view.pin": "Закрепить",
    "facts.view.unpin": "Открепить",
    "facts.view.wrong": "Неверно",
    "facts.view.delete": "Удалить",
    "facts.view.pinned": "закреплено",
    "facts.view.yours": "ваша формулировка",
    "facts.view.importance": "важность {value}/5",
    "facts.view.until": "действует до {date}",
    "facts.view.edit_title": "Изменить факт",
    "facts.view.edit_label": "Как на самом деле:",
    "facts.view.done.edit": "Сохранено: ваша формулировка важнее формулировки модели.",
    "facts.view.done.pin": "Закреплено: факт всегда будет в профиле, который получают Flash и «Спросить».",
    "facts.view.done.unpin": "Откреплено.",
    "facts.view.done.wrong": "Отмечено как неверное: факт убран из профиля и больше не будет прочитан из этих "
                             "сообщений.",
    "facts.view.done.delete": "Удалено: факт больше не будет прочитан из этих сообщений.",
    "facts.view.failed": "Не удалось изменить факт: {error}",
    # engine/facts (issue 33): the Archivist's facts
    "facts.missing": "Факта с номером {fact_id} нет: `flashback facts` покажет все факты с их номерами.",
    "facts.cli.no_person": "Человека по имени {name!r} в этом хранилище нет: кто есть, видно в `flashback chats` и в "
                           "разделе «Люди».",
    "facts.cli.you": "вы",
    "facts.cli.pinned": " · закреплён",
    "facts.cli.line": "#{id} {who}: {text} ({category}, {type}, важность {importance}; сообщения {messages}){pinned}",
    "facts.cli.forget_needs_id": "Какой факт? `flashback facts forget НОМЕР` — с номером, который показывает "
                                 "`flashback facts`.",
    "facts.cli.forgotten": "Факт №{id} ({text}) и его история удалены.",
    "facts.cli.none": "Пока ничего не известно: {unread:plural:тема ждёт|темы ждут|тем ждут}, когда их прочтёт "
                      "чат-модель (`flashback build --facts`).",
    "facts.cli.none_unbuilt": "Пока ничего не известно, и память ещё не построена: `flashback build --facts` "
                              "разобьёт чаты на темы, а затем прочтёт их чат-моделью.",
    "facts.cli.no_model": "Нет чат-модели, которой читать факты, поэтому ни один не прочитан и не придуман: с ней "
                          "(--endpoint, --model и ключ) из {topics:plural:темы|тем|тем} было бы извлечено, что вы и "
                          "ваши собеседники говорили о себе: работа, семья, места, планы — каждый факт со своими "
                          "сообщениями.",
    "facts.cli.cost_unknown": "неизвестная цена",
    "facts.cli.estimate": "Чтение фактов из {topics:plural:темы|тем|тем}: около {tokens_in:,} токенов на входе и "
                          "{tokens_out:,} на выходе, {cost}.",
    "facts.cli.summary": "Факты: прочитано тем — {topics}; добавлено {added}, обновлено {updated}, удалено {removed}, "
                         "отклонено {refused} (без опоры в сообщениях или секреты); новых людей — {people}.",
    "facts.cli.stopped.cancelled": "Остановлено: прочитанное сохранено, остальное будет прочитано при следующем "
                                   "`flashback build --facts`.",
    "facts.cli.stopped.budget": "Остановлено на бюджете токенов (--facts-budget): остальное будет прочитано при "
                                "следующем `flashback build --facts`.",
    "facts.cli.stopped.llm_error": "Остановлено: чат-модель раз за разом отвечала ошибкой; темы, на которых это "
                                   "случилось, будут прочитаны при следующем `flashback build --facts`.",
    "facts.cli.stopped.no_model": "Чат-модели нет: ничего не прочитано.",
}
