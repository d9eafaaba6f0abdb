#!/usr/bin/env python3
"""The null engine: predicts the most frequent training labels for every row.

The reference implementation of SparseBench's external-engine protocol, version 1
(tools/engines/README.md), in Python 3's standard library only, and the floor every
other row must beat. "Training" counts label occurrences, batch by batch, pausing
where the harness asks.
"""
import collections
import json
import sys

PROTOCOL = 1


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:  # the harness has gone: end quietly
        sys.exit(0)
    return json.loads(line)


def read_header(path):
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
    if header.get("format") != "sparsebench-rows" or header.get("version") != 1:
        raise ValueError(f"{path}: not a sparsebench-rows file of version 1")
    return header


def read_labels(path):
    with open(path, encoding="utf-8") as f:
        f.readline()
        return [json.loads(line)["labels"] for line in f]


class NullEngine:
    def __init__(self):
        self.counts = collections.Counter()
        self.num_labels = 0
        self.ranked = None  # labels by falling count, after training

    def load(self, message):
        self.labels = read_labels(message["train"])
        self.num_labels = message["labels"]
        settings = message["settings"]
        self.batch = settings["batch"] or 256
        self.epochs = settings["epochs"] or 1
        return {"op": "loaded", "batch": self.batch, "lr": 0, "epochs": self.epochs,
                "optimizer": "none (counts labels)"}

    def train(self, message, serve):
        rows = len(self.labels)
        for epoch in range(self.epochs):
            done = 0
            for at in message["pause_after"] + [rows]:
                while done < at:
                    self.counts.update(self.labels[done])
                    done += 1
                self.ranked = None
                send({"op": "pause", "epoch": epoch, "rows": at})
                serve(until="resume")
        send({"op": "done", "model_bytes": 16 * len(self.counts)})

    def top(self, k):
        if self.ranked is None:
            self.ranked = sorted(range(self.num_labels), key=lambda label: (-self.counts[label], label))
        return self.ranked[:min(k, self.num_labels)]

    def predict(self, message):
        rows = len(message["rows"]) if "rows" in message else read_header(message["file"])["rows"]
        top = self.top(message["k"])
        return {"op": "predictions", "ids": [top] * rows}

    def save(self, message):
        with open(message["path"], "w", encoding="utf-8") as f:
            json.dump({"engine": "null", "counts": dict(self.counts)}, f)
        return {"op": "saved"}


def main():
    engine = NullEngine()
    hello = receive()
    if hello.get("op") != "hello" or hello.get("protocol") != PROTOCOL:
        send({"op": "error", "message": f"null speaks protocol {PROTOCOL}, got {hello}"})
        return 1
    send({"op": "hello", "protocol": PROTOCOL, "engine": "null", "version": "1"})

    def serve(until):
        while True:
            message = receive()
            op = message.get("op")
            if op == until:
                return message
            if op == "predict":
                send(engine.predict(message))
            elif op == "save":
                send(engine.save(message))
            elif op == "load":
                send(engine.load(message))
            elif op == "train":
                engine.train(message, serve)
            else:
                send({"op": "error", "message": f"unexpected {op}"})
                return None

    serve(until="quit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
