"""Starts a real Tidings (TIDINGS_BROWSER_BINARY on TIDINGS_BROWSER_DATABASE_URL),
a local origin and webhook receiver, and Debian's Chromium driven by
Playwright. Screenshots go to TIDINGS_BROWSER_OUTPUT."""

import base64
import json
import os
import pathlib
import secrets
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import sync_playwright

ADMIN = "browser-suite-admin-token-0123456789abcdef"
CHROMIUM = os.environ.get("TIDINGS_BROWSER_CHROMIUM", "/usr/bin/chromium")


def p256_private_key_pem():
    return subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"],
                          check=True, capture_output=True, text=True).stdout


def web_push_subscription(endpoint):
    """A browser's subscription: a real P-256 public key (uncompressed, the
    last 65 bytes of its DER form) and a 16-byte secret, base64url."""
    der = subprocess.run(["openssl", "ec", "-pubout", "-outform", "DER"], input=p256_private_key_pem().encode(),
                         check=True, capture_output=True).stdout
    encode = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    return {"endpoint": endpoint, "keys": {"p256dh": encode(der[-65:]), "auth": encode(secrets.token_bytes(16))}}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Origin:
    """A page whose text the test changes, and a webhook receiver that
    fails until told to accept."""

    def __init__(self):
        self.page = "<html><body><main><p>Pro plan: $10</p><p>Team plan: $30</p></main></body></html>"
        self.receiver_status = 500
        self.received = []
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = origin.page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                origin.received.append(self.rfile.read(length))
                self.send_response(origin.receiver_status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def shutdown(self):
        self.server.shutdown()


class Tidings:
    def __init__(self, process, port, log_path):
        self.process = process
        self.base = f"http://127.0.0.1:{port}"
        self.log_path = log_path

    def call(self, method, path, token=None, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                raw = answer.read()
                return answer.status, dict(answer.headers), (json.loads(raw) if raw[:1] in (b"{", b"[") else raw)
        except urllib.error.HTTPError as error:
            raw = error.read()
            return error.code, dict(error.headers), (json.loads(raw) if raw[:1] == b"{" else raw)


@pytest.fixture(scope="session")
def origin():
    server = Origin()
    yield server
    server.shutdown()


@pytest.fixture(scope="session")
def tidings(tmp_path_factory):
    port = free_port()
    log_path = tmp_path_factory.mktemp("tidings") / "tidings.log"
    environment = dict(
        os.environ,
        TIDINGS_DATABASE_URL=os.environ["TIDINGS_BROWSER_DATABASE_URL"],
        TIDINGS_SECRET_KEY=secrets.token_hex(32),
        TIDINGS_LISTEN=f"127.0.0.1:{port}",
        TIDINGS_ADMIN_TOKEN=ADMIN,
        TIDINGS_ALLOW_PRIVATE_TARGETS="true",
        TIDINGS_MIN_INTERVAL="1s",
        # One attempt: a delivery to a failing receiver is `failed` at once,
        # for the page to retry.
        TIDINGS_WEBHOOK_RETRY_SCHEDULE="0s",
        TIDINGS_WEBHOOK_TIMEOUT="3s",
        TIDINGS_BADGE_COALESCE="0s",
        TIDINGS_LOG_LEVEL="warning",
        # Web Push on, so a web device gets pushes the devices view lists.
        TIDINGS_VAPID_PRIVATE_KEY=p256_private_key_pem(),
        TIDINGS_VAPID_SUBJECT="mailto:browser-suite@localhost",
    )
    with open(log_path, "wb") as log:
        process = subprocess.Popen([os.environ["TIDINGS_BROWSER_BINARY"]], env=environment, stdout=log, stderr=subprocess.STDOUT)
    server = Tidings(process, port, log_path)
    deadline = time.monotonic() + 60
    while True:
        try:
            if server.call("GET", "/readyz")[0] == 200:
                break
        except OSError:
            pass
        assert process.poll() is None, open(log_path).read()
        assert time.monotonic() < deadline, "tidings did not become ready"
        time.sleep(0.2)
    yield server
    process.terminate()
    process.wait(timeout=30)


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        # Root in a container has no user namespaces for Chromium's sandbox.
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="session")
def shots():
    folder = pathlib.Path(os.environ.get("TIDINGS_BROWSER_OUTPUT", "browser-output"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class Recorder:
    """Every request the page makes, and every console error (a CSP
    violation is one)."""

    def __init__(self, page):
        self.urls = []
        self.policy_violations = []
        self.script_errors = []
        page.on("request", lambda request: self.urls.append(request.url))
        page.on("console", self.console)
        page.on("pageerror", lambda error: self.script_errors.append(str(error)))

    def console(self, message):
        if "Content Security Policy" in message.text or "Refused to" in message.text:
            self.policy_violations.append(message.text)


@pytest.fixture
def page(browser, tidings):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.recorder = Recorder(opened)
    yield opened
    context.close()
