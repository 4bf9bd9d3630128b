"""The one progress throttle: a new stage always gets through, the same stage once per interval."""

from __future__ import annotations

from engine.progress import ProgressThrottle


def test_a_new_stage_always_passes_the_same_stage_once_per_interval():
    now = [0.0]
    throttle = ProgressThrottle(0.05, key=lambda value: value[0], clock=lambda: now[0])
    assert throttle(("import", 1))
    assert not throttle(("import", 2))  # same stage, too soon
    assert throttle(("build", 0))  # a new stage, however soon: its label matters
    now[0] = 0.049
    assert not throttle(("build", 1))
    now[0] = 0.051
    assert throttle(("build", 2))
