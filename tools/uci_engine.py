"""A UCI engine behind pipes, shared by the scripts that time one from outside as a GUI would
(tools/latency.py, benches/speed.py). Only the standard library is needed."""

import subprocess


class Engine:
    """A started engine that has answered `uciok`, with `options` (UCI option name to value)
    set and `readyok` read."""

    def __init__(self, command, options=None):
        self.process = subprocess.Popen([command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("uci")
        self.wait_for("uciok")
        for name, value in (options or {}).items():
            self.send(f"setoption name {name} value {value}")
        self.ready()

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait_for(self, prefix):
        """The lines up to and including the first that starts with `prefix` (the last)."""
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the engine closed its output")
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines

    def ready(self):
        self.send("isready")
        self.wait_for("readyok")

    def quit(self):
        self.send("quit")
        self.process.wait(timeout=10)
