#!/usr/bin/env python3
"""Load test of `sentinel serve` on loopback: many clients at once, for a bounded time.

Starts the server (target/release/sentinel unless --binary names another, on a free loopback
port) or uses the one at --url, then runs --clients threads for --seconds, each asking in turn
for analyses (POST /api/analyse, GET /chess) and moves (POST /api/move), as a client of a web
page would. A client whose request is refused with 503 waits as its Retry-After says (a second
at most) and goes on. At the end it prints how many requests were answered, refused and lost
(no answer, a broken connection or a status that is neither), the latencies, and the server's
memory (resident set, sampled twice a second), and exits 1 if any was lost or the server died.
It is a measurement, not a test: docs/serve.md has its figures and the command that made them.

    tools/serve-load.py                        # 50 clients, 60 s
    tools/serve-load.py --clients 80 --seconds 30 -- --queue 32 --threads 2
"""

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

OPENINGS = [
    ("startpos", []),
    ("startpos", ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]),
    ("startpos", ["d2d4", "g8f6", "c2c4", "e7e6", "b1c3", "f8b4"]),
    ("startpos", ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4", "c5d4", "f3d4", "g8f6", "b1c3", "a7a6"]),
    ("r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4", []),
    ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", []),
    ("8/8/4k3/8/2R5/8/4K3/8 w - - 0 1", []),
]


def request(host, port, kind, rng, timeout, token):
    """One request of `kind`; returns (status, retry_after, error)."""
    fen, moves = rng.choice(OPENINGS)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    if kind == "analyse":
        body = {"fen": fen, "moves": moves, "depth": rng.randint(3, 6), "multipv": rng.randint(1, 3)}
        method, path = "POST", "/api/analyse"
    elif kind == "move":
        body = {"fen": fen, "moves": moves, "elo": rng.randint(800, 2400), "wtime": 30000, "btime": 30000,
                "winc": 100, "binc": 100}
        method, path = "POST", "/api/move"
    else:
        body = None
        method, path = "GET", "/chess?depth=%d&fen=%s" % (rng.randint(2, 5), fen.replace(" ", "%20"))
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = connection.getresponse()
        data = response.read()
        retry = response.getheader("Retry-After")
        if response.status == 200:
            if kind == "chess":
                ok = len(data.strip()) >= 4
            else:
                answer = json.loads(data)
                ok = (answer.get("bestmove") if kind == "analyse" else answer.get("move")) is not None
            return response.status, None, None if ok else "an answer without a move: %r" % data[:200]
        if response.status >= 400:
            message = json.loads(data).get("error")
            if not message:
                return response.status, None, "a refusal without a message"
        return response.status, float(retry) if retry else None, None
    except Exception as e:  # a lost request: timeout, reset, unreadable answer
        return None, None, "%s: %s" % (type(e).__name__, e)
    finally:
        connection.close()


def resident_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def percentile(values, share):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default="target/release/sentinel")
    parser.add_argument("--url", help="an already running server (host:port); no memory figures then")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--max-requests", type=int, default=100000, help="stop after this many in all")
    parser.add_argument("--timeout", type=float, default=60, help="seconds a request may take before it is lost")
    parser.add_argument("--token")
    parser.add_argument("server_args", nargs="*", help="arguments for `sentinel serve` (after --)")
    args = parser.parse_args()

    server = None
    if args.url:
        host, port = args.url.rsplit(":", 1)
        port = int(port)
    else:
        command = [args.binary, "serve", "--listen", "127.0.0.1:0"] + args.server_args
        log = tempfile.TemporaryFile(mode="w+")
        server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
        line = server.stdout.readline().strip()
        if not line.startswith("listening on http://"):
            log.seek(0)
            print("the server did not start: %r %s" % (line, log.read()), file=sys.stderr)
            return 1
        host, port = line[len("listening on http://"):].rsplit(":", 1)
        port = int(port)

    results = []  # (kind, status, seconds, error)
    lock = threading.Lock()
    deadline = time.monotonic() + args.seconds
    sent = [0]

    def client(number):
        rng = random.Random(number)
        while time.monotonic() < deadline:
            with lock:
                if sent[0] >= args.max_requests:
                    return
                sent[0] += 1
            kind = rng.choice(["analyse", "analyse", "move", "move", "chess"])
            start = time.monotonic()
            status, retry, error = request(host, port, kind, rng, args.timeout, args.token)
            elapsed = time.monotonic() - start
            with lock:
                results.append((kind, status, elapsed, error))
            if status == 503:
                time.sleep(min(retry or 1.0, 1.0) * rng.uniform(0.5, 1.0))

    memory = []
    sampling = [True]

    def sample():
        while sampling[0] and server is not None:
            kb = resident_kb(server.pid)
            if kb is not None:
                memory.append(kb)
            time.sleep(0.5)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    sampling[0] = False
    sampler.join()

    # The server after the storm: still there, and answering.
    after, _, after_error = request(host, port, "chess", random.Random(0), args.timeout, args.token)
    status_json = None
    try:
        connection = http.client.HTTPConnection(host, port, timeout=10)
        headers = {"Authorization": "Bearer " + args.token} if args.token else {}
        connection.request("GET", "/api/status", headers=headers)
        status_json = json.loads(connection.getresponse().read())
    except Exception:
        pass
    alive = server is None or server.poll() is None
    if server is not None:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()

    answered = [r for r in results if r[1] == 200 and r[3] is None]
    refused = [r for r in results if r[1] == 503]
    rejected = [r for r in results if r[1] is not None and 400 <= r[1] < 500]
    lost = [r for r in results if r not in answered and r not in refused and r not in rejected]
    print("clients %d, %.1f s, %d requests (%.1f a second)" % (args.clients, wall, len(results), len(results) / wall))
    for name, group in [("answered", answered), ("refused 503", refused), ("refused 4xx", rejected)]:
        times = [r[2] * 1000 for r in group]
        if times:
            print("%-12s %6d  latency median %7.1f ms, 95%% %7.1f ms, worst %7.1f ms"
                  % (name, len(group), statistics.median(times), percentile(times, 0.95), max(times)))
        else:
            print("%-12s %6d" % (name, 0))
    for kind in ["analyse", "move", "chess"]:
        group = [r for r in answered if r[0] == kind]
        print("  answered %-8s %6d" % (kind, len(group)))
    print("lost         %6d" % len(lost))
    for r in lost[:10]:
        print("  %s: status %s after %.1f s: %s" % (r[0], r[1], r[2], r[3]))
    if memory:
        print("memory (resident): start %.1f MB, peak %.1f MB, end %.1f MB"
              % (memory[0] / 1024, max(memory) / 1024, memory[-1] / 1024))
    if status_json:
        print("server's count: %s" % json.dumps(status_json.get("queue")))
    print("after the load: %s" % ("answered" if after == 200 else "NOT answered (%s %s)" % (after, after_error)))
    print("server %s" % ("still running" if alive else "DIED"))
    return 0 if not lost and alive and after == 200 else 1


if __name__ == "__main__":
    sys.exit(main())
