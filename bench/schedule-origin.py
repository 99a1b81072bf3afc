"""Origin of bench/schedule.sh --live: /fixed/<kind><i> and /adaptive/<kind><i>
pages, kind s (static) or c (changes every PERIOD seconds from a random phase),
with ETags and 304s. Logs every request as "<time> <path> <version>" to LOG, and each
changing page's phase (its first change) as "# phase <path> <seconds>", so the
script can count checks and time each change to the first request that saw it.

    python3 schedule-origin.py PORT PERIOD LOG
"""
import http.server
import random
import sys
import threading
import time

port, period, log_path = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
start = time.time()
phases = {}
lock = threading.Lock()
log = open(log_path, "w", buffering=1)


def version(path):
    if "/c" not in path:
        return 0
    with lock:
        if path not in phases:
            phases[path] = random.uniform(0, period)
            log.write(f"# phase {path} {phases[path]:.3f}\n")
        phase = phases[path]
    elapsed = time.time() - start
    return 0 if elapsed < phase else int((elapsed - phase) // period) + 1


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        current = version(self.path)
        with lock:
            log.write(f"{time.time() - start:.3f} {self.path} {current}\n")
        etag = f'"{current}"'
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = f"<html><body><h1>{self.path}</h1><p>version {current}</p></body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("ETag", etag)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


with lock:
    # The phases' origin: the log's time zero.
    log.write(f"# start {start:.3f} period {period}\n")
http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
