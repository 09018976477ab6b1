/*
 * cmd.h - the sub-commands of `sbx`. Each takes the arguments after its
 * name (argv[0] is the command name) and returns the exit code:
 * 0 success, 1 failure (message on stderr), 2 usage error.
 */
#ifndef SBX_CMD_H
#define SBX_CMD_H

struct sbx_ctx {
	const char *dir;            /* -C DIR, or NULL: walk up from "." */
	char config[4096];
};

int cmd_init(struct sbx_ctx *c, int argc, char **argv);
int cmd_remove(struct sbx_ctx *c, int argc, char **argv);
int cmd_doctor(struct sbx_ctx *c, int argc, char **argv);
int cmd_history(struct sbx_ctx *c, int argc, char **argv);
int cmd_watch(struct sbx_ctx *c, int argc, char **argv);
int cmd_ssh(struct sbx_ctx *c, int argc, char **argv);
int cmd_approvers(struct sbx_ctx *c, int argc, char **argv);
int cmd_restore(struct sbx_ctx *c, int argc, char **argv);
int cmd_pending(struct sbx_ctx *c, int argc, char **argv);
int cmd_show(struct sbx_ctx *c, int argc, char **argv);
int cmd_decide(struct sbx_ctx *c, int argc, char **argv);   /* approve / deny */

struct req_row;
struct sbx_err;

/* Signs and drops a decision for a pending request. 0 or -1 with err. */
int decision_write(const char *config, const char *folder, const struct req_row *r,
    int approve, int remember, const char *reason, int ttl, struct sbx_err *err);

/* The project folder for -C DIR or the current directory; prints an
 * error and returns -1 when there is none. */
int ctx_folder(const struct sbx_ctx *c, char *out, unsigned long outsz);

#endif
