/*
 * interactive.c - options and subcommands that keep a program reading
 * commands from its input; see interactive.h.
 *
 * The programs without a script (bash, python3, node ...) are escalated
 * by code.c already ("reads commands from its input"); this table covers
 * the ways to stay interactive while naming a script or arguments.
 * Matching is on literal words before the first operand.
 */
#include "policy/interactive.h"

#include <string.h>

struct repl_flag {
	const char *prog;       /* name, or prefix when it ends in '*' */
	const char *opt;        /* exact word, or "-X" meaning X in a short cluster */
	int cluster;            /* 1: opt is a letter allowed inside -abc */
	const char *what;
	int not_with_c;         /* a shell's -c STRING wins over it */
};

static const struct repl_flag flags[] = {
	{ "python*", "i", 1, "opens its prompt after the script (-i)", 0 },
	{ "pypy*", "i", 1, "opens its prompt after the script (-i)", 0 },
	{ "node", "-i", 0, "opens its prompt (-i)", 0 },
	{ "node", "--interactive", 0, "opens its prompt (--interactive)", 0 },
	{ "lua*", "i", 1, "opens its prompt after the script (-i)", 0 },
	{ "php", "a", 1, "runs its interactive shell (-a)", 0 },
	{ "perl", "-d", 0, "runs the script under its debugger prompt (-d)", 0 },
	{ "ruby", "--irb", 0, "opens irb", 0 },
	/* shells: -s reads the commands from stdin, the operands are $1 ... */
	{ "sh", "s", 1, "reads its commands from stdin (-s)", 1 },
	{ "bash", "s", 1, "reads its commands from stdin (-s)", 1 },
	{ "dash", "s", 1, "reads its commands from stdin (-s)", 1 },
	{ "zsh", "s", 1, "reads its commands from stdin (-s)", 1 },
	{ "ksh", "s", 1, "reads its commands from stdin (-s)", 1 },
	{ "mksh", "s", 1, "reads its commands from stdin (-s)", 1 },
	{ "sh", "i", 1, "runs as an interactive shell (-i)", 1 },
	{ "bash", "i", 1, "runs as an interactive shell (-i)", 1 },
	{ "dash", "i", 1, "runs as an interactive shell (-i)", 1 },
	{ "zsh", "i", 1, "runs as an interactive shell (-i)", 1 },
	{ "ksh", "i", 1, "runs as an interactive shell (-i)", 1 },
	{ "mksh", "i", 1, "runs as an interactive shell (-i)", 1 },
	{ NULL, NULL, 0, NULL, 0 },
};

/* The first operand that starts a prompt or a debugger. */
static const struct {
	const char *prog, *sub, *what;
} subs[] = {
	{ "node", "inspect", "runs the script under its debugger prompt" },
	{ "node", "debug", "runs the script under its debugger prompt" },
	{ "bun", "repl", "opens its prompt" },
	{ "deno", "repl", "opens its prompt" },
	{ NULL, NULL, NULL },
};

static int
prog_is(const char *pat, const char *name)
{
	size_t n = strlen(pat);

	if (n > 0 && pat[n - 1] == '*')
		return strncmp(name, pat, n - 1) == 0;
	return strcmp(name, pat) == 0;
}

static void
note(struct ev *ev, const char *name, const char *what)
{
	ev_factor(ev, F_CODE | F_UNKNOWN);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: interactive",
	    "%s %s: it keeps reading commands from its input, and input sent to "
	    "a running program (Codex's write_stdin) never passes sbx", name, what);
}

void
an_interactive(struct ev *ev, struct cmdv *v, const char *name,
    const char *optarg)
{
	const struct repl_flag *f;
	const char *s;
	struct an_walk it;
	int k, i;

	an_walk_init(&it, 1, NULL, AN_W_NONE);
	while ((k = an_walk_prefix(v, &it, 1)) >= 0) {
		s = v->w[k].s;
		for (f = flags; f->prog; f++) {
			if (!prog_is(f->prog, name))
				continue;
			/* a cluster's letters up to one that takes a value
			 * (python -Wignore: "ignore" is -W's) */
			if (f->cluster ? (s[1] != '-' && memchr(s + 1, f->opt[0],
			    strcspn(s + 1, optarg)) != NULL &&
			    strchr(s, '=') == NULL && !(f->not_with_c && strchr(s, 'c'))) :
			    strcmp(s, f->opt) == 0) {
				note(ev, name, f->what);
				return;
			}
		}
		/* python -c CODE, -m MOD, node -e CODE: what follows is no operand */
		if (s[1] != '-' && strpbrk(s + 1, "cemWXr") != NULL && k + 1 < v->n &&
		    strchr("cemWXr", s[strlen(s) - 1]) != NULL)
			it.k++;
	}
	/* the first operand, unless "--" came before it: a subcommand */
	if (it.dashdash || it.k >= v->n || !an_lit(&v->w[it.k]))
		return;
	s = v->w[it.k].s;
	for (i = 0; subs[i].prog; i++)
		if (strcmp(subs[i].prog, name) == 0 && strcmp(subs[i].sub, s) == 0)
			note(ev, name, subs[i].what);
}
