/*
 * opts.c - the option tables of serve and load: domlab answers --help
 * from them without loading domlab-http, which parses with them.
 * Not for: parsing (args.c) or running (serve.c, load.c).
 */
#include "harness/http/http.h"

const lab_opt lab_serve_options[] = {
	{"--key", "K.pem", 1,
	 "the server's private key (PEM): unwraps the request's session key "
	 "and signs the response"},
	{"--cert", "C.pem", 1,
	 "the server's certificate, carried in the response's "
	 "BinarySecurityToken"},
	{"--trust", "PEER.pem", 1,
	 "the one client certificate a request's signature is accepted from"},
	{"--peer-cert", "PEER.pem", 0,
	 "the certificate the response is encrypted for (default: --trust's)"},
	{"--listen", "ADDR", 0,
	 "the numeric address to listen on (default 127.0.0.1, loopback)"},
	{"--port", "N", 0,
	 "the TCP port (default 8080); 0 picks a free one; `listening on "
	 "ADDR:PORT` is printed once connections are accepted"},
	{"--stack", "domlab|ref", 0,
	 "who answers: this variant's pipeline (default) or the reference "
	 "peer, libxml2 + xmlsec1"},
	{"--max-body", "BYTES", 0,
	 "refuse a request body over BYTES with 413 (default 16777216)"},
	{"--header-timeout", "S", 0,
	 "close a connection whose request headers are not all in S seconds "
	 "after it opened or after its last response (default 10)"},
	{"--body-timeout", "S", 0,
	 "close a connection whose request body is not all in S seconds "
	 "after its headers (default 30)"},
	{"--max-connections", "N", 0,
	 "hold at most N connections at once; more are closed as they are "
	 "accepted (default 4096; the descriptor limit is raised to fit)"},
	{"--max-connections-per-ip", "N", 0,
	 "hold at most N connections from one address (default 256; 0: no "
	 "cap).  Clients behind one proxy or NAT share an address"},
	{"--workers", "N", 0,
	 "answer at most N requests at once on N threads; the others wait "
	 "queued, their bodies read (default 16)"},
	{"--max-memory", "BYTES", 0,
	 "the memory budget of the requests in flight: a request that would "
	 "take the server over it is answered 503 with Retry-After before "
	 "its body is read (default a quarter of physical memory)"},
	{"--max-client-memory", "BYTES", 0,
	 "the share of --max-memory one client address may hold (default "
	 "half of it)"},
	{"--max-client-requests", "N", 0,
	 "requests one client address may have in flight at once; more are "
	 "answered 503 (default 64)"},
	{"--memory-factor", "N", 0,
	 "bytes a request is charged per byte of its body (default: this "
	 "preset's measured expansion, docs/http.md)"},
	{"--read-timeout", "MS", 0,
	 "read=eof: how long waiting for the end of the stream may block, "
	 "as Java's SO_TIMEOUT (default 300)"},
	{"--stats", NULL, 0,
	 "answer GET /stats with the server's counters, CPU time and peak "
	 "RSS (what `domlab load` reads)"},
	{"--tokens", NULL, 0,
	 "keep every request's token (its EncryptedKey) in the tokens "
	 "axis's store and refuse a request whose token is held (a replay)"},
	{NULL, NULL, 0, NULL}};

const lab_opt lab_load_options[] = {
	{"--url", "URL", 1, "the endpoint, as http://HOST:PORT/PATH"},
	{"--key", "K.pem", 1, "the client's private key (PEM): signs requests"},
	{"--cert", "C.pem", 1,
	 "the client's certificate, carried in the BinarySecurityToken"},
	{"--peer-cert", "PEER.pem", 1,
	 "the server's certificate: requests are encrypted for it"},
	{"--clients", "N", 0,
	 "run 1, 2, 4 ... and N concurrent clients, each a thread with one "
	 "kept-alive connection (default 4)"},
	{"--requests", "N", 0,
	 "send N requests at each level (default 200); a request is done "
	 "when its answer is 2xx and decrypts and verifies, and a run with "
	 "any other exits 4 saying how many failed and why"},
	{"--seconds", "S", 0,
	 "send requests for S seconds at each level instead of a count"},
	{"--rate", "R", 0,
	 "open loop: send R requests per second on a schedule over --clients "
	 "connections, latency from each request's intended send time "
	 "(one level)"},
	{"--timeout", "MS", 0,
	 "a request not answered in MS milliseconds fails (default 30000)"},
	{"--json", "FILE", 0, "also write the results as JSON to FILE"},
	{"--tokens", NULL, 0,
	 "secure every request anew (a fresh token for `serve --tokens`) "
	 "and report the first and last tenth's latency"},
	{"--attach", "FILE", 0,
	 "send SOAP with Attachments: FILE signed with the envelope, as "
	 "multipart/related"},
	{NULL, NULL, 0, NULL}};
