"""memsuite_analysis.outfile: what each kind of path becomes (a file, a
FIFO, a descriptor, a link, an input), that concurrent writers never
spoil each other's document, and that a full disk keeps the document."""

import multiprocessing
import os
import stat
import subprocess
import tempfile
import unittest

import _path  # noqa: F401
from memsuite_analysis import outfile


def _write_many(args):
    path, n = args
    outfile.write(path, ("writer %d\n" % n) * 5000)


class Outfile(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def p(self, name):
        return os.path.join(self.d, name)

    def test_atomic_replace(self):
        p = self.p("x.prom")
        outfile.write(p, "a 1\n")
        outfile.write(p, b"a 2\n")
        with open(p) as f:
            self.assertEqual(f.read(), "a 2\n")
        self.assertEqual(os.listdir(self.d), ["x.prom"])         # no temp file left
        self.assertEqual(os.stat(p).st_mode & 0o777, 0o666 & ~_umask())
        with self.assertRaises(outfile.OutError) as c:
            outfile.write(self.p("no/x"), "a")
        self.assertEqual(c.exception.code, 3)
        self.assertIn("cannot create a file in", c.exception.strerror)

    def test_fifo_nobody_reads_is_refused_at_once(self):
        p = self.p("fifo")
        os.mkfifo(p)
        with self.assertRaises(outfile.OutError) as c:
            outfile.write(p, "x\n")
        self.assertEqual(c.exception.code, 3)
        self.assertIn("'%s': is a FIFO that nobody reads" % p, c.exception.strerror)
        r = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
        try:
            outfile.write(p, "doc\n")
            self.assertEqual(os.read(r, 100), b"doc\n")
        finally:
            os.close(r)
        self.assertTrue(stat.S_ISFIFO(os.lstat(p).st_mode))

    def test_an_input_is_never_replaced(self):
        cell = self.p("cell.json")
        with open(cell, "w") as f:
            f.write("{}\n")
        os.link(cell, self.p("hard.json"))
        os.symlink(cell, self.p("soft.json"))
        spelled = os.path.join(self.d, ".", "..", os.path.basename(self.d), "cell.json")
        for out in (cell, self.p("hard.json"), self.p("soft.json"), spelled):
            with self.assertRaises(outfile.OutError) as c:
                outfile.write(out, "replaced\n", inputs=[cell])
            self.assertEqual(c.exception.code, 2)
            self.assertIn("is the input", c.exception.strerror)
        with open(cell) as f:
            self.assertEqual(f.read(), "{}\n")
        outfile.write(self.p("other.json"), "ok\n", inputs=[cell, self.p("missing")])

    def test_concurrent_writers_each_leave_a_whole_document(self):
        p = self.p("ref.json")
        with multiprocessing.Pool(8) as pool:
            pool.map(_write_many, [(p, n) for n in range(32)])
        with open(p) as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 5000)
        self.assertEqual(len(set(lines)), 1)           # one writer's document, whole
        self.assertEqual(os.listdir(self.d), ["ref.json"])

    def test_a_link_to_a_device_or_a_directory_is_refused(self):
        os.mkdir(self.p("dir"))
        os.symlink(self.p("dir"), self.p("to-dir"))
        for path, why in ((self.p("dir"), "is a directory"),
                          (self.p("to-dir"), "is a symbolic link to a directory")):
            with self.assertRaises(outfile.OutError) as c:
                outfile.write(path, "x")
            self.assertIn(why, c.exception.strerror)

    def test_make_dir_names_what_is_in_the_way(self):
        with open(self.p("plots"), "w"):
            pass
        os.mkfifo(self.p("fifo"))
        for name, kind in (("plots", "a regular file"), ("fifo", "a FIFO")):
            with self.assertRaises(outfile.OutError) as c:
                outfile.make_dir(self.p(name))
            self.assertEqual(c.exception.code, 3)
            self.assertIn("is %s, not a directory" % kind, c.exception.strerror)
        outfile.make_dir(self.p("new/deeper"))
        self.assertTrue(os.path.isdir(self.p("new/deeper")))

    def test_a_full_disk_keeps_the_document(self):
        small = self.p("small")
        os.mkdir(small)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small],
                          stderr=subprocess.DEVNULL).returncode != 0:
            self.skipTest("cannot mount a small tmpfs (not root)")
        saved_tmpdir = os.environ.get("TMPDIR")
        try:
            os.environ["TMPDIR"] = self.d
            doc = "x" * 200000
            with self.assertRaises(outfile.OutError) as c:
                outfile.write(os.path.join(small, "r.json"), doc)
            msg = c.exception.strerror
            self.assertIn("No space left on device", msg)
            self.assertIn("the document was saved in '%s/r.json." % self.d, msg)
            saved = msg.split("saved in '")[1].split("'")[0]
            with open(saved) as f:
                self.assertEqual(f.read(), doc)
            self.assertEqual(os.listdir(small), [])    # nothing half-written left there
        finally:
            subprocess.run(["umount", small])
            if saved_tmpdir is None:
                del os.environ["TMPDIR"]
            else:
                os.environ["TMPDIR"] = saved_tmpdir


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


if __name__ == "__main__":
    unittest.main()
