"""memsuite_analysis.hostlist: Slurm hostlist expressions expanded with
exact numbers, zero padding, comma lists and several brackets; the whole
size checked before any name is made; bad lists refused, named."""

import io
import sys
import unittest
from contextlib import redirect_stdout
from unittest import mock

import _path  # noqa: F401
from memsuite_analysis import exitcodes, hostlist


def run(text):
    """(exit, stdout) of the subcommand on text."""
    buf = io.StringIO()
    stdin = mock.Mock()
    stdin.buffer = io.BytesIO(text.encode("utf-8", "surrogateescape"))
    with mock.patch.object(sys, "stdin", stdin), redirect_stdout(buf):
        code = hostlist.run(None)
    return code, buf.getvalue()


class Expand(unittest.TestCase):
    def test_syntax(self):
        self.assertEqual(hostlist.expand("n[01-03,7],gpu5"), ["n01", "n02", "n03", "n7", "gpu5"])
        self.assertEqual(hostlist.expand("rack[1-2]-n[1-2]"), ["rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"])
        self.assertEqual(hostlist.expand("n[08-10]"), ["n08", "n09", "n10"])      # the width of LO
        self.assertEqual(hostlist.expand("n[8-10]"), ["n8", "n9", "n10"])
        self.assertEqual(hostlist.expand("a[1]b[2]c"), ["a1b2c"])
        self.assertEqual(hostlist.expand("[1-2]"), ["1", "2"])

    def test_blanks_empty_entries_and_duplicates(self):
        self.assertEqual(hostlist.expand(" b , a ,,b,n[1-2],n[2-3]"), ["b", "a", "n1", "n2", "n3"])
        self.assertEqual(hostlist.expand(""), [])
        self.assertEqual(hostlist.expand(" , "), [])

    def test_numbers_are_exact_beyond_two_to_the_53(self):
        # awk's doubles stopped counting here (v++ no longer changed v)
        self.assertEqual(hostlist.expand("n[9007199254740992-9007199254740994]"),
                         ["n9007199254740992", "n9007199254740993", "n9007199254740994"])
        big = "9" * hostlist.NUMBER_MAX_DIGITS
        self.assertEqual(hostlist.expand("n[%s]" % big), ["n" + big])

    def bad(self, text, why):
        with self.assertRaises(hostlist.ListError) as c:
            hostlist.expand(text)
        self.assertEqual(str(c.exception), why)

    def test_malformed_lists(self):
        self.bad("n[3-1]", "range 3-1 goes down")
        self.bad("n[1x]", 'bad range "1x"')
        self.bad("n[1-]", 'bad range "1-"')
        self.bad("n[-1]", 'bad range "-1"')
        self.bad("n[\u0661]", 'bad range "\u0661"')         # a digit, not an ASCII one
        self.bad("n[]", "empty []")
        self.bad("n[1-2", "unbalanced brackets")
        self.bad("n]", "unbalanced brackets")
        self.bad("n[1]]x[", "unbalanced brackets")
        self.bad("a,node 2", 'entry "node 2" holds white space or a control character; '
                 "one name per entry, entries separated by commas")
        self.bad("a\nb", 'entry "a\\nb" holds white space or a control character; '
                 "one name per entry, entries separated by commas")
        self.bad("x y[07-9]", 'entry "x y07" holds white space or a control character; '
                 "one name per entry, entries separated by commas")

    def test_a_number_too_large_is_refused_named_and_cut(self):
        n = "1" * (hostlist.NUMBER_MAX_DIGITS + 1)
        self.bad("n[%s]" % n, "the number %s...(cut, %d characters) has more than %d digits"
                 % ("1" * 40, len(n), hostlist.NUMBER_MAX_DIGITS))
        self.bad("n[1-%s]" % n, "the number %s...(cut, %d characters) has more than %d digits"
                 % ("1" * 40, len(n), hostlist.NUMBER_MAX_DIGITS))

    def test_the_whole_size_is_limited_before_any_name_is_made(self):
        with mock.patch.object(hostlist, "_names", side_effect=AssertionError("a name was made")):
            # each range passes the limit, together 10^12 names
            self.bad("a[0-999999]b[0-999999]", "it stands for 1000000000000 names, more than the 1000000 a node list may have")
            # over several entries
            self.bad("a[1-600000],b[1-600000]", "it stands for 1200000 names, more than the 1000000 a node list may have")
            # duplicates are counted: the limit is on the work, not the result
            self.bad("a[1-1000000,1]", "it stands for 1000001 names, more than the 1000000 a node list may have")
            # many huge brackets: counting stops once past the limit
            self.bad("n" + "[0-%s]" % ("9" * 60) * 5000,
                     "it stands for at least %d names, more than the 1000000 a node list may have" % 10 ** 60)
        with mock.patch.object(hostlist, "NAMES_MAX", 100):
            self.assertEqual(len(hostlist.expand("a[1-10]b[01-10]")), 100)       # the limit itself is taken
            self.bad("a[1-10]b[01-10],c", "it stands for 101 names, more than the 100 a node list may have")

    def test_size(self):
        parts = hostlist.parse_entry("n[1-3,7]x[01-02]")
        self.assertEqual(hostlist.size(parts, 100), (8, True))
        self.assertEqual(hostlist.size(parts, 2), (4, False))


class Command(unittest.TestCase):
    def test_names_one_per_line(self):
        self.assertEqual(run("n[1-2],m"), (exitcodes.OK, "n1\nn2\nm\n"))
        self.assertEqual(run(""), (exitcodes.OK, ""))

    def test_an_error_is_the_only_output_exit_2(self):
        self.assertEqual(run("a,n[3-1]"), (exitcodes.USAGE, 'invalid node list "a,n[3-1]": range 3-1 goes down\n'))

    def test_the_list_shown_is_cut_and_escaped(self):
        code, out = run("\x1b" + "a" * 300)
        self.assertEqual(code, exitcodes.USAGE)
        self.assertEqual(out, 'invalid node list "^[%s...(cut, 301 characters)": entry "^[%s...(cut, 301 characters)" '
                         "holds white space or a control character; one name per entry, entries separated by commas\n"
                         % ("a" * (hostlist.SHOW_MAX - 1), "a" * (hostlist.SHOW_PART_MAX - 1)))

if __name__ == "__main__":
    unittest.main()
