#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# What a hostile user leaves in her tmpdir instance (/tmp of her session)
# for root's close to remove; run by alice inside the session.
#   deep N     a chain of N directories, links to the canary at its bottom
#   wide N     N empty files in one directory
#   odd        FIFOs, sockets, hard links, names with a newline and invalid
#              UTF-8, directories she made 0500 and 000, links out
#   race OUT   starts a process of hers that, until killed, renames her
#              directories and puts links to the canary in their place, and
#              keeps adding directories; writes its pid to OUT
import os
import socket
import sys
import time

CANARY = "/srv/canary"


def links_out(where):
    os.symlink(CANARY + "/keep", os.path.join(where, "keep-link"))
    os.symlink(CANARY, os.path.join(where, "dir-link"))
    os.symlink("/home/alice/keep", os.path.join(where, "home-link"))


def deep(n):
    os.chdir("/tmp")
    links_out(".")
    for _ in range(n):
        os.mkdir("d")
        os.chdir("d")
    links_out(".")
    open("file", "w").close()


def wide(n):
    os.mkdir("/tmp/w")
    fd = os.open("/tmp/w", os.O_RDONLY | os.O_DIRECTORY)
    flags = os.O_CREAT | os.O_WRONLY | os.O_EXCL
    for i in range(n):
        os.close(os.open(str(i), flags, 0o600, dir_fd=fd))
    os.close(fd)


def odd():
    os.chdir("/tmp")
    os.makedirs("o/sub")
    os.mkfifo("o/fifo")
    os.mkfifo("o/sub/fifo2")
    for name in ("o/sock", "o/sub/sock2"):
        s = socket.socket(socket.AF_UNIX)
        s.bind(name)
        s.close()
    open("o/file", "w").close()
    for i in range(50):
        os.link("o/file", "o/sub/hard%d" % i)
    open(b"o/new\nline", "w").close()
    os.mkdir(b"o/\xff\xfe-not-utf8")
    open(b"o/\xff\xfe-not-utf8/\xc3\x28", "w").close()
    os.mkdir(b"o/dir\nwith newline")
    links_out("o/sub")
    os.makedirs("o/ro/in")
    open("o/ro/in/f", "w").close()
    os.chmod("o/ro/in", 0o500)
    os.chmod("o/ro", 0o500)
    os.makedirs("o/none/in")
    os.chmod("o/none/in", 0)
    os.chmod("o/none", 0)
    links_out(".")


def race(out):
    os.chdir("/tmp")
    # Enough for the close to take a while, racing her all along.
    for i in range(3000):
        os.makedirs("m%d/x/y" % i)
        os.symlink(CANARY, "m%d/x/link" % i)
    if os.fork():
        # The session's command waits until the racer runs, then ends.
        while not os.path.exists(out):
            time.sleep(0.01)
        return
    os.setsid()
    fd = os.open("/dev/null", os.O_RDWR)
    for i in (0, 1, 2):
        os.dup2(fd, i)
    with open(out + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(out + ".tmp", out)
    i = 0
    while True:
        i += 1
        try:
            os.makedirs("r/s/t/u")
            open("r/s/t/u/f", "w").close()
            os.rename("r", "q%d" % (i % 50))
            os.symlink(CANARY, "r")
            os.rename("r", "l%d" % (i % 50))
            os.makedirs("n%d/x/y" % i)
            os.rename("m%d" % (i % 3000), "m%d" % (i % 3000 + 3000))
            os.symlink(CANARY, "m%d" % (i % 3000))
        except OSError:
            pass


def main():
    what = sys.argv[1]
    if what == "deep":
        deep(int(sys.argv[2]))
    elif what == "wide":
        wide(int(sys.argv[2]))
    elif what == "odd":
        odd()
    elif what == "race":
        race(sys.argv[2])
    else:
        sys.exit("unknown case " + what)


main()
