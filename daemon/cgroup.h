/*
 * cgroup.h - the pids cgroup of one run (daemon/exec.c).
 *
 * A run's cgroup is BASE/sbx-NAME in the first writable pids hierarchy:
 * cgroup v1's `pids` controller, or cgroup v2 (our own cgroup's parent
 * must delegate "pids"). Moving a process into a cgroup (a write to
 * cgroup.procs) waits for an RCU grace period, milliseconds on an idle
 * machine; a child started inside it (clone3 with CLONE_INTO_CGROUP,
 * cgroup v2, Linux >= 5.7) is not moved, and does not wait.
 *
 * Library code: nothing here prints or exits. Paths are at most PATH_MAX.
 */
#ifndef SBX_CGROUP_H
#define SBX_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

/* 1 when a pids hierarchy is writable here (sbxd would make a cgroup
 * for a run), else 0. */
int cgroup_available(void);

/* Makes BASE/sbx-NAME with pids.max = max and fills dir with its path.
 * 0, or -1 (dir emptied) when sbxd may not make one. */
int cgroup_make(const char *name, int max, char *dir, size_t dirsz);

/* The path cgroup_make would try first, made by nobody yet. 0 or -1. */
int cgroup_name(const char *name, char *dir, size_t dirsz);

/* Makes dir (a path from cgroup_name) with pids.max = max. 0 or -1
 * (EEXIST: a directory is there already; it is left as it is).
 * Like every cgroup change, waits while another process moves into a
 * cgroup anywhere: sbxd leaves it to its spare executor. */
int cgroup_create(const char *dir, int max);

/* Sets pids.max (max <= 0: "max", no limit). 0 or -1. */
int cgroup_set_max(const char *dir, int max);

/* Moves the calling process into dir (cgroup.procs). 0 or -1. */
int cgroup_join(const char *dir);

/* How many tasks dir is charged with (pids.current: a zombie counts
 * until it is reaped), or -1. */
long cgroup_current(const char *dir);
/* Moves the calling process out of dir, into its parent. 0 or -1. */
int cgroup_leave(const char *dir);
/* 1 when dir holds exactly the n (at most 32) processes in pids, each
 * once, in any order; 0 when it holds another or more; -1 when it
 * cannot be read. */
int cgroup_holds(const char *dir, const pid_t *pids, int n);
/* Kills (SIGKILL) every process in dir. */
void cgroup_kill(const char *dir);
/* Kills (SIGKILL) every process in dir but keep (the caller, who stays
 * in it): how many it found, or -1 when dir cannot be read. A killed
 * process leaves the list once it is gone; what it forked meanwhile is
 * bounded by pids.max, and found by the next call. */
int cgroup_clear(const char *dir, pid_t keep);
/* Kills what is left in dir and removes it; bounded (about 1 s, only
 * while it is busy). The removal waits while another process moves into
 * a cgroup: not before an answer. */
void cgroup_drop(const char *dir);

/*
 * Removes the stale sbx-* cgroups in every writable pids hierarchy: of
 * an sbxd that is gone ("sbx-spare-PID-N", "sbx-run-PID-ID" whose PID is
 * not alive), at least min_age seconds old, with no process in it.
 * Never one of a live sbxd, one with processes, or a younger one (other
 * sbxds share the hierarchy). Returns how many it removed; *kept counts
 * the sbx-* ones it left.
 */
int cgroup_sweep(int min_age, int *kept);

/* 1 when dir is on a cgroup v2 filesystem, 0 when not, -1 on error. */
int cgroup_is_v2(const char *dir);

/*
 * fork(), with the child started inside dir when dir is a cgroup v2
 * directory and the kernel has clone3(CLONE_INTO_CGROUP): then *joined
 * is 1 and the child must not join again. Otherwise (cgroup v1, an old
 * kernel, dir empty) a plain fork() with *joined 0: the child joins
 * with cgroup_join(). Returns as fork() does.
 */
pid_t cgroup_fork(const char *dir, int *joined);

#endif
