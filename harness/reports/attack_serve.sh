# attack_serve.sh - sourced by attack_memory.sh and attack_slowloris.sh:
# what both do before their attack.  Needs DOMLAB, K, T and NAME (the
# caller's name, for its messages); sets VARIANT, PID and PORT.
# Not for: running on its own, or attack.sh and load.sh (they start a
# server per row under their own logs).

# secured_request IN OUT: alice's request for bob, alive an hour.
secured_request() {
	"$DOMLAB" send --key "$K/alice.key.pem" --cert "$K/alice.cert.pem" \
		--peer-cert "$K/bob.cert.pem" --ttl 3600 "$1" -o "$2"
}

# serve_start [SERVE OPTIONS]: bob's `domlab serve --stats` on a free
# loopback port, the per-address connection cap off (one attacking
# address is what is measured); waits at most 10 s for its port.
serve_start() {
	"$DOMLAB" serve --key "$K/bob.key.pem" --cert "$K/bob.cert.pem" \
		--trust "$K/alice.cert.pem" --port 0 --stats \
		--max-connections-per-ip 0 "$@" >"$T/serve.out" 2>"$T/serve.err" &
	PID=$!
	PORT=
	i=0
	while [ $i -lt 100 ] && [ -z "$PORT" ]; do
		PORT=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$T/serve.out")
		[ -n "$PORT" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$PORT" ] || {
		echo "$NAME: the server did not start: $(cat "$T/serve.err")" >&2
		exit 1
	}
}

# stat NAME: the server's GET /stats line NAME.
stat() { curl -s "http://127.0.0.1:$PORT/stats" | sed -n "s/^$1 //p"; }

VARIANT=$("$DOMLAB" variant | sed -n 's/^variant=//p')
