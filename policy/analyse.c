/*
 * analyse.c - classifies each simple command of a shell line (see shell.h
 * for the parse) against what the policy allows.
 *
 * Rules:
 * - Every simple command of the line is judged on its own; the line gets
 *   the worst verdict. A rule that allows "git status" allows exactly that
 *   simple command, never what follows it.
 * - A program the table below does not know escalates. A command name
 *   that is not a literal word escalates. Code inside strings (bash -c,
 *   eval, find -exec, xargs, here-strings into a shell) is parsed and
 *   judged like the line itself, up to SBX_EV_MAX_STRINGS levels.
 * - Code the analyser cannot read (python -c, awk with system(), sed e,
 *   text piped into a shell) escalates and says why.
 * - Writes, reads and network use found here go through the triggers
 *   (trigger.c), so a redirection, rm, cp, sed -i and Write are judged by
 *   the same rules.
 */
#include "policy/internal.h"

#include <fnmatch.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

enum cls {
	C_NOFILE,       /* no file arguments: echo, pwd */
	C_READ,         /* arguments are files it reads */
	C_GREP,         /* first argument a pattern, then files */
	C_WRITE,        /* arguments are files it writes */
	C_MODE,         /* chmod/chown: first argument a mode, then files */
	C_CPMV,         /* cp/mv/ln/install: last argument written */
	C_DD,
	C_PRIV,         /* sudo, doas: privilege change, then a command */
	C_ADMIN,        /* system administration: escalate */
	C_CATA,         /* mkfs and friends: deny */
	C_NET,          /* curl, ssh ...: network */
	C_SHELL,        /* sh, bash ...: -c strings, scripts, stdin */
	C_INTERP,       /* python, node ...: inline code, scripts */
	C_WRAP,         /* nice, timeout ...: then a command */
	C_BUILD,        /* make, cargo ...: runs project code */
	C_CLI,          /* known CLIs (cloud, containers): only --help passes */
	C_GIT, C_FIND, C_SED, C_AWK, C_CD, C_SOURCE, C_EVAL, C_XARGS, C_ENV,
	C_SU, C_EDITOR, C_KILL, C_ESC,
};

struct prog {
	const char *name;
	enum cls cls;
	const char *optarg;     /* short options that take a value */
	int npos;               /* C_WRAP: positional words before the command */
};

/* Sorted by name (strcmp): looked up with bsearch. */
static const struct prog progs[] = {
	{ ".", C_SOURCE, "", 0 },
	{ ":", C_NOFILE, "", 0 },
	{ "[", C_NOFILE, "", 0 },
	{ "[[", C_NOFILE, "", 0 },
	{ "alias", C_ESC, "", 0 },
	{ "apk", C_ADMIN, "", 0 },
	{ "apt", C_ADMIN, "", 0 },
	{ "apt-get", C_ADMIN, "", 0 },
	{ "arch", C_NOFILE, "", 0 },
	{ "awk", C_AWK, "Ffv", 0 },
	{ "aws", C_CLI, "", 0 },
	{ "az", C_CLI, "", 0 },
	{ "b2sum", C_READ, "", 0 },
	{ "base32", C_READ, "w", 0 },
	{ "base64", C_READ, "w", 0 },
	{ "basename", C_NOFILE, "s", 0 },
	{ "bash", C_SHELL, "oO", 0 },
	{ "bat", C_READ, "lmr", 0 },
	{ "bg", C_NOFILE, "", 0 },
	{ "blkdiscard", C_CATA, "", 0 },
	{ "break", C_NOFILE, "", 0 },
	{ "brew", C_CLI, "", 0 },
	{ "builtin", C_WRAP, "", 0 },
	{ "bun", C_BUILD, "", 0 },
	{ "bunx", C_CLI, "", 0 },
	{ "bzcat", C_READ, "", 0 },
	{ "c++", C_BUILD, "", 0 },
	{ "cal", C_NOFILE, "", 0 },
	{ "cargo", C_BUILD, "", 0 },
	{ "cat", C_READ, "", 0 },
	{ "cc", C_BUILD, "", 0 },
	{ "cd", C_CD, "", 0 },
	{ "cdk", C_CLI, "", 0 },
	{ "cfdisk", C_CATA, "", 0 },
	{ "chattr", C_ADMIN, "", 0 },
	{ "chgrp", C_MODE, "", 0 },
	{ "chmod", C_MODE, "", 0 },
	{ "chown", C_MODE, "", 0 },
	{ "chpasswd", C_ADMIN, "", 0 },
	{ "chroot", C_ADMIN, "", 0 },
	{ "chrt", C_WRAP, "", 1 },
	{ "cksum", C_READ, "", 0 },
	{ "clang", C_BUILD, "", 0 },
	{ "clear", C_NOFILE, "", 0 },
	{ "cmake", C_BUILD, "", 0 },
	{ "cmp", C_READ, "in", 0 },
	{ "column", C_READ, "stoc", 0 },
	{ "comm", C_READ, "", 0 },
	{ "command", C_WRAP, "", 0 },
	{ "continue", C_NOFILE, "", 0 },
	{ "cp", C_CPMV, "tS", 0 },
	{ "crontab", C_ADMIN, "", 0 },
	{ "cryptsetup", C_ADMIN, "", 0 },
	{ "curl", C_NET, "odFTKHXAeuEbcrwmyYzx", 0 },
	{ "cut", C_READ, "bcdf", 0 },
	{ "dash", C_SHELL, "oO", 0 },
	{ "date", C_NOFILE, "drf", 0 },
	{ "dd", C_DD, "", 0 },
	{ "declare", C_NOFILE, "", 0 },
	{ "df", C_NOFILE, "", 0 },
	{ "diff", C_READ, "CUIFSxX", 0 },
	{ "dig", C_NET, "", 0 },
	{ "dirname", C_NOFILE, "", 0 },
	{ "disown", C_NOFILE, "", 0 },
	{ "dnf", C_ADMIN, "", 0 },
	{ "doas", C_PRIV, "uC", 0 },
	{ "docker", C_CLI, "", 0 },
	{ "dpkg", C_ADMIN, "", 0 },
	{ "du", C_READ, "dBt", 0 },
	{ "echo", C_NOFILE, "", 0 },
	{ "egrep", C_GREP, "efABCmd", 0 },
	{ "emacs", C_EDITOR, "", 0 },
	{ "env", C_ENV, "", 0 },
	{ "eval", C_EVAL, "", 0 },
	{ "exec", C_WRAP, "a", 0 },
	{ "exit", C_NOFILE, "", 0 },
	{ "expand", C_READ, "t", 0 },
	{ "export", C_NOFILE, "", 0 },
	{ "expr", C_NOFILE, "", 0 },
	{ "factor", C_NOFILE, "", 0 },
	{ "false", C_NOFILE, "", 0 },
	{ "fd", C_READ, "tedESxX", 0 },
	{ "fdisk", C_CATA, "", 0 },
	{ "fg", C_NOFILE, "", 0 },
	{ "fgrep", C_GREP, "efABCmd", 0 },
	{ "file", C_READ, "fmFP", 0 },
	{ "find", C_FIND, "", 0 },
	{ "fish", C_SHELL, "", 0 },
	{ "fmt", C_READ, "w", 0 },
	{ "fold", C_READ, "w", 0 },
	{ "for", C_NOFILE, "", 0 },
	{ "free", C_NOFILE, "", 0 },
	{ "ftp", C_NET, "", 0 },
	{ "g++", C_BUILD, "", 0 },
	{ "gawk", C_AWK, "Ffv", 0 },
	{ "gcc", C_BUILD, "", 0 },
	{ "gcloud", C_CLI, "", 0 },
	{ "getconf", C_NOFILE, "", 0 },
	{ "gh", C_CLI, "", 0 },
	{ "git", C_GIT, "", 0 },
	{ "go", C_BUILD, "", 0 },
	{ "gradle", C_BUILD, "", 0 },
	{ "grep", C_GREP, "efABCmd", 0 },
	{ "groupadd", C_ADMIN, "", 0 },
	{ "groups", C_NOFILE, "", 0 },
	{ "halt", C_ADMIN, "", 0 },
	{ "hash", C_ESC, "", 0 },
	{ "head", C_READ, "nc", 0 },
	{ "helm", C_CLI, "", 0 },
	{ "hexdump", C_READ, "nsen", 0 },
	{ "history", C_NOFILE, "", 0 },
	{ "host", C_NET, "", 0 },
	{ "hostname", C_NOFILE, "", 0 },
	{ "iconv", C_READ, "fto", 0 },
	{ "id", C_NOFILE, "", 0 },
	{ "insmod", C_ADMIN, "", 0 },
	{ "install", C_CPMV, "tSmogb", 0 },
	{ "ionice", C_WRAP, "cnp", 0 },
	{ "ip6tables", C_ADMIN, "", 0 },
	{ "iptables", C_ADMIN, "", 0 },
	{ "jest", C_BUILD, "", 0 },
	{ "jobs", C_NOFILE, "", 0 },
	{ "join", C_READ, "12jteo", 0 },
	{ "jq", C_READ, "fL", 0 },
	{ "kill", C_KILL, "sn", 0 },
	{ "killall", C_ESC, "", 0 },
	{ "ksh", C_SHELL, "oO", 0 },
	{ "kubectl", C_CLI, "", 0 },
	{ "launchctl", C_ADMIN, "", 0 },
	{ "less", C_READ, "", 0 },
	{ "ln", C_CPMV, "tS", 0 },
	{ "local", C_NOFILE, "", 0 },
	{ "locale", C_NOFILE, "", 0 },
	{ "logname", C_NOFILE, "", 0 },
	{ "losetup", C_ADMIN, "", 0 },
	{ "ls", C_READ, "ITw", 0 },
	{ "lsblk", C_NOFILE, "", 0 },
	{ "lscpu", C_NOFILE, "", 0 },
	{ "lua", C_INTERP, "", 0 },
	{ "make", C_BUILD, "CfIjlWo", 0 },
	{ "man", C_NOFILE, "", 0 },
	{ "mawk", C_AWK, "Ffv", 0 },
	{ "md5sum", C_READ, "", 0 },
	{ "meson", C_BUILD, "", 0 },
	{ "mkdir", C_WRITE, "m", 0 },
	{ "mke2fs", C_CATA, "", 0 },
	{ "mkfs", C_CATA, "", 0 },
	{ "mkswap", C_CATA, "", 0 },
	{ "mktemp", C_ESC, "", 0 },
	{ "mocha", C_BUILD, "", 0 },
	{ "modprobe", C_ADMIN, "", 0 },
	{ "more", C_READ, "", 0 },
	{ "mount", C_ADMIN, "", 0 },
	{ "mv", C_CPMV, "tS", 0 },
	{ "mvn", C_BUILD, "", 0 },
	{ "nano", C_EDITOR, "", 0 },
	{ "nawk", C_AWK, "Ffv", 0 },
	{ "nc", C_NET, "psw", 0 },
	{ "ncat", C_NET, "psw", 0 },
	{ "netcat", C_NET, "psw", 0 },
	{ "nft", C_ADMIN, "", 0 },
	{ "nice", C_WRAP, "n", 0 },
	{ "ninja", C_BUILD, "Cfjlk", 0 },
	{ "nl", C_READ, "bdfhilnsvw", 0 },
	{ "node", C_INTERP, "", 0 },
	{ "nodejs", C_INTERP, "", 0 },
	{ "nohup", C_WRAP, "", 0 },
	{ "npm", C_BUILD, "", 0 },
	{ "nproc", C_NOFILE, "", 0 },
	{ "npx", C_CLI, "", 0 },
	{ "nslookup", C_NET, "", 0 },
	{ "numfmt", C_NOFILE, "", 0 },
	{ "nvim", C_EDITOR, "", 0 },
	{ "od", C_READ, "AjNtw", 0 },
	{ "parted", C_CATA, "", 0 },
	{ "passwd", C_ADMIN, "", 0 },
	{ "paste", C_READ, "d", 0 },
	{ "perl", C_INTERP, "", 0 },
	{ "pgrep", C_NOFILE, "", 0 },
	{ "php", C_INTERP, "", 0 },
	{ "ping", C_NET, "cWiIst", 0 },
	{ "pip", C_CLI, "", 0 },
	{ "pip3", C_CLI, "", 0 },
	{ "pkexec", C_PRIV, "", 0 },
	{ "pkill", C_ESC, "", 0 },
	{ "pnpm", C_BUILD, "", 0 },
	{ "podman", C_CLI, "", 0 },
	{ "popd", C_CD, "", 0 },
	{ "poweroff", C_ADMIN, "", 0 },
	{ "printenv", C_NOFILE, "", 0 },
	{ "printf", C_NOFILE, "v", 0 },
	{ "ps", C_NOFILE, "", 0 },
	{ "pushd", C_CD, "", 0 },
	{ "pwd", C_NOFILE, "", 0 },
	{ "py.test", C_BUILD, "", 0 },
	{ "pytest", C_BUILD, "", 0 },
	{ "python", C_INTERP, "", 0 },
	{ "python2", C_INTERP, "", 0 },
	{ "python3", C_INTERP, "", 0 },
	{ "read", C_NOFILE, "", 0 },
	{ "readlink", C_READ, "", 0 },
	{ "readonly", C_NOFILE, "", 0 },
	{ "realpath", C_READ, "", 0 },
	{ "reboot", C_ADMIN, "", 0 },
	{ "return", C_NOFILE, "", 0 },
	{ "rev", C_READ, "", 0 },
	{ "rg", C_GREP, "efABCmgtTjMEr", 0 },
	{ "rm", C_WRITE, "", 0 },
	{ "rmdir", C_WRITE, "", 0 },
	{ "rmmod", C_ADMIN, "", 0 },
	{ "rpm", C_ADMIN, "", 0 },
	{ "rsync", C_NET, "e", 0 },
	{ "ruby", C_INTERP, "", 0 },
	{ "run0", C_PRIV, "", 0 },
	{ "runuser", C_SU, "", 0 },
	{ "rustc", C_BUILD, "", 0 },
	{ "scp", C_NET, "cFiloPS", 0 },
	{ "sed", C_SED, "", 0 },
	{ "seq", C_NOFILE, "fs", 0 },
	{ "service", C_ADMIN, "", 0 },
	{ "set", C_NOFILE, "", 0 },
	{ "setcap", C_ADMIN, "", 0 },
	{ "setfacl", C_ADMIN, "", 0 },
	{ "setsid", C_WRAP, "", 0 },
	{ "sfdisk", C_CATA, "", 0 },
	{ "sftp", C_NET, "", 0 },
	{ "sgdisk", C_CATA, "", 0 },
	{ "sh", C_SHELL, "oO", 0 },
	{ "sha1sum", C_READ, "", 0 },
	{ "sha224sum", C_READ, "", 0 },
	{ "sha256sum", C_READ, "", 0 },
	{ "sha384sum", C_READ, "", 0 },
	{ "sha512sum", C_READ, "", 0 },
	{ "shift", C_NOFILE, "", 0 },
	{ "shopt", C_NOFILE, "", 0 },
	{ "shred", C_WRITE, "nsu", 0 },
	{ "shutdown", C_ADMIN, "", 0 },
	{ "sleep", C_NOFILE, "", 0 },
	{ "socat", C_NET, "", 0 },
	{ "sort", C_READ, "ktSTo", 0 },
	{ "source", C_SOURCE, "", 0 },
	{ "ssh", C_NET, "bcDEeFIiJLlmOopQRSWw", 0 },
	{ "stat", C_READ, "cf", 0 },
	{ "stdbuf", C_WRAP, "ioe", 0 },
	{ "strings", C_READ, "nte", 0 },
	{ "su", C_SU, "", 0 },
	{ "sudo", C_PRIV, "ugCDhprtUT", 0 },
	{ "swapoff", C_ADMIN, "", 0 },
	{ "swapon", C_ADMIN, "", 0 },
	{ "sysctl", C_ADMIN, "", 0 },
	{ "systemctl", C_ADMIN, "", 0 },
	{ "tac", C_READ, "s", 0 },
	{ "tail", C_READ, "ncs", 0 },
	{ "taskset", C_WRAP, "", 1 },
	{ "tee", C_WRITE, "", 0 },
	{ "telnet", C_NET, "", 0 },
	{ "terraform", C_CLI, "", 0 },
	{ "test", C_NOFILE, "", 0 },
	{ "time", C_WRAP, "fo", 0 },
	{ "timeout", C_WRAP, "sk", 1 },
	{ "tofu", C_CLI, "", 0 },
	{ "touch", C_WRITE, "dtr", 0 },
	{ "tput", C_NOFILE, "", 0 },
	{ "tr", C_NOFILE, "", 0 },
	{ "trap", C_ESC, "", 0 },
	{ "tree", C_READ, "LPIo", 0 },
	{ "true", C_NOFILE, "", 0 },
	{ "truncate", C_WRITE, "sr", 0 },
	{ "tsc", C_BUILD, "", 0 },
	{ "tty", C_NOFILE, "", 0 },
	{ "type", C_NOFILE, "", 0 },
	{ "typeset", C_NOFILE, "", 0 },
	{ "ufw", C_ADMIN, "", 0 },
	{ "ulimit", C_NOFILE, "", 0 },
	{ "umask", C_NOFILE, "", 0 },
	{ "umount", C_ADMIN, "", 0 },
	{ "uname", C_NOFILE, "", 0 },
	{ "unbuffer", C_WRAP, "", 0 },
	{ "unexpand", C_READ, "t", 0 },
	{ "uniq", C_READ, "fsw", 0 },
	{ "unlink", C_WRITE, "", 0 },
	{ "unset", C_NOFILE, "", 0 },
	{ "uptime", C_NOFILE, "", 0 },
	{ "useradd", C_ADMIN, "", 0 },
	{ "userdel", C_ADMIN, "", 0 },
	{ "usermod", C_ADMIN, "", 0 },
	{ "users", C_NOFILE, "", 0 },
	{ "uv", C_CLI, "", 0 },
	{ "vi", C_EDITOR, "", 0 },
	{ "vim", C_EDITOR, "", 0 },
	{ "visudo", C_ADMIN, "", 0 },
	{ "vitest", C_BUILD, "", 0 },
	{ "w", C_NOFILE, "", 0 },
	{ "wait", C_NOFILE, "", 0 },
	{ "wc", C_READ, "", 0 },
	{ "wget", C_NET, "OoPaeUTtwi", 0 },
	{ "whereis", C_NOFILE, "", 0 },
	{ "which", C_NOFILE, "", 0 },
	{ "who", C_NOFILE, "", 0 },
	{ "whoami", C_NOFILE, "", 0 },
	{ "wipefs", C_CATA, "", 0 },
	{ "xargs", C_XARGS, "", 0 },
	{ "xxd", C_READ, "cglos", 0 },
	{ "xzcat", C_READ, "", 0 },
	{ "yarn", C_BUILD, "", 0 },
	{ "yes", C_NOFILE, "", 0 },
	{ "yum", C_ADMIN, "", 0 },
	{ "zcat", C_READ, "", 0 },
	{ "zsh", C_SHELL, "oO", 0 },
	{ "zypper", C_ADMIN, "", 0 },
};

#define NPROGS ((int)(sizeof(progs) / sizeof(progs[0])))

static int
prog_cmp(const void *k, const void *e)
{
	return strcmp(k, ((const struct prog *)e)->name);
}

/* The table must be sorted for bsearch; checked once, fail closed. */
static int
progs_sorted(void)
{
	static int state;       /* 0 unknown, 1 sorted, -1 not */
	int k;

	if (state == 0) {
		state = 1;
		for (k = 1; k < NPROGS; k++)
			if (strcmp(progs[k - 1].name, progs[k].name) >= 0)
				state = -1;
	}
	return state > 0;
}

static const struct prog *
prog_find(const char *name)
{
	if (!progs_sorted())
		return NULL;    /* every program unknown: escalate */
	if (strncmp(name, "mkfs.", 5) == 0)
		return prog_find("mkfs");
	if (strncmp(name, "python3.", 8) == 0)
		return prog_find("python3");
	return bsearch(name, progs, (size_t)NPROGS, sizeof(progs[0]), prog_cmp);
}

/* A view of words: the command being judged. */
struct cmdv {
	struct sh_word *w;
	int n;
	const struct sh_cmd *c;         /* the simple command it came from */
	struct sh_parse *sp;            /* for allocations */
	int pid;                        /* parse id, for pipeline tracking */
	int extra;                      /* xargs/find -exec add unknown words */
};

static void eval_string(struct ev *ev, const char *text, size_t len,
    const char *what);
static void eval_argv(struct ev *ev, struct cmdv *v);

static int
lit(const struct sh_word *w)
{
	return (w->flags & SH_W_LITERAL) != 0;
}

static int
is_opt(const struct sh_word *w)
{
	return lit(w) && w->s[0] == '-' && w->s[1] != '\0';
}

static int
has_word(const struct cmdv *v, int from, const char *s)
{
	int k;

	for (k = from; k < v->n; k++)
		if (lit(&v->w[k]) && strcmp(v->w[k].s, s) == 0)
			return 1;
	return 0;
}

/* Short option letter ch present in a cluster like -rf? */
static int
has_short(const struct cmdv *v, int from, char ch, const char *optarg)
{
	int k;
	const char *s;

	for (k = from; k < v->n; k++) {
		if (!is_opt(&v->w[k]))
			continue;
		s = v->w[k].s;
		if (strcmp(s, "--") == 0)
			return 0;
		if (s[1] == '-')
			continue;
		for (s++; *s != '\0'; s++) {
			if (*s == ch)
				return 1;
			if (strchr(optarg, *s) != NULL)
				break;
		}
	}
	return 0;
}

/*
 * 1 if the short-option cluster s (-Eu, -n) ends with a letter that takes
 * a value, so that the value is the next word (sudo -Eu root cmd).
 */
static int
cluster_takes_next(const char *s, const char *optarg)
{
	const char *q;

	if (s[0] != '-' || s[1] == '-' || s[1] == '\0')
		return 0;
	for (q = s + 1; *q != '\0'; q++)
		if (strchr(optarg, *q) != NULL)
			return q[1] == '\0';
	return 0;
}

/*
 * Writes named by a short option that takes a value (-o FILE), wherever it
 * appears: alone, at the end of a cluster (-uo FILE) or with the value
 * attached (-oFILE, -uoFILE). optarg lists the letters that take values.
 */
static void write_word(struct ev *ev, struct cmdv *v, struct sh_word *w);

static void
short_value_writes(struct ev *ev, struct cmdv *v, char letter,
    const char *optarg)
{
	const char *s, *q;
	int k;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!is_opt(&v->w[k]) || s[1] == '-') {
			if (lit(&v->w[k]) && strcmp(s, "--") == 0)
				return;
			continue;
		}
		for (q = s + 1; *q != '\0'; q++) {
			if (strchr(optarg, *q) == NULL)
				continue;
			if (*q == letter) {
				if (q[1] != '\0')
					trig_write(ev, q + 1, v->w[0].s);
				else if (k + 1 < v->n)
					write_word(ev, v, &v->w[k + 1]);
			}
			if (q[1] == '\0')
				k++;    /* the next word is this option's value */
			break;
		}
	}
}

/*
 * Calls fn for each operand (non-option word) of v from index from.
 * Options in optarg take a value (attached or the next word); "--" ends
 * options. Returns the number of operands.
 */
typedef void (*operand_fn)(struct ev *, struct cmdv *, struct sh_word *, int);

static int
operands(struct ev *ev, struct cmdv *v, int from, const char *optarg,
    operand_fn fn)
{
	int k, n = 0, opts = 1;
	const char *s;

	for (k = from; k < v->n; k++) {
		s = v->w[k].s;
		if (opts && lit(&v->w[k]) && strcmp(s, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && is_opt(&v->w[k])) {
			if (s[1] != '-' && strchr(optarg, s[strlen(s) - 1]) != NULL &&
			    strlen(s) == 2)
				k++;    /* the value follows */
			else if (s[1] != '-') {
				/* -n5: value attached; -abc: flags */
			}
			continue;
		}
		if (fn != NULL)
			fn(ev, v, &v->w[k], n);
		n++;
	}
	return n;
}

static const char *
wtext(const struct sh_word *w)
{
	return lit(w) || (w->flags & SH_W_TILDE && !(w->flags &
	    (SH_W_VAR | SH_W_SUBST | SH_W_GLOB | SH_W_BRACE))) ? w->s : NULL;
}

#define UNKNOWN_DIR "/sbx-unknown"

/*
 * The path a word names, for the triggers: its text when literal, or with
 * $HOME and $PWD expanded. Returns 1 when exact; 0 when other variables
 * were replaced by UNKNOWN_DIR (a guess, good enough to spot a secret's
 * name: "$DIR/.env"); -1 when the word is not a path we can read
 * (command substitution, glob, brace expansion, too long).
 */
static int
word_path(const struct ev *ev, const struct sh_word *w, char *out,
    size_t outsz)
{
	const char *p = w->s, *e, *val;
	size_t o = 0, n;
	int exact = 1;

	if (wtext(w) != NULL) {
		if (w->len + 1 > outsz)
			return -1;
		memcpy(out, w->s, w->len + 1);
		return 1;
	}
	if (w->flags & (SH_W_SUBST | SH_W_GLOB | SH_W_BRACE) ||
	    !(w->flags & SH_W_VAR))
		return -1;
	while (*p != '\0') {
		if (*p != SH_VAR_MARK) {
			if (o + 1 >= outsz)
				return -1;
			out[o++] = *p++;
			continue;
		}
		e = strchr(p + 1, SH_VAR_MARK);
		if (e == NULL)
			return -1;
		n = (size_t)(e - p - 1);
		val = NULL;
		for (int j = 0; j < ev->nvars; j++)
			if (strlen(ev->vars[j].name) == n &&
			    strncmp(ev->vars[j].name, p + 1, n) == 0) {
				/* assigned earlier in the line */
				val = ev->vars[j].known ? ev->vars[j].value : UNKNOWN_DIR;
				if (!ev->vars[j].known)
					exact = 0;
				break;
			}
		if (val != NULL) {
			/* found */
		} else if (n == 4 && strncmp(p + 1, "HOME", 4) == 0)
			val = ev->call->home;
		else if (n == 3 && strncmp(p + 1, "PWD", 3) == 0 && ev->cwd_known)
			val = ev->cwd;
		if (val == NULL) {
			val = UNKNOWN_DIR;
			exact = 0;
		}
		if (o + strlen(val) + 1 >= outsz)
			return -1;
		memcpy(out + o, val, strlen(val));
		o += strlen(val);
		p = e + 1;
	}
	out[o] = '\0';
	/* "$X" with nothing else: any file at all; no guess to make */
	if (!exact && strcmp(out, UNKNOWN_DIR) == 0)
		return -1;
	return exact;
}

static void glob_read(struct ev *ev, struct cmdv *v, const struct sh_word *w);

static void
op_read(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	char path[SBX_PATH_MAX];

	(void)idx;
	if (lit(w) && strcmp(w->s, "-") == 0)
		return;
	if (word_path(ev, w, path, sizeof(path)) >= 0)
		trig_read(ev, path, v->w[0].s);
	else if ((w->flags & SH_W_GLOB) && !(w->flags & (SH_W_SUBST | SH_W_VAR |
	    SH_W_BRACE)))
		glob_read(ev, v, w);
}

static void
op_read_skip1(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	if (idx > 0)
		op_read(ev, v, w, idx);
}

/* A write through a glob: judged on its directory (see the header). */
static void
glob_write(struct ev *ev, struct cmdv *v, const struct sh_word *w)
{
	char dir[SBX_PATH_MAX], res[SBX_PATH_MAX], pat[SBX_PATH_MAX];
	char probe[SBX_PATH_MAX + 16];
	const char *s = w->s, *g, *slash, *rest;
	size_t dl;
	int k;

	if (w->flags & (SH_W_VAR | SH_W_SUBST | SH_W_BRACE)) {
		trig_write(ev, NULL, v->w[0].s);
		return;
	}
	g = s + strcspn(s, "*?[");
	slash = NULL;
	for (const char *q = s; q < g; q++)
		if (*q == '/')
			slash = q;
	rest = slash ? slash + 1 : s;
	if (strchr(rest, '/') != NULL) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "write", "builtin: glob",
		    "%s writes through the pattern %s, which spans directories",
		    v->w[0].s, s);
		return;
	}
	dl = slash ? (size_t)(slash - s) : 0;
	if (slash == s)
		dl = 1;
	if (dl >= sizeof(dir))
		dl = sizeof(dir) - 1;
	if (dl == 0)
		strcpy(dir, ".");
	else {
		memcpy(dir, s, dl);
		dir[dl] = '\0';
	}
	if ((dir[0] != '/' && dir[0] != '~' && !ev->cwd_known) ||
	    path_resolve(ev->cwd, ev->call->home, dir, res, sizeof(res)) < 0) {
		trig_write(ev, NULL, v->w[0].s);
		return;
	}
	/* A protected entry inside dir that the pattern could reach? */
	for (k = 0; k < ev->p->self_write.n + ev->p->deny_write.n; k++) {
		const char *e = k < ev->p->self_write.n ? ev->p->self_write.v[k] :
		    ev->p->deny_write.v[k - ev->p->self_write.n];
		const char *next;

		if (pattern_expand(e, 0, ev->p->folder, ev->call->home, pat,
		    sizeof(pat)) < 0 || !path_within(pat, res) ||
		    strcmp(pat, res) == 0)
			continue;
		next = pat + strlen(res) + (strcmp(res, "/") != 0);
		if (next[0] != '.' || rest[0] == '.' || strncmp(pat, "/**", 3) == 0) {
			ev_factor(ev, F_PROTECTED);
			ev_note(ev, k < ev->p->self_write.n ? POLICY_DENY :
			    POLICY_ESCALATE, "write", "self-protection",
			    "%s writes through the pattern %s, which can reach %s",
			    v->w[0].s, s, pat);
			return;
		}
	}
	snprintf(probe, sizeof(probe), "%s/%s", res, rest);
	trig_write(ev, probe, v->w[0].s);
}

/*
 * A read through a glob: its directory is read, and a last component
 * that could match a secret's name (.e*, *.pem) is a secret read.
 * Programs that only look at names (ls, stat, du) are not asked.
 */
static void
glob_read(struct ev *ev, struct cmdv *v, const struct sh_word *w)
{
	static const char *const secrets[] = {
		".env", ".env.local", ".env.production", "id_rsa", "id_ed25519",
		"id_ecdsa", "server.pem", "server.key", NULL,
	};
	static const char *const names_only[] = {
		"ls", "stat", "du", "file", "realpath", "readlink", "tree", NULL,
	};
	char probe[SBX_PATH_MAX];
	const char *s = w->s, *g, *slash = NULL, *rest;
	const char *const *k;
	size_t dl;

	g = s + strcspn(s, "*?[");
	for (const char *q = s; q < g; q++)
		if (*q == '/')
			slash = q;
	rest = slash ? slash + 1 : s;
	dl = slash ? (size_t)(slash - s) : 0;
	if (dl + 2 >= sizeof(probe))
		return;
	if (slash == s)
		snprintf(probe, sizeof(probe), "/");
	else if (dl == 0)
		snprintf(probe, sizeof(probe), ".");
	else
		snprintf(probe, sizeof(probe), "%.*s", (int)dl, s);
	trig_read(ev, probe, v->w[0].s);
	if (strchr(rest, '/') != NULL || strcmp(rest, "*") == 0)
		return;
	for (k = names_only; *k != NULL; k++)
		if (strcmp(v->w[0].s, *k) == 0)
			return;
	for (k = secrets; *k != NULL; k++)
		if (fnmatch(rest, *k, FNM_PERIOD) == 0) {
			ev_factor(ev, F_SECRET);
			ev_note(ev, POLICY_ESCALATE, "read", "filesystem.denyRead",
			    "%s reads through the pattern %s, which can match "
			    "secret files such as %s", v->w[0].s, s, *k);
			return;
		}
}

static void
write_word(struct ev *ev, struct cmdv *v, struct sh_word *w)
{
	char path[SBX_PATH_MAX];
	int r;

	if (strcmp(w->s, "-") == 0 && lit(w))
		return;
	r = word_path(ev, w, path, sizeof(path));
	if (r == 1)
		trig_write(ev, path, v->w[0].s);
	else if (r < 0 && (w->flags & SH_W_GLOB))
		glob_write(ev, v, w);
	else
		trig_write(ev, NULL, v->w[0].s);
}

/* As write_word, for writes that act on a whole tree (rm -r, mv). */
static void
write_tree_word(struct ev *ev, struct cmdv *v, struct sh_word *w)
{
	char path[SBX_PATH_MAX];

	if (word_path(ev, w, path, sizeof(path)) == 1)
		trig_write_tree(ev, path, v->w[0].s, 0);
	else
		write_word(ev, v, w);
}

static void
op_write(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	(void)idx;
	write_word(ev, v, w);
}

static void
op_write_tree(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	(void)idx;
	write_tree_word(ev, v, w);
}

static void
op_write_skip1(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	if (idx > 0)
		write_word(ev, v, w);
}

static void
op_write_tree_skip1(struct ev *ev, struct cmdv *v, struct sh_word *w, int idx)
{
	if (idx > 0)
		write_tree_word(ev, v, w);
}

static void
unknown_targets(struct ev *ev, struct cmdv *v)
{
	if (v->extra)
		trig_write(ev, NULL, v->w[0].s);
}

/* ---- catastrophic commands ------------------------------------------------ */

static int
is_root_like(const struct ev *ev, const char *res)
{
	static const char *const top[] = {
		"/", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot",
		"/home", "/var", "/opt", "/root", "/dev", "/proc", "/sys", "/srv",
		"/Users", "/System", "/Applications", "/Library", NULL,
	};
	const char *const *t;

	for (t = top; *t != NULL; t++)
		if (strcmp(res, *t) == 0)
			return 1;
	if (ev->call->home != NULL && strcmp(res, ev->call->home) == 0)
		return 1;
	return 0;
}

/* rm -r / chmod -R on /, a top-level system directory, or home: deny. */
static void
check_catastrophic_tree(struct ev *ev, struct cmdv *v, const char *what)
{
	char res[SBX_PATH_MAX], dir[SBX_PATH_MAX];
	const char *s;
	int k, opts = 1;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (opts && lit(&v->w[k]) && strcmp(s, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && is_opt(&v->w[k]))
			continue;
		if (v->w[k].flags & (SH_W_VAR | SH_W_SUBST)) {
			/* $HOME is known; ${TMPDIR}/.. is not, and the write
			 * escalates */
			if (word_path(ev, &v->w[k], dir, sizeof(dir)) != 1)
				continue;
			s = dir;
		} else if (v->w[k].flags & SH_W_GLOB) {
			size_t n = strcspn(s, "*?[");

			while (n > 0 && s[n - 1] != '/')
				n--;
			if (n == 0 || n >= sizeof(dir))
				continue;
			memcpy(dir, s, n);
			dir[n] = '\0';
			s = dir;
		}
		if (path_resolve(ev->cwd_known ? ev->cwd : "/", ev->call->home, s,
		    res, sizeof(res)) < 0)
			continue;
		if (is_root_like(ev, res)) {
			ev_factor(ev, F_CATASTROPHIC | F_DESTRUCTIVE);
			ev_note(ev, POLICY_DENY, "shell", "builtin: catastrophic",
			    "%s on %s would destroy the system or the home "
			    "directory", what, res);
		}
	}
}

/* rm -r of the project folder itself, or of * in it: escalate. */
static void
check_whole_project(struct ev *ev, struct cmdv *v)
{
	char res[SBX_PATH_MAX], dir[SBX_PATH_MAX];
	const char *s;
	size_t n;
	int k;

	if (ev->p->folder == NULL)
		return;
	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (is_opt(&v->w[k]) || (v->w[k].flags & (SH_W_VAR | SH_W_SUBST)))
			continue;
		if (v->w[k].flags & SH_W_GLOB) {
			n = strlen(s);
			if (n == 0 || s[n - 1] != '*' || n >= sizeof(dir))
				continue;
			memcpy(dir, s, n - 1);
			dir[n - 1] = '\0';
			if (n >= 2 && dir[n - 2] != '/')
				continue;       /* build-* : a pattern, not all */
			s = n == 1 ? "." : dir;
		}
		if ((s[0] != '/' && s[0] != '~' && !ev->cwd_known) ||
		    path_resolve(ev->cwd, ev->call->home, s, res, sizeof(res)) < 0)
			continue;
		if (strcmp(res, ev->p->folder) == 0 ||
		    path_within(ev->p->folder, res)) {
			ev_factor(ev, F_DESTRUCTIVE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: whole project",
			    "rm -r on %s removes the whole project", res);
		}
	}
}

/* :(){ :|:& };: and friends. */
static int
fork_bomb(const char *t, size_t len)
{
	char buf[256];
	size_t k, o = 0, nl;
	const char *p, *name_end;
	char name[64];

	for (k = 0; k < len && o + 1 < sizeof(buf); k++)
		if (t[k] != ' ' && t[k] != '\t' && t[k] != '\n')
			buf[o++] = t[k];
	buf[o] = '\0';
	p = strstr(buf, "(){");
	if (p == NULL)
		return 0;
	name_end = p;
	while (p > buf && strchr(";&|", p[-1]) == NULL)
		p--;
	nl = (size_t)(name_end - p);
	if (nl == 0 || nl >= sizeof(name))
		return 0;
	memcpy(name, p, nl);
	name[nl] = '\0';
	{
		char pat[200];

		snprintf(pat, sizeof(pat), "{%s|%s&", name, name);
		return strstr(name_end, pat) != NULL;
	}
}

/* ---- running files ------------------------------------------------------ */

static void
run_file(struct ev *ev, const struct sh_word *w, const char *what)
{
	char res[SBX_PATH_MAX], path[SBX_PATH_MAX];

	ev_factor(ev, F_CODE);
	if (word_path(ev, w, path, sizeof(path)) != 1) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: run file",
		    "%s runs a file whose name is only known at run time", what);
		return;
	}
	if ((path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve(ev->cwd, ev->call->home, path, res, sizeof(res)) < 0) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: run file",
		    "%s runs %s, which cannot be resolved with certainty", what,
		    path);
		return;
	}
	trig_read(ev, path, what);
	if (ev->p->folder == NULL || !path_within(res, ev->p->folder)) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: run file",
		    "%s runs %s, which is outside the project", what, res);
		return;
	}
}

static int
cwd_in_project(const struct ev *ev)
{
	return ev->cwd_known && ev->p->folder != NULL &&
	    path_within(ev->cwd, ev->p->folder);
}

/* ---- classes ------------------------------------------------------------ */

static void
cls_read(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const char *name = pr->name;
	int k;

	operands(ev, v, 1, pr->optarg, pr->cls == C_GREP &&
	    !has_short(v, 1, 'e', pr->optarg) && !has_short(v, 1, 'f',
	    pr->optarg) && !has_word(v, 1, "--files") &&
	    !has_word(v, 1, "--regexp") && !has_word(v, 1, "--file") ?
	    op_read_skip1 : op_read);
	/* pattern files: grep -f FILE, -fFILE, --file=FILE */
	for (k = 1; pr->cls == C_GREP && k < v->n; k++) {
		const char *s = v->w[k].s;

		if (!lit(&v->w[k]) || s[0] != '-')
			continue;
		if ((strcmp(s, "-f") == 0 || strcmp(s, "--file") == 0) && k + 1 < v->n)
			op_read(ev, v, &v->w[k + 1], 0);
		else if (strncmp(s, "--file=", 7) == 0)
			trig_read(ev, s + 7, name);
		else if (s[1] != '-' && strchr(s, 'f') != NULL &&
		    strchr(s, 'f')[1] != '\0')
			trig_read(ev, strchr(s, 'f') + 1, name);
	}
	/* output options of "read" programs, and options that run commands */
	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s;

		if (!lit(&v->w[k]))
			continue;
		if ((strcmp(name, "fd") == 0 && (strcmp(s, "-x") == 0 ||
		    strcmp(s, "-X") == 0 || strncmp(s, "--exec", 6) == 0)) ||
		    (strcmp(name, "rg") == 0 && strncmp(s, "--pre", 5) == 0) ||
		    (strcmp(name, "less") == 0 && (s[1] == 'o' || s[1] == 'O' ||
		    strncmp(s, "--log-file", 10) == 0 ||
		    strncmp(s, "--LOG-FILE", 10) == 0) && s[0] == '-')) {
			ev_factor(ev, F_CODE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
			    "%s %s runs a command or writes a file", name, s);
			continue;
		}
		if ((strcmp(name, "sort") == 0 || strcmp(name, "iconv") == 0) &&
		    strncmp(s, "--output=", 9) == 0)
			trig_write(ev, s + 9, name);
		else if ((strcmp(name, "sort") == 0 || strcmp(name, "iconv") == 0) &&
		    strcmp(s, "--output") == 0 && k + 1 < v->n)
			write_word(ev, v, &v->w[k + 1]);
	}
	/* -o FILE, also inside a cluster: sort -uo out.txt, -oout.txt */
	if (strcmp(name, "sort") == 0 || strcmp(name, "tree") == 0 ||
	    strcmp(name, "iconv") == 0)
		short_value_writes(ev, v, 'o', pr->optarg);
	if (strcmp(name, "uniq") == 0 || strcmp(name, "xxd") == 0) {
		/* a second operand is the output file */
		operands(ev, v, 1, pr->optarg, op_write_skip1);
	}
}

static void
cls_write(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int recursive;

	if (strcmp(pr->name, "rm") == 0) {
		recursive = has_short(v, 1, 'r', "") || has_short(v, 1, 'R', "") ||
		    has_word(v, 1, "--recursive");
		if (recursive) {
			ev_factor(ev, F_DESTRUCTIVE);
			check_catastrophic_tree(ev, v, "rm -r");
			check_whole_project(ev, v);
		}
	}
	if (strcmp(pr->name, "shred") == 0)
		ev_factor(ev, F_DESTRUCTIVE);
	if (operands(ev, v, 1, pr->optarg, strcmp(pr->name, "rm") == 0 ||
	    strcmp(pr->name, "rmdir") == 0 ? op_write_tree : op_write) == 0 &&
	    !v->extra &&
	    strcmp(pr->name, "tee") != 0)
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: operands",
		    "%s without a target: nothing to judge", pr->name);
	unknown_targets(ev, v);
}

static void
cls_mode(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int ref = 0, k;

	for (k = 1; k < v->n; k++)
		if (lit(&v->w[k]) && strncmp(v->w[k].s, "--reference", 11) == 0)
			ref = 1;
	if (has_short(v, 1, 'R', "") || has_word(v, 1, "--recursive"))
		check_catastrophic_tree(ev, v, pr->name);
	operands(ev, v, 1, "", ref ? op_write_tree : op_write_skip1);
	if (!ref && (has_short(v, 1, 'R', "") || has_word(v, 1, "--recursive")))
		operands(ev, v, 1, "", op_write_tree_skip1);
	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s;

		if (strcmp(pr->name, "chmod") == 0 && lit(&v->w[k]) &&
		    (strchr(s, 's') != NULL && (s[0] == '+' || s[0] == 'u' ||
		    s[0] == 'g' || s[0] == 'a' || s[0] == '=') )) {
			ev_factor(ev, F_PRIV);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: setuid",
			    "chmod %s sets a setuid/setgid bit", s);
		}
		if (strcmp(pr->name, "chmod") == 0 && lit(&v->w[k]) &&
		    strlen(s) == 4 && strspn(s, "01234567") == 4 && s[0] >= '2') {
			ev_factor(ev, F_PRIV);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: setuid",
			    "chmod %s sets a setuid/setgid/sticky bit", s);
		}
	}
	if (strcmp(pr->name, "chown") == 0 || strcmp(pr->name, "chgrp") == 0) {
		ev_factor(ev, F_PRIV);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: ownership",
		    "%s changes file ownership", pr->name);
	}
	unknown_targets(ev, v);
}

/*
 * ln TARGET... LINK: a link to a file outside the project lets a later
 * write through the link (even in the same line) land outside. The target
 * of a symbolic link is resolved from the link's directory.
 */
static void
ln_targets(struct ev *ev, struct cmdv *v, const struct prog *pr, int dest)
{
	char base[SBX_PATH_MAX], path[SBX_PATH_MAX], res[SBX_PATH_MAX];
	int k, opts = 1;
	const char *s;

	if (dest >= 0 && word_path(ev, &v->w[dest], path, sizeof(path)) == 1 &&
	    (ev->cwd_known || path[0] == '/') &&
	    path_resolve(ev->cwd, ev->call->home, path, res, sizeof(res)) == 0) {
		char *slash = strrchr(res, '/');

		/* the link's directory, or the link itself when it is one */
		if (slash != NULL && slash != res)
			*slash = '\0';
		snprintf(base, sizeof(base), "%s", res);
	} else if (ev->cwd_known) {
		snprintf(base, sizeof(base), "%s", ev->cwd);
	} else {
		base[0] = '\0';
	}
	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (opts && lit(&v->w[k]) && strcmp(s, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && is_opt(&v->w[k])) {
			if (s[1] != '-' && strlen(s) == 2 && strchr(pr->optarg, s[1]))
				k++;
			continue;
		}
		if (k == dest)
			continue;
		if (word_path(ev, &v->w[k], path, sizeof(path)) != 1 ||
		    base[0] == '\0' || path_resolve(base, ev->call->home, path, res,
		    sizeof(res)) < 0 || ev->p->folder == NULL ||
		    !path_within(res, ev->p->folder)) {
			ev_factor(ev, F_WRITE_OUT);
			ev_note(ev, POLICY_ESCALATE, "write", "builtin: link outside",
			    "ln links to %s, outside the project: writes through the "
			    "link would land there", s);
			return;
		}
	}
}

static int
is_dir(const struct ev *ev, const char *path)
{
	char res[SBX_PATH_MAX];
	struct stat st;

	if ((path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve(ev->cwd, ev->call->home, path, res, sizeof(res)) < 0)
		return 0;
	return stat(res, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The destination of cp/mv/ln/install. Into an existing directory, each
 * source lands at DIR/basename; a recursive copy into it may overwrite
 * anything below (escalated when that reaches protected files); onto a
 * new name, the name is written (replaced whole by mv and cp -r).
 */
static void
cpmv_dest(struct ev *ev, struct cmdv *v, const struct prog *pr, int dest,
    int tflag)
{
	char path[SBX_PATH_MAX], src[SBX_PATH_MAX], probe[SBX_PATH_MAX * 2];
	int k, opts = 1, recursive, is_mv = strcmp(pr->name, "mv") == 0;
	const char *s, *base;

	recursive = strcmp(pr->name, "cp") == 0 && (has_short(v, 1, 'r', "") ||
	    has_short(v, 1, 'R', "") || has_short(v, 1, 'a', "") ||
	    has_word(v, 1, "--recursive") || has_word(v, 1, "--archive"));
	if (word_path(ev, &v->w[dest], path, sizeof(path)) != 1) {
		write_word(ev, v, &v->w[dest]);
		return;
	}
	if (!is_dir(ev, path) && tflag < 0) {
		if (recursive || is_mv)
			trig_write_tree(ev, path, pr->name, 0);
		else
			trig_write(ev, path, pr->name);
		return;
	}
	if (recursive) {
		trig_write_tree(ev, path, pr->name, 1);
		return;
	}
	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (opts && lit(&v->w[k]) && strcmp(s, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && is_opt(&v->w[k])) {
			if (strcmp(s, "-t") == 0 || (s[1] != '-' && strlen(s) == 2 &&
			    strchr(pr->optarg, s[1])))
				k++;
			continue;
		}
		if (k == dest)
			continue;
		if (word_path(ev, &v->w[k], src, sizeof(src)) != 1) {
			trig_write(ev, NULL, pr->name);
			continue;
		}
		while (strlen(src) > 1 && src[strlen(src) - 1] == '/')
			src[strlen(src) - 1] = '\0';
		base = strrchr(src, '/');
		base = base ? base + 1 : src;
		snprintf(probe, sizeof(probe), "%s/%s", path, base);
		trig_write(ev, probe, pr->name);
	}
}

static void
cls_cpmv(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int k, n = 0, opts = 1, target = -1, last = -1;
	const char *s;
	int is_mv = strcmp(pr->name, "mv") == 0;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (opts && lit(&v->w[k]) && strcmp(s, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && is_opt(&v->w[k])) {
			if (strcmp(s, "-t") == 0 && k + 1 < v->n)
				target = ++k;
			else if (strncmp(s, "--target-directory=", 19) == 0)
				trig_write(ev, s + 19, pr->name);
			else if (s[1] != '-' && strlen(s) == 2 &&
			    strchr(pr->optarg, s[1]) != NULL)
				k++;
			continue;
		}
		n++;
		last = k;
	}
	if (target >= 0)
		cpmv_dest(ev, v, pr, target, target);
	else if (v->extra)
		trig_write(ev, NULL, pr->name);
	else if (last >= 0 && n >= 2)
		cpmv_dest(ev, v, pr, last, -1);
	else if (n < 2 && target < 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: operands",
		    "%s with fewer than two operands", pr->name);
	}
	/* ln: writes through the new link land on its target */
	if (strcmp(pr->name, "ln") == 0)
		ln_targets(ev, v, pr, target >= 0 ? target : last);
	/* sources: read; mv also removes them */
	opts = 1;
	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (opts && lit(&v->w[k]) && strcmp(s, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && is_opt(&v->w[k])) {
			if (s[1] != '-' && strlen(s) == 2 && strchr(pr->optarg, s[1]))
				k++;
			continue;
		}
		if (k == last && target < 0)
			continue;
		if (is_mv)
			write_tree_word(ev, v, &v->w[k]);
		else
			op_read(ev, v, &v->w[k], 0);
	}
}

static void
cls_dd(struct ev *ev, struct cmdv *v)
{
	int k;

	if (v->extra)
		trig_write(ev, NULL, "dd");
	for (k = 1; k < v->n; k++) {
		struct sh_word *w = &v->w[k];

		if (strncmp(w->s, "of=", 3) == 0) {
			if (lit(w))
				trig_write(ev, w->s + 3, "dd");
			else
				trig_write(ev, NULL, "dd");
		} else if (strncmp(w->s, "if=", 3) == 0 && lit(w)) {
			trig_read(ev, w->s + 3, "dd");
		}
	}
}

static void
net_host_word(struct ev *ev, const char *what, const char *s)
{
	char host[256];
	const char *at, *colon;
	size_t n;

	if (strstr(s, "://") != NULL) {
		if (url_host(s, host, sizeof(host)) == 0)
			trig_network(ev, host, what);
		else
			trig_network(ev, NULL, what);
		return;
	}
	at = strchr(s, '@');
	if (at != NULL)
		s = at + 1;
	colon = strchr(s, ':');
	n = colon ? (size_t)(colon - s) : strlen(s);
	if (n == 0 || n >= sizeof(host)) {
		trig_network(ev, NULL, what);
		return;
	}
	memcpy(host, s, n);
	host[n] = '\0';
	trig_network(ev, host, what);
}

static void
cls_net(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const char *name = pr->name, *s;
	int k, hosts = 0, opts = 1, is_curl = strcmp(name, "curl") == 0;
	int is_wget = strcmp(name, "wget") == 0, first = 1;
	int hostword = strcmp(name, "ssh") == 0 || strcmp(name, "nc") == 0 ||
	    strcmp(name, "ncat") == 0 || strcmp(name, "netcat") == 0 ||
	    strcmp(name, "telnet") == 0 || strcmp(name, "ping") == 0 ||
	    strcmp(name, "ftp") == 0 || strcmp(name, "sftp") == 0 ||
	    strcmp(name, "dig") == 0 || strcmp(name, "host") == 0 ||
	    strcmp(name, "nslookup") == 0;
	int outfile = 0;

	ev_factor(ev, F_NETWORK);
	ev->net_pipeline = v->c->pipeline;
	ev->parse_id = v->pid;
	for (k = 1; k < v->n; k++) {
		struct sh_word *w = &v->w[k];

		s = w->s;
		if (opts && lit(w) && strcmp(s, "--") == 0) {
			opts = 0;
			continue;
		}
		if (opts && is_opt(w)) {
			const char *val = NULL, *q;
			char letter = 0;
			int has_val = 0;

			if (s[1] != '-') {
				/* a cluster: -sSLo FILE, -d@FILE, -fsSLO */
				for (q = s + 1; *q != '\0'; q++) {
					if (is_curl && *q == 'O') {
						outfile = 1;
						trig_write(ev, ".", name);
					}
					if (strchr(pr->optarg, *q) == NULL)
						continue;
					letter = *q;
					has_val = 1;
					if (q[1] != '\0') {
						val = q + 1;
					} else if (k + 1 < v->n) {
						k++;
						val = lit(&v->w[k]) ? v->w[k].s : NULL;
					}
					break;
				}
			} else if (strchr(s, '=') != NULL) {
				val = strchr(s, '=') + 1;
				has_val = 1;
			} else if ((is_curl || is_wget) && k + 1 < v->n &&
			    (strcmp(s, "--output") == 0 || strcmp(s, "--data") == 0 ||
			    strncmp(s, "--data-", 7) == 0 ||
			    strcmp(s, "--upload-file") == 0 || strcmp(s, "--form") == 0 ||
			    strcmp(s, "--config") == 0 || strcmp(s, "--header") == 0 ||
			    strcmp(s, "--output-document") == 0 ||
			    strcmp(s, "--post-file") == 0 || strcmp(s, "--user") == 0 ||
			    strcmp(s, "--request") == 0 || strcmp(s, "--url") == 0 ||
			    strcmp(s, "--directory-prefix") == 0 ||
			    strcmp(s, "--output-file") == 0 ||
			    strcmp(s, "--append-output") == 0 ||
			    strcmp(s, "--body-file") == 0 ||
			    strcmp(s, "--form-string") == 0)) {
				k++;
				val = lit(&v->w[k]) ? v->w[k].s : NULL;
				has_val = 1;
			}
			if (is_curl && (s[1] == '-' ? strcmp(s, "--remote-name") == 0 ||
			    strcmp(s, "--remote-name-all") == 0 : 0)) {
				outfile = 1;
				trig_write(ev, ".", name);
			}
			if (!has_val)
				continue;
			if ((is_curl && (letter == 'o' || strncmp(s, "--output", 8) == 0)) ||
			    (is_wget && (letter == 'O' || letter == 'o' || letter == 'a' ||
			    strncmp(s, "--output-document", 17) == 0 ||
			    strncmp(s, "--output-file", 13) == 0 ||
			    strncmp(s, "--append-output", 15) == 0))) {
				if (letter == 'O' || letter == 'o' ||
				    strncmp(s, "--output", 8) == 0)
					outfile = 1;
				if (val == NULL)
					trig_write(ev, NULL, name);
				else if (strcmp(val, "-") != 0)
					trig_write(ev, val, name);
			} else if (is_wget && (letter == 'P' ||
			    strncmp(s, "--directory-prefix", 18) == 0)) {
				outfile = 1;
				if (val == NULL)
					trig_write(ev, NULL, name);
				else
					trig_write(ev, val, name);
			} else if (val == NULL) {
				/* a value only known at run time: data to send? */
				if (is_curl && (letter == 'd' || letter == 'F' ||
				    letter == 'T' || strncmp(s, "--data", 6) == 0 ||
				    strncmp(s, "--upload", 8) == 0))
					ev_note(ev, POLICY_ESCALATE, "network",
					    "builtin: network", "%s sends data only known "
					    "at run time", name);
			} else if (is_curl && val[0] == '@' && val[1] != '\0' &&
			    (letter == 'd' || strncmp(s, "--data", 6) == 0 ||
			    letter == 'K')) {
				trig_read(ev, val + 1, name);
			} else if (is_curl && strchr(val, '@') != NULL &&
			    (letter == 'F' || strncmp(s, "--form", 6) == 0)) {
				const char *at = strchr(val, '@'), *lt;
				char f[SBX_PATH_MAX];
				size_t n = strcspn(at + 1, ";");

				if (n < sizeof(f)) {
					memcpy(f, at + 1, n);
					f[n] = '\0';
					trig_read(ev, f, name);
				}
				lt = strchr(val, '<');
				if (lt != NULL)
					trig_read(ev, lt + 1, name);
			} else if (is_curl && strchr(val, '<') != NULL &&
			    (letter == 'F' || strncmp(s, "--form", 6) == 0)) {
				trig_read(ev, strchr(val, '<') + 1, name);
			} else if (letter == 'T' || letter == 'K' ||
			    strncmp(s, "--upload-file", 13) == 0 ||
			    strncmp(s, "--post-file", 11) == 0 ||
			    strncmp(s, "--body-file", 11) == 0 ||
			    strncmp(s, "--config", 8) == 0) {
				trig_read(ev, val, name);
			} else if (strcmp(name, "ssh") == 0 || strcmp(name, "scp") == 0) {
				if (letter == 'i' || letter == 'F')
					trig_read(ev, val, name);
			}
			if (val != NULL && strstr(val, "://") != NULL) {
				net_host_word(ev, name, val);
				hosts++;
			}
			continue;
		}
		if (!lit(w)) {
			if (w->flags & SH_W_SUBST || w->flags & SH_W_VAR) {
				if (first && hostword) {
					trig_network(ev, NULL, name);
					hosts++;
				}
			}
			first = 0;
			continue;
		}
		if (strstr(s, "://") != NULL) {
			net_host_word(ev, name, s);
			hosts++;
		} else if ((strcmp(name, "scp") == 0 || strcmp(name, "rsync") == 0)) {
			if (strchr(s, ':') != NULL) {
				net_host_word(ev, name, s);
				hosts++;
			} else if (k == v->n - 1) {
				trig_write(ev, s, name);
			} else {
				trig_read(ev, s, name);
			}
		} else if (hostword && first) {
			net_host_word(ev, name, s);
			hosts++;
			if (strcmp(name, "ssh") == 0 && k + 1 < v->n) {
				/* ssh HOST COMMAND: the command runs remotely */
				ev_note(ev, POLICY_ESCALATE, "network", "builtin: ssh",
				    "ssh runs a command on %s", s);
				break;
			}
		} else if (is_curl || is_wget) {
			/* a bare host: curl example.com */
			if (strchr(s, '.') != NULL && strchr(s, '/') == NULL) {
				net_host_word(ev, name, s);
				hosts++;
			} else if (strchr(s, '.') != NULL) {
				char u[SBX_PATH_MAX];

				snprintf(u, sizeof(u), "http://%s", s);
				net_host_word(ev, name, u);
				hosts++;
			}
		}
		first = 0;
	}
	if (is_wget && !outfile)
		trig_write(ev, ".", name);
	if (hosts == 0)
		trig_network(ev, NULL, name);
	if (strcmp(name, "ssh") == 0 || strcmp(name, "nc") == 0 ||
	    strcmp(name, "ncat") == 0 || strcmp(name, "netcat") == 0 ||
	    strcmp(name, "socat") == 0 || strcmp(name, "telnet") == 0 ||
	    strcmp(name, "sftp") == 0 || strcmp(name, "ftp") == 0)
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: network",
		    "%s opens an interactive or raw network connection", name);
}

/* Parses shell options; returns the index of the first operand. */
static int
shell_opts(const struct cmdv *v, int *has_c)
{
	int k;
	const char *s;

	*has_c = 0;
	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!lit(&v->w[k]))
			return k;
		if (strcmp(s, "--") == 0 || strcmp(s, "-") == 0)
			return k + 1;
		if (s[0] == '+' && (s[1] == 'O' || s[1] == 'o') && s[2] == '\0') {
			k++;
			continue;
		}
		if (s[0] != '-' || s[1] == '\0')
			return k;
		if (s[1] == '-') {
			if (strcmp(s, "--rcfile") == 0 || strcmp(s, "--init-file") == 0)
				k++;
			continue;
		}
		if (strchr(s + 1, 'c') != NULL)
			*has_c = 1;
		if ((strchr(s + 1, 'o') != NULL || strchr(s + 1, 'O') != NULL) &&
		    k + 1 < v->n)
			k++;
	}
	return k;
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

static void
piped_code(struct ev *ev, struct cmdv *v, const char *kind)
{
	const struct sh_redir *r = stdin_script(v);

	if (r != NULL && r->op == SH_R_HERESTR) {
		if (!lit(&r->target)) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: here-string",
			    "a here-string fed to %s is only known at run time",
			    v->w[0].s);
			return;
		}
		if (strcmp(kind, "shell") == 0)
			eval_string(ev, r->target.s, r->target.len, v->w[0].s);
		else
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: inline code",
			    "%s runs code from a here-string; the code is not "
			    "analysed", v->w[0].s);
		return;
	}
	if (r != NULL && r->op == SH_R_HEREDOC) {
		if (strcmp(kind, "shell") == 0 && r->body != NULL)
			eval_string(ev, r->body, r->body_len, v->w[0].s);
		else
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: inline code",
			    "%s runs code from a here-document; the code is not "
			    "analysed", v->w[0].s);
		return;
	}
	if (r != NULL && r->op == SH_R_IN) {
		run_file(ev, &r->target, v->w[0].s);
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
	    "%s without a script reads commands from its input", v->w[0].s);
}

static void
cls_shell(struct ev *ev, struct cmdv *v)
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
		if (!lit(s)) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: -c",
			    "%s -c runs a string that is only known at run time",
			    v->w[0].s);
			return;
		}
		eval_string(ev, s->s, s->len, v->w[0].s);
		return;
	}
	if (k < v->n) {
		run_file(ev, &v->w[k], v->w[0].s);
		return;
	}
	if (v->extra) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: xargs",
		    "%s runs scripts named only at run time", v->w[0].s);
		return;
	}
	piped_code(ev, v, "shell");
}

static void
cls_interp(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int k;
	const char *s, *name = pr->name;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!lit(&v->w[k]))
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
		if (strcmp(s, "-c") == 0 || strcmp(s, "-e") == 0 ||
		    strcmp(s, "-E") == 0 || strcmp(s, "-r") == 0 ||
		    strcmp(s, "-p") == 0 || strcmp(s, "--eval") == 0 ||
		    strcmp(s, "--print") == 0 || (s[1] != '-' && (strchr(s, 'e') ||
		    strchr(s, 'c')) && strcmp(name, "perl") == 0) ||
		    strncmp(s, "-c", 2) == 0 || strncmp(s, "--eval=", 7) == 0) {
			ev_factor(ev, F_CODE | F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: inline code",
			    "%s %s runs inline code, which is not analysed", name, s);
			return;
		}
		if (strcmp(s, "-m") == 0) {
			if (k + 1 < v->n && lit(&v->w[k + 1]) &&
			    (strcmp(v->w[k + 1].s, "pytest") == 0 ||
			    strcmp(v->w[k + 1].s, "unittest") == 0 ||
			    strcmp(v->w[k + 1].s, "mypy") == 0 ||
			    strcmp(v->w[k + 1].s, "py_compile") == 0 ||
			    strcmp(v->w[k + 1].s, "compileall") == 0) &&
			    cwd_in_project(ev)) {
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
	if (k < v->n && !(lit(&v->w[k]) && strcmp(v->w[k].s, "-") == 0)) {
		run_file(ev, &v->w[k], name);
		return;
	}
	piped_code(ev, v, "interpreter");
}

static void
cls_build(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	static const char *const net_sub[] = {
		"install", "i", "ci", "add", "publish", "update", "upgrade", "up",
		"remove", "rm", "uninstall", "un", "link", "login", "logout",
		"dlx", "exec", "x", "get", "fetch", "login", "owner", "yank",
		"audit", "outdated", "search", "view", "info", "pack", "unpublish",
		"deprecate", "dist-tag", "create", "init", "mod", "global", NULL,
	};
	const char *name = pr->name, *sub = NULL;
	const char *const *n;
	int k;

	for (k = 1; k < v->n; k++) {
		if (!lit(&v->w[k]))
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
	if (sub != NULL && (strcmp(name, "npm") == 0 || strcmp(name, "yarn") == 0 ||
	    strcmp(name, "pnpm") == 0 || strcmp(name, "bun") == 0 ||
	    strcmp(name, "cargo") == 0 || strcmp(name, "go") == 0)) {
		for (n = net_sub; *n != NULL; n++)
			if (strcmp(sub, *n) == 0) {
				ev_factor(ev, F_NETWORK | F_CODE);
				ev_note(ev, POLICY_ESCALATE, "network",
				    "builtin: package manager", "%s %s fetches or "
				    "publishes packages over the network", name, sub);
				return;
			}
	}
	if (strcmp(name, "yarn") == 0 && sub == NULL) {
		ev_factor(ev, F_NETWORK);
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: package manager",
		    "yarn with no command installs packages");
		return;
	}
	/* compilers: -o names an output file */
	for (k = 1; k < v->n; k++)
		if (lit(&v->w[k]) && strcmp(v->w[k].s, "-o") == 0 && k + 1 < v->n &&
		    (strcmp(name, "cc") == 0 || strcmp(name, "gcc") == 0 ||
		    strcmp(name, "clang") == 0 || strcmp(name, "g++") == 0 ||
		    strcmp(name, "c++") == 0 || strcmp(name, "rustc") == 0))
			write_word(ev, v, &v->w[k + 1]);
	ev_factor(ev, F_CODE);
	if (!cwd_in_project(ev)) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: build outside",
		    "%s runs build or test code outside the project", name);
		return;
	}
	for (k = 1; k + 1 < v->n; k++)
		if (lit(&v->w[k]) && (strcmp(v->w[k].s, "-f") == 0 ||
		    strcmp(v->w[k].s, "--file") == 0 ||
		    strcmp(v->w[k].s, "--makefile") == 0) && strcmp(name, "make") == 0)
			run_file(ev, &v->w[k + 1], "make -f");
	for (k = 1; k < v->n; k++)
		if (lit(&v->w[k]) && (strcmp(v->w[k].s, "-C") == 0 ||
		    strcmp(v->w[k].s, "--directory") == 0) && k + 1 < v->n &&
		    strcmp(name, "make") == 0) {
			char res[SBX_PATH_MAX];

			if (!lit(&v->w[k + 1]) || path_resolve(ev->cwd,
			    ev->call->home, v->w[k + 1].s, res, sizeof(res)) < 0 ||
			    ev->p->folder == NULL || !path_within(res, ev->p->folder))
				ev_note(ev, POLICY_ESCALATE, "shell",
				    "builtin: build outside",
				    "make -C runs a build outside the project");
		}
}

static void
cls_cli(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const char *name = pr->name;
	int k;

	for (k = 1; k < v->n; k++)
		if (lit(&v->w[k]) && (strcmp(v->w[k].s, "--help") == 0 ||
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

/* ---- git ------------------------------------------------------------------ */

static const char *const git_read[] = {
	"status", "log", "diff", "show", "blame", "annotate", "shortlog",
	"describe", "rev-parse", "rev-list", "ls-files", "ls-tree", "cat-file",
	"grep", "whatchanged", "name-rev", "merge-base", "count-objects",
	"verify-commit", "verify-tag", "cherry", "version", "help", "var",
	"check-ignore", "check-attr", "check-ref-format", "for-each-ref",
	"show-ref", "show-branch", "range-diff", "fsck", "diff-tree",
	"diff-files", "diff-index", "ls-remote-local", "format-patch-stdout",
	"hash-object", NULL,
};

static const char *const git_write[] = {
	"add", "commit", "merge", "rebase", "cherry-pick", "revert", "mv",
	"rm", "init", "apply", "am", "notes", "bisect", "worktree", "stage",
	"sparse-checkout", "update-index", "symbolic-ref", "update-ref",
	"switch", "format-patch", "mergetool", "restore", "checkout", "reset",
	"stash", "tag", "branch", "config", "clean", "reflog", "gc", "prune",
	"repack", "filter-branch", "submodule", "remote", "maintenance", NULL,
};

static int
in_list(const char *s, const char *const *l)
{
	for (; *l != NULL; l++)
		if (strcmp(s, *l) == 0)
			return 1;
	return 0;
}

static void
git_destructive(struct ev *ev, const char *what)
{
	ev_factor(ev, F_DESTRUCTIVE);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git destructive",
	    "%s discards work that cannot be restored", what);
}

static void
cls_git(struct ev *ev, struct cmdv *v)
{
	const char *sub = NULL, *s, *dir = ".";
	char repo[SBX_PATH_MAX];
	int k, i, pos = 0, unknown_repo = 0;
	int write = 0;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (strncmp(s, "--git-dir=", 10) == 0 ||
		    strncmp(s, "--work-tree=", 12) == 0) {
			unknown_repo = 1;
			continue;
		}
		if (!lit(&v->w[k])) {
			ev_factor(ev, F_UNKNOWN);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
			    "git subcommand is only known at run time");
			return;
		}
		if (strcmp(s, "-C") == 0 && k + 1 < v->n) {
			if (!lit(&v->w[k + 1]))
				unknown_repo = 1;
			dir = v->w[++k].s;
			continue;
		}
		if (strcmp(s, "-c") == 0 || strncmp(s, "--config-env", 12) == 0 ||
		    strncmp(s, "--exec-path", 11) == 0) {
			ev_factor(ev, F_CODE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git -c",
			    "git %s can set options that run commands", s);
			return;
		}
		if (strncmp(s, "--git-dir", 9) == 0 || strncmp(s, "--work-tree", 11) == 0) {
			unknown_repo = 1;
			if (strchr(s, '=') == NULL)
				k++;
			continue;
		}
		if (strcmp(s, "--namespace") == 0) {
			k++;
			continue;
		}
		if (s[0] == '-') {
			if (strcmp(s, "--version") == 0 || strcmp(s, "--help") == 0)
				return;
			continue;
		}
		sub = s;
		break;
	}
	if (sub == NULL)
		return;         /* git alone prints help */
	i = k + 1;
	/* git CMD --help shows the manual; elsewhere it may be a value */
	if (i < v->n && (strcmp(v->w[i].s, "--help") == 0 ||
	    (strcmp(v->w[i].s, "-h") == 0 && v->n == i + 1)))
		return;
	if (strcmp(sub, "push") == 0) {
		ev_factor(ev, F_NETWORK);
		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (strcmp(s, "-f") == 0 || strncmp(s, "--force", 7) == 0 ||
			    strcmp(s, "--delete") == 0 || strcmp(s, "-d") == 0 ||
			    strcmp(s, "--mirror") == 0 || strcmp(s, "--prune") == 0 ||
			    (s[0] == '+' && s[1] != '\0') || (s[0] == ':' && s[1]))
				ev_factor(ev, F_DESTRUCTIVE);
		}
		ev_note(ev, POLICY_ESCALATE, "network", "builtin: git push",
		    "git push publishes to a remote; a human decides");
		return;
	}
	if (strcmp(sub, "pull") == 0 || strcmp(sub, "fetch") == 0 ||
	    strcmp(sub, "ls-remote") == 0 || strcmp(sub, "clone") == 0 ||
	    strcmp(sub, "send-email") == 0 || strcmp(sub, "request-pull") == 0) {
		int hosts = 0;

		/* options that run programs or plant hooks in the new repo */
		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (strncmp(s, "--upload-pack", 13) == 0 ||
			    strcmp(s, "-u") == 0 || strncmp(s, "--receive-pack", 14) == 0 ||
			    strncmp(s, "--exec", 6) == 0 || strcmp(s, "-c") == 0 ||
			    strncmp(s, "--config", 8) == 0 ||
			    strncmp(s, "--template", 10) == 0 ||
			    strncmp(s, "--separate-git-dir", 18) == 0) {
				ev_factor(ev, F_CODE);
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
				    "git %s %s can run programs or install hooks", sub, s);
				return;
			}
		}

		for (k = i; k < v->n; k++)
			if (lit(&v->w[k]) && strstr(v->w[k].s, "://") != NULL) {
				net_host_word(ev, "git", v->w[k].s);
				hosts++;
			}
		if (hosts == 0)
			trig_network(ev, NULL, "git");
		else
			ev_factor(ev, F_NETWORK);
		if (strcmp(sub, "ls-remote") != 0)
			trig_write(ev, dir, "git");
		return;
	}
	if (in_list(sub, git_read)) {
		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			/* paths and REV:PATH name files whose content is shown */
			if (!is_opt(&v->w[k]) && lit(&v->w[k])) {
				const char *colon = strchr(s, ':');

				trig_read(ev, colon != NULL && colon[1] != '\0' ?
				    colon + 1 : s, "git");
			}
			if (strncmp(s, "--output=", 9) == 0)
				trig_write(ev, s + 9, "git");
			else if ((strcmp(s, "--output") == 0 || strcmp(s, "-o") == 0) &&
			    k + 1 < v->n && strcmp(sub, "grep") != 0)
				write_word(ev, v, &v->w[k + 1]);
			else if (strcmp(s, "--ext-diff") == 0 ||
			    strcmp(s, "-O") == 0 ||
			    strncmp(s, "--open-files-in-pager", 21) == 0)
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
				    "git %s %s runs an external program", sub, s);
		}
		if (strcmp(sub, "fsck") == 0 && has_word(v, i, "--lost-found"))
			write = 1;
		if (!write)
			return;
	}
	if (!in_list(sub, git_write) && !write) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git %s is not a subcommand the policy knows (aliases can "
		    "run commands)", sub);
		return;
	}
	for (k = i; k < v->n; k++)
		if (!is_opt(&v->w[k]))
			pos++;
	/* read-only forms of the mixed subcommands */
	if (strcmp(sub, "config") == 0) {
		int get = 0;

		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (strcmp(s, "--get") == 0 || strcmp(s, "--get-all") == 0 ||
			    strcmp(s, "--get-regexp") == 0 || strcmp(s, "--list") == 0 ||
			    strcmp(s, "-l") == 0 || strcmp(s, "--get-color") == 0 ||
			    strcmp(s, "--get-urlmatch") == 0 || strcmp(s, "get") == 0 ||
			    strcmp(s, "list") == 0)
				get = 1;
		}
		if (get || (pos == 1 && !has_word(v, i, "--unset") &&
		    !has_word(v, i, "--unset-all") && !has_word(v, i, "--edit") &&
		    !has_word(v, i, "-e")))
			return;
		if (has_word(v, i, "--global"))
			trig_write(ev, "~/.gitconfig", "git config");
		else if (has_word(v, i, "--system"))
			trig_write(ev, "/etc/gitconfig", "git config");
		else {
			snprintf(repo, sizeof(repo), "%s/.git/config", dir);
			trig_write(ev, repo, "git config");
		}
		return;
	}
	if (strcmp(sub, "stash") == 0) {
		if (i < v->n && (strcmp(v->w[i].s, "list") == 0 ||
		    strcmp(v->w[i].s, "show") == 0))
			return;
		if (i < v->n && (strcmp(v->w[i].s, "drop") == 0 ||
		    strcmp(v->w[i].s, "clear") == 0)) {
			git_destructive(ev, "git stash drop/clear");
			return;
		}
	} else if (strcmp(sub, "branch") == 0 || strcmp(sub, "tag") == 0) {
		int del = 0, force = 0, change = 0;

		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (strcmp(s, "-D") == 0 || (strcmp(sub, "tag") == 0 &&
			    strcmp(s, "-d") == 0))
				del = force = 1;
			else if (strcmp(s, "-d") == 0 || strcmp(s, "--delete") == 0)
				del = 1;
			else if (strcmp(s, "-f") == 0 || strcmp(s, "--force") == 0)
				force = 1;
			else if (strcmp(s, "-m") == 0 || strcmp(s, "-M") == 0 ||
			    strcmp(s, "-c") == 0 || strcmp(s, "-C") == 0 ||
			    strcmp(s, "-a") == 0 || strcmp(s, "-s") == 0 ||
			    strncmp(s, "--set-upstream", 14) == 0 ||
			    strcmp(s, "-u") == 0 || strcmp(s, "--unset-upstream") == 0 ||
			    strcmp(s, "--edit-description") == 0 ||
			    strcmp(s, "--move") == 0 || strcmp(s, "--copy") == 0)
				change = 1;
		}
		if (del && force) {
			git_destructive(ev, "deleting a branch or tag by force");
			return;
		}
		if (!del && !change && pos == 0)
			return;         /* listing */
		if (strcmp(sub, "tag") == 0 && has_word(v, i, "-l") && !del)
			return;
		if (strcmp(sub, "branch") == 0 && !del && !change &&
		    (has_word(v, i, "--list") || has_word(v, i, "-l") ||
		    has_word(v, i, "--contains") || has_word(v, i, "--merged")))
			return;
	} else if (strcmp(sub, "remote") == 0) {
		if (i >= v->n || strcmp(v->w[i].s, "-v") == 0 ||
		    strcmp(v->w[i].s, "get-url") == 0 ||
		    strcmp(v->w[i].s, "--verbose") == 0)
			return;
		if (strcmp(v->w[i].s, "show") == 0 || strcmp(v->w[i].s, "update") == 0 ||
		    strcmp(v->w[i].s, "prune") == 0) {
			trig_network(ev, NULL, "git remote");
			return;
		}
		snprintf(repo, sizeof(repo), "%s/.git/config", dir);
		trig_write(ev, repo, "git remote");
		return;
	} else if (strcmp(sub, "worktree") == 0) {
		if (i < v->n && strcmp(v->w[i].s, "list") == 0)
			return;
		if (i + 1 < v->n && strcmp(v->w[i].s, "add") == 0)
			for (k = i + 1; k < v->n; k++)
				if (!is_opt(&v->w[k])) {
					write_word(ev, v, &v->w[k]);
					break;
				}
	} else if (strcmp(sub, "submodule") == 0) {
		if (i >= v->n || strcmp(v->w[i].s, "status") == 0 ||
		    strcmp(v->w[i].s, "summary") == 0 ||
		    strcmp(v->w[i].s, "foreach") == 0) {
			if (i < v->n && strcmp(v->w[i].s, "foreach") == 0)
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
				    "git submodule foreach runs a command string");
			return;
		}
		trig_network(ev, NULL, "git submodule");
	} else if (strcmp(sub, "reflog") == 0) {
		if (i < v->n && (strcmp(v->w[i].s, "expire") == 0 ||
		    strcmp(v->w[i].s, "delete") == 0)) {
			git_destructive(ev, "git reflog expire/delete");
			return;
		}
		if (i >= v->n || strcmp(v->w[i].s, "show") == 0 || v->w[i].s[0] == '-')
			return;
	} else if (strcmp(sub, "clean") == 0) {
		if (has_word(v, i, "-n") || has_word(v, i, "--dry-run"))
			return;
		git_destructive(ev, "git clean");
		return;
	} else if (strcmp(sub, "reset") == 0) {
		if (has_word(v, i, "--hard") || has_word(v, i, "--merge") ||
		    has_word(v, i, "--keep")) {
			git_destructive(ev, "git reset --hard");
			return;
		}
	} else if (strcmp(sub, "checkout") == 0) {
		for (k = i; k < v->n; k++) {
			s = v->w[k].s;
			if (strcmp(s, "--") == 0 || strcmp(s, ".") == 0 ||
			    strcmp(s, "-f") == 0 || strcmp(s, "--force") == 0 ||
			    strcmp(s, "-p") == 0 || strcmp(s, "--patch") == 0 ||
			    strcmp(s, "--ours") == 0 || strcmp(s, "--theirs") == 0 ||
			    (!is_opt(&v->w[k]) && (strchr(s, '.') != NULL ||
			    strchr(s, '/') != NULL) && !(k > i &&
			    (strcmp(v->w[k - 1].s, "-b") == 0 ||
			    strcmp(v->w[k - 1].s, "-B") == 0)))) {
				git_destructive(ev, "git checkout of paths");
				return;
			}
		}
	} else if (strcmp(sub, "restore") == 0) {
		if (!((has_word(v, i, "--staged") || has_short(v, i, 'S', "s")) &&
		    !has_word(v, i, "--worktree") && !has_short(v, i, 'W', "s"))) {
			git_destructive(ev, "git restore");
			return;
		}
	} else if (strcmp(sub, "switch") == 0) {
		if (has_word(v, i, "--discard-changes") || has_word(v, i, "-f") ||
		    has_word(v, i, "--force") || has_word(v, i, "-C")) {
			git_destructive(ev, "git switch --discard-changes");
			return;
		}
	} else if (strcmp(sub, "mv") == 0 || strcmp(sub, "rm") == 0) {
		for (k = i; k < v->n; k++)
			if (!is_opt(&v->w[k]))
				write_tree_word(ev, v, &v->w[k]);
		if (v->extra)
			trig_write(ev, NULL, "git");
	} else if (strcmp(sub, "apply") == 0 || strcmp(sub, "am") == 0) {
		if (strcmp(sub, "apply") == 0 && (has_word(v, i, "--check") ||
		    has_word(v, i, "--stat") || has_word(v, i, "--numstat") ||
		    has_word(v, i, "--summary")) && !has_word(v, i, "--apply"))
			return;
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git patch",
		    "git %s applies a patch the policy cannot see; it may change "
		    "any file, sbx's own included", sub);
		return;
	} else if (strcmp(sub, "update-index") == 0 ||
	    strcmp(sub, "update-ref") == 0 || strcmp(sub, "symbolic-ref") == 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git plumbing",
		    "git %s can rewrite any tracked file or ref, sbx's own "
		    "included", sub);
		return;
	} else if (strcmp(sub, "gc") == 0 || strcmp(sub, "prune") == 0 ||
	    strcmp(sub, "repack") == 0 || strcmp(sub, "filter-branch") == 0) {
		git_destructive(ev, "git gc/prune/filter-branch");
		return;
	} else if (strcmp(sub, "mergetool") == 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git mergetool runs an external program");
		return;
	} else if (strcmp(sub, "bisect") == 0 && i < v->n &&
	    strcmp(v->w[i].s, "run") == 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git bisect run runs a command");
		return;
	} else if (strcmp(sub, "rebase") == 0 && (has_word(v, i, "-x") ||
	    has_word(v, i, "--exec"))) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: git",
		    "git rebase --exec runs a command");
		return;
	}
	/* A local write to the repository. */
	if (unknown_repo) {
		trig_write(ev, NULL, "git");
		return;
	}
	trig_write(ev, dir, "git");
	if (v->extra)
		trig_write(ev, NULL, "git");
}

/* ---- find, sed, awk -------------------------------------------------------- */

/* The -name/-iname pattern of a find, or "found" (names the {} file). */
static const char *
find_name(const struct cmdv *v)
{
	int k;

	for (k = 1; k + 1 < v->n; k++)
		if (lit(&v->w[k]) && (strcmp(v->w[k].s, "-name") == 0 ||
		    strcmp(v->w[k].s, "-iname") == 0) && lit(&v->w[k + 1]) &&
		    strchr(v->w[k + 1].s, '/') == NULL && v->w[k + 1].s[0] != '\0')
			return v->w[k + 1].s;
	return "found";
}

static void
cls_find(struct ev *ev, struct cmdv *v)
{
	int k, j, npaths = 0;
	const struct sh_word *path = NULL;
	const char *s;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (lit(&v->w[k]) && (s[0] == '-' || s[0] == '(' || s[0] == '!') &&
		    strcmp(s, "-") != 0 && !(k == 1 && (strcmp(s, "-H") == 0 ||
		    strcmp(s, "-L") == 0 || strcmp(s, "-P") == 0)))
			break;
		if (k == 1 && lit(&v->w[k]) && (strcmp(s, "-H") == 0 ||
		    strcmp(s, "-L") == 0 || strcmp(s, "-P") == 0))
			continue;
		npaths++;
		path = &v->w[k];
		op_read(ev, v, &v->w[k], 0);
	}
	for (; k < v->n; k++) {
		s = v->w[k].s;
		if (!lit(&v->w[k]))
			continue;
		if (strcmp(s, "-delete") == 0) {
			ev_factor(ev, F_DESTRUCTIVE);
			if (npaths == 0) {
				trig_write_tree(ev, ".", "find -delete", 1);
			} else {
				for (j = 1; j < v->n; j++) {
					if (v->w[j].s[0] == '-' && lit(&v->w[j]))
						break;
					char p2[SBX_PATH_MAX];

					if (word_path(ev, &v->w[j], p2, sizeof(p2)) == 1)
						trig_write_tree(ev, p2, "find -delete", 1);
					else
						write_word(ev, v, &v->w[j]);
				}
			}
			check_catastrophic_tree(ev, v, "find -delete");
		} else if (strncmp(s, "-fprint", 7) == 0 || strcmp(s, "-fls") == 0) {
			if (k + 1 < v->n)
				write_word(ev, v, &v->w[k + 1]);
			k++;
		} else if (strcmp(s, "-ok") == 0 || strcmp(s, "-okdir") == 0) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: find",
			    "find %s asks on a terminal the agent does not have", s);
			return;
		} else if (strcmp(s, "-exec") == 0 || strcmp(s, "-execdir") == 0) {
			struct cmdv in = *v;
			int end;

			for (end = k + 1; end < v->n; end++)
				if (lit(&v->w[end]) && (strcmp(v->w[end].s, ";") == 0 ||
				    strcmp(v->w[end].s, "+") == 0))
					break;
			if (end == k + 1) {
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: find",
				    "find %s without a command", s);
				return;
			}
			/* {} stands for a file found below the search path */
			in.w = malloc((size_t)(end - k - 1) * sizeof(*in.w));
			if (in.w == NULL) {
				ev_note(ev, POLICY_DENY, "shell", "builtin: memory",
				    "out of memory");
				return;
			}
			in.n = end - k - 1;
			in.extra = 0;
			for (j = 0; j < in.n; j++) {
				in.w[j] = v->w[k + 1 + j];
				if (strstr(in.w[j].s, "{}") != NULL && j > 0) {
					/* {} glued into a word (sh -c 'rm {}') puts a
					 * file name into code: unknown */
					if (npaths == 1 && wtext(path) != NULL &&
					    strcmp(in.w[j].s, "{}") == 0) {
						char buf[SBX_PATH_MAX];
						char *d;

						/* a file below the path, named as -name says */
						snprintf(buf, sizeof(buf), "%s/%s", path->s,
						    find_name(v));
						d = sh_strdup(v->sp, buf, strlen(buf));
						if (d != NULL) {
							in.w[j].s = d;
							in.w[j].len = strlen(d);
							in.w[j].flags = SH_W_LITERAL;
						} else {
							in.w[j].flags = SH_W_VAR;
						}
					} else {
						in.w[j].flags = SH_W_VAR;
					}
				}
			}
			eval_argv(ev, &in);
			free(in.w);
			k = end;
		}
	}
}

/* Scans a sed script; returns NULL when harmless, else why not. */
static const char *
sed_script_danger(const char *s)
{
	const char *p = s;
	char d;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ';' ||
		    *p == '{' || *p == '}' || *p == '!')
			p++;
		if (*p == '\0')
			break;
		/* addresses */
		for (;;) {
			if (*p >= '0' && *p <= '9') {
				while ((*p >= '0' && *p <= '9') || *p == '~')
					p++;
			} else if (*p == '$') {
				p++;
			} else if (*p == '/' || *p == '\\') {
				d = *p == '\\' ? p[1] : '/';
				p += *p == '\\' ? 2 : 1;
				while (*p != '\0' && *p != d) {
					if (*p == '\\' && p[1] != '\0')
						p++;
					p++;
				}
				if (*p == '\0')
					return "unterminated address";
				p++;
				while (*p == 'I' || *p == 'M')
					p++;
			} else {
				break;
			}
			while (*p == ' ')
				p++;
			if (*p == ',' || *p == '+' || *p == '~') {
				p++;
				continue;
			}
			break;
		}
		while (*p == ' ' || *p == '!')
			p++;
		switch (*p) {
		case '\0':
			return NULL;
		case 's':
		case 'y':
			{
				char cmd = *p;
				int part;

				d = p[1];
				if (d == '\0' || d == '\n' || d == '\\')
					return "malformed s command";
				p += 2;
				for (part = 0; part < 2; part++) {
					while (*p != '\0' && *p != d) {
						if (*p == '\\' && p[1] != '\0')
							p++;
						p++;
					}
					if (*p == '\0')
						return "unterminated s command";
					p++;
				}
				if (cmd == 's')
					while (*p != '\0' && *p != ';' && *p != '\n' &&
					    *p != '}' && *p != ' ') {
						if (*p == 'w' || *p == 'W')
							return "the s///w flag writes a file";
						if (*p == 'e')
							return "the s///e flag runs a command";
						p++;
					}
			}
			break;
		case 'w': case 'W':
			return "the w command writes a file";
		case 'e':
			return "the e command runs a command";
		case 'r': case 'R':
			return "the r command reads a file";
		case '#':
			while (*p != '\0' && *p != '\n')
				p++;
			break;
		case 'a': case 'i': case 'c':
		case ':': case 'b': case 't': case 'T':
			/* text or a label. Stopping at ";" too may read text as
			 * commands: that can only escalate, never hide a "w". */
			while (*p != '\0' && *p != '\n' && *p != ';')
				p++;
			break;
		case 'q': case 'Q': case 'l': case 'L':
			p++;
			while (*p >= '0' && *p <= '9')
				p++;
			break;
		case 'p': case 'P': case 'd': case 'D': case 'n': case 'N':
		case 'g': case 'G': case 'h': case 'H': case 'x': case '=':
		case 'z': case 'F':
			p++;
			break;
		default:
			return "a sed command the policy does not understand";
		}
	}
	return NULL;
}

static void
cls_sed(struct ev *ev, struct cmdv *v)
{
	int k, inplace = 0, script_seen = 0, opts = 1;
	const char *s, *why;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!lit(&v->w[k]))
			continue;
		if (strncmp(s, "--in-place", 10) == 0 ||
		    (s[0] == '-' && s[1] != '-' && strchr(s, 'i') != NULL &&
		    strchr(s, 'e') == NULL))
			inplace = 1;
	}
	for (k = 1; k < v->n; k++) {
		struct sh_word *w = &v->w[k];
		const char *script = NULL;

		s = w->s;
		if (opts && lit(w) && strcmp(s, "--") == 0) {
			opts = 0;
			continue;
		}
		if (lit(w) && w->len == 0 && k > 1 && lit(&v->w[k - 1]) &&
		    strcmp(v->w[k - 1].s, "-i") == 0)
			continue;       /* BSD sed -i '': the suffix */
		if (opts && is_opt(w)) {
			if (strcmp(s, "-e") == 0 || strcmp(s, "--expression") == 0) {
				if (k + 1 < v->n) {
					script = v->w[++k].s;
					if (!lit(&v->w[k]))
						script = "w unknown";
				}
			} else if (strncmp(s, "--expression=", 13) == 0) {
				script = s + 13;
			} else if (strcmp(s, "-f") == 0 || strncmp(s, "--file", 6) == 0) {
				ev_factor(ev, F_UNKNOWN);
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sed",
				    "sed -f runs a script file that is not analysed");
				return;
			} else if (strcmp(s, "-l") == 0) {
				k++;
			}
			if (script != NULL) {
				script_seen = 1;
				if ((why = sed_script_danger(script)) != NULL) {
					ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sed",
					    "sed script: %s", why);
					return;
				}
			}
			continue;
		}
		if (!script_seen) {
			script_seen = 1;
			if (!lit(w)) {
				ev_factor(ev, F_UNKNOWN);
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sed",
				    "sed script is only known at run time");
				return;
			}
			if ((why = sed_script_danger(s)) != NULL) {
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: sed",
				    "sed script: %s", why);
				return;
			}
			continue;
		}
		if (inplace)
			write_word(ev, v, w);
		else
			op_read(ev, v, w, 0);
	}
	if (inplace && v->extra)
		trig_write(ev, NULL, "sed -i");
}

/*
 * Scans an awk program for what reaches outside it. Returns NULL when
 * harmless, else why not. Comparisons (NR > 1, $1 > 10, a || b) are not
 * redirections: ">" counts only inside a print or printf statement and
 * outside parentheses; "print > \"FILE\"" is a write to FILE.
 */
static const char *
awk_program_danger(struct ev *ev, const char *s)
{
	const char *q;
	int in_print = 0, paren = 0;

	for (q = s; *q != '\0'; q++) {
		if (*q == '\\' && q[1] != '\0') {
			q++;
			continue;
		}
		if (*q == '"') {
			for (q++; *q != '\0' && *q != '"'; q++)
				if (*q == '\\' && q[1] != '\0')
					q++;
			if (*q == '\0')
				return "unterminated string";
			continue;
		}
		if (strncmp(q, "system", 6) == 0)
			return "system() runs commands";
		if (strncmp(q, "getline", 7) == 0)
			return "getline reads commands or files";
		if (strncmp(q, "ENVIRON", 7) == 0)
			return "ENVIRON reads the environment";
		if (*q == '|') {
			if (q[1] == '|') {
				q++;
				continue;
			}
			return "a pipe runs a command";
		}
		if ((strncmp(q, "print", 5) == 0) && (q == s || !(q[-1] == '_' ||
		    (q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z')))) {
			in_print = 1;
			paren = 0;
			q += 4;
			continue;
		}
		if (*q == ';' || *q == '}' || *q == '\n') {
			in_print = 0;
			continue;
		}
		if (*q == '(')
			paren++;
		else if (*q == ')' && paren > 0)
			paren--;
		if (*q == '>' && in_print && paren == 0) {
			const char *t = q + 1 + (q[1] == '>');
			char file[SBX_PATH_MAX];
			size_t n;

			while (*t == ' ' || *t == '\t')
				t++;
			if (*t != '"')
				return "output goes to a file named at run time";
			n = strcspn(t + 1, "\"");
			if (t[1 + n] != '"' || n == 0 || n >= sizeof(file))
				return "output goes to a file named at run time";
			memcpy(file, t + 1, n);
			file[n] = '\0';
			trig_write(ev, file, "awk");
			q = t + 1 + n;
		}
	}
	return NULL;
}

static void
cls_awk(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int k, prog_seen = 0;
	const char *s, *why;

	for (k = 1; k < v->n; k++) {
		struct sh_word *w = &v->w[k];

		s = w->s;
		if (lit(w) && (strncmp(s, "-f", 2) == 0 || strncmp(s, "--file", 6) == 0 ||
		    strcmp(s, "-i") == 0 || strncmp(s, "--include", 9) == 0 ||
		    strcmp(s, "-E") == 0 || strcmp(s, "--exec") == 0 ||
		    strcmp(s, "-l") == 0 || strcmp(s, "--load") == 0)) {
			ev_factor(ev, F_UNKNOWN | F_CODE);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: awk",
			    "%s %s runs a program file that is not analysed",
			    pr->name, s);
			return;
		}
		if (lit(w) && (strcmp(s, "-F") == 0 || strcmp(s, "-v") == 0)) {
			k++;
			continue;
		}
		if (lit(w) && s[0] == '-' && s[1] != '\0')
			continue;       /* other options, and "--" */
		if (!prog_seen) {
			prog_seen = 1;
			if (!lit(w)) {
				ev_factor(ev, F_UNKNOWN);
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: awk",
				    "awk program is only known at run time");
				return;
			}
			if ((why = awk_program_danger(ev, s)) != NULL) {
				ev_factor(ev, F_UNKNOWN);
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: awk",
				    "awk program: %s", why);
				return;
			}
			continue;
		}
		if (!(w->flags & SH_W_ASSIGN) && !(lit(w) && strchr(s, '=') != NULL))
			op_read(ev, v, w, 0);
	}
}

/* ---- cd, wrappers, xargs, env --------------------------------------------- */

static void
cls_cd(struct ev *ev, struct cmdv *v)
{
	char res[SBX_PATH_MAX], path[SBX_PATH_MAX];
	const char *name = v->w[0].s;
	int k = 1;

	if (strcmp(name, "popd") == 0) {
		ev->cwd_known = 0;
		return;
	}
	while (k < v->n && lit(&v->w[k]) && (strcmp(v->w[k].s, "-L") == 0 ||
	    strcmp(v->w[k].s, "-P") == 0 || strcmp(v->w[k].s, "-e") == 0 ||
	    strcmp(v->w[k].s, "--") == 0))
		k++;
	if (k >= v->n) {
		if (ev->call->home != NULL &&
		    path_resolve("/", NULL, ev->call->home, res, sizeof(res)) == 0) {
			strcpy(ev->cwd, res);
			ev->cwd_known = 1;
		} else {
			ev->cwd_known = 0;
		}
		return;
	}
	if (word_path(ev, &v->w[k], path, sizeof(path)) != 1 ||
	    strcmp(path, "-") == 0 ||
	    (path[0] != '/' && path[0] != '~' && !ev->cwd_known) ||
	    path_resolve(ev->cwd, ev->call->home, path, res, sizeof(res)) < 0) {
		ev->cwd_known = 0;
		return;
	}
	trig_read(ev, path, "cd");
	strcpy(ev->cwd, res);
	ev->cwd_known = 1;
	/* cd x || ...: afterwards we cannot tell where we are */
	if (v->c->conn == SH_C_OR)
		ev->cwd_known = 0;
}

static void
check_assign(struct ev *ev, const char *a)
{
	static const char *const bad_vars[] = {
		"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "PATH", "BASH_ENV",
		"ENV", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS",
		"GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_EXTERNAL_DIFF",
		"GIT_PAGER", "PAGER", "EDITOR", "VISUAL", "GIT_EDITOR",
		"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS",
		"GIT_DIR", "GIT_WORK_TREE", "PYTHONSTARTUP", "PYTHONPATH",
		"NODE_OPTIONS", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB",
		"DYLD_INSERT_LIBRARIES", "LESSOPEN", "MANPAGER", "SUDO_ASKPASS",
		"SSH_ASKPASS", "BROWSER", "HOME", "ZDOTDIR", "GIT_SEQUENCE_EDITOR",
		"GIT_ASKPASS", "GIT_TEMPLATE_DIR", "GIT_INDEX_FILE",
		"GIT_OBJECT_DIRECTORY", "CDPATH", "PROMPT_COMMAND", NULL,
	};
	const char *const *b;
	size_t n = strcspn(a, "+=");

	for (b = bad_vars; *b != NULL; b++)
		if (strlen(*b) == n && strncmp(a, *b, n) == 0) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: environment",
			    "setting %s changes what the command runs", *b);
			return;
		}
	if (strncmp(a, "GIT_CONFIG_", 11) == 0)
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: environment",
		    "setting %.*s changes git's configuration", (int)n, a);
}

/*
 * Remembers NAME=value for later words of the line ($NAME): the value
 * when it is known (literal, or $HOME-like), else "assigned, unknown".
 */
static void
remember_var(struct ev *ev, const struct sh_word *w)
{
	const char *eq = strchr(w->s, '=');
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
	r = word_path(ev, &val, slot->value, sizeof(slot->value));
	slot->known = r == 1 && w->s[(size_t)(eq - w->s) - 1] != '+';
	if (r == 0)
		slot->known = 0;
}

/* Judges the command that starts at word k of v (after a wrapper). */
static void
inner(struct ev *ev, struct cmdv *v, int k)
{
	struct cmdv in = *v;

	if (k >= v->n)
		return;
	in.w = v->w + k;
	in.n = v->n - k;
	eval_argv(ev, &in);
}

static void
cls_wrap(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	const char *name = pr->name, *s;
	int k, pos = pr->npos;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!lit(&v->w[k]))
			break;
		if (strcmp(s, "--") == 0) {
			k++;
			break;
		}
		if (s[0] != '-' || s[1] == '\0')
			break;
		if (strcmp(name, "command") == 0 && (strcmp(s, "-v") == 0 ||
		    strcmp(s, "-V") == 0))
			return;         /* lookup only */
		if (strcmp(name, "time") == 0 && (strcmp(s, "-o") == 0 ||
		    strncmp(s, "--output=", 9) == 0)) {
			if (s[1] == 'o' && k + 1 < v->n)
				write_word(ev, v, &v->w[++k]);
			else
				trig_write(ev, s + 9, "time");
			continue;
		}
		if (strcmp(name, "ionice") == 0 && strcmp(s, "-p") == 0)
			return;
		if (strcmp(name, "nice") == 0 && s[1] >= '0' && s[1] <= '9')
			continue;
		if (cluster_takes_next(s, pr->optarg))
			k++;
	}
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

static void
cls_env(struct ev *ev, struct cmdv *v)
{
	int k;
	const char *s;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!lit(&v->w[k]) && !(v->w[k].flags & SH_W_ASSIGN))
			break;
		if (v->w[k].flags & SH_W_ASSIGN || (strchr(s, '=') != NULL &&
		    s[0] != '-')) {
			check_assign(ev, s);
			continue;
		}
		if (strcmp(s, "--") == 0) {
			k++;
			break;
		}
		if (strcmp(s, "-S") == 0 || strncmp(s, "--split-string", 14) == 0 ||
		    (s[0] == '-' && s[1] != '-' && strchr(s, 'S') != NULL)) {
			/* env -S STRING: split like a shell would (close enough,
			 * and it over-reads rather than under-reads) */
			const struct sh_word *str = NULL;

			if (strncmp(s, "--split-string=", 15) == 0) {
				eval_string(ev, s + 15, strlen(s + 15), "env -S");
				return;
			}
			if (strchr(s, 'S')[1] != '\0') {
				eval_string(ev, strchr(s, 'S') + 1,
				    strlen(strchr(s, 'S') + 1), "env -S");
				return;
			}
			if (k + 1 < v->n)
				str = &v->w[k + 1];
			if (str == NULL || !lit(str)) {
				ev_factor(ev, F_UNKNOWN);
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: env -S",
				    "env -S splits a string known only at run time");
				return;
			}
			eval_string(ev, str->s, str->len, "env -S");
			return;
		}
		if (strcmp(s, "-C") == 0 || strncmp(s, "--chdir", 7) == 0) {
			ev->cwd_known = 0;
			if (strcmp(s, "-C") == 0)
				k++;
			continue;
		}
		if (strcmp(s, "-u") == 0 || strcmp(s, "-P") == 0 ||
		    strcmp(s, "--unset") == 0) {
			k++;
			continue;
		}
		if (s[0] != '-')
			break;
	}
	inner(ev, v, k);
}

static void
cls_xargs(struct ev *ev, struct cmdv *v)
{
	static const char *const with_arg = "IiLlnPsdEeaJRS";
	int k, j;
	const char *s, *repl = NULL;
	struct cmdv in;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!lit(&v->w[k]))
			break;
		if (strcmp(s, "--") == 0) {
			k++;
			break;
		}
		if (s[0] != '-' || s[1] == '\0')
			break;
		if (strcmp(s, "-p") == 0 || strcmp(s, "--interactive") == 0 ||
		    strcmp(s, "-o") == 0 || strcmp(s, "--open-tty") == 0) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: xargs",
			    "xargs %s needs a terminal", s);
			return;
		}
		if (strcmp(s, "-a") == 0 && k + 1 < v->n)
			op_read(ev, v, &v->w[k + 1], 0);
		if ((strcmp(s, "-I") == 0 || strcmp(s, "-J") == 0) && k + 1 < v->n)
			repl = v->w[k + 1].s;
		else if (strncmp(s, "-I", 2) == 0 || strncmp(s, "-J", 2) == 0)
			repl = s + 2;
		else if (strcmp(s, "-i") == 0 || strcmp(s, "--replace") == 0)
			repl = "{}";
		else if (strncmp(s, "-i", 2) == 0)
			repl = s + 2;
		else if (strncmp(s, "--replace=", 10) == 0)
			repl = s + 10;
		if (strncmp(s, "--arg-file=", 11) == 0)
			trig_read(ev, s + 11, "xargs");
		if (s[1] != '-' && strlen(s) == 2 && strchr(with_arg, s[1]) != NULL &&
		    s[1] != 'i' && s[1] != 'l' && s[1] != 'e')
			k++;
	}
	if (k >= v->n) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: xargs",
		    "xargs without a command: nothing to judge");
		return;
	}
	in = *v;
	in.w = v->w + k;
	in.n = v->n - k;
	in.extra = 1;
	if (repl == NULL || repl[0] == '\0') {
		eval_argv(ev, &in);
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
	eval_argv(ev, &in);
	free(in.w);
}

static void
cls_priv(struct ev *ev, struct cmdv *v, const struct prog *pr)
{
	int k;
	const char *s;

	ev_factor(ev, F_PRIV);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: privilege",
	    "%s runs a command with other privileges", pr->name);
	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!lit(&v->w[k]))
			break;
		if (strcmp(s, "--") == 0) {
			k++;
			break;
		}
		if (s[0] != '-')
			break;
		if (cluster_takes_next(s, pr->optarg))
			k++;
		else if (strcmp(s, "--user") == 0 || strcmp(s, "--group") == 0 ||
		    strcmp(s, "--chdir") == 0 || strcmp(s, "--prompt") == 0)
			k++;
	}
	/* the inner command is judged too: sudo rm -rf / is denied */
	inner(ev, v, k);
}

static void
cls_su(struct ev *ev, struct cmdv *v)
{
	int k;

	ev_factor(ev, F_PRIV);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: privilege",
	    "%s runs commands as another user", v->w[0].s);
	for (k = 1; k + 1 < v->n; k++)
		if (lit(&v->w[k]) && (strcmp(v->w[k].s, "-c") == 0 ||
		    strcmp(v->w[k].s, "--command") == 0) && lit(&v->w[k + 1]))
			eval_string(ev, v->w[k + 1].s, v->w[k + 1].len, v->w[0].s);
}

static void
cls_editor(struct ev *ev, struct cmdv *v)
{
	int k;

	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s;

		if (!lit(&v->w[k]) || s[0] == '+' || strcmp(s, "-c") == 0 ||
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
			write_word(ev, v, &v->w[k]);
	}
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: editor",
	    "%s is interactive and needs a terminal", v->w[0].s);
}

static void
cls_kill(struct ev *ev, struct cmdv *v)
{
	int k;

	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s;

		if (!lit(&v->w[k]) || strcmp(s, "-1") == 0 || strcmp(s, "0") == 0 ||
		    (s[0] == '-' && s[1] >= '0' && s[1] <= '9' && k + 1 < v->n &&
		    lit(&v->w[k + 1]) && v->w[k + 1].s[0] == '-')) {
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

static void
cls_eval(struct ev *ev, struct cmdv *v)
{
	char *buf;
	size_t len = 0, o = 0;
	int k;

	for (k = 1; k < v->n; k++) {
		if (!lit(&v->w[k])) {
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
	eval_string(ev, buf, o - 1, "eval");
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

/* Judges one command of a known program by its class. */
static void
classify(struct ev *ev, struct cmdv *v, const struct prog *pr, const char *name)
{
	switch (pr->cls) {
	case C_NOFILE:
		if (strcmp(name, "for") == 0 && v->n >= 2 &&
		    strlen(v->w[1].s) < 64) {
			/* for f in a: $f is a; for f in a b ...: unknown */
			char as[1100];
			struct sh_word fake;

			if (v->n == 4 && strcmp(v->w[2].s, "in") == 0 &&
			    v->w[3].len < 1000) {
				snprintf(as, sizeof(as), "%s=%s", v->w[1].s, v->w[3].s);
				fake.flags = v->w[3].flags | SH_W_ASSIGN;
			} else {
				snprintf(as, sizeof(as), "%s=%c?%c", v->w[1].s,
				    SH_VAR_MARK, SH_VAR_MARK);
				fake.flags = SH_W_VAR | SH_W_ASSIGN;
			}
			fake.s = as;
			fake.len = strlen(as);
			remember_var(ev, &fake);
		} else if (strcmp(name, "export") == 0 || strcmp(name, "declare") == 0 ||
		    strcmp(name, "typeset") == 0 || strcmp(name, "local") == 0 ||
		    strcmp(name, "readonly") == 0) {
			int k;

			for (k = 1; k < v->n; k++) {
				check_assign(ev, v->w[k].s);
				if (strchr(v->w[k].s, '=') != NULL && v->w[k].s[0] != '-')
					remember_var(ev, &v->w[k]);
			}
		} else if (strcmp(name, "date") == 0 && (has_short(v, 1, 's', "drf") ||
		    has_word(v, 1, "--set"))) {
			ev_factor(ev, F_PRIV);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: admin",
			    "date --set changes the system clock");
		} else if (strcmp(name, "hostname") == 0 && v->n > 1 &&
		    v->w[1].s[0] != '-') {
			ev_factor(ev, F_PRIV);
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: admin",
			    "hostname NAME changes the host name");
		} else if (strcmp(name, "man") == 0 && (has_short(v, 1, 'P', "") ||
		    has_word(v, 1, "--pager") || has_short(v, 1, 'H', "") ||
		    strncmp(v->n > 1 ? v->w[1].s : "", "--pager=", 8) == 0 ||
		    strncmp(v->n > 1 ? v->w[1].s : "", "--html", 6) == 0)) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
			    "man with a pager or browser command");
		}
		break;
	case C_READ:
	case C_GREP:
		cls_read(ev, v, pr);
		break;
	case C_WRITE:
		cls_write(ev, v, pr);
		break;
	case C_MODE:
		cls_mode(ev, v, pr);
		break;
	case C_CPMV:
		cls_cpmv(ev, v, pr);
		break;
	case C_DD:
		cls_dd(ev, v);
		break;
	case C_PRIV:
		cls_priv(ev, v, pr);
		break;
	case C_SU:
		cls_su(ev, v);
		break;
	case C_ADMIN:
		ev_factor(ev, F_PRIV);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: admin",
		    "%s administers the system", name);
		break;
	case C_CATA:
		ev_factor(ev, F_CATASTROPHIC | F_DESTRUCTIVE);
		ev_note(ev, POLICY_DENY, "shell", "builtin: catastrophic",
		    "%s can destroy file systems", name);
		break;
	case C_NET:
		cls_net(ev, v, pr);
		break;
	case C_SHELL:
		cls_shell(ev, v);
		break;
	case C_INTERP:
		cls_interp(ev, v, pr);
		break;
	case C_WRAP:
		cls_wrap(ev, v, pr);
		break;
	case C_BUILD:
		cls_build(ev, v, pr);
		break;
	case C_CLI:
		cls_cli(ev, v, pr);
		break;
	case C_GIT:
		cls_git(ev, v);
		break;
	case C_FIND:
		cls_find(ev, v);
		break;
	case C_SED:
		cls_sed(ev, v);
		break;
	case C_AWK:
		cls_awk(ev, v, pr);
		break;
	case C_CD:
		cls_cd(ev, v);
		break;
	case C_SOURCE:
		if (v->n < 2) {
			ev_note(ev, POLICY_ESCALATE, "shell", "builtin: source",
			    "source without a file");
			break;
		}
		run_file(ev, &v->w[1], name);
		break;
	case C_EVAL:
		cls_eval(ev, v);
		break;
	case C_XARGS:
		cls_xargs(ev, v);
		break;
	case C_ENV:
		cls_env(ev, v);
		break;
	case C_EDITOR:
		cls_editor(ev, v);
		break;
	case C_KILL:
		cls_kill(ev, v);
		break;
	case C_ESC:
		if (strcmp(name, "mktemp") == 0 && v->n == 1)
			break;
		if (strcmp(name, "mktemp") == 0 && v->n == 2 &&
		    strcmp(v->w[1].s, "-d") == 0)
			break;
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: escalate",
		    "%s is escalated by the built-in defaults", name);
		break;
	}
}

static void eval_argv1(struct ev *ev, struct cmdv *v);

/* Wrappers recurse (nice nice ... rm): the depth is capped. */
static void
eval_argv(struct ev *ev, struct cmdv *v)
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

	if (!lit(&v->w[0])) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: dynamic name",
		    "the command name \"%s\" is only known at run time",
		    v->w[0].s);
		return;
	}
	name = v->w[0].s;
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
		pr = base_name[0] != '\0' ? prog_find(base_name) : NULL;
		if (pr != NULL)
			classify(ev, v, pr, base_name);
		ev->res = saved;
		ev->rank = saved_rank;
		saved->factors |= tmp.factors;
		if (tmp.verdict == POLICY_DENY)
			ev_note(ev, POLICY_DENY, tmp.trigger, tmp.rule, "%s",
			    tmp.reason);
		return;
	}
	if (is_file) {
		run_file(ev, &v->w[0], name);
		/* .venv/bin/pip, node_modules/.bin/jest, ./rm: judged as the
		 * program they are named after too (findings only add) */
		if (base_name[0] != '\0' && (pr = prog_find(base_name)) != NULL)
			classify(ev, v, pr, base_name);
		return;
	}
	pr = prog_find(name);
	if (pr == NULL) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: unknown program",
		    "%s is not a program the policy knows; a human decides", name);
		return;
	}
	classify(ev, v, pr, name);
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

		switch (r->op) {
		case SH_R_OUT: case SH_R_APPEND: case SH_R_CLOBBER:
		case SH_R_INOUT: case SH_R_OUTERR: case SH_R_APPENDERR:
			w0.s = (char *)"redirection";
			w0.len = 11;
			w0.flags = SH_W_LITERAL;
			v.w = &w0;
			v.n = 1;
			v.c = c;
			v.sp = NULL;
			v.pid = 0;
			v.extra = 0;
			pr = word_path(ev, &r->target, path, sizeof(path));
			if (pr == 1)
				trig_write(ev, path, "a redirection");
			else if (pr < 0 && (r->target.flags & SH_W_GLOB))
				glob_write(ev, &v, &r->target);
			else
				trig_write(ev, NULL, "a redirection");
			break;
		case SH_R_IN:
			if (word_path(ev, &r->target, path, sizeof(path)) >= 0)
				trig_read(ev, path, "a redirection");
			break;
		default:
			break;
		}
	}
}

static void
eval_simple(struct ev *ev, struct sh_parse *sp, const struct sh_cmd *c, int pid)
{
	struct cmdv v;
	int i;

	for (i = 0; i < c->argc && (c->argv[i].flags & SH_W_ASSIGN); i++)
		check_assign(ev, c->argv[i].s);
	eval_redirs(ev, c);
	if (i == c->argc) {
		/* NAME=value alone sets a shell variable for what follows */
		for (i = 0; i < c->argc; i++)
			remember_var(ev, &c->argv[i]);
		return;
	}
	v.w = c->argv + i;
	v.n = c->argc - i;
	v.c = c;
	v.sp = sp;
	v.pid = pid;
	v.extra = 0;
	eval_argv(ev, &v);
}

static int
push_cwd(struct ev *ev)
{
	if (ev->nstack == ev->capstack) {
		int cap = ev->capstack ? ev->capstack * 2 : 8;
		char (*ns)[SBX_PATH_MAX];
		int *nk;

		if (cap > 4 * SH_MAX_DEPTH + 16)
			return -1;
		ns = realloc(ev->stack, (size_t)cap * sizeof(*ns));
		if (ns == NULL)
			return -1;
		ev->stack = ns;
		nk = realloc(ev->stack_known, (size_t)cap * sizeof(*nk));
		if (nk == NULL)
			return -1;
		ev->stack_known = nk;
		ev->capstack = cap;
	}
	memcpy(ev->stack[ev->nstack], ev->cwd, sizeof(ev->cwd));
	ev->stack_known[ev->nstack] = ev->cwd_known;
	ev->nstack++;
	return 0;
}

static void
pop_cwd(struct ev *ev, int to)
{
	while (ev->nstack > to) {
		ev->nstack--;
		memcpy(ev->cwd, ev->stack[ev->nstack], sizeof(ev->cwd));
		ev->cwd_known = ev->stack_known[ev->nstack];
	}
}

static void
eval_string(struct ev *ev, const char *text, size_t len, const char *what)
{
	struct sh_parse sp;
	int k, base, pid, rc;

	if (ev->strings >= SBX_EV_MAX_STRINGS) {
		ev_factor(ev, F_UNKNOWN);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: nesting",
		    "commands nested in strings more than %d deep",
		    SBX_EV_MAX_STRINGS);
		return;
	}
	if (fork_bomb(text, len)) {
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
	if (push_cwd(ev) < 0) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: nesting",
		    "subshells nested too deep");
		goto out;
	}
	for (k = 0; k < sp.ncmds; k++) {
		const struct sh_cmd *c = &sp.cmds[k];

		if (c->kind == SH_PUSH) {
			if (push_cwd(ev) < 0) {
				ev_note(ev, POLICY_ESCALATE, "shell", "builtin: nesting",
				    "subshells nested too deep");
				break;
			}
		} else if (c->kind == SH_POP) {
			if (ev->nstack > base + 1)
				pop_cwd(ev, ev->nstack - 1);
		} else {
			eval_simple(ev, &sp, c, pid);
		}
	}
	/* a top-level string keeps its cd for nothing after it; restore */
	pop_cwd(ev, base);
out:
	ev->strings--;
	sh_parse_free(&sp);
}

void
shell_eval(struct ev *ev, const char *text, size_t len)
{
	eval_string(ev, text, len, "the command");
}
