/*
 * progs.c - the programs the shell analyser knows, and the dispatcher that
 * hands a simple command to the handler of its program's class.
 *
 * Rules:
 * - A program not in the table is unknown and escalates.
 * - The table MUST stay sorted by strcmp (bsearch). The order is checked
 *   once at first use; if it is wrong, every program is unknown (fail
 *   closed) and the unit tests fail loudly.
 */
#include "policy/analyse.h"
#include "policy/interactive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sorted by name (strcmp): looked up with bsearch. */
static const struct prog progs[] = {
	{ ".", C_SOURCE, "", 0 },
	{ ":", C_NOFILE, "", 0 },
	{ "[", C_NOFILE, "", 0 },
	{ "[[", C_NOFILE, "", 0 },
	{ "actionlint", C_READ, "c", 0 },
	{ "alias", C_ESC, "", 0 },
	{ "apk", C_ADMIN, "", 0 },
	{ "apt", C_ADMIN, "", 0 },
	{ "apt-get", C_ADMIN, "", 0 },
	{ "arch", C_NOFILE, "", 0 },
	{ "autopep8", C_LINT, "", 0 },
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
	{ "biome", C_LINT, "", 0 },
	{ "black", C_LINT, "lcSt", 0 },
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
	{ "clang-format", C_LINT, "", 0 },
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
	{ "eslint", C_LINT, "cof", 0 },
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
	{ "flake8", C_LINT, "", 0 },
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
	{ "git", C_GIT, "Cc", 0 },
	{ "go", C_BUILD, "", 0 },
	{ "gofmt", C_LINT, "r", 0 },
	{ "golangci-lint", C_LINT, "c", 0 },
	{ "gradle", C_BUILD, "", 0 },
	{ "grep", C_GREP, "efABCmd", 0 },
	{ "groupadd", C_ADMIN, "", 0 },
	{ "groups", C_NOFILE, "", 0 },
	{ "hadolint", C_READ, "c", 0 },
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
	{ "isort", C_LINT, "", 0 },
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
	{ "mypy", C_LINT, "cpm", 0 },
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
	{ "prettier", C_LINT, "", 0 },
	{ "printenv", C_NOFILE, "", 0 },
	{ "printf", C_NOFILE, "v", 0 },
	{ "ps", C_NOFILE, "", 0 },
	{ "pushd", C_CD, "", 0 },
	{ "pwd", C_NOFILE, "", 0 },
	{ "py.test", C_BUILD, "", 0 },
	{ "pylint", C_LINT, "", 0 },
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
	{ "ruff", C_LINT, "", 0 },
	{ "run0", C_PRIV, "", 0 },
	{ "runuser", C_SU, "", 0 },
	{ "rustc", C_BUILD, "", 0 },
	{ "rustfmt", C_LINT, "", 0 },
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
	{ "shellcheck", C_READ, "CeiosSfPWx", 0 },
	{ "shfmt", C_LINT, "ifl", 0 },
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
	{ "stylua", C_LINT, "", 0 },
	{ "su", C_SU, "", 0 },
	{ "sudo", C_PRIV, "ugCDhprtUT", 0 },
	{ "swapoff", C_ADMIN, "", 0 },
	{ "swapon", C_ADMIN, "", 0 },
	{ "sysctl", C_ADMIN, "", 0 },
	{ "systemctl", C_ADMIN, "", 0 },
	{ "tac", C_READ, "s", 0 },
	{ "tail", C_READ, "ncs", 0 },
	{ "tar", C_TAR, "", 0 },
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
	{ "unzip", C_UNZIP, "dxP", 0 },
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
	{ "yamllint", C_READ, "cdf", 0 },
	{ "yapf", C_LINT, "", 0 },
	{ "yarn", C_BUILD, "", 0 },
	{ "yes", C_NOFILE, "", 0 },
	{ "yum", C_ADMIN, "", 0 },
	{ "zcat", C_READ, "", 0 },
	{ "zip", C_ZIP, "bntxiPO", 0 },
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

const struct prog *
an_prog_find(const char *name)
{
	if (!progs_sorted())
		return NULL;    /* every program unknown: escalate */
	if (strncmp(name, "mkfs.", 5) == 0)
		return an_prog_find("mkfs");
	if (strncmp(name, "python3.", 8) == 0)
		return an_prog_find("python3");
	return bsearch(name, progs, (size_t)NPROGS, sizeof(progs[0]), prog_cmp);
}

/*
 * history -w/-a [FILE] writes FILE ($HISTFILE, ~/.bash_history, without
 * one); history -r/-n [FILE] reads it.
 */
void
an_history(struct ev *ev, struct cmdv *v)
{
	int k, w = 0, r = 0;
	const char *s;

	for (k = 1; k < v->n; k++) {
		s = v->w[k].s;
		if (!an_lit(&v->w[k]) || s[0] != '-')
			break;
		w |= strpbrk(s, "wa") != NULL;
		r |= strpbrk(s, "rn") != NULL;
	}
	if (!w && !r)
		return;
	if (k >= v->n) {
		ev_note(ev, POLICY_ESCALATE, "write", "builtin: unknown target",
		    "history %s uses $HISTFILE, outside the project",
		    w ? "-w/-a" : "-r/-n");
		return;
	}
	if (w)
		an_write_word(ev, v, &v->w[k]);
	if (r)
		an_op_read(ev, v, &v->w[k], 0);
}

/* for f in a: $f is a; for f in a b ...: unknown */
static void
nofile_for(struct ev *ev, struct cmdv *v)
{
		char as[1100];
		struct sh_word fake;

		int j, nums = v->n > 3 && strcmp(v->w[2].s, "in") == 0;

		for (j = 3; j < v->n && nums; j++)
			if (!an_lit(&v->w[j]) || v->w[j].len == 0 || v->w[j].len > 18 ||
			    strspn(v->w[j].s, "0123456789") != v->w[j].len)
				nums = 0;
		if (nums) {
			/* for i in 1 2 3: a number (arithmetic may use it) */
			snprintf(as, sizeof(as), "%s=%s", v->w[1].s, v->w[3].s);
			fake.flags = SH_W_LITERAL | SH_W_ASSIGN;
		} else if (v->n == 4 && strcmp(v->w[2].s, "in") == 0 &&
		    v->w[3].len < 1000) {
			snprintf(as, sizeof(as), "%s=%s", v->w[1].s, v->w[3].s);
			fake.flags = v->w[3].flags | SH_W_ASSIGN;
		} else {
			int taint = 0;

			/* for f in $(cat list): each f may be any path */
			for (j = 3; j < v->n; j++)
				if ((v->w[j].flags & SH_W_SUBST) && ev->subst_unsafe)
					taint = 1;
			snprintf(as, sizeof(as), "%s=%c%c%c", v->w[1].s,
			    SH_VAR_MARK, taint ? '!' : '?', SH_VAR_MARK);
			fake.flags = SH_W_VAR | SH_W_ASSIGN;
		}
		/* for f in ~/.ssh/STAR: f names secrets; reads through
		 * it escalate */
		for (j = 3; j < v->n && strcmp(v->w[2].s, "in") == 0; j++) {
			char pth[SBX_PATH_MAX];
			const struct sh_word *lw = &v->w[j];
			int sec;

			if ((lw->flags & SH_W_GLOB) &&
			    !(lw->flags & (SH_W_VAR | SH_W_SUBST)))
				sec = an_glob_secret_dry(ev, lw);
			else
				sec = an_word_path(ev, lw, pth, sizeof(pth)) >= 0 &&
				    trig_is_secret(ev, pth, 1);
			if (sec) {
				snprintf(as, sizeof(as), "%s=%c!%c", v->w[1].s,
				    SH_VAR_MARK, SH_VAR_MARK);
				fake.flags = SH_W_VAR | SH_W_ASSIGN;
				break;
			}
		}
		fake.s = as;
		fake.len = strlen(as);
		an_check_var_name(ev, v->w[1].s, NULL, "for");
		an_remember_var(ev, &fake);
}

/* printf, read, unset, test, [, [[: names with subscripts (printf -v
 * 'a[$(cmd)]' runs cmd) and arithmetic operands. */
static void
nofile_names(struct ev *ev, struct cmdv *v, const char *name)
{
			int k;

		for (k = 1; k < v->n; k++) {
			const char *s = v->w[k].s, *o = strchr(s, '[');

			if (o != NULL)
				an_check_code_text(ev, s);
			/* a[i] as a name (printf -v, read, unset, -v):
			 * the subscript is arithmetic */
			if (o != NULL && o > s && strcmp(s, "[") != 0 &&
			    strcmp(s, "[[") != 0 && strchr(o, ']') != NULL) {
				char sub[256];
				size_t sl = (size_t)(strrchr(o, ']') - o - 1);

				if (sl < sizeof(sub) && strspn(s, "abcdefghijklmnop"
				    "qrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") ==
				    (size_t)(o - s)) {
					memcpy(sub, o + 1, sl);
					sub[sl] = '\0';
					if (strcmp(sub, "@") != 0 && strcmp(sub, "*") != 0)
						an_arith_text(ev, sub);
				}
			}
			/* [[ A -eq B ]]: both sides are arithmetic */
			if (strcmp(name, "[[") == 0 && an_lit(&v->w[k]) &&
			    s[0] == '-' && (strcmp(s, "-eq") == 0 ||
			    strcmp(s, "-ne") == 0 || strcmp(s, "-lt") == 0 ||
			    strcmp(s, "-le") == 0 || strcmp(s, "-gt") == 0 ||
			    strcmp(s, "-ge") == 0) && k > 1 && k + 1 < v->n) {
				an_arith_word(ev, &v->w[k - 1]);
				an_arith_word(ev, &v->w[k + 1]);
			}
		}
		an_set_names(ev, v, name);
		if (strcmp(name, "printf") == 0)
			an_echo_names(ev, v);
}

/* export, declare, typeset, local, readonly */
static void
nofile_export(struct ev *ev, struct cmdv *v, const char *name)
{
		int k;

		for (k = 1; k < v->n; k++) {
			if (an_lit(&v->w[k]) && v->w[k].s[0] == '-' &&
			    strpbrk(v->w[k].s, "ni") != NULL &&
			    strchr(v->w[k].s, '=') == NULL) {
				ev_note(ev, POLICY_ESCALATE, "shell",
				    "builtin: environment", "%s %s makes names that "
				    "refer to other variables or evaluate arithmetic",
				    name, v->w[k].s);
			}
			an_check_assign(ev, v->w[k].s);
			if (strchr(v->w[k].s, '=') != NULL && v->w[k].s[0] != '-')
				an_remember_var(ev, &v->w[k]);
		}
}

/* date -f FILE prints the lines it cannot parse; man ./FILE formats a
 * local file: both show its content */
static void
nofile_reads(struct ev *ev, struct cmdv *v, const char *name)
{
	int k;

	for (k = 1; k < v->n; k++) {
		const char *s = v->w[k].s;

		if (strcmp(name, "date") == 0 && (strcmp(s, "-f") == 0 ||
		    strcmp(s, "--file") == 0) && k + 1 < v->n)
			an_op_read(ev, v, &v->w[k + 1], 0);
		else if (strcmp(name, "date") == 0 &&
		    strncmp(s, "--file=", 7) == 0)
			trig_read(ev, s + 7, name);
		else if (strcmp(name, "man") == 0 && s[0] != '-' &&
		    strchr(s, '/') != NULL)
			an_op_read(ev, v, &v->w[k], 0);
	}
}

/* Commands with no file operands: builtins that set names, and the few
 * options that read a file or change the system. */
static void
cls_nofile(struct ev *ev, struct cmdv *v, const char *name)
{
	if (strcmp(name, "for") == 0 && v->n >= 2 &&
	    strlen(v->w[1].s) < 64) {
		nofile_for(ev, v);
	} else if (strcmp(name, "set") == 0 || strcmp(name, "shopt") == 0) {
		an_set_options(ev, v);
	} else if (strcmp(name, "printf") == 0 || strcmp(name, "read") == 0 ||
	    strcmp(name, "unset") == 0 || strcmp(name, "test") == 0 ||
	    strcmp(name, "[") == 0 || strcmp(name, "[[") == 0) {
		nofile_names(ev, v, name);
	} else if (strcmp(name, "export") == 0 || strcmp(name, "declare") == 0 ||
	    strcmp(name, "typeset") == 0 || strcmp(name, "local") == 0 ||
	    strcmp(name, "readonly") == 0) {
		nofile_export(ev, v, name);
	} else if (strcmp(name, "date") == 0 && (an_has_short(v, 1, 's', "drf") ||
	    an_has_word(v, 1, "--set"))) {
		ev_factor(ev, F_PRIV);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: admin",
		    "date --set changes the system clock");
	} else if (strcmp(name, "echo") == 0) {
		an_echo_names(ev, v);
	} else if (strcmp(name, "history") == 0) {
		an_history(ev, v);
	} else if (strcmp(name, "hostname") == 0 && v->n > 1 &&
	    v->w[1].s[0] != '-') {
		ev_factor(ev, F_PRIV);
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: admin",
		    "hostname NAME changes the host name");
	} else if (strcmp(name, "man") == 0 && (an_has_short(v, 1, 'P', "") ||
	    an_has_word(v, 1, "--pager") || an_has_short(v, 1, 'H', "") ||
	    strncmp(v->n > 1 ? v->w[1].s : "", "--pager=", 8) == 0 ||
	    strncmp(v->n > 1 ? v->w[1].s : "", "--html", 6) == 0)) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: option",
		    "man with a pager or browser command");
	}
	nofile_reads(ev, v, name);
}

static void
cls_source(struct ev *ev, struct cmdv *v, const char *name)
{
	if (v->n < 2) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: source",
		    "source without a file");
		return;
	}
	an_run_file(ev, &v->w[1], name);
	ev->cwd_known = 0;      /* the file may cd */
}

/* Escalated by name; mktemp and mktemp -d only make a temporary name. */
static void
cls_esc(struct ev *ev, struct cmdv *v, const char *name)
{
	if (strcmp(name, "mktemp") == 0 && v->n == 1)
		return;
	if (strcmp(name, "mktemp") == 0 && v->n == 2 &&
	    strcmp(v->w[1].s, "-d") == 0)
		return;
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: escalate",
	    "%s is escalated by the built-in defaults", name);
}

/* Judges one command of a known program by its class. */
void
an_classify(struct ev *ev, struct cmdv *v, const struct prog *pr, const char *name)
{
	an_opts_scan(ev, v, pr, name);
	switch (pr->cls) {
	case C_NOFILE:
		cls_nofile(ev, v, name);
		break;
	case C_READ:
	case C_GREP:
		an_cls_read(ev, v, pr);
		break;
	case C_WRITE:
		an_cls_write(ev, v, pr);
		break;
	case C_MODE:
		an_cls_mode(ev, v, pr);
		break;
	case C_CPMV:
		an_cls_cpmv(ev, v, pr);
		break;
	case C_DD:
		an_cls_dd(ev, v);
		break;
	case C_PRIV:
		an_cls_priv(ev, v, pr);
		break;
	case C_SU:
		an_cls_su(ev, v);
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
		an_cls_net(ev, v, pr);
		break;
	case C_SHELL:
		an_interactive(ev, v, name);
		an_cls_shell(ev, v);
		break;
	case C_INTERP:
		an_interactive(ev, v, name);
		an_cls_interp(ev, v, pr);
		break;
	case C_WRAP:
		an_cls_wrap(ev, v, pr);
		break;
	case C_BUILD:
		an_interactive(ev, v, name);
		an_cls_build(ev, v, pr);
		break;
	case C_CLI:
		an_cls_cli(ev, v, pr);
		break;
	case C_LINT:
		an_cls_lint(ev, v, pr);
		break;
	case C_TAR:
		an_cls_tar(ev, v);
		break;
	case C_UNZIP:
		an_cls_unzip(ev, v, pr);
		break;
	case C_ZIP:
		an_cls_zip(ev, v, pr);
		break;
	case C_GIT:
		an_cls_git(ev, v);
		break;
	case C_FIND:
		an_cls_find(ev, v);
		break;
	case C_SED:
		an_cls_sed(ev, v);
		break;
	case C_AWK:
		an_cls_awk(ev, v, pr);
		break;
	case C_CD:
		an_cls_cd(ev, v);
		break;
	case C_SOURCE:
		cls_source(ev, v, name);
		break;
	case C_EVAL:
		an_cls_eval(ev, v);
		break;
	case C_XARGS:
		an_cls_xargs(ev, v);
		break;
	case C_ENV:
		an_cls_env(ev, v);
		break;
	case C_EDITOR:
		an_cls_editor(ev, v);
		break;
	case C_KILL:
		an_cls_kill(ev, v);
		break;
	case C_ESC:
		cls_esc(ev, v, name);
		break;
	}
}
