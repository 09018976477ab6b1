/*
 * dialect.c - the dialect table and hook_run(), the one path of every
 * PreToolUse-like hook call; see dialect.h.
 *
 * MUST answer exactly once (Codex: not at all on allow) and exit 0.
 * MUST read within SBX_HOOK_MAX_STDIN and parse strictly before anything
 * else looks at the payload: cJSON ends a string at \u0000 and takes the
 * first of two duplicate keys, where the client reads on or takes the
 * last; what sbx judges must be what the client runs.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/json.h"
#include "common/base/util.h"
#include "hook/decide.h"
#include "hook/dialect.h"

static const struct dialect *const dialects[] = {
	&dialect_claude, &dialect_codex, &dialect_cursor, &dialect_gemini, NULL,
};

/* The overrun line of the dialect running, for the signal handler. */
static const char *volatile overrun_line;

static void
on_alarm(int sig)
{
	const char *s = overrun_line;

	(void)sig;
	if (s)
		(void)!write(STDOUT_FILENO, s, strlen(s));
	_exit(0);
}

const struct dialect *
dialect_find(const char *mode)
{
	int i;

	for (i = 0; dialects[i]; i++)
		if (strcmp(dialects[i]->name, mode) == 0)
			return dialects[i];
	return NULL;
}

int
dialect_print(cJSON *o, int built)
{
	char *text = o && built ? json_print_line(o) : NULL;
	int rc = text && write_all(STDOUT_FILENO, text, strlen(text)) == 0 ? 0 : -1;

	free(text);
	cJSON_Delete(o);
	return rc;
}

/* The answer, or the overrun line when it cannot be printed. */
static int
answer(const struct dialect *dl, const struct hook_in *in, int allow, const char *reason)
{
	alarm(0);
	if (dl->answer(in, allow, reason) < 0)
		on_alarm(0);
	return 0;
}

/* The one deny path: formats, keeps the reason valid UTF-8, answers. */
__attribute__((format(printf, 3, 4)))
static int
deny(const struct dialect *dl, const struct hook_in *in, const char *fmt, ...)
{
	char reason[2048];
	char *clean;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	clean = utf8_clean(reason, strlen(reason), sizeof(reason), NULL);
	rc = answer(dl, in, 0, clean ? clean : "sbx: denied");
	free(clean);
	return rc;
}

/*
 * Codex shows a deny as "Command blocked by PreToolUse hook: REASON.
 * Command: CMD" (Gemini CLI as "Tool execution blocked: REASON"). For a
 * command sbxd ran, "blocked" alone would read as "it did not run": say
 * first that it was blocked here only because sbx already ran it, and
 * close the output with a line of its own so that Codex's ". Command: ..."
 * cannot be taken for part of it. Replaces *reason; leaves it as it is
 * when it is not such a result.
 */
void
dialect_shape_executed(char **reason)
{
	static const char lead[] = "sbx: approved by ";
	static const char pre[] = "it was blocked here only because sbx ALREADY RAN IT for "
	    "you, outside the agent: ";
	const char *id = strstr(*reason, " as request ");
	char idbuf[40] = "", tail[96], *out;
	size_t n, idn;

	if (strncmp(*reason, lead, strlen(lead)) != 0 || !strstr(*reason, "ALREADY EXECUTED"))
		return;
	if (id) {
		id += strlen(" as request ");
		idn = strspn(id, "0123456789abcdef");
		if (idn < sizeof(idbuf)) {
			memcpy(idbuf, id, idn);
			idbuf[idn] = '\0';
		}
	}
	snprintf(tail, sizeof(tail), "\n--- end of the result of sbx request %s ---", idbuf);
	n = strlen(pre) + strlen(*reason) - 5 + strlen(tail) + 1;
	if (!(out = malloc(n)))
		return;
	snprintf(out, n, "%s%s%s", pre, *reason + 5, tail);
	free(*reason);
	*reason = out;
}

/* Reads and strictly parses stdin into in->payload; -1 when it answered. */
static int
read_payload(const struct dialect *dl, struct hook_in *in)
{
	enum json_bad bad;
	char why[160];
	cJSON *v;
	char *text;
	size_t len;

	text = fd_read_all(STDIN_FILENO, SBX_HOOK_MAX_STDIN, &len);
	if (!text)
		return deny(dl, in, "sbx: could not read the hook input (%s); the call was not "
		    "run.", errno == EFBIG ? "larger than 4 MiB" : strerror(errno)), -1;
	v = json_parse_strict(text, len, &bad, why, sizeof(why));
	free(text);
	if (bad == JSON_BAD_NUL)
		return deny(dl, in, "sbx: the hook input contains a \\u0000 escape, which sbx "
		    "cannot judge safely; the call was not run."), -1;
	if (bad == JSON_BAD_STRICT)
		return deny(dl, in, "sbx: the hook input is not strict JSON (%s), which sbx "
		    "cannot judge safely; the call was not run.", why), -1;
	if (!cJSON_IsObject(v)) {
		cJSON_Delete(v);
		return deny(dl, in, "sbx: the hook input is not a JSON object; the call was not "
		    "run."), -1;
	}
	in->payload = v;
	in->event = json_str(v, "hook_event_name");
	if (!in->event)
		in->event = "";
	return 0;
}

int
hook_run(const struct dialect *dl)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct hook_decision d = { 0, NULL };
	struct hook_in *in;
	char why[2048];
	int rc;

	overrun_line = dl->overrun;
	sigaction(SIGALRM, &sa, NULL);
	/* Safety net only; hook_decide re-arms it from the policy. */
	alarm(60);
	/* ~8 KiB of buffers: on the heap, not the stack of a short process */
	if (!(in = calloc(1, sizeof(*in)))) {
		on_alarm(0);
		return 0;
	}
	in->event = "";
	in->call = (struct hook_call){ .agent = dl->agent, .max_reason = SBX_HOOK_MAX_REASON };
	if (sodium_init() < 0) {
		rc = deny(dl, in, "sbx: libsodium failed to initialise; the call was not run.");
		goto out;
	}
	if (read_payload(dl, in) < 0) {
		rc = 0;
		goto out;
	}
	switch (dl->parse(in, why, sizeof(why))) {
	case 0:
		break;
	case 1:
		rc = answer(dl, in, 1, NULL);
		goto out;
	default:
		rc = deny(dl, in, "%s", why);
		goto out;
	}
	hook_decide(&in->call, &d);
	if (dl->shape_executed && !d.allow && d.reason)
		dialect_shape_executed(&d.reason);
	rc = d.reason ? answer(dl, in, d.allow, d.reason)
	    : deny(dl, in, "sbx: out of memory; the call was not run.");
	free(d.reason);
out:
	cJSON_Delete(in->owned);
	cJSON_Delete((cJSON *)in->payload);
	free(in);
	return rc;
}
