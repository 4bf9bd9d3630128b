"""The Evaluate view's help: the definitions of every figure it shows (docs/evaluation.md says
the same in more words)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

translate = QCoreApplication.translate


def help_html() -> str:
    rows = (
        (translate("EvaluatePanel", "Labelled set"),
         translate("EvaluatePanel", "Every query you labelled in the search view (its text, filters and the time "
                                    "of the first label), or imported from a QRELS file. A label belongs to the "
                                    "messages of the topic you marked, so it survives a rebuild.")),
        (translate("EvaluatePanel", "Relevant"),
         translate("EvaluatePanel", "The topics holding at least one message labelled relevant (evidence), in "
                                    "the current build. A query with no relevant topic is listed but not scored.")),
        (translate("EvaluatePanel", "Kept precision"),
         translate("EvaluatePanel", "|kept ∩ relevant| / |kept|: the share of the kept topics that are relevant "
                                    "(0 when nothing is kept).")),
        (translate("EvaluatePanel", "Kept recall"),
         translate("EvaluatePanel", "|kept ∩ relevant| / |relevant|: the share of the relevant topics that were "
                                    "kept.")),
        (translate("EvaluatePanel", "F1"),
         translate("EvaluatePanel", "2 · precision · recall / (precision + recall), per query (0 when both are "
                                    "0).")),
        (translate("EvaluatePanel", "Stage-1 recall@10"),
         translate("EvaluatePanel", "The share of the relevant topics among the first 10 stage-1 candidates: what "
                                    "the reranker had to choose from.")),
        (translate("EvaluatePanel", "Evidence@8000"),
         translate("EvaluatePanel", "The share of the relevant messages inside the topics taken whole, kept ones "
                                    "first and then the other candidates, until 8,000 characters are full (as "
                                    "`flashback eval`).")),
        (translate("EvaluatePanel", "Means"),
         translate("EvaluatePanel", "Averages over the scored queries: every query counts the same.")),
        (translate("EvaluatePanel", "Sweep"),
         translate("EvaluatePanel", "The mean kept precision, recall and F1 as one setting moves over its "
                                    "slider's range, the other two as they are now; from the frozen candidates, "
                                    "no new search. The dashed line is the current value.")),
        (translate("EvaluatePanel", "Auto-tune"),
         translate("EvaluatePanel", "Tries every threshold, gap and top-K on the sliders' grid. Cross-validated: "
                                    "the queries are split into 5 folds, each fold is scored with the settings "
                                    "that were best on the other four, so the figure is what to expect on "
                                    "questions it was not tuned on.")),
        (translate("EvaluatePanel", "Comparison"),
         translate("EvaluatePanel", "Runs the cross-encoder, Flash or both once per labelled query on the same "
                                    "frozen candidates (each call is kept in the run history) and scores what "
                                    "each kept beside the threshold reranker, by the definitions above. The cost "
                                    "is estimated before anything is sent.")),
    )
    body = "".join(f"<tr><td valign='top'><b>{name}</b></td><td>{text}</td></tr>" for name, text in rows)
    return f"<table cellspacing='6'>{body}</table>"
