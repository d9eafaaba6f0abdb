#!/usr/bin/python3
"""A third-party library wrapped as a user wraps one on protocol version 1 (protocol_v1.py, the
protocol.py that shipped before version 2): scikit-learn's SGDClassifier on the rows' sparse
features. `load` reads the rows, labels included, into a scipy CSR matrix; `train` runs
partial_fit batch by batch, pausing where asked; `predict` scores rows in pauses and after.
The referee's tests hold that such an engine is not flagged for work off the clock.
"""
import os
import sys

import numpy as np
import scipy.sparse
from sklearn.linear_model import SGDClassifier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol_v1 as protocol  # noqa: E402


def csr(rows, features):
    ptr = np.cumsum([0] + [len(r["ids"]) for r in rows])
    ids = [i for r in rows for i in r["ids"]]
    values = [v for r in rows for v in r["values"]]
    return scipy.sparse.csr_matrix((values, ids, ptr), shape=(len(rows), features))


class SgdV1:
    name = "sgd-v1"
    version = "1"

    def load(self, message):
        _, rows = protocol.read_rows(message["train"])
        self.features, self.labels = message["features"], message["labels"]
        self.x = csr(rows, self.features)
        self.y = np.array([r["labels"][0] for r in rows])
        settings = message["settings"]
        self.batch, self.epochs = settings["batch"] or 100, settings["epochs"] or 1
        self.model = SGDClassifier(random_state=settings["seed"])
        return {"batch": self.batch, "lr": 0, "epochs": self.epochs, "optimizer": "SGDClassifier"}

    def train(self, message, session):
        rows = self.x.shape[0]
        for epoch in range(self.epochs):
            plan = iter(message["pause_after"] + [rows])
            at = next(plan)
            for begin in range(0, rows, self.batch):
                end = min(begin + self.batch, rows)
                self.model.partial_fit(self.x[begin:end], self.y[begin:end], classes=np.arange(self.labels))
                while at is not None and end >= at:
                    session.pause(epoch, at)
                    at = next(plan, None)

    def model_bytes(self):
        return self.model.coef_.nbytes

    def predict(self, rows, k):
        scores = self.model.decision_function(csr(rows, self.features))
        return np.argsort(-scores, axis=1, kind="stable")[:, :min(k, self.labels)].tolist()

    def save(self, path):
        pass


if __name__ == "__main__":
    sys.exit(protocol.run(SgdV1()))
