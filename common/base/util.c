/*
 * util.c - shared helpers; see util.h.
 *
 * MUST open untrusted files with O_NOFOLLOW and check the same fd it
 * reads (fstat), never the path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "common/base/util.h"

void
err_set(struct sbx_err *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
hex_encode(char *out, const unsigned char *in, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
is_hex(const char *s, size_t n)
{
	size_t i;

	if (!s || strlen(s) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (hexval((unsigned char)s[i]) < 0)
			return 0;
	return 1;
}

int
hex_decode(unsigned char *out, size_t n, const char *hex)
{
	size_t i;

	if (!is_hex(hex, 2 * n)) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < n; i++)
		out[i] = (unsigned char)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
	return 0;
}

int
ascii_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '.' || c == '_' || c == '-';
}

int
xsnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return n;
}

char *
fd_read_all(int fd, size_t cap, size_t *len)
{
	size_t size = 4096, n = 0;
	char *buf = malloc(size + 1), *nbuf;
	ssize_t r;

	if (!buf)
		return NULL;
	for (;;) {
		if (n == size) {
			if (size > cap) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			size = size * 2 > cap + 1 ? cap + 1 : size * 2;
			if (!(nbuf = realloc(buf, size + 1))) {
				free(buf);
				return NULL;
			}
			buf = nbuf;
		}
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > cap) {
			free(buf);
			errno = EFBIG;
			return NULL;
		}
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t w;

	while (len > 0) {
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * Opens DIRFD/REL as a directory, one component at a time, following no
 * symlink on the way: the queue's subdirectories are the agent's to
 * replace (inside sbx jail it may swap queue/tmp for a symlink), and the
 * processes outside the jail that write there must not follow it.
 */
static long nf_refusals;         /* a directory on a path was a symlink */
static char nf_refused[PATH_MAX];

static int
open_dir_nofollow(int dirfd, const char *rel)
{
	char buf[PATH_MAX], *part, *save = NULL;
	int fd, next, saved;

	/* a bad fd (AT_FDCWD too) fails as the dup() of dirfd used to */
	if (dirfd < 0) {
		errno = EBADF;
		return -1;
	}
	if (xsnprintf(buf, sizeof(buf), "%s", rel) < 0)
		return -1;
	/* the first component from dirfd itself: no dup() to close again */
	fd = -1;
	for (part = strtok_r(buf, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		next = openat(fd < 0 ? dirfd : fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		saved = errno;
		if (fd >= 0)
			close(fd);
		if (next < 0) {
			/* A symlink (ELOOP) or a file (ENOTDIR) where a directory
			 * belongs: refused, and counted for nf_refusals(). */
			if (saved == ELOOP || saved == ENOTDIR) {
				nf_refusals++;
				snprintf(nf_refused, sizeof(nf_refused), "%.*s", (int)(part - buf +
				    (ptrdiff_t)strlen(part)), rel);
			}
			errno = saved;
			return -1;
		}
		fd = next;
	}
	/* no component (".", ""): a new fd for dirfd itself, as promised */
	return fd >= 0 ? fd : dup(dirfd);
}

int
open_dir_abs_nf(const char *path)
{
	int root, fd, saved;

	if (path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	if ((root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	fd = open_dir_nofollow(root, path + 1);
	saved = errno;
	close(root);
	errno = saved;
	return fd;
}

long
nf_refusals_count(char *last, size_t n)
{
	if (last && n)
		snprintf(last, n, "%s", nf_refused);
	return nf_refusals;
}

int
at_parent(int dirfd, const char *path, const char **base)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!slash)
		return dup(dirfd);
	if (xsnprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path) < 0)
		return -1;
	return open_dir_nofollow(dirfd, dir);
}

/*
 * at_parent() for the *_nf calls below: a name without '/' is looked up
 * in dirfd itself (*own 0: not to be closed), which is what the dup() of
 * at_parent() would give, without the dup() and the close().
 */
static int
parent_nf(int dirfd, const char *path, const char **base, int *own)
{
	*own = strchr(path, '/') != NULL;
	if (dirfd < 0) {
		/* EBADF as from at_parent()'s dup(): never a stale errno (a
		 * caller may read ENOENT as "not there") */
		*own = 0;
		errno = EBADF;
		return -1;
	}
	if (!*own) {
		*base = path;
		return dirfd;
	}
	return at_parent(dirfd, path, base);
}

/* Closes pfd when parent_nf() opened it, keeping errno. */
static void
parent_done(int pfd, int own)
{
	int saved = errno;

	if (own && pfd >= 0)
		close(pfd);
	errno = saved;
}

int
openat_nf(int dirfd, const char *path, int flags, mode_t mode)
{
	const char *base;
	int own, pfd = parent_nf(dirfd, path, &base, &own), fd;

	if (pfd < 0)
		return -1;
	fd = openat(pfd, base, flags | O_NOFOLLOW, mode);
	parent_done(pfd, own);
	return fd;
}

int
renameat_nf(int dirfd, const char *from, const char *to, unsigned int flags)
{
	const char *fb, *tb = NULL;
	int fown, town = 0, ffd = parent_nf(dirfd, from, &fb, &fown);
	int tfd = ffd < 0 ? -1 : parent_nf(dirfd, to, &tb, &town), rc = -1;

	if (ffd >= 0 && tfd >= 0)
		rc = renameat2(ffd, fb, tfd, tb, flags);
	parent_done(ffd, fown);
	parent_done(tfd, town);
	return rc;
}

int
unlinkat_nf(int dirfd, const char *path, int flags)
{
	const char *base;
	int own, pfd = parent_nf(dirfd, path, &base, &own), rc;

	if (pfd < 0)
		return -1;
	rc = unlinkat(pfd, base, flags);
	parent_done(pfd, own);
	return rc;
}

int
fstatat_nf(int dirfd, const char *path, struct stat *st)
{
	const char *base;
	int own, pfd = parent_nf(dirfd, path, &base, &own), rc;

	if (pfd < 0)
		return -1;
	rc = fstatat(pfd, base, st, AT_SYMLINK_NOFOLLOW);
	parent_done(pfd, own);
	return rc;
}

int
exists_nf(int dirfd, const char *path)
{
	struct stat st;

	return fstatat_nf(dirfd, path, &st) == 0;
}

int
fsync_at(int dirfd, const char *path, int flags)
{
	int fd = openat_nf(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | flags, 0);
	int rc = fd >= 0 && fsync(fd) == 0 ? 0 : -1, e = errno;

	if (fd >= 0)
		close(fd);
	errno = e;
	return rc;
}

int
fd_mode_exact(int fd, mode_t mode)
{
	return (mode & 077) ? fchmod(fd, mode) : 0;
}

int
link_fd_at(int fd, int dfd, const char *base)
{
	char proc[64];

	if (xsnprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd) < 0)
		return -1;
	return linkat(AT_FDCWD, proc, dfd, base, AT_SYMLINK_FOLLOW);
}

int
write_atomic(int dirfd, const char *tmpdir, const char *dst, const void *buf,
    size_t len, mode_t mode, int flags)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	unsigned char rnd[8];
	char rhex[17];
	const char *slash = strrchr(dst, '/'), *base = slash ? slash + 1 : dst;
	int fd = -1, tfd = -1, dfd = -1, saved;

	randombytes_buf(rnd, sizeof(rnd));
	hex_encode(rhex, rnd, sizeof(rnd));
	if (xsnprintf(tmp, sizeof(tmp), ".%ld.%s.tmp", (long)getpid(), rhex) < 0)
		return -1;
	if ((tfd = open_dir_nofollow(dirfd, tmpdir)) < 0)
		return -1;
	if (slash) {
		if (xsnprintf(dir, sizeof(dir), "%.*s", (int)(slash - dst), dst) < 0 ||
		    (dfd = open_dir_nofollow(dirfd, dir)) < 0)
			goto fail;
	} else if ((dfd = dup(dirfd)) < 0) {
		goto fail;
	}
	fd = openat(tfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		goto fail;
	if (fd_mode_exact(fd, mode) < 0)
		goto fail_unlink;
	if (write_all(fd, buf, len) < 0 || (!(flags & WA_NOSYNC) && fsync(fd) < 0))
		goto fail_unlink;
	if (close(fd) < 0) {
		fd = -1;
		goto fail_unlink;
	}
	fd = -1;
	if (renameat2(tfd, tmp, dfd, base, flags & WA_NOREPLACE ? RENAME_NOREPLACE : 0) < 0)
		goto fail_unlink;
	/* Make the rename durable: fsync the directory that holds dst. */
	if (!(flags & WA_NOSYNC))
		(void)fsync(dfd);
	close(dfd);
	close(tfd);
	return 0;
fail_unlink:
	saved = errno;
	(void)unlinkat(tfd, tmp, 0);
	errno = saved;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (tfd >= 0)
		close(tfd);
	errno = saved;
	return -1;
}

static char *
read_checked(int dirfd, const char *name, size_t cap, size_t *len,
    int check_owner, uid_t also, struct sbx_err *err)
{
	struct stat st;
	char *buf = NULL;
	int fd, saved;

	fd = openat_nf(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
	if (fd < 0) {
		saved = errno;
		err_set(err, saved == ELOOP ? "%s is a symlink" : "cannot open %s: %s",
		    name, strerror(saved));
		errno = saved;
		return NULL;
	}
	/* Each refusal says why in errno: a caller must never read a stale
	 * ENOENT as "the file is gone" and skip a file it should reject. */
	if (fstat(fd, &st) < 0) {
		saved = errno == ENOENT ? EIO : errno;
		err_set(err, "cannot stat %s: %s", name, strerror(saved));
	} else if (!S_ISREG(st.st_mode)) {
		saved = EINVAL;
		err_set(err, "%s is not a regular file", name);
	} else if (st.st_nlink != 1) {
		saved = EMLINK;
		err_set(err, "%s has %lu hard links", name, (unsigned long)st.st_nlink);
	} else if (check_owner && st.st_uid != geteuid() &&
	    (also == (uid_t)-1 || st.st_uid != also)) {
		saved = EPERM;
		err_set(err, "%s is owned by uid %lu, not by us", name, (unsigned long)st.st_uid);
	} else if ((size_t)st.st_size > cap) {
		saved = EFBIG;
		err_set(err, "%s is too large (%lld bytes, limit %zu)", name,
		    (long long)st.st_size, cap);
	} else if (!(buf = fd_read_all(fd, cap, len))) {
		saved = errno == ENOENT || errno == 0 ? EIO : errno;
		err_set(err, "cannot read %s: %s", name, strerror(saved));
	} else {
		saved = 0;
	}
	close(fd);
	if (!buf)
		errno = saved;
	return buf;
}

char *
read_untrusted(int dirfd, const char *name, size_t cap, size_t *len,
    struct sbx_err *err)
{
	return read_checked(dirfd, name, cap, len, 1, (uid_t)-1, err);
}

char *
read_untrusted_as(int dirfd, const char *name, size_t cap, size_t *len, uid_t also,
    struct sbx_err *err)
{
	return read_checked(dirfd, name, cap, len, 1, also, err);
}

int
read_private(int dirfd, const char *dir, const char *name, size_t cap, char **text,
    size_t *len, struct sbx_err *err)
{
	struct stat st;
	int fd, e;

	*text = NULL;
	if ((fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		err_set(err, "%s/%s must be a regular file of ours with mode 0600 (run "
		    "`chmod 600 %s/%s`)", dir, name, dir, name);
	else if (!(*text = fd_read_all(fd, cap, len)))
		err_set(err, "%s/%s is malformed", dir, name);
	close(fd);
	return *text ? 0 : -2;
}

char *
read_daemon_file(int dirfd, const char *name, size_t cap, size_t *len,
    struct sbx_err *err)
{
	return read_checked(dirfd, name, cap, len, 0, (uid_t)-1, err);
}

size_t
utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0], min, len, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, min = 0x80, c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, min = 0x800, c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, min = 0x10000, c &= 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

size_t
utf8_encode(unsigned cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid
 * or NUL. */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
	unsigned cp;

	return p[0] ? utf8_decode(p, n, &cp) : 0;
}

char *
utf8_clean(const char *in, size_t len, size_t max, size_t *consumed)
{
	const unsigned char *p = (const unsigned char *)in;
	size_t i = 0, o = 0, k;
	char *out = malloc(max + 1);

	if (!out)
		return NULL;
	while (i < len) {
		k = utf8_seq(p + i, len - i);
		if (k == 0) {
			if (o + 3 > max)
				break;
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		if (o + k > max)
			break;
		memcpy(out + o, p + i, k);
		o += k;
		i += k;
	}
	out[o] = '\0';
	if (consumed)
		*consumed = i;
	return out;
}

DIR *
opendir_at(int dirfd, const char *name)
{
	int fd = open_dir_nofollow(dirfd, name), saved;
	DIR *d;

	if (fd < 0)
		return NULL;
	if (!(d = fdopendir(fd))) {
		saved = errno;
		close(fd);
		errno = saved;
	}
	return d;
}

int
find_folder(const char *start, char *out, size_t outsz)
{
	char path[PATH_MAX];

	if (!start || !realpath(start, path))
		return -1;
	return find_folder_resolved(path, out, outsz);
}

int
find_folder_resolved(const char *real, char *out, size_t outsz)
{
	char path[PATH_MAX], probe[PATH_MAX + 16];
	struct stat st;
	char *slash;

	if (!real || real[0] != '/' || xsnprintf(path, sizeof(path), "%s", real) < 0) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		if (xsnprintf(probe, sizeof(probe), "%s/.sandbox",
		    strcmp(path, "/") == 0 ? "" : path) < 0)
			return -1;
		if (lstat(probe, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (xsnprintf(out, outsz, "%s", path) < 0)
				return -1;
			return 0;
		}
		if (strcmp(path, "/") == 0)
			break;
		slash = strrchr(path, '/');
		if (slash == path)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	errno = ENOENT;
	return -1;
}

int
config_dir(char *out, size_t outsz)
{
	const char *v;
	struct passwd *pw;

	if ((v = getenv("SBX_CONFIG_DIR")) && *v)
		return xsnprintf(out, outsz, "%s", v) < 0 ? -1 : 0;
	if ((v = getenv("XDG_CONFIG_HOME")) && *v)
		return xsnprintf(out, outsz, "%s/sbx", v) < 0 ? -1 : 0;
	if (!(v = getenv("HOME")) || !*v) {
		pw = getpwuid(getuid());
		if (!pw || !pw->pw_dir) {
			errno = ENOENT;
			return -1;
		}
		v = pw->pw_dir;
	}
	return xsnprintf(out, outsz, "%s/.config/sbx", v) < 0 ? -1 : 0;
}

int
mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	char *p;

	if (xsnprintf(buf, sizeof(buf), "%s", path) < 0)
		return -1;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

long
file_long(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

int
file_read_nofollow(const char *path, size_t max, int flags, char **text, size_t *len,
    mode_t *mode, struct sbx_err *err)
{
	struct stat st;
	int fd;

	*text = NULL;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ELOOP)
			err_set(err, "%s is a symlink; sbx will not replace it (edit it by hand)",
			    path);
		else
			err_set(err, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	/* the same fd it reads: nothing can swap the file in between */
	if (fstat(fd, &st) < 0 || ((flags & SBX_READ_REGULAR) && !S_ISREG(st.st_mode))) {
		err_set(err, "%s is not a regular file; sbx will not replace it", path);
		close(fd);
		return -1;
	}
	if (!(*text = fd_read_all(fd, max, len))) {
		if (errno == EFBIG)
			err_set(err, "cannot read %s: larger than %zu KiB", path, max / 1024);
		else
			err_set(err, "cannot read %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	if ((flags & SBX_READ_NO_NUL) && strlen(*text) != *len) {
		free(*text);
		*text = NULL;
		err_set(err, "%s holds a NUL byte; sbx will not edit it", path);
		return -1;
	}
	if (mode)
		*mode = st.st_mode & 07777;
	return 1;
}
