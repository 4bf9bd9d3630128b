"""The search view: candidates beside selections, sliders that re-filter instantly, Flash on demand."""

from ui.search.panel import SearchPanel
from ui.search.settings_model import SearchSettings
from ui.search.settings_panel import SettingsPanel

__all__ = ["SearchPanel", "SearchSettings", "SettingsPanel"]
