"""Starts one real Tidings (the binary in TIDINGS_HOSTILE_BINARY, on the
database in TIDINGS_HOSTILE_DATABASE_URL) and the hostile peer for the whole
suite, with short outbound timeouts so slow peers are cut off quickly."""

import json
import os
import secrets
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from hostile_peer import Peer

ADMIN = "hostile-suite-admin-token-0123456789abcdef"
# One per run: every Tidings of the suite shares the database, which keeps
# the key its secrets are encrypted with.
SECRET_KEY = secrets.token_hex(32)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Tidings:
    def __init__(self, process, port, log_path):
        self.process = process
        self.base = f"http://127.0.0.1:{port}"
        self.port = port
        self.log_path = log_path

    def call(self, method, path, token=None, body=None, timeout=60):
        status, _, answer = self.call_full(method, path, token, body, timeout)
        return status, answer

    def call_full(self, method, path, token=None, body=None, timeout=60, raw_body=None):
        """Status, Content-Type and body (parsed when JSON); `raw_body` is
        sent as is (bytes that are not JSON, or not UTF-8)."""
        data = raw_body if raw_body is not None else (None if body is None else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                raw = answer.read()
                content_type = answer.headers.get("Content-Type", "")
                return answer.status, content_type, (json.loads(raw) if raw and answer.headers.get_content_subtype().endswith("json") else raw)
        except urllib.error.HTTPError as error:
            raw = error.read()
            return error.code, error.headers.get("Content-Type", ""), (json.loads(raw) if raw.startswith(b"{") else raw)

    def assert_alive(self):
        assert self.process.poll() is None, f"tidings exited with {self.process.returncode}; log: {self.log_path}"
        status, body = self.call("GET", "/healthz", timeout=10)
        assert status == 200, body

    def user(self, name):
        status, body = self.call("POST", "/v1/users", ADMIN, {"name": name})
        assert status == 201, body
        return body["api_key"]


_addresses = iter(f"127.0.{n // 250 + 1}.{n % 250 + 1}" for n in range(10_000))


@pytest.fixture
def peer():
    """A fresh hostile peer on an address of its own: a host one case made
    Tidings leave alone (Retry-After) must not decide the next case."""
    server = Peer(next(_addresses))
    yield server
    server.shutdown()


@pytest.fixture
def page_peer():
    """A second fresh peer, for a page whose version endpoint is on `peer`:
    what the version endpoint's host asks must not hold the page's."""
    server = Peer(next(_addresses))
    yield server
    server.shutdown()


@pytest.fixture(scope="session")
def canary():
    """The well-behaved origin and receiver of the other tenant, on another
    host than the hostile peer (a host that asked to be left alone is left
    alone, whoever watches it)."""
    server = Peer("127.0.0.2")
    yield server
    server.shutdown()


@pytest.fixture(scope="session")
def tidings(tmp_path_factory):
    port = free_port()
    log_path = tmp_path_factory.mktemp("tidings") / "tidings.log"
    environment = dict(
        os.environ,
        TIDINGS_DATABASE_URL=os.environ["TIDINGS_HOSTILE_DATABASE_URL"],
        # A deployment with its own database must bring the key that
        # encrypts the stored secrets.
        TIDINGS_SECRET_KEY=SECRET_KEY,
        TIDINGS_LISTEN=f"127.0.0.1:{port}",
        TIDINGS_ADMIN_TOKEN=ADMIN,
        TIDINGS_ALLOW_PRIVATE_TARGETS="true",
        # A check here takes at most a few outbound requests (a version
        # request, a page request and its hops) of at most 3 s each, and an
        # extraction of at most 2 s (the default): far below the check-now
        # deadline, so `POST /check` answers with the check's result, never
        # 504, and the cases can require it.
        TIDINGS_OUTBOUND_TIMEOUT="3s",
        TIDINGS_OUTBOUND_CONNECT_TIMEOUT="2s",
        TIDINGS_EXTRACTION_TIMEOUT="2s",
        TIDINGS_CHECK_NOW_TIMEOUT="60s",
        TIDINGS_WEBHOOK_TIMEOUT="3s",
        TIDINGS_WEBHOOK_RETRY_SCHEDULE="0s,1h",
        TIDINGS_POLLER_MAX_RESPONSE_SIZE="1MiB",
        TIDINGS_MIN_INTERVAL="1s",
        TIDINGS_POLL_CONCURRENCY="0",
        TIDINGS_LOG_LEVEL="warning",
        # The victim checks one watch and tests one webhook after every case,
        # and the attacker owns a webhook per receiver case: the per-user
        # limits and rates (tested in TidingsAppTests) must not decide these.
        TIDINGS_MAX_WEBHOOKS_PER_USER="1000",
        TIDINGS_CHECK_NOW_RATE="1000/1s",
        TIDINGS_CHECK_NOW_USER_RATE="1000/1s",
        TIDINGS_WEBHOOK_TEST_RATE="1000/1s",
        TIDINGS_WEBHOOK_TEST_USER_RATE="1000/1s",
    )
    with open(log_path, "wb") as log:
        process = subprocess.Popen([os.environ["TIDINGS_HOSTILE_BINARY"]], env=environment, stdout=log, stderr=subprocess.STDOUT)
    server = Tidings(process, port, log_path)
    deadline = time.monotonic() + 60
    while True:
        try:
            if server.call("GET", "/readyz", timeout=2)[0] == 200:
                break
        except OSError:
            pass
        assert process.poll() is None, open(log_path).read()
        assert time.monotonic() < deadline, "tidings did not become ready"
        time.sleep(0.2)
    yield server
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
    assert process.returncode in (0, -15), f"tidings exited with {process.returncode}; log: {log_path}"


@pytest.fixture(scope="session")
def victim(tidings, canary):
    """Another tenant whose work must go on whatever the attacker does."""
    key = tidings.user("victim")
    status, watch = tidings.call("POST", "/v1/watches", key, {"url": canary.base_url + "/ok", "interval_seconds": 60})
    assert status == 201, watch
    status, hook = tidings.call("POST", "/v1/webhooks", key, {"url": canary.base_url + "/hook/ok", "event_types": ["watch.changed"]})
    assert status == 201, hook
    return {"key": key, "watch": watch["id"], "webhook": hook["id"], "peer": canary}


@pytest.fixture(scope="session")
def attacker(tidings):
    return tidings.user("attacker")
