/*
 * handoff.c - a run handed to the spare executor; see handoff.h.
 *
 * MUST read a run only from a sealed memfd, and check every length:
 * nothing is trusted to be terminated or to fit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/base/util.h"
#include "daemon/handoff.h"

#define SPEC_MAGIC      0x31786273u
#define SPEC_STRS       7       /* folder, id, hash, tool, command, cwd, approver */
#define SPEC_MAX_ENV    4096
#define SPEC_MAX        (16L << 20)

struct spec_head {
	uint32_t magic, nstr;
	int32_t is_auto, timeout_s, cpu_s, max_procs;
	int64_t cap, mem_bytes;
};

/* Writes the run s into a sealed memfd. The fd, or -1. */
int
handoff_encode(const struct exec_spec *s)
{
	const char *str[SPEC_STRS] = { s->folder, s->id, s->hash, s->tool, s->command,
		s->cwd, s->approver };
	struct spec_head h = { .magic = SPEC_MAGIC, .is_auto = s->is_auto,
		.timeout_s = s->timeout_s, .cpu_s = s->cpu_s, .max_procs = s->max_procs,
		.cap = s->cap, .mem_bytes = s->mem_bytes };
	size_t n = 0, len = sizeof(h), k, o;
	char *buf;
	int fd = -1;

	while (s->env && s->env[n])
		n++;
	if (n > SPEC_MAX_ENV)
		return -1;
	h.nstr = (uint32_t)(SPEC_STRS + n);
	for (k = 0; k < SPEC_STRS; k++)
		len += strlen(str[k] ? str[k] : "") + 1;
	for (k = 0; k < n; k++)
		len += strlen(s->env[k]) + 1;
	if (len > (size_t)SPEC_MAX || !(buf = malloc(len)))
		return -1;
	memcpy(buf, &h, sizeof(h));
	for (o = sizeof(h), k = 0; k < SPEC_STRS + n; k++) {
		const char *v = k < SPEC_STRS ? (str[k] ? str[k] : "") : s->env[k - SPEC_STRS];

		memcpy(buf + o, v, strlen(v) + 1);
		o += strlen(v) + 1;
	}
	if ((fd = memfd_create("sbx-run", MFD_CLOEXEC | MFD_ALLOW_SEALING)) < 0 ||
	    write_all(fd, buf, len) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	free(buf);
	return fd;
}

void
handoff_free(struct handoff_run *r)
{
	free(r->buf);
	free(r->env);
	r->buf = NULL;
	r->env = NULL;
}

/* Reads a run back from fd (handoff_encode's). 0, or -1 (nothing kept). */
int
handoff_decode(int fd, struct handoff_run *r)
{
	const char *str[SPEC_STRS];
	struct spec_head h;
	struct stat st;
	char *p, *end, *z;
	uint32_t i;

	memset(r, 0, sizeof(*r));
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(h) || st.st_size > SPEC_MAX ||
	    !(r->buf = malloc((size_t)st.st_size)))
		return -1;
	if (pread(fd, r->buf, (size_t)st.st_size, 0) != (ssize_t)st.st_size)
		goto fail;
	memcpy(&h, r->buf, sizeof(h));
	if (h.magic != SPEC_MAGIC || h.nstr < SPEC_STRS || h.nstr > SPEC_STRS + SPEC_MAX_ENV ||
	    !(r->env = calloc(h.nstr - SPEC_STRS + 1, sizeof(*r->env))))
		goto fail;
	p = r->buf + sizeof(h);
	end = r->buf + st.st_size;
	for (i = 0; i < h.nstr; i++) {
		if (!(z = memchr(p, '\0', (size_t)(end - p))))
			goto fail;
		if (i < SPEC_STRS)
			str[i] = p;
		else
			r->env[i - SPEC_STRS] = p;
		p = z + 1;
	}
	if (p != end)
		goto fail;
	r->s = (struct exec_spec){ .sbfd = -1, .folder = str[0], .id = str[1],
		.hash = str[2], .tool = str[3], .command = str[4], .cwd = str[5],
		.approver = str[6], .is_auto = h.is_auto, .timeout_s = h.timeout_s,
		.cap = (long)h.cap, .cpu_s = h.cpu_s, .mem_bytes = h.mem_bytes,
		.max_procs = h.max_procs, .env = r->env };
	return 0;
fail:
	handoff_free(r);
	return -1;
}

/* Sends len bytes and up to 2 fds as one message; never blocks. 0 or -1. */
int
handoff_send(int sock, const void *data, size_t len, const int *fds, int nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} u;
	struct iovec iov = { (void *)data, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (nfds < 0 || nfds > 2) {
		errno = EINVAL;
		return -1;
	}
	if (nfds > 0) {
		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
	}
	return sendmsg(sock, &m, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* Receives one message of exactly len bytes with exactly nfds fds
 * (close-on-exec). 0, or -1 (its end, an error, another shape: any fd
 * that came is closed). Blocks. */
int
handoff_recv(int sock, void *data, size_t len, int *fds, int nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} u;
	struct iovec iov = { data, len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
		.msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	int got = 0, k, n, *in;
	ssize_t r;

	do
		r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	for (cm = r >= 0 ? CMSG_FIRSTHDR(&m) : NULL; cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		in = (int *)(void *)CMSG_DATA(cm);
		for (k = 0; k < n; k++) {
			if (got < nfds)
				fds[got] = in[k];
			else
				close(in[k]);
			got++;
		}
	}
	if (r == (ssize_t)len && got == nfds && !(m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return 0;
	for (k = 0; k < got && k < nfds; k++)
		close(fds[k]);
	return -1;
}
