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

    def test_a_misread_field_fails_the_case_that_carries_it(self):
        # The suite catches a decoder that reads one field wrong: every AddOrder's price one tick off (what a wrong
        # offset does) changes normal-flow's output, and the comparison names the case.
        data = bytearray((CONFORMANCE / "cases" / "normal-flow.mdfc").read_bytes())
        at = 20  # MDFCONF2, partitions, flags, recovery buffer: a single fanout's case
        while at < len(data):
            length = int.from_bytes(data[at + 8:at + 12], "little")
            packet = at + 12
            if int.from_bytes(data[packet + 2:packet + 4], "little") == 1:  # a packet: its messages follow its block
                position = packet + 8 + int.from_bytes(data[packet:packet + 2], "little")
                while position + 8 <= packet + length:
                    block, template = (int.from_bytes(data[position + i:position + i + 2], "little") for i in (0, 2))
                    if template == 20:  # AddOrder: its price 28 bytes into its block
                        price = position + 8 + 28
                        value = int.from_bytes(data[price:price + 8], "little", signed=True) + 1
                        data[price:price + 8] = value.to_bytes(8, "little", signed=True)
                    position += 8 + block
            at = packet + length
        expected = (CONFORMANCE / "expected" / "normal-flow.txt").read_text()
        with self.assertRaises(AssertionError) as failed:
            self.assertEqual(expected, mdfanout.conformance_run(bytes(data)), "normal-flow")
        self.assertIn("normal-flow", str(failed.exception))

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
