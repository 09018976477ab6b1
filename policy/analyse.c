/*
 * analyse.c - judges a shell line: parses it (shell.c), walks its simple
 * commands in order, and judges each one: assignments, redirections, cd,
 * wrappers (env, sudo, nice, xargs ...) and the program itself (progs.c).
 *
 * Rules:
 * - Every simple command of the line is judged on its own; the line gets
 *   the worst verdict. A rule that allows "git status" allows exactly that
 *   simple command, never what follows it.
 * - The user's Bash rules come first for every program; an allow rule
 *   settles a command only after it was judged in full, and a denial found
 *   that way stands.
 * - A command name that is not a literal word escalates. Code inside
 *   strings (bash -c, eval, env -S) is parsed and judged like the line,
 *   up to SBX_EV_MAX_STRINGS levels; wrappers nest up to SBX_EV_MAX_WRAPS.
 * - cd, pushd and subshells move the working directory the later paths
 *   are resolved from; where it cannot be known, relative writes escalate.
 */
#include "policy/analyse.h"

#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * cd, pushd, popd. The directory is followed only where it is certain:
 * a cd that may not run (after && or ||, inside if/while/for), that runs
 * in a child (env cd, timeout cd, xargs cd), with more than one operand
 * or a redirection, or to a place that is only known at run time makes it
 * unknown. A cd to a directory that does not exist now, or after the line
 * already changed files, may fail: its directory holds only for the
 * commands chained to it with &&. (Pipeline stages and & lists are
 * subshells: their cd ends with them.)
 */
void
an_cls_cd(struct ev *ev, struct cmdv *v)
{
	char res[SBX_PATH_MAX], path[SBX_PATH_MAX];
	const char *name = v->w[0].s;
	unsigned mode;
	struct an_walk it;
	int k, r, nops = 0;

	if (strcmp(name, "popd") == 0 || ev->in_child > 0 ||
	    v->c->guarded == 2) {
		ev->cwd_known = 0;
		return;
	}
	for (r = 0; r < v->c->nredir; r++) {
		const struct sh_redir *rd = &v->c->redir[r];

		if (rd->op != SH_R_DUP && !(an_lit(&rd->target) &&
		    strcmp(rd->target.s, "/dev/null") == 0)) {
			ev->cwd_known = 0;
			return;
		}
	}
	an_walk_init(&it, 1, NULL, AN_W_NONE);
	while ((k = an_walk_prefix(v, &it, 0)) >= 0)
		if (strcmp(v->w[k].s, "-L") != 0 && strcmp(v->w[k].s, "-P") != 0 &&
		    strcmp(v->w[k].s, "-e") != 0) {
			it.k = k;       /* another option: judged as the place */
			break;
		}
	k = it.k;
	for (r = k; r < v->n; r++)
		nops++;
	if (k >= v->n) {
		if (strcmp(name, "pushd") != 0 && ev->call->home != NULL &&
		    path_resolve_c(ev->pc, "/", NULL, ev->call->home, res, sizeof(res)) == 0) {
			strcpy(ev->cwd, res);
			ev->cwd_known = 1;
		} else {
			ev->cwd_known = 0;
		}
		return;
	}
	if (nops > 1 || an_word_path(ev, &v->w[k], path, sizeof(path)) != 1 ||
	    path[0] == '-' || (path[0] == '+' && strcmp(name, "pushd") == 0) ||
	    (path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve_c(ev->pc, ev->cwd, ev->call->home, path, res, sizeof(res)) < 0) {
		ev->cwd_known = 0;
		return;
	}
	trig_read(ev, path, "cd");
	strcpy(ev->cwd, res);
	ev->cwd_known = 1;
	/* a cd that may not run (after &&, inside if/while/for) or may fail
	 * holds for the commands chained to it with && only */
	if (path_lstat(ev->pc, res, &mode) < 0 || !S_ISDIR(mode) || v->c->cond ||
	    v->c->guarded || ev->nwpaths > SBX_EV_MAX_WPATHS)
		ev->cwd_tentative = 1;
	/* rm -rf src; cd src: the line changed the place (or above it) */
	for (r = 0; r < ev->nwpaths && r < SBX_EV_MAX_WPATHS; r++)
		if (path_within(res, ev->wpaths[r]))
			ev->cwd_tentative = 1;
	/* cd x || ...: afterwards we cannot tell where we are */
	if (v->c->conn == SH_C_OR)
		ev->cwd_known = 0;
}

/*
 * Variables that change what runs, where it writes, or how bash reads the
 * rest of the line, however they are set (VAR=, export, declare, read,
 * for, printf -v, getopts, env). Exact names, then prefixes; a few common
 * harmless values (PAGER=cat, GIT_EDITOR=true) pass.
 */
static const char *const bad_vars[] = {
	"PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3",
	"PS4", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE", "OLDPWD",
	"HOME", "ZDOTDIR", "HISTFILE", "HISTCONTROL", "INPUTRC", "MAIL", "MAILPATH",
	"PAGER", "MANPAGER", "MANOPT", "MANPATH", "EDITOR", "VISUAL", "BROWSER",
	"SUDO_ASKPASS", "SSH_ASKPASS", "TERMINFO", "GCONV_PATH", "HOSTALIASES",
	"RESOLV_HOST_CONF", "LOCPATH", "NLSPATH", "OPENSSL_CONF", "OPENSSL_ENGINES",
	"SSLKEYLOGFILE", "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_HOME", "CURL_CA_BUNDLE",
	"WGETRC", "NETRC", "http_proxy", "https_proxy", "HTTP_PROXY",
	"HTTPS_PROXY", "ALL_PROXY", "all_proxy", "ftp_proxy", "FTP_PROXY",
	"NO_PROXY", "no_proxy", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
	"KUBECONFIG", "DOCKER_HOST", "DOCKER_CONFIG", "TMPDIR", "TAR_OPTIONS",
	"UNZIP", "UNZIPOPT", "ZIPOPT", "GZIP", "XZ_OPT", "BZIP2", "ZSTD_CLEVEL",
	"CC", "CXX", "CPP", "LD", "AR", "AS", "NM", "RANLIB", "STRIP", "OBJCOPY",
	"CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "SHELL",
	"MAKEFLAGS", "MAKEFILES", "MFLAGS", "GNUMAKEFLAGS", "RUSTC", "RUSTDOC",
	"RUSTFLAGS", "RUSTDOCFLAGS", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "JAVA_HOME",
	"MAVEN_OPTS", "MAVEN_ARGS", "GRADLE_OPTS", "GRADLE_USER_HOME",
	"GNUPGHOME", "PHPRC", "PHP_INI_SCAN_DIR", "LUA_INIT", "LUA_PATH",
	"LUA_CPATH", "TCLLIBPATH", "R_PROFILE", "R_PROFILE_USER", "R_ENVIRON",
	"EMACSLOADPATH", "VIMINIT", "EXINIT", "MYVIMRC", "GREP_OPTIONS",
	"LESS", "LESSKEY", "LESSKEYIN", "LESSOPEN", "LESSCLOSE", "LESSEDIT",
	"LESSSECURE", "SYSTEMD_PAGER", "SYSTEMD_EDITOR", "DIFF_OPTIONS",
	"VIRTUAL_ENV", "CONDA_PREFIX", "GOFLAGS", "GOROOT", "GOPATH", "GOBIN",
	"GOCACHE", "GOENV", "GOTOOLCHAIN", "GOPROXY", "GONOSUMDB", "GONOSUMCHECK",
	"GOPRIVATE", "GONOPROXY", "GOINSECURE", "GOSUMDB", "GOMODCACHE",
	"GOEXPERIMENT", "GOTMPDIR", "GOWORK", "GOAMD64", "COMP_WORDBREAKS",
	"FIGNORE", "EXECIGNORE", "TIMEFORMAT", "BASH_XTRACEFD", "BASH_COMPAT",
	"BASH_LOADABLES_PATH", "POSIXLY_CORRECT", "PYTEST_ADDOPTS",
	"PYTEST_PLUGINS", "TOX_TESTENV_PASSENV", NULL,
};

static const char *const bad_prefixes[] = {
	"LD_", "DYLD_", "BASH_FUNC_", "BASH_", "GIT_", "PYTHON", "PERL", "RUBY",
	"GEM_", "BUNDLE_", "NODE_", "NPM_CONFIG_", "npm_config_", "YARN_",
	"PNPM_", "BUN_", "CGO_", "CARGO_", "PIP_", "UV_", "POETRY_", "PDM_",
	"CONDA_", "COMPOSER_", "DOTNET_", "NUGET_", "MSBUILD", "ERL_", "ELIXIR_",
	"JULIA_", "OCAML", "OPAM", "DENO_", "SSH_", "XDG_", "GPG_", "CMAKE_",
	"PKG_CONFIG", "MESON", "NINJA", "CCACHE_", "DISTCC_", "HOMEBREW_",
	"DOCKER_", "BUILDKIT_", "COMPOSE_", "KUBE", "HELM_", "AWS_", "AZURE_",
	"GOOGLE_", "CLOUDSDK_", "TF_", "VAULT_", "ANSIBLE_", "RSYNC_", "MANROFF",
	"GROFF_", "LESS", "SUDO_", "RIPGREP_", "BAT_", NULL,
};

/* Harmless names under a bad prefix, and harmless values of pagers. */
static const char *const good_vars[] = {
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	"GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
	"GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS", "GIT_FLUSH",
	"GIT_MERGE_AUTOEDIT", "GIT_ADVICE", "GIT_LITERAL_PATHSPECS",
	"PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED",
	"PYTHONIOENCODING", "PYTHONUTF8", "PYTHONFAULTHANDLER",
	"PYTHONDEVMODE", "PYTHONTRACEMALLOC", "PYTHONNOUSERSITE",
	"NODE_ENV", "NODE_NO_WARNINGS", "CGO_ENABLED", "CARGO_TERM_COLOR",
	"CARGO_INCREMENTAL", "CARGO_PROFILE_RELEASE_DEBUG",
	"CARGO_BUILD_JOBS", "PIP_DISABLE_PIP_VERSION_CHECK",
	"PIP_NO_INPUT", "DOCKER_BUILDKIT", "NPM_CONFIG_LOGLEVEL",
	"npm_config_loglevel", "NPM_CONFIG_YES", "npm_config_yes",
	"NPM_CONFIG_FUND", "npm_config_fund", "NPM_CONFIG_AUDIT",
	"npm_config_audit", NULL,
};

static int
harmless_value(const char *name, size_t n, const char *val)
{
	static const char *const pagers[] = {
		"PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", NULL,
	};
	static const char *const editors[] = {
		"EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", NULL,
	};
	const char *const *k;

	if (val == NULL)
		return 0;
	for (k = pagers; *k != NULL; k++)
		if (strlen(*k) == n && strncmp(name, *k, n) == 0)
			return strcmp(val, "cat") == 0 || strcmp(val, "") == 0 ||
			    strcmp(val, "less") == 0 || strcmp(val, "more") == 0 ||
			    strcmp(val, "true") == 0;
	for (k = editors; *k != NULL; k++)
		if (strlen(*k) == n && strncmp(name, *k, n) == 0)
			return strcmp(val, "true") == 0 || strcmp(val, ":") == 0 ||
			    strcmp(val, "cat") == 0;
	return 0;
}

/* 1 if setting the variable NAME (n bytes) to val (NULL: unknown) is
 * something a human should see. */
static int
var_is_bad(const char *name, size_t n, const char *val)
{
	const char *const *b;

	if (harmless_value(name, n, val))
		return 0;
	for (b = good_vars; *b != NULL; b++)
		if ((*b)[0] == name[0] && strlen(*b) == n &&
		    strncmp(name, *b, n) == 0)
			return 0;
	for (b = bad_vars; *b != NULL; b++)
		if ((*b)[0] == name[0] && strlen(*b) == n &&
		    strncmp(name, *b, n) == 0)
			return 1;
	for (b = bad_prefixes; *b != NULL; b++)
		if ((*b)[0] == name[0] && strlen(*b) <= n &&
		    strncmp(name, *b, strlen(*b)) == 0)
			return 1;
	return 0;
}

/*
 * A variable set by any form (read NAME, for NAME in, printf -v NAME,
 * getopts, NAME=...). how says which, for the reason.
 */
void
an_check_var_name(struct ev *ev, const char *name, const char *val,
    const char *how)
{
	size_t n = strcspn(name, "+=[");

	if (n == 0 || n > 128)
		return;
	if (var_is_bad(name, n, val)) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: environment",
		    "%s sets %.*s, which changes what commands run or where they "
		    "write", how, (int)n, name);
		return;
	}
}

void
an_check_assign(struct ev *ev, const char *a)
{
	const char *eq = strchr(a, '=');

	an_check_var_name(ev, a, eq != NULL ? eq + 1 : NULL, "the command");
	an_check_code_text(ev, a);
}

/*
 * set and shopt options that change how the rest of the line is read:
 * set -a (every variable set becomes the environment of what runs), set
 * -k (assignments anywhere in a command), shopt -s dotglob/nocaseglob
 * (globs reach hidden and other files), cdable_vars/autocd/cdspell (cd
 * goes elsewhere), expand_aliases, lastpipe, extdebug.
 */
/* set -- WORDS: $1, $@ ... are these words from now on. */
static void
set_positional(struct ev *ev, struct cmdv *v, int from)
{
	char path[SBX_PATH_MAX];
	int k, r;

	for (k = from; k < v->n; k++) {
		r = an_word_path(ev, &v->w[k], path, sizeof(path));
		if (r == AN_OPAQUE || (r >= 0 && trig_is_secret(ev, path, 1)) ||
		    ((v->w[k].flags & SH_W_SUBST) && ev->subst_unsafe))
			ev->pos_tainted = 1;
	}
}

void
an_set_options(struct ev *ev, struct cmdv *v)
{
	static const char *const set_bad[] = {
		"allexport", "keyword", "onecmd", NULL,
	};
	static const char *const shopt_ok[] = {
		"nullglob", "failglob", "globstar", "extglob", "nocasematch",
		"inherit_errexit", "checkwinsize", "histappend", "cmdhist",
		"lithist", "progcomp", "sourcepath", "globasciiranges", "xpg_echo",
		"gnu_errfmt", "huponexit", "checkjobs", "execfail", "shift_verbose",
		"globskipdots", "localvar_inherit", "localvar_unset",
		"assoc_expand_once", "varredir_close", "noexpand_translation",
		"patsub_replacement", "checkhash", "interactive_comments",
		"complete_fullquote", "hostcomplete", "no_empty_cmd_completion",
		"force_fignore", "promptvars", NULL,
	};
	const char *name = v->w[0].s, *s, *const *q;
	int k, set_mode = 0, shopt_o = 0, bad;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!an_lit(&v->w[k])) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: environment",
			    "%s with options only known at run time", name);
			return;
		}
		/* set's own grammar, not the walk's: "--" and "-" end its
		 * options and what follows becomes $1, $2 ... ("set --"
		 * alone empties them), and +x, +o NAME are options too */
		if (strcmp(s, "--") == 0 || strcmp(s, "-") == 0) {
			if (strcmp(name, "set") == 0)
				set_positional(ev, v, k + 1);
			return;
		}
		if (strcmp(name, "set") == 0) {
			if (s[0] != '-' && s[0] != '+') {
				set_positional(ev, v, k);
				return;
			}
			if (s[0] == '-' && strpbrk(s + 1, "ak") != NULL) {
				ev_note(ev, POLICY_ESCALATE, "shell",
				    "builtin: environment", "set %s exports every "
				    "variable set later, or reads assignments anywhere",
				    s);
				return;
			}
			if (strchr(s + 1, 'o') != NULL && k + 1 < v->n) {
				k++;
				for (q = set_bad; *q != NULL; q++)
					if (strcmp(v->w[k].s, *q) == 0 ||
					    !an_lit(&v->w[k])) {
						ev_note(ev, POLICY_ESCALATE, "shell",
						    "builtin: environment", "set -o %s changes "
						    "what later commands see", v->w[k].s);
						return;
					}
			}
			continue;
		}
		/* shopt */
		if (s[0] == '-') {
			set_mode = strchr(s, 's') != NULL ? 1 :
			    strchr(s, 'u') != NULL ? -1 : set_mode;
			if (strchr(s, 'o') != NULL)
				shopt_o = 1;
			continue;
		}
		if (set_mode == 0)
			continue;       /* shopt NAME: prints it */
		bad = 1;
		if (shopt_o) {
			bad = 0;
			for (q = set_bad; *q != NULL; q++)
				if (strcmp(s, *q) == 0)
					bad = 1;
		} else if (set_mode < 0) {
			bad = strcmp(s, "globskipdots") == 0;
		} else {
			for (q = shopt_ok; *q != NULL; q++)
				if (strcmp(s, *q) == 0)
					bad = 0;
		}
		if (bad) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: environment",
			    "shopt %s %s changes how bash expands globs, runs cd or "
			    "aliases", set_mode > 0 ? "-s" : "-u", s);
			return;
		}
	}
}

/* A name that read or printf -v sets: checked like an assignment, and
 * its value is unknown from here on (read from input). */
static void
set_name(struct ev *ev, const struct sh_word *nw, const char *name)
{
	const char *s = nw->s;
	char fake[200];
	struct sh_word w;

	if (!an_lit(nw) && strcmp(name, "read") == 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: environment",
		    "%s sets a variable named only at run time", name);
		return;
	}
	an_check_var_name(ev, s, NULL, name);
	if (strlen(s) < 64 && strcspn(s, "[") == strlen(s)) {
		snprintf(fake, sizeof(fake), "%s=%c!%c", s, SH_VAR_MARK,
		    SH_VAR_MARK);
		w.s = fake;
		w.len = strlen(fake);
		w.flags = SH_W_VAR | SH_W_ASSIGN;
		an_remember_var(ev, &w);
	}
}

/* read's options: -a NAME names an array it sets; the others take a
 * value that is no name. */
static const struct optdef o_read[] = {
	{ NULL, "-a", OK_VAL, 1 },
	{ NULL, "-d", OK_VAL, 0 },
	{ NULL, "-i", OK_VAL, 0 },
	{ NULL, "-n", OK_VAL, 0 },
	{ NULL, "-N", OK_VAL, 0 },
	{ NULL, "-p", OK_VAL, 0 },
	{ NULL, "-t", OK_VAL, 0 },
	{ NULL, "-u", OK_VAL, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};
static const struct optset read_opts = { 1, 0, o_read };

/*
 * Names that read and printf -v set: each is checked like an
 * assignment, and its value is unknown from here on.
 */
void
an_set_names(struct ev *ev, struct cmdv *v, const char *name)
{
	struct an_walk it;
	struct an_opt o;
	int k, r;

	if (strcmp(name, "printf") == 0) {
		for (k = 1; k < v->n; k++) {
			struct sh_word w = v->w[k];

			if (strcmp(w.s, "-v") == 0 && k + 1 < v->n) {
				set_name(ev, &v->w[++k], name);
			} else if (strncmp(w.s, "-v", 2) == 0 && w.s[2] != '\0') {
				w.s += 2;
				w.len -= 2;
				set_name(ev, &w, name);
			}
		}
		return;
	}
	if (strcmp(name, "read") != 0)
		return;
	an_walk_init(&it, 1, NULL, AN_W_NONE);
	an_walk_table(&it, &read_opts, NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0) {
		if (r == 0)
			set_name(ev, &v->w[o.k], name);
		else if (!an_lit(&v->w[o.k]))
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: environment",
			    "read with an option known only at run time");
		else if (o.d != NULL && o.d->tag == 1 && o.val != NULL)
			set_name(ev, o.val, name);
	}
}

/* 1 if a value is a plain number or an expression of numbers only. */
static int
numeric_value(const char *v)
{
	return v[0] != '\0' && strspn(v, "0123456789 +-*/%()") == strlen(v);
}

/*
 * Arithmetic evaluates the values of the names in it as expressions
 * again: x='a[$(cmd)]'; $((x)) runs cmd, and so do [[ $x -eq 1 ]],
 * ${a[x]} and ${s:x}. Every name in an arithmetic text must hold a number
 * the line itself set (or be one of bash's own numeric variables);
 * anything else, and command output that is not a count, escalates.
 */
static void
arith_name(struct ev *ev, const char *p, size_t n)
{
	static const char *const numeric[] = {
		"RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID",
		"EUID", "EPOCHSECONDS", "OPTIND", "HISTCMD", "SHLVL", NULL,
	};
	int j;

	for (j = 0; numeric[j] != NULL; j++)
		if (strlen(numeric[j]) == n && strncmp(p, numeric[j], n) == 0)
			return;
	for (j = 0; j < ev->nvars; j++)
		if (strlen(ev->vars[j].name) == n &&
		    strncmp(ev->vars[j].name, p, n) == 0) {
			if (ev->vars[j].numeric || (ev->vars[j].known &&
			    !ev->vars[j].tainted && numeric_value(ev->vars[j].value)))
				return;
			break;
		}
	ev_factor(ev, F_UNKNOWN);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: arithmetic",
	    "arithmetic evaluates %.*s, whose value is not a number the line "
	    "set: a value such as a[$(cmd)] would run cmd", (int)n, p);
}

void
an_arith_text(struct ev *ev, const char *t)
{
	const char *p = t;
	size_t n;

	while (*p != '\0') {
		if (*p >= '0' && *p <= '9') {
			/* 42, 0x1f, 16#ff, 2#101 */
			while (*p == '_' || *p == '#' || *p == '@' ||
			    (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
			    (*p >= 'A' && *p <= 'Z'))
				p++;
			continue;
		}
		if (*p == '`' || (*p == '$' && p[1] == '(' && p[2] != '(')) {
			/* a command's output becomes part of the expression */
			if (ev->subst_nonnum) {
				ev_factor(ev, F_UNKNOWN);
				ev_note(ev, POLICY_ESCALATE, "shell",
				    "builtin: arithmetic", "arithmetic evaluates the "
				    "output of a command that is not a count");
				return;
			}
			/* the command itself was judged on its own: skip it */
			if (*p == '`') {
				for (p++; *p != '\0' && *p != '`'; p++)
					;
			} else {
				int lv = 0;

				for (p++; *p != '\0'; p++) {
					if (*p == '(')
						lv++;
					else if (*p == ')' && --lv == 0)
						break;
				}
			}
			if (*p != '\0')
				p++;
			continue;
		}
		if (*p == '$' && p[1] != '\0' && strchr("0123456789@*-", p[1]) != NULL) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: arithmetic",
			    "arithmetic evaluates $%c, a word only known at run time",
			    p[1]);
			return;
		}
		if (*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
			for (n = 0; p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') ||
			    (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9');
			    n++)
				;
			arith_name(ev, p, n);
			p += n;
			continue;
		}
		p++;
	}
}

/* An operand of [[ A -eq B ]]: a literal is an expression; a variable's
 * value is one. */
void
an_arith_word(struct ev *ev, const struct sh_word *w)
{
	const char *p, *e;

	if (an_lit(w)) {
		an_arith_text(ev, w->s);
		return;
	}
	if (w->flags & SH_W_SUBST && ev->subst_nonnum) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: arithmetic",
		    "[[ ... -eq ... ]] evaluates as arithmetic the output of a command that is "
		    "not a count");
		return;
	}
	for (p = w->s; (p = strchr(p, SH_VAR_MARK)) != NULL; p = e + 1) {
		e = strchr(p + 1, SH_VAR_MARK);
		if (e == NULL)
			return;
		p++;
		if (*p == SH_VAR_UNQUOTED)
			p++;
		if (e - p == 1 && *p == '#')
			continue;
		if (e - p == 1 && (*p == '?' || *p == '!')) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: arithmetic",
			    "[[ ... -eq ... ]] evaluates a word only known at run time");
			return;
		}
		arith_name(ev, p, (size_t)(e - p) - (e[-1] == '-'));
	}
	/* the rest of the word, outside the markers, is expression text */
}

/*
 * Quoted text that looks like command substitution is harmless as data,
 * but bash evaluates some data again: a variable used in arithmetic
 * (x='a[$(cmd)]'; echo $((x))), and array subscripts in names given to
 * printf -v, read, declare, unset, test -v. Such text in a value or a
 * name escalates.
 */
void
an_check_code_text(struct ev *ev, const char *s)
{
	if (strstr(s, "$(") == NULL && strchr(s, '`') == NULL)
		return;
	ev_factor(ev, F_UNKNOWN);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: code in data",
	    "\"%.60s\" holds command-substitution text that bash can evaluate "
	    "again (arithmetic, array subscripts)", s);
}

/*
 * Remembers NAME=value for later words of the line ($NAME): the value
 * when it is known (literal, or $HOME-like), else "assigned, unknown".
 */
void
an_remember_var(struct ev *ev, const struct sh_word *w)
{
	const char *eq = strchr(w->s, '=');
	char value[sizeof(ev->vars[0].value)];
	struct sh_word val;
	struct ev_var *slot = NULL;
	size_t n;
	int k, r;

	if (eq == NULL)
		return;
	n = (size_t)(eq - w->s);
	if (n > 0 && w->s[n - 1] == '+')
		n--;                    /* NAME+=x: value unknown below */
	if (n == 0 || n >= sizeof(ev->vars[0].name))
		return;
	for (k = 0; k < ev->nvars; k++)
		if (strlen(ev->vars[k].name) == n &&
		    strncmp(ev->vars[k].name, w->s, n) == 0)
			slot = &ev->vars[k];
	if (slot == NULL) {
		if (ev->nvars == SBX_EV_MAX_VARS)
			slot = &ev->vars[SBX_EV_MAX_VARS - 1];
		else
			slot = &ev->vars[ev->nvars++];
		memcpy(slot->name, w->s, n);
		slot->name[n] = '\0';
	}
	val = *w;
	val.s = (char *)eq + 1;
	val.len = strlen(val.s);
	val.flags &= ~(unsigned)SH_W_ASSIGN;
	ev->in_assign = 1;      /* NAME=$x: no splitting, no globbing */
	/* Into a copy first: the value may name the variable itself (f=$f/x),
	 * whose old value is read while the new one is built. */
	r = an_word_path(ev, &val, value, sizeof(value));
	ev->in_assign = 0;
	memcpy(slot->value, value, sizeof(slot->value));
	slot->known = r == 1 && w->s[(size_t)(eq - w->s) - 1] != '+';
	if (r == 0)
		slot->known = 0;
	slot->tainted = r == AN_OPAQUE || ((val.flags & SH_W_SUBST) &&
	    ev->subst_unsafe);
	/* n=$(wc -l < f), t=$(date +%s), n=$((n + 1)): a count */
	slot->numeric = 0;
	if ((val.flags & (SH_W_SUBST | SH_W_VAR)) && !ev->subst_nonnum) {
		const char *q;
		int only_num = 1;

		/* the value is made of numbers only: $((...)), counts */
		for (q = val.s; *q != '\0'; q++)
			if (*q == SH_VAR_MARK) {
				const char *m = q + 1;

				if (*m == SH_VAR_UNQUOTED)
					m++;
				if (*m != '#')
					only_num = 0;
				q = strchr(q + 1, SH_VAR_MARK);
				if (q == NULL)
					break;
			} else if (strchr("0123456789 +-", *q) == NULL) {
				only_num = 0;
			}
		if (only_num)
			slot->numeric = 1;
	}
	/* IFS changes how every later unquoted expansion is split */
	if (n == 3 && strncmp(w->s, "IFS", 3) == 0)
		ev->ifs_set = 1;
}

/* Judges the command that starts at word k of v (after a wrapper). */
static void
inner(struct ev *ev, struct cmdv *v, int k)
{
	struct cmdv in = *v;
	int child = strcmp(v->w[0].s, "builtin") != 0 &&
	    strcmp(v->w[0].s, "command") != 0;

	if (k >= v->n)
		return;
	in.w = v->w + k;
	in.n = v->n - k;
	/* env cd, timeout cd, sudo cd: a child runs it, not this shell */
	ev->in_child += child;
	an_eval_argv(ev, &in);
	ev->in_child -= child;
}

void
an_cls_wrap(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const char *name = pr->name, *s;
	struct an_walk it;
	int k, pos = pr->npos;

	an_walk_init(&it, 1, pr->optarg, AN_W_NONE);
	while ((k = an_walk_prefix(v, &it, 0)) >= 0) {
		s = v->w[k].s;
		if (strcmp(name, "command") == 0 && (strcmp(s, "-v") == 0 ||
		    strcmp(s, "-V") == 0))
			return;         /* lookup only */
		if (strcmp(name, "time") == 0 && (strcmp(s, "-o") == 0 ||
		    strncmp(s, "--output=", 9) == 0)) {
			if (s[1] == '-')
				trig_write(ev, s + 9, "time");
			else if (it.k < v->n)
				an_write_word(ev, v, &v->w[it.k++]);
			else
				trig_write(ev, NULL, "time");   /* -o, no file */
			continue;
		}
		if (strcmp(name, "ionice") == 0 && strcmp(s, "-p") == 0)
			return;
		if (strcmp(name, "nice") == 0 && s[1] >= '0' && s[1] <= '9')
			continue;
		if (an_cluster_takes_next(s, pr->optarg))
			it.k++;
	}
	k = it.k;
	for (; pos > 0 && k < v->n; pos--)
		k++;
	if (k >= v->n) {
		if (strcmp(name, "builtin") == 0 || strcmp(name, "exec") == 0 ||
		    strcmp(name, "command") == 0 || strcmp(name, "time") == 0 ||
		    strcmp(name, "nice") == 0 || strcmp(name, "ionice") == 0)
			return;
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: wrapper",
		    "%s without a command", name);
		return;
	}
	inner(ev, v, k);
}

void
an_cls_env(struct ev *ev, struct cmdv *v)
{
	struct an_walk it;
	int k, opt;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	while ((k = an_walk_any(v, &it, &opt)) >= 0) {
		const char *s = v->w[k].s;

		if (it.dashdash || (!an_lit(&v->w[k]) &&
		    !(v->w[k].flags & SH_W_ASSIGN)))
			break;          /* the command */
		if (v->w[k].flags & SH_W_ASSIGN || (strchr(s, '=') != NULL &&
		    s[0] != '-')) {
			an_check_assign(ev, s);
			continue;
		}
		if (strcmp(s, "-S") == 0 || strncmp(s, "--split-string", 14) == 0 ||
		    (s[0] == '-' && s[1] != '-' && strchr(s, 'S') != NULL)) {
			/* env -S STRING: split like a shell would (close enough,
			 * and it over-reads rather than under-reads) */
			const struct sh_word *str = NULL;

			if (strncmp(s, "--split-string=", 15) == 0) {
				an_eval_string(ev, s + 15, strlen(s + 15), "env -S", 0);
				return;
			}
			if (strchr(s, 'S')[1] != '\0') {
				an_eval_string(ev, strchr(s, 'S') + 1,
				    strlen(strchr(s, 'S') + 1), "env -S", 0);
				return;
			}
			if (k + 1 < v->n)
				str = &v->w[k + 1];
			if (str == NULL || !an_lit(str)) {
				ev_factor(ev, F_UNKNOWN);
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: env -S",
				    "env -S splits a string known only at run time");
				return;
			}
			an_eval_string(ev, str->s, str->len, "env -S", 0);
			return;
		}
		if (strcmp(s, "-C") == 0 || strncmp(s, "--chdir", 7) == 0) {
			ev->cwd_known = 0;
			if (strcmp(s, "-C") == 0)
				it.k++;
			continue;
		}
		if (strcmp(s, "-u") == 0 || strcmp(s, "-P") == 0 ||
		    strcmp(s, "--unset") == 0) {
			it.k++;
			continue;
		}
		if (s[0] != '-')
			break;
	}
	inner(ev, v, k < 0 ? v->n : k);
}

/*
 * xargs's options (GNU and BSD), read by the table walk in every form
 * (-0a LIST, -aLIST, --arg-file=LIST, --arg LIST): the tags say what the
 * handler does with them. An option no entry names escalates.
 */
enum { XA_REPL = 1, XA_REPL_OPT, XA_TTY, XA_ENV };
static const struct optdef o_xargs[] = {
	{ NULL, "-0", OK_FLAG, 0 },
	{ NULL, "--null", OK_FLAG, 0 },
	{ NULL, "-a", OK_NAMES, 0 },
	{ NULL, "--arg-file", OK_NAMES, 0 },
	{ NULL, "-d", OK_VAL, 0 },
	{ NULL, "--delimiter", OK_VAL, 0 },
	{ NULL, "-E", OK_VAL, 0 },
	{ NULL, "-e", OK_OPTVAL, 0 },
	{ NULL, "--eof", OK_OPTVAL, 0 },
	{ NULL, "-I", OK_VAL, XA_REPL },
	{ NULL, "-J", OK_VAL, XA_REPL },
	{ NULL, "-i", OK_OPTVAL, XA_REPL_OPT },
	{ NULL, "--replace", OK_OPTVAL, XA_REPL_OPT },
	{ NULL, "-L", OK_VAL, 0 },
	{ NULL, "-l", OK_OPTVAL, 0 },
	{ NULL, "--max-lines", OK_OPTVAL, 0 },
	{ NULL, "-n", OK_VAL, 0 },
	{ NULL, "--max-args", OK_VAL, 0 },
	{ NULL, "-P", OK_VAL, 0 },
	{ NULL, "--max-procs", OK_VAL, 0 },
	{ NULL, "-p", OK_FLAG, XA_TTY },
	{ NULL, "--interactive", OK_FLAG, XA_TTY },
	{ NULL, "-o", OK_FLAG, XA_TTY },
	{ NULL, "--open-tty", OK_FLAG, XA_TTY },
	{ NULL, "--process-slot-var", OK_VAL, XA_ENV },
	{ NULL, "-r", OK_FLAG, 0 },
	{ NULL, "--no-run-if-empty", OK_FLAG, 0 },
	{ NULL, "-R", OK_VAL, 0 },
	{ NULL, "-S", OK_VAL, 0 },
	{ NULL, "-s", OK_VAL, 0 },
	{ NULL, "--max-chars", OK_VAL, 0 },
	{ NULL, "--show-limits", OK_FLAG, 0 },
	{ NULL, "-t", OK_FLAG, 0 },
	{ NULL, "--verbose", OK_FLAG, 0 },
	{ NULL, "-x", OK_FLAG, 0 },
	{ NULL, "--exit", OK_FLAG, 0 },
	{ NULL, "--help", OK_FLAG, 0 },
	{ NULL, "--version", OK_FLAG, 0 },
	{ NULL, NULL, OK_VAL, 0 },
};
static const struct optset xargs_opts = { 1, 0, o_xargs };

/* 1 when the text (n bytes) names a secret in one of its words. */
static int
text_names_secret(struct ev *ev, const char *t, size_t n)
{
	char word[SBX_PATH_MAX];
	size_t i = 0, w;

	while (i < n) {
		while (i < n && strchr(" \t\n'\"", t[i]) != NULL)
			i++;
		for (w = 0; i < n && strchr(" \t\n'\"", t[i]) == NULL; i++)
			if (w + 1 < sizeof(word))
				word[w++] = t[i];
		word[w] = '\0';
		if (w > 0 && trig_is_secret(ev, word, 0))
			return 1;
	}
	return 0;
}

/* 1 when the text holds what xargs removes or GNU/BSD xargs read
 * differently from a shell's word split: quotes and backslashes. */
static int
text_xargs_quoted(const char *t, size_t n)
{
	return memchr(t, '\\', n) != NULL || memchr(t, '\'', n) != NULL ||
	    memchr(t, '"', n) != NULL;
}

/* 1 when the words of c from k on hold s. */
static int
cmd_has_word(const struct sh_cmd *c, int k, const char *s)
{
	for (; k < c->argc; k++)
		if (strcmp(c->argv[k].s, s) == 0)
			return 1;
	return 0;
}

/* 1 when r moves fd 0 (<, <>, <&N, a here-string or -document). */
static int
redir_stdin(const struct sh_redir *r)
{
	if (r->fd != -1 && r->fd != 0)
		return 0;
	return r->op == SH_R_IN || r->op == SH_R_INOUT ||
	    (r->op == SH_R_DUP && r->fd == 0) || r->op == SH_R_HERESTR ||
	    r->op == SH_R_HEREDOC;
}

/*
 * 1 when c, which prints into xargs's pipe, prints names the analyser
 * judged: a lister of the tree (find, fd, ls, tree, du, rg/grep -l, git
 * ls-files/ls-tree/diff --name-only) that runs nothing, or echo of
 * literal words without quotes or backslashes, which xargs would remove
 * (echo '.\env' | xargs cat reads .env). Anything else (cat LIST, sort
 * LIST, find -exec cat) prints text the policy cannot see: 0.
 */
static int pipe_judged(struct ev *ev, const struct sh_parse *sp,
    const struct sh_cmd *to, int special, int depth);

/* 1 when a word of sort, head, tail or uniq only orders or cuts its
 * input: -u, -r, -n, -z, -V, -5, 5 (sort --files0-from=LIST reads
 * names from a file: 0) */
static int
filter_word_ok(const char *s)
{
	size_t i;

	if (s[0] == '-' && s[1] != '\0' && s[1] != '-') {
		for (i = 1; s[i] != '\0'; i++)
			if (strchr("nurzV0123456789", s[i]) == NULL)
				return 0;
		return 1;
	}
	for (i = 0; s[i] != '\0'; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return i > 0;
}

static int
producer_judged(struct ev *ev, const struct sh_parse *sp,
    const struct sh_cmd *c, int special, int depth)
{
	const char *n;
	int k;

	if (c->kind != SH_SIMPLE || c->argc == 0)
		return 0;
	/* a word known only at run time may be any option (find . -$e) */
	for (k = 0; k < c->argc; k++)
		if (!(c->argv[k].flags & SH_W_LITERAL))
			return 0;
	for (k = 0; k < c->nredir; k++)
		if (redir_stdin(&c->redir[k]))
			return 0;
	n = c->argv[0].s;
	if (strcmp(n, "echo") == 0) {
		if (special)
			return 0;
		for (k = 1; k < c->argc; k++)
			if (!(c->argv[k].flags & SH_W_LITERAL) ||
			    text_xargs_quoted(c->argv[k].s, c->argv[k].len))
				return 0;
		return 1;
	}
	if (strcmp(n, "find") == 0) {
		/* prints only names: no primary that runs, asks or writes
		 * (text.c's table), no -printf */
		for (k = 1; k < c->argc; k++)
			if (an_find_word_acts(c->argv[k].s) ||
			    strcmp(c->argv[k].s, "-printf") == 0)
				return 0;
		return 1;
	}
	if (strcmp(n, "fd") == 0 || strcmp(n, "fdfind") == 0) {
		for (k = 1; k < c->argc; k++)
			if (strncmp(c->argv[k].s, "-x", 2) == 0 ||
			    strncmp(c->argv[k].s, "-X", 2) == 0 ||
			    strncmp(c->argv[k].s, "--exec", 6) == 0)
				return 0;
		return 1;
	}
	/* find . | sort | xargs cat: a filter of judged names */
	if ((strcmp(n, "sort") == 0 || strcmp(n, "head") == 0 ||
	    strcmp(n, "tail") == 0 || strcmp(n, "uniq") == 0) && c->pipe_in) {
		for (k = 1; k < c->argc; k++)
			if (!(c->argv[k].flags & SH_W_LITERAL) ||
			    !filter_word_ok(c->argv[k].s))
				return 0;
		return pipe_judged(ev, sp, c, special, depth + 1) == 0;
	}
	if (strcmp(n, "cd") == 0)       /* prints nothing: (cd src && find .) */
		return c->argc <= 2 && !cmd_has_word(c, 1, "-");
	if (strcmp(n, "ls") == 0 || strcmp(n, "tree") == 0 ||
	    strcmp(n, "du") == 0)
		return 1;
	if (strcmp(n, "rg") == 0 || strcmp(n, "grep") == 0)
		return cmd_has_word(c, 1, "-l") || cmd_has_word(c, 1, "-L") ||
		    cmd_has_word(c, 1, "--files") ||
		    cmd_has_word(c, 1, "--files-with-matches") ||
		    cmd_has_word(c, 1, "-rl") || cmd_has_word(c, 1, "-lr");
	if (strcmp(n, "git") == 0 && c->argc >= 2)
		return strcmp(c->argv[1].s, "ls-files") == 0 ||
		    strcmp(c->argv[1].s, "ls-tree") == 0 ||
		    (strcmp(c->argv[1].s, "diff") == 0 &&
		    cmd_has_word(c, 2, "--name-only"));
	return 0;
}

/* 0 when every stage printing into to's pipe is judged, else 2 */
static int
pipe_judged(struct ev *ev, const struct sh_parse *sp, const struct sh_cmd *to,
    int special, int depth)
{
	const struct sh_cmd *c;
	int k, p = to->pipeline, any = 0;

	if (!to->pipe_in || p < 0 || depth > 8)
		return 2;
	for (k = 0; k < sp->ncmds; k++) {
		c = &sp->cmds[k];
		if (c == to || c->kind != SH_SIMPLE)
			continue;
		if ((c->pipeline == p && c->stage == to->stage - 1) ||
		    c->out_pipeline == p) {
			if (c->argc == 0 && c->nredir == 0)
				continue;
			if (!producer_judged(ev, sp, c, special, depth))
				return 2;
			any = 1;
		}
	}
	return any ? 0 : 2;
}

/*
 * What xargs reads its names from. It splits them itself: quotes and
 * backslashes are removed, -d/-0 split elsewhere, -I splices a line into
 * a word. Returns 1 when the names are secrets', 2 when the policy cannot
 * know them (escalate), 0 when they were judged.
 * - Its own redirection of fd 0 wins: a here-string or here-document of
 *   plain literal words is read like echo's words; one with a variable,
 *   quotes or backslashes (xargs cat <<< '.\env', "$f"), or read by -d,
 *   -0 or a spliced -I, is unknown; < /dev/null has no names; any other
 *   (< LIST, <> LIST, <&3, < "$f") is a list it cannot see.
 * - A pipe: the stage that prints into it must be one producer_judged()
 *   accepts (cat LIST | xargs cat is a list it cannot see).
 * - Else the agent's standard input, unless the line moves it for a
 *   group, a subshell or the rest of the line ({ xargs cat; } < LIST,
 *   (xargs cat) < LIST, exec < LIST): those are unknown.
 */
static int
xargs_stdin(struct ev *ev, struct cmdv *v, int special)
{
	const struct sh_redir *r, *in = NULL;
	const struct sh_cmd *c;
	int k, p, any = 0;

	for (k = 0; k < v->c->nredir; k++)
		if (redir_stdin(&v->c->redir[k]))
			in = &v->c->redir[k];
	if ((r = in) != NULL) {
		if (r->op == SH_R_HERESTR) {
			if (!an_lit(&r->target) || special ||
			    text_xargs_quoted(r->target.s, r->target.len))
				return 2;
			return text_names_secret(ev, r->target.s,
			    r->target.len);
		}
		if (r->op == SH_R_HEREDOC) {
			if (r->body == NULL || special ||
			    text_xargs_quoted(r->body, r->body_len) ||
			    (!r->body_literal && (memchr(r->body, '$',
			    r->body_len) != NULL || memchr(r->body, '`',
			    r->body_len) != NULL)))
				return 2;
			return text_names_secret(ev, r->body, r->body_len);
		}
		if (r->op == SH_R_IN && an_lit(&r->target) &&
		    strcmp(r->target.s, "/dev/null") == 0)
			return 0;
		/* < <(find src): judged as a pipe from what runs in it */
		if (r->op == SH_R_IN && r->target.flags == SH_W_SUBST &&
		    r->target.len == 0) {
			for (k = 0; k < v->sp->ncmds; k++) {
				c = &v->sp->cmds[k];
				if (c->kind != SH_SIMPLE || c->in_subst != 2 ||
				    (c->argc == 0 && c->nredir == 0))
					continue;
				if (!producer_judged(ev, v->sp, c, special, 0))
					return 2;
				any = 1;
			}
			return any ? 0 : 2;
		}
		return 2;
	}
	if (v->c->pipe_in && v->c->pipeline >= 0)
		return pipe_judged(ev, v->sp, v->c, special, 0);
	for (k = 0; k < v->sp->ncmds; k++) {
		c = &v->sp->cmds[k];
		if (c == v->c || c->kind != SH_SIMPLE)
			continue;
		if (c->argc != 0 && strcmp(c->argv[0].s, "exec") != 0)
			continue;
		for (p = 0; p < c->nredir; p++)
			if (redir_stdin(&c->redir[p]))
				return 2;
	}
	return 0;
}

/* How xargs (v, its command at word k, replace string repl, split when
 * it splits its input itself) knows its names, as a cmdv's extra: 1
 * secrets' names, 2 the project's, 3 a safe lister's; 0 after an
 * escalation, noted. */
static int
xargs_input(struct ev *ev, struct cmdv *v, int k, const char *repl, int split)
{
	int extra, j, ri;

	/* the names on the input: files of the project when a lister of the
	 * project feeds the pipe (find . -name '*.c' | xargs grep x) */
	extra = 2;
	if (v->c->pipe_in && v->c->pipeline >= 0 &&
	    (ev->secret_pipeline == v->c->pipeline ||
	    ev->secret_out == v->c->pipeline) && ev->secret_parse == v->pid)
		extra = 1;
	else if (v->c->pipe_in && v->c->pipeline >= 0 &&
	    ev->list_pipeline == v->c->pipeline && ev->list_parse == v->pid &&
	    ev->list_safe)
		extra = 3;
	/* xargs cat < <(find .): its input read from a process substitution
	 * (or any redirection) after one printed secrets' names */
	for (ri = 0; ev->procsub_secret && ri < v->c->nredir; ri++)
		if (v->c->redir[ri].op == SH_R_IN && redir_stdin(&v->c->redir[ri]))
			extra = 1;
	/* -I {}nv splices input into a word: the names are not words */
	for (j = k; repl != NULL && repl[0] != '\0' && j < v->n; j++)
		if (strstr(v->w[j].s, repl) != NULL &&
		    strcmp(v->w[j].s, repl) != 0)
			split = 1;
	/* xargs cat <<< .env; xargs cat < LIST, cat LIST | xargs cat */
	if ((j = xargs_stdin(ev, v, split)) == 1)
		extra = 1;
	else if (j == 2) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "read", "builtin: xargs",
		    "xargs reads names the policy cannot see before it runs "
		    "(from a file, a variable, or text xargs splits or "
		    "unquotes itself)");
		return 0;
	}
	return extra;
}

void
an_cls_xargs(struct ev *ev, struct cmdv *v)
{
	struct an_walk it;
	struct an_opt o;
	int k = -1, j, r, split = 0;
	const char *repl = NULL;
	char rbuf[256];
	struct cmdv in;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	an_walk_table(&it, &xargs_opts, NULL);
	while ((r = an_opt_next(v, &it, &o)) >= 0) {
		if (r == 0) {
			k = o.k;        /* the command */
			break;
		}
		if (o.d == NULL || o.ambiguous || !an_lit(&v->w[o.k])) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: xargs",
			    "xargs option %s is not one the policy knows",
			    v->w[o.k].s);
			return;
		}
		if (o.d->tag == XA_TTY) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: xargs",
			    "xargs %s needs a terminal", o.name);
			return;
		}
		if (o.d->tag == XA_ENV) {
			/* the slot number goes into the variable it names:
			 * PATH=0 changes what the command's children run */
			if (o.val == NULL || !an_lit(o.val)) {
				ev_note(ev, POLICY_ESCALATE, "shell",
				    "builtin: xargs", "xargs %s sets a variable "
				    "the policy cannot read", o.name);
				return;
			}
			an_check_var_name(ev, o.val->s, NULL,
			    "xargs --process-slot-var");
			continue;
		}
		/* -d: names split at other bytes than a shell's (-0 splits
		 * at NUL, which a literal word cannot hold: a whole text is
		 * one name, which the word check covers) */
		if (strcmp(o.d->opt, "-d") == 0 ||
		    strcmp(o.d->opt, "--delimiter") == 0)
			split = 1;
		if (o.d->kind == OK_NAMES && o.val != NULL && an_lit(o.val) &&
		    strcmp(o.val->s, "/dev/stdin") == 0)
			continue;       /* the input, as without -a */
		if (o.d->kind == OK_NAMES) {
			/* xargs -a LIST cat: the names come from a file */
			an_names_from(ev, "xargs", o.name);
			if (o.val != NULL)
				an_op_read(ev, v, o.val, 0);
			return;
		}
		if (o.d->tag == XA_REPL || o.d->tag == XA_REPL_OPT) {
			if (o.val == NULL && o.d->tag == XA_REPL_OPT)
				repl = "{}";
			else if (o.val == NULL || !an_lit(o.val) ||
			    o.val->len >= sizeof(rbuf)) {
				ev_note(ev, POLICY_ESCALATE, "shell",
				    "builtin: xargs", "xargs %s: a replace "
				    "string the policy cannot read", o.name);
				return;
			} else {
				memcpy(rbuf, o.val->s, o.val->len + 1);
				repl = rbuf;
			}
		}
	}
	if (k < 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: xargs",
		    "xargs without a command: nothing to judge");
		return;
	}
	in = *v;
	in.w = v->w + k;
	in.n = v->n - k;
	if ((in.extra = xargs_input(ev, v, k, repl, split)) == 0)
		return;
	ev->in_child++;
	if (repl == NULL || repl[0] == '\0') {
		an_eval_argv(ev, &in);
		ev->in_child--;
		return;
	}
	/* words holding the replace string carry input data: unknown */
	in.w = malloc((size_t)in.n * sizeof(*in.w));
	if (in.w == NULL) {
		ev_note(ev, POLICY_DENY, "shell", "builtin: memory", "out of memory");
		return;
	}
	for (j = 0; j < in.n; j++) {
		in.w[j] = v->w[k + j];
		if (strstr(in.w[j].s, repl) != NULL) {
			in.w[j].flags |= SH_W_VAR;
			in.w[j].flags &= ~(unsigned)SH_W_LITERAL;
		}
	}
	an_eval_argv(ev, &in);
	ev->in_child--;
	free(in.w);
}

void
an_cls_priv(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	struct an_walk it;
	int k;
	const char *s;

	ev_factor(ev, F_PRIV);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: privilege",
	    "%s runs a command with other privileges", pr->name);
	an_walk_init(&it, 1, pr->optarg, AN_W_NONE);
	while ((k = an_walk_prefix(v, &it, 1)) >= 0) {
		s = v->w[k].s;
		if (an_cluster_takes_next(s, pr->optarg))
			it.k++;
		else if (strcmp(s, "--user") == 0 || strcmp(s, "--group") == 0 ||
		    strcmp(s, "--chdir") == 0 || strcmp(s, "--prompt") == 0)
			it.k++;
	}
	/* the inner command is judged too: sudo rm -rf / is denied */
	inner(ev, v, it.k);
}

void
an_cls_su(struct ev *ev, struct cmdv *v)
{
	int k;

	ev_factor(ev, F_PRIV);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: privilege",
	    "%s runs commands as another user", v->w[0].s);
	for (k = 1; k + 1 < v->n; k++)
		if (an_lit(&v->w[k]) && (strcmp(v->w[k].s, "-c") == 0 ||
		    strcmp(v->w[k].s, "--command") == 0) && an_lit(&v->w[k + 1]))
			an_eval_string(ev, v->w[k + 1].s, v->w[k + 1].len,
			    v->w[0].s, 0);
}

void
an_cls_editor(struct ev *ev, struct cmdv *v)
{
	int k;

	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s;

		if (!an_lit(&v->w[k]) || s[0] == '+' || strcmp(s, "-c") == 0 ||
		    strcmp(s, "--cmd") == 0 || strcmp(s, "-S") == 0 ||
		    strcmp(s, "--eval") == 0 || strcmp(s, "-l") == 0 ||
		    strcmp(s, "--load") == 0 || strcmp(s, "-u") == 0) {
			ev_factor(ev, F_CODE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: editor",
			    "%s %s runs editor commands, which are not analysed",
			    v->w[0].s, s);
			return;
		}
		if (s[0] != '-')
			an_write_word(ev, v, &v->w[k]);
	}
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: editor",
	    "%s is interactive and needs a terminal", v->w[0].s);
}

void
an_cls_kill(struct ev *ev, struct cmdv *v)
{
	int k;

	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s;

		if (!an_lit(&v->w[k]) || strcmp(s, "-1") == 0 || strcmp(s, "0") == 0 ||
		    (s[0] == '-' && s[1] >= '0' && s[1] <= '9' && k + 1 < v->n &&
		    an_lit(&v->w[k + 1]) && v->w[k + 1].s[0] == '-')) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: kill",
			    "kill with a target that may be every process");
			return;
		}
		if (strcmp(s, "-1") == 0) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: kill",
			    "kill -1 signals every process");
			return;
		}
	}
}

void
an_cls_eval(struct ev *ev, struct cmdv *v)
{
	char *buf;
	size_t len = 0, o = 0;
	int k;

	for (k = 1; k < v->n; k++) {
		if (!an_lit(&v->w[k])) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: eval",
			    "eval of text only known at run time");
			return;
		}
		len += v->w[k].len + 1;
	}
	if (len == 0)
		return;
	buf = malloc(len);
	if (buf == NULL) {
		ev_note(ev, POLICY_DENY, "shell", "builtin: memory", "out of memory");
		return;
	}
	for (k = 1; k < v->n; k++) {
		memcpy(buf + o, v->w[k].s, v->w[k].len);
		o += v->w[k].len;
		buf[o++] = ' ';
	}
	/* eval that may not run (false && eval cd x): its cd is unsure */
	k = v->c->cond || v->c->guarded;
	ev->in_child += k;
	an_eval_string(ev, buf, o - 1, "eval", 1);
	ev->in_child -= k;
	free(buf);
}

/* ---- the dispatcher --------------------------------------------------------- */

static int
std_bin_dir(const char *path, size_t dirlen)
{
	static const char *const dirs[] = {
		"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin",
		"/usr/local/sbin", NULL,
	};
	const char *const *d;

	for (d = dirs; *d != NULL; d++)
		if (strlen(*d) == dirlen && strncmp(path, *d, dirlen) == 0)
			return 1;
	return 0;
}

/* Joins words for Bash(...) rules; returns 0 or -1 when too long/unknown. */
static int
rule_text(const struct cmdv *v, const char *name, char *buf, size_t bufsz)
{
	size_t o, n;
	int k;

	o = strlen(name);
	if (o + 1 >= bufsz)
		return -1;
	memcpy(buf, name, o + 1);
	for (k = 1; k < v->n; k++) {
		n = v->w[k].len;
		if (o + 1 + n + 1 >= bufsz)
			return -1;
		buf[o++] = ' ';
		memcpy(buf + o, v->w[k].s, n);
		o += n;
		buf[o] = '\0';
	}
	return 0;
}


static void eval_argv1(struct ev *ev, struct cmdv *v);

/* Wrappers recurse (nice nice ... rm): the depth is capped. */
void
an_eval_argv(struct ev *ev, struct cmdv *v)
{
	if (v->n == 0)
		return;
	if (ev->wraps >= SBX_EV_MAX_WRAPS) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: nesting",
		    "more than %d wrapper commands in a row", SBX_EV_MAX_WRAPS);
		return;
	}
	ev->wraps++;
	eval_argv1(ev, v);
	ev->wraps--;
}

static void
eval_argv1(struct ev *ev, struct cmdv *v)
{
	const struct prog *pr;
	const struct rule *r;
	const char *name, *base_name;
	char norm[SBX_PATH_MAX], text[4096];
	int text_ok, is_file = 0;

	if (!an_lit(&v->w[0])) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: dynamic name",
		    "the command name \"%s\" is only known at run time",
		    v->w[0].s);
		return;
	}
	name = v->w[0].s;
	if (strcmp(name, SH_ARITH) == 0) {
		if (v->n > 1)
			an_arith_text(ev, v->w[1].s);
		return;
	}
	if (name[0] == '\0') {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: empty name",
		    "empty command name");
		return;
	}
	/*
	 * Which program: /usr/bin/rm is rm; any other path (./deploy.sh,
	 * .venv/bin/pip) is a file that runs, named by its last component
	 * for the program table and as typed for the rules.
	 */
	if (strchr(name, '/') != NULL) {
		const char *base;

		if (name[0] == '/' && path_normalize(name, norm, sizeof(norm)) == 0 &&
		    (base = strrchr(norm, '/')) != NULL && base[1] != '\0' &&
		    std_bin_dir(norm, (size_t)(base - norm)))
			name = base + 1;
		else
			is_file = 1;
	}
	base_name = is_file ? strrchr(name, '/') + 1 : name;
	/* The user's rules come first, for scripts too (Bash(./deploy.sh:*)). */
	text_ok = rule_text(v, name, text, sizeof(text)) == 0;
	if (text_ok && (r = rule_find(ev->p, RK_BASH, POLICY_DENY, text,
	    ev->call)) != NULL) {
		ev_note(ev, POLICY_DENY, "shell", r->text,
		    "the policy denies \"%s\"", text);
		return;
	}
	if (text_ok && (r = rule_find(ev->p, RK_BASH, POLICY_ESCALATE, text,
	    ev->call)) != NULL)
		ev_note(ev, POLICY_ESCALATE, "shell", r->text,
		    "the policy escalates \"%s\"", text);
	if (text_ok && !v->extra && (r = rule_find(ev->p, RK_BASH, POLICY_ALLOW,
	    text, ev->call)) != NULL) {
		/* An allow rule settles this simple command, but it is still
		 * judged in full and any denial (self-protection, deny rules,
		 * catastrophes) stands. */
		struct policy_result tmp, *saved = ev->res;
		int saved_rank = ev->rank;

		memset(&tmp, 0, sizeof(tmp));
		ev->res = &tmp;
		ev->rank = 0;
		pr = base_name[0] != '\0' ? an_prog_find(base_name) : NULL;
		if (pr != NULL)
			an_classify(ev, v, pr, base_name);
		ev->res = saved;
		ev->rank = saved_rank;
		saved->factors |= tmp.factors;
		if (tmp.verdict == POLICY_DENY)
			ev_note(ev, POLICY_DENY, tmp.trigger, tmp.rule, "%s",
			    tmp.reason);
		return;
	}
	if (is_file) {
		an_run_file(ev, &v->w[0], name);
		/* .venv/bin/pip, node_modules/.bin/jest, ./rm: judged as the
		 * program they are named after too (findings only add) */
		if (base_name[0] != '\0' && (pr = an_prog_find(base_name)) != NULL)
			an_classify(ev, v, pr, base_name);
		return;
	}
	pr = an_prog_find(name);
	if (pr == NULL) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: unknown program",
		    "%s is not a program the policy knows; a human decides", name);
		return;
	}
	an_classify(ev, v, pr, name);
}

static void
eval_redirs(struct ev *ev, const struct sh_cmd *c)
{
	int k;

	for (k = 0; k < c->nredir; k++) {
		const struct sh_redir *r = &c->redir[k];
		struct cmdv v;
		struct sh_word w0;
		char path[SBX_PATH_MAX];
		int pr;

		w0.s = (char *)"redirection";
		w0.len = 11;
		w0.flags = SH_W_LITERAL;
		v.w = &w0;
		v.n = 1;
		v.c = c;
		v.sp = NULL;
		v.pid = 0;
		v.extra = 0;
		switch (r->op) {
		case SH_R_OUT: case SH_R_APPEND: case SH_R_CLOBBER:
		case SH_R_INOUT: case SH_R_OUTERR: case SH_R_APPENDERR:
			pr = an_word_path(ev, &r->target, path, sizeof(path));
			if (pr == 1)
				trig_write(ev, path, "a redirection");
			else if (pr == -1 && (r->target.flags & SH_W_GLOB))
				an_glob_write(ev, &v, &r->target);
			else
				trig_write(ev, NULL, "a redirection");
			break;
		default:
			break;
		}
		/* < and <> read the file */
		if (r->op == SH_R_IN || r->op == SH_R_INOUT) {
			pr = an_word_path(ev, &r->target, path, sizeof(path));
			if (pr == AN_OPAQUE)
				an_read_opaque(ev, &r->target, "a redirection");
			else if (pr >= 0)
				trig_read(ev, path, "a redirection");
			else if ((r->target.flags & SH_W_GLOB) &&
			    !(r->target.flags & (SH_W_SUBST | SH_W_VAR)))
				an_glob_read(ev, &v, &r->target);
			else if (r->target.flags & SH_W_BRACE)
				an_read_opaque(ev, &r->target, "a redirection");
		}
	}
}

static void expand_braces(struct ev *ev, struct cmdv *v);

/* A command whose output is a number: wc, date +%s, nproc, expr ... */
static int
count_producer(const struct cmdv *v)
{
	static const char *const num[] = {
		"wc", "nproc", "date", "expr", "id", "getconf", SH_ARITH, "true",
		"false", NULL,
	};
	int k;

	if (!an_lit(&v->w[0]))
		return 0;
	for (k = 0; num[k] != NULL; k++)
		if (strcmp(v->w[0].s, num[k]) == 0)
			return 1;
	return 0;
}

/* echo WORDS: prints its words as they are (no -e, no backslash, no
 * glob bash would expand in the output); date: only conversions */
static int
echoes_words(const struct cmdv *v)
{
	int k;

	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s;

		if (!an_lit(&v->w[k]))
			continue;       /* as the variable itself would be */
		if (strcmp(v->w[0].s, "date") == 0) {
			/* +%Y%m%d, -u, --utc: no letters of the line's own */
			if (strcmp(s, "-u") == 0 || strcmp(s, "--utc") == 0)
				continue;
			if (s[0] != '+')
				return 0;
			for (s++; *s != '\0'; s++)
				if (*s == '%' && s[1] != '\0')
					s++;
				else if (strchr("0123456789 :_-,T", *s) == NULL)
					return 0;
			continue;
		}
		if (strpbrk(s, "\\*?[") != NULL || (s[0] == '-' && k == 1 &&
		    strchr(s, 'e') != NULL))
			return 0;
	}
	return 1;
}

/*
 * A command whose output, as words of $(...), can only be names or
 * values the line does not choose: names of files that exist (ls, find,
 * git ls-files; a lister that names secrets says so itself), the working
 * directory, counts, the date, echo's own words (judged as names by
 * an_echo_names). Any other command may print any text: a file's
 * content (cat LIST, head, sed, jq), a commit message, a download, a
 * name built from its arguments (basename .env, printf '\056env', seq
 * -f, expr substr, readlink); a path made of its output is not known
 * (subst_unsafe).
 */
static int
name_producer(const struct cmdv *v)
{
	static const char *const names[] = {
		"arch", "du", "false", "fd", "find", "getconf", "groups",
		"hostname", "id", "logname", "ls", "nproc", "pwd", "true",
		"tty", "uname", "wc", "which", "whoami", SH_ARITH, NULL,
	};
	static const char *const git_names[] = {
		"ls-files", "ls-tree", "merge-base", "rev-parse", NULL,
	};
	int k, j;

	if (!an_lit(&v->w[0]))
		return 0;
	for (k = 0; names[k] != NULL; k++)
		if (strcmp(v->w[0].s, names[k]) == 0)
			return 1;
	if (strcmp(v->w[0].s, "echo") == 0 || strcmp(v->w[0].s, "date") == 0)
		return echoes_words(v);
	if (strcmp(v->w[0].s, "git") != 0)
		return 0;
	/* git [-C DIR] [--opt] SUB: a subcommand that prints names */
	for (k = 1; k < v->n; k++) {
		if (!an_lit(&v->w[k]) || strcmp(v->w[k].s, "-c") == 0)
			return 0;
		if (strcmp(v->w[k].s, "-C") == 0)
			k++;
		else if (v->w[k].s[0] != '-')
			break;
	}
	for (j = 0; k < v->n && git_names[j] != NULL; j++)
		if (strcmp(v->w[k].s, git_names[j]) == 0)
			return 1;
	return 0;
}

static void
eval_simple(struct ev *ev, struct sh_parse *sp, const struct sh_cmd *c, int pid)
{
	struct cmdv v;
	int i;

	for (i = 0; i < c->argc && (c->argv[i].flags & SH_W_ASSIGN); i++)
		an_check_assign(ev, c->argv[i].s);
	eval_redirs(ev, c);
	if (i == c->argc && c->in_subst == 1) {
		int k;

		/* $(< LIST): bash prints the file */
		for (k = 0; k < c->nredir; k++)
			if (c->redir[k].op == SH_R_IN || c->redir[k].op == SH_R_INOUT)
				ev->subst_unsafe = ev->subst_nonnum = 1;
	}
	if (i == c->argc) {
		/* NAME=value alone sets a shell variable for what follows */
		for (i = 0; i < c->argc; i++)
			an_remember_var(ev, &c->argv[i]);
		return;
	}
	v.w = c->argv + i;
	v.n = c->argc - i;
	v.c = c;
	v.sp = sp;
	v.pid = pid;
	v.extra = 0;
	/* ( (find .) | sort) | xargs cat: a stage fed with secrets' names
	 * passes them on into the pipe its list's output goes to */
	if (c->out_pipeline >= 0 && ev->secret_parse == pid && c->pipeline >= 0 &&
	    (c->pipeline == ev->secret_pipeline || c->pipeline == ev->secret_out))
		ev->secret_out = c->out_pipeline;
	expand_braces(ev, &v);
	if (c->in_subst && !count_producer(&v))
		ev->subst_nonnum = 1;
	/* cat $(cat LIST): the output of $(...) becomes the path */
	if (c->in_subst == 1 && !name_producer(&v))
		ev->subst_unsafe = 1;
	an_eval_argv(ev, &v);
}

static void
add_word(struct ev *ev, struct cmdv *v, struct sh_word *w)
{
	struct sh_word *nw = ev->bx_words;

	(void)v;
	if (ev->bx_n >= SH_MAX_WORDS || nw == NULL) {
		ev->bx_bad = 1;
		return;
	}
	nw[ev->bx_n] = *w;
	nw[ev->bx_n].s = sh_strdup(ev->bx_sp, w->s, w->len);
	if (nw[ev->bx_n].s == NULL)
		ev->bx_bad = 1;
	else
		ev->bx_n++;
}

/*
 * Brace expansion happens before anything else reads the words: cp
 * file{,.orig} is cp file file.orig, {rm,-rf,/} is rm -rf /. The words of
 * v are replaced by their expansion (bounded; left as they are when it
 * cannot be done, and then judged as words that cannot be known).
 */
static void
expand_braces(struct ev *ev, struct cmdv *v)
{
	struct sh_word *nw;
	int k, any = 0;

	for (k = 0; k < v->n; k++)
		if ((v->w[k].flags & SH_W_BRACE) &&
		    !(v->w[k].flags & (SH_W_VAR | SH_W_SUBST)))
			any = 1;
	if (!any || v->sp == NULL)
		return;
	nw = malloc(SH_MAX_WORDS * sizeof(*nw));
	if (nw == NULL)
		return;
	ev->bx_words = nw;
	ev->bx_n = 0;
	ev->bx_bad = 0;
	ev->bx_sp = v->sp;
	for (k = 0; k < v->n && !ev->bx_bad; k++) {
		if ((v->w[k].flags & SH_W_BRACE) &&
		    !(v->w[k].flags & (SH_W_VAR | SH_W_SUBST))) {
			if (an_brace_each(ev, v, &v->w[k], add_word) < 0)
				ev->bx_bad = 1;
		} else {
			add_word(ev, v, &v->w[k]);
		}
	}
	if (!ev->bx_bad && ev->bx_n > 0) {
		struct sh_word *keep = (struct sh_word *)sh_strdup(v->sp,
		    (const char *)nw, (size_t)ev->bx_n * sizeof(*nw));

		if (keep != NULL) {
			v->w = keep;
			v->n = ev->bx_n;
		}
	}
	ev->bx_words = NULL;
	free(nw);
}

/*
 * A command that names secrets on its output (echo ~/.ssh/id_rsa, find ~,
 * ls ~/.aws): what reads the names it prints (xargs cat, cat $(...), a
 * variable set from it) reads secrets. Called by the handlers of echo,
 * printf and the listers.
 */
void
an_names_secret(struct ev *ev, struct cmdv *v)
{
	/* $(...): its output becomes words (<(...) gives a pipe's name) */
	if (v->c->in_subst == 1)
		ev->subst_unsafe = 1;
	/* <(...): a pipe's name, which xargs may read (xargs cat < <(find .)) */
	if (v->c->in_subst == 2)
		ev->procsub_secret = 1;
	ev->secret_out = v->c->out_pipeline;
	if (v->c->pipeline >= 0) {
		ev->secret_pipeline = v->c->pipeline;
		ev->secret_parse = v->pid;
	}
}

/*
 * 1 when what v prints goes on to a later stage of its pipeline (find .
 * | xargs cat, (find .; ls) | cat), becomes words ($(...)) or is read
 * through a pipe's name (<(...)): the names a lister prints may then be
 * read.
 */
int
an_output_used(const struct cmdv *v)
{
	/* a command that is a stage of its own is followed by "|" (its
	 * conn); one nested in a stage knows the pipe it prints into */
	return v->c->in_subst != 0 || v->c->conn == SH_C_PIPE ||
	    v->c->out_pipeline >= 0;
}

/* echo and printf: a word that names a secret is printed. */
void
an_echo_names(struct ev *ev, struct cmdv *v)
{
	char path[SBX_PATH_MAX];
	int k;

	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s;

		/* only words that look like paths: ~/x, ./x, a/b, .env */
		if (s[0] != '~' && s[0] != '.' && s[0] != '/' &&
		    s[0] != SH_VAR_MARK && strchr(s, '/') == NULL)
			continue;
		if (an_word_path(ev, &v->w[k], path, sizeof(path)) < 0)
			continue;
		if (trig_is_secret(ev, path, 0)) {
			an_names_secret(ev, v);
			return;
		}
	}
}

static int
push_cwd(struct ev *ev)
{
	if (ev->capstack == 0) {
		/* the first levels live in struct ev itself */
		ev->stack = ev->stack0;
		ev->stack_known = ev->known0;
		ev->capstack = SBX_EV_STACK0;
	}
	if (ev->nstack == ev->capstack) {
		int cap = ev->capstack * 2;
		char (*ns)[SBX_PATH_MAX];
		int *nk;

		if (cap > 4 * SH_MAX_DEPTH + 16)
			return -1;
		if (ev->stack == ev->stack0) {
			/* leaving struct ev: copy what it held */
			ns = malloc((size_t)cap * sizeof(*ns));
			nk = malloc((size_t)cap * sizeof(*nk));
			if (ns == NULL || nk == NULL) {
				free(ns);
				free(nk);
				return -1;
			}
			memcpy(ns, ev->stack0, sizeof(ev->stack0));
			memcpy(nk, ev->known0, sizeof(ev->known0));
		} else {
			/* realloc: a large stack moves without a copy */
			if ((ns = realloc(ev->stack, (size_t)cap *
			    sizeof(*ns))) == NULL)
				return -1;
			ev->stack = ns;
			if ((nk = realloc(ev->stack_known, (size_t)cap *
			    sizeof(*nk))) == NULL)
				return -1;
		}
		ev->stack = ns;
		ev->stack_known = nk;
		ev->capstack = cap;
	}
	/* cwd is a string shorter than its buffer (copied with its NUL) */
	memcpy(ev->stack[ev->nstack], ev->cwd, strlen(ev->cwd) + 1);
	ev->stack_known[ev->nstack] = ev->cwd_known;
	ev->nstack++;
	return 0;
}

static void
pop_cwd(struct ev *ev, int to)
{
	while (ev->nstack > to) {
		ev->nstack--;
		memcpy(ev->cwd, ev->stack[ev->nstack],
		    strlen(ev->stack[ev->nstack]) + 1);
		ev->cwd_known = ev->stack_known[ev->nstack];
	}
}

/*
 * Judges a line of shell code. same_shell: it runs in the current shell
 * (eval), so its cd stays in effect after it; otherwise it is a child
 * (bash -c, a here-document fed to sh) and the directory is restored.
 */
void
an_eval_string(struct ev *ev, const char *text, size_t len,
    const char *what, int same_shell)
{
	struct sh_parse sp;
	int k, base, floor, pid, rc;

	if (ev->strings >= SBX_EV_MAX_STRINGS) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: nesting",
		    "commands nested in strings more than %d deep",
		    SBX_EV_MAX_STRINGS);
		return;
	}
	if (an_fork_bomb(text, len)) {
		ev_factor(ev, F_CATASTROPHIC);
		ev_note(ev, POLICY_DENY, "shell", "builtin: catastrophic",
		    "a fork bomb exhausts the machine");
		return;
	}
	rc = sh_parse(text, len, ev->strings * 4, &sp);
	if (rc < 0) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: parse",
		    "%s cannot be analysed with certainty: %s", ev->strings ?
		    what : "the command", sp.problem);
	}
	ev->strings++;
	pid = ++ev->parses;
	base = ev->nstack;
	if (!same_shell && push_cwd(ev) < 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: nesting",
		    "subshells nested too deep");
		goto out;
	}
	floor = ev->nstack;     /* the line's own subshells pop down to here */
	for (k = 0; k < sp.ncmds; k++) {
		const struct sh_cmd *c = &sp.cmds[k];

		if (c->kind == SH_PUSH) {
			if (push_cwd(ev) < 0) {
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: nesting",
				    "subshells nested too deep");
				break;
			}
		} else if (c->kind == SH_POP) {
			if (ev->nstack > floor)
				pop_cwd(ev, ev->nstack - 1);
		} else if (c->kind == SH_SIMPLE) {
			eval_simple(ev, &sp, c, pid);
			if (!c->in_subst)
				ev->subst_unsafe = ev->subst_nonnum = 0;
			/* a cd that may have failed holds only along its && chain */
			if (ev->cwd_tentative && c->conn != SH_C_AND) {
				ev->cwd_tentative = 0;
				ev->cwd_known = 0;
			}
		}
	}
	/* a child's cd ends with it; eval's stays */
	pop_cwd(ev, same_shell ? floor : base);
out:
	ev->strings--;
	sh_parse_free(&sp);
}

void
shell_eval(struct ev *ev, const char *text, size_t len)
{
	an_eval_string(ev, text, len, "the command", 0);
}
