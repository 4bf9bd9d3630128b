"""Evaluation against relevance judgements (QRELS): the measure of the whole product."""
