/*
 * jail.c - the jail's mount plan and bwrap argv; see jail.h.
 *
 * MUST make every protected path read-only, and every directory between
 * the folder and a protected path a mount point of its own (a mount
 * point cannot be renamed: otherwise `mv .git x; mkdir .git` would leave
 * the read-only .git/hooks behind under another name).
 * MUST refuse a protected path that is a symlink (a bind would land on
 * its target), rather than guess.
 * MUST NOT expose a file of the config dir whose name ends in ".key".
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "approver/jail.h"

/*
 * The agents' state directories in HOME: writable (transcripts, sessions,
 * caches), except what configures the agent or runs later outside the
 * jail (read-only, even when not made yet), and what is private to each
 * jail (an empty tmpfs). Only those that exist are opened.
 */
struct state_dir {
	const char *dir;
	const char *const *ro;
	const char *const *private;
};

static const char *const claude_ro[] = {
	"settings.json", "settings.local.json", "hooks", "plugins", "commands",
	"agents", "skills", "CLAUDE.md",
	"local",                    /* a local install of Claude Code runs outside later */
	NULL,
};
/* Claude Code sources its shell snapshots in every later session,
 * outside the jail too. */
static const char *const claude_private[] = { "shell-snapshots", NULL };
static const char *const codex_ro[] = {
	"config.toml", "hooks.json", "AGENTS.md", "prompts", "rules", "skills", "bin", NULL,
};
static const char *const none[] = { NULL };

static const struct state_dir state_dirs[] = {
	{ ".claude", claude_ro, claude_private },
	{ ".codex", codex_ro, none },
	{ NULL, NULL, NULL },
};

/* Hidden from the jail whatever the policy says (the agents' logins are
 * visible with --login). */
static const char *const hidden_home[] = {
	".ssh", ".aws", ".gnupg", ".config/gh", ".docker/config.json", ".netrc",
	".git-credentials", ".kube", ".azure", ".config/gcloud", ".pgpass", ".npmrc",
	".pypirc", NULL,
};

static const char *const login_files[] = { ".claude.json", ".claude/.credentials.json",
	".codex/auth.json", NULL };

/* Read-only inside every project, in addition to the policy's lists. */
static const char *const project_protected[] = {
	".claude", ".cursor", ".codex", ".vscode", ".idea", ".husky", ".envrc",
	".mcp.json", ".git/hooks", ".git/config",
	/* Git takes config and hooks from other places these name: a
	 * submodule's or a worktree's git dir, and $GIT_DIR/commondir. */
	".git/modules", ".git/worktrees", ".git/commondir", NULL,
};

/* Protected files git reads from .git when they exist: their placeholder
 * is a file holding ".", which git reads as "this git dir" (a directory,
 * or an empty file, there would stop git; .git never goes into a commit). */
static const char *const git_files[] = { "/.git/commondir", NULL };

const char *
jail_ph_text(int kind)
{
	return kind == JAIL_PH_DOT ? ".\n" : kind == JAIL_PH_JSON ? "{}\n" : "";
}

static int
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * The placeholder for a protected path not made yet. In the project an
 * empty directory (git ignores it; a file would go into the next commit),
 * but a file for what git reads in .git. In an agent's state dir a file
 * for its settings and memory files: Claude Code refuses to start when
 * ~/.claude/settings.json is a directory ("EISDIR"), and so would other
 * sessions outside the jail meanwhile.
 */
static int
placeholder_kind(const char *path, int state_dir)
{
	size_t k;

	for (k = 0; git_files[k]; k++)
		if (has_suffix(path, git_files[k]))
			return JAIL_PH_DOT;
	if (state_dir && has_suffix(path, ".json"))
		return JAIL_PH_JSON;
	if (state_dir && (has_suffix(path, ".md") || has_suffix(path, ".toml")))
		return JAIL_PH_EMPTY;
	return JAIL_PH_DIR;
}

static const enum jail_op ph_ops[] = {
	[JAIL_PH_DIR] = JAIL_PLACEHOLDER, [JAIL_PH_DOT] = JAIL_PLACEHOLDER_FILE,
	[JAIL_PH_JSON] = JAIL_PLACEHOLDER_JSON, [JAIL_PH_EMPTY] = JAIL_PLACEHOLDER_EMPTY,
};

/* The agent's drop boxes (tmp, new, events, originals, delivered) are one
 * mount: a request is written in queue/tmp and renamed into queue/new,
 * and rename(2) does not cross mount points. */
static const char *const queue_dropboxes[] = { "queue", NULL };

static int
plan_add(struct jail_plan *p, enum jail_op op, const char *path, struct sbx_err *err)
{
	struct jail_mount *m;
	size_t i;

	/* The same operation on the same path twice is once. */
	for (i = 0; i < p->n; i++)
		if (p->m[i].op == op && !strcmp(p->m[i].path, path))
			return 0;
	if (p->n >= JAIL_MAX_MOUNTS) {
		err_set(err, "the jail would need more than %d mounts", JAIL_MAX_MOUNTS);
		return -1;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;

		if (!(m = realloc(p->m, cap * sizeof(*m))))
			goto oom;
		p->m = m;
		p->cap = cap;
	}
	if (!(p->m[p->n].path = strdup(path)))
		goto oom;
	p->m[p->n++].op = op;
	return 0;
oom:
	err_set(err, "out of memory");
	return -1;
}

static int
placeholder_add(struct jail_plan *p, const char *path, int file, struct sbx_err *err)
{
	unsigned char *f;
	char **v;

	if (p->n_placeholders >= JAIL_MAX_MOUNTS) {
		err_set(err, "too many placeholders");
		return -1;
	}
	if (!(v = realloc(p->placeholders, (p->n_placeholders + 1) * sizeof(*v))))
		goto oom;
	p->placeholders = v;
	if (!(f = realloc(p->placeholder_file, p->n_placeholders + 1)))
		goto oom;
	p->placeholder_file = f;
	if (!(v[p->n_placeholders] = strdup(path)))
		goto oom;
	f[p->n_placeholders++] = (unsigned char)file;
	return 0;
oom:
	err_set(err, "out of memory");
	return -1;
}

void
jail_plan_free(struct jail_plan *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free(p->m[i].path);
	for (i = 0; i < p->n_placeholders; i++)
		free(p->placeholders[i]);
	free(p->m);
	free(p->placeholders);
	free(p->placeholder_file);
	memset(p, 0, sizeof(*p));
}

/* Is path below (or equal to) dir? */
static int
below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return 1;
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

static int
has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/*
 * A policy path ("~/x", "./x", "/x") as an absolute path in out; 0, or
 * -1 when it cannot be placed (no HOME) or does not fit.
 */
static int
expand(const char *s, const char *home, const char *folder, char *out, size_t outsz)
{
	if (!strncmp(s, "~/", 2) || !strcmp(s, "~"))
		return home ? xsnprintf(out, outsz, "%s%s", home, s + 1) : -1;
	if (!strncmp(s, "./", 2))
		return xsnprintf(out, outsz, "%s/%s", folder, s + 2);
	if (s[0] == '/' && s[1] != '/')
		return xsnprintf(out, outsz, "%s", s);
	return -1;
}

/* Hides an existing path: a directory becomes an empty read-only tmpfs
 * (allowRead entries below it are bound back), a file an empty file. */
static int
hide(struct jail_plan *p, const struct jail_paths *in, const char *path,
    struct sbx_err *err)
{
	char a[PATH_MAX];
	struct stat st;
	size_t i;

	if (lstat(path, &st) < 0)
		return 0;               /* nothing to hide; HOME is read-only */
	if (in->folder && below(in->folder, path))
		return 0;               /* never hide the project itself */
	if (!S_ISDIR(st.st_mode))
		return plan_add(p, JAIL_HIDE_FILE, path, err);
	if (plan_add(p, JAIL_TMPFS, path, err) < 0)
		return -1;
	for (i = 0; i < in->n_allow_read; i++) {
		if (has_glob(in->allow_read[i]) ||
		    expand(in->allow_read[i], in->home, in->folder, a, sizeof(a)) < 0)
			continue;
		if (below(a, path) && strcmp(a, path) && lstat(a, &st) == 0 &&
		    plan_add(p, JAIL_RO, a, err) < 0)
			return -1;
	}
	return 0;
}

/* The config dir: an empty read-only tmpfs with every entry bound back
 * read-only except the secret keys. */
static int
plan_config(struct jail_plan *p, const char *config, struct sbx_err *err)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int rc = -1;

	if (!(d = opendir(config)))
		return 0;
	if (plan_add(p, JAIL_TMPFS, config, err) < 0)
		goto out;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		/* jail-locks/: sbx jail's own, never the agent's to hold;
		 * idle/: sbxd's records of idle folders (daemon/idle.h),
		 * nothing the agent needs to see. */
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, "jail-locks") || !strcmp(e->d_name, "idle"))
			continue;
		/* approver.key, daemon.key, and their temporary names. */
		if ((n >= 4 && !strcmp(e->d_name + n - 4, ".key")) || strstr(e->d_name, ".key."))
			continue;
		if (xsnprintf(path, sizeof(path), "%s/%s", config, e->d_name) < 0) {
			err_set(err, "path too long in %s", config);
			goto out;
		}
		if (plan_add(p, JAIL_RO, path, err) < 0)
			goto out;
	}
	rc = 0;
out:
	closedir(d);
	return rc;
}

/*
 * One protected path inside the folder (rel: relative, no "..", no
 * glob). Every existing directory on the way becomes a mount point; the
 * path itself, or its first missing component, becomes read-only.
 */
static int
protect(struct jail_plan *p, const char *folder, const char *rel, struct sbx_err *err)
{
	char path[PATH_MAX], *s;
	struct stat st;
	size_t i;
	int file;

	if (xsnprintf(path, sizeof(path), "%s/%s", folder, rel) < 0) {
		err_set(err, "path too long: %s/%s", folder, rel);
		return -1;
	}
	/* Already covered by a read-only mount above it? */
	for (i = 0; i < p->n; i++)
		if ((p->m[i].op == JAIL_RO || p->m[i].op == JAIL_PLACEHOLDER ||
		    p->m[i].op == JAIL_PLACEHOLDER_FILE || p->m[i].op == JAIL_PLACEHOLDER_JSON ||
		    p->m[i].op == JAIL_PLACEHOLDER_EMPTY) &&
		    below(path, p->m[i].path) && below(p->m[i].path, folder) &&
		    strcmp(p->m[i].path, folder))
			return 0;
	s = path + strlen(folder);
	for (;;) {
		char *slash = strchr(s + 1, '/');

		if (slash)
			*slash = '\0';
		if (lstat(path, &st) < 0) {
			if (errno != ENOENT) {
				err_set(err, "cannot check %s: %s", path, strerror(errno));
				return -1;
			}
			file = placeholder_kind(path, 0);
			if (plan_add(p, ph_ops[file], path, err) < 0 ||
			    placeholder_add(p, path, file, err) < 0)
				return -1;
			return 0;
		}
		if (S_ISLNK(st.st_mode)) {
			err_set(err, "%s is a symlink, and the jail protects it: replace it with "
			    "the file or directory itself (or remove it)", path);
			return -1;
		}
		if (!slash)
			return plan_add(p, JAIL_RO, path, err);
		if (!S_ISDIR(st.st_mode))
			return plan_add(p, JAIL_RO, path, err);
		if (plan_add(p, JAIL_RW, path, err) < 0)
			return -1;
		*slash = '/';
		s = slash;
	}
}

/* A policy entry as a path relative to the folder, or NULL (outside, or
 * a pattern the jail cannot place: then the hook's judgement remains). */
static const char *
project_rel(const char *entry, const char *folder, char *buf, size_t bufsz)
{
	char *star, *slash;
	size_t n = strlen(folder);

	if (!strncmp(entry, "./", 2))
		entry += 2;
	else if (!strncmp(entry, folder, n) && entry[n] == '/')
		entry += n + 1;
	else
		return NULL;
	if (xsnprintf(buf, bufsz, "%s", entry) < 0 || !*buf)
		return NULL;
	while ((n = strlen(buf)) > 1 && buf[n - 1] == '/')
		buf[n - 1] = '\0';
	if (!strcmp(buf, "..") || !strncmp(buf, "../", 3) || strstr(buf, "/../") ||
	    !strcmp(buf, ".") || !strncmp(buf, "./", 2))
		return NULL;
	/* ".claude/settings*.json": the glob is in the last part, so protect
	 * the directory that holds it. */
	if ((star = strpbrk(buf, "*?["))) {
		slash = strrchr(buf, '/');
		if (!slash || star < slash)
			return NULL;
		*slash = '\0';
	}
	return buf;
}

/* "~/.claude.json" and the like: what --login opens. */
static int
is_login_file(const char *entry)
{
	size_t k;

	for (k = 0; login_files[k]; k++)
		if (!strncmp(entry, "~/", 2) && !strcmp(entry + 2, login_files[k]))
			return 1;
	return 0;
}

/* One agent state dir of HOME, if it exists (see state_dirs). */
static int
plan_state_dir(struct jail_plan *p, const char *home, const struct state_dir *sd,
    struct sbx_err *err)
{
	char path[PATH_MAX];
	struct stat st;
	size_t k;

	if (xsnprintf(path, sizeof(path), "%s/%s", home, sd->dir) < 0 ||
	    lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (plan_add(p, JAIL_RW, path, err) < 0)
		return -1;
	for (k = 0; sd->ro[k]; k++) {
		if (xsnprintf(path, sizeof(path), "%s/%s/%s", home, sd->dir, sd->ro[k]) < 0)
			continue;
		if (lstat(path, &st) == 0) {
			if (plan_add(p, JAIL_RO, path, err) < 0)
				return -1;
		} else {
			int kind = placeholder_kind(path, 1);

			if (plan_add(p, ph_ops[kind], path, err) < 0 ||
			    placeholder_add(p, path, kind, err) < 0)
				return -1;
		}
	}
	for (k = 0; sd->private[k]; k++) {
		if (xsnprintf(path, sizeof(path), "%s/%s/%s", home, sd->dir, sd->private[k]) < 0 ||
		    lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		if (plan_add(p, JAIL_PRIVATE, path, err) < 0)
			return -1;
	}
	return 0;
}

int
jail_plan_build(struct jail_plan *p, const struct jail_paths *in, struct sbx_err *err)
{
	char path[PATH_MAX], rel[PATH_MAX];
	const char *needed[3];
	size_t i, k, nremount;
	struct stat st;

	memset(p, 0, sizeof(*p));
	/* 1. A private /tmp; what lives under the host's /tmp and is needed
	 * comes back read-only (the folder comes back read-write below). */
	if (plan_add(p, JAIL_TMPFS, "/tmp", err) < 0)
		goto fail;
	needed[0] = in->home;
	needed[1] = in->config;
	needed[2] = in->exe_dir;
	for (i = 0; i < 3; i++)
		if (needed[i] && below(needed[i], "/tmp") && strcmp(needed[i], "/tmp") &&
		    lstat(needed[i], &st) == 0 && plan_add(p, JAIL_RO, needed[i], err) < 0)
			goto fail;

	/* 2. HOME: read-only (it is under /), the agent's state dir writable
	 * except what configures it, credentials hidden. */
	if (in->home) {
		for (i = 0; state_dirs[i].dir; i++)
			if (plan_state_dir(p, in->home, &state_dirs[i], err) < 0)
				goto fail;
		for (k = 0; hidden_home[k]; k++)
			if (xsnprintf(path, sizeof(path), "%s/%s", in->home, hidden_home[k]) >= 0 &&
			    hide(p, in, path, err) < 0)
				goto fail;
		for (k = 0; login_files[k]; k++) {
			if (xsnprintf(path, sizeof(path), "%s/%s", in->home, login_files[k]) < 0)
				continue;
			if (in->login && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				if (plan_add(p, JAIL_RW, path, err) < 0)
					goto fail;
			} else if (hide(p, in, path, err) < 0) {
				goto fail;
			}
		}
	}
	/* 3. The policy's denyRead entries that name a place (not a glob). */
	for (i = 0; i < in->n_deny_read; i++) {
		if (has_glob(in->deny_read[i]) ||
		    expand(in->deny_read[i], in->home, in->folder, path, sizeof(path)) < 0)
			continue;
		if (in->config && !strcmp(path, in->config))
			continue;
		if (in->login && is_login_file(in->deny_read[i]))
			continue;
		if (!strncmp(path, "/proc/", 6) || !strncmp(path, "/dev/", 5))
			continue;       /* our own /proc and /dev */
		if (hide(p, in, path, err) < 0)
			goto fail;
	}
	/* 4. The config dir: public keys readable, secret keys absent. */
	if (in->config && plan_config(p, in->config, err) < 0)
		goto fail;

	/* 5. The project, read-write; .sandbox read-only but the drop boxes. */
	if (plan_add(p, JAIL_RW, in->folder, err) < 0)
		goto fail;
	if (xsnprintf(path, sizeof(path), "%s/.sandbox", in->folder) < 0 ||
	    plan_add(p, JAIL_RO, path, err) < 0)
		goto fail;
	for (k = 0; queue_dropboxes[k]; k++) {
		if (xsnprintf(path, sizeof(path), "%s/.sandbox/%s", in->folder,
		    queue_dropboxes[k]) < 0)
			goto fail;
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
		    plan_add(p, JAIL_RW, path, err) < 0)
			goto fail;
	}
	/* state.db-shm is the lock file of sbxd's database (SQLite's WAL
	 * index): a read-only descriptor is enough for a read lock on its
	 * write-lock byte, and then every write sbxd makes to the folder's
	 * database waits out its busy timeout, sbxd's one loop with it, and
	 * fails (t255). Hidden: sbxd keeps it between opens (PERSIST_WAL),
	 * only sbxd opens state.db read-write, and nothing in the jail reads
	 * state.db (the hooks read results/). */
	if (xsnprintf(path, sizeof(path), "%s/.sandbox/state.db-shm", in->folder) < 0 ||
	    (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    plan_add(p, JAIL_HIDE_FILE, path, err) < 0))
		goto fail;
	/* 6. Protected paths inside the project, even those not made yet. */
	for (k = 0; project_protected[k]; k++)
		if (protect(p, in->folder, project_protected[k], err) < 0)
			goto fail;
	for (i = 0; i < in->n_protect; i++) {
		const char *r = project_rel(in->protect[i], in->folder, rel, sizeof(rel));

		if (r && strcmp(r, ".sandbox") && strncmp(r, ".sandbox/", 9) &&
		    protect(p, in->folder, r, err) < 0)
			goto fail;
	}
	/* 7. sbx's own binaries, if they live in the project. */
	if (in->exe_dir && below(in->exe_dir, in->folder) &&
	    plan_add(p, JAIL_RO, in->exe_dir, err) < 0)
		goto fail;
	/* 8. Hidden directories turn read-only last. */
	nremount = p->n;
	for (i = 0; i < nremount; i++)
		if (p->m[i].op == JAIL_TMPFS && strcmp(p->m[i].path, "/tmp") &&
		    plan_add(p, JAIL_REMOUNT_RO, p->m[i].path, err) < 0)
			goto fail;
	return 0;
fail:
	jail_plan_free(p);
	return -1;
}

int
jail_plan_watched(const struct jail_plan *p, size_t i)
{
	const char *path = p->m[i].path;
	size_t j, best = (size_t)-1, len = 0, n;

	if (p->m[i].op == JAIL_REMOUNT_RO || !strcmp(path, "/tmp"))
		return 0;
	/* The nearest mount above it, among those made before it. */
	for (j = 0; j < i; j++) {
		n = strlen(p->m[j].path);
		if (p->m[j].op != JAIL_REMOUNT_RO && below(path, p->m[j].path) &&
		    strcmp(path, p->m[j].path) && n >= len) {
			best = j;
			len = n;
		}
	}
	if (best == (size_t)-1)
		return 1;           /* under the host's / */
	return p->m[best].op != JAIL_TMPFS && p->m[best].op != JAIL_PRIVATE;
}

/* A growable argv. */
struct av {
	char **v;
	size_t n, cap;
	int oom;
};

static void
av_add(struct av *a, const char *s)
{
	char **v;

	if (a->oom)
		return;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 128;

		if (!(v = realloc(a->v, cap * sizeof(*v)))) {
			a->oom = 1;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	if (!(a->v[a->n] = strdup(s))) {
		a->oom = 1;
		return;
	}
	a->v[++a->n] = NULL;
}

static void
av_add2(struct av *a, const char *x, const char *y)
{
	av_add(a, x);
	av_add(a, y);
}

static void
av_add3(struct av *a, const char *x, const char *y, const char *z)
{
	av_add(a, x);
	av_add(a, y);
	av_add(a, z);
}

void
jail_argv_free(char **argv)
{
	size_t i;

	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* What each mount of a plan is on bwrap's command line: the option, and
 * what it binds over the path (the path itself, a file of the staging
 * dir, or nothing: --tmpfs and --remount-ro take the path alone). */
enum mount_from { FROM_NONE, FROM_PATH, FROM_EMPTY_FILE, FROM_JSON_FILE, FROM_DOT_FILE,
	FROM_EMPTY };
static const struct {
	const char *opt;
	enum mount_from from;
} mount_opts[] = {
	[JAIL_RO] = { "--ro-bind", FROM_PATH },
	[JAIL_RW] = { "--bind", FROM_PATH },
	[JAIL_TMPFS] = { "--tmpfs", FROM_NONE },
	[JAIL_PRIVATE] = { "--tmpfs", FROM_NONE },
	[JAIL_HIDE_FILE] = { "--ro-bind", FROM_EMPTY_FILE },
	[JAIL_PLACEHOLDER_EMPTY] = { "--ro-bind", FROM_EMPTY_FILE },
	[JAIL_PLACEHOLDER_JSON] = { "--ro-bind", FROM_JSON_FILE },
	[JAIL_PLACEHOLDER_FILE] = { "--ro-bind", FROM_DOT_FILE },
	[JAIL_PLACEHOLDER] = { "--ro-bind", FROM_EMPTY },
	[JAIL_REMOUNT_RO] = { "--remount-ro", FROM_NONE },
};

char **
jail_argv(const struct jail_config *c)
{
	char empty[PATH_MAX], empty_file[PATH_MAX], dot_file[PATH_MAX], json_file[PATH_MAX];
	const char *const staged[] = { [FROM_EMPTY_FILE] = empty_file,
		[FROM_JSON_FILE] = json_file, [FROM_DOT_FILE] = dot_file, [FROM_EMPTY] = empty };
	char num[32];
	struct av a = { 0 };
	size_t i;
	char *const *w;

	if (xsnprintf(empty, sizeof(empty), "%s/empty", c->stage) < 0 ||
	    xsnprintf(empty_file, sizeof(empty_file), "%s/empty-file", c->stage) < 0 ||
	    xsnprintf(dot_file, sizeof(dot_file), "%s/dot-file", c->stage) < 0 ||
	    xsnprintf(json_file, sizeof(json_file), "%s/json-file", c->stage) < 0)
		return NULL;
	av_add(&a, c->bwrap);
	/* Processes: no view of, or signal to, anything outside. No
	 * --new-session: it would take the terminal away from the agent;
	 * the seccomp filter refuses TIOCSTI instead. */
	av_add(&a, "--unshare-pid");
	/* sbx-jail-init is pid 1: without this, bwrap's own reaper would be
	 * pid 1, dumpable and without no_new_privs, and the agent (same
	 * uid) could ptrace it or write its /proc/1/mem. */
	av_add(&a, "--as-pid-1");
	av_add(&a, "--unshare-ipc");
	av_add(&a, "--unshare-uts");
	av_add(&a, "--unshare-net");
	av_add(&a, "--unshare-cgroup-try");
	av_add(&a, "--die-with-parent");
	if (c->as_root)
		av_add2(&a, "--cap-drop", "ALL");
	av_add2(&a, "--hostname", "sbx-jail");
	/* The filesystem. */
	av_add3(&a, "--ro-bind", "/", "/");
	av_add2(&a, "--dev", "/dev");
	av_add2(&a, "--proc", "/proc");
	for (i = 0; c->plan && i < c->plan->n; i++) {
		const struct jail_mount *m = &c->plan->m[i];

		if ((size_t)m->op >= sizeof(mount_opts) / sizeof(mount_opts[0]) ||
		    !mount_opts[m->op].opt)
			continue;
		if (mount_opts[m->op].from == FROM_NONE)
			av_add2(&a, mount_opts[m->op].opt, m->path);
		else
			av_add3(&a, mount_opts[m->op].opt, mount_opts[m->op].from == FROM_PATH ?
			    m->path : staged[mount_opts[m->op].from], m->path);
	}
	if (c->proxy_socket)
		av_add3(&a, "--ro-bind", c->proxy_socket, JAIL_PROXY_SOCKET);
	if (c->cwd)
		av_add2(&a, "--chdir", c->cwd);
	if (c->status_fd >= 0) {
		snprintf(num, sizeof(num), "%d", c->status_fd);
		av_add2(&a, "--json-status-fd", num);
	}
	av_add(&a, "--");
	av_add(&a, c->init);
	if (c->proxy_socket) {
		av_add2(&a, "--socket", JAIL_PROXY_SOCKET);
		if (c->no_proxy)
			av_add2(&a, "--no-proxy", c->no_proxy);
	}
	if (c->session)
		av_add2(&a, "--session", c->session);
	av_add(&a, "--");
	for (w = c->command; w && *w; w++)
		av_add(&a, *w);
	if (a.oom) {
		if (a.v)
			a.v[a.n] = NULL;
		jail_argv_free(a.v);
		return NULL;
	}
	return a.v;
}

int
jail_no_proxy(const char *const *allowed, size_t n, char *out, size_t outsz)
{
	static const char *const loop[] = { "localhost", "127.0.0.1", "::1", NULL };
	char host[256];
	size_t i, k, len = 0;
	int listed, w;

	out[0] = '\0';
	for (k = 0; loop[k]; k++) {
		listed = 0;
		for (i = 0; i < n; i++) {
			const char *a = allowed[i];

			/* "host", "host:port", "[::1]:port". */
			if (a[0] == '[') {
				if (xsnprintf(host, sizeof(host), "%s", a + 1) < 0)
					continue;
				host[strcspn(host, "]")] = '\0';
			} else {
				if (xsnprintf(host, sizeof(host), "%s", a) < 0)
					continue;
				if (strchr(host, ':') == strrchr(host, ':'))
					host[strcspn(host, ":")] = '\0';
			}
			if (!strcmp(host, loop[k]))
				listed = 1;
		}
		if (listed)
			continue;
		w = snprintf(out + len, outsz - len, "%s%s", len ? "," : "", loop[k]);
		if (w < 0 || (size_t)w >= outsz - len)
			return -1;
		len += (size_t)w;
	}
	return 0;
}
