/*
 * cmd_doctor.c - `sbx doctor`: checks a folder's setup and explains each
 * problem with the command that fixes it. Exit 1 when a check fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "approver/cmd.h"
#include "common/protocol/users.h"
#include "approver/codex_trust.h"
#include "approver/setup.h"
#include "approver/init_gemini.h"
#include "approver/sign.h"
#include "common/base/json.h"
#include "common/trust/accept.h"
#include "common/trust/keys.h"
#include "policy/policy.h"

struct doc {
	int failed, warned;
	cJSON *checks;              /* --json: the reports, printed at the end */
};

__attribute__((format(printf, 3, 4)))
static void
report(struct doc *d, const char *level, const char *fmt, ...)
{
	va_list ap;

	if (!strcmp(level, "FAIL"))
		d->failed++;
	else if (!strcmp(level, "warn"))
		d->warned++;
	if (d->checks) {
		char msg[2048];
		cJSON *o = cJSON_CreateObject();

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		cJSON_AddStringToObject(o, "level", !strcmp(level, "FAIL") ? "fail" : level);
		cJSON_AddStringToObject(o, "message", msg);
		cJSON_AddItemToArray(d->checks, o);
		return;
	}
	printf("%-4s  ", level);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The command of a hook entry for MODE in a Claude settings file. */
static void
check_claude(struct doc *d, const char *folder, int wait)
{
	static const char *const files[] = { ".claude/settings.json",
		".claude/settings.local.json" };
	static const char *const events[] = { "PreToolUse", "PostToolUse", "SessionStart" };
	char path[PATH_MAX + 64], exe[PATH_MAX];
	const cJSON *g, *h;
	cJSON *root;
	size_t len;
	char *text;
	int i, k, fd, found[3] = { 0 }, missing = 0;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", folder, files[i]);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		text = fd_read_all(fd, 4 << 20, &len);
		close(fd);
		root = text ? cJSON_ParseWithLength(text, len) : NULL;
		free(text);
		if (!cJSON_IsObject(root)) {
			report(d, "FAIL", "%s is not valid JSON; Claude Code will ignore it. Fix it, "
			    "then run `sbx init --claude %s`", path, folder);
			cJSON_Delete(root);
			continue;
		}
		for (k = 0; k < 3; k++) {
			cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetObjectItemCaseSensitive(root, "hooks"), events[k])) {
				cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(g, "hooks")) {
					const char *c = json_str(h, "command");
					int64_t t = 60;

					if (!c || !strstr(c, "sbx-hook"))
						continue;
					found[k] = 1;
					if (hook_command_exe(c, exe, sizeof(exe)) < 0 ||
					    access(exe, X_OK) < 0) {
						missing++;
						report(d, "FAIL", "%s: %s hook runs %s, which is missing or "
						    "not executable (every call is blocked); reinstall sbx or "
						    "run `sbx init --claude %s`", files[i], events[k],
						    exe, folder);
					}
					if (k == 0) {
						json_int(h, "timeout", &t);
						if (t <= wait + 5)
							report(d, "FAIL", "%s: the PreToolUse timeout (%lld s) is "
							    "not longer than the hook's wait (%d s): a timed-out "
							    "hook lets the tool run. Set it above %d", files[i],
							    (long long)t, wait, wait + 5);
					}
				}
			}
		}
		cJSON_Delete(root);
	}
	if (!found[0])
		report(d, "FAIL", "no sbx PreToolUse hook is registered for Claude Code; run "
		    "`sbx init --claude %s`", folder);
	else if (!missing)
		report(d, "ok", "Claude Code hooks: PreToolUse%s%s", found[1] ? ", PostToolUse" : "",
		    found[2] ? ", SessionStart" : "");
	if (found[0] && (!found[1] || !found[2]))
		report(d, "warn", "PostToolUse or SessionStart is not registered; run "
		    "`sbx init --claude %s`", folder);
}

/* The sbx-hook executable named in a hook command line (the word that
 * holds "sbx-hook", quotes dropped). */
static int
hook_exe(const char *c, char *out, size_t outsz)
{
	const char *p = strstr(c, "sbx-hook"), *b, *e;

	if (!p)
		return -1;
	for (b = p; b > c && !strchr(" '\"", b[-1]); b--)
		;
	for (e = p; *e && !strchr(" '\";", *e); e++)
		;
	if ((size_t)(e - b) >= outsz)
		return -1;
	memcpy(out, b, e - b);
	out[e - b] = '\0';
	return 0;
}

/* Codex runs .codex/hooks.json only for a trusted project and a trusted,
 * unchanged hook; otherwise it skips the hook without a word. */
static void
check_codex(struct doc *d, const char *folder, int wait)
{
	char config[PATH_MAX], exe[PATH_MAX];
	struct codex_trust_state st;
	struct codex_hook h;
	struct sbx_err err = { "" };
	int r, bad = 0;

	if ((r = codex_hook_find(folder, NULL, &h, &err)) <= 0) {
		report(d, "FAIL", "Codex: %s; run `sbx init --codex %s`", r < 0 ? err.msg :
		    "no sbx-hook codex entry in .codex/hooks.json", folder);
		return;
	}
	if (hook_exe(h.command, exe, sizeof(exe)) < 0 || access(exe, X_OK) < 0) {
		report(d, "FAIL", "Codex: .codex/hooks.json runs %s, which is missing; run "
		    "`sbx init --codex %s`", exe, folder);
		bad = 1;
	}
	if (h.timeout <= wait + 5) {
		report(d, "FAIL", "Codex: the PreToolUse timeout (%ld s) is not longer than the "
		    "hook's wait (%d s); run `sbx init --codex %s`", h.timeout, wait, folder);
		bad = 1;
	}
	if (codex_config_path(config, sizeof(config), &err) < 0 ||
	    (r = codex_trust_read(config, folder, h.key, &st, &err)) < 0) {
		report(d, "FAIL", "Codex: %s", err.msg);
		return;
	}
	if (r == 0 || strcmp(st.trust_level, "trusted") != 0) {
		report(d, "FAIL", "Codex: %s does not trust this project (trust_level %s), so "
		    "Codex never runs its hooks; run `sbx init --codex %s`", config,
		    st.trust_level[0] ? st.trust_level : "unset", folder);
		bad = 1;
	}
	if (st.hook_disabled || strcmp(st.trusted_hash, h.hash) != 0) {
		report(d, "FAIL", "Codex: %s %s sbx's hook (%s), so Codex skips it silently; "
		    "run `sbx init --codex %s`", config, st.hook_disabled ? "disables" :
		    st.trusted_hash[0] ? "trusts another version of" : "does not trust", h.key,
		    folder);
		bad = 1;
	}
	if (!bad)
		report(d, "ok", "Codex: .codex/hooks.json runs sbx-hook codex (timeout %ld s); "
		    "%s trusts the project and the hook (%.19s...)", h.timeout, config, h.hash);
	if (!st.mcp_command[0])
		report(d, "note", "Codex: no [mcp_servers.sbx] in %s (optional: `sbx init "
		    "--codex` prints the lines)", config);
	else if (!strstr(st.mcp_command, "sbx-mcp") || access(st.mcp_command, X_OK) < 0)
		report(d, "warn", "Codex: [mcp_servers.sbx] runs %s, which is not an executable "
		    "sbx-mcp; fix its command in %s", st.mcp_command, config);
	else
		report(d, "ok", "Codex: [mcp_servers.sbx] runs %s", st.mcp_command);
}

/* Gemini CLI runs .gemini/settings.json hooks only in a trusted folder;
 * its hook timeout is in milliseconds (default 60000). */
static void
check_gemini(struct doc *d, const char *folder, int wait)
{
	char path[PATH_MAX + 32], exe[PATH_MAX], trust[PATH_MAX];
	const cJSON *g, *h;
	struct sbx_err err = { "" };
	cJSON *root = NULL;
	const char *c = NULL;
	int64_t t = 60000;
	size_t len;
	char *text;
	int fd, r;

	snprintf(path, sizeof(path), "%s/.gemini/settings.json", folder);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		text = fd_read_all(fd, 4 << 20, &len);
		root = text ? cJSON_ParseWithLength(text, len) : NULL;
		free(text);
		close(fd);
	}
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    root, "hooks"), "BeforeTool"))
		cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(g, "hooks"))
			if (!c && json_str(h, "command") && strstr(json_str(h, "command"), "sbx-hook") &&
			    strstr(json_str(h, "command"), " gemini")) {
				c = json_str(h, "command");
				json_int(h, "timeout", &t);
			}
	if (!c) {
		report(d, "FAIL", "Gemini CLI: no sbx-hook gemini BeforeTool hook in %s; run "
		    "`sbx init --gemini %s`", path, folder);
	} else if (hook_exe(c, exe, sizeof(exe)) < 0 || access(exe, X_OK) < 0) {
		report(d, "FAIL", "Gemini CLI: the hook runs %s, which is missing; run `sbx init "
		    "--gemini %s`", c, folder);
	} else if (t <= (int64_t)(wait + 5) * 1000) {
		report(d, "FAIL", "Gemini CLI: the BeforeTool timeout (%lld ms) is not longer than "
		    "the hook's wait (%d s); run `sbx init --gemini %s`", (long long)t, wait, folder);
	} else if (gemini_trust_path(trust, sizeof(trust), &err) < 0 ||
	    (r = gemini_folder_trusted(trust, folder, &err)) < 0) {
		report(d, "FAIL", "Gemini CLI: %s", err.msg);
	} else if (!r) {
		report(d, "FAIL", "Gemini CLI: %s does not trust this folder, so Gemini does not run "
		    "its hooks; run `sbx init --gemini %s`", trust, folder);
	} else {
		report(d, "ok", "Gemini CLI: .gemini/settings.json runs sbx-hook gemini (timeout %lld "
		    "ms); %s trusts the folder", (long long)t, trust);
	}
	cJSON_Delete(root);
}

/* --json: {"folder", "ok", "problems", "warnings", "checks": [{level,
 * message}]}; the exit status is the same as without. */
static int
doctor_json(struct doc *d, const char *folder)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	if (folder)
		cJSON_AddStringToObject(o, "folder", folder);
	else
		cJSON_AddNullToObject(o, "folder");
	cJSON_AddBoolToObject(o, "ok", d->failed == 0);
	cJSON_AddNumberToObject(o, "problems", d->failed);
	cJSON_AddNumberToObject(o, "warnings", d->warned);
	cJSON_AddItemToObject(o, "checks", d->checks);
	d->checks = NULL;
	text = json_pretty(o);
	cJSON_Delete(o);
	if (!text) {
		fprintf(stderr, "sbx: out of memory\n");
		return 1;
	}
	fputs(text, stdout);
	if (text[0] && text[strlen(text) - 1] != '\n')
		putchar('\n');
	free(text);
	return d->failed ? 1 : 0;
}

static void
check_daemon(struct doc *d, const char *folder)
{
	struct sbx_err err;
	long holder = -1, stopped = 0;
	char why[200] = "";
	int sbfd;

	if ((sbfd = sandbox_open(folder, &err)) >= 0) {
		holder = sbxd_holder(sbfd);
		if (holder == 0)
			stopped = sbxd_stopped(sbfd, why, sizeof(why));
		close(sbfd);
	}
	if (holder == 0 && stopped > 0)
		report(d, "FAIL", "sbxd (pid %ld) stopped serving this folder: %s. Restore it "
		    "(or re-run `sbx init`), then restart sbxd: `sbxd %s` (or `sbxd --all`)",
		    stopped, why, folder);
	else if (holder == 0)
		report(d, "FAIL", "sbxd is not running for this folder: escalated calls wait "
		    "and expire. Start it: `sbxd %s` (or `sbxd --all`)", folder);
	else if (holder < 0)
		report(d, "FAIL", "cannot tell whether sbxd serves this folder (%s/.sandbox/"
		    "sbxd.lock unreadable)", folder);
	else
		report(d, "ok", "sbxd is running for this folder (pid %ld)", holder);
}

/* Runs argv with no input or output; its exit status, or -1. */
static int
run_quiet(char *const argv[])
{
	int status, fd;
	pid_t pid = fork();

	if (pid == 0) {
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* What `sbx jail` needs: the same checks it makes before it starts. */
static void
check_jail(struct doc *d, const char *folder)
{
	const char *path = getenv("PATH"), *problem;
	char bwrap[PATH_MAX + 32] = "", exe[PATH_MAX], dir[PATH_MAX + 32], *slash;
	const char *p, *e;
	ssize_t n;

	for (p = path ? path : "/usr/bin:/bin"; *p && !*bwrap; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		if (e > p && snprintf(dir, sizeof(dir), "%.*s/bwrap", (int)(e - p), p) <
		    (int)sizeof(dir) && access(dir, X_OK) == 0)
			snprintf(bwrap, sizeof(bwrap), "%s", dir);
	}
	if (!*bwrap) {
		report(d, "warn", "bubblewrap is not installed, so `sbx jail` cannot run: "
		    "`sudo apt-get install bubblewrap`");
		return;
	}
	if ((problem = jail_userns_problem())) {
		report(d, "warn", "sbx jail: %s", problem);
	} else {
		char *const argv[] = { bwrap, "--ro-bind", "/", "/", "--unshare-all",
			"--die-with-parent", "--", "/bin/true", NULL };

		if (run_quiet(argv) == 0)
			report(d, "ok", "bubblewrap (%s) can build a jail here", bwrap);
		else
			report(d, "warn", "bubblewrap (%s) cannot build a jail here; see why with "
			    "`%s --ro-bind / / --unshare-all -- /bin/true`", bwrap, bwrap);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')))
			*slash = '\0';
		snprintf(dir, sizeof(dir), "%s/sbx-jail-init", exe);
		if (access(dir, X_OK) < 0)
			report(d, "warn", "%s is missing, so `sbx jail` cannot run: install sbx "
			    "again (`make install`)", dir);
		snprintf(dir, sizeof(dir), "%s/sbx-proxy", exe);
		if (access(dir, X_OK) < 0)
			report(d, "warn", "%s is missing: `sbx jail` runs only with --offline "
			    "(no network); install sbx again (`make install`)", dir);
	}
	if (!jail_sbxd_serving(folder))
		report(d, "warn", "sbx jail refuses to start while sbxd does not serve %s", folder);
	if (geteuid() == 0 && access("/sys/fs/cgroup/pids/cgroup.procs", W_OK) < 0 &&
	    access("/sys/fs/cgroup/cgroup.procs", W_OK) < 0 &&
	    access("/sys/fs/cgroup/unified/cgroup.procs", W_OK) < 0)
		report(d, "warn", "no writable pids cgroup: as root, limits.exec_max_processes "
		    "is not enforced for approved commands (RLIMIT_NPROC does not apply to root)");
}

/*
 * A folder handed over to sbxd's own user (deployment 3): 1 and *su when
 * .sandbox/ is exactly as sbx handover left it (reported ok), -1 when it
 * has a users file that is bad or does not match (reported), 0 when it
 * has none (a folder of one user).
 */
static int
handed_over(const char *path, struct doc *d,
    struct sandbox_users *su)
{
	struct sbx_err err = { "" };
	struct stat st;
	int fd, r;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return 0;
	r = sandbox_users_read(fd, su, &err);
	if (r == 1 && (fstat(fd, &st) < 0 || st.st_uid != su->daemon ||
	    st.st_gid != su->group || (st.st_mode & 027))) {
		err_set(&err, "%s is not as `sbx handover` left it (owner uid %lu, group %lu, "
		    "mode 0750)", path, (unsigned long)su->daemon, (unsigned long)su->group);
		r = -1;
	}
	close(fd);
	if (r < 0)
		report(d, "FAIL", "%s; run `sbx handover` again (as root)", err.msg);
	else if (r == 1)
		report(d, "ok", "%s is handed over to sbxd's user uid %lu; the agent's user uid %lu "
		    "(group %lu) may drop requests and read results (deployment 3)", path,
		    (unsigned long)su->daemon, (unsigned long)su->agent, (unsigned long)su->group);
	return r;
}

int
cmd_doctor(struct sbx_ctx *c, int argc, char **argv)
{
	struct sandbox_users su = { 0 };
	int handed;
	char folder[PATH_MAX], path[PATH_MAX + 64];
	struct policy_error perr;
	struct approver_key key;
	struct trusted_key tk;
	struct sbx_err err;
	struct doc d = { 0 };
	struct policy *p;
	struct stat st;
	int wait = 300, codex, gemini;
	long v;

	int ch, json;

	if ((ch = sub_opts_json(c, argc, argv, "usage: sbx [-C DIR] doctor [--json]\n",
	    &json)) >= 0)
		return ch;
	if (json)
		d.checks = cJSON_CreateArray();
	if (optind < argc)
		return sub_usage("usage: sbx [-C DIR] doctor [--json]\n", 0);
	if (ctx_folder(c, folder, sizeof(folder)) < 0) {
		if (d.checks) {
			report(&d, "FAIL", "no .sandbox/ here; run `sbx init DIR`");
			return doctor_json(&d, NULL);
		}
		printf("FAIL  no .sandbox/ here; run `sbx init DIR`\n");
		return 1;
	}
	if (!d.checks)
		printf("sbx doctor: %s\n", folder);
	snprintf(path, sizeof(path), "%s/.sandbox", folder);
	/* Deployment 3 (sbx handover): the agent's group may enter. */
	handed = handed_over(path, &d, &su);
	if (!handed && lstat(path, &st) == 0 && (st.st_mode & 077))
		report(&d, "FAIL", "%s is accessible by others; run `chmod 700 %s`", path, path);
	else if (!handed)
		report(&d, "ok", "%s is private (0700)", path);
	if (!(p = policy_load_accepted(folder, c->config, perr.msg, sizeof(perr.msg)))) {
		report(&d, "FAIL", "policy: %s; every call is denied until then", perr.msg);
	} else {
		wait = policy_limits(p)->hook_wait_seconds;
		report(&d, "ok", "policy.json is valid and accepted (hook waits up to %d s)", wait);
		policy_free(p);
	}
	if (handed == 1 && geteuid() == su.agent) {
		report(&d, "ok", "approvals are sbxd's user's (uid %lu): its sbxd trusts the "
		    "approver keys in its own config dir, not yours", (unsigned long)su.daemon);
	} else if (approver_key_load(c->config, &key, &err) < 0) {
		report(&d, "FAIL", "%s", err.msg);
	} else {
		int r = trusted_key_find(c->config, key.key_id, &tk, &err);

		if (r == 1)
			report(&d, "ok", "approver key \"%s\" (%s), mode 0600, trusted by sbxd",
			    key.name, key.key_id);
		else
			report(&d, "FAIL", "your approver key %s is not in %s/approvers/: sbxd will "
			    "reject your decisions. Run `sbx init %s` again", key.key_id, c->config,
			    folder);
		approver_key_wipe(&key);
	}
	if (stat(c->config, &st) == 0 && (st.st_mode & 077))
		report(&d, "warn", "%s is readable by others; run `chmod 700 %s`", c->config,
		    c->config);
	/* A Codex-only (or Gemini-only) folder is not "no hook registered". */
	snprintf(path, sizeof(path), "%s/.codex/hooks.json", folder);
	codex = access(path, F_OK) == 0;
	snprintf(path, sizeof(path), "%s/.gemini/settings.json", folder);
	gemini = access(path, F_OK) == 0;
	snprintf(path, sizeof(path), "%s/.claude", folder);
	if ((!codex && !gemini) || access(path, F_OK) == 0)
		check_claude(&d, folder, wait);
	if (codex)
		check_codex(&d, folder, wait);
	if (gemini)
		check_gemini(&d, folder, wait);
	check_daemon(&d, folder);
	v = file_long("/proc/sys/fs/inotify/max_user_watches");
	if (v >= 0 && v < 1024)
		report(&d, "warn", "fs.inotify.max_user_watches is %ld; raise it: `sysctl "
		    "fs.inotify.max_user_watches=65536`", v);
	else
		report(&d, "ok", "inotify limits (max_user_watches %ld, max_user_instances %ld)",
		    v, file_long("/proc/sys/fs/inotify/max_user_instances"));
	check_jail(&d, folder);
	if (d.checks)
		return doctor_json(&d, folder);
	printf("%d problem(s), %d warning(s)\n", d.failed, d.warned);
	return d.failed ? 1 : 0;
}
