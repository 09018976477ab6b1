/*
 * cmd_ssh.c - `sbx ssh-command`: the forced command for a remote
 * approver's key in authorized_keys (see contrib/ssh/). It runs only
 * `sbx watch`, `pending`, `show`, `approve` and `deny`, on the folders
 * named in the key's line, from $SSH_ORIGINAL_COMMAND.
 *
 * MUST NOT pass the remote command to a shell: it is split here, with
 * quotes, and any shell syntax beyond words is refused. MUST refuse
 * every other command and every folder not allowed by the key's line.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "approver/cmd.h"
#include "common/base/display.h"
#include "common/base/util.h"

#define MAX_WORDS 32
#define MAX_CMD   4096

static const char *const allowed[] = { "watch", "pending", "show", "approve", "deny", NULL };

/*
 * Whether a remote word may reach the subcommand. getopt_long takes
 * "-C/x", "--dir=/x", "--di /x" and any unique abbreviation ("--noti",
 * "--al"), so options are allowed only spelt out in full from this list,
 * and no short option but -h: -C, --dir, --all and --notify stay fixed by
 * the key. Operands (ids, prefixes) do not start with '-'; "--" ends the
 * options, and what follows it is an operand to getopt.
 */
static int
option_allowed(const char *w)
{
	static const char *const longs[] = { "json", "remember", "prefix", "for", "ttl",
		"reason", "plain", "help", NULL };
	size_t len;
	int i;

	if (w[0] != '-' || !strcmp(w, "-h") || !strcmp(w, "--"))
		return 1;
	if (w[1] != '-')
		return 0;
	len = strcspn(w + 2, "=");
	for (i = 0; longs[i]; i++)
		if (strlen(longs[i]) == len && !strncmp(w + 2, longs[i], len))
			return 1;
	return 0;
}

/* Splits s into words: '…' and "…" quote, \ escapes; other shell syntax
 * (; | & $ ` < > ( ) { } newline, globs) is refused. Returns the count
 * or -1. Words point into buf. */
static int
split(const char *s, char *buf, size_t bufsz, char **words, int max)
{
	size_t o = 0;
	int n = 0, in_word = 0;
	char q = 0;

	for (; *s; s++) {
		char c = *s;

		if (o + 2 >= bufsz)
			return -1;
		if (q) {
			if (c == q) {
				q = 0;
				continue;
			}
			if (q == '"' && (c == '$' || c == '`' || c == '\\'))
				return -1;
			buf[o++] = c;
			continue;
		}
		if (c == ' ' || c == '\t') {
			if (in_word) {
				buf[o++] = '\0';
				in_word = 0;
			}
			continue;
		}
		if (strchr(";|&$`<>(){}*?[]~!#\n\r", c))
			return -1;
		if (!in_word) {
			if (n == max)
				return -1;
			words[n++] = buf + o;
			in_word = 1;
		}
		if (c == '\'' || c == '"') {
			q = c;
			continue;
		}
		if (c == '\\') {
			if (!*++s)
				return -1;
			c = *s;
		}
		buf[o++] = c;
	}
	if (q)
		return -1;
	buf[o] = '\0';
	return n;
}

static int
refuse(const char *why)
{
	fprintf(stderr, "sbx: refused over SSH: %s. Allowed: sbx [-C DIR] watch | pending | "
	    "show ID | approve ID | deny ID [--reason TEXT]\n", display_tmp(why));
	return 1;
}

int
cmd_ssh(struct sbx_ctx *c, int argc, char **argv)
{
	char folders[8][PATH_MAX], buf[MAX_CMD * 2], dir[PATH_MAX], exe[PATH_MAX];
	char *words[MAX_WORDS + 4], *args[MAX_WORDS + 8];
	const char *orig = getenv("SSH_ORIGINAL_COMMAND");
	int nf = 0, n, i, k = 0, a = 0;
	ssize_t len;

	static const struct option opts[] = { SBX_OPTS_COMMON, { NULL, 0, NULL, 0 } };
	static const char use[] = "usage (in authorized_keys): command=\"sbx ssh-command "
	    "-C DIR [-C DIR]...\"\n";

	(void)c;
	while ((i = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (i != 'C')
			return sub_usage(use, i == 'h');
		if (nf == 8 || find_folder(optarg, folders[nf], sizeof(folders[0])) < 0)
			return sub_usage(use, 0);
		nf++;
	}
	if (optind < argc)
		return sub_usage(use, 0);
	if (nf == 0)
		return refuse("the key's forced command names no folder (-C DIR)");
	if (!orig || !*orig)
		orig = "watch";
	if (strlen(orig) > MAX_CMD)
		return refuse("command too long");
	if ((n = split(orig, buf, sizeof(buf), words, MAX_WORDS)) <= 0)
		return refuse("only plain words and quotes are accepted");
	if (!strcmp(words[k], "sbx"))
		k++;
	/* An optional -C DIR must be one of the key's folders. */
	dir[0] = '\0';
	if (k + 1 < n && !strcmp(words[k], "-C")) {
		if (find_folder(words[k + 1], dir, sizeof(dir)) < 0)
			return refuse("unknown folder");
		for (i = 0; i < nf && strcmp(folders[i], dir); i++)
			;
		if (i == nf)
			return refuse("that folder is not allowed for this key");
		k += 2;
	}
	if (k >= n)
		return refuse("no command");
	for (i = 0; allowed[i] && strcmp(allowed[i], words[k]); i++)
		;
	if (!allowed[i])
		return refuse("that command is not allowed");
	if ((len = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return refuse("cannot find sbx");
	exe[len] = '\0';
	args[a++] = "sbx";
	if (strcmp(words[k], "watch") != 0) {
		args[a++] = "-C";
		args[a++] = dir[0] ? dir : folders[0];
	}
	args[a++] = words[k++];
	if (!strcmp(args[a - 1], "watch")) {
		/* watch takes its folders itself: the allowed ones, or the one asked. */
		if (dir[0]) {
			args[a++] = "-C";
			args[a++] = dir;
		} else {
			for (i = 0; i < nf && a < MAX_WORDS; i++) {
				args[a++] = "-C";
				args[a++] = folders[i];
			}
		}
	}
	for (; k < n && a < MAX_WORDS + 6; k++) {
		if (!option_allowed(words[k]))
			return refuse("folder and notify options are fixed by the key; other "
			    "options must be spelt out in full (--json, --remember, --prefix, "
			    "--for, --ttl, --reason, --plain, --help)");
		args[a++] = words[k];
	}
	args[a] = NULL;
	execv(exe, args);
	fprintf(stderr, "sbx: cannot run %s: %s\n", exe, strerror(errno));
	return 1;
}
