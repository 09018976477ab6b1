/*
 * wake.h - the per-request wake channel between sbxd and a waiting hook.
 *
 * A hook that waits for results/ID.json creates the FIFO
 * .sandbox/queue/wake/ID (right after it drops its request; it looks for
 * the result once the FIFO exists, so a result that came first is found)
 * and polls it;
 * sbxd writes one byte into it once the signed result is durable, then
 * removes the name. The cost does not depend on how many files results/
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

/*
 * Creates (or joins) the wake FIFO of request ID under SBFD (.sandbox)
 * and opens it for reading without blocking. Returns the fd, or -1 when
 * there is none (the caller then re-checks on a timer): not a FIFO, not
 * ours, a symlink (the FIFO itself, or queue/ or queue/wake on the way),
 * or no room to create it.
 */
int wake_open(int sbfd, const char *id);

/*
 * Waits until FD is readable or TIMEOUT_MS passed (FD -1: only waits).
 * 1 woken, 0 timeout, -1 error. Does not consume the wake: a caller that
 * then finds nothing calls wake_drain(), so another hook waiting on the
 * same FIFO still sees a real one.
 */
int wake_wait(int fd, int timeout_ms);
/* Removes the name of request ID's FIFO (a request that was not queued). */
void wake_remove(int sbfd, const char *id);
/* Reads and discards what is in the FIFO (a spurious or forged wake). */
void wake_drain(int fd);

/*
 * sbxd: wakes whoever waits for request ID, then removes the name.
 * Opens the name with O_PATH | O_NOFOLLOW (relative to queue/wake,
 * itself opened without following a symlink) and writes only when that
 * inode is a FIFO of one link owned by sbxd's user or by the owner of
 * queue/wake (the agent's user when sbxd runs as another), through
 * /proc/self/fd, never blocking (no reader: nothing to do). Best effort:
 * a hook that misses it re-checks on its timer.
 */
void wake_poke(int sbfd, const char *id);

/*
 * sbxd: removes the names in queue/wake that no hook waits on, so they
 * never pile up: a FIFO nobody holds open for reading (its hook was
 * killed, or answered "pending": the next identical call makes it
 * again), and anything that is not a FIFO sbxd may write. A FIFO a hook
 * holds open stays. Looks at most at MAX entries (*more set when some
 * were left for later). Returns how many names it removed, or -1.
 */
int wake_sweep(int sbfd, int max, int *more);

#endif
