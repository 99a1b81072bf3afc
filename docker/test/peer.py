#!/usr/bin/env python3
"""The outside world of `make docker-test`: a watched origin and a webhook receiver.

    peer.py serve HOST PORT RECORDS     serve until SIGTERM
    peer.py summary RECORDS SECRET      print what the origin and the receiver
                                        saw, as JSON (counts by event type,
                                        duplicate webhook-ids, bad signatures)

`serve` answers
    GET  /page          an HTML page whose release line is "version N" (ETag "vN",
                        304 to a matching If-None-Match)
    GET  /control/ping  200, for the script to see the peer is up
    POST /control/bump  N := N + 1 (the test script calls it)
    POST /hook          a webhook delivery: 204, recorded as one JSON line in
                        RECORDS (webhook-* headers and body)
and appends one JSON line per origin fetch too, so the script can see the
poller's baseline check. Python standard library only: the test runs it on
the host with the system python3.
"""

import base64
import hashlib
import hmac
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Peer:
    def __init__(self, records_path):
        self.version = 1
        self.lock = threading.Lock()
        self.records = open(records_path, "a", encoding="utf-8")

    def record(self, entry):
        with self.lock:
            self.records.write(json.dumps(entry) + "\n")
            self.records.flush()


def handler_for(peer):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def send(self, status, body=b"", headers=()):
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body:
                self.wfile.write(body)

        def do_GET(self):
            if self.path == "/control/ping":
                return self.send(200)
            if self.path != "/page":
                return self.send(404)
            with peer.lock:
                version = peer.version
            etag = f'"v{version}"'
            peer.record({"kind": "fetch", "version": version,
                         "if_none_match": self.headers.get("If-None-Match")})
            if self.headers.get("If-None-Match") == etag:
                return self.send(304, headers=[("ETag", etag)])
            body = (f"<html><body><main><p class=\"release\">version {version}</p>"
                    "</main></body></html>").encode()
            self.send(200, body, [("Content-Type", "text/html; charset=utf-8"), ("ETag", etag)])

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            if self.path == "/control/bump":
                with peer.lock:
                    peer.version += 1
                    version = peer.version
                return self.send(200, json.dumps({"version": version}).encode(),
                                 [("Content-Type", "application/json")])
            if self.path == "/hook":
                peer.record({
                    "kind": "delivery",
                    "id": self.headers.get("webhook-id"),
                    "timestamp": self.headers.get("webhook-timestamp"),
                    "signature": self.headers.get("webhook-signature"),
                    "body": body.decode("utf-8", "replace"),
                })
                return self.send(204)
            self.send(404)

    return Handler


def serve(host, port, records_path):
    server = ThreadingHTTPServer((host, int(port)), handler_for(Peer(records_path)))
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    server.serve_forever()


def signature_valid(secret, delivery):
    """Standard Webhooks: v1,base64(HMAC-SHA256(key, "id.timestamp.body"))."""
    if not secret.startswith("whsec_") or not delivery["signature"]:
        return False
    key = base64.b64decode(secret[len("whsec_"):])
    signed = f'{delivery["id"]}.{delivery["timestamp"]}.{delivery["body"]}'.encode()
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(part == f"v1,{expected}" for part in delivery["signature"].split(" "))


def summary(records_path, secret):
    deliveries, fetches = [], 0
    with open(records_path, encoding="utf-8") as records:
        for line in records:
            entry = json.loads(line)
            if entry["kind"] == "fetch":
                fetches += 1
            else:
                deliveries.append(entry)
    types, bad = {}, 0
    for delivery in deliveries:
        try:
            event_type = json.loads(delivery["body"]).get("type")
        except ValueError:
            event_type = None
        types[str(event_type)] = types.get(str(event_type), 0) + 1
        if not signature_valid(secret, delivery):
            bad += 1
    ids = [delivery["id"] for delivery in deliveries]
    print(json.dumps({
        "fetches": fetches,
        "deliveries": len(deliveries),
        "duplicates": len(ids) - len(set(ids)),
        "missing_ids": ids.count(None),
        "bad_signatures": bad,
        "watch_changed": types.get("watch.changed", 0),
        "badge_updated": types.get("badge.updated", 0),
        "types": types,
    }, sort_keys=True))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "serve":
        serve(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "summary":
        summary(*sys.argv[2:])
    else:
        sys.exit(__doc__)
