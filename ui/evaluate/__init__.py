"""The Evaluate view: the labelled queries scored, swept and tuned (issue 14)."""

from ui.evaluate.panel import EvaluatePanel

__all__ = ["EvaluatePanel"]
