"""A hostile origin and webhook receiver on 127.0.0.1 for the hostile-input
suite: each path answers in one of the ways a page or receiver nobody here
controls might (absurd headers, slow drip, endless or bombing bodies,
redirect loops, garbage instead of HTTP). Raw sockets, so nothing is
normalised on the way out. `/ok` and `/hook/ok` are the well-behaved
canaries other tenants use; received hook bodies are recorded."""

import gzip
import socket
import socketserver
import threading
import time
import urllib.parse

BOMB = gzip.compress(b"\0" * (64 << 20), compresslevel=9)  # 64 MiB of zeros in ~64 KiB

# Endless compressed bodies of zeros, per Content-Encoding: an opening and a
# part sent again and again, so a decoder that reads on decodes as long as
# the sender likes. gzip and deflate (zlib): the start of
# `gzip -9 < /dev/zero`, then zero bytes that each code 1,032 zeros; br: what
# Python's brotli.Compressor(quality=5, lgwin=24) writes for 64 MiB of zeros
# and then for every further 64 MiB (the same 52 bytes); zstd: the start of
# `zstd -19 --no-check < /dev/zero`, then RLE blocks of 128 KiB of zeros.
ENDLESS_BOMBS = {
    "gzip": (bytes.fromhex("1f8b0800000000000203ecc101010000008090feafee080a"), b"\0" * 65536),
    "deflate": (bytes.fromhex("78daecc101010000008090feafee080a"), b"\0" * 65536),
    "br": (bytes.fromhex("cfffff7f002400e2b14072effff9ffff0f8004401c1680eefd3fffffff01900088c302d0bdffe7ffff3f001200715800baf7ff"),
           bytes.fromhex("fcffff074002200e0b40f7fe9fffffff004800c46101e8defff3ffff1f000980382c00ddfb7ffeffff032001108705a07bff6f00") * 1024),
    "zstd": (bytes.fromhex("28b52ffd00684c000008000100fcff391002"), bytes.fromhex("02001000") * 16384),
}


def response(status, headers=(), body=b"", reason="Status"):
    head = f"HTTP/1.1 {status} {reason}\r\n".encode()
    for name, value in headers:
        head += name.encode() + b": " + (value if isinstance(value, bytes) else value.encode()) + b"\r\n"
    if not any(name.lower() in ("content-length", "transfer-encoding") for name, _ in headers):
        head += b"Content-Length: " + str(len(body)).encode() + b"\r\n"
    return head + b"\r\n" + body


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(30)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.request.recv(65536)
            if not chunk:
                return
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        request_line = head.split(b"\r\n")[0].decode("latin-1")
        method, target, _ = request_line.split(" ", 2)
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        while len(rest) < length:
            chunk = self.request.recv(65536)
            if not chunk:
                break
            rest += chunk
        path = urllib.parse.unquote(target.split("?", 1)[0])
        if path.startswith("/hook/"):
            self.server.received.append((path, rest))
            self.server.arrivals.append((path, time.monotonic()))
        try:
            self.answer(path)
        except OSError:
            pass  # the client gave up: that is the point of most paths

    def send(self, data):
        self.request.sendall(data)

    def answer(self, path):
        name = path.removeprefix("/hook").removeprefix("/")
        kind, _, argument = name.partition("/")
        if kind == "ok":
            self.send(response(200, [("Content-Type", "text/plain"), ("ETag", '"v1"')], b"fine"))
        elif kind == "cache":
            # /cache/<header name>/<value>: a page whose freshness headers
            # (Cache-Control, Expires, Age) say whatever the argument says.
            header, _, value = argument.partition("/")
            self.send(response(200, [("Content-Type", "text/plain"), (header, value)], b"fresh, says who"))
        elif kind == "retry-after":
            self.send(response(503 if path.startswith("/hook/") else 429, [("Retry-After", argument)], b"slow down"))
        elif kind == "drip":
            self.send(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
            for _ in range(200):
                self.send(b"x")
                time.sleep(0.25)
        elif kind == "drip-head":
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"y" * 200:
                self.send(bytes([byte]))
                time.sleep(0.25)
        elif kind == "endless":
            self.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunk = b"10000\r\n" + b"a" * 0x10000 + b"\r\n"
            for _ in range(100_000):
                self.send(chunk)
        elif kind == "bomb":
            self.send(response(200, [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")], BOMB))
        elif kind == "endless-bomb":
            # /endless-bomb/<encoding>: 200 and a compressed body that never
            # ends (for 60 s at most), whatever the request offered.
            opening, part = ENDLESS_BOMBS[argument]
            self.send(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: " + argument.encode()
                      + b"\r\nTransfer-Encoding: chunked\r\n\r\n")
            self.send(b"%x\r\n%s\r\n" % (len(opening), opening))
            chunk = b"%x\r\n%s\r\n" % (len(part), part)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                self.send(chunk)
        elif kind == "redirect-loop":
            self.send(response(302, [("Location", path)]))
        elif kind == "bad-location":
            self.send(response(302, [("Location", "http://[::1")]))
        elif kind == "huge-header":
            self.send(response(200, [("X-Huge", "h" * (300 << 10))], b"body"))
        elif kind == "many-headers":
            self.send(response(200, [(f"X-H{i}", "v") for i in range(20_000)], b"body"))
        elif kind == "bad-status":
            self.send(b"HTTP/1.1 99999999999999999999 Huge\r\nContent-Length: 0\r\n\r\n")
        elif kind == "negative-status":
            self.send(b"HTTP/1.1 -200 Minus\r\nContent-Length: 0\r\n\r\n")
        elif kind == "garbage":
            self.send(b"\x00\xff\xfe garbage, not HTTP at all \r\n\r\n" * 100)
        elif kind == "close":
            pass
        elif kind == "length-overflow":
            self.send(b"HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616\r\n\r\nshort")
        elif kind == "length-negative":
            self.send(b"HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nshort")
        elif kind == "chunk-overflow":
            self.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\nabc\r\n")
        elif kind == "nul":
            self.send(response(200, [("Content-Type", "text/plain; charset=\0utf-8"), ("ETag", b'"a\x00b"'),
                                     ("Last-Modified", b"\xff\xfe")], b"a\x00b\xff\xfe\xc3(c"))
        elif kind == "huge-validators":
            self.send(response(200, [("ETag", '"' + "e" * 60_000 + '"'),
                                     ("Last-Modified", "Fri, 31 Dec 999999999 23:59:59 GMT"),
                                     ("Date", "Mon, 01 Jan -999999 00:00:00 GMT"),
                                     ("Expires", "99999999999999999999999"),
                                     ("Cache-Control", "max-age=99999999999999999999999999, s-maxage=-1")], b"body"))
        elif kind == "charset":
            self.send(response(200, [("Content-Type", "text/html; charset=" + "x" * 5000)], b"<p>hello</p>"))
        elif kind == "a-run":
            # For `(a+)+$`: a backtracking engine tries 2^n ways to split the
            # run before the `b` proves every one of them wrong.
            self.send(response(200, [("Content-Type", "text/html")], b"<html><body><p>" + b"a" * 500_000 + b"b</p></body></html>"))
        elif kind == "wide":
            # 40,000 elements four deep under one body: `//*//*//*//*`
            # visits every descendant of every node, three times over.
            self.send(response(200, [("Content-Type", "text/html")],
                               b"<html><body>" + b"<div><p><b><i>x</i></b></p></div>" * 10_000 + b"</body></html>"))
        elif kind == "attributes-in-one-tag":
            # libxml2 compares each attribute of a tag with every earlier one.
            self.send(response(200, [("Content-Type", "text/html")],
                               b"<html><body><p" + b"".join(b" a%d" % i for i in range(110_000)) + b">x</p></body></html>"))
        elif kind == "attributes":
            # 110,000 attribute nodes, 100 to a tag: quick to parse, more
            # than the node limit once attributes count.
            tag = b"<p" + b"".join(b" a%d" % i for i in range(100)) + b">x</p>"
            self.send(response(200, [("Content-Type", "text/html")], b"<html><body>" + tag * 1_100 + b"</body></html>"))
        elif kind == "flat":
            # 100,000 nodes, the most CSS and XPath rules work on by default.
            self.send(response(200, [("Content-Type", "text/html")], b"<html><body>" + b"<p>x</p>" * 49_995 + b"</body></html>"))
        elif kind == "deep-html":
            self.send(response(200, [("Content-Type", "text/html")], b"<div>" * 200_000 + b"deep" + b"</div>" * 200_000))
        elif kind == "version":
            bodies = {
                "deep": b"[" * 100_000 + b"]" * 100_000,
                "huge-number": b'{"v": 1' + b"0" * 100_000 + b"}",
                "exponent": b'{"v": 1e999999999999}',
                "nan": b'{"v": NaN}',
                "long-string": b'{"v": "' + b"s" * (4 << 20) + b'"}',
                "bad-utf8": b'{"v": "\xff\xfe"}',
                "truncated": b'{"v": [1, 2',
            }
            self.send(response(200, [("Content-Type", "application/json")], bodies[argument]))
        elif kind == "gone":
            self.send(response(410, [], b"gone"))
        elif kind == "huge-error":
            self.send(response(500, [("Content-Type", "text/plain")], b"\xff" * (8 << 20)))
        else:
            self.send(response(404, [], b"unknown hostile path"))


class Peer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host="127.0.0.1"):
        super().__init__((host, 0), Handler)
        self.received = []
        self.arrivals = []  # (path, time.monotonic()) of each hook request
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def base_url(self):
        return f"http://{self.server_address[0]}:{self.server_address[1]}"
