#!/usr/bin/env python3
"""webhook_sink.py - a local HTTP server for notification tests.

usage: webhook_sink.py PORTFILE LOGFILE [--hang]
Listens on 127.0.0.1 (a free port, written to PORTFILE) and appends each
POST as one JSON line {"path", "content_type", "body"} to LOGFILE; answers
204. With --hang it accepts connections and never answers.
"""
import json
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer


class Sink(BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n).decode("utf-8", "replace")
        with open(sys.argv[2], "a") as f:
            f.write(json.dumps({"path": self.path,
                                "content_type": self.headers.get("Content-Type"),
                                "body": body}) + "\n")
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    if "--hang" in sys.argv:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(16)
        open(sys.argv[1], "w").write(str(s.getsockname()[1]))
        held = []
        while True:
            c, _ = s.accept()
            held.append(c)
            with open(sys.argv[2], "a") as f:
                f.write("accepted\n")
    srv = HTTPServer(("127.0.0.1", 0), Sink)
    open(sys.argv[1], "w").write(str(srv.server_address[1]))
    srv.serve_forever()


if __name__ == "__main__":
    main()
