"""Русские тексты для каждого кода сообщений движка (`engine.messages`); ключи — те же, что в `en.py`."""

from __future__ import annotations

CATALOGUE: dict[str, str] = {
    "error.text": "{text}",
    "import.cannot_read": "Не удалось импортировать {source}: {problem}",
    "import.cannot_read_at": "Не удалось импортировать {source} ({where}): {problem}",
    "import.cancelled": "Импорт отменён; ничего не изменено.",
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
}
