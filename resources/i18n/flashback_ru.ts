<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ru_RU">
<context>
    <name>AboutDialog</name>
    <message>
        <location filename="../../ui/shell/about.py" line="71"/>
        <source>Built-in (character n-grams, offline)</source>
        <translation>Встроенный (символьные n-граммы, офлайн)</translation>
    </message>
    <message>
        <location filename="../../ui/shell/about.py" line="89"/>
        <source>About Flashback</source>
        <translation>О программе Flashback</translation>
    </message>
    <message>
        <location filename="../../ui/shell/about.py" line="94"/>
        <source>&lt;span style=&apos;font-size:16pt; font-weight:600&apos;&gt;Flashback&lt;/span&gt;&lt;br&gt;Version {0}</source>
        <translation>&lt;span style=&apos;font-size:16pt; font-weight:600&apos;&gt;Flashback&lt;/span&gt;&lt;br&gt;Версия {0}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/about.py" line="97"/>
        <source>Your chat history as searchable memory.</source>
        <translation>История ваших чатов как память, в которой можно искать.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/about.py" line="108"/>
        <source>Open the data folder</source>
        <translation>Открыть папку с данными</translation>
    </message>
    <message>
        <location filename="../../ui/shell/about.py" line="116"/>
        <source>Data folder:</source>
        <translation>Папка с данными:</translation>
    </message>
    <message>
        <location filename="../../ui/shell/about.py" line="117"/>
        <source>Embedder:</source>
        <translation>Эмбеддер:</translation>
    </message>
    <message>
        <location filename="../../ui/shell/about.py" line="118"/>
        <source>Chat model (Flash):</source>
        <translation>Чат-модель (Flash):</translation>
    </message>
    <message>
        <location filename="../../ui/shell/about.py" line="119"/>
        <source>Licence:</source>
        <translation>Лицензия:</translation>
    </message>
    <message>
        <location filename="../../ui/shell/about.py" line="121"/>
        <source>Your chats, their memory and your searches stay in the data folder on this computer. Text leaves it only when you ask: Flash and “Also make topics with this model” send it to the chat model above, an API embedder to its server. API keys stay in the system keyring.</source>
        <translation>Ваши чаты, их память и ваши поиски остаются в папке с данными на этом компьютере. Текст покидает её, только когда вы просите: Flash и «Также делать темы этой моделью» отправляют его чат-модели выше, эмбеддер через API — своему серверу. API-ключи хранятся в системной связке ключей.</translation>
    </message>
</context>
<context>
    <name>AskMode</name>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="80"/>
        <source>Ask</source>
        <translation>Вопрос</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="104"/>
        <source>Before the first question to {0}</source>
        <translation>Перед первым вопросом к {0}</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="105"/>
        <source>To answer, Ask sends parts of your chats to {0} ({1}).</source>
        <translation>Чтобы ответить, режим «Спросить» отправляет части ваших чатов на {0} ({1}).</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="108"/>
        <source>• your question and the names of your chats, to plan the searches;</source>
        <translation>• ваш вопрос и названия ваших чатов — чтобы спланировать поиск;</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="109"/>
        <source>• the messages found for it, as numbered excerpts with their chat, authors and times: up to about {0:,} tokens per question;</source>
        <translation>• найденные для него сообщения — пронумерованными выдержками с чатом, авторами и временем: примерно до {0:,} токенов на вопрос;</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="112"/>
        <source>• the found topics&apos; messages, which Flash reads to choose among them;</source>
        <translation>• сообщения найденных тем, которые Flash читает, чтобы выбрать из них;</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="113"/>
        <source>• nothing else: the store, the index and every other message stay on this computer.</source>
        <translation>• больше ничего: хранилище, индекс и все остальные сообщения остаются на этом компьютере.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="115"/>
        <source>This is said once for {0}.</source>
        <translation>Это предупреждение показывается для {0} один раз.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="116"/>
        <source>Send and ask</source>
        <translation>Отправить и спросить</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="125"/>
        <source>Not asked: nothing was sent to {0}.</source>
        <translation>Вопрос не задан: на {0} ничего не отправлено.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_mode.py" line="136"/>
        <source>Asking…</source>
        <translation>Ищу ответ…</translation>
    </message>
</context>
<context>
    <name>AskView</name>
    <message>
        <location filename="../../ui/search/answer_document.py" line="68"/>
        <source>Open source {0}: the cited messages, highlighted</source>
        <translation>Открыть источник {0}: цитируемые сообщения будут выделены</translation>
    </message>
    <message>
        <location filename="../../ui/search/answer_document.py" line="147"/>
        <source>The sentences that answer, quoted from your chats:</source>
        <translation>Фразы из ваших чатов, которые отвечают на вопрос:</translation>
    </message>
    <message>
        <location filename="../../ui/search/answer_document.py" line="152"/>
        <source>Nothing in your chats matched the question.</source>
        <translation>В ваших чатах не нашлось ничего по этому вопросу.</translation>
    </message>
    <message>
        <location filename="../../ui/search/answer_document.py" line="155"/>
        <source>Sources</source>
        <translation>Источники</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_runner.py" line="71"/>
        <source>Ask</source>
        <translation>Вопрос</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_runner.py" line="75"/>
        <source>Cancelled; nothing more was sent after the cancel.</source>
        <translation>Отменено; после отмены ничего не отправлялось.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_view.py" line="54"/>
        <source>Cancel</source>
        <translation>Отмена</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_view.py" line="55"/>
        <source>Stop this question; what was found so far stays</source>
        <translation>Остановить вопрос; найденное к этому моменту останется</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_view.py" line="63"/>
        <source>Ask a question: the answer, with the messages it cites, shows here.</source>
        <translation>Задайте вопрос: здесь появится ответ со ссылками на сообщения.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_view.py" line="87"/>
        <source>Planning the searches…</source>
        <translation>Планирую поиск…</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_view.py" line="87"/>
        <location filename="../../ui/search/ask_view.py" line="100"/>
        <source>Searching…</source>
        <translation>Ищу…</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_view.py" line="100"/>
        <source>Choosing among the topics found…</source>
        <translation>Выбираю среди найденных тем…</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_view.py" line="101"/>
        <source>Reading the messages…</source>
        <translation>Читаю сообщения…</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_view.py" line="101"/>
        <source>Writing the answer…</source>
        <translation>Пишу ответ…</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_view.py" line="102"/>
        <source>Checking the answer against the messages…</source>
        <translation>Сверяю ответ с сообщениями…</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="47"/>
        <source>No API key for {0}, so there is no written answer, only what the sources say: add one in the API key dialog.</source>
        <translation>Нет API-ключа для {0}, поэтому письменного ответа нет, только то, что говорят источники: добавьте ключ в окне «API-ключ».</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="58"/>
        <source>The search failed, so there is nothing to answer from.</source>
        <translation>Поиск не удался, отвечать не из чего.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="60"/>
        <source>The messages found could not be read, so there is no answer.</source>
        <translation>Найденные сообщения не удалось прочитать, поэтому ответа нет.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="61"/>
        <source>No answer ({0}); the sources found are below.</source>
        <translation>Ответа нет ({0}); найденные источники ниже.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="71"/>
        <source>fell back: {0}</source>
        <translation>откат: {0}</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="100"/>
        <source>Not checked: the offline check cannot compare a claim written in another language than its sources.</source>
        <translation>Не проверено: офлайн-проверка не сравнивает утверждение с источниками на другом языке.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="103"/>
        <source>Cites no source, so nothing supports it.</source>
        <translation>Не ссылается ни на один источник, поэтому ничем не подтверждено.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="105"/>
        <source>checked by the model</source>
        <translation>проверено моделью</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="106"/>
        <source>checked offline</source>
        <translation>проверено офлайн</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="107"/>
        <source>Not supported by the messages it cites ({0}; support {1:.2f} of 1).</source>
        <translation>Не подтверждается цитируемыми сообщениями ({0}; опора {1:.2f} из 1).</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="125"/>
        <source>Asked in {0}</source>
        <translation>Ответ за {0}</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="127"/>
        <source>model {0}</source>
        <translation>модель {0}</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="134"/>
        <source>answered in a second round</source>
        <translation>ответ со второго круга</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="149"/>
        <source>Compared with run {run}: {same} of {sources} sources the same ({before} before); supported claims {claims_before} → {claims_after}; {time_before} → {time_after}; {answer}.</source>
        <translation>По сравнению с запуском {run}: совпадают {same} из {sources} источников (было {before}); подтверждённых утверждений {claims_before} → {claims_after}; {time_before} → {time_after}; {answer}.</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="156"/>
        <source>the same answer</source>
        <translation>ответ тот же</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="156"/>
        <source>a different answer</source>
        <translation>ответ другой</translation>
    </message>
</context>
<context>
    <name>BrowsePanel</name>
    <message>
        <location filename="../../ui/shell/browse.py" line="66"/>
        <location filename="../../ui/shell/browse.py" line="81"/>
        <source>Chat</source>
        <translation>Чат</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="66"/>
        <location filename="../../ui/shell/browse.py" line="81"/>
        <location filename="../../ui/shell/browse.py" line="97"/>
        <source>Messages</source>
        <translation>Сообщ.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="66"/>
        <source>Topics</source>
        <translation>Темы</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="66"/>
        <source>Last</source>
        <translation>Последнее</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="68"/>
        <source>Double-click a chat to see its topics.</source>
        <translation>Двойной щелчок по чату покажет его темы.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="76"/>
        <source>Filter topics…</source>
        <translation>Фильтр тем…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="81"/>
        <source>Date</source>
        <translation>Дата</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="81"/>
        <source>Summary</source>
        <translation>Описание</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="83"/>
        <source>Double-click a topic to read the conversation.</source>
        <translation>Двойной щелчок по теме откроет переписку.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="97"/>
        <source>Person</source>
        <translation>Человек</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="97"/>
        <source>Handle</source>
        <translation>Имя пользователя</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="97"/>
        <source>Chats</source>
        <translation>Чаты</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="138"/>
        <location filename="../../ui/shell/browse.py" line="153"/>
        <source>(unnamed)</source>
        <translation>(без названия)</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="151"/>
        <source>All chats</source>
        <translation>Все чаты</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="166"/>
        <source>Showing the newest {limit}; narrow the filter to see others.</source>
        <translation>Показаны {limit} самых новых; уточните фильтр, чтобы увидеть остальные.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="185"/>
        <source>Chats ({count})</source>
        <translation>Чаты ({count})</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="187"/>
        <source>Topics ({count})</source>
        <translation>Темы ({count})</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="189"/>
        <source>Topics ({shown} of {count})</source>
        <translation>Темы ({shown} из {count})</translation>
    </message>
    <message>
        <location filename="../../ui/shell/browse.py" line="192"/>
        <source>People ({count})</source>
        <translation>Люди ({count})</translation>
    </message>
</context>
<context>
    <name>CandidatesModel</name>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="36"/>
        <source>#</source>
        <translation>№</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="36"/>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="36"/>
        <source>Date</source>
        <translation>Дата</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="36"/>
        <source>Chat</source>
        <translation>Чат</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="37"/>
        <source>Msgs</source>
        <translation>Сообщ.</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="37"/>
        <source>Size</source>
        <translation>Размер</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="87"/>
        <source>Kind (topic, person or attachment) and ID</source>
        <translation>Вид (тема, человек или вложение) и ID</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="90"/>
        <source>Your label: ✓ relevant, ✗ not relevant. Click the cell, or press R or N on a row.</source>
        <translation>Ваша отметка: ✓ относится к делу, ✗ не относится. Щёлкните ячейку или нажмите R или N на строке.</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="133"/>
        <source>Only topics are labelled: the evaluation counts topics.</source>
        <translation>Отмечаются только темы: оценка считает темы.</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="143"/>
        <source>Labelled relevant (R toggles, click to change)</source>
        <translation>Отмечено: относится (R переключает, щелчок меняет)</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="144"/>
        <source>Labelled not relevant (N toggles, click to change)</source>
        <translation>Отмечено: не относится (N переключает, щелчок меняет)</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="145"/>
        <source>Not labelled: click, or press R (relevant) or N (not relevant)</source>
        <translation>Без отметки: щёлкните или нажмите R (относится) или N (не относится)</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="155"/>
        <source>Messages: {0} · characters: {1}</source>
        <translation>Сообщений: {0} · символов: {1}</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="188"/>
        <source>photo</source>
        <translation>фото</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="189"/>
        <source>file</source>
        <translation>файл</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="190"/>
        <source>voice</source>
        <translation>голосовое</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="191"/>
        <source>video</source>
        <translation>видео</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="192"/>
        <source>sticker</source>
        <translation>стикер</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="193"/>
        <source>audio</source>
        <translation>аудио</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="194"/>
        <source>animation</source>
        <translation>анимация</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="195"/>
        <source>other</source>
        <translation>вложение</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="197"/>
        <source>(no name)</source>
        <translation>(без имени)</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="201"/>
        <source>(you)</source>
        <translation>(вы)</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="36"/>
        <source>Score</source>
        <translation>Оценка</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="37"/>
        <source>Summary</source>
        <translation>Описание</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="38"/>
        <source>Topic</source>
        <translation>Тема</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="38"/>
        <source>Person</source>
        <translation>Человек</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="38"/>
        <source>Attachment</source>
        <translation>Вложение</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_model.py" line="111"/>
        <source>calibrated {0:.3f} · raw {1:.3f}</source>
        <translation>откалибровано {0:.3f} · исходно {1:.3f}</translation>
    </message>
</context>
<context>
    <name>CandidatesView</name>
    <message>
        <location filename="../../ui/search/candidates_view.py" line="145"/>
        <source>Relevant	R</source>
        <translation>Относится	R</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_view.py" line="145"/>
        <source>Not relevant	N</source>
        <translation>Не относится	N</translation>
    </message>
    <message>
        <location filename="../../ui/search/candidates_view.py" line="146"/>
        <source>Clear the label</source>
        <translation>Снять отметку</translation>
    </message>
</context>
<context>
    <name>Chip</name>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="53"/>
        <source>Remove from the plan</source>
        <translation>Убрать из плана</translation>
    </message>
</context>
<context>
    <name>CrossEncoderGroup</name>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="33"/>
        <source>Cross-encoder</source>
        <translation>Кросс-энкодер</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="34"/>
        <source>A rerank model scores each (query, topic) pair on a rerank server: a local one (llama.cpp, TEI, Infinity, vLLM) sends nothing off this computer; an API (Jina, Cohere, Voyage) receives the query and about 40 topic excerpts.</source>
        <translation>Модель ранжирования оценивает каждую пару (запрос, тема) на сервере ранжирования: локальный (llama.cpp, TEI, Infinity, vLLM) ничего не отправляет с этого компьютера; API (Jina, Cohere, Voyage) получает запрос и около 40 выдержек из тем.</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="38"/>
        <source>Custom URL</source>
        <translation>Свой URL</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="40"/>
        <source>Server</source>
        <translation>Сервер</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="43"/>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="46"/>
        <source>Model</source>
        <translation>Модель</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="47"/>
        <source>Score ≥</source>
        <translation>Оценка ≥</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="48"/>
        <source>Final top-K</source>
        <translation>Итоговый top-K</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="50"/>
        <source>Skip at ≤ {0} topics</source>
        <translation>Пропуск при ≤ {0} тем</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="53"/>
        <source>Skip when scores stand apart</source>
        <translation>Пропуск при явном разрыве</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="61"/>
        <source>Each topic is sent as about this many tokens: its date, summary and the opening of its conversation.</source>
        <translation>Каждая тема отправляется примерно таким числом токенов: её дата, краткое содержание и начало разговора.</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="63"/>
        <source>Passage size</source>
        <translation>Отрывок</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="51"/>
        <source>With few candidates whose scores are clearly apart, stage 1 has already chosen: nothing is sent and its first topics are kept.</source>
        <translation>Если кандидатов мало и их оценки явно различаются, этап 1 уже сделал выбор: ничего не отправляется, остаются его первые темы.</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="54"/>
        <source>Asked only when stage 1&apos;s top scores barely differ. With both boxes clear, the cross-encoder is asked for every search.</source>
        <translation>Спрашивать, только когда лучшие оценки этапа 1 почти не различаются. Если оба флажка сняты, кросс-энкодер спрашивается при каждом поиске.</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="58"/>
        <source>Topics sent</source>
        <translation>Отправлять тем</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="64"/>
        <source>Per request</source>
        <translation>За запрос</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="65"/>
        <source>Timeout</source>
        <translation>Тайм-аут</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="81"/>
        <source>http://host:port</source>
        <translation>http://host:port</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_settings.py" line="84"/>
        <source>the server&apos;s model</source>
        <translation>модель сервера</translation>
    </message>
</context>
<context>
    <name>EmptyState</name>
    <message>
        <location filename="../../ui/shell/empty_state.py" line="16"/>
        <source>No chats yet</source>
        <translation>Пока нет чатов</translation>
    </message>
    <message>
        <location filename="../../ui/shell/empty_state.py" line="20"/>
        <source>Flashback turns your chat exports into a memory you can search: it groups the messages into topics and finds them again by meaning, in English and Russian.

Import a Telegram Desktop, ChatGPT, WhatsApp or JSONL export (a file, a folder or a zip), or open the bundled demo to try it first. Everything stays on this computer.</source>
        <translation>Flashback превращает выгрузки ваших чатов в память, по которой можно искать: он группирует сообщения в темы и находит их по смыслу — на русском и на английском.

Импортируйте выгрузку Telegram Desktop, ChatGPT, WhatsApp или JSONL (файл, папку или zip) или сначала откройте встроенное демо. Всё остаётся на этом компьютере.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/empty_state.py" line="33"/>
        <source>Import an export…</source>
        <translation>Импортировать выгрузку…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/empty_state.py" line="36"/>
        <source>Open the demo</source>
        <translation>Открыть демо</translation>
    </message>
    <message>
        <location filename="../../ui/shell/empty_state.py" line="41"/>
        <source>You can also drop files, folders or zips on this window.</source>
        <translation>Файлы, папки и zip-архивы можно также перетащить в это окно.</translation>
    </message>
</context>
<context>
    <name>EvaluateControls</name>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="32"/>
        <source>Refresh</source>
        <translation>Обновить</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="33"/>
        <source>Search every labelled query again with the current candidates settings and re-read the labels</source>
        <translation>Заново найти кандидатов для каждого отмеченного запроса с текущими настройками и перечитать отметки</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="35"/>
        <source>Import labels…</source>
        <translation>Импорт отметок…</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="36"/>
        <source>Export labels…</source>
        <translation>Экспорт отметок…</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="39"/>
        <source>What do the figures mean?</source>
        <translation>Что означают цифры?</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="47"/>
        <source>Threshold</source>
        <translation>Порог</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="47"/>
        <source>Gap</source>
        <translation>Разрыв</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="47"/>
        <source>Top-K</source>
        <translation>Top-K</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="50"/>
        <source>&lt;b&gt;Sweep&lt;/b&gt; over</source>
        <translation>&lt;b&gt;Развёртка&lt;/b&gt; по</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="55"/>
        <source>kept F1</source>
        <translation>F1 оставленного</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="55"/>
        <source>recall within {0:,} characters</source>
        <translation>полнота в пределах {0:,} символов</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="58"/>
        <source>Auto-tune</source>
        <translation>Автонастройка</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="59"/>
        <source>Apply</source>
        <translation>Применить</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="60"/>
        <source>Move the sliders to the tuned settings</source>
        <translation>Передвинуть ползунки на найденные значения</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="63"/>
        <source>Tune for</source>
        <translation>Настроить на</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="67"/>
        <source>&lt;b&gt;Compare&lt;/b&gt; the threshold with</source>
        <translation>&lt;b&gt;Сравнить&lt;/b&gt; порог с</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="68"/>
        <source>Cross-encoder</source>
        <translation>кросс-энкодером</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="69"/>
        <source>The rerank server set in Settings → Cross-encoder</source>
        <translation>Сервер ранжирования из «Настройки → Кросс-энкодер»</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="70"/>
        <source>Flash</source>
        <translation>Flash</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="72"/>
        <source>The LLM set in Settings → Flash</source>
        <translation>LLM из «Настройки → Flash»</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="73"/>
        <source>Estimate cost</source>
        <translation>Оценить стоимость</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="74"/>
        <source>Compare</source>
        <translation>Сравнить</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="139"/>
        <source>Cross-encoder on the same candidates: precision &lt;b&gt;{0:.2f}&lt;/b&gt; · recall &lt;b&gt;{1:.2f}&lt;/b&gt; · F1 &lt;b&gt;{2:.2f}&lt;/b&gt; over {3} queries · {4} fell back</source>
        <translation>Кросс-энкодер на тех же кандидатах: точность &lt;b&gt;{0:.2f}&lt;/b&gt; · полнота &lt;b&gt;{1:.2f}&lt;/b&gt; · F1 &lt;b&gt;{2:.2f}&lt;/b&gt;, запросов: {3} · откатов: {4}</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="141"/>
        <source>Flash on the same candidates: precision &lt;b&gt;{0:.2f}&lt;/b&gt; · recall &lt;b&gt;{1:.2f}&lt;/b&gt; · F1 &lt;b&gt;{2:.2f}&lt;/b&gt; over {3} queries · {4} fell back</source>
        <translation>Flash на тех же кандидатах: точность &lt;b&gt;{0:.2f}&lt;/b&gt; · полнота &lt;b&gt;{1:.2f}&lt;/b&gt; · F1 &lt;b&gt;{2:.2f}&lt;/b&gt;, запросов: {3} · откатов: {4}</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="180"/>
        <source>Flash would send {0}; {1}.</source>
        <translation>Flash отправит {0}; {1}.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="181"/>
        <source>One call per query and reranker, each kept in the run history.</source>
        <translation>Один вызов на запрос и реранкер, каждый сохраняется в истории запусков.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="78"/>
        <source>Cancel</source>
        <translation>Отмена</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="130"/>
        <source>No labelled queries yet. In the search view, mark results relevant (✓) or not (✗): click the ✓ column, press R or N, or use the buttons on the cards.</source>
        <translation>Отмеченных запросов пока нет. В окне поиска отметьте результаты как относящиеся к делу (✓) или нет (✗): щёлкните столбец ✓, нажмите R или N или воспользуйтесь кнопками на карточках.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="132"/>
        <source>every candidate kept (vector only)</source>
        <translation>оставлены все кандидаты (только векторы)</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="133"/>
        <source>threshold {0:.2f}, gap {1:.2f}, top-K {2}</source>
        <translation>порог {0:.2f}, разрыв {1:.2f}, top-K {2}</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="134"/>
        <source>&lt;b&gt;{0} queries scored&lt;/b&gt; ({1} without a relevant topic) with {2}: stage-1 recall@10 &lt;b&gt;{3:.2f}&lt;/b&gt; · kept precision &lt;b&gt;{4:.2f}&lt;/b&gt; · recall &lt;b&gt;{5:.2f}&lt;/b&gt; · F1 &lt;b&gt;{6:.2f}&lt;/b&gt; · evidence@8000 &lt;b&gt;{7:.2f}&lt;/b&gt; · {8:.1f} topics kept</source>
        <translation>&lt;b&gt;Оценено запросов: {0}&lt;/b&gt; (без относящейся темы: {1}), настройки: {2}. Полнота этапа 1 @10 &lt;b&gt;{3:.2f}&lt;/b&gt; · точность оставленного &lt;b&gt;{4:.2f}&lt;/b&gt; · полнота &lt;b&gt;{5:.2f}&lt;/b&gt; · F1 &lt;b&gt;{6:.2f}&lt;/b&gt; · evidence@8000 &lt;b&gt;{7:.2f}&lt;/b&gt; · оставлено тем в среднем: {8:.1f}</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="152"/>
        <source>Best: threshold {0:.2f}, gap {1:.2f}, top-K {2}. {3}: now {4:.3f}; tuned {5:.3f} on these queries, &lt;b&gt;{6:.3f} expected on new ones&lt;/b&gt; ({7}-fold cross-validated).</source>
        <translation>Лучшее: порог {0:.2f}, разрыв {1:.2f}, top-K {2}. {3}: сейчас {4:.3f}; после настройки {5:.3f} на этих запросах, &lt;b&gt;{6:.3f} ожидается на новых&lt;/b&gt; (перекрёстная проверка, блоков: {7}).</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="158"/>
        <source>The gain is within the noise of so few queries: label more before trusting it.</source>
        <translation>Выигрыш не выходит за пределы шума на таком малом числе запросов: отметьте больше, прежде чем ему доверять.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="168"/>
        <source>free on a server on this computer</source>
        <translation>бесплатно на сервере на этом компьютере</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="169"/>
        <source>≈ ${0:.4f}</source>
        <translation>≈ ${0:.4f}</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="170"/>
        <source>priced by the API per token or search (see its price list)</source>
        <translation>API берёт плату за токены или запросы (см. его прайс-лист)</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="171"/>
        <source>The cross-encoder would be asked for {0} of {1} queries (the others are clear in stage 1): about {2:,} tokens in {3} requests; {4}.</source>
        <translation>Кросс-энкодер спросят для {0} из {1} запросов (по остальным этап 1 уже выбрал): около {2:,} токенов, обращений к серверу: {3}; {4}.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="176"/>
        <source>about {0:,} prompt + {1:,} reply tokens for {2} queries</source>
        <translation>около {0:,} токенов запроса и {1:,} токенов ответа на {2} запросов</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="178"/>
        <source>≈ ${0:.2f} at the provider&apos;s price</source>
        <translation>≈ ${0:.2f} по цене провайдера</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="179"/>
        <source>the provider gives no price (a local server costs nothing)</source>
        <translation>провайдер не сообщает цену (локальный сервер бесплатен)</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="187"/>
        <source>Import labels (QRELS JSON)</source>
        <translation>Импорт отметок (QRELS JSON)</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="188"/>
        <source>QRELS JSON (*.json);;All files (*)</source>
        <translation>QRELS JSON (*.json);;Все файлы (*)</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="193"/>
        <source>Export labels (QRELS JSON)</source>
        <translation>Экспорт отметок (QRELS JSON)</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/controls.py" line="194"/>
        <source>QRELS JSON (*.json)</source>
        <translation>QRELS JSON (*.json)</translation>
    </message>
</context>
<context>
    <name>EvaluatePanel</name>
    <message>
        <location filename="../../ui/evaluate/help.py" line="13"/>
        <source>Labelled set</source>
        <translation>Отмеченный набор</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="14"/>
        <source>Every query you labelled in the search view (its text, filters and the time of the first label), or imported from a QRELS file. A label belongs to the messages of the topic you marked, so it survives a rebuild.</source>
        <translation>Все запросы, отмеченные вами в окне поиска (текст, фильтры и время первой отметки) или импортированные из файла QRELS. Отметка принадлежит сообщениям отмеченной темы, поэтому переживает пересборку.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="17"/>
        <source>Relevant</source>
        <translation>Относится</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="18"/>
        <source>The topics holding at least one message labelled relevant (evidence), in the current build. A query with no relevant topic is listed but not scored.</source>
        <translation>Темы текущей сборки, содержащие хотя бы одно сообщение, отмеченное как относящееся к делу (доказательство). Запрос без такой темы показан, но не оценивается.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="20"/>
        <source>Kept precision</source>
        <translation>Точность оставленного</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="21"/>
        <source>|kept ∩ relevant| / |kept|: the share of the kept topics that are relevant (0 when nothing is kept).</source>
        <translation>|оставлено ∩ относится| / |оставлено|: доля оставленных тем, которые относятся к делу (0, если ничего не оставлено).</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="23"/>
        <source>Kept recall</source>
        <translation>Полнота оставленного</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="24"/>
        <source>|kept ∩ relevant| / |relevant|: the share of the relevant topics that were kept.</source>
        <translation>|оставлено ∩ относится| / |относится|: доля относящихся тем, которые были оставлены.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="26"/>
        <source>F1</source>
        <translation>F1</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="27"/>
        <source>2 · precision · recall / (precision + recall), per query (0 when both are 0).</source>
        <translation>2 · точность · полнота / (точность + полнота), для каждого запроса (0, если обе равны 0).</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="29"/>
        <source>Stage-1 recall@10</source>
        <translation>Полнота этапа 1 @10</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="30"/>
        <source>The share of the relevant topics among the first 10 stage-1 candidates: what the reranker had to choose from.</source>
        <translation>Доля относящихся тем среди первых 10 кандидатов этапа 1: из чего выбирал реранкер.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="32"/>
        <source>Evidence@8000</source>
        <translation>Evidence@8000</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="33"/>
        <source>The share of the relevant messages inside the topics taken whole, kept ones first and then the other candidates, until 8,000 characters are full (as `flashback eval`).</source>
        <translation>Доля относящихся сообщений внутри тем, взятых целиком (сначала оставленные, затем остальные кандидаты), пока не заполнятся 8 000 символов (как в `flashback eval`).</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="36"/>
        <source>Means</source>
        <translation>Средние</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="37"/>
        <source>Averages over the scored queries: every query counts the same.</source>
        <translation>Средние по оценённым запросам: каждый запрос весит одинаково.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="38"/>
        <source>Sweep</source>
        <translation>Развёртка</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="39"/>
        <source>The mean kept precision, recall and F1 as one setting moves over its slider&apos;s range, the other two as they are now; from the frozen candidates, no new search. The dashed line is the current value.</source>
        <translation>Средние точность, полнота и F1 оставленного, когда одна настройка проходит диапазон своего ползунка, а две другие остаются как есть; по замороженным кандидатам, без нового поиска. Пунктир — текущее значение.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="42"/>
        <source>Auto-tune</source>
        <translation>Автонастройка</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="43"/>
        <source>Tries every threshold, gap and top-K on the sliders&apos; grid. Cross-validated: the queries are split into 5 folds, each fold is scored with the settings that were best on the other four, so the figure is what to expect on questions it was not tuned on.</source>
        <translation>Перебирает все значения порога, разрыва и top-K на сетке ползунков. С перекрёстной проверкой: запросы делятся на 5 блоков, каждый блок оценивается с настройками, лучшими на остальных четырёх, поэтому цифра показывает, чего ждать на вопросах, на которых настройка не подбиралась.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="47"/>
        <source>Comparison</source>
        <translation>Сравнение</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/help.py" line="48"/>
        <source>Runs the cross-encoder, Flash or both once per labelled query on the same frozen candidates (each call is kept in the run history) and scores what each kept beside the threshold reranker, by the definitions above. The cost is estimated before anything is sent.</source>
        <translation>Запускает кросс-энкодер, Flash или оба по одному разу на каждый отмеченный запрос на тех же замороженных кандидатах (каждый вызов сохраняется в истории запусков) и оценивает оставленное каждым рядом с пороговым реранкером по определениям выше. Стоимость оценивается до отправки.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="129"/>
        <source>Searching the labelled queries… {0} of {1}</source>
        <translation>Поиск по отмеченным запросам… {0} из {1}</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="134"/>
        <source>Searching the labelled queries…</source>
        <translation>Поиск по отмеченным запросам…</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="149"/>
        <source>Nothing to tune on yet: label results relevant in the search view first.</source>
        <translation>Настраивать пока не на чем: сначала отметьте относящиеся к делу результаты в окне поиска.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="154"/>
        <source>Tuning…</source>
        <translation>Настройка…</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="156"/>
        <source>Tuning</source>
        <translation>Настройка</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="171"/>
        <source>The import</source>
        <translation>Импорт</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="177"/>
        <source>{0} labelled queries written to {1}.</source>
        <translation>Отмеченных запросов записано в {1}: {0}.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="180"/>
        <source>The export</source>
        <translation>Экспорт</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="186"/>
        <source>Nothing to compare yet: label results in the search view, then Refresh.</source>
        <translation>Сравнивать пока нечего: отметьте результаты в окне поиска, затем нажмите «Обновить».</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="198"/>
        <source>Estimating what the comparison would cost…</source>
        <translation>Оцениваю стоимость сравнения…</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="226"/>
        <source>Comparing on {0} labelled queries…</source>
        <translation>Сравниваю на отмеченных запросах: {0}…</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="325"/>
        <source>Compared on {0} of {1} queries…</source>
        <translation>Сравнено запросов: {0} из {1}…</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="331"/>
        <source>The cross-encoder ran on {0} queries; {1} fell back or failed.</source>
        <translation>Кросс-энкодер отработал на запросах: {0}; с откатом или ошибкой: {1}.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="332"/>
        <source>Flash ran on {0} queries; {1} fell back or failed; reported cost ${2:.4f}.</source>
        <translation>Flash отработал на запросах: {0}; с откатом или ошибкой: {1}; заявленная стоимость ${2:.4f}.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="336"/>
        <source>Each call is kept in the run history.</source>
        <translation>Каждый вызов сохранён в истории запусков.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="346"/>
        <source>The comparison was cancelled after {0} queries; their results stay in the table.</source>
        <translation>Сравнение отменено после запросов: {0}; их результаты остались в таблице.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="235"/>
        <source>Evaluate: what the figures mean</source>
        <translation>Оценка: что означают цифры</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="245"/>
        <source>The evaluation</source>
        <translation>Оценка</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/panel.py" line="310"/>
        <source>Imported {0} queries with {1} labels; {2} messages were not in this store.</source>
        <translation>Импортировано запросов: {0}, отметок: {1}; сообщений нет в этом хранилище: {2}.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/comparer.py" line="31"/>
        <location filename="../../ui/evaluate/panel.py" line="217"/>
        <source>The comparison</source>
        <translation>Сравнение</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/comparer.py" line="54"/>
        <location filename="../../ui/evaluate/panel.py" line="195"/>
        <source>The estimate</source>
        <translation>Оценка стоимости</translation>
    </message>
</context>
<context>
    <name>ExportBar</name>
    <message>
        <location filename="../../ui/search/export_bar.py" line="48"/>
        <source>Context budget</source>
        <translation>Бюджет контекста</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="58"/>
        <source>Copy context</source>
        <translation>Копировать контекст</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="60"/>
        <source>Export Markdown…</source>
        <translation>Экспорт в Markdown…</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="62"/>
        <source>Export JSON…</source>
        <translation>Экспорт в JSON…</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="75"/>
        <source>Export context as Markdown</source>
        <translation>Экспорт контекста в Markdown</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="75"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="77"/>
        <source>Export context as JSON</source>
        <translation>Экспорт контекста в JSON</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="77"/>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="87"/>
        <source>Search first: there is nothing selected to export.</source>
        <translation>Сначала выполните поиск: экспортировать пока нечего.</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="107"/>
        <source>Copied the context ({0} items) to the clipboard.</source>
        <translation>Контекст (элементов: {0}) скопирован в буфер обмена.</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="109"/>
        <source>Saved the context ({0} items) to {1}.</source>
        <translation>Контекст (элементов: {0}) сохранён в {1}.</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="113"/>
        <source>Could not write the file: {0}</source>
        <translation>Не удалось записать файл: {0}</translation>
    </message>
    <message>
        <location filename="../../ui/search/export_bar.py" line="115"/>
        <source>Export</source>
        <translation>Экспорт</translation>
    </message>
</context>
<context>
    <name>ImportController</name>
    <message>
        <location filename="../../ui/shell/import_controller.py" line="67"/>
        <source>Importing {name}…</source>
        <translation>Импорт {name}…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/import_controller.py" line="68"/>
        <source>Importing {count} exports…</source>
        <translation>Импорт выгрузок: {count}…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/import_controller.py" line="72"/>
        <source>Building memory…</source>
        <translation>Построение памяти…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/import_controller.py" line="91"/>
        <source>the local model</source>
        <translation>локальной моделью</translation>
    </message>
    <message>
        <location filename="../../ui/shell/import_controller.py" line="91"/>
        <source>the built-in embedder</source>
        <translation>встроенным эмбеддером</translation>
    </message>
    <message>
        <location filename="../../ui/shell/import_controller.py" line="92"/>
        <source>Embedding topics with {model}…</source>
        <translation>Темы встраиваются {model}…</translation>
    </message>
</context>
<context>
    <name>KeyStatus</name>
    <message>
        <location filename="../../ui/shell/key_status.py" line="37"/>
        <source>{0} needs no API key.</source>
        <translation>{0} не нужен API-ключ.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/key_status.py" line="39"/>
        <source>from the system keyring</source>
        <translation>из системной связки ключей</translation>
    </message>
    <message>
        <location filename="../../ui/shell/key_status.py" line="40"/>
        <source>for this session only</source>
        <translation>только на этот сеанс</translation>
    </message>
    <message>
        <location filename="../../ui/shell/key_status.py" line="41"/>
        <source>from an environment variable</source>
        <translation>из переменной окружения</translation>
    </message>
    <message>
        <location filename="../../ui/shell/key_status.py" line="43"/>
        <source>No API key for {0}: Flash cannot use it until you add one.</source>
        <translation>Нет API-ключа для {0}: Flash не сможет его использовать, пока вы не добавите ключ.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/key_status.py" line="45"/>
        <source>API key for {0}: {1}.</source>
        <translation>API-ключ для {0}: {1}.</translation>
    </message>
</context>
<context>
    <name>KeysDialog</name>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="43"/>
        <source>API key</source>
        <translation>API-ключ</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="46"/>
        <source>Custom endpoint</source>
        <translation>Свой сервер</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="47"/>
        <source>Jina AI (cross-encoder)</source>
        <translation>Jina AI (кросс-энкодер)</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="47"/>
        <source>Cohere (cross-encoder)</source>
        <translation>Cohere (кросс-энкодер)</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="48"/>
        <source>Voyage AI (cross-encoder)</source>
        <translation>Voyage AI (кросс-энкодер)</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="49"/>
        <source>Rerank server on this computer (cross-encoder)</source>
        <translation>Сервер ранжирования на этом компьютере (кросс-энкодер)</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="58"/>
        <source>Paste a new key here</source>
        <translation>Вставьте сюда новый ключ</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="60"/>
        <source>Save in keyring</source>
        <translation>Сохранить в связке ключей</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="62"/>
        <source>Forget</source>
        <translation>Забыть</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="63"/>
        <source>Remove the key from the keyring and from this session.</source>
        <translation>Удалить ключ из связки ключей и из этого сеанса.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="71"/>
        <source>Use for this session only</source>
        <translation>Только на этот сеанс</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="80"/>
        <source>Flash (the LLM reranker), API embeddings and the cross-encoder&apos;s rerank APIs need a key. Flashback keeps it in the system keyring, never in its own files, and never shows it in full.</source>
        <translation>Ключ нужен для Flash (LLM-реранкера), для эмбеддингов через API и для API ранжирования кросс-энкодера. Flashback хранит его в системной связке ключей, а не в своих файлах, и никогда не показывает целиком.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="85"/>
        <source>Provider:</source>
        <translation>Провайдер:</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="86"/>
        <source>Key in use:</source>
        <translation>Используемый ключ:</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="90"/>
        <source>New key:</source>
        <translation>Новый ключ:</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="104"/>
        <source>This system has no keyring: a key can be used for this session only, or set in an environment variable.</source>
        <translation>В этой системе нет связки ключей: ключ можно использовать только в этом сеансе или задать в переменной окружения.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="124"/>
        <source>Saved in the system keyring.</source>
        <translation>Сохранено в системной связке ключей.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="130"/>
        <source>Paste the key first.</source>
        <translation>Сначала вставьте ключ.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="135"/>
        <source>The key will be used until Flashback closes.</source>
        <translation>Ключ будет использоваться, пока Flashback не закроется.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="140"/>
        <source>Forgotten.</source>
        <translation>Ключ забыт.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="145"/>
        <source>This system has no keyring to keep the key in, so it cannot be saved. Use it for this session only (it is forgotten when Flashback closes), or set one of these environment variables before starting Flashback: {names}.</source>
        <translation>В этой системе нет связки ключей, поэтому ключ нельзя сохранить. Используйте его только в этом сеансе (он забудется, когда Flashback закроется) или задайте перед запуском Flashback одну из переменных окружения: {names}.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="160"/>
        <source>{key} from the system keyring</source>
        <translation>{key} из системной связки ключей</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="162"/>
        <source>{key} for this session only</source>
        <translation>{key} только на этот сеанс</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="164"/>
        <source>{key} from an environment variable ({names})</source>
        <translation>{key} из переменной окружения ({names})</translation>
    </message>
    <message>
        <location filename="../../ui/shell/keys_dialog.py" line="167"/>
        <source>none set</source>
        <translation>не задан</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../ui/main_window.py" line="95"/>
        <source>Browse</source>
        <translation>Обзор</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="96"/>
        <source>Run history</source>
        <translation>История запусков</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="102"/>
        <source>Evaluate</source>
        <translation>Оценка</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="169"/>
        <source>Could not read the store</source>
        <translation>Не удалось прочитать хранилище</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="201"/>
        <source>Could not open the store</source>
        <translation>Не удалось открыть хранилище</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="205"/>
        <source>Messages: {messages} · chats: {chats} · topics: {topics}</source>
        <translation>Сообщений: {messages} · чатов: {chats} · тем: {topics}</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="236"/>
        <source>These messages are not in memory yet: choose Memory → Build memory to search them.</source>
        <translation>Эти сообщения ещё не в памяти: выберите «Память → Построить память», чтобы искать по ним.</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="254"/>
        <source>The store was changed by another Flashback process: updated.</source>
        <translation>Хранилище изменил другой процесс Flashback: данные обновлены.</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="261"/>
        <source>{writer} is writing the store; searches show what is built so far.</source>
        <translation>Хранилище занято: {writer}; поиск показывает то, что уже построено.</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="268"/>
        <source>Chat exports</source>
        <translation>Экспорты чатов</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="268"/>
        <source>All files</source>
        <translation>Все файлы</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="269"/>
        <source>Import chat exports</source>
        <translation>Импорт выгрузок чатов</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="276"/>
        <source>Import an export folder</source>
        <translation>Импорт папки с выгрузкой</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="287"/>
        <location filename="../../ui/main_window.py" line="298"/>
        <source>An import or build is already running.</source>
        <translation>Импорт или построение уже идёт.</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="315"/>
        <source>Import failed</source>
        <translation>Импорт не удался</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="315"/>
        <source>Building memory failed</source>
        <translation>Построить память не удалось</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="345"/>
        <source>No API key for the topic model: building without it.</source>
        <translation>Нет API-ключа для модели топиков: сборка без неё.</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="373"/>
        <source>Could not open {0}: no file manager answered.</source>
        <translation>Не удалось открыть {0}: файловый менеджер не ответил.</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="381"/>
        <source>Language</source>
        <translation>Язык</translation>
    </message>
    <message>
        <location filename="../../ui/main_window.py" line="381"/>
        <source>Flashback will use the new language after a restart.</source>
        <translation>Flashback переключится на новый язык после перезапуска.</translation>
    </message>
</context>
<context>
    <name>PlanChips</name>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="82"/>
        <source>Plan:</source>
        <translation>План:</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="85"/>
        <source>+ Add</source>
        <translation>+ Добавить</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="86"/>
        <source>Add search words, a date range, a chat or a person to the plan</source>
        <translation>Добавить в план слова для поиска, даты, чат или человека</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="90"/>
        <source>Ask again with this plan</source>
        <translation>Спросить снова по этому плану</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="91"/>
        <source>Search the plan as edited, without asking the model for a plan</source>
        <translation>Искать по изменённому плану, не спрашивая модель о плане</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="123"/>
        <source>“{0}” is not a date range: write days like 2025-04-01 … 2025-04-30, or words like “last week”.</source>
        <translation>«{0}» — не диапазон дат: напишите дни, например 2025-04-01 … 2025-04-30, или словами, например «на прошлой неделе».</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="139"/>
        <source>dates:</source>
        <translation>даты:</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="139"/>
        <source>chat:</source>
        <translation>чат:</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="139"/>
        <source>person:</source>
        <translation>человек:</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="140"/>
        <source>Searched for: edit the words, or remove them</source>
        <translation>Что искали: измените слова или уберите их</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="141"/>
        <source>Topics in this range count for more (never a cut)</source>
        <translation>Темы в этом диапазоне весят больше (остальные не отсекаются)</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="142"/>
        <source>Only this chat is searched</source>
        <translation>Поиск только в этом чате</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="143"/>
        <source>Only topics where this person wrote</source>
        <translation>Только темы, где писал этот человек</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="162"/>
        <source>Search words</source>
        <translation>Слова для поиска</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="163"/>
        <source>Dates</source>
        <translation>Даты</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="165"/>
        <source>Person</source>
        <translation>Человек</translation>
    </message>
    <message>
        <location filename="../../ui/search/plan_chips.py" line="166"/>
        <source>Chat</source>
        <translation>Чат</translation>
    </message>
</context>
<context>
    <name>ProgressPanel</name>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="35"/>
        <location filename="../../ui/shell/progress_panel.py" line="62"/>
        <source>Cancel</source>
        <translation>Отмена</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="39"/>
        <source>Close</source>
        <translation>Закрыть</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="58"/>
        <source>Starting…</source>
        <translation>Запуск…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="76"/>
        <source>Done</source>
        <translation>Готово</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="80"/>
        <source>Build stopped. Finished stages are kept; Build memory continues where it stopped.</source>
        <translation>Построение остановлено. Завершённые этапы сохранены; «Построить память» продолжит с того же места.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="82"/>
        <source>Import cancelled; nothing was changed.</source>
        <translation>Импорт отменён; ничего не изменилось.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="83"/>
        <source>Cancelled</source>
        <translation>Отменено</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="95"/>
        <source>Cancelling…</source>
        <translation>Отмена…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="102"/>
        <source>Waiting for {holder} to finish…</source>
        <translation>Ожидание, пока не закончится {holder}…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="104"/>
        <source>Reading {name}: {messages} messages so far</source>
        <translation>Чтение {name}: прочитано сообщений: {messages}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="110"/>
        <source>{stage}: {done} of {total}</source>
        <translation>{stage}: {done} из {total}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="117"/>
        <source>Chats: {chats} · Messages: {messages} · Attachments: {attachments}</source>
        <translation>Чатов: {chats} · Сообщений: {messages} · Вложений: {attachments}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="121"/>
        <source>Ids that came again with another text (the first text kept): {count}</source>
        <translation>Идентификаторы, пришедшие снова с другим текстом (оставлен первый): {count}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="129"/>
        <source>Already imported, nothing new: {names}</source>
        <translation>Уже импортировано, нового нет: {names}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="139"/>
        <source>New topics: {topics}</source>
        <translation>Новых тем: {topics}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="141"/>
        <source>Split by the model: {chunks} chunks, {fallbacks} without it</source>
        <translation>Разбито моделью: {chunks} фрагм., без неё: {fallbacks}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/progress_panel.py" line="143"/>
        <source>Time: {seconds} s</source>
        <translation>Время: {seconds} с</translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <location filename="../../ui/i18n/__init__.py" line="89"/>
        <source>Folder</source>
        <comment>All other platforms</comment>
        <translation>Папка</translation>
    </message>
    <message>
        <location filename="../../ui/i18n/__init__.py" line="90"/>
        <source>%1 File</source>
        <comment>%1 is a file name suffix, for example txt</comment>
        <translation>Файл %1</translation>
    </message>
    <message>
        <location filename="../../ui/i18n/__init__.py" line="91"/>
        <source>File</source>
        <comment>All other platforms</comment>
        <translation>Файл</translation>
    </message>
    <message>
        <location filename="../../ui/i18n/__init__.py" line="92"/>
        <source>Drive</source>
        <translation>Диск</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <location filename="../../ui/i18n/__init__.py" line="88"/>
        <source>&amp;Look in:</source>
        <translation>&amp;Перейти к:</translation>
    </message>
    <message>
        <location filename="../../ui/i18n/__init__.py" line="88"/>
        <source>Files of &amp;type:</source>
        <translation>&amp;Типы файлов:</translation>
    </message>
</context>
<context>
    <name>QueriesModel</name>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="36"/>
        <source>Query</source>
        <translation>Запрос</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="36"/>
        <source>Filters</source>
        <translation>Фильтры</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="36"/>
        <source>Relevant</source>
        <translation>Относится</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="37"/>
        <source>Stage-1 R@10</source>
        <translation>Этап 1 R@10</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="37"/>
        <source>Kept</source>
        <translation>Оставлено</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="37"/>
        <source>Precision</source>
        <translation>Точность</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="38"/>
        <source>Recall</source>
        <translation>Полнота</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="38"/>
        <source>F1</source>
        <translation>F1</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="38"/>
        <source>Evidence@8000</source>
        <translation>Evidence@8000</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="39"/>
        <source>C-E P</source>
        <translation>К-Э Т</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="39"/>
        <source>C-E R</source>
        <translation>К-Э П</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="39"/>
        <source>C-E F1</source>
        <translation>К-Э F1</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="40"/>
        <source>Flash P</source>
        <translation>Flash Т</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="40"/>
        <source>Flash R</source>
        <translation>Flash П</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="40"/>
        <source>Flash F1</source>
        <translation>Flash F1</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="84"/>
        <source>The cross-encoder&apos;s precision, recall and F1 on the same candidates</source>
        <translation>Точность, полнота и F1 кросс-энкодера на тех же кандидатах</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="98"/>
        <source>Double-click: open this query in the search view (kept rows highlighted, your labels in the ✓ column)</source>
        <translation>Двойной щелчок: открыть запрос в окне поиска (оставленные строки подсвечены, ваши отметки в столбце ✓)</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="101"/>
        <source>No topic holds a message labelled relevant: this query is not scored.</source>
        <translation>Ни одна тема не содержит сообщения, отмеченного как относящееся: запрос не оценивается.</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/queries_model.py" line="110"/>
        <source>chat {0}</source>
        <translation>чат {0}</translation>
    </message>
</context>
<context>
    <name>RunHistoryPanel</name>
    <message>
        <location filename="../../ui/shell/run_history.py" line="64"/>
        <source>When</source>
        <translation>Когда</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="64"/>
        <source>Query</source>
        <translation>Запрос</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="64"/>
        <source>Reranker</source>
        <translation>Реранкер</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="64"/>
        <source>Kept</source>
        <translation>Оставлено</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="65"/>
        <source>ms</source>
        <translation>мс</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="65"/>
        <source>Asked by</source>
        <translation>Кто спросил</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="81"/>
        <source>Choose a run to see its settings, candidates, selections and trace.</source>
        <translation>Выберите запуск, чтобы увидеть его настройки, кандидатов, выбор и трассировку.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="82"/>
        <source>Re-run with current settings</source>
        <translation>Повторить поиск</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="83"/>
        <location filename="../../ui/shell/run_history.py" line="161"/>
        <source>Search this query again with the settings now in the search panel.</source>
        <translation>Повторить этот запрос с настройками, заданными сейчас в панели поиска.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="86"/>
        <source>Refresh</source>
        <translation>Обновить</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="150"/>
        <source>No searches recorded yet. Each search you run is kept here.</source>
        <translation>Записанных поисков пока нет. Здесь сохраняется каждый ваш поиск.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="159"/>
        <source>Ask this question again with the settings now in the search panel, and compare the answers.</source>
        <translation>Задать этот вопрос снова с текущими настройками и сравнить ответы.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="162"/>
        <source>This run is no longer stored.</source>
        <translation>Этот запуск больше не хранится.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="173"/>
        <source>{0} ms</source>
        <translation>{0} мс</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="178"/>
        <source>via {client}</source>
        <translation>через {client}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="180"/>
        <source>fallback: {reason}</source>
        <translation>откат: {reason}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="187"/>
        <source>{tokens} tokens</source>
        <translation>токенов: {tokens}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="193"/>
        <source>Selected</source>
        <translation>Выбрано</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="196"/>
        <source>Candidates</source>
        <translation>Кандидаты</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="205"/>
        <source>…and {more} more</source>
        <translation>…и ещё {more}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="209"/>
        <source>Tool calls</source>
        <translation>Вызовы инструментов</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="212"/>
        <source>Settings</source>
        <translation>Настройки</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="219"/>
        <source>Answer</source>
        <translation>Ответ</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="230"/>
        <source>No answer: the sources found are below.</source>
        <translation>Ответа нет: найденные источники ниже.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="233"/>
        <source>Plan</source>
        <translation>План</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="234"/>
        <source>dates</source>
        <translation>даты</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="234"/>
        <source>chats</source>
        <translation>чаты</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="235"/>
        <source>people</source>
        <translation>люди</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="238"/>
        <source>Sources</source>
        <translation>Источники</translation>
    </message>
    <message>
        <location filename="../../ui/shell/run_history.py" line="242"/>
        <source>Steps</source>
        <translation>Шаги</translation>
    </message>
</context>
<context>
    <name>ScoreChart</name>
    <message>
        <location filename="../../ui/search/score_chart.py" line="122"/>
        <source>Search to see the scores by rank</source>
        <translation>Выполните поиск, чтобы увидеть оценки по рангу</translation>
    </message>
    <message>
        <location filename="../../ui/search/score_chart.py" line="115"/>
        <source>threshold {0:.2f}</source>
        <translation>порог {0:.2f}</translation>
    </message>
    <message>
        <location filename="../../ui/search/score_chart.py" line="118"/>
        <source>gap cut</source>
        <translation>срез по разрыву</translation>
    </message>
    <message>
        <location filename="../../ui/search/score_chart.py" line="110"/>
        <source>kept</source>
        <translation>оставлено</translation>
    </message>
    <message>
        <location filename="../../ui/search/score_chart.py" line="112"/>
        <source>cut by gap / top-K</source>
        <translation>отсечено разрывом / top-K</translation>
    </message>
    <message>
        <location filename="../../ui/search/score_chart.py" line="113"/>
        <source>not kept</source>
        <translation>не оставлено</translation>
    </message>
</context>
<context>
    <name>SearchPanel</name>
    <message>
        <location filename="../../ui/search/flash_runner.py" line="33"/>
        <source>{0} has to wait: {1} is writing the store. Try again when it has finished.</source>
        <translation>{0}: придётся подождать — хранилище занято ({1}). Повторите, когда запись закончится.</translation>
    </message>
    <message>
        <location filename="../../ui/search/flash_runner.py" line="38"/>
        <source>{0} hit an internal error ({1}: {2}). Please report it.</source>
        <translation>{0}: внутренняя ошибка ({1}: {2}). Пожалуйста, сообщите о ней.</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="113"/>
        <location filename="../../ui/search/panel.py" line="141"/>
        <source>Type a question first.</source>
        <translation>Сначала введите вопрос.</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="124"/>
        <source>Searching…</source>
        <translation>Поиск…</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="187"/>
        <source>Flash</source>
        <translation>Flash</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="192"/>
        <source>Flash is restating the query from the recent messages, then choosing among {0} topics…</source>
        <translation>Flash переформулирует запрос по недавним сообщениям, затем выбирает среди тем: {0}…</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="195"/>
        <source>Flash is choosing among {0} topics…</source>
        <translation>Flash выбирает среди тем: {0}…</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="266"/>
        <source>Find the topics that match (Enter in Search mode)</source>
        <translation>Найти подходящие темы (Enter в режиме поиска)</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="268"/>
        <source>Ask</source>
        <translation>Спросить</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="270"/>
        <source>Answer the question from your chats, citing the messages (Ctrl+Enter)</source>
        <translation>Ответить на вопрос по вашим чатам со ссылками на сообщения (Ctrl+Enter)</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="410"/>
        <source>The cross-encoder is scoring the candidates…</source>
        <translation>Кросс-энкодер оценивает кандидатов…</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="458"/>
        <source>Labelling</source>
        <translation>Отметка</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="260"/>
        <source>Ask your memory: “when did we move the Postgres upgrade?”</source>
        <translation>Спросите свою память: «когда мы перенесли обновление Postgres?»</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="523"/>
        <source>The cross-encoder was cancelled.</source>
        <translation>Кросс-энкодер отменён.</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="263"/>
        <source>Search</source>
        <translation>Поиск</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="278"/>
        <source>Recent messages</source>
        <translation>Недавние сообщения</translation>
    </message>
    <message>
        <location filename="../../ui/search/columns.py" line="60"/>
        <source>Search &amp;settings panel</source>
        <translation>Панель &amp;настроек поиска</translation>
    </message>
    <message>
        <location filename="../../ui/search/columns.py" line="62"/>
        <source>Settings</source>
        <translation>Настройки</translation>
    </message>
    <message>
        <location filename="../../ui/search/columns.py" line="63"/>
        <source>Show or hide the search settings ({0})</source>
        <translation>Показать или скрыть настройки поиска ({0})</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="284"/>
        <source>Optional: paste the last few messages of the conversation you are in; Flash uses them as context.</source>
        <translation>Необязательно: вставьте несколько последних сообщений текущего разговора; Flash использует их как контекст.</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="287"/>
        <location filename="../../ui/search/panel.py" line="545"/>
        <source>Run Flash</source>
        <translation>Запустить Flash</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="289"/>
        <source>Cancel</source>
        <translation>Отмена</translation>
    </message>
    <message>
        <location filename="../../ui/search/columns.py" line="42"/>
        <source>&lt;b&gt;Selections&lt;/b&gt; (in the order chosen)</source>
        <translation>&lt;b&gt;Выбор&lt;/b&gt; (в порядке выбора)</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="351"/>
        <source>The search</source>
        <translation>Поиск</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="421"/>
        <source>Also searched as: “{0}” — rewritten from the recent messages in {1:.1f} s; the candidates below are both searches, fused.</source>
        <translation>Также искали как: «{0}» — переписано по недавним сообщениям за {1:.1f} с; кандидаты ниже — оба поиска вместе.</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="425"/>
        <source>Searched as typed: the rewrite from the recent messages was not used ({0}).</source>
        <translation>Искали как введено: переписанный по недавним сообщениям запрос не использован ({0}).</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="517"/>
        <source>the cross-encoder fell back: {0}</source>
        <translation>откат кросс-энкодера: {0}</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="535"/>
        <source>Flash cancelled; nothing was charged after the cancel.</source>
        <translation>Flash отменён; после отмены ничего не списано.</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="544"/>
        <source>Run Flash (1 API call)</source>
        <translation>Запустить Flash (1 вызов API)</translation>
    </message>
    <message>
        <location filename="../../ui/search/panel.py" line="566"/>
        <source>rerank</source>
        <translation>реранкинг</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_view.py" line="47"/>
        <location filename="../../ui/search/presenter.py" line="105"/>
        <source>Topic {0} · stage-1 rank {1}</source>
        <translation>Тема {0} · ранг на 1-м этапе {1}</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_view.py" line="50"/>
        <source>Cross-encoder scores</source>
        <translation>Оценки кросс-энкодера</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_view.py" line="51"/>
        <source>cut by top-K</source>
        <translation>отсечено top-K</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_view.py" line="56"/>
        <source>Topic scores (the cross-encoder is scoring them…)</source>
        <translation>Оценки тем (кросс-энкодер их оценивает…)</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_view.py" line="58"/>
        <source>Topic scores (stage 1: the cross-encoder fell back)</source>
        <translation>Оценки тем (этап 1: откат кросс-энкодера)</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_view.py" line="59"/>
        <source>Topic scores (stage 1: the cross-encoder was not asked)</source>
        <translation>Оценки тем (этап 1: кросс-энкодер не спрашивали)</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="108"/>
        <source>Topic scores (kept by Flash)</source>
        <translation>Оценки тем (оставленные Flash)</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="112"/>
        <location filename="../../ui/search/presenter.py" line="117"/>
        <source>Topic scores</source>
        <translation>Оценки тем</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="123"/>
        <source>Selections appear here after a search.</source>
        <translation>Выбранное появится здесь после поиска.</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="126"/>
        <source>The cross-encoder&apos;s choice appears here once its scores are back.</source>
        <translation>Выбор кросс-энкодера появится здесь, когда придут его оценки.</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="128"/>
        <source>Press “Run Flash” to let the LLM choose among the candidates.</source>
        <translation>Нажмите «Запустить Flash», чтобы LLM выбрала из кандидатов.</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="143"/>
        <source>Nothing passed the threshold. Lower the similarity or widen the gap.</source>
        <translation>Порог не прошёл никто. Уменьшите сходство или увеличьте разрыв.</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="149"/>
        <source>Flash kept nothing ({0}).</source>
        <translation>Flash ничего не оставил ({0}).</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="147"/>
        <location filename="../../ui/search/presenter.py" line="150"/>
        <source>Nothing was kept.</source>
        <translation>Ничего не оставлено.</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="159"/>
        <source>Enter the server&apos;s URL in Settings → Flash to use a custom endpoint.</source>
        <translation>Чтобы использовать свой сервер, укажите его URL в «Настройки → Flash».</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="161"/>
        <source>Choose a model in Settings → Flash.</source>
        <translation>Выберите модель в «Настройки → Flash».</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_mode.py" line="42"/>
        <location filename="../../ui/search/cross_encoder_mode.py" line="93"/>
        <source>The cross-encoder</source>
        <translation>Кросс-энкодер</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_mode.py" line="62"/>
        <source>Enter the rerank server&apos;s URL in Settings → Cross-encoder.</source>
        <translation>Укажите URL сервера ранжирования в «Настройки → Кросс-энкодер».</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_mode.py" line="66"/>
        <location filename="../../ui/search/presenter.py" line="164"/>
        <source>No API key for {0}: add one in the API key dialog, or set {1}.</source>
        <translation>Нет API-ключа для {0}: добавьте его в окне «API-ключ» или задайте {1}.</translation>
    </message>
    <message>
        <location filename="../../ui/search/cross_encoder_mode.py" line="96"/>
        <source>Scoring up to {0} of {1} topics on {2}…</source>
        <translation>Оценка тем ({2}): до {0} из {1}…</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="167"/>
        <source>Search first; Flash then chooses among the candidates.</source>
        <translation>Сначала выполните поиск; затем Flash выберет из кандидатов.</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="169"/>
        <source>Costs one paid API call to {0} ({1}), up to {2} tool turns.</source>
        <translation>Стоит один платный вызов API к {0} ({1}), до {2} ходов с инструментами.</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="173"/>
        <source>Runs on {0} at {1} ({2}): local, no cost.</source>
        <translation>Работает на {0} по адресу {1} ({2}): локально, бесплатно.</translation>
    </message>
    <message>
        <location filename="../../ui/search/presenter.py" line="175"/>
        <source>Sends the candidates to {0} at {1} ({2}), up to {3} tool turns.</source>
        <translation>Отправляет кандидатов на {0} по адресу {1} ({2}), до {3} ходов с инструментами.</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="130"/>
        <source>Stage 1: {0}</source>
        <translation>Этап 1: {0}</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="132"/>
        <source>{0}: {1}</source>
        <translation>{0}: {1}</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="137"/>
        <source>{0:,} tokens</source>
        <translation>токенов: {0:,}</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="129"/>
        <location filename="../../ui/search/report.py" line="135"/>
        <source>{0:,} + {1:,} tokens</source>
        <translation>токенов: {0:,} + {1:,}</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="132"/>
        <location filename="../../ui/search/report.py" line="139"/>
        <source>cost ${0:.4f}</source>
        <translation>стоимость ${0:.4f}</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="30"/>
        <location filename="../../ui/search/report.py" line="147"/>
        <source>{0:.0f} ms</source>
        <translation>{0:.0f} мс</translation>
    </message>
    <message>
        <location filename="../../ui/search/ask_words.py" line="31"/>
        <location filename="../../ui/search/report.py" line="148"/>
        <source>{0:.2f} s</source>
        <translation>{0:.2f} с</translation>
    </message>
</context>
<context>
    <name>SelectionCard</name>
    <message>
        <location filename="../../ui/search/cards.py" line="69"/>
        <source>Relevant to this query (label it)</source>
        <translation>Относится к этому запросу (отметить)</translation>
    </message>
    <message>
        <location filename="../../ui/search/cards.py" line="70"/>
        <source>Not relevant to this query (label it)</source>
        <translation>Не относится к этому запросу (отметить)</translation>
    </message>
</context>
<context>
    <name>SelectionCards</name>
    <message>
        <location filename="../../ui/search/cards.py" line="140"/>
        <source>Topic</source>
        <translation>Тема</translation>
    </message>
    <message>
        <location filename="../../ui/search/cards.py" line="140"/>
        <source>Person</source>
        <translation>Человек</translation>
    </message>
    <message>
        <location filename="../../ui/search/cards.py" line="140"/>
        <source>Attachment</source>
        <translation>Вложение</translation>
    </message>
    <message>
        <location filename="../../ui/search/cards.py" line="151"/>
        <source>Selections appear here after a search.</source>
        <translation>Выбранное появится здесь после поиска.</translation>
    </message>
</context>
<context>
    <name>SettingsPanel</name>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="83"/>
        <source>Reset to defaults</source>
        <translation>Сбросить настройки</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="115"/>
        <source>Search</source>
        <translation>Поиск</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="117"/>
        <source>Vector only</source>
        <translation>Только векторы</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="117"/>
        <location filename="../../ui/search/settings_panel.py" line="139"/>
        <source>Threshold</source>
        <translation>Порог</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="118"/>
        <location filename="../../ui/search/settings_panel.py" line="147"/>
        <source>Flash (LLM)</source>
        <translation>Flash (LLM)</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="122"/>
        <source>Reranker</source>
        <translation>Реранкер</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="123"/>
        <source>Candidates</source>
        <translation>Кандидаты</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="124"/>
        <source>Hybrid (vectors + keywords)</source>
        <translation>Гибрид (векторы + слова)</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="127"/>
        <source>Chat</source>
        <translation>Чат</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="127"/>
        <location filename="../../ui/search/settings_panel.py" line="242"/>
        <source>All chats</source>
        <translation>Все чаты</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="129"/>
        <source>From</source>
        <translation>С</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="130"/>
        <source>To</source>
        <translation>По</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="141"/>
        <source>Score ≥</source>
        <translation>Оценка ≥</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="142"/>
        <source>Score gap</source>
        <translation>Разрыв оценок</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="143"/>
        <source>Final top-K</source>
        <translation>Итоговый top-K</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="150"/>
        <source>Custom URL</source>
        <translation>Свой URL</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="151"/>
        <source>Endpoint</source>
        <translation>Сервер</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="154"/>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="162"/>
        <location filename="../../ui/search/settings_panel.py" line="215"/>
        <source>Model</source>
        <translation>Модель</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="163"/>
        <source>none</source>
        <translation>нет</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="163"/>
        <source>minimal</source>
        <translation>минимальное</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="163"/>
        <source>low</source>
        <translation>низкое</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="164"/>
        <source>medium</source>
        <translation>среднее</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="164"/>
        <source>high</source>
        <translation>высокое</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="166"/>
        <source>How long the model may think before it answers (the API&apos;s reasoning effort).</source>
        <translation>Сколько модель может думать перед ответом (reasoning effort в API).</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="167"/>
        <source>Reasoning</source>
        <translation>Рассуждение</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="168"/>
        <source>Timeout</source>
        <translation>Тайм-аут</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="180"/>
        <source>Cross-encoder first</source>
        <translation>Сначала кросс-энкодер</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="187"/>
        <source>Flash reads</source>
        <translation>Flash читает</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="45"/>
        <source> s</source>
        <translation> с</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="46"/>
        <source> tokens</source>
        <translation> токенов</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="118"/>
        <source>Cross-encoder</source>
        <translation>Кросс-энкодер</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="119"/>
        <source>Vector only keeps every candidate; Threshold cuts by score instantly; Cross-encoder has a rerank server score the best topics with each search; Flash asks an LLM to choose (one API call per run).</source>
        <translation>«Только векторы» оставляет всех кандидатов; «Порог» мгновенно отсекает по оценке; «Кросс-энкодер» при каждом поиске просит сервер ранжирования оценить лучшие темы; Flash просит LLM выбрать (один вызов API за запуск).</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="169"/>
        <source>Max tool calls</source>
        <translation>Макс. вызовов</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="170"/>
        <source>Max topics</source>
        <translation>Макс. тем</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="171"/>
        <source>Max people</source>
        <translation>Макс. людей</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="172"/>
        <source>Max artifacts</source>
        <translation>Макс. вложений</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="173"/>
        <source>Rewrite the query first</source>
        <translation>Сначала переписать запрос</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="175"/>
        <source>With recent messages pasted, one short call first rewrites a vague question (“what did he say?”) into a self-contained one; the search runs for both and Flash sees both. Nothing is sent without recent messages.</source>
        <translation>Если вставлены недавние сообщения, один короткий запрос сначала переписывает расплывчатый вопрос («что он сказал?») в самостоятельный; поиск идёт по обоим, и Flash видит оба. Без недавних сообщений ничего не отправляется.</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="182"/>
        <source>The rerank server (Settings → Cross-encoder) scores the topics first and Flash reads only the best of them: fewer tokens sent to the LLM. When the cross-encoder is not asked or fails, Flash reads every candidate.</source>
        <translation>Сервер ранжирования («Настройки → Кросс-энкодер») сначала оценивает темы, и Flash читает только лучшие из них: в LLM уходит меньше токенов. Если кросс-энкодер не спрашивали или он не сработал, Flash читает всех кандидатов.</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="188"/>
        <source>Also make topics with this model</source>
        <translation>Строить топики этой моделью</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="190"/>
        <source>When memory is built, the model splits conversations into topics and decides merges (one API call per chunk of up to 400 messages). Without it, or where it fails, topics get extractive summaries.</source>
        <translation>При сборке памяти модель делит переписку на топики и решает, что объединять (один API-вызов на фрагмент до 400 сообщений). Без неё, или там, где она ошиблась, у топиков извлекающие сводки.</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="198"/>
        <source>Embeddings</source>
        <translation>Эмбеддинги</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="202"/>
        <source>Built-in</source>
        <translation>Встроенная</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="202"/>
        <source>Local model</source>
        <translation>Локальная модель</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="203"/>
        <source>Changing it embeds every topic again in the background; search keeps working.</source>
        <translation>При смене все темы встраиваются заново в фоне; поиск продолжает работать.</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="204"/>
        <source>Matches words and their forms; instant, built into the app.</source>
        <translation>Сопоставляет слова и их формы; мгновенно, встроена в приложение.</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="205"/>
        <source>Matches meaning, also across Russian and English (multilingual-e5-small on this computer&apos;s CPU; building takes minutes to hours).</source>
        <translation>Сопоставляет смысл, в том числе между русским и английским (multilingual-e5-small на процессоре этого компьютера; построение занимает от минут до часов).</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="211"/>
        <source>Not available on Windows yet.</source>
        <translation>Пока недоступна в Windows.</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="212"/>
        <source>Not installed: run {command}</source>
        <translation>Не установлено: выполните {command}</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="231"/>
        <source>any</source>
        <translation>любая</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="244"/>
        <source>(unnamed)</source>
        <translation>(без названия)</translation>
    </message>
    <message>
        <location filename="../../ui/search/settings_panel.py" line="310"/>
        <source>http://host:port/v1</source>
        <translation>http://host:port/v1</translation>
    </message>
</context>
<context>
    <name>StageReport</name>
    <message>
        <location filename="../../ui/search/report.py" line="38"/>
        <source>No search yet.</source>
        <translation>Поиска ещё не было.</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="41"/>
        <source>&lt;b&gt;Flash&lt;/b&gt;: {0} topic candidates ready. Press &lt;i&gt;Run Flash&lt;/i&gt; to let the LLM choose (one paid API call for remote endpoints).</source>
        <translation>&lt;b&gt;Flash&lt;/b&gt;: готово кандидатов-тем: {0}. Нажмите &lt;i&gt;Запустить Flash&lt;/i&gt;, чтобы LLM сделала выбор (один платный вызов API для удалённых серверов).</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="54"/>
        <source>&lt;b&gt;Vector only&lt;/b&gt;: {0} topics retrieved, all kept.</source>
        <translation>&lt;b&gt;Только векторы&lt;/b&gt;: найдено тем: {0}, оставлены все.</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="61"/>
        <source>&lt;b&gt;Threshold&lt;/b&gt; — topics: {0} retrieved → &lt;b&gt;{1}&lt;/b&gt; removed by threshold (&amp;lt; {2:.2f}) → &lt;b&gt;{3}&lt;/b&gt; removed by gap (&amp;gt; {4:.2f}) → &lt;b&gt;{5}&lt;/b&gt; over top-K ({6}) → &lt;b&gt;{7} kept&lt;/b&gt;</source>
        <translation>&lt;b&gt;Порог&lt;/b&gt; — темы: найдено {0} → &lt;b&gt;{1}&lt;/b&gt; отсечено порогом (&amp;lt; {2:.2f}) → &lt;b&gt;{3}&lt;/b&gt; отсечено разрывом (&amp;gt; {4:.2f}) → &lt;b&gt;{5}&lt;/b&gt; сверх top-K ({6}) → &lt;b&gt;оставлено {7}&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="68"/>
        <source>people</source>
        <translation>люди</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="69"/>
        <source>attachments</source>
        <translation>вложения</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="73"/>
        <source>{0}: {1} retrieved, {2} kept</source>
        <translation>{0}: найдено {1}, оставлено {2}</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="79"/>
        <source>&lt;b&gt;Flash&lt;/b&gt; — {0} topics retrieved → &lt;b&gt;{1} kept&lt;/b&gt; · {2} turn(s)</source>
        <translation>&lt;b&gt;Flash&lt;/b&gt; — найдено тем: {0} → &lt;b&gt;оставлено {1}&lt;/b&gt; · ходов: {2}</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="82"/>
        <source>Tool calls:</source>
        <translation>Вызовы инструментов:</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="84"/>
        <source>(no ids)</source>
        <translation>(без id)</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="87"/>
        <source>No tool calls.</source>
        <translation>Вызовов инструментов не было.</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="89"/>
        <source>constrained turns (JSON schema)</source>
        <translation>ограниченные ходы (JSON-схема)</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="90"/>
        <source>tool calls (forced)</source>
        <translation>вызовы инструментов (принудительные)</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="92"/>
        <source>Protocol: {0}</source>
        <translation>Протокол: {0}</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="98"/>
        <source>&lt;span style=&apos;color:#b45309&apos;&gt;&lt;b&gt;Fallback&lt;/b&gt;: {0}&lt;/span&gt;</source>
        <translation>&lt;span style=&apos;color:#b45309&apos;&gt;&lt;b&gt;Откат&lt;/b&gt;: {0}&lt;/span&gt;</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="102"/>
        <source>&lt;b&gt;Cross-encoder first&lt;/b&gt;: {0}</source>
        <translation>&lt;b&gt;Сначала кросс-энкодер&lt;/b&gt;: {0}</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="109"/>
        <source>&lt;b&gt;Cross-encoder&lt;/b&gt; — not asked: {0} topics retrieved → &lt;b&gt;{1} kept&lt;/b&gt; in stage 1&apos;s order</source>
        <translation>&lt;b&gt;Кросс-энкодер&lt;/b&gt; — не спрашивали: найдено тем: {0} → &lt;b&gt;оставлено {1}&lt;/b&gt; в порядке этапа 1</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="112"/>
        <source>&lt;b&gt;Cross-encoder&lt;/b&gt; — {0} topics retrieved → {1} sent in {2} request(s) → &lt;b&gt;{3}&lt;/b&gt; below {4:.2f} → &lt;b&gt;{5}&lt;/b&gt; over top-K ({6}) → &lt;b&gt;{7} kept&lt;/b&gt;</source>
        <translation>&lt;b&gt;Кросс-энкодер&lt;/b&gt; — найдено тем: {0} → отправлено {1} (запросов к серверу: {2}) → &lt;b&gt;{3}&lt;/b&gt; ниже {4:.2f} → &lt;b&gt;{5}&lt;/b&gt; сверх top-K ({6}) → &lt;b&gt;оставлено {7}&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../../ui/search/report.py" line="122"/>
        <source>&lt;span style=&apos;color:#b45309&apos;&gt;&lt;b&gt;Fallback&lt;/b&gt;: {0}&lt;/span&gt; — stage 1&apos;s first topics kept</source>
        <translation>&lt;span style=&apos;color:#b45309&apos;&gt;&lt;b&gt;Откат&lt;/b&gt;: {0}&lt;/span&gt; — оставлены первые темы этапа 1</translation>
    </message>
</context>
<context>
    <name>SweepChart</name>
    <message>
        <location filename="../../ui/evaluate/sweep_chart.py" line="38"/>
        <source>kept precision</source>
        <translation>точность оставленного</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/sweep_chart.py" line="38"/>
        <source>kept recall</source>
        <translation>полнота оставленного</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/sweep_chart.py" line="39"/>
        <source>kept F1</source>
        <translation>F1 оставленного</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/sweep_chart.py" line="40"/>
        <source>Label a few search results, then press Refresh.</source>
        <translation>Отметьте несколько результатов поиска, затем нажмите «Обновить».</translation>
    </message>
    <message>
        <location filename="../../ui/evaluate/sweep_chart.py" line="97"/>
        <source>now {0}: F1 {1:.2f}</source>
        <translation>сейчас {0}: F1 {1:.2f}</translation>
    </message>
</context>
<context>
    <name>TopicViewer</name>
    <message>
        <location filename="../../ui/shell/topic_viewer.py" line="33"/>
        <source>Topic {id}</source>
        <translation>Тема {id}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/topic_viewer.py" line="36"/>
        <source>Loading…</source>
        <translation>Загрузка…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/topic_viewer.py" line="59"/>
        <source>Topic {id} · {chat}</source>
        <translation>Тема {id} · {chat}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/topic_viewer.py" line="61"/>
        <source>{chat} · {when} · messages: {messages} · characters: {chars}</source>
        <translation>{chat} · {when} · сообщений: {messages} · символов: {chars}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/topic_viewer.py" line="75"/>
        <source>Highlighted: the messages the answer cites ({0}).</source>
        <translation>Выделены сообщения, на которые ссылается ответ ({0}).</translation>
    </message>
</context>
<context>
    <name>WindowActions</name>
    <message>
        <location filename="../../ui/shell/actions.py" line="32"/>
        <source>&amp;Import file or zip…</source>
        <translation>&amp;Импорт файла или zip…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="34"/>
        <source>Import</source>
        <translation>Импорт</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="35"/>
        <source>Import a chat export: a file or a zip</source>
        <translation>Импортировать выгрузку чата: файл или zip</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="36"/>
        <source>Import &amp;folder…</source>
        <translation>Импорт &amp;папки…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="37"/>
        <source>Import folder</source>
        <translation>Импорт папки</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="38"/>
        <source>Import an export folder (for example a Telegram DataExport folder)</source>
        <translation>Импортировать папку с выгрузкой (например, папку DataExport из Telegram)</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="39"/>
        <source>Open the &amp;demo</source>
        <translation>Открыть &amp;демо</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="40"/>
        <source>&amp;Build memory</source>
        <translation>&amp;Построить память</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="42"/>
        <source>Build memory</source>
        <translation>Построить память</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="43"/>
        <source>Find topics, embed them and update the index for new messages</source>
        <translation>Найти темы в новых сообщениях, векторизовать их и обновить индекс</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="44"/>
        <source>API &amp;key…</source>
        <translation>API-&amp;ключ…</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="45"/>
        <source>API key</source>
        <translation>API-ключ</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="46"/>
        <source>&amp;Reset window</source>
        <translation>&amp;Сбросить окно</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="47"/>
        <source>Put the panels back where they were at the first start</source>
        <translation>Вернуть панели туда, где они были при первом запуске</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="48"/>
        <source>&amp;Quit</source>
        <translation>&amp;Выход</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="49"/>
        <source>Open &amp;data folder</source>
        <translation>Открыть папку с &amp;данными</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="50"/>
        <source>Show the folder that holds the store, the index and the run history</source>
        <translation>Показать папку, где лежат хранилище, индекс и история запусков</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="51"/>
        <source>&amp;About Flashback</source>
        <translation>&amp;О программе Flashback</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="58"/>
        <source>System language</source>
        <translation>Язык системы</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="85"/>
        <source>&amp;File</source>
        <translation>&amp;Файл</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="91"/>
        <source>&amp;Export</source>
        <translation>&amp;Экспорт</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="96"/>
        <source>&amp;Memory</source>
        <translation>&amp;Память</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="99"/>
        <source>&amp;View</source>
        <translation>&amp;Вид</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="105"/>
        <source>&amp;Settings</source>
        <translation>&amp;Настройки</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="107"/>
        <source>&amp;Language</source>
        <translation>&amp;Язык</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="112"/>
        <source>&amp;Help</source>
        <translation>&amp;Справка</translation>
    </message>
    <message>
        <location filename="../../ui/shell/actions.py" line="117"/>
        <source>Main</source>
        <translation>Основная</translation>
    </message>
</context>
<context>
    <name>errors</name>
    <message>
        <location filename="../../ui/shell/errors.py" line="41"/>
        <source>Flashback is not allowed to open {name}. Check the file&apos;s permissions.</source>
        <translation>Flashback не может открыть {name}: нет доступа. Проверьте права на файл.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/errors.py" line="42"/>
        <source>a file</source>
        <translation>файл</translation>
    </message>
    <message>
        <location filename="../../ui/shell/errors.py" line="44"/>
        <source>{name} does not exist (any more).</source>
        <translation>{name} не существует (больше).</translation>
    </message>
    <message>
        <location filename="../../ui/shell/errors.py" line="45"/>
        <source>The file</source>
        <translation>Файл</translation>
    </message>
    <message>
        <location filename="../../ui/shell/errors.py" line="47"/>
        <source>The system refused a file operation: {reason}</source>
        <translation>Система отказала в операции с файлом: {reason}</translation>
    </message>
    <message>
        <location filename="../../ui/shell/errors.py" line="53"/>
        <source>Flashback hit an internal error ({kind}). Nothing you did caused it; the details are in the log.</source>
        <translation>Во Flashback произошла внутренняя ошибка ({kind}). Вы ни при чём; подробности — в журнале.</translation>
    </message>
    <message>
        <location filename="../../ui/shell/errors.py" line="50"/>
        <source>Flashback hit an internal error ({kind}). Nothing you did caused it; the details are in {log} (please attach it when you report this).</source>
        <translation>Во Flashback произошла внутренняя ошибка ({kind}). Вы ни при чём; подробности — в файле {log} (приложите его, когда будете сообщать об ошибке).</translation>
    </message>
    <message>
        <location filename="../../ui/shell/errors.py" line="119"/>
        <source>Unexpected error</source>
        <translation>Непредвиденная ошибка</translation>
    </message>
</context>
</TS>
