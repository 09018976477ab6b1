/*
 * test_handoff.c - a run handed to the spare executor (daemon/handoff.c):
 * what is encoded is read back exactly; every prefix of a run, a run
 * without its terminators, a wrong magic or count, trailing bytes are
 * refused (never read past); a sealed memfd cannot be changed; messages
 * of another shape are refused and their descriptors closed.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/handoff.c"
#include "tests/tap.h"

static char *const env[] = { "PATH=/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", NULL };

static const struct exec_spec spec = { .sbfd = 7, .folder = "/p", .id = "0123456789abcdef",
	.hash = "ab", .tool = "Bash", .command = "echo 'hi'; true", .cwd = "/p/sub",
	.approver = "alice", .is_auto = 1, .timeout_s = 60, .cap = 1048576, .cpu_s = 9,
	.mem_bytes = 1LL << 33, .max_procs = 40, .env = env };

/* A memfd holding len bytes of buf. */
static int
memfd_of(const char *buf, size_t len)
{
	int fd = memfd_create("t", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, buf, len) != (ssize_t)len) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void
test_round_trip(void)
{
	struct handoff_run r;
	int fd = handoff_encode(&spec);

	ok(fd >= 0, "a run is encoded");
	is_int(handoff_decode(fd, &r), 0, "and read back");
	is_str(r.s.id, spec.id, "id");
	is_str(r.s.command, spec.command, "command");
	is_str(r.s.cwd, spec.cwd, "cwd");
	is_str(r.s.approver, "alice", "approver");
	ok(r.s.is_auto == 1 && r.s.timeout_s == 60 && r.s.cap == 1048576 && r.s.cpu_s == 9 &&
	    r.s.mem_bytes == 1LL << 33 && r.s.max_procs == 40, "the limits");
	ok(r.env[0] && r.env[2] && !r.env[3] && strcmp(r.env[1], env[1]) == 0, "the environment");
	is_int(r.s.sbfd, -1, "no descriptor comes with it");
	handoff_free(&r);
	ok(write(fd, "x", 1) < 0, "the sealed memfd cannot be written");
	ok(ftruncate(fd, 1) < 0, "nor shrunk");
	close(fd);
}

static void
test_hostile(void)
{
	struct handoff_run r;
	struct stat st;
	char *buf;
	int fd = handoff_encode(&spec), bad = 0, n, k;
	uint32_t big;

	fstat(fd, &st);
	buf = malloc((size_t)st.st_size + 1);
	ok(buf && pread(fd, buf, (size_t)st.st_size, 0) == st.st_size, "the encoded bytes");
	close(fd);
	/* Every shorter prefix is refused. */
	for (n = 0; n < st.st_size; n++) {
		fd = memfd_of(buf, (size_t)n);
		if (handoff_decode(fd, &r) == 0) {
			bad++;
			handoff_free(&r);
		}
		close(fd);
	}
	is_int(bad, 0, "none of the %lld shorter prefixes is read", (long long)st.st_size);
	/* Trailing bytes. */
	buf[st.st_size] = 'x';
	fd = memfd_of(buf, (size_t)st.st_size + 1);
	is_int(handoff_decode(fd, &r), -1, "a byte after the last string is refused");
	close(fd);
	/* No terminators at all. */
	for (k = (int)sizeof(struct spec_head); k < st.st_size; k++)
		if (!buf[k])
			buf[k] = 'A';
	fd = memfd_of(buf, (size_t)st.st_size);
	is_int(handoff_decode(fd, &r), -1, "strings without terminators are refused");
	close(fd);
	free(buf);
	/* A count past the strings, and past the cap. */
	fd = handoff_encode(&spec);
	buf = malloc((size_t)st.st_size);
	ok(buf && pread(fd, buf, (size_t)st.st_size, 0) == st.st_size, "again");
	close(fd);
	big = SPEC_STRS + 4;
	memcpy(buf + offsetof(struct spec_head, nstr), &big, sizeof(big));
	fd = memfd_of(buf, (size_t)st.st_size);
	is_int(handoff_decode(fd, &r), -1, "a count of strings past the end is refused");
	close(fd);
	big = 0xffffffffu;
	memcpy(buf + offsetof(struct spec_head, nstr), &big, sizeof(big));
	fd = memfd_of(buf, (size_t)st.st_size);
	is_int(handoff_decode(fd, &r), -1, "a huge count is refused");
	close(fd);
	big = SPEC_MAGIC ^ 1;
	memcpy(buf, &big, sizeof(big));
	fd = memfd_of(buf, (size_t)st.st_size);
	is_int(handoff_decode(fd, &r), -1, "a wrong magic is refused");
	close(fd);
	free(buf);
}

static void
test_messages(void)
{
	int sv[2], fds[2] = { -1, -1 }, got[2] = { -1, -1 }, one;
	long v = 0, w = 42;
	char b = 0;

	ok(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0, "a socket pair");
	fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fds[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	is_int(handoff_send(sv[0], "s", 1, fds, 2), 0, "one byte and two fds sent");
	is_int(handoff_recv(sv[1], &b, 1, got, 2), 0, "received");
	ok(b == 's' && got[0] >= 0 && got[1] >= 0 && (fcntl(got[0], F_GETFD) & FD_CLOEXEC),
	    "the byte, and the fds, close-on-exec");
	close(got[0]);
	close(got[1]);
	/* Another shape: a byte where a long is due, fds where none are. */
	is_int(handoff_send(sv[0], "k", 1, fds, 1), 0, "a byte with an fd");
	is_int(handoff_recv(sv[1], &v, sizeof(v), &one, 0), -1, "refused where a long without fds is due");
	is_int(handoff_send(sv[0], &w, sizeof(w), NULL, 0), 0, "a long without an fd");
	one = -1;
	is_int(handoff_recv(sv[1], &v, sizeof(v), &one, 1), -1, "refused where an fd is due");
	close(sv[0]);
	is_int(handoff_recv(sv[1], &b, 1, got, 0), -1, "the peer's end is refused");
	close(sv[1]);
	close(fds[0]);
	close(fds[1]);
}

int
main(void)
{
	test_round_trip();
	test_hostile();
	test_messages();
	return tap_done();
}
