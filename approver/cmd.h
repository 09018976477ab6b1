/*
 * cmd.h - the sub-commands of `sbx`. Each takes the arguments after its
 * name (argv[0] is the command name) and returns the exit code:
 * 0 success, 1 failure (message on stderr), 2 usage error.
 */
#ifndef SBX_CMD_H
#define SBX_CMD_H

#include <getopt.h>
#include <stdio.h>

/*
 * One argument parser for every subcommand: getopt_long over argv (sbx.c
 * resets it before the subcommand runs). Every subcommand takes -C DIR
 * (as before its name) and -h/--help (its usage on stdout, exit 0);
 * --opt=value and --opt value are the same; options may follow operands;
 * "--" ends the options.
 */
#define SBX_OPTS_COMMON \
	{ "help", no_argument, NULL, 'h' }, { "dir", required_argument, NULL, 'C' }

/* A subcommand's usage: on stdout for --help (returns 0), else on stderr
 * (returns 2, a usage error). */
int sub_usage(const char *text, int help);

struct sbx_ctx;
/*
 * The options every subcommand shares, for the last branch of its
 * getopt_long loop: -C DIR sets c->dir and returns -1 (go on); -h, or an
 * option the subcommand does not know, prints use and returns the exit
 * code (sub_usage).
 */
int sub_opt_common(struct sbx_ctx *c, int ch, const char *use);
/*
 * The options of a subcommand that takes -C DIR, -h and --json only: sets
 * c->dir and *json and leaves optind at the first operand. -1 to go on,
 * else the exit code after printing use (0 for --help, 2 otherwise).
 */
int sub_opts_json(struct sbx_ctx *c, int argc, char **argv, const char *use, int *json);

/* An option that only names a string: where its value goes. */
struct sub_str {
	int ch;                     /* getopt_long's value for it */
	const char **to;
};
/*
 * As sub_opts_json for a subcommand with its own long options opts
 * (SBX_OPTS_COMMON, --json as 'j', and those of strs, a list ended by
 * ch 0): each of strs sets its string.
 */
int sub_opts_str(struct sbx_ctx *c, int argc, char **argv, const struct option *opts,
    const struct sub_str *strs, const char *use, int *json);

struct sbx_ctx {
	const char *dir;            /* -C DIR, or NULL: walk up from "." */
	char config[4096];
};

int cmd_init(struct sbx_ctx *c, int argc, char **argv);
int cmd_remove(struct sbx_ctx *c, int argc, char **argv);
int cmd_handover(struct sbx_ctx *c, int argc, char **argv);  /* as root: deployment 3 */
int cmd_doctor(struct sbx_ctx *c, int argc, char **argv);
int cmd_history(struct sbx_ctx *c, int argc, char **argv);
int cmd_watch(struct sbx_ctx *c, int argc, char **argv);
int cmd_ssh(struct sbx_ctx *c, int argc, char **argv);
int cmd_approvers(struct sbx_ctx *c, int argc, char **argv);
int cmd_restore(struct sbx_ctx *c, int argc, char **argv);
int cmd_pending(struct sbx_ctx *c, int argc, char **argv);
int cmd_show(struct sbx_ctx *c, int argc, char **argv);
int cmd_decide(struct sbx_ctx *c, int argc, char **argv);   /* approve / deny */
int cmd_audit(struct sbx_ctx *c, int argc, char **argv);    /* audit verify|show|export */
int cmd_jail(struct sbx_ctx *c, int argc, char **argv);     /* exit 125 on setup failure */

/* For doctor: NULL when user namespaces are usable (or we are root),
 * else the problem and its fix. */
const char *jail_userns_problem(void);
/* 1 when an sbxd holds FOLDER's lock. */
int jail_sbxd_serving(const char *folder);

struct req_row;
struct sbx_err;

/*
 * Signs and drops a decision for a pending request. With remember, the
 * rule covers this exact call, or with prefix the Bash commands starting
 * with those words; rule_expires is 0 (never) or a time. 0 or -1.
 */
int decision_write(const char *config, const char *folder, const struct req_row *r,
    int approve, int remember, const char *prefix, long long rule_expires,
    const char *reason, int ttl, struct sbx_err *err);

/* "90s", "30m", "8h", "7d" or plain seconds; -1 if malformed. */
long long parse_duration(const char *s);

int cmd_rules(struct sbx_ctx *c, int argc, char **argv);
int cmd_policy_accept(struct sbx_ctx *c, int argc, char **argv);

/* Signs the current policy.json as accepted by this approver. 0 or -1. */
int policy_accept_write(const char *config, const char *folder, struct sbx_err *err);

/* The project folder for -C DIR or the current directory; prints an
 * error and returns -1 when there is none. */
int ctx_folder(const struct sbx_ctx *c, char *out, unsigned long outsz);

#endif
