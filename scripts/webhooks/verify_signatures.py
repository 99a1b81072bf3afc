"""Verifies Tidings webhook requests with the PyPI `standardwebhooks` and
`svix` libraries. Reads a JSON list on stdin, one object per request:
{"secret": "whsec_...", "id": ..., "timestamp": ..., "signature": ..., "body": <text>}
and prints a JSON list of {"standardwebhooks": "ok" | error, "svix": "ok" | error}.
"""
import json
import sys

import standardwebhooks
import svix.webhooks


def check(verify):
    try:
        verify()
        return "ok"
    except Exception as error:  # the libraries raise their own error types
        return f"{type(error).__name__}: {error}"


results = []
for item in json.load(sys.stdin):
    headers = {
        "webhook-id": item["id"],
        "webhook-timestamp": item["timestamp"],
        "webhook-signature": item["signature"],
    }
    body = item["body"]
    results.append({
        "standardwebhooks": check(lambda: standardwebhooks.Webhook(item["secret"]).verify(body, headers)),
        "svix": check(lambda: svix.webhooks.Webhook(item["secret"]).verify(body, headers)),
    })
json.dump(results, sys.stdout)
