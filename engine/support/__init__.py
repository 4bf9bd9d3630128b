"""Whether a text is supported by the messages it cites (issue 32): the verifier Ask's claims
and the Archivist's facts share. See `engine.support.check`."""

from engine.support.check import Evidence, Verdict, check

__all__ = ["Evidence", "Verdict", "check"]
