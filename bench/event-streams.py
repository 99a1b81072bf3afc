"""Holds many event streams (GET /v1/events) open on a real Tidings and
measures, for every event a producer commits, how long it took to reach
each stream of its user.

    python3 bench/event-streams.py BASE KEYS_FILE STREAMS_PER_USER IDLE_SECONDS LOAD_SECONDS RATE DATABASE_URL

KEYS_FILE has "user_id key" lines. The producer commits `webhook.test`
events through queue_events (the one outbox function every path uses) at
RATE per second, spread over the users, each carrying the wall-clock time
of its insert (clock_timestamp(), just before its autocommit). Prints
stage lines for bench/events.sh on stdout:
  open N          every stream answered 200 (after the retry: hint)
  idle            the idle window is over
  result {...}    the delivery figures, as JSON
"""

import asyncio
import json
import random
import subprocess
import sys
import time
import urllib.parse


async def open_stream(host, port, key):
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"GET /v1/events?types=webhook.test HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {key}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(head[:200])
    return reader, writer


async def read_stream(user, reader, arrivals, bad):
    """Reads chunked SSE; records (user, event id) -> arrival latency."""
    text = b""
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            return
        text += chunk[:-2]
        while b"\n\n" in text:
            block, text = text.split(b"\n\n", 1)
            now = time.time()
            event_id = None
            data = None
            for line in block.split(b"\n"):
                if line.startswith(b"id: "):
                    event_id = line[4:].decode()
                elif line.startswith(b"data: "):
                    data = line[6:]
            if data is None:
                continue
            body = json.loads(data)
            sent = body.get("data", {}).get("bench_sent")
            if sent is None:
                bad.append(block[:100])
                continue
            arrivals.append((user, event_id, now - float(sent)))


def producer(database, users, rate, seconds):
    """psql fed one autocommitted queue_events call per tick."""
    psql = subprocess.Popen(
        ["psql", database, "-qAtX", "-v", "ON_ERROR_STOP=1", "-o", "/dev/null"],
        stdin=subprocess.PIPE, text=True,
    )
    interval = 1.0 / rate
    started = time.monotonic()
    sent = 0
    while time.monotonic() - started < seconds:
        user = random.choice(users)
        psql.stdin.write(
            "SELECT 1 FROM queue_events(ARRAY[ROW("
            f"'{user}'::uuid, 'webhook.test', "
            "jsonb_build_object('bench_sent', extract(epoch FROM clock_timestamp())), NULL, NULL)::outbox_event]);\n"
        )
        psql.stdin.flush()
        sent += 1
        pause = started + sent * interval - time.monotonic()
        if pause > 0:
            time.sleep(pause)
    psql.stdin.close()
    psql.wait()
    return sent


async def main():
    base, keys_file, per_user, idle, load, rate, database = sys.argv[1:8]
    per_user, idle, load, rate = int(per_user), int(idle), int(load), float(rate)
    address = urllib.parse.urlsplit(base)
    users = [line.split() for line in open(keys_file) if line.strip()]
    arrivals, bad, streams = [], [], []
    pending = [(user_id, key) for user_id, key in users for _ in range(per_user)]
    for start in range(0, len(pending), 500):
        opened = await asyncio.gather(*(open_stream(address.hostname, address.port, key) for _, key in pending[start:start + 500]))
        streams += [(user_id, reader, writer) for (user_id, _), (reader, writer) in zip(pending[start:start + 500], opened)]
    tasks = [asyncio.create_task(read_stream(user_id, reader, arrivals, bad)) for user_id, reader, _ in streams]
    print(f"open {len(streams)}", flush=True)
    await asyncio.sleep(idle)
    print("idle", flush=True)
    started = time.time()
    sent = await asyncio.get_running_loop().run_in_executor(None, producer, database, [u for u, _ in users], rate, load)
    produced_for = time.time() - started
    await asyncio.sleep(5)  # the last events' way
    latencies = sorted(latency for _, _, latency in arrivals)
    per_event = {}
    for user, event_id, _ in arrivals:
        per_event[(user, event_id)] = per_event.get((user, event_id), 0) + 1

    def percentile(p):
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000 if latencies else None

    print("result " + json.dumps({
        "streams": len(streams),
        "events_committed": sent,
        "commit_rate": round(sent / produced_for, 1),
        "deliveries": len(arrivals),
        "deliveries_expected": sent * per_user,
        "events_not_at_every_stream": sum(1 for count in per_event.values() if count != per_user) + max(0, sent - len(per_event)),
        "p50_ms": percentile(0.50),
        "p90_ms": percentile(0.90),
        "p99_ms": percentile(0.99),
        "max_ms": latencies[-1] * 1000 if latencies else None,
        "unreadable": len(bad),
        "streams_ended": sum(1 for task in tasks if task.done()),
    }), flush=True)
    for _, _, writer in streams:
        writer.close()


asyncio.run(main())
