/*
 * test_jail.c - the jail's mount plan (on a real temporary tree) and the
 * pure bwrap argv builder.
 */
#include "approver/jail.c"

#include <fcntl.h>

#include "tests/tap.h"

static char root[PATH_MAX];

static void
mk(const char *rel, int dir)
{
	char p[PATH_MAX * 2];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (dir) {
		mkdir_p(p, 0755);
		return;
	}
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0)
		close(fd);
}

/* Index of the mount with op and path (relative to root), or -1. */
static long
find(const struct jail_plan *p, enum jail_op op, const char *rel)
{
	char path[PATH_MAX * 2];
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (i = 0; i < p->n; i++)
		if (p->m[i].op == op && !strcmp(p->m[i].path, path))
			return (long)i;
	return -1;
}

/* Index of the argv word equal to s at or after from, or -1. */
static long
argv_find(char **av, const char *s, long from)
{
	long i;

	for (i = from; av[i]; i++)
		if (!strcmp(av[i], s))
			return i;
	return -1;
}

int
main(void)
{
	char folder[PATH_MAX * 2], home[PATH_MAX * 2], config[PATH_MAX * 2], np[256];
	const char *deny_read[] = { "~/.ssh", "~/.config/sbx", "/**/.env*", "~/.aws" };
	const char *allow_read[] = { "~/.aws/config" };
	const char *protect[] = { "./.sandbox", "./.claude/settings*.json", "./.git/hooks",
		"./generated", "./**/*.secret", "/**/bin/sbx", "./../escape" };
	const char *allowed[] = { "github.com", "127.0.0.1:8080", "[::1]:9" };
	struct jail_paths in = { 0 };
	struct jail_plan plan;
	struct jail_config jc = { 0 };
	struct sbx_err err;
	char *cmd[] = { "claude", "--x", NULL };
	char **av;
	long a, b, i;

	snprintf(root, sizeof(root), "/tmp/sbx-test-jail.XXXXXX");
	if (!mkdtemp(root))
		return 1;
	mk("proj/.sandbox/queue/new", 1);
	mk("proj/.sandbox/state.db-shm", 0);
	mk("proj/.claude", 1);
	mk("proj/.claude/settings.json", 0);
	mk("proj/.git/hooks", 1);
	mk("proj/.git/config", 0);
	mk("proj/src", 1);
	mk("home/.ssh", 1);
	mk("home/.ssh/id_rsa", 0);
	mk("home/.aws", 1);
	mk("home/.aws/config", 0);
	mk("home/.netrc", 0);
	mk("home/.claude", 1);
	mk("home/.claude/settings.json", 0);
	mk("home/.codex", 1);
	mk("home/.codex/config.toml", 0);
	mk("home/.codex/auth.json", 0);
	mk("home/.config/sbx/approvers", 1);
	mk("home/.config/sbx/approver.key", 0);
	mk("home/.config/sbx/daemon.key", 0);
	mk("home/.config/sbx/daemon.pub", 0);
	snprintf(folder, sizeof(folder), "%s/proj", root);
	snprintf(home, sizeof(home), "%s/home", root);
	snprintf(config, sizeof(config), "%s/home/.config/sbx", root);
	in.folder = folder;
	in.home = home;
	in.config = config;
	in.exe_dir = "/usr/local/bin";
	in.deny_read = deny_read;
	in.n_deny_read = 4;
	in.allow_read = allow_read;
	in.n_allow_read = 1;
	in.protect = protect;
	in.n_protect = 7;

	ok(jail_plan_build(&plan, &in, &err) == 0, "the plan builds");
	ok(plan.m[0].op == JAIL_TMPFS && !strcmp(plan.m[0].path, "/tmp"), "a private /tmp first");
	ok(find(&plan, JAIL_RO, "home") >= 0, "HOME under /tmp comes back read-only");
	ok(find(&plan, JAIL_RW, "home/.claude") >= 0, "~/.claude is writable");
	ok(find(&plan, JAIL_RO, "home/.claude/settings.json") > find(&plan, JAIL_RW, "home/.claude"),
	    "but its settings.json is read-only, after it");
	ok(find(&plan, JAIL_PLACEHOLDER_JSON, "home/.claude/settings.local.json") >= 0,
	    "a settings file not made yet gets a \"{}\" file (Claude Code stops at a directory)");
	ok(find(&plan, JAIL_PLACEHOLDER_EMPTY, "home/.claude/CLAUDE.md") >= 0 &&
	    find(&plan, JAIL_PLACEHOLDER, "home/.claude/hooks") >= 0,
	    "CLAUDE.md an empty file, hooks/ an empty directory");
	ok(find(&plan, JAIL_RW, "home/.codex") >= 0 &&
	    find(&plan, JAIL_RO, "home/.codex/config.toml") > find(&plan, JAIL_RW, "home/.codex") &&
	    find(&plan, JAIL_PLACEHOLDER_JSON, "home/.codex/hooks.json") >= 0,
	    "~/.codex is writable, its config.toml and hooks.json are not");
	ok(find(&plan, JAIL_HIDE_FILE, "home/.codex/auth.json") >= 0, "~/.codex/auth.json is hidden");
	ok(find(&plan, JAIL_TMPFS, "home/.ssh") >= 0, "~/.ssh is hidden");
	ok(find(&plan, JAIL_HIDE_FILE, "home/.netrc") >= 0, "~/.netrc is hidden (built in)");
	a = find(&plan, JAIL_TMPFS, "home/.aws");
	b = find(&plan, JAIL_RO, "home/.aws/config");
	ok(a >= 0 && b > a, "allowRead ~/.aws/config comes back inside hidden ~/.aws");
	ok(find(&plan, JAIL_TMPFS, "home/.config/sbx") >= 0, "the config dir is rebuilt");
	ok(find(&plan, JAIL_RO, "home/.config/sbx/approvers") >= 0, "with approvers/ readable");
	ok(find(&plan, JAIL_RO, "home/.config/sbx/daemon.pub") >= 0, "and daemon.pub");
	ok(find(&plan, JAIL_RO, "home/.config/sbx/approver.key") < 0 &&
	    find(&plan, JAIL_RO, "home/.config/sbx/daemon.key") < 0, "but no secret key");
	a = find(&plan, JAIL_RW, "proj");
	ok(a >= 0, "the project is writable");
	ok(find(&plan, JAIL_RO, "proj/.sandbox") > a, ".sandbox is read-only");
	ok(find(&plan, JAIL_RW, "proj/.sandbox/queue") > find(&plan, JAIL_RO, "proj/.sandbox"),
	    "except the queue, one mount");
	ok(find(&plan, JAIL_HIDE_FILE, "proj/.sandbox/state.db-shm") >
	    find(&plan, JAIL_RO, "proj/.sandbox"),
	    "and state.db-shm, sbxd's lock file, is hidden (a read lock on it stops sbxd: t255)");
	ok(find(&plan, JAIL_RO, "proj/.claude") >= 0, ".claude (settings*.json) is protected whole");
	ok(find(&plan, JAIL_RW, "proj/.git") >= 0 &&
	    find(&plan, JAIL_RW, "proj/.git") < find(&plan, JAIL_RO, "proj/.git/hooks"),
	    ".git is a mount point (cannot be renamed) before .git/hooks turns read-only");
	ok(find(&plan, JAIL_RO, "proj/.git/config") >= 0, ".git/config is read-only");
	ok(find(&plan, JAIL_PLACEHOLDER, "proj/.envrc") >= 0, ".envrc, not made yet, has a placeholder");
	ok(find(&plan, JAIL_PLACEHOLDER, "proj/.mcp.json") >= 0,
	    "in the project even a .json placeholder is a directory (git ignores it)");
	is_str(jail_ph_text(JAIL_PH_JSON), "{}\n", "a JSON placeholder holds {}");
	is_str(jail_ph_text(JAIL_PH_DOT), ".\n", "commondir's holds .");
	ok(find(&plan, JAIL_PLACEHOLDER, "proj/generated") >= 0, "so has a denyWrite path");
	ok(find(&plan, JAIL_PLACEHOLDER_FILE, "proj/.git/commondir") >= 0,
	    ".git/commondir gets an empty file (a directory would stop git)");
	ok(find(&plan, JAIL_PLACEHOLDER, "proj/.git/modules") >= 0, ".git/modules is protected");
	for (i = 0, a = 0; i < (long)plan.n_placeholders; i++)
		a += strstr(plan.placeholders[i], "/proj/.envrc") != NULL;
	is_int(a, 1, "the caller is told to make the .envrc placeholder once");
	for (i = 0, a = 0; i < (long)plan.n; i++)
		a += strstr(plan.m[i].path, "escape") != NULL || strstr(plan.m[i].path, "secret");
	is_int(a, 0, "entries with .. or a glob above the last part are not mounted");
	a = (long)plan.n;
	for (i = 0, b = -1; i < (long)plan.n; i++)
		if (plan.m[i].op == JAIL_REMOUNT_RO && b < 0)
			b = i;
	for (i = b; b >= 0 && i < (long)plan.n; i++)
		if (plan.m[i].op != JAIL_REMOUNT_RO)
			b = -2;
	ok(b >= 0, "every --remount-ro comes last");

	ok(jail_plan_watched(&plan, (size_t)find(&plan, JAIL_RO, "proj/.git/config")),
	    ".git/config is watched (renamed over on the host, its mount would go)");
	ok(jail_plan_watched(&plan, (size_t)find(&plan, JAIL_TMPFS, "home/.ssh")),
	    "so is hidden ~/.ssh, which sits in the host's HOME");
	ok(!jail_plan_watched(&plan, (size_t)find(&plan, JAIL_RO, "home/.config/sbx/daemon.pub")),
	    "not what sits in the jail's own tmpfs (the rebuilt config dir)");
	ok(!jail_plan_watched(&plan, (size_t)find(&plan, JAIL_RO, "home")),
	    "nor HOME, brought back into the private /tmp");
	ok(!jail_plan_watched(&plan, 0), "nor /tmp itself");

	jc.bwrap = "/usr/bin/bwrap";
	jc.init = "/usr/local/bin/sbx-jail-init";
	jc.stage = "/tmp/stage";
	jc.cwd = folder;
	jc.proxy_socket = "/tmp/stage/proxy.sock";
	jc.no_proxy = "localhost";
	jc.session = "0123456789abcdef";
	jc.status_fd = 3;
	jc.as_root = 1;
	jc.plan = &plan;
	jc.command = cmd;
	av = jail_argv(&jc);
	ok(av != NULL, "the argv builds");
	is_str(av[0], "/usr/bin/bwrap", "bwrap first");
	ok(argv_find(av, "--new-session", 0) < 0, "no --new-session (the agent keeps its terminal)");
	ok(argv_find(av, "--as-pid-1", 0) > 0 && argv_find(av, "--unshare-pid", 0) > 0,
	    "own pid namespace, sbx-jail-init as pid 1");
	ok(argv_find(av, "--unshare-net", 0) > 0 && argv_find(av, "--unshare-ipc", 0) > 0 &&
	    argv_find(av, "--unshare-uts", 0) > 0 && argv_find(av, "--die-with-parent", 0) > 0,
	    "net, ipc, uts namespaces; dies with its parent");
	a = argv_find(av, "--cap-drop", 0);
	ok(a > 0 && !strcmp(av[a + 1], "ALL"), "as root, every capability dropped");
	a = argv_find(av, "/tmp/stage/proxy.sock", 0);
	ok(a > 0 && !strcmp(av[a - 1], "--ro-bind") && !strcmp(av[a + 1], JAIL_PROXY_SOCKET),
	    "the proxy socket is bound into the jail");
	a = argv_find(av, "--", 0);
	ok(a > 0 && !strcmp(av[a + 1], jc.init), "sbx-jail-init runs first");
	b = argv_find(av, "--", a + 1);
	ok(b > a && !strcmp(av[b + 1], "claude") && !strcmp(av[b + 2], "--x") && !av[b + 3],
	    "then COMMAND and its arguments, untouched");
	ok(argv_find(av, "--session", a) > 0 && argv_find(av, "--no-proxy", a) > 0,
	    "the session and NO_PROXY go to sbx-jail-init");
	a = argv_find(av, "--json-status-fd", 0);
	ok(a > 0 && !strcmp(av[a + 1], "3"), "bwrap reports its status on fd 3");
	jail_argv_free(av);
	jc.proxy_socket = NULL;
	jc.as_root = 0;
	av = jail_argv(&jc);
	ok(av && argv_find(av, "--socket", 0) < 0 && argv_find(av, "--cap-drop", 0) < 0,
	    "offline: no socket; not root: no --cap-drop");
	jail_argv_free(av);
	jail_plan_free(&plan);

	ok(jail_no_proxy(allowed, 3, np, sizeof(np)) == 0, "NO_PROXY builds");
	is_str(np, "localhost", "listed loopback hosts (with ports, IPv6 in brackets) go to the proxy");
	ok(jail_no_proxy(allowed, 1, np, sizeof(np)) == 0, "NO_PROXY builds");
	is_str(np, "localhost,127.0.0.1,::1", "unlisted loopback stays in the jail");
	ok(jail_no_proxy(allowed, 1, np, 8) < 0, "a NO_PROXY that does not fit is an error");

	mk("proj/.envrc-target", 0);
	{
		char l[PATH_MAX * 2];

		snprintf(l, sizeof(l), "%s/proj/.envrc", root);
		if (symlink(".envrc-target", l) == 0) {
			ok(jail_plan_build(&plan, &in, &err) < 0 && strstr(err.msg, "symlink"),
			    "a protected path that is a symlink is refused: %s", err.msg);
		}
	}
	{
		char cmdline[PATH_MAX * 2 + 16];

		snprintf(cmdline, sizeof(cmdline), "rm -rf '%s'", root);
		if (system(cmdline) != 0)
			return 1;
	}
	return tap_done();
}
