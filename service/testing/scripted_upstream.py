"""A scripted upstream on loopback for tests and benchmarks: a tiny HTTP server answering
``POST /v1/search`` as its ``behaviour`` says (answer, answer late, fail with a status, or
trickle the answer a byte at a time), counting the requests it gets; ``close`` stops it
listening, so calls are then refused. Nothing here imports the service."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Behaviour = Literal["answer", "slow", "fail", "trickle"]


class ScriptedUpstream:
    def __init__(self, results: list[dict[str, Any]] | None = None) -> None:
        self.results = results or []
        """The hits every answer carries."""
        self.behaviour: Behaviour = "answer"
        self.delay = 0.0
        """Seconds a ``slow`` answer waits (or a ``trickle`` waits between bytes)."""
        self.status = 503
        """What a ``fail`` answers."""
        self.requests: list[dict[str, Any]] = []
        """The bodies of the searches received, in order."""
        self.headers: list[dict[str, str]] = []
        """Their headers (names in lower case), in the same order."""
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def close(self) -> None:
        """Stop listening: calls to ``url`` are refused from now on."""
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        script = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: object) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(size) or b"{}")
                with script._lock:
                    script.requests.append(body)
                    script.headers.append({k.lower(): v for k, v in self.headers.items()})
                behaviour = script.behaviour
                if behaviour == "fail":
                    self._send(script.status, {"title": "scripted failure"})
                    return
                if behaviour == "slow":
                    time.sleep(script.delay)
                answer = {"results": script.results[: int(body.get("limit", 10))]}
                if behaviour == "trickle":
                    self._trickle(answer, script.delay)
                    return
                self._send(200, answer)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Connection", "close")  # so a closed server refuses
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up waiting
                    pass

            def _trickle(self, payload: dict[str, Any], delay: float) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(200)
                    self.send_header("Connection", "close")
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    for n in range(len(data)):
                        self.wfile.write(data[n : n + 1])
                        self.wfile.flush()
                        time.sleep(delay)
                except OSError:
                    pass

        return Handler
