"""One process a launcher started (a rank of ``torchrun``, ``accelerate launch``, ...): the user's
script, unmodified, with its checkpoints sent to the agent that started the launcher.

Runs INSIDE the environment: stdlib only, Python 2.7 and 3.5+. The launcher runs
``python rank.py SCRIPT ARGS...`` where a bare run has ``python SCRIPT ARGS...``; before the
script's first line this process looks as that one would (argv, sys.path[0], __main__, no
module of ours loaded, no variable of ours set). Its checkpoints go, one JSON line each, to the
agent's socket (named by HARNESS_RANK_CHANNEL), which forwards them to the host and answers once
the host has measured.
"""
import sys

BARE_MODULES = frozenset(sys.modules)

import json  # noqa: E402  (after the snapshot above)
import os  # noqa: E402
import socket  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import agent  # noqa: E402  (lives beside this file)
import as_bare  # noqa: E402

RANK_VARS = ("RANK", "LOCAL_RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID")


def rank_of(environ):
    """The rank a launcher gave this process, where it says one."""
    for name in RANK_VARS:
        value = environ.get(name, "")
        if value.isdigit():
            return int(value)
    return None


class RankChannel(object):
    """A rank's end of the protocol: a line to the agent per event, a line back per checkpoint."""

    def __init__(self, address, rank):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(address)
        self.rank = rank
        self.seq = 0
        self.pending = b""

    def send(self, event, **fields):
        fields.update(event=event, pid=os.getpid())
        if self.rank is not None:
            fields["rank"] = self.rank
        self.sock.sendall((json.dumps(fields, sort_keys=True) + "\n").encode("utf-8"))

    def wait_ack(self, seq):
        while b"\n" not in self.pending:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("the agent closed the channel before checkpoint %d was measured" % seq)
            self.pending += chunk
        _, self.pending = self.pending.split(b"\n", 1)


def main(argv):
    given = json.loads(os.environ.pop(as_bare.RANK_CHANNEL_VAR))  # the script finds no variable of ours
    agent.framework_view.know(given["frameworks"])
    channel = RankChannel(given["address"], rank_of(os.environ))
    try:
        agent.run_script(argv[1], argv[2:], channel, BARE_MODULES)
    except BaseException:
        exc_type, exc_value = sys.exc_info()[:2]
        if not (exc_type is SystemExit and not exc_value.code):
            channel.send("rank-error", type=exc_type.__name__, message=as_bare.failure_message(sys.exc_info()))
        code = as_bare.exit_code(sys.exc_info())
    else:
        code = 0
    channel.send("rank-facts", facts=agent.framework_view.facts())  # what this rank ran: its frameworks
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
