"""A launcher's command (``torchrun``, ``accelerate launch``, ``python -m torch.distributed.run``...)
run as the user typed it, with each process it starts for the script instrumented.

Runs INSIDE the environment: stdlib only, Python 2.7 and 3.5+. This process is the launcher's
parent, not a rank: it takes the place of the user's shell. Where the command names the script,
the launcher is given ``rank.py SCRIPT`` in its place, so every rank runs the script unmodified
with its checkpoints; the ranks send them here over a Unix socket, and each is forwarded to the
host, one at a time, and answered once measured. The launcher's exit code is the cell's.
"""
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile

import framework_view  # beside this file
from as_bare import RANK_CHANNEL_VAR

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON, SCRIPT = "{python}", "{script}"  # placeholders in the command the host sends


def command(launch, script):
    """The argv to start: the environment's Python for ``{python}``, the rank shim and the script
    for ``{script}``."""
    argv = []
    for arg in launch:
        if arg == PYTHON:
            argv.append(sys.executable)
        elif arg == SCRIPT:
            argv.extend([os.path.join(HERE, "rank.py"), script])
        else:
            argv.append(arg)
    return argv


def _label(message):
    who = "rank %s" % message["rank"] if message.get("rank") is not None else "pid %s" % message.get("pid")
    return "%s: %s" % (who, message.get("label"))


class Relay(object):
    """Forwards the ranks' events to the host; answers a checkpoint once the host has measured it."""

    def __init__(self, channel):
        self.channel = channel
        self.errors = []  # (rank or pid, type, message) of the ranks that failed, in order
        self.facts = None  # what the first rank to end ran (its Python, frameworks, CUDA)

    def handle(self, conn, message):
        event = message.pop("event", None)
        if event == "checkpoint":
            self.channel.seq += 1
            seq = self.channel.seq
            message.update(seq=seq, label=_label(message))
            self.channel.send("checkpoint", **message)
            self.channel.wait_ack(seq)
            try:
                conn.sendall(b"ack\n")
            except (IOError, OSError):  # the rank ended while measured (its launcher tore it down): nothing to answer
                pass
        elif event == "rank-error":
            who = message.get("rank") if message.get("rank") is not None else message.get("pid")
            self.errors.append((who, message.get("type"), message.get("message")))
        elif event == "rank-facts":
            self.facts = self.facts or message.get("facts")
        elif event == "child-exit":
            self.channel.send("child-exit", pid=message.get("pid"), code=message.get("code"))


def _serve(server, relay, proc):
    conns = {}
    while True:
        readable, _, _ = select.select([server] + list(conns), [], [], 0.05)
        for sock in readable:
            if sock is server:
                conn, _ = server.accept()
                conns[conn] = b""
                continue
            try:
                chunk = sock.recv(65536)
            except (IOError, OSError):  # a rank killed mid-line: its connection is over
                chunk = b""
            if not chunk:
                del conns[sock]
                sock.close()
                continue
            conns[sock] += chunk
            while b"\n" in conns[sock]:
                line, conns[sock] = conns[sock].split(b"\n", 1)
                relay.handle(sock, json.loads(line.decode("utf-8")))
        if proc.poll() is not None and not conns and not readable:
            return


def run(launch, script, channel, checkpoint):
    """Start the launcher, serve its ranks until it and they have ended: its exit code (a shell's,
    128+N for a signal), the first failing rank's error, and what the ranks ran."""
    folder = tempfile.mkdtemp(prefix="harness-ranks-")
    address = os.path.join(folder, "channel")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address)
    server.listen(64)
    env = dict(os.environ)
    env[RANK_CHANNEL_VAR] = json.dumps({"address": address, "frameworks": framework_view.FRAMEWORKS})
    # The environment's own commands (torchrun, accelerate) first, as in its activated shell.
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    relay = Relay(channel)
    checkpoint("launch")
    try:
        proc = subprocess.Popen(command(launch, script), env=env)
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError("cannot start %s here: %s" % (launch[0], exc))
    try:
        _serve(server, relay, proc)
    finally:
        server.close()
        shutil.rmtree(folder, ignore_errors=True)
    checkpoint("end")
    code, error = proc.returncode, None
    if code != 0 and relay.errors:
        who, kind, text = relay.errors[0]
        error = {"type": kind, "message": "%s (rank %s; the launcher exited with %s)" % (text, who, code)}
    elif code != 0:
        error = {"type": "LauncherFailed", "message": "the launcher exited with %s" % code}
    return {"code": code if code >= 0 else 128 - code, "error": error, "facts": relay.facts}
