"""Syntic sandbox kernel: runs Python and Bash for the host, one request at a time.

Speaks length-prefixed JSON (4-byte big-endian length, then UTF-8 JSON) over the stdin and stdout
it was started with. Python runs share one namespace, like a notebook kernel. The output of a run,
including its subprocesses', is captured through pipes on fds 1 and 2, keeping at most a head and
a tail of each stream.
"""

import ast
import base64
import builtins
import json
import os
import stat
import struct
import subprocess
import sys
import threading
import time
import traceback

INPUT_DIR = "/mnt/input"
OUTPUT_DIR = "/mnt/output"
MAX_FRAME = 16 * 1024 * 1024
MAX_LISTED_FILES = 10000
# How long a finished run waits for background processes that still hold its output pipes.
DRAIN_WAIT_S = 0.05

proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
proto_out = os.fdopen(os.dup(1), "wb", buffering=0)
devnull = os.open(os.devnull, os.O_RDWR)
os.dup2(devnull, 0)
os.dup2(2, 1)
sys.stdin = open(os.devnull)


def send(message):
    data = json.dumps(message, ensure_ascii=False).encode("utf-8")
    proto_out.write(struct.pack(">I", len(data)) + data)


def read_exact(n):
    chunks = []
    while n > 0:
        chunk = proto_in.read(n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def receive():
    header = read_exact(4)
    if header is None:
        return None
    (length,) = struct.unpack(">I", header)
    if length > MAX_FRAME:
        raise ValueError("frame too large")
    body = read_exact(length)
    if body is None:
        return None
    return json.loads(body.decode("utf-8"))


class Capture:
    """Keeps the first and last `cap // 2` bytes of a stream and counts the rest."""

    def __init__(self, cap):
        self.half = max(cap // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data):
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.half:
                del self.tail[: len(self.tail) - self.half]

    def result(self):
        kept = len(self.head) + len(self.tail)
        truncated = self.total > kept
        text = self.head.decode("utf-8", "replace")
        if truncated:
            text += "\n[... %d bytes omitted ...]\n" % (self.total - kept)
        text += self.tail.decode("utf-8", "replace")
        return {"text": text, "bytes": self.total, "truncated": truncated}


def drain(fd, capture):
    try:
        while True:
            data = os.read(fd, 65536)
            if not data:
                break
            capture.feed(data)
    finally:
        os.close(fd)


namespace = {"__name__": "__main__", "__builtins__": builtins}


def exit_code_of(error):
    code = error.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def run_python(code):
    try:
        tree = ast.parse(code, "<run>", "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, "<run>", "exec"), namespace)
        if last is not None:
            value = eval(compile(last, "<run>", "eval"), namespace)
            if value is not None:
                print(repr(value))
        return 0
    except SystemExit as error:
        return exit_code_of(error)
    except BaseException:
        kind, value, tb = sys.exc_info()
        # Drop the kernel's own frame so the traceback starts at the user's code.
        traceback.print_exception(kind, value, tb.tb_next if tb else None)
        return 1


def run_bash(code):
    status = subprocess.call(["/bin/bash", "-c", code], stdin=subprocess.DEVNULL)
    return 128 - status if status < 0 else status


def run(request):
    cap = int(request.get("output_cap", 65536))
    captures = (Capture(cap), Capture(cap))
    saved = (os.dup(1), os.dup(2))
    readers = []
    try:
        for fd, capture in zip((1, 2), captures):
            r, w = os.pipe()
            thread = threading.Thread(target=drain, args=(r, capture), daemon=True)
            thread.start()
            readers.append(thread)
            os.dup2(w, fd)
            os.close(w)
    except Exception as error:
        # Out of pids or fds (e.g. a fork bomb left running): the user's code never started.
        for fd, old in zip((1, 2), saved):
            os.dup2(old, fd)
            os.close(old)
        return {"op": "error", "code": "run_not_started", "message": repr(error)}
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    started = time.monotonic()
    try:
        if request["language"] == "python":
            code = run_python(request["code"])
        else:
            code = run_bash(request["code"])
    finally:
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except Exception:
                pass
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        for fd, old in zip((1, 2), saved):
            os.dup2(old, fd)
            os.close(old)
    duration_ms = int((time.monotonic() - started) * 1000)
    deadline = time.monotonic() + DRAIN_WAIT_S
    for thread in readers:
        thread.join(max(0.0, deadline - time.monotonic()))
    return {
        "op": "result",
        "exit_code": code,
        "duration_ms": duration_ms,
        "stdout": captures[0].result(),
        "stderr": captures[1].result(),
    }


def open_regular(path, flags):
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise IsADirectoryError(path)
    return fd


def put(request):
    path = os.path.join(INPUT_DIR, request["path"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    offset = int(request.get("offset", 0))
    truncate = os.O_TRUNC if offset == 0 else 0
    fd = open_regular(path, os.O_WRONLY | os.O_CREAT | truncate)
    try:
        view = memoryview(base64.b64decode(request["data"]))
        while view:
            written = os.pwrite(fd, view, offset)
            view = view[written:]
            offset += written
    finally:
        os.close(fd)
    return {"op": "ok"}


def list_output(_request):
    files = []
    for folder, dirs, names in os.walk(OUTPUT_DIR, followlinks=False):
        for name in sorted(names):
            full = os.path.join(folder, name)
            info = os.lstat(full)
            if stat.S_ISREG(info.st_mode):
                files.append({"path": os.path.relpath(full, OUTPUT_DIR), "bytes": info.st_size})
                if len(files) >= MAX_LISTED_FILES:
                    return {"op": "files", "files": files, "truncated": True}
        dirs.sort()
    return {"op": "files", "files": files, "truncated": False}


def read_output(request):
    fd = open_regular(os.path.join(OUTPUT_DIR, request["path"]), os.O_RDONLY)
    try:
        data = os.pread(fd, int(request["length"]), int(request["offset"]))
    finally:
        os.close(fd)
    return {"op": "data", "data": base64.b64encode(data).decode("ascii")}


HANDLERS = {"run": run, "put": put, "list": list_output, "read": read_output}


def start_egress_forwarder():
    """With egress on, the forwarder must listen before the first run can use the proxy."""
    if "SYNTIC_EGRESS_SOCKET" not in os.environ:
        return
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "egress_forwarder.py")
    forwarder = subprocess.Popen(
        [sys.executable, "-u", script],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    forwarder.stdout.readline()
    forwarder.stdout.close()


def main():
    start_egress_forwarder()
    send({"op": "ready", "python": sys.version.split()[0]})
    while True:
        request = receive()
        if request is None:
            return
        try:
            reply = HANDLERS[request["op"]](request)
        except FileNotFoundError:
            reply = {"op": "error", "code": "file_not_found", "message": "no such file"}
        except (IsADirectoryError, NotADirectoryError, OSError) as error:
            reply = {"op": "error", "code": "invalid_path", "message": str(error)}
        except Exception as error:
            reply = {"op": "error", "code": "sandbox_failed", "message": repr(error)}
        send(reply)


main()
