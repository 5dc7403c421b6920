"""doctor's first-contact checks: the package index and a registry answer or not (real sockets), and
the disk has room for the images or not."""
from __future__ import annotations

import http.server
import socket
import threading
from pathlib import Path

from harness.environments import doctor


def test_an_address_nobody_serves_is_said_not_to_answer_and_a_server_that_refuses_still_answers() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nobody listens there
    why = doctor.reachable(f"http://127.0.0.1:{port}/simple/", timeout=2)
    assert why and "refused" in why.lower()
    check = doctor.reach_check("package index", f"http://127.0.0.1:{port}/simple/", "use a mirror")
    assert check.ok is False and check.fix == "use a mirror" and "does not answer" in check.detail

    class Refusing(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:  # noqa: N802 - the http.server protocol
            self.send_response(401)  # a registry asking for a token has answered
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert doctor.reachable(f"http://127.0.0.1:{server.server_port}/v2/", timeout=2) is None
    finally:
        server.shutdown()
        server.server_close()


def test_the_disk_check_names_what_is_free_and_what_is_needed(tmp_path: Path) -> None:
    roomy = doctor.disk_check("disk for images", str(tmp_path), need=1)
    assert roomy.ok is True and str(tmp_path) in roomy.detail and not roomy.fix
    full = doctor.disk_check("disk for images", str(tmp_path), need=1 << 60)
    assert full.ok is False and "docker system prune" in full.fix and "--backend venv" in full.fix
