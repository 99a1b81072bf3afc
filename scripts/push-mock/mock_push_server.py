"""A mock APNs, FCM and Web Push service for the TidingsPush tests: HTTP/2
over TLS with a test CA of its own, a Google-style OAuth token endpoint, and
scripted errors per device token or subscription.

    python mock_push_server.py DIRECTORY

Writes into DIRECTORY a fresh test CA (ca.pem), the server's certificate for
127.0.0.1 and localhost, an APNs signing key (apns-key.p8, P-256 PKCS#8) and
a Google service account (service-account.json, RSA 2048, token_uri pointing
here), then prints one JSON line on stdout naming them, the ports and the
identities the JWTs must carry. Exits when its standard input closes, so a
test that dies takes its mock with it.

The push port speaks HTTP/2 only (ALPN "h2"): APNs accepts nothing else.
Every request is checked the way the real services check it (JWTs verified
with the public keys, headers, payload sizes) and recorded with the TCP
connection (client port) that carried it. The control port (plain HTTP/1.1)
serves:
    GET  /stats              what was received: requests, token requests,
                             connections with their stream counts and the
                             most streams seen in flight at once
    POST /script             {"token": T, "responses": [R, ...]}: the next
                             requests for device token T get these answers
    POST /token-script       {"responses": [R, ...]} for the token endpoint
    POST /config             {"delay": seconds}: every push answer waits
    POST /wp-subscriptions   a new Web Push subscription, as a browser would
                             make it: {"id", "endpoint" (https://127.0.0.1:
                             <port>/wp/<id>), "p256dh", "auth"}; the mock
                             keeps its private key, to decrypt what comes
Web Push (POST /wp/<id> on the push port) is checked as RFC 8030, 8291 and
8292 say: the VAPID JWT verified (ES256 over the k= key, aud this origin,
exp within 24 h, sub mailto: or https:), TTL, Urgency, Topic and
Content-Encoding, the body decrypted (aes128gcm) with the subscription's
key; the record holds the plaintext, the headers and the claims. An
unknown subscription answers 404; scripts (POST /script with the
subscription id as token) make it answer 410, 429 and so on.
R is {"status": 410, "reason": "Unregistered", "retry_after": "120",
"body": raw text, "body_size": N (a body of N bytes of "x"), "delay": s,
"expire_jwt": true (APNs: the JWT used is expired from now on),
"revoke_token": true (FCM: the access token used is revoked from now on),
"fcm_error": {"status": ..., "errorCode": ..., "field": ..., "message": ...}}.
"""

import asyncio
import datetime
import ipaddress
import json
import os
import re
import secrets
import socket
import sys
import time
import urllib.parse
import uuid

import base64
import hmac

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.x509.oid import NameOID
from hypercorn.asyncio import serve
from hypercorn.config import Config

TEAM_ID = "TEAM123456"
KEY_ID = "KEY7890ABC"
TOPIC = "com.example.tidings"
# A second app of the same team, signing with the same key, as apps of one
# team do.
SECOND_TOPIC = "com.example.tidings.second"
PROJECT_ID = "tidings-test"
CLIENT_EMAIL = "push@tidings-test.iam.gserviceaccount.com"
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
APNS_PAYLOAD_LIMIT = 4096
UUID_PATTERN = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def make_credentials(directory):
    """The test CA, the server certificate and both signing keys."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Tidings push mock test CA")])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                     key_encipherment=False, data_encipherment=False, key_agreement=False,
                                     encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name).public_key(server_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    write(os.path.join(directory, "ca.pem"), ca_cert.public_bytes(serialization.Encoding.PEM))
    write(os.path.join(directory, "server.pem"), server_cert.public_bytes(serialization.Encoding.PEM))
    write(os.path.join(directory, "server-key.pem"), server_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))

    apns_key = ec.generate_private_key(ec.SECP256R1())
    write(os.path.join(directory, "apns-key.p8"), apns_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    fcm_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    fcm_pem = fcm_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    return apns_key.public_key(), fcm_key.public_key(), fcm_pem


class Mock:
    def __init__(self, apns_public_key, fcm_public_key, token_uri):
        self.apns_public_key = apns_public_key
        self.fcm_public_key = fcm_public_key
        self.token_uri = token_uri
        self.scripts = {}            # device token -> [response, ...]
        self.token_scripts = []      # token endpoint responses
        self.delay = 0.0
        self.expired_jwts = set()
        self.access_tokens = {}      # issued access token -> revoked?
        self.requests = []
        self.token_requests = []
        self.connections = {}        # client port -> {"streams", "in_flight", "max_in_flight", "http_version"}
        self.max_in_flight = 0
        self.in_flight = 0
        self.origin = None           # https://127.0.0.1:<push port>
        self.subscriptions = {}      # id -> (private key, auth secret)

    # --- ASGI entry ---------------------------------------------------------
    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {}
        for name, value in scope["headers"]:
            headers.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
        if scope["scheme"] == "http":
            status, response_headers, response_body = self.control(scope, body)
            await respond(send, status, response_headers, response_body)
            return
        port = scope["client"][1] if scope.get("client") else 0
        connection = self.connections.setdefault(port, {
            "streams": 0, "in_flight": 0, "max_in_flight": 0, "http_version": scope["http_version"]})
        connection["streams"] += 1
        connection["in_flight"] += 1
        connection["max_in_flight"] = max(connection["max_in_flight"], connection["in_flight"])
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            path = scope["path"]
            if path.startswith("/3/device/"):
                answer = await self.apns(scope, headers, body, port)
            elif path.startswith("/v1/projects/"):
                answer = await self.fcm(scope, headers, body, port)
            elif path == "/token":
                answer = await self.token(scope, headers, body, port)
            elif path.startswith("/wp/"):
                answer = await self.web_push(scope, headers, body, port)
            else:
                answer = (404, [], b"")
        finally:
            connection["in_flight"] -= 1
            self.in_flight -= 1
        await respond(send, *answer)

    # --- Control ------------------------------------------------------------
    def control(self, scope, body):
        path = scope["path"]
        if scope["method"] == "GET" and path == "/stats":
            stats = {
                "requests": self.requests,
                "token_requests": self.token_requests,
                "connections": {str(port): value for port, value in self.connections.items()},
                "max_in_flight": self.max_in_flight,
            }
            return 200, [("content-type", "application/json")], json.dumps(stats).encode()
        if scope["method"] == "POST" and path == "/wp-subscriptions":
            return 200, [("content-type", "application/json")], json.dumps(self.new_subscription()).encode()
        document = json.loads(body or b"{}")
        if path == "/script":
            self.scripts.setdefault(document["token"], []).extend(document["responses"])
        elif path == "/token-script":
            self.token_scripts.extend(document["responses"])
        elif path == "/config":
            self.delay = float(document.get("delay", 0))
        else:
            return 404, [], b""
        return 204, [], b""

    def next_script(self, token):
        queue = self.scripts.get(token)
        return queue.pop(0) if queue else None

    # --- APNs ---------------------------------------------------------------
    async def apns(self, scope, headers, body, port):
        token = scope["path"][len("/3/device/"):]
        record = {
            "kind": "apns", "at": time.time(), "connection": port, "http_version": scope["http_version"], "method": scope["method"],
            "token": token, "jwt": None, "topic": headers.get("apns-topic"),
            "push_type": headers.get("apns-push-type"), "priority": headers.get("apns-priority"),
            "collapse_id": headers.get("apns-collapse-id"), "expiration": headers.get("apns-expiration"),
            "apns_id": headers.get("apns-id"), "payload": body.decode("utf-8", "replace"), "payload_size": len(body),
        }
        self.requests.append(record)
        status, reason, extra = self.check_apns(scope, headers, body, token, record)
        script = None
        if status == 200:
            script = self.next_script(token)
        if self.delay:
            await asyncio.sleep(self.delay)
        if script is not None:
            await asyncio.sleep(float(script.get("delay", 0)))
            if script.get("expire_jwt") and record["jwt"]:
                self.expired_jwts.add(record["jwt"])
            record["status"] = script.get("status", 200)
            return scripted_answer(script, apns_reason_body(script.get("reason")))
        record["status"] = status
        record["reason"] = reason
        if status != 200:
            return status, [("content-type", "application/json")], apns_reason_body(reason, extra)
        apns_id = headers.get("apns-id") or str(uuid.uuid4()).upper()
        return 200, [("apns-id", apns_id)], b""

    def check_apns(self, scope, headers, body, token, record):
        """The checks APNs makes, in its order; (status, reason, extra)."""
        if scope["method"] != "POST":
            return 405, "MethodNotAllowed", None
        authorization = headers.get("authorization", "")
        if not authorization.startswith("bearer "):
            return 403, "MissingProviderToken", None
        token_text = authorization[len("bearer "):]
        record["jwt"] = token_text
        try:
            header = jwt.get_unverified_header(token_text)
            if header.get("alg") != "ES256" or header.get("kid") != KEY_ID:
                return 403, "InvalidProviderToken", None
            claims = jwt.decode(token_text, self.apns_public_key, algorithms=["ES256"],
                                options={"require": ["iss", "iat"], "verify_exp": False})
        except jwt.PyJWTError:
            return 403, "InvalidProviderToken", None
        if claims.get("iss") != TEAM_ID or set(claims) != {"iss", "iat"} or not isinstance(claims["iat"], int):
            return 403, "InvalidProviderToken", None
        record["iat"] = claims["iat"]
        if claims["iat"] < time.time() - 3600 or token_text in self.expired_jwts:
            return 403, "ExpiredProviderToken", None
        if "apns-topic" not in headers:
            return 400, "MissingTopic", None
        if headers["apns-topic"] not in (TOPIC, SECOND_TOPIC):
            return 400, "DeviceTokenNotForTopic", None
        if not re.fullmatch(r"[0-9a-fA-F]{64}", token):
            return 400, "BadDeviceToken", None
        push_type = headers.get("apns-push-type")
        priority = headers.get("apns-priority", "10")
        if push_type not in ("alert", "background"):
            return 400, "InvalidPushType", None
        if priority not in ("5", "10") or (push_type == "background" and priority != "5"):
            return 400, "BadPriority", None
        if "apns-collapse-id" in headers and len(headers["apns-collapse-id"].encode()) > 64:
            return 400, "BadCollapseId", None
        if "apns-expiration" in headers and not headers["apns-expiration"].isdigit():
            return 400, "BadExpirationDate", None
        if "apns-id" in headers and not UUID_PATTERN.match(headers["apns-id"]):
            return 400, "BadMessageId", None
        if not body:
            return 400, "PayloadEmpty", None
        if len(body) > APNS_PAYLOAD_LIMIT:
            return 413, "PayloadTooLarge", None
        try:
            payload = json.loads(body)
        except ValueError:
            return 400, "BadPayload", None
        if not isinstance(payload, dict) or not isinstance(payload.get("aps"), dict):
            return 400, "BadPayload", None
        return 200, None, None

    # --- FCM ----------------------------------------------------------------
    async def fcm(self, scope, headers, body, port):
        record = {"kind": "fcm", "connection": port, "http_version": scope["http_version"], "path": scope["path"],
                  "access_token": None, "body": body.decode("utf-8", "replace")}
        self.requests.append(record)
        status, error, message_token = self.check_fcm(scope, headers, body, record)
        script = self.next_script(message_token) if status == 200 and message_token else None
        if self.delay:
            await asyncio.sleep(self.delay)
        if script is not None:
            await asyncio.sleep(float(script.get("delay", 0)))
            if script.get("revoke_token") and record["access_token"] in self.access_tokens:
                self.access_tokens[record["access_token"]] = True
            record["status"] = script.get("status", 200)
            fcm_error = script.get("fcm_error")
            return scripted_answer(script, fcm_error_body(record["status"], **fcm_error) if fcm_error else b"")
        record["status"] = status
        if status != 200:
            return status, [("content-type", "application/json")], fcm_error_body(status, **error)
        name = f"projects/{PROJECT_ID}/messages/0:{secrets.token_hex(8)}"
        return 200, [("content-type", "application/json")], json.dumps({"name": name}).encode()

    def check_fcm(self, scope, headers, body, record):
        if scope["method"] != "POST" or scope["path"] != f"/v1/projects/{PROJECT_ID}/messages:send":
            return 404, {"status": "NOT_FOUND", "message": "not found"}, None
        authorization = headers.get("authorization", "")
        access = authorization[len("Bearer "):] if authorization.startswith("Bearer ") else None
        record["access_token"] = access
        if access is None or access not in self.access_tokens or self.access_tokens[access]:
            return 401, {"status": "UNAUTHENTICATED", "message": "Request had invalid authentication credentials."}, None
        if headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return 400, {"status": "INVALID_ARGUMENT", "message": "content type"}, None
        try:
            document = json.loads(body)
            message = document["message"]
            token = message["token"]
            assert set(document) == {"message"} and isinstance(token, str) and token
            data = message.get("data", {})
            assert isinstance(data, dict) and all(isinstance(v, str) for v in data.values())
            android = message.get("android", {})
            assert android.get("priority", "normal") in ("normal", "high")
            assert isinstance(android.get("collapse_key", ""), str)
        except (ValueError, KeyError, TypeError, AssertionError):
            return 400, {"status": "INVALID_ARGUMENT", "message": "Invalid JSON payload received."}, None
        record["message"] = message
        return 200, None, token

    # --- Web Push -----------------------------------------------------------
    def new_subscription(self):
        key = ec.generate_private_key(ec.SECP256R1())
        auth = secrets.token_bytes(16)
        subscription = secrets.token_urlsafe(12)
        self.subscriptions[subscription] = (key, auth)
        point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return {"id": subscription, "endpoint": f"{self.origin}/wp/{subscription}",
                "p256dh": b64url(point), "auth": b64url(auth)}

    async def web_push(self, scope, headers, body, port):
        subscription = scope["path"][len("/wp/"):]
        record = {
            "kind": "webpush", "at": time.time(), "connection": port, "http_version": scope["http_version"],
            "method": scope["method"],
            "token": subscription, "jwt": None, "vapid_key": None, "claims": None,
            "ttl": headers.get("ttl"), "urgency": headers.get("urgency"), "topic": headers.get("topic"),
            "content_encoding": headers.get("content-encoding"), "content_type": headers.get("content-type"),
            "accept_encoding": headers.get("accept-encoding"), "payload_size": len(body), "payload": None,
        }
        self.requests.append(record)
        status, reason = self.check_web_push(scope, headers, body, subscription, record)
        script = self.next_script(subscription) if status == 201 else None
        if self.delay:
            await asyncio.sleep(self.delay)
        if script is not None:
            await asyncio.sleep(float(script.get("delay", 0)))
            record["status"] = script.get("status", 201)
            return scripted_answer(script, b"")
        record["status"] = status
        record["reason"] = reason
        if status != 201:
            # A body Tidings must never echo.
            return status, [("content-type", "text/plain")], f"mock refused: {reason} <script>x</script>".encode()
        return 201, [("location", f"{self.origin}/m/{uuid.uuid4()}")], b""

    def check_web_push(self, scope, headers, body, subscription, record):
        """The checks a push service makes; (status, reason)."""
        if scope["method"] != "POST":
            return 405, "method"
        if subscription not in self.subscriptions:
            return 404, "unknown subscription"
        authorization = headers.get("authorization", "")
        match = re.fullmatch(r"vapid t=([A-Za-z0-9_.-]+), k=([A-Za-z0-9_-]+)", authorization)
        if not match:
            return 401, "no VAPID authorization"
        token, k = match.groups()
        record["jwt"] = token
        record["vapid_key"] = k
        try:
            point = b64url_decode(k)
            public_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
            header = jwt.get_unverified_header(token)
            if header.get("alg") != "ES256" or header.get("typ") != "JWT":
                return 401, "JWT header"
            claims = jwt.decode(token, public_key, algorithms=["ES256"], audience=self.origin,
                                options={"require": ["aud", "exp", "sub"]})
        except (ValueError, jwt.PyJWTError) as error:
            return 401, f"JWT: {error}"
        record["claims"] = claims
        if not isinstance(claims["exp"], int) or claims["exp"] > time.time() + 86400:
            return 401, "exp more than 24 hours ahead"
        if not re.match(r"^(mailto:.+|https://.+)$", claims["sub"]):
            return 401, "sub"
        if not (headers.get("ttl") or "").isdigit():
            return 400, "TTL"
        if headers.get("urgency", "normal") not in ("very-low", "low", "normal", "high"):
            return 400, "Urgency"
        if "topic" in headers and not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", headers["topic"]):
            return 400, "Topic"
        if headers.get("content-encoding") != "aes128gcm":
            return 400, "Content-Encoding"
        if len(body) > 4096:
            return 413, "too large"
        key, auth = self.subscriptions[subscription]
        try:
            plaintext = decrypt_aes128gcm(body, key, auth)
        except Exception as error:  # noqa: BLE001 - any failure is a refusal
            return 400, f"decryption: {type(error).__name__}"
        record["payload"] = plaintext.decode("utf-8", "replace")
        return 201, None

    # --- OAuth token endpoint -------------------------------------------------
    async def token(self, scope, headers, body, port):
        record = {"connection": port, "content_type": headers.get("content-type"), "assertion": None}
        self.token_requests.append(record)
        if self.token_scripts:
            script = self.token_scripts.pop(0)
            await asyncio.sleep(float(script.get("delay", 0)))
            record["status"] = script.get("status", 200)
            if "expires_in" in script:
                access = "ya29.mock-" + secrets.token_urlsafe(24)
                self.access_tokens[access] = False
                document = {"access_token": access, "expires_in": script["expires_in"], "token_type": "Bearer"}
                return script.get("status", 200), [("content-type", "application/json")], json.dumps(document).encode()
            return scripted_answer(script, b"")
        form = urllib.parse.parse_qs(body.decode("ascii", "replace"), strict_parsing=True) if body else {}
        record["form_keys"] = sorted(form)
        if (scope["method"] != "POST"
                or headers.get("content-type") != "application/x-www-form-urlencoded"
                or form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
                or len(form.get("assertion", [])) != 1):
            record["status"] = 400
            return oauth_error(400, "invalid_request")
        assertion = form["assertion"][0]
        record["assertion"] = assertion
        try:
            if jwt.get_unverified_header(assertion).get("alg") != "RS256":
                raise jwt.InvalidTokenError("alg")
            claims = jwt.decode(assertion, self.fcm_public_key, algorithms=["RS256"], audience=self.token_uri,
                                options={"require": ["iss", "scope", "aud", "iat", "exp"]})
        except jwt.PyJWTError as error:
            record["status"] = 400
            record["error"] = str(error)
            return oauth_error(400, "invalid_grant")
        record["claims"] = claims
        if (claims["iss"] != CLIENT_EMAIL or claims["scope"] != FCM_SCOPE
                or claims["exp"] - claims["iat"] > 3600 or abs(claims["iat"] - time.time()) > 300):
            record["status"] = 400
            return oauth_error(400, "invalid_grant")
        access = "ya29.mock-" + secrets.token_urlsafe(24)
        self.access_tokens[access] = False
        record["status"] = 200
        record["access_token"] = access
        document = {"access_token": access, "expires_in": 3599, "token_type": "Bearer"}
        return 200, [("content-type", "application/json")], json.dumps(document).encode()


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hmac_sha256(key, data):
    return hmac.new(key, data, "sha256").digest()


def decrypt_aes128gcm(body, key, auth):
    """RFC 8291 on RFC 8188: one record, the sender's key as key id."""
    salt, record_size, id_length = body[:16], int.from_bytes(body[16:20], "big"), body[20]
    if id_length != 65 or len(body) < 21 + 65 + 17:
        raise ValueError("header")
    sender = body[21:86]
    ciphertext = body[86:]
    if len(ciphertext) > record_size:
        raise ValueError("more than one record")
    sender_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender)
    shared = key.exchange(ec.ECDH(), sender_key)
    receiver = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    ikm = hmac_sha256(hmac_sha256(auth, shared), b"WebPush: info\x00" + receiver + sender + b"\x01")
    prk = hmac_sha256(salt, ikm)
    content_key = hmac_sha256(prk, b"Content-Encoding: aes128gcm\x00\x01")[:16]
    nonce = hmac_sha256(prk, b"Content-Encoding: nonce\x00\x01")[:12]
    padded = AESGCM(content_key).decrypt(nonce, ciphertext, None).rstrip(b"\x00")
    if not padded.endswith(b"\x02"):
        raise ValueError("not the last record")
    return padded[:-1]


def apns_reason_body(reason, extra=None):
    if reason is None:
        return b""
    document = {"reason": reason}
    if reason == "Unregistered":
        document["timestamp"] = int(time.time() * 1000)
    return json.dumps(document).encode()


def fcm_error_body(status_code, status=None, errorCode=None, field=None, message="error"):
    details = []
    if errorCode:
        details.append({"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": errorCode})
    if field:
        details.append({"@type": "type.googleapis.com/google.rpc.BadRequest",
                        "fieldViolations": [{"field": field, "description": "Invalid registration token"}]})
    error = {"code": status_code, "message": message, "status": status}
    if details:
        error["details"] = details
    return json.dumps({"error": error}).encode()


def oauth_error(status, error):
    return status, [("content-type", "application/json")], json.dumps(
        {"error": error, "error_description": "mock refused the request"}).encode()


def scripted_answer(script, default_body):
    """A scripted response: status, optional Retry-After, and the body the
    script names (raw text or N bytes) or the default one for its reason."""
    headers = [("content-type", "application/json")]
    if "retry_after" in script:
        headers.append(("retry-after", str(script["retry_after"])))
    if script.get("status", 200) == 200 and "apns_id" in script:
        headers.append(("apns-id", script["apns_id"]))
    if "body_size" in script:
        body = b"x" * int(script["body_size"])
    elif "body" in script:
        body = script["body"].encode()
    else:
        body = default_body
    return script.get("status", 200), headers, body


async def respond(send, status, headers, body):
    await send({
        "type": "http.response.start", "status": status,
        "headers": [(name.encode(), value.encode()) for name, value in headers]
        + [(b"content-length", str(len(body)).encode())],
    })
    # Large bodies go out in pieces, as a real server would stream them.
    chunk = 64 * 1024
    for start in range(0, max(len(body), 1), chunk):
        piece = body[start:start + chunk]
        await send({"type": "http.response.body", "body": piece, "more_body": start + chunk < len(body)})


def listening_socket():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


async def main(directory):
    apns_public_key, fcm_public_key, fcm_pem = make_credentials(directory)
    push_socket = listening_socket()
    control_socket = listening_socket()
    port = push_socket.getsockname()[1]
    token_uri = f"https://127.0.0.1:{port}/token"
    service_account = {
        "type": "service_account", "project_id": PROJECT_ID, "private_key_id": secrets.token_hex(20),
        "private_key": fcm_pem, "client_email": CLIENT_EMAIL, "client_id": "1234567890",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": token_uri,
    }
    write(os.path.join(directory, "service-account.json"), json.dumps(service_account, indent=2).encode())

    config = Config()
    config.certfile = os.path.join(directory, "server.pem")
    config.keyfile = os.path.join(directory, "server-key.pem")
    config.alpn_protocols = ["h2"]
    config.bind = [f"fd://{push_socket.fileno()}"]
    config.insecure_bind = [f"fd://{control_socket.fileno()}"]
    config.h2_max_concurrent_streams = 1000
    config.keep_alive_timeout = 60
    config.loglevel = "WARNING"
    config.accesslog = None
    mock = Mock(apns_public_key, fcm_public_key, token_uri)
    mock.origin = f"https://127.0.0.1:{port}"

    loop = asyncio.get_running_loop()

    async def watch_stdin():
        await loop.run_in_executor(None, sys.stdin.buffer.read)
        # Nothing to flush: exit at once rather than wait for a graceful
        # shutdown that a handler still in its delay can hold up for good.
        os._exit(0)

    watcher = loop.create_task(watch_stdin())
    startup = {
        "port": port, "control_port": control_socket.getsockname()[1],
        "ca_file": os.path.join(directory, "ca.pem"),
        "apns_key_file": os.path.join(directory, "apns-key.p8"),
        "service_account_file": os.path.join(directory, "service-account.json"),
        "team_id": TEAM_ID, "key_id": KEY_ID, "topic": TOPIC, "second_topic": SECOND_TOPIC, "project_id": PROJECT_ID,
        "client_email": CLIENT_EMAIL, "token_uri": token_uri,
    }

    # The sockets already listen: a connect before serve() runs waits in
    # the backlog.
    print(json.dumps(startup), flush=True)
    await serve(mock, config)
    watcher.cancel()
    os._exit(0)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
