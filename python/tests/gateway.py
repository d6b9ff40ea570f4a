"""A stand-in gateway in front of the API, for what only a network between the SDK and the service can
do: cut a stream, answer 500 or 503 before the service sees the request."""

from __future__ import annotations

import socket
import threading


class CuttingProxy:
    """A TCP proxy to the API (a gateway in front of it) that cuts the first /v1/execute/stream answer
    right after its first event; with ``fail`` it answers the first ``fail[1]`` requests to the path ``fail[0]`` with ``status`` (503 by
    default: a gateway briefly unavailable; or 500) itself. ``paths`` lists every request line it saw
    with its Last-Event-ID, ``keys`` every Idempotency-Key."""

    def __init__(self, upstream: str, fail: tuple[str, int] | None = None, status: int = 503) -> None:
        self.fail_path, self.fail_left = fail or ("", 0)
        self.status = status
        self.keys: list[str] = []
        host, port = upstream.split("//")[1].split(":")
        self.upstream = (host, int(port.split("/")[0]))
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.cut = False
        self.paths: list[tuple[str, str]] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self.server.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        upstream = socket.create_connection(self.upstream)
        head = conn.recv(65536)
        request_line = head.split(b"\r\n")[0].decode()
        last_event_id = next((line.split(b":", 1)[1].strip().decode() for line in head.split(b"\r\n") if line.lower().startswith(b"last-event-id:")), "")
        self.paths.append((request_line, last_event_id))
        self.keys.extend(line.split(b":", 1)[1].strip().decode() for line in head.split(b"\r\n") if line.lower().startswith(b"idempotency-key:"))
        if self.fail_left > 0 and f" {self.fail_path} " in request_line:
            self.fail_left -= 1
            code = "service_unavailable" if self.status == 503 else "internal_error"
            body = ('{"error": {"code": "%s", "message": "temporarily unavailable", "status": %d, "request_id": "req_gateway"}}' % (code, self.status)).encode()
            conn.sendall(b"HTTP/1.1 " + str(self.status).encode() + b" Unavailable\r\ncontent-type: application/json\r\nretry-after: 0\r\nconnection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            upstream.close()
            conn.close()
            return
        cutting = " /v1/execute/stream " in request_line and not self.cut
        self.cut = self.cut or cutting
        upstream.sendall(head)

        def pump_up() -> None:
            try:
                while chunk := conn.recv(65536):
                    upstream.sendall(chunk)
            except OSError:
                pass

        threading.Thread(target=pump_up, daemon=True).start()
        seen = b""
        try:
            while chunk := upstream.recv(65536):
                if cutting:
                    seen += chunk
                    at = seen.find(b"event: output")
                    end = seen.find(b"\n\n", at) if at >= 0 else -1
                    if end >= 0:
                        conn.sendall(seen[: end + 2])
                        break
                    continue
                conn.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (conn, upstream):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
