/*
 * queue.c - queue layout, request hashing and the decision encoding.
 *
 * MUST hash and sign only the canonical encodings defined here, never
 * cJSON's printed text. MUST parse decisions strictly.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/buf.h"
#include "common/base/json.h"
#include "common/base/util.h"
#include "common/protocol/queue.h"
#include "common/protocol/users.h"

static const char *const status_names[REQ_STATUS_COUNT] = {
	[REQ_PENDING] = "pending", [REQ_RUNNING] = "running", [REQ_APPROVED] = "approved",
	[REQ_DONE] = "done", [REQ_INTERRUPTED] = "interrupted", [REQ_DENIED] = "denied",
	[REQ_REJECTED] = "rejected", [REQ_EXPIRED] = "expired",
};

const char *
req_status_name(enum req_status s)
{
	return (unsigned)s < REQ_STATUS_COUNT ? status_names[s] : "unknown";
}

int
req_status_parse(const char *name, enum req_status *out)
{
	int i;

	for (i = 0; name && i < REQ_STATUS_COUNT; i++)
		if (strcmp(name, status_names[i]) == 0) {
			*out = (enum req_status)i;
			return 0;
		}
	return -1;
}

struct queue_path
queue_path(enum queue_kind kind, const char *id)
{
	static const struct { const char *dir, *ext; } layout[QP_KIND_COUNT] = {
		[QP_NEW] = { "queue/new", ".json" }, [QP_PENDING] = { "pending", ".json" },
		[QP_DONE] = { "done", ".json" }, [QP_RESULT] = { "results", ".json" },
		[QP_STDOUT] = { "results", ".stdout" }, [QP_STDERR] = { "results", ".stderr" },
		[QP_WORK_STDOUT] = { "work", ".stdout" }, [QP_WORK_STDERR] = { "work", ".stderr" },
		[QP_DELIVERED] = { "queue/delivered", "" },
		[QP_EVENT] = { "queue/events", ".json" },
		[QP_PROXY_EVENT] = { "proxy/events", ".json" },
		[QP_DECISION] = { "decisions/new", ".json" },
	};
	struct queue_path p = { "" };
	int n;

	if ((unsigned)kind >= QP_KIND_COUNT || !id)
		return p;
	n = snprintf(p.s, sizeof(p.s), "%s/%s%s", layout[kind].dir, id, layout[kind].ext);
	if (n < 0 || (size_t)n >= sizeof(p.s))
		p.s[0] = '\0';
	return p;
}

char *
sh_quote(const char *s, int bare)
{
	size_t n = 3, i;
	char *out, *p;

	if (bare && *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789/._-+") == strlen(s))
		return strdup(s);
	for (i = 0; s[i]; i++)
		n += s[i] == '\'' ? 4 : 1;
	if (!(out = malloc(n)))
		return NULL;
	p = out;
	*p++ = '\'';
	for (i = 0; s[i]; i++) {
		if (s[i] == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = s[i];
		}
	}
	*p++ = '\'';
	*p = '\0';
	return out;
}

/* What every write intent starts with (not a format). */
#define WRITE_INTENT "printf '%s' "

char *
write_intent_render(const char *path, const char *content)
{
	char *qp = sh_quote(path, 0), *qc = sh_quote(content, 0), *cmd = NULL;
	size_t n;

	if (qp && qc && (cmd = malloc((n = strlen(qp) + strlen(qc) + 32))))
		snprintf(cmd, n, "printf '%%s' %s > %s", qc, qp);
	free(qp);
	free(qc);
	return cmd;
}

/* One '...' word (with '\'' for a quote) at *p into a new string; NULL
 * when there is none or it is not closed. */
static char *
sq_word(const char **p)
{
	const char *s = *p;
	size_t o = 0;
	char *out;

	if (*s != '\'' || !(out = malloc(strlen(s) + 1)))
		return NULL;
	for (s++;;) {
		if (!*s) {
			free(out);
			return NULL;
		}
		if (*s == '\'') {
			if (!strncmp(s, "'\\''", 4)) {
				out[o++] = '\'';
				s += 4;
				continue;
			}
			s++;
			break;
		}
		out[o++] = *s++;
	}
	out[o] = '\0';
	*p = s;
	return out;
}

int
write_intent_parse(const char *cmd, char **path, char **content)
{
	const char *c = cmd;

	*path = *content = NULL;
	if (!c || strncmp(c, WRITE_INTENT, strlen(WRITE_INTENT)) != 0)
		return 0;
	c += strlen(WRITE_INTENT);
	if ((*content = sq_word(&c)) && !strncmp(c, " > ", 3) && (c += 3) &&
	    (*path = sq_word(&c)) && !*c)
		return 1;
	free(*path);
	free(*content);
	*path = *content = NULL;
	return 0;
}

const char *const queue_dirs[] = {
	"queue", "queue/tmp", "queue/new", "queue/delivered", "queue/events", "queue/wake",
	"queue/originals", "queue/originals/objects", "queue/originals/index",
	"decisions", "decisions/tmp", "decisions/new",
	"pending", "done", "results", "rejected", "work",
	"proxy", "proxy/tmp", "proxy/events",
	NULL
};

/*
 * A .sandbox of another user (ST) is ours to use only as the agent of a
 * handed-over folder (deployment 3): its root-owned users file names us
 * as the agent and its owner as the daemon, and it is the agent's group's
 * to enter, not to write, and nobody else's.
 */
static int
sandbox_handed_over(int fd, const struct stat *st, const char *path, struct sbx_err *err)
{
	struct sandbox_users u;
	int r = sandbox_users_read(fd, &u, err);

	if (r < 0)
		return -1;
	/* In a jail, sbxd's user is not mapped: it shows as the overflow uid. */
	if (r == 0 || (u.daemon != st->st_uid && st->st_uid != sandbox_unmapped_uid()) ||
	    u.agent != geteuid()) {
		err_set(err, "%s is owned by uid %lu, not by us (uid %lu), and was not handed "
		    "over to us: no root-owned %s/%s naming uid %lu as its daemon and us as "
		    "its agent (`sbx handover`, deployment 3)", path, (unsigned long)st->st_uid,
		    (unsigned long)geteuid(), path, SBX_USERS_FILE, (unsigned long)st->st_uid);
		return -1;
	}
	if (st->st_gid != u.group || (st->st_mode & 027)) {
		err_set(err, "%s must be group %lu's to enter and nobody else's (mode 0750), "
		    "not mode %04o group %lu", path, (unsigned long)u.group,
		    (unsigned)(st->st_mode & 07777), (unsigned long)st->st_gid);
		return -1;
	}
	return 0;
}

int
sandbox_open(const char *folder, struct sbx_err *err)
{
	char path[4096];
	struct stat st;
	int fd;

	if (xsnprintf(path, sizeof(path), "%s/.sandbox", folder) < 0) {
		err_set(err, "folder path too long");
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err_set(err, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		err_set(err, "cannot stat %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (st.st_uid != geteuid() && sandbox_handed_over(fd, &st, path, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
hash_lp(crypto_generichash_state *st, const void *p, size_t n)
{
	unsigned char len[4] = {
		(unsigned char)(n >> 24), (unsigned char)(n >> 16),
		(unsigned char)(n >> 8), (unsigned char)n,
	};

	crypto_generichash_update(st, len, 4);
	crypto_generichash_update(st, p, n);
}

const char *
request_command(const char *tool, const cJSON *input)
{
	if (!tool || strcmp(tool, "Bash") != 0)
		return NULL;
	return json_str(input, "command");
}

int
request_opens(const char *tool)
{
	return tool != NULL && *tool && strcmp(tool, "Bash") != 0;
}

int
request_summary(const char *tool, const cJSON *input, char *buf, size_t n)
{
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(input, "port");
	const char *cmd = request_command(tool, input), *host, *method;

	if (cmd)
		return xsnprintf(buf, n, "%s", cmd);
	if (!request_opens(tool) || !(host = json_str(input, "host")) ||
	    !(method = json_str(input, "method")) || !cJSON_IsNumber(port))
		return -1;
	return xsnprintf(buf, n, strchr(host, ':') ? "%s [%s]:%d" : "%s %s:%d", method,
	    host, port->valueint);
}

int
event_submit(int sbfd, const char *box, const cJSON *ev)
{
	unsigned char rnd[SBX_ID_LEN / 2];
	char id[SBX_ID_LEN + 1], dst[64], tmp[16];
	char *text = json_print_line(ev);
	int rc = -1;

	if (!text)
		return -1;
	randombytes_buf(rnd, sizeof(rnd));
	hex_encode(id, rnd, sizeof(rnd));
	if (strcmp(box, "queue") != 0 && strcmp(box, "proxy") != 0) {
		errno = EINVAL;
		free(text);
		return -1;
	}
	snprintf(dst, sizeof(dst), "%s/events/%s.json", box, id);
	snprintf(tmp, sizeof(tmp), "%s/tmp", box);
	if (strlen(text) > SBX_MAX_EVENT)
		errno = EFBIG;
	else
		rc = write_atomic(sbfd, tmp, dst, text, strlen(text), sandbox_file_mode(sbfd), 1);
	free(text);
	return rc;
}

int
request_hash(const char *tool, const cJSON *input, const char *folder,
    const char *cwd, unsigned char out[SBX_HASH_LEN])
{
	static const char tag[] = "sbx-request-v1";
	crypto_generichash_state st;
	const char *cmd = request_command(tool, input);
	char *canon = NULL;
	cJSON *copy = NULL;

	if (!tool || !folder || !cwd) {
		errno = EINVAL;
		return -1;
	}
	if (!cmd) {
		copy = input ? cJSON_Duplicate(input, 1) : cJSON_CreateObject();
		if (!copy)
			return -1;
		if (cJSON_IsObject(copy))
			cJSON_DeleteItemFromObjectCaseSensitive(copy, "description");
		canon = json_canonical(copy);
		cJSON_Delete(copy);
		if (!canon)
			return -1;
	}
	crypto_generichash_init(&st, NULL, 0, SBX_HASH_LEN);
	crypto_generichash_update(&st, (const unsigned char *)tag, sizeof(tag));
	hash_lp(&st, tool, strlen(tool));
	hash_lp(&st, cmd ? cmd : canon, strlen(cmd ? cmd : canon));
	hash_lp(&st, folder, strlen(folder));
	hash_lp(&st, cwd, strlen(cwd));
	crypto_generichash_final(&st, out, SBX_HASH_LEN);
	free(canon);
	return 0;
}

void
request_id_make(const unsigned char hash[SBX_HASH_LEN], char out[SBX_ID_LEN + 1])
{
	unsigned char raw[8];

	memcpy(raw, hash, 4);
	randombytes_buf(raw + 4, 4);
	hex_encode(out, raw, sizeof(raw));
}

int
valid_id(const char *s)
{
	return is_hex(s, SBX_ID_LEN);
}

int
valid_request_name(const char *name, char id[SBX_ID_LEN + 1])
{
	if (strlen(name) != SBX_ID_LEN + 5 || strcmp(name + SBX_ID_LEN, ".json") != 0)
		return 0;
	memcpy(id, name, SBX_ID_LEN);
	id[SBX_ID_LEN] = '\0';
	return valid_id(id);
}

int
valid_decision_name(const char *name, char id[SBX_ID_LEN + 1])
{
	char nonce[2 * SBX_NONCE_LEN + 1];
	size_t want = SBX_ID_LEN + 1 + 2 * SBX_NONCE_LEN + 5;

	if (strlen(name) != want || name[SBX_ID_LEN] != '.' ||
	    strcmp(name + want - 5, ".json") != 0)
		return 0;
	memcpy(id, name, SBX_ID_LEN);
	id[SBX_ID_LEN] = '\0';
	memcpy(nonce, name + SBX_ID_LEN + 1, 2 * SBX_NONCE_LEN);
	nonce[2 * SBX_NONCE_LEN] = '\0';
	return valid_id(id) && is_hex(nonce, 2 * SBX_NONCE_LEN);
}

int
valid_name(const char *s)
{
	size_t i, n = s ? strlen(s) : 0;

	if (n == 0 || n > 63 || s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!ascii_name_char(s[i]))
			return 0;
	return 1;
}

int
prefix_valid(const char *prefix)
{
	const char *p = prefix;
	int words = 0, in = 0;

	if (!prefix || strpbrk(prefix, ";&|$`<>()\n\r\\'\"*?[]{}~#"))
		return 0;
	for (; *p; p++) {
		if (*p == ' ' || *p == '\t')
			in = 0;
		else if (!in++)
			words++;
	}
	return words >= 2 && prefix[0] != ' ' && p[-1] != ' ';
}

int
prefix_covers(const char *prefix, const char *command)
{
	size_t n;

	if (!prefix_valid(prefix) || !command || strpbrk(command, ";&|$`<>()\n\r"))
		return 0;
	n = strlen(prefix);
	return strncmp(command, prefix, n) == 0 && (command[n] == '\0' || command[n] == ' ');
}

void
key_id_of(const unsigned char pk[32], char out[17])
{
	unsigned char h[32];

	crypto_generichash(h, sizeof(h), pk, 32, NULL, 0);
	hex_encode(out, h, 8);
}

int
decision_message(const struct decision *d, unsigned char **out, size_t *len)
{
	static const char tag[] = "sbx-decision-v1";
	struct buf b = { 0 };

	buf_put(&b, tag, sizeof(tag));
	buf_put_lps(&b, d->id);
	buf_put_lp(&b, d->hash, SBX_HASH_LEN);
	buf_put_lps(&b, d->verdict);
	buf_put_lps(&b, d->remember ? "1" : "0");
	buf_put_lps(&b, d->reason);
	buf_put_lps(&b, d->approver);
	buf_put_lps(&b, d->key_id);
	buf_put_lpi(&b, d->created);
	buf_put_lpi(&b, d->expires);
	buf_put_lps(&b, d->nonce);
	buf_put_lps(&b, d->scope);
	buf_put_lps(&b, d->prefix);
	buf_put_lpi(&b, d->rule_expires);
	buf_put_lpi(&b, d->rule_id);
	return buf_take(&b, out, len);
}

char *
decision_to_json(const struct decision *d)
{
	char hash[2 * SBX_HASH_LEN + 1], sig[129];
	cJSON *o = cJSON_CreateObject();
	char *s;

	if (!o)
		return NULL;
	hex_encode(hash, d->hash, SBX_HASH_LEN);
	hex_encode(sig, d->sig, 64);
	cJSON_AddNumberToObject(o, "v", 1);
	cJSON_AddStringToObject(o, "request", d->id);
	cJSON_AddStringToObject(o, "request_hash", hash);
	cJSON_AddStringToObject(o, "verdict", d->verdict);
	cJSON_AddBoolToObject(o, "remember", d->remember);
	cJSON_AddStringToObject(o, "reason", d->reason);
	cJSON_AddStringToObject(o, "approver", d->approver);
	cJSON_AddStringToObject(o, "key_id", d->key_id);
	cJSON_AddNumberToObject(o, "created", (double)d->created);
	cJSON_AddNumberToObject(o, "expires", (double)d->expires);
	cJSON_AddStringToObject(o, "nonce", d->nonce);
	cJSON_AddStringToObject(o, "scope", d->scope);
	cJSON_AddStringToObject(o, "prefix", d->prefix);
	cJSON_AddNumberToObject(o, "rule_expires", (double)d->rule_expires);
	cJSON_AddNumberToObject(o, "rule", (double)d->rule_id);
	cJSON_AddStringToObject(o, "sig", sig);
	s = json_print_line(o);
	cJSON_Delete(o);
	return s;
}

static int
copy_str(const cJSON *o, const char *key, char *dst, size_t dstsz,
    struct sbx_err *err)
{
	const char *v = json_str(o, key);

	if (!v) {
		err_set(err, "decision: \"%s\" missing or not a string", key);
		return -1;
	}
	if (xsnprintf(dst, dstsz, "%s", v) < 0) {
		err_set(err, "decision: \"%s\" too long", key);
		return -1;
	}
	return 0;
}

int
decision_from_json(const char *text, size_t len, struct decision *d,
    struct sbx_err *err)
{
	static const char *const keys[] = {
		"v", "request", "request_hash", "verdict", "remember", "reason",
		"approver", "key_id", "created", "expires", "nonce", "sig", "scope",
		"prefix", "rule_expires", "rule", NULL,
	};
	char hash[2 * SBX_HASH_LEN + 1], sig[129];
	const cJSON *c;
	cJSON *o;
	int64_t v;
	int i, rc = -1;

	memset(d, 0, sizeof(*d));
	o = cJSON_ParseWithLength(text, len);
	if (!cJSON_IsObject(o)) {
		err_set(err, "decision: not a JSON object");
		goto out;
	}
	for (c = o->child; c; c = c->next) {
		for (i = 0; keys[i] && strcmp(keys[i], c->string) != 0; i++)
			;
		if (!keys[i]) {
			err_set(err, "decision: unknown key \"%.40s\"", c->string);
			goto out;
		}
	}
	if (json_int(o, "v", &v) < 0 || v != 1) {
		err_set(err, "decision: unsupported version");
		goto out;
	}
	if (copy_str(o, "request", d->id, sizeof(d->id), err) < 0 ||
	    copy_str(o, "request_hash", hash, sizeof(hash), err) < 0 ||
	    copy_str(o, "verdict", d->verdict, sizeof(d->verdict), err) < 0 ||
	    copy_str(o, "reason", d->reason, sizeof(d->reason), err) < 0 ||
	    copy_str(o, "approver", d->approver, sizeof(d->approver), err) < 0 ||
	    copy_str(o, "key_id", d->key_id, sizeof(d->key_id), err) < 0 ||
	    copy_str(o, "nonce", d->nonce, sizeof(d->nonce), err) < 0 ||
	    copy_str(o, "sig", sig, sizeof(sig), err) < 0)
		goto out;
	if ((d->remember = json_bool(o, "remember")) < 0) {
		err_set(err, "decision: \"remember\" must be true or false");
		goto out;
	}
	if (copy_str(o, "scope", d->scope, sizeof(d->scope), err) < 0 ||
	    copy_str(o, "prefix", d->prefix, sizeof(d->prefix), err) < 0)
		goto out;
	if (json_int(o, "rule_expires", &d->rule_expires) < 0 ||
	    json_int(o, "rule", &d->rule_id) < 0) {
		err_set(err, "decision: \"rule_expires\"/\"rule\" must be integers");
		goto out;
	}
	if (strcmp(d->scope, "exact") != 0 && strcmp(d->scope, "prefix") != 0) {
		err_set(err, "decision: scope must be \"exact\" or \"prefix\"");
		goto out;
	}
	if (json_int(o, "created", &d->created) < 0 ||
	    json_int(o, "expires", &d->expires) < 0) {
		err_set(err, "decision: \"created\"/\"expires\" must be integers");
		goto out;
	}
	if (!valid_id(d->id) || hex_decode(d->hash, SBX_HASH_LEN, hash) < 0 ||
	    hex_decode(d->sig, 64, sig) < 0 || !is_hex(d->key_id, 16) ||
	    !is_hex(d->nonce, 2 * SBX_NONCE_LEN)) {
		err_set(err, "decision: malformed id, hash, key id, nonce or signature");
		goto out;
	}
	if (strcmp(d->verdict, "approve") != 0 && strcmp(d->verdict, "deny") != 0 &&
	    strcmp(d->verdict, "rule") != 0 && strcmp(d->verdict, "revoke") != 0) {
		err_set(err, "decision: verdict must be approve, deny, rule or revoke");
		goto out;
	}
	rc = 0;
out:
	cJSON_Delete(o);
	return rc;
}

long
sbxd_holder(int sbfd)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	char buf[32];
	struct stat st;
	ssize_t n;
	long pid;
	int fd;

	fd = openat(sbfd, "sbxd.lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_OFD_GETLK, &fl) < 0) {
		close(fd);
		return -1;
	}
	if (fl.l_type == F_UNLCK) {
		close(fd);
		return 0;
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	pid = strtol(buf, NULL, 10);
	return pid > 0 ? pid : 1;
}

int
sbxd_hold(int lockfd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	return fcntl(lockfd, F_OFD_SETLK, &fl);
}

#define SBXD_STOPPED "stopped: "

int
sbxd_release(int lockfd, const char *why)
{
	struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET };
	char buf[512];
	int n;

	/* The note first: a hook that finds the lock gone reads why. */
	n = snprintf(buf, sizeof(buf), "%ld\n" SBXD_STOPPED "%s\n", (long)getpid(), why);
	if (n >= (int)sizeof(buf)) {
		n = (int)sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	/* Without the note the hook still sees the lock gone. */
	if (n > 0 && ftruncate(lockfd, 0) == 0)
		(void)!pwrite(lockfd, buf, (size_t)n, 0);
	return fcntl(lockfd, F_OFD_SETLK, &fl);
}

long
sbxd_stopped_fd(int lockfd, char *why, size_t n)
{
	char buf[600], *p, *q;
	ssize_t len;
	long pid;
	size_t i;

	if (n)
		why[0] = '\0';
	len = pread(lockfd, buf, sizeof(buf) - 1, 0);
	buf[len > 0 ? len : 0] = '\0';
	pid = strtol(buf, &p, 10);
	if (pid <= 0 || *p != '\n' || strncmp(p + 1, SBXD_STOPPED, strlen(SBXD_STOPPED)) != 0)
		return 0;
	p += 1 + strlen(SBXD_STOPPED);
	/* The agent may write this file (the same user): printable only. */
	for (q = p, i = 0; *q && *q != '\n' && i + 1 < n; q++)
		why[i++] = *q >= 0x20 && *q < 0x7f ? *q : '?';
	if (n)
		why[i] = '\0';
	return pid;
}

long
sbxd_stopped(int sbfd, char *why, size_t n)
{
	long pid;
	int fd;

	if (n)
		why[0] = '\0';
	fd = openat(sbfd, "sbxd.lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	pid = sbxd_stopped_fd(fd, why, n);
	close(fd);
	return pid;
}

int
daemon_serving(int sbfd)
{
	long pid = sbxd_holder(sbfd);

	return pid < 0 ? -1 : pid > 0;
}

/* See queue.h. */
#define LOCKS_LINES_MAX 100000
int
sbxd_lock_holders(int fd, char *out, size_t n, long *first)
{
	char line[256], sline[256], comm[32], path[64], uname[80], *tok[6], *save, *p;
	unsigned int maj, mnr;
	unsigned long ino;
	struct passwd *pw;
	struct stat st;
	long pid, uid;
	size_t used = 0;
	int i, lines = 0, found = 0;
	FILE *f, *g;

	out[0] = '\0';
	*first = 0;
	if (fstat(fd, &st) < 0 || !(f = fopen("/proc/locks", "re")))
		return 0;
	while (lines++ < LOCKS_LINES_MAX && fgets(line, sizeof(line), f)) {
		for (i = 0, p = strtok_r(line, " \t\n", &save); p && i < 6;
		    p = strtok_r(NULL, " \t\n", &save))
			tok[i++] = p;
		/* "N: FLOCK ADVISORY READ PID MAJ:MIN:INO ...", not a waiter ("->") */
		if (i < 6 || strcmp(tok[1], "FLOCK") != 0 ||
		    sscanf(tok[5], "%x:%x:%lu", &maj, &mnr, &ino) != 3 ||
		    maj != major(st.st_dev) || mnr != minor(st.st_dev) || ino != st.st_ino ||
		    (pid = strtol(tok[4], NULL, 10)) <= 0)
			continue;
		if (++found > 4)
			continue;
		if (!*first)
			*first = pid;
		snprintf(comm, sizeof(comm), "?");
		uid = -1;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if ((g = fopen(path, "re"))) {
			if (fgets(comm, sizeof(comm), g))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(g);
		}
		snprintf(path, sizeof(path), "/proc/%ld/status", pid);
		if ((g = fopen(path, "re"))) {
			while (fgets(sline, sizeof(sline), g))
				if (sscanf(sline, "Uid: %ld", &uid) == 1)
					break;
			fclose(g);
		}
		pw = uid >= 0 ? getpwuid((uid_t)uid) : NULL;
		if (pw && pw->pw_name)
			snprintf(uname, sizeof(uname), "user %s", pw->pw_name);
		else if (uid >= 0)
			snprintf(uname, sizeof(uname), "uid %ld", uid);
		else
			snprintf(uname, sizeof(uname), "user unknown");
		/* comm is the process's own name: printable only. */
		for (p = comm; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				*p = '?';
		if (used < n)
			used += (size_t)snprintf(out + used, n - used, "%spid %ld (%s, %s, %s)",
			    found > 1 ? ", " : "", pid, uname, comm,
			    strcmp(tok[3], "WRITE") == 0 ? "exclusive" : "shared");
	}
	fclose(f);
	if (found > 4 && used < n)
		snprintf(out + used, n - used, " and %d more", found - 4);
	return found;
}
