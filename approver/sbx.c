/*
 * sbx - the approver's command line.
 *
 * Exit codes: 0 success, 1 failure, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "approver/cmd.h"
#include "approver/cmd_policy.h"
#include "common/base/display.h"
#include "common/base/util.h"

int
sub_usage(const char *text, int help)
{
	fputs(text, help ? stdout : stderr);
	return help ? 0 : 2;
}

int
sub_opt_common(struct sbx_ctx *c, int ch, const char *use)
{
	if (ch != 'C')
		return sub_usage(use, ch == 'h');
	c->dir = optarg;
	return -1;
}

int
sub_opts_json(struct sbx_ctx *c, int argc, char **argv, const char *use, int *json)
{
	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "json", no_argument, NULL, 'j' }, { NULL, 0, NULL, 0 },
	};
	static const struct sub_str none[] = { { 0, NULL } };

	return sub_opts_str(c, argc, argv, opts, none, use, json);
}

int
sub_opts_str(struct sbx_ctx *c, int argc, char **argv, const struct option *opts,
    const struct sub_str *strs, const char *use, int *json)
{
	const struct sub_str *s;
	int ch, rc;

	*json = 0;
	while ((ch = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		for (s = strs; s->ch && s->ch != ch; s++)
			;
		if (s->ch)
			*s->to = optarg;
		else if (ch == 'j')
			*json = 1;
		else if ((rc = sub_opt_common(c, ch, use)) >= 0)
			return rc;
	}
	return -1;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: sbx [-C DIR] COMMAND [ARGS]\n"
	    "\n"
	    "  init [--claude [--local]] [--mcp] [--codex] [--cursor] [--name NAME] [DIR]\n"
	    "                                 prepare DIR/.sandbox and, if missing, an approver\n"
	    "                                 key; register the hooks / MCP server with agents\n"
	    "  remove [--purge [--yes]] [DIR] take out what init added (--purge: and .sandbox/)\n"
	    "  handover --daemon-user USER [--daemon-config DIR] [--agent-config DIR] [DIR]\n"
	    "                                 (root) give .sandbox/ to sbxd's own user USER, who\n"
	    "                                 holds keys the agent's user cannot read (README,\n"
	    "                                 deployment 3)\n"
	    "  handover --undo [--daemon-config DIR] [DIR]\n"
	    "                                 (root) the way back: DIR is its owner's alone;\n"
	    "                                 sbxd's user's .sandbox (state, audit log) is kept\n"
	    "                                 as .sandbox.handed-over; refused while a process\n"
	    "                                 holds .sandbox/sbxd.lock (it is named: stop it)\n"
	    "  history PATH [--json]          versions of PATH an agent replaced (kept by sbx-hook)\n"
	    "  restore PATH [--version N]     bring one back (default: the latest kept)\n"
	    "  doctor [--json]                check the folder's setup; says how to fix each problem\n"
	    "  watch [-C DIR]... [--all] [--plain] [--notify CMD]\n"
	    "                                 the approver's terminal: live list, single keys\n"
	    "  policy accept | edit           accept policy.json (signed); edit a copy like\n"
	    "                                 visudo, validate, install and accept\n"
	    "  policy check [--json] -- CMD | check --batch FILE | check --hook-json FILE | show\n"
	    "                                 classify a command or a hook payload; the\n"
	    "                                 effective policy (docs/POLICY.md)\n"
	    "  approvers [list [--json] | add NAME PUBKEY | rm NAME | self]\n"
	    "                                 the approver keys sbxd trusts; self prints yours\n"
	    "  ssh-command -C DIR...          forced command for a remote approver's key\n"
	    "                                 (contrib/ssh/): allows watch, pending, show,\n"
	    "                                 approve, deny only\n"
	    "  pending [--json]               requests waiting for a decision\n"
	    "  show ID [--json]               one request: what, why, decision, result\n"
	    "  approve ID [--remember [--prefix 'WORD WORD...'] [--for DURATION]] [--ttl S]\n"
	    "                                 sign an approval; --remember auto-approves the\n"
	    "                                 same call later (--prefix: commands starting\n"
	    "                                 with those words; --for: until it expires)\n"
	    "  rules [list [--json] | add 'WORD WORD...' [--for D] | rm RULE]\n"
	    "                                 the remembered approvals sbxd applies\n"
	    "  deny ID [--reason TEXT]        sign a denial; the reason goes to the agent\n"
	    "  audit verify [--json] [--evidence FILE [--key HEX]]\n"
	    "                                 check the audit log's chain and signatures\n"
	    "  audit show [--request ID] [--session ID] [--since TIME] [--json]\n"
	    "                                 the audit log as a timeline\n"
	    "  audit export --syslog | --evidence FILE\n"
	    "                                 forward to syslog, or bundle for another machine\n"
	    "  jail [--login] [--offline] [--] COMMAND [ARG...]\n"
	    "                                 run an agent under bubblewrap: the only way out\n"
	    "                                 is an approved escalation (sbx jail --help)\n"
	    "\n"
	    "  -C DIR     the project folder (default: walk up from the current directory);\n"
	    "             before the command or among its options\n"
	    "  -h, --help this text (COMMAND --help: that command's usage)\n"
	    "ID may be a unique prefix of 4 or more hex digits.\n"
	    "Config dir: $SBX_CONFIG_DIR, else $XDG_CONFIG_HOME/sbx, else ~/.config/sbx.\n");
}

/* Every command but policy (below in main): name, function. */
static const struct {
	const char *name;
	int (*run)(struct sbx_ctx *, int, char **);
} commands[] = {
	{ "init", cmd_init }, { "remove", cmd_remove }, { "rules", cmd_rules },
	{ "handover", cmd_handover },
	{ "approvers", cmd_approvers }, { "ssh-command", cmd_ssh }, { "watch", cmd_watch },
	{ "history", cmd_history }, { "restore", cmd_restore }, { "doctor", cmd_doctor },
	{ "pending", cmd_pending }, { "show", cmd_show }, { "approve", cmd_decide },
	{ "deny", cmd_decide }, { "audit", cmd_audit }, { "jail", cmd_jail },
};

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		SBX_OPTS_COMMON, { "version", no_argument, NULL, 'V' }, { NULL, 0, NULL, 0 },
	};
	struct sbx_ctx c = { 0 };
	const char *cmd;
	int i, ch;
	size_t k;

	/* Options before the command ("+": the command's own come after). */
	while ((ch = getopt_long(argc, argv, "+C:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'C':
			c.dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("sbx %s\n", SBX_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	i = optind;
	optind = 0;             /* the command parses its own argv afresh */
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[i];
	if (!strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	/* Agent text is measured in terminal columns (common/base/display). */
	display_init();
	if (sodium_init() < 0) {
		fprintf(stderr, "sbx: libsodium failed to initialise\n");
		return 1;
	}
	if (config_dir(c.config, sizeof(c.config)) < 0) {
		fprintf(stderr, "sbx: cannot find the config dir; set SBX_CONFIG_DIR\n");
		return 1;
	}
	argc -= i;
	argv += i;
	for (k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (!strcmp(cmd, commands[k].name))
			return commands[k].run(&c, argc, argv);
	if (!strcmp(cmd, "policy")) {
		/* -C DIR (and --help) may come between "policy" and its verb */
		while ((ch = getopt_long(argc, argv, "+C:h", opts, NULL)) != -1) {
			if (ch == 'C')
				c.dir = optarg;
			else
				return cmd_policy(2, (char *[]){ (char *)cmd, ch == 'h' ? "--help" :
				    "--bad-option", NULL }, NULL, c.config);
		}
		argv += optind - 1;
		argc -= optind - 1;
		argv[0] = (char *)cmd;
		optind = 0;
	}
	if (!strcmp(cmd, "policy") && argc >= 2 && (!strcmp(argv[1], "accept") ||
	    !strcmp(argv[1], "edit")))
		return cmd_policy_accept(&c, argc, argv);
	if (!strcmp(cmd, "policy")) {
		char folder[4096];
		const char *start = c.dir ? c.dir : ".";

		return cmd_policy(argc, argv, find_folder(start, folder, sizeof(folder)) == 0
		    ? folder : NULL, c.config);
	}
	fprintf(stderr, "sbx: unknown command \"%s\"\n", cmd);
	usage(stderr);
	return 2;
}
