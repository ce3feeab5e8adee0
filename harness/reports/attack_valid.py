#!/usr/bin/env python3
"""attack_valid.py - the valid client of the attack measurements: posts
one secured request after another, each on a new connection from a given
loopback address, for a given time, and prints JSON: requests sent,
answered with 200, and the latency percentiles of the answered ones (ms).
A request not answered within --timeout counts as sent, not answered.
Not for: load (domlab load) or the attacks themselves."""
import argparse
import http.client
import json
import time


def one(host, port, source, body, timeout):
    """Milliseconds to a 200, or None."""
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection(host, port, timeout=timeout,
                                       source_address=(source, 0))
        c.request("POST", "/soap", body, {"Content-Type": "text/xml"})
        r = c.getresponse()
        r.read()
        c.close()
        return (time.monotonic() - t0) * 1000 if r.status == 200 else None
    except (OSError, http.client.HTTPException):
        return None


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(p / 100 * len(xs)))], 2)


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--port", type=int, required=True)
    a.add_argument("--host", default="127.0.0.1")
    a.add_argument("--source", default="127.0.0.3")
    a.add_argument("--seconds", type=float, default=20)
    a.add_argument("--timeout", type=float, default=10)
    a.add_argument("--pause", type=float, default=0.05)
    a.add_argument("file")
    o = a.parse_args()
    body = open(o.file, "rb").read()
    end = time.monotonic() + o.seconds
    sent, lat = 0, []
    while time.monotonic() < end:
        ms = one(o.host, o.port, o.source, body, o.timeout)
        sent += 1
        if ms is not None:
            lat.append(ms)
        time.sleep(o.pause)
    print(json.dumps({"sent": sent, "answered": len(lat),
                      "p50_ms": pct(lat, 50), "p99_ms": pct(lat, 99)}))


if __name__ == "__main__":
    main()
