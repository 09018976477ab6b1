/*
 * watch.c - `sbx watch`: the approver's terminal. A live list of pending
 * requests across folders (inotify on each folder's pending/ and
 * results/), the selected request in detail, single keys to act.
 *
 * Two faces: a full-screen view on termios + ANSI escapes, and a plain
 * line mode (TERM=dumb, not a terminal, or --plain) that prints new
 * requests and reads commands such as "a 3f9a" from stdin.
 *
 * MUST restore the terminal on every exit path, signals included.
 * MUST sign only what is shown: the decision binds the request hash of
 * the row displayed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "approver/cmd.h"
#include "common/base/display.h"
#include "common/base/json.h"
#include "common/protocol/queue.h"
#include "common/protocol/registry.h"
#include "common/store/db.h"
#include "common/store/store.h"
#include "common/trust/accept.h"
#include "policy/policy.h"

#define LINE_MAX_W  1024

struct item {
	struct req_row row;
	int folder;                 /* index into w->folders */
	char risk[320];             /* "high: privilege change, network egress" */
	int level;                  /* enum policy_risk, for what a rule covers */
	unsigned factors;
	char ask[208];              /* the always_ask entry it matches, or "" */
	int hook_wait;              /* seconds the hook waits */
	int idw;                    /* digits of the id that are unique */
};

/* Every folder and every pending request: no cap on either (the list
 * scrolls). */
struct watch {
	char (*folders)[4096];
	int nfolders;
	const char *config;
	struct item *items;
	int n, cap, sel, top;
	char autos[3][400];         /* latest auto-approved, for the quieter list */
	int nautos;
	char (*seen)[SBX_ID_LEN + 1];   /* ids announced (pending at the last refresh) */
	int nseen;
	char status[768];           /* one line under the list */
	char waiting_id[SBX_ID_LEN + 1];        /* decided, result not yet shown */
	int waiting_folder;
	int rows, cols;
	int plain, color;
	const char *notify;         /* command fed each new request's summary */
	int ifd;
};

static struct termios saved_tio;
static volatile sig_atomic_t tty_raw, got_winch, got_stop;
static int sig_pipe[2] = { -1, -1 };

static const char restore_seq[] = "\033[0m\033[?25h\033[?1049l";

/* Async-signal-safe: puts the terminal back as it was. */
static void
tty_restore(void)
{
	if (!tty_raw)
		return;
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_tio);
	(void)!write(STDOUT_FILENO, restore_seq, sizeof(restore_seq) - 1);
	tty_raw = 0;
}

static void
on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGWINCH)
		got_winch = 1;
	else
		got_stop = sig;
	if (sig_pipe[1] >= 0)
		(void)!write(sig_pipe[1], "x", 1);
	errno = saved;
}

static int
tty_enter(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &saved_tio) < 0)
		return -1;
	t = saved_tio;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &t) < 0)
		return -1;
	tty_raw = 1;
	atexit(tty_restore);
	printf("\033[?1049h\033[?25l");
	fflush(stdout);
	return 0;
}

static void
term_size(struct watch *w)
{
	struct winsize ws;

	w->rows = 24;
	w->cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		w->rows = ws.ws_row;
		w->cols = ws.ws_col;
	}
}

static void
items_free(struct watch *w)
{
	int i;

	for (i = 0; i < w->n; i++)
		req_row_free(&w->items[i].row);
	w->n = 0;
}

/* The risk as the policy sees it now, for display. */
static void
assess(struct watch *w, struct item *it)
{
	struct policy_error perr;
	struct policy_result pr;
	struct policy_call call;
	struct policy *p = policy_load_accepted(w->folders[it->folder], w->config, perr.msg,
	    sizeof(perr.msg));
	cJSON *input;
	char factors[256];

	it->hook_wait = 300;
	if (!p) {
		snprintf(it->risk, sizeof(it->risk), "unknown (policy invalid or not accepted)");
		return;
	}
	it->hook_wait = policy_limits(p)->hook_wait_seconds;
	input = cJSON_Parse(it->row.input ? it->row.input : "{}");
	call = (struct policy_call){ .tool = it->row.tool, .input = input,
		.cwd = it->row.cwd, .folder = w->folders[it->folder], .home = getenv("HOME"),
		.config_dir = w->config };
	policy_eval(p, &call, &pr);
	policy_factors_text(pr.factors, factors, sizeof(factors));
	it->level = (int)pr.risk;
	it->factors = pr.factors;
	snprintf(it->ask, sizeof(it->ask), "%s", policy_always_ask(p, it->row.command)
	    ? policy_always_ask(p, it->row.command) : "");
	snprintf(it->risk, sizeof(it->risk), "%s%s%s", policy_risk_name(pr.risk),
	    factors[0] ? ": " : "", factors);
	cJSON_Delete(input);
	policy_free(p);
}

/* Runs the notify command with the summary on its stdin; never waits. */
static void
notify(const struct watch *w, const char *summary)
{
	int p[2];
	pid_t pid;

	if (!w->notify || pipe(p) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		/* Double fork: the grandchild is reaped by init. */
		if (fork() == 0) {
			dup2(p[0], 0);
			close(p[0]);
			close(p[1]);
			execl("/bin/sh", "sh", "-c", w->notify, (char *)NULL);
			_exit(127);
		}
		_exit(0);
	}
	close(p[0]);
	if (pid > 0) {
		(void)!write(p[1], summary, strlen(summary));
		waitpid(pid, NULL, 0);
	}
	close(p[1]);
}

static const char *
what(const struct req_row *r)
{
	return r->command ? r->command : r->input ? r->input : "";
}

/* One line of the quieter list: id, status and the command, safe and
 * cut at a character. */
static void
auto_line(char *out, size_t size, const struct req_row *r, int idlen)
{
	const char *c = what(r);
	char *t = display_text(c, strlen(c), 0, 150, NULL, NULL);

	snprintf(out, size, "%.*s %-7s %s", idlen, r->id, r->status, t ? t : "?");
	free(t);
}

/* Room for one more item; -1 when out of memory. */
static int
items_grow(struct watch *w)
{
	struct item *n;
	int cap = w->cap ? w->cap * 2 : 64;

	if (w->n < w->cap)
		return 0;
	if (!(n = realloc(w->items, (size_t)cap * sizeof(*n))))
		return -1;
	w->items = n;
	w->cap = cap;
	return 0;
}

static int
was_seen(const struct watch *w, const char *id)
{
	int k;

	for (k = 0; k < w->nseen && strcmp(w->seen[k], id); k++)
		;
	return k < w->nseen;
}

/* Reloads the pending requests of every folder; announces new ones. */
static void
refresh(struct watch *w)
{
	char (*seen)[SBX_ID_LEN + 1];
	struct req_row *rows;
	struct sbx_err err;
	char summary[LINE_MAX_W];
	int f, i, n, fresh = 0, lost = 0;
	sqlite3 *db;

	items_free(w);
	for (f = 0; f < w->nfolders; f++) {
		if (!(db = store_open_ro(w->folders[f], &err)))
			continue;
		/* The quieter list: what remembered rules approved lately. */
		if (f == 0)
			w->nautos = 0;
		n = db_list(db, NULL, 50, &rows);
		for (i = n - 1; i >= 0; i--)
			if (rows[i].is_auto && w->nautos < 3 && now_ms() / 1000 - rows[i].created < 3600)
				auto_line(w->autos[w->nautos++], sizeof(w->autos[0]), &rows[i],
				    db_unique_prefix(db, rows[i].id, 8));
		if (n > 0)
			db_rows_free(rows, n);
		/* Every pending request, however many. */
		n = db_list(db, req_status_name(REQ_PENDING), -1, &rows);
		for (i = 0; i < n; i++) {
			if (items_grow(w) < 0) {
				req_row_free(&rows[i]);
				lost++;
				continue;
			}
			w->items[w->n].row = rows[i];
			w->items[w->n].folder = f;
			w->items[w->n].idw = db_unique_prefix(db, rows[i].id, 8);
			assess(w, &w->items[w->n]);
			w->n++;
		}
		free(rows);
		db_close(db);
	}
	if (lost)
		snprintf(w->status, sizeof(w->status), "out of memory: %d pending request(s) NOT "
		    "shown; see `sbx pending`", lost);
	for (i = 0; i < w->n; i++) {
		if (was_seen(w, w->items[i].row.id))
			continue;
		fresh = 1;
		/* Agent text, made safe for whatever terminal shows it. */
		snprintf(summary, sizeof(summary), "sbx: request %s in %s: %s %s\nwhy: %s\n",
		    w->items[i].row.id, display_tmp(w->folders[w->items[i].folder]),
		    display_tmp(w->items[i].row.tool), display_tmp(what(&w->items[i].row)),
		    display_tmp(w->items[i].row.reason));
		notify(w, summary);
		if (w->plain) {
			printf("\nnew request %s  [%s]  %s\n  %s: %s\n  why: %s\n  risk: %s\n",
			    w->items[i].row.id, display_tmp(w->folders[w->items[i].folder]),
			    display_tmp(w->items[i].row.tool), display_tmp(w->items[i].row.tool),
			    display_tmp(what(&w->items[i].row)), display_tmp(w->items[i].row.reason),
			    w->items[i].risk);
		}
	}
	/* Announced: what is pending now (a request decided since drops out). */
	if ((seen = realloc(w->seen, (size_t)(w->n ? w->n : 1) * sizeof(*seen)))) {
		w->seen = seen;
		for (i = 0; i < w->n; i++)
			snprintf(w->seen[i], sizeof(w->seen[i]), "%s", w->items[i].row.id);
		w->nseen = w->n;
	}
	if (fresh && !w->plain)
		(void)!write(STDOUT_FILENO, "\a", 1);
	if (w->sel >= w->n)
		w->sel = w->n ? w->n - 1 : 0;
}

/* Shows the result of the request decided last, once sbxd wrote it. */
static void
check_result(struct watch *w)
{
	char path[PATH_MAX + 64], first[512] = "";
	struct sbx_err err;
	int64_t code = -1, sig = 0;
	const char *out, *status;
	cJSON *r;
	size_t len;
	char *text;
	int sbfd;

	if (!w->waiting_id[0] ||
	    (sbfd = sandbox_open(w->folders[w->waiting_folder], &err)) < 0)
		return;
	snprintf(path, sizeof(path), "%s", queue_path(QP_RESULT, w->waiting_id).s);
	text = read_daemon_file(sbfd, path, SBX_MAX_RESULT, &len, &err);
	close(sbfd);
	if (!text)
		return;
	r = cJSON_ParseWithLength(text, len);
	free(text);
	status = json_str(r, "status");
	json_int(r, "exit_code", &code);
	json_int(r, "signal", &sig);
	out = json_str(r, "stdout");
	if (!out || !*out)
		out = json_str(r, "stderr");
	if (out) {
		char *t = display_text(out, strcspn(out, "\n"), 0, 120, NULL, NULL);

		snprintf(first, sizeof(first), "%s", t ? t : "?");
		free(t);
	}
	snprintf(w->status, sizeof(w->status), "result %s: %s, exit %lld%s%s | %s",
	    w->waiting_id, status ? display_tmp(status) : "?", (long long)code,
	    sig ? ", signal " : "", sig ? "set" : "", first);
	if (w->plain)
		printf("%s\n", display_tmp(w->status));
	w->waiting_id[0] = '\0';
	cJSON_Delete(r);
}

static void
watch_inotify(struct watch *w)
{
	static const char *const subs[] = { "pending", "results", "queue/new" };
	char path[4096 + 32];
	int f, k;

	w->ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	for (f = 0; w->ifd >= 0 && f < w->nfolders; f++)
		for (k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "%s/.sandbox/%s", w->folders[f], subs[k]);
			inotify_add_watch(w->ifd, path, IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
			    IN_DELETE | IN_CLOSE_WRITE);
		}
}

/*
 * Prints s[0..len) made safe (common/base/display: escapes for controls,
 * bidi, invisible characters, bad UTF-8), cut to width terminal columns
 * at a character. Returns how many bytes of s it showed.
 */
static size_t
put_cut(const char *s, size_t len, int width, int flags)
{
	size_t used = 0;
	char *t = display_text(s, len, flags, width > 0 ? width : 1, &used, NULL);

	if (t)
		fputs(t, stdout);
	free(t);
	return used;
}

static void
line(struct watch *w, const char *fmt, ...)
{
	char buf[LINE_MAX_W * 4];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put_cut(buf, strlen(buf), w->cols - 1, 0);
	printf("\033[K\r\n");
}

/*
 * What a write request would put where: a Write/Edit input, or the exact
 * command sbx-mcp queues for request_path_access (printf '%s' 'C' > 'P').
 * Returns 1 with *path and *content (caller frees), else 0.
 */
static int
write_target(const struct req_row *r, char **path, char **content)
{
	const char *c = r->command;
	cJSON *in;

	*path = *content = NULL;
	if (write_intent_parse(c, path, content))
		return 1;
	if (strcmp(r->tool, "Write") != 0 || !(in = cJSON_Parse(r->input ? r->input : "")))
		return 0;
	if (json_str(in, "file_path") && json_str(in, "content")) {
		*path = strdup(json_str(in, "file_path"));
		*content = strdup(json_str(in, "content"));
	}
	cJSON_Delete(in);
	return *path && *content;
}

/*
 * The file a write request would replace, as it is now (at most 1 MiB),
 * or NULL with why (a new file: ""). The agent chose the path: a symlink
 * at its end is not followed, and only a regular file is read, from an
 * O_PATH descriptor reopened (a FIFO would block the terminal, a device
 * could act on an open).
 */
static char *
preview_read(const char *path, char *why, size_t n)
{
	char proc[64];
	struct stat st;
	size_t len;
	char *text = NULL;
	int pfd, fd = -1;

	why[0] = '\0';
	if ((pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno != ENOENT)
			snprintf(why, n, "it cannot be read here: %s; no diff", strerror(errno));
		return NULL;
	}
	if (fstat(pfd, &st) < 0)
		st.st_mode = 0;
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, n, "%s: not a regular file; no diff", S_ISLNK(st.st_mode) ?
		    "a symlink, not followed" : S_ISFIFO(st.st_mode) ? "a FIFO" :
		    S_ISDIR(st.st_mode) ? "a directory" : "not read");
		close(pfd);
		return NULL;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	if ((fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0 ||
	    !(text = fd_read_all(fd, 1 << 20, &len)))
		snprintf(why, n, "it cannot be read here: %s; no diff", errno == EFBIG ?
		    "over 1 MiB" : strerror(errno));
	if (fd >= 0)
		close(fd);
	close(pfd);
	return text;
}

/* A line diff preview of content against the file as it is now. */
static int
diff_preview(struct watch *w, const char *path, const char *content, int room)
{
	char *old, *a, *b, *na, *nb, why[160];
	int shown = 0, same = 0;

	old = preview_read(path, why, sizeof(why));
	line(w, "write   %s (%s)", path, old ? "diff against the file as it is now"
	    : why[0] ? why : "a new file");
	shown++;
	a = old ? old : (char *)"";
	b = (char *)content;
	while ((*a || *b) && shown < room) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

		na = a + la + (a[la] == '\n');
		nb = b + lb + (b[lb] == '\n');
		if (la == lb && !strncmp(a, b, la)) {
			same++;
		} else {
			if (*a) {
				line(w, "- %.*s", (int)la, a);
				shown++;
			}
			if (*b && shown < room) {
				line(w, "+ %.*s", (int)lb, b);
				shown++;
			}
		}
		a = na;
		b = nb;
	}
	if (shown < room) {
		line(w, "  (%d unchanged line%s%s)", same, same == 1 ? "" : "s",
		    *a || *b ? "; more below: v shows everything" : "");
		shown++;
	}
	free(old);
	return shown;
}

static void
draw(struct watch *w)
{
	const struct item *it;
	int64_t now = now_ms() / 1000, left;
	int i, list_rows, used = 0, k, bsl;
	const char *cmd;

	term_size(w);
	printf("\033[H");
	line(w, "sbx watch - %d pending in %d folder%s", w->n, w->nfolders,
	    w->nfolders == 1 ? "" : "s");
	used++;
	list_rows = w->rows / 3 > 3 ? w->rows / 3 : 3;
	if (w->sel < w->top)
		w->top = w->sel;
	if (w->sel >= w->top + list_rows)
		w->top = w->sel - list_rows + 1;
	for (i = w->top; i < w->n && i < w->top + list_rows; i++, used++) {
		it = &w->items[i];
		if (i == w->sel && w->color)
			printf("\033[7m");
		line(w, "%s %.*s %4llds %-6s %s", i == w->sel ? ">" : " ", it->idw, it->row.id,
		    (long long)(now - it->row.created), it->row.tool, what(&it->row));
		if (i == w->sel && w->color)
			printf("\033[0m");
	}
	if (w->n == 0) {
		line(w, "  (nothing pending; waiting for requests)");
		used++;
	}
	if (w->nautos > 0 && w->rows >= 20) {
		line(w, "%s", "");
		line(w, "auto-approved (remembered), latest first:");
		used += 2;
		for (i = 0; i < w->nautos; i++, used++) {
			printf("%s", w->color ? "\033[2m" : "");
			line(w, "  %s", w->autos[i]);
			printf("%s", w->color ? "\033[0m" : "");
		}
	}
	line(w, "%s", "");
	used++;
	if (w->n > 0) {
		it = &w->items[w->sel];
		left = it->row.created + it->hook_wait - now;
		line(w, "request %s", it->row.id);
		line(w, "folder  %s", w->folders[it->folder]);
		line(w, "tool    %s   risk: %s", it->row.tool, it->risk);
		line(w, "why     %s", it->row.reason ? it->row.reason : "");
		if (it->row.approvals_needed > 1) {
			line(w, "DUAL CONTROL: needs two approvers; approved so far by %s",
			    it->row.approved_by ? it->row.approved_by : "nobody");
			used++;
		}
		line(w, "session %s   waited %llds   %s", it->row.session ? it->row.session : "",
		    (long long)(now - it->row.created), left > 0 ? "" : "(the hook stopped waiting)");
		if (left > 0)
			line(w, "the hook answers the agent in %llds; expires in %llds",
			    (long long)left, (long long)(it->row.expires - now));
		used += 6;
		/* For writes, what would change; then the exact command. */
		{
			char *wpath, *wcontent;

			if (write_target(&it->row, &wpath, &wcontent)) {
				used += diff_preview(w, wpath, wcontent, (w->rows - 3 - used) / 2);
				free(wpath);
				free(wcontent);
			}
		}
		cmd = what(&it->row);
		/* The exact command, wrapped over the remaining rows; backslashes
		 * doubled across all of it when any part needs an escape. */
		bsl = display_needs_escape(cmd, strlen(cmd), DISPLAY_KEEP_NL) ? DISPLAY_BSL
		    : DISPLAY_NO_BSL;
		for (k = 0; *cmd && used < w->rows - 3; used++, k++) {
			size_t n = strcspn(cmd, "\n"), shown;

			printf("%s", k == 0 ? "$ " : "  ");
			shown = put_cut(cmd, n, w->cols - 3, bsl);
			printf("\033[K\r\n");
			if (shown == 0 && n > 0)
				break;  /* narrower than one escape */
			cmd += shown;
			if (*cmd == '\n')
				cmd++;
		}
	}
	for (; used < w->rows - 2; used++)
		printf("\033[K\r\n");
	line(w, "%s", w->status);
	printf("%s", w->color ? "\033[1m" : "");
	put_cut("[a]pprove [r]emember [d]eny [v]iew [j/k]move [q]uit", 52, w->cols - 1, 0);
	printf("%s\033[K", w->color ? "\033[0m" : "");
	fflush(stdout);
}

/* Reads one line in raw mode at the bottom of the screen. -1: cancelled. */
static int
read_line(struct watch *w, const char *prompt, char *buf, size_t size)
{
	size_t n = 0;
	char c;

	buf[0] = '\0';
	for (;;) {
		printf("\033[%d;1H\033[K%s%s", w->rows, prompt, buf);
		fflush(stdout);
		if (read(STDIN_FILENO, &c, 1) != 1 || got_stop)
			return -1;
		if (c == '\r' || c == '\n')
			return 0;
		if (c == 27 || c == 3)
			return -1;
		if ((c == 127 || c == 8) && n > 0)
			buf[--n] = '\0';
		else if ((unsigned char)c >= 0x20 && c != 127 && n + 1 < size) {
			buf[n++] = c;
			buf[n] = '\0';
		}
	}
}

static void
decide(struct watch *w, struct item *it, int approve, int remember, const char *prefix,
    long long expires, const char *reason)
{
	struct sbx_err err;

	if (decision_write(w->config, w->folders[it->folder], &it->row, approve, remember,
	    prefix, expires, reason, 1800, &err) < 0) {
		snprintf(w->status, sizeof(w->status), "error: %.400s", err.msg);
		return;
	}
	snprintf(w->status, sizeof(w->status), "%s %s%s; waiting for sbxd",
	    approve ? "approved" : "denied", it->row.id, remember ? " (remembered)" : "");
	snprintf(w->waiting_id, sizeof(w->waiting_id), "%s", it->row.id);
	w->waiting_folder = it->folder;
	if (w->plain)
		printf("%s\n", display_tmp(w->status));
}

/* The whole request, scrollable, until q. */
static void
view(struct watch *w, const struct item *it)
{
	cJSON *input = cJSON_Parse(it->row.input ? it->row.input : "{}");
	char *text = input ? json_pretty(input) : NULL, *p, c;
	char *lines[2048];
	int n = 0, top = 0, i;

	cJSON_Delete(input);
	if (!text)
		return;
	for (p = text; *p && n < 2048; n++) {
		lines[n] = p;
		p += strcspn(p, "\n");
		if (*p)
			*p++ = '\0';
	}
	for (;;) {
		term_size(w);
		printf("\033[H");
		line(w, "request %s (%s) - input, line %d of %d", it->row.id, it->row.tool,
		    top + 1, n);
		for (i = top; i < n && i < top + w->rows - 2; i++)
			line(w, "%s", lines[i]);
		for (; i < top + w->rows - 2; i++)
			printf("\033[K\r\n");
		put_cut("[j/k] scroll  [space] page  [q] back", 36, w->cols - 1, 0);
		printf("\033[K");
		fflush(stdout);
		if (read(STDIN_FILENO, &c, 1) != 1 || got_stop || c == 'q' || c == 27)
			break;
		if (c == 'j' && top + 1 < n)
			top++;
		else if (c == 'k' && top > 0)
			top--;
		else if (c == ' ')
			top = top + w->rows - 2 < n ? top + w->rows - 2 : top;
	}
	free(text);
	printf("\033[2J");
}

/* r: approve and remember; asks the scope and an expiry. */
static void
remember(struct watch *w, struct item *it)
{
	char scope[8], prefix[256], dur[32];
	const char *cmd = it->row.command;
	long long secs = 0;
	size_t n;

	if (read_line(w, "remember: [e]xact request or [p]refix of the command? ", scope,
	    sizeof(scope)) < 0 || (scope[0] != 'e' && scope[0] != 'p')) {
		snprintf(w->status, sizeof(w->status), "remember cancelled");
		return;
	}
	prefix[0] = '\0';
	if (scope[0] == 'p') {
		if (!cmd) {
			snprintf(w->status, sizeof(w->status), "only shell commands take a prefix");
			return;
		}
		/* Offer the first two words; the approver may type more. */
		n = strcspn(cmd, " ");
		n += cmd[n] ? 1 + strcspn(cmd + n + 1, " ") : 0;
		if (read_line(w, "prefix (at least two words; enter for the first two): ", prefix,
		    sizeof(prefix)) < 0)
			return;
		if (!prefix[0])
			snprintf(prefix, sizeof(prefix), "%.*s", (int)n, cmd);
	}
	if (it->ask[0]) {
		snprintf(w->status, sizeof(w->status), "not remembered: the call is on the "
		    "always_ask list (\"%.150s\"); no rule covers it - press a to approve once",
		    it->ask);
		return;
	}
	/* What the rule will cover, on the line above the prompt. */
	{
		char ftext[256], cover[1024];

		policy_factors_text(it->factors, ftext, sizeof(ftext));
		snprintf(cover, sizeof(cover), "rule covers: %s%.200s%s, rated %s or lower, with "
		    "no risk factor beyond: %s; never an always_ask call", prefix[0] ?
		    "Bash commands starting with \"" : "this exact call", prefix,
		    prefix[0] ? "\"" : "", policy_risk_name((enum policy_risk)it->level),
		    ftext[0] ? ftext : "none");
		printf("\033[%d;1H\033[K", w->rows - 1);
		put_cut(cover, strlen(cover), w->cols - 1, 0);
	}
	if (read_line(w, "expires after (e.g. 30m, 8h, 7d; enter: never): ", dur, sizeof(dur)) < 0)
		return;
	if (dur[0] && (secs = parse_duration(dur)) < 0) {
		snprintf(w->status, sizeof(w->status), "not a duration: %s", dur);
		return;
	}
	decide(w, it, 1, 1, prefix[0] ? prefix : NULL, secs ? now_ms() / 1000 + secs : 0, "");
}

static int
key(struct watch *w, char c)
{
	char reason[512];
	struct item *it = w->n ? &w->items[w->sel] : NULL;

	switch (c) {
	case 'q':
		return 1;
	case 'j':
		if (w->sel + 1 < w->n)
			w->sel++;
		break;
	case 'k':
		if (w->sel > 0)
			w->sel--;
		break;
	case 'a':
		if (it)
			decide(w, it, 1, 0, NULL, 0, "");
		break;
	case 'r':
		if (it)
			remember(w, it);
		break;
	case 'd':
		if (it && read_line(w, "deny reason (enter to send, esc to cancel): ", reason,
		    sizeof(reason)) == 0)
			decide(w, it, 0, 0, NULL, 0, reason);
		else if (it)
			snprintf(w->status, sizeof(w->status), "deny cancelled");
		break;
	case 'v':
		if (it)
			view(w, it);
		break;
	case 12: /* ^L */
		printf("\033[2J");
		break;
	}
	return 0;
}

/* Line mode: "a ID", "r ID", "d ID reason", "l" (list), "q". */
static int
plain_command(struct watch *w, char *cmdline)
{
	char *verb = strtok(cmdline, " \t\n"), *id = strtok(NULL, " \t\n");
	char *reason = strtok(NULL, "\n");
	int i;

	if (!verb)
		return 0;
	if (!strcmp(verb, "q") || !strcmp(verb, "quit"))
		return 1;
	if (!strcmp(verb, "l") || !strcmp(verb, "list")) {
		if (w->n == 0)
			printf("nothing pending\n");
		for (i = 0; i < w->n; i++)
			printf("%s  %-6s %s\n", w->items[i].row.id, display_tmp(w->items[i].row.tool),
			    display_tmp(what(&w->items[i].row)));
		fflush(stdout);
		return 0;
	}
	if (!id || (strcmp(verb, "a") && strcmp(verb, "r") && strcmp(verb, "d"))) {
		printf("commands: l (list), a ID (approve), r ID (approve and remember), "
		    "d ID [reason] (deny), q (quit)\n");
		fflush(stdout);
		return 0;
	}
	for (i = 0; i < w->n && strncmp(w->items[i].row.id, id, strlen(id)); i++)
		;
	if (i == w->n || strlen(id) < 4) {
		printf("no pending request %s\n", display_tmp(id));
	} else {
		decide(w, &w->items[i], verb[0] != 'd', verb[0] == 'r', NULL, 0,
		    reason ? reason : "");
	}
	fflush(stdout);
	return 0;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: sbx watch [-C DIR]... [--all] [--plain] [--notify CMD]\n"
	    "  keys: a approve, r approve and remember, d deny (type a reason), v view the\n"
	    "  whole request, j/k move, q quit. --plain (or TERM=dumb, or no terminal)\n"
	    "  prints requests as lines and reads: l, a ID, r ID, d ID [reason], q.\n"
	    "  --notify CMD runs CMD with each new request's summary on stdin\n"
	    "  (also $SBX_NOTIFY); NO_COLOR turns off colour.\n");
}

int
cmd_watch(struct sbx_ctx *c, int argc, char **argv)
{
	static struct watch w;
	struct sigaction sa = { .sa_handler = on_signal };
	struct sbx_err err;
	struct pollfd pfd[3];
	const char *term = getenv("TERM");
	char buf[512], evbuf[4096], (*fl)[4096], (*listed)[4096] = NULL;
	int i, all = 0, quit = 0, n;
	size_t plen = 0;

	memset(&w, 0, sizeof(w));
	/* -C DIR at most once per argument; --all adds the registry's. */
	if (!(w.folders = calloc((size_t)argc + 1, sizeof(*w.folders)))) {
		fprintf(stderr, "sbx: out of memory\n");
		return 1;
	}
	w.config = c->config;
	w.notify = getenv("SBX_NOTIFY");
	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "all", no_argument, NULL, 'a' }, { "plain", no_argument, NULL, 'p' },
		{ "notify", required_argument, NULL, 'n' }, { NULL, 0, NULL, 0 },
	};

	while ((i = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (i == 'C') {
			if (find_folder(optarg, w.folders[w.nfolders], sizeof(w.folders[0])) == 0)
				w.nfolders++;
			else {
				fprintf(stderr, "sbx: no .sandbox/ at or above %s\n", optarg);
				return 1;
			}
		} else if (i == 'a') {
			all = 1;
		} else if (i == 'p') {
			w.plain = 1;
		} else if (i == 'n') {
			w.notify = optarg;
		} else {
			usage(i == 'h' ? stdout : stderr);
			return i == 'h' ? 0 : 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (all) {
		/* Every recorded folder (one read), or a clear error. */
		if ((n = registry_read(c->config, &listed, &err)) < 0) {
			fprintf(stderr, "sbx: %s\n", err.msg);
			return 1;
		}
		if (!(fl = realloc(w.folders, (size_t)(w.nfolders + n + 1) * sizeof(*fl)))) {
			fprintf(stderr, "sbx: out of memory for %d folders\n", w.nfolders + n);
			free(listed);
			return 1;
		}
		w.folders = fl;
		if (n > 0)
			memcpy(w.folders + w.nfolders, listed, (size_t)n * sizeof(*listed));
		free(listed);
		w.nfolders += n;
	}
	if (w.nfolders == 0) {
		if (ctx_folder(c, w.folders[0], sizeof(w.folders[0])) < 0)
			return 1;
		w.nfolders = 1;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || !term || !strcmp(term, "dumb"))
		w.plain = 1;
	w.color = !w.plain && !getenv("NO_COLOR");
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return 1;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (!w.plain && tty_enter() < 0)
		w.plain = 1;
	if (w.plain) {
		printf("sbx watch: %d folder(s); commands: l, a ID, r ID, d ID [reason], q\n",
		    w.nfolders);
		fflush(stdout);
	} else {
		printf("\033[2J");
	}
	watch_inotify(&w);
	refresh(&w);
	while (!quit && !got_stop) {
		if (!w.plain)
			draw(&w);
		else
			fflush(stdout);
		pfd[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = w.ifd, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = sig_pipe[0], .events = POLLIN };
		if ((n = poll(pfd, 3, 1000)) < 0 && errno != EINTR)
			break;
		/* inotify is the hint; the database is the truth, and sbxd records
		 * a request just after it lands in pending/: look again each second. */
		if (n == 0)
			refresh(&w);
		if (pfd[2].revents)
			while (read(sig_pipe[0], evbuf, sizeof(evbuf)) > 0)
				;
		if (got_winch) {
			got_winch = 0;
			if (!w.plain)
				printf("\033[2J");
		}
		if (pfd[1].revents & POLLIN) {
			while (read(w.ifd, evbuf, sizeof(evbuf)) > 0)
				;
			refresh(&w);
		}
		check_result(&w);
		if (pfd[0].revents & (POLLIN | POLLHUP)) {
			if (w.plain) {
				ssize_t r = read(STDIN_FILENO, buf + plen, sizeof(buf) - 1 - plen);
				char *nl;

				if (r <= 0)
					break;
				plen += (size_t)r;
				buf[plen] = '\0';
				while ((nl = strchr(buf, '\n'))) {
					*nl = '\0';
					quit |= plain_command(&w, buf);
					memmove(buf, nl + 1, strlen(nl + 1) + 1);
					plen = strlen(buf);
					refresh(&w);
				}
				if (plen == sizeof(buf) - 1)
					plen = 0;
			} else {
				char ch;

				if (read(STDIN_FILENO, &ch, 1) != 1)
					break;
				quit = key(&w, ch);
				refresh(&w);
			}
		}
	}
	tty_restore();
	items_free(&w);
	free(w.items);
	free(w.seen);
	free(w.folders);
	if (w.ifd >= 0)
		close(w.ifd);
	if (got_stop) {
		/* Leave as the signal asked, with the terminal already restored. */
		signal(got_stop, SIG_DFL);
		raise(got_stop);
	}
	return 0;
}
