/*
 * cmd_init.c - `sbx init` and `sbx remove`: preparing a folder, wiring
 * it into agents, and taking that out again. Idempotent: existing files
 * are kept, entries already present are not added twice.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "approver/cmd.h"
#include "approver/init_codex.h"
#include "approver/init_gemini.h"
#include "approver/setup.h"
#include "approver/sign.h"
#include "common/protocol/queue.h"
#include "common/protocol/registry.h"
#include "common/protocol/users.h"
#include "policy/policy.h"

static const char *
default_name(void)
{
	const char *u = getenv("USER");
	struct passwd *pw;

	if (u && valid_name(u))
		return u;
	pw = getpwuid(getuid());
	return pw && valid_name(pw->pw_name) ? pw->pw_name : "approver";
}

/* The operand DIR (at most one, after the options), or -C DIR, or ".";
 * resolved into folder (PATH_MAX). -1 to go on, else the exit code. */
static int
resolve_dir(const struct sbx_ctx *c, int argc, char **argv, const char *use, char *folder)
{
	const char *dir = argv[optind];

	if (optind < argc - 1)
		return sub_usage(use, 0);
	if (!dir)
		dir = c->dir ? c->dir : ".";
	if (!realpath(dir, folder)) {
		fprintf(stderr, "sbx: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	return -1;
}

/* The directory this sbx runs from: sbx-hook and sbx-mcp live beside it. */
static int
self_dir(char *out, size_t outsz)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return -1;
	*slash = '\0';
	return xsnprintf(out, outsz, "%s", exe) < 0 ? -1 : 0;
}

/* 1 if DIR is a bin/ directory of a source tree (hook/sbx_hook.c one to
 * three levels up: bin/, build/asan/bin/), which make clean empties. */
static int
in_build_tree(const char *dir)
{
	char path[PATH_MAX + 64];
	const char *up[] = { "..", "../..", "../../.." };
	size_t i;

	for (i = 0; i < sizeof(up) / sizeof(up[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/hook/sbx_hook.c", dir, up[i]);
		if (access(path, F_OK) == 0)
			return 1;
	}
	return 0;
}

/*
 * Where the sbx-hook and sbx-mcp that init registers live: $SBX_HOOK_DIR
 * when set (tests, packagers); else beside this sbx, unless this sbx runs
 * from a build tree and an installed pair is on PATH: a registered path
 * into a build tree breaks with make clean or a moved clone (the hooks
 * then block every call), so the installed one is preferred, and init
 * says which it chose.
 */
static int
hook_dir(char *out, size_t outsz)
{
	char self[PATH_MAX], cand[PATH_MAX + 16], real[PATH_MAX];
	const char *env = getenv("SBX_HOOK_DIR"), *path = getenv("PATH"), *p, *e;
	size_t n;

	if (env && env[0])
		return realpath(env, out) && strlen(out) < outsz ? 0 : -1;
	if (self_dir(self, sizeof(self)) < 0)
		return -1;
	if (!in_build_tree(self))
		return xsnprintf(out, outsz, "%s", self) < 0 ? -1 : 0;
	for (p = path ? path : ""; *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, ":");
		n = (size_t)(e - p);
		if (n == 0 || p[0] != '/' || n >= sizeof(real))
			continue;
		snprintf(cand, sizeof(cand), "%.*s/sbx-hook", (int)n, p);
		if (access(cand, X_OK) < 0 || !realpath(cand, real))
			continue;
		*strrchr(real, '/') = '\0';
		snprintf(cand, sizeof(cand), "%s/sbx-mcp", real);
		if (in_build_tree(real) || access(cand, X_OK) < 0)
			continue;
		printf("registering the installed %s/sbx-hook (this sbx runs from the "
		    "build tree %s)\n", real, self);
		return xsnprintf(out, outsz, "%s", real) < 0 ? -1 : 0;
	}
	fprintf(stderr, "sbx: warning: registering %s/sbx-hook from a build tree: after "
	    "`make clean` or moving the clone the hooks block every call until you run "
	    "`make install` and `sbx init` again (no installed sbx-hook on PATH)\n", self);
	return xsnprintf(out, outsz, "%s", self) < 0 ? -1 : 0;
}

static int
write_new(int dfd, const char *name, const char *text, mode_t mode)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

	if (fd < 0)
		return errno == EEXIST ? 0 : -1;
	if (write_all(fd, text, strlen(text)) < 0 || fsync(fd) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	return 1;
}

/* FOLDER/.sandbox with its queue, policy and .gitignore. */
static int
prepare(const char *folder, int *created_policy)
{
	char path[PATH_MAX + 16];
	struct sbx_err err;
	struct stat st;
	int i, sbfd, r;

	snprintf(path, sizeof(path), "%s/.sandbox", folder);
	if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "sbx: %s exists and is not a directory\n", path);
		return -1;
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "sbx: cannot create %s: %s\n", path, strerror(errno));
		return -1;
	}
	if ((sbfd = sandbox_open(folder, &err)) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return -1;
	}
	if (fchmod(sbfd, 0700) < 0)
		fprintf(stderr, "sbx: warning: cannot chmod %s: %s\n", path, strerror(errno));
	for (i = 0; queue_dirs[i]; i++)
		if (mkdirat(sbfd, queue_dirs[i], 0700) < 0 && errno != EEXIST) {
			fprintf(stderr, "sbx: cannot create %s/%s: %s\n", path, queue_dirs[i],
			    strerror(errno));
			close(sbfd);
			return -1;
		}
	if ((r = write_new(sbfd, "policy.json", policy_default_text(), 0600)) < 0) {
		fprintf(stderr, "sbx: cannot write %s/policy.json: %s\n", path, strerror(errno));
		close(sbfd);
		return -1;
	}
	if (r)
		printf("created %s/policy.json (the default policy)\n", path);
	*created_policy = r;
	/* State, queue and log are not source: keep them out of git. */
	if ((r = write_new(sbfd, ".gitignore", "# sbx state, queue and log: not source\n*\n",
	    0644)) < 0) {
		fprintf(stderr, "sbx: cannot write %s/.gitignore: %s\n", path, strerror(errno));
		close(sbfd);
		return -1;
	}
	close(sbfd);
	printf("prepared %s (ignored by git)\n", path);
	return 0;
}

static int
hook_timeout(const char *folder, const char *config)
{
	struct policy_error perr;
	struct policy *p;
	char path[PATH_MAX + 32];
	int t;

	/* Before init writes the default policy, its limits are the defaults'. */
	snprintf(path, sizeof(path), "%s/.sandbox/policy.json", folder);
	if (access(path, F_OK) < 0 && errno == ENOENT)
		p = policy_load_buffer("the default policy", policy_default_text(),
		    strlen(policy_default_text()), folder, config, &perr);
	else
		p = policy_load(folder, config, &perr);
	if (!p) {
		fprintf(stderr, "sbx: %s\n", perr.msg);
		return -1;
	}
	/* Longer than the hook's own deadline (it answers by wait + 5 s). */
	t = policy_limits(p)->hook_wait_seconds + 30;
	policy_free(p);
	return t;
}

int
cmd_init(struct sbx_ctx *c, int argc, char **argv)
{
	static const struct { const char *flag; enum setup_kind kind; } clients[] = {
		{ "--claude", SETUP_CLAUDE }, { "--mcp", SETUP_CLAUDE_MCP },
		{ "--codex", SETUP_CODEX }, { "--cursor", SETUP_CURSOR },
		{ "--gemini", SETUP_GEMINI },
	};
	char folder[PATH_MAX];
	const char *name = NULL, *file;
	struct setup_opts so = { 0 };
	struct sbx_err err = { "" };
	char bindir[PATH_MAX], hookbin[PATH_MAX + 16];
	int want[5] = { 0 }, local = 0, i, k, made, any = 0, r, created_policy = 0, quit;

	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "claude", no_argument, NULL, 0 }, { "mcp", no_argument, NULL, 1 },
		{ "codex", no_argument, NULL, 2 }, { "cursor", no_argument, NULL, 3 },
		{ "gemini", no_argument, NULL, 4 },
		{ "local", no_argument, NULL, 'l' }, { "name", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	static const char use[] = "usage: sbx init [--claude [--local]] [--mcp] [--codex] "
	    "[--cursor] [--gemini] [--name APPROVER] [DIR]\n";

	while ((i = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		/* the client options' values are their index in clients[] */
		if (i >= 0 && i < (int)(sizeof(clients) / sizeof(clients[0])))
			want[i] = any = 1;
		else if (i == 'l')
			local = 1;
		else if (i == 'n')
			name = optarg;
		else if ((quit = sub_opt_common(c, i, use)) >= 0)
			return quit;
	}
	if ((i = resolve_dir(c, argc, argv, use, folder)) >= 0)
		return i;
	/* Everything that can fail for a client's file is found out before
	 * anything is written: no .sandbox/, no acceptance, no registry entry
	 * for a folder whose settings file sbx cannot parse. */
	if (any) {
		if (hook_dir(bindir, sizeof(bindir)) < 0) {
			fprintf(stderr, "sbx: cannot tell where sbx-hook is installed\n");
			return 1;
		}
		snprintf(hookbin, sizeof(hookbin), "%s/sbx-hook", bindir);
		if (access(hookbin, X_OK) < 0) {
			fprintf(stderr, "sbx: %s is missing; install sbx-hook beside sbx\n", hookbin);
			return 1;
		}
		so = (struct setup_opts){ .folder = folder, .bindir = bindir, .local = local,
			.timeout = hook_timeout(folder, c->config) };
		if (so.timeout < 0)
			return 1;
	}
	for (k = 0; k < 5; k++) {
		if (want[k] && (setup_check(clients[k].kind, &so, &file, &err) < 0 ||
		    (clients[k].kind == SETUP_CURSOR &&
		    setup_check(SETUP_CURSOR_MCP, &so, &file, &err) < 0))) {
			fprintf(stderr, "sbx: %s\n", err.msg);
			return 1;
		}
	}
	if (prepare(folder, &created_policy) < 0)
		return 1;
	made = approver_key_create(c->config, name ? name : default_name(), &err);
	if (made < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return 1;
	}
	if (made)
		printf("created approver key %s/approver.key (trusted in %s/approvers/)\n",
		    c->config, c->config);
	/* The human running init accepts the default policy it just wrote;
	 * an existing policy.json is left for them to accept knowingly. */
	if (created_policy) {
		if (policy_accept_write(c->config, folder, &err) < 0) {
			fprintf(stderr, "sbx: %s\n", err.msg);
			return 1;
		}
		printf("accepted the default policy (change it with `sbx policy edit`)\n");
	}
	if ((r = registry_add(c->config, folder, &err)) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return 1;
	}
	if (r)
		printf("recorded %s in %s/folders (for sbxd --all)\n", folder, c->config);

	for (k = 0; k < 5; k++) {
		if (!want[k])
			continue;
		if ((r = setup_add(clients[k].kind, &so, &file, &err)) < 0) {
			fprintf(stderr, "sbx: %s\n", err.msg);
			return 1;
		}
		printf(r ? "registered sbx in %s\n" : "%s already has sbx\n", file);
		if (clients[k].kind == SETUP_CURSOR) {
			if ((r = setup_add(SETUP_CURSOR_MCP, &so, &file, &err)) < 0) {
				fprintf(stderr, "sbx: %s\n", err.msg);
				return 1;
			}
			printf(r ? "registered sbx in %s\n" : "%s already has sbx\n", file);
		}
		if (clients[k].kind == SETUP_GEMINI && init_gemini_trust(folder) < 0)
			return 1;
		if (clients[k].kind == SETUP_CODEX && init_codex_trust(folder, bindir) < 0)
			return 1;
	}
	printf("next: run `sbxd %s` (it executes approved commands; `sbxd --all` serves "
	    "every recorded folder),\n      then `sbx -C %s pending` to see requests\n",
	    folder, folder);
	/* The hooks are advisory on their own: the jail makes them law. */
	printf("start the agent in the jail: `cd %s && sbx jail -- claude` (or codex, bash); "
	    "without it, code the agent runs has your rights (see `sbx jail --help`)\n", folder);
	return 0;
}

/* rm -r of DIRFD/NAME without following symlinks. */
static int
remove_tree(int at, const char *name)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (unlinkat(at, name, 0) == 0)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return errno == ENOENT ? 0 : -1;
	if (!(d = opendir_at(at, name))) {
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    remove_tree(dirfd(d), de->d_name) < 0)
			rc = -1;
	closedir(d);
	if (rc == 0 && unlinkat(at, name, AT_REMOVEDIR) < 0)
		rc = -1;
	return rc;
}

int
cmd_remove(struct sbx_ctx *c, int argc, char **argv)
{
	char folder[PATH_MAX], answer[16], lock[PATH_MAX + 32];
	struct sbx_err err = { "" };
	struct sandbox_users su;
	int i, purge = 0, yes = 0, fd, dfd, quit;
	FILE *tty;

	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "purge", no_argument, NULL, 'p' }, { "yes", no_argument, NULL, 'y' },
		{ NULL, 0, NULL, 0 },
	};
	static const char use[] = "usage: sbx remove [--purge [--yes]] [DIR]\n";

	while ((i = getopt_long(argc, argv, "C:hy", opts, NULL)) != -1) {
		if (i == 'p')
			purge = 1;
		else if (i == 'y')
			yes = 1;
		else if ((quit = sub_opt_common(c, i, use)) >= 0)
			return quit;
	}
	if ((i = resolve_dir(c, argc, argv, use, folder)) >= 0)
		return i;
	snprintf(lock, sizeof(lock), "%s/.sandbox", folder);
	if (access(lock, F_OK) < 0) {
		fprintf(stderr, "sbx: %s has no .sandbox/; nothing to remove\n", folder);
		return 1;
	}
	if (setup_remove_all(folder, &err) < 0) {
		fprintf(stderr, "sbx: %s\n", err.msg);
		return 1;
	}
	if (registry_remove(c->config, folder, &err) < 0)
		fprintf(stderr, "sbx: warning: %s\n", err.msg);
	if (!purge) {
		printf("kept %s/.sandbox (state, queue and results); `sbx remove --purge` "
		    "deletes it\n", folder);
		return 0;
	}
	/* A handed-over .sandbox holds sbxd's user's state and audit log:
	 * never deleted here (the way back keeps them). */
	snprintf(lock, sizeof(lock), "%s/.sandbox", folder);
	if ((dfd = open(lock, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		i = sandbox_users_read(dfd, &su, &err);
		close(dfd);
		if (i > 0) {
			fprintf(stderr, "sbx: %s/.sandbox is handed over to sbxd's own user (uid "
			    "%lu): its state and audit log are that user's; not deleted (as root, "
			    "`sbx handover --undo %s` gives the folder back and keeps them)\n",
			    folder, (unsigned long)su.daemon, folder);
			return 1;
		}
		if (i < 0) {
			fprintf(stderr, "sbx: %s; not deleted (remove that file first if the folder "
			    "is yours alone)\n", err.msg);
			return 1;
		}
	}
	snprintf(lock, sizeof(lock), "%s/.sandbox/sbxd.lock", folder);
	if ((fd = open(lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			fprintf(stderr, "sbx: sbxd is serving %s; stop it before --purge\n", folder);
			close(fd);
			return 1;
		}
		close(fd);
	}
	if (!yes) {
		tty = fopen("/dev/tty", "r");
		fprintf(stderr, "delete %s/.sandbox with its state, queue and results? [y/N] ",
		    folder);
		if (!tty || !fgets(answer, sizeof(answer), tty) ||
		    (answer[0] != 'y' && answer[0] != 'Y')) {
			if (tty)
				fclose(tty);
			fprintf(stderr, "\nsbx: not deleted (use --yes when there is no terminal)\n");
			return 1;
		}
		fclose(tty);
	}
	if ((dfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    remove_tree(dfd, ".sandbox") < 0) {
		fprintf(stderr, "sbx: cannot delete %s/.sandbox: %s\n", folder, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return 1;
	}
	close(dfd);
	printf("deleted %s/.sandbox\n", folder);
	return 0;
}
