"""Syntic egress forwarder: relays TCP connections on 127.0.0.1:$SYNTIC_EGRESS_PORT inside the
sandbox, byte for byte, to the host's egress proxy on the Unix socket $SYNTIC_EGRESS_SOCKET.

The sandbox's network namespace has loopback only; this is its one way out, and the host-side
proxy decides every connection. Prints "ready" once listening.
"""

import os
import socket
import sys
import threading

SOCKET_PATH = os.environ["SYNTIC_EGRESS_SOCKET"]
PORT = int(os.environ["SYNTIC_EGRESS_PORT"])


def pump(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def relay(client):
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(SOCKET_PATH)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
    back.start()
    pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", PORT))
    listener.listen(128)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        client, _ = listener.accept()
        threading.Thread(target=relay, args=(client,), daemon=True).start()


main()
