#!/usr/bin/env python3
# fake-proxy.py - a stand-in for sbx-proxy, for the jail's own tests only
# (the real proxy has its own tests). It speaks the contract's command line:
#   sbx-proxy -C DIR --socket PATH --session ID --ready-fd N
# listens on the Unix socket PATH, writes "ready\n" to fd N, and answers
# each request with a 200 naming the request line and the session; a
# request for /bulk/N gets N bytes. Logs to $FAKE_PROXY_LOG.
import os, signal, socket, sys, threading

a = sys.argv
sock = a[a.index("--socket") + 1]
fd = int(a[a.index("--ready-fd") + 1])
sess = a[a.index("--session") + 1]
log = os.environ.get("FAKE_PROXY_LOG")

def note(s):
    if log:
        with open(log, "a") as f:
            f.write(s + "\n")

if os.environ.get("FAKE_PROXY_FAIL"):
    print("fake-proxy: told to fail", file=sys.stderr)
    sys.exit(1)
s = socket.socket(socket.AF_UNIX)
s.bind(sock)
s.listen(64)
os.write(fd, b"ready\n")
os.close(fd)
note("started " + sess)
signal.signal(signal.SIGTERM, lambda *x: (note("stopped " + sess), os._exit(0)))

def serve(c):
    data = b""
    while b"\r\n\r\n" not in data:
        d = c.recv(4096)
        if not d:
            return
        data += d
    line = data.split(b"\r\n")[0].decode()
    note(sess + " " + line)
    parts = line.split()
    if len(parts) > 1 and "/bulk/" in parts[1]:
        n = int(parts[1].rsplit("/", 1)[1])
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % n)
        chunk = b"x" * 65536
        while n > 0:
            c.sendall(chunk[:min(n, 65536)])
            n -= 65536
    else:
        body = ("fake-proxy %s saw: %s\n" % (sess, line)).encode()
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                  % len(body) + body)
    c.close()

while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
