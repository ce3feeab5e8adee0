#!/usr/bin/env python3
"""attack.py - the attacks `make attack` runs against `domlab serve`,
but for slow connections (harness/attack/slowloris.c),
while `domlab load --rate` sends valid traffic (harness/reports/attack.sh).
Each is a small client that stops by itself: loopback only (the port is
on 127.0.0.1), from 127.0.0.2 (--source) so that the server's per-address
caps tell it from the valid clients on 127.0.0.1, bounded in connections
and in time (--seconds), and it prints one JSON line saying what it did
and what the server answered.

    attack.py bodies --port P --seconds S [--conns N] [--size BYTES]
        N connections (default 64) at once, each POSTing an unsigned
        envelope of BYTES (default 15 MB) of small elements, over and over.
    attack.py smuggle --port P --seconds S
        ambiguous framing, one connection at a time: Content-Length with
        Transfer-Encoding, two different Content-Lengths, an obfuscated
        Transfer-Encoding, each with a second request behind the first
        body; counts the smuggled requests the server answered and the
        connections it left open.
    attack.py replay --port P --seconds S [--conns N] FILE...
        N connections (default 4) POSTing the FILEs in turn as fast as
        answered (the receiver attacks: wrapping, CBC oracle probes, a huge
        serial number); counts statuses and distinct Fault messages.

Not for: slow connections (harness/attack/slowloris.c), valid traffic
(domlab load) or correctness (tests/http.sh).
Standard library only.
"""
import argparse
import json
import re
import socket
import sys
import threading
import time

HOST = "127.0.0.1"


def deadline_of(a):
    return time.monotonic() + a.seconds


SOURCE = "127.0.0.2"  # the attacker's address; valid clients use .1


def connect(port, timeout=5.0):
    s = socket.create_connection((HOST, port), timeout=timeout,
                                 source_address=(SOURCE, 0))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_response(s, limit=1 << 24):
    """(status, body bytes) of one HTTP/1.1 response on s, or (0, b"")
    when the connection ended first.  Content-Length framing only, as
    the server answers."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            return 0, b""
        buf += chunk
        if len(buf) > limit:
            return 0, b""
    head, _, rest = buf.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.[01] (\d{3})", head)
    status = int(m.group(1)) if m else 0
    cl = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    n = int(cl.group(1)) if cl else 0
    while len(rest) < n:
        chunk = s.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, rest[:n]


def fault(body):
    m = re.search(rb"<faultstring>(.*?)</faultstring>", body, re.S)
    return m.group(1).decode("utf-8", "replace") if m else ""


def post(path, body, ctype="text/xml; charset=utf-8"):
    return (f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\n"
            f"Content-Type: {ctype}\r\nSOAPAction: \"\"\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


# ---- many large bodies -----------------------------------------------------

def big_envelope(size):
    head = (b'<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/'
            b'envelope/"><soap:Body><r>')
    tail = b"</r></soap:Body></soap:Envelope>"
    item = b'<e a="1" b="2">x</e>'
    n = max((size - len(head) - len(tail)) // len(item), 1)
    return head + item * n + tail


def bodies(a):
    req = post("/soap", big_envelope(a.size))
    stats = {"attack": "bodies", "conns": a.conns, "size": a.size,
             "sent": 0, "statuses": {}, "errors": 0}
    lock = threading.Lock()
    end = deadline_of(a)

    def one():
        while time.monotonic() < end:
            try:
                with connect(a.port, timeout=max(end - time.monotonic(), 1)) as s:
                    s.sendall(req)
                    status, _ = read_response(s)
                with lock:
                    stats["sent"] += 1
                    k = str(status)
                    stats["statuses"][k] = stats["statuses"].get(k, 0) + 1
            except OSError:
                with lock:
                    stats["errors"] += 1
                time.sleep(0.05)

    threads = [threading.Thread(target=one, daemon=True)
               for _ in range(a.conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(end - time.monotonic(), 0) + 10)
    return stats


# ---- ambiguous framing -----------------------------------------------------

SMUGGLED = b"GET /stats HTTP/1.1\r\nHost: x\r\n\r\n"


def framings():
    body = b"<x/>"
    chunked = b"4\r\n<x/>\r\n0\r\n\r\n"
    base = (b"POST /soap HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: text/xml\r\n")
    return {
        "cl+te": base + b"Content-Length: %d\r\nTransfer-Encoding: chunked"
                        b"\r\n\r\n" % len(chunked) + chunked,
        "cl+cl": base + b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n"
                        % (len(body), len(body) + 1) + body,
        "te-obfuscated": base + b"Transfer-Encoding: xchunked\r\n"
                                b"Content-Length: %d\r\n\r\n" % len(body)
                         + body,
        "te-space": base + b"Transfer-Encoding : chunked\r\n"
                           b"Content-Length: %d\r\n\r\n" % len(chunked)
                    + chunked,
    }


def smuggle(a):
    cases = framings()
    stats = {"attack": "smuggle", "tries": 0, "first": {},
             "smuggled_answered": {}, "left_open": 0, "errors": 0}
    end = deadline_of(a)
    while time.monotonic() < end:
        for name, req in cases.items():
            try:
                with connect(a.port, timeout=2) as s:
                    s.sendall(req + SMUGGLED)
                    status, _ = read_response(s)
                    k = f"{name} {status}"
                    stats["first"][k] = stats["first"].get(k, 0) + 1
                    try:
                        s2, _ = read_response(s)
                    except socket.timeout:
                        s2 = -1
                    if s2 > 0:
                        k = f"{name} {s2}"
                        stats["smuggled_answered"][k] = \
                            stats["smuggled_answered"].get(k, 0) + 1
                    elif s2 < 0:
                        stats["left_open"] += 1
            except OSError:
                stats["errors"] += 1
            stats["tries"] += 1
            time.sleep(0.02)
            if time.monotonic() >= end:
                break
    return stats


# ---- receiver attacks as requests ------------------------------------------

def ctype_and_body(data):
    """A MIME message (send --attach's) goes as its header's Content-Type
    and the rest; anything else as text/xml."""
    if data.startswith(b"MIME-Version") or data.startswith(b"Content-Type"):
        head, _, rest = data.partition(b"\r\n\r\n")
        m = re.search(rb"(?im)^content-type:\s*([^\r\n]+)", head)
        return m.group(1).decode(), rest
    return "text/xml; charset=utf-8", data


def replay(a):
    reqs = []
    for f in a.files:
        with open(f, "rb") as fh:
            ct, body = ctype_and_body(fh.read())
        reqs.append(post("/soap", body, ct))
    stats = {"attack": "replay", "files": len(reqs), "sent": 0,
             "statuses": {}, "faults": {}, "errors": 0, "ms_total": 0.0}
    lock = threading.Lock()
    end = deadline_of(a)

    def one(offset):
        i = offset
        s = None
        while time.monotonic() < end:
            try:
                if s is None:
                    s = connect(a.port, timeout=10)
                t0 = time.monotonic()
                s.sendall(reqs[i % len(reqs)])
                status, body = read_response(s)
                ms = (time.monotonic() - t0) * 1e3
                if status == 0:
                    raise OSError("closed")
                with lock:
                    stats["sent"] += 1
                    stats["ms_total"] += ms
                    k = str(status)
                    stats["statuses"][k] = stats["statuses"].get(k, 0) + 1
                    f = fault(body)[:120]
                    if f:
                        stats["faults"][f] = stats["faults"].get(f, 0) + 1
                i += 1
            except OSError:
                with lock:
                    stats["errors"] += 1
                if s is not None:
                    s.close()
                s = None
                time.sleep(0.05)
        if s is not None:
            s.close()

    threads = [threading.Thread(target=one, args=(k,), daemon=True)
               for k in range(a.conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(end - time.monotonic(), 0) + 15)
    stats["ms_per_request"] = (stats["ms_total"] / stats["sent"]
                               if stats["sent"] else None)
    del stats["ms_total"]
    return stats


def main():
    global SOURCE  # pylint: disable=global-statement
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name, conns in (("bodies", 64), ("smuggle", 1), ("replay", 4)):
        p = sub.add_parser(name)
        p.add_argument("--port", type=int, required=True)
        p.add_argument("--seconds", type=float, required=True)
        p.add_argument("--conns", type=int, default=conns)
        p.add_argument("--source", default=SOURCE)
        if name == "bodies":
            p.add_argument("--size", type=int, default=15_000_000)
        if name == "replay":
            p.add_argument("files", nargs="+")
    a = ap.parse_args()
    # Bounded: at most 10 minutes, 5,000 connections, 64 MB bodies.
    if not (0 < a.seconds <= 600 and 0 < a.conns <= 5000 and
            getattr(a, "size", 1) <= 64_000_000):
        ap.error("--seconds is at most 600, --conns 5000, --size 64 MB")
    if not a.source.startswith("127."):
        ap.error("--source is a loopback address (127.x.y.z)")
    SOURCE = a.source
    run = {"bodies": bodies, "smuggle": smuggle, "replay": replay}[a.cmd]
    print(json.dumps(run(a), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
