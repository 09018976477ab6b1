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
 */
#define WA_NOREPLACE 1
#define WA_NOSYNC    2
int write_atomic(int dirfd, const char *tmpdir, const char *dst,
    const void *buf, size_t len, mode_t mode, int flags);

/*
 * Opens DIRFD/NAME the safe way for untrusted files: O_NOFOLLOW, no
 * blocking, then fstat on the same fd: a regular file, one link, owned
 * by us, at most cap bytes. Reads it whole. NULL + err on refusal.
 */
char *read_untrusted(int dirfd, const char *name, size_t cap, size_t *len,
    struct sbx_err *err);

/* As read_untrusted, without the owner check: for files written by
 * sbxd, which may run as another user. */
char *read_daemon_file(int dirfd, const char *name, size_t cap, size_t *len,
    struct sbx_err *err);

/*
 * Copies at most max bytes of in[0..len) as valid UTF-8: invalid
 * sequences and NUL become U+FFFD, and the copy is cut at a character
 * boundary. *consumed (if not NULL) gets how many input bytes were
 * used. Caller frees.
 */
char *utf8_clean(const char *in, size_t len, size_t max, size_t *consumed);

/* Opens DIRFD/NAME as a directory stream without following a symlink at
 * NAME; NULL (errno set) otherwise. Close with closedir(). */
DIR *opendir_at(int dirfd, const char *name);

/* Walks up from start to the nearest directory holding .sandbox/;
 * out gets the resolved folder. -1 when there is none. */
int find_folder(const char *start, char *out, size_t outsz);

/* The sbx config dir: $SBX_CONFIG_DIR, $XDG_CONFIG_HOME/sbx, ~/.config/sbx. */
int config_dir(char *out, size_t outsz);

/* mkdir -p with mode for the created parts. */
int mkdir_p(const char *path, mode_t mode);

/* The number at the start of a small file (a /proc/sys value); -1 when
 * the file cannot be read. */
long file_long(const char *path);

#endif
