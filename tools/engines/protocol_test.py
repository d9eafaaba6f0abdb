#!/usr/bin/env python3
"""protocol.py's readers: streams, arrays, errors naming the file and line, bounded memory."""
import json
import os
import sys
import tempfile
import tracemalloc
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol  # noqa: E402


def write(path, header, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for line in lines:
            f.write((line if isinstance(line, str) else json.dumps(line)) + "\n")


def rows_header(rows, features=100, labels=10):
    return {"format": "sparsebench-rows", "version": 1, "rows": rows, "features": features,
            "labels": labels, "text": True, "has_labels": False}


def labels_header(rows, labels=10):
    return {"format": "sparsebench-labels", "version": 1, "rows": rows, "labels": labels}


ROWS = [{"ids": [3, 17, 52], "values": [1, 0.5, 2], "text": "the food"},
        {"ids": [], "values": [], "text": ""},
        {"ids": [99], "values": [0.25], "text": "great"}]


class ProtocolReaders(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "rows.jsonl")

    def tearDown(self):
        self.dir.cleanup()

    def test_rows_stream_in_order_and_again(self):
        write(self.path, rows_header(3), ROWS)
        rows = protocol.iter_rows(self.path)
        self.assertEqual(len(rows), 3)
        self.assertEqual(rows.header["features"], 100)
        self.assertEqual(list(rows), ROWS)
        self.assertEqual(list(rows), ROWS)  # each iteration reads from the start

    def test_a_malformed_line_names_file_and_line(self):
        write(self.path, rows_header(3), [ROWS[0], '{"ids":[1,', ROWS[2]])
        with self.assertRaisesRegex(protocol.EngineError, r"rows\.jsonl:3: not a JSON line"):
            list(protocol.iter_rows(self.path))

    def test_a_count_other_than_the_header_says(self):
        for written in (ROWS[:2], ROWS + ROWS[:1]):
            write(self.path, rows_header(3), written)
            with self.assertRaisesRegex(protocol.EngineError, f"header says 3 rows, the file has {len(written)}"):
                list(protocol.iter_rows(self.path))

    def test_another_format_or_version(self):
        write(self.path, labels_header(3), [[1], [2], [3]])
        with self.assertRaisesRegex(protocol.EngineError, "not a sparsebench-rows file of version 1"):
            protocol.iter_rows(self.path)
        write(self.path, {**rows_header(3), "version": 2}, ROWS)
        with self.assertRaisesRegex(protocol.EngineError, "version 1"):
            protocol.iter_rows(self.path)
        with open(self.path, "w") as f:
            f.write("not json\n")
        with self.assertRaisesRegex(protocol.EngineError, "not a sparsebench-rows file"):
            protocol.iter_rows(self.path)

    def check_arrays(self):
        write(self.path, rows_header(3), ROWS)
        data = protocol.row_arrays(self.path, text=True)
        self.assertEqual(len(data), 3)
        self.assertEqual(list(data.ptr), [0, 3, 3, 4])
        self.assertEqual(list(data.flat), [3, 17, 52, 99])
        self.assertEqual(list(data.values), [1.0, 0.5, 2.0, 0.25])
        self.assertEqual(data.text, ["the food", "", "great"])
        self.assertEqual((data.flat.itemsize, data.values.itemsize, data.ptr.itemsize), (4, 4, 8))
        self.assertEqual(data.nbytes(), 4 * 8 + 4 * 4 + 4 * 4)
        self.assertIsNone(protocol.row_arrays(self.path).text)
        labels_path = os.path.join(self.dir.name, "labels.jsonl")
        write(labels_path, labels_header(3), [[7], [], [3, 2]])
        labels = protocol.label_arrays(labels_path)
        self.assertEqual((list(labels.ptr), list(labels.flat)), ([0, 1, 1, 3], [7, 3, 2]))
        return data

    def test_arrays_in_numpy(self):
        try:
            import numpy
        except ImportError:
            self.skipTest("no numpy in this Python")
        self.assertIsInstance(self.check_arrays().flat, numpy.ndarray)

    def test_arrays_without_numpy(self):
        saved = sys.modules.get("numpy")
        sys.modules["numpy"] = None  # `import numpy` now raises ImportError
        try:
            self.assertEqual(type(self.check_arrays().flat).__name__, "array")
        finally:
            if saved is None:
                del sys.modules["numpy"]
            else:
                sys.modules["numpy"] = saved

    def test_ids_beyond_32_bits_keep_64(self):
        write(self.path, rows_header(1, features=2**40), [{"ids": [2**35], "values": [1]}])
        data = protocol.row_arrays(self.path)
        self.assertEqual((list(data.flat), data.flat.itemsize), ([2**35], 8))

    def test_ids_and_values_of_different_lengths(self):
        write(self.path, rows_header(2), [ROWS[0], {"ids": [1, 2], "values": [1]}])
        with self.assertRaisesRegex(protocol.EngineError, "row 1 has 2 ids and 1 values"):
            protocol.row_arrays(self.path)

    def test_a_stream_holds_one_row_at_a_time(self):
        row = {"ids": list(range(200)), "values": [0.5] * 200}
        write(self.path, rows_header(2000, features=1000), [row] * 2000)

        def peak(read):
            tracemalloc.start()
            read()
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            return peak

        protocol.row_arrays(self.path)  # numpy's import, once, outside the measurement
        streamed = peak(lambda: sum(len(r["ids"]) for r in protocol.iter_rows(self.path)))
        arrays = peak(lambda: protocol.row_arrays(self.path))
        kept = peak(lambda: list(protocol.iter_rows(self.path)))
        self.assertLess(streamed * 50, kept)
        self.assertLess(arrays, 2000 * 200 * 8 * 1.5 + streamed)  # 4-byte ids and values


class PredictInBatches(unittest.TestCase):
    def test_a_file_reaches_the_engine_in_bounded_batches_in_order(self):
        class Engine:
            sizes = []

            def predict(self, rows, k):
                self.sizes.append(len(rows))
                return [[row["ids"][0]] * k for row in rows]

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "predict.jsonl")
            n = 2 * protocol.PREDICT_BATCH + 5
            write(path, rows_header(n), ({"ids": [i], "values": [1]} for i in range(n)))
            engine = Engine()
            ids = protocol.Session(engine).predict({"op": "predict", "file": path, "k": 2})
            self.assertEqual(ids, [[i, i] for i in range(n)])
            self.assertEqual(engine.sizes, [protocol.PREDICT_BATCH, protocol.PREDICT_BATCH, 5])
            one = protocol.Session(engine).predict({"op": "predict", "rows": [{"ids": [7], "values": [1]}], "k": 1})
            self.assertEqual(one, [[7]])


if __name__ == "__main__":
    unittest.main()
