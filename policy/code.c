/*
 * code.c - programs that run code: shells (sh -c STRING), interpreters
 * (python -c, node -e), build and test tools, and command-line clients of
 * remote systems.
 *
 * Rules:
 * - A shell string is parsed and judged like the line itself.
 * - Inline code of other languages, and text piped into a shell or an
 *   interpreter, cannot be read: escalate (code from the network when the
 *   pipe starts at a network client).
 * - Build and test tools run project code: allowed inside the project only.
 */
#include "policy/analyse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Parses shell options; returns the index of the first operand. A
 * shell's own grammar: "-" ends them too, +O/+o take a value, and the
 * first operand (the script) ends them.
 */
static int
shell_opts(const struct cmdv *v, int *has_c)
{
	struct an_walk it;
	int k;
	const char *s;

	*has_c = 0;
	an_walk_init(&it, 1, NULL, AN_W_NONE);
	for (;;) {
		if (it.k < v->n && an_lit(&v->w[it.k]) && v->w[it.k].s[0] == '+' &&
		    (v->w[it.k].s[1] == 'O' || v->w[it.k].s[1] == 'o') &&
		    v->w[it.k].s[2] == '\0') {
			it.k += 2;
			continue;
		}
		if ((k = an_walk_prefix(v, &it, 1)) < 0)
			return it.k;
		s = v->w[k].s;
		if (s[1] == '\0')
			return it.k;    /* "-" */
		if (s[1] == '-') {
			if (strcmp(s, "--rcfile") == 0 || strcmp(s, "--init-file") == 0)
				it.k++;
			continue;
		}
		if (strchr(s + 1, 'c') != NULL)
			*has_c = 1;
		if ((strchr(s + 1, 'o') != NULL || strchr(s + 1, 'O') != NULL) &&
		    it.k < v->n)
			it.k++;
	}
}

/* Feeds a here-document or here-string of this command to fn. */
static const struct sh_redir *
stdin_script(const struct cmdv *v)
{
	int k;

	for (k = v->c->nredir - 1; k >= 0; k--) {
		const struct sh_redir *r = &v->c->redir[k];

		if ((r->op == SH_R_HEREDOC || r->op == SH_R_HERESTR ||
		    r->op == SH_R_IN) && (r->fd == -1 || r->fd == 0))
			return r;
	}
	return NULL;
}

/* Code given as text on stdin (from: "a here-string"): a shell's is
 * analysed, another interpreter's is not. */
static void
stdin_code(struct ev *ev, const struct cmdv *v, const char *kind, const char *text,
    size_t len, const char *from)
{
	if (strcmp(kind, "shell") == 0 && text != NULL)
		an_eval_string(ev, text, len, v->w[0].s, 0);
	else
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: inline code",
		    "%s runs code from %s; the code is not analysed", v->w[0].s, from);
}

static void
piped_code(struct ev *ev, struct cmdv *v, const char *kind)
{
	const struct sh_redir *r = stdin_script(v);

	if (r != NULL && r->op == SH_R_HERESTR) {
		if (!an_lit(&r->target)) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: here-string",
			    "a here-string fed to %s is only known at run time",
			    v->w[0].s);
			return;
		}
		stdin_code(ev, v, kind, r->target.s, r->target.len, "a here-string");
		return;
	}
	if (r != NULL && r->op == SH_R_HEREDOC) {
		stdin_code(ev, v, kind, r->body, r->body_len, "a here-document");
		return;
	}
	if (r != NULL && r->op == SH_R_IN) {
		an_run_file(ev, &r->target, v->w[0].s);
		return;
	}
	ev_factor(ev, F_UNKNOWN | F_CODE);
	if (v->c->pipe_in) {
		if (ev->net_pipeline == v->c->pipeline && ev->parse_id == v->pid &&
		    v->c->pipeline >= 0)
			ev_factor(ev, F_NETCODE);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: pipe to shell",
		    "text piped into %s runs as code that cannot be analysed",
		    v->w[0].s);
		return;
	}
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: interactive",
	    "%s without a script reads commands from its input (and input sent "
	    "to a running program, Codex's write_stdin, never passes sbx)", v->w[0].s);
}

void
an_cls_shell(struct ev *ev, struct cmdv *v)
{
	int has_c, k;
	struct sh_word *s;

	k = shell_opts(v, &has_c);
	if (has_c) {
		if (k >= v->n) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: -c",
			    "%s -c without a command string", v->w[0].s);
			return;
		}
		s = &v->w[k];
		if (!an_lit(s)) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: -c",
			    "%s -c runs a string that is only known at run time",
			    v->w[0].s);
			return;
		}
		/* xargs sh -c 'cat "$0"' after a stage that names secrets:
		 * the names become $0, $1 ... of the code */
		if (v->extra == 1) {
			ev_factor(ev, F_SECRET);
			ev_note(ev, POLICY_ESCALATE, "read", "filesystem.denyRead",
			    "%s -c gets names from its input as $0, $1 ..., and "
			    "an earlier stage of the pipe names secrets", v->w[0].s);
			return;
		}
		/* sh -c 'cat "$1"' _ ~/.ssh/id_rsa: the words after the string
		 * are $0, $1 ... of the code: read as the code may read them */
		{
			int j;

			for (j = k + 1; j < v->n; j++)
				an_op_read(ev, v, &v->w[j], 0);
		}
		an_eval_string(ev, s->s, s->len, v->w[0].s, 0);
		return;
	}
	if (k < v->n) {
		an_run_file(ev, &v->w[k], v->w[0].s);
		return;
	}
	if (v->extra) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: xargs",
		    "%s runs scripts named only at run time", v->w[0].s);
		return;
	}
	piped_code(ev, v, "shell");
}

/*
 * python -m MODULE: the test and compile modules run project code. Their
 * arguments are files they read and may print (python3 -m py_compile
 * .env shows the secret line in its SyntaxError, mypy --pretty too):
 * each operand, and the value of --opt=VALUE, is read as a file.
 */
static void
python_module(struct ev *ev, struct cmdv *v, int from, const struct sh_word *w,
    const char *name)
{
	static const char *const known[] = {
		"pytest", "unittest", "mypy", "py_compile", "compileall", NULL,
	};
	const char *const *m;
	const char *eq;
	struct sh_word t;
	int j;

	ev_factor(ev, F_CODE);
	for (m = known; w != NULL && an_lit(w) && *m != NULL; m++)
		if (strcmp(w->s, *m) == 0 && an_cwd_in_project(ev)) {
			for (j = from; j < v->n; j++) {
				t = v->w[j];
				if (an_lit(&t) && t.s[0] == '-') {
					if ((eq = strchr(t.s, '=')) == NULL)
						continue;
					t.s = (char *)eq + 1;
					t.len = strlen(t.s);
				}
				an_op_read(ev, v, &t, j);
			}
			return;
		}
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: python -m",
	    "%s -m runs a module the policy does not know", name);
}

/*
 * python's options, read with its table (opts.c): -c CODE and -m MODULE
 * end them, -W and -X take a value (-Wignore is no inline code), the
 * first operand is the script ("-": stdin). An option only known at run
 * time may be -c: it is read as a script, which escalates.
 */
static void
python_interp(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	struct an_walk it;
	struct an_opt o;
	int r;

	an_walk_init(&it, 1, pr->optarg, AN_W_NONE);
	an_walk_table(&it, an_optset(pr->opts), NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0) {
		if (r == 1 && !an_lit(&v->w[o.k])) {
			/* -$X: may be -c CODE */
			an_run_file(ev, &v->w[o.k], pr->name);
			return;
		}
		if (r == 1 && o.d == NULL)
			continue;       /* a flag: -u, -B, -I, -OO */
		if (r == 1 && o.d != NULL && o.d->tag == PY_CODE) {
			ev_factor(ev, F_CODE | F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: inline code",
			    "%s %s runs inline code, which is not analysed",
			    pr->name, o.name);
			return;
		}
		if (r == 1 && o.d != NULL && o.d->tag == PY_MODULE) {
			python_module(ev, v, o.val == &v->w[o.k + 1] ?
			    o.k + 2 : o.k + 1, o.val, pr->name);
			return;
		}
		if (r == 1 && o.d != NULL)
			continue;       /* -W ignore, -X dev */
		if (an_lit(&v->w[o.k]) && strcmp(v->w[o.k].s, "-") == 0)
			break;
		an_run_file(ev, &v->w[o.k], pr->name);
		return;
	}
	piped_code(ev, v, "interpreter");
}

void
an_cls_interp(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int k;
	const char *s, *name = pr->name;

	if (pr->opts == OPTS_PYTHON && !(v->n == 2 && an_lit(&v->w[1]) &&
	    (strcmp(v->w[1].s, "--version") == 0 || strcmp(v->w[1].s,
	    "-V") == 0 || strcmp(v->w[1].s, "--help") == 0 ||
	    strcmp(v->w[1].s, "-h") == 0))) {
		python_interp(ev, v, pr);
		return;
	}
	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!an_lit(&v->w[k]))
			break;
		/* -v is node's --version, but python's and perl's verbose */
		if (strcmp(s, "--version") == 0 || strcmp(s, "-V") == 0 ||
		    strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0 ||
		    (strcmp(s, "-v") == 0 && strncmp(name, "node", 4) == 0)) {
			if (v->n == 2)
				return;
			continue;
		}
		if (s[0] != '-')
			break;
		/* inline code: -c, -e, -E, -p, -r, -B (php) alone or in a
		 * cluster (python -Bc, ruby -ne, perl -pie, node -pe) */
		if ((s[1] != '-' && strpbrk(s + 1, "ceEprRB") != NULL) ||
		    strncmp(s, "--eval", 6) == 0 || strncmp(s, "--print", 7) == 0 ||
		    strncmp(s, "--command", 9) == 0 ||
		    strncmp(s, "--require", 9) == 0 || strcmp(s, "--import") == 0) {
			ev_factor(ev, F_CODE | F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: inline code",
			    "%s %s runs inline code, which is not analysed", name, s);
			return;
		}
		if (strcmp(s, "-m") == 0) {
			if (k + 1 < v->n && an_lit(&v->w[k + 1]) &&
			    (strcmp(v->w[k + 1].s, "pytest") == 0 ||
			    strcmp(v->w[k + 1].s, "unittest") == 0 ||
			    strcmp(v->w[k + 1].s, "mypy") == 0 ||
			    strcmp(v->w[k + 1].s, "py_compile") == 0 ||
			    strcmp(v->w[k + 1].s, "compileall") == 0) &&
			    an_cwd_in_project(ev)) {
				ev_factor(ev, F_CODE);
				return;
			}
			ev_factor(ev, F_CODE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: python -m",
			    "%s -m runs a module the policy does not know", name);
			return;
		}
		if (strcmp(s, "-") == 0)
			break;
		/* other flags (-u, -B, -O, -W x ...) */
		if (strcmp(s, "-W") == 0 || strcmp(s, "-X") == 0 ||
		    strcmp(s, "-r") == 0 || strcmp(s, "--require") == 0 ||
		    strcmp(s, "-I") == 0)
			k++;
	}
	if (k < v->n && !(an_lit(&v->w[k]) && strcmp(v->w[k].s, "-") == 0)) {
		an_run_file(ev, &v->w[k], name);
		return;
	}
	piped_code(ev, v, "interpreter");
}

/*
 * cmake -E TOOL runs a command (env, time, chdir) or changes files
 * (rm, copy, rename, create_symlink, tar) the policy does not follow;
 * cmake -P runs a script file. Returns 1 when it decided.
 */
static int
cmake_tool(struct ev *ev, struct cmdv *v)
{
	static const char *const safe[] = {
		"echo", "echo_append", "capabilities", "compare_files", "md5sum",
		"sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
		"cat", "environment", "true", "false", "sleep", NULL,
	};
	const char *const *q;
	int k, j;

	for (k = 1; k < v->n; k++) {
		if (!an_lit(&v->w[k]))
			continue;
		if (strcmp(v->w[k].s, "-P") == 0 && k + 1 < v->n) {
			an_run_file(ev, &v->w[k + 1], "cmake -P");
			return 1;
		}
		if (strcmp(v->w[k].s, "-E") != 0)
			continue;
		if (k + 1 >= v->n || !an_lit(&v->w[k + 1]))
			break;
		for (q = safe; *q != NULL; q++)
			if (strcmp(v->w[k + 1].s, *q) == 0) {
				for (j = k + 2; j < v->n; j++)
					if (strcmp(*q, "cat") == 0 || strstr(*q, "sum") ||
					    strcmp(*q, "compare_files") == 0)
						an_op_read(ev, v, &v->w[j], 0);
				return 1;
			}
		break;
	}
	if (k >= v->n)
		return 0;
	ev_factor(ev, F_CODE);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
	    "cmake -E %s runs a command or changes files the policy does not "
	    "follow", k + 1 < v->n ? v->w[k + 1].s : "");
	return 1;
}

/* subcommands (and their aliases) that install, publish, link or
 * reach the network, for yarn, pnpm, bun, cargo and go; npm has an
 * allow list instead (npm_local) */
static const char *const net_sub[] = {
	"install", "i", "ci", "add", "publish", "update", "upgrade", "up",
	"remove", "rm", "uninstall", "un", "link", "login", "logout",
	"dlx", "exec", "x", "get", "fetch", "owner", "yank",
	"audit", "outdated", "search", "view", "info", "pack", "unpublish",
	"deprecate", "dist-tag", "create", "init", "mod", "global",
	"it", "install-test", "install-ci-test", "cit", "clean-install",
	"ic", "innit", "ln", "unlink", "adduser", "add-user", "ping",
	"cache", "show", "dedupe", "ddp", "diff", "explore", "edit",
	"config", "c", "set", "doctor", "whoami", "token", "team",
	"access", "org", "hook", "star", "unstar", "stars", "profile",
	"repo", "home", "docs", "bugs", "import", "npm", "plugin",
	"self-update", "setup", "env", "server", "store", "deploy",
	"patch", "patch-commit", "approve-builds", "licenses",
	"vendor", "generate-lockfile", "upgrade-interactive", "tag",
	"policies", "workspaces", "workspace", "runtime", "pm", "bunx",
	"isntall", "isnt", "isnta", "isntal", "in", "ins", "inst", "insta",
	"instal", "udpate", "sit", "add-user", "pkg", "sbom", NULL,
};
/* npm subcommands that stay on this machine and run project code */
static const char *const npm_local[] = {
	"test", "t", "tst", "start", "stop", "restart", "run",
	"run-script", "rum", "urn", "ls", "list", "la", "ll", "help",
	"bin", "prefix", "root", "why", "explain", "query", "version",
	"prune", "fund", "completion", "help-search", NULL,
};

/* Package managers and build tools that install, publish or reach the
 * network: 1 when escalated. */
static int
build_network(struct ev *ev, struct cmdv *v, const char *name,
    const char *sub)
{
	const char *const *n;
	int k;

	if (sub != NULL && strcmp(name, "npm") == 0) {
		for (n = npm_local; *n != NULL; n++)
			if (strcmp(sub, *n) == 0)
				break;
		if (*n == NULL) {
			ev_factor(ev, F_NETWORK | F_CODE);
			ev_note(ev, POLICY_ESCALATE, "network",
			    "builtin: package manager", "npm %s is not a command known "
			    "to stay local (npm's aliases install, publish, link or "
			    "reach the network)", sub);
			return 1;
		}
	}
	if (sub != NULL && strcmp(name, "go") == 0 && (strcmp(sub, "run") == 0 ||
	    strcmp(sub, "tool") == 0)) {
		for (k = 1; k < v->n; k++)
			if (!an_lit(&v->w[k]) || (strchr(v->w[k].s, '@') != NULL &&
			    v->w[k].s[0] != '-')) {
				ev_factor(ev, F_NETWORK | F_CODE);
				ev_note(ev, POLICY_ESCALATE, "network",
				    "builtin: package manager", "go %s %s downloads and "
				    "runs a module", sub, v->w[k].s);
				return 1;
			}
	}
	if (strcmp(name, "mvn") == 0 || strcmp(name, "gradle") == 0) {
		for (k = 1; k < v->n; k++) {
			const char *g = v->w[k].s;

			if (an_lit(&v->w[k]) && g[0] != '-' &&
			    (strcmp(g, "deploy") == 0 || strncmp(g, "release:", 8) == 0 ||
			    strncmp(g, "deploy:", 7) == 0 || strcmp(g, "site-deploy") == 0 ||
			    strncmp(g, "publish", 7) == 0 || strstr(g, ":publish") != NULL ||
			    strstr(g, "Publish") != NULL || strncmp(g, "upload", 6) == 0 ||
			    strstr(g, ":upload") != NULL || strcmp(g, "jib") == 0 ||
			    strncmp(g, "wagon:", 6) == 0 || strncmp(g, "scm:", 4) == 0)) {
				ev_factor(ev, F_NETWORK);
				ev_note(ev, POLICY_ESCALATE, "network",
				    "builtin: package manager", "%s %s publishes to a "
				    "remote repository", name, g);
				return 1;
			}
		}
	}
	if (strcmp(name, "cmake") == 0 && cmake_tool(ev, v))
		return 1;
	if (sub != NULL && (strcmp(name, "npm") == 0 || strcmp(name, "yarn") == 0 ||
	    strcmp(name, "pnpm") == 0 || strcmp(name, "bun") == 0 ||
	    strcmp(name, "cargo") == 0 || strcmp(name, "go") == 0)) {
		for (n = net_sub; *n != NULL; n++)
			if (strcmp(sub, *n) == 0) {
				ev_factor(ev, F_NETWORK | F_CODE);
				ev_note(ev, POLICY_ESCALATE, "network",
				    "builtin: package manager", "%s %s fetches or "
				    "publishes packages over the network", name, sub);
				return 1;
			}
	}
	if (strcmp(name, "yarn") == 0 && sub == NULL) {
		ev_factor(ev, F_NETWORK);
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: package manager",
		    "yarn with no command installs packages");
		return 1;
	}
	return 0;
}

/*
 * Compilers: @FILE reads options (-fplugin=...) from a file: 1 when
 * escalated. (-o and the options that run code are in the option sets
 * of opts.c, OPTS_CC and OPTS_RUSTC, in every form: -oFILE, -o FILE.
 * @FILE is no option the table walk reads: a word of its own that any
 * operand could be, so it stays here.)
 */
static int
build_compiler(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int k;

	if (pr->opts != OPTS_CC)
		return 0;
	for (k = 1; k < v->n; k++)
		if (v->w[k].s[0] == '@') {
			ev_factor(ev, F_CODE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
			    "%s %s reads options from a file, which may load code",
			    pr->name, v->w[k].s);
			return 1;
		}
	return 0;
}

/*
 * The options of build tools that name where they work or what they
 * read (make -C, cargo --manifest-path, npm --prefix, pytest
 * --rootdir ...), shared by every build tool and read by the table walk
 * in every form: -C DIR, -CDIR, -sC DIR, --directory=DIR, --dir DIR.
 */
enum { BUILD_DIR = 1 };
static const struct optdef o_build_dirs[] = {
	{ NULL, "--config", OK_VAL, BUILD_DIR },
	{ NULL, "--cwd", OK_VAL, BUILD_DIR },
	{ NULL, "--dir", OK_VAL, BUILD_DIR },
	{ NULL, "--directory", OK_VAL, BUILD_DIR },
	{ NULL, "--manifest-path", OK_VAL, BUILD_DIR },
	{ NULL, "--prefix", OK_VAL, BUILD_DIR },
	{ NULL, "--project", OK_VAL, BUILD_DIR },
	{ NULL, "--rootdir", OK_VAL, BUILD_DIR },
	{ NULL, "-C", OK_VAL, BUILD_DIR },
	{ NULL, "-c", OK_VAL, BUILD_DIR },
	{ NULL, NULL, OK_VAL, 0 },
};
static const struct optset build_dir_opts = { 1, 0, o_build_dirs };

/* A path a build tool works on must be in the project. */
static void
build_path(struct ev *ev, const char *name, const struct sh_word *val,
    const char *shown)
{
	char path[SBX_PATH_MAX], res[SBX_PATH_MAX];

	if ((val->flags & SH_W_GLOB) && !(val->flags & (SH_W_VAR |
	    SH_W_SUBST | SH_W_BRACE))) {
		/* a glob such as src/STAR.c: its directory */
		size_t gl = strcspn(val->s, "*?[");

		while (gl > 0 && val->s[gl - 1] != '/')
			gl--;
		snprintf(path, sizeof(path), "%.*s", (int)gl, val->s);
		if (gl == 0)
			snprintf(path, sizeof(path), ".");
	} else if (an_word_path(ev, val, path, sizeof(path)) != 1) {
		path[0] = '\0';
	}
	if (path[0] == '\0' || path_resolve_c(ev->pc, ev->cwd, ev->call->home,
	    path, res, sizeof(res)) < 0 || ev->p->folder == NULL ||
	    !path_within(res, ev->p->folder))
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: build outside",
		    "%s works on %s, outside the project", name, shown);
}

/* Where the tool works or what it runs: a directory option, or an
 * operand naming a path (pytest /tmp/t.py, go test ../other/...). */
static void
build_dirs(struct ev *ev, struct cmdv *v, const char *name)
{
	struct an_walk it;
	struct an_opt o;
	const struct sh_word *w;
	const char *s;
	int r;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	an_walk_table(&it, &build_dir_opts, NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0) {
		w = &v->w[o.k];
		s = w->s;
		if (r == 1 && o.d != NULL) {
			if (o.val != NULL)
				build_path(ev, name, o.val, o.val->s);
			continue;
		}
		if (r == 1) {
			/* --manifest-path=/x/Cargo.toml: any long option of
			 * any build tool that names a path */
			if (an_lit(w) && s[1] == '-' && o.val != NULL &&
			    strchr(o.val->s, '/') != NULL)
				build_path(ev, name, o.val, s);
			continue;
		}
		if (an_lit(w) && strncmp(s, "--", 2) == 0 &&
		    strchr(s, '=') != NULL) {
			/* after "--" too: the tool may pass it on as an
			 * option (npm test -- --dir=/x) */
			struct sh_word t = *w;

			t.s = strchr(s, '=') + 1;
			t.len = strlen(t.s);
			if (strchr(t.s, '/') != NULL)
				build_path(ev, name, &t, s);
			continue;
		}
		if (strchr(s, '/') != NULL || strncmp(s, "..", 2) == 0 ||
		    s[0] == '~')
			build_path(ev, name, w, s);
	}
}

void
an_cls_build(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const char *name = pr->name, *sub = NULL;
	int k;

	for (k = 1; k < v->n; k++) {
		if (!an_lit(&v->w[k]))
			break;
		if (v->w[k].s[0] != '-') {
			sub = v->w[k].s;
			break;
		}
		if (strcmp(v->w[k].s, "--version") == 0 ||
		    strcmp(v->w[k].s, "-v") == 0 || strcmp(v->w[k].s, "--help") == 0)
			if (v->n == 2)
				return;
	}
	if (build_network(ev, v, name, sub) ||
	    build_compiler(ev, v, pr))
		return;
	ev_factor(ev, F_CODE);
	if (!an_cwd_in_project(ev)) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: build outside",
		    "%s runs build or test code outside the project", name);
		return;
	}
	build_dirs(ev, v, name);
}

void
an_cls_cli(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const char *name = pr->name;
	int k;

	for (k = 1; k < v->n; k++)
		if (an_lit(&v->w[k]) && (strcmp(v->w[k].s, "--help") == 0 ||
		    (strcmp(v->w[k].s, "help") == 0 && k == 1) ||
		    (strcmp(v->w[k].s, "--version") == 0 && v->n == 2) ||
		    (strcmp(v->w[k].s, "version") == 0 && v->n == 2)))
			return;
	if (strcmp(name, "uv") == 0 && v->n >= 3 && strcmp(v->w[1].s, "pip") == 0 &&
	    (strcmp(v->w[2].s, "list") == 0 || strcmp(v->w[2].s, "show") == 0 ||
	    strcmp(v->w[2].s, "freeze") == 0))
		return;
	if ((strcmp(name, "pip") == 0 || strcmp(name, "pip3") == 0) && v->n >= 2 &&
	    (strcmp(v->w[1].s, "list") == 0 || strcmp(v->w[1].s, "show") == 0 ||
	    strcmp(v->w[1].s, "freeze") == 0))
		return;
	ev_factor(ev, F_NETWORK);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: privileged CLI",
	    "%s acts on remote systems, containers or packages; a human "
	    "decides", name);
}

/*
 * Formatters and linters (gofmt, black, ruff, eslint, prettier,
 * clang-format ...): they may rewrite their operands in place, and some
 * run configuration that is code (eslint.config.js). Inside the project
 * they pass, with the factor "runs project code"; their operands are
 * judged as writes.
 */
void
an_cls_lint(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int k;

	for (k = 1; k < v->n; k++)
		if (an_lit(&v->w[k]) && (strcmp(v->w[k].s, "--version") == 0 ||
		    strcmp(v->w[k].s, "--help") == 0) && v->n == 2)
			return;
	ev_factor(ev, F_CODE);
	if (!an_cwd_in_project(ev)) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: build outside",
		    "%s runs outside the project", pr->name);
		return;
	}
	an_operands(ev, v, 1, pr->optarg, an_op_write);
	an_unknown_targets(ev, v);
}
