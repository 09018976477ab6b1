/*
 * exec.h - running an approved command outside the agent.
 *
 * exec_start() forks an executor process that owns one run: it starts
 * `/bin/sh -c COMMAND` in its own session and process group, in the
 * request's cwd, with a clean environment and stdin from /dev/null;
 * captures stdout and stderr up to a cap (head kept, the rest counted,
 * all of it hashed); enforces the timeout (SIGTERM, then SIGKILL to the
 * whole group); and writes results/ID.json (plus ID.stdout, ID.stderr)
 * by atomic rename, or by a link of a file made ahead and written
 * whole. If sbxd dies, the executor gets SIGTERM, kills the group and
 * records the run as interrupted. sbxd reaps the executor and updates
 * the database from the result file.
 *
 * Resource limits (policy "limits"): CPU seconds (RLIMIT_CPU, SIGKILL
 * 5 s after the soft limit's SIGXCPU), memory per process (RLIMIT_DATA),
 * and processes at once: a pids cgroup for the run when sbxd may create
 * one (root, or a delegated cgroup), which also catches children that
 * left the process group, and RLIMIT_NPROC at the user's current count
 * plus the limit (the kernel does not apply RLIMIT_NPROC to root).
 *
 * A spare executor starts most runs (exec.c, "The spare executor"): it
 * was forked ahead of time, its child already in a fresh pids cgroup,
 * not dumpable, so a run does not wait for the cgroup move (an RCU grace
 * period) nor for two forks, nor for the creation of its files (made
 * ahead, unnamed, in the folder of sbxd's last run: linked at the run's
 * start and end). When the spare is missing or unfit, the run
 * takes the direct path above, with the same limits and the same code.
 *
 * The stdout/stderr heads in the result document, the text that reaches
 * the model, are scrubbed with the audit log's redactor; the full output
 * in results/ID.stdout and ID.stderr is kept as it was, for the human.
 */
#ifndef SBX_EXEC_H
#define SBX_EXEC_H

#include <stdint.h>
#include <sys/types.h>

struct exec_spec {
	int sbfd;                   /* the folder's .sandbox directory */
	const char *folder;
	const char *id, *hash, *tool, *command, *cwd;
	const char *approver;
	int is_auto;
	int timeout_s;              /* then SIGTERM; SIGKILL 5 s later */
	long cap;                   /* bytes kept per stream */
	int cpu_s;                  /* RLIMIT_CPU; 0: none */
	long long mem_bytes;        /* RLIMIT_DATA; 0: none */
	int max_procs;              /* processes at once; 0: none */
	char *const *env;           /* the clean environment */
	const int *close_fds;       /* fds the executor must close (locks) */
	int n_close_fds;
};

/* The key results are signed with (sbxd's daemon key); see
 * common/trust/result_sig.h. Without it results are unsigned. */
void exec_set_result_key(const unsigned char sk[64]);

/* Returns the executor's pid, or -1 (errno set). Blocks at most about
 * 3 s, only when the spare does not answer. */
pid_t exec_start(const struct exec_spec *s);

/* sbxd, before it sleeps: forks a spare executor when it has fewer than
 * two, one per call (at most one a second after a spare that failed or
 * died unused). */
void exec_spare_keep(void);
/* How long sbxd may sleep before exec_spare_keep has work: ms, or -1
 * (both spares are kept; nothing is due). */
int exec_spare_due_ms(void);
/* sbxd reaped pid (killed: by a signal): 1 when it was an idle spare
 * (forgotten now). An executor that took a spare's run is forgotten too
 * (0), its cgroup (the spare's) dropped when it was killed; the next
 * spare, deferred while that run went on, may start. */
int exec_spare_reaped(pid_t pid, int killed);
/* sbxd stops: the spares end, their cgroups are removed; no new one. */
void exec_spare_stop(void);

/* Builds a result document for an outcome that ran nothing (denied,
 * expired, rejected, interrupted) and writes it. 0 or -1. */
int result_write_status(int sbfd, const char *id, const char *hash,
    const char *status, const char *approver, const char *reason);

/* The same for a batch (group commit): written without a sync and
 * without waking the hook; the caller syncs the filesystem once for the
 * batch, then calls wake_poke() for each (common/protocol/wake.h). 0 or -1. */
int result_write_status_deferred(int sbfd, const char *id, const char *hash,
    const char *status, const char *approver, const char *reason);

/* A result written by sbxd after a fault (recovery, a full disk): the
 * status and reason it knows, the exit status if known (-1: unknown), and
 * the head of the output captured so far; marked "recovered". 0 or -1. */
int result_write_recovered(int sbfd, const char *id, const char *hash,
    const char *status, const char *approver, const char *reason,
    int64_t exit_code, int64_t sig);

/*
 * Confirms the one delivery of an approved result (a one-time allowance,
 * hook/escalate.c): results/ID.json, signed again with "receipt": the
 * nonce the receipt queue/delivered/ID (a regular file of the drop
 * box's owner, read without following a link) holds now, or "" when it
 * is gone or not a receipt (nobody may use it), fills receipt with it, syncs it and wakes the hook.
 * Once per request: a result that names a receipt already, of another
 * status or not signed by sbxd is left as it is (0, receipt ""). 0, or
 * -1 when it could not be written (the caller tries again).
 */
int result_confirm(int sbfd, const char *id, char *receipt, size_t receiptsz);

/* At start: says when there is no pids cgroup sbxd may write (then
 * exec_max_processes is RLIMIT_NPROC alone, which does not bind root),
 * else removes the stale sbx-* cgroups of sbxds that are gone
 * (cgroup_sweep: older than SBX_CGROUP_STALE_S, empty). */
#define SBX_CGROUP_STALE_S 60
void exec_cgroups_init(void);
/* sbxd reaped the executor of request id, killed by a signal: its run's
 * cgroup (and what is left in it) goes; nobody else would drop it. */
void exec_run_killed(const char *id);

/* How many results sbxd (not an executor) could not write so far; when
 * it grows, sbxd retries them from state.db (folder_sweep). */
int64_t exec_result_failures(void);

#endif
