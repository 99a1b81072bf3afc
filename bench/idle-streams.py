"""Holds N open Server-Sent Events streams and reads them (bench/streams.sh).

Usage: python3 bench/idle-streams.py PORT COUNT SECONDS
Prints "open COUNT" once every stream has its response head, then reads
heartbeats for SECONDS and prints how many chunks arrived.
"""
import asyncio
import sys

port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
heads = 0
chunks = 0


async def stream(ready):
    global heads, chunks
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(head[:80])
    heads += 1
    if heads == count:
        ready.set()
    while True:
        data = await reader.read(4096)
        if not data:
            raise RuntimeError("stream closed by the server")
        chunks += data.count(b"\n\n")


async def main():
    ready = asyncio.Event()
    tasks = []
    for index in range(count):
        tasks.append(asyncio.create_task(stream(ready)))
        if index % 200 == 199:
            await asyncio.sleep(0.05)  # stay inside the listen backlog
    await asyncio.wait_for(ready.wait(), 120)
    print(f"open {count}", flush=True)
    await asyncio.sleep(seconds)
    print(f"events {chunks}", flush=True)
    failed = [task for task in tasks if task.done()]
    if failed:
        print(f"failed {len(failed)}: {failed[0].exception()!r}", flush=True)


asyncio.run(main())
