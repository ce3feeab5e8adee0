/*
 * load_report.c - `domlab load`'s report: a markdown table, one row per
 * level, in the style of the attachment load-test report (clients,
 * requests, errors, throughput, latency, the server's CPU and memory),
 * then why requests failed, grouped; and the same as JSON for scripts
 * (harness/reports/summary.py).  requests/s and the latencies count
 * the requests done (answered 2xx and verified) alone.
 * Not for: measuring (load.c).
 */
#include <stdio.h>

#include "harness/http/load.h"

/* The server's CPU milliseconds per request over the level, or < 0. */
static double cpu_ms(const load_result *r)
{
	if (!r->before.got || !r->after.got || r->requests == 0 ||
	    r->before.cpu_us < 0 || r->after.cpu_us < 0)
		return -1;
	return (double)(r->after.cpu_us - r->before.cpu_us) / 1e3 /
	       (double)r->requests;
}

/* Requests done per second. */
static double rps(const load_result *r)
{
	return r->seconds > 0 ? (double)(r->requests - r->errors) / r->seconds
			      : 0;
}

/* Read-timeout stalls per request over the level, or < 0. */
static double stalls(const load_result *r)
{
	if (!r->before.got || !r->after.got || r->requests == 0)
		return -1;
	return (double)(r->after.stalls - r->before.stalls) /
	       (double)r->requests;
}

/* --tokens' cells: first and last tenth, their ratio, tokens held. */
static int growth_cells(const load_result *r, lab_buf *out)
{
	int rc = r->growth ? lab_buf_printf(out, " %.2f | %.2f | %.3f |",
					    r->first, r->last,
					    r->first > 0 ? r->last / r->first
							 : 0)
			   : lab_buf_puts(out, " - | - | - |");

	if (rc == LAB_OK && r->after.got)
		rc = lab_buf_printf(out, " %lld |", r->after.tokens);
	else if (rc == LAB_OK)
		rc = lab_buf_puts(out, " - |");
	return rc;
}

/* Why requests failed, a line per level and reason, after the table. */
static int failures(const load_result *r, unsigned n, lab_buf *out)
{
	unsigned i, j;
	int rc = LAB_OK;

	for (i = 0; rc == LAB_OK && i < n; i++) {
		if (r[i].errors == 0)
			continue;
		rc = lab_buf_printf(out, "\n%u client%s: %lu of %lu requests "
				    "failed\n\n", r[i].clients,
				    r[i].clients > 1 ? "s" : "", r[i].errors,
				    r[i].requests);
		for (j = 0; rc == LAB_OK && j < r[i].nwhy; j++)
			rc = lab_buf_printf(out, "- %lu %s (the first: %s)\n",
					    r[i].why[j].n, r[i].why[j].what,
					    r[i].why[j].first);
		if (rc == LAB_OK && r[i].why_other > 0)
			rc = lab_buf_printf(out, "- %lu for other reasons\n",
					    r[i].why_other);
	}
	return rc;
}

static int table(const load_cfg *cfg, const load_result *r, unsigned n,
		 lab_buf *out)
{
	const load_stats *s = &r[n - 1].after;
	int rc = lab_buf_printf(out, "load: %s, %s %s\n\n", cfg->url,
				s->got ? "server" : "server stats",
				s->got ? s->variant : "not available");
	unsigned i;

	if (rc == LAB_OK && s->got)
		rc = lab_buf_printf(out, "stack %s, read=%s, io=%s, tokens store "
				    "%s\n\n",
				    s->stack, s->read, s->io, s->tokens_store);
	if (rc == LAB_OK && cfg->attach != NULL)
		rc = lab_buf_printf(out, "SwA: an attachment of %zu bytes\n\n",
				    cfg->attach_len);
	if (rc == LAB_OK && cfg->rate > 0)
		rc = lab_buf_printf(out, "open loop: %u requests/s scheduled, "
				    "latency from each one's intended send "
				    "time\n\n", cfg->rate);
	if (rc == LAB_OK)
		rc = lab_buf_puts(
			out,
			"| clients | requests | errors | requests/s | p50 ms | "
			"p90 ms | p99 ms | p99.9 ms | max ms | "
			"server CPU ms/request | "
			"server peak RSS MB | stalls/request |");
	if (rc == LAB_OK && cfg->tokens)
		rc = lab_buf_puts(out, " first ms | last ms | last / first | "
				       "server tokens |");
	if (rc == LAB_OK)
		rc = lab_buf_puts(out, "\n|---:|---:|---:|---:|---:|---:|---:|"
				       "---:|---:|---:|---:|---:|");
	if (rc == LAB_OK && cfg->tokens)
		rc = lab_buf_puts(out, "---:|---:|---:|---:|");
	if (rc == LAB_OK)
		rc = lab_buf_putc(out, '\n');
	for (i = 0; rc == LAB_OK && i < n; i++) {
		rc = lab_buf_printf(out,
				    "| %u | %lu | %lu | %.1f | %.2f | %.2f | "
				    "%.2f | %.2f | %.2f | ",
				    r[i].clients, r[i].requests, r[i].errors,
				    rps(&r[i]), r[i].p50, r[i].p90, r[i].p99,
				    r[i].p999, r[i].max);
		if (rc == LAB_OK && cpu_ms(&r[i]) >= 0)
			rc = lab_buf_printf(out, "%.2f | %.1f | %.2f |",
					    cpu_ms(&r[i]),
					    (double)r[i].after.maxrss_kb / 1024,
					    stalls(&r[i]));
		else if (rc == LAB_OK)
			rc = lab_buf_puts(out, "- | - | - |");
		if (rc == LAB_OK && cfg->tokens)
			rc = growth_cells(&r[i], out);
		if (rc == LAB_OK)
			rc = lab_buf_putc(out, '\n');
	}
	return rc == LAB_OK ? failures(r, n, out) : rc;
}

/* A JSON string of s's characters (URLs, variant names, a server's
 * message: control characters go as \u escapes). */
static int json_str(lab_buf *out, const char *s)
{
	int rc = lab_buf_putc(out, '"');

	for (; rc == LAB_OK && *s != '\0'; s++)
		rc = *s == '"' || *s == '\\' ? lab_buf_printf(out, "\\%c", *s)
		     : (unsigned char)*s < 0x20
			     ? lab_buf_printf(out, "\\u%04x", (unsigned)*s)
			     : lab_buf_putc(out, *s);
	return rc == LAB_OK ? lab_buf_putc(out, '"') : rc;
}

static int json_num(lab_buf *out, const char *key, double v, int known)
{
	return known ? lab_buf_printf(out, ", \"%s\": %.4f", key, v)
		     : lab_buf_printf(out, ", \"%s\": null", key);
}

/* The server's words from its stats, each a string member ("" when the
 * server had no stats). */
static int json_words(const load_stats *s, lab_buf *out)
{
	const char *const words[][2] = {
		{"variant", s->variant}, {"stack", s->stack},
		{"read", s->read},       {"io", s->io},
		{"tokens_store", s->tokens_store}};
	size_t i;
	int rc = LAB_OK;

	for (i = 0; rc == LAB_OK && i < sizeof words / sizeof words[0]; i++) {
		rc = lab_buf_printf(out, ", \"%s\": ", words[i][0]);
		if (rc == LAB_OK)
			rc = json_str(out, s->got ? words[i][1] : "");
	}
	return rc;
}

/* "failures": [{"reason", "count", "first"} ...], other reasons last. */
static int json_failures(const load_result *r, lab_buf *out)
{
	unsigned j;
	int rc = lab_buf_puts(out, ", \"failures\": [");

	for (j = 0; rc == LAB_OK && j < r->nwhy; j++) {
		rc = lab_buf_printf(out, "%s{\"reason\": ", j > 0 ? ", " : "");
		if (rc == LAB_OK)
			rc = json_str(out, r->why[j].what);
		if (rc == LAB_OK)
			rc = lab_buf_printf(out, ", \"count\": %lu, \"first\": ",
					    r->why[j].n);
		if (rc == LAB_OK)
			rc = json_str(out, r->why[j].first);
		if (rc == LAB_OK)
			rc = lab_buf_putc(out, '}');
	}
	if (rc == LAB_OK && r->why_other > 0)
		rc = lab_buf_printf(out, "%s{\"reason\": \"other\", \"count\": "
				    "%lu, \"first\": \"\"}", r->nwhy > 0 ? ", " : "",
				    r->why_other);
	return rc == LAB_OK ? lab_buf_putc(out, ']') : rc;
}

static int json(const load_cfg *cfg, const load_result *r, unsigned n,
		lab_buf *out)
{
	int rc = lab_buf_puts(out, "{\"url\": ");
	unsigned i;

	if (rc == LAB_OK)
		rc = json_str(out, cfg->url);
	if (rc == LAB_OK)
		rc = json_words(&r[n - 1].after, out);
	if (rc == LAB_OK)
		rc = lab_buf_printf(out, ", \"fresh_tokens\": %s, "
				    "\"attachment_bytes\": %zu",
				    cfg->tokens ? "true" : "false",
				    cfg->attach_len);
	if (rc == LAB_OK)
		rc = lab_buf_puts(out, ", \"levels\": [");
	for (i = 0; rc == LAB_OK && i < n; i++) {
		rc = lab_buf_printf(out,
				    "%s\n  {\"clients\": %u, \"rate\": %u, "
				    "\"requests\": %lu, \"errors\": %lu, "
				    "\"done\": %lu, \"seconds\": %.4f",
				    i > 0 ? "," : "", r[i].clients, r[i].rate,
				    r[i].requests, r[i].errors,
				    r[i].requests - r[i].errors, r[i].seconds);
		if (rc == LAB_OK)
			rc = json_num(out, "requests_per_s", rps(&r[i]), 1);
		if (rc == LAB_OK)
			rc = lab_buf_printf(out,
					    ", \"p50_ms\": %.4f, \"p90_ms\": %.4f, "
					    "\"p99_ms\": %.4f, \"p999_ms\": %.4f, "
					    "\"max_ms\": %.4f",
					    r[i].p50, r[i].p90, r[i].p99,
					    r[i].p999, r[i].max);
		if (rc == LAB_OK)
			rc = json_num(out, "server_cpu_ms_per_request",
				      cpu_ms(&r[i]), cpu_ms(&r[i]) >= 0);
		if (rc == LAB_OK)
			rc = json_num(out, "server_peak_rss_kb",
				      (double)r[i].after.maxrss_kb,
				      r[i].after.got);
		if (rc == LAB_OK)
			rc = json_num(out, "stalls_per_request", stalls(&r[i]),
				      stalls(&r[i]) >= 0);
		if (rc == LAB_OK)
			rc = json_num(out, "first_ms", r[i].first, r[i].growth);
		if (rc == LAB_OK)
			rc = json_num(out, "last_ms", r[i].last, r[i].growth);
		if (rc == LAB_OK)
			rc = json_num(out, "server_tokens",
				      (double)r[i].after.tokens,
				      r[i].after.got && r[i].after.tokens >= 0);
		if (rc == LAB_OK)
			rc = json_failures(&r[i], out);
		if (rc == LAB_OK)
			rc = lab_buf_putc(out, '}');
	}
	return rc == LAB_OK ? lab_buf_puts(out, "\n]}\n") : rc;
}

int load_report(const load_cfg *cfg, const load_result *r, unsigned n,
		lab_err *err)
{
	lab_buf t = LAB_BUF_INIT, j = LAB_BUF_INIT;
	int rc = table(cfg, r, n, &t);

	if (rc == LAB_OK && cfg->json != NULL)
		rc = json(cfg, r, n, &j);
	if (rc != LAB_OK)
		rc = lab_fail(err, LAB_ENOMEM, "out of memory");
	if (rc == LAB_OK && cfg->json != NULL)
		rc = lab_write_output(cfg->json, j.data, j.len, err);
	if (rc == LAB_OK)
		rc = lab_write_output(cfg->io.out, t.data, t.len, err);
	lab_buf_free(&t);
	lab_buf_free(&j);
	return rc;
}
