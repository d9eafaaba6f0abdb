#!/usr/bin/python3
"""sklearn: the linear text baseline as scikit-learn's out-of-core text example builds it.

That example (plot_out_of_core_classification.py) hashes each row's raw text with
HashingVectorizer (no alternating signs, rows L2-normalised) and trains SGDClassifier with its
own defaults (one-vs-rest over the classes, a linear SVM: hinge loss, L2 penalty alpha=1e-4,
sklearn's "optimal" rate) by partial_fit on mini-batches of 1000 rows; so does this engine,
with word uni- and bigrams in 2^20 buckets, and 5 passes (SGDClassifier's former default
n_iter), each visiting the batches in a seeded random order. partial_fit lets it pause
wherever the harness asks. The labels are read, the model made and the training text
vectorized once, at the start of training, on the clock. One-vs-rest classes train in parallel on the cell's threads (n_jobs); a binary
dataset has one classifier, so it uses one thread.

Options: loss=hinge|log_loss|modified_huber, alpha=1e-4, n_features=1048576, ngrams=2; and
the harness's input=text, which it requires (the rows then carry the text without the shared
featurizer's ids, whose time would otherwise be on this engine's clock).
Debian's python3-sklearn here: hence /usr/bin/python3.
"""
import os
import pickle
import sys

import numpy as np
import sklearn
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol  # noqa: E402
from protocol import EngineError  # noqa: E402

DEFAULTS = {"loss": "hinge", "alpha": 1e-4, "n_features": 1 << 20, "ngrams": 2}


class SklearnText:
    name = "sklearn"
    version = f"scikit-learn {sklearn.__version__}"

    def load(self, message):
        opts = protocol.options(message["options"], DEFAULTS)
        if not message["text"]:
            raise EngineError("sklearn trains on text: this dataset has no text column")
        if message["options"].get("input") != "text":
            raise EngineError("sklearn featurizes the raw text itself: give it input=text "
                              "(exec:sklearn_text,input=text), so the shared featurizer stays off its clock")
        settings = message["settings"]
        self.batch = settings["batch"] or 1000  # the example's mini-batch
        self.epochs = settings["epochs"] or 5
        self.seed = settings["seed"]
        self.labels = message["labels"]
        self.weights = None  # coef_ transposed, for predictions
        self.opts, self.settings = opts, settings
        self.model = None
        self.vectorizer = HashingVectorizer(ngram_range=(1, opts["ngrams"]), n_features=opts["n_features"],
                                            alternate_sign=False)
        self.text = [row["text"] for row in protocol.iter_rows(message["train"])]
        schedule = f"eta0={settings['lr']} constant" if settings["lr"] else "sklearn's 'optimal' rate"
        return {"batch": self.batch, "lr": settings["lr"] or 0, "epochs": self.epochs, "pauses": "any",
                "optimizer": f"SGDClassifier(loss={opts['loss']}, alpha={opts['alpha']}, {schedule}), partial_fit "
                             f"per batch, on HashingVectorizer(ngram_range=(1, {opts['ngrams']}), "
                             f"n_features={opts['n_features']})",
                "precision": "fp64 (scikit-learn's SGDClassifier)"}

    def read_labels(self, path):
        self.y = np.full(len(self.text), -1, dtype=np.int64)
        for i, labels in enumerate(protocol.iter_labels(path)):
            if len(labels) > 1:
                raise EngineError(f"sklearn trains single-label text; training row {i} has {len(labels)} labels")
            if labels:
                self.y[i] = labels[0]

    def train(self, message, session):
        self.read_labels(message["labels"])
        rate = {"learning_rate": "constant", "eta0": self.settings["lr"]} if self.settings["lr"] else {}
        self.model = SGDClassifier(loss=self.opts["loss"], alpha=self.opts["alpha"],
                                   n_jobs=self.settings["threads"] or 1, random_state=self.seed, **rate)
        x = self.vectorizer.transform(self.text)
        rows = len(self.text)
        classes = np.arange(self.labels)
        shuffle = np.random.default_rng(self.seed)
        for epoch in range(self.epochs):
            plan = iter(message["pause_after"] + [rows])
            at = next(plan)
            starts = shuffle.permutation(np.arange(0, rows, self.batch))
            for done, begin in enumerate(starts, start=1):
                take = np.arange(begin, min(begin + self.batch, rows))
                take = take[self.y[take] >= 0]
                if len(take):
                    self.model.partial_fit(x[take], self.y[take], classes=classes)
                    self.weights = None
                # Pauses count batches done: the harness's positions are multiples of the batch.
                while at is not None and min(done * self.batch, rows) >= at:
                    session.pause(epoch, at)
                    at = next(plan, None)

    def model_bytes(self):
        if self.model is None or not hasattr(self.model, "coef_"):  # stopped before its first batch
            return 0
        return self.model.coef_.nbytes + self.model.intercept_.nbytes

    def predict(self, rows, k):
        # decision_function's sparse-times-dense product copies coef_.T (classes x 2^20) into C
        # order on every call: 26 ms a single row on dbpedia. The copy is kept until the next step.
        if self.weights is None:
            self.weights = np.ascontiguousarray(self.model.coef_.T)
        x = self.vectorizer.transform([row["text"] for row in rows])
        scores = x @ self.weights + self.model.intercept_
        if scores.shape[1] == 1:  # binary: the score of class 1
            scores = np.hstack([-scores, scores])
        k = min(k, self.labels)
        return np.argsort(-scores, axis=1, kind="stable")[:, :k].tolist()

    def save(self, path):
        with open(path, "wb") as f:
            pickle.dump({"vectorizer": self.vectorizer, "model": self.model}, f)


if __name__ == "__main__":
    sys.exit(protocol.run(SklearnText()))
