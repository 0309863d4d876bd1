"""memsuite_analysis.render: terminal-safe text, shell words, JSON numbers
and drain lines."""

import unittest

import _path  # noqa: F401
from memsuite_analysis import classify, render


class Printable(unittest.TestCase):
    CASES = (
        ("plain text", "plain text"),
        ("T\nmemsuite: PASS 9/9 forged", "T^Jmemsuite: PASS 9/9 forged"),   # a line of its own: no
        ("a\rb", "a^Mb"),
        ("\x1b]0;x\x07", "^[]0;x^G"),
        ("\x7f\x00\t", "^?^@^I"),
        ("\x9b31m", "M-^[31m"),
        ("caf\u00e9", "caf\u00e9"),
        ("bad \udcff byte", "bad \ufffd byte"),     # a file name that is not UTF-8
        ("lone \ud800\udc00 \udfff", "lone \ufffd\ufffd \ufffd"),   # JSON "\ud800": no byte, no crash
        ("T\ud800", "T\ufffd"),                      # a lone surrogate escape of a JSON string
    )

    def test_table(self):
        for text, want in self.CASES:
            with self.subTest(text=text):
                self.assertEqual(render.printable(text), want)


    def test_a_huge_line_is_cut_saying_so(self):
        # a megabyte planted in a file never reaches the terminal whole,
        # control characters included (their caret form counts)
        for text in ("x" * 1048576, "\x1b" * 3000):
            out = render.printable(text)
            self.assertEqual(len(out), render.LINE_MAX)
            self.assertTrue(out.endswith(" ... (cut: a line of %d characters)" % len(text.replace("\x1b", "^["))))
        self.assertEqual(render.printable("y" * render.LINE_MAX), "y" * render.LINE_MAX)

    def test_lines_keep_their_own_newlines_only(self):
        self.assertEqual(render.printable_lines(["a", "T\nmemsuite: PASS", "\x1b[2J"]),
                         "a\nT^Jmemsuite: PASS\n^[[2J\n")
        self.assertEqual(render.printable_text("x\n\x1b\n"), "x\n^[\n")


class ShellWord(unittest.TestCase):
    CASES = (("node01", "node01"), ("a b", "'a b'"), ("it's", "'it'\\''s'"), ("n;rm -rf", "'n;rm -rf'"), ("", "''"))

    def test_table(self):
        for s, want in self.CASES:
            with self.subTest(s=s):
                self.assertEqual(render.shell_word(s), want)


class Number(unittest.TestCase):
    def test_table(self):
        table = ((12000.0, None, 12000), (21.099999999998545, 10, 21.1), (0.5, None, 0.5),
                 (float("inf"), None, None), (None, None, None), (7, None, 7))
        for x, digits, want in table:
            with self.subTest(x=x):
                got = render.number(x, digits)
                self.assertEqual(got, want)
                self.assertEqual(type(got), type(want))


class Drain(unittest.TestCase):
    def test_quoting_and_refusal(self):
        rows = [classify.Row(-3, "ERROR", "n1", "", 'memsuite: x $(id) `id` \\ "q"'),
                classify.Row(-3, "ERROR", "n[1-2000]", "", "memsuite: report unreadable"),
                classify.Row(1, "PASS", "n2", "", "")]
        lines, plain, refused = render.drain(render.drain_entries(rows))
        self.assertEqual(lines, ['scontrol update nodename=n1 state=drain reason="memsuite: x \\$(id) \\`id\\` \\\\ \'q\'"',
                                 "# not drained: node name 'n[1-2000]' is not a plain host name (letters, digits, ._-)"])
        self.assertEqual(plain, [("n1", "memsuite: x $(id) `id` \\ 'q'")])
        self.assertEqual(refused, ["n[1-2000]"])
        long = classify.Row(-2, "FAIL", "n3", "", "memsuite: FAIL " + "y" * 300)
        self.assertEqual(len(render.drain(render.drain_entries([long]))[1][0][1]), 200)

    def test_entries_for_json(self):
        rows = [classify.Row(-4, "MISSING", "n1", "", "memsuite: no report"),
                classify.Row(-3, "ERROR", "n;x", "", "memsuite: x\ud800"),
                classify.Row(1, "PASS", "n2", "", "")]
        self.assertEqual(render.drain_entries(rows), [
            {"node": "n1", "reason": "memsuite: no report", "not_drained": None,
             "command": 'scontrol update nodename=n1 state=drain reason="memsuite: no report"'},
            {"node": "n;x", "reason": "memsuite: x\ufffd", "command": None, "not_drained": render.NOT_PLAIN}])


if __name__ == "__main__":
    unittest.main()
