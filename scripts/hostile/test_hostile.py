"""Hostile origins, receivers and clients against a real Tidings: each may
make its own work fail, with a clear reason, and nothing else. After every
case the process must still answer and another tenant's check and webhook
delivery must still work."""

import socket
import time
import urllib.parse

import pytest


def check(tidings, key, watch_id):
    status, body = tidings.call("POST", f"/v1/watches/{watch_id}/check", key, timeout=90)
    return status, body


# The slowest check of this suite: a version request and a page request
# (each cut at the 3 s outbound timeout) and a 2 s extraction, on a machine
# that may be busy. Well below the 60 s check-now deadline (conftest.py).
CHECK_BOUND = 20


def timed_check(tidings, key, watch_id, bound=CHECK_BOUND):
    """A check that must answer with its result (200, not 504) within `bound` seconds."""
    started = time.monotonic()
    status, body = check(tidings, key, watch_id)
    elapsed = time.monotonic() - started
    assert status == 200, body
    assert elapsed < bound, f"the check took {elapsed:.1f} s: {body}"
    return body


def others_still_served(tidings, peer, victim):
    tidings.assert_alive()
    status, body = check(tidings, victim["key"], victim["watch"])
    assert status == 200 and body["result"] in ("baseline", "unchanged"), body
    received = victim["peer"].received
    before = sum(1 for path, _ in received if path == "/hook/ok")
    status, body = tidings.call("POST", f"/v1/webhooks/{victim['webhook']}/test", victim["key"])
    assert status in (200, 201, 202), body
    deadline = time.monotonic() + 20
    while sum(1 for path, _ in received if path == "/hook/ok") <= before:
        assert time.monotonic() < deadline, "the other tenant's webhook delivery did not arrive"
        time.sleep(0.05)


ORIGIN_FAILURES = [
    "retry-after/99999999999999999999999999",
    "retry-after/Fri, 31 Dec 999999999 23:59:59 GMT",
    "retry-after/-1",
    "drip",
    "drip-head",
    "endless",
    "bomb",
    "redirect-loop",
    "bad-location",
    "huge-header",
    "bad-status",
    "negative-status",
    "garbage",
    "close",
    "length-overflow",
    "length-negative",
    "chunk-overflow",
    "huge-error",
]

ORIGIN_ODDITIES = ["nul", "huge-validators", "charset", "many-headers", "deep-html"]


@pytest.mark.parametrize("path", ORIGIN_FAILURES)
def test_hostile_origin_fails_only_its_own_check(tidings, peer, victim, attacker, path):
    url = peer.base_url + "/" + urllib.parse.quote(path)
    status, watch = tidings.call("POST", "/v1/watches", attacker, {"url": url, "interval_seconds": 60})
    assert status == 201, watch
    body = timed_check(tidings, attacker, watch["id"])
    assert body["result"] == "failed" and body["error"], body
    assert peer.server_address[0] not in body["error"], body
    others_still_served(tidings, peer, victim)


@pytest.mark.parametrize("path", ORIGIN_ODDITIES)
def test_odd_but_answering_origin_is_checked_or_failed_clearly(tidings, peer, victim, attacker, path):
    status, watch = tidings.call("POST", "/v1/watches", attacker, {"url": peer.base_url + "/" + path, "interval_seconds": 60})
    assert status == 201, watch
    for _ in range(2):  # the second check sends whatever validators were kept
        body = timed_check(tidings, attacker, watch["id"])
        assert body["result"] in ("baseline", "unchanged", "failed"), body
        assert body["result"] != "failed" or body["error"], body
    others_still_served(tidings, peer, victim)


@pytest.mark.parametrize("kind", ["deep", "huge-number", "exponent", "nan", "long-string", "bad-utf8", "truncated"])
def test_hostile_version_json_is_a_failed_version_check(tidings, peer, victim, attacker, kind):
    status, watch = tidings.call("POST", "/v1/watches", attacker, {
        "url": peer.base_url + "/ok", "version_url": peer.base_url + f"/version/{kind}", "version_pointer": "/v",
        "interval_seconds": 60,
    })
    assert status == 201, watch
    # No version can be read from the answer: the page decides, every time.
    body = timed_check(tidings, attacker, watch["id"])
    assert body["result"] == "baseline", body
    body = timed_check(tidings, attacker, watch["id"])
    assert body["result"] == "unchanged", body
    others_still_served(tidings, peer, victim)


# Version endpoints that fail their request in every way an origin can: the
# version request fails, and the page (on another host, which nothing here
# holds) is still fetched and decides the check. A Retry-After holds only the
# version endpoint's host, capped, and a held version endpoint is skipped
# without waiting.
VERSION_FAILURES = [
    "retry-after/99999999999999999999999999",
    "retry-after/Fri, 31 Dec 9999 23:59:59 GMT",
    "drip",
    "drip-head",
    "bomb",
    "endless",
]


@pytest.mark.parametrize("path", VERSION_FAILURES)
def test_hostile_version_endpoint_fails_only_the_version_request(tidings, peer, page_peer, victim, attacker, path):
    status, watch = tidings.call("POST", "/v1/watches", attacker, {
        "url": page_peer.base_url + "/ok", "version_url": peer.base_url + "/" + urllib.parse.quote(path),
        "version_pointer": "/v", "interval_seconds": 60,
    })
    assert status == 201, watch
    # Cut at the outbound timeout (3 s) at worst, then the page.
    body = timed_check(tidings, attacker, watch["id"], bound=12)
    assert body["result"] == "baseline", body
    body = timed_check(tidings, attacker, watch["id"], bound=12)
    assert body["result"] == "unchanged", body
    if path.startswith("retry-after/"):
        # The version endpoint's host is held, for at most a day (TIDINGS_MAX_INTERVAL).
        status, held = tidings.call("POST", "/v1/watches", attacker, {"url": peer.base_url + "/ok", "interval_seconds": 60})
        assert status == 201, held
        body = timed_check(tidings, attacker, held["id"], bound=5)
        assert body["result"] == "failed" and "Retry-After" in body["error"], body
        seconds = int(body["error"].split("another ")[1].split(" ")[0])
        assert 3600 < seconds <= 86_400, body
    others_still_served(tidings, peer, victim)


# Extraction rules run on whatever a hostile page sends: node sets of
# namespace nodes and attributes, numbers XPath cannot render as integers,
# JSON pointers past any index, ignore patterns that match empty text.
EXTRACTION_RULES = [
    {"xpath": "//namespace::*"}, {"xpath": "//@*"}, {"xpath": "count(//*)"}, {"xpath": "-1 div 0"}, {"xpath": "0 div 0"},
    {"xpath": "99999999999999999999999"}, {"xpath": "substring(string(/), 1e300, -1e300)"}, {"xpath": "//comment()"},
    {"css": "div > div"}, {"json_pointer": "/v/99999999999999999999"}, {"json_pointer": ""},
    {"css": "*", "ignore": ["(|a)+", "(?m)^$", "\\b"]},
]


@pytest.mark.parametrize("path", ["nul", "deep-html", "garbage", "version/deep"])
@pytest.mark.parametrize("rule", EXTRACTION_RULES, ids=lambda rule: next(iter(rule.values())) if len(rule) == 1 else "ignore")
def test_extraction_rules_on_hostile_pages_fail_only_their_check(tidings, peer, victim, attacker, path, rule):
    status, watch = tidings.call("POST", "/v1/watches", attacker, {"url": peer.base_url + "/" + path, "interval_seconds": 60, "extract": rule})
    assert status == 201, watch
    body = timed_check(tidings, attacker, watch["id"])
    assert body["result"] != "failed" or body["error"], body
    others_still_served(tidings, peer, victim)


# What a budget stops (docs/LIMITS.md, "Extraction and checks"), as `last_error` says it.
BUDGET_ERRORS = ("time_limit_exceeded", "operation_limit_exceeded", "too_many_nodes", "text_too_large")

# Rules and pages that would take minutes or years without a budget: patterns
# that backtrack exponentially in a backtracking engine (linear-time here),
# XPath whose work grows with the square or cube of a wide page, a start tag
# whose attributes libxml2 compares pairwise while parsing, and attribute
# sets that libxml2 would merge pairwise.
COSTLY_RULES = [
    ("a-run", {"css": "p", "ignore": ["(a+)+$"]}),
    ("a-run", {"css": "p", "ignore": ["(a|a)*$", "(a*)*b$"]}),
    ("wide", {"xpath": "//*//*//*//*"}),
    ("wide", {"xpath": "count(//*[count(//*) > 0])"}),
    ("attributes-in-one-tag", {"css": "p"}),
    ("attributes", {"xpath": "count(//@* | //@*)"}),
]

# The extraction budget (2 s), a page read in well under a second, and room
# for a busy machine.
BUDGET_BOUND = 8


def assert_within_budget(tidings, attacker, watch_id, bound=BUDGET_BOUND):
    body = timed_check(tidings, attacker, watch_id, bound=bound)
    assert body["result"] in ("baseline", "failed"), body
    status, stored = tidings.call("GET", f"/v1/watches/{watch_id}", attacker)
    assert status == 200, stored
    if body["result"] == "failed":
        assert body["error"].startswith("extraction failed: ") and any(code in body["error"] for code in BUDGET_ERRORS), body
        assert stored["last_error"] == body["error"], stored
    else:
        assert stored["last_error"] is None and stored["content_hash"], stored


@pytest.mark.parametrize("path,rule", COSTLY_RULES, ids=[f"{path}-{next(iter(rule.values()))}" for path, rule in COSTLY_RULES])
def test_costly_rules_end_within_their_budget(tidings, peer, victim, attacker, path, rule):
    status, watch = tidings.call("POST", "/v1/watches", attacker, {"url": peer.base_url + "/" + path, "interval_seconds": 60, "extract": rule})
    assert status == 201, watch
    assert_within_budget(tidings, attacker, watch["id"])
    others_still_served(tidings, peer, victim)


# Known gap (docs/LIMITS.md): libxml2 2.9.14 merges node sets without
# counting operations, and the deadline can only stop it between merges. On
# a page within the default node limit one XPath rule holds an extraction
# thread for tens of seconds past its 2 s budget (53 s measured here), and
# two of them hold every extraction thread of a two-core machine. Strict:
# when this passes, the gap is closed and the marker must go.
@pytest.mark.xfail(strict=True, reason="libxml2 merges node sets uninterruptibly; see docs/LIMITS.md, known gap")
def test_an_xpath_rule_at_the_node_limit_ends_within_its_budget(tidings, peer, victim, attacker):
    status, watch = tidings.call("POST", "/v1/watches", attacker, {
        "url": peer.base_url + "/flat", "interval_seconds": 60, "extract": {"xpath": "count(//node()//node())"},
    })
    assert status == 201, watch
    try:
        assert_within_budget(tidings, attacker, watch["id"])
    finally:
        # Whatever the answer (a late result, or 504), let the extraction end
        # before the next case needs the extraction threads.
        deadline = time.monotonic() + 180
        while tidings.call("GET", f"/v1/watches/{watch['id']}", attacker)[1]["last_checked_at"] is None:
            assert time.monotonic() < deadline, "the extraction did not end"
            time.sleep(1)
        others_still_served(tidings, peer, victim)


# Receivers that never answer 2xx in time: the attempt must fail.
RECEIVER_FAILURES = [
    "retry-after/99999999999999999999999999",
    "retry-after/Fri, 31 Dec 999999999 23:59:59 GMT",
    "retry-after/Fri, 31 Dec 9999 23:59:59 GMT",
    "drip-head", "redirect-loop", "huge-header", "bad-status", "negative-status", "garbage", "close", "huge-error", "gone",
]
# Receivers that answer 2xx with a hostile body or headers: success or
# failure are both fine, a crash or a stall is not.
RECEIVER_ODDITIES = ["drip", "endless", "bomb", "length-overflow", "length-negative", "chunk-overflow", "nul", "many-headers"]
RECEIVERS = RECEIVER_FAILURES + RECEIVER_ODDITIES


@pytest.mark.parametrize("path", RECEIVERS)
def test_hostile_receiver_fails_only_its_own_delivery(tidings, peer, victim, attacker, path):
    status, hook = tidings.call("POST", "/v1/webhooks", attacker, {
        "url": peer.base_url + "/hook/" + urllib.parse.quote(path), "event_types": ["watch.changed"],
    })
    assert status == 201, hook
    status, body = tidings.call("POST", f"/v1/webhooks/{hook['id']}/test", attacker)
    assert status in (200, 201, 202), body
    deadline = time.monotonic() + 30
    while True:
        status, deliveries = tidings.call("GET", f"/v1/webhooks/{hook['id']}/deliveries", attacker)
        assert status == 200, deliveries
        attempts = [attempt for delivery in deliveries["data"] for attempt in delivery["attempts"]]
        if attempts:
            break
        assert time.monotonic() < deadline, "no attempt was recorded"
        time.sleep(0.2)
    attempt = attempts[0]
    if path in RECEIVER_FAILURES:
        assert attempt["status_code"] is None or not 200 <= attempt["status_code"] < 300, attempt
        assert attempt["status_code"] is not None or attempt["error"], attempt
    delivery = deliveries["data"][0]
    if delivery["next_attempt_at"]:
        # Whatever Retry-After said, the retry is within the schedule's longest step (1 h here) plus jitter.
        assert delivery["next_attempt_at"] < time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + 3600 * 1.25)), delivery
    others_still_served(tidings, peer, victim)


RAW_REQUESTS = [
    b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
    b"POST /v1/watches HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"POST /v1/watches HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFFFFFF\r\n",
    b"GET /v1/watches/\x00\xff HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\n" + b"X-A: b\r\n" * 10_000 + b"\r\n",
    b"GET /healthz HTTP/1.1\r\nX-Huge: " + b"h" * 200_000 + b"\r\n\r\n",
    b"GET /v1/watches?" + b"&".join(b"a%d=b" % i for i in range(20_000)) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 500,
    b"GARBAGE\r\n\r\n",
    b"GET /healthz HTTP/9.9\r\n\r\n",
    b"GET /v1/watches?limit=99999999999999999999999 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + b"x" * 70_000 + b"\r\n\r\n",
]


@pytest.mark.parametrize("raw", RAW_REQUESTS, ids=range(len(RAW_REQUESTS)))
def test_malformed_requests_get_an_error_or_a_close(tidings, peer, victim, raw):
    with socket.create_connection(("127.0.0.1", tidings.port), timeout=10) as connection:
        try:
            connection.sendall(raw)
            connection.shutdown(socket.SHUT_WR)
            answer = connection.recv(65536)
        except OSError:
            answer = b""
    assert answer == b"" or answer.startswith(b"HTTP/1.1 4") or answer.startswith(b"HTTP/1.1 5") or answer.startswith(b"HTTP/1.1 200"), answer[:200]
    others_still_served(tidings, peer, victim)


HOSTILE_BODIES = [
    b"[" * 100_000,
    b'{"url": "http://x/", "interval_seconds": 1' + b"0" * 10_000 + b"}",
    b'{"url": "\xff\xfe"}',
    b'{"url": "http://x/", "name": "' + b"\\ud800" + b'"}',
    b'{"url": "http://x/", "extract": {"css": "' + b"div " * 10_000 + b'"}}',
    b'{"url": "http://x/", "extract": {"xpath": "' + b"(" * 10_000 + b'"}}',
    b'{"url": "http://x/", "headers": {"' + b"a" * 10_000 + b'": "b"}}',
    b'{"url": "http://x/", "url": "http://y/"}',
    b"\x00" * 1000,
]


@pytest.mark.parametrize("body", HOSTILE_BODIES, ids=range(len(HOSTILE_BODIES)))
def test_hostile_bodies_are_4xx(tidings, peer, victim, attacker, body):
    with socket.create_connection(("127.0.0.1", tidings.port), timeout=30) as connection:
        connection.sendall(b"POST /v1/watches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + attacker.encode()
                           + b"\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "
                           + str(len(body)).encode() + b"\r\n\r\n" + body)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 4"), answer[:300]
    assert b"application/problem+json" in answer, answer[:300]
    others_still_served(tidings, peer, victim)
