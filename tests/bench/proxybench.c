/*
 * proxybench.c - what sbx-proxy adds: per-connection latency on loopback
 * and bulk throughput through a CONNECT tunnel (make bench).
 *
 *   proxybench SOCKET N MB
 *
 * Runs its own TCP server on 127.0.0.1 (a thread: echoes one byte, or
 * sinks/sources bulk data), then times N connections straight to it and
 * N through the proxy's Unix socket (CONNECT, the 200, one byte there
 * and back), and MB megabytes each way through one tunnel. The policy
 * must allow 127.0.0.1.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int srv_port;
static long long bulk_bytes;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *
serve_one(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char cmd, *buf = malloc(1 << 16);
	long long left;
	ssize_t n;

	/* 'e': echo one byte; 'u': sink bulk_bytes; 'd': send bulk_bytes */
	if (buf && read(fd, &cmd, 1) == 1) {
		if (cmd == 'e') {
			(void)!write(fd, &cmd, 1);
		} else if (cmd == 'u') {
			for (left = bulk_bytes; left > 0 && (n = read(fd, buf, 1 << 16)) > 0; left -= n)
				;
			(void)!write(fd, "k", 1);
		} else if (cmd == 'd') {
			memset(buf, 'x', 1 << 16);
			for (left = bulk_bytes; left > 0; left -= n)
				if ((n = write(fd, buf, left < (1 << 16) ? (size_t)left : 1 << 16)) <= 0)
					break;
		}
	}
	free(buf);
	close(fd);
	return NULL;
}

static void *
server(void *arg)
{
	int lfd = (int)(intptr_t)arg, fd;
	pthread_t t;

	while ((fd = accept(lfd, NULL, NULL)) >= 0) {
		if (pthread_create(&t, NULL, serve_one, (void *)(intptr_t)fd) == 0)
			pthread_detach(t);
		else
			close(fd);
	}
	return NULL;
}

static int
tcp_connect(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(srv_port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("connect");
		exit(1);
	}
	return fd;
}

static int
proxy_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char req[128], head[512];
	size_t got = 0;
	ssize_t n;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror(path);
		exit(1);
	}
	n = snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%d HTTP/1.1\r\n\r\n", srv_port);
	if (write(fd, req, (size_t)n) != n)
		exit(1);
	while (got < sizeof(head) - 1 && (n = read(fd, head + got, sizeof(head) - 1 - got)) > 0) {
		got += (size_t)n;
		head[got] = '\0';
		if (strstr(head, "\r\n\r\n"))
			break;
	}
	if (strncmp(head, "HTTP/1.1 200", 12) != 0) {
		fprintf(stderr, "proxybench: the proxy said: %.200s\n", head);
		exit(1);
	}
	return fd;
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median_conn(const char *sock, int n)
{
	double *t = calloc((size_t)n, sizeof(double)), t0, m;
	char c = 'e';
	int i, fd;

	for (i = 0; i < n; i++) {
		t0 = now_s();
		fd = sock ? proxy_connect(sock) : tcp_connect();
		if (write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1)
			exit(1);
		close(fd);
		t[i] = now_s() - t0;
	}
	qsort(t, (size_t)n, sizeof(double), cmp_d);
	m = t[n / 2];
	free(t);
	return m;
}

static double
bulk(const char *sock, char dir)
{
	char *buf = malloc(1 << 16), c = dir;
	long long left;
	double t0;
	ssize_t n;
	int fd = proxy_connect(sock);

	memset(buf, 'y', 1 << 16);
	t0 = now_s();
	if (write(fd, &c, 1) != 1)
		exit(1);
	if (dir == 'u') {
		for (left = bulk_bytes; left > 0; left -= n)
			if ((n = write(fd, buf, left < (1 << 16) ? (size_t)left : 1 << 16)) <= 0)
				exit(1);
		if (read(fd, &c, 1) != 1)
			exit(1);
	} else {
		for (left = bulk_bytes; left > 0 && (n = read(fd, buf, 1 << 16)) > 0; left -= n)
			;
	}
	t0 = now_s() - t0;
	close(fd);
	free(buf);
	return (double)bulk_bytes / t0 / 1e6;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	pthread_t t;
	double direct, via;
	int lfd, n;

	if (argc != 4) {
		fprintf(stderr, "usage: proxybench SOCKET N MB\n");
		return 2;
	}
	n = atoi(argv[2]);
	bulk_bytes = atoll(argv[3]) * 1000000LL;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 512) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0) {
		perror("server");
		return 1;
	}
	srv_port = ntohs(sa.sin_port);
	pthread_create(&t, NULL, server, (void *)(intptr_t)lfd);
	median_conn(NULL, 20);
	median_conn(argv[1], 20);
	direct = median_conn(NULL, n);
	via = median_conn(argv[1], n);
	printf("%-44s %8.3f ms\n", "connection + 1-byte echo, direct (median)", direct * 1e3);
	printf("%-44s %8.3f ms\n", "the same through sbx-proxy (median)", via * 1e3);
	printf("%-44s %8.3f ms\n", "added by sbx-proxy per connection", (via - direct) * 1e3);
	printf("%-44s %8.0f MB/s\n", "bulk through a CONNECT tunnel, upload", bulk(argv[1], 'u'));
	printf("%-44s %8.0f MB/s\n", "bulk through a CONNECT tunnel, download", bulk(argv[1], 'd'));
	return 0;
}
