/*
 * util.h - small helpers every part shares: error messages, time, hex,
 * ids, bounded reads and atomic writes.
 *
 * Rules: library code never prints or exits. Functions return 0 / -1
 * (errno set, or struct sbx_err filled) or NULL. Returned strings are
 * owned by the caller (free()).
 */
#ifndef SBX_UTIL_H
#define SBX_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <sys/stat.h>

#define SBX_VERSION "0.1.0"

struct sbx_err {
	char msg[512];
};

__attribute__((format(printf, 2, 3)))
void err_set(struct sbx_err *e, const char *fmt, ...);

int64_t now_ms(void);           /* CLOCK_REALTIME, milliseconds */
int64_t mono_ms(void);          /* CLOCK_MONOTONIC, milliseconds */

void hex_encode(char *out, const unsigned char *in, size_t n); /* out: 2n+1 */
int hex_decode(unsigned char *out, size_t n, const char *hex); /* exactly 2n digits */
int is_hex(const char *s, size_t n);   /* exactly n lowercase hex digits */

/* 1 for the characters of a name (an approver's, a host's): an ASCII
 * letter or digit, '.', '_' or '-'. */
int ascii_name_char(int c);

/* snprintf that returns -1 on truncation or error. */
__attribute__((format(printf, 3, 4)))
int xsnprintf(char *buf, size_t size, const char *fmt, ...);

/* Reads all of fd, at most cap bytes; NUL-terminates. NULL with errno
 * EFBIG when the input is larger than cap. */
char *fd_read_all(int fd, size_t cap, size_t *len);

/* Writes all of buf; retries on EINTR and short writes. */
int write_all(int fd, const void *buf, size_t len);

/*
 * Writes buf to DIRFD/DST by way of a temporary file in DIRFD/TMPDIR:
 * create exclusive, write, fsync, rename into place, fsync the
 * directory. FLAGS: WA_NOREPLACE (or 1), an existing DST is an error
 * (EEXIST); WA_NOSYNC, no fsync at all (the file appears atomically,
 * whole or not at all, but may be lost or empty after a crash: for
 * files that something else makes durable or that are re-created).
 * A MODE that gives group or others access is set exactly
 * (fd_mode_exact): files the other user of a handed-over folder must
 * read (deployment 3).
 */
#define WA_NOREPLACE 1
#define WA_NOSYNC    2
/* Gives FD exactly MODE whatever the umask took from it at creation: a
 * fchmod when MODE has group or other bits (a umask only takes bits),
 * nothing otherwise. 0, or -1 with errno. The mechanism; which mode a
 * folder's files get is common/protocol/users.h sandbox_fchmod(). */
int fd_mode_exact(int fd, mode_t mode);
/* Gives the unnamed file FD (O_TMPFILE) the name BASE in DFD, through
 * /proc/self/fd: never replacing a name (EEXIST, as RENAME_NOREPLACE).
 * 0, or -1 with errno (ENOENT without /proc). */
int link_fd_at(int fd, int dfd, const char *base);
int write_atomic(int dirfd, const char *tmpdir, const char *dst,
    const void *buf, size_t len, mode_t mode, int flags);

/*
 * Opens DIRFD/NAME the safe way for untrusted files: O_NOFOLLOW, no
 * blocking, then fstat on the same fd: a regular file, one link, owned
 * by us, at most cap bytes. Reads it whole. NULL + err on refusal, with
 * errno saying why: ENOENT only when there was no such file to open
 * (ELOOP a symlink, EINVAL not a regular file, EMLINK hard links, EPERM
 * another owner, EFBIG too large), never a value left by an earlier call.
 */
char *read_untrusted(int dirfd, const char *name, size_t cap, size_t *len,
    struct sbx_err *err);
/* The same, accepting files owned by us or by ALSO, the one other user of
 * a handed-over folder (common/protocol/users.h sandbox_peer(); (uid_t)-1
 * for none). */
char *read_untrusted_as(int dirfd, const char *name, size_t cap, size_t *len,
    uid_t also, struct sbx_err *err);

/*
 * Reads a secret (a signing key) from DIRFD/NAME, dir being DIRFD's path
 * for messages: opened without following a link, it must be a regular
 * file of ours with mode 0600, at most cap bytes. 0 with *text (the
 * caller wipes and frees it) and *len; -1 with errno when it could not
 * be opened (err untouched: the caller says what a missing file means);
 * -2 with err set when it is not such a file or cannot be read.
 */
int read_private(int dirfd, const char *dir, const char *name, size_t cap, char **text,
    size_t *len, struct sbx_err *err);

/* As read_untrusted, without the owner check: for files written by
 * sbxd, which may run as another user. */
char *read_daemon_file(int dirfd, const char *name, size_t cap, size_t *len,
    struct sbx_err *err);

/*
 * Decodes the character at s (n > 0 bytes left) into *cp; returns its
 * length, or 0 when the bytes there are not valid UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). NUL is a
 * character of length 1.
 */
size_t utf8_decode(const unsigned char *s, size_t n, unsigned *cp);
/* Encodes cp (at most U+10FFFF, not a surrogate) into out; returns its
 * length, 1 to 4. */
size_t utf8_encode(unsigned cp, char out[4]);

/*
 * Copies at most max bytes of in[0..len) as valid UTF-8: invalid
 * sequences and NUL become U+FFFD, and the copy is cut at a character
 * boundary. *consumed (if not NULL) gets how many input bytes were
 * used. Caller frees.
 */
char *utf8_clean(const char *in, size_t len, size_t max, size_t *consumed);

/*
 * Paths under a directory fd that follow no symlink anywhere: every
 * directory on the way is opened with O_NOFOLLOW | O_DIRECTORY relative
 * to the last, and the last component is not followed either. A symlink
 * (or a file) where a directory belongs fails with ELOOP (ENOTDIR) and is
 * counted: nf_refusals_count() returns how many so far (since the
 * process started) and copies the last refused directory into last.
 * at_parent() opens PATH's parent that way (a new fd; DIRFD itself, dup'd,
 * when PATH has no '/') and points *base at its last component.
 * The others are openat/renameat2/unlinkat/fstatat (AT_SYMLINK_NOFOLLOW)
 * on such a parent; exists_nf() is 1 when PATH exists as anything.
 */
long nf_refusals_count(char *last, size_t n);
/* The absolute PATH opened as a directory from "/", the same way: one
 * component at a time, no symlink anywhere (the last one included), so a
 * path resolved earlier (realpath) whose directories were swapped for a
 * symlink since is refused (ELOOP), never followed. EINVAL: not absolute. */
int open_dir_abs_nf(const char *path);
int at_parent(int dirfd, const char *path, const char **base);
int openat_nf(int dirfd, const char *path, int flags, mode_t mode);
int renameat_nf(int dirfd, const char *from, const char *to, unsigned int flags);
int unlinkat_nf(int dirfd, const char *path, int flags);
int fstatat_nf(int dirfd, const char *path, struct stat *st);
int exists_nf(int dirfd, const char *path);
/* fsync(2) of DIRFD/PATH opened that way (FLAGS: O_DIRECTORY for a
 * directory): 0, or -1 with errno set. */
int fsync_at(int dirfd, const char *path, int flags);

/* Opens DIRFD/NAME as a directory stream without following a symlink
 * anywhere on NAME; NULL (errno set) otherwise. Close with closedir(). */
DIR *opendir_at(int dirfd, const char *name);

/* Walks up from start to the nearest directory holding .sandbox/;
 * out gets the resolved folder. -1 when there is none. */
int find_folder(const char *start, char *out, size_t outsz);
/* The same from a path realpath() already resolved (the hook's cwd): it
 * walks up without resolving it a second time. */
int find_folder_resolved(const char *real, char *out, size_t outsz);

/* The sbx config dir: $SBX_CONFIG_DIR, $XDG_CONFIG_HOME/sbx, ~/.config/sbx. */
int config_dir(char *out, size_t outsz);

/* mkdir -p with mode for the created parts. */
int mkdir_p(const char *path, mode_t mode);

/* The number at the start of a small file (a /proc/sys value); -1 when
 * the file cannot be read. */
long file_long(const char *path);

/*
 * Reads PATH, a file a user may have made a symlink (a client's settings,
 * trust list, config.toml), without following one, at most max bytes: 1
 * with *text (NUL-terminated, the caller frees), *len and *mode (when not
 * NULL) set; 0 when it does not exist; -1 with err when it is a symlink,
 * too large or unreadable, with SBX_READ_REGULAR when it is not a regular
 * file, with SBX_READ_NO_NUL when it holds a NUL byte. Checks the fd it
 * reads.
 */
#define SBX_READ_REGULAR    1
#define SBX_READ_NO_NUL     2
int file_read_nofollow(const char *path, size_t max, int flags, char **text, size_t *len,
    mode_t *mode, struct sbx_err *err);

#endif
