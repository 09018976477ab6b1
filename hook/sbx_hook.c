/*
 * sbx-hook - the agent-facing hook: classifies one tool call.
 *
 *   sbx-hook pre|codex|cursor|gemini
 *                    one tool call in that client's dialect: JSON on
 *                    stdin, one answer on stdout, exit 0 (hook/dialect.h:
 *                    the table and hook_run()).
 *   sbx-hook post    PostToolUse: hands sbxd an audit event (hook/post.h);
 *                    always answers {} and exits 0.
 *   sbx-hook session-start  SessionStart: what is pending or finished.
 *
 * MUST answer with exactly one JSON object on stdout and exit 0, or the
 * client may run the tool (a crash, timeout or other exit code fails
 * open there). Every error is a deny with a reason the model can act on.
 * MUST answer before its own deadline: an alarm answers "deny" if the
 * work ever overruns it.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base/util.h"
#include "hook/dialect.h"
#include "hook/post.h"
#include "hook/session.h"

static void
usage(FILE *f)
{
	fprintf(f, "usage: sbx-hook pre|post|session-start|codex|cursor|gemini < payload.json\n"
	    "  pre            Claude Code PreToolUse hook: answers allow, deny, or\n"
	    "                 escalates the call to a human through FOLDER/.sandbox/queue\n"
	    "  session-start  SessionStart hook: tells the model how sbx works and what\n"
	    "                 is pending or finished\n"
	    "  codex          the same as pre for Codex CLI (deny only, no output on allow)\n"
	    "  cursor         Cursor beforeShellExecution, beforeMCPExecution, beforeReadFile\n"
	    "  gemini         Gemini CLI BeforeTool ({} on allow, decision deny otherwise)\n"
	    "  post           PostToolUse hook: records what the tool did in the audit\n"
	    "                 log; always answers {}\n");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' }, { "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct dialect *dl;
	int ch;

	signal(SIGPIPE, SIG_IGN);
	/* Options only before the mode; anything else is a usage error (2). */
	while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (ch == 'h') {
			usage(stdout);
			return 0;
		}
		if (ch == 'V') {
			printf("sbx-hook %s\n", SBX_VERSION);
			return 0;
		}
		usage(stderr);
		return 2;
	}
	argv += optind - 1;
	argc -= optind - 1;
	if (argc == 2 && (dl = dialect_find(argv[1])))
		return hook_run(dl);
	if (argc == 2 && strcmp(argv[1], "post") == 0)
		return hook_post();
	if (argc == 2 && strcmp(argv[1], "session-start") == 0)
		return hook_session_start();
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("sbx-hook %s\n", SBX_VERSION);
		return 0;
	}
	usage(stderr);
	/* Exit 2 blocks the call in Claude Code: fail closed on misuse. */
	return 2;
}
