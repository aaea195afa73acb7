"""Runs one command under a new pseudo-terminal, for test/support/pty.ts.

    python3 pty-run.py ROWS COLS COMMAND [ARG...]

The command gets the terminal's slave side as stdin, stdout and stderr and as its controlling
terminal, in a session of its own (pty.fork: setsid + TIOCSCTTY), with this process's environment.
It execs in place, and the pid is reported only once the exec has happened: a signal sent to it
reaches the command, not this wrapper or its child before the exec.

Channels, all binary-safe:
  stdin   bytes typed at the terminal (written to the master side as they come). EOF on stdin
          closes the master side: the kernel hangs the terminal up and sends SIGHUP to the
          command, as a closed terminal window or a dropped SSH connection does.
  stdout  everything the terminal showed (the master side's output), as it comes.
  stderr  two control lines: "@@pty pid <n>" once the command runs, and "@@pty exit <code>" or
          "@@pty signal <number>" once it is reaped.

The command never outlives this wrapper: it is killed (its whole process group) when the wrapper
gets SIGTERM, SIGINT or SIGHUP, and the kernel kills it should the wrapper die any other way
(PR_SET_PDEATHSIG).
"""

import ctypes
import errno
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time

PR_SET_PDEATHSIG = 1


def report(line):
    os.write(2, ("@@pty %s\n" % line).encode())


def main():
    rows, cols, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    parent = os.getpid()
    # Closed by a successful exec (close-on-exec): its EOF tells the parent the pid is the command's
    # own now, so a signal the test sends at once reaches the command, not this script's child.
    exec_r, exec_w = os.pipe()
    pid, master = pty.fork()
    if pid == 0:
        try:
            os.close(exec_r)
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent:
                os._exit(125)
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.execvp(argv[0], argv)
        except BaseException as err:  # noqa: BLE001 - nothing may return into the parent's code
            os.write(exec_w, ("cannot run %s: %s" % (argv[0], err)).encode())
        os._exit(127)

    os.close(exec_w)
    failed = b""
    while True:
        chunk = os.read(exec_r, 4096)
        if not chunk:
            break
        failed += chunk
    os.close(exec_r)
    if failed:
        os.write(2, b"pty-run: " + failed + b"\n")
        finish(os.waitpid(pid, 0)[1])

    def kill_and_leave(signum, _frame):
        for target in (-pid, pid):
            try:
                os.kill(target, signal.SIGKILL)
            except OSError:
                pass
        finish(os.waitpid(pid, 0)[1])

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, kill_and_leave)
    report("pid %d" % pid)

    stdin_open = True
    status = None
    while status is None:
        watched = ([master] if master is not None else []) + ([0] if stdin_open else [])
        if watched:
            ready = select.select(watched, [], [], 0.05)[0]
        else:
            ready = []
            time.sleep(0.05)
        if master is not None and master in ready:
            if not pump(master):
                # EIO: no process holds the slave side any more.
                os.close(master)
                master = None
        if 0 in ready:
            data = os.read(0, 65536)
            if data and master is not None:
                write_all(master, data)
            elif not data:
                stdin_open = False
                if master is not None:
                    os.close(master)
                    master = None
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
    if master is not None:
        # What the command wrote just before it exited.
        while select.select([master], [], [], 0.05)[0] and pump(master):
            pass
        os.close(master)
    finish(status)


def pump(master):
    try:
        data = os.read(master, 65536)
    except OSError as err:
        if err.errno == errno.EIO:
            return False
        raise
    if not data:
        return False
    write_all(1, data)
    return True


def write_all(fd, data):
    while data:
        try:
            data = data[os.write(fd, data):]
        except OSError as err:
            if err.errno in (errno.EIO, errno.EPIPE):
                return
            raise


def finish(status):
    if os.WIFSIGNALED(status):
        report("signal %d" % os.WTERMSIG(status))
    else:
        report("exit %d" % os.WEXITSTATUS(status))
    os._exit(0)


if __name__ == "__main__":
    main()
