"""Small display helpers shared by the shell's views: dates, numbers, table items."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTreeWidgetItem


def to_datetime(value: object) -> datetime | None:
    """An epoch (the store's REAL seconds), an ISO string (run history) or a datetime, in local time."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, int | float):
        try:
            moment = datetime.fromtimestamp(float(value), UTC)
        except (ValueError, OverflowError, OSError):  # a year past 9999 in a store older than issue 34
            return None
    else:
        try:
            moment = datetime.fromisoformat(str(value))
        except ValueError:
            return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone()


def day(value: object) -> str:
    moment = to_datetime(value)
    return moment.strftime("%Y-%m-%d") if moment else "—"


def minute(value: object) -> str:
    moment = to_datetime(value)
    return moment.strftime("%Y-%m-%d %H:%M") if moment else "—"


def span(first: object, last: object) -> str:
    start, end = day(first), day(last)
    return start if start == end else f"{start} – {end}"


def row(values: list[object]) -> QTreeWidgetItem:
    """A tree row. Numbers are stored as numbers (DisplayRole), so sorting happens in C++
    and numerically ("9" before "10"), and the delegate shows them in the locale's format;
    everything else is text (dates are ISO, which sorts right as text)."""
    item = QTreeWidgetItem()
    for column, value in enumerate(values):
        if isinstance(value, int | float) and not isinstance(value, bool):
            item.setData(column, Qt.ItemDataRole.DisplayRole, value)
            item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        else:
            item.setText(column, "" if value is None else str(value))
    return item


def fill(tree, items: list[QTreeWidgetItem], sort_column: int, order: Qt.SortOrder) -> None:
    """Replace a tree's rows in one go: sorting off while adding (else every insert re-sorts)."""
    tree.setUpdatesEnabled(False)
    tree.setSortingEnabled(False)
    tree.clear()
    tree.addTopLevelItems(items)
    tree.setSortingEnabled(True)
    tree.sortItems(sort_column, order)
    fit_columns(tree)
    tree.setUpdatesEnabled(True)


COLUMN_CAP = 130  # a long chat name or handle is elided: the stretching column needs the room more


def fit_columns(tree) -> None:
    """Fit every column but the stretching one to its cells and its title. Qt's own fitting
    reserves the sort arrow's room in every column (~20 px each, most of a narrow dock);
    here only the sorted column gets it."""
    header = tree.header()
    metrics = header.fontMetrics()
    margin = 2 * tree.style().pixelMetric(tree.style().PixelMetric.PM_HeaderMargin, None, header)
    for column in range(tree.columnCount()):
        if header.sectionResizeMode(column) == header.ResizeMode.Stretch:
            continue
        title = metrics.horizontalAdvance(tree.headerItem().text(column)) + margin
        if column == header.sortIndicatorSection():
            title += metrics.height() + margin
        header.resizeSection(column, min(max(tree.sizeHintForColumn(column) + 8, title), COLUMN_CAP))
