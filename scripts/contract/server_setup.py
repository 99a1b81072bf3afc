"""Small steps of scripts/contract-test.sh that need more than the shell offers
on a bare Debian (no curl): standard library only.

  server_setup.py free-port                      -> a free loopback TCP port
  server_setup.py wait-ready BASE_URL SECONDS PID -> returns once /readyz is 200
  server_setup.py create-user BASE_URL           -> a new user's API key
                                                    (admin token in TIDINGS_ADMIN_TOKEN)
"""

import json
import os
import socket
import sys
import time
import urllib.error
import urllib.request


def free_port() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        print(probe.getsockname()[1])


def wait_ready(base_url: str, seconds: str, server_pid: str) -> None:
    deadline = time.monotonic() + float(seconds)
    while time.monotonic() < deadline:
        # A server that died while starting will never become ready.
        try:
            os.kill(int(server_pid), 0)
        except ProcessLookupError:
            sys.exit("the server exited before it became ready")
        try:
            with urllib.request.urlopen(base_url + "/readyz", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    sys.exit(f"{base_url}/readyz did not answer 200 within {seconds} s")


def create_user(base_url: str) -> None:
    request = urllib.request.Request(
        base_url + "/v1/users",
        method="POST",
        data=json.dumps({"name": "contract-test", "key_name": "schemathesis"}).encode(),
        headers={
            "Authorization": "Bearer " + os.environ["TIDINGS_ADMIN_TOKEN"],
            "Content-Type": "application/json",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            print(json.load(response)["api_key"])
    except urllib.error.HTTPError as error:
        sys.exit(f"POST /v1/users answered {error.code}: {error.read().decode(errors='replace')}")


COMMANDS = {"free-port": free_port, "wait-ready": wait_ready, "create-user": create_user}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    COMMANDS[sys.argv[1]](*sys.argv[2:])
