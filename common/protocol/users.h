/*
 * users.h - which users share a folder's .sandbox (deployment 3 of the
 * README: sbxd as a separate user holding credentials the agent's user
 * does not have).
 *
 * In a folder of one user everything under .sandbox/ is that user's, and
 * nothing here is read. A folder handed over by `sbx handover` (run by
 * root) has .sandbox/ owned by the daemon's user and
 * .sandbox/users, a file owned by root (so neither user can forge it),
 * that names exactly two users and the agent's group:
 *
 *   agent UID
 *   daemon UID
 *   group GID
 *
 * Both sides check it before they accept a file of the other: the
 * agent's hooks accept a .sandbox/ owned by the daemon's user only when
 * this file names that user as the daemon and themselves as the agent;
 * sbxd accepts requests and events owned by the agent's user only when
 * this file names it. Never "any owner".
 *
 * MUST read the file with O_NOFOLLOW and check the same fd: a regular
 * file of one link, owned by root, not writable by group or others,
 * exactly the three lines above with distinct non-zero uids.
 */
#ifndef SBX_USERS_H
#define SBX_USERS_H

#include <sys/types.h>

#include "common/base/util.h"

#define SBX_USERS_FILE "users"
#define SBX_USERS_MAX  128          /* bytes: three short lines */

struct sandbox_users {
	uid_t agent;                /* owns the project; its hooks drop requests */
	uid_t daemon;               /* owns .sandbox/; runs sbxd and the approver */
	gid_t group;                /* .sandbox/'s group: the agent's, only its */
};

/*
 * Reads SBFD/users. 1 and *u when it is present and valid, 0 when there
 * is none (a folder of one user), -1 with err when it is present but
 * not as described above (fail closed: the caller refuses the folder).
 */
int sandbox_users_read(int sbfd, struct sandbox_users *u, struct sbx_err *err);

/*
 * The one other user whose files sbx accepts under this .sandbox: for the
 * daemon's user, the agent's; for the agent's, the daemon's (the owner
 * of .sandbox). (uid_t)-1 in a folder of one user (a .sandbox of ours,
 * mode 0700: one fstat, nothing read), or when the users file is missing
 * or bad (then nobody else is accepted).
 */
uid_t sandbox_peer(int sbfd);

/*
 * Inside a user namespace that maps only some uids (the agent in `sbx
 * jail`), the uid every unmapped owner shows as (the kernel's overflow
 * uid): there root's users file and sbxd's .sandbox cannot be told apart
 * from another unmapped user's, so the agent's side accepts that uid for
 * both, as `sbx jail` verified the folder outside before it started.
 * (uid_t)-1 in the initial namespace (sbxd, sbx, a hook outside a jail).
 */
uid_t sandbox_unmapped_uid(void);

/*
 * The mode for a file one side writes under SBFD for the other to read:
 * 0644 in a handed-over folder (a valid users file names us as its agent
 * or daemon, and .sandbox is the daemon's), so that the other user can
 * read it: it is "others" to the file, and .sandbox/ lets nobody else
 * in. 0600 otherwise: a folder of one user, whatever the mode of its
 * .sandbox (one fstat when it is 0700), or a users file that is missing
 * or bad (fail closed: nobody else reads).
 */
mode_t sandbox_file_mode(int sbfd);

/*
 * Gives FD, a file (FIFO 0: the receipt) or FIFO (FIFO 1: the wake
 * channel) this side made under SBFD for the other side, the folder's
 * mode whatever the umask: sandbox_file_mode() for a file; 0602 for a
 * FIFO, which the other user writes and never reads; nothing in a folder
 * of one user (0600, as made). 0, or -1 with errno. write_atomic() does
 * the same with the mode its caller took from sandbox_file_mode().
 */
int sandbox_fchmod(int sbfd, int fd, int fifo);

#endif
