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

#include "common/util.h"

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
static int
open_dir_nofollow(int dirfd, const char *rel)
{
	char buf[PATH_MAX], *part, *save = NULL;
	int fd, next;

	if (xsnprintf(buf, sizeof(buf), "%s", rel) < 0)
		return -1;
	if ((fd = dup(dirfd)) < 0)
		return -1;
	for (part = strtok_r(buf, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return -1;
		fd = next;
	}
	return fd;
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
    int check_owner, struct sbx_err *err)
{
	struct stat st;
	char *buf = NULL;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err_set(err, errno == ELOOP ? "%s is a symlink" : "cannot open %s: %s",
		    name, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		err_set(err, "cannot stat %s: %s", name, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err_set(err, "%s is not a regular file", name);
		goto out;
	}
	if (st.st_nlink != 1) {
		err_set(err, "%s has %lu hard links", name, (unsigned long)st.st_nlink);
		goto out;
	}
	if (check_owner && st.st_uid != geteuid()) {
		err_set(err, "%s is owned by uid %lu, not by us", name, (unsigned long)st.st_uid);
		goto out;
	}
	if ((size_t)st.st_size > cap) {
		err_set(err, "%s is too large (%lld bytes, limit %zu)", name,
		    (long long)st.st_size, cap);
		goto out;
	}
	buf = fd_read_all(fd, cap, len);
	if (!buf)
		err_set(err, "cannot read %s: %s", name, strerror(errno));
out:
	close(fd);
	return buf;
}

char *
read_untrusted(int dirfd, const char *name, size_t cap, size_t *len,
    struct sbx_err *err)
{
	return read_checked(dirfd, name, cap, len, 1, err);
}

char *
read_daemon_file(int dirfd, const char *name, size_t cap, size_t *len,
    struct sbx_err *err)
{
	return read_checked(dirfd, name, cap, len, 0, err);
}

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid. */
static size_t
utf8_seq(const unsigned char *p, size_t n)
{
	size_t want, i;
	unsigned cp;

	if (p[0] >= 0x01 && p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		want = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		want = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		want = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n < want)
		return 0;
	for (i = 1; i < want; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((want == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (want == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return want;
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
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), saved;
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
	char path[PATH_MAX], probe[PATH_MAX + 16];
	struct stat st;
	char *slash;

	if (!start || !realpath(start, path))
		return -1;
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
