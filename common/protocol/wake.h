/*
 * wake.h - the per-request wake channel between sbxd and a waiting hook.
 *
 * A hook that waits for results/ID.json takes a FIFO from the pool of
 * free ones, .sandbox/queue/wake/.free.NN, by renaming it to
 * .sandbox/queue/wake/ID (or makes one there when the pool is empty;
 * right after it drops its request; it looks for the result once the
 * FIFO is there, so a result that came first is found) and polls it;
 * sbxd writes one byte into it once the signed result is durable, and
 * leaves the name: the hook, once done with it, renames it back to a free
 * slot (or removes it when the pool is full). So a round trip makes and
 * deletes no FIFO, and the cost does not depend on how many files results/
 * holds (an inotify watch on results/ walks every cached entry of the
 * directory when it is added), and closing a FIFO costs no kernel grace
 * period (closing an inotify fd does).
 *
 * The channel is only a hint: the folder is writable by the agent, so a
 * byte in the FIFO may be forged and the FIFO may be replaced. A wake
 * makes the hook re-check results/ID.json, which it delivers only when
 * sbxd signed it for this request's hash (common/trust/result_sig.h); a lost
 * wake (replaced or missing channel) is covered by a bounded re-check
 * (wake_wait's timeout). sbxd never writes into anything but a FIFO.
 */
#ifndef SBX_WAKE_H
#define SBX_WAKE_H

#include <stdint.h>

#define SBX_WAKE_DIR            "queue/wake"
#define SBX_WAKE_RECHECK_MIN_MS 50      /* first re-check without a wake */
#define SBX_WAKE_RECHECK_MAX_MS 1000    /* re-checks back off up to this */
#define SBX_WAKE_SWEEP_MAX      4096    /* entries wake_sweep looks at per pass */
#define SBX_WAKE_POOL           16      /* free FIFOs kept: .free.00 to .free.15 */

/*
 * Takes (from the pool), creates or joins the wake FIFO of request ID
 * under SBFD (.sandbox) and opens it for reading without blocking, with a
 * shared lock (flock) while the caller waits. Returns the fd, or -1 when
 * there is none (the caller then re-checks on a timer): not a FIFO of
 * ours of one link, a symlink (the FIFO itself, or queue/ or queue/wake
 * on the way), or no room to create it. A pooled FIFO is taken only when
 * it is a FIFO of ours, one link, exactly the mode this folder's FIFOs
 * have, nobody else's lock on it (its lock had exclusive first, then
 * shared: a pooled FIFO another process holds is never shared); what is
 * in it is drained (stale). One that is not is dropped (a directory
 * removed, or moved aside when it is not empty) and another taken or
 * made; a FIFO this hook cannot lock is not used: never a wrong answer
 * (a wake only makes the caller look again), and no cap on waiters (the
 * pool empty: a FIFO is made, as before the pool).
 */
int wake_open(int sbfd, const char *id);

/*
 * Waits until FD is readable or TIMEOUT_MS passed (FD -1: only waits).
 * 1 woken, 0 timeout, -1 error. Does not consume the wake: a caller that
 * then finds nothing calls wake_drain(), so another hook waiting on the
 * same FIFO still sees a real one.
 */
int wake_wait(int fd, int timeout_ms);
/*
 * The caller is done with request ID's FIFO FD (it answered): closes FD
 * and, when no other hook waits on it (an exclusive lock is granted) and
 * the name ID is still that FIFO, renames it to a free
 * slot; the pool full (SBX_WAKE_POOL taken), the name is removed. A hook
 * that answers "pending" just closes its fd: the name stays for the next
 * identical call (sbxd's sweep puts it in the pool later).
 */
void wake_close(int sbfd, const char *id, int fd);
/*
 * The hook waited on FD for request ID and was not woken: returns FD
 * while the name ID is still that FIFO. Else (sbxd pooled it between its
 * check that nobody holds it and the hook's open, the agent moved it, or
 * there was none: FD -1) FD is closed, never given back (it is not ours
 * to pool), and a channel is got anew (wake_open(), or -1): a lost
 * channel costs one re-check, not every wake of the rest of the wait.
 */
int wake_renew(int sbfd, const char *id, int fd);
/* Reads and discards what is in the FIFO (a spurious or forged wake). */
void wake_drain(int fd);

/*
 * sbxd: wakes whoever waits for request ID, and leaves the name (the
 * hook gives the FIFO back to the pool: wake_close); a FIFO nobody holds
 * open for reading goes to the pool at once.
 * Opens the name with O_PATH | O_NOFOLLOW (relative to queue/wake,
 * itself opened without following a symlink) and writes only when that
 * inode is a FIFO of one link owned by sbxd's user or by the owner of
 * queue/wake (the agent's user when sbxd runs as another), through
 * /proc/self/fd, never blocking (no reader: nothing to do). Best effort:
 * a hook that misses it re-checks on its timer.
 */
void wake_poke(int sbfd, const char *id);

/*
 * sbxd: tidies queue/wake so names never pile up: a FIFO of the hooks'
 * user nobody holds open for reading (its hook was killed, or answered
 * "pending") goes to a free pool slot (the inode checked, nothing else),
 * or loses its name when the pool is full; anything that is not a FIFO
 * sbxd may write (junk, a third user's) loses its name, and in a slot
 * anything but a FIFO of the hooks' user; other names than request IDs
 * and slots are removed. A directory is removed when empty; one that is
 * not, at a slot or a request's name, is moved aside (.moved.INO): the
 * agent's, which sbxd's user may rename but not empty (deployment 3).
 * A FIFO a hook holds open stays, and so do pooled ones. Looks
 * at most at MAX entries (*more set when some were left for later).
 * Returns how many request names it removed or pooled, or -1.
 */
int wake_sweep(int sbfd, int max, int *more);

#endif
