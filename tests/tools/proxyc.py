#!/usr/bin/env python3
"""proxyc.py - a test client for sbx-proxy's Unix socket.

  proxyc.py SOCKET connect HOST:PORT PATH   CONNECT, then GET PATH through the tunnel
  proxyc.py SOCKET get URL                  a plain-HTTP request with an absolute URI
  proxyc.py SOCKET raw                      sends stdin as is, prints the answer
  proxyc.py SOCKET hold N                   opens N connections, sends nothing, waits
                                            for stdin to close
  proxyc.py SOCKET tunnel HOST:PORT         CONNECT, print the status, keep the tunnel
                                            open until stdin closes

Prints the proxy's status line, then the body (or the tunnelled answer).
Exit 0 when the proxy answered 200, 1 otherwise.
"""
import socket
import sys
import time


def talk(path, data, timeout=120):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return s


def read_head(s):
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            break
        buf += d
    head, _, rest = buf.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


def read_all(s, rest=b""):
    buf = rest
    while True:
        try:
            d = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not d:
            break
        buf += d
    return buf


def main():
    sock, mode = sys.argv[1], sys.argv[2]
    if mode == "connect":
        target, path = sys.argv[3], sys.argv[4]
        s = talk(sock, None)
        try:
            s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode())
        except BrokenPipeError:
            pass    # answered and closed before reading (503): read the answer
        head, rest = read_head(s)
        status = head.split("\r\n")[0]
        print(status)
        if " 200 " not in status + " ":
            sys.stdout.write(read_all(s, rest).decode("utf-8", "replace"))
            return 1
        s.sendall(("GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" % (path, target)).encode())
        sys.stdout.write(read_all(s, rest).decode("utf-8", "replace"))
        return 0
    if mode == "get":
        url = sys.argv[3]
        s = talk(sock, None)
        s.sendall(("GET %s HTTP/1.1\r\nProxy-Connection: keep-alive\r\n\r\n" % url).encode())
        data = read_all(s)
        text = data.decode("utf-8", "replace")
        print(text.split("\r\n")[0])
        sys.stdout.write(text.partition("\r\n\r\n")[2])
        return 0 if text.startswith("HTTP/1.0 200") or text.startswith("HTTP/1.1 200") else 1
    if mode == "raw":
        s = talk(sock, None, timeout=60)
        try:
            s.sendall(sys.stdin.buffer.read())
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = read_all(s)
        sys.stdout.write(data.decode("utf-8", "replace"))
        return 0 if b" 200 " in data.split(b"\r\n")[0] else 1
    if mode == "tunnel":
        s = talk(sock, None)
        s.sendall(("CONNECT %s HTTP/1.1\r\n\r\n" % sys.argv[3]).encode())
        head, _ = read_head(s)
        print(head.split("\r\n")[0], flush=True)
        sys.stdin.read()
        return 0
    if mode == "hold":
        n = int(sys.argv[3])
        held = [talk(sock, None) for _ in range(n)]
        print("holding %d" % len(held), flush=True)
        sys.stdin.read()
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
