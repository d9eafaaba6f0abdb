#!/usr/bin/env python3
"""The null engine: predicts the most frequent training labels for every row.

The reference implementation of SparseBench's external-engine protocol, version 2
(tools/engines/README.md, spoken by protocol.py), in Python 3's standard library only, and
the floor every other row must beat. "Training" reads the labels as a stream and counts them,
row by row, pausing where the harness asks; it keeps nothing of the rows but the counts.
"""
import collections
import itertools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol  # noqa: E402


class NullEngine:
    name = "null"
    version = "1"

    def __init__(self):
        self.counts = collections.Counter()
        self.num_labels = 0
        self.ranked = None  # labels by falling count, after training

    def load(self, message):
        self.num_labels = message["labels"]
        settings = message["settings"]
        self.batch = settings["batch"] or 256
        self.epochs = settings["epochs"] or 1
        return {"batch": self.batch, "lr": 0, "epochs": self.epochs, "optimizer": "none (counts labels)",
                "precision": "none (counts labels)"}

    def train(self, message, session):
        labels = protocol.iter_labels(message["labels"])
        for epoch in range(self.epochs):
            rows = iter(labels)
            done = 0
            for at in message["pause_after"] + [len(labels)]:
                for row in itertools.islice(rows, at - done):
                    self.counts.update(row)
                done = at
                self.ranked = None
                session.pause(epoch, at)
            for _ in rows:  # the file's end, where its row count is checked
                pass

    def model_bytes(self):
        return 16 * len(self.counts)

    def predict(self, rows, k):
        if self.ranked is None:
            self.ranked = sorted(range(self.num_labels), key=lambda label: (-self.counts[label], label))
        return [self.ranked[:min(k, self.num_labels)]] * len(rows)

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"engine": "null", "counts": dict(self.counts)}, f)


if __name__ == "__main__":
    sys.exit(protocol.run(NullEngine()))
