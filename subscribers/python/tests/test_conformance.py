"""The Python SDK against the conformance suite: every case gives exactly the Java SDK's output."""

import pathlib
import unittest

import mdfanout

CONFORMANCE = pathlib.Path(__file__).resolve().parents[3] / "conformance"


class ConformanceTest(unittest.TestCase):
    def test_every_case_gives_the_java_sdks_output(self):
        cases = sorted((CONFORMANCE / "cases").glob("*.mdfc"))
        self.assertGreaterEqual(len(cases), 5, cases)
        for case in cases:
            with self.subTest(case=case.stem):
                expected = (CONFORMANCE / "expected" / f"{case.stem}.txt").read_text()
                self.assertEqual(expected, mdfanout.conformance_run(case.read_bytes()))

    def test_a_file_that_is_no_case_is_refused(self):
        with self.assertRaises(ValueError):
            mdfanout.conformance_run(b"not a case")

    def test_the_decoder_builds_the_books_the_case_ends_with(self):
        data = (CONFORMANCE / "cases" / "loss-and-gaps.mdfc").read_bytes()
        partitions, records = mdfanout.read_case(data)
        decoder = mdfanout.Decoder(list(range(partitions)))
        for _kind, partition, session_id, message in records:
            decoder.on_message(partition, session_id, message)
        expected = (CONFORMANCE / "expected" / "loss-and-gaps.txt").read_text()
        self.assertEqual(expected.split("BOOKS\n", 1)[1], decoder.books())
        self.assertEqual(2, decoder.counters()["gaps"])
        with self.assertRaises(ValueError):
            decoder.on_message(5, 1, b"")


if __name__ == "__main__":
    unittest.main()
