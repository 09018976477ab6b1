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
	{ ".", C_SOURCE, "", 0, OPTS_NONE },
	{ ":", C_NOFILE, "", 0, OPTS_NONE },
	{ "[", C_NOFILE, "", 0, OPTS_NONE },
	{ "[[", C_NOFILE, "", 0, OPTS_NONE },
	{ "actionlint", C_READ, "c", 0, OPTS_NONE },
	{ "alias", C_ESC, "", 0, OPTS_NONE },
	{ "apk", C_ADMIN, "", 0, OPTS_NONE },
	{ "apt", C_ADMIN, "", 0, OPTS_NONE },
	{ "apt-get", C_ADMIN, "", 0, OPTS_NONE },
	{ "arch", C_NOFILE, "", 0, OPTS_NONE },
	{ "autopep8", C_LINT, "", 0, OPTS_NONE },
	{ "awk", C_AWK, "Ffv", 0, OPTS_NONE },
	{ "aws", C_CLI, "", 0, OPTS_NONE },
	{ "az", C_CLI, "", 0, OPTS_NONE },
	{ "b2sum", C_READ, "", 0, OPTS_NONE },
	{ "base32", C_READ, "w", 0, OPTS_NONE },
	{ "base64", C_READ, "w", 0, OPTS_NONE },
	{ "basename", C_NOFILE, "s", 0, OPTS_NONE },
	{ "bash", C_SHELL, "oO", 0, OPTS_NONE },
	{ "bat", C_READ, "lmr", 0, OPTS_BAT },
	{ "bg", C_NOFILE, "", 0, OPTS_NONE },
	{ "biome", C_LINT, "", 0, OPTS_NONE },
	{ "black", C_LINT, "lct", 0, OPTS_NONE },
	{ "blkdiscard", C_CATA, "", 0, OPTS_NONE },
	{ "break", C_NOFILE, "", 0, OPTS_NONE },
	{ "brew", C_CLI, "", 0, OPTS_NONE },
	{ "builtin", C_WRAP, "", 0, OPTS_NONE },
	{ "bun", C_BUILD, "", 0, OPTS_NONE },
	{ "bunx", C_CLI, "", 0, OPTS_NONE },
	{ "bzcat", C_READ, "", 0, OPTS_NONE },
	{ "c++", C_BUILD, "", 0, OPTS_CC },
	{ "cal", C_NOFILE, "", 0, OPTS_NONE },
	{ "cargo", C_BUILD, "", 0, OPTS_CARGO },
	{ "cat", C_READ, "", 0, OPTS_NONE },
	{ "cc", C_BUILD, "", 0, OPTS_CC },
	{ "cd", C_CD, "", 0, OPTS_NONE },
	{ "cdk", C_CLI, "", 0, OPTS_NONE },
	{ "cfdisk", C_CATA, "", 0, OPTS_NONE },
	{ "chattr", C_ADMIN, "", 0, OPTS_NONE },
	{ "chgrp", C_MODE, "", 0, OPTS_NONE },
	{ "chmod", C_MODE, "", 0, OPTS_NONE },
	{ "chown", C_MODE, "", 0, OPTS_NONE },
	{ "chpasswd", C_ADMIN, "", 0, OPTS_NONE },
	{ "chroot", C_ADMIN, "", 0, OPTS_NONE },
	{ "chrt", C_WRAP, "", 1, OPTS_NONE },
	{ "cksum", C_READ, "", 0, OPTS_NONE },
	{ "clang", C_BUILD, "", 0, OPTS_CC },
	{ "clang-format", C_LINT, "", 0, OPTS_CLANG_FORMAT },
	{ "clear", C_NOFILE, "", 0, OPTS_NONE },
	{ "cmake", C_BUILD, "", 0, OPTS_NONE },
	{ "cmp", C_READ, "in", 0, OPTS_NONE },
	{ "column", C_READ, "soc", 0, OPTS_NONE },
	{ "comm", C_READ, "", 0, OPTS_NONE },
	{ "command", C_WRAP, "", 0, OPTS_NONE },
	{ "continue", C_NOFILE, "", 0, OPTS_NONE },
	{ "cp", C_CPMV, "tS", 0, OPTS_NONE },
	{ "crontab", C_ADMIN, "", 0, OPTS_NONE },
	{ "cryptsetup", C_ADMIN, "", 0, OPTS_NONE },
	{ "curl", C_NET, "odFTKHXAeuEbcrwmyYzx", 0, OPTS_CURL },
	{ "cut", C_READ, "bcdf", 0, OPTS_NONE },
	{ "dash", C_SHELL, "oO", 0, OPTS_NONE },
	{ "date", C_NOFILE, "drf", 0, OPTS_DATE },
	{ "dd", C_DD, "", 0, OPTS_NONE },
	{ "declare", C_NOFILE, "", 0, OPTS_NONE },
	{ "df", C_NOFILE, "", 0, OPTS_NONE },
	{ "diff", C_READ, "CUIFSxX", 0, OPTS_DIFF },
	{ "dig", C_NET, "", 0, OPTS_NONE },
	{ "dirname", C_NOFILE, "", 0, OPTS_NONE },
	{ "disown", C_NOFILE, "", 0, OPTS_NONE },
	{ "dnf", C_ADMIN, "", 0, OPTS_NONE },
	{ "doas", C_PRIV, "uC", 0, OPTS_NONE },
	{ "docker", C_CLI, "", 0, OPTS_NONE },
	{ "dpkg", C_ADMIN, "", 0, OPTS_NONE },
	{ "du", C_READ, "dBt", 0, OPTS_DU },
	{ "echo", C_NOFILE, "", 0, OPTS_NONE },
	{ "egrep", C_GREP, "efABCmd", 0, OPTS_GREP },
	{ "emacs", C_EDITOR, "", 0, OPTS_NONE },
	{ "env", C_ENV, "", 0, OPTS_NONE },
	{ "eslint", C_LINT, "cof", 0, OPTS_ESLINT },
	{ "eval", C_EVAL, "", 0, OPTS_NONE },
	{ "exec", C_WRAP, "a", 0, OPTS_NONE },
	{ "exit", C_NOFILE, "", 0, OPTS_NONE },
	{ "expand", C_READ, "t", 0, OPTS_NONE },
	{ "export", C_NOFILE, "", 0, OPTS_NONE },
	{ "expr", C_NOFILE, "", 0, OPTS_NONE },
	{ "factor", C_NOFILE, "", 0, OPTS_NONE },
	{ "false", C_NOFILE, "", 0, OPTS_NONE },
	{ "fd", C_READ, "tedESxX", 0, OPTS_FD },
	{ "fdisk", C_CATA, "", 0, OPTS_NONE },
	{ "fg", C_NOFILE, "", 0, OPTS_NONE },
	{ "fgrep", C_GREP, "efABCmd", 0, OPTS_GREP },
	{ "file", C_READ, "fmFP", 0, OPTS_FILE },
	{ "find", C_FIND, "", 0, OPTS_NONE },
	{ "fish", C_SHELL, "", 0, OPTS_NONE },
	{ "flake8", C_LINT, "", 0, OPTS_NONE },
	{ "fmt", C_READ, "w", 0, OPTS_NONE },
	{ "fold", C_READ, "w", 0, OPTS_NONE },
	{ "for", C_NOFILE, "", 0, OPTS_NONE },
	{ "free", C_NOFILE, "", 0, OPTS_NONE },
	{ "ftp", C_NET, "", 0, OPTS_NONE },
	{ "g++", C_BUILD, "", 0, OPTS_CC },
	{ "gawk", C_AWK, "Ffv", 0, OPTS_NONE },
	{ "gcc", C_BUILD, "", 0, OPTS_CC },
	{ "gcloud", C_CLI, "", 0, OPTS_NONE },
	{ "getconf", C_NOFILE, "", 0, OPTS_NONE },
	{ "gh", C_CLI, "", 0, OPTS_NONE },
	{ "git", C_GIT, "Cc", 0, OPTS_NONE },
	{ "go", C_BUILD, "", 0, OPTS_GO },
	{ "gofmt", C_LINT, "r", 0, OPTS_NONE },
	{ "golangci-lint", C_LINT, "c", 0, OPTS_NONE },
	{ "gradle", C_BUILD, "", 0, OPTS_GRADLE },
	{ "grep", C_GREP, "efABCmd", 0, OPTS_GREP },
	{ "groupadd", C_ADMIN, "", 0, OPTS_NONE },
	{ "groups", C_NOFILE, "", 0, OPTS_NONE },
	{ "hadolint", C_READ, "c", 0, OPTS_NONE },
	{ "halt", C_ADMIN, "", 0, OPTS_NONE },
	{ "hash", C_ESC, "", 0, OPTS_NONE },
	{ "head", C_READ, "nc", 0, OPTS_NONE },
	{ "helm", C_CLI, "", 0, OPTS_NONE },
	{ "hexdump", C_READ, "nsen", 0, OPTS_NONE },
	{ "history", C_NOFILE, "", 0, OPTS_NONE },
	{ "host", C_NET, "", 0, OPTS_NONE },
	{ "hostname", C_NOFILE, "", 0, OPTS_NONE },
	{ "iconv", C_READ, "fto", 0, OPTS_ICONV },
	{ "id", C_NOFILE, "", 0, OPTS_NONE },
	{ "insmod", C_ADMIN, "", 0, OPTS_NONE },
	{ "install", C_CPMV, "tSmogb", 0, OPTS_NONE },
	{ "ionice", C_WRAP, "cnp", 0, OPTS_NONE },
	{ "ip6tables", C_ADMIN, "", 0, OPTS_NONE },
	{ "iptables", C_ADMIN, "", 0, OPTS_NONE },
	{ "isort", C_LINT, "", 0, OPTS_NONE },
	{ "jest", C_BUILD, "", 0, OPTS_JEST },
	{ "jobs", C_NOFILE, "", 0, OPTS_NONE },
	{ "join", C_READ, "12jteo", 0, OPTS_NONE },
	{ "jq", C_READ, "fL", 0, OPTS_JQ },
	{ "kill", C_KILL, "sn", 0, OPTS_NONE },
	{ "killall", C_ESC, "", 0, OPTS_NONE },
	{ "ksh", C_SHELL, "oO", 0, OPTS_NONE },
	{ "kubectl", C_CLI, "", 0, OPTS_NONE },
	{ "launchctl", C_ADMIN, "", 0, OPTS_NONE },
	{ "less", C_READ, "", 0, OPTS_LESS },
	{ "ln", C_CPMV, "tS", 0, OPTS_NONE },
	{ "local", C_NOFILE, "", 0, OPTS_NONE },
	{ "locale", C_NOFILE, "", 0, OPTS_NONE },
	{ "logname", C_NOFILE, "", 0, OPTS_NONE },
	{ "losetup", C_ADMIN, "", 0, OPTS_NONE },
	{ "ls", C_READ, "ITw", 0, OPTS_LS },
	{ "lsblk", C_NOFILE, "", 0, OPTS_NONE },
	{ "lscpu", C_NOFILE, "", 0, OPTS_NONE },
	{ "lua", C_INTERP, "", 0, OPTS_NONE },
	{ "make", C_BUILD, "CfIjlWo", 0, OPTS_MAKE },
	{ "man", C_NOFILE, "", 0, OPTS_MAN },
	{ "mawk", C_AWK, "Ffv", 0, OPTS_NONE },
	{ "md5sum", C_READ, "", 0, OPTS_NONE },
	{ "meson", C_BUILD, "", 0, OPTS_NONE },
	{ "mkdir", C_WRITE, "m", 0, OPTS_NONE },
	{ "mke2fs", C_CATA, "", 0, OPTS_NONE },
	{ "mkfs", C_CATA, "", 0, OPTS_NONE },
	{ "mkswap", C_CATA, "", 0, OPTS_NONE },
	{ "mktemp", C_ESC, "", 0, OPTS_NONE },
	{ "mocha", C_BUILD, "", 0, OPTS_NONE },
	{ "modprobe", C_ADMIN, "", 0, OPTS_NONE },
	{ "more", C_READ, "", 0, OPTS_NONE },
	{ "mount", C_ADMIN, "", 0, OPTS_NONE },
	{ "mv", C_CPMV, "tS", 0, OPTS_NONE },
	{ "mvn", C_BUILD, "", 0, OPTS_MVN },
	{ "mypy", C_LINT, "cpm", 0, OPTS_MYPY },
	{ "nano", C_EDITOR, "", 0, OPTS_NONE },
	{ "nawk", C_AWK, "Ffv", 0, OPTS_NONE },
	{ "nc", C_NET, "psw", 0, OPTS_NONE },
	{ "ncat", C_NET, "psw", 0, OPTS_NONE },
	{ "netcat", C_NET, "psw", 0, OPTS_NONE },
	{ "nft", C_ADMIN, "", 0, OPTS_NONE },
	{ "nice", C_WRAP, "n", 0, OPTS_NONE },
	{ "ninja", C_BUILD, "Cfjlk", 0, OPTS_NONE },
	{ "nl", C_READ, "bdfhilnsvw", 0, OPTS_NONE },
	{ "node", C_INTERP, "", 0, OPTS_NODE },
	{ "nodejs", C_INTERP, "", 0, OPTS_NODE },
	{ "nohup", C_WRAP, "", 0, OPTS_NONE },
	{ "npm", C_BUILD, "", 0, OPTS_NPM },
	{ "nproc", C_NOFILE, "", 0, OPTS_NONE },
	{ "npx", C_CLI, "", 0, OPTS_NONE },
	{ "nslookup", C_NET, "", 0, OPTS_NONE },
	{ "numfmt", C_NOFILE, "", 0, OPTS_NONE },
	{ "nvim", C_EDITOR, "", 0, OPTS_NONE },
	{ "od", C_READ, "AjNt", 0, OPTS_NONE },
	{ "parted", C_CATA, "", 0, OPTS_NONE },
	{ "passwd", C_ADMIN, "", 0, OPTS_NONE },
	{ "paste", C_READ, "d", 0, OPTS_NONE },
	{ "perl", C_INTERP, "", 0, OPTS_NONE },
	{ "pgrep", C_NOFILE, "", 0, OPTS_NONE },
	{ "php", C_INTERP, "", 0, OPTS_NONE },
	{ "ping", C_NET, "cWiIst", 0, OPTS_NONE },
	{ "pip", C_CLI, "", 0, OPTS_NONE },
	{ "pip3", C_CLI, "", 0, OPTS_NONE },
	{ "pkexec", C_PRIV, "", 0, OPTS_NONE },
	{ "pkill", C_ESC, "", 0, OPTS_NONE },
	{ "pnpm", C_BUILD, "", 0, OPTS_NONE },
	{ "podman", C_CLI, "", 0, OPTS_NONE },
	{ "popd", C_CD, "", 0, OPTS_NONE },
	{ "poweroff", C_ADMIN, "", 0, OPTS_NONE },
	{ "prettier", C_LINT, "", 0, OPTS_PRETTIER },
	{ "printenv", C_NOFILE, "", 0, OPTS_NONE },
	{ "printf", C_NOFILE, "v", 0, OPTS_NONE },
	{ "ps", C_NOFILE, "", 0, OPTS_NONE },
	{ "pushd", C_CD, "", 0, OPTS_NONE },
	{ "pwd", C_NOFILE, "", 0, OPTS_NONE },
	{ "py.test", C_BUILD, "", 0, OPTS_PYTEST },
	{ "pylint", C_LINT, "", 0, OPTS_NONE },
	{ "pytest", C_BUILD, "", 0, OPTS_PYTEST },
	{ "python", C_INTERP, "cmWX", 0, OPTS_PYTHON },
	{ "python2", C_INTERP, "cmWX", 0, OPTS_PYTHON },
	{ "python3", C_INTERP, "cmWX", 0, OPTS_PYTHON },
	{ "read", C_NOFILE, "", 0, OPTS_NONE },
	{ "readlink", C_READ, "", 0, OPTS_NONE },
	{ "readonly", C_NOFILE, "", 0, OPTS_NONE },
	{ "realpath", C_READ, "", 0, OPTS_NONE },
	{ "reboot", C_ADMIN, "", 0, OPTS_NONE },
	{ "return", C_NOFILE, "", 0, OPTS_NONE },
	{ "rev", C_READ, "", 0, OPTS_NONE },
	{ "rg", C_GREP, "efABCmgtTjMErd", 0, OPTS_RG },
	{ "rm", C_WRITE, "", 0, OPTS_NONE },
	{ "rmdir", C_WRITE, "", 0, OPTS_NONE },
	{ "rmmod", C_ADMIN, "", 0, OPTS_NONE },
	{ "rpm", C_ADMIN, "", 0, OPTS_NONE },
	{ "rsync", C_NET, "e", 0, OPTS_RSYNC },
	{ "ruby", C_INTERP, "", 0, OPTS_NONE },
	{ "ruff", C_LINT, "", 0, OPTS_RUFF },
	{ "run0", C_PRIV, "", 0, OPTS_NONE },
	{ "runuser", C_SU, "", 0, OPTS_NONE },
	{ "rustc", C_BUILD, "", 0, OPTS_RUSTC },
	{ "rustfmt", C_LINT, "", 0, OPTS_NONE },
	{ "scp", C_NET, "cFiloPS", 0, OPTS_SSH },
	{ "sed", C_SED, "", 0, OPTS_NONE },
	{ "seq", C_NOFILE, "fs", 0, OPTS_NONE },
	{ "service", C_ADMIN, "", 0, OPTS_NONE },
	{ "set", C_NOFILE, "", 0, OPTS_NONE },
	{ "setcap", C_ADMIN, "", 0, OPTS_NONE },
	{ "setfacl", C_ADMIN, "", 0, OPTS_NONE },
	{ "setsid", C_WRAP, "", 0, OPTS_NONE },
	{ "sfdisk", C_CATA, "", 0, OPTS_NONE },
	{ "sftp", C_NET, "", 0, OPTS_NONE },
	{ "sgdisk", C_CATA, "", 0, OPTS_NONE },
	{ "sh", C_SHELL, "oO", 0, OPTS_NONE },
	{ "sha1sum", C_READ, "", 0, OPTS_NONE },
	{ "sha224sum", C_READ, "", 0, OPTS_NONE },
	{ "sha256sum", C_READ, "", 0, OPTS_NONE },
	{ "sha384sum", C_READ, "", 0, OPTS_NONE },
	{ "sha512sum", C_READ, "", 0, OPTS_NONE },
	{ "shellcheck", C_READ, "eiosSfPW", 0, OPTS_NONE },
	{ "shfmt", C_LINT, "ifl", 0, OPTS_NONE },
	{ "shift", C_NOFILE, "", 0, OPTS_NONE },
	{ "shopt", C_NOFILE, "", 0, OPTS_NONE },
	{ "shred", C_WRITE, "nsu", 0, OPTS_NONE },
	{ "shutdown", C_ADMIN, "", 0, OPTS_NONE },
	{ "sleep", C_NOFILE, "", 0, OPTS_NONE },
	{ "socat", C_NET, "", 0, OPTS_NONE },
	{ "sort", C_READ, "ktSTo", 0, OPTS_SORT },
	{ "source", C_SOURCE, "", 0, OPTS_NONE },
	{ "ssh", C_NET, "bcDEeFIiJLlmOopQRSWw", 0, OPTS_SSH },
	{ "stat", C_READ, "c", 0, OPTS_NONE },
	{ "stdbuf", C_WRAP, "ioe", 0, OPTS_NONE },
	{ "strings", C_READ, "nte", 0, OPTS_NONE },
	{ "stylua", C_LINT, "", 0, OPTS_NONE },
	{ "su", C_SU, "", 0, OPTS_NONE },
	{ "sudo", C_PRIV, "ugCDhprtUT", 0, OPTS_NONE },
	{ "swapoff", C_ADMIN, "", 0, OPTS_NONE },
	{ "swapon", C_ADMIN, "", 0, OPTS_NONE },
	{ "sysctl", C_ADMIN, "", 0, OPTS_NONE },
	{ "systemctl", C_ADMIN, "", 0, OPTS_NONE },
	{ "tac", C_READ, "s", 0, OPTS_NONE },
	{ "tail", C_READ, "ncs", 0, OPTS_NONE },
	{ "tar", C_TAR, "", 0, OPTS_TAR },
	{ "taskset", C_WRAP, "", 1, OPTS_NONE },
	{ "tee", C_WRITE, "", 0, OPTS_NONE },
	{ "telnet", C_NET, "", 0, OPTS_NONE },
	{ "terraform", C_CLI, "", 0, OPTS_NONE },
	{ "test", C_NOFILE, "", 0, OPTS_NONE },
	{ "time", C_WRAP, "fo", 0, OPTS_TIME },
	{ "timeout", C_WRAP, "sk", 1, OPTS_NONE },
	{ "tofu", C_CLI, "", 0, OPTS_NONE },
	{ "touch", C_WRITE, "dtr", 0, OPTS_NONE },
	{ "tput", C_NOFILE, "", 0, OPTS_NONE },
	{ "tr", C_NOFILE, "", 0, OPTS_NONE },
	{ "trap", C_ESC, "", 0, OPTS_NONE },
	{ "tree", C_READ, "LPIo", 0, OPTS_TREE },
	{ "true", C_NOFILE, "", 0, OPTS_NONE },
	{ "truncate", C_WRITE, "sr", 0, OPTS_NONE },
	{ "tsc", C_BUILD, "", 0, OPTS_TSC },
	{ "tty", C_NOFILE, "", 0, OPTS_NONE },
	{ "type", C_NOFILE, "", 0, OPTS_NONE },
	{ "typeset", C_NOFILE, "", 0, OPTS_NONE },
	{ "ufw", C_ADMIN, "", 0, OPTS_NONE },
	{ "ulimit", C_NOFILE, "", 0, OPTS_NONE },
	{ "umask", C_NOFILE, "", 0, OPTS_NONE },
	{ "umount", C_ADMIN, "", 0, OPTS_NONE },
	{ "uname", C_NOFILE, "", 0, OPTS_NONE },
	{ "unbuffer", C_WRAP, "", 0, OPTS_NONE },
	{ "unexpand", C_READ, "t", 0, OPTS_NONE },
	{ "uniq", C_READ, "fsw", 0, OPTS_NONE },
	{ "unlink", C_WRITE, "", 0, OPTS_NONE },
	{ "unset", C_NOFILE, "", 0, OPTS_NONE },
	{ "unzip", C_UNZIP, "dxP", 0, OPTS_UNZIP },
	{ "uptime", C_NOFILE, "", 0, OPTS_NONE },
	{ "useradd", C_ADMIN, "", 0, OPTS_NONE },
	{ "userdel", C_ADMIN, "", 0, OPTS_NONE },
	{ "usermod", C_ADMIN, "", 0, OPTS_NONE },
	{ "users", C_NOFILE, "", 0, OPTS_NONE },
	{ "uv", C_CLI, "", 0, OPTS_NONE },
	{ "vi", C_EDITOR, "", 0, OPTS_NONE },
	{ "vim", C_EDITOR, "", 0, OPTS_NONE },
	{ "visudo", C_ADMIN, "", 0, OPTS_NONE },
	{ "vitest", C_BUILD, "", 0, OPTS_VITEST },
	{ "w", C_NOFILE, "", 0, OPTS_NONE },
	{ "wait", C_NOFILE, "", 0, OPTS_NONE },
	{ "wc", C_READ, "", 0, OPTS_WC },
	{ "wget", C_NET, "OoPaeUTtwi", 0, OPTS_WGET },
	{ "whereis", C_NOFILE, "", 0, OPTS_NONE },
	{ "which", C_NOFILE, "", 0, OPTS_NONE },
	{ "who", C_NOFILE, "", 0, OPTS_NONE },
	{ "whoami", C_NOFILE, "", 0, OPTS_NONE },
	{ "wipefs", C_CATA, "", 0, OPTS_NONE },
	{ "xargs", C_XARGS, "", 0, OPTS_NONE },
	{ "xxd", C_READ, "cglos", 0, OPTS_NONE },
	{ "xzcat", C_READ, "", 0, OPTS_NONE },
	{ "yamllint", C_READ, "cdf", 0, OPTS_NONE },
	{ "yapf", C_LINT, "", 0, OPTS_NONE },
	{ "yarn", C_BUILD, "", 0, OPTS_NONE },
	{ "yes", C_NOFILE, "", 0, OPTS_NONE },
	{ "yum", C_ADMIN, "", 0, OPTS_NONE },
	{ "zcat", C_READ, "", 0, OPTS_NONE },
	{ "zip", C_ZIP, "bntxiPO", 0, OPTS_ZIP },
	{ "zsh", C_SHELL, "oO", 0, OPTS_NONE },
	{ "zypper", C_ADMIN, "", 0, OPTS_NONE },
};

#define NPROGS ((int)(sizeof(progs) / sizeof(progs[0])))

static int
prog_cmp(const void *k, const void *e)
{
	return strcmp(k, ((const struct prog *)e)->name);
}

/* Where the names of each first byte start in progs[] (to NPROGS). */
static int first_at[257];

/*
 * The table must be sorted for bsearch; checked once, fail closed. The
 * check also notes where each first byte's names start, so a lookup
 * searches only the names that share its first byte.
 */
static int
progs_sorted(void)
{
	static int state;       /* 0 unknown, 1 sorted, -1 not */
	int k, c;

	if (state == 0) {
		for (k = 1; k < NPROGS; k++)
			if (strcmp(progs[k - 1].name, progs[k].name) >= 0)
				state = -1;
		for (c = 0, k = 0; c <= 256; c++) {
			while (k < NPROGS &&
			    (unsigned char)progs[k].name[0] < c)
				k++;
			first_at[c] = k;
		}
		if (state == 0)
			state = 1;
	}
	return state > 0;
}

const struct prog *
an_prog_find(const char *name)
{
	unsigned char c = (unsigned char)name[0];

	if (!progs_sorted())
		return NULL;    /* every program unknown: escalate */
	if (c == 'm' && strncmp(name, "mkfs.", 5) == 0)
		return an_prog_find("mkfs");
	if (c == 'p' && strncmp(name, "python3.", 8) == 0)
		return an_prog_find("python3");
	return bsearch(name, progs + first_at[c], (size_t)(first_at[c + 1] -
	    first_at[c]), sizeof(progs[0]), prog_cmp);
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

/* man ./FILE formats a local file: it shows its content (date -f FILE,
 * which prints the lines it cannot parse, is in opts.c's table) */
static void
nofile_reads(struct ev *ev, struct cmdv *v, const char *name)
{
	int k;

	for (k = 1; strcmp(name, "man") == 0 && k < v->n; k++)
		if (v->w[k].s[0] != '-' && strchr(v->w[k].s, '/') != NULL)
			an_op_read(ev, v, &v->w[k], 0);
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

static void
cls_admin(struct ev *ev, struct cmdv *v, const char *name)
{
	(void)v;
	ev_factor(ev, F_PRIV);
	ev_note(ev, POLICY_ESCALATE, "shell", "builtin: admin",
	    "%s administers the system", name);
}

static void
cls_cata(struct ev *ev, struct cmdv *v, const char *name)
{
	(void)v;
	ev_factor(ev, F_CATASTROPHIC | F_DESTRUCTIVE);
	ev_note(ev, POLICY_DENY, "shell", "builtin: catastrophic",
	    "%s can destroy file systems", name);
}

/* The handler of each class (one of three shapes), and whether the
 * program may stay interactive (an_interactive first). */
static const struct {
	void (*prog)(struct ev *, struct cmdv *, const struct prog *);
	void (*name)(struct ev *, struct cmdv *, const char *);
	void (*words)(struct ev *, struct cmdv *);
	int interactive;
} cls_fns[] = {
	[C_NOFILE] = { NULL, cls_nofile, NULL, 0 },
	[C_READ] = { an_cls_read, NULL, NULL, 0 },
	[C_GREP] = { an_cls_read, NULL, NULL, 0 },
	[C_WRITE] = { an_cls_write, NULL, NULL, 0 },
	[C_MODE] = { an_cls_mode, NULL, NULL, 0 },
	[C_CPMV] = { an_cls_cpmv, NULL, NULL, 0 },
	[C_DD] = { NULL, NULL, an_cls_dd, 0 },
	[C_PRIV] = { an_cls_priv, NULL, NULL, 0 },
	[C_ADMIN] = { NULL, cls_admin, NULL, 0 },
	[C_CATA] = { NULL, cls_cata, NULL, 0 },
	[C_NET] = { an_cls_net, NULL, NULL, 0 },
	[C_SHELL] = { NULL, NULL, an_cls_shell, 1 },
	[C_INTERP] = { an_cls_interp, NULL, NULL, 1 },
	[C_WRAP] = { an_cls_wrap, NULL, NULL, 0 },
	[C_BUILD] = { an_cls_build, NULL, NULL, 1 },
	[C_CLI] = { an_cls_cli, NULL, NULL, 0 },
	[C_GIT] = { NULL, NULL, an_cls_git, 0 },
	[C_FIND] = { NULL, NULL, an_cls_find, 0 },
	[C_SED] = { NULL, NULL, an_cls_sed, 0 },
	[C_AWK] = { an_cls_awk, NULL, NULL, 0 },
	[C_CD] = { NULL, NULL, an_cls_cd, 0 },
	[C_SOURCE] = { NULL, cls_source, NULL, 0 },
	[C_EVAL] = { NULL, NULL, an_cls_eval, 0 },
	[C_XARGS] = { NULL, NULL, an_cls_xargs, 0 },
	[C_ENV] = { NULL, NULL, an_cls_env, 0 },
	[C_SU] = { NULL, NULL, an_cls_su, 0 },
	[C_EDITOR] = { NULL, NULL, an_cls_editor, 0 },
	[C_KILL] = { NULL, NULL, an_cls_kill, 0 },
	[C_ESC] = { NULL, cls_esc, NULL, 0 },
	[C_LINT] = { an_cls_lint, NULL, NULL, 0 },
	[C_TAR] = { NULL, NULL, an_cls_tar, 0 },
	[C_UNZIP] = { an_cls_unzip, NULL, NULL, 0 },
	[C_ZIP] = { an_cls_zip, NULL, NULL, 0 },
};
_Static_assert(sizeof(cls_fns) / sizeof(cls_fns[0]) == C_ZIP + 1,
    "every class of enum cls has a handler in cls_fns[]");

/* Judges one command of a known program by its class. */
void
an_classify(struct ev *ev, struct cmdv *v, const struct prog *pr, const char *name)
{
	an_opts_scan(ev, v, pr);
	if ((unsigned)pr->cls >= sizeof(cls_fns) / sizeof(cls_fns[0])) {
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: class",
		    "%s has no handler", name);
		return;
	}
	if (cls_fns[pr->cls].interactive)
		an_interactive(ev, v, name, pr->cls == C_INTERP ?
		    pr->optarg : "");
	if (cls_fns[pr->cls].prog != NULL)
		cls_fns[pr->cls].prog(ev, v, pr);
	else if (cls_fns[pr->cls].name != NULL)
		cls_fns[pr->cls].name(ev, v, name);
	else if (cls_fns[pr->cls].words != NULL)
		cls_fns[pr->cls].words(ev, v);
	else
		ev_note(ev, POLICY_ESCALATE, "shell", "builtin: class",
		    "%s has no handler", name);
}
